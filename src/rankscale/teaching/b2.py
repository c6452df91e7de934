"""Chapter B2's exercises (the components during training): the checkpoint at which Self-Alignment peaks, the part
of CE's drop that Error-Entropy carries, and the distance between p_e and q_e under a chosen group threshold."""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError, claims
from rankscale.analysis import dynamics, metrics
from rankscale.teaching.exercise import Exercise


def checkpoints(chapter) -> list:
    """The checkpoints of the exercises' model, earliest first: the largest checkpointed model of the first family
    (in ``chapter.families`` order) that has checkpoints on the first corpus.

    Raises
    ------
    RankscaleError
        Where no family has at least two checkpoints of one model on the first corpus.
    """
    corpus = chapter.corpora[0]
    for family in chapter.families:
        runs = [run for run in chapter.checkpoint_runs.get(corpus, []) if run.family == family]
        if runs:
            largest = max(runs, key=lambda run: run.non_embedding).name
            series = sorted((run for run in runs if run.name == largest), key=lambda run: run.step)
            if len(series) >= 2:
                return series
    raise RankscaleError(f"this set has no model with two or more training checkpoints on {corpus!r}")


def _terms(chapter) -> tuple[list[int], list[metrics.Decomposition]]:
    series = checkpoints(chapter)
    return [run.step for run in series], [metrics.ce_decomposition(run.records.logp, run.records.gt) for run in series]


def sa_peak_step(chapter) -> float:
    """The training step of the checkpoint with the largest Self-Alignment, on ``checkpoints(chapter)``."""
    steps, decs = _terms(chapter)
    return float(steps[int(np.argmax([dec.self_alignment for dec in decs]))])


def ee_part(chapter) -> float:
    """Error-Entropy's part of CE's drop from the first to the last checkpoint (``dynamics.interval_parts``)."""
    _, decs = _terms(chapter)
    ends = (decs[0], decs[-1])
    part = dynamics.interval_parts(*([getattr(dec, name) for dec in ends]
                                     for name in ("error_entropy", "self_alignment", "confidence")))["EE"][0]
    if not np.isfinite(part):
        raise RankscaleError("CE does not move between the first and the last checkpoint; its drop has no parts")
    return float(part)


def last_tv(chapter) -> float:
    """TV between p_e and q_e at the last checkpoint, over the RBE values held by ``claims.B2_MIN_GROUP`` or more
    targets (``dynamics.alignment_distance``)."""
    _, decs = _terms(chapter)
    tv = dynamics.alignment_distance(decs[-1], claims.B2_MIN_GROUP)
    if not np.isfinite(tv):
        raise RankscaleError(f"no RBE value is held by {claims.B2_MIN_GROUP} targets at the last checkpoint")
    return tv


EXERCISES = (
    Exercise("b2.1", "When does Self-Alignment peak?",
             "the training step of the checkpoint with the largest Self-Alignment, on teaching.b2.checkpoints(chapter)",
             sa_peak_step, 0.5,
             "give the checkpoint's training step (run.step), not its position in the list; group by gt"),
    Exercise("b2.2", "Who carries the drop of CE?",
             "(EE at the first checkpoint - EE at the last) / (CE at the first - CE at the last), same checkpoints",
             ee_part, 1e-9,
             "first minus last in both numerator and denominator; CE is the mean of -logp, EE the entropy of p_e"),
    Exercise("b2.3", "How close is close, and over which ranks?",
             "TV between p_e and q_e at the last checkpoint over the RBE values held by >= claims.B2_MIN_GROUP targets",
             last_tv, 1e-9,
             "keep the ranks with n_e >= claims.B2_MIN_GROUP, renormalise p_e and q_e over them, then half the L1 sum"),
)
