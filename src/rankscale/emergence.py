"""Sequence-level success (paper A, section 5.1), counted per evaluation window.

A task of N tokens succeeds when all of N consecutive targets rank within the top k; its rate
p_{N,k} is measured over every run of N consecutive targets inside one evaluation window, sliding
by one target (``metrics.window_success``). Here the runs and the successful runs are counted per
window, so that the evaluation text can be resampled window by window: a run never crosses a
window, so resampling windows keeps neighbouring targets, whose successes cluster, together, and
the bootstrap reflects that dependence (resampling single targets would destroy the runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WindowRuns:
    """Runs of N consecutive targets per evaluation window, and how many succeeded.

    ns, ks : the run lengths N and top-k thresholds; runs : (W, len(ns)) runs of each length inside
    each of the W windows; hits : (W, len(ns), len(ks)) those whose targets all rank within the top k.
    """

    ns: tuple[int, ...]
    ks: tuple[int, ...]
    runs: np.ndarray
    hits: np.ndarray

    def success(self, weights=None) -> np.ndarray:
        """p_{N,k}: (len(ns), len(ks)) success rates, nan for an N no window is long enough for.

        weights : optional (W,) or (B, W) multiplicities of the windows (a resample); gives
        (B, len(ns), len(ks)) for (B, W).
        """
        n_windows = self.runs.shape[0]
        if weights is None:
            weights = np.ones(n_windows)
        weights = np.asarray(weights, np.float64)
        hits = weights @ self.hits.reshape(n_windows, -1)
        runs = weights @ self.runs
        hits = hits.reshape(*weights.shape[:-1], len(self.ns), len(self.ks))
        with np.errstate(invalid="ignore", divide="ignore"):
            return hits / runs[..., None]


def window_runs(rank, window, ns: Sequence[int], ks: Sequence[int]) -> WindowRuns:
    """Count, per evaluation window, the runs of each length in ``ns`` and those all within each top-k.

    rank : (n,) 1-based ranks; window : (n,) window ids, each window's targets contiguous and in
    order (as ``Records.window``). ``WindowRuns(...).success()`` equals ``metrics.window_success``
    for every N and k.

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
    return WindowRuns(tuple(int(n) for n in ns), tuple(int(k) for k in ks), runs, hits)


def resample_windows(n_windows: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """(n_boot, n_windows) multiplicities of the windows in ``n_boot`` resamples with replacement.

    With the same seed, models evaluated on the same windows get the same resample of the text,
    so that differences between models and between N are paired.
    """
    return np.random.default_rng(seed).multinomial(n_windows, np.full(n_windows, 1.0 / n_windows), size=n_boot)


def neg_log(p) -> np.ndarray:
    """-log p for 0 < p <= 1, nan where p is 0 or not measured (no warning)."""
    p = np.asarray(p, np.float64)
    ok = np.isfinite(p) & (p > 0)
    return np.where(ok, -np.log(np.where(ok, p, 1.0)), np.nan)
