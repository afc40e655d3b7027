from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

from rsb_mj.datasets.demo_file import FORMAT, episode_filename, read_demo, write_demo
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import ExpertError
from rsb_mj.lang.layout import Pose2D


def _episode() -> Episode:
    names = ("block_a", "block_b", "block_c", "block_d")
    return Episode.bound(
        suite="RSB-Math-4",
        split="train",
        index=7,
        seed=1234,
        task="rsb_math_4.bddl",
        question_id="arith-7",
        question="what is 2 plus 3?",
        options=("4", "5", "6", "7"),
        correct="B",
        mapping=dict(zip("ABCD", names, strict=True)),
        colors=dict(zip(names, ("red", "green", "blue", "yellow"), strict=True)),
        layout={n: Pose2D(0.05 * i, -0.05, 0.1) for i, n in enumerate(names)},
        template_id="seen-4-00",
        instruction="what is 2 plus 3? A is the red block ...",
    )


def test_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    states = rng.normal(size=(5, 14))
    actions = rng.normal(size=(5, 14))
    # smooth images survive JPEG almost unchanged
    grad = np.linspace(0, 255, 32, dtype=np.uint8)
    frame = np.stack(np.broadcast_arrays(grad[None, :], grad[:, None], 128 + 0 * grad[None, :]), -1)
    frames = {"head": [frame] * 5, "left_wrist": [frame[::-1]] * 5}
    path = tmp_path / episode_filename(7)
    write_demo(
        path,
        episode=_episode(),
        instruction="say it",
        states=states,
        actions=actions,
        images=frames,
        attrs={"success": True, "mujoco_version": "3.8.1"},
    )
    assert path.name == "episode_000007.hdf5"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    demo = read_demo(path)
    np.testing.assert_array_equal(demo.states, states)
    np.testing.assert_array_equal(demo.actions, actions)
    assert sorted(demo.images) == ["head", "left_wrist"]
    assert len(demo.images["head"]) == 5
    assert demo.images["head"][0].shape == (32, 32, 3)
    assert np.abs(demo.images["head"][0].astype(int) - frame).mean() < 2.0
    assert demo.episode == _episode()
    assert demo.attrs["instruction"] == "say it"
    assert demo.attrs["correct"] == "B"
    assert demo.attrs["target"] == "block_b"
    assert json.loads(demo.attrs["options"]) == ["4", "5", "6", "7"]
    assert demo.attrs["num_frames"] == 5
    assert demo.attrs["success"]
    with h5py.File(path) as f:
        assert f["observations/images/head"].dtype.kind == "O"  # JPEG bytes, not raw pixels


def test_rejects_a_foreign_file(tmp_path):
    path = tmp_path / "x.hdf5"
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "other"
    with pytest.raises(ExpertError, match=f"not an rsb_mj demonstration \\(format {FORMAT}"):
        read_demo(path)


def test_verify_finds_truncated_and_inconsistent_files(tmp_path):
    from rsb_mj.datasets.demo_file import verify_demo

    path = tmp_path / episode_filename(7)
    frame = np.zeros((8, 8, 3), np.uint8)
    write_demo(
        path, episode=_episode(), instruction="i", states=np.zeros((5, 14)),
        actions=np.zeros((5, 14)), images={"head": [frame] * 5}, attrs={},
    )  # fmt: skip
    verify_demo(path)
    with h5py.File(path, "a") as f:
        del f["observations/images/head"]
        f["observations/images"].create_dataset(
            "head", shape=(4,), dtype=h5py.vlen_dtype(np.dtype("uint8"))
        )
    wrong = r"observations/images/head has shape \(4,\); expected 5 rows \(num_frames\)$"
    with pytest.raises(ExpertError, match=rf"^{path}: {wrong}"):
        verify_demo(path)
    path.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(ExpertError, match=rf"^{path}: unreadable demonstration \("):
        verify_demo(path)


def _frames(n: int, seed: int = 0) -> list[np.ndarray]:
    """``n`` different smooth 24x32 RGB frames (JPEG sizes differ from frame to frame)."""
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 200, 32)[None, :, None] + np.linspace(0, 50, 24)[:, None, None]
    return [np.clip(ramp + rng.uniform(0, 55, 3), 0, 255).astype(np.uint8) for _ in range(n)]


def test_frames_encoded_in_the_background_write_the_same_file(tmp_path):
    from rsb_mj.datasets.demo_file import FrameEncoder, encode_frames, encode_jpeg

    images = {"head": _frames(6), "left_wrist": _frames(6, seed=1)}
    with FrameEncoder() as encoder:
        for t in range(6):
            for cam, frames in images.items():
                encoder.add(cam, frames[t])
        encoded = encoder.result()
    assert list(encoded.jpegs) == ["head", "left_wrist"]
    assert (encoded.height, encoded.width) == (24, 32)
    assert [j.tobytes() for j in encoded.jpegs["left_wrist"]] == [
        encode_jpeg(f).tobytes() for f in images["left_wrist"]
    ]
    assert len({len(j) for j in encoded.jpegs["head"]}) > 1
    direct = encode_frames(images)
    assert (direct.height, direct.width) == (24, 32)
    assert {c: [j.tobytes() for j in v] for c, v in direct.jpegs.items()} == {
        c: [j.tobytes() for j in v] for c, v in encoded.jpegs.items()
    }
    common = {"episode": _episode(), "instruction": "i", "attrs": {"success": True}}
    common |= {"states": np.zeros((6, 14)), "actions": np.ones((6, 14))}
    write_demo(tmp_path / "raw.hdf5", images=images, **common)
    write_demo(tmp_path / "encoded.hdf5", images=encoded, **common)
    assert (tmp_path / "raw.hdf5").read_bytes() == (tmp_path / "encoded.hdf5").read_bytes()


@pytest.mark.parametrize("lengths", [(812,) * 5, (5, 7, 0, 9)], ids=["equal", "mixed"])
def test_one_write_per_camera_is_byte_for_byte_the_row_by_row_file(tmp_path, lengths):
    """Equal lengths are the case ``ds[...] = column`` gets wrong (it stacks them)."""
    from rsb_mj.datasets.demo_file import _write_column

    rows = [np.arange(n, dtype=np.uint8) * (i + 1) for i, n in enumerate(lengths)]
    vlen = h5py.vlen_dtype(np.dtype("uint8"))
    for name, by_rows in (("rows.hdf5", True), ("column.hdf5", False)):
        with h5py.File(tmp_path / name, "w") as f:
            ds = f.create_dataset("x", shape=(len(rows),), dtype=vlen)
            if by_rows:
                for t, row in enumerate(rows):
                    ds[t] = row
            else:
                _write_column(ds, rows)
    assert (tmp_path / "rows.hdf5").read_bytes() == (tmp_path / "column.hdf5").read_bytes()
    with h5py.File(tmp_path / "column.hdf5") as f:
        assert [r.tolist() for r in f["x"][()]] == [r.tolist() for r in rows]
