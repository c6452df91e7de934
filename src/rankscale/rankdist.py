"""Distributions of the target's rank (paper A, section 5.2 and appendix C).

Paper A models the rank R of the correct token as a discretised lognormal: rank r has
probability p_r = psi(r) / c with psi(x) = exp(-(ln x - mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma x)
(its eq. 10). Here that model and a power law (Zipf, p_r proportional to r^-alpha) are fitted by
maximum likelihood to a histogram of ranks 1..V. Comparing fits (Vuong's test, the KS distance)
and what the paper predicts from a rank distribution (its entropy, what appendix C calls CE, and
-log p_1) are in ``rankscale.rankstats``; appendix C's sums over ranks 1..infinity, exact and
approximated, in ``rankscale.appendix_c``.

The lognormal is fitted three ways, because the paper uses it in three forms:

- ``fit_authors``: as paper A's released code fits it, with the ``powerlaw`` package
  (``powerlaw.Fit(ranks, discrete=True, xmin=1)``), whose discrete lognormal gives rank r the
  continuous density's mass on [r - 1/2, r + 1/2), normalised on [1/2, infinity);
- ``fit_lognormal_eq10``: eq. 10 exactly as written, p_r = psi(r) / c with c summed over ranks
  1..infinity (eq. 11), the model appendix C analyses and eqs. 16-21 take their (mu, sigma) from;
- ``fit_lognormal_ranks``: eq. 10's point form normalised over the vocabulary's ranks 1..V, the
  distribution that can actually occur.

All use every rank from 1 (no lower cut-off). ``degeneracy`` says when a fit has run to extreme
parameters, where its (mu, sigma) are no longer informative numbers. ``rankscale.rankmodels``
bundles the three fits of one model with what each predicts.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import log_ndtr, logsumexp, zeta

from rankscale.appendix_c import LOG_SQRT_2PI
from rankscale.appendix_c import exact as appendix_c_exact
from rankscale.rankstats import VuongTest, rank_histogram_counts


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
    log_r = _log_ranks(vocab_size)
    log_psi = -log_r - (log_r - mu) ** 2 / (2 * sigma**2)
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


SUPPORTS = {
    "1..V": "eq. 10 normalised over ranks 1..V",
    "1..inf": "eq. 10 as written, normalised over ranks 1..infinity (eq. 11)",
    "powerlaw": "the powerlaw package's discrete lognormal, as paper A's code fits it",
}


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
        Its form, a key of ``SUPPORTS``.

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
            log_psi = -log_r - (log_r - self.mu) ** 2 / (2 * self.sigma**2) - np.log(self.sigma) - LOG_SQRT_2PI
            return log_psi - appendix_c_exact(self.mu, self.sigma).log_c
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
        ``counts[r]`` targets of rank r, ``counts[0] = 0`` (``metrics.rank_histogram``).

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
    1..infinity (eq. 11, ``appendix_c.exact``), by maximum likelihood on a rank histogram.

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
                + appendix_c_exact(mu, sigma, n_direct=max(4096, 2 * len(n_r))).log_c)

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
