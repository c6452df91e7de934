"""Sequence-level success counted per window, its window bootstrap, and the comparisons with eqs. 6-7."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from helpers import window_success

from rankscale.analysis import bootstrap, emergence, metrics


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
        np.testing.assert_allclose(p[i], window_success(rank, window, n, ks), rtol=1e-12)
    np.testing.assert_allclose(p[0], metrics.rbp(rank, ks), rtol=1e-12)


def test_a_replicate_is_the_text_with_whole_windows_repeated():
    rank, window = records(1, n_windows=12)
    other = np.random.default_rng(9).geometric(0.5, len(rank))  # a second model on the same windows
    ns, ks = (1, 3), (1, 5)
    counted = [emergence.window_runs(r, window, ns, ks) for r in (rank, other)]
    replicates = emergence.success_replicates(counted, n_boot=4, seed=3)
    assert replicates.shape == (4, 2, 2, 2)
    # the windows each replicate drew: the same seed and number of windows draw the same indices
    chosen = bootstrap.resample([{"w": np.arange(12)}], lambda s: s["w"], 4, seed=3)[:, 0].astype(int)
    ids = np.unique(window)
    for b in range(4):
        picked = np.concatenate([np.flatnonzero(window == ids[w]) for w in chosen[b]])
        # a repeated window becomes a new window: relabel so that copies do not join
        new_window = np.concatenate([np.full(np.sum(window == ids[w]), j) for j, w in enumerate(chosen[b])])
        for m, r in enumerate((rank, other)):
            want = np.array([window_success(r[picked], new_window, n, ks) for n in ns])
            np.testing.assert_allclose(replicates[b, m], want, rtol=1e-12)


def test_lengths_no_window_holds_are_nan():
    rank, window = np.array([1, 1, 1, 2]), np.array([0, 0, 1, 1])
    p = emergence.window_runs(rank, window, [1, 2, 3], [1]).success()
    assert p[0, 0] == 0.75 and p[1, 0] == 0.5 and np.isnan(p[2, 0])


def power_family(alphas, sizes=(1e5, 1e6, 1e7, 1e8), scale=2.0):
    """p_{N,k} whose -log follows C N^(1 - gap) S^-alpha exactly, for N = 1, 2, 4 and one k per alpha."""
    sizes = np.asarray(sizes)
    ns = np.array([1, 2, 4])
    neg_log = scale * ns[None, :, None] * sizes[:, None, None] ** -np.asarray(alphas)[None, None, :]
    return sizes, ns, neg_log


def test_slope_gaps_are_zero_under_eq7_and_detect_an_exponent_that_moves_with_n():
    sizes, ns, neg_log = power_family([0.1, 0.3])
    p = np.exp(-neg_log)
    replicates = np.exp(-neg_log * np.random.default_rng(0).lognormal(0, 0.01, (50, *neg_log.shape)))
    g = emergence.slope_gaps(sizes, p, replicates)
    np.testing.assert_allclose(g.slopes, [[-0.1, -0.3]] * 3, rtol=1e-9)
    np.testing.assert_allclose(g.gaps, 0, atol=1e-9)
    assert np.isnan(g.intervals[0]).all() and (g.intervals[1:, :, 0] < 0).all() and (g.intervals[1:, :, 1] > 0).all()
    # the exponent grows with N: every gap is negative and its interval excludes 0
    steeper = neg_log * (sizes[:, None, None] / sizes[0]) ** (-0.05 * np.log2(ns)[None, :, None])
    g = emergence.slope_gaps(sizes, np.exp(-steeper), np.exp(-steeper * replicates / np.exp(-neg_log)))
    np.testing.assert_allclose(g.gaps[:, 0], -0.05 * np.log2(ns), atol=1e-9)
    assert (g.intervals[1:, :, 1] < 0).all()


def test_a_model_that_never_succeeds_has_no_slope_and_no_interval():
    sizes, _, neg_log = power_family([0.2])
    p = np.exp(-neg_log)
    p[0, 2, 0] = 0.0  # the smallest model never completes a run of 4
    g = emergence.slope_gaps(sizes, p, np.stack([p] * 5))
    assert np.isnan(g.slopes[2, 0]) and np.isnan(g.gaps[2, 0]) and np.isnan(g.intervals[2, 0]).all()
    assert np.isfinite(g.intervals[1, 0]).all()


def test_amplification_is_one_for_independent_positions_and_below_one_for_clustered_successes():
    _, ns, neg_log = power_family([0.2])
    clustered = neg_log * ns[None, :, None] ** -0.5  # runs succeed more often than independence allows
    noise = np.random.default_rng(1).lognormal(0, 0.02, (40, *neg_log.shape))
    for values, want, independent in ((neg_log, 1.0, True), (clustered, ns**-0.5, False)):
        ratio, intervals = emergence.amplification(np.exp(-values), np.exp(-values * noise), ns)
        np.testing.assert_allclose(ratio[:, 0], want, rtol=1e-9)
        lo, hi = intervals[1:, 0, 0], intervals[1:, 0, 1]
        assert ((lo < 1) & (hi > 1)).all() if independent else (hi < 1).all()
    with pytest.raises(ValueError, match="first run length"):
        emergence.amplification(np.exp(-neg_log), np.exp(-neg_log)[None], [2, 4, 8])


def test_amplification_has_no_ratio_where_every_target_is_in_the_top_k():
    _, ns, neg_log = power_family([0.2])
    p = np.exp(-neg_log)
    p[1, :, 0] = 1.0  # one model puts every target in the top k: -log p is 0 at every N, a ratio of 0 / 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warning either
        ratio, intervals = emergence.amplification(p, np.stack([p] * 5), ns)
    assert np.isnan(ratio[:, 0]).all() and np.isnan(intervals[:, 0]).all()


def test_the_windows_of_one_document_are_drawn_together():
    """Every window in one document: each replicate draws that document, all its windows, so every replicate
    gives the full text's p_{N,k}; each window its own unit, the replicates scatter."""
    rank = np.array([1, 1, 1, 5, 1, 7, 1, 1, 9, 1, 1, 1])
    window = np.repeat(np.arange(4), 3)
    one_document = emergence.window_runs(rank, window, [1, 2], [1], units=np.zeros(12, int))
    alone = emergence.window_runs(rank, window, [1, 2], [1])
    together = emergence.success_replicates([one_document], n_boot=50)
    assert np.allclose(together, one_document.success()[None, None])
    assert emergence.success_replicates([alone], n_boot=50).std(axis=0).max() > 0.05
    halves = emergence.window_runs(rank, window, [1, 2], [1], units=np.repeat([0, 1], 6))
    assert halves.units.tolist() == [0, 0, 1, 1]
    drawn = {round(float(r), 6) for r in emergence.success_replicates([halves], n_boot=200)[:, 0, 0, 0]}
    first, second = (emergence.window_runs(rank[i:i + 6], window[i:i + 6], [1], [1]).success()[0, 0] for i in (0, 6))
    assert drawn == {round(float(v), 6) for v in (first, second, (first + second) / 2)}  # whole halves only
