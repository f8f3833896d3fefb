"""Statistics for evaluation: confidence intervals and Bradley–Terry ratings.

Pure numpy (no scipy). Games played on the same deal ("duplicate" deals) are not independent, so
means get a cluster-robust interval with the deal as the cluster, and rating intervals come from
a bootstrap that resamples whole deals.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
# Student t 0.975 quantiles for 1..30 degrees of freedom
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)

ELO_SCALE = 400.0 / math.log(10.0)  # rating = 400 * log10(strength)


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t (two-sided 95%)."""
    if df < 1:
        return float("nan")
    if df <= 30:
        return _T975[df - 1]
    z = Z95  # Cornish-Fisher expansion, accurate to ~1e-4 beyond 30 df
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def clustered_mean_ci(values, clusters) -> tuple[float, float, float]:
    """Mean of ``values`` with a 95% interval robust to correlation inside each cluster
    (here: the games of one duplicate deal). Returns (mean, low, high); nan bounds with fewer
    than two clusters."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    c = np.asarray(clusters)
    mean = float(v.mean())
    uniq, inv = np.unique(c, return_inverse=True)
    g = uniq.size
    if g < 2:
        return mean, float("nan"), float("nan")
    sums = np.bincount(inv, weights=v - mean, minlength=g)
    var = g / (g - 1) * float(np.sum(sums**2)) / v.size**2
    half = t975(g - 1) * math.sqrt(var)
    return mean, mean - half, mean + half


def wilson_ci(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``successes`` may be fractional: split ties)."""
    if n <= 0:
        return float("nan"), float("nan")
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0))
    return max(0.0, center - half), min(1.0, center + half)


def bradley_terry(wins, prior: float = 0.5, iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Bradley–Terry strengths from a pairwise win matrix (``wins[i, j]`` = times i beat j, ties
    counted half to each), by Hunter's MM algorithm. Returns log-strengths (natural log, mean 0
    over the entrants that played); nan for entrants that never played.

    ``prior`` pseudo-wins are added in both directions for every pair that met (0.5 = one drawn
    virtual game), which keeps ratings finite when one entrant always wins.
    """
    w = np.asarray(wins, dtype=float)
    e = w.shape[0]
    n = w + w.T
    met = n > 0
    wp = w + prior * met
    np_ = wp + wp.T
    played = met.any(axis=1)
    out = np.full(e, np.nan)
    if not played.any():
        return out
    idx = np.flatnonzero(played)
    wp, np_ = wp[np.ix_(idx, idx)], np_[np.ix_(idx, idx)]
    total = wp.sum(axis=1)
    p = np.ones(idx.size)
    for _ in range(iters):
        denom = (np_ / (p[:, None] + p[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(float(np.mean(np.log(new))))
        if np.max(np.abs(new - p)) < tol * max(1.0, float(np.max(new))):
            p = new
            break
        p = new
    out[idx] = np.log(p)
    return out


def elo_ratings(wins, anchor: int = 0, prior: float = 0.5) -> np.ndarray:
    """Bradley–Terry ratings on the Elo scale (400 * log10 strength), entrant ``anchor`` = 0."""
    log_p = bradley_terry(wins, prior=prior)
    return (log_p - log_p[anchor]) * ELO_SCALE


def bootstrap_ratings(
    deal_wins, anchor: int = 0, samples: int = 200, seed: int = 0, prior: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """95% percentile intervals of Elo-scale BT ratings, resampling whole deals.

    ``deal_wins`` has shape (deals, entrants, entrants). Returns (low, high) arrays.
    """
    dw = np.asarray(deal_wins, dtype=float)
    d, e = dw.shape[0], dw.shape[1]
    if d < 2 or samples < 2:
        nan = np.full(e, np.nan)
        return nan, nan.copy()
    rng = np.random.default_rng(seed)
    draws = np.empty((samples, e))
    for b in range(samples):
        counts = np.bincount(rng.integers(d, size=d), minlength=d)
        w = np.tensordot(counts, dw, axes=1)
        draws[b] = elo_ratings(w, anchor=anchor, prior=prior)
    with np.errstate(all="ignore"):
        low = np.nanpercentile(draws, 2.5, axis=0)
        high = np.nanpercentile(draws, 97.5, axis=0)
    return low, high
