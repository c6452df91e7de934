"""The papers' claims that the book scores, each with its rule fixed here, before any data are seen.

A claim has a *kind*:

- ``empirical``: something a paper says about data (models, corpora); only these are counted in the
  scorecard's totals and headline;
- ``definitional``: a statement any trained model meets (it ranks targets better than chance);
  checked and shown apart, not counted;
- ``analytic``: an identity or a derivation that holds by construction (CE = EE + SA - Conf, an
  approximation's accuracy); shown, checked, never counted as a replication;
- ``beyond the paper``: a question of this companion's own.

Its *rule* says what is measured, the threshold, and why that threshold. A chapter measures, then
calls ``judge`` with one outcome per unit of evidence (a corpus and family, a model, ...): the
claim is reproduced if it holds for every unit, partly if for some (the verdict counts them:
"2 of 3"), not reproduced if for none; units that cannot test it (None) or that the measurement
cannot decide (``UNDETERMINED``) are left out and named. A claim that no unit decides is
"undetermined" where some unit was measured, else "not testable on this set", with the reason. Thresholds are constants of this module, imported by the chapters,
not parameters a chapter could change after seeing its data.
"""

from __future__ import annotations

from rankscale.claims.a1 import A1_BAND_CENTRES, A1_BAND_HALF_WIDTH, A1_BAND_MIN_SHARE, A1_BAND_MIN_TARGETS, CLAIMS_A1
from rankscale.claims.a2 import (
    A2_LARGE_KS,
    A2_MIN_R2,
    A2_MODERATE_KS,
    A2_MODERATE_R2,
    A2_NOISE_FRACTIONS,
    A2_NOISE_RATIO,
    A2_NOISE_REPEATS,
    CLAIMS_A2,
)
from rankscale.claims.a3 import (
    A3_ALPHA_K1_BELOW,
    A3_ALPHA_K100_BAND,
    A3_EXPONENT_KS,
    A3_FLOOR_AT_ZERO,
    A3_LARGE_FRACTION,
    A3_MIN_R2,
    A3_N_K,
    A3_OFFSET_MIN_SIZES,
    A3_R2_BOUND_K,
    A3_R2_KS,
    A3_R2_LEVEL,
    A3_R2_LEVEL_BAR,
    A3_TABLE1_KS,
    CLAIMS_A3,
)
from rankscale.claims.a4 import A4_KS, A4_MIN_R2, A4_SHARPER, A4_TRANSITION, A4_WINDOW_LENGTHS, CLAIMS_A4
from rankscale.claims.a5 import (
    A5_APPROX_TOLERANCE,
    A5_DOMINANCE_MUS,
    A5_MAX_KS,
    A5_MIN_R2,
    A5_VUONG_P,
    CLAIMS_A5,
)
from rankscale.claims.b1 import B1_BOUND_SLACK, B1_MAX_RESIDUAL, CLAIMS_B1
from rankscale.claims.b2 import B2_FIG5_RBES, B2_MAX_TV, B2_MIN_GROUP, B2_UNIFORM_RATIO, CLAIMS_B2
from rankscale.claims.b3 import B3_INVARIANT_SHARE, B3_NO_LAW_R2, B3_UNSTABLE_RANGE, CLAIMS_B3
from rankscale.claims.b4 import B4_CURVATURE_MIN_SIZES, B4_DOMINANT_SHARE, B4_MIN_SEEDS, CLAIMS_B4
from rankscale.claims.b5 import (
    B5_PAPER_INSTANCES,
    B5_SET_FRACTION,
    B5_TREND_QUANTITIES,
    B5_VALUE_TOLERANCE,
    CLAIMS_B5,
)
from rankscale.claims.base import CLAIMS, KINDS, MIN_SIZES, UNDETERMINED, Claim, judge
from rankscale.claims.paper_a import A_CLOSE, PAPER_A_VOCAB, scaled_k
from rankscale.claims.paper_b import B3_LAW_R2, B5_EXPONENT_TOLERANCE, B5_MIN_TOKENS, B5_N_GRID, B5_N_REPEATS

# the chapters read every claim and threshold as claims.<NAME>
__all__ = [
    "KINDS", "MIN_SIZES", "UNDETERMINED", "Claim", "CLAIMS", "judge", "A1_BAND_CENTRES", "A1_BAND_HALF_WIDTH",
    "A1_BAND_MIN_TARGETS", "A1_BAND_MIN_SHARE", "CLAIMS_A1", "PAPER_A_VOCAB", "A2_MIN_R2", "A2_MODERATE_KS",
    "A2_MODERATE_R2", "A2_LARGE_KS", "A2_NOISE_FRACTIONS", "A2_NOISE_REPEATS", "A2_NOISE_RATIO", "scaled_k",
    "CLAIMS_A2", "A3_N_K", "A3_R2_BOUND_K", "A3_MIN_R2",
    "A3_LARGE_FRACTION", "A3_EXPONENT_KS", "A3_ALPHA_K1_BELOW", "A3_ALPHA_K100_BAND", "A3_R2_KS", "A3_R2_LEVEL", "A3_R2_LEVEL_BAR",
    "A_CLOSE", "A3_FLOOR_AT_ZERO", "A3_OFFSET_MIN_SIZES", "A3_TABLE1_KS", "CLAIMS_A3", "A4_KS", "A4_WINDOW_LENGTHS",
    "A4_MIN_R2",
    "A4_TRANSITION", "A4_SHARPER", "CLAIMS_A4", "A5_MIN_R2",
    "A5_VUONG_P", "A5_MAX_KS", "A5_APPROX_TOLERANCE", "A5_DOMINANCE_MUS", "CLAIMS_A5", "B1_MAX_RESIDUAL",
    "B1_BOUND_SLACK", "CLAIMS_B1", "B2_UNIFORM_RATIO", "B2_MIN_GROUP", "B2_MAX_TV",
    "B2_FIG5_RBES", "CLAIMS_B2", "B3_LAW_R2", "B3_NO_LAW_R2", "B3_INVARIANT_SHARE", "B3_UNSTABLE_RANGE", "CLAIMS_B3",
    "B4_DOMINANT_SHARE", "B4_CURVATURE_MIN_SIZES", "B4_MIN_SEEDS", "CLAIMS_B4", "B5_MIN_TOKENS", "B5_N_GRID",
    "B5_N_REPEATS", "B5_VALUE_TOLERANCE", "B5_EXPONENT_TOLERANCE", "B5_PAPER_INSTANCES", "B5_SET_FRACTION",
    "B5_TREND_QUANTITIES", "CLAIMS_B5",
]
