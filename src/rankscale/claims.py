"""The papers' claims that the book scores, each with its rule fixed here, before any data are seen.

A claim has a *kind*:

- ``empirical``: something a paper says about data (models, corpora); only these are counted in the
  scorecard's totals and headline;
- ``analytic``: an identity or a derivation that holds by construction (CE = EE + SA - Conf, an
  approximation's accuracy); shown, checked, never counted as a replication;
- ``beyond the paper``: a question of this companion's own.

Its *rule* says what is measured, the threshold, and why that threshold. A chapter measures, then
calls ``judge`` with one outcome per unit of evidence (a corpus and family, a model, ...): the
claim is reproduced if it holds for every unit, partly if for some, not reproduced if for none;
units that cannot test it (None) are left out, and a claim with no testable unit is "not testable
on this set", with the reason. Thresholds are constants of this module, imported by the chapters,
not parameters a chapter could change after seeing its data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rankscale import RankscaleError
from rankscale.report import NOT_TESTABLE, Verdict, grade

KINDS = ("empirical", "analytic", "beyond the paper")
MIN_SIZES = 3  # a size claim needs a family of at least three sizes: a line through two points fits exactly


@dataclass(frozen=True)
class Claim:
    """One scored claim: ``key`` (chapter and number, e.g. "A2.1"), ``text`` (the paper's claim in
    this book's words, with section and figure), ``kind`` (``KINDS``), ``rule`` (what is measured,
    the threshold and why) and ``paper`` (the paper's own number, where it gives one)."""

    key: str
    text: str
    kind: str
    rule: str
    paper: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RankscaleError(f"claim {self.key}: kind {self.kind!r} is not one of {KINDS}")
        if not self.rule:
            raise RankscaleError(f"claim {self.key} states no rule")


def _index(*claims: Claim) -> dict[str, Claim]:
    return {c.key: c for c in claims}


# ---------------------------------------------------------------------------------------------
# A1

CLAIMS_A1 = _index()


# ---------------------------------------------------------------------------------------------
# A2

CLAIMS_A2 = _index()


# ---------------------------------------------------------------------------------------------
# A3

CLAIMS_A3 = _index()


# ---------------------------------------------------------------------------------------------
# A4

CLAIMS_A4 = _index()


# ---------------------------------------------------------------------------------------------
# A5

CLAIMS_A5 = _index()


# ---------------------------------------------------------------------------------------------
# B1

CLAIMS_B1 = _index()


# ---------------------------------------------------------------------------------------------
# B2

CLAIMS_B2 = _index()


# ---------------------------------------------------------------------------------------------
# B3
#
# Paper B, §4 (Fig. 7, Tables 1-2). Units: each (corpus, family) with at least MIN_SIZES sizes
# and, where a rule says so, the fit over every model of every family pooled ("All", one unit
# per corpus; needs two families, one of them with MIN_SIZES sizes, report.why_not_pooled).
# Intervals are 95% percentile intervals from resampling every model's tokens with the same
# resample for every quantity (components.bootstrap_terms, paired), stretched where needed to
# contain the full-sample value (components.covering: the plug-in components are biased, and a
# resample, holding fewer distinct tokens, can shift them off that value). How an interval decides
# (components.side): a claim that a difference or a direction exists ("closest", "rises",
# "R^2 of at least") holds where the interval lies wholly on its side and fails otherwise; a
# claim of parity ("at least as well", "largely invariant") fails only where the interval lies
# wholly on the other side, because it says that no difference shows. Rules on SA and Conf are
# applied only where the quantity's size exponent has converged at the evaluated token count
# (chapter B5's check, components.convergence_by_group with the B5_* settings below); an
# exponent still drifting as tokens are added describes the sample, not the models.

B3_LAW_R2 = 0.8  # "follows a power law": §4.2 calls its EE fits "close to 0.9"; a tenth below that. Its own table
# meets 0.8 in 10 of 12 EE cells (not Pythia and All on GitHub, 0.73 and 0.72, which it also calls close to 0.9)
B3_NO_LAW_R2 = 0.5  # "lacks a power law": the paper's SA R^2 fall into those it calls relatively strong (Qwen,
# >= 0.72) and the lower rest (<= 0.36); 0.5 lies in that gap
B3_INVARIANT_SHARE = 0.25  # "largely invariant": a component carrying a quarter or more of CE's change across a
# family, with the sign either way, is not invariant beside CE; an even three-way split would give each a third

CLAIMS_B3 = _index(
    Claim("B3.1", "Error-Entropy follows a power law in size within each family, with R² “close to 0.9” "
                  "(paper B §4.2 (i), Table 1)", "empirical",
          f"95% interval of R² of the fit of log |EE| on log size wholly above {B3_LAW_R2}, per corpus and "
          f"family; {B3_LAW_R2} is a tenth below the paper's “close to 0.9”, and two of the paper's own EE fits that "
          "it describes that way fall below it, so the rule is, if anything, stricter than the paper."),
    Claim("B3.2", "EE fits a power law at least as well as CE (paper B §4.1-4.2, Table 1: EE's R² exceeds CE's "
                  "“in nearly all settings”)", "empirical",
          "95% paired bootstrap interval of R²(EE) − R²(CE), per corpus and family and for the pooled fit; fails "
          "only where it lies wholly below 0 (EE distinguishably worse), since “at least as well” is a parity claim."),
    Claim("B3.3", "Self-Alignment lacks a power law in size (paper B §4.2 (ii), Table 1; the paper excepts Qwen)",
          "empirical",
          f"R² of the fit of log |SA| below {B3_NO_LAW_R2} (in the gap between the paper's strong and weak SA fits), "
          "per corpus and family, where SA's exponent has converged at the evaluated tokens (chapter B5's check)."),
    Claim("B3.4", "Confidence has no power law across families pooled (paper B §4.2 (iii): R² “extremely low” in "
                  "the mixed-model case; Table 1 “All”)", "empirical",
          f"R² of the pooled fit of log |Conf| below {B3_NO_LAW_R2}, per corpus, where Conf's pooled exponent has "
          "converged (chapter B5's check). Per-family Conf fits, which the paper calls “unstable”, not low, are "
          "shown, not graded."),
    Claim("B3.5", "EE's size exponent is the closest to CE's (paper B §4.2, Table 2: smallest |Δ| “across all "
                  "cases”)", "empirical",
          "95% paired intervals of |Δ_SA| − |Δ_EE| and |Δ_Conf| − |Δ_EE| (Δ_M = α_M − α_CE), each widened by both "
          "exponents' drift over the last doubling of tokens (chapter B5's error), wholly above 0; per corpus and "
          "family and for the pooled fit."),
    Claim("B3.6", "SA's size exponent is the farthest from CE's (paper B §4.2 (ii), Table 2)", "empirical",
          "95% paired bootstrap intervals of |Δ_SA| − |Δ_EE| and |Δ_SA| − |Δ_Conf| both wholly above 0, per corpus "
          "and family and for the pooled fit, where SA's and Conf's exponents have converged (chapter B5's check)."),
    Claim("B3.7", "Error-Entropy follows one power law across families (the pooled “All” fit, paper B §4.2 (i), "
                  "Table 1)", "empirical",
          f"95% interval of the pooled fit's R²(EE) wholly above {B3_LAW_R2} (B3.1's threshold), per corpus; "
          "needs two families, one with at least three sizes."),
    Claim("B3.8", "Self-Alignment does not improve with size but trends upwards (paper B §4.1, Fig. 7)", "empirical",
          "95% bootstrap interval of SA's size exponent α_SA wholly above 0, per corpus and family and for the "
          "pooled fit (Fig. 7 mixes families), where SA's exponent has converged (chapter B5's check)."),
    Claim("B3.9", "Self-Alignment and Confidence stay largely invariant as models grow (paper B, abstract; §6: "
                  "they “do not scale”)", "empirical",
          f"Share of CE's change from the smallest to the largest model of a family carried by SA (ΔSA/ΔCE) and by "
          f"Conf (−ΔConf/ΔCE): fails where either share's 95% paired interval lies wholly outside ±{B3_INVARIANT_SHARE} "
          "(a parity claim); per corpus and family, where both exponents converged (chapter B5's check)."),
)


# ---------------------------------------------------------------------------------------------
# B4
#
# Paper B, §5 (Fig. 8). The share is fixed before the data: EE's signed contribution EE / CE.
# §5 speaks of EE's share "of cross-entropy" and of how much of the loss EE "contributes", and
# under the paper's hypothesis (only EE scales) CE's local exponent is alpha_EE * EE / CE, so
# this is the share that governs the slowing. It equals the stacked magnitude share of Fig. 8
# (|EE| / (|EE| + |SA| + |Conf|)) whenever Conf <= 0, as for the paper's large models; the
# magnitude share is drawn, not graded. Intervals and how they decide: as in B3.

B4_DOMINANT_SHARE = 0.8  # "dominates": the lower end of the paper's "about 80-90%" for small models (Fig. 8)
B4_CURVATURE_MIN_SIZES = 4  # a quadratic in log size has three parameters: through three sizes it fits exactly, and
# the scatter between training runs would read as curvature

CLAIMS_B4 = _index(
    Claim("B4.1", "Error-Entropy dominates cross-entropy for small models (paper B §5, Fig. 8: “about 80–90%”)",
          "empirical",
          f"95% bootstrap interval of EE/CE of each family's smallest model wholly above {B4_DOMINANT_SHARE} "
          "(the lower end of the paper's range), per corpus and family.",
          "about 80–90% (“nearly 90%” in §5)"),
    Claim("B4.2", "EE's share of CE falls as models grow (paper B §5, Fig. 8)", "empirical",
          "95% bootstrap interval of the slope of log(EE/CE) on log size wholly below 0, per corpus and family "
          "with at least three sizes and for all models pooled (Fig. 8 mixes families).",
          "falls (16 models of several families, 14M–70B; qualitative)"),
    Claim("B4.3", "The CE power law slows down over this set's range of sizes (paper B §5 takes the slowing at "
                  "very large sizes from other work and calls the law clean for small models, so at this set's "
                  "scale this is the companion's question)", "beyond the paper",
          "95% bootstrap interval of the curvature c of log CE = a + b·x + c·x² (x = log size) wholly above 0 "
          f"(a falling law whose slope flattens), per corpus and family with at least {B4_CURVATURE_MIN_SIZES} sizes.",
          "clean power law for small models, slower for very large ones (§5, citing others)"),
    Claim("B4.4", "CE's law bends the way EE's share moves: it slows where EE's share falls (paper B §5's "
                  "explanation)", "empirical",
          "Where both the share's slope (B4.2) and CE's curvature (B4.3) have 95% intervals excluding 0, the "
          "curvature's sign is the one the paper's mechanism predicts (positive where EE/CE falls, negative where "
          "it rises); other units are untested.",
          "EE's falling share explains the slowing (qualitative)"),
)


# ---------------------------------------------------------------------------------------------
# B5
#
# How the components and their exponents depend on the number of evaluation tokens (beyond
# paper B, except B5.3, its App. A.1). Subsamples are whole windows (metrics.
# subsampled_decompositions); the settings below also define the convergence check that B3
# applies to its SA and Conf verdicts (components.convergence_by_group).

B5_MIN_TOKENS = 1000  # smallest subsample of the token grid: a few windows, far below any set's evaluation
B5_N_GRID = 8  # token counts from B5_MIN_TOKENS to every token, evenly spaced in log
B5_N_REPEATS = 10  # random subsamples per count
B5_VALUE_TOLERANCE = 0.01  # a component's value: allowed error, as a fraction of CE (a hundredth of the loss it
# decomposes: the precision to which the chapters read a component off a figure)
B5_EXPONENT_TOLERANCE = 0.1  # a size exponent: allowed error, as a fraction of |alpha_CE| (paper B compares each
# exponent with CE's, Table 2; an error of a tenth of CE's exponent cannot turn a component that scales like CE into
# one that does not, and a non-scaling component's own exponent is near 0, relative to which nothing is small)
B5_PAPER_INSTANCES = (1_000, 10_000)  # App. A.1: 1k instances evaluated, "identical trends" with 10k
B5_SET_FRACTION = 10  # this set's analogue of App. A.1: a tenth of its instances against all of them
B5_TREND_QUANTITIES = ("CE", "EE", "SA")  # the §4 trends: CE and EE fall, SA rises; Conf has none (§4.1)

CLAIMS_B5 = _index(
    Claim("B5.1", "Self-Alignment is biased upwards when evaluated on few tokens", "beyond the paper",
          f"For every model of a family, the 95% interval of the mean SA over {B5_N_REPEATS} subsamples of about "
          f"{B5_MIN_TOKENS:,} tokens (±1.96 standard errors) lies wholly above SA on all tokens; per corpus and family.",
          "not addressed"),
    Claim("B5.2", "Error-Entropy is biased downwards when evaluated on few tokens", "analytic",
          "Plug-in entropy is concave in the frequencies, so its mean over subsamples is at most the entropy of "
          "their mean frequencies, the full set's (Jensen; up to the weighting of whole windows): holds by "
          "construction. Checked as B5.1 with the interval wholly below EE on all tokens.",
          "not addressed"),
    Claim("B5.3", "Conclusions do not depend on the evaluation sample size: identical trends with 1k and 10k "
                  "instances (paper B, App. A.1)", "empirical",
          "An instance is one evaluation window (a document, under the papers' sampling). The signs of the size "
          "exponents of CE, EE and SA (Conf has no trend in §4), mean over subsamples of 1,000 instances, equal "
          "their signs on 10,000 instances; per corpus and graded fit. Needs 10,000 instances per model."),
    Claim("B5.4", "The trends are the same on a tenth of this set's instances as on all of them (this set's analogue "
                  "of App. A.1's 1k against 10k)", "beyond the paper",
          f"As B5.3 with 1/{B5_SET_FRACTION} of the instances against all of them; per corpus and graded fit "
          "(each family with at least three sizes, and the pooled fit).",
          "App. A.1 checks 1k against 10k instances only"),
    Claim("B5.5", "The set's held-out data suffice for every reported value and exponent", "beyond the paper",
          f"Every model's CE, EE, SA and Conf within {B5_VALUE_TOLERANCE:.0%} of CE, and every graded fit's "
          f"exponents within {B5_EXPONENT_TOLERANCE} × |α_CE|, at the evaluated token count (spread plus drift "
          "over the last doubling, metrics.sample_size_error); per corpus.",
          "not addressed (1,000 instances per dataset, App. A.2)"),
)


# ---------------------------------------------------------------------------------------------

CLAIMS: dict[str, Claim] = {**CLAIMS_A1, **CLAIMS_A2, **CLAIMS_A3, **CLAIMS_A4, **CLAIMS_A5,
                             **CLAIMS_B1, **CLAIMS_B2, **CLAIMS_B3, **CLAIMS_B4, **CLAIMS_B5}


def judge(key: str, outcomes: Mapping[str, bool | None], ours: str, paper: str | None = None,
          why_not: str = "") -> Verdict:
    """The verdict of claim ``key`` from one outcome per unit of evidence.

    outcomes : unit name -> True (the claim holds there), False (it does not) or None (the unit
        cannot test it); ours : what was measured, shown beside the verdict; paper : the paper's
        number where it is computed from its tables (default: the claim's own); why_not : the
        reason shown when no unit can test the claim.

    >>> CLAIMS["_doc"] = Claim("_doc", "x grows", "empirical", "x rises between the two ends")
    >>> judge("_doc", {"pydocs": True, "stdlib": False}, "+1, -1").verdict
    'partly'
    >>> judge("_doc", {"pydocs": None}, "", why_not="one size").verdict
    'not testable on this set'
    >>> del CLAIMS["_doc"]
    """
    if key not in CLAIMS:
        raise RankscaleError(f"no claim {key!r} in rankscale.claims; define it there, with its rule, first")
    claim = CLAIMS[key]
    tested = [bool(v) for v in outcomes.values() if v is not None]
    if tested:
        verdict = grade(tested)
        untested = [unit for unit, v in outcomes.items() if v is None]
        if untested:
            ours = f"{ours} (not tested on: {', '.join(untested)})"
    else:
        verdict = NOT_TESTABLE
        ours = "; ".join(part for part in (why_not or "no unit of this set can test it", ours) if part)
    return Verdict(claim.text, claim.paper if paper is None else paper, ours, verdict, rule=claim.rule,
                   kind=claim.kind, key=claim.key)
