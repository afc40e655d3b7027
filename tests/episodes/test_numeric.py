"""Numeric answers: parsing, normalization, formatting, leading numbers."""

from decimal import Decimal

import pytest

from rsb_mj.episodes.numeric import (
    all_numeric,
    decimals_of,
    format_number,
    leading_number,
    normalize_number,
    parse_number,
)
from rsb_mj.errors import EpisodeError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,080", "1080"),
        ("$18", "18"),
        (" 72 ", "72"),
        ("-3", "-3"),
        ("2.50", "2.5"),
        ("1080.00", "1080"),
        ("\u22125", "-5"),
        ("0", "0"),
        ("109,200,000", "109200000"),
    ],
)
def test_normalize_number(text, expected):
    assert normalize_number(text) == expected


def test_parse_number_rejects_words_with_the_text_quoted():
    with pytest.raises(EpisodeError, match="answer 'twelve' is not a number"):
        parse_number("twelve")


def test_decimals_and_format():
    assert decimals_of(Decimal("2.50")) == 1
    assert decimals_of(Decimal("1200")) == 0
    assert format_number(Decimal("2.5"), 2) == "2.50"
    assert format_number(Decimal("-0"), 0) == "0"


def test_leading_number_reads_units_and_currency():
    assert leading_number("$56,300") == Decimal("56300")
    assert leading_number("5.2 m/s") == Decimal("5.2")
    assert leading_number("about 5") is None
    assert all_numeric(["1 N", "2 N"]) and not all_numeric(["1 N", "two N"])
