"""Chapter B2 of the claims stage, paper B's training dynamics (§3.2-3.3, Figs. 3-6, Table 3): its thresholds and
claims, its evidence (``Dynamics``: every checkpointed model's checkpoints on every corpus with their bootstrap
replicates, every final model's distance between p_e and q_e, and where the largest final models' output
probability breaks off) and its two steps, ``measure`` (the chapter's runs to that evidence) and ``decide`` (the
evidence to the chapter's verdicts), with the rule of each claim read on one unit and the evidence laid out as the
chapter's tables.

``series_checks`` says, for one checkpoint series, whether each of paper B's statements holds there (a ``Check``:
the outcome, the number measured and its interval), or cannot be tested (too few checkpoints, no step-0
checkpoint); ``REQUIRES`` says what each needs. ``aligned`` tests Fig. 6's "almost indistinguishable" on one model
against the floor that sampling alone sets (``dynamics.aligned_distance``); ``below`` is its reading of an
interval. Every interval is ``rankscale.analysis.bootstrap.interval``, the measured value -+ z standard deviations
of the replicates (its docstring says why not percentiles).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, metrics
from rankscale.analysis.bootstrap import INTERVAL, LEVEL, Z, span
from rankscale.analysis.dynamics import (
    aligned_distance,
    alignment_distance,
    head_share,
    resampled_terms,
    terms_of,
    uniform_entropy,
)
from rankscale.claims.base import (
    NOT_TESTABLE,
    ONE_READING,
    UNDETERMINED,
    Claim,
    Reading,
    Unit,
    Verdict,
    every,
    index_claims,
    judge,
    read,
    undetermined,
)
from rankscale.claims.context import BY, Chapter, Context, text_units
from rankscale.claims.spec import ChapterSpec
from rankscale.records.runs import Run, by_family

B2_UNIFORM_RATIO = 0.9  # "nearly uniform" at step 0 (Fig. 4): at least 90% of the effective number of ranks, exp(EE),
#   that ranking at random reaches on a sample of the same size; the paper gives no number, 90% is our "nearly"
B2_MIN_GROUP = 10  # Fig. 6: p_e and q_e are compared over the RBE values that at least 10 targets hold. A rank seen once
#   has p_e = 1/N, far above its true frequency, while its q_e follows one target's score, so the unseen-or-once tail
#   keeps the two apart whatever the model does; 10 targets fix a frequency to about +-30% and average 10 scores
B2_MAX_TV = 0.1  # Fig. 6, "almost indistinguishable": total-variation distance below 0.1, i.e. no set of RBE values gets
#   probabilities more than 0.1 apart, and one observation tells the two distributions apart at most 55% of the time
B2_FIG5_RBES = (1, 3)  # paper B, Fig. 5: targets ranked 2 and 4 (RBE 1 and 3)
PAPER_FIG4_STEPS = (0, 128, 10_000)  # paper B, Table 3: the steps of its Fig. 4 ...
PAPER_FIG6_STEPS = (0, 16, 128, 10_000)  # ... and Fig. 6, used where a model has all of them
READS = ("checkpoints",)  # beside the families' final models (``load_chapter``'s keywords)
TABLES = ()  # B2's rules read none of the papers' tables

_SERIES = "On every checkpoint series (a checkpointed model of a family on a corpus)"

CLAIMS_B2 = index_claims(
    Claim("B2.1", "Error-Entropy decreases steadily during training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: EE falls over every step between consecutive checkpoints and from the first checkpoint to "
          f"the last, each change read on its {INTERVAL} against 0 ({ONE_READING}), the claim's side below; all must "
          "hold: the series holds where every change lies wholly below 0, fails where one lies wholly above 0 (a "
          "rise), and is otherwise undetermined (a step whose change is within noise shows no fall, nor a rise). "
          "Why: 'steadily' is a fall at every step, not only overall. (An earlier rule counted a step within noise "
          "for the claim.)",
          "qualitative (Fig. 3)", needs=("checkpoints",)),
    Claim("B2.2", "Self-Alignment declines at the end of training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: SA at the last checkpoint is below the highest SA of the earlier checkpoints, read on the "
          f"difference's {INTERVAL} against 0 ({ONE_READING}). Why: Fig. 3 shows SA ending lower than it was; a "
          "set's last two checkpoints can be close together, over a stretch where SA hardly moves, so 'at the end' "
          "is read as 'from its peak to the end'. It fails if SA ends at its highest, and is undetermined where SA "
          "ends within noise of it.",
          "qualitative (Fig. 3)", needs=("checkpoints",)),
    Claim("B2.3", "Confidence increases during training (paper B, §3.2, Fig. 3)", "empirical",
          f"{_SERIES}: Confidence at the last checkpoint is above Confidence at the first, read on the "
          f"difference's {INTERVAL} against 0 ({ONE_READING}). Why: the paper's statement is about training as a "
          "whole and gives no number.",
          "qualitative (Fig. 3)", needs=("checkpoints",)),
    Claim("B2.4", "Training reduces Error-Entropy first and optimises Self-Alignment and Confidence only later "
                  "(paper B, §3.2)", "empirical",
          f"{_SERIES} with at least three checkpoints, both of: (a) over the first interval EE's drop exceeds both "
          "SA's drop and Confidence's rise; (b) SA's drop plus Confidence's rise make a larger part of CE's drop "
          "from the second checkpoint to the last than over the first interval; each read on the "
          f"{INTERVAL} of its margin against 0 ({ONE_READING}), and both must hold. Why: the paper's two statements "
          "(EE is reduced first because it is largest; SA and Conf are optimised after EE is largely minimised); "
          "the later stretch is taken whole so that a short last interval, over which CE hardly moves, cannot leave "
          "the part undefined.",
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
    Claim("B2.6", "Training brings the score distribution q_e to the RBE distribution p_e: early in training the two "
                  "diverge significantly, after it they are almost indistinguishable (paper B, §3.3, Fig. 6)",
          "empirical",
          f"{_SERIES} with at least two checkpoints, the total-variation distance TV = ½Σ|p_e − q_e| at each, both "
          f"distributions restricted to the RBE values that at least {B2_MIN_GROUP} targets hold (the ranks the "
          f"sample measures; their share of targets is shown), each read on its {INTERVAL} against {B2_MAX_TV} "
          f"({ONE_READING}), the checkpoints resampled together: at the last checkpoint TV is below {B2_MAX_TV} "
          f"(close after training), and at the early checkpoint farthest apart (the largest TV of those before the "
          f"last, step 0 among them) TV is above {B2_MAX_TV} (apart early in training). Both must hold; the unit "
          "fails if either lies wholly on the other side. A checkpoint on a sample so small that even a perfectly "
          f"aligned model would measure a distance of {B2_MAX_TV} (rankscale.analysis.dynamics.aligned_distance) "
          "cannot show the two apart or close: an early one is not read, and a series whose last checkpoint, or "
          "every early one, is such cannot test the claim. Why: the paper claims a course, not an end state "
          "(“early in training, the two distributions diverge significantly; after sufficient training, they become "
          "almost indistinguishable”, its Fig. 6 drawn at steps 0, 16, 128 and 10,000), and its early divergence "
          "is the stretch where p_e has concentrated (EE is reduced first, B2.4) while q_e has not yet followed. "
          "At initialisation both are nearly flat (B2.5: the untrained model ranks at random and scores nearly "
          "alike), so a TV at step 0 as low as at the end, down to what sampling alone gives, is what the claim "
          "expects there and neither holds nor fails it; but closeness at the end alone, which the untrained "
          "model meets too, does not show that training brought q_e to p_e, so the rule demands the early "
          f"divergence with it (Fig. 6's early panels are this contrast, so they have no row of their own). The "
          f"paper gives no number; TV < {B2_MAX_TV} means no set of ranks gets probabilities more than "
          f"{B2_MAX_TV} apart. Every final model's TV is shown beside it (most have no checkpoints, so no "
          "course): not counted.",
          "qualitative (Fig. 6)", needs=("checkpoints",)),
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
                  "reduces it first (paper B, §3.2)", "definitional",
          f"{_SERIES} with a step-0 checkpoint: EE(0) − max(SA(0), |Conf(0)|), read on its {INTERVAL} against 0 "
          f"({ONE_READING}). Why: the paper compares the components' sizes (Fig. 3 draws them as magnitudes); "
          "Confidence can be negative, so its magnitude is compared. Definitional: an untrained model ranks its "
          "targets nearly at random (B2.5), so EE starts near log V while the scores it has not yet learned leave "
          "SA and Confidence small; the lead follows from the initialisation, as B2.5 does.",
          "qualitative (§3.2)", needs=("checkpoints", "a step-0 checkpoint")),
)


SERIES_RULES = ("ee_falls", "sa_ends_down", "conf_rises", "ee_first", "uniform_at_init", "ee_largest_at_init")
RULE_CLAIMS = {"ee_falls": "B2.1", "sa_ends_down": "B2.2", "conf_rises": "B2.3", "ee_first": "B2.4",
               "uniform_at_init": "B2.5", "ee_largest_at_init": "B2.8"}  # the claim each series rule decides
# What a series needs for each rule to be tested on it, in words.
REQUIRES = {
    "ee_falls": "two checkpoints",
    "sa_ends_down": "two checkpoints",
    "conf_rises": "two checkpoints",
    "ee_first": "three checkpoints",
    "uniform_at_init": "a step-0 checkpoint",
    "ee_largest_at_init": "a step-0 checkpoint",
}


# ---------------------------------------------------------------------------------------------
# The rules on one series, one model

@dataclass(frozen=True)
class Check:
    """The outcome of one rule on one unit (a checkpoint series, a model).

    Attributes
    ----------
    holds : bool, UNDETERMINED or None
        Whether the rule holds there: True, False, ``UNDETERMINED`` where its interval crosses the
        threshold or is not defined (the one reading, ``rankscale.claims.base.read``); None where the
        unit cannot test it.
    value : float
        The number measured.
    low, high : float
        Its bootstrap interval (``bootstrap.interval``); NaN where the rule uses none or the
        interval is not defined.
    note : str
        What else the reader needs, in words.
    fragile : bool
        An interval the rule reads has an end at a threshold's edge (``rankscale.claims.base.Reading``).

    Examples
    --------
    >>> Check(None, note="needs three checkpoints").holds is None
    True
    >>> Check(UNDETERMINED, 0.1, -0.1, 0.3).reading
    Reading(outcome='undetermined', fragile=False)
    """

    holds: bool | str | None
    value: float = float("nan")
    low: float = float("nan")
    high: float = float("nan")
    note: str = ""
    fragile: bool = False

    @property
    def reading(self) -> Reading:
        """The outcome as ``judge`` takes it, with whether it is fragile."""
        return Reading(self.holds, self.fragile)


def _ends(bounds) -> tuple[float, float]:
    return bounds if bounds is not None else (float("nan"), float("nan"))


def below(value: float, replicates, threshold: float, level: float = bootstrap.LEVEL) -> Check:
    """Whether a quantity is shown to lie below ``threshold``, the one reading of its
    ``bootstrap.interval`` (``rankscale.claims.base.read`` with sign -1): wholly below it holds,
    wholly above it fails, across the threshold it is undetermined.

    Parameters
    ----------
    value : float
        The measured quantity.
    replicates : (n_boot,) floats
        The same quantity on bootstrap resamples.
    threshold : float
    level : float
        Of the interval.

    Returns
    -------
    Check
        ``holds`` ``UNDETERMINED``, with a note, where the interval holds the threshold (not
        shown either way) or is not defined (the quantity could not be computed on some resample).

    Examples
    --------
    >>> below(0.05, [0.04, 0.06], 0.1).holds, below(0.15, [0.13, 0.17], 0.1).holds
    (True, False)
    >>> below(0.09, [0.07, 0.11], 0.1).holds, below(0.09, [0.07, 0.11], 0.1).note
    ('undetermined', 'interval straddles 0.1: undetermined')
    """
    bounds = bootstrap.interval(value, replicates, level)
    if bounds is None:
        return Check(UNDETERMINED, float(value), note="not defined in every resample: undetermined")
    reading = read(bounds, threshold, -1)
    where = bootstrap.side(bounds, threshold)  # for the note's words only
    note = {-1: "below", 1: "above"}.get(where, "interval straddles")
    note = f"{note} {threshold:g}" + (": undetermined" if where == 0 else "")
    return Check(reading.outcome, float(value), *bounds, note, reading.fragile)


def _diff(values: Mapping[str, np.ndarray], boot: Mapping[str, np.ndarray], term: str, a: int, b: int, level: float):
    """term[b] - term[a]: the full-sample difference and its paired interval (or None)."""
    value = float(values[term][b] - values[term][a])
    return value, bootstrap.interval(value, boot[term][:, b] - boot[term][:, a], level)


def _ee_margin(values) -> np.ndarray:
    """EE - max(SA, |Conf|) at the first checkpoint, one value per row of ``values`` ({term: (r, m)})."""
    return values["EE"][:, 0] - np.maximum(values["SA"][:, 0], np.abs(values["Conf"][:, 0]))


def _other_part(values, a: int, b: int) -> np.ndarray:
    """(SA drop + Confidence rise) / CE drop over checkpoints a -> b, one value per row of
    ``values`` ({term: (r, m)}); NaN where CE does not drop (CE = EE + SA - Conf, so its drop is
    EE's drop + SA's drop + Confidence's rise)."""
    ee_drop, sa_drop = (values[t][:, a] - values[t][:, b] for t in ("EE", "SA"))
    conf_rise = values["Conf"][:, b] - values["Conf"][:, a]
    ce_drop = ee_drop + sa_drop + conf_rise
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ce_drop > 0, (sa_drop + conf_rise) / ce_drop, np.nan)


def _lead(v) -> np.ndarray:
    """EE's drop over the first interval minus the larger of SA's drop and Confidence's rise."""
    return (v["EE"][:, 0] - v["EE"][:, 1]) - np.maximum(v["SA"][:, 0] - v["SA"][:, 1], v["Conf"][:, 1] - v["Conf"][:, 0])


def series_checks(steps, values: Mapping[str, Sequence[float]], boot: Mapping[str, np.ndarray], vocab_size: int,
                  n_tokens: int, level: float = LEVEL, uniform_ratio: float = B2_UNIFORM_RATIO) -> dict[str, Check]:
    """Paper B's training-dynamics statements on one checkpoint series, with bootstrap intervals.

    Every interval is ``bootstrap.interval`` of the measured value and its paired replicates, read
    one way (``rankscale.claims.base.read``): wholly on the statement's side of 0 it holds, wholly on
    the other side it fails, across 0 (or not defined) it is ``UNDETERMINED``.

    - ``ee_falls`` (Fig. 3, "EE steadily decreases"): EE falls over every step between consecutive
      checkpoints and from the first to the last (each difference's interval below 0, all of them
      together, ``every``): a step within noise leaves the series undetermined, a rise fails it.
    - ``sa_ends_down`` (Fig. 3, "SA declines in the end"): SA at the last checkpoint is below the
      highest SA of the earlier checkpoints (the interval of the difference, against 0).
    - ``conf_rises`` (Fig. 3): Confidence at the last checkpoint is above the first.
    - ``ee_first`` (§3.2): over the first interval EE's drop exceeds both SA's drop and
      Confidence's rise (the interval of EE drop - the larger of the two, above 0), and SA and
      Confidence together carry a larger part of CE's drop from the second checkpoint to the last
      than over the first interval (the interval of the difference of parts, above 0; a resample
      in which CE does not drop leaves the part undefined and the rule undetermined); both must hold.
    - ``uniform_at_init`` (Fig. 4, "nearly uniform" at step 0): exp(EE(0) - ``uniform_entropy``)
      is at least ``uniform_ratio``: the untrained model spreads the targets over at least that
      share of the effective number of ranks that random ranking reaches on the same sample (the
      point estimate decides).
    - ``ee_largest_at_init`` (§3.2, "EE has the largest initial value"): at step 0, EE exceeds SA
      and |Conf| (the interval of EE - max(SA, |Conf|), above 0).

    Parameters
    ----------
    steps : (m,) ints
        Training steps, increasing.
    values : mapping
        ``{term: (m,)}``: full-sample EE, SA and Conf (``terms_of``) of each checkpoint.
    boot : mapping
        ``{term: (n_boot, m)}``: the same on paired resamples (``resampled_terms``).
    vocab_size : int
        The model's vocabulary size V.
    n_tokens : int
        Targets per checkpoint.
    level : float
        Of every interval.
    uniform_ratio : float
        The "nearly uniform" threshold.

    Returns
    -------
    dict
        ``{rule: Check}`` keyed by ``SERIES_RULES``; ``holds`` is None where the series lacks what the
        rule needs (``REQUIRES``), ``UNDETERMINED`` where an interval does not decide.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> values = {"EE": np.array([4.6, 3.0]), "SA": np.array([0.3, 0.1]), "Conf": np.array([0.0, 0.2])}
    >>> boot = {t: v + rng.normal(0, 0.01, (100, 2)) for t, v in values.items()}
    >>> checks = series_checks([0, 1000], values, boot, vocab_size=100, n_tokens=5000)
    >>> {rule: c.holds for rule, c in checks.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'ee_falls': True, 'sa_ends_down': True, 'conf_rises': True, 'ee_first': None,
     'uniform_at_init': True, 'ee_largest_at_init': True}
    """
    steps = np.asarray(steps)
    values = {t: np.asarray(values[t], np.float64) for t in ("EE", "SA", "Conf")}
    m = len(steps)
    if m < 1 or np.any(np.diff(steps) <= 0) or any(len(v) != m for v in values.values()) \
            or any(np.shape(boot[t])[1:] != (m,) for t in values):
        raise ValueError(f"need one value per checkpoint, at increasing steps; got steps {steps.tolist()}")
    checks = {rule: Check(None, note=f"needs {REQUIRES[rule]}") for rule in SERIES_RULES}
    if m >= 2:
        value, bounds = _diff(values, boot, "EE", 0, m - 1, level)
        falls = {f"{steps[j]:,}→{steps[j + 1]:,}": read(_diff(values, boot, "EE", j, j + 1, level)[1], sign=-1,
                                                      missing=UNDETERMINED) for j in range(m - 1)}
        checks["ee_falls"] = _check(every(read(bounds, sign=-1, missing=UNDETERMINED), *falls.values()), value,
                                    bounds, step_note(falls))
        peak = int(np.argmax(values["SA"][:-1]))
        value, bounds = _diff(values, boot, "SA", peak, m - 1, level)
        checks["sa_ends_down"] = _check(read(bounds, sign=-1, missing=UNDETERMINED), value, bounds,
                                        f"against the peak at step {steps[peak]:,}")
        value, bounds = _diff(values, boot, "Conf", 0, m - 1, level)
        checks["conf_rises"] = _check(read(bounds, missing=UNDETERMINED), value, bounds)
    if m >= 3:
        point = {t: v[None, :] for t, v in values.items()}
        lead = bootstrap.interval(float(_lead(point)[0]), _lead(boot), level)
        value = float((_other_part(point, 1, m - 1) - _other_part(point, 0, 1))[0])
        later = bootstrap.interval(value, _other_part(boot, 1, m - 1) - _other_part(boot, 0, 1), level)
        notes = [f"first-interval lead of EE [{_ends(lead)[0]:.3g}, {_ends(lead)[1]:.3g}] nats"]
        if later is None:
            notes.append("CE does not drop in every resample of both stretches: parts not defined")
        checks["ee_first"] = _check(every(read(lead, missing=UNDETERMINED), read(later, missing=UNDETERMINED)), value, later, "; ".join(notes))
    if steps[0] == 0:
        ratio = math.exp(values["EE"][0] - uniform_entropy(n_tokens, vocab_size))
        checks["uniform_at_init"] = Check(bool(ratio >= uniform_ratio), ratio,
                                          note=f"EE(0) s.d. over resamples {np.std(boot['EE'][:, 0]):.3f} nats")
        point = {t: v[None, :1] for t, v in values.items()}
        margin = bootstrap.interval(float(_ee_margin(point)[0]), _ee_margin({t: boot[t][:, :1] for t in values}), level)
        checks["ee_largest_at_init"] = _check(read(margin, missing=UNDETERMINED), float(_ee_margin(point)[0]), margin)
    return checks


RISE, WITHIN_NOISE = "rise at", "no fall shown at"  # how ``step_note`` names B2.1's failing and undecided steps


def step_note(falls: Mapping[str, Reading]) -> str:
    """B2.1's note on a series: the steps whose EE rises (``RISE``) and those whose change is within noise
    (``WITHIN_NOISE``), by their steps' names; "a fall at every step" where none is either.

    ``falls`` maps each step's name to the reading of its change of EE against 0, the claim's side below
    (``read`` with sign -1).

    >>> falls = {"0→16": (-0.3, -0.1), "16→128": (0.1, 0.3), "128→1,000": (-0.1, 0.1)}  # each step's interval
    >>> step_note({step: read(bounds, sign=-1) for step, bounds in falls.items()})
    'rise at 16→128; no fall shown at 128→1,000'
    >>> step_note({"0→16": read((-0.3, -0.1), sign=-1)})
    'a fall at every step'
    """
    rises = [step for step, r in falls.items() if r.outcome is False]
    flat = [step for step, r in falls.items() if undetermined(r.outcome)]
    named = [f"{words} {', '.join(steps)}" for words, steps in ((RISE, rises), (WITHIN_NOISE, flat)) if steps]
    return "; ".join(named) or "a fall at every step"


def _check(reading: Reading, value: float, bounds: tuple[float, float] | None, note: str = "") -> Check:
    """A ``Check`` of a rule's ``reading``, the value measured and its interval."""
    return Check(reading.outcome, value, *_ends(bounds), note, reading.fragile)



def resample_series(samples: Sequence[Mapping[str, np.ndarray]], n_boot: int, seed: int = 0,
                    min_count: int = 1, by: str | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The terms ``series_checks`` reads, of one model's checkpoints, from their per-token records.

    The checkpoints are resampled together (paired) when they predict the same targets, each on
    its own otherwise.

    Parameters
    ----------
    samples : sequence of m mappings
        Per-token ``logp``, ``gt`` and (to tell whether they can be paired) ``target`` of each
        checkpoint, in training order.
    n_boot, seed : int
        Number of bootstrap replicates, and their seed.
    min_count : int
        For TV (``terms_of``); TV is not used by the rules.
    by : str, optional
        Key of per-token group ids (``"document"``, ``Context.by``) drawn whole; None: single tokens.

    Returns
    -------
    values : dict of str to (m,) ndarray
        EE, SA and Conf of each checkpoint on all its tokens.
    boot : dict of str to (n_boot, m) ndarray
        The same terms (and CE, TV) on the paired resamples (``rankscale.analysis.dynamics.resampled_terms``).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> target = rng.integers(0, 50, 2000)
    >>> untrained = {"logp": np.full(2000, -np.log(50)), "gt": rng.integers(0, 50, 2000), "target": target}
    >>> gt = np.minimum(rng.geometric(0.4, 2000) - 1, 49)
    >>> trained = {"logp": np.log(0.6 / (gt + 1)), "gt": gt, "target": target}
    >>> values, boot = resample_series([untrained, trained], n_boot=20)
    >>> checks = series_checks([0, 500], values, boot, 50, 2000)
    >>> checks["ee_falls"].holds, checks["uniform_at_init"].holds, checks["ee_first"].note
    (True, True, 'needs three checkpoints')
    """
    samples = [{key: np.asarray(s[key]) for key in ("logp", "gt", "target", *([by] if by else [])) if key in s}
               for s in samples]
    paired = all("target" in s and np.array_equal(s["target"], samples[0]["target"]) for s in samples)
    terms = [terms_of(s["logp"], s["gt"], min_count) for s in samples]
    values = {t: np.array([x[t] for x in terms]) for t in ("EE", "SA", "Conf")}
    return values, resampled_terms(samples, n_boot, seed, paired=paired, min_count=min_count, by=by)


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class Series:
    """One checkpointed model's checkpoints on one corpus (a unit of B2.1-B2.5 and B2.8).

    Attributes
    ----------
    corpus, family, model : str
    params, vocab, tokens : int
        Its non-embedding parameters, vocabulary size V and targets per checkpoint.
    steps : (m,) ndarray of int
        The checkpoints' training steps, increasing.
    terms : tuple of m rankscale.analysis.metrics.Decomposition
        Each checkpoint's decomposition (for the figures and tables).
    values, boot : dict of str to ndarray
        What ``series_checks`` reads: EE, SA and Conf of each checkpoint, (m,), and on the paired bootstrap
        resamples, (n_boot, m) (``resample_series``).
    """

    corpus: str
    family: str
    model: str
    params: int
    vocab: int
    tokens: int
    steps: np.ndarray
    terms: tuple
    values: Mapping[str, np.ndarray]
    boot: Mapping[str, np.ndarray]

    @property
    def unit(self) -> Unit:
        return Unit(self.corpus, self.family, model=self.model)

    def checks(self, context: Context) -> dict[str, Check]:
        """``series_checks`` of this series at the context's level, keyed by ``SERIES_RULES``."""
        return series_checks(self.steps, self.values, self.boot, self.vocab, self.tokens, context.level)

    def term(self, name: str) -> np.ndarray:
        """(m,) CE, EE, SA or Conf of each checkpoint (``metrics.Decomposition.terms``), nats."""
        return np.array([dec.terms()[name] for dec in self.terms])

    def tv(self) -> np.ndarray:
        """(m,) TV between p_e and q_e over the ranks held by ``B2_MIN_GROUP`` targets or more, per checkpoint."""
        return np.array([alignment_distance(dec, B2_MIN_GROUP) for dec in self.terms])

    def compared(self) -> np.ndarray:
        """(m,) the share of targets those ranks hold, per checkpoint."""
        return np.array([head_share(dec, B2_MIN_GROUP) for dec in self.terms])

    def floors(self) -> np.ndarray:
        """(m,) the TV a perfectly aligned model would measure on each checkpoint's p_e and targets
        (``dynamics.aligned_distance``): what sampling alone gives."""
        return np.array([aligned_distance(dec, int(dec.n_e.sum()), B2_MIN_GROUP) for dec in self.terms])

    def at(self, step: int) -> metrics.Decomposition:
        """The decomposition of the checkpoint at ``step``."""
        return self.terms[list(self.steps).index(step)]


@dataclass(frozen=True)
class Alignment:
    """One final model's distance between its score distribution q_e and its RBE distribution p_e (B2.6's unit).

    Attributes
    ----------
    corpus, family, model : str
    terms : rankscale.analysis.metrics.Decomposition
        Its decomposition on all its tokens.
    replicates : (n_boot,) ndarray
        TV over the ranks held by ``B2_MIN_GROUP`` targets or more on bootstrap resamples of its documents.
    floor : float
        The TV a perfectly aligned model would measure on as many tokens (``dynamics.aligned_distance``).
    """

    corpus: str
    family: str
    model: str
    terms: metrics.Decomposition
    replicates: np.ndarray
    floor: float

    @property
    def unit(self) -> Unit:
        return Unit(self.corpus, self.family, model=self.model)

    @property
    def tv(self) -> float:
        """TV over the ranks held by ``B2_MIN_GROUP`` targets or more."""
        return alignment_distance(self.terms, B2_MIN_GROUP)

    @property
    def share(self) -> float:
        """The share of targets those ranks hold."""
        return head_share(self.terms, B2_MIN_GROUP)


@dataclass(frozen=True)
class Break:
    """Where the mean output probability breaks off around targets at one RBE, for one model (B2.7, Fig. 5).

    Attributes
    ----------
    corpus, family, model : str
    e : int
        The targets' RBE, one of ``B2_FIG5_RBES``.
    predictions : int
        How many targets have it (at least one).
    probs : (k,) ndarray
        The mean probability of the best, second-best, ... token over them (``metrics.top_rank_probs``).
    after : int
        The 1-based position after which it falls most steeply (``metrics.sharpest_drop``).
    """

    corpus: str
    family: str
    model: str
    e: int
    predictions: int
    probs: np.ndarray
    after: int


@dataclass(frozen=True)
class Dynamics:
    """Chapter B2's evidence.

    Attributes
    ----------
    corpora, families : tuple of str
        The chapter's corpora and the set's families, in order.
    series : tuple of Series
        Corpus by corpus, every checkpointed model in set order.
    finals : tuple of Alignment
        Corpus by corpus, every final model of every family.
    breaks : tuple of Break
        Family by family, each RBE of ``B2_FIG5_RBES``, corpus by corpus: the family's largest final model, where
        it has targets at that RBE.
    largest : mapping of str to str
        Each family's largest final model on the first corpus (Fig. 5's model).
    """

    corpora: tuple[str, ...]
    families: tuple[str, ...]
    series: tuple[Series, ...]
    finals: tuple[Alignment, ...]
    breaks: tuple[Break, ...]
    largest: Mapping[str, str]

    def checkpointed(self, family: str) -> list[str]:
        """The family's checkpointed models (smallest first), on the first corpus."""
        return [s.model for s in self.series if s.corpus == self.corpora[0] and s.family == family]

    def steps(self, family: str, model: str) -> list[int]:
        """The steps a model's checkpoints were saved at, on the first corpus."""
        return [int(step) for step in self.series_of(self.corpora[0], family, model).steps]

    def series_of(self, corpus: str, family: str, model: str) -> Series:
        return next(s for s in self.series if (s.corpus, s.family, s.model) == (corpus, family, model))

    @property
    def with_checkpoints(self) -> list[str]:
        return [family for family in self.families if self.checkpointed(family)]

    @property
    def without_checkpoints(self) -> list[str]:
        return [family for family in self.families if not self.checkpointed(family)]


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def checkpoint_series(corpus: str, checkpoints: Sequence[Run], context: Context) -> Series:
    """One model's checkpoints on ``corpus``, decomposed and resampled together (``resample_series``).

    Parameters
    ----------
    corpus : str
    checkpoints : sequence of rankscale.records.runs.Run
        The model's checkpoints on ``corpus``, in training order.
    context : Context
        Its ``n_boot`` and ``seed``.

    Returns
    -------
    Series
    """
    first = checkpoints[0]
    values, boot = resample_series([{**run.records.arrays(), BY: text_units(run.records)} for run in checkpoints],
                                   context.n_boot, context.seed,
                                   B2_MIN_GROUP, context.by)
    return Series(corpus, first.family, first.name, first.non_embedding, first.vocab_size, len(first.records),
                  np.array([run.step for run in checkpoints]),
                  tuple(metrics.ce_decomposition(run.records.logp, run.records.gt) for run in checkpoints), values,
                  boot)


def alignment(corpus: str, run: Run, context: Context) -> Alignment:
    """One final model's decomposition, its TV on ``context.n_boot`` resamples of its text (whole documents,
    ``context.by``), and the TV a perfectly aligned model would measure on as many tokens (B2.6's evidence)."""
    rec = run.records
    dec = metrics.ce_decomposition(rec.logp, rec.gt)
    tokens = {"logp": np.asarray(rec.logp), "gt": np.asarray(rec.gt), BY: np.asarray(text_units(rec))}
    replicates = resampled_terms([tokens], context.n_boot, context.seed, min_count=B2_MIN_GROUP,
                                 by=context.by)["TV"][:, 0]
    return Alignment(corpus, run.family, run.name, dec, replicates,
                     aligned_distance(dec, int(dec.n_e.sum()), B2_MIN_GROUP))


def measure(chapter: Chapter, context: Context) -> Dynamics:
    """Chapter B2's evidence: every checkpoint series (``checkpoint_series``), every final model's alignment
    (``alignment``), and the break of each family's largest final model around targets at each RBE of
    ``B2_FIG5_RBES``.

    Parameters
    ----------
    chapter : Chapter
        The families' final models and their checkpoints per corpus.
    context : Context
        The bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    Dynamics
    """
    series = []
    for corpus in chapter.corpora:
        by_model: dict[tuple[str, str], list[Run]] = {}
        for run in chapter.checkpoint_runs[corpus]:
            by_model.setdefault((run.family, run.name), []).append(run)
        series += [checkpoint_series(corpus, sorted(ckpts, key=lambda run: run.step), context)
                   for ckpts in by_model.values()]
    finals = tuple(alignment(corpus, run, context) for corpus in chapter.corpora
                   for run in chapter.family_runs[corpus])
    largest = {corpus: {family: members[-1] for family, members in by_family(chapter.family_runs[corpus]).items()}
               for corpus in chapter.corpora}
    breaks = []
    for family in chapter.families:
        for e in B2_FIG5_RBES:
            for corpus in chapter.corpora:
                rec = largest[corpus][family].records
                n_e = int(np.sum(rec.gt == e))
                if n_e == 0:  # no target at this rank: nothing to average
                    continue
                probs = metrics.top_rank_probs(rec.top_logp, rec.gt, e)
                breaks.append(Break(corpus, family, largest[corpus][family].name, e, n_e, probs,
                                    metrics.sharpest_drop(probs)))
    first = chapter.corpora[0]
    return Dynamics(tuple(chapter.corpora), tuple(chapter.families), tuple(series), finals, tuple(breaks),
                    {family: run.name for family, run in largest[first].items()})


# ---------------------------------------------------------------------------------------------
# Decide: the verdicts

def series_verdict(rule: str, evidence: Dynamics, context: Context,
                   measured: Callable[[list[Check]], str]) -> Verdict:
    """The verdict of one of ``SERIES_RULES`` over every checkpoint series (B2.1-B2.5, B2.8): each series a unit,
    each family without checkpoints a unit that cannot test it.

    Parameters
    ----------
    rule : str
        One of ``SERIES_RULES``.
    evidence : Dynamics
    context : Context
        The intervals' level.
    measured : callable
        The tested series' checks -> what was measured, in words, for the "ours" column.

    Returns
    -------
    Verdict
    """
    results = {s.unit: s.checks(context)[rule] for s in evidence.series}
    outcomes = {unit: check.reading for unit, check in results.items()}
    outcomes |= {Unit(family=family): None for family in evidence.without_checkpoints}
    tested = {unit: check for unit, check in results.items() if check.holds is not None}
    if not tested:
        return judge(RULE_CLAIMS[rule], outcomes, "", why_not="no family of this set has training checkpoints"
                     if not results else f"no checkpoint series has {REQUIRES[rule]}")
    families = dict.fromkeys(unit.family for unit in tested)
    per_family = ", ".join(f"{family} {sum(c.holds is True for u, c in tested.items() if u.family == family)}/"
                           f"{sum(u.family == family for u in tested)}" for family in families)
    return judge(RULE_CLAIMS[rule], outcomes, f"holds in {sum(c.holds is True for c in tested.values())}/"
                 f"{len(tested)} series ({per_family}); " + measured(list(tested.values())))


def ee_falls_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.1: EE falls over every step between neighbouring checkpoints and from the first to the last."""
    return series_verdict("ee_falls", evidence, context, lambda checks: (
        f"EE change first → last checkpoint {span([c.value for c in checks], '+.3f')} nats; series with a rise "
        f"between neighbours: {sum(RISE in c.note for c in checks)}, with a step within noise: "
        f"{sum(WITHIN_NOISE in c.note for c in checks)}"))


def sa_ends_down_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.2: SA at the last checkpoint is below its peak."""
    return series_verdict("sa_ends_down", evidence, context, lambda checks: (
        f"SA change from its peak to the last checkpoint {span([c.value for c in checks], '+.3f')} nats"))


def conf_rises_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.3: Confidence at the last checkpoint is above the first."""
    return series_verdict("conf_rises", evidence, context, lambda checks: (
        f"Confidence change first → last checkpoint {span([c.value for c in checks], '+.3f')} nats"))


def ee_first_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.4: EE is reduced first, SA and Confidence later."""
    return series_verdict("ee_first", evidence, context, lambda checks: (
        "gain of the SA + Conf part of CE's drop, later stretch over first interval: "
        + span([c.value for c in checks if np.isfinite(c.value)] or [c.value for c in checks], "+.2f")))


def uniform_at_init_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.5: at step 0 the targets spread over nearly as many ranks as random ranking's."""
    return series_verdict("uniform_at_init", evidence, context, lambda checks: (
        f"effective ranks at step 0 as a share of random ranking's: {min(c.value for c in checks):.3f} to "
        f"{max(c.value for c in checks):.3f} (threshold {B2_UNIFORM_RATIO})"))


def ee_largest_at_init_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.8: at step 0, EE exceeds SA and |Conf|."""
    return series_verdict("ee_largest_at_init", evidence, context, lambda checks: (
        "EE(0) − max(SA(0), |Conf(0)|) " + span([c.value for c in checks], "+.3f") + " nats"))


def aligned(model: Alignment, context: Context) -> Check:
    """B2.6 on one final model: its TV's interval read against ``B2_MAX_TV`` (``below``: wholly below holds,
    wholly above fails, across undetermined); ``holds`` None (the sample cannot test it) where even a perfectly
    aligned model would not measure a TV below it on as many tokens.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(2)
    >>> rbe = np.minimum(rng.geometric(0.3, 4000) - 1, 99)
    >>> logp = np.log(np.bincount(rbe)[rbe] / len(rbe))  # each target scored at its rank's frequency
    >>> context = Context({}, n_boot=20)
    >>> records = SimpleNamespace(logp=logp, gt=rbe, document=np.arange(4000) // 100)  # 40 documents
    >>> model = alignment("pydocs", SimpleNamespace(family="NeoX", name="d16", records=records), context)
    >>> check = aligned(model, context)
    >>> check.holds, round(check.value, 6), model.floor < B2_MAX_TV
    (True, 0.0, True)
    """
    check = below(model.tv, model.replicates, B2_MAX_TV, context.level)
    if not model.floor < B2_MAX_TV:
        return Check(None, check.value, check.low, check.high, "sample too small: the floor reaches the threshold")
    return check


def contrast(tv: Sequence[float], replicates: np.ndarray, floors: Sequence[float], level: float = LEVEL
             ) -> tuple[Reading, int]:
    """B2.6 on one checkpoint series: TV at the last checkpoint read below ``B2_MAX_TV`` and at the early checkpoint
    farthest apart (the largest TV before the last) read above it, both of which must hold (``every``); the
    checkpoints' replicates are paired. A checkpoint whose sampling floor reaches the bar can show neither: an
    early one is passed over.

    Parameters
    ----------
    tv : (m,) floats
        TV at each checkpoint, in training order.
    replicates : (n_boot, m) ndarray
        The same on the resamples.
    floors : (m,) floats
        The TV a perfectly aligned model would measure on as many tokens as each checkpoint's (``Series.floors``).
    level : float

    Returns
    -------
    reading : Reading
        ``Reading(None)`` with fewer than two checkpoints, or where the last checkpoint's floor or every early
        one's reaches the bar; a reading is ``UNDETERMINED`` where its TV has no interval.
    early : int
        The index of the early checkpoint read (-1 where none is).

    Examples
    --------
    >>> reps = np.array([[0.30, 0.05], [0.32, 0.07]])
    >>> contrast([0.31, 0.06], reps, [0.02, 0.02])
    (Reading(outcome=True, fragile=False), 0)
    >>> contrast([0.06, 0.06], reps - [0.25, 0.0], [0.02, 0.02])[0].outcome  # close already at the start: no contrast
    False
    >>> contrast([0.31, 0.06], reps, [0.02, B2_MAX_TV])[0].outcome is None
    True
    >>> contrast([0.31, 0.2, 0.06], np.array([[0.30, 0.19, 0.05], [0.32, 0.21, 0.07]]), [0.3, 0.05, 0.02])
    (Reading(outcome=True, fragile=False), 1)
    """
    tv, replicates, floors = (np.asarray(x, np.float64) for x in (tv, replicates, floors))
    readable = np.isfinite(tv[:-1]) & (floors[:-1] < B2_MAX_TV)  # NaN floors compare False
    if len(tv) < 2 or not floors[-1] < B2_MAX_TV or not readable.any():
        return Reading(None), -1
    early = int(np.argmax(np.where(readable, tv[:-1], -np.inf)))
    apart = read(bootstrap.interval(tv[early], replicates[:, early], level), B2_MAX_TV, 1, missing=UNDETERMINED)
    close = read(bootstrap.interval(tv[-1], replicates[:, -1], level), B2_MAX_TV, -1, missing=UNDETERMINED)
    return every(apart, close), early


def series_contrast(s: Series, context: Context) -> tuple[Reading, int]:
    """``contrast`` of one checkpoint series, with each checkpoint's floor (``Series.floors``)."""
    if len(s.terms) < 2:
        return Reading(None), -1
    return contrast(s.tv(), s.boot["TV"], s.floors(), context.level)


def alignment_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.6: on every checkpoint series, p_e and q_e apart early and close at the end (``series_contrast``); TV at
    step 0 with its sampling floor, and every final model's TV against ``B2_MAX_TV`` (``aligned``), shown beside,
    not counted.

    Parameters
    ----------
    evidence : Dynamics
    context : Context
        The intervals' level.

    Returns
    -------
    Verdict
    """
    outcomes, texts = {}, []
    for s in evidence.series:
        reading, early = series_contrast(s, context)
        outcomes[s.unit] = reading
        if early >= 0:
            tv = s.tv()
            texts.append(f"{s.unit.label}: {tv[early]:.3f} at step {int(s.steps[early]):,} → {tv[-1]:.3f} at step "
                         f"{int(s.steps[-1]):,}")
    outcomes.update({Unit(family=family): None for family in evidence.without_checkpoints})
    at_init = [(float(s.tv()[0]), float(s.floors()[0])) for s in evidence.series if len(s.terms) and s.steps[0] == 0]
    beside = (f"; at step 0 (untrained, both nearly flat) TV {span([tv for tv, _ in at_init], '.3f')}, where sampling "
              f"alone gives {span([floor for _, floor in at_init], '.3f')}" if at_init else "")
    finals = evidence.finals
    if finals:
        checks = [aligned(model, context) for model in finals]
        tv, share = [m.tv for m in finals], [m.share for m in finals]
        beside += (f"; every final model, not counted (no control): TV {np.nanmin(tv):.3f} to {np.nanmax(tv):.3f}, "
                  f"below {B2_MAX_TV} with the whole interval on {sum(c.holds is True for c in checks)} of "
                  f"{sum(c.holds is not None for c in checks)}, over ranks holding {np.nanmin(share):.0%} to "
                  f"{np.nanmax(share):.0%} of the targets")
    return judge("B2.6", outcomes,
                 (f"TV between p_e and q_e, the early checkpoint farthest apart → the last (threshold {B2_MAX_TV}): "
                  + "; ".join(texts) if texts else "") + beside,
                 why_not="no checkpoint series has two checkpoints on samples that can show the two apart and "
                         "close" if evidence.with_checkpoints else "no family of this set has training checkpoints",
                 why_undetermined=f"every series has an interval across {B2_MAX_TV} early or at the end")


def break_moves(by_e: Mapping[int, int | None]) -> bool | None:
    """B2.7 on one model: for targets at each RBE e of ``B2_FIG5_RBES``, the break sits at e+1 or e+2 (the
    caption's and the text's reading of Fig. 5), at the same offset from the target for every e: a break that
    stays put while the target moves fails. None where the model has no target at some e.

    Examples
    --------
    >>> break_moves({1: 3, 3: 5}), break_moves({1: 3, 3: 3}), break_moves({1: 2})
    (True, False, None)
    """
    if any(by_e.get(e) is None for e in B2_FIG5_RBES):
        return None
    offsets = {by_e[e] - e for e in B2_FIG5_RBES}
    return len(offsets) == 1 and offsets <= {1, 2}


def break_follows_target(breaks: Mapping[Unit, Mapping[int, int | None]]) -> Verdict:
    """B2.7: the output probability breaks off just below the target, and the break moves with it
    (``break_moves``), on every unit.

    Parameters
    ----------
    breaks : mapping of Unit to mapping of int to int or None
        A model on a corpus -> {e: the break's position (1-based), None or absent where the model has no
        target at RBE e}.

    Returns
    -------
    Verdict
        A unit missing some e is untested, and says which.

    Examples
    --------
    >>> break_follows_target({Unit("pydocs", "NeoX", model="d160"): {1: 3, 3: 5}}).verdict
    'reproduced'
    """
    outcomes, texts = {}, []
    for unit, by_e in breaks.items():
        outcomes[unit] = break_moves(by_e)
        missing = [e for e in B2_FIG5_RBES if by_e.get(e) is None]
        texts.append(f"{unit.label}: " + ", ".join(f"rank {e + 1} after {p}" for e, p in by_e.items() if p is not None)
                     + (f" (no target at RBE {', '.join(map(str, missing))})" if missing else ""))
    return judge("B2.7", outcomes, "; ".join(texts), why_not="no final model has targets at RBE 1 or 3")


def break_verdict(evidence: Dynamics, context: Context) -> Verdict:
    """B2.7 on each family's largest final model on every corpus (``break_follows_target``).

    Parameters
    ----------
    evidence : Dynamics
    context : Context
        Unused; there for the one signature of every rule.

    Returns
    -------
    Verdict
    """
    breaks: dict[Unit, dict[int, int | None]] = {}
    for b in evidence.breaks:
        breaks.setdefault(Unit(b.corpus, b.family, model=b.model), {})[b.e] = b.after
    for corpus in evidence.corpora:
        for family in evidence.families:
            breaks.setdefault(Unit(corpus, family, model=evidence.largest[family]), {})
    return break_follows_target(breaks)


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"B2.1": ee_falls_verdict, "B2.2": sa_ends_down_verdict, "B2.3": conf_rises_verdict, "B2.4": ee_first_verdict,
         "B2.5": uniform_at_init_verdict, "B2.6": alignment_verdict, "B2.7": break_verdict,
         "B2.8": ee_largest_at_init_verdict}


SPEC = ChapterSpec("B2", CLAIMS_B2, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables, and its headline for the findings

def steps_text(steps: Sequence[int]) -> str:
    """Training steps in words.

    >>> steps_text([0, 1000])
    '0, 1,000'
    """
    return ", ".join(f"{s:,}" for s in steps)


def checkpoints_note(evidence: Dynamics) -> str:
    """Which models of each family have checkpoints, at which steps, on how many tokens, in MyST."""
    lines = []
    for family in evidence.families:
        if family in evidence.without_checkpoints:
            lines.append(f"{family}: none, so its training dynamics are not testable on this set")
            continue
        described: dict[tuple[int, ...], list[str]] = {}
        for name in evidence.checkpointed(family):
            described.setdefault(tuple(evidence.steps(family, name)), []).append(name)
        tokens = sorted({s.tokens for s in evidence.series if s.corpus == evidence.corpora[0] and s.family == family})
        lines.append(f"{family}: " + "; ".join(f"{', '.join(names)} at steps {steps_text(steps)}"
                                                for steps, names in described.items())
                     + f" ({'/'.join(f'{t:,}' for t in tokens)} held-out tokens each on {evidence.corpora[0]})")
    return ("**Checkpoints** · " + " · ".join(lines)
            + ("" if evidence.with_checkpoints else
               ". **No family of this set has training checkpoints**: every training-dynamics claim of this "
               "chapter is not testable on it, and only Fig. 5, which needs a final model, is drawn."))


def no_checkpoints_note(figure: str, evidence: Dynamics) -> str:
    """What stands in for a figure that needs checkpoints, on a set without any.

    >>> no_checkpoints_note("Fig. 3", Dynamics(("pydocs",), ("NeoX",), (), (), (), {}))
    'No checkpoints, so no Fig. 3 on this set (NeoX: no training checkpoints in this model set).'
    """
    missing = "; ".join(f"{family}: no training checkpoints in this model set"
                        for family in evidence.without_checkpoints)
    return f"No checkpoints, so no {figure} on this set ({missing})."


def _pick_steps(steps: list[int], paper_steps: Sequence[int], fallback: Callable[[list[int]], list[int]]) -> list[int]:
    return list(paper_steps) if set(paper_steps) <= set(steps) else fallback(steps)


def picks(evidence: Dynamics) -> tuple[dict[str, tuple[str, list[int]]], dict[str, tuple[str, list[int]]]]:
    """The models and steps of Figs. 4 and 6 per family with checkpoints (paper B, Table 3, by position): Fig. 4 the
    smallest checkpointed model at ``PAPER_FIG4_STEPS`` where it has them, else its first, second-to-last and last;
    Fig. 6 the middle checkpointed model at ``PAPER_FIG6_STEPS`` where it has them, else every step.

    Returns
    -------
    fig4, fig6 : dict of str to (str, list of int)
        Family -> model and steps.
    """
    fig4, fig6 = {}, {}
    for family in evidence.with_checkpoints:
        names = evidence.checkpointed(family)
        small, middle = names[0], names[len(names) // 2]
        fig4[family] = (small, _pick_steps(evidence.steps(family, small), PAPER_FIG4_STEPS,
                                           lambda s: list(dict.fromkeys([s[0], s[-2], s[-1]] if len(s) > 2 else s))))
        fig6[family] = (middle, _pick_steps(evidence.steps(family, middle), PAPER_FIG6_STEPS, list))
    return fig4, fig6


def table3(evidence: Dynamics) -> pd.DataFrame:
    """Paper B's Table 3 on this set: for each training-dynamics figure and family, the corpora used and the
    models and checkpoints that stand in for the paper's (``picks``).

    Returns
    -------
    pandas.DataFrame
        Columns figure, family, data (ours), models and checkpoints; sorted by figure, families in order.
    """
    fig4, fig6 = picks(evidence)
    corpora, first = ", ".join(evidence.corpora), evidence.corpora[0]
    rows = []
    for family in evidence.families:
        names = evidence.checkpointed(family)
        if names:
            fig3_text = "; ".join(f"{name} @ steps {steps_text(evidence.steps(family, name))}" for name in names)
            fig4_text = f"{fig4[family][0]} (smallest checkpointed) @ steps {steps_text(fig4[family][1])}"
            fig6_text = f"{fig6[family][0]} (middle checkpointed) @ steps {steps_text(fig6[family][1])}"
        else:
            fig3_text = fig4_text = fig6_text = f"no checkpoints: {NOT_TESTABLE}"
        rows += [{"figure": "Fig. 3", "family": family, "data (ours)": corpora, "models and checkpoints": fig3_text},
                 {"figure": "Fig. 4", "family": family, "data (ours)": first, "models and checkpoints": fig4_text},
                 {"figure": "Fig. 5", "family": family, "data (ours)": corpora,
                  "models and checkpoints": f"{evidence.largest[family]} (largest), final model"},
                 {"figure": "Fig. 6", "family": family, "data (ours)": first, "models and checkpoints": fig6_text},
                 {"figure": "Fig. 6 (verdict)", "family": family, "data (ours)": corpora,
                  "models and checkpoints": "every final model"}]
    return pd.DataFrame(rows).sort_values("figure", kind="stable")


def checkpoints_table(evidence: Dynamics) -> pd.DataFrame:
    """Every checkpoint of every series, per corpus: parameters, step, CE, EE, SA and Conf (nats)."""
    return pd.DataFrame([{"corpus": s.corpus, "family": s.family, "model": s.model, "params": s.params,
                          "step": int(step), **dec.terms()} for s in evidence.series
                         for step, dec in zip(s.steps, s.terms)],
                        columns=["corpus", "family", "model", "params", "step", "CE", "EE", "SA", "Conf"])


def breaks_table(evidence: Dynamics) -> pd.DataFrame:
    """Where the mean output probability breaks off (``Break``), one row per model, corpus and target RBE."""
    return pd.DataFrame([{"family": b.family, "model": b.model, "corpus": b.corpus, "target RBE e": b.e,
                          "target position (1-based)": b.e + 1, "predictions": b.predictions,
                          "sharpest drop after position": b.after} for b in evidence.breaks],
                        columns=["family", "model", "corpus", "target RBE e", "target position (1-based)",
                                 "predictions", "sharpest drop after position"])


def threshold_text(context: Context) -> str:
    """B2.6's threshold and intervals in words.

    >>> threshold_text(Context({}, n_boot=200))[:62]
    'Threshold: TV below 0.1 (one observation tells the two distrib'
    """
    return (f"Threshold: TV below {B2_MAX_TV} (one observation tells the two distributions apart with probability "
            f"at most {(1 + B2_MAX_TV) / 2:.0%}), over the ranks held by at least {B2_MIN_GROUP} targets; "
            f"{LEVEL:.0%} intervals (TV ± {Z:.2f} standard deviations of its replicates) from "
            f"{context.n_boot} resamples of each model's evaluation documents, each drawn whole.")


def alignment_table(evidence: Dynamics, context: Context) -> pd.DataFrame:
    """Every final model per corpus (B2.6): SA (nats), TV over the well-sampled ranks with its interval, those
    ranks' share of targets, an aligned model's TV, TV over all ranks and ``aligned``'s note."""
    rows = []
    for model in evidence.finals:
        check = aligned(model, context)
        rows.append({"corpus": model.corpus, "family": model.family, "model": model.model,
                     "SA": model.terms.self_alignment, "TV": check.value, "TV low": check.low, "TV high": check.high,
                     "targets in the ranks compared": model.share, "TV if aligned": model.floor,
                     "TV, all ranks": alignment_distance(model.terms), "note": check.note})
    return pd.DataFrame(rows)


def shown_check(check: Check, ratio: bool = False) -> str:
    """A check in a table's cell: "yes"/"no"/"undecided" with the change and its interval, or the ratio; "—" where
    untested.

    >>> shown_check(Check(True, -0.5, -0.6, -0.4)), shown_check(Check(False, 0.95), ratio=True)
    ('yes: -0.500 [-0.600, -0.400]', 'no: 0.950')
    >>> shown_check(Check(UNDETERMINED, -0.1, -0.3, 0.1))
    'undecided: -0.100 [-0.300, +0.100]'
    """
    if check.holds is None:
        return "—"
    verdict = "undecided" if undetermined(check.holds) else "yes" if check.holds else "no"
    if ratio:
        return f"{verdict}: {check.value:.3f}"
    interval = f" [{check.low:+.3f}, {check.high:+.3f}]" if np.isfinite(check.low) else ""
    return f"{verdict}: {check.value:+.3f}{interval}"


def series_table(evidence: Dynamics, context: Context) -> pd.DataFrame:
    """Every checkpoint series under each of ``SERIES_RULES``, headed by its claim (``shown_check``)."""
    return pd.DataFrame([{"corpus": s.corpus, "family": s.family, "model": s.model,
                          **{f"{RULE_CLAIMS[rule]} {rule}": shown_check(check, rule == "uniform_at_init")
                             for rule, check in s.checks(context).items()}} for s in evidence.series])


def headline(evidence: Dynamics, context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): EE's change
    from the first checkpoint to the last over every series; none where no series has two checkpoints.

    Returns
    -------
    list of str
    """
    changes = [c.value for c in (s.checks(context)["ee_falls"] for s in evidence.series) if c.holds is not None]
    return [f"Across {len(changes)} checkpoint series, Error-Entropy changes by {span(changes, '+.2f')} nats from "
            "the first checkpoint to the last."] if changes else []
