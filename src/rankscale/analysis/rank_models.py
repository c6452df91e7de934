"""One model's rank distribution under the three forms of paper A's lognormal (``FORMS``): the
authors' ``powerlaw`` fit, eq. 10 as written (ranks 1..infinity) and eq. 10 over the vocabulary,
each compared with a power law on its own support and turned into the CE and -log p_1 it predicts
(``fit_rank_models``), refitted on resampled tokens (``bootstrap_rank_models``), and exponents
compared through their ratio (``exponent_ratio``). The fits themselves are in
``rankscale.analysis.rank_models``, appendix C's sums in ``rankscale.analysis.appendix_c``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import erfc, log_ndtr, logsumexp, zeta

from rankscale.analysis import appendix_c, bootstrap
from rankscale.analysis.appendix_c import LOG_SQRT_2PI

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


class NewtonRefit:
    """A lognormal form refitted to resamples of its tokens by one Newton step of the resample's
    log-likelihood from the full-sample maximum, in (mu, ln sigma).

    The per-rank score (V, 2) and the Hessian of the mean log-likelihood come from finite
    differences of the form's own log-probabilities. ``ok`` is False for a degenerate fit or where
    the Hessian is not negative definite (no step can be taken). Since a resample's maximum lies
    within O(n^-1/2) of the full sample's, one step leaves an error of O(1/n), far below the
    bootstrap spread (checked against full refits in the tests), at a small fraction of a refit's
    cost.

    Parameters
    ----------
    fit : LognormalRankFit
        A lognormal fitted to ``counts``, in any form (``fit.support``).
    counts : array_like of shape (V + 1,)
        The full sample's rank histogram.
    step : float
        Finite-difference step in mu and ln sigma.

    Examples
    --------
    >>> counts = np.bincount(np.repeat([1, 2, 3, 5, 8], [50, 20, 10, 5, 2]), minlength=11)
    >>> fit = fit_lognormal_ranks(counts)
    >>> newton = NewtonRefit(fit, counts)
    >>> np.allclose(newton.refits([counts[1:] / counts.sum()]), [[fit.mu, fit.sigma]], atol=1e-4)  # its own maximum
    True
    """

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

    def refits(self, shares) -> np.ndarray:
        """(B, 2) (mu, sigma) refitted to each of B resamples, given as (B, V) shares of its
        targets at ranks 1..V; nan where no step can be taken."""
        shares = np.atleast_2d(np.asarray(shares, np.float64))
        if not self.ok:
            return np.full((len(shares), 2), np.nan)
        mean_score = shares @ self.score
        with np.errstate(all="ignore"):
            theta = np.array([self.fit.mu, np.log(self.fit.sigma)]) - np.linalg.solve(self.hessian, mean_score.T).T
        return np.column_stack([theta[:, 0], np.exp(theta[:, 1])])


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
                          seed: int = 0, *, same_text=True, by: str | None = None) -> list[RankBootstrap]:
    """Resample the targets of models evaluated on the same text ``n_boot`` times, and on each
    resample recompute every model's measured CE and -log RBP_1, refit every lognormal form (one
    Newton step, ``NewtonRefit``) and predict CE and -log p_1 from it
    (``predict_ce_and_neg_log_p1``).

    Parameters
    ----------
    models : sequence of RankModels
        One per model (``fit_rank_models``), e.g. one family on one corpus.
    samples : sequence of mappings
        One per model, with (n,) arrays ``"rank"`` (1-based) and ``"logp"`` of its targets, as
        fitted in ``models``, and ``by``'s group ids where given; all of one length n (the same text).
    n_boot, seed : int
        Number of replicates and seed of the resampling.
    same_text, by
        How a replicate resamples the text (``bootstrap.resample``): by default the same tokens for every model.

    Returns
    -------
    list of RankBootstrap
        One per model.

    Notes
    -----
    Replicate b resamples the same text for every model (``bootstrap.resample`` with
    ``same_text=True``), so slopes across the models, and differences between measured and
    predicted values, are paired. A resample is summarised per model by its mean -log p and its
    rank histogram, which is all the refit needs (each form's mean score is the histogram
    times the score at each rank). Resampling single tokens treats neighbouring tokens as
    independent, which understates the uncertainty from the choice of text; ``by="document"`` draws
    whole documents instead.

    Examples
    --------
    >>> rank = np.minimum(np.ceil(np.random.default_rng(0).lognormal(0.5, 1.5, 2000)), 100).astype(int)
    >>> m = fit_rank_models(rank, 100)
    >>> (b,) = bootstrap_rank_models([m], [{"rank": rank, "logp": -np.log(rank + 1.0)}], n_boot=5)
    >>> b.measured.shape, b.params["1..V"].shape, bool(np.isfinite(b.predicted["powerlaw"]).all())
    ((5, 2), (5, 2), True)
    """
    steps = [{name: NewtonRefit(form.fit, m.counts) for name, form in m.forms.items()} for m in models]
    n_ranks = max(len(m.counts) for m in models)  # V + 1 of the largest vocabulary

    def summary(sample) -> np.ndarray:
        # mean -log p, then the share of targets at each rank 1..V: every other per-token value
        # the refit needs is a function of the rank, so one bincount stands for gathering them
        rank = np.asarray(sample["rank"])
        return np.concatenate([[-np.mean(sample["logp"])], np.bincount(rank, minlength=n_ranks)[1:] / len(rank)])

    tokens = [{"rank": np.asarray(s["rank"]), "logp": np.asarray(s["logp"], np.float64),
               **({by: np.asarray(s[by])} if by else {})} for s in samples]
    replicates = bootstrap.resample(tokens, summary, n_boot, seed, same_text=same_text, by=by)  # (n_boot, models, 1 + V)
    out = []
    for i, (m, newton) in enumerate(zip(models, steps)):
        share = replicates[:, i, 1:len(m.counts)]  # (n_boot, V) over this model's ranks
        with np.errstate(divide="ignore"):
            measured = np.column_stack([replicates[:, i, 0], -np.log(share[:, 0])])
        measured[~np.isfinite(measured)] = np.nan  # no target at rank 1 in a resample
        params, predicted = {}, {}
        for name, form in m.forms.items():
            params[name] = newton[name].refits(share)
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


def _log_ranks(vocab_size: int) -> np.ndarray:
    return np.log(np.arange(1, vocab_size + 1, dtype=np.float64))


def lognormal_log_pmf(mu: float, sigma: float, vocab_size: int) -> np.ndarray:
    """Log-probabilities of ranks 1..V under the discrete lognormal p_r = psi(r) / sum_{j<=V} psi(j)
    (paper A, eq. 10, normalised over the vocabulary).

    Parameters
    ----------
    mu, sigma : float
        Parameters of ln R (sigma > 0).
    vocab_size : int
        V, the largest rank.

    Returns
    -------
    ndarray of shape (V,)
        Entry r - 1 is log p_r.

    Examples
    --------
    >>> np.exp(lognormal_log_pmf(0.0, 1.0, 3)).round(3)
    array([0.635, 0.25 , 0.116])
    """
    log_psi = appendix_c.log_psi(mu, sigma, _log_ranks(vocab_size))
    return log_psi - logsumexp(log_psi)


def zipf_log_pmf(alpha: float, vocab_size: int) -> np.ndarray:
    """Log-probabilities of ranks 1..V under the power law p_r = r^-alpha / sum_{j<=V} j^-alpha.

    Parameters
    ----------
    alpha : float
        The exponent.
    vocab_size : int
        V, the largest rank.

    Returns
    -------
    ndarray of shape (V,)
        Entry r - 1 is log p_r.

    Examples
    --------
    >>> np.exp(zipf_log_pmf(1.0, 3)).round(3)
    array([0.545, 0.273, 0.182])
    """
    log_w = -alpha * _log_ranks(vocab_size)
    return log_w - logsumexp(log_w)


def zeta_log_pmf(alpha: float, vocab_size: int) -> np.ndarray:
    """Log-probabilities of ranks 1..V under the unbounded power law p_r = r^-alpha / zeta(alpha),
    the ``powerlaw`` package's discrete power law with ``xmin=1``.

    Parameters
    ----------
    alpha : float
        The exponent, above 1.
    vocab_size : int
        V, the largest rank returned.

    Returns
    -------
    ndarray of shape (V,)
        Entry r - 1 is log p_r; they sum to less than 1, the rest lying beyond rank V.

    Examples
    --------
    >>> np.exp(zeta_log_pmf(2.0, 2)).round(3)
    array([0.608, 0.152])
    """
    return -alpha * _log_ranks(vocab_size) - np.log(zeta(alpha, 1))


@dataclass(frozen=True)
class LognormalRankFit:
    """A maximum-likelihood discrete lognormal of the ranks.

    Attributes
    ----------
    mu, sigma : float
        Its parameters.
    log_likelihood : float
        Of the fitted histogram.
    n_tokens, vocab_size : int
        Targets fitted, and V.
    support : str
        Its form: "1..V" (eq. 10 normalised over ranks 1..V), "1..inf" (eq. 10 as written, normalised over
        ranks 1..infinity, eq. 11) or "powerlaw" (the powerlaw package's discrete lognormal, as paper A's code
        fits it).

    Examples
    --------
    >>> np.exp(LognormalRankFit(0.0, 1.0, 0.0, 1, 3).log_pmf()).round(3)
    array([0.635, 0.25 , 0.116])
    """

    mu: float
    sigma: float
    log_likelihood: float
    n_tokens: int
    vocab_size: int
    support: str = "1..V"

    def log_pmf(self) -> np.ndarray:
        """Log-probabilities the fitted model gives ranks 1..V.

        Returns
        -------
        ndarray of shape (V,)
            Summing to less than 1 for the unbounded forms, whose remaining mass lies beyond the
            vocabulary.
        """
        if self.support == "1..V":
            return lognormal_log_pmf(self.mu, self.sigma, self.vocab_size)
        if self.support == "1..inf":
            log_r = _log_ranks(self.vocab_size)
            return appendix_c.log_psi(self.mu, self.sigma, log_r) - appendix_c.log_c(self.mu, self.sigma)
        return powerlaw_log_pmf(self.mu, self.sigma, self.vocab_size)


@dataclass(frozen=True)
class ZipfRankFit:
    """Maximum-likelihood power law over ranks 1..``vocab_size`` (exponent ``alpha``)."""

    alpha: float
    log_likelihood: float
    n_tokens: int
    vocab_size: int

    def log_pmf(self) -> np.ndarray:
        """(V,) log-probabilities of ranks 1..V (``zipf_log_pmf``)."""
        return zipf_log_pmf(self.alpha, self.vocab_size)


def fit_lognormal_ranks(counts) -> LognormalRankFit:
    """Fit the discrete lognormal of ``lognormal_log_pmf`` to a rank histogram by maximum likelihood.

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        ``counts[r]`` targets of rank r, ``counts[0] = 0`` (``np.bincount`` of 1-based ranks).

    Returns
    -------
    LognormalRankFit
        With support "1..V".

    Notes
    -----
    In the natural parameters theta = (mu / sigma^2, -1 / (2 sigma^2)) of ln r and (ln r)^2 the
    model is an exponential family, so the negative log-likelihood is convex and its minimum
    matches the model's mean of ln r and (ln r)^2 to the data's. sigma is kept finite.

    Examples
    --------
    >>> counts = np.bincount(np.repeat([1, 2, 3, 5, 8], [50, 20, 10, 5, 2]), minlength=11)
    >>> f = fit_lognormal_ranks(counts)
    >>> bool(f.mu < 1 and f.sigma > 0)
    True
    """
    n_r = rank_histogram_counts(counts)
    n = n_r.sum()
    log_r = _log_ranks(len(n_r))
    m1, m2 = n_r @ log_r / n, n_r @ log_r**2 / n

    def mean_nll(theta):
        log_w = theta[0] * log_r + theta[1] * log_r**2 - log_r
        log_z = logsumexp(log_w)
        p = np.exp(log_w - log_z)
        return log_z - theta[0] * m1 - theta[1] * m2 + m1, np.array([p @ log_r - m1, p @ log_r**2 - m2])

    var0 = max(m2 - m1**2, 1e-2)
    result = minimize(mean_nll, [m1 / var0, -0.5 / var0], jac=True, method="L-BFGS-B",
                      bounds=[(None, None), (None, -1e-9)], options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 1000})
    var = -0.5 / result.x[1]
    return LognormalRankFit(float(result.x[0] * var), float(np.sqrt(var)), float(-n * result.fun), int(n), len(n_r))


def fit_zipf_ranks(counts, max_alpha: float = 10.0) -> ZipfRankFit:
    """Fit the power law of ``zipf_log_pmf`` to a rank histogram by maximum likelihood.

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        As in ``fit_lognormal_ranks``.
    max_alpha : float
        Upper bound of the exponent (the lower is 0).

    Returns
    -------
    ZipfRankFit

    Notes
    -----
    The power law is the lognormal family's edge sigma -> infinity (with mu / sigma^2 = 1 - alpha),
    so its best log-likelihood never exceeds the lognormal's.

    Examples
    --------
    >>> counts = np.bincount(np.repeat([1, 2, 3, 4], [48, 12, 5, 3]), minlength=5)
    >>> round(fit_zipf_ranks(counts).alpha, 2)
    2.02
    """
    n_r = rank_histogram_counts(counts)
    n = n_r.sum()
    log_r = _log_ranks(len(n_r))
    m1 = n_r @ log_r / n
    result = minimize_scalar(lambda a: logsumexp(-a * log_r) + a * m1, bounds=(0.0, max_alpha),
                             method="bounded", options={"xatol": 1e-10})
    return ZipfRankFit(float(result.x), float(-n * result.fun), int(n), len(n_r))


def powerlaw_log_pmf(mu: float, sigma: float, vocab_size: int) -> np.ndarray:
    """Log-probabilities of ranks 1..V under the ``powerlaw`` package's discrete lognormal with
    ``xmin=1``: the continuous density's mass on [r - 1/2, r + 1/2), over its mass on [1/2, inf).

    Parameters
    ----------
    mu, sigma : float
        Parameters of the continuous lognormal.
    vocab_size : int
        V, the largest rank returned.

    Returns
    -------
    ndarray of shape (V,)
        Entry r - 1 is log p_r; they sum to less than 1, the rest lying beyond rank V.

    Examples
    --------
    >>> np.exp(powerlaw_log_pmf(0.0, 1.0, 2)).round(3)
    array([0.547, 0.215])
    """
    z = (np.log(np.arange(0.5, vocab_size + 1)) - mu) / sigma  # edges 1/2, 3/2, ..., V + 1/2
    log_sf = log_ndtr(-z)  # log P(X > edge), accurate in the far tail
    log_mass = log_sf[:-1] + np.log1p(-np.exp(np.minimum(log_sf[1:] - log_sf[:-1], 0.0)))
    return log_mass - log_sf[0]


@dataclass(frozen=True)
class AuthorsFit:
    """The rank fits of paper A's released code, from one ``powerlaw.Fit``: the package's discrete
    lognormal (support "powerlaw"), its power law's exponent, and its comparison of the two."""

    lognormal: LognormalRankFit
    power_law_alpha: float
    vuong: VuongTest | None = None  # the package's comparison, lognormal over power law (z > 0 favours it)


def fit_authors(rank, vocab_size: int | None = None) -> AuthorsFit:
    """Fit the ranks as paper A's released code does: ``powerlaw.Fit(rank, discrete=True, xmin=1)``
    with that package's defaults, reading ``lognormal.mu``, ``lognormal.sigma`` and
    ``power_law.alpha``, and comparing the two with the package's ``distribution_compare`` (the
    code's ``R, p``; here lognormal over power law, with the normalised ratio as z).

    Parameters
    ----------
    rank : array_like of shape (n,)
        1-based ranks.
    vocab_size : int, optional
        The ranks the log-likelihood is recomputed over (default max(rank)), from
        ``powerlaw_log_pmf``, the package's discrete form.

    Returns
    -------
    AuthorsFit
        The package's warnings (e.g. when its lognormal search runs to extreme parameters, see
        ``degeneracy``) are not passed on.

    Examples
    --------
    >>> rank = np.minimum(np.ceil(np.random.default_rng(0).lognormal(0.5, 1.5, 2000)), 100).astype(int)
    >>> fit = fit_authors(rank, 100)
    >>> fit.lognormal.support, bool(fit.vuong.z > 0)
    ('powerlaw', True)
    """
    import powerlaw

    rank = np.asarray(rank)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        fitted = powerlaw.Fit(rank, discrete=True, xmin=1, verbose=False)
        mu, sigma = float(fitted.lognormal.mu), float(fitted.lognormal.sigma)
        ratio, p_value = fitted.distribution_compare("lognormal", "power_law")
        z, _ = fitted.distribution_compare("lognormal", "power_law", normalized_ratio=True)
        vocab_size = int(vocab_size or rank.max())
        counts = np.bincount(rank, minlength=vocab_size + 1)[1:]
        log_likelihood = float(counts @ powerlaw_log_pmf(mu, sigma, vocab_size))
    return AuthorsFit(LognormalRankFit(mu, sigma, log_likelihood, len(rank), vocab_size, support="powerlaw"),
                      float(fitted.power_law.alpha), VuongTest(float(ratio), float(z), float(p_value)))


def rank_fits_record(rank, vocab_size: int) -> dict:
    """The rank fits as plain values (what ``python -m rankscale metrics --json`` prints).

    Parameters
    ----------
    rank : array_like of shape (n,)
        1-based ranks.
    vocab_size : int
        V, the largest possible rank.

    Returns
    -------
    dict
        ``lognormal_authors`` and ``power_law`` as paper A's code fits them (``fit_authors``), and
        ``lognormal_eq10`` (``fit_lognormal_eq10``); a degenerate lognormal fit is
        ``{"degenerate": True, "reason": ...}`` instead of numbers (``degeneracy``).

    Examples
    --------
    >>> rank = np.minimum(np.ceil(np.random.default_rng(0).lognormal(0.5, 1.5, 2000)), 100).astype(int)
    >>> sorted(rank_fits_record(rank, 100))
    ['lognormal_authors', 'lognormal_eq10', 'power_law']
    """
    rank = np.asarray(rank)
    authors = fit_authors(rank)
    eq10 = fit_lognormal_eq10(np.bincount(rank, minlength=vocab_size + 1))

    def lognormal(fit: LognormalRankFit) -> dict:
        reason = degeneracy(fit)
        return {"degenerate": True, "reason": reason} if reason else {"mu": fit.mu, "sigma": fit.sigma}

    return {"lognormal_authors": lognormal(authors.lognormal), "lognormal_eq10": lognormal(eq10),
            "power_law": {"alpha": authors.power_law_alpha}}


def fit_lognormal_eq10(counts, start: LognormalRankFit | None = None) -> LognormalRankFit:
    """Fit eq. 10 exactly as written, p_r = psi(r) / c(mu, sigma) with c summed over ranks
    1..infinity (eq. 11, ``appendix_c.log_c``), by maximum likelihood on a rank histogram.

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        As in ``fit_lognormal_ranks``.
    start : LognormalRankFit, optional
        Where the search begins (default: the 1..V fit).

    Returns
    -------
    LognormalRankFit
        With support "1..inf" and the histogram's V as ``vocab_size``.

    Examples
    --------
    >>> counts = np.bincount(np.repeat([1, 2, 3, 5, 8], [50, 20, 10, 5, 2]), minlength=11)
    >>> f = fit_lognormal_eq10(counts)
    >>> f.support, bool(np.exp(f.log_pmf()).sum() < 1)  # some mass lies beyond rank V
    ('1..inf', True)
    """
    n_r = rank_histogram_counts(counts)
    n = n_r.sum()
    log_r = _log_ranks(len(n_r))
    m1, m2 = n_r @ log_r / n, n_r @ log_r**2 / n
    start = start or fit_lognormal_ranks(counts)

    def mean_nll(theta):
        mu, sigma = theta[0], np.exp(theta[1])
        # -mean log psi(r) + log c, with mean (ln r - mu)^2 = m2 - 2 mu m1 + mu^2
        return (m1 + (m2 - 2 * mu * m1 + mu**2) / (2 * sigma**2) + np.log(sigma) + LOG_SQRT_2PI
                + appendix_c.log_c(mu, sigma, n_direct=max(4096, 2 * len(n_r))))

    with np.errstate(all="ignore"):  # far from the data the search may visit extreme parameters
        result = minimize(mean_nll, [start.mu, np.log(start.sigma)], method="Nelder-Mead",
                          options={"xatol": 1e-8, "fatol": 1e-12, "maxiter": 4000})
    return LognormalRankFit(float(result.x[0]), float(np.exp(result.x[1])), float(-n * result.fun), int(n), len(n_r),
                            support="1..inf")


# Below this, less than a millionth of the fitted lognormal's mass lies at ranks >= 1: the data
# see only the far tail of the curve, where mu and sigma trade off along a ridge of nearly equal
# likelihood and appendix C's log c (about log P) swamps every other term of eqs. 16 and 21.
MIN_MASS_ABOVE_RANK_ONE = 1e-6


def degeneracy(fit: LognormalRankFit) -> str | None:
    """Why a lognormal fit's parameters are not informative numbers, or None if they are.

    Parameters
    ----------
    fit : LognormalRankFit

    Returns
    -------
    str or None

    Notes
    -----
    A fit is degenerate when it ran to extreme parameters: a non-finite or non-positive sigma, or a
    median so far below rank 1 that less than ``MIN_MASS_ABOVE_RANK_ONE`` of its mass lies at
    ranks 1 and above (P = Phi(mu / sigma) of paper A's eq. 13). A strongly peaked rank
    distribution, nearly all targets at rank 1, drives mu there.

    Examples
    --------
    >>> degeneracy(LognormalRankFit(-40.0, 6.0, 0.0, 1, 10)) is not None
    True
    >>> degeneracy(LognormalRankFit(1.0, 2.0, 0.0, 1, 10)) is None
    True
    """
    if not (np.isfinite(fit.mu) and np.isfinite(fit.sigma) and fit.sigma > 0):
        return f"the fit did not converge (mu {fit.mu}, sigma {fit.sigma})"
    log_mass = float(log_ndtr(fit.mu / fit.sigma))
    if log_mass < np.log(MIN_MASS_ABOVE_RANK_ONE):
        return (f"extreme parameters (mu {fit.mu:.3g}, sigma {fit.sigma:.3g}): only {np.exp(log_mass):.1e} of the "
                f"fitted mass lies at ranks >= 1, so mu and sigma are set by the far tail alone")
    return None


def rank_counts_by_probability(logp, rank, prob_edges, max_rank: int) -> np.ndarray:
    """How the ranks of targets are spread at a given target probability (paper A, Figure 1).

    Parameters
    ----------
    logp : array_like of shape (n,)
        Log-probabilities of the targets.
    rank : array_like of shape (n,)
        Their 1-based ranks.
    prob_edges : array_like of shape (m + 1,)
        Increasing probability bin edges; bins are half-open [lo, hi), targets outside are left out.
    max_rank : int
        Ranks counted one by one.

    Returns
    -------
    ndarray of shape (m, max_rank + 1)
        Column j < max_rank holds the targets of rank j + 1 in each bin, the last column those
        ranked below ``max_rank``.

    Examples
    --------
    >>> rank_counts_by_probability(np.log([0.3, 0.3, 0.3, 0.9]), np.array([1, 2, 7, 1]), [0.2, 0.4, 1.0], 2)
    array([[1, 1, 1],
           [1, 0, 0]])
    """
    prob = np.exp(np.asarray(logp, np.float64))
    rank = np.asarray(rank)
    edges = np.asarray(prob_edges, np.float64)
    bins = np.searchsorted(edges, prob, side="right") - 1
    inside = (bins >= 0) & (bins < len(edges) - 1)
    column = np.minimum(rank[inside], max_rank + 1) - 1
    out = np.zeros((len(edges) - 1, max_rank + 1), np.int64)
    np.add.at(out, (bins[inside], column), 1)
    return out


def rank_histogram_counts(counts) -> np.ndarray:
    """Counts of ranks 1..V from a rank histogram, checked.

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        ``counts[r]`` targets of rank r for r = 0..V, ``counts[0] = 0``, V >= 2.

    Returns
    -------
    ndarray of shape (V,)
        Float counts of ranks 1..V.

    Examples
    --------
    >>> rank_histogram_counts([0, 3, 1, 0]).tolist()
    [3.0, 1.0, 0.0]
    """
    counts = np.asarray(counts, np.float64)
    if counts.ndim != 1 or len(counts) < 3 or counts[0] != 0 or (counts < 0).any() or counts.sum() == 0:
        raise ValueError("counts must be a rank histogram: counts[r] targets of rank r for r = 0..V, "
                         "counts[0] = 0, V >= 2 (np.bincount(rank, minlength=V + 1) of 1-based ranks)")
    return counts[1:]


@dataclass(frozen=True)
class VuongTest:
    """Log-likelihood ratio of model a over model b: total, normalised (z) and two-sided p-value."""

    log_likelihood_ratio: float
    z: float
    p_value: float


def vuong_test(counts, log_pmf_a, log_pmf_b) -> VuongTest:
    """Vuong's test of two rank models on a histogram (what paper A's code reports through
    ``powerlaw``'s ``distribution_compare``).

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        The rank histogram.
    log_pmf_a, log_pmf_b : array_like of shape (V,)
        Log-probabilities of ranks 1..V under the two models.

    Returns
    -------
    VuongTest
        The per-token log-likelihood ratio l_i has total R = sum l_i and z = R / (sqrt(n) *
        std(l_i)); R > 0 favours a, and p = erfc(|z| / sqrt(2)) is the chance of a |z| this large
        if both models fitted equally well.

    Notes
    -----
    Calibrated for non-nested models; the power law is nested in the finite-support lognormal
    (see ``fit_zipf_ranks``), so read z as the size of the gap in units of its
    token-to-token noise.

    Examples
    --------
    >>> t = vuong_test([0, 6, 3, 1], np.log([0.6, 0.3, 0.1]), np.log([1 / 3] * 3))
    >>> bool(t.z > 0), round(t.log_likelihood_ratio, 3)
    (True, 2.007)
    """
    n_r = rank_histogram_counts(counts)
    n = n_r.sum()
    ratio = np.asarray(log_pmf_a) - np.asarray(log_pmf_b)
    total = float(n_r @ ratio)
    spread = np.sqrt(n_r @ (ratio - total / n) ** 2 / n)
    z = total / (np.sqrt(n) * spread)
    return VuongTest(total, float(z), float(erfc(abs(z) / np.sqrt(2))))


def ks_distance(counts, log_pmf) -> float:
    """Largest gap between the empirical and the model's cumulative rank distribution (the
    Kolmogorov-Smirnov statistic) over ranks 1..V.

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        The rank histogram.
    log_pmf : array_like of shape (V,)
        The model's log-probabilities of ranks 1..V.

    Returns
    -------
    float

    Examples
    --------
    >>> round(ks_distance([0, 6, 3, 1], np.log([0.5, 0.3, 0.2])), 3)
    0.1
    """
    n_r = rank_histogram_counts(counts)
    return float(np.max(np.abs(np.cumsum(n_r) / n_r.sum() - np.cumsum(np.exp(log_pmf)))))


def log_binned_frequency(counts, n_bins: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Rank histogram averaged over logarithmic bins, for plotting on log-log axes.

    Parameters
    ----------
    counts : array_like of shape (V + 1,)
        The rank histogram.
    n_bins : int
        Bins between rank 1 and V + 1 (fewer where low ranks would share a bin edge).

    Returns
    -------
    centres : ndarray of shape (m,)
        The geometric centre of each non-empty bin of integer ranks.
    frequency : ndarray of shape (m,)
        The fraction of targets per rank in it, so that frequency * (ranks in the bin) sums to 1.

    Examples
    --------
    >>> centres, freq = log_binned_frequency([0, 4, 2, 1, 1], n_bins=2)
    >>> np.round(centres, 3).tolist(), np.round(freq, 3).tolist()  # ranks 1 and 2-4
    ([1.0, 2.828], [0.5, 0.167])
    """
    n_r = rank_histogram_counts(counts)
    inner = np.floor(np.logspace(0, np.log10(len(n_r) + 1), n_bins + 1)[:-1])
    edges = np.unique(np.r_[inner, len(n_r) + 1].astype(np.int64))  # bin i holds ranks edges[i]..edges[i+1]-1
    sums = np.add.reduceat(n_r, edges[:-1] - 1)
    widths = np.diff(edges)
    centres = np.sqrt(edges[:-1] * (edges[1:] - 1))
    keep = sums > 0
    return centres[keep], sums[keep] / (n_r.sum() * widths[keep])


def entropy_and_neg_log_p1(log_pmf) -> tuple[float, float]:
    """What paper A's section 5.2 predicts from a rank distribution p_r: the cross-entropy of a
    model whose probability for a target of rank r is p_r, i.e. the entropy -sum p_r log p_r, and
    -log p_1 (= -log RBP_1 under that distribution).

    Parameters
    ----------
    log_pmf : array_like of shape (V,)
        Log-probabilities of ranks 1..V.

    Returns
    -------
    entropy, neg_log_p1 : float

    Examples
    --------
    >>> [round(v, 4) for v in entropy_and_neg_log_p1(np.log([0.5, 0.25, 0.25]))]
    [1.0397, 0.6931]
    """
    log_pmf = np.asarray(log_pmf, np.float64)
    return float(-np.exp(log_pmf) @ log_pmf), float(-log_pmf[0])
