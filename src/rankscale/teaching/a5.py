"""Chapter A5's exercises (lognormal ranks): fit eq. 10 to one model's ranks and predict its CE with appendix C's
eq. 21, refit the lognormal over the vocabulary's ranks only and see what its exact entropy changes, and compare
the size exponents of the predicted -log p_1 and CE across one family."""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import fit, metrics, rank_models
from rankscale.analysis.rank_models import LognormalRankFit
from rankscale.records.runs import sizes
from rankscale.teaching.exercise import Exercise, family_models, largest_run


def _counts(run) -> np.ndarray:
    """A run's rank histogram over its vocabulary, eq. 3's ranks (ge): ``counts[r]`` targets of rank r."""
    return np.bincount(metrics.rank_1based(run.records.gt, run.records.ge, "ge"), minlength=run.vocab_size + 1)


def _eq10(run) -> LognormalRankFit:
    """Eq. 10 as written fitted to a run's ranks (``rank_models.fit_lognormal_eq10``), refused where degenerate."""
    fitted = rank_models.fit_lognormal_eq10(_counts(run))
    reason = rank_models.degeneracy(fitted)
    if reason:
        raise RankscaleError(f"the eq. 10 fit of {run.name} is degenerate: {reason}")
    return fitted


def eq21_ce(chapter) -> float:
    """CE that eq. 21 predicts from the eq. 10 fit of the first family's largest model on the first corpus
    (``rank_models.predict_ce_and_neg_log_p1``)."""
    return float(rank_models.predict_ce_and_neg_log_p1(_eq10(largest_run(chapter)))[0])


def bounded_entropy(chapter) -> float:
    """Exact entropy over ranks 1..V of the lognormal fitted over 1..V (``rank_models.fit_lognormal_ranks``),
    same model."""
    fitted = rank_models.fit_lognormal_ranks(_counts(largest_run(chapter)))
    return float(rank_models.entropy_and_neg_log_p1(fitted.log_pmf())[0])


def predicted_slope_ratio(chapter) -> float:
    """Slope of the predicted -log p_1 over that of the predicted CE (eqs. 16, 21 from each eq. 10 fit), power
    laws against size over the first family's models on the first corpus (``fit.fit_power_law``)."""
    members = family_models(chapter)
    if len(np.unique(sizes(members))) < 2:
        raise RankscaleError(f"family {members[0].family} has one size: no exponent to fit")
    predicted = np.array([rank_models.predict_ce_and_neg_log_p1(_eq10(run)) for run in members])
    ce_law, p1_law = (fit.fit_power_law(sizes(members), predicted[:, i]) for i in (0, 1))
    if ce_law.slope == 0:
        raise RankscaleError(f"the predicted CE of family {members[0].family} does not change with size")
    return float(p1_law.slope / ce_law.slope)


EXERCISES = (
    Exercise("a5.1", "Predict CE with appendix C",
             "the CE that eq. 21 predicts from eq. 10's fit to the ranks of the first family's largest model on the "
             "first corpus", eq21_ce, 1e-3,
             "use c = psi(1)/2 + P with P = Phi(mu/sigma) (eq. 20), natural logs, and the fit of "
             "rank_models.fit_lognormal_eq10 on eq. 3's ranks (ge + 1)"),
    Exercise("a5.2", "Keep the ranks inside the vocabulary",
             "the exact entropy -sum p_r ln p_r over ranks 1..V of the lognormal fitted by maximum likelihood over "
             "ranks 1..V, same model", bounded_entropy, 1e-3,
             "normalise psi(r) over ranks 1..V only, maximise the likelihood of the rank counts, and sum over "
             "1..V in nats"),
    Exercise("a5.3", "One exponent for two quantities?",
             "the log-log slope of the predicted -log p_1 over that of the predicted CE (eqs. 16 and 21), across "
             "the first family's models on the first corpus", predicted_slope_ratio, 1e-3,
             "fit ln(value) on ln S with the non-embedding sizes, use eq. 16 and 21 with eq. 20's c, and divide "
             "the -log p_1 slope by the CE slope"),
)
