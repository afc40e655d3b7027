"""Small exact statistics for the shortcut audit (no SciPy needed).

* :func:`chi2_sf`: survival function of the chi-square distribution (integer degrees of
  freedom), via its closed forms;
* :func:`chance_band`: the normal-approximation 95% band of a success rate under chance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: z of a two-sided 95% band.
Z95 = 1.959963984540054


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X ~ chi-square with ``dof`` (>= 1) degrees of freedom."""
    if dof < 1:
        raise ValueError(f"dof must be >= 1, got {dof}")
    if x <= 0:
        return 1.0
    half = x / 2.0
    if dof % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, dof // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    # term_1 = sqrt(2x/pi) e^{-x/2}; term_{k+1} = term_k * x / (2k + 1)
    term = math.sqrt(2.0 * x / math.pi) * math.exp(-half)
    for k in range(1, (dof + 1) // 2):
        total += term
        term *= x / (2 * k + 1)
    return min(1.0, max(0.0, total))


def chi_square_uniform(counts: Sequence[int]) -> tuple[float, float]:
    """(statistic, p-value) of ``counts`` against a uniform distribution over its cells."""
    n = sum(counts)
    k = len(counts)
    if n == 0 or k < 2:
        return 0.0, 1.0
    expected = n / k
    stat = sum((c - expected) ** 2 / expected for c in counts)
    return stat, chi2_sf(stat, k - 1)


def z_two_sided(alpha: float) -> float:
    """The z with P(|Z| > z) = ``alpha`` for a standard normal Z (bisection on erfc)."""
    lo, hi = 0.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if math.erfc(mid / math.sqrt(2.0)) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def chance_band(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The band ``p +- z sqrt(p(1-p)/n)`` (95% for the default ``z``) of the success rate of
    ``n`` independent tries that each succeed with ``p``."""
    if n <= 0:
        return 0.0, 1.0
    half = z * math.sqrt(p * (1.0 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)
