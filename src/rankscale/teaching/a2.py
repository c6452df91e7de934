"""Chapter A2's exercises (the scaling regimes): the k = 1 power law fitted by hand, how the fit at moderate k
depends on reading k as a count or as a share of the vocabulary, and how far the points scatter about the law
near the vocabulary on all of the evaluation tokens."""

from __future__ import annotations

from functools import partial

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import fit, metrics
from rankscale.claims.a2 import A2_LARGE_KS
from rankscale.claims.paper_a import scaled_k
from rankscale.records.runs import sizes
from rankscale.teaching.exercise import Exercise, family_models

MODERATE_K = 100  # a2.2's k: the largest of paper A's moderate k (§4.2), taken as it is


def _ranks(run) -> np.ndarray:
    """Paper A's eq. 3 ranks of one run's targets."""
    return metrics.rank_1based(run.records.gt, run.records.ge, "ge")


def _law(chapter, k: int) -> fit.PowerLawFit:
    """The fit of -log RBP_k against non-embedding size, first family on the first corpus (``fit.fit_if_positive``)."""
    runs = family_models(chapter)
    values = [metrics.neg_log_rbp(_ranks(run), [k])[0] for run in runs]
    fitted = fit.fit_if_positive(sizes(runs), values)
    if fitted is None:
        raise RankscaleError(f"-log RBP_{k} of {runs[0].family} cannot be fitted on log-log axes here (fewer than "
                             f"two sizes, or a model with every target or none inside the top {k})")
    return fitted


def k1_slope(chapter) -> float:
    """Slope of the log-log fit of -log RBP_1 against size, first family on the first corpus (``fit``)."""
    return _law(chapter, 1).slope


def moderate_r2(chapter) -> float:
    """R^2 of the log-log fit of -log RBP_100 against size (k as it is), first family on the first corpus."""
    return _law(chapter, MODERATE_K).r2


def large_k(chapter) -> int:
    """Paper A's k = 30,000 as the same share of the first family's vocabulary (``scaled_k``)."""
    return scaled_k(A2_LARGE_KS[1], min(run.vocab_size for run in family_models(chapter)))


def large_k_scatter(chapter) -> float:
    """Residual standard deviation of log(-log RBP_k) about its line on log S at ``large_k``, on all tokens,
    first family on the first corpus (``fit.subsample_scatter`` at the fraction 1)."""
    runs = family_models(chapter)
    if len(np.unique(sizes(runs))) < 3:
        raise RankscaleError(f"{runs[0].family} has fewer than three sizes: a line through two points has no scatter")
    k = large_k(chapter)
    scatter = fit.subsample_scatter(sizes(runs), [_ranks(run) for run in runs], partial(metrics.neg_log_rbp, ks=[k]),
                                    (1.0,), 1)[0, 0]
    if not np.isfinite(scatter):
        raise RankscaleError(f"some model of {runs[0].family} has every target inside its top {k}: nothing to fit")
    return float(scatter)


EXERCISES = (
    Exercise("a2.1", "The k = 1 law by hand",
             "the slope of log(-log RBP_1) against log(non-embedding size), first family on the first corpus",
             k1_slope, 1e-6,
             "use eq. 3's ranks (ge + 1), natural logs of both axes, and run.non_embedding as the size"),
    Exercise("a2.2", "A count of candidates or a share of the vocabulary",
             "R^2 of the log-log fit of -log RBP_100 against size (k = 100 as it is), same family and corpus",
             moderate_r2, 1e-6,
             "R^2 is computed in log space, of the line through (log S, log(-log RBP_100)); k = 100, not scaled"),
    Exercise("a2.3", "How far the points scatter near the vocabulary",
             "the residual standard deviation of log(-log RBP_k) about its line, k = 60% of the vocabulary, "
             "all tokens", large_k_scatter, 1e-6,
             "divide the sum of squared residuals by the number of models minus 2; k = round(30000 * V / 50257)"),
)
