"""Statistics of a histogram of the target's rank: its counts, how well a rank model fits it
(Vuong's test against another model, the Kolmogorov-Smirnov distance), its log-binned shape for
plots, and what paper A's section 5.2 predicts from a rank distribution (its entropy and -log p_1).

A rank histogram is an array ``counts`` of shape (V + 1,) with ``counts[r]`` targets of rank r for
r = 0..V and ``counts[0] = 0`` (``metrics.rank_histogram``); a rank model is given by its (V,)
log-probabilities of ranks 1..V (e.g. ``rankdist.LognormalRankFit.log_pmf()``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import erfc


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
                         "counts[0] = 0, V >= 2 (see metrics.rank_histogram)")
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
    (see ``rankdist.fit_zipf_ranks``), so read z as the size of the gap in units of its
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
