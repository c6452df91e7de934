"""Straight-line fits of bootstrap replicates, for verdicts that compare slopes within their noise.

A chapter that resamples its evaluation text computes, for every replicate, one value per model;
``line_fits`` fits every replicate's values against size at once (log-log for a power law, or
against ln S for a quantity that may change sign), and ``interval`` turns the replicates of a
slope, a slope difference or a slope ratio into a percentile interval, or None where some
replicate could not be computed (a unit of evidence that cannot be judged, see ``rankscale.claims``).
"""

from __future__ import annotations

import numpy as np

from rankscale.fit import percentile_interval


def line_fits(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slopes and R^2 of ``y`` on ``x`` along the last axis.

    x : (m,) abscissae (e.g. log S), at least two distinct; y : (..., m) ordinates, one row per
    replicate (e.g. log of a metric). Returns (slope, r2), each of shape y.shape[:-1]; nan where a
    row holds a value that is not finite. R^2 is 1 for a row with no spread.

    >>> s, r2 = line_fits(np.log([1e3, 1e4, 1e5]), np.log([[4.0, 2.0, 1.0], [4.0, np.inf, 1.0]]))
    >>> np.round(s, 5), np.round(r2, 5)
    (array([-0.30103,      nan]), array([ 1., nan]))
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.ndim != 1 or y.shape[-1] != len(x) or len(np.unique(x)) < 2:
        raise ValueError(f"line_fits needs (m,) abscissae with two distinct values and (..., m) ordinates, "
                         f"got {x.shape} and {y.shape}")
    dx = x - x.mean()
    with np.errstate(invalid="ignore"):
        dy = y - y.mean(axis=-1, keepdims=True)
        slope = dy @ dx / (dx @ dx)
        residual = dy - slope[..., None] * dx
        total = (dy**2).sum(axis=-1)
        r2 = np.where(total > 0, 1.0 - (residual**2).sum(axis=-1) / np.where(total > 0, total, 1.0), 1.0)
    bad = ~np.isfinite(y).all(axis=-1)
    return np.where(bad, np.nan, slope), np.where(bad, np.nan, r2)


def log_or_nan(values) -> np.ndarray:
    """Natural logarithm of positive finite values, nan elsewhere (no warning), for log-log fits."""
    values = np.asarray(values, np.float64)
    ok = np.isfinite(values) & (values > 0)
    return np.where(ok, np.log(np.where(ok, values, 1.0)), np.nan)


def interval(replicates, level: float = 0.95) -> tuple[float, float] | None:
    """The central ``level`` percentile interval of bootstrap replicates, or None if any replicate
    is not finite (the quantity could not be computed on some resample).

    >>> interval(np.arange(101.0), 0.5)
    (25.0, 75.0)
    >>> interval([1.0, np.nan]) is None
    True
    """
    replicates = np.asarray(replicates, np.float64)
    if replicates.size == 0 or not np.isfinite(replicates).all():
        return None
    return percentile_interval(replicates, level)


def overlaps(bounds: tuple[float, float] | None, band: tuple[float, float]) -> bool | None:
    """Whether an interval reaches into ``band`` (None for no interval).

    >>> overlaps((1.2, 1.5), (0.74, 1.32)), overlaps((1.4, 1.5), (0.74, 1.32)), overlaps(None, (0, 1))
    (True, False, None)
    """
    if bounds is None:
        return None
    return bool(bounds[0] <= band[1] and bounds[1] >= band[0])
