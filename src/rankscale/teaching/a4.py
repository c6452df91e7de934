"""Chapter A4's exercises (emergence): eq. 6's prediction of p_{N,k} from RBP_k for one model, the same rate
counted on its runs of N consecutive targets, and where eq. 8 with a family's token-level law puts a task's
50% success, and how far it moves when N or k changes."""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import emergence, fit, metrics
from rankscale.records.runs import sizes
from rankscale.teaching.exercise import Exercise, family_models, largest_run

K = 10  # the top-k of every exercise of A4 (a4.3 also asks the student to try k = 100)
N = 4  # the run length, the task's number of tokens (a4.3 also asks for N = 16)
P_HALF = 0.5  # a4.3's success rate: the size at which eq. 8 solves half of the tasks


def _ranks(run) -> np.ndarray:
    """A run's 1-based ranks in paper A's eq. 3 convention (ge)."""
    return metrics.rank_1based(run.records.gt, run.records.ge, "ge")


def predicted_success(chapter) -> float:
    """Eq. 6's p_{4,10} = (RBP_10)^4 of the first family's largest model on the first corpus (``metrics.rbp``)."""
    return float(metrics.rbp(_ranks(largest_run(chapter)), K)[0] ** N)


def measured_success(chapter) -> float:
    """Measured p_{4,10} of the same model: runs of 4 consecutive targets inside one window, all in the top 10
    (``emergence.window_runs``)."""
    run = largest_run(chapter)
    success = emergence.window_runs(_ranks(run), run.records.window, (N,), (K,)).success()[0, 0]
    if np.isnan(success):
        raise RankscaleError(f"no evaluation window of {run.name} holds {N} consecutive targets")
    return float(success)


def half_success_log10_size(chapter) -> float:
    """log10 of the size at which eq. 8, with the first family's power law of -log RBP_10 on the first corpus
    (``fit.fit_power_law``), solves half of the tasks of 4 tokens."""
    members = family_models(chapter)
    model_sizes = sizes(members)
    if len(np.unique(model_sizes)) < 2:
        raise RankscaleError(f"family {members[0].family} has one size: no power law of -log RBP_{K} to extrapolate")
    neg_log_rbp = np.array([-np.log(metrics.rbp(_ranks(run), K)[0]) for run in members])
    law = fit.fit_if_positive(model_sizes, neg_log_rbp)
    if law is None or law.slope >= 0:
        raise RankscaleError(f"-log RBP_{K} of family {members[0].family} does not fall with size along a power law, "
                             "so eq. 8's success never rises to 50%")
    # eq. 8 solved for S in log space (S itself can lie beyond floating point for a shallow law)
    return float((np.log(-np.log(P_HALF) / N) - law.intercept) / law.slope / np.log(10))


EXERCISES = (
    Exercise("a4.1", "Eq. 6 for one model",
             "eq. 6's p_{4,10} = (RBP_10)^4 of the first family's largest model on the first corpus",
             predicted_success, 1e-9,
             "RBP_10 is the share of targets with ge + 1 <= 10 (eq. 3's ranks); raise it to the power N = 4"),
    Exercise("a4.2", "Count the runs",
             "the measured p_{4,10}: the share of runs of 4 consecutive targets inside one window that are all in "
             "the top 10", measured_success, 1e-9,
             "a run never crosses a window boundary, slides by one target, and needs all 4 ranks (ge + 1) <= 10"),
    Exercise("a4.3", "Where eq. 8 puts a task",
             "log10 of the size S at which eq. 8, with the first family's fitted -log RBP_10 law, gives a task of "
             "N = 4 tokens 50% success", half_success_log10_size, 1e-4,
             "fit ln(-ln RBP_10) on ln S (natural logs), solve N exp(b) S^slope = ln 2, and give log10 S, not ln S"),
)
