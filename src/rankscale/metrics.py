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


def k_grid(vocab_size: int, n: int, extra=()) -> np.ndarray:
    """Values of k for a sweep of RBP_k over one vocabulary (paper A, Fig. 6): ``n`` log-spaced
    integers from 1 to ``vocab_size`` (duplicates after rounding dropped), with the ``extra``
    values that lie in [1, vocab_size] added. Families with other vocabularies get their own grid.

    >>> k_grid(1000, 4, extra=[50, 5000])
    array([   1,   10,   50,  100, 1000])
    """
    if vocab_size < 1 or n < 2:
        raise ValueError(f"k_grid needs vocab_size >= 1 and n >= 2, got {vocab_size} and {n}")
    grid = np.unique(np.round(np.geomspace(1, vocab_size, n)).astype(np.int64))
    extra = np.asarray([k for k in np.atleast_1d(extra) if 1 <= k <= vocab_size], np.int64)
    return np.union1d(grid, extra)


def cross_entropy(logp: np.ndarray) -> float:
    """Mean negative log-probability of the targets, in nats."""
    return float(-np.mean(np.asarray(logp, np.float64)))


def mean_target_probability(logp: np.ndarray) -> float:
    """Paper A's absolute metric p_A (its Fig. 2a): the mean probability given to the target.

    >>> mean_target_probability(np.log([0.5, 0.25]))
    0.375
    """
    return float(np.mean(np.exp(np.asarray(logp, np.float64))))


def discordant_pairs(a, b, margin: float = 0.0) -> int:
    """How many pairs of results two metrics (larger is better for both) order oppositely, each
    by more than a relative ``margin``: pairs (i, j) with a_i > (1 + margin) a_j and
    b_j > (1 + margin) b_i, or the same with i and j swapped. Used to show that paper A's absolute
    metric p_A does not determine its relative RBP_k (its §3, Fig. 2). a, b : (n,) positive values.

    >>> discordant_pairs([0.1, 0.2, 0.3], [0.5, 0.4, 0.6])
    1
    >>> discordant_pairs([0.1, 0.2, 0.3], [0.5, 0.4, 0.6], margin=0.5)
    0
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-d arrays of one length, got {a.shape} and {b.shape}")
    i, j = np.triu_indices(len(a), 1)
    scale = 1.0 + margin
    i_wins_a = (a[i] > scale * a[j]) & (b[j] > scale * b[i])
    j_wins_a = (a[j] > scale * a[i]) & (b[i] > scale * b[j])
    return int(np.count_nonzero(i_wins_a | j_wins_a))


@dataclass(frozen=True)
class Decomposition:
    """Paper B's CE = EE + SA - Conf (its eqs. 2-8), over the RBE values that occur.

    e : (m,) distinct RBE values; n_e : how many targets have each; p_e : their frequencies;
    log_q_e : log of the normalised geometric-mean scores q_e = Q_e / C; log_C : log of
    C = sum_e Q_e.
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

    @property
    def log_Q_e(self) -> np.ndarray:
        """Log of the unnormalised geometric-mean scores Q_e (paper B, eq. 3)."""
        return self.log_q_e + self.log_C

    def terms(self) -> dict[str, float]:
        """CE and its components by their short names: ``CE``, ``EE``, ``SA``, ``Conf``."""
        return {"CE": self.ce, "EE": self.error_entropy, "SA": self.self_alignment, "Conf": self.confidence}

    @property
    def residual(self) -> float:
        """CE - (EE + SA - Conf): zero up to rounding (paper B, eq. 8)."""
        return self.ce - (self.error_entropy + self.self_alignment - self.confidence)


def ce_decomposition(logp: np.ndarray, rbe: np.ndarray) -> Decomposition:
    """Decompose cross-entropy by the target's rank-based error (paper B, section 3.2).

    Groups targets by RBE e: N_e targets with log-probability sum S_e give p_e = N_e / N and
    log Q_e = S_e / N_e (log of the geometric mean). Then EE = -sum p log p,
    SA = sum p log(p / q), Conf = log C, and CE = EE + SA - Conf holds exactly.

    logp : (n,) log-probabilities; rbe : (n,) ints >= 0 (``gt``).
    """
    logp = np.asarray(logp, np.float64)
    rbe = np.asarray(rbe)
    if rbe.shape != logp.shape or rbe.ndim != 1 or len(rbe) == 0:
        raise ValueError(f"logp and rbe must be non-empty 1-d arrays of one length, got {logp.shape} and {rbe.shape}")
    counts = np.bincount(rbe)
    e = np.flatnonzero(counts)
    n_e = counts[e]
    s_e = np.bincount(rbe, weights=logp, minlength=len(counts))[e]
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


COMPONENTS = ("EE", "SA", "Conf")


def ce_shares(error_entropy, self_alignment, confidence, signed: bool = True) -> dict[str, np.ndarray]:
    """Each component's share of cross-entropy (paper B, section 5, Figure 8).

    signed=True gives the contributions EE / CE, SA / CE and -Conf / CE, which sum to 1
    exactly because CE = EE + SA - Conf; a positive Confidence makes its share negative and
    EE's larger than 1. signed=False gives |EE|, |SA| and |Conf| over their sum: shares in
    [0, 1] that sum to 1, the form of a stacked percentage chart.

    Arguments are scalars or arrays of one shape (e.g. one entry per model); returns a dict
    keyed by ``COMPONENTS``.
    """
    terms = [np.asarray(error_entropy, np.float64), np.asarray(self_alignment, np.float64),
             -np.asarray(confidence, np.float64)]
    if not signed:
        terms = [np.abs(t) for t in terms]
    total = sum(terms)
    return {name: t / total for name, t in zip(COMPONENTS, terms)}


def ce_exponent_from_components(signed_shares: dict[str, np.ndarray], exponents: dict[str, float]) -> np.ndarray:
    """The local exponent d log CE / d log N implied by the components' exponents.

    Since CE = EE + SA - Conf, d log CE = sum_M (signed share of M) * d log|M| with the signed
    shares of ``ce_shares``; with alpha_M = d log|M| / d log N (paper B, eq. 9) the CE exponent
    at a size is the share-weighted sum of the components' exponents. If only EE scales, CE's
    exponent is alpha_EE * EE / CE and shrinks with EE's share: the paper's slowing argument.

    signed_shares : dict keyed by ``COMPONENTS`` (scalars or arrays); exponents : same keys.
    """
    return sum(np.asarray(signed_shares[name], np.float64) * exponents[name] for name in COMPONENTS)


def local_log_slopes(sizes, values) -> tuple[np.ndarray, np.ndarray]:
    """Slopes of log(value) against log(size) between neighbouring sizes.

    sizes : (m,) increasing positive sizes; values : (m,) positive values.
    Returns the geometric midpoints of neighbouring sizes (m - 1,) and the slopes there (m - 1,).
    A power law gives the same slope everywhere; a law that slows gives slopes shrinking in
    magnitude.
    """
    sizes = np.asarray(sizes, np.float64)
    values = np.asarray(values, np.float64)
    if sizes.shape != values.shape or sizes.ndim != 1 or len(sizes) < 2 or not np.all(np.diff(sizes) > 0):
        raise ValueError("sizes must be increasing and match values, with at least two points")
    if not (np.all(sizes > 0) and np.all(values > 0) and np.isfinite(values).all()):
        raise ValueError("sizes and values must be positive and finite")
    x, y = np.log(sizes), np.log(values)
    return np.exp((x[1:] + x[:-1]) / 2), np.diff(y) / np.diff(x)


def top_rank_probs(top_logp: np.ndarray, rbe: np.ndarray, e: int) -> np.ndarray:
    """Mean output probability of the best, second best, ... token over the targets whose RBE
    is ``e`` (paper B, Figure 5: the target itself sits at 0-based position e unless it ties).

    top_logp : (n, k) log-probabilities of each prediction's k best tokens, best first;
    rbe : (n,) ints. Returns (k,) arithmetic means of the probabilities.
    """
    chosen = np.asarray(rbe) == e
    if not chosen.any():
        raise ValueError(f"no target has RBE {e}")
    return np.exp(np.asarray(top_logp, np.float64)[chosen]).mean(axis=0)


def sharpest_drop(probs) -> int:
    """1-based position j after which a decreasing score profile falls most in relative terms:
    the j maximising log p_j - log p_(j+1). With ``top_rank_probs`` it says where the model's
    probability mass breaks off (paper B, Figure 5).
    """
    probs = np.asarray(probs, np.float64)
    if probs.ndim != 1 or len(probs) < 2 or not np.all(probs > 0):
        raise ValueError("probs must be a 1-d array of at least two positive values")
    return int(np.argmax(-np.diff(np.log(probs)))) + 1


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


def subsampled_decompositions(logp: np.ndarray, rbe: np.ndarray, window: np.ndarray, n_tokens,
                              n_repeats: int = 10, seed: int = 0, unit: str = "tokens") -> dict[str, np.ndarray]:
    """CE, EE, SA and Conf of random subsets of whole windows holding about ``n`` targets each.

    Each repeat shuffles the windows once (``seed`` fixes every shuffle) and, for each n of
    ``n_tokens``, takes the shortest prefix of that order that holds at least n targets, so the
    subsets of one repeat are nested. Whole windows keep neighbouring, correlated tokens
    together, as an evaluation on less text would. Records with the same window ids get the same
    shuffles, so models evaluated on the same windows see the same subsets.

    Parameters
    ----------
    logp, rbe, window : (N,) arrays
        Per-target log-probability, 0-based rank-based error and window id.
    n_tokens : (m,) array
        Target counts (or window counts, with ``unit="windows"``).
    n_repeats, seed : int
        Shuffles of the windows, and their seed.
    unit : {"tokens", "windows"}
        With ``"windows"`` each n counts windows (evaluation instances, as paper B's App. A.1
        counts them): the first n windows of the shuffled order, or all of them where n exceeds
        their number.

    Returns
    -------
    dict of arrays of shape (m, n_repeats)
        Keyed ``n_tokens`` (targets actually drawn), ``n_windows`` (windows drawn), ``CE``,
        ``EE``, ``SA``, ``Conf``, ``ranks_seen`` (distinct RBE values) and ``ranks_seen_once``.

    Examples
    --------
    >>> rbe, window = np.arange(40) % 4, np.arange(40) // 10
    >>> out = subsampled_decompositions(np.log(np.full(40, 0.25)), rbe, window, [15, 40], n_repeats=2)
    >>> out["n_tokens"].tolist(), out["n_windows"][0].tolist(), out["ranks_seen"][-1].tolist()
    ([[20.0, 20.0], [40.0, 40.0]], [2.0, 2.0], [4.0, 4.0])
    """
    if unit not in ("tokens", "windows"):
        raise ValueError(f"unit must be 'tokens' or 'windows', got {unit!r}")
    logp, rbe = np.asarray(logp), np.asarray(rbe)
    ids, token_window = np.unique(np.asarray(window), return_inverse=True)
    sizes = np.bincount(token_window)
    by_window = np.argsort(token_window, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    grid = np.atleast_1d(np.asarray(n_tokens))
    keys = ("n_tokens", "n_windows", "CE", "EE", "SA", "Conf", "ranks_seen", "ranks_seen_once")
    out = {key: np.empty((len(grid), n_repeats)) for key in keys}
    rng = np.random.default_rng(seed)
    for r in range(n_repeats):
        order = rng.permutation(len(ids))
        filled = np.cumsum(sizes[order])
        for i, n in enumerate(grid):
            if unit == "windows":
                n_windows = min(int(n), len(order))
            else:
                n_windows = min(int(np.searchsorted(filled, n)) + 1, len(order))
            take = np.concatenate([by_window[starts[w]:starts[w + 1]] for w in order[:n_windows]])
            dec = ce_decomposition(logp[take], rbe[take])
            values = (len(take), n_windows, dec.ce, dec.error_entropy, dec.self_alignment, dec.confidence,
                      len(dec.e), np.sum(dec.n_e == 1))
            for key, value in zip(keys, values):
                out[key][i, r] = value
    return out


def sample_size_error(n_tokens, values: np.ndarray) -> np.ndarray:
    """Estimated error of an estimate at each token count of a grid: its spread plus its drift.

    At count n the error is sqrt(sd(n)^2 + (mean(n) - mean(n/2))^2): the standard deviation over
    repeats and the change of their mean over the last doubling of the data, with mean(n/2)
    interpolated linearly in log n. For a bias that decays as 1/n, the change over a doubling
    equals the bias left at n; a slower decay makes it an underestimate.

    Parameters
    ----------
    n_tokens : (m,) array
        Increasing token counts.
    values : (m, repeats) array
        Estimates of one quantity at each count (e.g. from ``subsampled_decompositions``).

    Returns
    -------
    ndarray of shape (m,): the error at each count; NaN where n/2 is below the grid.

    Examples
    --------
    >>> grid = np.array([1000, 2000, 4000])
    >>> np.round(sample_size_error(grid, 2.0 + 50.0 / grid[:, None] * np.ones((1, 3))), 4).tolist()
    [nan, 0.025, 0.0125]
    """
    n_tokens = np.asarray(n_tokens, np.float64)
    values = np.asarray(values, np.float64)
    if values.ndim != 2 or len(values) != len(n_tokens) or not np.all(np.diff(n_tokens) > 0):
        raise ValueError(f"need increasing token counts and values of shape ({len(n_tokens)}, repeats), "
                         f"got {values.shape}")
    mean, sd = values.mean(axis=1), values.std(axis=1)
    log_n = np.log(n_tokens)
    half = np.interp(log_n - np.log(2), log_n, mean)
    drift = np.where(n_tokens / 2 >= n_tokens[0], mean - half, np.nan)
    return np.sqrt(sd ** 2 + drift ** 2)


def tokens_needed(n_tokens, values: np.ndarray, tolerance: float) -> float:
    """Smallest token count of a grid from which on ``sample_size_error`` stays within
    ``tolerance``: at that count and at every larger one.

    Parameters
    ----------
    n_tokens : (m,) array
        Increasing token counts.
    values : (m, repeats) array
        Estimates at each count, as for ``sample_size_error``.
    tolerance : float
        The allowed error, in the units of ``values``.

    Returns
    -------
    float
        The count; NaN if the largest count misses, i.e. the estimate was still moving over the
        last doubling and needs more tokens than the grid has.

    Examples
    --------
    >>> grid = np.array([1000, 2000, 4000, 8000])
    >>> exact = 2.0 + 50.0 / grid[:, None] * np.ones((1, 3))  # error 50 / n from 2000 tokens on
    >>> tokens_needed(grid, exact, 0.02), tokens_needed(grid, exact, 0.001)
    (4000.0, nan)
    """
    ok = sample_size_error(n_tokens, values) <= tolerance  # NaN compares False
    if not ok[-1]:
        return float("nan")
    first_of_last_run = len(ok) - int(np.argmin(ok[::-1])) if not ok.all() else 0
    return float(np.asarray(n_tokens)[first_of_last_run])


# ---------------------------------------------------------------------------------------------
# Sample-size helpers (chapter B5 and the convergence check of chapter B3)


def token_grid(n_available: int, min_tokens: int, n_grid: int) -> np.ndarray:
    """Subsample sizes for ``subsampled_decompositions``.

    Parameters
    ----------
    n_available : int
        Every token (the largest count, always on the grid).
    min_tokens : int
        The smallest count (``n_available`` if that is smaller).
    n_grid : int
        Number of counts, evenly spaced in log, at least 2.

    Returns
    -------
    ndarray of int64: the counts, rounded, duplicates dropped (so possibly fewer than ``n_grid``).

    Examples
    --------
    >>> token_grid(20000, 1000, 4)
    array([ 1000,  2714,  7368, 20000])
    >>> token_grid(500, 1000, 4)
    array([500])
    """
    if n_available < 1 or min_tokens < 1 or n_grid < 2:
        raise ValueError("token_grid needs n_available >= 1, min_tokens >= 1 and n_grid >= 2")
    return np.unique(np.geomspace(min(min_tokens, n_available), n_available, n_grid).round().astype(np.int64))


def n_windows(window: np.ndarray) -> int:
    """How many distinct windows (evaluation instances) a record holds, from its (N,) per-target
    window ids (``Records.window``).

    Examples
    --------
    >>> n_windows(np.array([0, 0, 1, 1, 1, 5]))
    3
    """
    return int(len(np.unique(np.asarray(window))))


def mean_interval(values: np.ndarray, level: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Normal interval of the mean over independent repeats (e.g. random subsamples): the mean -+ z
    standard errors (sd over the repeats / sqrt(repeats)). Unlike ``rankscale.bootstrap.interval``
    (a value -+ z sd of bootstrap replicates), the repeats are the measurements, their mean the estimate.

    Parameters
    ----------
    values : (..., repeats) array
        Repeated measurements along the last axis, at least two.
    level : float, optional
        Two-sided level; default ``rankscale.bootstrap.LEVEL`` (z = 1.96 at 95%).

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper ends, each of shape ``values.shape[:-1]``.

    Examples
    --------
    >>> lo, hi = mean_interval(np.array([[1.0, 3.0]]))
    >>> np.round([lo[0], hi[0]], 3).tolist()
    [0.04, 3.96]
    """
    from statistics import NormalDist

    from rankscale.bootstrap import LEVEL

    values = np.asarray(values, np.float64)
    z = NormalDist().inv_cdf((1 + (LEVEL if level is None else level)) / 2)
    mean = values.mean(axis=-1)
    half = z * values.std(axis=-1, ddof=1) / np.sqrt(values.shape[-1])
    return mean - half, mean + half
