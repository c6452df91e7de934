"""Noise-aware comparisons of chapters A1-A3: interval sides and bands, RBP curves, rank
conventions, discordant pairs beyond noise, offset exponents on bootstrap replicates."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from rankscale import compare, fit, metrics


def test_doctests():
    assert doctest.testmod(compare).failed == 0


def test_side_and_band_handle_nan_as_undecided():
    assert compare.side((np.nan, 1.0)) == 0
    assert compare.within_band((np.nan, 1.0), (0.8, 1.25)) is None
    assert compare.within_band((0.8, 1.25), (0.8, 1.25)) is True  # the band's edges are inside


def test_rbp_curve_matches_sorted_rbp():
    rank = np.random.default_rng(0).integers(1, 300, 5000)
    ks = np.array([1, 2, 7, 50, 299, 400])
    curve = compare.rbp_curve(rank, 400)
    np.testing.assert_allclose(curve[ks], metrics.rbp(rank, ks))
    assert curve[0] == 0.0 and curve[-1] == 1.0


def test_convention_gap_is_zero_without_ties_and_large_with_many():
    rng = np.random.default_rng(1)
    gt = rng.geometric(0.5, 20_000) - 1  # half the targets first, as a trained model ranks them
    assert compare.convention_gap(gt, gt) == (0.0, 0.0)
    ge = gt + (rng.random(len(gt)) < 0.2)  # a fifth of the targets tied with one other token
    gap, in_se = compare.convention_gap(gt, ge)
    assert gap > 0.05 and in_se > 3
    few = gt + (np.arange(len(gt)) == 0)  # one tie in 20,000 targets: within the noise
    assert compare.convention_gap(gt, few)[1] <= 1


def test_resample_matches_fit_bootstrap_values():
    """Both draw each model's resample in the same order, so with the same seed they agree."""
    rng = np.random.default_rng(2)
    samples = [{"x": rng.random(n)} for n in (50, 80, 120)]
    reps = compare.resample(samples, lambda s: [s["x"].mean(), s["x"].max()], n_boot=7, seed=3)
    b = fit.bootstrap([1e3, 1e4, 1e5], samples, lambda s: [s["x"].mean(), s["x"].max()], n_boot=7, seed=3)
    np.testing.assert_allclose(reps.transpose(2, 0, 1), b.values)


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
    reps = compare.resample(samples, stats, n_boot=200)
    assert compare.discordant_pairs(values, reps) == [(0, 1), (1, 2)]  # never (0, 2): equal models


def test_offset_bootstrap_recovers_exponent_and_flags_unfittable_replicates():
    sizes = np.logspace(3, 6, 6)
    truth = 2.0 + 30.0 * sizes ** -0.4
    noise = np.random.default_rng(5).normal(0, 1e-4, (20, len(sizes)))
    reps = truth * (1 + noise)
    reps[3, 0] = -1.0  # a replicate with a non-positive value cannot be fitted
    b = compare.offset_bootstrap(sizes, truth, reps)
    assert b.point.alpha == pytest.approx(0.4, rel=1e-4)
    assert b.failed == 1 and np.isnan(b.alpha[3])
    assert np.nanmax(np.abs(b.alpha - 0.4)) < 0.05
    with pytest.raises(ValueError, match="four"):
        compare.offset_bootstrap(sizes[:3], truth[:3], reps[:, :3])  # three sizes: three parameters


def test_bootstrap_keeps_values_for_offset_fits():
    sizes = np.array([1e4, 1e5, 1e6, 1e7])
    rng = np.random.default_rng(6)
    samples = [{"loss": 1.5 + 20 * s ** -0.3 + rng.normal(0, 0.01, 400)} for s in sizes]
    b = fit.bootstrap(sizes, samples, lambda s: [s["loss"].mean()], n_boot=30)
    assert b.values.shape == (1, 30, 4)
    off = compare.offset_bootstrap(sizes, [s["loss"].mean() for s in samples], b.values[0])
    assert off.failed == 0 and off.point.alpha == pytest.approx(0.3, abs=0.1)
