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
