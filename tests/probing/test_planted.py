"""Known signal: a policy whose layer L3 carries the answer with a planted accuracy of 80% and
whose other layers are noise, run through rsb eval on the real A2A-Color scene (all 300 eval
rows: 150 items in both plate orders), then rsb probe.

The policy holds still (``--max-steps 1``: the scene is built, reset and stepped once per
episode), so the run takes seconds; its features are drawn from the episode's policy seed,
so every number below is fixed.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from rsb_mj.cli import main
from rsb_mj.evaluation.runner import EvalConfig, run_eval

from .planted import LAYERS, PLANTED_ACCURACY, PLANTED_LAYER

POLICY = "inprocess:probing.planted:planted"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("planted") / "run"
    config = EvalConfig(
        suites=("A2A-Color",),
        policies=(POLICY,),
        episodes=300,
        out=out,
        progress=False,
        max_steps=1,
        features="first",
    )
    records = run_eval(config)
    assert {r.termination for r in records} == {"step_limit"}
    return out


def _probe(run_dir, capsys, *more):
    assert main(["probe", str(run_dir), "--permutations", "20", *more]) == 0
    return capsys.readouterr().out


def test_the_probe_recovers_the_planted_layer_and_leaves_the_others_at_chance(run_dir, capsys):
    printed = _probe(run_dir, capsys)
    doc = json.loads((run_dir / "probe" / "probe_answer.json").read_text())
    rows = {row["layer"]: row for row in doc["layers"]}
    assert list(rows) == list(LAYERS)
    planted = rows[PLANTED_LAYER]
    lo, hi = planted["interval"]
    assert lo <= PLANTED_ACCURACY <= hi
    assert planted["verdict"] == "above"
    assert planted["permutation_p"] == pytest.approx(1 / 21)  # no permutation came close
    for name, row in rows.items():
        assert (row["n"], row["groups"], row["folds"], row["chance"]) == (300, 150, 5, 0.5)
        if name != PLANTED_LAYER:
            assert row["band"][0] <= row["accuracy"] <= row["band"][1], name
            assert row["verdict"] == "chance", name
        # it never acts, so whatever a layer gets right, the action did not follow
        assert (row["kbna"], row["known_wrong"]) == (1.0, row["known"])
    assert f"| {POLICY} | A2A-Color | 3     | L3    | 8   | 300 (150)  |" in printed
    assert "written: " in printed
    png = (run_dir / "probe" / "probe_answer.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    csv = (run_dir / "probe" / "probe_answer.csv").read_text().splitlines()
    assert csv[0].startswith("policy,suite,depth,layer,dim,n (groups),accuracy %")
    assert len(csv) == 1 + len(LAYERS)


def test_the_answer_is_not_where_it_stood_so_side_finds_nothing(run_dir, capsys):
    # Each item runs in both plate orders: the correct plate's side is independent of the
    # answer, so the planted answer code says nothing about it.
    _probe(run_dir, capsys, "--target", "side", "--no-plot")
    doc = json.loads((run_dir / "probe" / "probe_side.json").read_text())
    assert doc["target"] == "side"
    rows = {row["layer"]: row for row in doc["layers"]}
    assert rows[PLANTED_LAYER]["verdict"] == "chance"
    assert "above" not in {row["verdict"] for row in rows.values()}
    assert not (run_dir / "probe" / "probe_side.png").exists()


def test_choice_needs_a_choice(run_dir, capsys):
    assert main(["probe", str(run_dir), "--target", "choice", "--stdout"]) == 2
    assert capsys.readouterr().err == (
        f"rsb probe: error: {POLICY} on A2A-Color: none of its 300 episodes with features "
        "has a choice label (left out: {'no choice': 300})\n"
    )


def test_rsb_report_shows_the_saved_probe_while_it_is_current(run_dir, tmp_path, capsys):
    _probe(run_dir, capsys)  # saves run_dir/probe/probe_answer.* and run_dir/probe.json
    doc = json.loads((run_dir / "probe.json").read_text())
    assert doc["format"] == "rsb-probe-tables/1"
    (entry,) = [t for t in doc["tables"] if t["title"] == "layerwise probe, target answer"]
    assert (
        entry["records_sha256"]
        == hashlib.sha256((run_dir / "episodes.jsonl").read_bytes()).hexdigest()
    )
    saved = (run_dir / "probe" / "probe_answer.md").read_text()
    assert main(["report", str(run_dir), "--out", str(tmp_path / "rep"), "--no-plots"]) == 0
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "## Probe: layerwise probe, target answer\n" in report
    assert "Computed by rsb probe from these records" in report
    assert "Computed for this report" not in report  # nothing recomputed
    rows = [line for line in saved.splitlines() if line.startswith(f"| {POLICY}")]
    assert len(rows) == len(LAYERS) and all(row in report for row in rows)
    capsys.readouterr()


def test_rsb_report_probes_afresh_when_the_records_changed(run_dir, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)  # with run_dir's probe.json, of all 300 records
    assert (copy / "probe.json").exists()
    records = (copy / "episodes.jsonl").read_text().splitlines()
    (copy / "episodes.jsonl").write_text("\n".join(records[:100]) + "\n")
    assert main(["report", str(copy), "--out", str(tmp_path / "rep"), "--no-plots"]) == 0
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "Computed by rsb probe from these records" not in report  # the saved one is stale
    assert "## Probe: layerwise probe, target answer\n" in report
    assert "Computed for this report" in report
    assert f"| {POLICY} | A2A-Color | 3     | L3    | 8   | 100 (50)   |" in report
    assert not (tmp_path / "rep" / "probe_answer.json").exists()  # the report writes no probe
    capsys.readouterr()


def test_probing_again_replaces_the_table_of_its_title(run_dir, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    _probe(copy, capsys, "--target", "side", "--no-plot")
    _probe(copy, capsys, "--no-plot")
    titles = [t["title"] for t in json.loads((copy / "probe.json").read_text())["tables"]]
    assert sorted(titles) == ["layerwise probe, target answer", "layerwise probe, target side"]
    records = (copy / "episodes.jsonl").read_text().splitlines()
    (copy / "episodes.jsonl").write_text("\n".join(records[:100]) + "\n")
    _probe(copy, capsys, "--no-plot")  # the side probe was of the 300 records: dropped
    titles = [t["title"] for t in json.loads((copy / "probe.json").read_text())["tables"]]
    assert titles == ["layerwise probe, target answer"]
