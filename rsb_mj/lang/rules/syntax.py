"""RSB1xx: syntax. The parser (:mod:`rsb_mj.lang.parser`) reports these; this module only
registers their documentation for ``rsb lint --explain``."""

from __future__ import annotations

from rsb_mj.lang.rules.base import declare

declare(
    "RSB101",
    "unexpected-character",
    "error",
    """A character that cannot start any token at this point, such as '#', '{' or a stray
    quote. Names are letters, digits, '_' and '-'; numbers are decimal; ';' starts a
    comment.""",
    bad="(:objects block_a # block_b - letter_block)",
    good="(:objects block_a block_b - letter_block)  ; a comment",
)
declare(
    "RSB102",
    "unexpected-token",
    "error",
    """A token the grammar does not allow here, for example an unknown field inside an rsb
    block or a name where a number belongs. The message lists what would be accepted and
    suggests the closest keyword.""",
    bad="(:question (:sorce arithmetic) (:choices 4))",
    good="(:question (:source arithmetic) (:choices 4))",
)
declare(
    "RSB103",
    "unclosed-paren",
    "error",
    """The file ends while a '(' is still open. The diagnostic points at the innermost
    parenthesis that is never closed.""",
    bad="(define (problem p)\n  (:goal (And (In ?answer table_answer_zone))",
    good="(define (problem p)\n  (:goal (And (In ?answer table_answer_zone))))",
)
declare(
    "RSB104",
    "unreadable-file",
    "error",
    """The file cannot be read, or is not UTF-8 text.""",
    bad="(a binary file, or one saved as UTF-16)",
    good="(the same text saved as UTF-8)",
)
declare(
    "RSB105",
    "trailing-text",
    "error",
    """Text after the closing parenthesis of (define ...), usually one ')' too many. Only one
    problem per file is read.""",
    bad="(define (problem p) (:domain rsb)))",
    good="(define (problem p) (:domain rsb))",
)
declare(
    "RSB106",
    "missing-define",
    "error",
    """The file does not start with (define (problem NAME) ...) (after comments), or is
    empty.""",
    bad="(problem p) (:domain rsb)",
    good="(define (problem p) (:domain rsb) ...)",
)
declare(
    "RSB107",
    "number-out-of-range",
    "error",
    """A number literal beyond +-1e9 (``rsb_mj.lang.numbers.MAX_MAGNITUDE``), such as
    1e300, 1e999 (infinity as a 64-bit float) or a 400-digit integer. Task-file numbers are
    metres, radians, newtons and part ids; larger ones are typos, and would overflow the
    geometry checks and the scene builder.""",
    bad="(:layout (:min_spacing 1e999) (:yaw_range (-0.3 0.3)))",
    good="(:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3)))",
)
declare(
    "RSB108",
    "nesting-too-deep",
    "error",
    """Parentheses nested more than 100 levels deep. Real task files nest fewer than ten;
    the limit keeps every later stage (formatter, scorer) within Python's stack.""",
    bad="(:goal (And (And (And ... 100 levels ... (In ?answer table_answer_zone)))))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
