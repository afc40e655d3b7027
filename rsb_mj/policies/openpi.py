"""``openpi:HOST:PORT[:HORIZON][,KEY=VALUE...]``: a client of openpi policy servers (ALOHA).

Speaks openpi's websocket protocol (:mod:`rsb_mj.policies.openpi_conn`, wire format in
:mod:`rsb_mj.policies.wire`; no ``openpi-client`` needed, so numpy 2 is fine): the server
first sends a metadata map, then answers each observation with a map holding ``actions``
of shape (H, 14).

Observation mapping (what openpi's ALOHA policies expect)::

    state                    <- obs["state"]  (14,) float32, in the server's convention
    images.cam_high          <- obs["images"]["head"]         HWC -> CHW uint8
    images.cam_left_wrist    <- obs["images"]["left_wrist"]
    images.cam_right_wrist   <- obs["images"]["right_wrist"]
    prompt                   <- info["instruction"]

Images are resized with padding to ``image_size`` (224, as openpi's ALOHA examples do on
the client side). The returned chunk's first ``horizon`` rows are executed before the next
query (openpi's ``ActionChunkBroker``).

Conventions (:mod:`rsb_mj.policies.aloha_convention`): ``"aloha"`` (default) is the
convention of ``rsb export-lerobot``'s datasets and of real ALOHA data as openpi's ALOHA
transforms read them (``AlohaInputs``/``AlohaOutputs`` with their default ``adapt_to_pi=True``):
the state's grippers go out as ALOHA's normalized finger position, the returned action
grippers (ALOHA's normalized joint angle) come back to rsb_mj's linear opening, so that a
model fine-tuned on an export with openpi's ``LeRobotAlohaDataConfig`` reproduces the
recorded actions, and a model that holds its state holds the robot. ``"rsb"`` converts
nothing (a server speaking rsb_mj's scale, or a model fine-tuned on a dataset exported
before datasets named their convention).

Server metadata: ``reset_pose`` (six arm joint angles [rad], openpi's ALOHA configs send
``[0, -1.5, 1.5, 0, 0, 0]``) is honoured like openpi's ALOHA runtime does at reset: both
arms move there linearly in ``reset_move_s`` with the grippers open, then hold for
:data:`RESET_HOLD_S`, before the first query (these steps count toward the episode's step
limit).

Rates: openpi's ALOHA policies act at 50 Hz. With ``control_hz`` set to the server's rate
and different from the environment's (20 Hz), each chunk is resampled in time (linear
interpolation) so that ``horizon`` server rows span the same wall time at the env's rate.

Timeouts and retries (defaults in :mod:`rsb_mj.policies.openpi_conn`): ``connect_timeout_s``
5, ``request_timeout_s`` 30, ``retries`` 3 with backoff 0.5, 1, 2 s (``rsb eval`` sets both
timeouts from ``--connect-timeout``/``--request-timeout``). Faults of the connection (and a
server unusable at connect time) raise :class:`~rsb_mj.errors.InfraError`; what the server
answers is its own: a traceback, a reply that is not an answer (not msgpack, not a map, no
``actions``) or unusable actions (NaN, wrong shape) raise :class:`~rsb_mj.errors.PolicyError`,
scored as the policy's failure (:mod:`rsb_mj.evaluation.faults`).

Batched requests (``rsb eval --batch``): a server whose metadata holds ``max_batch_size``
B >= 2 gets the observations of up to B episodes waiting for actions as one request
(:meth:`~rsb_mj.policies.openpi_conn.OpenPiConnection.request_batch`)::

    request   {"batch": [obs_0, ..., obs_{n-1}]}           1 < n <= B, each obs a single
                                                            request's map (prompt included)
    answer    {"batch": [answer_0, ..., answer_{n-1}]}      in order, each a single request's
                                                            answer ({"actions": (H, 14), ...})
                                                            or {"error": "text"} for an
                                                            observation the server failed

An item's ``error`` fails that episode alone; a traceback (text frame), a timeout or an
answer with another count fails every episode of the request. One request, batched or not,
has the request timeout. A server that advertises no ``max_batch_size`` (every openpi
server) gets one request per observation, in turn, as without ``--batch``. The policy keeps
each episode's prompt, reset move and text per slot, on one connection per worker.

Per-layer features (``rsb eval --features``, :mod:`rsb_mj.policies.features`): a server may
add ``features`` to a reply, a map layer name -> 1-D array (float16 allowed) of what its
layers computed for that observation; it is the episode's ``features``
(:meth:`OpenPiPolicy.slot_features`) until its next query; in a batched request each item's
answer may carry its own. Nothing of it is sent back.

Spec options (:meth:`OpenPiPolicy.from_spec`): ``convention``, ``control_hz``, ``retries``,
``image_size``, ``reset_move_s``, e.g. ``openpi:gpu-box:8000:25,control_hz=50``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from rsb_mj.errors import EpisodeFault, EvalError, InfraError, PolicyError
from rsb_mj.policies.aloha_convention import DEFAULT_CONVENTION, GRIPPERS, get_convention
from rsb_mj.policies.base import BatchedPolicy
from rsb_mj.policies.chunk import check_chunk
from rsb_mj.policies.openpi_conn import (
    BACKOFF_S,
    CONNECT_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    RETRIES,
    OpenPiConnection,
)
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.resize import resize_with_pad
from rsb_mj.workspace import ALOHA_CAMERA_NAMES

#: rsb_mj camera -> openpi ALOHA image key (:data:`rsb_mj.workspace.ALOHA_CAMERA_NAMES`).
CAMERA_KEYS: dict[str, str] = ALOHA_CAMERA_NAMES
#: Control rate [Hz] assumed when ``reset`` gets no environment view.
DEFAULT_ENV_HZ = float(CONTROL_HZ)
#: Hold [s] at the reset pose before the first query.
RESET_HOLD_S = 0.5
#: The metadata key a batching server advertises its batch size under.
BATCH_KEY = "max_batch_size"


@dataclass
class _Episode:
    """What the policy holds for one episode (one slot).

    Attributes:
        prompt: the instruction; env_hz: the environment's control rate [Hz];
        pending: rows of the reset move still to execute; text: the last reply's text;
        features: the last reply's ``features`` (None without).
    """

    prompt: str = ""
    env_hz: float = DEFAULT_ENV_HZ
    pending: np.ndarray | None = None
    text: str | None = None
    features: Any = None


def resample_chunk(chunk: np.ndarray, src_hz: float, dst_hz: float, rows: int) -> np.ndarray:
    """The first ``rows`` rows of a chunk at ``src_hz`` [Hz] as rows at ``dst_hz`` [Hz].

    Row k of the chunk is the target at ``(k + 1) / src_hz`` s after the query; output row j
    is the chunk linearly interpolated at ``(j + 1) / dst_hz`` s. The output spans the same
    time as the ``rows`` input rows (at least one row).
    """
    rows = min(rows, len(chunk))
    count = max(1, int(np.floor(rows * dst_hz / src_hz + 1e-9)))
    at = np.clip((np.arange(1, count + 1) * src_hz / dst_hz) - 1.0, 0.0, len(chunk) - 1.0)
    lo = np.floor(at).astype(int)
    hi = np.minimum(lo + 1, len(chunk) - 1)
    w = (at - lo)[:, None]
    return chunk[lo] * (1.0 - w) + chunk[hi] * w


class OpenPiPolicy(BatchedPolicy):
    """Queries an openpi policy server and executes its action chunks.

    The timeouts, ``retries`` and ``convention`` are plain attributes: set them after
    construction (``rsb eval --connect-timeout``/``--request-timeout`` do) and they apply
    from the next connection. It holds its episodes per slot (a batched policy, see the
    module docstring); ``reset``/``act`` are slot 0.
    """

    cameras: ClassVar[tuple[str, ...]] = tuple(CAMERA_KEYS)

    def __init__(
        self,
        host: str,
        port: int,
        *,
        horizon: int = 10,
        image_size: int = 224,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        retries: int = RETRIES,
        backoff_s: float = BACKOFF_S,
        convention: str = DEFAULT_CONVENTION,
        control_hz: float | None = None,
        reset_move_s: float = 1.0,
    ) -> None:
        """Remember the server; the connection opens at ``preflight`` or the first reset.

        Args:
            host: server host name or address.
            port: server TCP port.
            horizon: rows of each returned chunk executed before the next query (server
                rows, at ``control_hz``).
            image_size: square side [px] images are resized (with padding) to; 0 keeps them.
            connect_timeout_s: limit [s] of one connection attempt (TCP, handshake,
                metadata).
            request_timeout_s: limit [s] of one query (send the observation, get actions).
            retries: further attempts after a refused, reset or closed connection.
            backoff_s: pause [s] before retry k is ``backoff_s * 2**k``.
            convention: ``"aloha"`` (ALOHA's scales as openpi's ALOHA transforms and
                ``rsb export-lerobot`` use them) or ``"rsb"`` (no mapping).
            control_hz: the server's action rate [Hz]; None: the environment's rate.
            reset_move_s: duration [s] of the move to the server's ``reset_pose``.

        Raises:
            EvalError: for an unknown convention or a non-positive horizon or rate.
        """
        get_convention(convention)
        if (
            horizon < 1
            or (control_hz is not None and control_hz <= 0)
            or min(retries, image_size, reset_move_s, backoff_s) < 0
        ):
            raise EvalError(
                f"policy openpi:{host}:{port}: horizon must be at least 1, control_hz "
                "positive, retries, image_size, reset_move_s and backoff_s not negative (got "
                f"horizon={horizon}, control_hz={control_hz}, retries={retries}, "
                f"image_size={image_size}, reset_move_s={reset_move_s}, backoff_s={backoff_s})"
            )
        self.name = f"openpi:{host}:{port}"
        self.host, self.port = host, port
        self.horizon, self.image_size = horizon, image_size
        self.connect_timeout_s, self.request_timeout_s = connect_timeout_s, request_timeout_s
        self.retries, self.backoff_s = retries, backoff_s
        self.convention = convention
        self.control_hz, self.reset_move_s = control_hz, reset_move_s
        self.metadata: dict[str, Any] = {}
        self._episodes: dict[int, _Episode] = {}
        self._conn: OpenPiConnection | None = None

    @classmethod
    def from_spec(cls, spec: str) -> OpenPiPolicy:
        """Build from ``openpi:HOST:PORT[:HORIZON][,KEY=VALUE...]``.

        Keys (see ``__init__``): ``convention`` (aloha, rsb), ``control_hz``, ``retries``,
        ``image_size``, ``reset_move_s``; e.g. ``openpi:gpu-box:8000:25,control_hz=50``.
        Timeouts come from ``rsb eval --connect-timeout/--request-timeout``.

        Raises:
            EvalError: naming the spec, the bad part and the valid forms.
        """
        form = "openpi:HOST:PORT[:HORIZON][,KEY=VALUE...]"
        head, *options = spec.split(",")
        parts = head.split(":")
        if len(parts) not in (3, 4) or parts[0] != "openpi" or not parts[1]:
            raise EvalError(f"policy {spec!r}: expected {form}")
        try:
            port = int(parts[2])
            horizon = int(parts[3]) if len(parts) == 4 else 10
        except ValueError:
            raise EvalError(
                f"policy {spec!r}: PORT and HORIZON must be integers ({form})"
            ) from None
        if not 0 < port < 65536 or horizon < 1:
            raise EvalError(f"policy {spec!r}: port must be 1-65535 and horizon at least 1")
        kinds: dict[str, type] = {
            "convention": str,
            "control_hz": float,
            "retries": int,
            "image_size": int,
            "reset_move_s": float,
        }
        kwargs: dict[str, Any] = {}
        for option in options:
            key, sep, value = option.partition("=")
            if not sep or key not in kinds:
                raise EvalError(
                    f"policy {spec!r}: unknown option {option!r} ({form}); valid keys: "
                    + ", ".join(kinds)
                )
            try:
                kwargs[key] = kinds[key](value)
            except ValueError:
                raise EvalError(
                    f"policy {spec!r}: {key} must be {kinds[key].__name__}, got {value!r}"
                ) from None
        return cls(parts[1], port, horizon=horizon, **kwargs)

    @property
    def uri(self) -> str:
        """``ws://host:port``."""
        return f"ws://{self.host}:{self.port}"

    def _connection(self) -> OpenPiConnection:
        if self._conn is None:
            self._conn = OpenPiConnection(
                self.host,
                self.port,
                connect_timeout_s=self.connect_timeout_s,
                request_timeout_s=self.request_timeout_s,
                retries=self.retries,
                backoff_s=self.backoff_s,
            )
        return self._conn

    def _take_metadata(self, metadata: dict[str, Any]) -> None:
        pose = metadata.get("reset_pose")
        if pose is not None:
            try:
                arr = np.asarray(pose, dtype=np.float64)
            except (TypeError, ValueError):
                arr = np.full(0, np.nan)
            if arr.shape != (6,) or not np.isfinite(arr).all():
                raise InfraError(
                    f"openpi server {self.uri}: metadata reset_pose must be 6 finite arm "
                    f"joint angles [rad] (applied to both arms), got {pose!r:.120}"
                )
        size = metadata.get(BATCH_KEY)
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
            raise InfraError(
                f"openpi server {self.uri}: metadata {BATCH_KEY} must be a whole number of "
                f"observations per request (at least 1), got {size!r:.60}"
            )
        self.metadata = dict(metadata)

    @property
    def batch_size(self) -> int:
        """Observations per request: the server's ``max_batch_size`` (after connecting),
        else 1 (one request per observation)."""
        return max(1, int(self.metadata.get(BATCH_KEY) or 1))

    def preflight(self, timeout_s: float) -> None:
        """Connect and read the server's metadata within ``timeout_s`` [s], then close.

        Raises:
            InfraError: when the server is down, silent, not an openpi server, or sends
                unusable metadata.
        """
        conn = self._connection()
        try:
            self._take_metadata(conn.open(total_timeout_s=timeout_s))
        finally:
            self.close()  # the workers open their own connections

    def reset_slot(self, slot: int, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Connect (once), take the instruction as the slot's prompt, plan its reset-pose
        move."""
        self._take_metadata(self._connection().open())
        episode = _Episode(
            prompt=str(info["instruction"]),
            env_hz=float(getattr(env, "control_hz", None) or DEFAULT_ENV_HZ),
        )
        pose = self.metadata.get("reset_pose")
        if pose is not None:
            state = np.asarray(obs["state"], dtype=np.float64)
            episode.pending = self._reset_move(state, pose, episode.env_hz)
        self._episodes[slot] = episode

    def _reset_move(self, state: np.ndarray, pose: Any, env_hz: float) -> np.ndarray:
        """Rows (N, 14) that move both arms linearly to ``pose`` with grippers open, then
        hold there (openpi's ALOHA runtime moves in 1 s, then cycles the grippers)."""
        target = state.copy()
        target[0:6] = target[7:13] = np.asarray(pose, dtype=np.float64)
        target[list(GRIPPERS)] = 1.0
        moves = max(1, round(self.reset_move_s * env_hz))
        holds = round(RESET_HOLD_S * env_hz)
        f = (np.arange(1, moves + 1) / moves)[:, None]
        rows = state[None] + (target - state)[None] * f
        return np.concatenate([rows, np.repeat(target[None], holds, axis=0)])

    def observation(self, obs: dict[str, Any], prompt: str | None = None) -> dict[str, Any]:
        """Our observation in openpi's ALOHA format (see the module docstring), with
        ``prompt`` (default: slot 0's instruction)."""
        images = {}
        for camera, key in CAMERA_KEYS.items():
            if camera not in obs.get("images", {}):
                raise EvalError(
                    f"policy {self.name}: observation lacks camera {camera!r}; "
                    f"it needs {', '.join(CAMERA_KEYS)}"
                )
            img = np.asarray(obs["images"][camera], dtype=np.uint8)
            if self.image_size:
                img = resize_with_pad(img, self.image_size, self.image_size)
            images[key] = np.ascontiguousarray(img.transpose(2, 0, 1))
        state = get_convention(self.convention).state_to_server(obs["state"])
        return {
            "state": np.asarray(state, dtype=np.float32),
            "images": images,
            "prompt": self._episodes.get(0, _Episode()).prompt if prompt is None else prompt,
        }

    def _actions(self, reply: dict[str, Any]) -> np.ndarray:
        """The reply's actions as a finite float (H, 14) array in the server's convention."""
        if "actions" not in reply:
            raise PolicyError(
                f"openpi server {self.uri}: answer has no 'actions' (keys: "
                f"{', '.join(map(str, reply)) or 'none'})"
            )
        return check_chunk(reply["actions"], f"openpi server {self.uri}", "its actions have")

    def act_batch(self, obs: list[dict[str, Any]], slots: list[int]) -> list[Any]:
        """Each slot's rest of the reset move, else the server's chunk: up to ``horizon``
        rows (H, 14) per observation; the observations that need the server go out as one
        batched request when it advertises ``max_batch_size`` (see the module docstring),
        else one request each, in turn. A fault of an item is in its place."""
        out: list[Any] = [None] * len(obs)
        asking: list[tuple[int, _Episode, dict[str, Any]]] = []
        for i, (o, slot) in enumerate(zip(obs, slots, strict=True)):
            episode = self._episodes[slot]
            if episode.pending is not None:
                out[i], episode.pending = episode.pending, None
            else:
                asking.append((i, episode, self.observation(o, episode.prompt)))
        if not asking:
            return out
        conn = self._connection()
        if len(asking) > 1 and self.batch_size > 1:
            replies: list[Any] = conn.request_batch([o for *_, o in asking])
        else:
            replies = [conn.request(o) for *_, o in asking]
        for (i, episode, _), reply in zip(asking, replies, strict=True):
            try:
                if isinstance(reply, BaseException):
                    raise reply
                episode.text = _reply_text(reply)
                episode.features = reply.get("features")
                out[i] = self._chunk(reply, episode)
            except EpisodeFault as exc:
                out[i] = exc
        return out

    def _chunk(self, reply: dict[str, Any], episode: _Episode) -> np.ndarray:
        """The rows of ``reply`` to execute, in rsb_mj's convention and the env's rate."""
        actions = get_convention(self.convention).actions_from_server(self._actions(reply))
        if self.control_hz is not None and self.control_hz != episode.env_hz:
            return resample_chunk(actions, self.control_hz, episode.env_hz, self.horizon)
        return actions[: self.horizon]

    def slot_text(self, slot: int) -> str | None:
        """The text of the slot's last reply (its ``text`` or ``reasoning`` key), if any."""
        episode = self._episodes.get(slot)
        return None if episode is None else episode.text

    @property
    def offers_features(self) -> bool:
        """A server may add ``features`` to any reply."""
        return True

    def slot_features(self, slot: int) -> Any:
        """The ``features`` of the slot's last reply (layer name -> 1-D array), if it had
        them."""
        episode = self._episodes.get(slot)
        return None if episode is None else episode.features

    def close(self) -> None:
        """Close the websocket (a later reset reconnects)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


#: Reply keys a server may use for the text it writes with its actions (a rationale).
TEXT_KEYS = ("text", "reasoning")


def _reply_text(reply: dict[str, Any]) -> str | None:
    """The first of :data:`TEXT_KEYS` in ``reply`` as text (bytes decoded), else None."""
    for key in TEXT_KEYS:
        value = reply.get(key)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str) and value:
            return value
    return None
