"""The predicates of the task language: spelling, argument kinds and registries.

:data:`PREDICATES` maps the lower-case predicate name to a :class:`PredicateInfo`: canonical
spelling, argument kinds, the registries that define it (LIBERO, VLA-Arena, rsb; see
:data:`PREDICATE_DOMAINS`), and, separately, whether the rsb simulator can evaluate it
(:data:`RSB_SCOREABLE`, shared with ``rsb_mj.scoring``). The linter reads a LIBERO / VLA-Arena
file (``(:domain robosuite)``) against those two registries and an rsb file against rsb's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "ARG_KINDS",
    "PREDICATES",
    "PREDICATE_DOMAINS",
    "RSB_COST",
    "RSB_PLACEMENT",
    "RSB_SCOREABLE",
    "PredicateInfo",
    "canonical_predicate",
    "predicates_of",
]

#: Argument kinds:
#:   ``object``   a declared object or fixture name (or a variable);
#:   ``place``    an object, fixture or region full name (or a variable);
#:   ``region``   a region full name;
#:   ``number``   a number;
#:   ``numbers``  a parenthesized list of numbers (VLA-Arena part / geom ids);
#:   ``parts``    VLA-Arena part ids of an object: ``all`` or a list of numbers.
ARG_KINDS = ("object", "place", "region", "number", "numbers", "parts")

#: The predicate registries a task file can be read against. ``libero`` and ``vla_arena`` are
#: ``VALIDATE_PREDICATE_FN_DICT`` of ``libero/libero/envs/predicates/__init__.py`` and
#: ``vla_arena/vla_arena/envs/predicates/__init__.py`` (names matched case-insensitively);
#: ``rsb`` is what rsb task files (``(:domain rsb)``) use.
PREDICATE_DOMAINS = ("libero", "vla_arena", "rsb")

_LIB, _VLA, _RSB = "libero", "vla_arena", "rsb"


@dataclass(frozen=True)
class PredicateInfo:
    """A predicate: canonical spelling, argument kinds, registries, and what rsb can do with it.

    Attributes:
        name: canonical spelling, e.g. ``"On"``.
        args: the kind of each argument (see :data:`ARG_KINDS`); the arity is ``len(args)``.
            None when the defining code takes any number of arguments (``True``, ``False``) or
            has no definition to read (``Temporal``): the arity is not checked.
        domains: the registries (:data:`PREDICATE_DOMAINS`) that define it.
        doc: one line of meaning, with units.
        rsb_scoreable: True when the rsb simulator can evaluate it in ``:grasp`` and ``:goal``
            (``rsb_mj.scoring.predicates.PREDICATES`` has it; a test checks the two agree).
        rsb_placement: True when the rsb layout sampler reads it in ``:init`` (``On``).
        per_step_cost: True when VLA-Arena evaluates it at every step inside ``:cost``
            (``TEMPORAL_PREDICATE_FN_LIST``); other cost terms count only at episode end.
        rsb_cost: True when the rsb simulator evaluates it in ``:cost``
            (``rsb_mj.scoring.cost_predicates.COST_PREDICATES`` has it; a test checks).
    """

    name: str
    args: tuple[str, ...] | None
    domains: frozenset[str]
    doc: str
    rsb_scoreable: bool = False
    rsb_placement: bool = False
    per_step_cost: bool = False
    rsb_cost: bool = False

    @property
    def arity(self) -> int | None:
        """Number of arguments (None when not checked)."""
        return None if self.args is None else len(self.args)

    @property
    def origin(self) -> str:
        """The first registry defining it (``"libero"``, ``"vla_arena"`` or ``"rsb"``)."""
        return next(d for d in PREDICATE_DOMAINS if d in self.domains)


def _p(
    name: str,
    args: tuple[str, ...] | None,
    domains: tuple[str, ...],
    doc: str,
    **flags: bool,
) -> PredicateInfo:
    return PredicateInfo(name, args, frozenset(domains), doc, **flags)


# Argument kinds follow each project's ``base_predicates.py`` and how its ``_eval_predicate``
# passes a task file's arguments (a trailing number is a threshold it compares against).
# ``InContact``, ``Stack`` and ``Temporal`` are commented out of LIBERO's registry at commit
# 8f1084e and ``Stack``/``Temporal`` out of VLA-Arena's; they are accepted as issue 17 asks.
_PREDICATES = (
    _p("True", None, (_LIB, _VLA), "always true (any arguments)"),
    _p("False", None, (_LIB, _VLA), "always false (any arguments)"),
    _p(
        "On",
        ("object", "place"),
        (_LIB, _VLA, _RSB),
        "object rests on a region or object; rsb places candidates with it in :init and "
        "scores it on a candidate (On cube ?answer)",
        rsb_scoreable=True,
        rsb_placement=True,
        per_step_cost=True,
    ),
    _p(
        "In",
        ("object", "place"),
        (_LIB, _VLA, _RSB),
        "object is inside a region or object (rsb: inside the answer zone)",
        rsb_scoreable=True,
    ),
    _p("NotIn", ("object", "place"), (_VLA,), "object neither touches nor is inside a place"),
    _p(
        "NotOn",
        ("object", "place"),
        (_VLA,),
        "object does not rest on a region or object",
        rsb_cost=True,
    ),
    _p(
        "InContact",
        ("object", "object"),
        (_LIB, _VLA),
        "two objects touch",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "Up",
        ("object",),
        (_LIB, _VLA),
        "object's center is at least 1 m above the world origin",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "Stack",
        ("object", "object"),
        (_LIB,),
        "object touches, is contained by and is above the second",
        per_step_cost=True,
    ),
    _p("Temporal", None, (_LIB,), "registered name without a definition (not checked)"),
    _p("PrintJointState", ("object",), (_LIB, _VLA), "debug: prints joint values, true"),
    _p("Open", ("place",), (_LIB, _VLA), "articulated region or object is open"),
    _p("Close", ("place",), (_LIB, _VLA), "articulated region or object is closed"),
    _p("Turnon", ("object",), (_LIB, _VLA), "appliance is switched on"),
    _p("Turnoff", ("object",), (_LIB, _VLA), "appliance is switched off"),
    _p("Collide", ("object",), (_VLA,), "object was hit", rsb_cost=True),
    _p(
        "Fall",
        ("object",),
        (_VLA,),
        "object moved > 0.1 m, dropped > 0.05 m or tipped over",
        rsb_cost=True,
    ),
    _p(
        "CheckForce",
        ("object", "object", "number"),
        (_VLA,),
        "contact normal force between the objects above the threshold [N]",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "CheckDistance",
        ("object", "object", "number"),
        (_VLA,),
        "objects closer than the threshold [m]",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "InContactPart",
        ("object", "object", "parts", "parts"),
        (_VLA,),
        "the listed parts (geom ids, or all) of two objects touch",
        per_step_cost=True,
    ),
    _p(
        "CheckGripperContact",
        ("object",),
        (_VLA,),
        "a gripper touches the object",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "CheckGripperContactPart",
        ("object", "numbers"),
        (_VLA,),
        "a gripper touches the listed parts (geom ids) of the object",
        per_step_cost=True,
    ),
    _p(
        "CheckGripperDistance",
        ("object", "number"),
        (_VLA,),
        "gripper finger pads closer than the threshold [m] to the object",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "CheckGripperDistancePart",
        ("object", "numbers", "number"),
        (_VLA,),
        "gripper finger pads closer than the threshold [m] to the listed parts",
        per_step_cost=True,
    ),
    _p(
        "Grasped",
        ("object",),
        (_RSB,),
        "a gripper holds the candidate (RSB App. C)",
        rsb_scoreable=True,
    ),
    _p("Released", ("object",), (_RSB,), "no gripper touches the object", rsb_scoreable=True),
)

#: Lower-case predicate name -> :class:`PredicateInfo`.
PREDICATES: dict[str, PredicateInfo] = {p.name.lower(): p for p in _PREDICATES}

#: Canonical names the rsb simulator can evaluate in ``:grasp`` and ``:goal`` (must equal the
#: keys of ``rsb_mj.scoring.predicates.PREDICATES``; tests/lang/test_predicates.py checks).
RSB_SCOREABLE: frozenset[str] = frozenset(p.name for p in _PREDICATES if p.rsb_scoreable)
#: Canonical names the rsb simulator evaluates in ``:cost`` (must equal the keys of
#: ``rsb_mj.scoring.cost_predicates.COST_PREDICATES``; tests/scoring/test_cost_predicates.py
#: checks).
RSB_COST: frozenset[str] = frozenset(p.name for p in _PREDICATES if p.rsb_cost)
#: Canonical names the rsb layout sampler reads in ``:init``.
RSB_PLACEMENT: frozenset[str] = frozenset(p.name for p in _PREDICATES if p.rsb_placement)


def predicates_of(domains: Iterable[str]) -> dict[str, PredicateInfo]:
    """Lower-case name -> info of the predicates that any of ``domains`` defines."""
    wanted = set(domains)
    return {k: p for k, p in PREDICATES.items() if p.domains & wanted}


def canonical_predicate(name: str) -> str:
    """The canonical spelling of predicate ``name`` (``name`` itself when unknown)."""
    info = PREDICATES.get(name.lower())
    return info.name if info else name
