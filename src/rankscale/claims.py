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
# A4 (paper A, section 5.1: emergence)

# The grid of k and N: paper A's code uses k from 1 to 10^4 and N = 1, 5, 10, 50, 100; here k stays well below
# the ladders' 4,096-token vocabulary, and N below the run lengths that small models almost never complete.
A4_KS = (1, 10, 100)
A4_WINDOW_LENGTHS = (1, 2, 4, 8, 16)
A4_MIN_R2 = 0.9  # paper A's own bar for a size law that holds (section 4.4: "R^2 above 0.9 when k < 1000")
A4_LEVEL = 0.95  # bootstrap intervals are central 95% percentile intervals
A4_TRANSITION = (0.1, 0.9)  # the emergence transition runs from 10% to 90% success
A4_SHARPER = 0.9  # "sharper": the largest N's transition is narrower than 90% of that of N = 1

_A4_WINDOWS = ("Evaluation windows are resampled with replacement (runs never cross a window, so neighbouring "
               "targets stay together), one resample of the text for every model, N and k, so that differences "
               "are paired; a case where some resample has no successful run is not tested.")

CLAIMS_A4 = _index(
    Claim("A4.1", "Sequence-level error -log p_{N,k}, measured, follows a power law in model size for every k and N "
                  "(§5.1, Fig. 7: the fitted power laws 'align closely' with the data)", "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k in {A4_KS} and N in {A4_WINDOW_LENGTHS}: the "
          f"least-squares line of log(-log p_N,k) on log S has R^2 >= {A4_MIN_R2} (paper A's own bar, §4.4) and a "
          "negative slope. A case where some model never completes a run (p = 0, which has no logarithm) cannot test "
          "it.", "fits align closely (no R^2 given)"),
    Claim("A4.2", "The size exponent of -log p_{N,k} does not depend on N: -log p_{N,k} ∝ N S^-alpha with the "
                  "token-level alpha (eq. 7; §5.1 says Fig. 7 confirms it)", "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k and N >= 2: the {A4_LEVEL:.0%} bootstrap "
          "interval of slope(N) - slope(N = 1) contains 0 (the equation claims equality, so only a difference the "
          "noise cannot explain counts against it). " + _A4_WINDOWS, "same alpha for every N"),
    Claim("A4.3", "Sequence-level error is the token-level error amplified exactly N-fold, "
                  "-log p_{N,k} = N (-log RBP_k), as independent positions give (eqs. 6-7; §5.1: 'linearly "
                  "amplified by N')", "empirical",
          f"For each corpus, family (any number of sizes: this is a property of each model), k and N >= 2: the mean "
          f"over the family's models of log[-log p_N,k / (N * -log RBP_k)] has a {A4_LEVEL:.0%} bootstrap interval "
          "that contains 0, a ratio of 1. " + _A4_WINDOWS, "assumed (independence); Fig. 7 shows agreement"),
    Claim("A4.4", "Under eq. 8 a larger N sharpens the transition from failure to success, the 'knee' of emergence "
                  "(§5.1)", "analytic",
          f"From eq. 8 with each family's fitted token-level law (each corpus, family and k whose -log RBP_k falls "
          f"with size): the width, in decades of S, between success rates {A4_TRANSITION[0]} and {A4_TRANSITION[1]} "
          f"at the largest N is below {A4_SHARPER:.0%} of that at N = 1. Analytic: in ln S eq. 8 is a Gumbel curve "
          "whose width depends on alpha alone, so N moves it without narrowing it, whatever the data.",
          "larger N gives a sharper knee"),
)


# ---------------------------------------------------------------------------------------------
# A5 (paper A, section 5.2 and appendix C: lognormal ranks)

A5_MIN_R2 = 0.9  # paper A's own bar for a size law that holds (section 4.4)
A5_LEVEL = 0.95  # bootstrap intervals are central 95% percentile intervals
# "Nearly identical" exponents: the range of slope(-log RBP_1) / slope(CE) over the 22 data-set/family pairs of
# paper A's Table 1 (appendix B) whose two fits both have R^2 >= 0.9, pairs that appendix B calls "very close"
# and section 5.2 "nearly identical" (tests/test_claims.py recomputes it from the reference table).
A5_NEARLY_IDENTICAL = (0.74, 1.32)
A5_VUONG_P = 0.05  # the lognormal's advantage over the power law must be significant at 5% (Vuong's test)
# The fitted CDF within 5 percentage points of the data's at every rank: the KS distance's own sampling noise is
# below 0.02 for 5,000 or more tokens (1.36 / sqrt(n) at 95%), so a larger gap is the model's, not noise.
A5_MAX_KS = 0.05
# An approximation within 5% of the exact value counts as accurate: about the change of CE from one model size to
# the next in paper A's Pythia series (Fig. 8a), so a larger error could reorder neighbouring models.
A5_APPROX_TOLERANCE = 0.05
A5_DOMINANCE_MUS = (-5.0, -10.0, -20.0, -40.0)  # the mu path of the dominance argument (appendix C, eqs. 22-26)

_A5_FITS = {
    "powerlaw": "the powerlaw package's lognormal, as paper A's code fits it (powerlaw.Fit(ranks, discrete=True, "
                "xmin=1)), against that package's power law",
    "1..inf": "eq. 10 exactly as written (point densities normalised over ranks 1..infinity, eq. 11, "
              "rankdist.fit_lognormal_eq10), against the unbounded power law",
    "1..V": "eq. 10 normalised over the vocabulary's ranks 1..V, against the power law over 1..V",
}
_A5_PREDICTED = {
    "powerlaw": "the authors' fitted (mu, sigma) put into eq. 21 and eq. 16 with eq. 20's c, as their code does",
    "1..inf": "the eq. 10 fit's (mu, sigma) put into eq. 21 and eq. 16 with eq. 20's c (the closed forms derived "
              "for that model)",
    "1..V": "the exact entropy and -log p_1 of the 1..V fit, summed over ranks 1..V",
}
_A5_BOOT = (f"Bootstrap: the evaluation tokens are resampled with replacement, the same resample of the text for "
            f"every model of a family (a lower bound on the uncertainty: neighbouring tokens are not independent), "
            f"measured values recomputed and each lognormal refitted on every resample (one Newton step from the "
            f"full-sample fit); {A5_LEVEL:.0%} percentile intervals.")
_A5_BAND = f"{A5_NEARLY_IDENTICAL[0]}-{A5_NEARLY_IDENTICAL[1]}"


def _a5_lognormal_rule(form: str, units: str) -> str:
    return (f"{units}: the lognormal fitted as {_A5_FITS[form]}, is not degenerate (extreme parameters, "
            f"rankdist.degeneracy), beats the power law in Vuong's test (log-likelihood ratio > 0, p < {A5_VUONG_P}; "
            f"the comparison paper A's code makes) and its CDF is within {A5_MAX_KS} of the data's at every rank "
            "(KS distance; its sampling noise is below 0.02 for 5,000 or more tokens).")


def _a5_shared_rule(form: str) -> str:
    return (f"For each corpus and family with at least {MIN_SIZES} sizes, with CE and -log p_1 predicted from "
            f"{_A5_PREDICTED[form]}: both predicted series fit power laws in S with R^2 >= {A5_MIN_R2} (paper A's "
            f"bar) and negative slopes, and the bootstrap interval of slope(-log p_1) / slope(CE) reaches into "
            f"{_A5_BAND}, the range of that ratio in paper A's own Table 1, which it calls very close. " + _A5_BOOT)


def _a5_match_rule(form: str) -> str:
    return (f"For each corpus and family with at least {MIN_SIZES} sizes, with the predictions from "
            f"{_A5_PREDICTED[form]}: the bootstrap intervals of slope(predicted CE) / slope(measured CE) and of "
            f"slope(predicted -log p_1) / slope(measured -log RBP_1) both reach into {_A5_BAND} (the paper's own "
            "range for exponents it calls very close). Measured and predicted values come from the same resample, "
            "so the ratios are paired. " + _A5_BOOT)


CLAIMS_A5 = _index(
    Claim("A5.1", "The rank of the correct token follows a lognormal distribution (§5.2, Fig. 8c: 'well supported "
                  "by real data'), fitted as paper A's code fits it", "empirical",
          _a5_lognormal_rule("powerlaw", "For each corpus and model of every family"),
          "good fit on Pythia (no statistic given)"),
    Claim("A5.2", "The rank distribution of a real pretrained model, the set's reference, is lognormal (Fig. 8c "
                  "fits pretrained Pythia models), fitted as paper A's code fits it", "empirical",
          _a5_lognormal_rule("powerlaw", "For each corpus and reference model"),
          "good fit on Pythia (no statistic given)"),
    Claim("A5.3", "The ranks are lognormal when eq. 10 is fitted exactly as written (support 1..infinity)",
          "beyond the paper", _a5_lognormal_rule("1..inf", "For each corpus and model, references included"),
          "the model of eq. 10-11; not fitted this way in the paper"),
    Claim("A5.4", "The ranks are lognormal when eq. 10 is normalised over the vocabulary's ranks 1..V",
          "beyond the paper", _a5_lognormal_rule("1..V", "For each corpus and model, references included"),
          "not discussed"),
    Claim("A5.5", "mu/sigma of the fitted lognormal changes steadily, roughly linearly, with model size (review "
                  "version: §5.2, Fig. 8d, appendix B.4)", "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes, with (mu, sigma) fitted as paper A's code "
          f"does: the least-squares line of mu/sigma on ln S has R^2 >= {A5_MIN_R2} (paper A's bar) and the "
          f"bootstrap interval of its slope excludes 0. " + _A5_BOOT, ""),
    Claim("A5.6", "As models grow, mu falls while sigma grows only mildly (appendix C, after eq. 25)", "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes, with (mu, sigma) fitted as paper A's code "
          "does, slopes against ln S: the bootstrap interval of d mu / d ln S lies below 0, that of "
          "d sigma / d ln S above 0, and that of d mu / d ln S + d sigma / d ln S below 0 ('mildly': sigma rises by "
          "less than mu falls). " + _A5_BOOT, ""),
    Claim("A5.7", "Measured CE and -log RBP_1 fall with model size with nearly identical exponents (§5.2, Fig. 8a; "
                  "appendix B)", "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes: both measured series fit power laws in S with "
          f"R^2 >= {A5_MIN_R2} (paper A's bar) and negative slopes, and the bootstrap interval of "
          f"slope(-log RBP_1) / slope(CE) reaches into {_A5_BAND}, the range of that ratio over paper A's own "
          "Table 1, which it calls very close. " + _A5_BOOT, ""),
    Claim("A5.8", "CE and -log p_1 predicted from the fitted lognormals fall with nearly identical exponents "
                  "(§5.2, Fig. 8b), with the lognormal fitted and used as paper A's code does", "empirical",
          _a5_shared_rule("powerlaw"), ""),
    Claim("A5.9", "Fig. 8b's shared exponent, with eq. 10 fitted as written and appendix C's closed forms",
          "beyond the paper", _a5_shared_rule("1..inf"), "not fitted this way in the paper"),
    Claim("A5.10", "Fig. 8b's shared exponent, with eq. 10 fitted over ranks 1..V and summed exactly over them",
          "beyond the paper", _a5_shared_rule("1..V"), "not discussed"),
    Claim("A5.11", "The exponents predicted from the lognormal fits are similar to the measured ones (review "
                   "version, §5.2: Fig. 8b 'similar to the real results' of Fig. 8a), with the lognormal fitted and "
                   "used as paper A's code does", "empirical", _a5_match_rule("powerlaw"), "similar"),
    Claim("A5.12", "Predicted and measured exponents agree, with eq. 10 fitted as written and appendix C's closed "
                   "forms", "beyond the paper", _a5_match_rule("1..inf"), "not fitted this way in the paper"),
    Claim("A5.13", "Predicted and measured exponents agree, with eq. 10 fitted over ranks 1..V and summed exactly",
          "beyond the paper", _a5_match_rule("1..V"), "not discussed"),
    Claim("A5.14", "Appendix C's integral approximations (eqs. 14-21) are accurate at the models' fitted "
                   "parameters", "analytic",
          f"At every non-degenerate (mu, sigma) fitted as eq. 10 or as paper A's code does (every corpus and model, "
          f"references included): CE from eq. 21 and -log p_1 from eq. 16 with eq. 20's c are within "
          f"{A5_APPROX_TOLERANCE:.0%} of the exact sums over ranks 1..infinity (rankdist.appendix_c_exact). Analytic: "
          "a property of the formulas at given parameters; the models only choose where to look.",
          "stated as approximations"),
    Claim("A5.15", "Summing ranks to infinity instead of to the vocabulary size does not change the predicted CE",
          "beyond the paper",
          f"For each corpus and model with non-degenerate fits: CE predicted by eq. 21 from the eq. 10 fit (ranks "
          f"1..infinity) is within {A5_APPROX_TOLERANCE:.0%} of the exact entropy of the 1..V fit (ranks 1..V), "
          "both fitted to the same ranks.", "not discussed"),
    Claim("A5.16", "As |mu| grows, log c becomes the dominant part of CE (appendix C, eqs. 22-26; the review "
                   "version names mu^2/(2 sigma^2) instead)", "analytic",
          f"Along mu = {', '.join(f'{m:g}' for m in A5_DOMINANCE_MUS)} at the median sigma of the families' eq. 10 "
          f"fits, with exact sums: at the last mu, |CE - log c| <= |CE| / 2, i.e. log c is most of CE. Analytic: "
          "it depends on (mu, sigma) only.", "log c dominates"),
)


# ---------------------------------------------------------------------------------------------
# B1

CLAIMS_B1 = _index()


# ---------------------------------------------------------------------------------------------
# B2

CLAIMS_B2 = _index()


# ---------------------------------------------------------------------------------------------
# B3

CLAIMS_B3 = _index()


# ---------------------------------------------------------------------------------------------
# B4

CLAIMS_B4 = _index()


# ---------------------------------------------------------------------------------------------
# B5

CLAIMS_B5 = _index()


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
