"""Chi-square survival function and the chance band (reference values from SciPy 1.17)."""

import pytest

from rsb_mj.tables.stats import chance_band, chi2_sf, chi_square_uniform, z_two_sided


@pytest.mark.parametrize(
    ("x", "dof", "expected"),
    [
        (3.0, 1, 0.08326451666355042),
        (7.8, 2, 0.020241911445804395),
        (7.8, 3, 0.050331097859853326),
        (16.9, 7, 0.018052506500167747),
        (16.9, 9, 0.0503051901243108),
        (30.0, 9, 0.00043872177097947936),
    ],
)
def test_chi2_sf_matches_scipy(x, dof, expected):
    assert chi2_sf(x, dof) == pytest.approx(expected, rel=1e-10)


def test_chi2_edge_cases():
    assert chi2_sf(0.0, 3) == 1.0
    with pytest.raises(ValueError, match="dof must be >= 1"):
        chi2_sf(1.0, 0)


def test_uniform_counts():
    assert chi_square_uniform([25, 25, 25, 25]) == (0.0, 1.0)
    stat, p = chi_square_uniform([100, 0, 0, 0])
    assert stat == 300.0 and p < 1e-60


def test_chance_band():
    lo, hi = chance_band(0.25, 500)
    assert lo == pytest.approx(0.25 - 1.959963984540054 * (0.25 * 0.75 / 500) ** 0.5)
    assert (round(lo, 3), round(hi, 3)) == (0.212, 0.288)
    assert chance_band(0.25, 500, z=2.393979799818509)[1] == pytest.approx(0.2963, abs=1e-4)


def test_z_two_sided():
    assert z_two_sided(0.05) == pytest.approx(1.959963984540054, abs=1e-9)
    assert z_two_sided(0.05 / 3) == pytest.approx(2.393979799818509, abs=1e-9)
