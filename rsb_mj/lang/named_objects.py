"""The objects and fixtures a goal task names: what its head camera must show. Pure Python.

Rule 1 (:mod:`rsb_mj.env.visibility`) and the goal head camera's framing
(:mod:`rsb_mj.scene.framing`) read these names.
"""

from __future__ import annotations

import re

from rsb_mj.lang.frame_map import owner_of
from rsb_mj.lang.task import Task

__all__ = ["exempt_places", "named_objects"]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def named_objects(task: Task) -> tuple[str, ...]:
    """The objects and fixtures (the table excepted) that ``:goal`` or ``:language`` names,
    declaration order (objects first): each goal relation's mover, its place when that is an
    object or fixture, and the owner of a region it names on a fixture or object; and each
    object or fixture whose category's last word (``bowl`` of ``akita_black_bowl``) is a word
    of ``:language`` (or its plural)."""
    names: set[str] = set()
    for rel in task.goal:
        names.add(rel.mover)
        if rel.kind == "object":
            names.add(rel.place)
        elif rel.kind == "site":
            owner = owner_of(task, rel.place)
            if owner:
                names.add(owner)
    words = _words(task.instruction)
    every = {**task.objects, **task.fixtures}
    for name, category in every.items():
        noun = category.lower().rsplit("_", 1)[-1]
        if noun in words or noun + "s" in words or noun + "es" in words:
            names.add(name)
    names.discard(task.table)
    return tuple(n for n in every if n in names)


def exempt_places(task: Task) -> frozenset[str]:
    """Named places the file stacks a mover on at reset (``(On a b)`` in ``:init``): exempt
    from the pixel count of rule 1."""
    return frozenset(r.place for r in task.init if r.kind == "object")
