"""Per-episode feature files of a run directory, and the record entry that names them.

``rsb eval --features MODE --out RUN`` writes one compressed NumPy archive per episode that
handed over features::

    RUN/features/<suite>/<split>-<index>-<policy>-<variant>.npz
        layer_000, layer_001, ...   (T, D_layer) float16 (float32 for a layer with a value
                                    beyond float16's range), in the policy's layer order
        names                       the layer names (unicode array), same order
        queries, steps              (T,) int64: each row's query index and the control
                                    steps run before it

The file is written atomically (:mod:`rsb_mj.atomic`) by the process that ran the episode,
before its record is appended, so a kill leaves either no file or a whole one; a resumed run
reruns the episodes without a record and rewrites their files (same seed, same features).
The record's ``features`` entry (:func:`entry`) says where and which shapes::

    {"mode": "first", "file": "features/A2A-Color/eval-00000-my_pkg_make-1a2b3c4d-original.npz",
     "layers": [{"name": "conv1", "shape": [1, 64], "dtype": "float16"}, ...],
     "queries": [0], "steps": [0], "choice_made": null}

or, when the episode kept none, ``{"mode": ..., "file": null, "missing": "why"}``.
Features are never read back by ``rsb eval``: scoring never sees them.
"""

from __future__ import annotations

import io
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.atomic import WriteError, atomic_write_bytes
from rsb_mj.errors import EvalError
from rsb_mj.probing.capture import Captured

#: The folder of a run directory that holds the feature files.
FEATURES_DIR = "features"
#: Largest magnitude stored as float16 (its largest finite value).
FLOAT16_MAX = float(np.finfo(np.float16).max)


def _slug(text: str, keep: int = 48) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:keep].strip("._") or "x"


def feature_name(suite: str, split: str, index: int, policy: str, variant: str) -> str:
    """The file of one episode's features, relative to the run's :data:`FEATURES_DIR`.

    The policy's slug carries a CRC32 of its spec, so two specs that slug alike
    (``a:b``, ``a_b``) keep apart."""
    tag = f"{zlib.crc32(policy.encode()):08x}"
    return (
        f"{_slug(Path(suite).stem if suite.endswith('.bddl') else suite)}/"
        f"{_slug(split)}-{index:05d}-{_slug(policy)}-{tag}-{_slug(variant)}.npz"
    )


def _stored(array: np.ndarray) -> np.ndarray:
    if np.abs(array).max(initial=0.0) <= FLOAT16_MAX:
        return array.astype(np.float16)
    return array.astype(np.float32)


def write_features(folder: Path, name: str, captured: Captured) -> dict[str, Any]:
    """Write ``captured`` to ``folder / name`` atomically; return the record entry.

    Args:
        folder: the run's features folder (``RUN / FEATURES_DIR``).
        name: :func:`feature_name` of the episode.
        captured: what the episode kept.

    Raises:
        WriteError: naming the file when it cannot be written.
    """
    path = folder / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{path.parent}: cannot create ({exc.strerror or exc})") from None
    arrays = {f"layer_{i:03d}": _stored(a) for i, a in enumerate(captured.layers.values())}
    buf = io.BytesIO()
    np.savez_compressed(
        buf,
        names=np.array(list(captured.layers), dtype=np.str_),
        queries=np.asarray(captured.queries, dtype=np.int64),
        steps=np.asarray(captured.steps, dtype=np.int64),
        **arrays,
    )
    atomic_write_bytes(path, buf.getvalue())
    layers = [
        {"name": layer, "shape": list(stored.shape), "dtype": str(stored.dtype)}
        for layer, stored in zip(captured.layers, arrays.values(), strict=True)
    ]
    return {
        "mode": str(captured.mode),
        "file": f"{FEATURES_DIR}/{name}",
        "layers": layers,
        "queries": list(captured.queries),
        "steps": list(captured.steps),
        "choice_made": captured.choice_made,
    }


def missing_entry(mode: str, why: str) -> dict[str, Any]:
    """The record entry of an episode that kept no features, saying why."""
    return {"mode": mode, "file": None, "missing": why}


def entry_layers(entry: dict[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    """``[(layer name, shape)]`` of a record's features entry (``[]`` when it has none)."""
    return [(str(x["name"]), tuple(int(n) for n in x["shape"])) for x in entry.get("layers", [])]


def load_features(run_dir: Path, entry: dict[str, Any]) -> dict[str, np.ndarray]:
    """The layers of a record's features entry: name -> float32 (T, D), in layer order.

    Raises:
        EvalError: naming the file when it is missing, not an archive of this layout, or
            when its layers differ from what the record says.
    """
    rel = entry.get("file")
    if not rel:
        raise EvalError(f"{run_dir}: the record keeps no features ({entry.get('missing')})")
    path = run_dir / str(rel)
    try:
        with np.load(path, allow_pickle=False) as data:
            names = [str(n) for n in data["names"]]
            layers = {n: data[f"layer_{i:03d}"].astype(np.float32) for i, n in enumerate(names)}
    except FileNotFoundError:
        raise EvalError(f"{path}: missing (the record names it); rerun rsb eval") from None
    except (OSError, KeyError, ValueError) as exc:
        raise EvalError(f"{path}: not a features archive ({exc})") from None
    said = entry_layers(entry)
    found = [(n, a.shape) for n, a in layers.items()]
    if said != found:
        raise EvalError(
            f"{path}: holds layers {found[:3]}...; its record says {said[:3]}... "
            "(a file of another run?)"
        )
    return layers


__all__ = [
    "FEATURES_DIR",
    "entry_layers",
    "feature_name",
    "load_features",
    "missing_entry",
    "write_features",
]
