"""Cross-entropy and its components against model size (paper B, §4-5).

Paper B fits ``log |M| = c_M + alpha_M log N`` (its eq. 9) for M in CE, EE, SA, Conf, per model
family and over every model of every family pooled ("All"), and compares the exponents
(``|Delta_M| = |alpha_M - alpha_CE|``, its Table 2). This module does those fits on per-token
samples ``{"logp": (n,), "gt": (n,)}`` (one per model), with bootstrap intervals from
``rankscale.fit``, and the vectorised slopes that chapter B5 needs for many subsamples at once::

    fits = fit_components(sizes, samples, families, n_boot=200)   # {group: {quantity: PowerLawFit}}
    exponent_gaps(fits["All"])                                     # {"EE": ..., "SA": ..., "Conf": ...}

Chapters B3 and B4 resample every model's tokens once for all four quantities
(``bootstrap_terms``) and fit each group from those replicates (``group_bootstrap``), so that
differences between quantities get paired intervals; ``change_shares`` splits CE's change
between two models into its components', ``curvature`` measures the bend of a log-log law, and
``side`` and ``covering`` are how the verdict rules read an interval. ``convergence_by_group``
is chapter B5's check that a size exponent no longer moves with the number of evaluation tokens,
which chapter B3 applies to its verdicts on SA and Confidence; ``instance_exponents`` repeats
paper B's App. A.1 comparison of 1k and 10k instances.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankscale import fit, metrics

QUANTITIES = ("CE", *metrics.COMPONENTS)


def term(quantity: str, absolute: bool = True) -> Callable[[Mapping[str, np.ndarray]], float]:
    """The metric ``sample -> |M|`` (or signed M) of one of ``QUANTITIES``, computed from a
    sample's ``logp`` and ``gt`` with paper B's decomposition (``metrics.ce_decomposition``)."""
    if quantity not in QUANTITIES:
        raise ValueError(f"unknown quantity {quantity!r}; use one of {QUANTITIES}")

    def metric(sample: Mapping[str, np.ndarray]) -> float:
        value = metrics.ce_decomposition(sample["logp"], sample["gt"]).terms()[quantity]
        return abs(value) if absolute else value

    return metric


def ee_share(signed: bool = True) -> Callable[[Mapping[str, np.ndarray]], float]:
    """The metric ``sample -> EE's share of CE`` (paper B, §5, Fig. 8): the signed contribution
    EE / CE, or with ``signed=False`` the magnitude share |EE| / (|EE| + |SA| + |Conf|); see
    ``metrics.ce_shares``."""

    def metric(sample: Mapping[str, np.ndarray]) -> float:
        t = metrics.ce_decomposition(sample["logp"], sample["gt"]).terms()
        return float(metrics.ce_shares(t["EE"], t["SA"], t["Conf"], signed=signed)["EE"])

    return metric


def fit_components(sizes, samples: Sequence[Mapping[str, np.ndarray]], families: Sequence[str],
                   n_boot: int = 1000, seed: int = 0, quantities: Sequence[str] = QUANTITIES,
                   ) -> dict[str, dict[str, fit.PowerLawFit]]:
    """Paper B's eq. 9 for every quantity, per family and pooled: ``{group: {quantity: fit}}``.

    sizes : (m,) non-embedding parameter counts; samples : m mappings with per-token ``logp``
    and ``gt``; families : (m,) family names. Groups are the families in order of first
    appearance, each fitted on its own models, then ``fit.POOLED`` ("All", every model), which
    is there only when there is more than one family; a family with fewer than two distinct sizes
    has no fit (``fit.fit_by_family``). Each fit is of |M| and carries a percentile bootstrap
    interval of its slope from ``n_boot`` resamples of every model's tokens.
    """
    by_quantity = {q: fit.fit_by_family(sizes, samples, families, term(q), n_boot=n_boot, seed=seed)
                   for q in quantities}
    groups = dict.fromkeys(g for fits in by_quantity.values() for g in fits)
    return {g: {q: by_quantity[q][g] for q in quantities if g in by_quantity[q]} for g in groups}


def exponent_gaps(fits: Mapping[str, fit.PowerLawFit]) -> dict[str, float]:
    """Paper B's scaling difference ``|alpha_M - alpha_CE|`` (Table 2) of each component, from one
    group's fits keyed by quantity (``fit_components(...)[group]``)."""
    return {q: abs(fits[q].slope - fits["CE"].slope) for q in metrics.COMPONENTS if q in fits}


def slopes(sizes, values) -> np.ndarray:
    """Least-squares slopes of log |values| against log ``sizes`` for many sets of values at once.

    sizes : (m,) positive sizes, at least two distinct; values : (m, ...) one value per size along
    the first axis, any further axes independent sets (e.g. subsample sizes x repeats).
    Returns the slopes, of shape ``values.shape[1:]``: the ``fit.fit_power_law`` slope of each
    set, NaN where some value of a set is zero or not finite.

    >>> slopes([1e2, 1e4], np.array([[1.0, -4.0], [0.1, 0.4]]))
    array([-0.5, -0.5])
    """
    x = np.log(np.asarray(sizes, np.float64))
    if x.ndim != 1 or len(np.unique(x)) < 2:
        raise ValueError("slopes need a 1-d array of at least two distinct positive sizes")
    values = np.abs(np.asarray(values, np.float64))
    if values.shape[:1] != x.shape:
        raise ValueError(f"values must have one row per size ({len(x)}), got shape {values.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(values)
    y = np.where(np.isfinite(y), y, np.nan)
    x = x - x.mean()
    return np.tensordot(x, y, axes=(0, 0)) / (x @ x)


# ---------------------------------------------------------------------------------------------
# One resampling pass for every quantity (chapters B3 and B4)


def terms_vector(sample: Mapping[str, np.ndarray]) -> np.ndarray:
    """CE, EE, SA and Conf of one sample (``logp``, ``gt``), in the order of ``QUANTITIES``."""
    t = metrics.ce_decomposition(sample["logp"], sample["gt"]).terms()
    return np.array([t[q] for q in QUANTITIES])


@dataclass(frozen=True)
class TermBootstrap:
    """CE, EE, SA and Conf of every model on its full sample and on ``n_boot`` resamples.

    full : (models, 4) values in the order of ``QUANTITIES``; boot : (n_boot, models, 4). Replicate
    b of every model and every quantity comes from one resample of that model's tokens, so any
    function of several quantities or models (R^2 of EE minus R^2 of CE, a share of a change
    between two models) can be computed per replicate and its spread read as the spread of that
    function: the intervals are paired.
    """

    full: np.ndarray
    boot: np.ndarray

    def select(self, idx) -> "TermBootstrap":
        """The same replicates for the models ``idx`` only (e.g. one family)."""
        return TermBootstrap(self.full[idx], self.boot[:, idx])


def bootstrap_terms(samples: Sequence[Mapping[str, np.ndarray]], n_boot: int, seed: int = 0) -> TermBootstrap:
    """Resample every model's tokens with replacement ``n_boot`` times and decompose each resample.

    samples : one mapping per model with per-token ``logp`` and ``gt``. Tokens are treated as
    independent, which neighbouring tokens are not, so intervals from these replicates are lower
    bounds on the uncertainty due to the choice of evaluation text (as in ``rankscale.fit``).
    The plug-in components (EE, SA, Conf) are biased estimators; a resample holds about 63% of
    the distinct tokens, so their replicates can be shifted from the full-sample value (see
    chapter B3), which ``exponent_convergence`` detects.
    """
    rng = np.random.default_rng(seed)
    full = np.array([terms_vector(s) for s in samples])
    boot = np.empty((n_boot, len(samples), len(QUANTITIES)))
    for i, s in enumerate(samples):
        logp, gt = np.asarray(s["logp"]), np.asarray(s["gt"])
        n = len(logp)
        for b in range(n_boot):
            idx = rng.integers(0, n, n)
            boot[b, i] = terms_vector({"logp": logp[idx], "gt": gt[idx]})
    return TermBootstrap(full, boot)


def lines(sizes, values) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slopes and R^2 of log |values| against log ``sizes``, for many sets at once.

    sizes : (m,) at least two distinct positive sizes; values : (m, ...) one value per size along
    the first axis. Returns (slopes, r2) of shape ``values.shape[1:]``, as ``fit.fit_power_law``
    computes them for each set; NaN where a value of a set is zero or not finite.

    >>> s, r = lines([1e2, 1e4, 1e6], np.array([1.0, 0.1, 0.01]))
    >>> round(float(s), 6), round(float(r), 6)
    (-0.5, 1.0)
    """
    x = np.log(np.asarray(sizes, np.float64))
    slope = slopes(sizes, values)
    values = np.abs(np.asarray(values, np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(values)
    y = np.where(np.isfinite(y), y, np.nan)
    xc = (x - x.mean()).reshape((-1,) + (1,) * (y.ndim - 1))
    yc = y - y.mean(axis=0)
    residual = yc - slope * xc
    total = (yc ** 2).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = np.where(total > 0, 1.0 - (residual ** 2).sum(axis=0) / np.where(total > 0, total, 1.0), 1.0)
    return slope, np.where(np.isfinite(slope), r2, np.nan)


def group_bootstrap(sizes, terms: TermBootstrap) -> fit.Bootstrap:
    """Paper B's eq. 9 for CE, EE, SA and Conf of one group of models (a family, or every model
    pooled), on the full samples and on every replicate of ``terms`` (``bootstrap_terms`` of
    the same models, e.g. ``.select(idx)``).

    Returns a ``fit.Bootstrap`` with one entry per quantity in the order of ``QUANTITIES``:
    ``points`` the full-sample fits of |M| (None where a value is zero), ``slopes`` and ``r2`` of
    shape (4, n_boot), paired across quantities, so e.g. the interval of R^2(EE) - R^2(CE) is
    ``fit.percentile_interval(b.r2[1] - b.r2[0])``.
    """
    sizes = np.asarray(sizes, np.float64)
    if len(np.unique(sizes)) < 2:
        raise ValueError("a group needs at least two distinct sizes to be fitted")
    points = []
    for q in range(len(QUANTITIES)):
        values = np.abs(terms.full[:, q])
        ok = np.all(np.isfinite(values) & (values > 0))
        points.append(fit.fit_power_law(sizes, values) if ok else None)
    boot_slopes, boot_r2 = lines(sizes, terms.boot.transpose(1, 2, 0))  # (models, 4, n_boot) -> (4, n_boot)
    return fit.Bootstrap(points, boot_slopes, boot_r2)


def change_shares(terms_first, terms_last) -> dict[str, np.ndarray]:
    """Each component's share of the change in CE between two models (paper B's components).

    terms_first, terms_last : arrays (..., 4) of CE, EE, SA, Conf (``QUANTITIES`` order), e.g.
    the smallest and the largest model of a family, or their bootstrap replicates. Since
    CE = EE + SA - Conf, the change of CE is the sum of the changes of EE, SA and -Conf, and the
    shares dEE/dCE, dSA/dCE and -dConf/dCE add up to 1. A component that stays put has share 0;
    one that moves against CE (SA rising while CE falls) has a negative share. Unlike the R^2 of
    a fit of log |M|, the shares weigh each component's change by its size in nats.

    >>> s = change_shares(np.array([4.0, 3.0, 1.5, 0.5]), np.array([3.0, 2.2, 1.6, 0.8]))
    >>> {k: round(float(v), 6) for k, v in s.items()}
    {'EE': 0.8, 'SA': -0.1, 'Conf': 0.3}
    """
    first, last = np.asarray(terms_first, np.float64), np.asarray(terms_last, np.float64)
    change = last - first
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"EE": change[..., 1] / change[..., 0], "SA": change[..., 2] / change[..., 0],
                "Conf": -change[..., 3] / change[..., 0]}


def curvature(sizes, values) -> np.ndarray:
    """Quadratic coefficient c of log |values| = a + b x + c x^2, x = log size (centred), for
    many sets of values at once: the bend of a power law on log-log axes. A falling metric
    whose decline slows (its local exponent shrinks in magnitude as size grows) has c > 0.

    sizes : (m,) at least three distinct positive sizes; values : (m, ...) one value per size
    along the first axis. Returns c of shape ``values.shape[1:]``, NaN where a value is zero.

    >>> x = np.log([1e2, 1e3, 1e4, 1e5])
    >>> round(float(curvature(np.exp(x), np.exp(1.0 - 0.3 * x + 0.02 * x**2))), 6)
    0.02
    """
    x = np.log(np.asarray(sizes, np.float64))
    if x.ndim != 1 or len(np.unique(x)) < 3:
        raise ValueError("a curvature needs a 1-d array of at least three distinct positive sizes")
    values = np.abs(np.asarray(values, np.float64))
    if values.shape[:1] != x.shape:
        raise ValueError(f"values must have one row per size ({len(x)}), got shape {values.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(values)
    y = np.where(np.isfinite(y), y, np.nan)
    xc = x - x.mean()
    design = np.stack([np.ones_like(xc), xc, xc ** 2], axis=1)
    coef = np.linalg.pinv(design) @ y.reshape(len(x), -1)
    return coef[2].reshape(values.shape[1:])


def side(interval, threshold: float = 0.0) -> int:
    """Where an interval lies with respect to ``threshold``: +1 wholly above, -1 wholly below,
    0 if it contains the threshold (or is not finite). The B3-B5 rules read intervals this way:
    a claim that a difference or a direction exists needs its side, a claim of parity fails only
    on the other side.

    >>> side((0.1, 0.3)), side((-0.3, -0.1)), side((-0.1, 0.1)), side((0.85, 0.9), 0.8)
    (1, -1, 0, 1)
    """
    lo, hi = interval
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return 0
    return 1 if lo > threshold else -1 if hi < threshold else 0


def covering(interval, point: float) -> tuple[float, float]:
    """A bootstrap interval stretched, where needed, to contain the full-sample value ``point``.

    Plug-in estimates (EE, SA, Conf and what is computed from them) are biased, and a resample
    holds fewer distinct tokens than the sample, so the replicates can sit to one side of the
    full-sample value (chapter B3); the evidence then spans both, and a rule reading the
    interval should not be decided by that shift alone.

    >>> covering((0.2, 0.3), 0.35), covering((0.2, 0.3), 0.25)
    ((0.2, 0.35), (0.2, 0.3))
    """
    lo, hi = interval
    return float(min(lo, point)), float(max(hi, point))


# ---------------------------------------------------------------------------------------------
# Have the exponents converged at the evaluated token count? (chapters B5 and B3)


@dataclass(frozen=True)
class ExponentConvergence:
    """How one group's size exponent of one quantity depends on the number of evaluation tokens.

    grid : (g,) token counts; exponents : (g, repeats) the exponent fitted on each repeat's
    subsample; full : the exponent on all tokens; error : ``metrics.sample_size_error`` of the
    exponent at the largest count (its drift over the last doubling of the tokens: every
    repeat holds all tokens there); tolerance : the allowed error; needed : the smallest count
    from which the error stays within the tolerance (NaN: more than available); converged :
    whether the error at the evaluated count is within the tolerance.
    """

    grid: np.ndarray
    exponents: np.ndarray
    full: float
    error: float
    tolerance: float
    needed: float
    converged: bool


def subsample_models(records: Sequence, grid, n_repeats: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``metrics.subsampled_decompositions`` of every model on one token grid; records : objects
    with per-token ``logp``, ``gt`` and ``window`` (``rankscale.records.Records``)."""
    return [metrics.subsampled_decompositions(r.logp, r.gt, r.window, grid, n_repeats=n_repeats, seed=seed)
            for r in records]


def exponent_convergence(sizes, subsamples: Sequence[Mapping[str, np.ndarray]], full_terms,
                         tolerance: float) -> dict[str, ExponentConvergence]:
    """Whether each quantity's size exponent (paper B's eq. 9) has converged at the evaluated
    token count, for one group of models (a family, or every model pooled).

    sizes : (m,) non-embedding sizes, at least two distinct; subsamples : m outputs of
    ``metrics.subsampled_decompositions`` on one grid (``subsample_models``), whose largest
    count is every token; full_terms : (m, 4) CE, EE, SA, Conf on all tokens (``QUANTITIES``
    order); tolerance : the allowed error as a fraction of |alpha_CE| on all tokens. The
    tolerance is relative to CE's exponent, not the component's own, because paper B compares
    every component's exponent with CE's (Table 2) and a component that does not scale has an
    exponent near zero, relative to which no error is small.

    The error at a count is the spread of the exponent over repeats combined with the change
    of its mean over the last doubling (``metrics.sample_size_error``); at the evaluated count
    only the change remains. Returns ``{quantity: ExponentConvergence}``.
    """
    grid = np.asarray(subsamples[0]["n_tokens"].mean(axis=1))
    full_terms = np.asarray(full_terms, np.float64)
    full = slopes(sizes, full_terms)  # (4,)
    allowed = tolerance * abs(float(full[0]))
    out = {}
    for q, quantity in enumerate(QUANTITIES):
        stacked = np.stack([s[quantity] for s in subsamples])  # models, grid, repeats
        exps = slopes(sizes, stacked)
        error = float(metrics.sample_size_error(grid, exps)[-1]) if np.isfinite(exps).all() else float("nan")
        needed = metrics.tokens_needed(grid, exps, allowed) if np.isfinite(exps).all() else float("nan")
        out[quantity] = ExponentConvergence(grid, exps, float(full[q]), error, allowed, needed,
                                            bool(np.isfinite(error) and error <= allowed))
    return out


def convergence_by_group(sizes, records: Sequence, groups: Mapping[str, Sequence[int]], *, min_tokens: int,
                         n_grid: int, n_repeats: int, tolerance: float, seed: int = 0,
                         ) -> dict[str, dict[str, ExponentConvergence]]:
    """``exponent_convergence`` of every group (name -> model indices) of one corpus's models,
    on the grid ``metrics.token_grid(fewest tokens of any model, min_tokens, n_grid)``: the check
    chapter B5 reports and chapter B3 applies to its verdicts on SA and Confidence.
    Returns ``{group: {quantity: ExponentConvergence}}``."""
    sizes = np.asarray(sizes, np.float64)
    grid = metrics.token_grid(min(len(r.logp) for r in records), min_tokens, n_grid)
    subsamples = subsample_models(records, grid, n_repeats, seed)
    full = np.array([terms_vector({"logp": r.logp, "gt": r.gt}) for r in records])
    return {name: exponent_convergence(sizes[list(idx)], [subsamples[i] for i in idx], full[list(idx)], tolerance)
            for name, idx in groups.items()}


def instance_exponents(sizes, records: Sequence, counts, n_repeats: int, seed: int = 0) -> np.ndarray:
    """Each quantity's size exponent on subsamples of ``counts`` evaluation instances (windows),
    the mean over ``n_repeats`` random subsamples: paper B's App. A.1 check of 1k against 10k
    instances. records : one per model (``logp``, ``gt``, ``window``); a count above a model's
    number of windows takes all of them. Models evaluated on the same windows (one tokenizer)
    see the same subsamples. Returns (len(counts), 4), quantities in ``QUANTITIES`` order."""
    counts = np.atleast_1d(np.asarray(counts))
    subs = [metrics.subsampled_decompositions(r.logp, r.gt, r.window, counts, n_repeats=n_repeats, seed=seed,
                                              unit="windows") for r in records]
    return np.stack([np.nanmean(slopes(sizes, np.stack([s[q] for s in subs])), axis=-1) for q in QUANTITIES],
                    axis=-1)
