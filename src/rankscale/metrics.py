"""Metrics: pure numpy functions of per-target records (``logp``, ``gt``, ``ge``).

Rank conventions (both derived from the stored counts):
- paper A, eq. 3: 1-based rank R = #{v : p(v) >= p(t)} = ``ge + 1``; its authors' code counts
  strictly higher scores, ``gt + 1``. ``rank_1based(gt, ge, ties=...)`` gives either.
- paper B, eq. 1: 0-based rank-based error RBE = #{v : p(v) > p(t)} = ``gt``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp


def rank_1based(gt: np.ndarray, ge: np.ndarray, ties: str = "ge") -> np.ndarray:
    """Paper A's rank of the target, 1 for the top token.

    ties="ge" counts tied tokens as ranked above the target (paper A, eq. 3); ties="gt" counts
    only strictly higher ones (paper A's released code).
    """
    if ties == "ge":
        return np.asarray(ge, np.int64) + 1
    if ties == "gt":
        return np.asarray(gt, np.int64) + 1
    raise ValueError(f"ties must be 'ge' or 'gt', got {ties!r}")


def rbp(rank: np.ndarray, ks) -> np.ndarray:
    """RBP_k = P(rank <= k) for each k (paper A, eq. 4), with 1-based ranks.

    rank : (n,) ints >= 1; ks : scalar or (m,) ints. Returns (m,) floats in [0, 1].

    >>> rbp(np.array([1, 1, 3, 10]), [1, 3, 5])
    array([0.5 , 0.75, 0.75])
    """
    ranks = np.sort(np.asarray(rank))
    ks = np.atleast_1d(np.asarray(ks))
    return np.searchsorted(ranks, ks, side="right") / len(ranks)


def cross_entropy(logp: np.ndarray) -> float:
    """Mean negative log-probability of the targets, in nats."""
    return float(-np.mean(np.asarray(logp, np.float64)))


@dataclass(frozen=True)
class Decomposition:
    """Paper B's CE = EE + SA - Conf (its eqs. 2-8), over the RBE values that occur.

    e : (m,) distinct RBE values; p_e : their frequencies; log_q_e : log of the normalised
    geometric-mean scores q_e = Q_e / C; log_C : log of C = sum_e Q_e.
    """

    e: np.ndarray
    n_e: np.ndarray
    p_e: np.ndarray
    log_q_e: np.ndarray
    log_C: float
    ce: float
    error_entropy: float
    self_alignment: float
    confidence: float

    @property
    def q_e(self) -> np.ndarray:
        return np.exp(self.log_q_e)


def ce_decomposition(logp: np.ndarray, rbe: np.ndarray) -> Decomposition:
    """Decompose cross-entropy by the target's rank-based error (paper B, section 3.2).

    Groups targets by RBE e: N_e targets with log-probability sum S_e give p_e = N_e / N and
    log Q_e = S_e / N_e (log of the geometric mean). Then EE = -sum p log p,
    SA = sum p log(p / q), Conf = log C, and CE = EE + SA - Conf holds exactly.

    logp : (n,) log-probabilities; rbe : (n,) ints >= 0 (``gt``).
    """
    logp = np.asarray(logp, np.float64)
    e, inverse, n_e = np.unique(np.asarray(rbe), return_inverse=True, return_counts=True)
    s_e = np.bincount(inverse, weights=logp, minlength=len(e))
    p_e = n_e / len(logp)
    log_Q = s_e / n_e
    log_C = float(logsumexp(log_Q))
    log_q = log_Q - log_C
    log_p = np.log(p_e)
    return Decomposition(
        e=e, n_e=n_e, p_e=p_e, log_q_e=log_q, log_C=log_C,
        ce=float(-logp.mean()),
        error_entropy=float(-np.sum(p_e * log_p)),
        self_alignment=float(np.sum(p_e * (log_p - log_q))),
        confidence=log_C,
    )


def window_success(rank: np.ndarray, window: np.ndarray, n: int, ks) -> np.ndarray:
    """p_{N,k}: fraction of runs of ``n`` consecutive targets that all rank within the top k
    (paper A, section 5.1), measured rather than predicted as RBP_k ** n.

    Runs slide one target at a time and never cross a window boundary.
    rank : (n_targets,) 1-based ranks; window : (n_targets,) window ids, each window's targets
    contiguous and in order; ks : scalar or (m,). Returns (m,) floats.
    """
    rank = np.asarray(rank)
    window = np.asarray(window)
    if n < 1:
        raise ValueError(f"run length n must be at least 1, got {n}")
    starts = np.arange(len(rank) - n + 1)
    starts = starts[window[starts] == window[starts + n - 1]]
    if len(starts) == 0:
        raise ValueError(f"no window holds {n} consecutive targets; use a smaller n or longer windows")
    result = []
    for k in np.atleast_1d(ks):
        hits = np.concatenate([[0], np.cumsum(rank <= k)])
        result.append(np.mean(hits[starts + n] - hits[starts] == n))
    return np.array(result)


def rank_histogram(rank: np.ndarray, vocab_size: int | None = None) -> np.ndarray:
    """Counts of each 1-based rank: ``counts[r]`` targets had rank r (``counts[0]`` is 0).

    Length ``vocab_size + 1`` if given, else max(rank) + 1. Input to the lognormal and
    power-law fits of the rank distribution (paper A, section 5.2).
    """
    rank = np.asarray(rank)
    if rank.min() < 1:
        raise ValueError("ranks must be 1-based (>= 1); use rank_1based(gt, ge)")
    return np.bincount(rank, minlength=(vocab_size or 0) + 1)


def summary(logp: np.ndarray, gt: np.ndarray, ge: np.ndarray, ks=(1, 10, 100, 1000)) -> dict[str, float]:
    """CE, RBP_k (paper A's ``ge + 1`` rank) and paper B's EE, SA, Conf of one extraction."""
    dec = ce_decomposition(logp, gt)
    out = {"n_tokens": len(logp), "CE": dec.ce}
    out.update({f"RBP_{k}": float(v) for k, v in zip(ks, rbp(rank_1based(gt, ge), ks))})
    out.update({"EE": dec.error_entropy, "SA": dec.self_alignment, "Conf": dec.confidence})
    return out
