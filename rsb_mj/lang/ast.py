"""Typed AST of the rsb task language (a superset of LIBERO / VLA-Arena BDDL).

Every node is a frozen dataclass with value equality (from :class:`~rsb_mj.lang.nodes.Node`).
Each node carries its source :class:`Span` in ``span``; the span is excluded from equality,
hashing and ``repr`` so that tests can write ``assert parse_text(src) == expected`` with
hand-built nodes. This module holds the :class:`Problem` root and the declarations (objects,
fixtures, regions). The rsb blocks are :mod:`rsb_mj.lang.blocks`, the nodes inside blocks
(expressions, generic s-expressions) :mod:`rsb_mj.lang.expr`, and :class:`Span` and
:data:`NO_SPAN` :mod:`rsb_mj.lang.nodes`; ``rsb_mj.lang`` offers them all.

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

from dataclasses import field

from rsb_mj.errors import TaskError
from rsb_mj.lang.blocks import (
    LEGACY_ANSWER_ZONE,
    AnswerZone,
    Instruction,
    Layout,
    OptionMap,
    Question,
)
from rsb_mj.lang.expr import (
    And,
    Expr,
    Name,
    Section,
    walk_atoms,
)
from rsb_mj.lang.nodes import NO_SPAN, Node, Span
from rsb_mj.lang.nodes import node as _node

__all__ = ["Problem", "Rect", "Region", "TypedName"]


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
