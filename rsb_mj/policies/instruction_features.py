"""The instruction as a fixed-length vector: hashed word unigrams and bigrams (fastText's
input), for policies with no text encoder of their own (LeRobot's ACT and diffusion).

``rsb export-lerobot --instruction-features DIM`` stores ``encode(instruction, DIM)`` in every
frame as ``observation.environment_state``; ACT projects that feature into a token with a
learned linear layer, so the pair is a bag-of-n-grams text encoder trained from scratch
(nothing downloaded). ``rsb eval --policy lerobot:`` computes the same vector from the
episode's instruction when the checkpoint declares the feature, so the policy sees the text at
evaluation as it did in training.

Tokens: the lower-cased instruction split into runs of letters, runs of digits, and single
other non-space characters (``"3 + 4"`` -> ``3``, ``+``, ``4``), plus ``<s>``/``</s>`` at the
ends. Each unigram and each adjacent pair (which keeps word order: ``7 - 3`` differs from
``3 - 7``) adds 1 to bucket ``crc32(token) mod DIM``. CRC-32 is fixed across Python runs
and machines (``hash()`` is salted), so the same text gives the same bytes everywhere.
"""

from __future__ import annotations

import itertools
import re
import zlib

import numpy as np

#: The LeRobot feature that carries the vector (ACT and diffusion read it as an input token).
INSTRUCTION_KEY = "observation.environment_state"
#: Default vector length (buckets).
DEFAULT_DIM = 256

_TOKEN = re.compile(r"[a-z]+|[0-9]+|[^\sa-z0-9]")


def tokens(instruction: str) -> list[str]:
    """The unigrams and bigrams of ``instruction`` (see the module docstring)."""
    words = ["<s>", *_TOKEN.findall(instruction.lower()), "</s>"]
    return words[1:-1] + [f"{a} {b}" for a, b in itertools.pairwise(words)]


def encode(instruction: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """The (dim,) float32 count vector of the instruction's hashed unigrams and bigrams.

    Raises:
        ValueError: if ``dim`` is below 1.
    """
    if dim < 1:
        raise ValueError(f"instruction feature length must be at least 1, got {dim}")
    vec = np.zeros(dim, np.float32)
    for tok in tokens(instruction):
        vec[zlib.crc32(tok.encode("utf-8")) % dim] += 1.0
    return vec
