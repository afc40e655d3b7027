"""The rsb blocks of a task file: ``:question``, ``:instruction``, ``:options``, ``:layout`` and
``:answer_zone`` (what LIBERO / VLA-Arena files do not have).

Re-exported by :mod:`rsb_mj.lang.ast`, whose :class:`~rsb_mj.lang.ast.Problem` holds them.
Units: metres and radians.
"""

from __future__ import annotations

from dataclasses import field

from rsb_mj.lang.nodes import NO_SPAN, Node, Span
from rsb_mj.lang.nodes import node as _node

__all__ = [
    "FILE_SOURCE",
    "LEGACY_ANSWER_ZONE",
    "AnswerZone",
    "Instruction",
    "Layout",
    "OptionMap",
    "Question",
    "SourceParam",
    "TemplateChoice",
]


#: ``Question.source`` of a user question bank, ``(:source (:file "questions.jsonl"))``.
FILE_SOURCE = "file"


@_node
class SourceParam(Node):
    """A parameter of a built-in question source, e.g. ``(:subject "biology")`` or
    ``(:answer_range 0 100)``: the keyword without its colon, lower case, and its values
    (names and quoted strings as text without quotes, numbers as numbers)."""

    name: str
    values: tuple[str | int | float, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Question(Node):
    """``(:question (:source S) (:choices N))``: where questions come from and how many options.

    A field is None when the file omits it (the linter reports that as an error, so a
    problem returned by :func:`rsb_mj.lang.load_task` always has both).

    Attributes:
        source: the source name, or :data:`FILE_SOURCE` for a question bank file.
        choices: the number of options (2..10).
        params: parameters of a built-in source, ``(:source (NAME (:key value ...) ...))``.
        file: the question bank path as written (relative to the task file), or None.
        repeated: positions of a second ``(:source ...)`` or ``(:choices ...)`` (a lint
            error; the first is kept).
        source_span: position of the (first) ``(:source ...)`` form.
        choices_span: position of the (first) ``(:choices N)`` form.
    """

    source: str | None = None
    choices: int | float | None = None
    params: tuple[SourceParam, ...] = ()
    file: str | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    repeated: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)
    source_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    choices_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)

    def param(self, name: str) -> SourceParam | None:
        """The parameter called ``name``, or None."""
        return next((p for p in self.params if p.name == name), None)


@_node
class TemplateChoice(Node):
    """One template selection of ``(:templates ...)``: a shipped set or a template file.

    Attributes:
        split: ``"train"`` or ``"eval"`` for ``(:train X)`` / ``(:eval X)``, None for both.
        set_name: ``"seen"`` or ``"unseen"`` (shipped files), or None for a file.
        file: the template file path as written (relative to the task file), or None.
    """

    split: str | None = None
    set_name: str | None = None
    file: str | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Instruction(Node):
    """``(:instruction (:templates ...))``: which instruction templates episodes draw from.

    ``(:templates seen)`` (both splits), ``(:templates (:file "my_templates.txt"))``, or one
    per split, ``(:templates (:train seen) (:eval unseen))`` (the six suites: seen templates
    for training, unseen ones for evaluation, as in the RSB paper).

    Attributes:
        templates: the set name of a plain ``(:templates NAME)`` (None otherwise).
        choices: every selection written, in source order (see :meth:`for_split`).
        repeated: positions of a second ``(:templates ...)`` (a lint error; the first wins).
    """

    templates: str | None = None
    choices: tuple[TemplateChoice, ...] = field(default=(), repr=False)
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    repeated: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.templates is not None and not self.choices:
            object.__setattr__(self, "choices", (TemplateChoice(None, self.templates),))

    def for_split(self, split: str) -> TemplateChoice | None:
        """The selection for ``split``: its ``(:train X)``/``(:eval X)``, else the one for
        both splits, else None."""
        for choice in self.choices:
            if choice.split == split:
                return choice
        return next((c for c in self.choices if c.split is None), None)


@_node
class AnswerZone(Node):
    """``(:answer_zone table_answer_zone)``: the region(s) (full names) the answer goes in."""

    regions: tuple[str, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class OptionMap(Node):
    """``(:options (:map shuffle))`` or a fixed ``(:options (:map (A block_a) (B block_b) ...))``.

    Attributes:
        rule: ``"shuffle"`` (drawn per episode) or ``"fixed"`` (``pairs`` given).
        pairs: option letter -> candidate name pairs for a fixed mapping, else ``()``.
        repeated: positions of further ``(:map ...)`` forms in the same block (a lint error:
            only one mapping may be given; the first is kept).
    """

    rule: str
    pairs: tuple[tuple[str, str], ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    repeated: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)


@_node
class Layout(Node):
    """``(:layout (:min_spacing D) (:yaw_range (LO HI)))``.

    Attributes:
        min_spacing: minimum gap between candidate footprints [m], or None.
        yaw_range: candidate yaw interval [rad], or None.
    """

    min_spacing: float | None = None
    yaw_range: tuple[float, float] | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


#: The region name (``<target>_answer_zone``) read as the answer zone when a file has no
#: ``(:answer_zone ...)`` block: deprecated, kept so older task files run (RSB452 warns).
LEGACY_ANSWER_ZONE = "answer_zone"
