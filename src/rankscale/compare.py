"""Noise-aware comparisons behind the verdicts of paper A's chapters (A1-A3): where a bootstrap
interval lies (on one side of zero, inside a band), which pairs of models two metrics order
oppositely beyond resampling noise, how far paper A's two rank conventions move RBP_k, and the
exponents of offset power laws on bootstrap replicates.

Everything here is a pure function of numpy arrays. The replicates come from resampling each
model's evaluation tokens with replacement (``resample``, or ``rankscale.fit.bootstrap`` for
metrics fitted against size); tokens are treated as independent, which neighbouring tokens are
not, so every interval is a lower bound on the uncertainty.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankscale.fit import OffsetPowerLawFit, fit_offset_power_law, percentile_interval


def side(interval) -> int:
    """+1 if an interval (lo, hi) lies entirely above zero, -1 if entirely below, 0 if it holds 0
    (or is undefined: a nan end).

    >>> side((0.1, 0.4)), side((-0.3, -0.01)), side((-0.1, 0.2))
    (1, -1, 0)
    """
    lo, hi = interval
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return 0
    return 1 if lo > 0 else -1 if hi < 0 else 0


def within_band(interval, band) -> bool | None:
    """Whether an interval (lo, hi) lies inside ``band`` (True), entirely outside it (False), or
    across one of its edges (None: the data do not decide). An equivalence test: a value is shown
    to be "close" only when its whole interval is.

    >>> within_band((0.9, 1.1), (0.8, 1.25)), within_band((1.5, 2.0), (0.8, 1.25)), within_band((0.7, 0.9), (0.8, 1.25))
    (True, False, None)
    """
    lo, hi = interval
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None
    if band[0] <= lo and hi <= band[1]:
        return True
    if hi < band[0] or lo > band[1]:
        return False
    return None


def rbp_curve(rank: np.ndarray, max_k: int) -> np.ndarray:
    """RBP_k for every k from 0 to ``max_k`` at once (entry k is the share of targets ranked k or
    better; entry 0 is 0), by counting ranks rather than sorting them; equal to
    ``rankscale.metrics.rbp(rank, k)`` for each k. rank : (n,) 1-based ranks.

    >>> rbp_curve(np.array([1, 1, 3, 10]), 5).tolist()
    [0.0, 0.5, 0.5, 0.75, 0.75, 0.75]
    """
    rank = np.asarray(rank)
    counts = np.bincount(np.minimum(rank, max_k + 1), minlength=max_k + 2)
    return np.cumsum(counts)[: max_k + 1] / len(rank)


def convention_gap(gt: np.ndarray, ge: np.ndarray) -> tuple[float, float]:
    """How far RBP_k moves between paper A's eq. 3 rank (``ge + 1``: ties counted against the
    target) and its released code's rank (``gt + 1``: ties for it), over every k from 1 to the
    largest rank: the largest absolute gap, and the largest gap in units of RBP_k's binomial
    standard error sqrt(RBP_k (1 - RBP_k) / n) at the same k (inf where a gap meets a zero
    standard error). A ratio at most 1 means the convention moves no RBP_k by more than its own
    sampling noise.

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


Sample = Mapping[str, np.ndarray]


def resample(samples: Sequence[Sample], metric: Callable[[Sample], np.ndarray], n_boot: int,
             seed: int = 0) -> np.ndarray:
    """The m-valued ``metric`` of every sample (one mapping of equal-length per-token arrays per
    model) on ``n_boot`` resamples of its tokens, each model resampled on its own (models with
    other tokenizers have other tokens). Returns (n_boot, models, m).

    >>> samples = [{"x": np.array([1.0, 1.0])}, {"x": np.array([0.0, 2.0, 4.0])}]
    >>> r = resample(samples, lambda s: [s["x"].mean()], n_boot=3)
    >>> r.shape, bool((r[:, 0, 0] == 1.0).all())
    ((3, 2, 1), True)
    """
    rng = np.random.default_rng(seed)
    out = None
    for b in range(n_boot):
        for i, sample in enumerate(samples):
            n = len(next(iter(sample.values())))
            idx = rng.integers(0, n, n)
            value = np.atleast_1d(np.asarray(metric({key: arr[idx] for key, arr in sample.items()}), np.float64))
            if out is None:
                out = np.empty((n_boot, len(samples), len(value)))
            out[b, i] = value
    if out is None:
        raise ValueError("resample needs at least one sample and one replicate")
    return out


def discordant_pairs(values, replicates, level: float = 0.95) -> list[tuple[int, int]]:
    """Pairs of results that two metrics (larger is better for both) order oppositely beyond
    resampling noise: (i, j), i < j, where the central ``level`` interval of metric 0's difference
    between i and j and that of metric 1's difference lie on opposite sides of zero.

    values : (n, 2) the two metrics of n results (unused except for its shape: the intervals come
    from the replicates); replicates : (n_boot, n, 2) the same on resamples (``resample``).
    Independent resamples of the two results make each interval if anything too wide for results
    on the same tokens, so a pair found here is not an artefact of pairing.

    >>> reps = np.array([[[0.20, 0.50], [0.30, 0.40]], [[0.21, 0.51], [0.31, 0.41]]])
    >>> discordant_pairs(reps[0], reps)
    [(0, 1)]
    >>> discordant_pairs(reps[0], reps[..., ::-1][..., [0, 0]])
    []
    """
    values, replicates = np.asarray(values, np.float64), np.asarray(replicates, np.float64)
    if values.ndim != 2 or values.shape[1] != 2 or replicates.shape[1:] != values.shape:
        raise ValueError(f"values must be (n, 2) and replicates (n_boot, n, 2), got {values.shape} and "
                         f"{replicates.shape}")
    found = []
    for i, j in zip(*np.triu_indices(len(values), 1)):
        diff = replicates[:, i] - replicates[:, j]  # (n_boot, 2)
        sides = [side(percentile_interval(diff[:, m], level)) for m in (0, 1)]
        if sides[0] * sides[1] == -1:
            found.append((int(i), int(j)))
    return found


@dataclass(frozen=True)
class OffsetBootstrap:
    """An offset power law L = E + A S^-alpha on the full sample (``point``, None where it cannot
    be fitted) and its exponent on every replicate (``alpha``, nan where a replicate cannot be
    fitted)."""

    point: OffsetPowerLawFit | None
    alpha: np.ndarray

    @property
    def failed(self) -> int:
        """How many replicates could not be fitted."""
        return int(np.count_nonzero(~np.isfinite(self.alpha)))


def offset_bootstrap(sizes, values, replicates) -> OffsetBootstrap:
    """``rankscale.fit.fit_offset_power_law`` of one metric on its full-sample ``values`` (models,)
    and on each of its bootstrap ``replicates`` (n_boot, models), e.g. one row of
    ``rankscale.fit.bootstrap(...).values``, so that exponents of two metrics from the same
    replicates can be compared pairwise. Needs at least four distinct sizes.

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
