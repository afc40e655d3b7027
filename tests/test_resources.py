"""Data folders are found from a checkout."""

import pytest

from rsb_mj.colors import PALETTE, TEN_CHOICE_COLOR, rgba
from rsb_mj.errors import EpisodeError, RsbError
from rsb_mj.resources import grammar_path, share_dir


def test_grammar_ships():
    assert grammar_path().name == "rsb.lark"
    assert grammar_path().is_file()


def test_unknown_folder_names_the_valid_ones():
    with pytest.raises(
        RsbError, match="unknown data folder 'docs'; valid choices: grammar, tasks, assets"
    ):
        share_dir("docs")


def test_palette_lookup():
    assert rgba("red") == PALETTE["red"]
    assert TEN_CHOICE_COLOR in PALETTE
    with pytest.raises(EpisodeError, match="unknown color 'mauve'; valid choices: blue, cyan, "):
        rgba("mauve")
