"""One model's rank distribution under the three forms of paper A's lognormal (``FORMS``): the
authors' ``powerlaw`` fit, eq. 10 as written (ranks 1..infinity) and eq. 10 over the vocabulary,
each compared with a power law on its own support and turned into the CE and -log p_1 it predicts
(``fit_rank_models``), and refitted on resampled tokens (``bootstrap_rank_models``). The fits
themselves are in ``rankscale.rankdist``, appendix C's sums in ``rankscale.appendix_c``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankscale import appendix_c
from rankscale.rankdist import (LognormalRankFit, VuongTest, ZipfRankFit, degeneracy, entropy_and_neg_log_p1,
                                fit_authors, fit_lognormal_eq10, fit_lognormal_ranks, fit_zipf_ranks, ks_distance,
                                rank_histogram_counts, vuong_test, zeta_log_pmf)
FORMS = ("powerlaw", "1..inf", "1..V")  # the authors' fit, eq. 10 as written, eq. 10 over the vocabulary
PREDICTION = {
    "powerlaw": "eqs. 16, 20, 21 at the fitted (mu, sigma), as paper A's code",
    "1..inf": "eqs. 16, 20, 21 at the fitted (mu, sigma)",
    "1..V": "exact sums over ranks 1..V",
}


def predict_ce_and_neg_log_p1(fit: LognormalRankFit) -> tuple[float, float]:
    """CE (the entropy of the rank distribution) and -log p_1 that a fitted lognormal predicts,
    each form the way it is used: the unbounded forms (the authors' fit, eq. 10 over 1..infinity)
    through appendix C's closed forms (eq. 21, and eq. 16 with eq. 20's c), as paper A's code
    does; the 1..V form through exact sums over its own ranks 1..V."""
    if fit.support == "1..V":
        return entropy_and_neg_log_p1(fit.log_pmf())
    closed = appendix_c.approx(fit.mu, fit.sigma)
    return closed.ce, closed.neg_log_p1


@dataclass(frozen=True)
class LognormalForm:
    """One lognormal fit of a rank histogram with its comparison against the power law fitted on
    the same support, its KS distances, whether it is degenerate, and its predictions
    (``predict_ce_and_neg_log_p1``; nan when degenerate)."""

    fit: LognormalRankFit
    vuong: VuongTest  # lognormal over the power law: z > 0 favours the lognormal
    ks: float
    ks_power_law: float
    degenerate: str | None
    ce: float
    neg_log_p1: float


@dataclass(frozen=True)
class RankModels:
    """One model's rank distribution on one corpus, fitted three ways (``FORMS``: ``forms[f]``).

    - "powerlaw": the ``powerlaw`` package, as paper A's code (``fit_authors``), compared with that
      package's power law by the package itself;
    - "1..inf": eq. 10 as written (``fit_lognormal_eq10``), compared with the same unbounded power law
      (``zeta_log_pmf``, exponent ``power_law_alpha``);
    - "1..V": eq. 10 over the vocabulary (``fit_lognormal_ranks``), compared with the power law over
      1..V (``zipf``).
    """

    counts: np.ndarray  # (V + 1,) rank histogram, counts[0] = 0
    forms: dict[str, LognormalForm]
    power_law_alpha: float  # the package's unbounded power law
    zipf: ZipfRankFit  # the power law over ranks 1..V


def _form(fit: LognormalRankFit, counts: np.ndarray, power_law: np.ndarray, vuong: VuongTest | None = None
          ) -> LognormalForm:
    with np.errstate(all="ignore"):
        log_pmf = fit.log_pmf()
        reason = degeneracy(fit)
        ce, neg_log_p1 = (np.nan, np.nan) if reason else predict_ce_and_neg_log_p1(fit)
        return LognormalForm(fit, vuong or vuong_test(counts, log_pmf, power_law), ks_distance(counts, log_pmf),
                             ks_distance(counts, power_law), reason, float(ce), float(neg_log_p1))


def fit_rank_models(rank, vocab_size: int) -> RankModels:
    """Fit the ranks of one model's targets with the three lognormal forms and their power laws.

    rank : (n,) 1-based ranks (``metrics.rank_1based``); vocab_size : the model's own vocabulary,
    so that models with different tokenizers are each fitted over their own ranks. The eq. 10 fit
    starts from the authors' (both are unbounded) unless that one is degenerate.

    >>> rng = np.random.default_rng(0)
    >>> m = fit_rank_models(np.minimum(np.ceil(rng.lognormal(0.5, 1.5, 5000)), 100).astype(int), 100)
    >>> [bool(m.forms[f].vuong.z > 0) for f in FORMS], [m.forms[f].degenerate for f in FORMS]
    ([True, True, True], [None, None, None])
    """
    rank = np.asarray(rank)
    if rank.size == 0 or rank.min() < 1 or rank.max() > vocab_size:
        raise ValueError(f"ranks must lie in 1..vocab_size ({vocab_size})")
    counts = np.bincount(rank, minlength=vocab_size + 1)
    authors = fit_authors(rank, vocab_size)
    ranks_fit, zipf = fit_lognormal_ranks(counts), fit_zipf_ranks(counts)
    eq10 = fit_lognormal_eq10(counts, start=None if degeneracy(authors.lognormal) else authors.lognormal)
    unbounded = zeta_log_pmf(authors.power_law_alpha, vocab_size)
    forms = {"powerlaw": _form(authors.lognormal, counts, unbounded, authors.vuong),
             "1..inf": _form(eq10, counts, unbounded),
             "1..V": _form(ranks_fit, counts, zipf.log_pmf())}
    return RankModels(counts, forms, authors.power_law_alpha, zipf)


def one_step_refits(fit: LognormalRankFit, counts, replicate_counts, step: float = 1e-3) -> np.ndarray:
    """(mu, sigma) of ``fit`` redone on each resampled histogram, by one Newton step of the
    resample's log-likelihood from the full-sample maximum.

    fit : a lognormal fitted to ``counts`` ((V + 1,) histogram) in any form (``fit.support``);
    replicate_counts : (B, V + 1) histograms of resamples of the same tokens. Returns (B, 2);
    nan for a degenerate fit. The step uses the full sample's Hessian in (mu, ln sigma), by finite
    differences of the form's own log-probabilities; since a resample's maximum lies within
    O(n^-1/2) of the full sample's, one step leaves an error of O(1/n), far below the bootstrap
    spread (checked against full refits in the tests), at a small fraction of a refit's cost.
    """
    replicate_counts = np.atleast_2d(np.asarray(replicate_counts, np.float64))
    if degeneracy(fit):
        return np.full((len(replicate_counts), 2), np.nan)
    n_r = rank_histogram_counts(counts)
    h = step

    def log_pmf(i: int, j: int) -> np.ndarray:
        return LognormalRankFit(fit.mu + i * h, fit.sigma * np.exp(j * h), 0.0, 0, fit.vocab_size,
                                fit.support).log_pmf()

    with np.errstate(all="ignore"):
        grid = {(i, j): log_pmf(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)}
        score = np.stack([(grid[1, 0] - grid[-1, 0]) / (2 * h), (grid[0, 1] - grid[0, -1]) / (2 * h)], axis=1)
        w = n_r / n_r.sum()
        h_mm = w @ (grid[1, 0] - 2 * grid[0, 0] + grid[-1, 0]) / h**2
        h_ss = w @ (grid[0, 1] - 2 * grid[0, 0] + grid[0, -1]) / h**2
        h_ms = w @ (grid[1, 1] - grid[1, -1] - grid[-1, 1] + grid[-1, -1]) / (4 * h**2)
        hessian = np.array([[h_mm, h_ms], [h_ms, h_ss]])
        if not (np.isfinite(hessian).all() and np.isfinite(score).all()) or np.linalg.eigvalsh(hessian).max() >= 0:
            return np.full((len(replicate_counts), 2), np.nan)
        rc = replicate_counts[:, 1:]
        mean_score = rc @ score / rc.sum(axis=1, keepdims=True)
        theta = np.array([fit.mu, np.log(fit.sigma)]) - np.linalg.solve(hessian, mean_score.T).T
    return np.column_stack([theta[:, 0], np.exp(theta[:, 1])])


@dataclass(frozen=True)
class RankBootstrap:
    """Bootstrap replicates of one model's measured and predicted values (``bootstrap_rank_models``).

    measured : (B, 2) CE and -log RBP_1 of each resample; params : form -> (B, 2) refitted
    (mu, sigma); predicted : form -> (B, 2) CE and -log p_1 predicted from them. nan where a
    value cannot be computed (a degenerate fit, no target at rank 1).
    """

    measured: np.ndarray
    params: dict[str, np.ndarray]
    predicted: dict[str, np.ndarray]


def bootstrap_rank_models(models: RankModels, rank, logp, n_boot: int, seed: int = 0) -> RankBootstrap:
    """Resample one model's targets ``n_boot`` times (with replacement), and on each resample
    recompute the measured CE and -log RBP_1, refit every lognormal form (``one_step_refits``)
    and predict CE and -log p_1 from it (``predict_ce_and_neg_log_p1``).

    rank, logp : (n,) the targets' 1-based ranks and log-probabilities, as fitted in ``models``.
    With the same seed, models evaluated on the same targets (one family, one corpus) get the
    same resample of the text, so that slopes across them, and differences between measured and
    predicted values, are paired. Resampling single tokens treats neighbouring tokens as
    independent, so the spread is a lower bound on the uncertainty from the choice of text.
    """
    rank, logp = np.asarray(rank), np.asarray(logp, np.float64)
    n, vocab_size = len(rank), len(models.counts) - 1
    rng = np.random.default_rng(seed)
    replicate_counts = np.empty((n_boot, vocab_size + 1))
    measured = np.empty((n_boot, 2))
    for b in range(n_boot):
        idx = rng.integers(0, n, n)
        replicate_counts[b] = np.bincount(rank[idx], minlength=vocab_size + 1)
        measured[b, 0] = -logp[idx].mean()
    with np.errstate(divide="ignore"):
        measured[:, 1] = -np.log(replicate_counts[:, 1] / n)
    measured[~np.isfinite(measured)] = np.nan  # no target at rank 1 in a resample
    params, predicted = {}, {}
    for name, form in models.forms.items():
        params[name] = one_step_refits(form.fit, models.counts, replicate_counts)
        values = np.full((n_boot, 2), np.nan)
        for b, (mu, sigma) in enumerate(params[name]):
            if np.isfinite(mu) and np.isfinite(sigma) and sigma > 0:
                refit = LognormalRankFit(float(mu), float(sigma), 0.0, n, vocab_size, form.fit.support)
                if degeneracy(refit) is None:
                    values[b] = predict_ce_and_neg_log_p1(refit)
        predicted[name] = values
    return RankBootstrap(measured, params, predicted)
