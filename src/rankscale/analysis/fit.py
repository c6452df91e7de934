"""Power-law fits: least squares of log(metric) on log(non-embedding parameters).

A fit y = A * S**slope is the straight line log y = intercept + slope * log S; R^2 is measured in
log space, as in both papers' tables. Bootstrap intervals resample each model's evaluation
text with replacement (its tokens, or whole windows: ``rankscale.analysis.bootstrap.resample``), recompute the
metric per model, and refit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from rankscale.analysis.bootstrap import LEVEL, interval

POOLED = "All"  # name of the fit over every model of every family (paper B's Tables 1-2)


@dataclass(frozen=True)
class PowerLawFit:
    """Result of a log-log fit. ``ci`` is a bootstrap interval for ``slope`` when computed."""

    slope: float
    intercept: float
    r2: float
    n_points: int
    ci: tuple[float, float] | None = None

    def predict(self, sizes) -> np.ndarray:
        """Fitted metric values at ``sizes``."""
        return np.exp(self.intercept) * np.asarray(sizes, np.float64) ** self.slope


def _loglog(sizes, values) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(sizes, np.float64)
    y = np.asarray(values, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"sizes and values must be 1-d arrays of one length, got {x.shape} and {y.shape}")
    if len(x) < 2 or len(np.unique(x)) < 2:
        raise ValueError("a power-law fit needs at least two distinct sizes")
    if (x <= 0).any() or (y <= 0).any() or not np.isfinite(y).all():
        raise ValueError("sizes and values must be positive and finite to be fitted on log-log axes")
    return np.log(x), np.log(y)


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares line y = intercept + slope * x: (slope, intercept, R^2 in y)."""
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (intercept + slope * x)
    total = y - y.mean()
    r2 = 1.0 - residual @ residual / (total @ total) if total @ total > 0 else 1.0
    return float(slope), float(intercept), float(r2)


def fit_power_law(sizes, values) -> PowerLawFit:
    """Least-squares line through (log S, log y).

    sizes : (m,) positive model sizes; values : (m,) positive metric values.
    Returns slope, intercept (natural log), R^2 of the line in log space, number of points.

    >>> f = fit_power_law([1e6, 1e7, 1e8], [4.0, 2.0, 1.0])
    >>> round(f.slope, 6), round(f.r2, 6)
    (-0.30103, 1.0)
    """
    lx, ly = _loglog(sizes, values)
    return PowerLawFit(*_line(lx, ly), len(lx))


Sample = Mapping[str, np.ndarray]


@dataclass(frozen=True)
class Bootstrap:
    """Power-law fits of an m-valued metric on the full samples and on ``n_boot`` resamples.

    points : m full-sample fits (None where not fittable); slopes, r2 : (m, n_boot) per-replicate
    slope and R^2 (nan where a replicate cannot be fitted); values : (m, n_boot, models) the
    metric's values on every resample (for fits of another form, e.g. ``fit_offset_power_law``,
    on the same replicates). Replicate b of every entry comes from
    the same resample of every model's text, so differences between entries (R^2 of EE minus
    R^2 of CE, say) are paired and their spread is the spread of the difference itself.
    """

    points: list[PowerLawFit | None]
    slopes: np.ndarray
    r2: np.ndarray
    values: np.ndarray | None = None

    def fits(self, level: float = LEVEL) -> list[PowerLawFit | None]:
        """The m full-sample fits, each with its slope's interval at ``level`` read from its replicates
        (``rankscale.analysis.bootstrap.interval``: the slope -+ z standard deviations of its refits; None where
        some replicate could not be fitted); None where the full sample cannot be fitted.

        >>> samples = [{"v": np.full(5, 2.0 ** -i)} for i in range(3)]
        >>> fits = bootstrap([1e4, 1e5, 1e6], samples, lambda s: [s["v"].mean(), 1.0], n_boot=10).fits()
        >>> [(round(f.slope, 6), f.ci == (f.slope, f.slope)) for f in fits]  # constant tokens: no noise
        [(-0.30103, True), (0.0, True)]
        """
        return [None if point is None else replace(point, ci=interval(point.slope, slopes, level))
                for point, slopes in zip(self.points, self.slopes)]


def bootstrap(sizes, samples: Sequence[Sample], metric: Callable[[Sample], np.ndarray], n_boot: int = 1000,
              seed: int = 0, seeds: Sequence[Sequence[Sample]] | None = None, *, same_text=False,
              by: str | None = None) -> Bootstrap:
    """Resample every model's text ``n_boot`` times (``rankscale.analysis.bootstrap.resample``, which reads
    ``same_text`` and ``by``: single tokens by default, or whole windows, shared by the models of one text),
    recompute the metric's m values per model and refit each entry on every resample; with ``seeds`` (each
    model's other training runs, as ``resample`` takes them) a replicate also draws which run of
    a model it resamples, so that the fits' spread carries the scatter between runs.

    >>> samples = [{"v": np.full(5, 2.0 ** -i)} for i in range(3)]
    >>> b = bootstrap([1e4, 1e5, 1e6], samples, lambda s: [s["v"].mean(), 1.0], n_boot=4)
    >>> b.slopes.shape, round(float(b.r2[0, 0]), 6)
    ((2, 4), 1.0)
    """
    from rankscale.analysis.bootstrap import line_fits, log_or_nan, resample

    sizes = np.asarray(sizes, np.float64)
    if len(samples) != len(sizes):
        raise ValueError(f"{len(samples)} samples for {len(sizes)} sizes")
    values = np.array([np.atleast_1d(metric(s)) for s in samples], np.float64).T  # (m, models)
    boot = resample(samples, metric, n_boot, seed, same_text=same_text, by=by, seeds=seeds).transpose(2, 0, 1)  # (m, n_boot, models)
    slopes, r2 = line_fits(np.log(sizes), log_or_nan(boot))
    points = [fit_if_positive(sizes, v) for v in values]
    return Bootstrap(points, slopes, r2, boot)


def fit_by_family(
    sizes,
    samples: Sequence[Sample],
    families: Sequence[str],
    metric: Callable[[Sample], float],
    n_boot: int = 1000,
    level: float = LEVEL,
    seed: int = 0,
    pooled: str = POOLED,
) -> dict[str, PowerLawFit | None]:
    """One fit per family plus one over every model pooled (paper B's "All"), keyed by family, each with its
    slope's bootstrap interval (``Bootstrap.fits``).

    A family with fewer than two distinct sizes is left out; the pooled fit is included only when there is more
    than one family; a group whose values cannot be fitted (one not positive) maps to None.
    """
    sizes = np.asarray(sizes, np.float64)
    families = np.asarray(families)
    groups = {f: np.flatnonzero(families == f) for f in dict.fromkeys(families.tolist())}
    if len(groups) > 1:
        groups[pooled] = np.arange(len(sizes))
    return {name: bootstrap(sizes[idx], [samples[i] for i in idx], lambda s: [metric(s)], n_boot, seed)
            .fits(level)[0] for name, idx in groups.items() if len(np.unique(sizes[idx])) >= 2}


def _fittable(values: np.ndarray) -> np.ndarray:
    """Which rows (last axis: models) have every value positive and finite, as log-log fits need."""
    return np.all(np.isfinite(values) & (values > 0), axis=-1)


# ---------------------------------------------------------------------------------------------
# The one guard of a log-log fit (chapters fit only what can be fitted)


def fit_if_positive(sizes, values) -> PowerLawFit | None:
    """``fit_power_law`` where the values can be fitted on log-log axes, None where they cannot.

    Parameters
    ----------
    sizes : array_like, shape (m,)
        Positive model sizes.
    values : array_like, shape (m,)
        The metric of each model.

    Returns
    -------
    PowerLawFit or None
        None where some value is not positive and finite (e.g. -log RBP_k = 0 when every
        target is within the top k, or a sequence success rate of 0 whose log is infinite) or
        the sizes hold fewer than two distinct values.

    Examples
    --------
    >>> round(fit_if_positive([1e6, 1e7, 1e8], [4.0, 2.0, 1.0]).slope, 5)
    -0.30103
    >>> fit_if_positive([1e6, 1e7, 1e8], [4.0, 0.0, 1.0]), fit_if_positive([1e6, 1e6], [4.0, 2.0])
    (None, None)
    """
    sizes, values = np.asarray(sizes, np.float64), np.asarray(values, np.float64)
    if len(np.unique(sizes)) < 2 or not _fittable(values):
        return None
    return fit_power_law(sizes, values)


@dataclass(frozen=True)
class SemilogFit:
    """Least-squares line y = intercept + slope * ln(S), with R^2 in y."""

    slope: float
    intercept: float
    r2: float
    n_points: int

    def predict(self, sizes) -> np.ndarray:
        return self.intercept + self.slope * np.log(np.asarray(sizes, np.float64))


def fit_semilog(sizes, values) -> SemilogFit:
    """Fit values linearly in log size, for quantities that may change sign (e.g. a lognormal's
    mu / sigma against size, paper A's Figure 8d).

    >>> f = fit_semilog([1.0, np.e, np.e**2], [1.0, 0.0, -1.0])
    >>> round(f.slope, 6), round(f.intercept, 6), round(f.r2, 6)
    (-1.0, 1.0, 1.0)
    """
    x = np.asarray(sizes, np.float64)
    y = np.asarray(values, np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(np.unique(x)) < 2 or (x <= 0).any() or not np.isfinite(y).all():
        raise ValueError("fit_semilog needs 1-d arrays of one length, at least two distinct positive sizes "
                         "and finite values")
    return SemilogFit(*_line(np.log(x), y), len(x))


def predicted_window_success(neg_log_rbp: PowerLawFit, sizes, n: int) -> np.ndarray:
    """Paper A's eq. 8: p_{N,k} = exp(-N * (-log RBP_k)) with -log RBP_k from its power-law fit,
    i.e. the chance that n independent consecutive targets are all in the top k, at ``sizes``."""
    return np.exp(-n * neg_log_rbp.predict(sizes))


def size_for_window_success(neg_log_rbp: PowerLawFit, n: int, p: float) -> float:
    """The size at which ``predicted_window_success`` equals ``p`` (0 < p < 1); needs a falling
    -log RBP_k (negative slope). In log size the curve keeps its shape as n changes: the span
    between two levels p is fixed by the slope, and n only moves it by -log(n) / slope."""
    if not 0 < p < 1:
        raise ValueError(f"p must lie strictly between 0 and 1, got {p}")
    if neg_log_rbp.slope >= 0:
        raise ValueError("-log RBP_k does not fall with size in this fit, so p_{N,k} never rises to p")
    return float(np.exp((np.log(-np.log(p) / n) - neg_log_rbp.intercept) / neg_log_rbp.slope))


@dataclass(frozen=True)
class OffsetPowerLawFit:
    """L = E + A * S**(-alpha): a power law above an irreducible floor E (least squares in L)."""

    floor: float
    scale: float
    alpha: float
    rss: float
    n_points: int

    def predict(self, sizes) -> np.ndarray:
        return self.floor + self.scale * np.asarray(sizes, np.float64) ** -self.alpha


def fit_offset_power_law(sizes, values) -> OffsetPowerLawFit:
    """Least-squares fit of L = E + A S^-alpha (E >= 0, A > 0, alpha > 0) with scipy.

    Where the curve on log-log axes bends because the metric approaches a floor, the exponent of
    the straight-line fit (``fit_power_law``) mixes the floor into the slope; this fit separates
    the two, which is what a "different offsets" explanation of two exponents predicts. Needs at
    least four points (three parameters). The search starts from the floor at half the smallest
    value and the straight-line fit of what lies above it.

    >>> s = np.array([1e3, 1e4, 1e5, 1e6, 1e7])
    >>> f = fit_offset_power_law(s, 2.0 + 30.0 * s ** -0.3)
    >>> round(f.floor, 4), round(f.alpha, 4)
    (2.0, 0.3)
    """
    from scipy.optimize import least_squares

    x, y = np.asarray(sizes, np.float64), np.asarray(values, np.float64)
    if len(x) < 4 or len(np.unique(x)) < 4:
        raise ValueError("an offset power law has three parameters and needs at least four distinct sizes")
    if (x <= 0).any() or not np.isfinite(y).all() or (y <= 0).any():
        raise ValueError("sizes and values must be positive and finite")
    lx = np.log(x) - np.log(x).mean()
    floor0 = 0.5 * y.min()
    slope, intercept, _ = _line(lx, np.log(y - floor0))
    start = [np.log(floor0), intercept, np.log(max(-slope, 1e-3))]

    def residual(theta):  # floor, scale and exponent in logs keep them positive
        return np.exp(theta[0]) + np.exp(theta[1] - np.exp(theta[2]) * lx) - y

    result = least_squares(residual, start, xtol=1e-14, ftol=1e-14, gtol=1e-14, max_nfev=20000)
    floor, log_scale, alpha = np.exp(result.x[0]), result.x[1], np.exp(result.x[2])
    scale = float(np.exp(log_scale + alpha * np.log(x).mean()))  # back to uncentred sizes
    return OffsetPowerLawFit(float(floor), scale, float(alpha), float(result.fun @ result.fun), len(x))


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
    >>> from rankscale.analysis.fit import fit_power_law
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
    """``rankscale.analysis.fit.fit_offset_power_law`` of one metric on its full sample and on each bootstrap
    replicate, so that the exponents of two metrics from the same replicates can be compared
    pairwise.

    Parameters
    ----------
    sizes : array_like, shape (models,)
        Non-embedding sizes, at least four distinct (the law has three parameters).
    values : array_like, shape (models,)
        The metric on the full samples.
    replicates : array_like, shape (n_boot, models)
        The metric on each resample, e.g. one entry of ``rankscale.analysis.fit.bootstrap(...).values``.

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


def subsample_scatter(sizes, samples: Sequence[np.ndarray], metric: Callable[[np.ndarray], np.ndarray],
                      fractions: Sequence[float], n_repeats: int, seed: int = 0) -> np.ndarray:
    """How far a metric scatters about its log-log line in size when each model is evaluated on fewer tokens:
    the residual standard deviation of log(metric) about the least-squares line on log S, averaged over
    ``n_repeats`` random subsamples (without replacement) of each model's tokens, per fraction of the tokens.

    If the scatter is sampling noise it shrinks as the tokens grow, as one over the square root of their
    number; a systematic departure from the line does not shrink.

    Parameters
    ----------
    sizes : array_like, shape (models,)
        Non-embedding sizes, at least three distinct (a line through two points has no residual).
    samples : sequence of ndarray
        Each model's per-token values (e.g. its ranks), one array per model.
    metric : callable
        One model's (sub)sample -> its metric at each of m settings (e.g. -log RBP_k at m values of k).
    fractions : sequence of float
        Fractions of each model's tokens, in (0, 1]; 1 is the full sample, computed once.
    n_repeats : int
        Subsamples per fraction.
    seed : int
        Of the random subsamples.

    Returns
    -------
    ndarray of shape (len(fractions), m)
        NaN where some subsample of that fraction has a value that cannot be fitted on log-log axes.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> samples = [rng.exponential(mean, 4000) for mean in (4.0, 2.0, 1.0)]  # an exact power law plus noise
    >>> scatter = subsample_scatter([1e6, 1e7, 1e8], samples, lambda x: np.array([x.mean()]), (0.05, 1.0), 20)
    >>> bool(scatter[1, 0] < scatter[0, 0])
    True
    """
    x = np.log(np.asarray(sizes, np.float64))
    if len(np.unique(x)) < 3:
        raise ValueError("a scatter about a line needs at least three distinct sizes")
    rng = np.random.default_rng(seed)
    out = []
    for fraction in fractions:
        repeats = 1 if fraction >= 1 else n_repeats
        found = []
        for _ in range(repeats):
            values = np.array([metric(s if fraction >= 1 else rng.choice(s, max(1, round(fraction * len(s))),
                                                                          replace=False)) for s in samples]).T
            fittable = _fittable(values)
            sd = np.full(len(values), np.nan)
            for i in np.flatnonzero(fittable):
                y = np.log(values[i])
                slope, intercept = np.polyfit(x, y, 1)
                residual = y - (intercept + slope * x)
                sd[i] = np.sqrt(residual @ residual / (len(x) - 2))
            found.append(sd)
        out.append(np.mean(found, axis=0))  # NaN where any repeat could not be fitted
    return np.array(out)
