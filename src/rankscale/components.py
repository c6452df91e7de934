"""Cross-entropy and its components against model size (paper B, §4-5).

Paper B fits ``log |M| = c_M + alpha_M log N`` (its eq. 9) for M in CE, EE, SA, Conf, per model
family and over every model of every family pooled ("All"), and compares the exponents
(``|Delta_M| = |alpha_M - alpha_CE|``, its Table 2). This module does those fits on per-token
samples ``{"logp": (n,), "gt": (n,)}`` (one per model), with bootstrap intervals from
``rankscale.fit``, and the vectorised slopes that chapter B5 needs for many subsamples at once::

    fits = fit_components(sizes, samples, families, n_boot=200)   # {group: {quantity: PowerLawFit}}
    exponent_gaps(fits["All"])                                     # {"EE": ..., "SA": ..., "Conf": ...}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

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
