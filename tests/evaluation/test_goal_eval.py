"""``rsb eval FILE.bddl`` on goal task files: the one runner (jobs, pool, rollout, records)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from tests.lang.lang_samples import unbuildable_stove

SUITES = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
APPLE = (
    SUITES
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
#: A VLA-Arena file with a ``:cost`` rsb evaluates.
COST = (
    SUITES
    / "vla_arena/safety_dynamic_obstacles/level_0/pick_up_the_apple_and_put_it_on_the_bowl.bddl"
)
BASKET = (
    SUITES
    / "libero/libero_90"
    / "LIVING_ROOM_SCENE2_pick_up_the_butter_and_put_it_in_the_basket.bddl"
)
ASSETS = Path(__file__).resolve().parents[1] / "data" / "libero_assets"


def _lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / RECORDS_FILE).read_text().splitlines()]


def test_eval_runs_the_expert_through_the_runner_and_resumes(tmp_path, capsys):
    """The expert solves seed 0 of the apple file; the record is an EpisodeRecord of
    ``episodes.jsonl`` with the goal fields; the same command again runs nothing."""
    out = tmp_path / "run"
    argv = ["eval", str(APPLE), "--policy", "expert", "--episodes", "1", "--out", str(out),
            "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl | A0 | expert | 1/1 " \
        "| 100 [21, 100] | - |" in printed  # fmt: skip
    assert "LIBERO/VLA-Arena layouts on Aloha: not comparable" in printed
    assert f"report: rsb report {out}" in printed
    (record,) = _lines(out)
    assert record["suite"] == str(APPLE.relative_to(Path.cwd())) or record["suite"] == str(APPLE)
    assert (record["seed"], record["index"], record["success"]) == (0, 0, True)
    assert (record["termination"], record["max_steps"], record["privileged"]) == (
        "success",
        600,
        True,
    )
    assert (record["tier"], record["semantics"], record["objects"]) == (
        "A0",
        "vla_arena",
        "standins",
    )
    assert (record["failure_class"], record["failure_reason"], record["cost"]) == ("", None, None)
    assert record["success_step"] == record["steps"]
    assert record["instruction"] == "Pick the apple on the table and place it on the plate"
    assert (record["question_id"], record["choices"], record["choice"]) == ("", 0, None)
    before = (out / RECORDS_FILE).read_bytes()
    assert main(argv) == 0
    assert (out / RECORDS_FILE).read_bytes() == before  # resumed: nothing left to run
    assert json.loads((out / "run.json").read_text())["tasks"]


def test_a_cost_file_records_its_cumulative_cost(tmp_path, capsys):
    """A file with a ``:cost`` gets a numeric cost and its terms; the summary shows the
    mean cost per episode."""
    out = tmp_path / "run"
    assert main(["eval", str(COST), "--policy", "noop", "--episodes", "1", "--max-steps", "3",
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    (record,) = _lines(out)
    assert record["cost"] == 0.0 and record["cost_terms"]
    assert all(t["violations"] == 0 for t in record["cost_terms"].values())
    assert (record["termination"], record["steps"]) == ("step_limit", 3)
    assert record["failure_reason"] == "step limit 3 reached"
    assert record["failure_class"] == "policy"
    assert "| noop | 0/1 | 0 [0, 79] | 0.00 |" in capsys.readouterr().out


@pytest.mark.slow  # spawned workers import rsb_mj and MuJoCo: ~20 s on 2 loaded cores
def test_two_workers_give_the_records_of_one(tmp_path, capsys):
    """``-j 2`` runs the goal jobs in a process pool; the records are those of ``-j 1``
    (wall-clock fields aside)."""
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}"
        assert main(["eval", str(APPLE), "--policy", "expert", "--episodes", "2",
                     "--max-steps", "30", "-j", jobs, "--out", str(out),
                     "--no-progress"]) == 0  # fmt: skip
        runs[jobs] = sorted(
            ({k: v for k, v in r.items() if k not in ("wall_s", "sim")} for r in _lines(out)),
            key=lambda r: r["index"],
        )
    assert runs["1"] == runs["2"]
    assert [r["seed"] for r in runs["1"]] == [0, 1]
    assert all(r["termination"] == "step_limit" for r in runs["1"])
    capsys.readouterr()


def test_a_question_baseline_on_a_goal_task_is_refused_before_any_episode(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["eval", str(APPLE), "--policy", "random-grasp", "--episodes", "1",
                 "--out", str(out), "--no-progress"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert (
        f"--policy random-grasp: {APPLE} is a goal task (no (:question ...)), and random-grasp "
        "chooses among a question's candidates; valid built-in policies for goal tasks: "
        "expert, noop, random (or your own policy)"
    ) in err
    assert not (out / RECORDS_FILE).exists()


def test_goal_tasks_have_no_private_draw_and_say_how_to_run_sealed(tmp_path, capsys):
    """``rsb episodes build --private`` and ``rsb eval --tables`` refuse goal tasks (exit 2,
    nothing written), naming the sealed run on their own rows instead."""
    secret = tmp_path / "secret.txt"
    secret.write_text("issue-34 goal private draw secret, 32+ bytes\n")
    out = tmp_path / "private"
    for given, what, run in (
        ([str(APPLE)], f"{APPLE} is a goal task file", str(APPLE)),
        (["vla-arena-l0"], "vla-arena-l0 is a goal suite", "--suite vla-arena-l0"),
    ):
        argv = ["episodes", "build", *given, "--private", "--secret-file", str(secret),
                "-o", str(out)]  # fmt: skip
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"rsb episodes: error: --private: {what} (LIBERO / VLA-Arena style" in err
        assert f"Run it sealed instead: rsb eval {run} --sealed --secret-file FILE" in err
        assert not out.exists()
    argv = ["eval", "--suite", "vla-arena-l0", "--tables", str(out), "--secret-file",
            str(secret), "--policy", "noop", "--out", str(tmp_path / "run")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (
        f"rsb eval: error: --tables {out}: the goal suite vla-arena-l0 has no private draw" in err
    )
    assert "run it sealed on its own rows instead: --sealed --secret-file FILE" in err
    assert "Traceback" not in err and not (tmp_path / "run").exists()


def test_a_seed_without_a_valid_layout_is_a_scored_failure(tmp_path, capsys, monkeypatch):
    """A layout that cannot be drawn is a property of the seed: termination ``no_layout``,
    class ``reset``, counted in the rate (not an error to retry)."""
    from rsb_mj.errors import SceneError
    from rsb_mj.scene.region_layout import GoalLayout

    def no_layout(self, data, seed, goal_holds):
        raise SceneError(f"seed {seed}: no valid layout in 10 draws (off the table)")

    monkeypatch.setattr(GoalLayout, "reset", no_layout)
    out = tmp_path / "run"
    assert main(["eval", str(APPLE), "--policy", "expert", "--episodes", "1",
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    (record,) = read_records(out / RECORDS_FILE)
    assert (record.termination, record.success, record.steps) == ("no_layout", False, 0)
    assert record.failure_reason == "reset: seed 0: no valid layout in 10 draws (off the table)"
    assert record.failure_class == "reset"
    assert "| expert | 0/1 |" in capsys.readouterr().out


def test_eval_on_an_unbuildable_file_lists_what_is_missing_and_the_tier(tmp_path, capsys):
    path = unbuildable_stove(tmp_path)
    rc = main(["eval", str(path), "--policy", "expert", "--episodes", "1"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{path}: rsb_mj cannot build this scene (tier B2):" in err
    assert f"{path}:124:10: RSB530 goal-tier: (Open flat_stove_1): 'flat_stove_1'" in err
    assert "Traceback" not in err


def test_goal_tasks_refuse_counterfactuals_and_question_ablations_saying_why(tmp_path, capsys):
    for extra, message in (
        (["--counterfactual"], "a counterfactual twin swaps the question for one whose answer "
                               "is another candidate, and a goal task has no answer to swap"),
        (["--split", "train"], "is a goal task file run from bare seeds (the same in every "
                               "split); choose other seeds with --start"),
        (["--instruction", "direct"], ": a goal task has no answer to state (its :language "
                                      "states the goal already); valid choices for goal "
                                      "tasks: original, blank, tokens"),
    ):  # fmt: skip
        rc = main(["eval", str(APPLE), "--policy", "expert", "--episodes", "1",
                   "--out", str(tmp_path / "x"), *extra])  # fmt: skip
        err = capsys.readouterr().err
        assert rc == 2 and message in err and str(APPLE) in err
        assert not (tmp_path / "x").exists()


def test_instruction_ablations_of_a_goal_task_are_recorded_and_rated_apart(tmp_path, capsys):
    """--instruction blank/tokens: the same seed under each instruction, the records' variant
    and instruction, and rates per variant (never pooled with the original's)."""
    out = tmp_path / "abl"
    rc = main(["eval", str(APPLE), "--policy", "noop", "--episodes", "1", "--max-steps", "3",
               "--instruction", "blank", "--instruction", "tokens", "--out", str(out),
               "--no-progress"])  # fmt: skip
    text = capsys.readouterr().out
    assert rc == 0
    records = {r.variant: r for r in read_records(out / RECORDS_FILE)}
    assert sorted(records) == ["blank", "original", "tokens"]
    assert (
        records["original"].instruction == "Pick the apple on the table and place it on the plate"
    )
    assert records["blank"].instruction == ""
    assert len(records["tokens"].instruction.split()) == 12  # the :language's word count
    assert {r.seed for r in records.values()} == {0}
    assert (
        "| pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl | A0 | noop [blank] | 0/1 |"
        in text
    )
    assert "| noop [tokens] | 0/1 |" in text


def test_a_question_run_still_needs_out(capsys):
    rc = main(["eval", "--suite", "RSB-Math-4", "--policy", "expert", "--episodes", "1"])
    assert rc == 2
    assert "--out DIR is required" in capsys.readouterr().err


def test_records_name_the_object_source_and_a_summary_refuses_to_pool_sources(
    tmp_path, capsys, monkeypatch
):
    """--assets DIR builds the folder's originals (here the basket of tests/data's folder):
    records say ``assets:<fingerprint>``; the shipped run says ``standins``; a summary of
    both is refused."""
    from rsb_mj.errors import EvalError
    from rsb_mj.evaluation.metrics import goal_summary

    monkeypatch.delenv("RSB_MJ_ASSETS", raising=False)
    runs = {}
    for name, extra in (("shipped", []), ("assets", ["--assets", str(ASSETS)])):
        rc = main(["eval", str(BASKET), "--policy", "expert", "--episodes", "1",
                   "--max-steps", "1", "--out", str(tmp_path / name), "--no-progress",
                   *extra])  # fmt: skip
        assert rc == 0, capsys.readouterr().err
        (runs[name],) = read_records(tmp_path / name / RECORDS_FILE)
    assert (runs["shipped"].objects, runs["shipped"].objects_fingerprint) == ("standins", "")
    fingerprint = runs["assets"].objects_fingerprint
    assert len(fingerprint) == 64 and runs["assets"].objects == f"assets:{fingerprint[:16]}"
    assert json.loads((tmp_path / "assets" / "run.json").read_text())["assets"] == str(ASSETS)
    refusal = (
        r"^these records ran on different objects and are not pooled: "
        r"assets:[0-9a-f]{16}, standins \(standins: the shipped stand-ins"
    )
    with pytest.raises(EvalError, match=refusal):
        goal_summary(list(runs.values()))
    rc = main(["eval", str(BASKET), "--policy", "expert", "--episodes", "1",
               "--assets", str(tmp_path / "nowhere")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and "--assets: " in err and "is not a folder" in err
    assert "Traceback" not in err


def test_eval_levels_reach_the_records(tmp_path, capsys):
    """``--visual-level``/``--language-level`` on a goal file: the records carry the levels
    and the instruction the policy was given; the expert's episode is that of level 0."""
    common = [str(APPLE), "--policy", "expert", "--episodes", "1"]
    assert main(["eval", *common, "--out", str(tmp_path / "w0")]) == 0
    assert main(["eval", *common, "--visual-level", "3", "--language-level", "2",
                 "--out", str(tmp_path / "w2")]) == 0  # fmt: skip
    capsys.readouterr()
    (plain,) = _lines(tmp_path / "w0")
    (moved,) = _lines(tmp_path / "w2")

    def levels(record):
        p = record["sim"]["perturbation"]
        return p["visual_level"], p["language_level"]

    assert levels(plain) == (0, 0)
    assert plain["instruction"] == "Pick the apple on the table and place it on the plate"
    assert levels(moved) == (3, 2)
    assert json.loads((tmp_path / "w2" / "run.json").read_text())["visual_level"] == 3
    assert (
        moved["instruction"] == "Pick the apple on the piece of furniture and move it on the plate"
    )
    assert (moved["success"], moved["steps"]) == (plain["success"], plain["steps"])
    # every goal record names the head camera framed for its task (V3 moves it from there)
    head = plain["sim"]["head_camera"]
    assert head == moved["sim"]["head_camera"]
    assert sorted(head) == ["fovy", "pos", "xyaxes"] and head["fovy"] == 45.0


def test_batched_goal_records_are_the_unbatched_records(tmp_path, capsys):
    """``--batch 2`` runs goal episodes in lockstep (the expert's slots, noop's): the
    records are those of an unbatched run (wall-clock fields aside)."""
    runs = {}
    for batch in ("1", "2"):
        out = tmp_path / f"b{batch}"
        assert main(["eval", str(APPLE), "--policy", "expert", "--policy", "noop",
                     "--episodes", "2", "--max-steps", "160", "--batch", batch,
                     "--out", str(out), "--no-progress"]) == 0  # fmt: skip
        runs[batch] = sorted(
            ({k: v for k, v in r.items() if k != "wall_s"} for r in _lines(out)),
            key=lambda r: (r["index"], r["policy"]),
        )
    assert runs["1"] == runs["2"]
    assert [(r["policy"], r["success"]) for r in runs["1"]] == [
        ("expert", True), ("noop", False), ("expert", True), ("noop", False),
    ]  # fmt: skip
    capsys.readouterr()


def test_a_policy_that_cannot_be_built_fails_goal_episodes_a_report_reads(tmp_path, capsys):
    """A user policy file whose factory raises: each episode is a goal record of the
    policy's failure (its tier, no objects: no environment was built), and ``rsb report``
    counts them as failures; an infrastructure error stays an error, withheld."""
    import dataclasses

    from rsb_mj.evaluation.records import append_record

    policies = Path(__file__).parent / "user_policies.py"
    out = tmp_path / "run"
    assert main(["eval", str(APPLE), "--policy", f"{policies}:factory_raises", "--episodes",
                 "2", "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    records = read_records(out / RECORDS_FILE)
    assert [(r.termination, r.failure_class, r.tier, r.objects) for r in records] == [
        ("policy_fault", "policy", "A0", None)
    ] * 2
    assert "building it failed: RuntimeError: weights not found" in records[0].error
    capsys.readouterr()
    assert main(["report", str(out), "--stdout"]) == 0
    assert "| 0/2 | 0 [0, 66] | - | 0 |" in " ".join(capsys.readouterr().out.split())
    infra = dataclasses.replace(
        records[0], index=2, termination="error", error_kind="infra", failure_class="error"
    )
    append_record(out / RECORDS_FILE, infra)
    assert main(["report", str(out), "--stdout"]) == 0
    text = capsys.readouterr().out
    assert "Error episodes (faults, not results; excluded from every rate): 1" in text
    assert "| withheld | withheld | withheld | 1 |" in " ".join(text.split())


def test_a_table_row_feeds_a_job_and_is_recorded_under_the_jobs_source(tmp_path, monkeypatch):
    """A goal row as Source.episode gives it (its suite's name, the job's source as its task,
    its own seed) runs as the job's episode: the environment resets from the row's seed and
    the record is keyed by the job's source, so the run resumes."""
    from rsb_mj.episodes.episode import Episode
    from rsb_mj.tables.episode_source import Source

    def row(source, split, index, tables=None):
        return Episode("vla-arena", split, index, 40 + index, source)

    monkeypatch.setattr(Source, "episode", lambda self, index: row(self.name, self.split, index))
    out = tmp_path / "run"
    argv = ["eval", str(APPLE), "--policy", "noop", "--episodes", "1", "--max-steps", "2",
            "--out", str(out), "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    (record,) = _lines(out)
    assert (record["suite"], record["index"], record["seed"]) == (str(APPLE), 0, 40)
    before = (out / RECORDS_FILE).read_bytes()
    assert main(argv) == 0 and (out / RECORDS_FILE).read_bytes() == before


def test_a_goal_suite_file_runs_its_train_rows(tmp_path, capsys):
    """--split train on a goal suite's file (its row source): train row 3 is seed 100003 of
    the file's frozen train table (a bare-seed file refuses the split, above)."""
    source = (
        "vla-arena::vla_arena/safety_dynamic_obstacles/level_0/"
        "pick_up_the_apple_and_put_it_on_the_bowl.bddl"
    )
    out = tmp_path / "train"
    rc = main(["eval", source, "--split", "train", "--start", "3", "--episodes", "1", "--policy",
               "noop", "--max-steps", "2", "--out", str(out), "--no-progress"])  # fmt: skip
    capsys.readouterr()
    assert rc == 0
    (record,) = read_records(out / RECORDS_FILE)
    assert (record.suite, record.split, record.index, record.seed) == (source, "train", 3, 100003)


def test_a_goal_suite_start_beyond_its_table_names_start(tmp_path, capsys):
    # without --episodes the rows to the table's end were 20 - 25: '--episodes -5', never given
    out = tmp_path / "run"
    argv = ["eval", "--suite", "vla-arena-l0", "--policy", "noop", "--split", "train",
            "--start", "25", "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "rsb eval: error: --start 25: the vla-arena-l0 train table has 20 rows per task file "
        "(valid: 0..19)\n"
    )
    assert not out.exists()


def test_progress_lines_of_goal_tasks_say_success_and_cost(tmp_path, capsys):
    """A goal task's progress line counts successes (and the mean cost where the task has a
    ``:cost``) under the file's stem, not grasps and the path."""
    out = tmp_path / "run"
    assert main(["eval", str(COST), str(APPLE), "--policy", "noop", "--episodes", "2",
                 "--max-steps", "2", "--out", str(out), "-j", "1"]) == 0  # fmt: skip
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rsb eval: ")]
    assert [line.split(" s; ", 1)[1] for line in lines] == [
        "noop/pick_up_the_apple_and_put_it_on_the_bowl: 0 of 1 succeeded, cost 0.00/episode",
        "noop/pick_up_the_apple_and_put_it_on_the_bowl: 0 of 2 succeeded, cost 0.00/episode",
        "noop/pick_up_the_apple_and_put_it_on_the_bowl: 0 of 2 succeeded, cost 0.00/episode; "
        "noop/pick_the_apple_on_the_table_and_place_it_on_the_plate: 0 of 1 succeeded",
        "noop/pick_up_the_apple_and_put_it_on_the_bowl: 0 of 2 succeeded, cost 0.00/episode; "
        "noop/pick_the_apple_on_the_table_and_place_it_on_the_plate: 0 of 2 succeeded",
    ]


def test_the_failure_list_names_five_and_counts_the_rest(tmp_path, capsys):
    """8 failed episodes: the first five are named, then ``... and 3 more failures``."""
    out = tmp_path / "run"
    assert main(["eval", str(APPLE), "--policy", "noop", "--episodes", "8", "--max-steps", "1",
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    name = APPLE.name
    assert err == [
        *(f"  {name} seed {seed} noop: step limit 1 reached" for seed in range(5)),
        "  ... and 3 more failures (the records hold each; rsb report --html browses them)",
    ]
