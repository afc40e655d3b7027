"""The exception root of rsb_mj.

Every error a user can trigger derives from :class:`RsbError`. Messages name the file,
line and column, or the field, and list the valid choices where there are any.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class RsbError(Exception):
    """Root of every rsb_mj error."""


class TaskError(RsbError):
    """A task file cannot be parsed or used (syntax, names, geometry)."""


class EpisodeError(RsbError):
    """An episode, question source or episode table is invalid."""


class SceneError(RsbError):
    """A scene cannot be compiled into a MuJoCo model."""


class LayoutError(SceneError):
    """No valid layout for an episode's seed (a goal scene that does not settle, an object
    off the table, the goal true at reset): a property of the episode, scored as a failure
    (``termination == "no_layout"``), not a fault to retry."""


class EnvError(RsbError):
    """The environment was used incorrectly (bad action, bad option)."""


class ExpertError(RsbError):
    """The scripted expert could not plan or execute (e.g. an unreachable target)."""


class EvalError(RsbError):
    """An evaluation run, policy spec or report input is invalid."""


class EpisodeFault(EvalError):
    """An episode could not be scored for a reason that is not the policy's choice.

    The runner records such an episode as an *error* (``termination == "error"``, with
    ``error_kind`` and the message), excludes it from every metric and reruns it on resume.
    Subclasses say whose fault it was.

    Attributes:
        kind: short tag stored in the record's ``error_kind``.
    """

    kind = "fault"


class InfraError(EpisodeFault):
    """Infrastructure fault: a policy server refused, timed out, broke the protocol or
    closed the connection; a worker process died."""

    kind = "infra"


class PolicyError(EpisodeFault):
    """The policy's own code failed: it raised in ``reset``/``act``, or returned something
    that is not an action (a string, a ragged list, the wrong shape, NaN)."""

    kind = "policy"


def describe(exc: BaseException) -> str:
    """``"Type: message"`` of an exception (``"Type"`` when it has no message), as error
    records store it."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def did_you_mean(value: str, choices: Iterable[str]) -> str | None:
    """The closest of ``choices`` to ``value`` (case-insensitive difflib ratio >= 0.6), or
    None: the ``did you mean`` of every error message and lint finding."""
    pool = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(value.lower(), list(pool), n=1, cutoff=0.6)
    return pool[close[0]] if close else None
