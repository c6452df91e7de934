"""Metrics against brute-force versions and exact identities."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from rankscale import metrics as m


def random_records(seed: int, n: int = 5000, vocab: int = 300):
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.lognormal(1.0, 1.5, n).astype(np.int64), vocab - 1)
    ge = gt + rng.binomial(1, 0.1, n) * rng.integers(1, 4, n)
    logp = -rng.gamma(2.0, 1.0, n) - 0.2 * np.log1p(gt)
    window = np.sort(rng.integers(0, 40, n))
    return logp, gt, ge, window


@pytest.mark.parametrize("seed", range(5))
def test_decomposition_identity_on_random_data(seed):
    """CE = EE + SA - Conf (paper B, eq. 8), each term computed on its own (the one place the
    identity is asserted; the terms themselves are checked against brute force below)."""
    logp, gt, _, _ = random_records(seed)
    d = m.ce_decomposition(logp, gt)
    assert abs(-logp.astype(np.float64).mean() - (d.error_entropy + d.self_alignment - d.confidence)) < 1e-9


def test_decomposition_matches_brute_force():
    logp, gt, _, _ = random_records(7, n=800)
    groups = defaultdict(list)
    for lp, e in zip(logp, gt):
        groups[int(e)].append(float(lp))
    es = sorted(groups)
    p = np.array([len(groups[e]) / len(logp) for e in es])
    Q = np.array([np.prod(np.exp(groups[e])) ** (1 / len(groups[e])) for e in es])
    C = Q.sum()
    q = Q / C
    d = m.ce_decomposition(logp, gt)
    np.testing.assert_array_equal(d.e, es)
    np.testing.assert_allclose(d.p_e, p)
    np.testing.assert_allclose(d.q_e, q, rtol=1e-10)
    np.testing.assert_allclose(d.log_C, np.log(C), rtol=1e-12)
    assert d.error_entropy == pytest.approx(-np.sum(p * np.log(p)), rel=1e-12)
    assert d.self_alignment == pytest.approx(np.sum(p * np.log(p / q)), rel=1e-9)


def test_rbp_equals_mean_indicator_for_every_k():
    _, gt, ge, _ = random_records(1)
    for ties in ("ge", "gt"):
        rank = m.rank_1based(gt, ge, ties)
        ks = np.arange(1, rank.max() + 2)
        expected = [np.mean(rank <= k) for k in ks]
        np.testing.assert_array_equal(m.rbp(rank, ks), expected)


def test_k_grid_per_vocabulary():
    grid = m.k_grid(4096, 25, extra=[1, 10, 100, 500, 2500, 10000])
    assert grid[0] == 1 and grid[-1] == 4096 and np.all(np.diff(grid) > 0)
    assert {10, 100, 500, 2500} <= set(grid.tolist()) and 10000 not in grid
    assert 20 <= len(m.k_grid(50_257, 25)) <= 25  # log-spaced: only the smallest values coincide after rounding
    assert m.k_grid(1, 5).tolist() == [1]
    with pytest.raises(ValueError):
        m.k_grid(0, 5)


def test_discordant_pairs_matches_brute_force():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.1, 1.0, 40), rng.uniform(0.1, 1.0, 40)
    for margin in (0.0, 0.1, 0.5):
        brute = sum(1 for i in range(40) for j in range(i + 1, 40)
                    if (a[i] > (1 + margin) * a[j] and b[j] > (1 + margin) * b[i])
                    or (a[j] > (1 + margin) * a[i] and b[i] > (1 + margin) * b[j]))
        assert m.discordant_pairs(a, b, margin) == brute
    assert m.discordant_pairs(a, 2 * a) == 0  # one metric a monotone function of the other
    assert m.discordant_pairs([0.5], [0.5]) == 0
    with pytest.raises(ValueError):
        m.discordant_pairs([0.1, 0.2], [0.1])


def test_rank_conventions():
    gt, ge = np.array([0, 2, 5]), np.array([0, 4, 5])
    np.testing.assert_array_equal(m.rank_1based(gt, ge), [1, 5, 6])       # paper A, eq. 3
    np.testing.assert_array_equal(m.rank_1based(gt, ge, "gt"), [1, 3, 6])  # paper A's code
    with pytest.raises(ValueError):
        m.rank_1based(gt, ge, "mean")


@pytest.mark.parametrize("n", [1, 2, 5, 17])
def test_window_success_matches_brute_force(n):
    _, gt, ge, window = random_records(3, n=3000)
    rank = m.rank_1based(gt, ge)
    ks = [1, 3, 10, 100]
    expected = []
    for k in ks:
        ok = total = 0
        for w in np.unique(window):
            r = rank[window == w]
            for s in range(len(r) - n + 1):
                total += 1
                ok += all(r[s:s + n] <= k)
        expected.append(ok / total)
    np.testing.assert_allclose(m.window_success(rank, window, n, ks), expected, rtol=0, atol=1e-15)


def test_window_success_needs_long_enough_windows():
    with pytest.raises(ValueError, match="no window holds 3"):
        m.window_success(np.array([1, 1, 1, 1]), np.array([0, 0, 1, 1]), 3, 1)


def test_rank_histogram_counts():
    rank = m.rank_1based(*random_records(2)[1:3])
    hist = m.rank_histogram(rank, vocab_size=400)
    assert len(hist) == 401 and hist[0] == 0
    assert dict((r, c) for r, c in enumerate(hist) if c) == Counter(rank.tolist())
    with pytest.raises(ValueError, match="1-based"):
        m.rank_histogram(np.array([0, 1]))


def test_summary_fields():
    logp, gt, ge, _ = random_records(4)
    s = m.summary(logp, gt, ge)
    assert list(s) == ["n_tokens", "CE", "RBP_1", "RBP_10", "RBP_100", "RBP_1000", "EE", "SA", "Conf"]
    assert s["RBP_1"] == np.mean(ge == 0) and s["RBP_10"] == np.mean(ge < 10)


def test_decomposition_properties_and_input_checks():
    logp, gt, _, _ = random_records(8)
    d = m.ce_decomposition(logp, gt)
    np.testing.assert_allclose(np.exp(d.log_Q_e).sum(), np.exp(d.log_C), rtol=1e-12)
    # each target's probability is at most 1 / (e + 1) when e tokens score strictly higher
    logp_valid = np.minimum(logp, -np.log1p(gt))
    assert np.all(m.ce_decomposition(logp_valid, gt).log_Q_e <= -np.log1p(d.e) + 1e-12)
    with pytest.raises(ValueError):
        m.ce_decomposition(logp, gt[:-1])
    with pytest.raises(ValueError):
        m.ce_decomposition(logp[:3], np.array([0, -1, 2]))


@pytest.mark.parametrize("seed", range(3))
def test_ce_shares_sum_to_one_and_match_definitions(seed):
    logp, gt, _, _ = random_records(seed)
    d = m.ce_decomposition(logp, gt)
    signed = m.ce_shares(d.error_entropy, d.self_alignment, d.confidence)
    assert sum(signed.values()) == pytest.approx(1.0, abs=1e-12)
    assert signed["EE"] == pytest.approx(d.error_entropy / d.ce, rel=1e-12)
    assert signed["Conf"] == pytest.approx(-d.confidence / d.ce, rel=1e-12)
    plain = m.ce_shares(d.error_entropy, d.self_alignment, d.confidence, signed=False)
    total = abs(d.error_entropy) + abs(d.self_alignment) + abs(d.confidence)
    assert plain["Conf"] == pytest.approx(abs(d.confidence) / total, rel=1e-12)
    assert sum(plain.values()) == pytest.approx(1.0, abs=1e-12) and all(v >= 0 for v in plain.values())
    arrays = m.ce_shares(np.array([3.0, 2.0]), np.array([0.5, 0.4]), np.array([0.2, -0.1]))
    np.testing.assert_allclose(arrays["EE"], [3.0 / 3.3, 2.0 / 2.5])


def test_ce_exponent_from_components_matches_numerical_derivative():
    # EE scales, SA grows slowly, Conf is a positive constant plus a scaling part
    def terms(n):
        return 6.0 * n ** -0.08, 0.05 * n ** 0.03, 0.1 + 0.02 * n ** 0.05

    for n in (1e4, 1e6, 1e9):
        ee, sa, conf = terms(n)
        shares = m.ce_shares(ee, sa, conf)
        h = 1e-6
        exponents = {}
        for name, lo, hi in zip(m.COMPONENTS, terms(n * np.exp(-h)), terms(n * np.exp(h))):
            exponents[name] = (np.log(abs(hi)) - np.log(abs(lo))) / (2 * h)
        ce = lambda x: terms(x)[0] + terms(x)[1] - terms(x)[2]  # noqa: E731
        expected = (np.log(ce(n * np.exp(h))) - np.log(ce(n * np.exp(-h)))) / (2 * h)
        assert m.ce_exponent_from_components(shares, exponents) == pytest.approx(expected, rel=1e-6)


def test_local_log_slopes_brute_force_and_power_law():
    sizes = np.array([1e3, 1e4, 3e4, 1e6])
    mids, slopes = m.local_log_slopes(sizes, 5.0 * sizes ** -0.3)
    np.testing.assert_allclose(slopes, -0.3, rtol=1e-12)
    values = np.array([5.0, 4.0, 3.9, 3.0])
    mids, slopes = m.local_log_slopes(sizes, values)
    for i in range(3):
        assert mids[i] == pytest.approx(np.sqrt(sizes[i] * sizes[i + 1]))
        assert slopes[i] == pytest.approx(np.log(values[i + 1] / values[i]) / np.log(sizes[i + 1] / sizes[i]))
    with pytest.raises(ValueError):
        m.local_log_slopes(sizes[::-1], values)
    with pytest.raises(ValueError):
        m.local_log_slopes(sizes, -values)


def test_top_rank_probs_brute_force():
    rng = np.random.default_rng(0)
    n, k = 400, 8
    top = np.sort(np.log(rng.dirichlet(np.ones(50), n))[:, :k], axis=1)[:, ::-1]
    rbe = rng.integers(0, 6, n)
    for e in range(6):
        rows = [np.exp(top[i]) for i in range(n) if rbe[i] == e]
        np.testing.assert_allclose(m.top_rank_probs(top, rbe, e), np.mean(rows, axis=0), rtol=1e-12)
    padded = np.concatenate([top[:, :2], np.full((n, 1), -np.inf)], axis=1)
    assert np.all(m.top_rank_probs(padded, rbe, 0)[2] == 0)
    with pytest.raises(ValueError, match="no target has RBE 9"):
        m.top_rank_probs(top, rbe, 9)


def test_subsampled_decompositions_brute_force():
    logp, gt, _, window = random_records(5, n=3000)
    window = window * 7 + 3  # ids need not start at 0 or be consecutive
    grid = [100, 1000, 2999, 10_000]
    out = m.subsampled_decompositions(logp, gt, window, grid, n_repeats=3, seed=11)
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
    out = m.subsampled_decompositions(logp, gt, window, grid, n_repeats=3, seed=4, unit="windows")
    by_tokens = m.subsampled_decompositions(logp, gt, window, [100], n_repeats=3, seed=4)
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
        m.subsampled_decompositions(logp, gt, window, grid, unit="documents")


def test_token_grid_windows_and_mean_interval():
    grid = m.token_grid(20_000, 1000, 8)
    assert grid[0] == 1000 and grid[-1] == 20_000 and len(grid) == 8 and np.all(np.diff(grid) > 0)
    assert m.token_grid(500, 1000, 8).tolist() == [500]  # fewer tokens than the smallest count
    with pytest.raises(ValueError):
        m.token_grid(100, 10, 1)
    assert m.n_windows(np.array([3, 3, 9, 1])) == 3
    rng = np.random.default_rng(0)
    values = rng.normal(2.0, 1.0, (4, 400))
    lo, hi = m.mean_interval(values)
    half = 1.959964 * values.std(axis=1, ddof=1) / np.sqrt(400)
    np.testing.assert_allclose(lo, values.mean(axis=1) - half, rtol=1e-6)
    np.testing.assert_allclose(hi, values.mean(axis=1) + half, rtol=1e-6)
    assert np.all((lo < 2.0) & (hi > 2.0))  # the true mean, here in every one of four intervals


def test_sample_size_error_brute_force_and_bias_decay():
    rng = np.random.default_rng(3)
    grid = np.array([1000, 1500, 2000, 3000, 4000, 8000])
    values = 2.0 + 50.0 / grid[:, None] + rng.normal(0, 0.001, (len(grid), 5))
    means = values.mean(axis=1)
    err = m.sample_size_error(grid, values)
    assert np.isnan(err[0]) and np.isnan(err[1])  # 500 and 750 lie below the grid
    # n / 2 on the grid: 2000 -> 1000, 3000 -> 1500, 4000 -> 2000, 8000 -> 4000
    for i, j in ((2, 0), (3, 1), (4, 2), (5, 4)):
        sd = np.sqrt(np.mean((values[i] - means[i]) ** 2))
        assert err[i] == pytest.approx(np.sqrt(sd ** 2 + (means[i] - means[j]) ** 2), rel=1e-9)
    # n / 2 between grid points: 1250 lies between 1000 and 1500, interpolated in log n
    w = np.log(1250 / 1000) / np.log(1500 / 1000)
    half = means[0] + w * (means[1] - means[0])
    assert m.sample_size_error([1000, 1500, 2500], values[[0, 1, 2]])[2] == pytest.approx(
        np.hypot(np.sqrt(np.mean((values[2] - means[2]) ** 2)), means[2] - half), rel=1e-9)
    # a bias b / n: where n / 2 is on the grid, the drift over a doubling is the bias left at n
    exact = 2.0 + 50.0 / grid[:, None] * np.ones((1, 3))
    assert m.sample_size_error(grid, exact)[2] == pytest.approx(50.0 / 2000, rel=1e-12)
    assert m.sample_size_error(grid, exact)[-1] == pytest.approx(50.0 / 8000, rel=1e-12)
    with pytest.raises(ValueError):
        m.sample_size_error(grid[::-1], values)


def test_tokens_needed():
    grid = np.array([1000, 2000, 4000, 8000, 16000])
    exact = 2.0 + 50.0 / grid[:, None] * np.ones((1, 3))  # error at n is 50 / n from 2000 on
    assert m.tokens_needed(grid, exact, 0.02) == 4000
    assert m.tokens_needed(grid, exact, 0.03) == 2000
    assert np.isnan(m.tokens_needed(grid, exact, 0.001))
    noisy = exact.copy()
    noisy[3] += [0.1, -0.1, 0.0]  # a spread at 8000 breaks the run that started at 4000
    assert m.tokens_needed(grid, noisy, 0.02) == 16000
    for tol in (0.005, 0.013, 0.02, 0.05, 1.0):
        err = m.sample_size_error(grid, noisy)
        ok = [all(e <= tol for e in err[i:]) for i in range(len(grid))]
        expected = grid[ok.index(True)] if any(ok) else np.nan
        np.testing.assert_equal(m.tokens_needed(grid, noisy, tol), expected)


def test_sharpest_drop():
    assert m.sharpest_drop([0.3, 0.25, 0.2, 0.02, 0.015]) == 3
    assert m.sharpest_drop([0.5, 0.1, 0.05, 0.04]) == 1  # halving after 0.1 is less than / 5 after 0.5
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = np.sort(rng.random(8))[::-1] + 1e-3
        ratios = [p[j] / p[j + 1] for j in range(7)]
        assert m.sharpest_drop(p) == ratios.index(max(ratios)) + 1
    with pytest.raises(ValueError):
        m.sharpest_drop([0.5, 0.0])


def test_mean_target_probability_is_the_mean_of_exp_logp():
    rng = np.random.default_rng(5)
    logp = np.log(rng.random(1000)).astype(np.float32)
    brute = sum(np.exp(float(v)) for v in logp) / len(logp)
    assert m.mean_target_probability(logp) == pytest.approx(brute, rel=1e-12)
    # p_A is not exp(-CE): by Jensen's inequality the mean probability is at least the geometric mean
    assert m.mean_target_probability(logp) > np.exp(-m.cross_entropy(logp))
