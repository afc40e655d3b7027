"""rsb vqa-export: LLaVA-style samples of train episodes a short script can load."""

import json

import cv2
import pytest

from rsb_mj.cli import main
from rsb_mj.tables.families import load_table


def test_export_writes_samples_that_load_with_their_images_and_answers(tmp_path, capsys):
    assert (
        main(["vqa-export", "RSB-Math-4", "--split", "train", "-n", "3", "-o", str(tmp_path)]) == 0
    )
    assert capsys.readouterr().out.startswith("3 samples: ")
    rows = load_table("RSB-Math-4", "train")[:3]
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert [s["id"] for s in samples] == [f"RSB-Math-4-train-{i:04d}" for i in range(3)]
    for sample, row in zip(samples, rows, strict=True):
        human, gpt = sample["conversations"]
        assert human == {"from": "human", "value": f"<image>\n{row.instruction}"}
        color = row.colors[row.mapping[row.correct]]
        assert gpt == {"from": "gpt", "value": f"{row.correct}, the {color} block"}
        assert sample["rationale"].endswith(f"{row.correct} is the {color} block.")
        image = cv2.imread(str(tmp_path / sample["image"]))
        assert image.shape == (240, 320, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--split", "eval"], "exported from the train split only"),
        (["--start", "999", "-n", "5"], r"rows 999..1003 are outside the RSB-Math-4 train table"),
    ],
)
def test_eval_and_rows_outside_the_table_are_refused(tmp_path, capsys, argv, message):
    assert main(["vqa-export", "RSB-Math-4", "-o", str(tmp_path), *argv]) == 2
    assert message.replace("\\", "") in capsys.readouterr().err.replace("\\", "")
    assert not (tmp_path / "samples.jsonl").exists()
