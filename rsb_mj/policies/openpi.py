"""``openpi:HOST:PORT``: a client of openpi policy servers (ALOHA observation format).

Speaks openpi's websocket protocol through ``openpi_client.WebsocketClientPolicy``: the
server first sends a metadata dict, then answers each msgpack observation (numpy arrays in
``__ndarray__`` envelopes) with a dict holding ``actions`` of shape (H, 14).

Observation mapping (what openpi's ALOHA policies expect)::

    state                    <- obs["state"]            (14,) joint positions, float32
    images.cam_high          <- obs["images"]["head"]         HWC -> CHW uint8
    images.cam_left_wrist    <- obs["images"]["left_wrist"]
    images.cam_right_wrist   <- obs["images"]["right_wrist"]
    prompt                   <- info["instruction"]

Images are resized with padding to ``image_size`` (224, as openpi's ALOHA examples do on
the client side). The returned chunk's first ``horizon`` rows are executed before the next
query (openpi's ``ActionChunkBroker`` behaviour). Actions are in rsb_mj's layout and
gripper convention (0 closed .. 1 open); a server trained on another convention must map it.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.policies.base import ACTION_DIM, Policy

#: rsb_mj camera -> openpi ALOHA image key.
CAMERA_KEYS: dict[str, str] = {
    "head": "cam_high",
    "left_wrist": "cam_left_wrist",
    "right_wrist": "cam_right_wrist",
}


class OpenPiPolicy(Policy):
    """Queries an openpi policy server and executes its action chunks."""

    cameras: ClassVar[tuple[str, ...]] = tuple(CAMERA_KEYS)

    def __init__(self, host: str, port: int, *, horizon: int = 10, image_size: int = 224):
        """Remember the server; the connection opens at the first reset.

        Args:
            host: server host name or address.
            port: server TCP port.
            horizon: rows of each returned chunk executed before the next query.
            image_size: square side [px] images are resized (with padding) to; 0 keeps them.
        """
        self.name = f"openpi:{host}:{port}"
        self.host, self.port = host, port
        self.horizon, self.image_size = horizon, image_size
        self.prompt = ""
        self.metadata: dict[str, Any] = {}
        self._client: Any = None

    def _connect(self) -> Any:
        from openpi_client.websocket_client_policy import WebsocketClientPolicy

        try:
            with warnings.catch_warnings():  # openpi-client 0.1.2 on websockets >= 14
                warnings.filterwarnings("ignore", "connect\\(\\) must be used", DeprecationWarning)
                client = WebsocketClientPolicy(host=self.host, port=self.port)
        except OSError as exc:
            raise EvalError(
                f"policy {self.name}: cannot reach the openpi server at "
                f"ws://{self.host}:{self.port} ({exc})"
            ) from None
        self.metadata = dict(client.get_server_metadata() or {})
        return client

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Connect (once) and take the instruction as the prompt."""
        if self._client is None:
            self._client = self._connect()
        self._client.reset()
        self.prompt = str(info["instruction"])

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Our observation in openpi's ALOHA format (see the module docstring)."""
        from openpi_client import image_tools

        images = {}
        for camera, key in CAMERA_KEYS.items():
            if camera not in obs["images"]:
                raise EvalError(
                    f"policy {self.name}: observation lacks camera {camera!r}; "
                    f"it needs {', '.join(CAMERA_KEYS)}"
                )
            img = np.asarray(obs["images"][camera], dtype=np.uint8)
            if self.image_size:
                img = image_tools.resize_with_pad(img, self.image_size, self.image_size)
            images[key] = np.ascontiguousarray(img.transpose(2, 0, 1))
        return {
            "state": np.asarray(obs["state"], dtype=np.float32),
            "images": images,
            "prompt": self.prompt,
        }

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """Query the server; return the first ``horizon`` rows of its chunk (H, 14)."""
        try:
            reply = self._client.infer(self.observation(obs))
        except RuntimeError as exc:  # the server sent its error text
            raise EvalError(f"policy {self.name}: server error: {exc}") from None
        actions = np.asarray(reply.get("actions") if isinstance(reply, dict) else None)
        if actions.ndim == 1:
            actions = actions[None]
        if actions.ndim != 2 or actions.shape[1] != ACTION_DIM or actions.shape[0] == 0:
            raise EvalError(
                f"policy {self.name}: server returned actions of shape {actions.shape}; "
                f"expected (H, {ACTION_DIM})"
            )
        return actions[: self.horizon].astype(np.float64)

    def close(self) -> None:
        """Close the websocket."""
        if self._client is not None:
            ws = getattr(self._client, "_ws", None)
            if ws is not None:
                ws.close()
            self._client = None
