"""What the robot holds at reset: ``(Grasped OBJECT GRIPPER)`` in ``:init``.

Act2Answer's episode starts with the cube already in the gripper, so the only action is the
placement. A task says so with an ``:init`` atom naming the object and the gripper,
``(Grasped cube left_gripper)``; the object also has its ``(On OBJECT REGION)``, where the
reset picks it up from (:class:`rsb_mj.env.rsb_env.RsbEnv`'s ``start_held``: the expert's own
grasp, closed and lifted, before the first observation). Outside ``:init``, ``Grasped``
keeps its one argument (the grasp criterion, :mod:`rsb_mj.scoring.predicates.grasped`).
RSB440 checks the atom.
"""

from __future__ import annotations

from rsb_mj.lang import ast
from rsb_mj.lang.expr import Atom, Name

#: Gripper name in a task file -> the arm (``rsb_mj.scene.aloha.SIDES``).
GRIPPERS: dict[str, str] = {"left_gripper": "left", "right_gripper": "right"}


def is_held_atom(block: str, atom: Atom) -> bool:
    """``atom`` is a two-argument ``Grasped`` in ``:init`` (what a gripper holds at reset)."""
    return block == "init" and atom.predicate.lower() == "grasped" and len(atom.args) == 2


def held_atoms(problem: ast.Problem) -> list[Atom]:
    """The ``(Grasped OBJECT GRIPPER)`` atoms of ``:init``, in source order."""
    return [a for a in problem.init if isinstance(a, Atom) and is_held_atom("init", a)]


def held_at_reset(problem: ast.Problem) -> dict[str, str]:
    """Object name -> the arm (``"left"`` / ``"right"``) holding it at reset, for a task that
    lints clean (RSB440); empty when the robot starts empty-handed."""
    out: dict[str, str] = {}
    for atom in held_atoms(problem):
        obj, gripper = atom.args
        if isinstance(obj, Name) and isinstance(gripper, Name):
            side = GRIPPERS.get(gripper.value)
            if side is not None:
                out[obj.value] = side
    return out
