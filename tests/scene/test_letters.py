"""Tests of rsb_mj.scene.letters: procedural Hershey letter textures."""

from __future__ import annotations

import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.scene.letters import TEXTURE_SIZE, letter_image


def test_letters_are_black_strokes_on_white_centered():
    for letter in LETTERS[10]:
        img = letter_image(letter)
        assert img.shape == (TEXTURE_SIZE, TEXTURE_SIZE, 3) and img.dtype == np.uint8
        ink = img[:, :, 0] < 128
        assert 0.04 < ink.mean() < 0.35, letter
        rows, cols = np.nonzero(ink)
        assert abs(rows.mean() - TEXTURE_SIZE / 2) < 8 and abs(cols.mean() - TEXTURE_SIZE / 2) < 8
        assert img[0, 0].tolist() == [255, 255, 255]


def test_every_letter_texture_is_distinct_and_upright():
    images = {c: letter_image(c).tobytes() for c in LETTERS[10]}
    assert len(set(images.values())) == 10
    # "A" has its apex at the top: less ink in the top rows than in the bottom rows.
    ink = letter_image("A")[:, :, 0] < 128
    rows = np.nonzero(ink.any(axis=1))[0]
    top, bottom = ink[rows[0] : rows[0] + 4], ink[rows[-1] - 3 : rows[-1] + 1]
    assert top.sum() < bottom.sum()


def test_glyphs_span_three_quarters_of_the_face_centered():
    """49 of 64 rows (3.1 cm of a 4 cm block face; 27 mm before the head camera reframe)."""
    for letter in LETTERS[10]:
        rows, cols = np.nonzero(letter_image(letter)[:, :, 0] < 128)
        assert (rows.min(), rows.max()) == (8, 56), letter
        assert abs((cols.min() + cols.max() + 1) / 2 - TEXTURE_SIZE / 2) <= 1, letter
    # Strokes are 6 px (3.8 mm on a block): the middle row of "I" has 6 to 7 dark pixels.
    middle = letter_image("I")[32, :, 0]
    assert 6 <= (middle < 128).sum() <= 7
    assert (letter_image(" ") == 255).all()
