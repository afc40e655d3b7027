"""Typed AST of the rsb task language (a superset of LIBERO / VLA-Arena BDDL).

Every node is a frozen dataclass with value equality (from :class:`Node`). Each node carries
its source :class:`Span` in ``span``; the span is excluded from equality, hashing and ``repr``
so that tests can write ``assert parse_text(src) == expected`` with hand-built nodes.

Frames and units: region ``:ranges`` are rectangles ``(x0 y0 x1 y1)`` in the *table frame*
(origin at the center of the table top, x to the robot's right, y away from the robot, z up),
in metres; yaw values are radians about +z.

The :class:`Problem` root offers the helpers the later stages use::

    problem.candidates                 # ("block_a", "block_b", ...)
    problem.question.source            # "arithmetic" | "gsm8k" | "mmlu_pro" | "mmlu" | "file"
    problem.question.params            # (SourceParam("subject", ("biology",)), ...)
    problem.question.file              # "questions.jsonl" for (:source (:file ...))
    problem.question.choices           # 2..10
    problem.instruction.for_split("eval")  # TemplateChoice: a set name or a file
    problem.answer_zone_names          # ("table_answer_zone",)
    problem.layout.min_spacing         # metres
    problem.layout.yaw_range           # (lo, hi) radians
    problem.category_of("block_a")     # "letter_block"
    problem.region("table_candidates") # Region
    problem.placement_of("block_a")    # "table_candidates"
    problem.grasp, problem.goal        # expression nodes (And / Or / Not / Atom)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, Union

from rsb_mj.errors import TaskError


class Span(NamedTuple):
    """A source range, 1-based: ``line:column`` of the first character to ``end_line:end_column``
    (exclusive end column, as Lark reports it).

    A named tuple: immutable, ordered by position, and cheap to build (a parse makes one per
    node, tens of thousands when linting a folder)."""

    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


#: The span of nodes built by hand (not parsed).
NO_SPAN = Span()


class Node:
    """Base of the AST nodes: value equality, hashing and ``repr`` over the fields declared to
    take part in them (spans and other positions do not), written once here instead of being
    generated for each of the ~20 node classes: ``rsb lint`` imports this module at every
    start, and generating them cost about 10 ms of it."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _key(self) == _key(other)

    def __hash__(self) -> int:
        return hash((self.__class__, _key(self)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shown(type(self)))
        return f"{type(self).__qualname__}({shown})"


#: A node class: a frozen dataclass whose equality, hash and ``repr`` come from :class:`Node`.
_node = dataclass(frozen=True, eq=False, repr=False)


@functools.cache
def _compared(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.compare)


@functools.cache
def _shown(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.repr)


def _key(node: Any) -> tuple[Any, ...]:
    return tuple(getattr(node, name) for name in _compared(type(node)))


# --------------------------------------------------------------------------------------------
# Expressions (:init, :goal, :cost, :grasp)
# --------------------------------------------------------------------------------------------


@_node
class Name(Node):
    """A bare name used as a predicate argument, e.g. ``block_a`` or ``table_answer_zone``."""

    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Variable(Node):
    """A variable such as ``?answer`` (``name="answer"``) or ``?c - candidate`` (``kind``)."""

    name: str
    kind: str | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Number(Node):
    """A numeric argument, e.g. a distance threshold in metres (``0.05``)."""

    value: float
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class NumberList(Node):
    """A parenthesized list of numbers, e.g. VLA-Arena part ids ``(3 9 12)``."""

    values: tuple[float, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


Arg = Union[Name, Variable, Number, NumberList]  # noqa: UP007


@_node
class Atom(Node):
    """A predicate applied to arguments, e.g. ``(On block_a table_candidates)``.

    ``predicate`` uses the vocabulary's canonical spelling when the predicate is known
    (``On``, ``In``, ``Grasped`` ...), otherwise the spelling of the source.
    """

    predicate: str
    args: tuple[Arg, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class And(Node):
    """Conjunction of any number of terms."""

    terms: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Or(Node):
    """Disjunction of any number of terms."""

    terms: tuple[Expr, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Not(Node):
    """Negation of one term."""

    term: Expr
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


Expr = Union[Atom, And, Or, Not]  # noqa: UP007


def walk_atoms(expr: Expr | None) -> tuple[Atom, ...]:
    """All atoms of ``expr`` in source order (depth first)."""
    if expr is None:
        return ()
    if isinstance(expr, Atom):
        return (expr,)
    if isinstance(expr, Not):
        return walk_atoms(expr.term)
    out: list[Atom] = []
    for term in expr.terms:
        out.extend(walk_atoms(term))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Generic s-expressions (perturbation and rendering blocks we keep but do not interpret)
# --------------------------------------------------------------------------------------------


@_node
class Symbol(Node):
    """A bare symbol or ``:keyword`` inside a generic block."""

    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class SList(Node):
    """A parenthesized list inside a generic block."""

    items: tuple[SExp, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


SExp = Union[Symbol, Number, Variable, SList]  # noqa: UP007


@_node
class Section(Node):
    """A top-level block kept as s-expressions, e.g. ``(:camera ...)`` or ``(:noise ...)``.

    Attributes:
        keyword: the block keyword in lower case without the colon, e.g. ``"camera"``.
        items: the block's contents.
    """

    keyword: str
    items: tuple[SExp, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


# --------------------------------------------------------------------------------------------
# Declarations
# --------------------------------------------------------------------------------------------


@_node
class TypedName(Node):
    """An object or fixture declaration ``name - category``."""

    name: str
    category: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    #: Span of the ``- category`` that types it (formatter; not part of equality).
    category_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@_node
class Rect(Node):
    """An axis-aligned rectangle ``(x0 y0 x1 y1)`` in the table frame [m]."""

    x0: float
    y0: float
    x1: float
    y1: float
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)

    @property
    def width(self) -> float:
        """Extent along x [m] (negative when inverted)."""
        return self.x1 - self.x0

    @property
    def depth(self) -> float:
        """Extent along y [m] (negative when inverted)."""
        return self.y1 - self.y0

    def overlaps(self, other: Rect) -> bool:
        """True when the two rectangles share an area (touching edges do not count)."""
        return min(self.x1, other.x1) > max(self.x0, other.x0) and min(self.y1, other.y1) > max(
            self.y0, other.y0
        )


@_node
class Region(Node):
    """A named region of a target fixture or object.

    The region ``candidates`` with ``(:target table)`` is referred to as ``table_candidates``
    (LIBERO's naming: ``<target>_<name>``).

    Attributes:
        name: the region's own name, e.g. ``"candidates"``.
        target: the fixture or object it belongs to, e.g. ``"table"``; None if absent.
        ranges: rectangles in the table frame [m].
        yaw_rotation: ``(lo, hi)`` yaw intervals [rad].
        rgba: color of a drawn patch in [0, 1], or None.
        extra: other properties kept verbatim.
    """

    name: str
    target: str | None = None
    ranges: tuple[Rect, ...] = ()
    yaw_rotation: tuple[tuple[float, float], ...] = ()
    rgba: tuple[float, ...] | None = None
    extra: tuple[Section, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    #: ``(keyword, span)`` of each property as written (``"target"``, ``"ranges"`` ...), for
    #: the formatter to keep comments beside them; not part of equality.
    prop_spans: tuple[tuple[str, Span], ...] = field(
        default=(), compare=False, repr=False, kw_only=True
    )

    @property
    def full_name(self) -> str:
        """``<target>_<name>``, the name predicates use (just ``name`` without a target)."""
        return f"{self.target}_{self.name}" if self.target else self.name


# --------------------------------------------------------------------------------------------
# rsb blocks
# --------------------------------------------------------------------------------------------


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
    """

    source: str | None = None
    choices: int | float | None = None
    params: tuple[SourceParam, ...] = ()
    file: str | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    repeated: tuple[Span, ...] = field(default=(), compare=False, repr=False, kw_only=True)
    source_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)

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


# --------------------------------------------------------------------------------------------
# The root
# --------------------------------------------------------------------------------------------


@_node
class Problem(Node):
    """A parsed task file.

    Attributes:
        name: ``(define (problem NAME) ...)``.
        domain: ``(:domain D)``, e.g. ``"rsb"`` or ``"robosuite"``; None if absent.
        language: the ``:language`` text (tokens joined by one space), or None.
        question, instruction, options, layout, answer_zone: rsb blocks, None if absent.
        regions, fixtures, objects: declarations in source order.
        obj_of_interest: names listed in ``:obj_of_interest``.
        candidate_names: the ``:candidates`` list (see :attr:`candidates`).
        init: the ``:init`` atoms.
        grasp_terms, goal_terms, cost_terms: the terms written directly inside ``:grasp``,
            ``:goal`` and ``:cost`` (usually one ``And``); see :attr:`grasp`, :attr:`goal`.
        sections: other blocks kept verbatim (``:camera``, ``:noise`` ...), source order.
        path: the file the problem was read from (not part of equality).
        blocks: ``(keyword, span)`` of every top-level block in source order (not part of
            equality; used for diagnostics and by the formatter to keep comments).
    """

    name: str
    domain: str | None = None
    language: str | None = None
    question: Question | None = None
    instruction: Instruction | None = None
    regions: tuple[Region, ...] = ()
    fixtures: tuple[TypedName, ...] = ()
    objects: tuple[TypedName, ...] = ()
    obj_of_interest: tuple[str, ...] = ()
    candidate_names: tuple[str, ...] | None = None
    options: OptionMap | None = None
    init: tuple[Expr, ...] = ()
    grasp_terms: tuple[Expr, ...] = ()
    goal_terms: tuple[Expr, ...] = ()
    cost_terms: tuple[Expr, ...] | None = None
    layout: Layout | None = None
    answer_zone: AnswerZone | None = None
    sections: tuple[Section, ...] = ()
    path: str = field(default="<string>", compare=False)
    blocks: tuple[tuple[str, Span], ...] = field(default=(), compare=False, repr=False)
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    #: Span of each ``:obj_of_interest`` name (formatter; not part of equality).
    obj_of_interest_spans: tuple[Span, ...] = field(
        default=(), compare=False, repr=False, kw_only=True
    )

    # ---- helpers used by later stages -----------------------------------------------------

    @property
    def candidates(self) -> tuple[str, ...]:
        """Candidate object names in declaration order (``()`` when the block is absent)."""
        return self.candidate_names or ()

    @property
    def goal(self) -> Expr | None:
        """The goal expression (several top-level terms are read as their ``And``)."""
        return _combine(self.goal_terms)

    @property
    def grasp(self) -> Expr | None:
        """The grasp predicate, e.g. ``Atom("Grasped", (Variable("c", "candidate"),))``."""
        return _combine(self.grasp_terms)

    @property
    def cost(self) -> Expr | None:
        """The ``:cost`` expression (several top-level terms are read as their ``And``)."""
        return _combine(self.cost_terms or ())

    def declarations(self) -> dict[str, TypedName]:
        """Fixtures and objects by name (objects win on a duplicate)."""
        out = {d.name: d for d in self.fixtures}
        out.update({d.name: d for d in self.objects})
        return out

    def category_of(self, name: str) -> str:
        """Category of the object or fixture ``name`` (e.g. ``"letter_block"``).

        Raises:
            TaskError: for an undeclared name, listing the declared ones.
        """
        decl = self.declarations().get(name)
        if decl is None:
            raise TaskError(
                f"{self.path}: no object or fixture {name!r}; valid choices: "
                + ", ".join(sorted(self.declarations()))
            )
        return decl.category

    def region(self, full_name: str) -> Region:
        """The region called ``full_name`` (``<target>_<name>``, e.g. ``"table_candidates"``).

        Raises:
            TaskError: for an unknown region, listing the valid full names.
        """
        for region in self.regions:
            if region.full_name == full_name:
                return region
        raise TaskError(
            f"{self.path}: no region {full_name!r}; valid choices: "
            + ", ".join(sorted(r.full_name for r in self.regions))
        )

    @property
    def answer_zone_names(self) -> tuple[str, ...]:
        """Full names of the answer-zone regions: those ``(:answer_zone ...)`` declares; a
        file without the block falls back (deprecated, RSB452) to every region called
        :data:`LEGACY_ANSWER_ZONE`."""
        if self.answer_zone is not None:
            return self.answer_zone.regions
        return tuple(r.full_name for r in self.regions if r.name == LEGACY_ANSWER_ZONE)

    @property
    def answer_zone_regions(self) -> tuple[Region, ...]:
        """The answer-zone :class:`Region` nodes (see :attr:`answer_zone_names`), in
        declaration order; names that match no region are left out (RSB451)."""
        names = set(self.answer_zone_names)
        return tuple(r for r in self.regions if r.full_name in names)

    def placement_of(self, obj: str) -> str:
        """Full region name where ``:init (On obj REGION)`` places ``obj``.

        Raises:
            TaskError: when ``obj`` has no ``On`` atom in ``:init``.
        """
        for expr in self.init:
            for atom in walk_atoms(expr):
                if (
                    atom.predicate.lower() == "on"
                    and len(atom.args) == 2
                    and isinstance(atom.args[0], Name)
                    and isinstance(atom.args[1], Name)
                    and atom.args[0].value == obj
                ):
                    return atom.args[1].value
        raise TaskError(f"{self.path}: object {obj!r} has no (On {obj} REGION) in :init")


def _combine(terms: tuple[Expr, ...]) -> Expr | None:
    if not terms:
        return None
    if len(terms) == 1:
        return terms[0]
    return And(terms, span=terms[0].span)
