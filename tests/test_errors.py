"""The one ``did you mean``: closest choice, case-insensitive, None when nothing is close."""

from rsb_mj.errors import did_you_mean


def test_did_you_mean_names_the_closest_choice_in_its_own_case():
    assert did_you_mean("on_tabel", ["on_table", "in_zone", "stacked"]) == "on_table"
    assert did_you_mean("BIOLOGY", ["biology", "business"]) == "biology"
    assert did_you_mean("math", ["Maths", "physics"]) == "Maths"


def test_did_you_mean_is_none_when_nothing_is_close():
    assert did_you_mean("zzz", ["on_table", "in_zone"]) is None
    assert did_you_mean("x", []) is None
