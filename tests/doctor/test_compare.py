"""rsb_mj.doctor.compare: max abs difference, PSNR and the verdict thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rsb_mj.doctor.compare import (
    FAIL_PSNR_DB,
    PASS_MAX_ABS,
    CameraDiff,
    compare_images,
    psnr_db,
    worst,
)
from rsb_mj.errors import RsbError


def _image(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=(12, 16, 3), dtype=np.uint8)


def test_psnr_of_one_saturated_channel_in_twelve():
    golden = np.zeros((2, 2, 3), np.uint8)
    image = golden.copy()
    image[0, 0, 0] = 255  # mse = 255^2 / 12
    assert psnr_db(image, golden) == pytest.approx(10 * math.log10(12))
    assert psnr_db(golden, golden) == math.inf


def test_identical_images_pass():
    golden = _image()
    diff = compare_images("head", golden.copy(), golden)
    assert diff == CameraDiff("head", 0, math.inf, False)
    assert (diff.verdict, diff.cell()) == ("pass", "0 / inf")


@pytest.mark.parametrize(
    ("delta", "verdict"), [(PASS_MAX_ABS, "pass"), (PASS_MAX_ABS + 1, "differs")]
)
def test_a_few_levels_pass_more_differ(delta, verdict):
    golden = np.full((12, 16, 3), 100, np.uint8)
    golden[0, 0] = 0  # not blank
    image = golden.copy()
    image[5:7, 5:7, 1] += delta  # 4 of 576 values
    diff = compare_images("left_wrist", image, golden)
    assert diff.max_abs == delta
    assert diff.psnr_db == pytest.approx(10 * math.log10(255**2 / (4 * delta**2 / 576)))
    assert diff.verdict == verdict
    assert diff.cell() == f"{delta} / {diff.psnr_db:.1f} dB"


def test_another_picture_and_a_blank_frame_fail():
    other = compare_images("head", _image(1), _image(2))
    assert other.psnr_db < FAIL_PSNR_DB and other.verdict == "fails"
    black = compare_images("head", np.zeros((12, 16, 3), np.uint8), _image())
    assert black.blank and black.verdict == "fails" and black.cell() == "blank"


def test_a_golden_of_another_size_is_an_error():
    with pytest.raises(RsbError, match=r"^camera head: rendered 16x12, the golden is 8x12; "):
        compare_images("head", _image(), _image()[:, :8])


def test_worst_verdict():
    assert worst([]) == "pass"
    assert worst(["pass", "differs", "pass"]) == "differs"
    assert worst(["differs", "fails", "pass"]) == "fails"
