"""The reference network end to end: rsb eval --features first with it in a policy process on
the real A2A-Color scene, then rsb probe on what it stored."""

from __future__ import annotations

import json

import numpy as np

from rsb_mj.cli import main
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.policies.tiny_net import ACTS, TinyNet, bag_of_words, conv

LAYERS = {
    "image": 2304,
    "words": 256,
    "conv1": 1120,
    "conv2": 384,
    "vision": 64,
    "text": 32,
    "fusion": 64,
    "trunk": 32,
    "action": 14,
}


def test_layers_are_fixed_by_the_seed_and_read_the_instruction():
    image = np.random.default_rng(1).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    outputs = []
    for instruction in ("put the cube on the red plate.", "put the cube on the blue plate."):
        net = TinyNet(0)
        net.reset(None, {"state": np.zeros(14)}, {"instruction": instruction})
        action = net.act({"images": {"head": image}})
        assert {k: v.shape[0] for k, v in net.features.items()} == LAYERS
        assert np.abs(action[[0, 1, 2, 3, 4, 5]]).max() <= 0.05 and action[6] == action[13] == 1
        outputs.append(net.features)
    same_image = outputs[0]["conv2"] == outputs[1]["conv2"]
    assert same_image.all()  # the image stream does not read words
    assert not np.array_equal(outputs[0]["text"], outputs[1]["text"])
    assert TinyNet(0).w["vision"].tobytes() == TinyNet(0).w["vision"].tobytes()
    assert TinyNet(1).w["vision"].tobytes() != TinyNet(0).w["vision"].tobytes()


def test_words_hash_the_same_in_every_process_and_convolution_is_valid():
    assert bag_of_words("The red, the RED").tolist() == bag_of_words("the red the red").tolist()
    assert np.abs(bag_of_words("the red")).sum() == 2.0
    x = np.arange(5 * 5 * 1, dtype=np.float32).reshape(5, 5, 1)
    w = np.ones((3, 3, 1, 1), dtype=np.float32)
    assert conv(x, w, np.zeros(1, np.float32), 2)[..., 0].tolist() == [[54.0, 72.0], [144.0, 162.0]]


def test_eval_then_probe_on_the_real_scene(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["eval", "--suite", "A2A-Color", "--policy", "rsb_mj.policies.tiny_net:make",
            "--features", "first", "--episodes", "4", "--out", str(out), "--max-steps", "2",
            "-j", "1", "--no-progress"]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert f"features: 4 of 4 episodes in {out / 'features'}; probe: rsb probe {out}" in printed
    records = read_records(out / RECORDS_FILE)
    assert [r.features["queries"] for r in records] == [[0]] * 4
    assert [(x["name"], x["shape"][1]) for x in records[0].features["layers"]] == list(
        LAYERS.items()
    )
    assert main(["probe", str(out), "--permutations", "2", "--no-plot"]) == 0
    doc = json.loads((out / "probe" / "probe_answer.json").read_text())
    assert [row["layer"] for row in doc["layers"]] == list(LAYERS)
    assert {(row["n"], row["groups"], row["folds"]) for row in doc["layers"]} == {(4, 2, 2)}
    assert ACTS == 10
