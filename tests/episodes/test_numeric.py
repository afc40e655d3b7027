"""Numeric answers: parsing, normalization, formatting, leading numbers."""

from decimal import Decimal

import pytest

from rsb_mj.episodes.numeric import (
    all_numeric,
    check_answer,
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


def test_huge_numbers_format_or_fail_with_an_rsb_error_never_invalid_operation():
    # 31 digits: beyond decimal's default 28-digit precision, which made quantize raise
    assert format_number(Decimal("1e30")) == "1" + "0" * 30
    assert normalize_number("1e30") == "1" + "0" * 30
    assert decimals_of(Decimal("0.1234567890123456789012345678901")) == 31
    with pytest.raises(EpisodeError, match=r"number 1E\+5000 has too many digits to write out"):
        normalize_number("1e5000")


@pytest.mark.parametrize("text", ["1e30", "1e308", "1000000000000000", "0.0000001"])
def test_a_bank_answer_out_of_range_is_refused_quoting_it(text):
    with pytest.raises(
        EpisodeError,
        match=rf"answer '{text}' is out of range: a numeric answer has at most 15 digits "
        r"before the point and 6 after it",
    ):
        check_answer(parse_number(text), text)
    assert check_answer(Decimal("999999999999999.5"), "x") == Decimal("999999999999999.5")
