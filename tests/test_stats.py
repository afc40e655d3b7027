"""The shared statistics: SciPy's chi-square tail and normal quantile, the 95% band."""

import pytest

from rsb_mj.stats import Z95, chance_band, chi_square_uniform, z_two_sided


@pytest.mark.parametrize(
    ("counts", "stat", "p"),
    [
        ([25, 25, 25, 25], 0.0, 1.0),
        ([30, 20], 2.0, 0.15729920705028513),
        ([40, 40, 20], 8.0, 0.018315638888734182),
        ([10, 20, 30, 40], 20.0, 0.00016974243555282632),
    ],
)
def test_uniform_counts(counts, stat, p):
    got = chi_square_uniform(counts)
    assert got[0] == stat and got[1] == pytest.approx(p, rel=1e-12)


def test_uniform_counts_edge_cases():
    assert chi_square_uniform([]) == (0.0, 1.0)
    assert chi_square_uniform([7]) == (0.0, 1.0)
    assert chi_square_uniform([0, 0]) == (0.0, 1.0)
    stat, p = chi_square_uniform([100, 0, 0, 0])
    assert stat == 300.0 and p < 1e-60


def test_chance_band():
    assert Z95 == 1.96
    lo, hi = chance_band(0.25, 500)
    assert lo == 0.25 - 1.96 * (0.25 * 0.75 / 500) ** 0.5
    assert (round(lo, 3), round(hi, 3)) == (0.212, 0.288)
    assert chance_band(0.25, 500, z=2.393979799818509)[1] == pytest.approx(0.2963, abs=1e-4)
    assert chance_band(0.5, 0) == (0.0, 1.0)
    assert chance_band(0.5, 1) == (0.0, 1.0)  # clipped


def test_z_two_sided():
    assert z_two_sided(0.05) == pytest.approx(1.959963984540054, abs=1e-12)
    assert z_two_sided(0.05 / 3) == pytest.approx(2.393979799818509, abs=1e-12)
