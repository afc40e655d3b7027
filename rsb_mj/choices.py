"""Choice counts: how many options a task has, their letters and how candidates show them.

A task has ``N`` options, ``2 <= N <= 10``, lettered ``A, B, C, ...`` with J skipped (too
easily confused with I): ten choices are ``A..I, K``.

Two ways of telling the candidates apart, chosen by ``N`` (:func:`style`):

* ``"colors"`` (``N <= len(PALETTE)``, 8): every candidate gets its own palette color and
  the instruction states the mapping (``{MAPA}`` = ``"A is the red block"``); 4-choice
  suites are this style;
* ``"letters"`` (``N > 8``): all candidates share one color
  (:data:`rsb_mj.colors.TEN_CHOICE_COLOR`) and show their option letter; the instruction
  lists the options (``{OPTIONS}``); 10-choice suites are this style, and their candidates
  must be able to show a letter.

Candidates that show their option's *answer* (an ``answer_plate``, Act2Answer) need neither:
their instructions take only the question, ``{Q}`` (:data:`ANSWER_PLACEHOLDERS`).
"""

from __future__ import annotations

from rsb_mj.colors import PALETTE

#: Option letters in order (J is skipped).
ALPHABET: tuple[str, ...] = ("A", "B", "C", "D", "E", "F", "G", "H", "I", "K")
#: Every supported choice count.
CHOICE_COUNTS: tuple[int, ...] = tuple(range(2, len(ALPHABET) + 1))
#: Option letters per choice count.
LETTERS: dict[int, tuple[str, ...]] = {n: ALPHABET[:n] for n in CHOICE_COUNTS}
#: Largest choice count whose candidates get distinct palette colors.
MAX_COLORED = len(PALETTE)
#: The two styles (see the module docstring).
STYLES = ("colors", "letters")
#: The placeholders of an instruction for candidates that show their answers: the question
#: (or the description of the target) only; the candidates themselves show the options.
ANSWER_PLACEHOLDERS: tuple[str, ...] = ("Q",)
#: Choice count of answer-showing tasks (Act2Answer's binary items).
ANSWER_CHOICES = 2
#: File-name prefix of their template files (``tasks/templates/a2a-{set}-{form}.txt``).
ANSWER_TEMPLATE_PREFIX = "a2a-"


def is_answer_template(file_name: str) -> bool:
    """True for the name of an answer-template file (``a2a-unseen-text.txt``)."""
    return file_name.startswith(ANSWER_TEMPLATE_PREFIX) and file_name.endswith(".txt")


def style(choices: int) -> str:
    """``"colors"`` for ``choices <= MAX_COLORED`` (8), else ``"letters"``."""
    return "colors" if choices <= MAX_COLORED else "letters"


def counts_text() -> str:
    """``"2..10"``: the valid choice counts, for messages."""
    return f"{CHOICE_COUNTS[0]}..{CHOICE_COUNTS[-1]}"


def map_placeholder(letter: str) -> str:
    """The placeholder stating option ``letter``'s object: ``"MAPA"`` (``"A is the red block"``)."""
    return f"MAP{letter}"


def placeholders(choices: int) -> tuple[str, ...]:
    """Every placeholder an instruction template for ``choices`` options may use.

    ``{Q}`` is the question (``"colors"`` style: followed by its lettered options),
    ``{OPTIONS}`` the lettered options ``"(A) 12 (B) 15 ..."``, and, in the ``"colors"``
    style, ``{MAPA}`` .. one per option letter (``"A is the red block"``).
    """
    if style(choices) == "colors":
        return ("Q", *(map_placeholder(x) for x in LETTERS[choices]), "OPTIONS")
    return ("Q", "OPTIONS")


def required_placeholders(choices: int) -> tuple[str, ...]:
    """The placeholders every template for ``choices`` options must contain: ``{Q}`` and
    every ``{MAPx}`` (``"colors"``: which object stands for which option), or ``{Q}`` and
    ``{OPTIONS}`` (``"letters"``)."""
    if style(choices) == "colors":
        return ("Q", *(map_placeholder(x) for x in LETTERS[choices]))
    return ("Q", "OPTIONS")
