"""Paper A's appendix C: the sums of its lognormal rank model over ranks 1..infinity, evaluated
exactly (``exact``) and by the paper's closed forms (``approx``, eqs. 13-21), so that the two can be
compared. p_k = psi(k) / c with psi(x) = exp(-(ln x - mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma x) and
c = sum_{k>=1} psi(k) (eqs. 10-11). Everything is computed in log space, so that c, which shrinks
like exp(-mu^2 / (2 sigma^2)), stays representable as mu -> -infinity, the limit appendix C
discusses.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import erfcx
from scipy.stats import norm

LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def _normal_tail_log_moments(mu: float, sigma: float, lower: float) -> np.ndarray:
    """log of int_lower^inf t^g N(t; mu, sigma^2) dt for g = 0, 1, 2 (lower >= 0).

    With t = ln x these are int_{e^lower}^inf psi(x) (ln x)^g dx: for lower = 0, P, I_1 and I_2 of
    paper A's eqs. 13-15. Written as sums of positive terms (via the Mills ratio for b >= 0) so that
    no cancellation or underflow occurs far in the tail.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return _tail_log_moments(mu, sigma, lower)


def _tail_log_moments(mu: float, sigma: float, lower: float) -> np.ndarray:
    log_j = _log_standard_tail_moments((lower - mu) / sigma)
    # t = lower + sigma * w with w = z - b >= 0; log_j[g] = log int (z - b)^g phi(z) dz
    return np.array([
        log_j[0],
        *_log_weighted_sums(log_j[:2], np.array([lower, sigma])),
        *_log_weighted_sums(log_j, np.array([lower**2, 2 * lower * sigma, sigma**2])),
    ])


def _log_standard_tail_moments(b: float) -> np.ndarray:
    """log of int_b^inf (z - b)^g phi(z) dz for g = 0, 1, 2, phi the standard normal density; for
    g = 0 it is the normal tail's log probability."""
    if b >= 0:
        mills = np.sqrt(np.pi / 2) * erfcx(b / np.sqrt(2))  # Q(b) / phi(b)
        log_phi = -b * b / 2 - LOG_SQRT_2PI
        return log_phi + np.log([mills, 1 - b * mills, (1 + b * b) * mills - b])
    q, phi = norm.sf(b), norm.pdf(b)
    return np.log([q, phi - b * q, (1 + b * b) * q - b * phi])


def _log_weighted_sums(log_terms: np.ndarray, *weights: np.ndarray) -> list[float]:
    """log(sum(w * exp(log_terms))) for each w of ``weights`` (each >= 0), without overflow
    (scipy's ``logsumexp(log_terms, b=w)``, without its per-call overhead, and with the exponentials
    taken once for every w: the eq.-10 fit calls this tens of thousands of times)."""
    top = np.max(log_terms, initial=-np.inf)
    if not np.isfinite(top):
        return [float(top)] * len(weights)
    scaled = np.exp(log_terms - top)
    return [float(top + np.log(w @ scaled)) for w in weights]


@lru_cache(maxsize=8)
def _direct_grid(n_direct: int) -> tuple[np.ndarray, np.ndarray]:
    """log k for k = 1..n_direct, and the weights (log k)^g for g = 0, 1, 2 with the
    Euler-Maclaurin half weight on the last term, shape (3, n_direct); read-only, shared by calls."""
    log_k = np.log(np.arange(1, n_direct + 1, dtype=np.float64))
    end = np.ones(n_direct)
    end[-1] = 0.5  # sum_{k<N} f(k) + f(N)/2 + int_N^inf f = sum_{k>=1} f(k) up to f'(N)/12
    weights = np.stack([end, end * log_k, end * log_k**2])
    log_k.flags.writeable = weights.flags.writeable = False
    return log_k, weights


@dataclass(frozen=True)
class AppendixC:
    """Paper A's appendix-C quantities for one (mu, sigma), exact or approximated.

    log_c : log of c = sum_{k>=1} psi(k) (eq. 11) or of its approximation psi(1)/2 + P (eq. 20);
    log_s1, log_s2 : log of sum_k psi(k) ln k and sum_k psi(k) ln^2 k, or of I_1, I_2 (eqs. 14-15);
    neg_log_p1 : -log p_1 (eq. 16); ce : -sum_k p_k log p_k (eq. 17 exact, eq. 21 approximated).
    """

    mu: float
    sigma: float
    log_c: float
    log_s1: float
    log_s2: float
    neg_log_p1: float
    ce: float

    def ce_terms(self) -> dict[str, float]:
        """CE split as in eq. 21.

        Returns
        -------
        dict of str to float
            log(sqrt(2 pi) sigma), log c, mu^2 / (2 sigma^2) and the rest (eq. 26), summing to CE.

        Examples
        --------
        >>> terms = approx(-20.0, 2.0).ce_terms()
        >>> round(terms["log c"] + terms["mu^2/(2 sigma^2)"], 2)  # the two large terms cancel
        -1.97
        """
        terms = {"log(sqrt(2 pi) sigma)": LOG_SQRT_2PI + np.log(self.sigma), "log c": self.log_c,
                 "mu^2/(2 sigma^2)": self.mu**2 / (2 * self.sigma**2)}
        return {**terms, "remainder (eq. 26)": self.ce - sum(terms.values())}


def _neg_log_p1(mu: float, sigma: float, log_c: float) -> float:
    """Eq. 16: -log p_1 = log c + log(sqrt(2 pi) sigma) + mu^2 / (2 sigma^2)."""
    return float(log_c + LOG_SQRT_2PI + np.log(sigma) + mu**2 / (2 * sigma**2))


def ce_from_sums(mu: float, sigma: float, log_c: float, log_s1: float, log_s2: float) -> float:
    """CE by eq. 17 (eq. 18 when given the integrals): log(sqrt(2 pi) sigma) + log c
    + [sum psi (ln k - mu)^2 / (2 sigma^2) + sum psi ln k] / c.

    Parameters
    ----------
    mu, sigma : float
        The lognormal's parameters.
    log_c, log_s1, log_s2 : float
        log c and the logs of sum psi(k) ln k and sum psi(k) ln^2 k (or of I_1, I_2).

    Returns
    -------
    float

    Examples
    --------
    >>> e = exact(1.0, 2.0)
    >>> bool(abs(ce_from_sums(1.0, 2.0, e.log_c, e.log_s1, e.log_s2) - e.ce) < 1e-12)
    True
    """
    e1, e2 = np.exp(log_s1 - log_c), np.exp(log_s2 - log_c)
    return float(LOG_SQRT_2PI + np.log(sigma) + log_c + (e2 - 2 * mu * e1 + mu**2) / (2 * sigma**2) + e1)


def exact(mu: float, sigma: float, n_direct: int = 2**15) -> AppendixC:
    """c, the two sums, -log p_1 and CE of p_k = psi(k) / c on k = 1..infinity, summed.

    Parameters
    ----------
    mu, sigma : float
        The lognormal's parameters (sigma > 0).
    n_direct : int
        Ranks 1..``n_direct`` are added term by term; the rest is the integral from ``n_direct``
        on (closed form) with the Euler-Maclaurin end correction, whose error is of order
        psi(n_direct) / n_direct, negligible for the default.

    Returns
    -------
    AppendixC

    Examples
    --------
    >>> e = exact(1.0, 4.0)
    >>> round(e.ce, 3), round(e.neg_log_p1, 3)
    (5.537, 1.912)
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return _exact(mu, sigma, n_direct)


def _exact(mu: float, sigma: float, n_direct: int) -> AppendixC:
    log_k, weights = _direct_grid(n_direct)
    log_terms = log_psi(mu, sigma, log_k)
    tail = _normal_tail_log_moments(mu, sigma, float(log_k[-1]))
    log_c = _log_c(log_terms, weights, tail[0])
    # the sums of (ln k)^g psi(k) for g = 1, 2 skip k = 1, where ln k = 0: each is scaled by the
    # largest term it contains, or a far-left lognormal's k = 1 term would underflow the rest
    direct = np.array(_log_weighted_sums(log_terms[1:], weights[1, 1:], weights[2, 1:]))
    log_s1, log_s2 = np.logaddexp(direct, tail[1:])
    return AppendixC(mu, sigma, log_c, float(log_s1), float(log_s2), _neg_log_p1(mu, sigma, log_c),
                     ce_from_sums(mu, sigma, log_c, log_s1, log_s2))


def log_c(mu: float, sigma: float, n_direct: int = 2**15) -> float:
    """log c = log sum_{k>=1} psi(k) (eq. 11) alone, bit for bit ``exact(mu, sigma, n_direct).log_c``
    at about half its cost: the eq.-10 fit (``rank_models.fit_lognormal_eq10``) needs nothing else,
    at each of tens of thousands of steps.

    Examples
    --------
    >>> log_c(1.0, 4.0) == exact(1.0, 4.0).log_c
    True
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_k, weights = _direct_grid(n_direct)
        # of the tail, its g = 0 moment alone: the normal tail's log probability beyond log n_direct
        log_tail = _log_standard_tail_moments((float(log_k[-1]) - mu) / sigma)[0]
        return _log_c(log_psi(mu, sigma, log_k), weights, log_tail)


def log_psi(mu: float, sigma: float, log_k: np.ndarray) -> np.ndarray:
    """log psi(k) (eq. 10's numerator) at the ranks whose logs are ``log_k``.

    Examples
    --------
    >>> float(np.exp(log_psi(0.0, 1.0, np.log([1.0]))[0]).round(4))  # the standard normal's density at 0
    0.3989
    """
    return -log_k - (log_k - mu) ** 2 / (2 * sigma**2) - np.log(sigma) - LOG_SQRT_2PI


def _log_c(log_terms: np.ndarray, weights: np.ndarray, log_tail: float) -> float:
    """log c: the direct sum of psi over ``_direct_grid``'s ranks (``log_terms``, its logs; ``weights``,
    the grid's), and the tail beyond them (``log_tail``, its log)."""
    return float(np.logaddexp(_log_weighted_sums(log_terms, weights[0])[0], log_tail))


def approx(mu: float, sigma: float) -> AppendixC:
    """Paper A's closed forms: c ~ psi(1)/2 + P (eq. 20), the sums ~ I_1, I_2 (eqs. 14-15),
    -log p_1 from eq. 16 and CE from eq. 21, both with the approximate c (as in the authors' code).

    Parameters
    ----------
    mu, sigma : float
        The lognormal's parameters (sigma > 0).

    Returns
    -------
    AppendixC

    Examples
    --------
    >>> a = approx(1.0, 4.0)
    >>> round(a.ce, 3), round(a.neg_log_p1, 3)
    (5.576, 1.901)
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        return _approx(mu, sigma)


def _approx(mu: float, sigma: float) -> AppendixC:
    log_p, log_i1, log_i2 = _normal_tail_log_moments(mu, sigma, 0.0)
    a = -mu / sigma
    log_phi_a = -a * a / 2 - LOG_SQRT_2PI
    log_c = float(np.logaddexp(log_phi_a - np.log(sigma) - np.log(2), log_p))
    bracket = (np.exp(log_p - log_c) * ((sigma**2 - mu**2) / (2 * sigma**2) + mu)
               + np.exp(log_phi_a - log_c) * (sigma - mu / (2 * sigma)))
    neg_log_p1 = _neg_log_p1(mu, sigma, log_c)  # eq. 21: CE = -log p_1 + the bracket
    return AppendixC(mu, sigma, log_c, float(log_i1), float(log_i2), neg_log_p1, float(neg_log_p1 + bracket))
