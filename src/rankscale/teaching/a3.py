"""Chapter A3's exercises (how k shapes the law): the size exponent refitted by hand at a k the sweep does not
tabulate, the gap between the exponents at k = 100 and k = 1, and the ratio of the slopes of -log RBP_1 and of
cross-entropy."""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import fit
from rankscale.claims.a3 import KEYS, ce_and_neg_log_rbp
from rankscale.claims.context import sample
from rankscale.records.runs import sizes
from rankscale.teaching.exercise import Exercise, family_models

NEW_K = 50  # a3.1's k: between the grid's points, one of paper A's moderate k that Table 1 does not list


def _slopes(chapter, ks) -> np.ndarray:
    """Log-log slopes against size of CE, then of -log RBP_k at each k of ``ks`` (eq. 3 ranks), first family on
    the first corpus (``ce_and_neg_log_rbp`` and ``fit.fit_if_positive``)."""
    runs = family_models(chapter)
    values = np.array([ce_and_neg_log_rbp(sample(run, KEYS), ks) for run in runs]).T  # (1 + len(ks), models)
    fits = [fit.fit_if_positive(sizes(runs), row) for row in values]
    if any(f is None for f in fits):
        raise RankscaleError(f"{runs[0].family} cannot be fitted at k = {', '.join(map(str, ks))} here (fewer than "
                             "two sizes, or a model with every target or none inside the top k)")
    return np.array([f.slope for f in fits])


def alpha_50(chapter) -> float:
    """The exponent alpha = -slope of -log RBP_50 against size, first family on the first corpus."""
    return float(-_slopes(chapter, [NEW_K])[1])


def alpha_gap(chapter) -> float:
    """alpha at k = 100 minus alpha at k = 1 (k as they are), first family on the first corpus."""
    slopes = _slopes(chapter, [1, 100])
    return float(-slopes[2] + slopes[1])


def ce_slope_ratio(chapter) -> float:
    """The slope of -log RBP_1 over the slope of CE, both against size, first family on the first corpus."""
    slopes = _slopes(chapter, [1])
    return float(slopes[1] / slopes[0])


EXERCISES = (
    Exercise("a3.1", "An exponent the sweep skipped",
             "alpha = -slope of log(-log RBP_50) against log(size), first family on the first corpus",
             alpha_50, 1e-6,
             "alpha is minus the slope; use eq. 3's ranks (ge + 1), natural logs, and run.non_embedding"),
    Exercise("a3.2", "Top-1 against top-100",
             "alpha at k = 100 minus alpha at k = 1 (k as they are), first family on the first corpus",
             alpha_gap, 1e-6,
             "subtract in the order alpha(100) - alpha(1), each alpha minus its slope; k = 100, not scaled"),
    Exercise("a3.3", "Cross-entropy and the top token",
             "the slope of -log RBP_1 against size divided by the slope of CE against size, same family and corpus",
             ce_slope_ratio, 1e-6,
             "CE is the mean of -logp in nats, fitted on log-log axes like -log RBP_1; divide RBP's slope by CE's"),
)
