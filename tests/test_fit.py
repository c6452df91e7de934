"""Power-law fits: exact recovery, bootstrap coverage, families."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import fit

SIZES = np.logspace(4, 7, 7)


def test_recovers_known_exponent_exactly():
    f = fit.fit_power_law(SIZES, 3.7 * SIZES ** -0.137)
    assert f.slope == pytest.approx(-0.137, abs=1e-12)
    assert f.intercept == pytest.approx(np.log(3.7), abs=1e-10)
    assert f.r2 == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(f.predict(SIZES), 3.7 * SIZES ** -0.137, rtol=1e-10)


def test_r2_drops_with_scatter():
    values = 2.0 * SIZES ** -0.2 * np.exp(np.array([0.3, -0.3, 0.2, -0.2, 0.3, -0.1, 0.0]))
    f = fit.fit_power_law(SIZES, values)
    lx, ly = np.log(SIZES), np.log(values)
    assert f.r2 == pytest.approx(np.corrcoef(lx, ly)[0, 1] ** 2, rel=1e-10) and f.r2 < 0.95


def neg_log_rbp1(sample):
    return -np.log(np.mean(sample["hit"]))


@pytest.mark.slow  # many bootstrap fits
def test_bootstrap_interval_covers_true_exponent():
    """-log RBP_1 = 0.9 * (S / 1e4) ** -0.3 exactly; tokens are Bernoulli hits, so the only noise
    is the finite sample that bootstrap resampling imitates."""
    alpha, covered = 0.3, 0
    p = np.exp(-0.9 * (SIZES / 1e4) ** -alpha)
    rng = np.random.default_rng(12345)
    for rep in range(100):
        samples = [{"hit": rng.random(4000) < pi} for pi in p]
        (f,) = fit.bootstrap(SIZES, samples, lambda s: [neg_log_rbp1(s)], n_boot=200, seed=rep).fits()
        covered += f.ci[0] <= -alpha <= f.ci[1]
    assert covered >= 90


def test_bootstrap_interval_shrinks_with_more_tokens():
    p = np.exp(-0.9 * (SIZES / 1e4) ** -0.3)
    rng = np.random.default_rng(0)
    widths = []
    for n in (500, 20000):
        samples = [{"hit": rng.random(n) < pi} for pi in p]
        (f,) = fit.bootstrap(SIZES, samples, lambda s: [neg_log_rbp1(s)], n_boot=200).fits()
        widths.append(f.ci[1] - f.ci[0])
    assert widths[1] < widths[0] / 3


def test_by_family_and_pooled():
    sizes = np.concatenate([SIZES, SIZES * 3])
    families = ["A"] * 7 + ["B"] * 7
    values = np.concatenate([2.0 * SIZES ** -0.1, 2.0 * (SIZES * 3) ** -0.25])
    samples = [{"v": np.full(10, v)} for v in values]
    fits = fit.fit_by_family(sizes, samples, families, lambda s: s["v"].mean(), n_boot=20)
    assert list(fits) == ["A", "B", "All"]
    assert fits["A"].slope == pytest.approx(-0.1) and fits["B"].slope == pytest.approx(-0.25)
    assert fits["All"].n_points == 14 and fits["All"].r2 < 1
    assert fits["A"].ci == pytest.approx((-0.1, -0.1))  # constant tokens: no sampling noise
    noisy = [{"v": np.random.default_rng(i).normal(v, 0.05 * v, 50)} for i, v in enumerate(values)]
    at = {level: fit.fit_by_family(sizes, noisy, families, lambda s: s["v"].mean(), n_boot=50, level=level)["B"]
          for level in (0.5, 0.95)}
    assert at[0.5].slope == at[0.95].slope and 0 < np.ptp(at[0.5].ci) < np.ptp(at[0.95].ci) / 2.5  # z 0.67 vs 1.96


@pytest.mark.parametrize("values", [[1.0, 0.0, 2.0], [1.0, -1.0, 2.0], [1.0, np.nan, 1.0]])
def test_rejects_values_that_have_no_logarithm(values):
    with pytest.raises(ValueError, match="positive and finite"):
        fit.fit_power_law([1e4, 1e5, 1e6], values)


def test_rejects_single_size():
    with pytest.raises(ValueError, match="two distinct sizes"):
        fit.fit_power_law([1e4, 1e4], [1.0, 2.0])


def test_grid_fit_matches_separate_fits_per_entry():
    """Every entry of the grid is fitted as fit_power_law would fit it alone; the interval of
    entry j is its slope -+ 1.96 standard deviations of the refits that a brute-force loop over
    the same resamples gives."""
    rng = np.random.default_rng(2)
    ranks = [np.minimum(rng.geometric(0.01 + 0.005 * i, 2000), 400) for i in range(len(SIZES))]
    ks = np.array([1, 3, 10, 30, 400])

    def neg_log_rbp(sample):
        return -np.log(np.mean(sample["rank"][:, None] <= ks, axis=0))

    samples = [{"rank": r} for r in ranks]
    fits = fit.bootstrap(SIZES, samples, neg_log_rbp, n_boot=40, seed=3).fits()
    assert fits[-1] is None  # every rank <= 400: -log RBP_400 = 0 has no logarithm
    brute_rng = np.random.default_rng(3)
    resampled = [[neg_log_rbp({"rank": r[brute_rng.integers(0, len(r), len(r))]}) for r in ranks] for _ in range(40)]
    for j, f in enumerate(fits[:-1]):
        alone = fit.fit_power_law(SIZES, [neg_log_rbp(s)[j] for s in samples])
        assert f.slope == pytest.approx(alone.slope, rel=1e-12) and f.r2 == pytest.approx(alone.r2, rel=1e-12)
        slopes = [fit.fit_power_law(SIZES, [v[j] for v in rep]).slope for rep in resampled]
        half = 1.959963984540054 * np.std(slopes)
        np.testing.assert_allclose(f.ci, [alone.slope - half, alone.slope + half], rtol=1e-10)


def test_grid_fit_leaves_out_intervals_when_a_resample_cannot_be_fitted():
    samples = [{"hit": np.r_[np.zeros(1), np.ones(999)].astype(bool)} for _ in SIZES]  # RBP = 0.999
    (f,) = fit.bootstrap(SIZES, samples, lambda s: [neg_log_rbp1(s)], n_boot=200).fits()
    assert f is not None and f.ci is None  # some resamples miss the single miss: -log RBP = 0


def test_semilog_fit_exact_and_r2():
    f = fit.fit_semilog(SIZES, 0.5 - 0.2 * np.log(SIZES))
    assert f.slope == pytest.approx(-0.2, abs=1e-12) and f.intercept == pytest.approx(0.5, abs=1e-10)
    assert f.r2 == pytest.approx(1.0, abs=1e-12)
    noisy = 0.5 - 0.2 * np.log(SIZES) + np.array([0.3, -0.3, 0.2, -0.2, 0.3, -0.1, 0.0])
    g = fit.fit_semilog(SIZES, noisy)
    assert g.r2 == pytest.approx(np.corrcoef(np.log(SIZES), noisy)[0, 1] ** 2, rel=1e-10)
    np.testing.assert_allclose(g.predict(SIZES), g.intercept + g.slope * np.log(SIZES))
    with pytest.raises(ValueError):
        fit.fit_semilog([1e4, 1e4], [1.0, 2.0])


def test_window_success_prediction_and_its_inverse():
    law = fit.PowerLawFit(slope=-0.3, intercept=np.log(2.0), r2=1.0, n_points=3)
    s = np.array([1e3, 1e6, 1e9])
    np.testing.assert_allclose(fit.predicted_window_success(law, s, 4), np.exp(-4 * 2.0 * s**-0.3))
    spans = []
    for n in (1, 2, 8, 32):
        lo, hi = (fit.size_for_window_success(law, n, p) for p in (0.1, 0.9))
        np.testing.assert_allclose(fit.predicted_window_success(law, [lo, hi], n), [0.1, 0.9], rtol=1e-10)
        spans.append(np.log10(hi / lo))
    np.testing.assert_allclose(spans, np.log10(np.log(0.9) / np.log(0.1)) / -0.3, rtol=1e-10)
    with pytest.raises(ValueError, match="does not fall"):
        fit.size_for_window_success(fit.PowerLawFit(0.1, 0.0, 1.0, 3), 2, 0.5)
    for p in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            fit.size_for_window_success(law, 2, p)


# fit_if_positive: the one guard in front of a log-log fit (fit.bootstrap and the chapters use it)
@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan])
def test_values_a_log_cannot_take_give_none_where_fit_power_law_raises(bad):
    sizes, values = [1e5, 1e6, 1e7], [3.0, bad, 1.0]
    with pytest.raises(ValueError):
        fit.fit_power_law(sizes, values)
    assert fit.fit_if_positive(sizes, values) is None


def test_fittable_values_give_fit_power_law():
    sizes, values = [1e5, 1e6, 1e7, 1e8], [3.0, 2.1, 1.4, 1.0]
    assert fit.fit_if_positive(sizes, values) == fit.fit_power_law(sizes, values)
    assert fit.fit_if_positive([1e5, 1e5, 1e6], [3.0, 2.9, 2.0]).n_points == 3  # two distinct sizes suffice
    with pytest.raises(ValueError):
        fit.fit_if_positive([1e5, 1e6], [3.0, 2.0, 1.0])  # a shape error is the caller's, not the data's


def test_bootstrap_points_use_the_guard():
    samples = [{"v": np.full(4, v)} for v in (2.0, 1.0, 0.5)]
    b = fit.bootstrap([1e4, 1e5, 1e6], samples, lambda s: [s["v"].mean(), s["v"].mean() - 1.0], n_boot=3)
    assert b.points[0] == fit.fit_if_positive([1e4, 1e5, 1e6], [2.0, 1.0, 0.5])
    assert b.points[1] is None and np.isnan(b.slopes[1]).all()  # 1.0 - 1 = 0 has no logarithm


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
