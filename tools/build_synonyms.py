"""Build ``assets/wordnet/synonyms.json``, the language-perturbation table, from WordNet 3.0.

Offline, build-time only: the WordNet 3.0 database comes from Debian's ``wordnet-base``
package (``apt-get install -y wordnet-base`` puts ``index.*`` and ``data.*`` in
``/usr/share/wordnet``); nothing is downloaded and nltk is not used. The script parses the
database files itself (format: ``man 5 wndb``).

The table holds only the words of our instruction templates' *command* parts (the template
text outside ``{Q}``, ``{OPTIONS}``, ``{MAPA}``..; see ``tasks/templates/``). Every such word
must be listed either in :data:`SENSES` (substitutable: the WordNet sense it has in the
templates) or in :data:`NOT_SUBSTITUTED` (function words, inflected forms, parts of phrasal
verbs): the build fails naming any unlisted word, so the table follows the templates.

For a substitutable word, its substitutes are the other lemmas of the chosen synset
(synonyms) and, where allowed, the lemmas of its direct hypernym synsets (``@``/``@i``
pointers), in WordNet's order. A word used in two parts of speech in the templates ("answer
this question" / "the correct answer") lists both senses and keeps only the lemmas valid for
both. Screened out: the word itself, proper nouns, lemmas with digits or parentheses, color
names of :data:`rsb_mj.colors.PALETTE` and option letters (they could be read as a mapping),
and the few lemmas listed in :data:`EXCLUDE` (a rarer sense of the synset that misleads here).

Goal tasks (``--goal``, ``assets/wordnet/goal_synonyms.json``): the words and phrases of
LIBERO's and VLA-Arena's ``:language`` instructions listed in :data:`GOAL_SENSES` (verbs of
manipulation and "table"; object names, colours and spatial words are never substituted),
built the same way; a phrase ("pick up") is WordNet's lemma with ``_`` (``pick_up``). The
instructions' own sentences are imperative, so the verbs' base forms fit. A separate table,
so the question templates' slots never change.

Usage::

    python tools/build_synonyms.py [--wordnet /usr/share/wordnet] [--goal] [--check]

``--check`` rebuilds in memory and exits 1 when the shipped table differs (CI-style).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from rsb_mj.atomic import atomic_write_text
from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE
from rsb_mj.episodes.templates import _FIELD, TEMPLATE_SETS, load_templates
from rsb_mj.resources import assets_dir

POS_FILES = {"n": "noun", "v": "verb", "a": "adj"}
#: Hypernym pointer symbols (plain and instance).
HYPERNYM = ("@", "@i")

#: word -> (senses as (pos, 1-based sense number in WordNet's frequency order), hypernyms?).
#: Sense numbers follow ``index.<pos>``; chosen by reading each word's use in the templates.
SENSES: dict[str, tuple[tuple[tuple[str, int], ...], bool]] = {
    "answer": ((("n", 1), ("v", 1)), False),  # "the correct answer" / "answer this question"
    "gray": ((("a", 1),), False),  # of an achromatic color
    "object": ((("n", 1),), True),  # physical object
    "zone": ((("n", 1),), True),  # a locally circumscribed place
    "correct": ((("a", 1),), False),  # free from error
    "right": ((("a", 2),), False),  # correct
    "place": ((("v", 1),), True),  # put into a certain place
    "put": ((("v", 1),), True),
    "set": ((("v", 1),), True),  # "set it down in the gray answer zone"
    "option": ((("n", 2),), False),  # one of a number of things to choose from
    "question": ((("n", 1),), False),
    "letter": ((("n", 2),), True),  # character of the alphabet
    "move": ((("v", 2),), False),  # cause to move into a new position
    "area": ((("n", 1),), True),
    "choose": ((("v", 1),), False),
    "select": ((("v", 1),), False),
    "target": ((("n", 3),), True),  # "the gray answer zone is the target"
    "patch": ((("n", 1),), False),
    "region": ((("n", 1),), True),
    "block": ((("n", 3),), True),  # a three-dimensional shape with six sides
    "grasp": ((("v", 1),), True),  # hold firmly
    "square": ((("n", 1),), True),  # the plane figure
    "drop": ((("v", 1),), True),  # let fall
    "bring": ((("v", 1),), True),
    "lift": ((("v", 1),), True),
    "task": ((("n", 2),), False),
    "deliver": ((("v", 2),), True),  # bring to a destination
    "transfer": ((("v", 2),), True),  # move from one place to another
    "carry": ((("v", 1),), True),
    "relocate": ((("v", 2),), True),
    "table": ((("n", 2),), True),  # the piece of furniture
    "note": ((("v", 2),), False),  # "note that A is ..."
    "remember": ((("v", 2),), False),  # keep in mind
    "take": ((("v", 4),), False),  # get into one's hands
    "legend": ((("n", 2),), False),  # caption
    "problem": ((("n", 2),), True),  # a question raised for solution
    "solution": ((("n", 2),), False),
    "job": ((("n", 2),), False),
    "solve": ((("v", 1),), False),
    "consider": ((("v", 2),), False),
    "read": ((("v", 1),), False),
    "possible": ((("a", 2),), False),
}

#: Goal instructions: word or phrase -> (senses, hypernyms?), as :data:`SENSES`.
GOAL_SENSES: dict[str, tuple[tuple[tuple[str, int], ...], bool]] = {
    "pick up": ((("v", 1),), True),  # take and lift upward
    "put": ((("v", 1),), True),
    "place": ((("v", 1),), True),
    "push": ((("v", 1),), True),  # move with force
    "stack": ((("v", 2),), False),  # arrange in stacks
    "take": ((("v", 4),), False),  # get into one's hands
    "turn on": ((("v", 1),), False),  # cause to operate by flipping a switch
    "turn off": ((("v", 1),), False),  # cause to stop operating by disengaging a switch
    "open": ((("v", 1),), False),  # cause to open or to become open (a drawer, a door)
    "close": ((("v", 1),), False),  # move so that an opening is obstructed; make shut
    "table": ((("n", 2),), True),  # the piece of furniture
}

#: Lemmas of a chosen synset that mislead in our sentences, per word.
EXCLUDE: dict[str, tuple[str, ...]] = {
    "area": ("country",),  # the geographic sense's other lemma
    "solution": ("solvent",),  # chemistry
    "solve": ("lick",),  # slang
    "turn off": ("cut", "turn out"),  # "cut the stove", "turn out the stove" mislead
    "zone": ("topographic point",),  # a surveying term
    "target": ("topographic point",),
    "problem": ("head",),  # "the question at issue" sense
    "pick up": ("gather up", "get up", "bring up"),  # to collect; to rise; to mention
}

#: Command-part words that are never substituted, and why.
_FUNCTION_WORDS = (
    "a an and are as by each for from here in inside into is it its of on onto "
    "that the then this to which whose with your s out up down please"
)
_INFLECTED = (
    "answers options objects choices candidates letters alternatives lettered "
    "showing shows matches matching moving follows following"
)
_PHRASAL = "pick figure work keep mind stand one"
NOT_SUBSTITUTED: dict[str, str] = {
    **dict.fromkeys(_FUNCTION_WORDS.split(), "function word"),
    **dict.fromkeys(_INFLECTED.split(), "inflected form (a substitute would need inflecting)"),
    **dict.fromkeys(_PHRASAL.split(), "part of a phrasal verb or idiom"),
    "true": "WordNet sense 'consistent with fact' has no other lemma",
    "mapping": "WordNet has only the mathematical sense",
}


def command_words() -> list[str]:
    """Lower-case words of every template's command part (outside placeholders), sorted."""
    words: set[str] = set()
    for set_name in TEMPLATE_SETS:
        for choices in (4, 10):
            for template in load_templates(set_name, choices):
                words.update(re.findall(r"[a-z]+", _FIELD.sub(" ", template.text).lower()))
    return sorted(words)


class WordNet:
    """Reads WordNet 3.0 ``index.<pos>`` and ``data.<pos>`` files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        missing = [
            str(root / f"{kind}.{name}")
            for name in POS_FILES.values()
            for kind in ("index", "data")
            if not (root / f"{kind}.{name}").is_file()
        ]
        if missing:
            raise SystemExit(
                f"WordNet 3.0 files missing: {', '.join(missing)}; "
                "install them with: apt-get install -y wordnet-base"
            )
        self._index: dict[str, dict[str, list[str]]] = {}

    def offsets(self, lemma: str, pos: str) -> list[str]:
        """Synset offsets of ``lemma`` as ``pos``, most frequent sense first."""
        if pos not in self._index:
            table: dict[str, list[str]] = {}
            text = (self.root / f"index.{POS_FILES[pos]}").read_text(encoding="latin-1")
            for line in text.splitlines():
                if line.startswith(" "):
                    continue  # license header
                f = line.split()
                n_ptr = int(f[3])
                table[f[0]] = f[4 + n_ptr + 2 :]
            self._index[pos] = table
        return self._index[pos].get(lemma, [])

    def synset(self, pos: str, offset: str) -> tuple[list[str], list[tuple[str, str, str]], str]:
        """(lemmas, pointers as (symbol, offset, pos), gloss) of one synset."""
        with open(self.root / f"data.{POS_FILES[pos]}", "rb") as fh:
            fh.seek(int(offset))
            line = fh.readline().decode("latin-1")
        head, _, gloss = line.partition(" | ")
        f = head.split()
        n_words = int(f[3], 16)
        lemmas = [f[4 + 2 * i] for i in range(n_words)]
        i = 4 + 2 * n_words
        pointers = [
            (f[i + 1 + 4 * k], f[i + 2 + 4 * k], f[i + 3 + 4 * k]) for k in range(int(f[i]))
        ]
        return lemmas, pointers, gloss.strip()


def _clean(lemma: str) -> str:
    return lemma.replace("_", " ")


def _allowed(word: str, lemma: str) -> bool:
    screened = {c.lower() for c in PALETTE} | {x.lower() for x in LETTERS[10]}
    return (
        lemma != word
        and lemma == lemma.lower()
        and not re.search(r"[\d()]", lemma)
        and lemma not in screened
        and lemma not in EXCLUDE.get(word, ())
    )


def build(wordnet: WordNet, goal: bool = False) -> dict:
    """The table as a JSON-ready dict (``goal``: the goal instructions' table).

    Raises:
        SystemExit: naming template words listed nowhere, or senses WordNet lacks.
    """
    if goal:
        words, listed = sorted(GOAL_SENSES), GOAL_SENSES
    else:
        words, listed = command_words(), SENSES
        unlisted = [w for w in words if w not in SENSES and w not in NOT_SUBSTITUTED]
        if unlisted:
            raise SystemExit(
                "template command words neither in SENSES nor in NOT_SUBSTITUTED: "
                + ", ".join(unlisted)
            )
    table: dict[str, dict] = {}
    for word in words:
        if word not in listed:
            continue
        senses, with_hypernyms = listed[word]
        sense_rows, sets = [], []
        for pos, number in senses:
            offsets = wordnet.offsets(word.replace(" ", "_"), pos)
            if len(offsets) < number:
                raise SystemExit(f"{word}: WordNet has {len(offsets)} {pos} senses, not {number}")
            lemmas, pointers, gloss = wordnet.synset(pos, offsets[number - 1])
            synonyms = [_clean(x) for x in lemmas]
            hypernyms: list[str] = []
            if with_hypernyms and pos in ("n", "v"):
                for symbol, offset, ptr_pos in pointers:
                    if symbol in HYPERNYM:
                        hypernyms += [_clean(x) for x in wordnet.synset(ptr_pos, offset)[0]]
            synonyms = [x for x in dict.fromkeys(synonyms) if _allowed(word, x)]
            hypernyms = [x for x in dict.fromkeys(hypernyms) if _allowed(word, x)]
            sense_rows.append(
                {
                    "pos": pos,
                    "sense": number,
                    "offset": offsets[number - 1],
                    "gloss": gloss.split(";")[0],
                    "synonyms": synonyms,
                    "hypernyms": hypernyms,
                }
            )
            sets.append(list(dict.fromkeys(synonyms + hypernyms)))
        substitutes = [x for x in sets[0] if all(x in s for s in sets[1:])]
        if substitutes:
            table[word] = {"senses": sense_rows, "substitutes": substitutes}
    return {
        "source": "WordNet 3.0, Princeton University (Debian package wordnet-base); see LICENSE",
        "built_by": "tools/build_synonyms.py",
        "words": table,
    }


def main(argv: list[str] | None = None) -> int:
    """Build (or ``--check``) the table; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--goal", action="store_true", help="the goal instructions' table")
    parser.add_argument("--check", action="store_true", help="exit 1 if the table differs")
    args = parser.parse_args(argv)
    name = "goal_synonyms.json" if args.goal else "synonyms.json"
    args.output = args.output or assets_dir() / "wordnet" / name
    table = build(WordNet(args.wordnet), goal=args.goal)
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = args.output.is_file() and args.output.read_text(encoding="utf-8") == text
        print(f"{args.output}: {'up to date' if same else 'differs from a rebuild'}")
        return 0 if same else 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.output, text)
    n = len(json.loads(text)["words"])
    print(f"wrote {args.output} ({n} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
