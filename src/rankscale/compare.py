"""Comparisons behind the verdicts of paper A's chapters A1-A3: RBP_k over many k at once, how far
paper A's two rank conventions move RBP_k, which bands of nearly equal probability show both
greedy outcomes, which pairs of models two metrics order oppositely beyond resampling noise,
whether a fit is a falling power law, and the exponents of offset power laws on bootstrap
replicates.

Everything here is a pure function of numpy arrays. Replicates and intervals come from
``rankscale.bootstrap`` (``resample``; ``interval``: the measured value -+ z standard deviations
of its replicates), or from ``rankscale.fit.bootstrap`` for metrics fitted against size; tokens
are resampled as if independent, which neighbouring tokens are not, so every interval is a lower
bound on the uncertainty.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankscale.bootstrap import LEVEL, interval, side
from rankscale.fit import OffsetPowerLawFit, PowerLawFit, fit_offset_power_law


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
        Entry k is the share of targets ranked k or better (``rankscale.metrics.rbp(rank, k)``);
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
        fits leave out both (``rankscale.fit.fit_if_positive``).

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


def discordant_pairs(values, replicates, level: float = LEVEL) -> list[tuple[int, int]]:
    """Pairs of results that two metrics (larger is better for both) order oppositely beyond
    resampling noise.

    Results i and j disagree when the bootstrap interval (``rankscale.bootstrap.interval``: the
    measured difference -+ z standard deviations of its replicates) of metric 0's difference
    between them and that of metric 1's difference lie on opposite sides of zero. Each result is
    resampled on its own (results of other tokenizers have other tokens), which makes each
    interval if anything too wide for results on the same tokens, so a pair found here is not an
    artefact of pairing.

    Parameters
    ----------
    values : array_like, shape (n, 2)
        The two metrics of n results, on the full samples.
    replicates : array_like, shape (n_boot, n, 2)
        The same on bootstrap resamples (``rankscale.bootstrap.resample``).
    level : float
        Level of the two-sided intervals.

    Returns
    -------
    list of (i, j)
        The disagreeing pairs, i < j, in order.

    Examples
    --------
    >>> values = np.array([[0.20, 0.50], [0.30, 0.40]])  # 1 has the larger metric 0, 0 the larger metric 1
    >>> reps = values + np.array([[[0.01, 0.0], [0.0, 0.01]], [[-0.01, 0.0], [0.0, -0.01]]])
    >>> discordant_pairs(values, reps)
    [(0, 1)]
    >>> discordant_pairs(values[:, [0, 0]], reps[..., [0, 0]])  # one metric twice never disagrees
    []
    """
    values, replicates = np.asarray(values, np.float64), np.asarray(replicates, np.float64)
    if values.ndim != 2 or values.shape[1] != 2 or replicates.shape[1:] != values.shape:
        raise ValueError(f"values must be (n, 2) and replicates (n_boot, n, 2), got {values.shape} and "
                         f"{replicates.shape}")
    found = []
    for i, j in zip(*np.triu_indices(len(values), 1)):
        sides = [side(interval(values[i, m] - values[j, m], replicates[:, i, m] - replicates[:, j, m], level))
                 for m in (0, 1)]
        if sides[0] * sides[1] == -1:
            found.append((int(i), int(j)))
    return found


def falling_law(fitted: PowerLawFit | None, min_r2: float) -> bool | None:
    """Whether a log-log fit is a power law that falls with size and fits at least as well as
    ``min_r2``, the test every size law of chapters A2-A3 passes or fails.

    Parameters
    ----------
    fitted : PowerLawFit or None
        The fit, None where the values could not be fitted.
    min_r2 : float
        The smallest R^2 (in log space) that counts as a power law.

    Returns
    -------
    bool or None
        None where nothing was fitted (the case cannot test the claim).

    Examples
    --------
    >>> from rankscale.fit import fit_power_law
    >>> falling_law(fit_power_law([1e6, 1e7, 1e8], [4.0, 2.0, 1.0]), 0.9)
    True
    >>> falling_law(fit_power_law([1e6, 1e7, 1e8], [1.0, 2.0, 4.0]), 0.9), falling_law(None, 0.9)
    (False, None)
    """
    return None if fitted is None else bool(fitted.r2 >= min_r2 and fitted.slope < 0)


@dataclass(frozen=True)
class OffsetBootstrap:
    """An offset power law L = E + A S^-alpha on the full sample and its exponent on every replicate.

    Attributes
    ----------
    point : OffsetPowerLawFit or None
        The full-sample fit, None where it cannot be fitted.
    alpha : ndarray of shape (n_boot,)
        The exponent on every replicate, nan where a replicate cannot be fitted.
    """

    point: OffsetPowerLawFit | None
    alpha: np.ndarray

    @property
    def failed(self) -> int:
        """How many replicates could not be fitted."""
        return int(np.count_nonzero(~np.isfinite(self.alpha)))


def offset_bootstrap(sizes, values, replicates) -> OffsetBootstrap:
    """``rankscale.fit.fit_offset_power_law`` of one metric on its full sample and on each bootstrap
    replicate, so that the exponents of two metrics from the same replicates can be compared
    pairwise.

    Parameters
    ----------
    sizes : array_like, shape (models,)
        Non-embedding sizes, at least four distinct (the law has three parameters).
    values : array_like, shape (models,)
        The metric on the full samples.
    replicates : array_like, shape (n_boot, models)
        The metric on each resample, e.g. one entry of ``rankscale.fit.bootstrap(...).values``.

    Returns
    -------
    OffsetBootstrap

    Examples
    --------
    >>> s = np.array([1e3, 1e4, 1e5, 1e6])
    >>> b = offset_bootstrap(s, 1.0 + s ** -0.3, np.array([1.0 + s ** -0.3, 1.1 + s ** -0.3]))
    >>> round(b.point.alpha, 3), b.alpha.round(3).tolist(), b.failed
    (0.3, [0.3, 0.3], 0)
    """
    if len(np.unique(np.asarray(sizes))) < 4:
        raise ValueError("an offset power law has three parameters and needs at least four distinct sizes")

    def one(v):
        try:
            return fit_offset_power_law(sizes, v)
        except ValueError:
            return None

    point = one(np.asarray(values, np.float64))
    alpha = np.array([f.alpha if f is not None else np.nan
                      for f in map(one, np.asarray(replicates, np.float64))])
    return OffsetBootstrap(point, alpha)
