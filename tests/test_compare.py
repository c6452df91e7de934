"""Comparisons of chapters A1-A3: RBP curves, rank conventions, greedy outcomes in probability
bands, discordant pairs beyond noise, falling power laws, offset exponents on bootstrap replicates."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import bootstrap, fit, metrics, rank_models


def test_rbp_curve_matches_sorted_rbp():
    rank = np.random.default_rng(0).integers(1, 300, 5000)
    ks = np.array([1, 2, 7, 50, 299, 400])
    curve = metrics.rbp_curve(rank, 400)
    np.testing.assert_allclose(curve[ks], metrics.rbp(rank, ks))
    assert curve[0] == 0.0 and curve[-1] == 1.0


def test_neg_log_rbp_matches_metrics_and_marks_unfittable_k():
    rank = np.random.default_rng(7).integers(1, 50, 2000)
    ks = [1, 5, 30]
    np.testing.assert_allclose(metrics.neg_log_rbp(rank, ks), -np.log(metrics.rbp(rank, ks)))
    edge = metrics.neg_log_rbp(np.array([2, 3, 3]), [1, 3])
    assert edge[0] == np.inf and edge[1] == 0  # neither has a logarithm, so no size fit uses them
    assert fit.fit_if_positive([1e3, 1e4, 1e5], [1.0, 0.5, edge[1]]) is None


def test_convention_gap_is_zero_without_ties_and_large_with_many():
    rng = np.random.default_rng(1)
    gt = rng.geometric(0.5, 20_000) - 1  # half the targets first, as a trained model ranks them
    assert metrics.convention_gap(gt, gt) == (0.0, 0.0)
    ge = gt + (rng.random(len(gt)) < 0.2)  # a fifth of the targets tied with one other token
    gap, in_se = metrics.convention_gap(gt, ge)
    assert gap > 0.05 and in_se > 3
    few = gt + (np.arange(len(gt)) == 0)  # one tie in 20,000 targets: within the noise
    assert metrics.convention_gap(gt, few)[1] <= 1


def test_both_outcomes_counts_bands_of_ranked_targets():
    rng = np.random.default_rng(3)
    rank = np.where(rng.random(1000) < 0.3, 1, rng.integers(2, 20, 1000))  # 30% first, the rest below
    logp = np.log(rng.choice([0.01, 0.1], 1000))
    edges = [0.009, 0.011, 0.09, 0.11]  # two bands, every target in one of them

    def bands(r):
        counts = rank_models.rank_counts_by_probability(logp, r, edges, max_rank=10)[::2]
        return counts[:, 0], counts.sum(axis=1)

    assert metrics.both_outcomes(*bands(rank), 30, 0.05) == (2, 2)
    assert metrics.both_outcomes(*bands(np.ones_like(rank)), 30, 0.05) == (2, 0)  # greedy never misses
    assert metrics.both_outcomes(*bands(rank), 10_000, 0.05) == (0, 0)  # no band holds enough targets
    assert metrics.both_outcomes(*bands(rank), 30, 0.35) == (2, 0)  # 30% at rank 1 is below a 35% share


def test_discordant_pairs_need_both_differences_beyond_noise():
    rng = np.random.default_rng(4)
    n = 20_000
    # model 0: better p_A, worse top-1; model 1 the opposite, clearly; model 2 a noisy copy of 0
    hits = [rng.random(n) < p for p in (0.30, 0.40, 0.30)]
    prob = [rng.beta(a, 5, n) for a in (3.0, 2.0, 3.0)]
    samples = [{"p": p, "hit": h} for p, h in zip(prob, hits)]

    def stats(s):
        return [s["p"].mean(), s["hit"].mean()]

    values = np.array([stats(s) for s in samples])
    reps = bootstrap.resample(samples, stats, n_boot=200)
    assert bootstrap.discordant_pairs(values, reps) == [(0, 1), (1, 2)]  # never (0, 2): equal models
    with pytest.raises(ValueError, match="replicates"):
        bootstrap.discordant_pairs(values, reps[:, :2])


def test_discordant_pairs_centres_intervals_on_the_measured_difference():
    """Replicates shifted away from the measured values (as plug-in estimates can be) must not
    move the interval: it is the measured difference -+ z SD, not a percentile range."""
    values = np.array([[0.30, 0.50], [0.20, 0.60]])
    rng = np.random.default_rng(8)
    reps = values + rng.normal(0, 0.001, (100, 2, 2))
    reps[:, 0, 0] -= 0.2  # the replicates of result 0's metric 0 all sit far below its value
    assert bootstrap.discordant_pairs(values, reps) == [(0, 1)]


def test_falling_law_on_noisy_and_rising_series():
    sizes = np.logspace(6, 9, 5)
    rng = np.random.default_rng(9)
    assert fit.falling_law(fit.fit_power_law(sizes, 3 * sizes ** -0.1), 0.97) is True
    noisy = 3 * sizes ** -0.01 * np.exp(rng.normal(0, 0.2, 5))
    assert fit.falling_law(fit.fit_power_law(sizes, noisy), 0.9) is False
    assert fit.falling_law(fit.fit_if_positive(sizes, np.r_[1.0, 0.0, 1.0, 1.0, 1.0]), 0.9) is None


def test_offset_bootstrap_recovers_exponent_and_flags_unfittable_replicates():
    sizes = np.logspace(3, 6, 6)
    truth = 2.0 + 30.0 * sizes ** -0.4
    noise = np.random.default_rng(5).normal(0, 1e-4, (20, len(sizes)))
    reps = truth * (1 + noise)
    reps[3, 0] = -1.0  # a replicate with a non-positive value cannot be fitted
    b = fit.offset_bootstrap(sizes, truth, reps)
    assert b.point.alpha == pytest.approx(0.4, rel=1e-4)
    assert b.failed == 1 and np.isnan(b.alpha[3])
    assert np.nanmax(np.abs(b.alpha - 0.4)) < 0.05
    with pytest.raises(ValueError, match="four"):
        fit.offset_bootstrap(sizes[:3], truth[:3], reps[:, :3])  # three sizes: three parameters


def test_bootstrap_keeps_values_for_offset_fits():
    sizes = np.array([1e4, 1e5, 1e6, 1e7])
    rng = np.random.default_rng(6)
    samples = [{"loss": 1.5 + 20 * s ** -0.3 + rng.normal(0, 0.01, 400)} for s in sizes]
    b = fit.bootstrap(sizes, samples, lambda s: [s["loss"].mean()], n_boot=30)
    assert b.values.shape == (1, 30, 4)
    off = fit.offset_bootstrap(sizes, [s["loss"].mean() for s in samples], b.values[0])
    assert off.failed == 0 and off.point.alpha == pytest.approx(0.3, abs=0.1)
