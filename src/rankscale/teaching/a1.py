"""Chapter A1's exercises (the metric): RBP_k counted by hand from a model's records, what the tie
convention moves, and how often a target of middling probability is the top token."""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import metrics
from rankscale.teaching.exercise import Exercise, largest_run

BAND = (0.1, 0.5)  # a1.3's band of target probabilities: neither sure nor hopeless


def rbp5(chapter) -> float:
    """RBP_5 of the first family's largest model on the first corpus, eq. 3's ranks (``metrics.rbp``)."""
    records = largest_run(chapter).records
    return float(metrics.rbp(metrics.rank_1based(records.gt, records.ge, "ge"), 5)[0])


def tie_gap(chapter) -> float:
    """RBP_1 with the released code's ranks (gt) minus RBP_1 with eq. 3's (ge), same model as ``rbp5``."""
    records = largest_run(chapter).records
    gt, ge = (metrics.rank_1based(records.gt, records.ge, ties) for ties in ("gt", "ge"))
    return float(metrics.rbp(gt, 1)[0] - metrics.rbp(ge, 1)[0])


def top_share_in_band(chapter) -> float:
    """Of the targets whose probability lies in ``BAND``, the share ranked first (eq. 3), same model."""
    records = largest_run(chapter).records
    p = np.exp(records.logp.astype(np.float64))
    inside = (p >= BAND[0]) & (p < BAND[1])
    if not inside.any():
        raise RankscaleError(f"no target of {largest_run(chapter).name} has a probability in [{BAND[0]}, {BAND[1]})")
    return float(metrics.rbp(metrics.rank_1based(records.gt[inside], records.ge[inside], "ge"), 1)[0])


EXERCISES = (
    Exercise("a1.1", "RBP$_k$ by hand", "RBP_5 of the first family's largest model on the first corpus", rbp5, 1e-9,
             "paper A's eq. 3 ranks are R = ge + 1, and RBP_5 is the share of targets with R <= 5"),
    Exercise("a1.2", "What the tie convention moves", "RBP_1 under the gt ranks minus RBP_1 under the ge ranks",
             tie_gap, 1e-9, "the released code's rank is gt + 1; eq. 3's is ge + 1; subtract in that order"),
    Exercise("a1.3", "A probability does not fix a rank",
             "the share ranked first among the targets whose probability is in [0.1, 0.5)", top_share_in_band, 1e-9,
             "the probability is exp(logp); keep 0.1 <= p < 0.5, then count ge == 0 among those targets"),
)
