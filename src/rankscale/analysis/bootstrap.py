"""The bootstrap: resampling the evaluation text, the intervals every verdict reads, and how an interval or a
range of values is written in the verdicts and tables (``interval_text``, ``span``).

A replicate resamples each model's evaluation text with replacement (``resample``); every
quantity computed from a replicate uses the same resample, so differences between quantities (R^2
of EE minus R^2 of CE, one exponent minus another) are paired, and their spread is the spread of
the difference itself. The tokens of one document are not independent (a passage that suits a
model suits it throughout, runs of successes cluster inside windows, and the windows of one
document share its subject, style and vocabulary), so a replicate draws whole documents, each
with all its windows (``by="document"``: ``rankscale.claims.context.BY``), and models evaluated
on the same text share one resample (``same_text``), so that comparisons between them are paired
too. Which claims resample so is
decided in one place, ``rankscale.claims.context.Context.resampling``: all of the book's, since
each generalises beyond the tokens scored.

Every interval is the measured value -+ z standard deviations of its replicates (``interval``),
z the normal quantile of ``LEVEL``. Percentile intervals are not used: plug-in estimates of
entropy terms (Error-Entropy, Self-Alignment, Confidence) shift when a resample repeats tokens,
and on the smoke set a change of Confidence measured at -0.045 had its percentile interval at
[+0.050, +0.077], on the wrong side of zero. Resampling single tokens would treat them as
independent, which neighbouring tokens are not, and resampling the windows of a few long
documents as if they were independent came out several times too narrow too. Resampling the
documents of one corpus still says nothing of another corpus, so an interval is the uncertainty
that the choice of documents from this text brings. The scatter between
training runs enters where a family has sizes trained with other seeds, evaluated on the same
text: ``resample``'s ``seeds`` then lets each replicate draw one of such a model's runs before it
resamples the text, and moves each size trained once by one of those runs' relative deviations,
so that the scatter is carried at every size of the family, modelled on the sizes that measure it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from statistics import NormalDist

import numpy as np

LEVEL = 0.95  # two-sided: the usual 95% interval, the one level of every interval of the book
Z = NormalDist().inv_cdf((1 + LEVEL) / 2)  # an interval's half-width, in standard deviations of its replicates
# What every interval of the book is, said once in every rule that reads one
INTERVAL = (f"{LEVEL:.0%} bootstrap interval (the measured value ± {Z:.2f} standard deviations of its replicates; a "
            "replicate resamples the evaluation text's documents whole, with replacement, the set's n_boot times, once "
            "for every quantity computed from it and the same documents for every model evaluated on that text, so "
            "that their differences are paired; where a family has sizes trained with several seeds, such a size "
            "first draws one of its runs, and every other size of the family is moved by one of those runs' relative "
            "deviations, so that every size carries the scatter between training runs)")

Sample = Mapping[str, np.ndarray]


def resample(samples: Sequence[Sample], metric: Callable[[Sample], np.ndarray], n_boot: int, seed: int = 0, *,
             same_text: bool | Sequence[Hashable] = False, by: str | None = None,
             seeds: Sequence[Sequence[Sample]] | None = None) -> np.ndarray:
    """Replicates of an m-valued ``metric`` of every model's sample.

    Parameters
    ----------
    samples : sequence of mappings
        One per model: equal-length per-token arrays (``Records.arrays()``).
    metric : callable
        Maps a sample to m values (e.g. CE, or -log RBP_k over a grid of k).
    n_boot, seed : int
        Number of replicates and seed of the resampling.
    same_text : bool or sequence of hashable
        Which models were evaluated on one text and so share every replicate's resample of it: True for
        all of them, False for none (each model resampled on its own), or one label per model, the models
        of one label sharing theirs. Models that share a resample must have equal lengths and, with ``by``,
        the same groups.
    by : str, optional
        Key of per-token group ids (``"document"``) whose groups are resampled whole: a replicate draws as
        many groups as the sample has, with replacement.
    seeds : sequence of sequences of mappings, optional
        Per model, the samples of its other training runs (seeds), evaluated on the same tokens as
        its own sample (so of its length); an empty sequence for a model without. Replicate ``b``
        then takes, for each model, one of its runs (its own sample or one of these, equally
        likely) and resamples that run's tokens, so that the replicates carry the scatter between
        training runs as well as that of the text. A model without other runs, of a text whose
        models include some with (one family: ``same_text``), is moved instead by a scatter modelled
        on theirs (``_modelled_scatter``): replicate ``b`` multiplies its metric by one plus one of
        their runs' relative deviations, so that every size of a size fit carries the seed scatter,
        not only the sizes trained more than once. The runs and deviations are drawn from a
        generator of their own: the token resamples are those of the same call without ``seeds``.

    Returns
    -------
    ndarray of shape (n_boot, models, m)
        ``out[b, i]`` is the metric of model ``i``'s sample under replicate ``b``.

    Raises
    ------
    ValueError
        If models that share a resample (``same_text``) have samples of different lengths or, with ``by``,
        other groups (they were not evaluated on the same windows), if ``same_text`` gives a label count
        other than the models', if ``seeds`` does not give one entry per model, or if a seed's sample is
        not as long as its model's or, with ``by``, has other groups.

    Examples
    --------
    >>> samples = [{"v": np.arange(4.0)}, {"v": np.arange(4.0) + 10}]
    >>> resample(samples, lambda s: [s["v"].mean()], n_boot=3).shape
    (3, 2, 1)

    Whole windows, the same ones for both models: the two means move together.

    >>> windows = [{"v": np.array([0.0, 0, 1, 1]), "window": np.array([0, 0, 1, 1])},
    ...            {"v": np.array([5.0, 5, 6, 6]), "window": np.array([0, 0, 1, 1])}]
    >>> out = resample(windows, lambda s: [s["v"].mean()], n_boot=20, same_text=True, by="window")
    >>> bool(np.allclose(out[:, 1] - out[:, 0], 5.0))
    True

    A second run of the first model, 100 higher on every token, shows up in about half the replicates:

    >>> out = resample(samples, lambda s: [s["v"].mean()], n_boot=200, seeds=[[{"v": np.arange(4.0) + 100}], []])
    >>> bool(0.3 < (out[:, 0, 0] > 50).mean() < 0.7), bool((out[:, 1, 0] < 50).all())
    (True, True)

    Of one text (one family), a model trained once takes on the scatter between the other's runs: those score
    1.5 and 1.8 on the whole text, 9.1% either side of their mean, or 12.9% as the runs' own scatter (sqrt(2) times
    wider), so a model scoring 10 on every token scores 8.71 or 11.29 in each replicate:

    >>> flat = [{"v": np.arange(4.0)}, {"v": np.full(4, 10.0)}]
    >>> out = resample(flat, lambda s: [s["v"].mean()], n_boot=200, same_text=True,
    ...                seeds=[[{"v": np.arange(4.0) * 1.2}], []])
    >>> sorted(np.unique(np.round(out[:, 1, 0], 2)).tolist())
    [8.71, 11.29]
    """
    rng = np.random.default_rng(seed)
    lengths = [len(next(iter(s.values()))) for s in samples]
    texts = _texts(samples, same_text, by, lengths)
    runs = _runs(samples, seeds, lengths, by)
    pick = np.random.default_rng([seed, 1])  # the runs' own generator
    draws = {text: _Draw(samples[i], lengths[i], by) for text, i in texts.items()}  # once per text, not per replicate
    labels = _labels(same_text, len(samples))
    scatter = _modelled_scatter(runs, metric, labels)
    first = np.atleast_1d(metric(samples[0]))
    out = np.empty((n_boot, len(samples), len(first)))
    for b in range(n_boot):
        drawn = {}  # this replicate's indices of each text, drawn where the text first comes, in model order
        for i, sample in enumerate(samples):
            if labels[i] not in drawn:
                drawn[labels[i]] = draws[labels[i]](rng)
            if len(runs[i]) > 1:
                sample = runs[i][pick.integers(len(runs[i]))]
            out[b, i] = metric({key: arr[drawn[labels[i]]] for key, arr in sample.items()})
            if scatter[i] is not None:
                out[b, i] *= 1 + scatter[i][pick.integers(len(scatter[i]))]
    return out


def _modelled_scatter(runs: list[list[Sample]], metric: Callable[[Sample], np.ndarray],
                      labels: list) -> list[np.ndarray | None]:
    """For each model trained once, the relative deviations between runs of the models of its text that were trained
    more than once (its family's seeded sizes): an (n, m) array, one row per run of theirs; None for a model with runs
    of its own, or whose text has no model with other runs.

    A run's deviation is its metric on the whole text over the mean of its model's runs, minus one, times
    sqrt(R / (R - 1)) for R runs, since deviations from a mean of R runs are that much narrower than the runs'
    own scatter. The scatter is modelled as the same share of the metric at every size: a size law is a line in
    log-log, and a seed's luck moves a small model and a large one by a like fraction. A deviation that is not
    finite (a metric a run cannot compute) counts as none.
    """
    pooled: dict = {}
    for model_runs, label in zip(runs, labels):
        if len(model_runs) > 1:
            values = np.array([np.atleast_1d(metric(run)) for run in model_runs], np.float64)  # (R, m)
            with np.errstate(divide="ignore", invalid="ignore"):
                deviation = (values / values.mean(axis=0) - 1) * np.sqrt(len(values) / (len(values) - 1))
            pooled.setdefault(label, []).extend(np.where(np.isfinite(deviation), deviation, 0.0))
    return [np.array(pooled[label]) if len(model_runs) == 1 and label in pooled else None
            for model_runs, label in zip(runs, labels)]


def _labels(same_text: bool | Sequence[Hashable], n: int) -> list:
    """One text label per model: ``same_text``'s, or one label for all (True) or one each (False)."""
    if isinstance(same_text, bool):
        return [0] * n if same_text else list(range(n))
    labels = list(same_text)
    if len(labels) != n:
        raise ValueError(f"same_text gives {len(labels)} labels for {n} models; give one per model")
    return labels


def _texts(samples: Sequence[Sample], same_text, by: str | None, lengths: list[int]) -> dict:
    """The first model of each text label, after checking that the models of one label share their text."""
    texts: dict = {}
    for i, label in enumerate(_labels(same_text, len(samples))):
        j = texts.setdefault(label, i)
        if lengths[i] != lengths[j]:
            raise ValueError(f"same_text needs samples of one length, got {lengths[j]} (model {j}) and "
                             f"{lengths[i]} (model {i}) for text {label!r}")
        if by is not None and not np.array_equal(samples[i][by], samples[j][by]):
            raise ValueError(f"models {j} and {i} share a resample of text {label!r} but not their {by!r} arrays: "
                             f"they were not evaluated on the same {by}s, so their resamples cannot be paired")
    return texts


class _Draw:
    """One text's resample: ``n`` tokens drawn with replacement, or (``by``) as many of its groups, whole.

    The groups are found once (``_Draw(sample, n, by)``), so that a replicate (``draw(rng)``) only draws.
    """

    def __init__(self, sample: Sample, n: int, by: str | None):
        self.n, self.order = n, None
        if by is not None:
            groups = np.asarray(sample[by])
            self.order = np.argsort(groups, kind="stable")
            _, self.start, self.size = np.unique(groups[self.order], return_index=True, return_counts=True)

    def __call__(self, rng: np.random.Generator) -> np.ndarray:
        if self.order is None:
            return rng.integers(0, self.n, self.n)
        chosen = rng.integers(0, len(self.start), len(self.start))
        size = self.size[chosen]
        # group g holds order[start[g]:start[g] + size[g]]: every chosen group's positions, back to back
        offset = np.repeat(self.start[chosen] - (np.cumsum(size) - size), size)
        return self.order[offset + np.arange(int(size.sum()))]


def _runs(samples: Sequence[Sample], seeds: Sequence[Sequence[Sample]] | None, lengths: list[int],
          by: str | None = None) -> list[list[Sample]]:
    """Every model's runs: its own sample, then its seeds' (checked against its length and, with ``by``, groups)."""
    if seeds is None:
        return [[sample] for sample in samples]
    if len(seeds) != len(samples):
        raise ValueError(f"seeds gives {len(seeds)} entries for {len(samples)} models; give one per model "
                         "(an empty list for a model without other training runs)")
    for i, others in enumerate(seeds):
        for other in others:
            if len(next(iter(other.values()))) != lengths[i]:
                raise ValueError(f"a training run of model {i} was evaluated on {len(next(iter(other.values())))} "
                                 f"tokens, the model on {lengths[i]}: its seeds must be evaluated on the same tokens")
            if by is not None and not np.array_equal(other[by], samples[i][by]):
                raise ValueError(f"a training run of model {i} does not hold the model's {by!r} array: its seeds "
                                 f"must be evaluated on the same {by}s")
    return [[sample, *others] for sample, others in zip(samples, seeds)]


def interval(value: float, replicates, level: float = LEVEL) -> tuple[float, float] | None:
    """The two-sided ``level`` interval: ``value`` -+ z * (standard deviation of ``replicates``).

    z is the normal quantile of ``(1 + level) / 2``. None where the value or some replicate is
    not finite (the quantity could not be computed on some resample, so nothing can be said of
    its noise).

    Parameters
    ----------
    value : float
        The quantity measured on the data themselves.
    replicates : array_like of shape (n_boot,)
        The same quantity on each bootstrap replicate (``resample``).
    level : float
        Two-sided coverage, ``LEVEL`` (0.95) by default.

    Returns
    -------
    tuple of (float, float) or None
        (low, high).

    Examples
    --------
    >>> [round(end, 4) for end in interval(1.0, [0.9, 1.1], level=0.6827)]
    [0.9, 1.1]
    >>> interval(1.0, [0.9, np.nan]) is None
    True
    """
    replicates = np.asarray(replicates, np.float64)
    if not np.isfinite(value) or not np.isfinite(replicates).all():
        return None
    half = NormalDist().inv_cdf((1 + level) / 2) * float(np.std(replicates))
    return float(value) - half, float(value) + half


def side(bounds: tuple[float, float] | None, threshold: float = 0.0) -> int:
    """Where an interval lies with respect to ``threshold``.

    A claim that a difference (or a direction) exists needs its side; a claim of parity fails
    only on the other side.

    Parameters
    ----------
    bounds : tuple of (float, float) or None
        An interval (``interval``); None: missing.
    threshold : float
        The value compared with.

    Returns
    -------
    int
        +1 wholly above, -1 wholly below, 0 if it holds the threshold or is missing.

    Examples
    --------
    >>> side((0.1, 0.3)), side((-0.3, -0.1)), side((-0.1, 0.1)), side((0.85, 0.9), 0.8), side(None)
    (1, -1, 0, 1, 0)
    """
    if bounds is None:
        return 0
    lo, hi = bounds
    return 1 if lo > threshold else -1 if hi < threshold else 0


def within(bounds: tuple[float, float] | None, band: tuple[float, float]) -> bool | None:
    """An equivalence test: whether an interval lies inside ``band``.

    Parameters
    ----------
    bounds : tuple of (float, float) or None
        An interval (``interval``); None: missing.
    band : tuple of (float, float)
        (low, high) edges of the band of equivalence, edges included.

    Returns
    -------
    bool or None
        True if the interval lies inside ``band``, False if wholly outside it, None if it
        crosses an edge or is missing (the data do not decide).

    Examples
    --------
    >>> within((0.9, 1.1), (0.8, 1.25)), within((1.5, 2.0), (0.8, 1.25)), within((0.7, 0.9), (0.8, 1.25))
    (True, False, None)
    """
    if bounds is None:
        return None
    lo, hi = bounds
    if band[0] <= lo and hi <= band[1]:
        return True
    if hi < band[0] or lo > band[1]:
        return False
    return None


def interval_text(lo_hi, digits: int = 3, sign: str = "+") -> str:
    """An interval as text; "[—]" where the bootstrap gave none (a replicate not finite).

    Parameters
    ----------
    lo_hi : tuple of (float, float) or None
        The interval (``rankscale.analysis.bootstrap.interval``).
    digits : int
        Decimals.
    sign : str
        The format's sign option: "+" writes the sign of positive ends too; "" only of negative ones.

    Returns
    -------
    str

    Examples
    --------
    >>> interval_text((-0.01234, 0.5)), interval_text((0.91, 0.995), 2, sign=""), interval_text(None)
    ('[-0.012, +0.500]', '[0.91, 0.99]', '[—]')
    """
    return "[—]" if lo_hi is None else f"[{lo_hi[0]:{sign}.{digits}f}, {lo_hi[1]:{sign}.{digits}f}]"


def span(values, fmt: str) -> str:
    """The range of some values as text, or one value where both ends read the same.

    Parameters
    ----------
    values : pandas.Series, numpy.ndarray or sequence of float
        The values; the ends are their own ``min()`` and ``max()`` where they have them (a
        Series skips NaN), else the built-in ``min`` and ``max``.
    fmt : str
        Format specification of each end, e.g. ".2f" or "+.3f".

    Returns
    -------
    str

    Examples
    --------
    >>> span([0.5, -1.25, 2.0], "+.2f"), span([0.301, 0.299], ".2f")
    ('-1.25 to +2.00', '0.30')
    """
    lo, hi = (values.min(), values.max()) if hasattr(values, "min") else (min(values), max(values))
    return format(lo, fmt) if format(lo, fmt) == format(hi, fmt) else f"{lo:{fmt}} to {hi:{fmt}}"


def span_or_dash(values, fmt: str) -> str:
    """``span`` of the values that are not NaN, or a dash where none is (a column without fits).

    Examples
    --------
    >>> span_or_dash([0.5, float("nan"), 2.0], ".1f"), span_or_dash([float("nan")], ".1f")
    ('0.5 to 2.0', '—')
    """
    import pandas as pd

    values = pd.Series(values, dtype=float).dropna()
    return span(values, fmt) if len(values) else "—"


def line_fits(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slopes and R^2 of ``y`` on ``x`` along the last axis, every row at once.

    Parameters
    ----------
    x : array_like of shape (m,)
        Abscissae (e.g. log S), at least two distinct.
    y : array_like of shape (..., m)
        Ordinates, one row per replicate (e.g. the log of a metric).

    Returns
    -------
    slope, r2 : ndarray of shape y.shape[:-1]
        nan where a row holds a value that is not finite. R^2 is 1 for a row with no spread.

    Raises
    ------
    ValueError
        If ``x`` is not 1-d with two distinct values or ``y``'s last axis is not ``len(x)`` long.

    Examples
    --------
    >>> s, r2 = line_fits(np.log([1e3, 1e4, 1e5]), np.log([[4.0, 2.0, 1.0], [4.0, np.inf, 1.0]]))
    >>> np.round(s, 5), np.round(r2, 5)
    (array([-0.30103,      nan]), array([ 1., nan]))
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.ndim != 1 or y.shape[-1] != len(x) or len(np.unique(x)) < 2:
        raise ValueError(f"line_fits needs (m,) abscissae with two distinct values and (..., m) ordinates, "
                         f"got {x.shape} and {y.shape}")
    dx = x - x.mean()
    with np.errstate(invalid="ignore"):
        dy = y - y.mean(axis=-1, keepdims=True)
        slope = dy @ dx / (dx @ dx)
        residual = dy - slope[..., None] * dx
        total = (dy**2).sum(axis=-1)
        r2 = np.where(total > 0, 1.0 - (residual**2).sum(axis=-1) / np.where(total > 0, total, 1.0), 1.0)
    bad = ~np.isfinite(y).all(axis=-1)
    return np.where(bad, np.nan, slope), np.where(bad, np.nan, r2)


def log_or_nan(values) -> np.ndarray:
    """Natural logarithm of positive finite values, nan elsewhere (no warning), for log-log fits.

    Parameters
    ----------
    values : array_like
        Any shape.

    Returns
    -------
    ndarray of float64, of the shape of ``values``

    Examples
    --------
    >>> log_or_nan([1.0, 0.0, -1.0]).tolist()
    [0.0, nan, nan]
    """
    values = np.asarray(values, np.float64)
    ok = np.isfinite(values) & (values > 0)
    return np.where(ok, np.log(np.where(ok, values, 1.0)), np.nan)


def pair_sides(values, replicates, level: float = LEVEL) -> dict[tuple[int, int], tuple[int, int]]:
    """How two metrics (larger is better for both) order every pair of results, beyond resampling noise.

    For results i < j and each metric, the side of zero (``side``) on which the bootstrap interval
    (``interval``: the measured difference -+ z standard deviations of its replicates) of the
    difference i - j lies: +1 (i ahead), -1 (j ahead), 0 (the interval holds zero).

    Parameters
    ----------
    values : array_like, shape (n, 2)
        The two metrics of n results, on the full samples.
    replicates : array_like, shape (n_boot, n, 2)
        The same on bootstrap resamples (``rankscale.analysis.bootstrap.resample``).
    level : float
        Level of the two-sided intervals.

    Returns
    -------
    dict of (int, int) to (int, int)
        Per pair (i, j), i < j, in order: the side of each metric's difference.

    Raises
    ------
    ValueError
        If ``values`` is not (n, 2) or ``replicates`` not (n_boot, n, 2).

    Examples
    --------
    >>> values = np.array([[0.20, 0.50], [0.30, 0.40]])  # 1 has the larger metric 0, 0 the larger metric 1
    >>> reps = values + np.array([[[0.01, 0.0], [0.0, 0.01]], [[-0.01, 0.0], [0.0, -0.01]]])
    >>> pair_sides(values, reps)
    {(0, 1): (-1, 1)}
    """
    values, replicates = np.asarray(values, np.float64), np.asarray(replicates, np.float64)
    if values.ndim != 2 or values.shape[1] != 2 or replicates.shape[1:] != values.shape:
        raise ValueError(f"values must be (n, 2) and replicates (n_boot, n, 2), got {values.shape} and "
                         f"{replicates.shape}")
    return {(int(i), int(j)): tuple(side(interval(values[i, m] - values[j, m], replicates[:, i, m] - replicates[:, j, m],
                                                  level)) for m in (0, 1))
            for i, j in zip(*np.triu_indices(len(values), 1))}


def discordant_pairs(values, replicates, level: float = LEVEL) -> list[tuple[int, int]]:
    """Pairs of results that two metrics (larger is better for both) order oppositely beyond
    resampling noise.

    Results i and j disagree when the bootstrap interval (``rankscale.analysis.bootstrap.interval``: the
    measured difference -+ z standard deviations of its replicates) of metric 0's difference
    between them and that of metric 1's difference lie on opposite sides of zero (``pair_sides``).
    The replicates carry the pairing they were drawn with: results on the same text that shared each
    resample (``resample``'s ``same_text``) give paired differences, results on other texts (other
    tokenizers) differences of independent resamples.

    Parameters
    ----------
    values : array_like, shape (n, 2)
        The two metrics of n results, on the full samples.
    replicates : array_like, shape (n_boot, n, 2)
        The same on bootstrap resamples (``rankscale.analysis.bootstrap.resample``).
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
    return [pair for pair, (a, b) in pair_sides(values, replicates, level).items() if a * b == -1]
