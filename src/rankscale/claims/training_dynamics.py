"""Paper B's training-dynamics statements (chapter B2, §3.2-3.3, Figs. 3, 4 and 6) as rules, with
the sampling noise of a finite evaluation text.

``series_checks`` says, for one checkpoint series, whether each of paper B's statements holds
there (a ``Check``: the outcome, the number measured and its interval), or cannot be tested (too
few checkpoints, no step-0 checkpoint); ``REQUIRES`` says what each needs; ``check_series`` runs
it from the checkpoints' records, on the terms and resamples of ``rankscale.analysis.dynamics``.
``closeness`` tests Fig. 6's "almost indistinguishable" on one model against the floor that
sampling alone sets (``dynamics.aligned_distance``); ``below`` is its reading of an interval.
Every interval is ``rankscale.analysis.bootstrap.interval``, the measured value -+ z standard deviations of
the replicates (its docstring says why not percentiles). Only numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankscale.analysis import bootstrap
from rankscale.analysis.dynamics import aligned_distance, alignment_distance, resampled_terms, terms_of, uniform_entropy
from rankscale.analysis.metrics import ce_decomposition
from rankscale.claims.base import Verdict, judge
from rankscale.claims.paper_b import B2_FIG5_RBES

RULES = ("ee_falls", "sa_ends_down", "conf_rises", "ee_first", "uniform_at_init", "ee_largest_at_init")
RULE_CLAIMS = {"ee_falls": "B2.1", "sa_ends_down": "B2.2", "conf_rises": "B2.3", "ee_first": "B2.4",
               "uniform_at_init": "B2.5", "ee_largest_at_init": "B2.8"}  # the claim each rule decides
# What a series needs for each rule to be tested on it, in words.
REQUIRES = {
    "ee_falls": "two checkpoints",
    "sa_ends_down": "two checkpoints",
    "conf_rises": "two checkpoints",
    "ee_first": "three checkpoints",
    "uniform_at_init": "a step-0 checkpoint",
    "ee_largest_at_init": "a step-0 checkpoint",
}


@dataclass(frozen=True)
class Check:
    """The outcome of one rule on one unit (a checkpoint series, a model).

    Attributes
    ----------
    holds : bool or None
        Whether the rule holds there; None where the unit cannot test it.
    value : float
        The number measured.
    low, high : float
        Its bootstrap interval (``bootstrap.interval``); NaN where the rule uses none or the
        interval is not defined.
    note : str
        What else the reader needs, in words.

    Examples
    --------
    >>> Check(None, note="needs three checkpoints").holds is None
    True
    """

    holds: bool | None
    value: float = float("nan")
    low: float = float("nan")
    high: float = float("nan")
    note: str = ""


def _ends(bounds) -> tuple[float, float]:
    return bounds if bounds is not None else (float("nan"), float("nan"))


def below(value: float, replicates, threshold: float, level: float = bootstrap.LEVEL) -> Check:
    """Whether a quantity is shown to lie below ``threshold``: its ``bootstrap.interval`` lies
    wholly below it (``bootstrap.side`` -1).

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
        ``holds`` False, with a note, where the interval holds the threshold (not shown either
        way) or is not defined (the quantity could not be computed on some resample).

    Examples
    --------
    >>> below(0.05, [0.04, 0.06], 0.1).holds, below(0.09, [0.07, 0.11], 0.1).note
    (True, 'interval straddles 0.1: not shown')
    """
    bounds = bootstrap.interval(value, replicates, level)
    if bounds is None:
        return Check(False, float(value), note="not defined in every resample: not shown")
    where = bootstrap.side(bounds, threshold)
    note = {-1: "below", 1: "above"}.get(where, "interval straddles")
    note = f"{note} {threshold:g}" + (": not shown" if where == 0 else "")
    return Check(where == -1, float(value), *bounds, note)


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
                  n_tokens: int, level: float = bootstrap.LEVEL, uniform_ratio: float = 0.9) -> dict[str, Check]:
    """Paper B's training-dynamics statements on one checkpoint series, with bootstrap intervals.

    - ``ee_falls`` (Fig. 3, "EE steadily decreases"): EE at the last checkpoint is below EE at the
      first (the interval of the difference lies below 0), and no interval between consecutive
      checkpoints shows a rise (no interval of the difference lies wholly above 0).
    - ``sa_ends_down`` (Fig. 3, "SA declines in the end"): SA at the last checkpoint is below the
      highest SA of the earlier checkpoints (interval of the difference below 0).
    - ``conf_rises`` (Fig. 3): Confidence at the last checkpoint is above the first (interval above 0).
    - ``ee_first`` (§3.2): over the first interval EE's drop exceeds both SA's drop and
      Confidence's rise (interval of EE drop - the larger of the two above 0), and SA and
      Confidence together carry a larger part of CE's drop from the second checkpoint to the last
      than over the first interval (interval of the difference of parts above 0; a resample in
      which CE does not drop leaves the part undefined and the rule not shown).
    - ``uniform_at_init`` (Fig. 4, "nearly uniform" at step 0): exp(EE(0) - ``uniform_entropy``)
      is at least ``uniform_ratio``: the untrained model spreads the targets over at least that
      share of the effective number of ranks that random ranking reaches on the same sample.
    - ``ee_largest_at_init`` (§3.2, "EE has the largest initial value"): at step 0, EE exceeds SA
      and |Conf| (interval of EE - max(SA, |Conf|) above 0).

    Every interval is ``bootstrap.interval`` of the measured value and its paired replicates.

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
        ``{rule: Check}`` keyed by ``RULES``; ``holds`` is None where the series lacks what the
        rule needs (``REQUIRES``).

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
    checks = {rule: Check(None, note=f"needs {REQUIRES[rule]}") for rule in RULES}
    if m >= 2:
        value, bounds = _diff(values, boot, "EE", 0, m - 1, level)
        rises = [f"{steps[j]:,}→{steps[j + 1]:,}" for j in range(m - 1)
                 if bootstrap.side(_diff(values, boot, "EE", j, j + 1, level)[1]) == 1]
        checks["ee_falls"] = Check(bootstrap.side(bounds) == -1 and not rises, value, *_ends(bounds),
                                   "significant rise " + ", ".join(rises) if rises else "no significant rise")
        peak = int(np.argmax(values["SA"][:-1]))
        value, bounds = _diff(values, boot, "SA", peak, m - 1, level)
        checks["sa_ends_down"] = Check(bootstrap.side(bounds) == -1, value, *_ends(bounds),
                                       f"against the peak at step {steps[peak]:,}")
        value, bounds = _diff(values, boot, "Conf", 0, m - 1, level)
        checks["conf_rises"] = Check(bootstrap.side(bounds) == 1, value, *_ends(bounds))
    if m >= 3:
        point = {t: v[None, :] for t, v in values.items()}
        lead = bootstrap.interval(float(_lead(point)[0]), _lead(boot), level)
        value = float((_other_part(point, 1, m - 1) - _other_part(point, 0, 1))[0])
        later = bootstrap.interval(value, _other_part(boot, 1, m - 1) - _other_part(boot, 0, 1), level)
        notes = [f"first-interval lead of EE [{_ends(lead)[0]:.3g}, {_ends(lead)[1]:.3g}] nats"]
        if later is None:
            notes.append("CE does not drop in every resample of both stretches: parts not defined")
        checks["ee_first"] = Check(bootstrap.side(lead) == 1 and bootstrap.side(later) == 1, value, *_ends(later),
                                   "; ".join(notes))
    if steps[0] == 0:
        ratio = math.exp(values["EE"][0] - uniform_entropy(n_tokens, vocab_size))
        checks["uniform_at_init"] = Check(bool(ratio >= uniform_ratio), ratio,
                                          note=f"EE(0) s.d. over resamples {np.std(boot['EE'][:, 0]):.3f} nats")
        point = {t: v[None, :1] for t, v in values.items()}
        margin = bootstrap.interval(float(_ee_margin(point)[0]), _ee_margin({t: boot[t][:, :1] for t in values}), level)
        checks["ee_largest_at_init"] = Check(bootstrap.side(margin) == 1, float(_ee_margin(point)[0]), *_ends(margin))
    return checks


def check_series(steps, samples: Sequence[Mapping[str, np.ndarray]], vocab_size: int, n_boot: int,
                 uniform_ratio: float, min_count: int = 1, seed: int = 0) -> dict[str, Check]:
    """``series_checks`` of one model's checkpoints, from their per-token records.

    The checkpoints are resampled together (paired) when they predict the same targets, each on
    its own otherwise.

    Parameters
    ----------
    steps : (m,) ints
        Training steps, increasing.
    samples : sequence of m mappings
        Per-token ``logp``, ``gt`` and (to tell whether they can be paired) ``target`` of each
        checkpoint, in the order of ``steps``.
    vocab_size : int
        The model's vocabulary size V.
    n_boot, seed : int
        Number of bootstrap replicates, and their seed.
    uniform_ratio : float
        As in ``series_checks``.
    min_count : int
        For TV (``terms_of``); TV is not used by the rules.

    Returns
    -------
    dict
        ``{rule: Check}`` keyed by ``RULES``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> target = rng.integers(0, 50, 2000)
    >>> untrained = {"logp": np.full(2000, -np.log(50)), "gt": rng.integers(0, 50, 2000), "target": target}
    >>> gt = np.minimum(rng.geometric(0.4, 2000) - 1, 49)
    >>> trained = {"logp": np.log(0.6 / (gt + 1)), "gt": gt, "target": target}
    >>> checks = check_series([0, 500], [untrained, trained], 50, n_boot=20, uniform_ratio=0.9)
    >>> checks["ee_falls"].holds, checks["uniform_at_init"].holds, checks["ee_first"].note
    (True, True, 'needs three checkpoints')
    """
    samples = [{key: np.asarray(s[key]) for key in ("logp", "gt", "target") if key in s} for s in samples]
    paired = all("target" in s and np.array_equal(s["target"], samples[0]["target"]) for s in samples)
    terms = [terms_of(s["logp"], s["gt"], min_count) for s in samples]
    values = {t: np.array([x[t] for x in terms]) for t in ("EE", "SA", "Conf")}
    boot = resampled_terms(samples, n_boot, seed, paired=paired, min_count=min_count)
    return series_checks(steps, values, boot, vocab_size, len(samples[0]["logp"]), uniform_ratio=uniform_ratio)


def closeness(logp, rbe, threshold: float, n_boot: int, min_count: int = 1, seed: int = 0) -> tuple[Check, float]:
    """Whether one model's score distribution q_e is shown to lie within ``threshold`` of its RBE
    distribution p_e in total variation (paper B, Fig. 6: "almost indistinguishable").

    Parameters
    ----------
    logp : (n,) floats
        Log-probabilities of the targets.
    rbe : (n,) ints
        Their rank-based errors (``gt``).
    threshold : float
        The largest TV counted as indistinguishable.
    n_boot, seed : int
        Bootstrap replicates of the tokens, and their seed.
    min_count : int
        As in ``alignment_distance``.

    Returns
    -------
    check : Check
        ``below`` of the measured TV; ``holds`` None (the sample cannot test it) where even a
        perfectly aligned model would not measure a TV below ``threshold`` on this many tokens.
    floor : float
        That model's TV (``aligned_distance``).

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> rbe = np.minimum(rng.geometric(0.3, 4000) - 1, 99)
    >>> aligned = np.log(np.bincount(rbe)[rbe] / len(rbe))  # each target scored at its rank's frequency
    >>> check, floor = closeness(aligned, rbe, 0.1, n_boot=20, min_count=10)
    >>> check.holds, round(check.value, 6), floor < 0.1
    (True, 0.0, True)
    >>> closeness(aligned[:50], rbe[:50], 0.1, n_boot=20, min_count=10)[0].note  # fewer tokens, wider interval
    'interval straddles 0.1: not shown'
    """
    dec = ce_decomposition(logp, rbe)
    tv = alignment_distance(dec, min_count)
    replicates = resampled_terms([{"logp": np.asarray(logp), "gt": np.asarray(rbe)}], n_boot, seed,
                                 min_count=min_count)["TV"][:, 0]
    check = below(tv, replicates, threshold)
    floor = aligned_distance(dec, int(dec.n_e.sum()), min_count)
    if not floor < threshold:
        check = Check(None, tv, check.low, check.high, "sample too small: the floor reaches the threshold")
    return check, floor


def series_verdict(rule: str, results: Mapping[tuple[str, str, str], Mapping[str, Check]],
                   without_checkpoints: Sequence[str], measured: Callable[[list[Check]], str]) -> Verdict:
    """The verdict of one of ``RULES`` over every checkpoint series (B2.1-B2.5).

    Parameters
    ----------
    rule : str
        One of ``RULES``.
    results : mapping of (str, str, str) to mapping of str to Check
        (corpus, family, model) -> ``check_series`` of that series.
    without_checkpoints : sequence of str
        Families with no checkpoints: units that cannot test the rule.
    measured : callable
        The tested series' checks -> what was measured, in words, for the "ours" column.

    Returns
    -------
    Verdict

    Examples
    --------
    >>> results = {("pydocs", "NeoX", "d16"): {"ee_falls": Check(True, -0.5)},
    ...            ("pydocs", "NeoX", "d40"): {"ee_falls": Check(False, 0.1)}}
    >>> v = series_verdict("ee_falls", results, ["Llama"], lambda checks: "EE change")
    >>> v.key, v.verdict, v.ours
    ('B2.1', 'partly', 'holds in 1/2 series (NeoX 1/2); EE change (not tested on: Llama (no checkpoints))')
    """
    outcomes = {f"{corpus}/{family}: {name}": checks[rule].holds for (corpus, family, name), checks in results.items()}
    outcomes |= {f"{family} (no checkpoints)": None for family in without_checkpoints}
    tested = {key: checks[rule] for key, checks in results.items() if checks[rule].holds is not None}
    if not tested:
        return judge(RULE_CLAIMS[rule], outcomes, "", why_not="no family of this set has training checkpoints"
                     if not results else f"no checkpoint series has {REQUIRES[rule]}")
    families = dict.fromkeys(family for (_, family, _) in tested)
    per_family = ", ".join(f"{family} {sum(c.holds for (_, f, _), c in tested.items() if f == family)}/"
                           f"{sum(f == family for (_, f, _) in tested)}" for family in families)
    return judge(RULE_CLAIMS[rule], outcomes, f"holds in {sum(c.holds for c in tested.values())}/{len(tested)} "
                 f"series ({per_family}); " + measured(list(tested.values())))


def break_follows_target(breaks: Mapping[str, Mapping[int, int | None]]) -> Verdict:
    """B2.7: the output probability breaks off just below the target, and the break moves with it.

    On each unit, for targets at each RBE e of ``B2_FIG5_RBES``, the position after which the
    mean probability of the ranked tokens falls most steeply (``metrics.sharpest_drop``) must lie
    at e+1 or e+2 (the caption's and the text's reading of Fig. 5), at the same offset from the
    target for every e: a break that stays put while the target moves fails.

    Parameters
    ----------
    breaks : mapping of str to mapping of int to int or None
        Unit (corpus, family and model) -> {e: the break's position (1-based), None where the
        model has no target at RBE e}.

    Returns
    -------
    Verdict
        A unit missing some e is untested.

    Examples
    --------
    >>> break_follows_target({"pydocs/NeoX: d160": {1: 3, 3: 5}}).verdict
    'reproduced'
    >>> break_follows_target({"pydocs/NeoX: d160": {1: 3, 3: 3}}).verdict  # the break does not move
    'not reproduced'
    """
    outcomes = {}
    for unit, by_e in breaks.items():
        missing = [e for e in B2_FIG5_RBES if by_e.get(e) is None]
        if missing:
            outcomes[f"{unit} (no target at RBE {', '.join(map(str, missing))})"] = None
            continue
        offsets = {by_e[e] - e for e in B2_FIG5_RBES}
        outcomes[unit] = len(offsets) == 1 and offsets <= {1, 2}
    text = "; ".join(f"{unit}: " + ", ".join(f"rank {e + 1} after {p}" for e, p in by_e.items() if p is not None)
                     for unit, by_e in breaks.items())
    return judge("B2.7", outcomes, text, why_not="no final model has targets at RBE 1 or 3")
