"""Text-only and layout shortcuts: what a policy could exploit without solving the question.

Each heuristic looks at an episode's question and options only (never at the correct
option) and returns the letter it would pick, or None when it does not apply: the numeric
heuristics need every option to start with a number, and a heuristic abstains when all
options tie on its feature (all two-digit numbers for "longest"). Among several best options
it picks the earliest letter. Rates are over the episodes where a heuristic applies.

The number-shape heuristics (``pick_most_divisors`` ...) read the options' numbers through
:mod:`rsb_mj.episodes.probes`; :func:`units_digit_oracle` is different: it is the success
rate of a guesser that *knows the answer's units digit* (cheap to compute for ``a op b``)
and picks uniformly among the options ending in it. It needs the correct option, so it is an
audit statistic, not a heuristic.

``BALANCED`` heuristics are held at chance in the frozen tables by construction
(:mod:`rsb_mj.tables.balance`); ``HELD_OUT`` ones are only measured by the audit, as a check
that balancing the first set did not open another shortcut.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from decimal import Decimal

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.numeric import leading_number, numbers_in, trailing_zeros
from rsb_mj.episodes.probes import divisor_count, last_two_digits, magnitude, units_digit

_WORD = re.compile(r"[a-z0-9]+")

Heuristic = Callable[[Episode], "str | None"]


def numeric_options(episode: Episode) -> list[Decimal] | None:
    """The options' leading numbers (``"5.2 m/s"`` -> 5.2), or None if some option does not
    start with a number."""
    values = [leading_number(o) for o in episode.options]
    return None if any(v is None for v in values) else values  # type: ignore[return-value]


def _best(scores: list, episode: Episode, *, largest: bool = True) -> str | None:
    if all(s == scores[0] for s in scores):
        return None
    best = max(scores) if largest else min(scores)
    return episode.letters[scores.index(best)]


def pick_most_divisors(episode: Episode) -> str | None:
    """The option with the most divisors among 1..12 (the issue's "nice number" rule)."""
    values = numeric_options(episode)
    return None if values is None else _best([divisor_count(v) for v in values], episode)


def pick_rarest_units_digit(episode: Episode) -> str | None:
    """The option whose units digit the fewest other options share."""
    values = numeric_options(episode)
    if values is None:
        return None
    digits = [units_digit(v) for v in values]
    counts = Counter(digits)
    return _best([counts[d] for d in digits], episode, largest=False)


def pick_rarest_last_two(episode: Episode) -> str | None:
    """The option whose last two digits the fewest other options share."""
    values = numeric_options(episode)
    if values is None:
        return None
    pairs = [last_two_digits(v) for v in values]
    counts = Counter(pairs)
    return _best([counts[p] for p in pairs], episode, largest=False)


def pick_commonest_magnitude(episode: Episode) -> str | None:
    """The option whose digit count the most other options share (an answer with as many
    digits as most options; distractors that cross a power of ten stand out)."""
    values = numeric_options(episode)
    if values is None:
        return None
    sizes = [magnitude(v) for v in values]
    counts = Counter(sizes)
    return _best([counts[s] for s in sizes], episode)


def units_digit_oracle(episode: Episode) -> float | None:
    """Success probability of a guess that knows the answer's units digit: 1 / (number of
    options ending in it); None for non-numeric options."""
    values = numeric_options(episode)
    if values is None:
        return None
    digits = [units_digit(v) for v in values]
    answer = digits[episode.letters.index(episode.correct)]
    return 1.0 / digits.count(answer)


def _argbest(values: list, letters: tuple[str, ...], *, largest: bool) -> str | None:
    """The letter of the best value (earliest on a tie); None when all values are equal,
    since the feature then says nothing."""
    if all(v == values[0] for v in values):
        return None
    best = max(values) if largest else min(values)
    return letters[values.index(best)]


def pick_median(episode: Episode) -> str | None:
    """The option of median value (the lower median for an even count)."""
    values = numeric_options(episode)
    if values is None:
        return None
    order = sorted(range(len(values)), key=lambda i: values[i])
    return episode.letters[order[(len(values) - 1) // 2]]


def pick_largest(episode: Episode) -> str | None:
    """The option of largest value."""
    values = numeric_options(episode)
    return None if values is None else _argbest(values, episode.letters, largest=True)


def pick_smallest(episode: Episode) -> str | None:
    """The option of smallest value."""
    values = numeric_options(episode)
    return None if values is None else _argbest(values, episode.letters, largest=False)


def pick_longest(episode: Episode) -> str | None:
    """The option with the most characters."""
    return _argbest([len(o) for o in episode.options], episode.letters, largest=True)


def pick_shortest(episode: Episode) -> str | None:
    """The option with the fewest characters."""
    return _argbest([len(o) for o in episode.options], episode.letters, largest=False)


def words(text: str) -> set[str]:
    """Lower-case alphanumeric words of ``text``."""
    return set(_WORD.findall(text.lower()))


def pick_word_overlap(episode: Episode) -> str | None:
    """The option sharing the most distinct words with the question."""
    question = words(episode.question)
    return _argbest(
        [len(words(o) & question) for o in episode.options], episode.letters, largest=True
    )


def question_numbers(text: str) -> list[Decimal]:
    """The numbers written in digits in ``text``."""
    return numbers_in(text)


def pick_closest_to_question_number(episode: Episode) -> str | None:
    """The option closest to any number written in the question."""
    values = numeric_options(episode)
    numbers = question_numbers(episode.question)
    if values is None or not numbers:
        return None
    distance = [min(abs(v - q) for q in numbers) for v in values]
    return _argbest(distance, episode.letters, largest=False)


def pick_closest_to_mean(episode: Episode) -> str | None:
    """The option closest to the mean of all options (a centroid guess)."""
    values = numeric_options(episode)
    if values is None:
        return None
    mean = sum(values) / len(values)
    return _argbest([abs(v - mean) for v in values], episode.letters, largest=False)


def pick_roundest(episode: Episode) -> str | None:
    """The option with the most trailing zeros (answers of word problems are often round)."""
    values = numeric_options(episode)
    if values is None:
        return None
    return _argbest([trailing_zeros(v) for v in values], episode.letters, largest=True)


def pick_most_isolated(episode: Episode) -> str | None:
    """The option farthest from its nearest other option."""
    values = numeric_options(episode)
    if values is None:
        return None
    gaps = [min(abs(v - w) for j, w in enumerate(values) if j != i) for i, v in enumerate(values)]
    return _argbest(gaps, episode.letters, largest=True)


def pick_most_words(episode: Episode) -> str | None:
    """The option with the most words (a word-count cousin of "longest")."""
    return _argbest([len(o.split()) for o in episode.options], episode.letters, largest=True)


def pick_closest_to_midrange(episode: Episode) -> str | None:
    """The option closest to the middle of the options' range, ``(min + max) / 2``."""
    values = numeric_options(episode)
    if values is None:
        return None
    middle = (min(values) + max(values)) / 2
    return _argbest([abs(v - middle) for v in values], episode.letters, largest=False)


def trigrams(text: str) -> set[str]:
    """Character trigrams of the lower-cased text with runs of spaces collapsed."""
    text = " ".join(text.lower().split())
    return {text[i : i + 3] for i in range(len(text) - 2)}


def pick_trigram_overlap(episode: Episode) -> str | None:
    """The option sharing the most character trigrams with the question (text options)."""
    if numeric_options(episode) is not None:
        return None
    question = trigrams(episode.question)
    scores = [len(trigrams(o) & question) for o in episode.options]
    return _argbest(scores, episode.letters, largest=True)


def pick_fewest_words(episode: Episode) -> str | None:
    """The option with the fewest words."""
    return _argbest([len(o.split()) for o in episode.options], episode.letters, largest=False)


def pick_alphabetically_first(episode: Episode) -> str | None:
    """The option that sorts first, case-insensitively (text options only)."""
    if numeric_options(episode) is not None:
        return None
    keys = [o.lower() for o in episode.options]
    return episode.letters[keys.index(min(keys))]


def pick_similar_to_others(episode: Episode) -> str | None:
    """The option sharing the most words with the other options (distractors written as
    variations of the answer make it the "centroid"); text options only."""
    if numeric_options(episode) is not None:
        return None
    bags = [words(o) for o in episode.options]
    shared = [
        sum(len(bag & other) for j, other in enumerate(bags) if j != i)
        for i, bag in enumerate(bags)
    ]
    return _argbest(shared, episode.letters, largest=True)


#: Heuristics held at chance in the frozen tables (name -> function): the issue's list
#: (median, largest, smallest, longest, word overlap, closest to a question number) plus
#: shortcuts the episode sampler alone cannot remove from a source (measured on free draws:
#: MMLU-Pro's answer is the option most similar to the others in 28% of 4-choice episodes,
#: the closest to the options' mean in 34% of numeric ones, the one with the most words in
#: 30% of 4-choice episodes even when "longest" (characters) is balanced; GSM8K's often-round
#: answer is the roundest option in 32%), and the number-shape probes of issue 9
#: (:mod:`rsb_mj.episodes.probes`: the "nice number" rule, most divisors among 1..12, picked
#: the answer in 32% of Math-4 and 34% of HardMath-4 eval rows before distractors were drawn
#: like answers; the rarest units digit / last two digits; the commonest digit count).
BALANCED: dict[str, Heuristic] = {
    "median": pick_median,
    "largest": pick_largest,
    "smallest": pick_smallest,
    "longest": pick_longest,
    "shortest": pick_shortest,
    "word_overlap": pick_word_overlap,
    "closest_to_question_number": pick_closest_to_question_number,
    "closest_to_mean": pick_closest_to_mean,
    "roundest": pick_roundest,
    "similar_to_others": pick_similar_to_others,
    "most_words": pick_most_words,
    "most_divisors": pick_most_divisors,
    "rarest_units_digit": pick_rarest_units_digit,
    "rarest_last_two_digits": pick_rarest_last_two,
    "commonest_magnitude": pick_commonest_magnitude,
}
#: Heuristics only measured (never used to build a table): a check that balancing the
#: others did not open a new shortcut.
HELD_OUT: dict[str, Heuristic] = {
    "most_isolated": pick_most_isolated,
    "closest_to_midrange": pick_closest_to_midrange,
    "fewest_words": pick_fewest_words,
    "alphabetically_first": pick_alphabetically_first,
    "trigram_overlap": pick_trigram_overlap,
}
HEURISTICS: dict[str, Heuristic] = {**BALANCED, **HELD_OUT}


def numeric_rank(episode: Episode) -> int | None:
    """0-based rank of the correct option among the sorted numeric options (None if the
    options are not all numbers)."""
    values = numeric_options(episode)
    if values is None:
        return None
    return sorted(values).index(values[episode.letters.index(episode.correct)])


def target_position(episode: Episode) -> int:
    """0-based left-to-right position of the correct candidate, seen from the robot
    (ascending table-frame x; ties by name)."""
    order = sorted(episode.layout, key=lambda name: (episode.layout[name].x, name))
    return order.index(episode.target)


def target_color(episode: Episode) -> str:
    """Color name of the correct candidate."""
    return episode.colors[episode.target]


def answer_text(episode: Episode) -> str:
    """The correct option's text."""
    return episode.options[episode.letters.index(episode.correct)]
