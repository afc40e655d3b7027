"""rsb report --html: the page holds the Markdown report's tables, its episodes and nothing
from elsewhere (the browser checks are in test_html_browser.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.failure import FAILURE_KINDS, failure_kind
from rsb_mj.evaluation.records import append_record, read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.video import VideoWriter, video_file
from rsb_mj.reporting.html import CSP, render_page
from rsb_mj.reporting.html.episodes import COLUMNS, NOT_RECORDED, browser_data, episode_row
from rsb_mj.reporting.html.frames import video_frames
from rsb_mj.reporting.html.markup import lines_html, table_html
from rsb_mj.reporting.probe_results import PROBE_FILE, PROBE_FORMAT, read_probe_tables
from rsb_mj.reporting.report import build_report, write_report
from tests.evaluation.test_metrics import rec

from .html_fixtures import GOAL_FILES, goal_records, markdown_tables, write_goal_run, write_runs


class Tables(HTMLParser):
    """Every ``<table>`` of a page as rows of cell texts, with the id of its section."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.section = ""
        self.cell: list[str] | None = None
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id") or ""
        elif tag == "table":
            self.tables.append((self.section, []))
        elif tag == "tr":
            self.tables[-1][1].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "script":
            self.scripts.append(a)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][1][-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def _parse(page: str) -> Tables:
    parser = Tables()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The synthetic two-folder report (every section) with its page."""
    root = tmp_path_factory.mktemp("html")
    dirs = write_runs(root / "runs")
    out = root / "report"
    text = write_report(dirs, out, plots=False, html=True)
    return dirs, out, text, (out / "report.html").read_text(encoding="utf-8")


def test_the_page_holds_every_table_of_the_markdown_report_cell_for_cell(report):
    _, _, text, page = report
    md = markdown_tables(text)
    shown = _parse(page).tables
    sections = [(sid, rows) for sid, rows in shown if sid.startswith("sec-")]
    data = build_report(report[0], plots=False)
    assert [sid for sid, _ in sections] == [f"sec-{s.key}" for s in data.sections]
    keys = [s.key for s in data.sections]
    assert keys == [
        "summary", "safety", "levels", "visual_levels", "ablations", "counterfactual",
        "act2answer", "table1_tsr", "table2_nsg", "table5_failures", "table6_gsr_tsr",
    ]  # fmt: skip
    for s, (_, rows) in zip(data.sections, sections, strict=True):
        assert rows == md[s.title] == s.table, s.key
    confusions = [rows for sid, rows in shown if sid == "confusion"]
    assert len(confusions) == len(data.confusions) == 62
    for c, rows in zip(data.confusions, confusions, strict=True):
        assert rows == md[c.title] == c.table
    assert md["Table 1: TSR (%)"][2] == [
        "base:random-grasp", "50.0", "0.0", "50.0", "0.0", "33.3", "0.0", "33.3", "16.7", "-",
    ]  # fmt: skip


def test_the_page_is_self_contained(report):
    page = report[3]
    shown = html.escape(CSP, quote=True)
    assert f'<meta http-equiv="Content-Security-Policy" content="{shown}">' in page
    assert CSP.startswith("default-src 'none';")
    parsed = _parse(page)
    assert parsed.scripts == [{"type": "application/json", "id": "rsb-episodes"}, {}]
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert '<link rel="stylesheet"' not in page and "@import" not in page
    assert re.findall(r"<link [^>]*>", page) == ['<link rel="icon" href="data:,">']
    # the episodes' JSON cannot end its script element early
    body = page.split('id="rsb-episodes">', 1)[1].split("</script>", 1)[0]
    assert "<" not in body
    assert len(json.loads(body)["rows"]) == 372


def test_the_page_lists_every_episode_with_its_fields(report):
    dirs, _, _, page = report
    body = page.split('id="rsb-episodes">', 1)[1].split("</script>", 1)[0]
    data = json.loads(body)
    assert data["columns"] == list(COLUMNS) and data["media"] == {}
    records = read_records(dirs[0] / RECORDS_FILE)
    first = dict(zip(COLUMNS, data["rows"][0], strict=True))
    r = records[0]
    assert first == {
        "family": "question", "label": "base:expert (privileged)", "run": "base",
        "policy": "expert", "suite": "RSB-Math-4", "task": "-", "level": "L0", "split": "eval",
        "index": 0,
        "variant": "original", "perturbation": "V0 W0", "outcome": r.termination,
        "kind": "-" if r.success else first["kind"], "reason": r.failure_reason or "",
        "choice": r.chosen_option or "none", "correct": r.correct,
        "verdict": "correct" if r.correct_choice else "wrong", "chosen": r.choice,
        "target": r.target, "grasped": r.grasped, "grasp_step": r.grasp_step,
        "success_step": r.success_step, "steps": r.steps, "max_steps": 400, "cost": None,
        "instruction": r.instruction, "text": None, "text_choice": None,
        "grasped_candidates": r.grasped_candidates, "in_zone": r.in_zone, "cost_terms": None,
        "a2a": None, "goal": None, "seed": 1000, "question_id": "q-0", "wall_s": 0.5,
        "error": None, "media": None,
    }  # fmt: skip
    by = [dict(zip(COLUMNS, row, strict=True)) for row in data["rows"]]
    levels = {(x["suite"], x["level"]) for x in by if x["level"] == "L1"}
    assert levels == {("RSB-Math-4", "L1")}
    assert {x["perturbation"] for x in by if x["run"] == "v2"} == {"V2 W0"}
    errors = [x for x in by if x["outcome"] == "error"]
    assert len(errors) == 8 and {x["kind"] for x in errors} == {"infra error"}
    a2a = next(x for x in by if x["suite"] == "A2A-Color")
    assert a2a["a2a"] == {"item": "color-0", "category": "color", "layout": "original",
                          "chosen_side": a2a["a2a"]["chosen_side"]}  # fmt: skip


def test_goal_episodes_are_listed_beside_question_episodes(tmp_path):
    """A report of a question run and a goal run: the page's episodes are both runs'
    records; a goal row names its suite, task file, VLA-Arena level, failure class, cost and
    no choice; the page has no confusion section for the goal run."""
    question = write_runs(tmp_path / "runs", episodes=1)[1]
    goal = write_goal_run(tmp_path / "runs" / "goal")
    write_report([question, goal], tmp_path / "report", plots=False, html=True)
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    body = page.split('id="rsb-episodes">', 1)[1].split("</script>", 1)[0]
    rows = [dict(zip(COLUMNS, row, strict=True)) for row in json.loads(body)["rows"]]
    assert [x["family"] for x in rows] == ["question"] * 2 + ["goal"] * 8
    assert {x["label"] for x in rows if x["family"] == "goal"} == {"goal:expert (privileged)"}
    source, _ = GOAL_FILES[0]
    r = goal_records()[1]
    assert rows[3] == {
        "family": "goal", "label": "goal:expert (privileged)", "run": "goal",
        "policy": "expert", "suite": "vla-arena",
        "task": "pick_up_the_apple_and_put_it_on_the_bowl.bddl", "level": "L0",
        "split": "eval", "index": 1, "variant": "original", "perturbation": "-",
        "outcome": "step_limit", "kind": "grasp", "reason": r.failure_reason, "choice": "-",
        "correct": "", "verdict": "-", "chosen": None, "target": "", "grasped": False,
        "grasp_step": None, "success_step": None, "steps": 101, "max_steps": 600,
        "cost": 1.0, "instruction": "Pick up the apple (1)", "text": None, "text_choice": None,
        "grasped_candidates": [], "in_zone": [],
        "cost_terms": {"1 (InContact apple_1 mickey_1)":
                       {"kind": "step", "violations": 1, "cost": 1.0}},
        "a2a": None,
        "goal": {"file": source.split("::")[1], "tier": "A0", "semantics": "vla_arena",
                 "objects": "standins", "failure_class": "grasp"},
        "seed": 11, "question_id": "", "wall_s": 1.5, "error": None, "media": None,
    }  # fmt: skip
    by = {(x["task"][:8], x["index"]): x for x in rows if x["family"] == "goal"}
    assert [by["pick_up_", i]["kind"] for i in range(4)] == ["-", "grasp", "placement",
                                                             "infra error"]  # fmt: skip
    assert by["pick_up_", 3]["goal"]["failure_class"] == "error"
    assert by["pick_the", 0]["level"] == "L1" and by["pick_the", 0]["cost"] is None
    assert 'id="confusion"' in page  # the question run's matrices
    assert '<div class="card"><b>2</b><span>goal task files</span></div>' in page
    assert '<div class="card"><b>10</b><span>episodes</span></div>' in page
    write_report([goal], tmp_path / "goal_only", plots=False, html=True)
    alone = (tmp_path / "goal_only" / "report.html").read_text(encoding="utf-8")
    assert 'id="confusion"' not in alone and 'href="#confusion"' not in alone
    assert "an episode is a row of a goal suite&#x27;s frozen table" in alone


@pytest.mark.parametrize(
    ("reason", "termination", "error_kind", "kind"),
    [
        (None, "success", None, None),
        ("InfraError: env.step failed: boom", "error", "infra", "infra error"),
        ("PolicyError: policy p: act() raised", "error", "policy", "policy error"),
        ("p: approach: no IK solution", "step_limit", None, "policy gave up"),
        ("step limit 400 reached in phase carry", "step_limit", None, "step limit"),
        ("no grasp detected", "step_limit", None, "no grasp"),
        ("grasped block_b instead of block_a", "wrong_choice", None, "wrong candidate"),
        ("target not released in the zone (in zone: none)", "step_limit", None, "not placed"),
        ("something new", "step_limit", None, "other"),
    ],
)
def test_failure_kinds_follow_the_reasons_rollouts_write(reason, termination, error_kind, kind):
    got = failure_kind(reason, policy="p", termination=termination, error_kind=error_kind)
    assert got == kind and (kind is None or kind in FAILURE_KINDS)


def test_a_recorded_video_gets_its_frames_and_a_link_relative_to_the_page(tmp_path):
    run = tmp_path / "runs" / "a"
    run.mkdir(parents=True)
    r = rec(3, grasped=True, success=True, choice_letter="A", policy="examples/p.py:make")
    append_record(run / RECORDS_FILE, r)
    writer = VideoWriter(run / "videos" / video_file(r.suite, r.policy, "eval", 3))
    for k in range(20):
        writer({"images": {"head": np.full((24, 32, 3), 10 * k, dtype=np.uint8)}})
    writer.close()
    assert writer.path.name == "RSB-Math-4_examples_p.py_make_eval_0003.mp4"
    frames = video_frames(writer.path, count=5)
    assert [f.step for f in frames] == [0, 5, 10, 14, 19]
    assert all(f.url.startswith("data:image/jpeg;base64,") for f in frames)
    out = tmp_path / "report"
    data = browser_data({"p": [r]}, {"p": run}, out, frames=5)
    assert data["media"] == {
        "0": {"video": "../runs/a/videos/" + writer.path.name,
              "file": (run / "videos" / writer.path.name).as_posix(),
              "frames": [[f.step, f.url] for f in frames]}
    }  # fmt: skip
    assert dict(zip(COLUMNS, data["rows"][0], strict=True))["media"] == "0"
    # an episode without a video, and a record from before instructions were recorded
    other = dataclasses.replace(r, index=4)
    row = dict(zip(COLUMNS, episode_row(other, "p", "a", None), strict=True))
    assert row["media"] is None and row["instruction"] == NOT_RECORDED


def test_probe_tables_in_a_run_folder_appear_in_both_reports(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    append_record(run / RECORDS_FILE, rec(0, grasped=True, success=True, choice_letter="A"))
    table = [["suite", "layer", "accuracy %"], ["RSB-Math-4", "encoder.3", "81.0 [72.1, 87.6]"]]
    probe = {"format": PROBE_FORMAT, "tables": [{"title": "Accuracy per layer", "note": "OOF.",
                                                  "table": table}]}  # fmt: skip
    (run / PROBE_FILE).write_text(json.dumps(probe))
    text = write_report([run], tmp_path / "r", plots=False, html=True)
    assert "\n## Probe: Accuracy per layer\n\nOOF.\n\n| suite      | layer     |" in text
    assert markdown_tables(text)["Probe: Accuracy per layer"] == table
    page = (tmp_path / "r" / "report.html").read_text()
    assert dict(_parse(page).tables)["sec-probe-0"] == table


def test_a_probe_table_of_other_records_is_left_out(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    append_record(run / RECORDS_FILE, rec(0, grasped=True, success=True, choice_letter="A"))
    table = [["layer", "accuracy %"], ["L3", "80.0"]]
    current = hashlib.sha256((run / RECORDS_FILE).read_bytes()).hexdigest()
    tables = [{"title": "now", "table": table, "records_sha256": current},
              {"title": "before", "table": table, "records_sha256": "0" * 64}]  # fmt: skip
    (run / PROBE_FILE).write_text(json.dumps({"format": PROBE_FORMAT, "tables": tables}))
    assert [title for title, _, _ in read_probe_tables(run / PROBE_FILE)] == ["now"]
    text = write_report([run], tmp_path / "r", plots=False)
    assert "## Probe: now" in text and "## Probe: before" not in text
    append_record(run / RECORDS_FILE, rec(1, grasped=True, success=True, choice_letter="A"))
    assert read_probe_tables(run / PROBE_FILE) == []  # the records changed since


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", r"probe.json:1:2: not JSON \(Expecting property name"),
        ('{"format": "x"}', r"probe.json: field 'format' is 'x'; it must be 'rsb-probe-tables/1'"),
        (
            json.dumps(
                {"format": PROBE_FORMAT, "tables": [{"title": "t", "table": [["a", "b"], ["1"]]}]}
            ),
            r"probe.json: tables\[0\].table\[1\]: has 1 cells; the header has 2",
        ),
    ],
)
def test_a_malformed_probe_file_is_named_and_nothing_is_written(tmp_path, content, message):
    run = tmp_path / "run"
    run.mkdir()
    append_record(run / RECORDS_FILE, rec(0, grasped=True, success=True, choice_letter="A"))
    (run / PROBE_FILE).write_text(content)
    with pytest.raises(EvalError, match=message):
        write_report([run], tmp_path / "r", html=True)
    assert not (tmp_path / "r").exists()


def test_cli_writes_the_page_and_refuses_it_with_stdout(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    append_record(run / RECORDS_FILE, rec(0, grasped=True, success=True, choice_letter="A"))
    assert main(["report", str(run), "--html", "--no-plots"]) == 0
    out = capsys.readouterr().out
    page = run / "report" / "report.html"
    assert out.endswith(f"written to {run / 'report'}/ (page: {page})\n")
    assert page.read_text().startswith("<!doctype html>")
    assert main(["report", str(run), "--html", "--stdout"]) == 2
    assert capsys.readouterr().err == (
        "rsb report: error: --stdout writes no file: --html needs a report folder (--out DIR)\n"
    )


def test_the_page_is_the_same_bytes_for_the_same_runs(report, tmp_path):
    dirs, out, _, page = report
    again = render_page(build_report(dirs, plots=False), out)
    assert again == page


def test_plots_are_inline_pngs(tmp_path):
    dirs = write_runs(tmp_path / "runs", episodes=2)
    data = build_report(dirs[:1])
    page = render_page(data, tmp_path / "r")
    names = [p.name for p in data.plots]
    assert names == ["ablations.png", "rates.png", "confusion_expert.png",
                     "confusion_random-grasp.png", "confusion_talker.png"]  # fmt: skip
    assert page.count('src="data:image/png;base64,iVBORw0KGgo') == 5


def test_markup_keeps_cells_verbatim_and_renders_header_lines():
    table = table_html([["a <b>", "n"], ["x & y", "3"]], css="data heat", heat=True)
    assert table == (
        '<table class="data heat"><thead><tr><th>a &lt;b&gt;</th><th>n</th></tr></thead>'
        '<tbody><tr><td>x &amp; y</td><td style="--heat:1.000">3</td></tr></tbody></table>'
    )
    assert lines_html(["Runs: `a`, `b`", "", "Settings: x;", "- p on s: y", "", "z"]) == (
        "<p>Runs: <code>a</code>, <code>b</code></p>\n<p>Settings: x;</p>\n"
        "<ul><li>p on s: y</li></ul>\n<p>z</p>"
    )


def test_a_refused_report_writes_no_page(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    r = rec(0, grasped=True, success=True, choice_letter="A")
    bad = dataclasses.replace(r, success_step=None, correct_choice=False)
    append_record(run / RECORDS_FILE, bad)
    out = tmp_path / "r"
    assert main(["report", str(run), "--out", str(out), "--html"]) == 2
    assert "rsb report: error:" in capsys.readouterr().err
    assert not out.exists()


def _cards(page: str) -> list[str]:
    return re.findall(r'<div class="card"><b>([^<]*)</b><span>([^<]*)</span></div>', page)


def test_overview_tiles_count_goal_task_files_and_pluralize(tmp_path):
    """Four of a user's own goal files under two policies: 4 goal task files (no "1 suites"
    for the ``files`` pseudo-suite), singular labels for 1."""
    records = []
    for policy in ("expert", "noop"):
        for k in range(4):
            r = goal_records()[0]
            records.append(dataclasses.replace(r, suite=f"mine/task_{k}.bddl", policy=policy))
    run = tmp_path / "run"
    run.mkdir()
    (run / RECORDS_FILE).write_text("".join(r.to_json() + "\n" for r in records))
    write_report([run], tmp_path / "report", plots=False, html=True)
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert _cards(page) == [("8", "episodes"), ("1", "run"), ("2", "rows"),
                            ("4", "goal task files"), ("0", "error episodes")]  # fmt: skip
    one = tmp_path / "one"
    one.mkdir()
    (one / RECORDS_FILE).write_text(records[0].to_json() + "\n")
    write_report([one], tmp_path / "report1", plots=False, html=True)
    page = (tmp_path / "report1" / "report.html").read_text(encoding="utf-8")
    assert _cards(page) == [("1", "episode"), ("1", "run"), ("1", "row"),
                            ("1", "goal task file"), ("0", "error episodes")]  # fmt: skip


def test_the_page_says_what_it_links_outside_itself_and_where_a_video_is(tmp_path):
    """The page is not called self-contained while it links videos: the overview says what
    is inside and what is linked, and an episode names its video's file in the run folder."""
    runs = write_runs(tmp_path)
    write_report(runs, tmp_path / "report", plots=False, html=True)
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert (
        '<p class="note">Everything this page shows is inside it (tables, plots, head-camera '
        "frames); it links only to the CSV files in its report folder and to the episodes' "
        "MP4 videos in the run folders, by paths relative to the page: moved alone, it keeps "
        "all but those links.</p>"
    ) in page
    assert (
        "'\">video: ' + esc(m.file) +\n        \"</a> (an MP4 in the run folder, not in this "
        'page: the link holds while the page " +\n        "stays in its report folder)</p>"'
    ) in page
