"""Sequence-level success counted per window, and its window bootstrap."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from rankscale import emergence, metrics


def test_doctests():
    assert doctest.testmod(emergence).failed == 0


def records(seed=0, n_windows=30):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 40, n_windows)
    window = np.repeat(np.arange(n_windows) * 7 + 3, lengths)  # ids need not be 0..W-1
    rank = rng.geometric(0.3, len(window))
    return rank, window


@pytest.mark.parametrize("seed", range(3))
def test_window_counts_give_metrics_window_success(seed):
    rank, window = records(seed)
    ns, ks = (1, 2, 5, 9), (1, 3, 10)
    counted = emergence.window_runs(rank, window, ns, ks)
    p = counted.success()
    for i, n in enumerate(ns):
        np.testing.assert_allclose(p[i], metrics.window_success(rank, window, n, ks), rtol=1e-12)
    np.testing.assert_allclose(p[0], metrics.rbp(rank, ks), rtol=1e-12)


def test_a_resample_is_the_text_with_windows_repeated():
    rank, window = records(1, n_windows=12)
    ns, ks = (1, 3), (1, 5)
    counted = emergence.window_runs(rank, window, ns, ks)
    weights = emergence.resample_windows(12, 4, seed=3)
    assert weights.shape == (4, 12) and (weights.sum(axis=1) == 12).all()
    replicates = counted.success(weights)
    ids = np.unique(window)
    for b in range(4):
        picked = np.concatenate([np.flatnonzero(window == ids[w]) for w in np.repeat(np.arange(12), weights[b])])
        # a repeated window becomes a new window: relabel so that copies do not join
        new_window = np.concatenate([np.full(np.sum(window == ids[w]), j)
                                     for j, w in enumerate(np.repeat(np.arange(12), weights[b]))])
        want = np.array([metrics.window_success(rank[picked], new_window, n, ks) for n in ns])
        np.testing.assert_allclose(replicates[b], want, rtol=1e-12)


def test_lengths_no_window_holds_are_nan_and_neg_log_skips_zero():
    rank, window = np.array([1, 1, 1, 2]), np.array([0, 0, 1, 1])
    p = emergence.window_runs(rank, window, [1, 2, 3], [1]).success()
    assert p[0, 0] == 0.75 and p[1, 0] == 0.5 and np.isnan(p[2, 0])
    np.testing.assert_allclose(emergence.neg_log([1.0, 0.5, 0.0, np.nan]), [0.0, np.log(2), np.nan, np.nan])
