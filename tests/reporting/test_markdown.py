"""The Markdown renderer: report.md lays out a computed report and adds nothing."""

from pathlib import Path

from rsb_mj.reporting.markdown import markdown_text
from rsb_mj.reporting.model import Confusion, Plot, ReportData, Section


def test_sections_confusions_notes_and_only_the_inline_plots_in_order():
    data = ReportData(
        dirs=(Path("run"),),
        header=("Runs: `run`",),
        sections=(
            Section("summary", "Per suite", "", [["policy", "n"], ["p", "2"]], "summary"),
            Section("levels", "Levels L0-L2", "Per level.", [["level"], ["L1"]], "levels"),
        ),
        confusions=(Confusion("p", "RSB-Math-4", "p on RSB-Math-4", [["c", "A"], ["A", "2"]]),),
        plots=(
            Plot("confusion_p.png", "confusion: p", b""),
            Plot("rates.png", "rates", b""),
        ),
        notes=("A note.",),
        runs={},
        metrics={},
        run_dirs={},
    )
    assert markdown_text(data) == (
        "# rsb_mj evaluation report\n\nRuns: `run`\n\n"
        "## Per suite\n\n| policy | n |\n|--------|---|\n| p      | 2 |\n\n"
        "## Levels L0-L2\n\nPer level.\n\n| level |\n|-------|\n| L1    |\n\n"
        "## Confusion: correct option (rows) vs first grasped option (columns)\n\n"
        "### p on RSB-Math-4\n\n| c | A |\n|---|---|\n| A | 2 |\n\n"
        "A note.\n\n![rates](rates.png)\n"
    )
