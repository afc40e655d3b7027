"""Plate pictures: deterministic bytes, what each spec draws, errors naming the choices."""

import hashlib

import numpy as np
import pytest

from rsb_mj.episodes.sources.picture_specs import wrap_text
from rsb_mj.errors import SceneError
from rsb_mj.scene.pictures import TEX_H, TEX_W, content_image


def test_same_spec_same_bytes_and_distinct_specs_differ():
    a = content_image("color:red:circle")
    assert a.shape == (TEX_H, TEX_W, 3) and a.dtype == np.uint8
    assert (
        hashlib.sha256(a.tobytes()).digest()
        == hashlib.sha256(content_image("color:red:circle").tobytes()).digest()
    )
    assert not np.array_equal(a, content_image("color:blue:circle"))
    assert not np.array_equal(content_image("clock:3:00"), content_image("clock:9:00"))


def test_the_red_disc_is_red_at_the_centre_and_white_in_the_corner():
    img = content_image("color:red:circle")
    assert tuple(img[TEX_H // 2, TEX_W // 2]) == (217, 31, 31)
    assert tuple(img[10, 10]) == (255, 255, 255)


def test_spatial_above_puts_the_first_shape_in_the_upper_half():
    img = content_image("spatial:above:circle:red:square:blue").astype(int)
    red = (img[:, :, 0] > 150) & (img[:, :, 1] < 80)
    rows = np.nonzero(red)[0]
    assert rows.mean() < TEX_H / 2


def test_counting_draws_that_many_dots():
    import cv2

    for n in (1, 4, 9):
        ink = (content_image(f"count:{n}:green")[:, :, 1] < 200).astype(np.uint8)
        ink[:6], ink[-6:], ink[:, :6], ink[:, -6:] = 0, 0, 0, 0  # the border
        assert cv2.connectedComponents(ink)[0] - 1 == n


def test_wrap_text_fits_two_lines_of_nine():
    assert wrap_text("water cycle") == ["water", "cycle"]
    assert wrap_text("Paris") == ["Paris"]
    assert wrap_text("photosynthesis") is None
    assert wrap_text("a b c d e f g h i j k l m n o") is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("smell:rose", r"picture spec 'smell:rose': kind 'smell'; valid choices: color, shape"),
        ("shape:blob:red", r"picture shape 'blob'; valid choices: circle, square"),
        ("color:mauve:circle", r"picture color 'mauve'; valid choices: black, red"),
        ("text:photosynthesis", r"text 'photosynthesis' does not fit a plate"),
        ("count:x:red", r"picture spec 'count:x:red' is malformed"),
    ],
)
def test_bad_specs_are_named(spec, message):
    with pytest.raises(SceneError, match=message):
        content_image(spec)
