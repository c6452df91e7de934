"""Chapter A4 of the claims stage, emergence from a smooth token-level law (paper A §5.1, eqs. 6-8, Fig. 7): its
grid of k and N, its thresholds and claims, its evidence (``SequenceSuccess``: one corpus and family's measured
success rates p_{N,k} of runs of N consecutive targets, their replicates on resampled evaluation documents, and
the fits read from them) and its two steps, ``measure`` (the chapter's runs to that evidence) and ``decide``
(the evidence to the chapter's verdicts), with the rule of each claim read on one case as a small function of its
own and the evidence laid out as the chapter's tables.

A4 grades its size claims case by case: a case is one corpus, family, k and (but for A4.4) N, a ``Unit`` whose
``setting`` is "k=10/N=4"; A4.5 reads every case of a corpus and family together, one unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, emergence, fit, metrics
from rankscale.analysis.bootstrap import INTERVAL, LEVEL, interval_text
from rankscale.analysis.emergence import SlopeGaps
from rankscale.analysis.fit import PowerLawFit
from rankscale.claims.base import (
    MIN_SIZES,
    UNDETERMINED,
    Claim,
    Reading,
    Unit,
    Verdict,
    every,
    index_claims,
    judge,
    left_out,
    no_family,
    outcome_of,
    read,
    undetermined,
)
from rankscale.claims.context import Chapter, Context, text_units
from rankscale.claims.paper_a import A_CLOSE, A_CLOSE_READING, ACROSS_EDGE, ACROSS_LAW, close, law_reading, law_rule
from rankscale.claims.spec import ChapterSpec
from rankscale.records.runs import Run, by_family, sizes

# The grid of k and N: paper A's code uses k from 1 to 10^4 and N = 1, 5, 10, 50, 100; here k stays well below
# the ladders' 4,096-token vocabulary, and N below the run lengths that small models almost never complete.
A4_KS = (1, 10, 100)
A4_WINDOW_LENGTHS = (1, 2, 4, 8, 16)  # the first must be 1: p_{1,k} is RBP_k, the token level
A4_MIN_R2 = 0.9  # paper A's own bar for a size law that holds (section 4.4: "R^2 above 0.9 when k < 1000")
A4_TRANSITION = (0.1, 0.9)  # the emergence transition runs from 10% to 90% success
A4_SHARPER = 0.9  # "sharper": the largest N's transition is narrower than 90% of that of N = 1
READS = ()  # the runs measure reads beside the families' final models (``load_chapter``'s keywords): none
TABLES = ()  # the papers' tables decide reads (``Context.tables``): none

# What A4's replicates resample: whole documents, said once in its rules
_A4_RESAMPLED = ("The evaluation text is resampled by whole documents, each with all its windows (runs never cross "
                 "a window, so neighbouring targets stay together), one resample for every model of a family, N and "
                 "k.")
_A4_WINDOWS = _A4_RESAMPLED + " A case where the data or some resample has no successful run is not tested."

CLAIMS_A4 = index_claims(
    Claim("A4.1", "Sequence-level error -log p_{N,k}, measured, follows a power law in model size for every k and N "
                  "(§5.1, Fig. 7: the fitted power laws 'align closely' with the data)", "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k in {A4_KS} and N in {A4_WINDOW_LENGTHS}: the "
          f"least-squares line of log(-log p_N,k) on log S is a falling power law, its R^2 and its slope each with "
          f"a {INTERVAL}, refitted on A4.2's replicates: {law_rule(A4_MIN_R2)}. Why: {A4_MIN_R2} is paper A's own "
          f"bar for a law (§4.4); the paper gives no R^2 here, and an interval keeps resampling noise from "
          f"deciding. " + _A4_RESAMPLED + " A case where some model never completes a run (p = 0, which has no "
          "logarithm) cannot test it; one where some resample leaves a model without a run (or with nothing but "
          "runs) has no interval and is undetermined.", "fits align closely (no R^2 given)", needs=("three sizes",)),
    Claim("A4.2", "The size exponent of -log p_{N,k} does not depend on N: -log p_{N,k} ∝ N S^-alpha with the "
                  "token-level alpha (eq. 7; §5.1 says Fig. 7 confirms it)", "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k and N >= 2: the ratio of exponents "
          f"slope(N) / slope(N = 1) (each replicate's slopes from the same resample, so the ratio is paired) has a "
          f"{INTERVAL}, read against the closeness band: {A_CLOSE_READING}. Why: eq. 7 gives every N the token "
          f"level's exponent, and Fig. 7's fits 'align closely', so the claim is graded as the book's every "
          f"closeness claim is, on the same band as A4.3's amplification (an earlier rule asked the interval of "
          f"slope(N) - slope(N = 1) to contain 0, which counted noise for the claim and a large sample's smallest "
          f"departure against it). " + _A4_WINDOWS, "same alpha for every N", needs=("three sizes",)),
    Claim("A4.3", "Sequence-level error is the token-level error amplified exactly N-fold, "
                  "-log p_{N,k} = N (-log RBP_k), as independent positions give (eqs. 6-7; §5.1: 'linearly "
                  "amplified by N')", "empirical",
          f"For each corpus, family (any number of sizes: this is a property of each model), k and N >= 2: the "
          f"geometric mean over the family's models of -log p_N,k / (N * -log RBP_k) has a {INTERVAL}, "
          f"read against the closeness band: {A_CLOSE_READING}. Why: §5.1 says 'linearly amplified by N' "
          f"and Fig. 7 shows curves that 'align closely', a claim of closeness, not of an exact ratio of 1 (an "
          f"earlier rule asked the interval to contain 1, which a large sample fails for any small departure and "
          f"a small one passes for any). " + _A4_RESAMPLED + " A case where some model has no successful run in the "
          "data is not tested. A case measured on the data where some resample leaves a model without a run (its "
          "-log p infinite there, so the ratio's replicates are unbounded above and no interval bounds them) is "
          "undetermined, named in the row with its ratio and how many resamples lack a run: the data cannot bound "
          "its noise, so it can neither hold nor fail.", "assumed (independence); Fig. 7 shows agreement"),
    Claim("A4.4", "Under eq. 8 a larger N sharpens the transition from failure to success, the 'knee' of emergence "
                  "(§5.1)", "analytic",
          f"From eq. 8 with each family's fitted token-level law (each corpus, family and k whose -log RBP_k falls "
          f"with size): the width, in decades of S, between success rates {A4_TRANSITION[0]} and {A4_TRANSITION[1]} "
          f"at the largest N is below {A4_SHARPER:.0%} of that at N = 1. Analytic: in ln S eq. 8 is a Gumbel curve "
          "whose width depends on alpha alone, so N moves it without narrowing it, whatever the data.",
          "larger N gives a sharper knee",
          finding="Eq. 8, p_N,k = exp(-C N S^-alpha), is in u = ln S the Gumbel curve p = exp(-exp(ln(CN) - alpha u)): "
                  "N enters only as the shift ln N / alpha. The size at success rate p is S_p = (CN / -ln p)^(1/alpha), "
                  "so the transition from p = 0.1 to 0.9 spans (ln(-ln 0.1) - ln(-ln 0.9)) / alpha in ln S whatever N "
                  "is: a larger N moves the knee to larger models without sharpening it (on a linear size axis the "
                  "span even widens, as N^(1/alpha)). The paper's 'larger N sharpens the transition' (§5.1) does not "
                  "follow from its own eq. 8."),
    Claim("A4.5", "On the measured points, not only on eq. 8's extrapolation, the success rate p_{N,k} of runs of "
                  "N >= 2 targets rises with model size along an S-shaped curve: emergence (§5.1: as S grows "
                  "'p_{N,k} rises sharply toward one'; Fig. 7)",
          "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes (the unit), over its cases k in {A4_KS} and "
          f"N in {A4_WINDOW_LENGTHS[1:]}: a case can show the S only if its measured p_N,k span eq. 8's inflection, "
          f"p = 1/e (some model below it and some above); a case on one arm of the S, or with a model that never "
          f"completes a run (no eq. 8 fit), cannot. A case that spans it holds if the measured p_N,k rise with size "
          f"at every step, each step's {INTERVAL} read against 0 (the claim's side above), and eq. 8 fitted to the "
          f"measured points (A4.1's line of log(-log p_N,k) on log S) is a falling law on its intervals, refitted "
          f"on the same replicates: {law_rule(A4_MIN_R2)}; all of these must hold, one failing fails the case, one "
          f"undecided leaves it undetermined. The unit holds if every case of it that spans 1/e holds, fails if "
          f"one fails, and is undetermined where one is undecided or where its cases were measured but none spans "
          f"1/e (its models lie on one arm of the S at every N >= 2). Why: in ln S eq. 8 is a Gumbel curve whose inflection is at -ln p = 1; "
          f"below it the curve is convex and above it concave, so only points on both sides show an S rather than "
          f"one arm of it; {A4_MIN_R2} is paper A's own bar for a law (§4.4). Emergence is the jump of a task of "
          f"several tokens: N = 1 is the token level, top-k accuracy itself (RBP_k), so its cases are shown, not "
          f"counted.",
          "S-shaped curves (Fig. 7, extrapolated)", needs=("three sizes",)),
)


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class SequenceSuccess:
    """One corpus and family's sequence-level success (chapter A4's evidence): every model's measured p_{N,k}
    over the grid of ``A4_WINDOW_LENGTHS`` and ``A4_KS``, the same on resampled evaluation documents, and what is
    fitted and compared from them.

    Attributes
    ----------
    models : tuple of str
        The family's models on the corpus, in the set's order.
    sizes : ndarray of shape (models,)
        Their non-embedding sizes.
    success : ndarray of shape (models, len(ns), len(ks))
        Measured p_{N,k} (``rankscale.analysis.emergence.WindowRuns.success``); the first N is 1, so
        ``success[:, 0]`` is RBP_k. NaN for an N longer than every window.
    replicates : ndarray of shape (n_boot, models, len(ns), len(ks))
        The same on resampled documents (whole, with their windows), one resample of the text for every model, N and k
        (``emergence.success_replicates``).
    token_laws : mapping of int to PowerLawFit or None
        Per k, the power law of -log RBP_k against size (eq. 7's token level); None where it cannot be fitted.
    fits : mapping of (int, int) to PowerLawFit or None
        Per (k, N), the power law of the measured -log p_{N,k} against size; None where some model has p = 0
        or the family has one size.
    gaps : rankscale.analysis.emergence.SlopeGaps or None
        Each N's slope against N = 1's (difference and ratio), with paired intervals; None for a family of one
        size.
    ratio : ndarray of shape (len(ns), len(ks))
        The geometric mean over the models of -log p_{N,k} / (N * -log RBP_k) (``emergence.amplification``).
    ratio_intervals : ndarray of shape (len(ns), len(ks), 2)
        Its bootstrap interval; NaN where there is none.
    ns, ks : tuple of int
        The run lengths N and the k, the grid's axes.
    level : float
        Of the intervals computed from ``replicates`` (``law_intervals``).
    """

    models: tuple[str, ...]
    sizes: np.ndarray
    success: np.ndarray
    replicates: np.ndarray
    token_laws: Mapping[int, PowerLawFit | None]
    fits: Mapping[tuple[int, int], PowerLawFit | None]
    gaps: SlopeGaps | None
    ratio: np.ndarray
    ratio_intervals: np.ndarray
    ns: tuple[int, ...] = A4_WINDOW_LENGTHS
    ks: tuple[int, ...] = A4_KS
    level: float = LEVEL

    def at(self, k: int, n: int) -> np.ndarray:
        """The models' measured p_{N,k}, shape (models,)."""
        return self.success[:, self.ns.index(n), self.ks.index(k)]

    def model_ratios(self) -> np.ndarray:
        """Every model's measured over predicted sequence-level error, -log p_{N,k} / (N * -log RBP_k), shape
        (models, len(ns), len(ks)): 1 for independent positions (eq. 6), below 1 where successes cluster; NaN
        where p_{N,k} = 0.

        Examples
        --------
        >>> rbp = np.array([[0.5], [0.8]])  # two models, one k
        >>> e = SequenceSuccess(("a", "b"), np.array([1e3, 1e4]), np.stack([rbp, rbp**2, rbp**3], axis=1), None,
        ...                     {}, {}, None, None, None, ns=(1, 2, 3), ks=(1,))
        >>> e.model_ratios()[:, :, 0].round(6).tolist()
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
        """
        with np.errstate(divide="ignore", invalid="ignore"):  # RBP_k of 1 (every target in the top k) or 0
            neg_log_rbp = -np.log(self.success[:, :1, :])
            return -bootstrap.log_or_nan(self.success) / (np.asarray(self.ns)[:, None] * neg_log_rbp)

    def slope_gap(self, k: int, n: int) -> float:
        """slope(N) - slope(N = 1) of the two fitted power laws, NaN where either is missing."""
        f, base = self.fits[k, n], self.token_laws[k]
        return f.slope - base.slope if f and base else np.nan

    def exponent_ratio(self, k: int, n: int) -> float:
        """slope(N) / slope(N = 1) of the two fitted power laws (``emergence.slope_gaps``), NaN where either is
        missing."""
        return np.nan if self.gaps is None else float(self.gaps.ratios[self.ns.index(n), self.ks.index(k)])

    def exponent_ratio_interval(self, k: int, n: int) -> tuple[float, float] | None:
        """The paired interval of slope(N) / slope(N = 1) (``emergence.slope_gaps``), None where there is none."""
        if self.gaps is None or n == self.ns[0]:
            return None
        lo, hi = self.gaps.ratio_intervals[self.ns.index(n), self.ks.index(k)]
        return None if np.isnan(lo) else (float(lo), float(hi))

    def law_intervals(self, k: int, n: int) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
        """The intervals of R^2 and of the slope of the power law of -log p_{N,k} against size (``fits``, A4.1),
        refitted on every replicate (the same resamples as the slopes of ``gaps``, so paired with them); needs the
        fit at (k, N).

        Returns
        -------
        r2, slope : tuple of (float, float) or None
            None where some replicate has p = 0 or 1 for a model (no logarithm, so no refit).

        Examples
        --------
        >>> p = np.exp(-np.array([[0.4], [0.2], [0.1]]))[:, None]  # (models, N, k): -log p halves every decade
        >>> rep = np.stack([p, p ** np.array([[[1.0]], [[1.2]], [[1.0]]])])  # the middle model worse once
        >>> e = SequenceSuccess(("a", "b", "c"), np.array([1e3, 1e4, 1e5]), p, rep, {},
        ...                     {(1, 1): fit.fit_power_law([1e3, 1e4, 1e5], -np.log(p[:, 0, 0]))}, None, None, None,
        ...                     ns=(1,), ks=(1,))
        >>> [[round(end, 3) for end in bounds] for bounds in e.law_intervals(1, 1)]
        [[0.978, 1.022], [-0.301, -0.301]]
        """
        f, i, j = self.fits[k, n], self.ns.index(n), self.ks.index(k)
        # the same transform as the full-sample fit and as emergence.slope_gaps: log(-log p) on log S
        slopes, r2 = bootstrap.line_fits(np.log(self.sizes),
                                         bootstrap.log_or_nan(-bootstrap.log_or_nan(self.replicates[:, :, i, j])))
        return bootstrap.interval(f.r2, r2, self.level), bootstrap.interval(f.slope, slopes, self.level)

    def ratio_interval(self, k: int, n: int) -> tuple[float, float] | None:
        """The interval of the geometric-mean ratio (``ratio``) at (k, N), None where there is none."""
        lo, hi = self.ratio_intervals[self.ns.index(n), self.ks.index(k)]
        return None if np.isnan(lo) else (float(lo), float(hi))


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def measure_family(members: Sequence[Run], context: Context) -> SequenceSuccess:
    """One corpus and family's ``SequenceSuccess``: its models' runs of N targets counted window by window
    (``emergence.window_runs``, ranks in the ``ge`` convention of paper A's eq. 3), the documents resampled whole
    ``context.n_boot`` times, the same resample for every model, and the fits and comparisons of them.

    Parameters
    ----------
    members : sequence of rankscale.records.runs.Run
        The family's final models on one corpus, all evaluated on the same windows.
    context : Context
        Its ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    SequenceSuccess
    """
    counted = [emergence.window_runs(metrics.rank_1based(run.records.gt, run.records.ge), run.records.window,
                                     A4_WINDOW_LENGTHS, A4_KS, text_units(run.records)) for run in members]
    success = np.stack([c.success() for c in counted])  # (models, N, k)
    replicates = emergence.success_replicates(counted, context.n_boot, context.seed)
    model_sizes = sizes(list(members))
    token_laws = {k: fit.fit_if_positive(model_sizes, -np.log(success[:, 0, j])) for j, k in enumerate(A4_KS)}
    fits = {(k, n): fit.fit_if_positive(model_sizes, -bootstrap.log_or_nan(success[:, i, j]))
            for j, k in enumerate(A4_KS) for i, n in enumerate(A4_WINDOW_LENGTHS)}
    gaps = (emergence.slope_gaps(model_sizes, success, replicates, context.level)
            if len(np.unique(model_sizes)) >= 2 else None)
    ratio, intervals = emergence.amplification(success, replicates, A4_WINDOW_LENGTHS, context.level)
    return SequenceSuccess(tuple(run.name for run in members), model_sizes, success, replicates, token_laws, fits,
                           gaps, ratio, intervals, level=context.level)


def measure(chapter: Chapter, context: Context) -> dict[tuple[str, str], SequenceSuccess]:
    """Chapter A4's evidence: ``measure_family`` for every family on every corpus, whatever its number of sizes
    (A4.3 is a property of each model; the size claims read only the families ``context.usable()`` names).

    Parameters
    ----------
    chapter : Chapter
        The families' final models per corpus.
    context : Context
        The families' sizes, the bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    dict of (str, str) to SequenceSuccess
        By (corpus, family), corpus by corpus, each corpus's families in order.
    """
    return {(corpus, family): measure_family(members, context)
            for corpus, corpus_runs in chapter.family_runs.items()
            for family, members in by_family(corpus_runs).items()}


# ---------------------------------------------------------------------------------------------
# Decide: each claim's rule on one case, and its verdict over every case

def _case(corpus: str, family: str, k: int, n: int | None = None) -> Unit:
    """A case of chapter A4 as its verdicts name it: corpus, family and the setting "k=10"[/"N=4"].

    >>> _case("pydocs", "NeoX", 10, 4).label
    'pydocs/NeoX/k=10/N=4'
    """
    return Unit(corpus, family, setting=f"k={k}" + ("" if n is None else f"/N={n}"))


# A case's outcome as a rule gives it: a Reading of an interval (A4.2, A4.3), else True, False or None
Outcome = Reading | bool | None


def _outcomes(cases: Mapping[Unit, Outcome]) -> dict[Unit, Outcome]:
    """judge's outcomes: every case that tests its claim (its Reading kept, so that judge names the fragile ones),
    and one untested unit for each family of ``cases`` without any (its cases are counted in words, not named one
    by one)."""
    out = {unit: ok for unit, ok in cases.items() if outcome_of(ok) is not None}
    tested = {unit.family for unit in out}
    out.update({Unit(family=family): None for family in dict.fromkeys(unit.family for unit in cases)
                if family not in tested})
    return out


def _decided(ok: Outcome) -> bool:
    """Whether a case's outcome decides its claim (True or False)."""
    return outcome_of(ok) is not None and not undetermined(outcome_of(ok))


def _tally(cases: Mapping[Unit, Outcome]) -> str:
    """'family: a of b' per family, over the cases that decide (undetermined ones are counted apart by their claim).

    >>> _tally({_case("c", "F", 1, 2): True, _case("c", "F", 1, 4): Reading(False), _case("c", "G", 1, 2): None})
    'F: 1 of 2'
    """
    per: dict[str, list] = {}
    for unit, ok in cases.items():
        if _decided(ok):
            per.setdefault(unit.family, []).append(bool(outcome_of(ok)))
    return "; ".join(f"{family}: {sum(v)} of {len(v)}" for family, v in per.items())


def _n_untested(cases: Mapping[Unit, Outcome]) -> int:
    return sum(outcome_of(ok) is None for ok in cases.values())


def _n_undetermined(cases: Mapping[Unit, Outcome]) -> int:
    return sum(undetermined(outcome_of(ok)) for ok in cases.values())


def _left_out(cases: Mapping[Unit, Outcome], context: Context) -> str:
    """The families a size claim leaves out, after its "ours" text, where some case decided it (judge names no
    unit otherwise, and ``_why_not`` names them)."""
    decided = any(map(_decided, cases.values()))
    return left_out(context.unusable()) if decided else ""


def _why_not(context: Context) -> str:
    """Why a size claim of A4 has no tested case: no family with enough sizes, or none of theirs measurable."""
    return "no case of a family with enough sizes is measurable" if context.usable() else no_family(context.unusable())


def _size_cases(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context):
    """The (corpus, family) and evidence of the families a size claim is tested on."""
    usable = context.usable()
    return [(corpus, family, e) for (corpus, family), e in evidence.items() if family in usable]


def power_law(e: SequenceSuccess, k: int, n: int) -> Reading:
    """A4.1 on one case: the measured -log p_{N,k} falls with size along a power law of R^2 >= ``A4_MIN_R2``, read
    on the intervals of its R^2 and slope (``SequenceSuccess.law_intervals``, ``law_reading``); Reading(None) where
    it cannot be fitted."""
    if e.fits[k, n] is None:
        return Reading(None)
    return law_reading(*e.law_intervals(k, n), A4_MIN_R2)


def _lowest_r2(evidence: Sequence[tuple[str, str, SequenceSuccess]]) -> str:
    """Per family, the fitted case whose R^2 interval reaches lowest (one without an interval first), with its
    R^2 and interval: what A4.1 shows beside its tally; "" where no case is fitted.

    >>> p = np.exp(-np.array([0.4, 0.2, 0.1]))[:, None, None]
    >>> law = fit.fit_power_law([1e3, 1e4, 1e5], -np.log(p[:, 0, 0]))
    >>> e = SequenceSuccess(("a", "b", "c"), np.array([1e3, 1e4, 1e5]), p, np.stack([p, p]), {}, {(1, 1): law}, None,
    ...                     None, None, ns=(1,), ks=(1,))
    >>> _lowest_r2([("pydocs", "NeoX", e)])
    'NeoX 1.000 [1.000, 1.000] (pydocs/NeoX/k=1/N=1)'
    """
    lowest: dict[str, tuple[float, str]] = {}
    for c, fam, e in evidence:
        for (k, n), f in e.fits.items():
            if f is None:
                continue
            bounds = e.law_intervals(k, n)[0]
            reach = bounds[0] if bounds else -np.inf
            if fam not in lowest or reach < lowest[fam][0]:
                lowest[fam] = reach, f"{f.r2:.3f} {interval_text(bounds, sign='')} ({_case(c, fam, k, n).label})"
    return "; ".join(f"{fam} {text}" for fam, (_, text) in lowest.items())


def power_laws_verdict(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context) -> Verdict:
    """A4.1: ``power_law`` in every case of a family with ``MIN_SIZES`` sizes.

    Parameters
    ----------
    evidence : mapping of (str, str) to SequenceSuccess
        The evidence (``measure``), by (corpus, family).
    context : Context
        Which families have enough sizes.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    size_cases = _size_cases(evidence, context)
    cases = {_case(c, fam, k, n): power_law(e, k, n) for c, fam, e in size_cases for k in e.ks for n in e.ns}
    lowest = _lowest_r2(size_cases)
    return judge("A4.1", _outcomes(cases),
                 f"falling power laws (R^2's interval above {A4_MIN_R2}, the slope's below 0): {_tally(cases)}"
                 + (f"; across a threshold or without an interval (undetermined): {_n_undetermined(cases)}"
                    if _n_undetermined(cases) else "")
                 + (f"; R^2 [interval] reaching lowest: {lowest}" if lowest else "")
                 + f"; {_n_untested(cases)} cases not measurable (p = 0 for some model)" + _left_out(cases, context),
                 why_not=_why_not(context), why_undetermined=ACROSS_LAW)


def same_exponent(e: SequenceSuccess, k: int, n: int) -> Reading:
    """A4.2 on one case of N >= 2: the interval of the ratio of exponents slope(N) / slope(N = 1) read by
    ``close`` (inside ``A_CLOSE`` holds, wholly outside fails, across an edge undetermined); Reading(None) where
    there is no interval."""
    return close(e.exponent_ratio_interval(k, n))


def same_exponent_verdict(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context) -> Verdict:
    """A4.2: ``same_exponent`` in every case of N >= 2 of a family with ``MIN_SIZES`` sizes.

    Parameters
    ----------
    evidence, context
        As in ``power_laws_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    cases, ratios = {}, []
    for c, fam, e in _size_cases(evidence, context):
        for k in e.ks:
            for n in e.ns[1:]:
                ok = cases[_case(c, fam, k, n)] = same_exponent(e, k, n)
                if outcome_of(ok) is not None:
                    ratios.append(e.exponent_ratio(k, n))
    return judge("A4.2", _outcomes(cases),
                 f"slope_N / slope_1 from {min(ratios):.2f} to {max(ratios):.2f}; interval inside "
                 f"[{A_CLOSE[0]}, {A_CLOSE[1]}]: {_tally(cases)}"
                 + (f"; across an edge (undetermined): {_n_undetermined(cases)}" if _n_undetermined(cases) else "")
                 + f"; {_n_untested(cases)} cases without an interval" + _left_out(cases, context)
                 if ratios else "no case with an interval", why_not=_why_not(context), why_undetermined=ACROSS_EDGE)


def amplified(e: SequenceSuccess, k: int, n: int) -> Reading:
    """A4.3 on one case of N >= 2: the interval of the family's mean measured / predicted ratio read by ``close``
    (inside ``A_CLOSE`` holds, wholly outside fails, across an edge undetermined); ``UNDETERMINED`` where the ratio
    is measured but has no interval (``unbounded``); Reading(None) where it is not measured."""
    return Reading(UNDETERMINED) if _open_ended(e, k, n) else close(e.ratio_interval(k, n))


def _open_ended(e: SequenceSuccess, k: int, n: int) -> bool:
    """Whether a case's ratio is measured on the data but has no interval (a resample could not compute it)."""
    return e.ratio_interval(k, n) is None and bool(np.isfinite(e.ratio[e.ns.index(n), e.ks.index(k)]))


def unbounded(e: SequenceSuccess, k: int, n: int) -> int:
    """How many resamples leave some model of the family without a run of ``n`` targets in its top ``k`` (there
    its -log p_{N,k} is infinite, and the ratio with it), where the data themselves have a run for every model;
    0 where the data lack one (the case is not measured) or no resample does.

    >>> rbp = np.array([[0.5], [0.8]])
    >>> p = np.stack([rbp, rbp ** 2], axis=1)  # (models, N, k)
    >>> e = SequenceSuccess(("a", "b"), np.array([1e3, 1e4]), p, np.stack([p, p * [[[1], [0]]]]), {}, {}, None,
    ...                     np.ones((2, 1)), np.full((2, 1, 2), np.nan), ns=(1, 2), ks=(1,))
    >>> unbounded(e, 1, 2)  # the second resample has no run of two for either model
    1
    """
    i, j = e.ns.index(n), e.ks.index(k)
    if not (e.success[:, i, j] > 0).all():
        return 0
    return int((e.replicates[:, :, i, j] == 0).any(axis=1).sum())


def amplified_verdict(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context) -> Verdict:
    """A4.3: ``amplified`` in every case of N >= 2 of every family, whatever its number of sizes.

    Parameters
    ----------
    evidence, context
        As in ``power_laws_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    cases = {_case(c, fam, k, n): amplified(e, k, n) for (c, fam), e in evidence.items()
             for n in e.ns[1:] for k in e.ks}
    ratios = model_ratios(evidence)
    open_ended = [f"{_case(c, fam, k, n).label} {e.ratio[e.ns.index(n), e.ks.index(k)]:.2f} ({unbounded(e, k, n)} of "
                  f"{len(e.replicates)} resamples without a run)" for (c, fam), e in evidence.items()
                  for n in e.ns[1:] for k in e.ks if _open_ended(e, k, n)]
    across = _n_undetermined(cases) - len(open_ended)
    return judge("A4.3", _outcomes(cases),
                 f"measured / predicted -log p per model: median {np.median(ratios):.2f}, range {ratios.min():.2f}-"
                 f"{ratios.max():.2f}; family mean inside [{A_CLOSE[0]}, {A_CLOSE[1]}]: {_tally(cases)}"
                 + (f"; across an edge (undetermined): {across}" if across else "")
                 + (f"; measured, its interval unbounded (undetermined): {'; '.join(open_ended)}" if open_ended else "")
                 + f"; {_n_untested(cases)} cases not measured (some model without a run)"
                 if len(ratios) else "no measurable case with N ≥ 2",
                 why_not="no model completes a run of 2 or more tokens",
                 why_undetermined=ACROSS_EDGE + " or is unbounded (a resample without a run)")


def transition_widths(law: PowerLawFit, ns: Sequence[int]) -> np.ndarray:
    """Under eq. 8 with the token-level ``law``, the decades of size between the success rates of
    ``A4_TRANSITION`` for each N of ``ns``.

    Examples
    --------
    >>> law = PowerLawFit(-0.5, 0.0, 1.0, 3)  # -log RBP_k = S^-0.5
    >>> transition_widths(law, [1, 16]).round(3).tolist()  # N shifts the curve, never narrows it
    [2.679, 2.679]
    """
    return np.array([np.log10(fit.size_for_window_success(law, n, A4_TRANSITION[1])
                              / fit.size_for_window_success(law, n, A4_TRANSITION[0])) for n in ns])


def sharpens(law: PowerLawFit, ns: Sequence[int]) -> bool:
    """A4.4 on one case: the transition at the largest N is narrower than ``A4_SHARPER`` times that at the first."""
    widths = transition_widths(law, ns)
    return bool(widths[-1] < A4_SHARPER * widths[0])


def falling_laws(evidence: Mapping[tuple[str, str], SequenceSuccess]) -> list[tuple[str, str, int, PowerLawFit]]:
    """Every token-level law that falls with size, the ones eq. 8 makes an S of: (corpus, family, k, law), corpus
    by corpus, then k by k, then family by family (the order of the chapter's widths)."""
    return [(c, fam, k, e.token_laws[k]) for corpus in dict.fromkeys(c for c, _ in evidence) for k in A4_KS
            for (c, fam), e in evidence.items()
            if c == corpus and e.token_laws[k] is not None and e.token_laws[k].slope < 0]


def sharpens_verdict(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context) -> Verdict:
    """A4.4: ``sharpens`` for every falling token-level law (``falling_laws``), any number of sizes; the "ours"
    text lists the widths of the first corpus (the chapter's figure shows it).

    Parameters
    ----------
    evidence, context
        As in ``power_laws_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    laws = falling_laws(evidence)
    cases = {_case(c, fam, k): sharpens(law, A4_WINDOW_LENGTHS) for c, fam, k, law in laws}
    first = next(iter(evidence))[0] if evidence else None
    shown = []
    for c, fam, k, law in laws:
        if c == first:
            widths = transition_widths(law, A4_WINDOW_LENGTHS)
            shown.append(f"{fam}, {c}, k={k}: {widths[0]:.1f} decades at N={A4_WINDOW_LENGTHS[0]}, "
                         f"{widths[-1]:.1f} at N={A4_WINDOW_LENGTHS[-1]}")
    several = len({c for c, *_ in laws}) > 1
    return judge("A4.4", cases,
                 "; ".join(shown) + (f" (first corpus shown; {len(cases)} cases in all)" if several else ""),
                 why_not="no family has a falling token-level law")


def measured_sigmoid(e: SequenceSuccess, k: int, n: int) -> Reading | None:
    """A4.5 on one case (k, N) of ``e``: whether its measured success rates show eq. 8's S, read on their intervals:
    every step between neighbouring sizes rises (the step's interval over ``e.replicates`` read against 0, the
    claim's side above), and eq. 8's line (A4.1's fit of log(-log p) on log S) is a falling law of R^2 at least
    ``A4_MIN_R2`` (``law_reading`` of ``e.law_intervals``), all of which must hold (``every``).

    Parameters
    ----------
    e : SequenceSuccess
    k, n : int
        The case.

    Returns
    -------
    Reading or None
        None where the measured points do not span p = 1/e (the case cannot show the S), some are missing, or
        there is no fit (a model without a run); a missing interval is undetermined.

    Examples
    --------
    >>> p = np.array([0.1, 0.5, 0.9])[:, None, None]  # (models, N, k)
    >>> law = fit.fit_power_law([1e6, 1e7, 1e8], -np.log(p[:, 0, 0]))
    >>> e = SequenceSuccess(("a", "b", "c"), np.array([1e6, 1e7, 1e8]), p, np.stack([p, p * 0.99, p * 1.01]), {},
    ...                     {(1, 2): law}, None, None, None, ns=(2,), ks=(1,))
    >>> measured_sigmoid(e, 1, 2).outcome
    True
    """
    p = e.at(k, n)
    law = e.fits.get((k, n))
    if np.isnan(p).any() or not p.min() < np.exp(-1) < p.max() or law is None:
        return None
    order = np.argsort(e.sizes)
    replicates = e.replicates[:, order, e.ns.index(n), e.ks.index(k)]
    steps = [read(bootstrap.interval(float(hi - lo), replicates[:, b + 1] - replicates[:, b], e.level),
                  missing=UNDETERMINED) for b, (lo, hi) in enumerate(zip(p[order][:-1], p[order][1:]))]
    return every(*steps, law_reading(*e.law_intervals(k, n), A4_MIN_R2))


def sigmoid_unit(cases: Mapping[tuple[int, int], Reading | None], measured: bool) -> Reading:
    """A4.5 on one corpus and family, from ``measured_sigmoid`` of its cases of N >= 2: every case that spans 1/e
    read together (``every``); ``UNDETERMINED`` where none spans it but some was ``measured``, else None.

    >>> sigmoid_unit({(1, 2): Reading(True), (1, 4): None}, True), sigmoid_unit({(1, 2): Reading(False)}, True).outcome
    (Reading(outcome=True, fragile=False), False)
    >>> sigmoid_unit({(1, 2): None}, True).outcome, sigmoid_unit({(1, 2): None}, False).outcome
    ('undetermined', None)
    """
    spanning = [reading for reading in cases.values() if reading is not None]
    return every(*spanning) if spanning else Reading(UNDETERMINED if measured else None)


# a case's reading in words, in A4.5's "ours"
_SIGMOID_WORDS = {True: "holds", False: "fails", UNDETERMINED: "within noise", None: ""}


def sigmoid_verdict(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context) -> Verdict:
    """A4.5: ``sigmoid_unit`` in every corpus and family with ``MIN_SIZES`` sizes, over its cases of N >= 2; the
    cases of N = 1 that span 1/e are shown beside, not counted.

    Parameters
    ----------
    evidence, context
        As in ``power_laws_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units, spans, token_level = {}, [], []
    for c, fam, e in _size_cases(evidence, context):
        cases, measured = {}, False
        for n in e.ns:
            for k in e.ks:
                p = e.at(k, n)
                reading = measured_sigmoid(e, k, n)
                text = (f"{c}/{fam}/k={k}/N={n}: p {p.min():.2f}-{p.max():.2f} "
                        f"({_SIGMOID_WORDS[reading.outcome] if reading is not None else ''})")
                if n == 1:
                    if reading is not None:
                        token_level.append(text)
                    continue
                cases[k, n] = reading
                measured |= bool(np.isfinite(p).all())
                if reading is not None:
                    spans.append(text)
        units[Unit(c, fam)] = sigmoid_unit(cases, measured)
    shown = (f"; N = 1 (top-k accuracy, not counted): {'; '.join(token_level)}" if token_level else "")
    return judge("A4.5", units,
                 f"cases of N ≥ 2 spanning p = 1/e: {'; '.join(spans) or 'none'}" + shown
                 + (left_out(context.unusable()) if units else ""),
                 why_not=_why_not(context),
                 why_undetermined="no case of N ≥ 2 spans p = 1/e: at every N ≥ 2 the measured points lie on one "
                                  "arm of the S")


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"A4.1": power_laws_verdict, "A4.2": same_exponent_verdict, "A4.3": amplified_verdict,
         "A4.4": sharpens_verdict, "A4.5": sigmoid_verdict}


SPEC = ChapterSpec("A4", CLAIMS_A4, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables, and its headline for the findings

def model_ratios(evidence: Mapping[tuple[str, str], SequenceSuccess]) -> np.ndarray:
    """Every model's measured / predicted -log p_{N,k} with N >= 2 where it is measured
    (``SequenceSuccess.model_ratios``), family by family: what A4.3 and the headline show, shape (cases,)."""
    found = [e.model_ratios()[:, 1:].ravel() for e in evidence.values()]
    ratios = np.concatenate(found) if found else np.array([])
    return ratios[~np.isnan(ratios)]


def success_table(evidence: Mapping[tuple[str, str], SequenceSuccess]) -> pd.DataFrame:
    """Every model's measured p_{N,k} beside eq. 6's prediction from its RBP_k.

    Returns
    -------
    pandas.DataFrame
        One row per corpus, model, N and k: ``corpus``, ``family``, ``model``, ``S``, ``k``, ``N``, ``RBP_k``,
        ``predicted (RBP_k)^N``, ``measured p_Nk``, ``-log measured`` (NaN where p = 0) and
        ``-log measured / (N * -log RBP_k)``.
    """
    rows = []
    for (corpus, family), e in evidence.items():
        neg_log, ratios = -bootstrap.log_or_nan(e.success), e.model_ratios()
        for m, (model, size) in enumerate(zip(e.models, e.sizes)):
            for i, n in enumerate(e.ns):
                for j, k in enumerate(e.ks):
                    rbp, p = e.success[m, 0, j], e.success[m, i, j]
                    rows.append({"corpus": corpus, "family": family, "model": model, "S": size, "k": k, "N": n,
                                 "RBP_k": rbp, "predicted (RBP_k)^N": rbp ** n, "measured p_Nk": p,
                                 "-log measured": neg_log[m, i, j],
                                 "-log measured / (N * -log RBP_k)": ratios[m, i, j]})
    return pd.DataFrame(rows)


def fits_table(evidence: Mapping[tuple[str, str], SequenceSuccess]) -> pd.DataFrame:
    """The power laws of -log p_{N,k} against size, each slope against its family's N = 1 slope (eq. 7), with
    the paired interval of their ratio (A4.1, A4.2).

    Returns
    -------
    pandas.DataFrame
        One row per corpus, family, k and N: ``models``, ``slope``, ``R^2``, ``slope_N / slope_1``, its interval
        (``interval low``, ``interval high``; NaN at N = 1 or where there is none), ``slope_N - slope_1`` and a
        ``note`` where no law could be fitted.
    """
    rows = []
    for (c, fam), e in evidence.items():
        for k in e.ks:
            for n in e.ns:
                f, base = e.fits[k, n], e.token_laws[k]
                lo, hi = e.exponent_ratio_interval(k, n) or (np.nan, np.nan)
                rows.append({"corpus": c, "family": fam, "k": k, "N": n, "models": len(e.models),
                             "slope": f.slope if f else np.nan, "R^2": f.r2 if f else np.nan,
                             "slope_N / slope_1": f.slope / base.slope if f and base else np.nan,
                             "interval low": lo, "interval high": hi, "slope_N - slope_1": e.slope_gap(k, n),
                             "note": "" if f else "one size, or p = 0 for some model: no log-log fit"})
    return pd.DataFrame(rows)


def amplification_table(evidence: Mapping[tuple[str, str], SequenceSuccess]) -> pd.DataFrame:
    """Measured over predicted -log p_{N,k}, averaged over each family's models (A4.3).

    Returns
    -------
    pandas.DataFrame
        One row per corpus, family, N >= 2 and k: ``models``, ``mean ratio`` (the geometric mean) and its
        interval (``interval low``, ``interval high``; NaN where some model has no successful run).
    """
    rows = []
    for (c, fam), e in evidence.items():
        for n in e.ns[1:]:
            for k in e.ks:
                lo, hi = e.ratio_interval(k, n) or (np.nan, np.nan)
                rows.append({"corpus": c, "family": fam, "k": k, "N": n, "models": len(e.models),
                             "mean ratio": e.ratio[e.ns.index(n), e.ks.index(k)], "interval low": lo,
                             "interval high": hi})
    return pd.DataFrame(rows)


WIDTH_COLUMNS = ("corpus", "family", "k", "N", "alpha", f"S at p={A4_TRANSITION[0]}", f"S at p={A4_TRANSITION[1]}",
                 "width (decades of S)")


def widths_table(evidence: Mapping[tuple[str, str], SequenceSuccess]) -> pd.DataFrame:
    """Where eq. 8 puts the transition of an N-token task, for every falling token-level law (A4.4).

    Returns
    -------
    pandas.DataFrame
        Columns ``WIDTH_COLUMNS``: one row per corpus, k, family and N, with the exponent alpha, the sizes at
        the success rates of ``A4_TRANSITION`` and the decades between them.
    """
    rows = []
    for c, fam, k, law in falling_laws(evidence):
        for n, width in zip(A4_WINDOW_LENGTHS, transition_widths(law, A4_WINDOW_LENGTHS)):
            s_lo, s_hi = (fit.size_for_window_success(law, n, p) for p in A4_TRANSITION)
            rows.append(dict(zip(WIDTH_COLUMNS, (c, fam, k, n, -law.slope, s_lo, s_hi, width))))
    return pd.DataFrame(rows, columns=list(WIDTH_COLUMNS))


def headline(evidence: Mapping[tuple[str, str], SequenceSuccess], context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): how far the
    measured sequence success strays from N independent tokens; none where no run of N >= 2 is measured.

    Parameters
    ----------
    evidence, context
        As in ``power_laws_verdict``.

    Returns
    -------
    list of str
    """
    ratios = model_ratios(evidence)
    return [f"Measured sequence success over N tokens is {ratios.min():.2f} to {ratios.max():.2f} times what N "
            "independent tokens would predict (−log p_{N,k} over N · −log RBP_k)."] if len(ratios) else []
