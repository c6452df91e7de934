"""Cross-entropy and its components against model size (paper B, §4-5).

Paper B fits ``log |M| = c_M + alpha_M log N`` (its eq. 9) for M in CE, EE, SA, Conf, per model
family and over every model of every family pooled ("All"), and compares the exponents
(``|Delta_M| = |alpha_M - alpha_CE|``, its Table 2). The chapters resample every model's
evaluation tokens once for all four quantities (``rankscale.analysis.bootstrap.resample`` with
``terms_vector`` as the metric) and fit each group of models from those replicates
(``group_bootstrap``), so that differences between quantities (``gap_difference``) get paired
intervals (``rankscale.analysis.bootstrap.interval``)::

    full = np.array([terms_vector(s) for s in samples])               # (models, 4)
    boot = bootstrap.resample(samples, terms_vector, n_boot, seed)    # (n_boot, models, 4)
    b = group_bootstrap(sizes[idx], full[idx], boot[:, idx])          # one family, or every model
    exponent_gaps(dict(zip(QUANTITIES, b.points)))                    # paper B's Table 2 row

``change_shares`` splits CE's change between two models into its components', ``share_trend``
follows EE's share of CE across sizes and ``curvature`` measures the bend of a log-log law.
``convergence_by_group`` is chapter B5's check that a size exponent no longer moves with the
number of evaluation tokens, which chapter B3 applies to its verdicts on SA and Confidence;
``instance_exponents`` repeats paper B's App. A.1 comparison of 1k and 10k instances.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rankscale.analysis import fit, metrics
from rankscale.analysis.bootstrap import LEVEL, interval, line_fits, log_or_nan

QUANTITIES = ("CE", *metrics.COMPONENTS)


def terms_vector(sample: Mapping[str, np.ndarray]) -> np.ndarray:
    """CE, EE, SA and Conf of one sample, in the order of ``QUANTITIES``.

    Parameters
    ----------
    sample : mapping
        Per-token arrays ``logp`` (n,) (log-probability of the target) and ``gt`` (n,) (its
        0-based strict rank-based error), as ``Records.arrays()`` holds them.

    Returns
    -------
    ndarray of shape (4,)
        Paper B's decomposition (``metrics.ce_decomposition``): CE = EE + SA - Conf.

    Examples
    --------
    >>> t = terms_vector({"logp": np.log([0.5, 0.25, 0.5, 0.125]), "gt": np.array([0, 1, 0, 2])})
    >>> t.shape, bool(np.isclose(t[0], t[1] + t[2] - t[3]))
    ((4,), True)
    """
    t = metrics.ce_decomposition(sample["logp"], sample["gt"]).terms()
    return np.array([t[q] for q in QUANTITIES])


def exponent_gaps(fits: Mapping[str, fit.PowerLawFit | None]) -> dict[str, float]:
    """Paper B's scaling difference ``|alpha_M - alpha_CE|`` (Table 2) of each component.

    Parameters
    ----------
    fits : mapping
        One group's fits of |M| keyed by quantity (``dict(zip(QUANTITIES, b.points))`` of a
        ``group_bootstrap``); a component without a fit (None or missing) is left out.

    Returns
    -------
    dict
        ``{component: |alpha_M - alpha_CE|}`` for the components of ``metrics.COMPONENTS`` that
        have a fit.

    Examples
    --------
    >>> values = {"CE": [4.0, 2.0], "EE": [3.0, 1.5], "SA": [1.0, 1.0], "Conf": [0.5, 0.25]}
    >>> fits = {q: fit.fit_power_law([1e4, 1e5], v) for q, v in values.items()}
    >>> {q: round(g, 4) for q, g in exponent_gaps(fits).items()}
    {'EE': 0.0, 'SA': 0.301, 'Conf': 0.0}
    """
    return {q: abs(fits[q].slope - fits["CE"].slope) for q in metrics.COMPONENTS if fits.get(q) is not None}


def group_bootstrap(sizes, full, boot, level: float = LEVEL) -> fit.Bootstrap:
    """Paper B's eq. 9 for CE, EE, SA and Conf of one group of models (a family, or every model
    pooled), on the full samples and on every replicate of a bootstrap of the text.

    Parameters
    ----------
    sizes : (m,) array
        Non-embedding sizes of the group's models, at least two distinct.
    full : (m, 4) array
        CE, EE, SA, Conf of each model on all its tokens (``terms_vector``).
    boot : (n_boot, m, 4) array
        The same on each replicate (``bootstrap.resample(samples, terms_vector, n_boot)``, the
        group's models selected), replicate b of every model and quantity from one resample.
    level : float
        Level of the slopes' intervals.

    Returns
    -------
    fit.Bootstrap
        One entry per quantity in the order of ``QUANTITIES``: ``points`` the full-sample fits of
        |M| with ``ci`` the ``bootstrap.interval`` of the slope (None where a value of the full
        samples is zero or not finite); ``slopes`` and ``r2`` of shape (4, n_boot), paired across
        quantities, so the interval of R^2(EE) - R^2(CE) is
        ``bootstrap.interval(points[1].r2 - points[0].r2, r2[1] - r2[0])``.

    Examples
    --------
    >>> full = np.array([[4.0, 3.0, 1.5, 0.5], [3.0, 2.2, 1.6, 0.8], [2.4, 1.7, 1.7, 1.0]])
    >>> boot = np.stack([full, full * [[1.0], [1.02], [1.0]]])
    >>> b = group_bootstrap([1e4, 1e5, 1e6], full, boot)
    >>> b.slopes.shape, round(b.points[0].slope, 4), b.points[0].ci is not None
    ((4, 2), -0.1109, True)
    """
    sizes = np.asarray(sizes, np.float64)
    full, boot = np.asarray(full, np.float64), np.asarray(boot, np.float64)
    if len(np.unique(sizes)) < 2:
        raise ValueError("a group needs at least two distinct sizes to be fitted")
    if full.shape != (len(sizes), len(QUANTITIES)) or boot.shape[1:] != full.shape:
        raise ValueError(f"need full of shape ({len(sizes)}, {len(QUANTITIES)}) and boot of shape "
                         f"(n_boot, {len(sizes)}, {len(QUANTITIES)}), got {full.shape} and {boot.shape}")
    slopes, r2 = line_fits(np.log(sizes), log_or_nan(np.abs(boot.transpose(2, 0, 1))))  # (4, n_boot)
    points = []
    for q in range(len(QUANTITIES)):
        p = fit.fit_if_positive(sizes, np.abs(full[:, q]))
        points.append(None if p is None else
                      fit.PowerLawFit(p.slope, p.intercept, p.r2, p.n_points, interval(p.slope, slopes[q], level)))
    return fit.Bootstrap(points, slopes, r2)


def gap_difference(b: fit.Bootstrap, far: str, near: str) -> tuple[float, np.ndarray]:
    """How much farther ``far``'s size exponent lies from CE's than ``near``'s does:
    ``|alpha_far - alpha_CE| - |alpha_near - alpha_CE|`` (paper B's Table 2 gaps, compared).

    Parameters
    ----------
    b : fit.Bootstrap
        A ``group_bootstrap`` (entries in ``QUANTITIES`` order).
    far, near : str
        Two quantities of ``QUANTITIES`` (components, in practice).

    Returns
    -------
    (float, ndarray of shape (n_boot,))
        The difference on the full samples (NaN where a quantity has no fit) and on every
        replicate, paired, for ``bootstrap.interval``.

    Examples
    --------
    >>> full = np.array([[4.0, 3.0, 1.5, 0.5], [3.0, 2.2, 1.6, 0.8], [2.4, 1.7, 1.7, 1.0]])
    >>> b = group_bootstrap([1e4, 1e5, 1e6], full, np.stack([full, full * [[1.0], [1.02], [1.0]]]))
    >>> point, replicates = gap_difference(b, "SA", "EE")
    >>> round(point, 4), replicates.shape
    (0.1257, (2,))
    """
    i, j = QUANTITIES.index(far), QUANTITIES.index(near)
    s = b.slopes
    replicates = np.abs(s[i] - s[0]) - np.abs(s[j] - s[0])
    p = b.points
    if p[0] is None or p[i] is None or p[j] is None:
        return float("nan"), replicates
    return abs(p[i].slope - p[0].slope) - abs(p[j].slope - p[0].slope), replicates


def change_shares(terms_first, terms_last) -> dict[str, np.ndarray]:
    """Each component's share of the change in CE between two models (paper B's components).

    Parameters
    ----------
    terms_first, terms_last : (..., 4) arrays
        CE, EE, SA, Conf (``QUANTITIES`` order) of two models, e.g. the smallest and the largest
        of a family, or their bootstrap replicates (n_boot, 4).

    Returns
    -------
    dict of arrays of shape (...)
        ``dEE/dCE``, ``dSA/dCE`` and ``-dConf/dCE`` keyed ``EE``, ``SA``, ``Conf``. Since
        CE = EE + SA - Conf they add up to 1. A component that stays put has share 0; one that
        moves against CE (SA rising while CE falls) has a negative share. Unlike the R^2 of a fit
        of log |M|, the shares weigh each component's change by its size in nats.

    Examples
    --------
    >>> s = change_shares(np.array([4.0, 3.0, 1.5, 0.5]), np.array([3.0, 2.2, 1.6, 0.8]))
    >>> {k: round(float(v), 6) for k, v in s.items()}
    {'EE': 0.8, 'SA': -0.1, 'Conf': 0.3}
    """
    first, last = np.asarray(terms_first, np.float64), np.asarray(terms_last, np.float64)
    change = last - first
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"EE": change[..., 1] / change[..., 0], "SA": change[..., 2] / change[..., 0],
                "Conf": -change[..., 3] / change[..., 0]}


def share_trend(sizes, full, boot, signed: bool = True) -> tuple[float, np.ndarray]:
    """The trend of EE's share of CE with size (paper B, §5, Fig. 8): the slope of log(share) on
    log size, on the full samples and on every replicate of a bootstrap of the text.

    Parameters
    ----------
    sizes : (m,) array
        Non-embedding sizes of one group of models, at least two distinct.
    full : (m, 4) array
        CE, EE, SA, Conf of each model on all its tokens (``terms_vector``).
    boot : (n_boot, m, 4) array
        The same on each replicate (``bootstrap.resample``).
    signed : bool
        EE's signed contribution EE / CE (True), or its magnitude share |EE| / (|EE| + |SA| +
        |Conf|) (False); see ``metrics.ce_shares``.

    Returns
    -------
    (float, ndarray of shape (n_boot,))
        The slope on the full samples and on every replicate (NaN where a share is not positive),
        for ``bootstrap.interval``; negative where EE's share falls as models grow.

    Examples
    --------
    >>> full = np.array([[4.0, 3.6, 0.5, 0.1], [3.0, 2.4, 0.8, 0.2]])  # EE/CE: 0.9, then 0.8
    >>> point, replicates = share_trend([1e4, 1e5], full, full[None])
    >>> round(point, 5), bool(np.isclose(replicates[0], point))
    (-0.05115, True)
    """
    x = np.log(np.asarray(sizes, np.float64))

    def share(t):
        t = np.asarray(t, np.float64)
        return metrics.ce_shares(t[..., 1], t[..., 2], t[..., 3], signed=signed)["EE"]

    point = line_fits(x, log_or_nan(share(full)))[0]
    return float(point), line_fits(x, log_or_nan(share(boot)))[0]


def curvature(sizes, values) -> np.ndarray:
    """Quadratic coefficient c of log |values| = a + b x + c x^2 (x = log size, centred), for many
    sets of values at once: the bend of a power law on log-log axes. A falling metric whose
    decline slows (its local exponent b + 2 c x shrinks in magnitude as size grows) has c > 0.

    Parameters
    ----------
    sizes : (m,) array
        At least three distinct positive sizes.
    values : (..., m) array
        One value per size along the last axis (e.g. CE of a family's models on each replicate,
        ``boot[:, idx, 0]``).

    Returns
    -------
    ndarray of shape values.shape[:-1]
        c of each set; NaN where a value of the set is zero or not finite.

    Examples
    --------
    >>> x = np.log([1e2, 1e3, 1e4, 1e5])
    >>> round(float(curvature(np.exp(x), np.exp(1.0 - 0.3 * x + 0.02 * x**2))), 6)
    0.02
    """
    x = np.log(np.asarray(sizes, np.float64))
    if x.ndim != 1 or len(np.unique(x)) < 3:
        raise ValueError("a curvature needs a 1-d array of at least three distinct positive sizes")
    y = log_or_nan(np.abs(np.asarray(values, np.float64)))
    if y.shape[-1:] != x.shape:
        raise ValueError(f"values must have one entry per size ({len(x)}) along the last axis, got {y.shape}")
    xc = x - x.mean()
    design = np.stack([np.ones_like(xc), xc, xc ** 2], axis=1)
    coef = y.reshape(-1, len(x)) @ np.linalg.pinv(design).T  # NaN rows stay NaN
    return coef[:, 2].reshape(y.shape[:-1])


def _size_slopes(sizes, values) -> np.ndarray:
    """Slopes of log |values| on log ``sizes``, models along the first axis of ``values``."""
    values = np.moveaxis(np.abs(np.asarray(values, np.float64)), 0, -1)
    return line_fits(np.log(np.asarray(sizes, np.float64)), log_or_nan(values))[0]


# ---------------------------------------------------------------------------------------------
# Have the exponents converged at the evaluated token count? (chapters B5 and B3)



