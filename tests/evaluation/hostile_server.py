"""Attack 4 of issue 34 as a hostile openpi policy server: it replays recorded action tapes
and learns each episode's outcome from the episode's length.

The server has no simulator: it is handed *tapes* (:class:`Tape`), the actions a
language-blind scripted policy (``nearest-to-zone``) took on each row, recorded in process
beforehand (:func:`record_tape`) and converted into the server's action convention, and it
replays tape k in its k-th episode, :data:`HORIZON` rows per ``infer`` call. Its first grasp
is then right on some rows and wrong on others, as the scripted policy's was.

openpi's protocol has no reset message: an episode starts, on the one websocket connection a
worker keeps, with an observation whose state is back at the robot's start pose (the state
of the first observation the server ever saw) after one that was not; that is how the server
tells its episodes apart (:meth:`LengthAttackServer.episodes`). It logs every request (its
keys, the arrays' shapes and dtypes, the prompt) and counts each episode's ``infer`` calls.

Its guess (:attr:`SeenEpisode.guessed_right`): an episode that asked for its whole tape went
on after the grasp, so its choice was right; one that stopped short ended at the grasp, so it
was wrong. Unsealed this is exact (a wrong first grasp ends an rsb episode at once); in a
sealed run a wrong choice runs on as a right one would, so every episode asks for its whole
tape.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from policies.openpi_server import FakeOpenPiServer
from websockets.sync.server import ServerConnection

from rsb_mj.episodes.episode import Episode
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.lang.ast import Problem
from rsb_mj.policies.aloha_convention import get_convention
from rsb_mj.policies.base import Policy
from rsb_mj.policies.spec import make_policy
from rsb_mj.policies.wire import packb, unpackb

#: Rows of a tape each ``infer`` call answers (the client's ``openpi:HOST:PORT:HORIZON``).
HORIZON = 10
#: The action convention the server speaks (openpi's ALOHA one, the client's default).
CONVENTION = "aloha"
#: How close [rad, normalized gripper] a state must be to the start pose to count as it.
START_ATOL = 1e-4


@dataclass(frozen=True)
class Tape:
    """A scripted policy's actions on one row, as a server replays them.

    Attributes:
        rows: (N, 14) actions in the server's convention (:data:`CONVENTION`), one per
            control step, for the whole episode a right choice has (until the chosen
            candidate rests in the zone).
        choice: the candidate the scripted policy grasped first.
        correct_choice: whether that was the answer.
        steps: the control steps of that whole episode (``len(rows)``).
        grasp_step: the step its first grasp was scored (where an unsealed wrong choice ends).
    """

    rows: np.ndarray
    choice: str | None
    correct_choice: bool
    steps: int
    grasp_step: int | None

    @property
    def queries(self) -> int:
        """``infer`` calls the whole tape takes."""
        return -(-len(self.rows) // HORIZON)

    def chunk(self, k: int) -> np.ndarray:
        """The answer to the tape's k-th ``infer`` call: rows ``k*H .. (k+1)*H``, past the
        end the last row held."""
        part = self.rows[k * HORIZON : (k + 1) * HORIZON]
        if len(part) == 0:
            part = np.repeat(self.rows[-1:], HORIZON, axis=0)
        return part


def record_tape(env: Any, episode: Episode, problem: Problem, max_steps: int) -> Tape:
    """Run ``nearest-to-zone`` on ``episode`` in process and keep its actions as a
    :class:`Tape`: first as the row is (its choice, and where an unsealed run ends a wrong
    one), then with the candidate it chose as the answer, so that the tape covers the whole
    episode a right choice has (no sealed pacing involved: that is what is tested).

    Raises:
        AssertionError: when the scripted policy chose another candidate the second time.
    """
    rows: list[np.ndarray] = []

    def run(ep: Episode) -> EpisodeRecord:
        rows.clear()
        return Rollout(
            env, make_policy("nearest-to-zone"), ep, problem, max_steps=max_steps,
            on_step=lambda obs, action: rows.append(np.array(action, dtype=np.float64)),
        ).run()  # fmt: skip

    first = run(episode)
    letter = {obj: k for k, obj in episode.mapping.items()}[first.choice]
    right = run(episode.rebound(correct=letter))
    assert (right.choice, right.termination) == (first.choice, "success"), right
    server_rows = get_convention(CONVENTION).actions_to_server(np.stack(rows))
    return Tape(server_rows, first.choice, first.correct_choice, right.steps, first.grasp_step)


class TapePolicy(Policy):
    """A tape replayed in process the way the openpi client executes the server's answers
    (its rows back in rsb_mj's convention, :data:`HORIZON` per ``act``), counting the calls:
    what the server would see of an episode run here."""

    name = "tape"

    def __init__(self, tape: Tape) -> None:
        self.tape = tape
        self.calls = 0

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Start at the tape's first row."""
        self.calls = 0

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The next chunk of the tape."""
        chunk = self.tape.chunk(self.calls)
        self.calls += 1
        return get_convention(CONVENTION).actions_from_server(chunk)


def infers_of(
    env: Any, tape: Tape, episode: Episode, problem: Problem, max_steps: int, sealed: bool
) -> int:
    """The ``infer`` calls of ``tape`` replayed on ``episode`` in process."""
    policy = TapePolicy(tape)
    Rollout(env, policy, episode, problem, max_steps=max_steps, sealed=sealed).run()
    return policy.calls


@dataclass
class SeenEpisode:
    """What the server saw of one episode.

    Attributes:
        tape: the index of the tape it replayed.
        queries: the tape's whole length in ``infer`` calls.
        infers: ``infer`` calls received.
        prompts: the prompts received.
        first_s, last_s: ``time.monotonic()`` of its first and last request.
    """

    tape: int
    queries: int
    infers: int = 0
    prompts: set[str] = field(default_factory=set)
    first_s: float = 0.0
    last_s: float = 0.0

    @property
    def guessed_right(self) -> bool:
        """The attack: asked for its whole tape, so it went on after the grasp."""
        return self.infers >= self.queries


class LengthAttackServer(FakeOpenPiServer):
    """An openpi server that replays :attr:`tapes` and learns outcomes from lengths (see the
    module docstring).

    Attributes:
        tapes: tape k is replayed in episode k (set before the run).
        requests: per request: its connection, its sorted keys, each array's
            ``(shape, dtype)`` (``images`` by camera key) and the prompt.
        episodes: the episodes seen, in order.
    """

    def __init__(self) -> None:
        super().__init__(
            "hold", horizon=HORIZON, metadata={"policy": "tape-replay", "action_horizon": HORIZON}
        )
        self.tapes: list[Tape] = []
        self.requests: list[dict[str, Any]] = []
        self.episodes: list[SeenEpisode] = []
        self._home: np.ndarray | None = None
        self._at_start = False
        self._guard = threading.Lock()

    def _log(self, conn_id: int, obs: dict[str, Any]) -> None:
        def meta(value: Any) -> Any:
            if isinstance(value, np.ndarray):
                return (tuple(value.shape), str(value.dtype))
            if isinstance(value, dict):
                return {str(k): meta(v) for k, v in value.items()}
            return value if isinstance(value, str) else type(value).__name__

        self.requests.append({"connection": conn_id, "keys": sorted(obs), **meta(obs)})

    def _episode_of(self, state: np.ndarray) -> SeenEpisode:
        """The episode this observation belongs to: a new one when the state came back to
        the start pose from elsewhere."""
        if self._home is None:
            self._home = state.copy()
        at_start = bool(np.allclose(state, self._home, atol=START_ATOL))
        if not self.episodes or (at_start and not self._at_start):
            k = len(self.episodes)
            if k >= len(self.tapes):
                raise RuntimeError(f"episode {k + 1} but only {len(self.tapes)} tapes")
            self.episodes.append(SeenEpisode(k, self.tapes[k].queries, first_s=time.monotonic()))
        self._at_start = at_start
        return self.episodes[-1]

    def _handler(self, conn: ServerConnection) -> None:
        with self._guard:
            self.connections += 1
            conn_id = self.connections
        self._open.append(conn)
        conn.send(packb(self.metadata))
        for message in conn:
            try:
                with self._guard:
                    obs = unpackb(message)
                    self._log(conn_id, obs)
                    episode = self._episode_of(np.asarray(obs["state"], dtype=np.float64))
                    chunk = self.tapes[episode.tape].chunk(episode.infers)
                    episode.infers += 1
                    episode.prompts.add(str(obs["prompt"]))
                    episode.last_s = time.monotonic()
            except Exception:  # as openpi's server does: the traceback, then close
                conn.send(traceback.format_exc())
                conn.close(1011, "Internal server error. Traceback included in previous frame.")
                return
            conn.send(packb({"actions": chunk}))


def guesses(server: LengthAttackServer) -> list[bool]:
    """The server's guess of each episode's outcome, in its order."""
    return [e.guessed_right for e in server.episodes]


def majority(outcomes: list[bool]) -> float:
    """The accuracy of always guessing the more common outcome."""
    return max(outcomes.count(True), outcomes.count(False)) / len(outcomes)


def accuracy(guessed: list[bool], outcomes: list[bool]) -> float:
    """The share of ``guessed`` equal to ``outcomes``."""
    return sum(g == o for g, o in zip(guessed, outcomes, strict=True)) / len(outcomes)
