"""Power-law fits: exact recovery, bootstrap coverage, families."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale import fit

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


def test_bootstrap_interval_covers_true_exponent():
    """-log RBP_1 = 0.9 * (S / 1e4) ** -0.3 exactly; tokens are Bernoulli hits, so the only noise
    is the finite sample that bootstrap resampling imitates."""
    alpha, covered = 0.3, 0
    p = np.exp(-0.9 * (SIZES / 1e4) ** -alpha)
    rng = np.random.default_rng(12345)
    for rep in range(100):
        samples = [{"hit": rng.random(4000) < pi} for pi in p]
        f = fit.fit_with_bootstrap(SIZES, samples, neg_log_rbp1, n_boot=200, seed=rep)
        covered += f.ci[0] <= -alpha <= f.ci[1]
    assert covered >= 90


def test_bootstrap_interval_shrinks_with_more_tokens():
    p = np.exp(-0.9 * (SIZES / 1e4) ** -0.3)
    rng = np.random.default_rng(0)
    widths = []
    for n in (500, 20000):
        f = fit.fit_with_bootstrap(SIZES, [{"hit": rng.random(n) < pi} for pi in p], neg_log_rbp1, n_boot=200)
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


@pytest.mark.parametrize("values", [[1.0, 0.0, 2.0], [1.0, -1.0, 2.0], [1.0, np.nan, 1.0]])
def test_rejects_values_that_have_no_logarithm(values):
    with pytest.raises(ValueError, match="positive and finite"):
        fit.fit_power_law([1e4, 1e5, 1e6], values)


def test_rejects_single_size():
    with pytest.raises(ValueError, match="two distinct sizes"):
        fit.fit_power_law([1e4, 1e4], [1.0, 2.0])
