"""A tiny numpy network policy with per-layer features: the reference network of ``rsb probe``.

``--policy rsb_mj.policies.tiny_net:make`` runs it (in a policy process, like any user
policy). It is *not trained*: its weights are drawn once from a seeded generator
(He-normal), so ``rsb probe`` on it measures what a random network's layers keep of the
answer, the floor a trained policy should rise above. Architecture (all numpy, float32)::

    head image (H, W, 3) uint8 -> area-resized to 24 x 32, scaled to [0, 1]   layer "image"
      conv 5x5 stride 2, 3 -> 8 channels, ReLU      (10 x 14 x 8)            layer "conv1"
      conv 3x3 stride 2, 8 -> 16 channels, ReLU     (4 x 6 x 16)             layer "conv2"
      linear 384 -> 64, ReLU                                                 layer "vision"
    instruction -> hashed bag of words, 256 signed buckets (CRC32)            layer "words"
      linear 256 -> 32, ReLU                                                 layer "text"
    [vision, text] -> linear 96 -> 64, ReLU                                  layer "fusion"
      linear 64 -> 32, ReLU                                                  layer "trunk"
      linear 32 -> 14                                                        layer "action"

The action is the state at reset plus ``0.05 tanh(action)`` [rad] (grippers open): the arms
barely move, so it never grasps. After :data:`ACTS` acts it reports ``done``. Its
``features`` are every layer above, flattened, for the last act (:mod:`rsb_mj.policies.
features`), so ``rsb eval --features first`` keeps what it computed from the first image.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

import cv2
import numpy as np

#: Input image size [px] the head camera is area-resized to (height, width).
IMAGE_HW = (24, 32)
#: Hashed bag-of-words buckets.
WORD_BUCKETS = 256
#: Acts before the policy reports done.
ACTS = 10
#: Largest joint offset from the reset state [rad].
REACH = 0.05
#: Gripper indices of an action (left, right): held open.
GRIPPERS = (6, 13)


def bag_of_words(text: str, buckets: int = WORD_BUCKETS) -> np.ndarray:
    """Signed hashed counts of the lower-case words of ``text`` (CRC32: the same in every
    process), float32 (buckets,)."""
    out = np.zeros(buckets, dtype=np.float32)
    for word in re.findall(r"[a-z0-9:]+", text.lower()):
        h = zlib.crc32(word.encode())
        out[h % buckets] += 1.0 if (h >> 16) & 1 else -1.0
    return out


def conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int) -> np.ndarray:
    """Valid 2-D convolution of ``x`` (H, W, C) with ``w`` (k, k, C, F) and stride, + ReLU."""
    k = w.shape[0]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(0, 1))
    windows = windows[::stride, ::stride]  # (H', W', C, k, k)
    out = np.einsum("hwcij,ijcf->hwf", windows, w, optimize=True) + b
    return np.maximum(out, 0.0)


class TinyNet:
    """See the module docstring.

    Args:
        seed: seed of the weights.
    """

    cameras = ("head",)

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)

        def he(*shape: int, fan_in: int) -> np.ndarray:
            return (rng.normal(size=shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

        self.w = {
            "conv1": he(5, 5, 3, 8, fan_in=75),
            "conv2": he(3, 3, 8, 16, fan_in=72),
            "vision": he(384, 64, fan_in=384),
            "text": he(WORD_BUCKETS, 32, fan_in=WORD_BUCKETS),
            "fusion": he(96, 64, fan_in=96),
            "trunk": he(64, 32, fan_in=64),
            "action": he(32, 14, fan_in=32),
        }
        self.b = {name: np.zeros(w.shape[-1], dtype=np.float32) for name, w in self.w.items()}
        self._features: dict[str, np.ndarray] | None = None
        self.words = np.zeros(WORD_BUCKETS, dtype=np.float32)
        self.home = np.zeros(14)
        self.t = 0

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Read the instruction; remember the state the arms stay near."""
        self.words = bag_of_words(str(info.get("instruction", "")))
        self.home = np.asarray(obs["state"], dtype=np.float64).copy()
        self.t = 0
        self._features = None

    def forward(self, image: np.ndarray) -> dict[str, np.ndarray]:
        """Every layer's output for a head image (H, W, 3) uint8 and the current words."""

        h, w = IMAGE_HW
        small = cv2.resize(np.asarray(image, dtype=np.uint8), (w, h), interpolation=cv2.INTER_AREA)
        x = small.astype(np.float32) / 255.0
        c1 = conv(x, self.w["conv1"], self.b["conv1"], 2)
        c2 = conv(c1, self.w["conv2"], self.b["conv2"], 2)
        vision = np.maximum(c2.reshape(-1) @ self.w["vision"] + self.b["vision"], 0.0)
        text = np.maximum(self.words @ self.w["text"] + self.b["text"], 0.0)
        fused = np.concatenate([vision, text])
        fusion = np.maximum(fused @ self.w["fusion"] + self.b["fusion"], 0.0)
        trunk = np.maximum(fusion @ self.w["trunk"] + self.b["trunk"], 0.0)
        action = trunk @ self.w["action"] + self.b["action"]
        return {
            "image": x.reshape(-1),
            "words": self.words,
            "conv1": c1.reshape(-1),
            "conv2": c2.reshape(-1),
            "vision": vision,
            "text": text,
            "fusion": fusion,
            "trunk": trunk,
            "action": action,
        }

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The state at reset plus a small offset from the network; grippers open."""
        layers = self.forward(obs["images"]["head"])
        self._features = layers
        self.t += 1
        target = self.home + REACH * np.tanh(layers["action"].astype(np.float64))
        target[list(GRIPPERS)] = 1.0
        return target

    @property
    def done(self) -> bool:
        """True after :data:`ACTS` acts."""
        return self.t >= ACTS

    @property
    def features(self) -> dict[str, np.ndarray] | None:
        """Every layer of the last act, flattened, in depth order (None before it acts)."""
        return self._features


def make() -> TinyNet:
    """``module:factory`` entry: the network with seed 0."""
    return TinyNet(0)


__all__ = ["ACTS", "IMAGE_HW", "TinyNet", "bag_of_words", "conv", "make"]
