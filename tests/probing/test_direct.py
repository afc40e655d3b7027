"""--instruction direct: the answer itself in the task's own words, and the semantic gap."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from evaluation.fakes import fake_env_factory, fake_source_episode

from rsb_mj.cli import main
from rsb_mj.errors import EvalError
from rsb_mj.evaluation import runner, worker
from rsb_mj.evaluation.ablations import ablate
from rsb_mj.evaluation.direct import color_word, direct_instruction
from rsb_mj.evaluation.metrics import summarize
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.evaluation.tables import GAP_DIAGNOSES, semantic_gap_table
from rsb_mj.lang.parser import parse_text
from rsb_mj.suites import A2A_SUITES, ALL_SUITES
from rsb_mj.tables.episode_source import Source, load_episode, load_problem

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("source", "index", "direct"),
    [
        ("RSB-Math-4", 0, "place the block D in the gray answer zone."),
        ("RSB-General-10", 0, "place the block C in the gray answer zone."),
        ("A2A-Time", 0, "put the cube on the plate showing 1:45."),
        ("A2A-Physical", 0, "put the cube on the plate showing Jupiter."),
        ("tasks/rsb_math_4_objects.bddl", 0, "place the cyan bread in the gray answer zone."),
        ("tasks/rsb_math_4_toolbox.bddl", 0, "place the yellow hammer in the gray answer zone."),
    ],
)
def test_the_question_becomes_its_answer_in_the_tasks_words(source, index, direct):
    episode = load_episode(source, "eval", index)
    problem = load_problem(source)
    assert direct_instruction(problem, episode) == direct
    ablated = ablate(episode, problem, "direct")
    assert ablated.instruction == direct
    assert ablated.extra == {**episode.extra, "variant": "direct"}
    # everything else unchanged: the scene, the mapping, the answer
    assert dataclasses.replace(ablated, instruction=episode.instruction, extra=episode.extra) == (
        episode
    )


@pytest.mark.parametrize("suite", sorted({*ALL_SUITES, *A2A_SUITES}))
def test_every_suite_has_a_direct_instruction_naming_its_answer(suite):
    episode = load_episode(suite, "eval", 1)
    text = direct_instruction(load_problem(suite), episode)
    answer = episode.options[episode.letters.index(episode.correct)]
    named = (
        f"showing {answer}" in text
        or f" {episode.correct} " in text
        or f"the {episode.colors[episode.target]} " in text
    )
    assert named, text
    assert text.endswith(".") and text.split()[0] in ("place", "put")


def test_a_goal_without_an_answer_placement_has_no_direct_instruction():
    text = (ROOT / "tasks" / "rsb_math_4.bddl").read_text()
    text = text.replace("(In ?answer table_answer_zone)", "(In block_a table_answer_zone)")
    text = text.replace("(Released ?answer)", "(Released block_a)")
    problem = parse_text(text, "mine.bddl")
    with pytest.raises(EvalError) as err:
        direct_instruction(problem, load_episode("RSB-Math-4", "eval", 0))
    assert str(err.value) == (
        "mine.bddl: instruction mode direct names the goal's placement of ?answer, and its "
        ":goal has none (e.g. (In ?answer table_answer_zone) or (On cube ?answer))"
    )


def test_region_colors_are_named():
    assert color_word((0.5, 0.5, 0.5, 1.0)) == "gray"
    assert color_word((0.9, 0.1, 0.1, 1.0)) == "red"
    assert color_word((0.98, 0.97, 0.99, 1.0)) == "white"


@pytest.fixture
def _fakes(monkeypatch):
    monkeypatch.setattr(Source, "episode", fake_source_episode)
    monkeypatch.setattr(runner, "configured_env_factory", lambda config: fake_env_factory)
    yield
    worker.close_all()


POLICIES = {
    "inprocess:evaluation.fakes:oracle": GAP_DIAGNOSES[2],  # the privileged end: no gap
    "inprocess:evaluation.fakes:always_a": GAP_DIAGNOSES[0],  # language-blind: fails direct
    "inprocess:probing.readers:reads_direct": GAP_DIAGNOSES[1],  # told, not asked
}


def test_the_semantic_gap_shows_each_failure(tmp_path, _fakes):
    config = EvalConfig(
        suites=("RSB-Math-4",),
        policies=tuple(POLICIES),
        episodes=20,
        out=tmp_path / "run",
        progress=False,
        instructions=("direct",),
    )
    records = run_eval(config)
    assert {r.variant for r in records} == {"original", "direct"}
    table = semantic_gap_table(summarize(records))
    assert table[0] == [
        "policy",
        "suite",
        "n",
        "direct TSR %",
        "original TSR %",
        "semantic gap pp",
        "diagnosis",
    ]
    got = {row[0].removesuffix(" (privileged)"): row for row in table[1:]}
    assert {name: row[6] for name, row in got.items()} == POLICIES
    reader = got["inprocess:probing.readers:reads_direct"]
    assert reader[3:6] == ["100.0 [83.9, 100.0]", "25.0 [11.2, 46.9]", "75.0 [47.8, 88.8]"]
    oracle = got["inprocess:evaluation.fakes:oracle"]
    assert oracle[5] == "0.0 [-16.1, 16.1]"


def test_rsb_eval_prints_the_gap_and_rsb_report_keeps_it(tmp_path, _fakes, capsys):
    out = tmp_path / "run"
    policy = "inprocess:probing.readers:reads_direct"
    args = ["eval", "--suite", "RSB-Math-4", "--policy", policy, "--instruction", "direct",
            "--episodes", "20", "--out", str(out), "-j", "1"]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "\nsemantic gap (TSR with the answer stated outright (--instruction direct" in printed
    assert GAP_DIAGNOSES[1] in printed
    assert main(["report", str(out), "--no-plots"]) == 0
    report = (out / "report" / "report.md").read_text()
    assert "## Semantic gap" in report
    assert (
        (out / "report" / "semantic_gap.csv")
        .read_text()
        .splitlines()[1]
        .endswith(f'"{GAP_DIAGNOSES[1]}"')
    )
    assert "[direct]" not in (out / "report" / "table1_tsr.csv").read_text()  # never a score
