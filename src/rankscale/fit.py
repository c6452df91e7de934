"""Power-law fits: least squares of log(metric) on log(non-embedding parameters).

A fit y = A * S**slope is the straight line log y = intercept + slope * log S; R^2 is measured in
log space, as in both papers' tables. Bootstrap intervals resample each model's evaluation
tokens with replacement, recompute the metric per model, and refit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PowerLawFit:
    """Result of a log-log fit. ``ci`` is a bootstrap interval for ``slope`` when computed."""

    slope: float
    intercept: float
    r2: float
    n_points: int
    ci: tuple[float, float] | None = None

    def predict(self, sizes) -> np.ndarray:
        """Fitted metric values at ``sizes``."""
        return np.exp(self.intercept) * np.asarray(sizes, np.float64) ** self.slope


def _loglog(sizes, values) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(sizes, np.float64)
    y = np.asarray(values, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"sizes and values must be 1-d arrays of one length, got {x.shape} and {y.shape}")
    if len(x) < 2 or len(np.unique(x)) < 2:
        raise ValueError("a power-law fit needs at least two distinct sizes")
    if (x <= 0).any() or (y <= 0).any() or not np.isfinite(y).all():
        raise ValueError("sizes and values must be positive and finite to be fitted on log-log axes")
    return np.log(x), np.log(y)


def fit_power_law(sizes, values) -> PowerLawFit:
    """Least-squares line through (log S, log y).

    sizes : (m,) positive model sizes; values : (m,) positive metric values.
    Returns slope, intercept (natural log), R^2 of the line in log space, number of points.

    >>> f = fit_power_law([1e6, 1e7, 1e8], [4.0, 2.0, 1.0])
    >>> round(f.slope, 6), round(f.r2, 6)
    (-0.30103, 1.0)
    """
    lx, ly = _loglog(sizes, values)
    slope, intercept = np.polyfit(lx, ly, 1)
    residual = ly - (intercept + slope * lx)
    total = ly - ly.mean()
    r2 = 1.0 - residual @ residual / (total @ total) if total @ total > 0 else 1.0
    return PowerLawFit(float(slope), float(intercept), float(r2), len(lx))


Sample = Mapping[str, np.ndarray]


def bootstrap_slopes(
    sizes,
    samples: Sequence[Sample],
    metric: Callable[[Sample], float],
    n_boot: int = 1000,
    seed: int = 0,
) -> np.ndarray:
    """Slopes of ``n_boot`` refits, each on metrics of token-resampled models.

    samples : one mapping of equal-length per-token arrays per model (e.g. ``Records.arrays()``);
    metric : maps such a mapping to one positive number (e.g. CE).
    Resampling tokens treats them as independent, which neighbouring tokens are not, so these
    intervals are lower bounds on the uncertainty from the choice of evaluation text.
    """
    if len(samples) != len(np.asarray(sizes)):
        raise ValueError(f"{len(samples)} samples for {len(np.asarray(sizes))} sizes")
    rng = np.random.default_rng(seed)
    lengths = [len(next(iter(s.values()))) for s in samples]
    slopes = np.empty(n_boot)
    for b in range(n_boot):
        values = []
        for sample, n in zip(samples, lengths):
            idx = rng.integers(0, n, n)
            values.append(metric({key: arr[idx] for key, arr in sample.items()}))
        slopes[b] = fit_power_law(sizes, values).slope
    return slopes


def fit_with_bootstrap(
    sizes,
    samples: Sequence[Sample],
    metric: Callable[[Sample], float],
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> PowerLawFit:
    """Fit ``metric`` of each model's full sample against size, with a percentile bootstrap
    interval for the slope at confidence ``level``."""
    point = fit_power_law(sizes, [metric(s) for s in samples])
    slopes = bootstrap_slopes(sizes, samples, metric, n_boot, seed)
    lo, hi = np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])
    return PowerLawFit(point.slope, point.intercept, point.r2, point.n_points, (float(lo), float(hi)))


def fit_by_family(
    sizes,
    samples: Sequence[Sample],
    families: Sequence[str],
    metric: Callable[[Sample], float],
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    pooled: str = "All",
) -> dict[str, PowerLawFit]:
    """One fit per family plus one over every model pooled (paper B's "All"), keyed by family.

    A family with fewer than two distinct sizes is left out; the pooled fit is included only
    when there is more than one family.
    """
    sizes = np.asarray(sizes, np.float64)
    families = np.asarray(families)
    groups = {f: np.flatnonzero(families == f) for f in dict.fromkeys(families.tolist())}
    if len(groups) > 1:
        groups[pooled] = np.arange(len(sizes))
    fits = {}
    for name, idx in groups.items():
        if len(np.unique(sizes[idx])) < 2:
            continue
        fits[name] = fit_with_bootstrap(sizes[idx], [samples[i] for i in idx], metric, n_boot, level, seed)
    return fits
