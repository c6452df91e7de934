"""How many evaluation tokens the decomposition needs (chapter B5, beyond paper B): CE, EE, SA
and Conf of nested subsets of whole windows, their error against the full evaluation as tokens
grow, the tokens a figure needs for a given tolerance, and whether the size exponents of the
components have converged at the token count evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankscale.analysis import metrics
from rankscale.analysis.bootstrap import LEVEL
from rankscale.analysis.components import QUANTITIES, _size_slopes, terms_vector


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
            dec = metrics.ce_decomposition(logp[take], rbe[take])
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
    standard errors (sd over the repeats / sqrt(repeats)). Unlike ``rankscale.analysis.bootstrap.interval``
    (a value -+ z sd of bootstrap replicates), the repeats are the measurements, their mean the estimate.

    Parameters
    ----------
    values : (..., repeats) array
        Repeated measurements along the last axis, at least two.
    level : float, optional
        Two-sided level; default ``rankscale.analysis.bootstrap.LEVEL`` (z = 1.96 at 95%).

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


    values = np.asarray(values, np.float64)
    z = NormalDist().inv_cdf((1 + (LEVEL if level is None else level)) / 2)
    mean = values.mean(axis=-1)
    half = z * values.std(axis=-1, ddof=1) / np.sqrt(values.shape[-1])
    return mean - half, mean + half


@dataclass(frozen=True)
class ExponentConvergence:
    """How one group's size exponent of one quantity depends on the number of evaluation tokens.

    grid : (g,) token counts; exponents : (g, repeats) the exponent fitted on each repeat's
    subsample; full : the exponent on all tokens; error : ``sample_size_error`` of the
    exponent at the largest count (its drift over the last doubling of the tokens: every
    repeat holds all tokens there); tolerance : the drift allowed, in the exponent's units
    (``exponent_convergence``); needed : the smallest count from which the error stays within
    the tolerance (NaN: more than available); converged : whether the error at the evaluated
    count is within the tolerance.
    """

    grid: np.ndarray
    exponents: np.ndarray
    full: float
    error: float
    tolerance: float
    needed: float
    converged: bool


def allowed_drift(exponents, tolerance: float, floor: float) -> np.ndarray:
    """The drift each size exponent of one group may show and still count as converged:
    ``tolerance`` of its own magnitude, and of ``floor`` times CE's where it is nearer zero.

    Parameters
    ----------
    exponents : (4,) array
        The group's exponents of CE, EE, SA and Conf on all tokens (``QUANTITIES`` order).
    tolerance : float
        The allowed drift, as a fraction of the exponent's magnitude.
    floor : float
        The magnitude, as a fraction of |alpha_CE|, below which an exponent is near zero.

    Returns
    -------
    ndarray of shape (4,)
        In the exponents' units; 0 where CE's exponent and the quantity's are both 0 (only no
        drift is allowed), NaN where an exponent is not finite (nothing converges).

    Examples
    --------
    >>> allowed_drift([-0.02, -0.021, 0.05, 0.0005], 0.1, 0.1).round(4).tolist()  # Conf's near zero
    [0.002, 0.0021, 0.005, 0.0002]
    """
    exponents = np.abs(np.asarray(exponents, np.float64))
    return tolerance * np.maximum(exponents, floor * exponents[0])


def subsample_models(records: Sequence, grid, n_repeats: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``subsampled_decompositions`` of every model on one token grid.

    Parameters
    ----------
    records : sequence
        One per model: objects with per-token ``logp``, ``gt`` and ``window`` (n,) arrays
        (``rankscale.records.store.Records``).
    grid : (g,) array
        Token counts (``token_grid``).
    n_repeats, seed : int
        Random orders of the windows per count, and their seed (the same for every model, so
        models evaluated on the same windows see the same subsamples).

    Returns
    -------
    list of dicts
        Per model, arrays of shape (g, n_repeats) keyed as ``subsampled_decompositions``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rec = SimpleNamespace(logp=np.log(np.full(40, 0.5)), gt=np.arange(40) % 3, window=np.arange(40) // 10)
    >>> subs = subsample_models([rec], [10, 40], n_repeats=2)
    >>> subs[0]["CE"].shape, subs[0]["n_tokens"][-1].tolist()
    ((2, 2), [40.0, 40.0])
    """
    return [subsampled_decompositions(r.logp, r.gt, r.window, grid, n_repeats=n_repeats, seed=seed)
            for r in records]


def exponent_convergence(sizes, subsamples: Sequence[Mapping[str, np.ndarray]], full_terms,
                         tolerance: float, floor: float) -> dict[str, ExponentConvergence]:
    """Whether each quantity's size exponent (paper B's eq. 9) has converged at the evaluated
    token count, for one group of models (a family, or every model pooled).

    The error at a count is the spread of the exponent over repeats combined with the change of
    its mean over the last doubling (``sample_size_error``); at the evaluated count only
    the change remains. The drift allowed is relative to the exponent itself
    (``allowed_drift``): a claim about an exponent (its sign, the law it belongs to) is about
    that exponent, and a drift of a small part of it changes neither its sign nor its size much,
    however large or small it is beside CE's. Near zero no drift is small relative to the
    exponent (at exactly zero none would be allowed), so an exponent smaller in magnitude than
    ``floor`` times CE's is allowed ``tolerance`` of that instead: it is near zero on the scale
    on which the group's loss scales, and a drift of that size cannot make it one that scales.

    Parameters
    ----------
    sizes : (m,) array
        Non-embedding sizes, at least two distinct.
    subsamples : sequence of m dicts
        ``subsampled_decompositions`` of each model on one grid (``subsample_models``),
        whose largest count is every token.
    full_terms : (m, 4) array
        CE, EE, SA, Conf on all tokens (``QUANTITIES`` order).
    tolerance : float
        The allowed drift, as a fraction of the exponent's magnitude on all tokens.
    floor : float
        The magnitude, as a fraction of |alpha_CE| on all tokens, below which an exponent is
        near zero and its drift is allowed ``tolerance`` of that magnitude instead.

    Returns
    -------
    dict
        ``{quantity: ExponentConvergence}``.

    Examples
    --------
    >>> full = np.array([[4.0, 3.0, 1.5, 0.5], [3.0, 2.2, 1.6, 0.8]])
    >>> grid = np.array([[500.0], [1000.0]])  # two counts, one repeat each
    >>> subs = [{"n_tokens": grid, **{q: np.full((2, 1), v) for q, v in zip(QUANTITIES, t)}} for t in full]
    >>> subs[0]["SA"] = np.array([[1.9], [1.5]])  # the small model's SA still falls as tokens are added
    >>> conv = exponent_convergence([1e4, 1e5], subs, full, tolerance=0.1, floor=0.1)
    >>> conv["CE"].converged, conv["SA"].converged, round(conv["SA"].error, 4), round(conv["SA"].tolerance, 4)
    (True, False, 0.1027, 0.0028)
    """
    grid = np.asarray(subsamples[0]["n_tokens"].mean(axis=1))
    full = _size_slopes(sizes, full_terms)  # (4,)
    allowed = allowed_drift(full, tolerance, floor)
    out = {}
    for q, quantity in enumerate(QUANTITIES):
        exps = _size_slopes(sizes, np.stack([s[quantity] for s in subsamples]))  # (grid, repeats)
        finite = bool(np.isfinite(exps).all())
        error = float(sample_size_error(grid, exps)[-1]) if finite else float("nan")
        needed = tokens_needed(grid, exps, allowed[q]) if finite else float("nan")
        out[quantity] = ExponentConvergence(grid, exps, float(full[q]), error, float(allowed[q]), needed,
                                            bool(np.isfinite(error) and error <= allowed[q]))
    return out


def convergence_by_group(sizes, records: Sequence, groups: Mapping[str, Sequence[int]], *, min_tokens: int,
                         n_grid: int, n_repeats: int, tolerance: float, floor: float, seed: int = 0,
                         ) -> dict[str, dict[str, ExponentConvergence]]:
    """``exponent_convergence`` of every group of one corpus's models: the check chapter B5
    reports and chapter B3 applies to its verdicts on SA and Confidence.

    Parameters
    ----------
    sizes : (models,) array
        Non-embedding sizes of every model.
    records : sequence
        One per model (``logp``, ``gt``, ``window``), as for ``subsample_models``.
    groups : mapping
        Group name -> indices of its models (each with at least two distinct sizes).
    min_tokens, n_grid : int
        The grid ``token_grid(fewest tokens of any model, min_tokens, n_grid)``.
    n_repeats, tolerance, floor, seed
        As for ``subsample_models`` and ``exponent_convergence``.

    Returns
    -------
    dict
        ``{group: {quantity: ExponentConvergence}}``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> recs = [SimpleNamespace(logp=-np.log1p(g) - 0.1, gt=g, window=np.arange(2000) // 20)
    ...         for g in (rng.geometric(1 / s, 2000) - 1 for s in (30.0, 10.0))]
    >>> conv = convergence_by_group([1e4, 1e5], recs, {"A": [0, 1]}, min_tokens=250, n_grid=4, n_repeats=3,
    ...                             tolerance=0.1, floor=0.1)
    >>> sorted(conv["A"]), bool(conv["A"]["CE"].converged)
    (['CE', 'Conf', 'EE', 'SA'], True)
    """
    sizes = np.asarray(sizes, np.float64)
    grid = token_grid(min(len(r.logp) for r in records), min_tokens, n_grid)
    subsamples = subsample_models(records, grid, n_repeats, seed)
    full = np.array([terms_vector({"logp": r.logp, "gt": r.gt}) for r in records])
    return {name: exponent_convergence(sizes[list(idx)], [subsamples[i] for i in idx], full[list(idx)], tolerance,
                                       floor)
            for name, idx in groups.items()}


def instance_exponents(sizes, records: Sequence, counts, n_repeats: int, seed: int = 0) -> np.ndarray:
    """Each quantity's size exponent on subsamples of ``counts`` evaluation instances (windows):
    paper B's App. A.1 check of 1k against 10k instances.

    Parameters
    ----------
    sizes : (m,) array
        Non-embedding sizes, at least two distinct.
    records : sequence of m records
        Per-token ``logp``, ``gt``, ``window``; a count above a model's number of windows takes
        all of them. Models evaluated on the same windows (one tokenizer) see the same subsamples.
    counts : (c,) array
        Numbers of windows.
    n_repeats, seed : int
        Random subsamples per count (the exponent is their mean), and their seed.

    Returns
    -------
    ndarray of shape (c, 4)
        Quantities in ``QUANTITIES`` order.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> recs = [SimpleNamespace(logp=np.log(rng.uniform(0.05, p, 60)), gt=rng.integers(0, 5, 60),
    ...                         window=np.arange(60) // 6) for p in (0.5, 0.9)]
    >>> exps = instance_exponents([1e4, 1e5], recs, [5, 10], n_repeats=2)
    >>> ce_all = [-r.logp.mean() for r in recs]  # 10 windows: all of them, in every repeat
    >>> from rankscale.analysis.fit import fit_power_law
    >>> exps.shape, bool(np.isclose(exps[1, 0], fit_power_law([1e4, 1e5], ce_all).slope))
    ((2, 4), True)
    """
    counts = np.atleast_1d(np.asarray(counts))
    subs = [subsampled_decompositions(r.logp, r.gt, r.window, counts, n_repeats=n_repeats, seed=seed,
                                              unit="windows") for r in records]
    return np.stack([np.nanmean(_size_slopes(sizes, np.stack([s[q] for s in subs])), axis=-1) for q in QUANTITIES],
                    axis=-1)
