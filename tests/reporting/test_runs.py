"""rsb report's run directories: records are required, rows are labelled by run folder."""

from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import EvalError
from rsb_mj.reporting.report import build_report, write_report

from .html_fixtures import write_runs


def test_an_empty_directory_is_explained(tmp_path):
    with pytest.raises(EvalError, match=r"no episodes.jsonl records; run `rsb eval --out"):
        write_report([tmp_path], tmp_path / "r")
    assert main(["report", str(tmp_path), str(tmp_path)]) == 2


def test_row_labels_name_their_run_folder(tmp_path):
    dirs = write_runs(tmp_path / "runs", episodes=1)
    data = build_report(dirs, plots=False)
    assert dict(data.run_dirs) == {
        "base:expert": dirs[0], "base:random-grasp": dirs[0], "base:talker": dirs[0],
        "v2:random-grasp": dirs[1],
    }  # fmt: skip
    single = build_report(dirs[1:], plots=False)
    assert dict(single.run_dirs) == {"random-grasp": dirs[1]}
    assert Path(dirs[1]).name == "v2"
