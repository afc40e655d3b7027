"""The statistics every stage shares: the 95% z, chance bands, chi-square and normal tails.

* :data:`Z95`: the z of a two-sided 95% band, 1.96 as Act2Answer (Appendix E) and the
  reports write it;
* :func:`chance_band`: the normal-approximation band of a success rate under chance
  (shortcut audits, layerwise probes);
* :func:`chi_square_uniform` and :func:`z_two_sided`: SciPy's chi-square tail and normal
  quantile (imported when called: ``scipy.stats`` costs about a second of import, and only
  the shortcut audit needs it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: z of a two-sided 95% band (the rounded normal quantile 1.959963984540054 that the papers,
#: reports and frozen audits use).
Z95 = 1.96


def chi_square_uniform(counts: Sequence[int]) -> tuple[float, float]:
    """(statistic, p-value) of ``counts`` against a uniform distribution over its cells."""
    # heavy: scipy.stats (about 1 s); rsb --help imports this module
    from scipy.stats import chi2

    n = sum(counts)
    k = len(counts)
    if n == 0 or k < 2:
        return 0.0, 1.0
    expected = n / k
    stat = sum((c - expected) ** 2 / expected for c in counts)
    return stat, float(chi2.sf(stat, k - 1))


def z_two_sided(alpha: float) -> float:
    """The z with P(|Z| > z) = ``alpha`` for a standard normal Z."""
    # heavy: scipy.stats (about 1 s); rsb --help imports this module
    from scipy.stats import norm

    return float(norm.isf(alpha / 2.0))


def chance_band(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The band ``p +- z sqrt(p(1-p)/n)``, clipped to 0..1 (95% for the default ``z``), of
    the success rate of ``n`` independent tries that each succeed with ``p``; ``(0, 1)``
    when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    half = z * math.sqrt(p * (1.0 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)
