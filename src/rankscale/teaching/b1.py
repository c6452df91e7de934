"""Chapter B1's exercises (CE = EE + SA - Conf): one model's Self-Alignment built by hand from its RBE groups,
how far its Confidence stays below the ceiling that ranks put on it, and what a sampling temperature moves."""

from __future__ import annotations

from rankscale import RankscaleError
from rankscale.analysis import dynamics, metrics
from rankscale.teaching.exercise import Exercise, largest_run

TEMPERATURE = 2.0  # b1.3's temperature, compared with T = 1


def _decomposition(run) -> metrics.Decomposition:
    """Paper B's decomposition of one run's targets, grouped by the strict RBE ``gt``."""
    return metrics.ce_decomposition(run.records.logp, run.records.gt)


def self_alignment(chapter) -> float:
    """Self-Alignment (nats) of the first family's largest model on the first corpus (``metrics.ce_decomposition``)."""
    return _decomposition(largest_run(chapter)).self_alignment


def confidence_room(chapter) -> float:
    """The ceiling log sum_e 1/(e+1) minus Confidence (nats), same model (``dynamics.confidence_bound``)."""
    dec = _decomposition(largest_run(chapter))
    return dynamics.confidence_bound(dec) - dec.confidence


def tempered_sa_change(chapter) -> float:
    """Self-Alignment at T = ``TEMPERATURE`` minus at T = 1 (nats), on the chapter's tempered model."""
    runs = chapter.temperature_runs
    if 1.0 not in runs or TEMPERATURE not in runs:
        raise RankscaleError(f"this chapter has no predictions at T = 1 and T = {TEMPERATURE:g}: open it with "
                             "temperatures=True, on a set whose temperature_tokens is not 0")
    return _decomposition(runs[TEMPERATURE]).self_alignment - _decomposition(runs[1.0]).self_alignment


EXERCISES = (
    Exercise("b1.1", "The identity to the last digit",
             "Self-Alignment (nats) of the first family's largest model on the first corpus, computed by hand",
             self_alignment, 1e-9,
             "group the targets by gt (strict RBE), not ge; log Q_e is the mean logp of a group; natural logs"),
    Exercise("b1.2", "How far below its ceiling",
             "log sum_e 1/(e+1) over the RBE values that occur, minus Confidence, for the same model",
             confidence_room, 1e-9,
             "sum 1/(e+1) over the distinct gt values only, once each, and take the natural log before subtracting"),
    Exercise("b1.3", "What a temperature moves",
             "Self-Alignment at T = 2 minus Self-Alignment at T = 1 for the chapter's tempered model",
             tempered_sa_change, 1e-9,
             "use chapter.temperature_runs[2.0] and [1.0], each grouped by its own gt; subtract T = 1 from T = 2"),
)
