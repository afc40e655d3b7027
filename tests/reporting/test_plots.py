"""rsb report's PNG plots: drawn from the rates, skipped with a note without matplotlib."""

import pytest

from rsb_mj.evaluation.metrics import wilson
from rsb_mj.evaluation.records import append_record
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.reporting.report import write_report
from tests.evaluation.test_metrics import rec

from .test_report import write_run


def test_without_matplotlib_the_tables_are_written_and_the_plots_skipped(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    write_run(tmp_path / "a", "expert", 1)
    text = write_report([tmp_path / "a"], tmp_path / "report")
    assert "Plots skipped: matplotlib is not installed (pip install 'rsb_mj[plots]')." in text
    assert (tmp_path / "report" / "table1_tsr.csv").exists()
    assert not (tmp_path / "report" / "rates.png").exists()


def test_six_of_six_successes_plot_without_a_negative_error_bar(tmp_path):
    # Wilson's upper bound for 6 of 6 was 0.9999999999999999: the bar's error went negative
    assert wilson(6, 6) == (pytest.approx(0.6097, abs=1e-4), 1.0) and wilson(0, 11)[0] == 0.0
    run = tmp_path / "run"
    run.mkdir()
    for i in range(6):
        append_record(run / RECORDS_FILE, rec(i, grasped=True, success=True, choice_letter="A"))
    write_report([run], tmp_path / "r")
    assert (tmp_path / "r" / "rates.png").read_bytes()[:4] == b"\x89PNG"


def test_the_tsr_panel_shows_each_suites_chance_line(tmp_path):
    import matplotlib.pyplot as plt

    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.reporting.plots import CHANCE_LABEL, rates_figure

    records = [
        rec(0, grasped=True, success=True, choice_letter="A", suite="RSB-Math-4"),
        rec(0, grasped=True, success=False, choice_letter="B", suite="RSB-Math-10"),
    ]
    fig = rates_figure({"p": summarize(records)})
    try:
        gsr, tsr, nsg = fig.axes

        def chance(ax):
            return [
                tuple(map(tuple, seg))
                for c in ax.collections
                if c.get_gid() == "chance"
                for seg in c.get_segments()
            ]

        assert chance(tsr) == [((-0.45, 25.0), (0.45, 25.0)), ((0.55, 10.0), (1.45, 10.0))]
        assert chance(gsr) == [] and chance(nsg) == []
        assert CHANCE_LABEL in [t.get_text() for t in tsr.get_legend().get_texts()]
    finally:
        plt.close(fig)
