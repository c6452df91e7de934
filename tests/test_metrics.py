"""Metrics against brute-force versions and exact identities."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from rankscale import extract as ex
from rankscale import records as rs
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
    logp, gt, _, _ = random_records(seed)
    d = m.ce_decomposition(logp, gt)
    assert abs(d.ce - (d.error_entropy + d.self_alignment - d.confidence)) < 1e-9
    assert abs(d.ce - m.cross_entropy(logp)) < 1e-12


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


def test_decomposition_identity_on_extraction_output(model_dir, corpus_file, tmp_path):
    out = ex.extract(str(model_dir), str(corpus_file), 2000, tmp_path / "run", window_len=100, progress=False)
    rec = rs.load_records(out)
    d = m.ce_decomposition(rec.logp, rec.gt)
    assert abs(d.ce - (d.error_entropy + d.self_alignment - d.confidence)) < 1e-9
    assert d.ce == pytest.approx(-rec.logp.astype(np.float64).mean(), rel=1e-12)
    assert np.isclose(d.p_e.sum(), 1.0) and np.isclose(d.q_e.sum(), 1.0)


def test_rbp_equals_mean_indicator_for_every_k():
    _, gt, ge, _ = random_records(1)
    for ties in ("ge", "gt"):
        rank = m.rank_1based(gt, ge, ties)
        ks = np.arange(1, rank.max() + 2)
        expected = [np.mean(rank <= k) for k in ks]
        np.testing.assert_array_equal(m.rbp(rank, ks), expected)


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
    assert s["RBP_1"] == np.mean(ge == 0) and s["CE"] == pytest.approx(s["EE"] + s["SA"] - s["Conf"], abs=1e-9)
