"""One model's rank distribution under the three forms of paper A's lognormal (``FORMS``): the
authors' ``powerlaw`` fit, eq. 10 as written (ranks 1..infinity) and eq. 10 over the vocabulary,
each compared with a power law on its own support and turned into the CE and -log p_1 it predicts
(``fit_rank_models``), refitted on resampled tokens (``bootstrap_rank_models``), and exponents
compared through their ratio (``exponent_ratio``). The fits themselves are in
``rankscale.rankdist``, appendix C's sums in ``rankscale.appendix_c``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankscale import appendix_c, bootstrap
from rankscale.rankdist import (LognormalRankFit, ZipfRankFit, degeneracy, fit_authors, fit_lognormal_eq10,
                                fit_lognormal_ranks, fit_zipf_ranks, zeta_log_pmf)
from rankscale.rankstats import VuongTest, entropy_and_neg_log_p1, ks_distance, rank_histogram_counts, vuong_test

FORMS = ("powerlaw", "1..inf", "1..V")  # the authors' fit, eq. 10 as written, eq. 10 over the vocabulary


def predict_ce_and_neg_log_p1(fit: LognormalRankFit) -> tuple[float, float]:
    """CE (the entropy of the rank distribution) and -log p_1 that a fitted lognormal predicts.

    Each form is used the way the paper uses it: the unbounded forms (the authors' fit, eq. 10 over
    1..infinity) through appendix C's closed forms (eq. 21, and eq. 16 with eq. 20's c), as paper
    A's code does; the 1..V form through exact sums over its own ranks 1..V.

    Parameters
    ----------
    fit : LognormalRankFit

    Returns
    -------
    ce, neg_log_p1 : float

    Examples
    --------
    >>> [round(v, 3) for v in predict_ce_and_neg_log_p1(LognormalRankFit(1.0, 4.0, 0.0, 1, 100, "1..inf"))]
    [5.576, 1.901]
    """
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

    Parameters
    ----------
    rank : array_like of shape (n,)
        1-based ranks (``metrics.rank_1based``), within 1..vocab_size.
    vocab_size : int
        The model's own vocabulary, so that models with different tokenizers are each fitted over
        their own ranks.

    Returns
    -------
    RankModels
        The eq. 10 fit starts from the authors' (both are unbounded) unless that one is degenerate.

    Examples
    --------
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


class _NewtonStep:
    """One Newton step of a lognormal form's log-likelihood from its full-sample maximum, in
    (mu, ln sigma): the per-rank score (V, 2) and the Hessian of the mean log-likelihood, both by
    finite differences of the form's own log-probabilities. ``ok`` is False for a degenerate fit
    or where the Hessian is not negative definite (no step can be taken)."""

    def __init__(self, fit: LognormalRankFit, counts, step: float = 1e-3):
        self.fit, h = fit, step
        self.ok = degeneracy(fit) is None
        if not self.ok:
            return
        n_r = rank_histogram_counts(counts)

        def log_pmf(i: int, j: int) -> np.ndarray:
            return LognormalRankFit(fit.mu + i * h, fit.sigma * np.exp(j * h), 0.0, 0, fit.vocab_size,
                                    fit.support).log_pmf()

        with np.errstate(all="ignore"):
            grid = {(i, j): log_pmf(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)}
            self.score = np.stack([(grid[1, 0] - grid[-1, 0]) / (2 * h), (grid[0, 1] - grid[0, -1]) / (2 * h)], axis=1)
            w = n_r / n_r.sum()
            h_mm = w @ (grid[1, 0] - 2 * grid[0, 0] + grid[-1, 0]) / h**2
            h_ss = w @ (grid[0, 1] - 2 * grid[0, 0] + grid[0, -1]) / h**2
            h_ms = w @ (grid[1, 1] - grid[1, -1] - grid[-1, 1] + grid[-1, -1]) / (4 * h**2)
            self.hessian = np.array([[h_mm, h_ms], [h_ms, h_ss]])
            self.ok = bool(np.isfinite(self.hessian).all() and np.isfinite(self.score).all()
                           and np.linalg.eigvalsh(self.hessian).max() < 0)

    def refits(self, mean_score) -> np.ndarray:
        """(B, 2) (mu, sigma) from (B, 2) mean scores of resamples; nan where no step can be taken."""
        mean_score = np.atleast_2d(np.asarray(mean_score, np.float64))
        if not self.ok:
            return np.full((len(mean_score), 2), np.nan)
        with np.errstate(all="ignore"):
            theta = np.array([self.fit.mu, np.log(self.fit.sigma)]) - np.linalg.solve(self.hessian, mean_score.T).T
        return np.column_stack([theta[:, 0], np.exp(theta[:, 1])])


def one_step_refits(fit: LognormalRankFit, counts, replicate_counts, step: float = 1e-3) -> np.ndarray:
    """(mu, sigma) of ``fit`` redone on each resampled histogram, by one Newton step of the
    resample's log-likelihood from the full-sample maximum.

    Parameters
    ----------
    fit : LognormalRankFit
        A lognormal fitted to ``counts``, in any form (``fit.support``).
    counts : array_like of shape (V + 1,)
        The full sample's rank histogram.
    replicate_counts : array_like of shape (B, V + 1)
        Histograms of resamples of the same tokens.
    step : float
        Finite-difference step in mu and ln sigma.

    Returns
    -------
    ndarray of shape (B, 2)
        (mu, sigma) per resample; nan for a degenerate fit.

    Notes
    -----
    The step uses the full sample's Hessian in (mu, ln sigma); since a resample's maximum lies
    within O(n^-1/2) of the full sample's, one step leaves an error of O(1/n), far below the
    bootstrap spread (checked against full refits in the tests), at a small fraction of a
    refit's cost.

    Examples
    --------
    >>> counts = np.bincount(np.repeat([1, 2, 3, 5, 8], [50, 20, 10, 5, 2]), minlength=11)
    >>> fit = fit_lognormal_ranks(counts)
    >>> np.allclose(one_step_refits(fit, counts, [counts]), [[fit.mu, fit.sigma]], atol=1e-4)  # its own maximum
    True
    """
    newton = _NewtonStep(fit, counts, step)
    replicate_counts = np.atleast_2d(np.asarray(replicate_counts, np.float64))[:, 1:]
    if not newton.ok:
        return newton.refits(np.zeros((len(replicate_counts), 2)))
    return newton.refits(replicate_counts @ newton.score / replicate_counts.sum(axis=1, keepdims=True))


@dataclass(frozen=True)
class RankBootstrap:
    """Bootstrap replicates of one model's measured and predicted values (``bootstrap_rank_models``).

    Attributes
    ----------
    measured : ndarray of shape (B, 2)
        CE and -log RBP_1 of each resample (nan where no target of the resample is at rank 1).
    params : dict of str to ndarray of shape (B, 2)
        Per form (``FORMS``), the refitted (mu, sigma); nan for a degenerate fit.
    predicted : dict of str to ndarray of shape (B, 2)
        Per form, CE and -log p_1 predicted from the refitted parameters.
    """

    measured: np.ndarray
    params: dict[str, np.ndarray]
    predicted: dict[str, np.ndarray]


def bootstrap_rank_models(models: Sequence[RankModels], samples: Sequence[Mapping[str, np.ndarray]], n_boot: int,
                          seed: int = 0) -> list[RankBootstrap]:
    """Resample the targets of models evaluated on the same text ``n_boot`` times, and on each
    resample recompute every model's measured CE and -log RBP_1, refit every lognormal form (one
    Newton step, as ``one_step_refits``) and predict CE and -log p_1 from it
    (``predict_ce_and_neg_log_p1``).

    Parameters
    ----------
    models : sequence of RankModels
        One per model (``fit_rank_models``), e.g. one family on one corpus.
    samples : sequence of mappings
        One per model, with (n,) arrays ``"rank"`` (1-based) and ``"logp"`` of its targets, as
        fitted in ``models``; all of one length n (the same text).
    n_boot, seed : int
        Number of replicates and seed of the resampling.

    Returns
    -------
    list of RankBootstrap
        One per model.

    Notes
    -----
    Replicate b resamples the same tokens for every model (``bootstrap.resample`` with
    ``same_text=True``), so slopes across the models, and differences between measured and
    predicted values, are paired. A resample is summarised per model by its mean -log p and its
    rank histogram, which is all the refit needs (each form's mean score is the histogram
    times the score at each rank). Resampling single tokens treats neighbouring tokens as
    independent, so the spread is a lower bound on the uncertainty from the choice of text.

    Examples
    --------
    >>> rank = np.minimum(np.ceil(np.random.default_rng(0).lognormal(0.5, 1.5, 2000)), 100).astype(int)
    >>> m = fit_rank_models(rank, 100)
    >>> (b,) = bootstrap_rank_models([m], [{"rank": rank, "logp": -np.log(rank + 1.0)}], n_boot=5)
    >>> b.measured.shape, b.params["1..V"].shape, bool(np.isfinite(b.predicted["powerlaw"]).all())
    ((5, 2), (5, 2), True)
    """
    steps = [{name: _NewtonStep(form.fit, m.counts) for name, form in m.forms.items()} for m in models]
    n_ranks = max(len(m.counts) for m in models)  # V + 1 of the largest vocabulary

    def summary(sample) -> np.ndarray:
        # mean -log p, then the share of targets at each rank 1..V: every other per-token value
        # the refit needs is a function of the rank, so one bincount stands for gathering them
        rank = np.asarray(sample["rank"])
        return np.concatenate([[-np.mean(sample["logp"])], np.bincount(rank, minlength=n_ranks)[1:] / len(rank)])

    tokens = [{"rank": np.asarray(s["rank"]), "logp": np.asarray(s["logp"], np.float64)} for s in samples]
    replicates = bootstrap.resample(tokens, summary, n_boot, seed, same_text=True)  # (n_boot, models, 1 + V)
    out = []
    for i, (m, newton) in enumerate(zip(models, steps)):
        share = replicates[:, i, 1:len(m.counts)]  # (n_boot, V) over this model's ranks
        with np.errstate(divide="ignore"):
            measured = np.column_stack([replicates[:, i, 0], -np.log(share[:, 0])])
        measured[~np.isfinite(measured)] = np.nan  # no target at rank 1 in a resample
        params, predicted = {}, {}
        for name, form in m.forms.items():
            mean_score = share @ newton[name].score if newton[name].ok else np.zeros((n_boot, 2))
            params[name] = newton[name].refits(mean_score)
            predicted[name] = _predict(params[name], form.fit)
        out.append(RankBootstrap(measured, params, predicted))
    return out


def _predict(params: np.ndarray, fit: LognormalRankFit) -> np.ndarray:
    """(B, 2) CE and -log p_1 predicted from (B, 2) refitted (mu, sigma) of ``fit``'s form."""
    values = np.full((len(params), 2), np.nan)
    for b, (mu, sigma) in enumerate(params):
        if np.isfinite(mu) and np.isfinite(sigma) and sigma > 0:
            refit = LognormalRankFit(float(mu), float(sigma), 0.0, fit.n_tokens, fit.vocab_size, fit.support)
            if degeneracy(refit) is None:
                values[b] = predict_ce_and_neg_log_p1(refit)
    return values


def exponent_ratio(sizes, top, bottom, top_replicates, bottom_replicates, level: float = bootstrap.LEVEL
                   ) -> tuple[float, tuple[float, float] | None]:
    """The ratio of two power-law exponents, slope(log top) / slope(log bottom) against log S,
    with its bootstrap interval.

    Parameters
    ----------
    sizes : array_like of shape (models,)
        Model sizes, at least two distinct.
    top, bottom : array_like of shape (models,)
        The two series (e.g. -log RBP_1 and CE, or predicted and measured CE).
    top_replicates, bottom_replicates : array_like of shape (n_boot, models)
        The same on resamples, paired (replicate b of both from one resample).
    level : float
        Level of the interval.

    Returns
    -------
    ratio : float
        nan where a series has a value that is not positive and finite.
    interval : tuple of float, or None
        ``bootstrap.interval`` of the ratio; None where the ratio or a replicate is not finite.

    Examples
    --------
    >>> s = np.array([1e6, 1e7, 1e8])
    >>> ratio, bounds = exponent_ratio(s, s**-0.2, s**-0.1, [s**-0.2, s**-0.2], [s**-0.1, s**-0.1])
    >>> round(ratio, 6), [round(end, 6) for end in bounds]
    (2.0, [2.0, 2.0])
    """
    log_s = np.log(np.asarray(sizes, np.float64))
    (top_slope, bottom_slope), _ = bootstrap.line_fits(log_s, bootstrap.log_or_nan([top, bottom]))
    top_boot, _ = bootstrap.line_fits(log_s, bootstrap.log_or_nan(top_replicates))
    bottom_boot, _ = bootstrap.line_fits(log_s, bootstrap.log_or_nan(bottom_replicates))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = float(top_slope / bottom_slope)
        return ratio, bootstrap.interval(ratio, top_boot / bottom_boot, level)
