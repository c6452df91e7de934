"""The claims of paper B (chapters B1-B4; B5's are in ``rankscale.claims.b5``): their rules and thresholds, and the
functions that decide them."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from rankscale.analysis.bootstrap import LEVEL
from rankscale.claims.base import (
    Claim,
    Verdict,
    index_claims,
    judge,
)

# ---------------------------------------------------------------------------------------------
# B1

B1_MAX_RESIDUAL = 1e-9  # nats. CE - (EE + SA - Conf) is zero in exact arithmetic; float64 rounding of sums over a
#   few hundred thousand tokens is ~1e-12 and every real term is above 1e-3, so 1e-9 tells rounding from an error
B1_BOUND_SLACK = 1e-6  # nats. The records store log-probabilities in float32 (relative precision 6e-8, |log s| < 17),
#   so a bound that holds exactly can look exceeded by up to ~1e-6 in the stored numbers, never by more

CLAIMS_B1 = index_claims(
    Claim("B1.1", "Cross-entropy equals Error-Entropy + Self-Alignment − Confidence exactly (paper B, §3.2, eq. 8)",
          "analytic",
          "Measured: the residual CE − (EE + SA − Conf) of every model (families and references) on every corpus. "
          f"Holds if |residual| < {B1_MAX_RESIDUAL:g} nats everywhere (float64 rounding is ~1e-12, every term is "
          "above 1e-3). An identity of algebra: a check of this code, not a replication.",
          "exact (derivation)"),
    Claim("B1.2", "A trained model's RBE distribution p_e concentrates on small errors: the target sits near the top of "
                  "the ranking more often than random ranking would put it there (paper B, §3.1, Fig. 1)",
          "definitional",
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
          "immune (argument)", needs=("temperature runs",)),
)


def _per_group(table, passed) -> str:
    """'NeoX ladder 9/9, reference 3/3': of each group's units (column ``group``), how many pass."""
    passed = np.asarray(passed, bool)
    return ", ".join(f"{group} {int(passed[idx].sum())}/{len(idx)}"
                     for group, idx in table.groupby("group", sort=False).indices.items())


def identity_exact(identity) -> Verdict:
    """B1.1: |CE - (EE + SA - Conf)| below ``B1_MAX_RESIDUAL`` on every unit.

    Parameters
    ----------
    identity : pandas.DataFrame
        One row per (model, corpus): ``unit``, ``group`` (family, or "reference") and
        ``residual`` (nats).

    Returns
    -------
    Verdict

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"unit": ["a", "b"], "group": ["NeoX", "NeoX"], "residual": [1e-13, 2e-3]})
    >>> identity_exact(table).verdict, identity_exact(table).ours
    ('partly', 'largest |residual| 2.0e-03 nats; model-corpus pairs below 1e-09: NeoX 1/2')
    """
    exact = identity["residual"].abs() < B1_MAX_RESIDUAL
    return judge("B1.1", dict(zip(identity["unit"], exact)),
                 f"largest |residual| {identity['residual'].abs().max():.1e} nats; model-corpus pairs below "
                 f"{B1_MAX_RESIDUAL:g}: {_per_group(identity, exact)}")


def concentrates(checks, control: str) -> Verdict:
    """B1.2: p_e lies on the small-error side of random ranking on every unit.

    Parameters
    ----------
    checks : pandas.DataFrame
        One row per (model, corpus): ``unit``, ``group``, ``concentrated``
        (``rankscale.analysis.dynamics.concentrated``: P(e < k) >= k/V at every k), ``mode at 0``
        and ``p_0``.
    control : str
        The same rule on untrained checkpoints, in words.

    Returns
    -------
    Verdict
    """
    return judge("B1.2", dict(zip(checks["unit"], checks["concentrated"])),
                 f"model-corpus pairs with P(e < k) ≥ k/V at every k: {_per_group(checks, checks['concentrated'])}; "
                 f"with RBE 0 the most frequent value: {_per_group(checks, checks['mode at 0'])}; "
                 f"p_0 from {checks['p_0'].min():.3f} to {checks['p_0'].max():.3f}; {control}")


def bound_holds(excess) -> np.ndarray:
    """Whether Q_e <= 1/(e+1) at every e, given max_e (log Q_e + log(e+1)) per unit (B1.3's
    test, allowing ``B1_BOUND_SLACK`` for the float32 records).

    Examples
    --------
    >>> bound_holds([0.0, 5e-7, 1e-3]).tolist()
    [True, True, False]
    """
    return np.asarray(excess, np.float64) <= B1_BOUND_SLACK


def confidence_bounded(bounds) -> Verdict:
    """B1.3: Q_e <= 1/(e+1) at every RBE value, on every unit (``bound_holds``).

    Parameters
    ----------
    bounds : pandas.DataFrame
        One row per (model, corpus): ``unit``, ``group``, ``max log Q_e + log(e+1)``, ``Conf`` and
        ``bound log sum 1/(e+1)``.

    Returns
    -------
    Verdict
    """
    holds = bound_holds(bounds["max log Q_e + log(e+1)"])
    return judge("B1.3", dict(zip(bounds["unit"], holds)),
                 f"model-corpus pairs where it holds: {_per_group(bounds, holds)}; largest log Q_e + log(e+1) "
                 f"{bounds['max log Q_e + log(e+1)'].max():.3f} nats; Conf {bounds['Conf'].min():.3f} to "
                 f"{bounds['Conf'].max():.3f} against bounds ≥ {bounds['bound log sum 1/(e+1)'].min():.2f}")


def temperature_invariant(at, model: str) -> Verdict:
    """B1.4: at every temperature, the same targets with the same RBE, so the same EE, as at T = 1.

    Parameters
    ----------
    at : pandas.DataFrame or None
        Indexed by temperature T (1.0 among them): ``same targets as T = 1``, ``targets whose
        RBE differs from T = 1``, CE, EE, SA and Conf. None where the set extracts no tempered
        predictions.
    model : str
        The model and its token count, in words.

    Returns
    -------
    Verdict
    """
    if at is None:
        return judge("B1.4", {}, "", why_not="the set extracts no tempered predictions (temperature_tokens = 0)")
    others = [t for t in at.index if t != 1.0]
    unchanged = {f"T = {t:g}": bool(at.loc[t, "same targets as T = 1"]
                                    and at.loc[t, "targets whose RBE differs from T = 1"] == 0
                                    and at.loc[t, "EE"] == at.loc[1.0, "EE"]) for t in others}
    return judge("B1.4", unchanged,
                 f"{model}: targets whose RBE differs from T = 1: "
                 + ", ".join(f"{int(at.loc[t, 'targets whose RBE differs from T = 1'])} at T = {t:g}" for t in others)
                 + f"; EE {at.loc[1.0, 'EE']:.4f} at T = 1, largest change across T {at['EE'].max() - at['EE'].min():.1e}"
                 f"; CE from {at['CE'].min():.3f} to {at['CE'].max():.3f}, SA {at['SA'].min():.3f} to "
                 f"{at['SA'].max():.3f}, Conf {at['Conf'].min():.3f} to {at['Conf'].max():.3f}")


# ---------------------------------------------------------------------------------------------
# B2

B2_UNIFORM_RATIO = 0.9  # "nearly uniform" at step 0 (Fig. 4): at least 90% of the effective number of ranks, exp(EE),
#   that ranking at random reaches on a sample of the same size; the paper gives no number, 90% is our "nearly"
B2_MIN_GROUP = 10  # Fig. 6: p_e and q_e are compared over the RBE values that at least 10 targets hold. A rank seen once
#   has p_e = 1/N, far above its true frequency, while its q_e follows one target's score, so the unseen-or-once tail
#   keeps the two apart whatever the model does; 10 targets fix a frequency to about +-30% and average 10 scores
B2_MAX_TV = 0.1  # Fig. 6, "almost indistinguishable": total-variation distance below 0.1, i.e. no set of RBE values gets
#   probabilities more than 0.1 apart, and one observation tells the two distributions apart at most 55% of the time
B2_FIG5_RBES = (1, 3)  # paper B, Fig. 5: targets ranked 2 and 4 (RBE 1 and 3)

_SERIES = "On every checkpoint series (a checkpointed model of a family on a corpus)"

# every B2 interval is rankscale.analysis.bootstrap.interval: the measured value -+ z standard deviations of its replicates
_Z = NormalDist().inv_cdf((1 + LEVEL) / 2)
_INTERVAL_ONE = (f"{LEVEL:.0%} interval (the measured value ± {_Z:.2f} standard deviations of its bootstrap "
                 "replicates over the evaluation tokens)")
_INTERVAL = (f"{LEVEL:.0%} interval (the measured value ± {_Z:.2f} standard deviations of its bootstrap "
             "replicates over the evaluation tokens, one resample for every checkpoint of a series)")

CLAIMS_B2 = index_claims(
    Claim("B2.1", "Error-Entropy decreases steadily during training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: EE at the last checkpoint is below EE at the first, the difference's {_INTERVAL} lying "
          "below 0, and no step between consecutive checkpoints shows a rise (no such interval of a step's "
          "difference lies wholly above 0). Why: 'steadily' rules out rises; a change within sampling noise "
          "between two close checkpoints is not a rise, so demanding a fall at every step would grade the noise.",
          "qualitative (Fig. 3)", needs=("checkpoints",)),
    Claim("B2.2", "Self-Alignment declines at the end of training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: SA at the last checkpoint is below the highest SA of the earlier checkpoints, the "
          f"difference's {_INTERVAL} lying below 0. Why: Fig. 3 shows SA ending lower than it was; a set's last two "
          "checkpoints can be close together, over a stretch where SA hardly moves, so 'at the end' is read as "
          "'from its peak to the end'. It fails if SA ends at its highest or within noise of it.",
          "qualitative (Fig. 3)", needs=("checkpoints",)),
    Claim("B2.3", "Confidence increases during training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: Confidence at the last checkpoint is above Confidence at the first, the difference's "
          f"{_INTERVAL} lying above 0. Why: the paper's statement is about training as a whole and gives no number.",
          "qualitative (Fig. 3)", needs=("checkpoints",)),
    Claim("B2.4", "Training reduces Error-Entropy first and optimises Self-Alignment and Confidence only later "
                  "(paper B, §3.2)", "empirical",
          f"{_SERIES} with at least three checkpoints, both of: (a) over the first interval EE's drop exceeds both "
          "SA's drop and Confidence's rise; (b) SA's drop plus Confidence's rise make a larger part of CE's drop "
          "from the second checkpoint to the last than over the first interval; each shown by the "
          f"{_INTERVAL} of the margin lying above 0. Why: the paper's two statements (EE is reduced first because "
          "it is largest; SA and Conf are optimised after EE is largely minimised); the later stretch is taken "
          "whole so that a short last interval, over which CE hardly moves, cannot leave the part undefined.",
          "qualitative (§3.2)", needs=("checkpoints",)),
    Claim("B2.5", "At initialisation the RBE distribution is nearly uniform: the untrained model ranks targets "
                  "essentially at random (paper B, §3.3, Fig. 4)", "definitional",
          f"{_SERIES} with a step-0 checkpoint: exp(EE(0) − EE_random) ≥ {B2_UNIFORM_RATIO}, where EE_random is the "
          "expected EE of targets ranked uniformly at random on the same number of tokens (exact binomial formula): "
          f"the untrained model spreads its targets over at least {B2_UNIFORM_RATIO:.0%} of the effective number of "
          "ranks random ranking reaches. Why: the paper gives no number; measuring against the finite-sample random "
          "value keeps the sample size from counting against the model (with a few tokens per rank, a random "
          "ranker's plug-in EE lies well below log V); the point estimate decides, its sampling s.d. is shown "
          "beside it.",
          "qualitative (Fig. 4)", needs=("checkpoints", "a step-0 checkpoint")),
    Claim("B2.6", "After training, the score distribution q_e is almost indistinguishable from the RBE distribution p_e "
                  "(paper B, §3.3, Fig. 6)", "empirical",
          "On every final model of every family on every corpus: the total-variation distance ½Σ|p_e − q_e|, "
          f"both distributions restricted to the RBE values that at least {B2_MIN_GROUP} targets hold (the ranks the "
          f"sample measures; their share of targets is shown), is below {B2_MAX_TV}, with the upper end of its "
          f"{_INTERVAL_ONE}. Why: the paper gives no number; TV < {B2_MAX_TV} means no set of ranks gets "
          f"probabilities more than {B2_MAX_TV} apart; an interval straddling {B2_MAX_TV} counts as not shown. A "
          "model on a sample so small that even a perfectly aligned model would measure a distance of "
          f"{B2_MAX_TV} (rankscale.analysis.dynamics.aligned_distance) cannot test the claim. The evolution over the "
          "checkpoints is shown beside it.",
          "qualitative (Fig. 6)"),
    Claim("B2.7", "The output probability breaks off just below the target's position (paper B, §3.3, Fig. 5)",
          "empirical",
          "For each family's largest final model on every corpus, over the predictions whose target has RBE 1 and "
          "RBE 3 (ranks 2 and 4): the mean probability of the best, second-best, ... token falls most steeply "
          "(largest ratio between neighbours) right after the target's position e+1 or one position lower, e+2, "
          "at the same offset for both targets, so that the break moves with the target: a break that stays at one "
          "position whatever the target's rank fails. Why: the paper's text places the break after position 3 for "
          "rank-2 targets and after 5 for rank-4 targets (e+2), its caption says scores drop for the tokens ranked "
          "below the target (after e+1); either reading is accepted, but Fig. 5's point is that the break follows "
          "the target.",
          "break after position 3 (rank 2) and 5 (rank 4)"),
    Claim("B2.8", "Error-Entropy has the largest initial value of the three components, which is why training "
                  "reduces it first (paper B, §3.2)", "empirical",
          f"{_SERIES} with a step-0 checkpoint: EE(0) − max(SA(0), |Conf(0)|), its {_INTERVAL} lying above 0. "
          "Why: the paper compares the components' sizes (Fig. 3 draws them as magnitudes); Confidence can be "
          "negative, so its magnitude is compared.",
          "qualitative (§3.2)", needs=("checkpoints", "a step-0 checkpoint")),
)


# ---------------------------------------------------------------------------------------------
# The interval sentences of chapters B3-B5's rules (their claims and rules: rankscale.claims.b3, .b4, .b5)
#
# Intervals (rankscale.analysis.bootstrap.interval): the value on all tokens -+ z standard deviations of
# its replicates, each replicate resampling every model's tokens once for all four quantities, so that
# differences between quantities and between models are paired (rankscale.claims.b3 says why not percentiles).

_B_LEVEL = LEVEL
_B_Z = NormalDist().inv_cdf((1 + _B_LEVEL) / 2)
_B_INTERVAL = (f"{_B_LEVEL:.0%} interval (the value on all tokens ± {_B_Z:.2f} standard deviations of its "
               "replicates over resamples of every model's tokens; in a size fit, a size trained with several seeds "
               "first draws one of its runs)")
_B_PAIRED = (f"{_B_LEVEL:.0%} paired interval (the value on all tokens ± {_B_Z:.2f} standard deviations of its "
             "replicates, every quantity it is computed from taken on the same resamples of every model's tokens; "
             "in a size fit, a size trained with several seeds first draws one of its runs)")
