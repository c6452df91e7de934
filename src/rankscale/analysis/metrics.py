"""Metrics: pure numpy functions of per-target records (``logp``, ``gt``, ``ge``).

Rank conventions (both derived from the stored counts):
- paper A, eq. 3: 1-based rank R = #{v : p(v) >= p(t)} = ``ge + 1``; its authors' code counts
  strictly higher scores, ``gt + 1``. ``rank_1based(gt, ge, ties=...)`` gives either.
- paper B, eq. 1: 0-based rank-based error RBE = #{v : p(v) > p(t)} = ``gt``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from rankscale.analysis.bootstrap import resample


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
    >>> rbp(np.array([1, 2]), [0])
    Traceback (most recent call last):
    ValueError: RBP_k needs k >= 1 (ranks are 1-based), got k = 0
    """
    ranks = np.sort(np.asarray(rank))
    ks = np.atleast_1d(np.asarray(ks))
    if (ks < 1).any():
        raise ValueError(f"RBP_k needs k >= 1 (ranks are 1-based), got k = {ks[ks < 1][0]}")
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


def summary(sample: Mapping[str, np.ndarray], ks=(1, 10, 100, 1000)) -> dict[str, float | None]:
    """One result's metrics, each named with its unit (what ``rankscale metrics`` prints).

    Parameters
    ----------
    sample : mapping of str to ndarray
        Per-target arrays of shape (n,) (``rankscale.records.store.Records.arrays``): ``logp``, ``gt``
        and ``ge``, and, where the records have them, ``n_bytes`` and ``n_words`` (the UTF-8 bytes and
        the whitespace-separated words that each target's text covers); where they are absent or
        None, the metrics that need them are None.
    ks : sequence of int
        The k of RBP_k, each at least 1.

    Returns
    -------
    dict of str to float or None
        ``ce_nats``: the mean of -log p over the targets, in nats per token; ``bits_per_byte``:
        sum(-log p) / (ln 2 * sum(n_bytes)); ``byte_perplexity``: exp(sum(-log p) / sum(n_bytes));
        ``word_perplexity``: exp(sum(-log p) / sum(n_words)) (the three as lm-evaluation-harness
        defines them, over the scored targets; None where the bytes or words are not recorded or
        sum to 0); ``rbp_<k>``: the share of targets ranked k or better (paper A's rank, ``ge + 1``);
        ``ee_nats``, ``sa_nats``, ``conf_nats``: paper B's Error-Entropy, Self-Alignment and
        Confidence, in nats (CE = EE + SA - Conf).

    Examples
    --------
    >>> sample = {"logp": np.log([0.5, 0.25]), "gt": np.array([0, 1]), "ge": np.array([0, 1]),
    ...           "n_bytes": np.array([1, 2]), "n_words": np.array([1, 0])}
    >>> values = summary(sample, ks=[1])
    >>> list(values)
    ['ce_nats', 'bits_per_byte', 'byte_perplexity', 'word_perplexity', 'rbp_1', 'ee_nats', 'sa_nats', 'conf_nats']
    >>> round(values["bits_per_byte"], 6), round(values["word_perplexity"], 6), values["rbp_1"]
    (1.0, 8.0, 0.5)
    >>> summary({key: sample[key] for key in ("logp", "gt", "ge")}, ks=[1])["bits_per_byte"] is None
    True
    """
    logp = np.asarray(sample["logp"], np.float64)
    dec = ce_decomposition(logp, sample["gt"])
    nll = float(-logp.sum())

    def per(unit: str) -> float | None:  # nats per byte or per word; None where the records lack the unit
        counts = sample.get(unit)
        total = None if counts is None else int(np.sum(counts, dtype=np.int64))
        return nll / total if total else None

    per_byte, per_word = per("n_bytes"), per("n_words")
    out = {"ce_nats": dec.ce,
           "bits_per_byte": None if per_byte is None else per_byte / math.log(2),
           "byte_perplexity": None if per_byte is None else float(np.exp(per_byte)),
           "word_perplexity": None if per_word is None else float(np.exp(per_word))}
    out.update({f"rbp_{k}": float(v) for k, v in zip(ks, rbp(rank_1based(sample["gt"], sample["ge"]), ks))})
    out.update({"ee_nats": dec.error_entropy, "sa_nats": dec.self_alignment, "conf_nats": dec.confidence})
    return out


def summary_with_errors(sample: Mapping[str, np.ndarray], ks=(1, 10, 100, 1000), n_boot: int = 100,
                        seed: int = 0) -> dict[str, float | None]:
    """``summary``, with each value's standard error beside it (``<name>_se``): the standard deviation
    of the value over ``n_boot`` bootstrap replicates that resample whole documents with replacement
    (``rankscale.analysis.bootstrap.resample`` with ``by="document"``, as every interval of the book).

    Whole documents, because the tokens of a document share its subject, style and vocabulary, and
    its windows their context: their losses are correlated, and a standard error over single tokens,
    or over the windows of a few long documents, treats them as independent and comes out too small.
    For the papers' corpora a window is a document (the first 512 tokens of each), so this is the
    bootstrap over documents by which lm-evaluation-harness gives the standard errors of its
    perplexities. The bootstrap also carries the ratios (bits per byte, the perplexities) and paper
    B's components, which have no closed-form error.

    Parameters
    ----------
    sample : mapping of str to ndarray
        As ``summary`` takes it, with ``document`` (shape (n,)): the document of each target.
    ks : sequence of int
        The k of RBP_k.
    n_boot : int
        Bootstrap replicates; 0: no standard errors (each ``_se`` is None).
    seed : int
        Seed of the resampling.

    Returns
    -------
    dict of str to float or None
        Each key of ``summary`` followed by its ``_se``; None where the value is, without replicates, and where
        some replicate has no value (a resample of documents without words, say).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> gt = rng.integers(0, 9, 400)
    >>> sample = {"logp": -rng.exponential(2.0, 400), "gt": gt, "ge": gt, "document": np.repeat(np.arange(20), 20)}
    >>> values = summary_with_errors(sample, ks=[1], n_boot=50)
    >>> list(values)[:4], values["bits_per_byte_se"]
    (['ce_nats', 'ce_nats_se', 'bits_per_byte', 'bits_per_byte_se'], None)
    >>> bool(0 < values["ce_nats_se"] < 0.3)
    True
    """
    values = summary(sample, ks)
    spread = [np.nan] * len(values)
    if n_boot:
        keys = [key for key in ("logp", "gt", "ge", "n_bytes", "n_words", "document") if sample.get(key) is not None]

        def as_row(resampled) -> list[float]:
            return [np.nan if v is None else v for v in summary(resampled, ks).values()]

        spread = resample([{key: sample[key] for key in keys}], as_row, n_boot, seed, by="document")[:, 0].std(axis=0)
    out = {}
    for (name, value), se in zip(values.items(), spread):
        # None, not NaN, where there is no error to give (no replicates, or a replicate without the unit's words)
        out[name], out[f"{name}_se"] = value, float(se) if value is not None and np.isfinite(se) else None
    return out


# ---------------------------------------------------------------------------------------------
# Sample-size helpers (chapter B5 and the convergence check of chapter B3)


def rbp_curve(rank, max_k: int) -> np.ndarray:
    """RBP_k for every k from 0 to ``max_k`` at once, by counting ranks rather than sorting them.

    Parameters
    ----------
    rank : array_like of int, shape (n,)
        1-based ranks of the n targets.
    max_k : int
        The largest k.

    Returns
    -------
    ndarray of shape (max_k + 1,)
        Entry k is the share of targets ranked k or better (``rankscale.analysis.metrics.rbp(rank, k)``);
        entry 0 is 0.

    Examples
    --------
    >>> rbp_curve(np.array([1, 1, 3, 10]), 5).tolist()
    [0.0, 0.5, 0.5, 0.75, 0.75, 0.75]
    """
    rank = np.asarray(rank)
    counts = np.bincount(np.minimum(rank, max_k + 1), minlength=max_k + 2)
    return np.cumsum(counts)[: max_k + 1] / len(rank)


def neg_log_rbp(rank, ks) -> np.ndarray:
    """-log RBP_k at each k of ``ks``: the quantity paper A fits against size (eq. 5).

    Parameters
    ----------
    rank : array_like of int, shape (n,)
        1-based ranks of the n targets.
    ks : sequence of int, length m
        The k, each at least 1.

    Returns
    -------
    ndarray of shape (m,)
        inf where no target is within the top k (RBP_k = 0), 0 where every target is; log-log
        fits leave out both (``rankscale.analysis.fit.fit_if_positive``).

    Examples
    --------
    >>> neg_log_rbp(np.array([1, 2, 2, 4]), [1, 2]).round(4).tolist()
    [1.3863, 0.2877]
    >>> neg_log_rbp(np.array([3, 4]), [1])
    array([inf])
    """
    ks = np.asarray(ks, dtype=np.int64)
    with np.errstate(divide="ignore"):
        return -np.log(rbp_curve(rank, int(ks.max()))[ks])


def convention_gap(gt, ge) -> tuple[float, float]:
    """How far RBP_k moves between paper A's eq. 3 rank and its released code's rank.

    Eq. 3 ranks a target at ``ge + 1`` (ties counted against it), the released code at
    ``gt + 1`` (ties for it). Over every k from 1 to the largest rank, the gap |RBP_k(ge) -
    RBP_k(gt)| is compared with RBP_k's binomial standard error sqrt(RBP_k (1 - RBP_k) / n).

    Parameters
    ----------
    gt, ge : array_like of int, shape (n,)
        Per target, the number of tokens scoring strictly higher, and higher or equal (the
        target itself not counted).

    Returns
    -------
    gap : float
        The largest absolute gap over k.
    in_se : float
        The largest gap in units of the standard error at the same k (inf where a gap meets a
        zero standard error). At most 1: the convention moves no RBP_k by more than its own
        sampling noise.

    Examples
    --------
    >>> convention_gap(np.array([0, 0, 2, 5]), np.array([0, 0, 2, 5]))
    (0.0, 0.0)
    >>> gap, in_se = convention_gap(np.array([0, 0, 2, 5]), np.array([0, 1, 2, 5]))
    >>> round(gap, 3), round(in_se, 3)
    (0.25, 1.155)
    """
    gt, ge = np.asarray(gt), np.asarray(ge)
    top = int(max(ge.max(), gt.max())) + 1
    by_ge, by_gt = rbp_curve(ge + 1, top)[1:], rbp_curve(gt + 1, top)[1:]
    gap = np.abs(by_ge - by_gt)
    se = np.sqrt(by_ge * (1 - by_ge) / len(ge))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(gap > 0, gap / se, 0.0)
    return float(gap.max()), float(ratio.max())


def both_outcomes(at_rank_one, targets, min_targets: int, min_share: float) -> tuple[int, int]:
    """Paper A's Fig. 1 on data: in how many bands of nearly equal probability are the targets
    ranked first in some contexts and below first in others?

    A band is tested if it holds at least ``min_targets`` targets, and shows both greedy
    outcomes if at least ``min_share`` of them are at rank 1 and at least ``min_share`` below it.

    Parameters
    ----------
    at_rank_one, targets : array_like of int, shape (bands,)
        Per band, the targets ranked first and all its targets.
    min_targets : int
        The fewest targets a tested band holds.
    min_share : float
        The smallest share each outcome needs, in [0, 0.5].

    Returns
    -------
    tested : int
        Bands with at least ``min_targets`` targets.
    shown : int
        Tested bands that show both outcomes.

    Examples
    --------
    >>> both_outcomes([50, 20, 3], [50, 40, 10], min_targets=30, min_share=0.05)
    (2, 1)
    """
    at_rank_one, targets = np.asarray(at_rank_one, np.float64), np.asarray(targets, np.float64)
    tested = targets >= max(min_targets, 1)
    share = np.divide(at_rank_one, targets, out=np.zeros_like(targets), where=tested)
    both = tested & (share >= min_share) & (share <= 1 - min_share)
    return int(tested.sum()), int(both.sum())


def order_agreement(x, y) -> float:
    """Kendall's tau between two metrics over a set of results: how consistently they order them (1: always
    the same way), NaN where fewer than two results or either metric does not vary (tau is undefined).

    Examples
    --------
    >>> order_agreement([0.1, 0.2, 0.3], [0.5, 0.6, 0.7]), order_agreement([0.1, 0.2, 0.3], [0.7, 0.6, 0.5])
    (1.0, -1.0)
    >>> bool(np.isnan(order_agreement([0.1, 0.2], [0.5, 0.5])))
    True
    """
    from scipy.stats import kendalltau

    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan
    return float(kendalltau(x, y).statistic)


def above_rank_bound(rank, logp) -> int:
    """How many targets lie above the bound R p(t) <= 1 (if R tokens, the target included, all have probability
    at least p(t), R p(t) <= 1), with a relative slack of 1e-4 for the rounding of stored log-probabilities: a
    nonzero count means ranks and probabilities do not belong together.

    >>> above_rank_bound(np.array([1, 3, 5]), np.log([0.9, 0.3, 0.25]))
    1
    """
    return int(np.count_nonzero(np.asarray(rank) * np.exp(np.asarray(logp, np.float64)) > 1 + 1e-4))
