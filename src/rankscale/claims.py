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

A_LEVEL = 0.95  # chapters A1-A3: the central 95% bootstrap interval, the usual two-sided level
A1_BAND_CENTRES = (0.01, 0.03, 0.1, 0.28)  # target probabilities looked at; 0.28 is paper A's Fig. 1 example
A1_BAND_HALF_WIDTH = 0.1  # a band is centre x (1 -/+ 0.1): the probability is nearly the same throughout
A1_BAND_MIN_TARGETS = 30  # a band is tested only with at least 30 targets: then 5% of them is two or more
A1_BAND_MIN_SHARE = 0.05  # each greedy outcome (rank 1, below rank 1) needs 5% of a band: no single odd token decides

CLAIMS_A1 = _index(
    Claim("A1.1",
          "A probability does not fix a rank: targets given nearly the same probability are ranked first in "
          "some contexts and below first in others, so greedy decoding gets some right and misses others "
          "(§1, Fig. 1: p = 0.28 at rank 1 and at rank 3)",
          "empirical",
          f"Targets are grouped into bands of nearly equal probability (p(t) within ±{A1_BAND_HALF_WIDTH:.0%} of "
          f"{', '.join(f'{c:g}' for c in A1_BAND_CENTRES)}; ge ranks, eq. 3). A band with at least "
          f"{A1_BAND_MIN_TARGETS} targets shows the claim if at least {A1_BAND_MIN_SHARE:.0%} of them are at rank 1 "
          f"and at least {A1_BAND_MIN_SHARE:.0%} below it, the two cases of Fig. 1. A unit (a corpus and a family, "
          f"or a reference model on a corpus) holds if any tested band of its models shows it. Why: the paper "
          f"claims only that both cases occur at one probability; {A1_BAND_MIN_SHARE:.0%} of at least "
          f"{A1_BAND_MIN_TARGETS} targets is two or more targets of each kind, so one odd token cannot decide.",
          "p = 0.28 at rank 1 and at rank 3 (an illustration)"),
    Claim("A1.2",
          "The mean probability of the correct token (p_A) does not determine RBP_k: two models can be ordered "
          "one way by p_A and the other way by how often the correct token is ranked first (§3.1-3.2, Fig. 2)",
          "empirical",
          f"On each corpus, every pair of final models (the families' and the reference models; no training "
          f"checkpoints, no pairs across corpora) is compared: it disagrees if the {A_LEVEL:.0%} bootstrap interval "
          f"of its p_A difference and that of its RBP_1 difference both exclude zero, with opposite signs (each "
          f"model's tokens resampled, the set's n_boot times). A corpus holds if at least one pair disagrees. Why: "
          f"no margin to choose; a pair must disagree beyond token-resampling noise, on results the paper would "
          f"compare (finished models on one text).",
          "conceptual (toy example in Fig. 2)"),
    Claim("A1.3",
          "Paper A's eq. 3 rank (ties counted against the target) and its released code's rank (ties for the "
          "target) give the same RBP_k",
          "beyond the paper",
          "Per model and corpus, over every k from 1 to the vocabulary: the change of RBP_k between the two "
          "conventions is at most RBP_k's binomial standard error sqrt(RBP_k(1 - RBP_k)/n) on that model's "
          "tokens. A unit (a corpus and a family, or a reference model) holds if all its models do. Why: then the "
          "convention cannot move any result by more than its own sampling noise. Not analytic: ties do occur "
          "(often, with low-precision logits), so it holds by measurement, not by construction; the paper does "
          "not discuss it.",
          "not discussed (eq. 3 and the released code differ on ties)"),
)


# ---------------------------------------------------------------------------------------------
# A2

PAPER_A_VOCAB = 50_257  # the vocabulary paper A's k were chosen for (GPT-2; Pythia and OPT are within 20 tokens)
A2_MIN_R2 = 0.9  # paper A §4.4: R^2 above 0.9 for k < 1000, which includes k = 1 (§4.1 gives no number)
A2_MODERATE_KS = (10, 50, 100)  # paper A §4.2, as absolute k: top-k sampling settings
A2_MODERATE_R2 = 0.97  # paper A §4.2: "R^2 >= 0.97 across all datasets" for k = 10, 50, 100
A2_LARGE_KS = (20_000, 30_000)  # paper A §4.3 (Fig. 5), of a vocabulary of about PAPER_A_VOCAB


def scaled_k(k: int, vocab_size: int) -> int:
    """Paper A's ``k`` at the same fraction of a vocabulary of ``vocab_size`` tokens as of its own
    (``PAPER_A_VOCAB``), at least 1.

    >>> scaled_k(20_000, 4096), scaled_k(100, 4096), scaled_k(10, 4096)
    (1630, 8, 1)
    """
    return max(1, round(k * vocab_size / PAPER_A_VOCAB))


CLAIMS_A2 = _index(
    Claim("A2.1",
          "-log RBP_1 follows a power law in non-embedding size, for every family on every dataset (§4.1, Fig. 3)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the log-log fit of -log RBP_1 against size has "
          f"R^2 ≥ {A2_MIN_R2} and a negative slope. Why: {A2_MIN_R2} is the paper's own bar for k < 1000 (§4.4), "
          f"which includes k = 1; §4.1 gives no number of its own. The point estimate is graded, as the paper "
          f"grades its fits; the bootstrap interval of R^2 is shown beside it.",
          ""),
    Claim("A2.2",
          "For moderate k (10, 50, 100) the power law holds with R^2 ≥ 0.97 on every dataset (§4.2, Fig. 4)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the fits at k = "
          f"{', '.join(map(str, A2_MODERATE_KS))} all have R^2 ≥ {A2_MODERATE_R2} and a negative slope. Why: these "
          f"are the paper's absolute k and its own bar; k counts candidates for top-k sampling whatever the "
          f"vocabulary, and stays far below it (100 is 2.4% of 4,096 tokens). The same fractions of the "
          f"vocabulary as the paper's (k x |V| / {PAPER_A_VOCAB:,}) are shown, not graded.",
          f"R^2 ≥ {A2_MODERATE_R2}"),
    Claim("A2.3",
          "As k approaches the vocabulary size (k = 20,000 and 30,000 of about 50,000) the power law breaks down "
          "(§4.3, Fig. 5)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at k = "
          f"{' and '.join(f'{k:,}' for k in A2_LARGE_KS)} scaled to the family's vocabulary (x |V| / "
          f"{PAPER_A_VOCAB:,}: about 40% and 60% of it; absolute k would exceed a small vocabulary): the law breaks "
          f"down if at either k the fit has R^2 below {A2_MIN_R2} or does not fall with size. Why: {A2_MIN_R2} is "
          f"the paper's bar for a power law (§4.4); either k, because the paper itself finds 30,000 much more "
          f"scattered than 20,000, so it does not claim both break. A k where some model ranks every target "
          f"inside the top k has nothing to fit (-log RBP_k = 0) and is left out.",
          "points scatter at k = 20,000 and 30,000 (not tabulated)"),
    Claim("A2.4",
          "For GPT-2 at k near the vocabulary size, -log RBP_k even grows with model size (§4.3, Fig. 5)",
          "empirical",
          f"Per corpus, on the paper's GPT-2 family (its models recognised by hub id; at least {MIN_SIZES} sizes): "
          f"the log-log slope of -log RBP_k against size is positive at k = {A2_LARGE_KS[0]:,} or at "
          f"{A2_LARGE_KS[1]:,} (the paper does not say which; GPT-2's vocabulary is the one these k were chosen "
          f"for). Why: the point estimate is graded, as the paper reads the trend off its figure (and itself blames "
          f"noise); the bootstrap interval is shown. A set without the paper's GPT-2 models cannot test it.",
          "-log RBP_k grows with size for GPT-2 (Fig. 5)"),
    Claim("A2.5",
          "At k = 30,000 the points scatter much more than at k = 20,000 (§4.3, Fig. 5)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at the two k of A2.3 (about 40% and 60% of the "
          f"vocabulary): the paired {A_LEVEL:.0%} bootstrap interval of R^2(larger k) - R^2(smaller k) lies below "
          f"zero, i.e. the fit is worse at the larger k beyond token-resampling noise. Why: 'more random' has no "
          f"number in the paper, so the sign of the interval decides. A unit where the larger k cannot be fitted "
          f"(a model with every target inside the top k) cannot test it.",
          "k = 30,000 much more random than 20,000"),
)


# ---------------------------------------------------------------------------------------------
# A3

A3_N_K = 25  # points of each family's log-spaced k grid from 1 to its vocabulary (Fig. 6's sweep)
A3_R2_BOUND_K = 1000  # paper A §4.4: R^2 above 0.9 "when k < 1000" (of about PAPER_A_VOCAB)
A3_MIN_R2 = 0.9  # paper A §4.4's own bar
# "close to the vocabulary": from 40% of |V| (the paper's k = 20,000 of 50,257) up to, not including, |V|
A3_LARGE_FRACTION = 0.4
A3_EXPONENT_KS = (1, 100)  # paper A §4.4 contrasts the exponents at these two k
A3_ALPHA_K1_BELOW = 0.1  # paper A §4.4: the exponent at k = 1 "is less than 0.1"
A3_ALPHA_K100_BAND = (0.15, 0.25)  # paper A §4.4: "close to 0.2" at k = 100: the values that round to 0.2
A3_R2_KS = (1, 10, 100)  # paper A §1: R^2 about 0.99 "when k lies in the range of roughly 1 to 100"
A3_RATIO_BAND = (0.8, 1.25)  # "very close" exponents: within a factor 1.25 either way (see A3.5)
A3_OFFSET_MIN_SIZES = 4  # L = E + A S^-alpha has three parameters

CLAIMS_A3 = _index(
    Claim("A3.1",
          "R^2 stays above 0.9 for k < 1000, i.e. for k well below the vocabulary size (§4.4, Fig. 6a)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: every fit of the family's k grid ({A3_N_K} "
          f"log-spaced k) below {A3_R2_BOUND_K} x |V| / {PAPER_A_VOCAB:,} has R^2 ≥ {A3_MIN_R2} and a negative "
          f"slope. Why: {A3_MIN_R2} and {A3_R2_BOUND_K} are the paper's; the bound is scaled to the family's "
          f"vocabulary because the paper ties the drop to k nearing |V| (k < 1000 absolute would reach a quarter of a "
          f"4,096-token vocabulary; that minimum is shown too, not graded).",
          f"R^2 above {A3_MIN_R2} for k < {A3_R2_BOUND_K} (of ~50k)"),
    Claim("A3.2",
          "R^2 drops only as k comes close to the vocabulary size (§4.4, Fig. 6a)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the mean R^2 over the grid's k from "
          f"{A3_LARGE_FRACTION:.0%} of |V| up to but excluding |V| (at k = |V|, RBP = 1 by definition) minus the "
          f"mean R^2 over the k of A3.1; holds if its paired {A_LEVEL:.0%} bootstrap interval lies below zero. "
          f"Why: 'drops' has no number, so the interval's sign decides. k where some model ranks every target "
          f"inside the top k have nothing to fit and are left out; a unit with none left cannot test it.",
          "drops after k ~ 1000"),
    Claim("A3.3",
          "The exponent grows with k: it is larger at k = 100 than at k = 1 (§4.4, Fig. 6b)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the paired {A_LEVEL:.0%} bootstrap interval of "
          f"alpha(100) - alpha(1) (alpha = -slope of -log RBP_k) lies above zero. k = 100 is the paper's absolute "
          f"k (a top-k sampling setting, 2.4% of a 4,096-token vocabulary); at 100 x |V| / {PAPER_A_VOCAB:,} the "
          f"same is shown, not graded. Why: 'grows' has no number, so the interval's sign decides.",
          ""),
    Claim("A3.4",
          "The exponents' size: below 0.1 at k = 1 and close to 0.2 at k = 100 (§4.4, Fig. 6b)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: alpha(1) < {A3_ALPHA_K1_BELOW} and "
          f"{A3_ALPHA_K100_BAND[0]} ≤ alpha(100) < {A3_ALPHA_K100_BAND[1]} (point estimates, as the paper states "
          f"them; intervals shown). Why: {A3_ALPHA_K1_BELOW} is the paper's bound; 'close to 0.2' is read as the "
          f"values that round to 0.2 at the one significant figure the paper gives. k as in A3.3.",
          "alpha below 0.1 at k = 1, close to 0.2 at k = 100"),
    Claim("A3.5",
          "The slopes of CE and of -log RBP_1 against size are very close (App. B, Table 1)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the paired {A_LEVEL:.0%} bootstrap interval of "
          f"the slope ratio (-log RBP_1 / CE) lies inside [{A3_RATIO_BAND[0]}, {A3_RATIO_BAND[1]}] (holds) or "
          f"entirely outside it (fails); across an edge the data do not decide (not counted, named). Why: a factor "
          f"{A3_RATIO_BAND[1]} either way is how close the paper's own Table 1 ratios are where it calls "
          f"them very close (the paper column counts them); an interval, so that a noisy ratio can neither pass "
          f"nor fail by luck.",
          ""),
    Claim("A3.6",
          "For k from 1 to 100 the power law of -log RBP_k fits about as well as cross-entropy's "
          "(R^2 about 0.99, comparable to CE's; §1)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, for k = {', '.join(map(str, A3_R2_KS))} (the "
          f"paper's range, absolute k): the paired {A_LEVEL:.0%} bootstrap interval of R^2(-log RBP_k) - R^2(CE) "
          f"does not lie entirely below zero, at every one of these k. Why: 'comparable' has no number, so the "
          f"interval's sign decides; RBP's fit fails only where it is worse than CE's beyond token-resampling noise.",
          ""),
    Claim("A3.7",
          "This book's explanation of why CE's and -log RBP_1's exponents differ on small models: with an "
          "irreducible floor fitted (L = E + A S^-alpha), the two exponents agree",
          "beyond the paper",
          f"Per corpus and family with at least {A3_OFFSET_MIN_SIZES} sizes (three parameters): L = E + A S^-alpha "
          f"fitted by least squares (scipy) to CE and to -log RBP_1, on the full sample and on every bootstrap "
          f"replicate; the exponents agree if the {A_LEVEL:.0%} interval of alpha(RBP_1) / alpha(CE) lies inside "
          f"A3.5's band [{A3_RATIO_BAND[0]}, {A3_RATIO_BAND[1]}], disagree if it lies entirely outside; across an "
          f"edge, or with replicates that cannot be fitted, the data do not decide. Why: the explanation is held to "
          f"the closeness the paper claims for the plain exponents (A3.5), and an interval keeps noise from "
          f"deciding.",
          "not in the paper"),
)


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

B1_MAX_RESIDUAL = 1e-9  # nats. CE - (EE + SA - Conf) is zero in exact arithmetic; float64 rounding of sums over a
#   few hundred thousand tokens is ~1e-12 and every real term is above 1e-3, so 1e-9 tells rounding from an error
B1_BOUND_SLACK = 1e-6  # nats. The records store log-probabilities in float32 (relative precision 6e-8, |log s| < 17),
#   so a bound that holds exactly can look exceeded by up to ~1e-6 in the stored numbers, never by more

CLAIMS_B1 = _index(
    Claim("B1.1", "Cross-entropy equals Error-Entropy + Self-Alignment − Confidence exactly (paper B, §3.2, eq. 8)",
          "analytic",
          "Measured: the residual CE − (EE + SA − Conf) of every model (families and references) on every corpus. "
          f"Holds if |residual| < {B1_MAX_RESIDUAL:g} nats everywhere (float64 rounding is ~1e-12, every term is "
          "above 1e-3). An identity of algebra: a check of this code, not a replication.",
          "exact (derivation)"),
    Claim("B1.2", "A trained model's RBE distribution p_e concentrates on small errors: the target sits near the top of "
                  "the ranking more often than random ranking would put it there (paper B, §3.1, Fig. 1)",
          "empirical",
          "Measured on every final model (families and references) on every corpus: P(e < k), the share of targets "
          "with fewer than k tokens strictly above them, against k/V, the share random ranking gives, at every k from "
          "1 to the model's vocabulary size V. Holds if P(e < k) ≥ k/V at every k: p_e lies wholly on the "
          "small-error side of the uniform distribution. Why: the paper gives no number, and the one reference it "
          "names is a model that ranks at random (§3.3); the rule fails for random or worse ranking (the chapter "
          "shows it failing on the untrained step-0 checkpoints, where the set has them).",
          "qualitative (§3.1, Fig. 1)"),
    Claim("B1.3", "Q_e ≤ 1/(e+1) at every RBE value e, so Confidence ≤ log Σ_e 1/(e+1) (paper B, §3.3)",
          "analytic",
          "Measured: log Q_e + log(e+1) at every RBE value of every model (families and references) on every corpus. "
          f"Holds if it is at most {B1_BOUND_SLACK:g} nats everywhere (the float32 precision of the stored "
          "log-probabilities). The e tokens above the target are each at least as probable, so (e+1)s ≤ 1 by "
          "construction: a check of the records, not a replication.",
          "bound (derivation)"),
    Claim("B1.4", "Error-Entropy is unaffected by temperature scaling and top-p truncation, unlike the probability-based "
                  "terms (paper B, §3.1 and §3.3)",
          "analytic",
          "EE is a function of the ranks alone; dividing the logits by a temperature T > 0 keeps their order (top-p "
          "keeps the order of the tokens it keeps), so EE cannot move. Checked on real extractions of one model on "
          "the same tokens at T = 0.5 and T = 2 against T = 1: holds at a temperature if every target's RBE, and so "
          "EE, is identical (T = 0.5 and 2 scale binary floating-point logits exactly, so no tie can appear or "
          "vanish). CE, SA and Conf at each T are shown beside it.",
          "immune (argument)"),
)


# ---------------------------------------------------------------------------------------------
# B2

B2_LEVEL = 0.95  # every B2 interval: the measured value -+ 1.96 standard errors of bootstrap replicates over the
#   evaluation tokens, paired across a series' checkpoints (rankscale.dynamics.se_interval). Not percentiles: a resample
#   repeats some targets and loses others, which moves these plug-in quantities off the measured value by more than
#   their spread. Resampling tokens leaves out other sources of noise, so the intervals are a lower bound
B2_UNIFORM_RATIO = 0.9  # "nearly uniform" at step 0 (Fig. 4): at least 90% of the effective number of ranks, exp(EE),
#   that ranking at random reaches on a sample of the same size; the paper gives no number, 90% is our "nearly"
B2_MIN_GROUP = 10  # Fig. 6: p_e and q_e are compared over the RBE values that at least 10 targets hold. A rank seen once
#   has p_e = 1/N, far above its true frequency, while its q_e follows one target's score, so the unseen-or-once tail
#   keeps the two apart whatever the model does; 10 targets fix a frequency to about +-30% and average 10 scores
B2_MAX_TV = 0.1  # Fig. 6, "almost indistinguishable": total-variation distance below 0.1, i.e. no set of RBE values gets
#   probabilities more than 0.1 apart, and one observation tells the two distributions apart at most 55% of the time
B2_FIG5_RBES = (1, 3)  # paper B, Fig. 5: targets ranked 2 and 4 (RBE 1 and 3)

_SERIES = "On every checkpoint series (a checkpointed model of a family on a corpus)"
from statistics import NormalDist  # noqa: E402 (kept in this section)

_Z = NormalDist().inv_cdf((1 + B2_LEVEL) / 2)
_INTERVAL_ONE = f"{B2_LEVEL:.0%} interval (the measured value ± {_Z:.2f} standard errors from resampling the tokens)"
_INTERVAL = (f"{B2_LEVEL:.0%} interval (the measured value ± {_Z:.2f} standard errors from resampling the tokens, "
             "paired across a series' checkpoints)")

CLAIMS_B2 = _index(
    Claim("B2.1", "Error-Entropy decreases steadily during training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: EE at the last checkpoint is below EE at the first, the difference's {_INTERVAL} lying "
          "below 0, and no step between consecutive checkpoints shows a rise (no such interval of a step's "
          "difference lies wholly above 0). Why: 'steadily' rules out rises; a change within sampling noise "
          "between two close checkpoints is not a rise, so demanding a fall at every step would grade the noise.",
          "qualitative (Fig. 3)"),
    Claim("B2.2", "Self-Alignment declines at the end of training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: SA at the last checkpoint is below the highest SA of the earlier checkpoints, the "
          f"difference's {_INTERVAL} lying below 0. Why: Fig. 3 shows SA ending lower than it was; a set's last two "
          "checkpoints can be close together, over a stretch where SA hardly moves, so 'at the end' is read as "
          "'from its peak to the end'. It fails if SA ends at its highest or within noise of it.",
          "qualitative (Fig. 3)"),
    Claim("B2.3", "Confidence increases during training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: Confidence at the last checkpoint is above Confidence at the first, the difference's "
          f"{_INTERVAL} lying above 0. Why: the paper's statement is about training as a whole and gives no number.",
          "qualitative (Fig. 3)"),
    Claim("B2.4", "Training reduces Error-Entropy first and optimises Self-Alignment and Confidence only later "
                  "(paper B, §3.2)", "empirical",
          f"{_SERIES} with at least three checkpoints, both of: (a) over the first interval EE's drop exceeds both "
          "SA's drop and Confidence's rise; (b) SA's drop plus Confidence's rise make a larger part of CE's drop "
          "from the second checkpoint to the last than over the first interval; each shown by the "
          f"{_INTERVAL} of the margin lying above 0. Why: the paper's two statements (EE is reduced first because "
          "it is largest; SA and Conf are optimised after EE is largely minimised); the later stretch is taken "
          "whole so that a short last interval, over which CE hardly moves, cannot leave the part undefined.",
          "qualitative (§3.2)"),
    Claim("B2.5", "At initialisation the RBE distribution is nearly uniform: the untrained model ranks targets "
                  "essentially at random (paper B, §3.3, Fig. 4)", "empirical",
          f"{_SERIES} with a step-0 checkpoint: exp(EE(0) − EE_random) ≥ {B2_UNIFORM_RATIO}, where EE_random is the "
          "expected EE of targets ranked uniformly at random on the same number of tokens (exact binomial formula): "
          f"the untrained model spreads its targets over at least {B2_UNIFORM_RATIO:.0%} of the effective number of "
          "ranks random ranking reaches. Why: the paper gives no number; measuring against the finite-sample random "
          "value keeps the sample size from counting against the model (with a few tokens per rank, a random "
          "ranker's plug-in EE lies well below log V); the point estimate decides, its sampling s.d. is shown "
          "beside it.",
          "qualitative (Fig. 4)"),
    Claim("B2.6", "After training, the score distribution q_e is almost indistinguishable from the RBE distribution p_e "
                  "(paper B, §3.3, Fig. 6)", "empirical",
          "On every final model of every family on every corpus: the total-variation distance ½Σ|p_e − q_e|, "
          f"both distributions restricted to the RBE values that at least {B2_MIN_GROUP} targets hold (the ranks the "
          f"sample measures; their share of targets is shown), is below {B2_MAX_TV}, with the upper end of its "
          f"{_INTERVAL_ONE}. Why: the paper gives no number; TV < {B2_MAX_TV} means no set of ranks gets "
          f"probabilities more than {B2_MAX_TV} apart; an interval straddling {B2_MAX_TV} counts as not shown. A "
          "model on a sample so small that even a perfectly aligned model would measure a distance of "
          f"{B2_MAX_TV} (rankscale.dynamics.aligned_distance) cannot test the claim. The evolution over the "
          "checkpoints is shown beside it.",
          "qualitative (Fig. 6)"),
    Claim("B2.7", "The output probability breaks off just below the target's position (paper B, §3.3, Fig. 5)",
          "empirical",
          "For each family's largest final model on every corpus, over the predictions whose target has RBE 1 and "
          "RBE 3 (ranks 2 and 4): the mean probability of the best, second-best, ... token falls most steeply "
          "(largest ratio between neighbours) right after the target's position e+1 or one position lower, e+2. "
          "Why: the paper's text places the break after position 3 for rank-2 targets and after 5 for rank-4 "
          "targets (e+2), its caption says scores drop for the tokens ranked below the target (after e+1); either "
          "reading is accepted.",
          "break after position 3 (rank 2) and 5 (rank 4)"),
)


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
