"""Chapter B5's sample-size analysis: subsampled decompositions, the error against tokens, and
how many tokens a figure needs, against brute force."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import random_records

from rankscale.analysis import metrics as m
from rankscale.analysis import sample_size
from rankscale.analysis.components import QUANTITIES


def test_subsampled_decompositions_brute_force():
    logp, gt, _, window = random_records(5, n=3000)
    window = window * 7 + 3  # ids need not start at 0 or be consecutive
    grid = [100, 1000, 2999, 10_000]
    out = sample_size.subsampled_decompositions(logp, gt, window, grid, n_repeats=3, seed=11)
    rng = np.random.default_rng(11)
    ids = np.unique(window)
    for r in range(3):
        order = ids[rng.permutation(len(ids))]
        for i, n in enumerate(grid):
            chosen = []
            for w in order:
                chosen.append(w)
                if np.isin(window, chosen).sum() >= n:
                    break
            mask = np.isin(window, chosen)
            d = m.ce_decomposition(logp[mask], gt[mask])
            assert out["n_tokens"][i, r] == mask.sum()
            assert out["CE"][i, r] == pytest.approx(d.ce, rel=1e-12)
            assert out["EE"][i, r] == pytest.approx(d.error_entropy, rel=1e-12)
            assert out["SA"][i, r] == pytest.approx(d.self_alignment, rel=1e-9)
            assert out["Conf"][i, r] == pytest.approx(d.confidence, rel=1e-12)
            assert out["ranks_seen"][i, r] == len(np.unique(gt[mask]))
            assert out["ranks_seen_once"][i, r] == sum(c == 1 for c in Counter(gt[mask].tolist()).values())
    # every window taken: identical to the full decomposition in every repeat
    full = m.ce_decomposition(logp, gt)
    np.testing.assert_allclose(out["SA"][-1], full.self_alignment, rtol=1e-9)
    assert np.all(out["n_tokens"][-1] == len(logp))


def test_subsampled_decompositions_by_windows():
    logp, gt, _, window = random_records(6, n=3000)
    ids = np.unique(window)
    grid = [1, 5, len(ids), len(ids) + 10]
    out = sample_size.subsampled_decompositions(logp, gt, window, grid, n_repeats=3, seed=4, unit="windows")
    by_tokens = sample_size.subsampled_decompositions(logp, gt, window, [100], n_repeats=3, seed=4)
    rng = np.random.default_rng(4)
    for r in range(3):
        order = ids[rng.permutation(len(ids))]
        for i, n in enumerate(grid):
            mask = np.isin(window, order[:n])
            assert out["n_windows"][i, r] == min(n, len(ids))
            assert out["n_tokens"][i, r] == mask.sum()
            assert out["SA"][i, r] == pytest.approx(m.ce_decomposition(logp[mask], gt[mask]).self_alignment,
                                                    rel=1e-9)
    assert np.all(out["n_tokens"][-1] == len(logp)) and np.all(out["n_tokens"][-2] == len(logp))
    assert by_tokens["n_windows"].shape == (1, 3) and np.all(by_tokens["n_windows"] >= 1)
    with pytest.raises(ValueError, match="unit"):
        sample_size.subsampled_decompositions(logp, gt, window, grid, unit="documents")


def test_token_grid_windows_and_mean_interval():
    grid = sample_size.token_grid(20_000, 1000, 8)
    assert grid[0] == 1000 and grid[-1] == 20_000 and len(grid) == 8 and np.all(np.diff(grid) > 0)
    assert sample_size.token_grid(500, 1000, 8).tolist() == [500]  # fewer tokens than the smallest count
    with pytest.raises(ValueError):
        sample_size.token_grid(100, 10, 1)
    assert sample_size.n_windows(np.array([3, 3, 9, 1])) == 3
    rng = np.random.default_rng(0)
    values = rng.normal(2.0, 1.0, (4, 400))
    lo, hi = sample_size.mean_interval(values)
    half = 1.959964 * values.std(axis=1, ddof=1) / np.sqrt(400)
    np.testing.assert_allclose(lo, values.mean(axis=1) - half, rtol=1e-6)
    np.testing.assert_allclose(hi, values.mean(axis=1) + half, rtol=1e-6)
    assert np.all((lo < 2.0) & (hi > 2.0))  # the true mean, here in every one of four intervals


def test_sample_size_error_brute_force_and_bias_decay():
    rng = np.random.default_rng(3)
    grid = np.array([1000, 1500, 2000, 3000, 4000, 8000])
    values = 2.0 + 50.0 / grid[:, None] + rng.normal(0, 0.001, (len(grid), 5))
    means = values.mean(axis=1)
    err = sample_size.sample_size_error(grid, values)
    assert np.isnan(err[0]) and np.isnan(err[1])  # 500 and 750 lie below the grid
    # n / 2 on the grid: 2000 -> 1000, 3000 -> 1500, 4000 -> 2000, 8000 -> 4000
    for i, j in ((2, 0), (3, 1), (4, 2), (5, 4)):
        sd = np.sqrt(np.mean((values[i] - means[i]) ** 2))
        assert err[i] == pytest.approx(np.sqrt(sd ** 2 + (means[i] - means[j]) ** 2), rel=1e-9)
    # n / 2 between grid points: 1250 lies between 1000 and 1500, interpolated in log n
    w = np.log(1250 / 1000) / np.log(1500 / 1000)
    half = means[0] + w * (means[1] - means[0])
    assert sample_size.sample_size_error([1000, 1500, 2500], values[[0, 1, 2]])[2] == pytest.approx(
        np.hypot(np.sqrt(np.mean((values[2] - means[2]) ** 2)), means[2] - half), rel=1e-9)
    # a bias b / n: where n / 2 is on the grid, the drift over a doubling is the bias left at n
    exact = 2.0 + 50.0 / grid[:, None] * np.ones((1, 3))
    assert sample_size.sample_size_error(grid, exact)[2] == pytest.approx(50.0 / 2000, rel=1e-12)
    assert sample_size.sample_size_error(grid, exact)[-1] == pytest.approx(50.0 / 8000, rel=1e-12)
    with pytest.raises(ValueError):
        sample_size.sample_size_error(grid[::-1], values)


def test_tokens_needed():
    grid = np.array([1000, 2000, 4000, 8000, 16000])
    exact = 2.0 + 50.0 / grid[:, None] * np.ones((1, 3))  # error at n is 50 / n from 2000 on
    assert sample_size.tokens_needed(grid, exact, 0.02) == 4000
    assert sample_size.tokens_needed(grid, exact, 0.03) == 2000
    assert np.isnan(sample_size.tokens_needed(grid, exact, 0.001))
    noisy = exact.copy()
    noisy[3] += [0.1, -0.1, 0.0]  # a spread at 8000 breaks the run that started at 4000
    assert sample_size.tokens_needed(grid, noisy, 0.02) == 16000
    for tol in (0.005, 0.013, 0.02, 0.05, 1.0):
        err = sample_size.sample_size_error(grid, noisy)
        ok = [all(e <= tol for e in err[i:]) for i in range(len(grid))]
        expected = grid[ok.index(True)] if any(ok) else np.nan
        np.testing.assert_equal(sample_size.tokens_needed(grid, noisy, tol), expected)


def drifting(exponents, drifts):
    """Two models (sizes 1e4 and 1e5) on a grid of two counts, one repeat each, whose size exponent of each quantity
    is ``exponents`` on every token (the larger count) and that less ``drifts`` on half of them: the drift over the
    last doubling is ``drifts`` exactly. Returns the sizes, the subsamples and the quantities on all tokens."""
    exponents, drifts = np.asarray(exponents, float), np.asarray(drifts, float)
    small = np.ones(4)  # every quantity 1 at the smaller size, so the exponent is log10 of the larger's value
    larger = {500: 10.0 ** (exponents - drifts), 1000: 10.0 ** exponents}
    subs = [{"n_tokens": np.array([[500.0], [1000.0]]),
             **{q: np.array([[v[i]] for v in values]) for i, q in enumerate(QUANTITIES)}}
            for values in ([small, small], [larger[500], larger[1000]])]
    return [1e4, 1e5], subs, np.array([small, larger[1000]])


@pytest.mark.parametrize("conf, conf_drift, converged", [
    (-0.06, 0.004, True),  # 7% of itself, twice a tenth of |alpha_CE|: the drift allowed is its own tenth
    (-0.06, 0.007, False),  # 12% of itself
    (0.0005, 0.0001, True),  # near zero: 20% of itself, within a tenth of 0.1 * |alpha_CE| = 0.0002
    (0.0005, 0.0003, False),  # near zero, beyond that floor
    (-0.01, 0.0009, True),  # half CE's exponent, above the floor: a tenth of itself, 0.001
    (-0.01, 0.0011, False),
])
def test_exponent_convergence_allows_each_exponent_a_tenth_of_itself_and_no_less_than_of_the_floor(
        conf, conf_drift, converged):
    sizes, subs, full = drifting([-0.02, -0.021, 0.03, conf], [0.0, 0.001, 0.0, conf_drift])
    conv = sample_size.exponent_convergence(sizes, subs, full, tolerance=0.1, floor=0.1)
    assert conv["Conf"].full == pytest.approx(conf) and conv["Conf"].error == pytest.approx(conf_drift)
    assert conv["Conf"].tolerance == pytest.approx(0.1 * max(abs(conf), 0.1 * 0.02))
    assert conv["Conf"].converged is converged
    assert np.isnan(conv["Conf"].needed) is not converged, "a drift beyond the allowance needs more tokens"
    assert conv["EE"].converged and conv["EE"].tolerance == pytest.approx(0.0021), "EE: a tenth of its own 0.021"


def test_an_exponent_of_zero_in_a_group_whose_loss_does_not_scale_is_allowed_no_drift():
    sizes, subs, full = drifting([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1e-4])
    conv = sample_size.exponent_convergence(sizes, subs, full, tolerance=0.1, floor=0.1)
    assert [conv[q].tolerance for q in QUANTITIES] == [0.0] * 4
    assert conv["CE"].converged and not conv["Conf"].converged
    assert np.isnan(sample_size.allowed_drift([np.nan, 0.1, 0.0, 0.0], 0.1, 0.1)).all(), "no CE exponent, no scale"
