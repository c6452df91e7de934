"""Chapter B4's exercises (the components' shares of CE): EE's magnitude share of a small model, the trend
of that share with size, the bend of the CE law as a quadratic in log size, and the local exponent of
CE that EE's contribution predicts when only EE, or every component, is allowed to scale."""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import components, metrics
from rankscale.analysis.components import QUANTITIES
from rankscale.teaching.exercise import Exercise, family_terms, magnitude_law


def smallest_magnitude_share(chapter) -> float:
    """|EE| / (|EE| + |SA| + |Conf|) of the first family's smallest model on the first corpus (``ce_shares``)."""
    _, full = family_terms(chapter)
    return float(metrics.ce_shares(*full[0, 1:], signed=False)["EE"])


def share_slope(chapter) -> float:
    """Slope of log(EE's magnitude share) on log size over the first family, first corpus (``share_trend``)."""
    sizes, full = family_terms(chapter, min_sizes=2)
    slope, _ = components.share_trend(sizes, full, full[None], signed=False)
    if not np.isfinite(slope):
        raise RankscaleError("EE's magnitude share is not positive for some model of the first family")
    return slope


def ce_curvature(chapter) -> float:
    """Quadratic coefficient c of log CE in log size over the first family, first corpus (``curvature``)."""
    sizes, full = family_terms(chapter, min_sizes=3)
    return float(components.curvature(sizes, full[:, 0]))


def ee_only_exponent(chapter) -> float:
    """CE's local exponent alpha_EE * EE/CE at the first family's largest model if only EE scales (first corpus)."""
    sizes, full = family_terms(chapter, min_sizes=2)
    fitted = magnitude_law(sizes, full[:, QUANTITIES.index("EE")], "EE")
    signed = metrics.ce_shares(*full[-1, 1:], signed=True)
    return float(metrics.ce_exponent_from_components(signed, {"EE": fitted.slope, "SA": 0.0, "Conf": 0.0}))


EXERCISES = (
    Exercise("b4.1", "EE's share of a small model",
             "|EE| / (|EE| + |SA| + |Conf|) of the first family's smallest model on the first corpus",
             smallest_magnitude_share, 1e-9,
             "the magnitude share divides |EE| by the sum of the three absolute values, not by CE; "
             "EE and the rest come from the 0-based strict ranks gt"),
    Exercise("b4.2", "Is EE's share falling?",
             "the slope of log(EE's magnitude share) against log(non-embedding size), first family, first corpus",
             share_slope, 1e-6, "fit natural logs of the magnitude share (not EE/CE) against natural logs of the "
             "non-embedding sizes, over the family's final models"),
    Exercise("b4.3", "Does the CE law bend?",
             "the quadratic coefficient c of log CE in log(non-embedding size), first family, first corpus",
             ce_curvature, 1e-6, "fit a degree-2 polynomial to log CE against log size (natural logs) and take the "
             "coefficient of the square; centring log size does not change it"),
    Exercise("b4.4", "CE's exponent if only EE scales",
             "alpha_EE * EE/CE at the first family's largest model on the first corpus, alpha_EE fitted over the "
             "family", ee_only_exponent, 1e-6,
             "alpha_EE is the slope of log EE on log size over the whole family; EE/CE is the signed contribution "
             "of the largest model"),
)
