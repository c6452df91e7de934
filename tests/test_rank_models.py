"""Rank-distribution models and appendix C against brute force, quadrature and exact identities."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from rankscale.analysis import appendix_c as ac
from rankscale.analysis import rank_models as rd
from rankscale.analysis import rank_models as rm
from rankscale.analysis import rank_models as rs

V = 500


def sample_histogram(log_pmf: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    counts = np.random.default_rng(seed).multinomial(n, np.exp(log_pmf))
    return np.concatenate([[0], counts])


def brute_psi(k: float, mu: float, sigma: float) -> float:
    return np.exp(-(np.log(k) - mu) ** 2 / (2 * sigma**2)) / (np.sqrt(2 * np.pi) * sigma * k)


def test_lognormal_pmf_is_normalised_point_form_of_eq10():
    pmf = np.exp(rd.lognormal_log_pmf(-2.0, 2.5, 50))
    psi = np.array([brute_psi(k, -2.0, 2.5) for k in range(1, 51)])
    np.testing.assert_allclose(pmf, psi / psi.sum(), rtol=1e-12)


@pytest.mark.parametrize("mu, sigma", [(1.0, 1.5), (-3.0, 3.0), (-8.0, 4.0)])
def test_lognormal_fit_recovers_parameters(mu, sigma):
    counts = sample_histogram(rd.lognormal_log_pmf(mu, sigma, V), 2_000_000)
    f = rd.fit_lognormal_ranks(counts)
    assert f.mu == pytest.approx(mu, abs=0.05 * max(1, abs(mu)))
    assert f.sigma == pytest.approx(sigma, rel=0.05)
    assert f.n_tokens == 2_000_000 and f.vocab_size == V


def test_lognormal_fit_is_the_maximum_and_matches_moments():
    rng = np.random.default_rng(3)
    ranks = np.minimum(rng.geometric(0.05, 20_000), V)  # not lognormal: the MLE must still be exact
    counts = np.bincount(ranks, minlength=V + 1)
    f = rd.fit_lognormal_ranks(counts)
    log_r = np.log(np.arange(1, V + 1))
    p = np.exp(f.log_pmf())
    n_r = counts[1:] / counts.sum()
    np.testing.assert_allclose([p @ log_r, p @ log_r**2], [n_r @ log_r, n_r @ log_r**2], rtol=1e-6)
    assert f.log_likelihood == pytest.approx(counts[1:] @ f.log_pmf(), rel=1e-12)
    for dmu in (-0.05, 0, 0.05):
        for dsigma in (-0.05, 0, 0.05):
            assert counts[1:] @ rd.lognormal_log_pmf(f.mu + dmu, f.sigma + dsigma, V) <= f.log_likelihood + 1e-6


def test_zipf_fit_recovers_exponent_and_matches_mean_log_rank():
    counts = sample_histogram(rd.zipf_log_pmf(1.3, V), 1_000_000, seed=1)
    f = rd.fit_zipf_ranks(counts)
    assert f.alpha == pytest.approx(1.3, abs=0.01)
    log_r = np.log(np.arange(1, V + 1))
    assert np.exp(f.log_pmf()) @ log_r == pytest.approx(counts[1:] @ log_r / counts.sum(), rel=1e-6)
    assert f.log_likelihood == pytest.approx(counts[1:] @ f.log_pmf(), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_power_law_never_beats_the_lognormal_it_is_nested_in(seed):
    counts = sample_histogram(rd.zipf_log_pmf(0.5 + seed * 0.4, V), 5000, seed=seed)
    assert rd.fit_lognormal_ranks(counts).log_likelihood >= rd.fit_zipf_ranks(counts).log_likelihood - 1e-6


def test_vuong_matches_per_token_computation():
    counts = sample_histogram(rd.lognormal_log_pmf(-1.0, 2.0, V), 3000, seed=5)
    a, b = rd.lognormal_log_pmf(-1.0, 2.0, V), rd.zipf_log_pmf(1.1, V)
    ranks = np.repeat(np.arange(1, V + 1), counts[1:])
    ratio = a[ranks - 1] - b[ranks - 1]
    z = ratio.sum() / (np.sqrt(len(ratio)) * ratio.std())
    t = rs.vuong_test(counts, a, b)
    assert t.log_likelihood_ratio == pytest.approx(ratio.sum(), rel=1e-10)
    assert t.z == pytest.approx(z, rel=1e-10) and t.z > 0
    assert t.p_value == pytest.approx(2 * norm.sf(abs(z)), rel=1e-8)
    assert rs.vuong_test(counts, b, a).z == pytest.approx(-z, rel=1e-10)


@pytest.mark.parametrize("bad", [[1, 3, 1], [0, 3], [0, -1, 2], [0, 0, 0], [[0, 1, 2]]])
def test_a_histogram_that_is_not_of_ranks_1_to_v_is_rejected(bad):
    """rank 0 counted, fewer than two ranks, a negative count, no target, or not one dimension"""
    with pytest.raises(ValueError, match="rank histogram"):
        rs.vuong_test(bad, np.zeros(2), np.zeros(2))


def test_ks_distance_brute_force():
    counts = sample_histogram(rd.lognormal_log_pmf(0.5, 1.0, 40), 700, seed=2)
    pmf = np.exp(rd.zipf_log_pmf(1.0, 40))
    gaps = [abs(counts[1:r + 1].sum() / counts.sum() - pmf[:r].sum()) for r in range(1, 41)]
    assert rs.ks_distance(counts, np.log(pmf)) == pytest.approx(max(gaps), rel=1e-12)


def test_log_binned_frequency_is_flat_for_uniform_ranks_and_keeps_mass():
    centres, freq = rs.log_binned_frequency(np.concatenate([[0], np.full(V, 3)]), n_bins=12)
    np.testing.assert_allclose(freq, 1 / V)
    assert np.all(np.diff(centres) > 0) and centres[0] == 1
    for vocab in (V, 4096, 50_257):
        counts = sample_histogram(rd.zipf_log_pmf(1.2, vocab), 10_000, seed=4)
        edges = sorted({int(e) for e in np.floor(np.logspace(0, np.log10(vocab + 1), 31)[:-1])} | {vocab + 1})
        mass, width = [], []
        for lo, hi in zip(edges[:-1], edges[1:]):
            if counts[lo:hi].sum():
                mass.append(counts[lo:hi].sum() / counts.sum())
                width.append(hi - lo)
        _, freq = rs.log_binned_frequency(counts, n_bins=30)
        np.testing.assert_allclose(freq * np.array(width), mass, rtol=1e-12)
        assert sum(mass) == pytest.approx(1.0, rel=1e-12)


def test_entropy_and_neg_log_p1_brute_force():
    pmf = np.exp(rd.lognormal_log_pmf(-1.0, 2.0, 30))
    h, nl1 = rs.entropy_and_neg_log_p1(np.log(pmf))
    assert h == pytest.approx(-sum(p * np.log(p) for p in pmf), rel=1e-12)
    assert nl1 == pytest.approx(-np.log(pmf[0]), rel=1e-12)


def test_rank_counts_by_probability_brute_force():
    rng = np.random.default_rng(0)
    prob = rng.uniform(0, 1, 2000)
    rank = rng.integers(1, 30, 2000)
    edges = [0.05, 0.1, 0.3, 0.31, 0.9]
    out = rd.rank_counts_by_probability(np.log(prob), rank, edges, max_rank=5)
    expected = np.zeros((4, 6), int)
    for p, r in zip(prob, rank):
        for i in range(4):
            if edges[i] <= p < edges[i + 1]:
                expected[i, min(r, 6) - 1] += 1
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("mu, sigma, lower", [(1.0, 2.0, 0.0), (-5.0, 3.0, 0.0), (-12.0, 1.5, 0.0),
                                              (2.0, 4.0, 6.0), (0.0, 1.0, 9.0), (-3.0, 0.7, 0.5)])
def test_normal_tail_moments_against_quadrature(mu, sigma, lower):
    got = np.exp(ac._normal_tail_log_moments(mu, sigma, lower))
    for g in range(3):
        f = (lambda t, g=g: t**g * norm.pdf(t, mu, sigma))
        want = quad(f, lower, np.inf, epsabs=0, epsrel=1e-13, limit=200)[0]
        assert got[g] == pytest.approx(want, rel=1e-8)


@pytest.mark.parametrize("mu, sigma", [(0.0, 1.0), (1.0, 1.5), (-6.0, 2.0)])
def test_appendix_c_exact_equals_direct_sums(mu, sigma):
    """Tail beyond 2^22 is below 1e-13 for these; the function sums only to 2^12 and integrates the rest."""
    k = np.arange(1, 2**22 + 1, dtype=np.float64)
    psi = np.exp(-(np.log(k) - mu) ** 2 / (2 * sigma**2)) / (np.sqrt(2 * np.pi) * sigma * k)
    c, s1, s2 = psi.sum(), psi @ np.log(k), psi @ np.log(k) ** 2
    p = psi / c
    p = p[p > 0]
    e = ac.exact(mu, sigma, n_direct=2**12)
    np.testing.assert_allclose(np.exp([e.log_c, e.log_s1, e.log_s2]), [c, s1, s2], rtol=1e-8)
    assert e.neg_log_p1 == pytest.approx(-np.log(psi[0] / c), rel=1e-8)
    assert e.ce == pytest.approx(-(p @ np.log(p)), rel=1e-8)


@pytest.mark.parametrize("mu, sigma", [(3.0, 4.0), (-14.0, 5.8), (-16.0, 1.0)])
def test_appendix_c_exact_does_not_depend_on_where_summing_stops(mu, sigma):
    a, b = ac.exact(mu, sigma, n_direct=2**12), ac.exact(mu, sigma, n_direct=2**18)
    np.testing.assert_allclose([a.log_c, a.log_s1, a.log_s2, a.ce], [b.log_c, b.log_s1, b.log_s2, b.ce],
                               rtol=1e-8, atol=1e-8)



@pytest.mark.parametrize("n_direct", [4096, 2**15])
def test_log_c_alone_is_exacts_log_c_bit_for_bit(n_direct):
    """The eq.-10 fit's likelihood takes ``log_c``; every fit on a page must be what ``exact`` gives."""
    grid = [(mu, sigma) for mu in (-250.0, -40.0, -3.0, 0.0, 2.5, 11.0) for sigma in (0.05, 0.7, 2.3, 9.0)]
    assert [ac.log_c(mu, sigma, n_direct) for mu, sigma in grid] == [ac.exact(mu, sigma, n_direct).log_c
                                                                     for mu, sigma in grid]

@pytest.mark.parametrize("mu, sigma", [(1.0, 4.0), (-5.0, 3.0), (-14.0, 5.8), (-16.0, 1.0)])
def test_eq18_simplifies_to_eq21(mu, sigma):
    a = ac.approx(mu, sigma)
    assert ac.ce_from_sums(mu, sigma, a.log_c, a.log_s1, a.log_s2) == pytest.approx(a.ce, rel=1e-10, abs=1e-10)
    assert sum(a.ce_terms().values()) == pytest.approx(a.ce, rel=1e-12)


def test_approximations_match_closed_forms_and_behave_as_expected():
    mu, sigma = -2.0, 3.0
    a = ac.approx(mu, sigma)
    P, phi = norm.cdf(mu / sigma), norm.pdf(-mu / sigma)
    np.testing.assert_allclose(np.exp([a.log_c, a.log_s1, a.log_s2]),
                               [phi / sigma / 2 + P, mu * P + sigma * phi, (mu**2 + sigma**2) * P + mu * sigma * phi],
                               rtol=1e-12)
    smooth_exact, smooth_approx = ac.exact(2.0, 6.0), ac.approx(2.0, 6.0)
    assert abs(smooth_approx.ce / smooth_exact.ce - 1) < 0.01  # psi barely changes between ranks
    steep_exact, steep_approx = ac.exact(-5.0, 1.0), ac.approx(-5.0, 1.0)
    assert abs(steep_approx.neg_log_p1 - steep_exact.neg_log_p1) > 0.05  # psi falls steeply from rank 1


# ---------------------------------------------------------------- the three lognormal fits


@pytest.mark.parametrize("mu, sigma", [(0.0, 1.0), (2.0, 3.0), (-4.0, 2.5)])
def test_powerlaw_pmf_is_the_packages_discrete_lognormal(mu, sigma):
    import powerlaw

    ranks = np.array([1, 2, 3, 10, 250, V])
    package = powerlaw.Lognormal(xmin=1, parameters=[mu, sigma], discrete=True).pdf(ranks)
    np.testing.assert_allclose(np.exp(rd.powerlaw_log_pmf(mu, sigma, V))[ranks - 1], package, rtol=1e-9)


def test_authors_fits_are_the_powerlaw_packages():
    import powerlaw

    rank = np.random.default_rng(1).choice(np.arange(1, V + 1), 20_000, p=np.exp(rd.lognormal_log_pmf(0.5, 2.0, V)))
    authors = rd.fit_authors(rank)
    ours, fit = authors.lognormal, powerlaw.Fit(rank, discrete=True, xmin=1, verbose=False)
    theirs = fit.lognormal
    assert (ours.mu, ours.sigma, ours.support) == (theirs.mu, theirs.sigma, "powerlaw")
    assert authors.power_law_alpha == fit.power_law.alpha
    counts = np.bincount(rank, minlength=V + 1)[1:]
    assert ours.log_likelihood == pytest.approx(counts @ np.log(theirs.pdf(np.arange(1, V + 1))), rel=1e-9)


@pytest.mark.parametrize("mu, sigma", [(1.0, 1.2), (-2.0, 1.5)])
def test_eq10_fit_recovers_parameters_of_the_unbounded_model(mu, sigma):
    """Ranks drawn from eq. 10 over 1..infinity (the support that c sums over), with parameters
    whose mass beyond V is negligible: cutting the draws at V would otherwise bias any fit of an
    unbounded model, as the finite vocabulary does on real data."""
    big = 200_000
    log_r = np.log(np.arange(1, big + 1))
    log_psi = -log_r - (log_r - mu) ** 2 / (2 * sigma**2)
    p = np.exp(log_psi - logsumexp_(log_psi))
    assert p[V:].sum() < 1e-5
    counts = np.concatenate([[0], np.random.default_rng(2).multinomial(2_000_000, p)[:V]])
    fit = rd.fit_lognormal_eq10(counts)
    assert fit.support == "1..inf" and fit.mu == pytest.approx(mu, abs=0.1) and fit.sigma == pytest.approx(sigma, rel=0.05)
    # the maximum: the true parameters are no better, and the pmf is eq. 10 over the infinite sum
    true = rd.LognormalRankFit(mu, sigma, 0.0, 1, V, support="1..inf")
    assert counts[1:] @ fit.log_pmf() >= counts[1:] @ true.log_pmf() - 1e-6
    psi = np.array([brute_psi(k, fit.mu, fit.sigma) for k in (1, 7)])
    np.testing.assert_allclose(np.exp(fit.log_pmf()[[0, 6]]), psi / np.exp(ac.exact(fit.mu, fit.sigma).log_c),
                               rtol=1e-10)


def logsumexp_(x):
    from scipy.special import logsumexp

    return logsumexp(x)


def test_a_strongly_peaked_distribution_gives_a_degenerate_fit():
    """Most targets at rank 1 and a power-law tail (Zipf with exponent 2: 61% at rank 1): the
    lognormal can only follow it by running to its power-law edge, a median far below rank 1,
    which ``degeneracy`` reports instead of a number."""
    peaked = sample_histogram(rd.zipf_log_pmf(2.0, V), 200_000, seed=3)
    fit = rd.fit_lognormal_eq10(peaked)
    assert rd.degeneracy(fit) is not None and "extreme parameters" in rd.degeneracy(fit)
    ordinary = sample_histogram(rd.lognormal_log_pmf(1.0, 2.0, V), 100_000)
    assert rd.degeneracy(rd.fit_lognormal_eq10(ordinary)) is None
    assert "did not converge" in rd.degeneracy(rd.LognormalRankFit(float("nan"), 1.0, 0.0, 1, V))


def test_unbounded_power_law_is_the_packages():
    import powerlaw

    ranks = np.array([1, 2, 3, 10, 250, V])
    for alpha in (1.3, 2.2):
        package = powerlaw.Power_Law(xmin=1, parameters=[alpha], discrete=True).pdf(ranks)
        np.testing.assert_allclose(np.exp(rd.zeta_log_pmf(alpha, V))[ranks - 1], package, rtol=1e-10)


def test_authors_comparison_is_the_packages_and_vuongs_test_on_the_same_supports():
    import powerlaw

    rank = np.random.default_rng(1).choice(np.arange(1, V + 1), 20_000, p=np.exp(rd.lognormal_log_pmf(0.5, 2.0, V)))
    authors = rd.fit_authors(rank, V)
    fitted = powerlaw.Fit(rank, discrete=True, xmin=1, verbose=False)
    ratio, p = fitted.distribution_compare("lognormal", "power_law")
    assert (authors.vuong.log_likelihood_ratio, authors.vuong.p_value) == pytest.approx((ratio, p), rel=1e-12)
    counts = np.bincount(rank, minlength=V + 1)
    ours = rs.vuong_test(counts, authors.lognormal.log_pmf(), rd.zeta_log_pmf(authors.power_law_alpha, V))
    assert authors.vuong.z == pytest.approx(ours.z, rel=1e-8) and authors.vuong.z > 0
    assert authors.lognormal.vocab_size == V


def test_fit_rank_models_bundles_the_three_forms():
    rng = np.random.default_rng(5)
    log_pmf = rd.lognormal_log_pmf(0.5, 2.0, V)
    rank = rng.choice(np.arange(1, V + 1), size=20_000, p=np.exp(log_pmf))
    m = rm.fit_rank_models(rank, V)
    counts = np.bincount(rank, minlength=V + 1)
    np.testing.assert_array_equal(m.counts, counts)
    assert tuple(m.forms) == rm.FORMS and [m.forms[f].fit.support for f in rm.FORMS] == list(rm.FORMS)
    authors, ranks_fit, zipf = rd.fit_authors(rank, V), rd.fit_lognormal_ranks(counts), rd.fit_zipf_ranks(counts)
    eq10 = rd.fit_lognormal_eq10(counts)
    pl, bounded = m.forms["powerlaw"].fit, m.forms["1..V"].fit
    assert (pl.mu, pl.sigma) == (authors.lognormal.mu, authors.lognormal.sigma)
    assert (bounded.mu, bounded.sigma, m.zipf.alpha) == (ranks_fit.mu, ranks_fit.sigma, zipf.alpha)
    # eq. 10 starts from the authors' fit: the same maximum as from the default start
    assert m.forms["1..inf"].fit.mu == pytest.approx(eq10.mu, abs=1e-4)
    assert m.forms["1..inf"].fit.sigma == pytest.approx(eq10.sigma, abs=1e-4)
    # each form against the power law on its own support
    assert m.forms["powerlaw"].vuong == authors.vuong
    unbounded = rd.zeta_log_pmf(authors.power_law_alpha, V)
    assert m.forms["1..inf"].vuong == rs.vuong_test(counts, m.forms["1..inf"].fit.log_pmf(), unbounded)
    assert m.forms["1..V"].vuong == rs.vuong_test(counts, ranks_fit.log_pmf(), zipf.log_pmf())
    assert m.forms["1..V"].ks == rs.ks_distance(counts, ranks_fit.log_pmf()) < m.forms["1..V"].ks_power_law
    # predictions: the unbounded forms through appendix C's closed forms, the 1..V form exactly
    closed = ac.approx(authors.lognormal.mu, authors.lognormal.sigma)
    assert (m.forms["powerlaw"].ce, m.forms["powerlaw"].neg_log_p1) == (closed.ce, closed.neg_log_p1)
    assert (m.forms["1..V"].ce, m.forms["1..V"].neg_log_p1) == rs.entropy_and_neg_log_p1(ranks_fit.log_pmf())
    assert all(m.forms[f].degenerate is None for f in rm.FORMS)
    # each model is fitted over its own vocabulary: a larger one only adds empty ranks
    wider = rm.fit_rank_models(rank, 4 * V)
    assert wider.forms["1..V"].fit.vocab_size == 4 * V and len(wider.counts) == 4 * V + 1


def test_degenerate_fits_predict_nothing_and_are_not_bootstrapped():
    peaked = sample_histogram(rd.zipf_log_pmf(2.0, V), 50_000, seed=3)
    rank = np.repeat(np.arange(V + 1), peaked)
    m = rm.fit_rank_models(rank, V)
    degenerate = [f for f in rm.FORMS if m.forms[f].degenerate]
    assert degenerate, "a strongly peaked histogram gives degenerate lognormal fits"
    for f in degenerate:
        assert np.isnan(m.forms[f].ce) and np.isnan(m.forms[f].neg_log_p1)
    (b,) = rm.bootstrap_rank_models([m], [{"rank": rank, "logp": np.full(len(rank), -1.0)}], n_boot=3)
    for f in degenerate:
        assert np.isnan(b.params[f]).all() and np.isnan(b.predicted[f]).all()


@pytest.mark.parametrize("form", rm.FORMS)
def test_newton_refits_agree_with_full_refits(form):
    """A resample's fit redone by one Newton step lands on its full refit: the error is far below
    the resample's own shift from the full-sample fit."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(8)
    rank = rng.choice(np.arange(1, V + 1), size=30_000, p=np.exp(rd.lognormal_log_pmf(1.0, 2.0, V)))
    counts = np.bincount(rank, minlength=V + 1)
    full = rm.fit_rank_models(rank, V).forms[form].fit
    for _ in range(3):
        resample = np.bincount(rank[rng.integers(0, len(rank), len(rank))], minlength=V + 1)
        if form == "1..V":
            refit = rd.fit_lognormal_ranks(resample)
            want = np.array([refit.mu, refit.sigma])
        elif form == "1..inf":
            refit = rd.fit_lognormal_eq10(resample, start=full)
            want = np.array([refit.mu, refit.sigma])
        else:  # the package's model, maximised on the resample
            n_r = resample[1:]
            result = minimize(lambda t: -(n_r @ rd.powerlaw_log_pmf(t[0], np.exp(t[1]), V)) / n_r.sum(),
                              [full.mu, np.log(full.sigma)], method="Nelder-Mead",
                              options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 4000})
            want = np.array([result.x[0], np.exp(result.x[1])])
        got = rm.NewtonRefit(full, counts).refits(resample[1:] / resample.sum())[0]
        shift = np.abs(want - [full.mu, full.sigma])
        assert np.all(np.abs(got - want) <= 0.05 * shift + 2e-4), (got, want, shift)


def test_bootstrap_rank_models_resamples_tokens_and_pairs_models_on_the_same_text():
    rng = np.random.default_rng(2)
    rank = rng.choice(np.arange(1, V + 1), size=5_000, p=np.exp(rd.lognormal_log_pmf(1.0, 2.0, V)))
    logp = -rng.exponential(3.0, len(rank))
    other = np.minimum(rank + rng.integers(0, 3, len(rank)), V)  # a second model on the same targets
    models = [rm.fit_rank_models(r, V) for r in (rank, other)]
    samples = [{"rank": rank, "logp": logp}, {"rank": other, "logp": logp + 0.5}]
    b, again = rm.bootstrap_rank_models(models, samples, n_boot=40, seed=4)
    m = models[0]
    assert b.measured.shape == (40, 2) and all(b.params[f].shape == b.predicted[f].shape == (40, 2) for f in rm.FORMS)
    # the replicates scatter around the full-sample values
    assert abs(b.measured[:, 0].mean() - (-logp.mean())) < 4 * b.measured[:, 0].std() / np.sqrt(40) + 1e-9
    assert abs(b.measured[:, 1].mean() + np.log((rank == 1).mean())) < 4 * b.measured[:, 1].std() / np.sqrt(40)
    for f in rm.FORMS:
        assert np.isfinite(b.predicted[f]).all()
        assert abs(np.median(b.params[f][:, 0]) - m.forms[f].fit.mu) < 4 * b.params[f][:, 0].std()
    # a replicate is one resample of the text: recomputed by hand for replicate 0, the refit from its histogram
    idx = np.random.default_rng(4).integers(0, len(rank), len(rank))
    assert b.measured[0, 0] == pytest.approx(-logp[idx].mean(), rel=1e-12)
    assert b.measured[0, 1] == pytest.approx(-np.log((rank[idx] == 1).mean()), rel=1e-12)
    for f in rm.FORMS:
        by_hand = rm.NewtonRefit(m.forms[f].fit, m.counts).refits(np.bincount(rank[idx], minlength=V + 1)[1:] / len(idx))[0]
        np.testing.assert_allclose(b.params[f][0], by_hand, rtol=1e-9)
    # the other model was resampled on the same tokens
    np.testing.assert_allclose(again.measured[:, 0], b.measured[:, 0] - 0.5, rtol=1e-12)
    assert again.measured[0, 1] == pytest.approx(-np.log((other[idx] == 1).mean()), rel=1e-12)


def test_exponent_ratio_and_its_interval():
    sizes = np.array([1e6, 1e7, 1e8, 1e9])
    rng = np.random.default_rng(3)
    ce, p1 = 3.0 * sizes**-0.05, 2.0 * sizes**-0.1
    noise = rng.lognormal(0, 0.01, (2, 200, len(sizes)))
    ratio, bounds = rm.exponent_ratio(sizes, p1, ce, p1 * noise[0], ce * noise[1])
    assert ratio == pytest.approx(2.0, rel=1e-9)
    assert bounds[0] < 2.0 < bounds[1] and np.mean(bounds) == pytest.approx(ratio)  # centred on the value
    # noisier replicates give a wider interval
    wider = rm.exponent_ratio(sizes, p1, ce, p1 * noise[0] ** 3, ce * noise[1] ** 3)[1]
    assert wider[1] - wider[0] > 2 * (bounds[1] - bounds[0])
    # a series with a value that has no logarithm has no exponent, and a replicate without one no interval
    assert np.isnan(rm.exponent_ratio(sizes, p1, ce * [1, 1, 0, 1], p1 * noise[0], ce * noise[1])[0])
    broken = ce * noise[1]
    broken[0, 0] = np.nan
    assert rm.exponent_ratio(sizes, p1, ce, p1 * noise[0], broken)[1] is None


def test_fit_rank_models_rejects_ranks_outside_the_vocabulary():
    with pytest.raises(ValueError, match="1..vocab_size"):
        rm.fit_rank_models(np.array([1, 2, V + 1]), V)
    with pytest.raises(ValueError, match="1..vocab_size"):
        rm.fit_rank_models(np.array([0, 1]), V)
