"""Which acts' features an episode keeps (``rsb eval --features MODE``), and keeping them.

Modes (:class:`FeatureMode`), counted over the episode's *queries* (calls of ``act``; a
chunk of H actions is one query):

* ``first``: the first query at which the policy hands over features (for most policies
  query 0; an openpi server's reset move makes no query, so its first reply);
* ``choice``: the query whose actions made the choice (the first candidate grasped, the
  policy's one attempt): the features of every query are read and the last one before the
  grasp is kept; an episode without a choice keeps its last query's (the record says
  ``choice_made: false``);
* ``every:K``: queries 0, K, 2K, ... (K >= 1), stacked in query order.

:class:`FeatureRecorder` is what the rollout talks to: it says which queries to read
(:meth:`FeatureRecorder.wants`), takes the policy's features through
:func:`~rsb_mj.policies.features.check_features`, checks that every query of the episode
reports the same layers with the same sizes, and hands the arrays over at the end
(:meth:`FeatureRecorder.captured`). It never touches the policy beyond reading
``features``, and never changes the episode: a policy whose features fail (raise, or break
the rules of :mod:`rsb_mj.policies.features`) keeps its episode scored; the record's
``features`` entry says what went wrong instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rsb_mj.errors import EpisodeFault, EvalError, PolicyError
from rsb_mj.policies.features import check_features

#: The mode names, as ``--features`` takes them.
MODES = ("first", "choice", "every:K")


@dataclass(frozen=True)
class FeatureMode:
    """One ``--features`` mode.

    Attributes:
        kind: ``"first"``, ``"choice"`` or ``"every"``.
        every: K of ``every:K`` (0 for the other kinds).
    """

    kind: str
    every: int = 0

    @classmethod
    def parse(cls, text: str) -> FeatureMode:
        """The mode ``text`` names (``first``, ``choice``, ``every:K``).

        Raises:
            EvalError: naming the text and the valid choices.
        """
        if text in ("first", "choice"):
            return cls(text)
        head, sep, k = text.partition(":")
        if head == "every" and sep and k.isdigit() and int(k) >= 1:
            return cls("every", int(k))
        raise EvalError(
            f"--features {text!r}; valid choices: first, choice, every:K (K a whole number >= 1)"
        )

    def __str__(self) -> str:
        return f"every:{self.every}" if self.kind == "every" else self.kind


@dataclass(frozen=True)
class Captured:
    """The features an episode kept.

    Attributes:
        mode: the mode they were kept by.
        layers: layer name -> float32 array (T, D_layer), in the policy's order.
        queries: the query index (0-based) of each of the T rows.
        steps: the control steps run before each of those queries.
        choice_made: ``choice`` mode: the kept query made the choice (False: the episode
            made none and kept its last query); None for the other modes.
    """

    mode: FeatureMode
    layers: dict[str, np.ndarray]
    queries: tuple[int, ...]
    steps: tuple[int, ...]
    choice_made: bool | None = None


class FeatureRecorder:
    """Keeps one episode's features by ``mode`` (see the module docstring).

    Args:
        mode: the ``--features`` mode.
        who: the policy, for messages (``"policy my_pkg:make"``).
    """

    def __init__(self, mode: FeatureMode, who: str) -> None:
        self.mode = mode
        self.who = who
        self.rows: list[dict[str, np.ndarray]] = []
        self.queries: list[int] = []
        self.steps: list[int] = []
        self.error: str | None = None
        self.offered = True
        self.choice_made: bool | None = False if mode.kind == "choice" else None
        self._frozen = False

    def wants(self, query: int) -> bool:
        """True when the features of query ``query`` (0-based) are to be read."""
        if self.error is not None or self._frozen or not self.offered:
            return False
        if self.mode.kind == "first":
            return not self.rows
        if self.mode.kind == "every":
            return query % self.mode.every == 0
        return True

    def take(self, read: Callable[[], Any], query: int, step: int) -> None:
        """Read the features of query ``query`` (made after ``step`` control steps) with
        ``read`` (the policy's ``features``); a failure is remembered, never raised
        (the episode goes on; :meth:`entry` reports it), except an episode fault that is not
        the features' (a policy process that died)."""
        try:
            feats = check_features(read(), self.who)
        except PolicyError as exc:
            self.error = str(exc)
            return
        except EpisodeFault:
            raise
        except Exception as exc:  # an in-process policy's own code
            self.error = f"{self.who}: features raised {type(exc).__name__}: {exc}"
            return
        if feats is None:
            return
        if self.rows and _layout(feats) != _layout(self.rows[0]):
            first, now = _layout(self.rows[0]), _layout(feats)
            self.error = (
                f"{self.who}: features of query {query} have layers {_describe(now)}, those "
                f"of query {self.queries[0]} {_describe(first)}; every query of an episode "
                "must report the same layers and sizes"
            )
            return
        if self.mode.kind == "choice":
            self.rows, self.queries, self.steps = [], [], []
        self.rows.append(feats)
        self.queries.append(query)
        self.steps.append(step)

    def chose(self) -> None:
        """The policy made its choice (first grasp): ``choice`` mode keeps what it has."""
        if self.mode.kind == "choice" and not self._frozen:
            self._frozen = True
            self.choice_made = bool(self.rows)

    def captured(self) -> Captured | None:
        """The kept features, or None (none handed over, or an error)."""
        if self.error is not None or not self.rows:
            return None
        layers = {name: np.stack([row[name] for row in self.rows]) for name in self.rows[0]}
        return Captured(self.mode, layers, tuple(self.queries), tuple(self.steps), self.choice_made)


def _layout(feats: dict[str, np.ndarray]) -> tuple[tuple[str, int], ...]:
    return tuple((name, int(a.size)) for name, a in feats.items())


def _describe(layout: tuple[tuple[str, int], ...]) -> str:
    shown = ", ".join(f"{name} ({size})" for name, size in layout[:4])
    return shown + (f" and {len(layout) - 4} more" if len(layout) > 4 else "")


__all__ = ["MODES", "Captured", "FeatureMode", "FeatureRecorder"]
