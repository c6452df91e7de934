"""Sequence-level success (paper A, section 5.1), counted per evaluation window.

A task of N tokens succeeds when all of N consecutive targets rank within the top k; its rate
p_{N,k} is measured over every run of N consecutive targets inside one evaluation window, sliding
by one target. Here the runs and the successful runs are counted per
window (``window_runs``), so that the evaluation text can be resampled whole windows at a time, all
the windows of one document together (``success_replicates``, through
``rankscale.analysis.bootstrap.resample``): a run never crosses a window, so resampling windows keeps
neighbouring targets, whose successes cluster, together, and drawing a document's windows together
keeps what they share (resampling single targets would destroy the runs).

From a family's measured rates and their replicates, ``slope_gaps`` compares the size exponent of
-log p_{N,k} at each N with that at N = 1 (eq. 7 says they are equal), as a difference and as a ratio, and ``amplification``
compares -log p_{N,k} with N times -log RBP_k (eq. 6's independent positions), each with its
bootstrap interval (``rankscale.analysis.bootstrap.interval``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankscale.analysis import bootstrap


@dataclass(frozen=True)
class WindowRuns:
    """Runs of N consecutive targets per evaluation window, and how many succeeded.

    Attributes
    ----------
    ns, ks : tuple of int
        The run lengths N and the top-k thresholds.
    runs : ndarray of shape (W, len(ns))
        Runs of each length inside each of the W windows.
    hits : ndarray of shape (W, len(ns), len(ks))
        Those runs whose targets all rank within the top k.
    units : ndarray of shape (W,) or None
        The unit of text each window belongs to (its document), which a replicate draws whole with
        all its windows (``success_replicates``); None: each window is a unit of its own.
    """

    ns: tuple[int, ...]
    ks: tuple[int, ...]
    runs: np.ndarray
    hits: np.ndarray
    units: np.ndarray | None = None

    def success(self) -> np.ndarray:
        """p_{N,k} over all windows.

        Returns
        -------
        ndarray of shape (len(ns), len(ks))
            Success rates; nan for an N that no window is long enough for.
        """
        return _rates(self.runs, self.hits)


def _rates(runs: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Success rates from per-window counts (W, N) and (W, N, k)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return hits.sum(axis=0) / runs.sum(axis=0)[:, None]


def window_runs(rank, window, ns: Sequence[int], ks: Sequence[int], units=None) -> WindowRuns:
    """Count, per evaluation window, the runs of each length in ``ns`` and those all within each top-k.

    Parameters
    ----------
    rank : array_like of shape (n,)
        1-based ranks of the targets.
    window : array_like of shape (n,)
        Window ids, each window's targets contiguous and in order (as ``Records.window``).
    ns, ks : sequence of int
        Run lengths N (each at least 1) and top-k thresholds.
    units : array_like of shape (n,), optional
        Each target's unit of text (its document: ``rankscale.claims.context.text_units``), constant
        within a window; the windows of one unit are resampled together.

    Returns
    -------
    WindowRuns
        Whose ``success()`` is p_{N,k} for every N and k.

    Examples
    --------
    >>> w = window_runs(np.array([1, 1, 2, 1, 1, 1]), np.array([0, 0, 0, 1, 1, 1]), [1, 2], [1])
    >>> w.runs.tolist(), w.hits[:, :, 0].tolist()
    ([[3, 2], [3, 2]], [[2, 1], [3, 2]])
    """
    rank = np.asarray(rank)
    window = np.asarray(window)
    ids, index = np.unique(window, return_inverse=True)
    n_windows = len(ids)
    runs = np.zeros((n_windows, len(ns)), np.int64)
    hits = np.zeros((n_windows, len(ns), len(ks)), np.int64)
    cumulative = [np.concatenate([[0], np.cumsum(rank <= k)]) for k in ks]
    for i, n in enumerate(ns):
        if n < 1:
            raise ValueError(f"run length n must be at least 1, got {n}")
        starts = np.arange(max(len(rank) - n + 1, 0))
        starts = starts[window[starts] == window[starts + n - 1]]
        runs[:, i] = np.bincount(index[starts], minlength=n_windows)
        for j, hit in enumerate(cumulative):
            ok = hit[starts + n] - hit[starts] == n
            hits[:, i, j] = np.bincount(index[starts[ok]], minlength=n_windows)
    first = np.unique(index, return_index=True)[1]  # each window's first target
    return WindowRuns(tuple(int(n) for n in ns), tuple(int(k) for k in ks), runs, hits,
                      None if units is None else np.asarray(units)[first])


def success_replicates(counted: Sequence[WindowRuns], n_boot: int, seed: int = 0) -> np.ndarray:
    """p_{N,k} of models evaluated on the same windows, on ``n_boot`` resamples of that text.

    Each replicate draws the windows' units (their documents, ``WindowRuns.units``; else the windows
    themselves) with replacement, every window of a unit drawn with it, the same for every model
    (``bootstrap.resample`` with ``same_text=True`` over the per-window counts), so differences
    between models and between N are paired.

    Parameters
    ----------
    counted : sequence of WindowRuns
        One per model, all with the same windows, ``ns`` and ``ks`` (one family on one corpus).
    n_boot, seed : int
        Number of replicates and seed of the resampling.

    Returns
    -------
    ndarray of shape (n_boot, models, len(ns), len(ks))
        Success rates; nan for an N that no resampled window is long enough for.

    Examples
    --------
    >>> w = window_runs(np.array([1, 1, 2, 1, 1, 1]), np.array([0, 0, 0, 1, 1, 1]), [1, 2], [1])
    >>> success_replicates([w, w], n_boot=3).shape
    (3, 2, 2, 1)
    """
    shape = counted[0].hits.shape[1:]
    if any(c.hits.shape[1:] != shape for c in counted):
        raise ValueError("every model must be counted for the same run lengths and k")
    grouped = counted[0].units is not None
    samples = [{"runs": c.runs, "hits": c.hits, **({"unit": c.units} if grouped else {})} for c in counted]
    values = bootstrap.resample(samples, lambda s: _rates(s["runs"], s["hits"]).ravel(), n_boot, seed,
                                same_text=True, by="unit" if grouped else None)
    return values.reshape(n_boot, len(counted), *shape)


@dataclass(frozen=True)
class SlopeGaps:
    """Size exponents of -log p_{N,k} for one family, each against that of N = 1 (eq. 7).

    Attributes
    ----------
    slopes, r2 : ndarray of shape (len(ns), len(ks))
        Least-squares slope and R^2 of log(-log p_{N,k}) on log S; nan where some model has
        p = 0 (no logarithm) or the rate is not measured.
    gaps : ndarray of shape (len(ns), len(ks))
        slope(N) - slope(N = 1); 0 in the first row.
    intervals : ndarray of shape (len(ns), len(ks), 2)
        Bootstrap interval of each gap (``bootstrap.interval``); nan where there is none (the
        first row, a gap that is nan, or a replicate that cannot be fitted).
    ratios : ndarray of shape (len(ns), len(ks)) or None
        slope(N) / slope(N = 1), the exponent of N against the token level's; 1 in the first row.
    ratio_intervals : ndarray of shape (len(ns), len(ks), 2) or None
        Bootstrap interval of each ratio, each replicate's slope over the same replicate's N = 1 slope
        (paired); nan where there is none, as for ``intervals``.
    """

    slopes: np.ndarray
    r2: np.ndarray
    gaps: np.ndarray
    intervals: np.ndarray
    ratios: np.ndarray | None = None
    ratio_intervals: np.ndarray | None = None


def slope_gaps(sizes, success, replicates, level: float = bootstrap.LEVEL) -> SlopeGaps:
    """Fit -log p_{N,k} against size for every N and k, and compare each slope with N = 1's.

    Parameters
    ----------
    sizes : array_like of shape (models,)
        Non-embedding sizes, at least two distinct.
    success : array_like of shape (models, len(ns), len(ks))
        Measured p_{N,k}, the first N being 1 (p_{1,k} = RBP_k).
    replicates : array_like of shape (n_boot, models, len(ns), len(ks))
        The same on resampled windows (``success_replicates``), paired across N.
    level : float
        Level of the intervals.

    Returns
    -------
    SlopeGaps

    Examples
    --------
    >>> p1 = np.exp(-np.array([0.4, 0.2, 0.1]))  # -log RBP halves with each tenfold size
    >>> p = np.stack([p1, p1**3], axis=-1)[:, :, None]  # N = 1 and N = 3, one k
    >>> g = slope_gaps([1e6, 1e7, 1e8], p, np.stack([p, p]))
    >>> np.round(g.slopes[:, 0], 4).tolist(), np.round(g.gaps[:, 0], 6).tolist(), np.round(g.ratios[:, 0], 6).tolist()
    ([-0.301, -0.301], [0.0, 0.0], [1.0, 1.0])
    """
    log_s = np.log(np.asarray(sizes, np.float64))
    point = np.moveaxis(bootstrap.log_or_nan(-bootstrap.log_or_nan(success)), 0, -1)  # (N, k, models)
    boot = np.moveaxis(bootstrap.log_or_nan(-bootstrap.log_or_nan(replicates)), 1, -1)  # (n_boot, N, k, models)
    slopes, r2 = bootstrap.line_fits(log_s, point)
    boot_slopes, _ = bootstrap.line_fits(log_s, boot)
    gaps = slopes - slopes[:1]
    with np.errstate(divide="ignore", invalid="ignore"):  # a flat token-level law (slope 0) has no ratio
        ratios = slopes / slopes[:1]
        boot_ratios = boot_slopes / boot_slopes[:, :1]
    intervals = np.full(gaps.shape + (2,), np.nan)
    ratio_intervals = np.full(gaps.shape + (2,), np.nan)
    for i, j in np.ndindex(gaps.shape):
        if not i:
            continue
        for found, value, boot in ((intervals, gaps[i, j], boot_slopes[:, i, j] - boot_slopes[:, 0, j]),
                                   (ratio_intervals, ratios[i, j], boot_ratios[:, i, j])):
            bounds = bootstrap.interval(value, boot, level)
            if bounds is not None:
                found[i, j] = bounds
    return SlopeGaps(slopes, r2, gaps, intervals, ratios, ratio_intervals)


def amplification(success, replicates, ns: Sequence[int], level: float = bootstrap.LEVEL
                  ) -> tuple[np.ndarray, np.ndarray]:
    """How far -log p_{N,k} is from N times -log RBP_k, the independent positions of eq. 6.

    The ratio -log p_{N,k} / (N * -log RBP_k) is 1 under independence and below 1 where
    successes cluster; for a family it is averaged in logs over the models (a geometric mean).

    Parameters
    ----------
    success : array_like of shape (models, len(ns), len(ks))
        Measured p_{N,k}; ``ns[0]`` must be 1.
    replicates : array_like of shape (n_boot, models, len(ns), len(ks))
        The same on resampled windows, paired across N.
    ns : sequence of int
        The run lengths N.
    level : float
        Level of the intervals.

    Returns
    -------
    ratio : ndarray of shape (len(ns), len(ks))
        Geometric mean of the ratio over the models; nan where some model has p = 0, or p = 1 at
        N = 1 (then every p is 1 and the ratio is 0 / 0).
    intervals : ndarray of shape (len(ns), len(ks), 2)
        Its bootstrap interval (``bootstrap.interval`` of the mean log ratio, exponentiated); nan
        where there is none.

    Examples
    --------
    >>> rbp = np.array([0.5, 0.8])
    >>> p = np.stack([rbp, rbp**2, rbp**3], axis=-1)[:, :, None]  # independent positions
    >>> ratio, _ = amplification(p, np.stack([p, p]), [1, 2, 3])
    >>> np.round(ratio[:, 0], 6).tolist()
    [1.0, 1.0, 1.0]
    """
    if ns[0] != 1:
        raise ValueError(f"the first run length must be 1 (the token level), got {ns[0]}")
    n = np.asarray(ns, np.float64)[:, None]

    def mean_log_ratio(p):  # (..., models, N, k) -> (..., N, k)
        neg_log = -bootstrap.log_or_nan(p)
        with np.errstate(invalid="ignore"):  # p = 1 at N = 1 (every target in the top k): 0 / 0, no ratio
            return bootstrap.log_or_nan(neg_log / (n * neg_log[..., :1, :])).mean(axis=-3)

    point, boot = mean_log_ratio(np.asarray(success, np.float64)), mean_log_ratio(np.asarray(replicates, np.float64))
    intervals = np.full(point.shape + (2,), np.nan)
    for i, j in np.ndindex(point.shape):
        bounds = bootstrap.interval(point[i, j], boot[:, i, j], level)
        if bounds is not None:
            intervals[i, j] = np.exp(bounds)
    return np.exp(point), intervals
