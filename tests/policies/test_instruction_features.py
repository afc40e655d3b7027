"""The instruction's hashed n-gram vector (rsb_mj.policies.instruction_features): its tokens,
its exact buckets, and that word order and numbers change it."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from rsb_mj.policies.instruction_features import DEFAULT_DIM, encode, tokens


def test_tokens_are_words_numbers_and_symbols_with_their_bigrams():
    assert tokens("What is 95 minus 85? (A) 10") == [
        "what", "is", "95", "minus", "85", "?", "(", "a", ")", "10",
        "<s> what", "what is", "is 95", "95 minus", "minus 85", "85 ?", "? (", "( a", "a )",
        ") 10", "10 </s>",
    ]  # fmt: skip


def test_each_token_adds_one_to_its_crc32_bucket():
    vec = encode("put the cube", 16)
    want = np.zeros(16, np.float32)
    for tok in ("put", "the", "cube", "<s> put", "put the", "the cube", "cube </s>"):
        want[zlib.crc32(tok.encode()) % 16] += 1
    assert vec.dtype == np.float32 and vec.shape == (16,)
    assert vec.tolist() == want.tolist() and vec.sum() == 7


def test_case_is_ignored_and_order_and_numbers_are_not():
    base = encode("What is 7 minus 3?")
    assert base.shape == (DEFAULT_DIM,)
    assert (encode("WHAT IS 7 MINUS 3?") == base).all()
    assert not (encode("What is 3 minus 7?") == base).all()  # the bigrams keep the order
    assert not (encode("What is 7 minus 4?") == base).all()
    assert not (
        encode("put the cube on the red star") == encode("put the cube on the blue star")
    ).all()


def test_a_length_below_one_is_refused():
    with pytest.raises(ValueError, match="instruction feature length must be at least 1, got 0"):
        encode("x", 0)
