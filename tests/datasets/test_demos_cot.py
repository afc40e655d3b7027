"""rsb demos --cot: train demonstrations carry the rationale and the <think> training prompt."""

import h5py
import pytest

from rsb_mj.datasets.demos import write_demos
from rsb_mj.episodes.rationale import rationale
from rsb_mj.errors import ExpertError
from rsb_mj.lang import load_task
from rsb_mj.suites import get_suite
from rsb_mj.tables.families import load_table


@pytest.mark.parametrize("cot", [True, False])
def test_train_demos_store_the_rationale_and_the_prompt(tmp_path, cot):
    res = write_demos("RSB-Math-4", "train", 1, tmp_path, cameras=(), progress=False, cot=cot)
    assert (res["written"], res["failed"]) == (1, 0)
    row = load_table("RSB-Math-4", "train")[0]
    thought = rationale(row, load_task(get_suite("RSB-Math-4").path))
    with h5py.File(tmp_path / "episode_000000.hdf5") as f:
        assert f.attrs["rationale"] == thought
        want = f"{row.instruction} <think>{thought}</think>" if cot else row.instruction
        assert f.attrs["prompt"] == want
        assert f.attrs["instruction"] == row.instruction


def test_cot_is_refused_for_eval(tmp_path):
    with pytest.raises(ExpertError, match=r"--cot with --split eval: rationales are made for"):
        write_demos("RSB-Math-4", "eval", 1, tmp_path, cameras=(), progress=False, cot=True)
    assert not list(tmp_path.iterdir())
