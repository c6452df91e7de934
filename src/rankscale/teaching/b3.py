"""Chapter B3's exercises (which component scales): Error-Entropy's power law in size fitted by hand on
log-log axes, whether it fits better than CE's, and how CE's change across a family splits into its
components' changes when the family or the corpus is changed."""

from __future__ import annotations

from rankscale.analysis import components
from rankscale.analysis.components import QUANTITIES
from rankscale.teaching.exercise import Exercise, family_terms, magnitude_law


def ee_exponent(chapter) -> float:
    """Paper B's eq. 9 exponent alpha_EE of the first family on the first corpus (``fit.fit_if_positive``)."""
    sizes, full = family_terms(chapter, min_sizes=2)
    return magnitude_law(sizes, full[:, QUANTITIES.index("EE")], "EE").slope


def r2_gap(chapter) -> float:
    """R^2 of EE's log-log fit minus R^2 of CE's, first family on the first corpus (three sizes or more)."""
    sizes, full = family_terms(chapter, min_sizes=3)
    ee, ce = (magnitude_law(sizes, full[:, QUANTITIES.index(q)], q) for q in ("EE", "CE"))
    return ee.r2 - ce.r2


def sa_change_share(chapter) -> float:
    """SA's share of CE's change from the first family's smallest to its largest model (``change_shares``)."""
    _, full = family_terms(chapter, min_sizes=2)
    return float(components.change_shares(full[0], full[-1])["SA"])


EXERCISES = (
    Exercise("b3.1", "Error-Entropy's power law by hand",
             "the exponent alpha_EE of |EE| against non-embedding size, first family on the first corpus",
             ee_exponent, 1e-6, "fit log EE (natural logs) against log of the non-embedding size, with EE from the "
             "0-based strict ranks gt, over the family's final models only"),
    Exercise("b3.2", "Does EE fit better than CE?",
             "R^2 of EE's log-log fit minus R^2 of CE's, first family on the first corpus", r2_gap, 1e-6,
             "R^2 is measured on the log-log line (1 - residual/total sum of squares of log values); "
             "subtract CE's from EE's"),
    Exercise("b3.3", "Where CE's change goes",
             "SA's share (SA_last - SA_first) / (CE_last - CE_first) of CE's change from the first family's smallest "
             "to its largest model, first corpus", sa_change_share, 1e-9,
             "take the family's smallest and largest models by non-embedding size, and divide SA's change by CE's "
             "(largest minus smallest in both)"),
)
