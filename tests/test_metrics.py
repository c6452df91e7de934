"""Metrics against brute-force versions and exact identities."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from helpers import random_records, window_success

from rankscale.analysis import fit, metrics, rank_models
from rankscale.analysis import metrics as m


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
    np.testing.assert_allclose(window_success(rank, window, n, ks), expected, rtol=0, atol=1e-15)


def test_window_success_needs_long_enough_windows():
    with pytest.raises(ValueError, match="no window holds 3"):
        window_success(np.array([1, 1, 1, 1]), np.array([0, 0, 1, 1]), 3, 1)


def test_summary_fields():
    logp, gt, ge, _ = random_records(4)
    s = m.summary({"logp": logp, "gt": gt, "ge": ge})
    assert list(s) == ["ce_nats", "bits_per_byte", "byte_perplexity", "word_perplexity", "rbp_1", "rbp_10", "rbp_100",
                       "rbp_1000", "ee_nats", "sa_nats", "conf_nats"]
    assert s["rbp_1"] == np.mean(ge == 0) and s["rbp_10"] == np.mean(ge < 10)
    assert s["bits_per_byte"] is s["byte_perplexity"] is s["word_perplexity"] is None  # records without bytes


def test_bytes_and_words_metrics_match_their_definitions():
    """Bits per byte and byte and word perplexity token by token, in plain Python, as lm-evaluation-harness
    defines them: one sum of -log p over the scored tokens, divided by their bytes or words."""
    logp, gt, ge, _ = random_records(5, n=300)
    rng = np.random.default_rng(5)
    n_bytes, n_words = rng.integers(1, 7, len(logp)), rng.integers(0, 2, len(logp))
    s = m.summary({"logp": logp, "gt": gt, "ge": ge, "n_bytes": n_bytes, "n_words": n_words})
    nll, total_bytes, total_words = 0.0, 0, 0
    for lp, b, w in zip(logp.tolist(), n_bytes.tolist(), n_words.tolist()):
        nll, total_bytes, total_words = nll - lp, total_bytes + b, total_words + w
    assert s["bits_per_byte"] == pytest.approx(nll / total_bytes / np.log(2), rel=1e-12)
    assert s["byte_perplexity"] == pytest.approx(2 ** (nll / total_bytes / np.log(2)), rel=1e-12)
    assert s["word_perplexity"] == pytest.approx(np.exp(nll / total_words), rel=1e-12)
    assert s["ce_nats"] == pytest.approx(nll / len(logp), rel=1e-12)
    no_words = m.summary({"logp": logp, "gt": gt, "ge": ge, "n_bytes": n_bytes, "n_words": np.zeros_like(n_words)})
    assert no_words["word_perplexity"] is None and no_words["bits_per_byte"] == s["bits_per_byte"]


def test_standard_errors_are_the_spread_over_whole_documents():
    """The bootstrap's standard error of a ratio over documents against its closed form (the delta method,
    sqrt(sum_d (a_d - r b_d)^2) / sum_d b_d for r = sum a / sum b), on documents whose tokens share a loss
    offset: an error over single tokens would be several times smaller, and is not what is reported."""
    rng = np.random.default_rng(0)
    n_windows, size = 200, 30
    window = np.repeat(np.arange(n_windows), size)
    logp = -(rng.gamma(4.0, 0.5, n_windows)[window] + rng.exponential(0.3, len(window)))  # a level per window
    gt = np.minimum(rng.geometric(np.exp(logp / 4)) - 1, 500)
    n_bytes, n_words = rng.integers(1, 9, len(window)), rng.integers(0, 2, len(window))
    sample = {"logp": logp, "gt": gt, "ge": gt, "document": window, "n_bytes": n_bytes, "n_words": n_words}
    values = m.summary_with_errors(sample, ks=[1, 10], n_boot=2000, seed=1)

    def delta_method(per_token, denominator):
        a = np.bincount(window, per_token)
        b = np.bincount(window, denominator)
        r = a.sum() / b.sum()
        return r, np.sqrt(((a - r * b) ** 2).sum()) / b.sum()

    ones = np.ones(len(window))
    checks = {"ce_nats": delta_method(-logp, ones), "rbp_1": delta_method(gt < 1, ones),
              "rbp_10": delta_method(gt < 10, ones),
              "bits_per_byte": tuple(v / np.log(2) for v in delta_method(-logp, n_bytes))}
    for name, (value, se) in checks.items():
        assert values[name] == pytest.approx(value, rel=1e-9)
        assert values[f"{name}_se"] == pytest.approx(se, rel=0.06), name
    r, se = delta_method(-logp, n_words)  # a perplexity's error: exp's slope times the rate's
    assert values["word_perplexity_se"] == pytest.approx(np.exp(r) * se, rel=0.08)
    per_token = np.std(-logp) / np.sqrt(len(logp))
    assert values["ce_nats_se"] > 3 * per_token
    assert m.summary_with_errors(sample, ks=[1], n_boot=0)["ce_nats_se"] is None


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
