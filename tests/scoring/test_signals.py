"""StepSignals: validation of info["signals"] shapes and keys."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.scoring.signals import StepSignals


def test_valid_signals_convert_with_their_dtypes(make_signals):
    sig = StepSignals.from_info(make_signals(25, 4), 4)
    assert (sig.substeps, sig.candidates) == (25, 4)
    assert sig.contact.dtype == bool and sig.lift.dtype == np.float64


def test_missing_key_is_named(make_signals):
    d = make_signals()
    del d["in_zone"]
    with pytest.raises(EvalError, match=r"lacks \['in_zone'\]; expected keys: contact, "):
        StepSignals.from_info(d, 4)


def test_wrong_candidate_axis_is_reported_with_the_expected_shape(make_signals):
    with pytest.raises(
        EvalError, match=r"\['contact'\] has shape \(25, 4, 2\); expected \(S, 10, 2\)"
    ):
        StepSignals.from_info(make_signals(25, 4), 10)


def test_substep_counts_must_agree(make_signals):
    d = make_signals()
    d["lift"] = np.zeros((24, 4))
    with pytest.raises(EvalError, match=r"\['lift'\] has 24 substeps, others have 25"):
        StepSignals.from_info(d, 4)
