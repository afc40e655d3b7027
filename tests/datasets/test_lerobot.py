"""Tests of rsb_mj.datasets.lerobot: LeRobot v3.0 and v2.1 exports read back with pyarrow
and PyAV against the format's layout, and a dataset replayed in the env."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest

pa = pytest.importorskip(
    "pyarrow",
    reason="the export needs the lerobot-export extra: pip install -e '.[lerobot-export]'",
)
pytest.importorskip(
    "av", reason="the export needs the lerobot-export extra: pip install -e '.[lerobot-export]'"
)

import pyarrow.parquet as pq  # noqa: E402

import rsb_mj  # noqa: E402, F401  (registers the ids)
from rsb_mj.cli import main  # noqa: E402
from rsb_mj.datasets.demo_file import read_demo  # noqa: E402
from rsb_mj.datasets.lerobot import CONVENTION, MOTORS, ExportError, export_lerobot  # noqa: E402
from rsb_mj.datasets.video import decode_mp4, probe_mp4  # noqa: E402
from rsb_mj.episodes.episode import Episode  # noqa: E402

from .conftest import CAMERAS, HEIGHT, WIDTH, synthetic_frames  # noqa: E402

KEYS = {
    "head": "observation.images.cam_high",
    "left_wrist": "observation.images.cam_left_wrist",
    "right_wrist": "observation.images.cam_right_wrist",
}
VEC = pa.list_(pa.float32(), 14)
FRAME_SCHEMA = pa.schema(
    [
        ("observation.state", VEC),
        ("action", VEC),
        ("timestamp", pa.float32()),
        ("frame_index", pa.int64()),
        ("episode_index", pa.int64()),
        ("index", pa.int64()),
        ("task_index", pa.int64()),
    ]
)


def files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def v30(synthetic_demos, tmp_path_factory):
    out = tmp_path_factory.mktemp("v30") / "ds"
    summary = export_lerobot(synthetic_demos, out)
    return out, summary


@pytest.fixture(scope="module")
def v21(synthetic_demos, tmp_path_factory):
    out = tmp_path_factory.mktemp("v21") / "ds"
    summary = export_lerobot(synthetic_demos, out, version="2.1")
    return out, summary


def expected_rows(synthetic_demos):
    """(states, actions, instruction, episode json) of the two successful demos, states and
    actions in the export's convention (ALOHA's grippers, :data:`CONVENTION`)."""
    out = []
    for i in (0, 1):
        d = read_demo(synthetic_demos / f"episode_{i:06d}.hdf5", images=False)
        states, actions = (
            CONVENTION.state_to_server(d.states),
            CONVENTION.actions_to_server(d.actions),
        )
        out.append((states, actions, d.attrs["instruction"], d.attrs["episode"]))
    return out


def test_v30_layout_and_info(v30):
    root, summary = v30
    assert (summary.episodes, summary.frames, summary.tasks) == (2, 12, 2)
    assert files(root) == [
        "data/chunk-000/file-000.parquet",
        "meta/episodes/chunk-000/file-000.parquet",
        "meta/info.json",
        "meta/stats.json",
        "meta/tasks.parquet",
        *(f"videos/{KEYS[c]}/chunk-000/file-000.mp4" for c in sorted(CAMERAS, key=KEYS.get)),
    ]
    info = json.loads((root / "meta/info.json").read_text())
    assert info["codebase_version"] == "v3.0"
    assert (info["fps"], info["total_episodes"], info["total_frames"], info["total_tasks"]) == (
        20,
        2,
        12,
        2,
    )
    assert info["data_path"] == "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"
    assert (
        info["video_path"] == "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
    )
    assert info["splits"] == {"train": "0:2"}
    feats = info["features"]
    assert feats["observation.state"] == {
        "dtype": "float32",
        "shape": [14],
        "names": MOTORS,
        "fps": 20,
    }
    assert feats["action"]["names"][6] == "left_gripper"
    for cam, key in KEYS.items():
        assert feats[key]["dtype"] == "video", cam
        assert feats[key]["shape"] == [HEIGHT, WIDTH, 3]
        assert feats[key]["info"]["video.codec"] == "h264"
        assert feats[key]["info"]["video.fps"] == 20
    assert feats["timestamp"] == {"dtype": "float32", "shape": [1], "names": None, "fps": 20}


def test_v30_frames_match_the_demos(v30, synthetic_demos):
    root, _ = v30
    table = pq.read_table(root / "data/chunk-000/file-000.parquet")
    assert table.schema.remove_metadata() == FRAME_SCHEMA
    (s0, a0, *_), (s1, a1, *_) = expected_rows(synthetic_demos)
    state = np.array(table["observation.state"].to_pylist(), np.float32)
    np.testing.assert_array_equal(state, np.concatenate([s0, s1]).astype(np.float32))
    action = np.array(table["action"].to_pylist(), np.float32)
    np.testing.assert_array_equal(action, np.concatenate([a0, a1]).astype(np.float32))
    assert table["index"].to_pylist() == list(range(12))
    assert table["episode_index"].to_pylist() == [0] * 7 + [1] * 5
    assert table["frame_index"].to_pylist() == [*range(7), *range(5)]
    assert table["task_index"].to_pylist() == [0] * 7 + [1] * 5
    ts = table["timestamp"].to_numpy()
    np.testing.assert_array_equal(ts[7:], np.arange(5, dtype=np.float32) / 20)


def test_v30_episodes_tasks_and_stats(v30, synthetic_demos):
    root, _ = v30
    rows = expected_rows(synthetic_demos)
    eps = pq.read_table(root / "meta/episodes/chunk-000/file-000.parquet").to_pylist()
    assert [e["episode_index"] for e in eps] == [0, 1]
    assert [e["length"] for e in eps] == [7, 5]
    assert [e["tasks"] for e in eps] == [[rows[0][2]], [rows[1][2]]]
    assert [(e["dataset_from_index"], e["dataset_to_index"]) for e in eps] == [(0, 7), (7, 12)]
    key = KEYS["head"]
    assert [e[f"videos/{key}/from_timestamp"] for e in eps] == [0.0, 0.35]
    assert [e[f"videos/{key}/to_timestamp"] for e in eps] == [0.35, 0.6]
    assert Episode.from_dict(json.loads(eps[1]["rsb_episode"])).index == 1
    assert [e["rsb_success"] for e in eps] == [True, True]
    assert [e["rsb_rationale"] for e in eps] == ["rationale of row 0", "rationale of row 1"]
    assert eps[0]["stats/action/max"] == pytest.approx(list(rows[0][1].max(axis=0)))
    tasks = pq.read_table(root / "meta/tasks.parquet")
    assert tasks["__index_level_0__"].to_pylist() == [rows[0][2], rows[1][2]]
    assert tasks["task_index"].to_pylist() == [0, 1]
    assert json.loads(tasks.schema.metadata[b"pandas"])["index_columns"] == ["__index_level_0__"]
    stats = json.loads((root / "meta/stats.json").read_text())
    allstates = np.concatenate([rows[0][0], rows[1][0]])
    assert stats["observation.state"]["min"] == pytest.approx(list(allstates.min(axis=0)))
    assert stats["observation.state"]["mean"] == pytest.approx(list(allstates.mean(axis=0)))
    assert stats["observation.state"]["std"] == pytest.approx(list(allstates.std(axis=0)))
    assert stats["observation.state"]["count"] == [12]
    assert np.array(stats[key]["mean"]).shape == (3, 1, 1)


def test_v30_videos_hold_every_frame_at_its_timestamp(v30):
    root, _ = v30
    for c, cam in enumerate(CAMERAS):
        path = root / f"videos/{KEYS[cam]}/chunk-000/file-000.mp4"
        probe = probe_mp4(str(path))
        assert probe == {
            "codec": "h264",
            "pix_fmt": "yuv420p",
            "width": WIDTH,
            "height": HEIGHT,
            "fps": 20.0,
            "frames": 12,
            "has_audio": False,
        }
        frames, times = decode_mp4(str(path), with_times=True)
        np.testing.assert_allclose(times, np.arange(12) / 20)
        want = np.stack(synthetic_frames(0, c, 7) + synthetic_frames(1, c, 5)).astype(int)
        # JPEG in the demo, then H.264: close, not equal; each frame is nearest to its own
        err = np.abs(frames.astype(int)[:, None] - want[None]).mean(axis=(2, 3, 4))
        assert err.argmin(axis=1).tolist() == list(range(12))
        assert err.diagonal().max() < 6.0


def test_v21_layout_and_meta(v21, synthetic_demos):
    root, summary = v21
    assert (summary.episodes, summary.frames) == (2, 12)
    assert files(root) == [
        "data/chunk-000/episode_000000.parquet",
        "data/chunk-000/episode_000001.parquet",
        "meta/episodes.jsonl",
        "meta/episodes_stats.jsonl",
        "meta/info.json",
        "meta/stats.json",
        "meta/tasks.jsonl",
        *(
            f"videos/chunk-000/{KEYS[c]}/episode_{i:06d}.mp4"
            for c in sorted(CAMERAS, key=KEYS.get)
            for i in (0, 1)
        ),
    ]
    info = json.loads((root / "meta/info.json").read_text())
    assert info["codebase_version"] == "v2.1"
    assert (info["total_videos"], info["total_chunks"], info["chunks_size"]) == (6, 1, 1000)
    assert info["data_path"] == "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet"
    assert "fps" not in info["features"]["action"]
    rows = expected_rows(synthetic_demos)
    tasks = [json.loads(x) for x in (root / "meta/tasks.jsonl").read_text().splitlines()]
    assert tasks == [{"task_index": 0, "task": rows[0][2]}, {"task_index": 1, "task": rows[1][2]}]
    eps = [json.loads(x) for x in (root / "meta/episodes.jsonl").read_text().splitlines()]
    assert [(e["episode_index"], e["tasks"], e["length"]) for e in eps] == [
        (0, [rows[0][2]], 7),
        (1, [rows[1][2]], 5),
    ]
    st = [json.loads(x) for x in (root / "meta/episodes_stats.jsonl").read_text().splitlines()]
    assert [s["episode_index"] for s in st] == [0, 1]
    assert set(st[0]["stats"]) == {*KEYS.values(), *FRAME_SCHEMA.names}
    assert set(st[0]["stats"]["action"]) >= {"min", "max", "mean", "std", "count"}
    table = pq.read_table(root / "data/chunk-000/episode_000001.parquet")
    assert table.schema.remove_metadata() == FRAME_SCHEMA
    assert table["index"].to_pylist() == list(range(7, 12))
    np.testing.assert_array_equal(
        np.array(table["action"].to_pylist(), np.float32), rows[1][1].astype(np.float32)
    )
    frames, times = decode_mp4(
        str(root / f"videos/chunk-000/{KEYS['left_wrist']}/episode_000001.mp4"), with_times=True
    )
    assert frames.shape == (5, HEIGHT, WIDTH, 3)
    np.testing.assert_allclose(times, np.arange(5) / 20)


def test_same_demos_same_bytes(synthetic_demos, v30, tmp_path):
    root, _ = v30
    again = tmp_path / "again"
    export_lerobot(synthetic_demos, again)
    assert files(again) == files(root)
    for rel in files(root):
        assert (again / rel).read_bytes() == (root / rel).read_bytes(), rel


def test_include_failures_and_camera_subset(synthetic_demos, tmp_path):
    res = export_lerobot(synthetic_demos, tmp_path / "ds", cameras=("head",), successful_only=False)
    assert (res.episodes, res.frames) == (3, 18)
    info = json.loads((tmp_path / "ds/meta/info.json").read_text())
    assert [k for k in info["features"] if k.startswith("observation.images")] == [KEYS["head"]]


def test_instruction_features_are_a_frame_column_with_stats(synthetic_demos, v30, tmp_path):
    from rsb_mj.policies.instruction_features import INSTRUCTION_KEY, encode

    res = export_lerobot(synthetic_demos, tmp_path / "ds", instruction_features=32)
    info = json.loads((tmp_path / "ds/meta/info.json").read_text())
    assert info["features"][INSTRUCTION_KEY] == {
        "dtype": "float32", "shape": [32], "names": None, "fps": 20,
    }  # fmt: skip
    table = pq.read_table(tmp_path / "ds/data/chunk-000/file-000.parquet")
    assert table.schema.field(INSTRUCTION_KEY).type == pa.list_(pa.float32(), 32)
    rows = np.array(table.column(INSTRUCTION_KEY).to_pylist(), np.float32)
    episodes = table.column("episode_index").to_numpy()
    assert rows.shape == (res.frames, 32)
    for i, (_, _, instruction, _) in enumerate(expected_rows(synthetic_demos)):
        assert (rows[episodes == i] == encode(instruction, 32)).all()
    stats = json.loads((tmp_path / "ds/meta/stats.json").read_text())[INSTRUCTION_KEY]
    assert np.allclose(stats["max"], rows.max(axis=0)) and len(stats["mean"]) == 32
    # without it (the default) there is no such feature and no such column
    root, _ = v30
    assert INSTRUCTION_KEY not in json.loads((root / "meta/info.json").read_text())["features"]
    assert pq.read_schema(root / "data/chunk-000/file-000.parquet") == FRAME_SCHEMA


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"version": "2.0"}, r"unknown LeRobot version '2.0'; valid choices: 3.0, 2.1"),
        ({"cameras": ("top",)}, r"unknown cameras \['top'\]; valid choices: head, left_wrist"),
        (
            {"instruction_features": -1},
            r"--instruction-features is -1; valid: 0 \(off\) or a length >= 1",
        ),
    ],
)
def test_bad_arguments_are_refused(synthetic_demos, tmp_path, kwargs, message):
    with pytest.raises(ExportError, match=message):
        export_lerobot(synthetic_demos, tmp_path / "ds", **kwargs)
    assert not (tmp_path / "ds").exists()


def test_existing_output_and_empty_input_are_refused(synthetic_demos, tmp_path):
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "keep.txt").write_text("x")
    with pytest.raises(ExportError, match="exists and is not an empty folder"):
        export_lerobot(synthetic_demos, tmp_path / "ds")
    assert (tmp_path / "ds" / "keep.txt").read_text() == "x"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ExportError, match=r"no demonstrations \(episode_\*\.hdf5\) in it"):
        export_lerobot(tmp_path / "empty", tmp_path / "ds2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "empty"]


def test_cli_exports_v21(synthetic_demos, tmp_path, capsys):
    assert (
        main(
            [
                "export-lerobot",
                str(synthetic_demos),
                "-o",
                str(tmp_path / "ds"),
                "--lerobot-version",
                "2.1",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == (
        f"rsb export-lerobot: 2 episodes, 12 frames, 2 tasks, 3 cameras -> {tmp_path / 'ds'} "
        "(LeRobot v2.1)\n"
    )
    assert main(["export-lerobot", str(tmp_path / "nothing"), "-o", str(tmp_path / "x")]) == 2
    assert "no such folder of demonstrations" in capsys.readouterr().err


def test_replaying_an_exported_dataset_reproduces_its_success(tmp_path):
    """A real expert demo (no cameras), exported; its parquet actions replayed open loop
    through gymnasium.make on the episode stored with it succeed again."""
    from rsb_mj.datasets.demos import write_demos

    res = write_demos("RSB-Math-4", "train", 1, tmp_path / "demos", cameras=(), progress=False)
    assert res["failed"] == 0
    export_lerobot(tmp_path / "demos", tmp_path / "ds", cameras=())
    ep = pq.read_table(tmp_path / "ds/meta/episodes/chunk-000/file-000.parquet").to_pylist()[0]
    actions = np.array(
        pq.read_table(tmp_path / "ds/data/chunk-000/file-000.parquet")["action"].to_pylist()
    )
    assert ep["rsb_success"] is True and len(actions) == ep["length"]
    env = gymnasium.make("rsb_mj/RSB-Math-4-v0", cameras=())
    env.reset(options={"episode": json.loads(ep["rsb_episode"])})
    rewards = []
    for action in CONVENTION.actions_from_server(actions):  # ALOHA's grippers -> rsb_mj's
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    env.close()
    assert terminated and not truncated
    assert info["is_success"] is True
    # the outcome is decided on the demo's last recorded step, rewarded there only
    assert rewards == [0.0] * (len(actions) - 1) + [1.0]


def test_rsb_demos_format_lerobot_writes_and_rebuilds_the_dataset(tmp_path, capsys):
    """``rsb demos --format lerobot`` (no cameras: fast) converts the folder, and a rerun
    that finds every episode done rebuilds the dataset in place."""
    args = ["demos", "RSB-Math-4", "-n", "1", "-o", str(tmp_path), "--cameras", "",
            "--no-progress", "--format", "lerobot", "--lerobot-version", "2.1"]  # fmt: skip
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"rsb demos: LeRobot v2.1 dataset of 1 successful episodes in {tmp_path / 'lerobot'}"
    )
    info = json.loads((tmp_path / "lerobot/meta/info.json").read_text())
    assert (info["codebase_version"], info["total_episodes"], info["video_path"]) == (
        "v2.1",
        1,
        None,
    )
    assert main(args) == 0
    assert "(0 written, 1 already there" in capsys.readouterr().out
    assert json.loads((tmp_path / "lerobot/meta/info.json").read_text()) == info
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == [".rsb.lock"]


def test_cli_out_that_is_or_lies_under_a_file_names_it(synthetic_demos, tmp_path, capsys):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("keep me")
    argv = ["export-lerobot", str(synthetic_demos), "-o"]
    assert main([*argv, str(blocker)]) == 2
    assert capsys.readouterr().err == (
        f"rsb export-lerobot: error: {blocker}: exists and is a file, not a folder; name a new "
        "folder\n"
    )
    assert main([*argv, str(blocker / "ds")]) == 2
    assert capsys.readouterr().err == (
        f"rsb export-lerobot: error: {blocker}: cannot write the dataset ds (-o) there: it is a "
        "file, not a folder\n"
    )
    assert blocker.read_text() == "keep me" and sorted(tmp_path.iterdir()) == [blocker]


#: The synthetic tier-B files' fixture joints: two scenes that share one joint.
SCENE_A = ("cabinet_1/top_level", "cabinet_1/middle_level", "stove_1/button")
SCENE_B = ("cabinet_1/middle_level", "microwave_1/door")


@pytest.fixture(scope="module")
def fixture_demos(synthetic_demos, tmp_path_factory):
    """The synthetic question demos (no fixture joints) and two files after them that record
    fixture joints (5 and 4 frames, scenes A and B), in one folder."""
    import shutil

    from rsb_mj.datasets.demo_file import episode_filename, write_demo
    from rsb_mj.tables.families import load_table

    out = tmp_path_factory.mktemp("fixture_demos")
    for path in synthetic_demos.glob("episode_*.hdf5"):
        shutil.copy(path, out / path.name)
    rows = load_table("RSB-Math-4", "train")
    for i, (length, names) in enumerate(((5, SCENE_A), (4, SCENE_B)), start=3):
        states = np.full((length, 14), 0.1 * i)
        joints = np.arange(length * len(names), dtype=np.float64).reshape(length, -1) / 10 + i
        write_demo(
            out / episode_filename(i), episode=rows[i], instruction=rows[i].instruction,
            states=states, actions=states, images={}, attrs={"success": True},
            fixture_joints=(names, joints),
        )  # fmt: skip
    return out


@pytest.mark.parametrize("version", ["3.0", "2.1"])
def test_fixture_joints_are_the_environment_state_named_by_joint(fixture_demos, tmp_path, version):
    """Every frame's ``observation.environment_state`` is the positions of the folder's fixture
    joints (scene A's in its order, then scene B's new one), 0 where an episode's scene lacks
    a joint; the joints are named in the feature, in info.json and per episode."""
    names = [*SCENE_A, "microwave_1/door"]
    res = export_lerobot(fixture_demos, tmp_path / "ds", version=version, cameras=())
    assert (res.episodes, res.frames) == (4, 21)
    info = json.loads((tmp_path / "ds/meta/info.json").read_text())
    feature = {"dtype": "float32", "shape": [4], "names": names}
    if version == "3.0":
        feature["fps"] = 20
    assert info["features"]["observation.environment_state"] == feature
    assert info["rsb_environment_state"] == {"holds": "fixture_joints", "names": names}
    data = sorted((tmp_path / "ds/data").rglob("*.parquet"))
    table = pa.concat_tables([pq.read_table(p) for p in data])
    assert table.schema.field("observation.environment_state").type == pa.list_(pa.float32(), 4)
    rows = np.array(table.column("observation.environment_state").to_pylist())
    episodes = table.column("episode_index").to_numpy()
    assert (rows[episodes < 2] == 0).all()  # the question episodes: no fixture
    for ep, (i, scene) in enumerate(((3, SCENE_A), (4, SCENE_B)), start=2):
        joints = read_demo(fixture_demos / f"episode_{i:06d}.hdf5", images=False).fixture_joints
        expect = np.zeros((len(joints), 4))
        expect[:, [names.index(n) for n in scene]] = joints
        np.testing.assert_array_equal(rows[episodes == ep], expect.astype(np.float32))
    if version == "3.0":
        meta = pq.read_table(tmp_path / "ds/meta/episodes/chunk-000/file-000.parquet")
        per_episode = meta.column("rsb_fixture_joints").to_pylist()
        stats = json.loads((tmp_path / "ds/meta/stats.json").read_text())
        assert np.allclose(stats["observation.environment_state"]["max"], rows.max(axis=0))
    else:
        lines = (tmp_path / "ds/meta/episodes.jsonl").read_text().splitlines()
        per_episode = [json.loads(line)["rsb_fixture_joints"] for line in lines]
    assert [json.loads(x) for x in per_episode] == [[], [], list(SCENE_A), list(SCENE_B)]


def test_without_fixture_joints_the_export_is_as_before(fixture_demos, tmp_path):
    """``fixture_joints=False`` writes no such feature, column or info key; nor does a folder
    without fixture joints (the synthetic question demos: the frame schema of old)."""
    export_lerobot(fixture_demos, tmp_path / "off", cameras=(), fixture_joints=False)
    info = json.loads((tmp_path / "off/meta/info.json").read_text())
    assert "observation.environment_state" not in info["features"]
    assert "rsb_environment_state" not in info
    assert pq.read_schema(tmp_path / "off/data/chunk-000/file-000.parquet") == FRAME_SCHEMA
    meta = pq.read_schema(tmp_path / "off/meta/episodes/chunk-000/file-000.parquet")
    assert "rsb_fixture_joints" not in meta.names


def test_instruction_features_and_fixture_joints_cannot_share_the_key(
    fixture_demos, tmp_path, capsys
):
    argv = ["export-lerobot", str(fixture_demos), "--cameras", "", "--instruction-features", "8"]
    assert main([*argv, "-o", str(tmp_path / "ds")]) == 2
    assert capsys.readouterr().err == (
        f"rsb export-lerobot: error: {fixture_demos}: its demonstrations record fixture joints "
        "(cabinet_1/top_level, cabinet_1/middle_level, stove_1/button, microwave_1/door), "
        "exported as observation.environment_state, which --instruction-features would fill "
        "with the instruction; add --no-fixture-joints to export the instruction vector "
        "instead\n"
    )
    assert not (tmp_path / "ds").exists()
    assert main([*argv, "--no-fixture-joints", "-o", str(tmp_path / "ds")]) == 0
    info = json.loads((tmp_path / "ds/meta/info.json").read_text())
    assert info["features"]["observation.environment_state"]["shape"] == [8]
    assert "rsb_environment_state" not in info
