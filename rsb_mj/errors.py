"""The exception root of rsb_mj.

Every error a user can trigger derives from :class:`RsbError`. Messages name the file,
line and column, or the field, and list the valid choices where there are any.
"""

from __future__ import annotations


class RsbError(Exception):
    """Root of every rsb_mj error."""


class TaskError(RsbError):
    """A task file cannot be parsed or used (syntax, names, geometry)."""


class EpisodeError(RsbError):
    """An episode, question source or episode table is invalid."""


class SceneError(RsbError):
    """A scene cannot be compiled into a MuJoCo model."""


class EnvError(RsbError):
    """The environment was used incorrectly (bad action, bad option)."""


class ExpertError(RsbError):
    """The scripted expert could not plan or execute (e.g. an unreachable target)."""


class EvalError(RsbError):
    """An evaluation run, policy spec or report input is invalid."""


def did_you_mean(value: str, choices: list[str] | tuple[str, ...]) -> str:
    """Return ``"; valid choices: a, b, c"`` for an error message about ``value``."""
    return "; valid choices: " + ", ".join(sorted(choices))
