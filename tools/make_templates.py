"""Write the instruction template files for every choice count from the 4- and 10-choice ones.

``tasks/templates/{seen,unseen}_4.txt`` and ``_10.txt`` are written by hand. For a choice
count N <= 8 (the ``colors`` style) each 4-choice template's mapping list
``{MAPA}, {MAPB}, {MAPC}, and {MAPD}`` becomes N items with the same separators (the last
one before the final item; ``", and "`` reads ``" and "`` for two items); for 9 choices
(``letters``) the 10-choice templates are used as they are. Run from the repository root::

    PYTHONPATH=$PWD python tools/make_templates.py          # rewrite the files
    PYTHONPATH=$PWD python tools/make_templates.py --check  # exit 1 if one would change
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from rsb_mj.atomic import atomic_write_text
from rsb_mj.choices import CHOICE_COUNTS, LETTERS, style

ROOT = Path(__file__).resolve().parent.parent / "tasks" / "templates"
_RUN = re.compile(r"\{MAPA\}(.*?)\{MAPB\}(.*?)\{MAPC\}(.*?)\{MAPD\}")
_HEADER = {
    "seen": "# Seen instruction templates, {n} choices (used for training demonstrations).\n",
    "unseen": "# Unseen instruction templates, {n} choices (held out for evaluation).\n",
}


def expand(line: str, n: int) -> str:
    """The 4-choice template ``line`` with its mapping list written for ``n`` options."""
    match = _RUN.search(line)
    if match is None:
        raise SystemExit(f"no {{MAPA}}..{{MAPD}} run in template: {line}")
    sep, last = match.group(1), match.group(3)
    if n == 2 and last.startswith(", and"):
        last = last[1:]
    items = [f"{{MAP{x}}}" for x in LETTERS[n]]
    run = sep.join(items[:-1]) + last + items[-1]
    return line[: match.start()] + run + line[match.end() :]


def body(set_name: str, n: int) -> str:
    """The text of ``{set_name}_{n}.txt``."""
    source = 4 if style(n) == "colors" else 10
    lines = (ROOT / f"{set_name}_{source}.txt").read_text(encoding="utf-8").splitlines()
    templates = [x for x in lines if x.strip() and not x.lstrip().startswith("#")]
    if style(n) == "colors":
        templates = [expand(x, n) for x in templates]
        what = f'{{MAPA}}..{{MAP{LETTERS[n][-1]}}} = "A is the red block"'
    else:
        what = '{OPTIONS} = "(A) 12 (B) 15 ..." (each object shows its letter)'
    header = _HEADER[set_name].format(n=n) + (
        f"# Made by tools/make_templates.py from {set_name}_{source}.txt; ids are "
        f"{set_name}-{n}-00 .. in line order.\n# Placeholders: {{Q}} = the question; {what}.\n"
    )
    return header + "\n".join(templates) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) every generated template file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file would change")
    args = parser.parse_args(argv)
    stale = []
    for n in CHOICE_COUNTS:
        if n in (4, 10):
            continue
        for set_name in ("seen", "unseen"):
            path = ROOT / f"{set_name}_{n}.txt"
            text = body(set_name, n)
            if path.is_file() and path.read_text(encoding="utf-8") == text:
                continue
            stale.append(path)
            if not args.check:
                atomic_write_text(path, text)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'} {path}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
