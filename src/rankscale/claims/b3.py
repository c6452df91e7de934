"""Chapter B3 of the claims stage, which component of cross-entropy scales with size (paper B §4, Fig. 7, Tables
1-2): its thresholds and claims, its evidence (``ComponentScaling``: the power laws of CE, EE, SA and Conf of every
family and of every model pooled, refitted on paired resamples of the documents, how far each exponent still drifts with the
number of evaluation tokens, and how CE's change across a family splits into its components') and its two steps,
``measure`` (the chapter's runs to that evidence) and ``decide`` (the evidence to the chapter's verdicts), with the
rule of each claim read on one unit as a small function of its own and the evidence laid out as the chapter's
tables.

Chapter B4 (``rankscale.claims.b4``) reads the same quantities on the same resamples (``CorpusTerms`` and
``corpus_terms`` of ``rankscale.claims.paper_b``).

Paper B, §4 (Fig. 7, Tables 1-2). Units: each (corpus, family) with at least ``MIN_SIZES`` sizes and, where a rule
says so, the fit over every model of every family pooled ("All", ``Unit(corpus, pooled=True)``, one unit per corpus;
needs two families, one of them with ``MIN_SIZES`` sizes, ``rankscale.claims.base.why_not_pooled``). Intervals
(``rankscale.analysis.bootstrap.interval``): the value on all tokens -+ z standard deviations of its replicates,
each replicate resampling every model's evaluation documents (whole) once for all four quantities (``bootstrap.resample`` with
``components.terms_vector`` as the metric), the same documents for every model of a family
(``rankscale.claims.context.Context.resampling``), so that differences between quantities and between models are
paired.
Not percentile intervals: a resample holds fewer distinct tokens than the sample, so the replicates of the plug-in
components (EE, SA, Conf) are shifted off the measured value and a percentile interval can miss it
(``rankscale.analysis.bootstrap``). How an interval decides, one reading for every rule (``rankscale.claims.base``):
a claim that a difference or a direction exists ("closest", "rises", "R^2 of at least") holds where the interval
lies wholly on its side of the threshold, fails where it lies wholly on the other side, and is undetermined where it
crosses the threshold (``read``); a claim of parity ("largely invariant") holds where the interval lies wholly inside
a band declared before the data, fails where it lies wholly outside, and is undetermined across an edge
(``read_band``); an interval that is not defined (some resample could not compute the quantity) is undetermined. An
end within the bootstrap's own noise of a threshold is named as fragile in the verdict. A rule is gated only on the
quantity it reads: B3.8, on SA's exponent, is applied only where that exponent has converged at the evaluated token count
(chapter B5's check, ``sample_size.convergence_by_group`` with chapter B5's B5_* settings), since an exponent still
drifting as tokens are added describes the sample, not the models, and B3.10, on how Confidence's R^2 differ between
families, only on the fits whose Confidence exponent has converged (a spread between fits that still drift is the
sample's); the rules that compare exponents (B3.5, B3.6) widen their intervals by that drift instead; the other rules
on R^2 or on shares of CE's change read no exponent and are not gated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, components, metrics, sample_size
from rankscale.analysis.bootstrap import INTERVAL, LEVEL, interval, interval_text, span
from rankscale.analysis.components import QUANTITIES, gap_difference
from rankscale.analysis.fit import Bootstrap, PowerLawFit
from rankscale.analysis.sample_size import ExponentConvergence
from rankscale.claims.base import (
    MIN_SIZES,
    ONE_READING,
    POOLED,
    UNDETERMINED,
    Claim,
    Reading,
    Unit,
    Verdict,
    every,
    index_claims,
    judge,
    near_edge,
    read,
    read_band,
)
from rankscale.claims.context import Chapter, Context
from rankscale.claims.paper_b import (
    B3_LAW_R2,
    B5_EXPONENT_FLOOR,
    B5_EXPONENT_TOLERANCE,
    B5_MIN_TOKENS,
    B5_N_GRID,
    B5_N_REPEATS,
    CorpusTerms,
    corpus_terms,
    fit_groups,
    too_few,
)
from rankscale.claims.spec import ChapterSpec

B3_NO_LAW_R2 = 0.5  # "lacks a power law": the paper's SA R^2 fall into those it calls relatively strong (Qwen,
# >= 0.72) and the lower rest (<= 0.36); 0.5 lies in that gap
B3_UNSTABLE_RANGE = 0.3  # "highly unstable": per-family R^2 spread wider than that of EE, which the paper calls
# robust (its Table 1's per-family EE R^2 span 0.73-0.99, a range of 0.26; its Conf R^2 span 0.12-0.94)
B3_INVARIANT_SHARE = 0.25  # "largely invariant": a component carrying a quarter or more of CE's change across a
# family, with the sign either way, is not invariant beside CE; an even three-way split would give each a third.
# The paper gives no number for "largely"; this band, fixed before the data, is B3.9's parity band: a share's
# interval wholly inside it holds, wholly outside fails, across an edge is undetermined
B3_INVARIANT_BAND = (-B3_INVARIANT_SHARE, B3_INVARIANT_SHARE)

TABLE1 = "ce_paper_table1_r2"  # paper B's Table 1: R^2 of the fit of |M| on size, per family and dataset
TABLE2 = "ce_paper_table2_delta"  # paper B's Table 2: the exponent gaps |alpha_M - alpha_CE|
READS = ("seeds",)  # the runs measure reads beside the families' final models (``load_chapter``'s keywords)
TABLES = (TABLE1, TABLE2)  # the papers' tables decide reads (``Context.tables``)
PAPER_FAMILIES = ("Qwen", "Pythia", "GPT2")  # the rows of paper B's Tables 1-2, then its pooled row
PAPER_POOLED = "All"
PAPER_DATASETS = ("Wikipedia", "C4", "GitHub")  # its columns, in its order

# Chapter B5's convergence check as B3.8's and B3.10's rules state it
_CONVERGED = (f"its drift over the last doubling of the evaluation tokens is at most {B5_EXPONENT_TOLERANCE:.0%} "
              f"of its own magnitude, or of {B5_EXPONENT_FLOOR} × |α_CE| where it is nearer zero than that, relative "
              "to which no drift would be small: chapter B5's check")

CLAIMS_B3 = index_claims(
    Claim("B3.1", "Error-Entropy follows a power law in size within each family, with R² “close to 0.9” "
                  "(paper B §4.2 (i), Table 1)", "empirical",
          f"R² of the fit of log |EE| on log size, its {INTERVAL} read against {B3_LAW_R2} ({ONE_READING}), per "
          f"corpus and family; {B3_LAW_R2} is a tenth below the paper's “close to 0.9”, and two of the paper's own EE "
          "fits that it describes that way fall below it, so the rule is, if anything, stricter than the paper.",
          needs=("three sizes",)),
    Claim("B3.2", "EE fits a power law better than CE (paper B §4.2 and Table 1: EE's R² exceeds CE's "
                  "“in nearly all settings”)", "empirical",
          f"R²(EE) − R²(CE), its paired {INTERVAL} read against 0 ({ONE_READING}), per corpus and family and for the "
          "pooled fit: the paper claims that EE's fits are better, so an interval that holds 0 does not show it, "
          "and does not refute it either.",
          needs=("three sizes",)),
    Claim("B3.3", "Self-Alignment lacks a power law in size (paper B §4.2 (ii), Table 1; the paper excepts Qwen)",
          "empirical",
          f"R² of the fit of log |SA|, its {INTERVAL} read against {B3_NO_LAW_R2}, the claim's side below it "
          f"({ONE_READING}), per corpus and family; {B3_NO_LAW_R2} lies in the gap between the paper's strong and "
          "weak SA fits, and an SA that cannot be fitted (a value of 0) has no power law either. (An earlier rule "
          "read the point R² alone.)", needs=("three sizes",)),
    Claim("B3.4", "Confidence has no power law across families pooled (paper B §4.2 (iii): R² “extremely low” in "
                  "the mixed-model case; Table 1 “All”)", "empirical",
          f"R² of the pooled fit of log |Conf|, its {INTERVAL} read against {B3_NO_LAW_R2} (B3.3's threshold), the "
          f"claim's side below it ({ONE_READING}), per corpus; a Conf that cannot be fitted (a value of 0) has no "
          "power law either. Per-family Conf fits, which the paper calls “unstable”, not low, are not graded here "
          "(B3.10). (An earlier rule read the point R² alone.)", needs=("three sizes", "two families")),
    Claim("B3.5", "EE's size exponent is the closest to CE's (paper B §4.2, Table 2: smallest |Δ| “across all "
                  "cases”)", "empirical",
          f"|Δ_SA| − |Δ_EE| and |Δ_Conf| − |Δ_EE| (Δ_M = α_M − α_CE), each with its paired {INTERVAL} widened by both "
          "exponents' drift over the last doubling of tokens (chapter B5's error), read against 0 "
          f"({ONE_READING}); both must hold; per corpus and family and for the pooled fit.", needs=("three sizes",)),
    Claim("B3.6", "SA's size exponent is the farthest from CE's (paper B §4.2 (ii), Table 2)", "empirical",
          f"|Δ_SA| − |Δ_EE| and |Δ_SA| − |Δ_Conf|, each with its paired {INTERVAL} widened by both exponents' drift over "
          f"the last doubling of tokens (chapter B5's error), read against 0 ({ONE_READING}); both must hold; per "
          "corpus and family and for the pooled fit (B3.5's test, with SA in EE's place).", needs=("three sizes",)),
    Claim("B3.7", "Error-Entropy follows one power law across families (the pooled “All” fit, paper B §4.2 (i), "
                  "Table 1)", "empirical",
          f"The pooled fit's R²(EE), its {INTERVAL} read against {B3_LAW_R2} (B3.1's threshold and reading), per "
          "corpus; "
          "needs two families, one with at least three sizes.", needs=("three sizes", "two families")),
    Claim("B3.8", "Self-Alignment does not improve with size but trends upwards (paper B §4.1, Fig. 7)", "empirical",
          f"SA's size exponent α_SA, its {INTERVAL} read against 0 ({ONE_READING}), per corpus and family and for "
          f"the pooled fit (Fig. 7 mixes families), where α_SA has converged: {_CONVERGED}. (An earlier check "
          "allowed a tenth of |α_CE| whatever the exponent, and so refused SA exponents larger than CE's that "
          "drifted by a few percent of themselves.)",
          needs=("three sizes",)),
    Claim("B3.9", "Self-Alignment and Confidence stay largely invariant as models grow (paper B, abstract; §6: "
                  "they “do not scale”)", "empirical",
          f"Share of CE's change from the smallest to the largest model of a family carried by SA (ΔSA/ΔCE) and by "
          f"Conf (−ΔConf/ΔCE), each share's paired {INTERVAL} read against the band ±{B3_INVARIANT_SHARE} (a "
          "parity claim; the paper gives no number for “largely”, and a quarter of CE's change is more than an "
          "invariant component can carry, a third being an even split): holds where both intervals lie wholly "
          "inside it, fails where either lies wholly outside, undetermined where one crosses an edge (or is not "
          "defined); per corpus and family.", needs=("three sizes",)),
    Claim("B3.10", "Confidence's per-family fits are unstable: their R² vary widely across families and datasets "
                   "(paper B §4.2 (iii))", "empirical",
          f"Over every per-family fit (each corpus and family with at least {MIN_SIZES} sizes), the R² of log |Conf| "
          f"spans at least {B3_UNSTABLE_RANGE} (wider than the 0.26 span of the per-family EE R² in the paper's "
          "Table 1, a quantity it calls robust), and the lowest and the highest R² differ beyond the noise (their "
          f"intervals, each a {INTERVAL}, do not overlap; where they overlap the spread is undetermined, not "
          "refuted). One unit: the set of per-family fits; needs two of them. Only fits whose Confidence exponent "
          "has converged at the evaluated token count enter it (as in B3.8, " + _CONVERGED + "): an R² of a law "
          "whose exponent still drifts as tokens are added describes the sample, not the family, so its instability "
          "would be the sample's; the others are shown with their drift and not counted, and with fewer than two "
          "converged fits the claim is not tested.",
          "R² 0.12–0.94 across 9 family-dataset cells", needs=("three sizes",)),
    Claim("B3.11", "Self-Alignment has no power law across families pooled either (paper B §4.2 (ii), Table 1 "
                   "“All”: the mixed-model SA fits are among its lower R²)", "empirical",
          f"The pooled fit's R²(SA), its {INTERVAL} read against {B3_NO_LAW_R2} (B3.3's threshold, in the gap "
          f"between the paper's strong and weak SA fits; wholly below holds, wholly above fails, across it or not "
          f"defined undetermined), per corpus. Why: B3.3 tests SA family by family, and the paper's pooled row is a "
          "claim of its own (the mixed-model case, where the paper's Conf fits are also read, B3.4); an SA that "
          "cannot be fitted (a value of 0) has no power law either. Needs two families, one with at least three "
          "sizes.", needs=("three sizes", "two families")),
)


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class ComponentUnit:
    """What B3's rules read of one unit: one family's models on one corpus, or every model of the corpus pooled
    (paper B's "All").

    Attributes
    ----------
    unit : Unit
        ``Unit(corpus, family)`` or ``Unit(corpus, pooled=True)``.
    fits : rankscale.analysis.fit.Bootstrap
        ``components.group_bootstrap`` of the unit's models: fits of CE, EE, SA and Conf on all tokens (``points``,
        in ``QUANTITIES`` order) and their paired replicates (``slopes``, ``r2``, each of shape (4, n_boot)).
    convergence : mapping of str to rankscale.analysis.sample_size.ExponentConvergence
        Each quantity's exponent against the number of evaluation tokens: its drift over the last doubling
        (``error``), the drift allowed (``tolerance``), and ``converged``.
    shares : mapping of str to float, optional
        EE's, SA's and Conf's shares of CE's change from the family's smallest to its largest model
        (``components.change_shares``); None for a pooled unit.
    share_intervals : mapping of str to (float, float) or None, optional
        Their ``bootstrap.interval`` (None where a replicate is not finite).
    delta_ce : float, optional
        CE's change from the smallest to the largest model (nats); None for a pooled unit.
    level : float
        Of every interval.

    Examples
    --------
    >>> points = [PowerLawFit(s, 0.0, 0.9, 3) for s in (-0.1, -0.12, 0.05, 0.2)]
    >>> u = ComponentUnit(Unit("pydocs", "NeoX"), Bootstrap(points, np.zeros((4, 2)), np.full((4, 2), 0.9)), {})
    >>> u.fit("SA").slope, u.r2_replicates("EE").tolist()
    (0.05, [0.9, 0.9])
    """

    unit: Unit
    fits: Bootstrap
    convergence: Mapping[str, ExponentConvergence]
    shares: Mapping[str, float] | None = None
    share_intervals: Mapping[str, tuple[float, float] | None] | None = None
    delta_ce: float | None = None
    level: float = LEVEL

    def fit(self, quantity: str) -> PowerLawFit | None:
        """The fit of ``quantity`` on all tokens (None where not fittable)."""
        return self.fits.points[QUANTITIES.index(quantity)]

    def r2_replicates(self, quantity: str) -> np.ndarray:
        """(n_boot,) R^2 of ``quantity``'s fit on each resample."""
        return self.fits.r2[QUANTITIES.index(quantity)]


@dataclass(frozen=True)
class ComponentScaling:
    """Chapter B3's evidence: the ``ComponentUnit`` of every family and of the pooled fit on every corpus, and
    what the chapter's figure and tables show beside them.

    Attributes
    ----------
    units : mapping of (str, str) to ComponentUnit
        By (corpus, group), a group a family or ``POOLED``; only groups of two sizes or more (a fit needs two),
        corpus by corpus, groups in ``fit_groups`` order.
    values : mapping of str to pandas.DataFrame
        Per corpus, every model's family, name, size and CE, EE, SA, Conf on all tokens.
    n_sizes, n_models : mapping of str to int
        Per group of ``fit_groups``: distinct sizes and models.
    windows, tokens : mapping of str to tuple of int
        Per corpus, the distinct numbers of evaluation windows and of tokens of its models.
    pooled_reason : str or None
        Why the families cannot be pooled (``Chapter.pooled_reason``); None where they can.
    """

    units: Mapping[tuple[str, str], ComponentUnit]
    values: Mapping[str, pd.DataFrame]
    n_sizes: Mapping[str, int]
    n_models: Mapping[str, int]
    windows: Mapping[str, tuple[int, ...]]
    tokens: Mapping[str, tuple[int, ...]]
    pooled_reason: str | None

    @property
    def corpora(self) -> list[str]:
        """The corpora, in order."""
        return list(self.values)

    @property
    def groups(self) -> list[str]:
        """The families, then ``POOLED`` where there are two or more."""
        return list(self.n_sizes)

    def fit(self, corpus: str, group: str, quantity: str) -> PowerLawFit | None:
        """The fit of ``quantity`` of one group, None where the group has one size or the quantity a zero."""
        unit = self.units.get((corpus, group))
        return None if unit is None else unit.fit(quantity)

    def family_units(self, context: Context) -> list[ComponentUnit]:
        """The units of the families with ``MIN_SIZES`` sizes, corpus by corpus: those a size claim is tested on."""
        return [self.units[c, family] for c in self.corpora for family in context.usable()]

    def pooled_units(self) -> list[ComponentUnit]:
        """The pooled unit of every corpus, none where the families cannot be pooled."""
        return [self.units[c, POOLED] for c in self.corpora] if self.pooled_reason is None else []


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def change_split(terms: CorpusTerms, family: str, level: float = LEVEL) -> tuple[dict, dict, float]:
    """How CE's change from a family's smallest to its largest model splits into EE's, SA's and -Conf's
    (``components.change_shares``), with the shares' intervals from the paired resamples.

    Parameters
    ----------
    terms : CorpusTerms
    family : str
        A family of at least two sizes (the first of its smallest and of its largest models is taken).
    level : float

    Returns
    -------
    shares : dict of str to float
    intervals : dict of str to (float, float) or None
    delta_ce : float
        CE of the largest model minus CE of the smallest (nats).
    """
    idx = terms.index(family)
    first = min(idx, key=lambda i: terms.runs[i].non_embedding)
    last = max(idx, key=lambda i: terms.runs[i].non_embedding)
    shares = components.change_shares(terms.full[first], terms.full[last])
    replicates = components.change_shares(terms.replicates[:, first], terms.replicates[:, last])
    intervals = {q: bootstrap.interval(shares[q], replicates[q], level) for q in metrics.COMPONENTS}
    return shares, intervals, float(terms.full[last, 0] - terms.full[first, 0])


def measure_corpus(corpus: str, terms: CorpusTerms, groups: Sequence[str], context: Context
                   ) -> dict[tuple[str, str], ComponentUnit]:
    """The ``ComponentUnit`` of every group of two sizes or more on one corpus: its fits on the paired resamples,
    its exponents' convergence with the number of evaluation tokens (chapter B5's check, drawn with
    ``context.seed``), and, for a family, the split of CE's change.

    Parameters
    ----------
    corpus : str
    terms : CorpusTerms
        The corpus's quantities (``corpus_terms``).
    groups : sequence of str
        ``fit_groups`` of the set's families.
    context : Context
        Its ``seed`` and ``level``.

    Returns
    -------
    dict of (str, str) to ComponentUnit
    """
    index = {g: terms.index(g) for g in groups}
    index = {g: idx for g, idx in index.items() if len(np.unique(terms.sizes[idx])) > 1}
    convergence = sample_size.convergence_by_group(
        terms.sizes, [run.records for run in terms.runs], index, min_tokens=B5_MIN_TOKENS, n_grid=B5_N_GRID,
        n_repeats=B5_N_REPEATS, tolerance=B5_EXPONENT_TOLERANCE, floor=B5_EXPONENT_FLOOR, seed=context.seed)
    units = {}
    for g, idx in index.items():
        fits = components.group_bootstrap(terms.sizes[idx], terms.full[idx], terms.replicates[:, idx], context.level)
        split = (None, None, None) if g == POOLED else change_split(terms, g, context.level)
        unit = Unit(corpus, pooled=True) if g == POOLED else Unit(corpus, g)
        units[corpus, g] = ComponentUnit(unit, fits, convergence[g], *split, level=context.level)
    return units


def measure(chapter: Chapter, context: Context) -> ComponentScaling:
    """Chapter B3's evidence: every family's and the pooled fit's ``ComponentUnit`` on every corpus
    (``measure_corpus``), every model's quantities, and the numbers of evaluation tokens.

    Parameters
    ----------
    chapter : Chapter
        The families' final models per corpus, and the extra training runs of the sizes that have them.
    context : Context
        The bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    ComponentScaling
    """
    groups = fit_groups(chapter.families)
    first = chapter.family_runs[chapter.corpora[0]]
    members = {g: [run for run in first if g == POOLED or run.family == g] for g in groups}
    units, values, windows, tokens = {}, {}, {}, {}
    for corpus in chapter.corpora:
        terms = corpus_terms(chapter, corpus, context)
        units.update(measure_corpus(corpus, terms, groups, context))
        values[corpus] = pd.DataFrame([{"family": run.family, "model": run.name, "size": float(run.non_embedding),
                                        **dict(zip(QUANTITIES, terms.full[i]))} for i, run in enumerate(terms.runs)])
        windows[corpus] = tuple(sorted({sample_size.n_windows(run.records.window) for run in terms.runs}))
        tokens[corpus] = tuple(sorted({len(run.records) for run in terms.runs}))
    return ComponentScaling(units, values, {g: len({run.non_embedding for run in members[g]}) for g in groups},
                            {g: len(members[g]) for g in groups}, windows, tokens, chapter.pooled_reason)


# ---------------------------------------------------------------------------------------------
# The rules, each read on one unit: (its outcome there, what was measured)

def ee_law(unit: ComponentUnit) -> tuple[Reading, str]:
    """B3.1 and B3.7: EE's R^2, its interval read against ``B3_LAW_R2`` (``read``)."""
    f = unit.fit("EE")
    lo_hi = interval(f.r2, unit.r2_replicates("EE"), unit.level)
    return read(lo_hi, B3_LAW_R2, missing=UNDETERMINED), f"{f.r2:.3f} {interval_text(lo_hi, sign='')}"


def ee_fits_better(unit: ComponentUnit) -> tuple[Reading, str]:
    """B3.2: R^2(EE) - R^2(CE), its paired interval read against 0 (``read``)."""
    point = unit.fit("EE").r2 - unit.fit("CE").r2
    lo_hi = interval(point, unit.r2_replicates("EE") - unit.r2_replicates("CE"), unit.level)
    return read(lo_hi, missing=UNDETERMINED), f"{point:+.3f} {interval_text(lo_hi)}"


def no_law(unit: ComponentUnit, quantity: str) -> tuple[Reading, str]:
    """B3.3 (SA per family), B3.4 (Conf pooled) and B3.11 (SA pooled): the R^2 of ``quantity``'s fit, its interval
    read below ``B3_NO_LAW_R2`` (``read``: wholly below holds, wholly above fails, across it or not defined
    undetermined); a quantity that cannot be fitted (a value of zero) has no power law either.

    >>> u = ComponentUnit(Unit("pydocs", pooled=True),
    ...                   Bootstrap([PowerLawFit(0.1, 0.0, r2, 5) for r2 in (0.9, 0.9, 0.2, 0.9)], np.zeros((4, 2)),
    ...                             np.array([[0.9, 0.9]] * 2 + [[0.1, 0.3], [0.9, 0.9]])), {})
    >>> no_law(u, "SA")
    (Reading(outcome=True, fragile=False), '0.200 [0.004, 0.396]')
    """
    fitted = unit.fit(quantity)
    if fitted is None:
        return Reading(True), "not fittable (a value is 0)"
    lo_hi = interval(fitted.r2, unit.r2_replicates(quantity), unit.level)
    return read(lo_hi, B3_NO_LAW_R2, sign=-1, missing=UNDETERMINED), f"{fitted.r2:.3f} {interval_text(lo_hi, sign='')}"


def farther(unit: ComponentUnit, far: str, near: str) -> tuple[Reading, str]:
    """Whether ``far``'s exponent lies farther from CE's than ``near``'s: |Δ_far| - |Δ_near|, its paired interval
    widened by both exponents' drift over the last doubling of the tokens, read against 0 (``read``)."""
    point, replicates = gap_difference(unit.fits, far, near)
    lo_hi = interval(point, replicates, unit.level)
    drift = unit.convergence[far].error + unit.convergence[near].error
    widened = None if lo_hi is None else (lo_hi[0] - drift, lo_hi[1] + drift)
    return read(widened, missing=UNDETERMINED), f"{point:+.4f} {interval_text(lo_hi, 4)} ± {drift:.4f}"


def _all_farther(unit: ComponentUnit, pairs: Mapping[str, tuple[str, str]]) -> tuple[Reading, str]:
    """``farther`` on each (far, near) pair, named by the quantity it compares with; all must hold (``every``)."""
    results = {name: farther(unit, far, near) for name, (far, near) in pairs.items()}
    return every(*(reading for reading, _ in results.values())), "; ".join(
        f"{name} {text}" for name, (_, text) in results.items())


def ee_closest(unit: ComponentUnit) -> tuple[Reading, str]:
    """B3.5: SA's and Conf's exponents both farther from CE's than EE's (``farther``)."""
    return _all_farther(unit, {other: (other, "EE") for other in ("SA", "Conf")})


def sa_farthest(unit: ComponentUnit) -> tuple[Reading, str]:
    """B3.6: SA's exponent farther from CE's than EE's and than Conf's (``farther``)."""
    return _all_farther(unit, {other: ("SA", other) for other in ("EE", "Conf")})


def sa_rises(unit: ComponentUnit) -> tuple[Reading, str]:
    """B3.8: SA's size exponent, its interval read against 0 (``read``)."""
    f = unit.fit("SA")
    return read(f.ci, missing=UNDETERMINED), f"{f.slope:+.4f} {interval_text(f.ci, 4)}"


def sa_conf_invariant(unit: ComponentUnit) -> tuple[Reading, str]:
    """B3.9: SA's and Conf's shares of CE's change, each interval read against ``B3_INVARIANT_BAND`` (``read_band``):
    holds where both lie wholly inside it, fails where one lies wholly outside, undetermined where one crosses an
    edge (or is not defined)."""
    readings = [read_band(unit.share_intervals[q], B3_INVARIANT_BAND, missing=UNDETERMINED) for q in ("SA", "Conf")]
    return every(*readings), ", ".join(f"{q} {unit.shares[q]:+.3f} {interval_text(unit.share_intervals[q])}"
                                       for q in ("SA", "Conf"))


def apart(low: tuple[float, float] | None, high: tuple[float, float] | None) -> Reading:
    """Whether the interval ``low`` of the lowest R^2 lies wholly below the interval ``high`` of the highest (B3.10's
    "beyond the noise"): True apart, ``UNDETERMINED`` where they overlap or one is not defined (the highest's point
    lies above the lowest's, so the order itself is never refuted); fragile where the ends that meet lie within
    either interval's noise of each other (``near_edge``).

    >>> apart((0.1, 0.3), (0.6, 0.9)), apart((0.1, 0.5), (0.4, 0.9)).outcome, apart((0.1, 0.5), (0.505, 0.9)).fragile
    (Reading(outcome=True, fragile=False), 'undetermined', True)
    """
    if low is None or high is None:
        return Reading(UNDETERMINED)
    return Reading(True if low[1] < high[0] else UNDETERMINED,
                   near_edge(low, [high[0]]) or near_edge(high, [low[1]]))


def conf_spread(units: Sequence[ComponentUnit]) -> tuple[Reading, str] | None:
    """B3.10, read on the per-family fits together: the R^2 of Confidence's fits spread over at least
    ``B3_UNSTABLE_RANGE`` (a point condition: fails below it), and the intervals of the lowest and the highest
    apart (``apart``: undetermined where they overlap); None with fewer than two fits (a unit whose Conf cannot be
    fitted is left out)."""
    fitted = [(u, u.fit("Conf")) for u in units if u.fit("Conf") is not None]
    if len(fitted) < 2:
        return None
    r2 = {u.unit.label: (f.r2, interval(f.r2, u.r2_replicates("Conf"), u.level)) for u, f in fitted}
    low, high = min(r2, key=lambda name: r2[name][0]), max(r2, key=lambda name: r2[name][0])
    separated = apart(r2[low][1], r2[high][1])
    spread = r2[high][0] - r2[low][0]
    return every(Reading(bool(spread >= B3_UNSTABLE_RANGE)), separated), "; ".join(
        f"{name} {value:.3f} {interval_text(ci, sign='')}" for name, (value, ci) in r2.items()) + \
        f"; span {spread:.3f}, lowest and highest {'apart' if separated.outcome is True else 'overlapping'}"


# ---------------------------------------------------------------------------------------------
# The verdicts: each rule over its units, with the paper's own tables under the same condition

def _named(unit: Unit, notes: Mapping[Unit, str]) -> str:
    return f"{unit.label} ({notes[unit]})" if unit in notes else unit.label


def _component_verdict(key: str, units: Sequence[ComponentUnit],
                       rule: Callable[[ComponentUnit], tuple[Reading, str]], *, label: str, paper: str,
                       untested: Mapping[Unit, str], needs: Sequence[str] = (), why_not: str = "") -> Verdict:
    """Grade ``key``: ``rule(unit)`` gives (outcome, text) on each unit whose exponents of ``needs`` have converged,
    the outcome a ``Reading`` of an interval (its fragile units named by ``judge``); the others, and ``untested``
    (e.g. a family with too few sizes, with why), are named as untested."""
    outcomes, notes, texts = dict.fromkeys(untested), dict(untested), []
    for unit in units:
        drifting = [f"α_{q} drifts {unit.convergence[q].error:.4f}, allowed {unit.convergence[q].tolerance:.4f}"
                    for q in needs if not unit.convergence[q].converged]
        if drifting:
            outcomes[unit.unit], notes[unit.unit] = None, "; ".join(drifting)
            continue
        outcomes[unit.unit], text = rule(unit)
        texts.append(f"{unit.unit.label} {text}")
    if not texts:
        reasons = [_named(u, notes) for u in outcomes] or [why_not or f"no family has {MIN_SIZES} or more sizes"]
        return judge(key, outcomes, "", paper=paper, why_not="; ".join(reasons))
    return judge(key, outcomes, f"{label}: " + "; ".join(texts), paper=paper, notes=notes)


def paper_table(context: Context, name: str) -> pd.DataFrame:
    """Paper B's Table 1 (``TABLE1``, R^2) or Table 2 (``TABLE2``, exponent gaps) in its own layout: a row per family
    of ``PAPER_FAMILIES`` and the pooled row, a column per dataset of ``PAPER_DATASETS`` and quantity."""
    value, quantities = ("r2", QUANTITIES) if name == TABLE1 else ("abs_delta_exponent", metrics.COMPONENTS)
    wide = context.table(name).pivot(index="family", columns=["dataset", "component"], values=value)
    return wide.loc[[*PAPER_FAMILIES, PAPER_POOLED], [(d, q) for d in PAPER_DATASETS for q in quantities]]


def paper_cells(context: Context, rows: Sequence[str] = PAPER_FAMILIES) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paper B's cells of the rows ``rows``: its Table 1 R^2 and its Table 2 gaps, each a row per (family, dataset)
    and a column per quantity, for a rule's condition on the paper's own numbers."""
    r2, gap = (paper_table(context, name).loc[list(rows)].stack(level=0, future_stack=True) for name in TABLES)
    return r2, gap


def cells_text(hits: pd.Series, rows: Sequence[str] = PAPER_FAMILIES) -> str:
    """How many of the paper's cells of ``rows`` meet a condition, in the paper column's words.

    >>> cells_text(pd.Series([True, False, True]), ["All"])
    '2/3 datasets (All row)'
    """
    what = ("family-dataset cells" if PAPER_POOLED not in rows else "cells, All row included") if len(rows) > 1 \
        else f"datasets ({rows[0]} row)"
    return f"{int(hits.sum())}/{len(hits)} {what}"


EVERY_ROW = (*PAPER_FAMILIES, PAPER_POOLED)


def ee_law_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.1: ``ee_law`` on every family of ``MIN_SIZES`` sizes.

    Parameters
    ----------
    evidence : ComponentScaling
    context : Context
        Which families have enough sizes, and paper B's Tables 1-2 (``TABLES``).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    r2, _ = paper_cells(context)
    return _component_verdict("B3.1", evidence.family_units(context), ee_law, label="R²_EE [95% interval]",
                              paper=f"R² ≥ {B3_LAW_R2} in {cells_text(r2['EE'] >= B3_LAW_R2)}",
                              untested=too_few(context))


def ee_fits_better_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.2: ``ee_fits_better`` on every family of ``MIN_SIZES`` sizes and every pooled fit. Parameters as
    ``ee_law_verdict``."""
    r2, _ = paper_cells(context, EVERY_ROW)
    return _component_verdict("B3.2", evidence.family_units(context) + evidence.pooled_units(), ee_fits_better,
                              label="R²_EE − R²_CE [95% interval]",
                              paper=f"R²_EE > R²_CE in {cells_text(r2['EE'] > r2['CE'], EVERY_ROW)}",
                              untested=too_few(context))


def sa_no_law_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.3: ``no_law`` of SA on every family of ``MIN_SIZES`` sizes. Parameters as ``ee_law_verdict``."""
    r2, _ = paper_cells(context)
    return _component_verdict("B3.3", evidence.family_units(context), partial(no_law, quantity="SA"),
                              label="R²_SA [95% interval]", paper=f"R² below {B3_NO_LAW_R2} in {cells_text(r2['SA'] < B3_NO_LAW_R2)}",
                              untested=too_few(context))


def conf_no_law_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.4: ``no_law`` of Conf on every pooled fit. Parameters as ``ee_law_verdict``."""
    r2, _ = paper_cells(context, [PAPER_POOLED])
    return _component_verdict("B3.4", evidence.pooled_units(), partial(no_law, quantity="Conf"),
                              label="pooled R²_Conf [95% interval]",
                              paper=f"R² below {B3_NO_LAW_R2} in {cells_text(r2['Conf'] < B3_NO_LAW_R2, [PAPER_POOLED])}",
                              untested={}, why_not=evidence.pooled_reason or "")


def ee_closest_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.5: ``ee_closest`` on every family of ``MIN_SIZES`` sizes and every pooled fit. Parameters as
    ``ee_law_verdict``."""
    _, gap = paper_cells(context, EVERY_ROW)
    closest = (gap["EE"] < gap["SA"]) & (gap["EE"] < gap["Conf"])
    return _component_verdict("B3.5", evidence.family_units(context) + evidence.pooled_units(), ee_closest,
                              label="|Δ_M| − |Δ_EE| [95% interval] ± drift of the two exponents",
                              paper=f"smallest |Δ| in {cells_text(closest, EVERY_ROW)}", untested=too_few(context))


def sa_farthest_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.6: ``sa_farthest`` on every family of ``MIN_SIZES`` sizes and every pooled fit. Parameters as
    ``ee_law_verdict``."""
    _, gap = paper_cells(context, EVERY_ROW)
    farthest = (gap["SA"] > gap["EE"]) & (gap["SA"] > gap["Conf"])
    return _component_verdict("B3.6", evidence.family_units(context) + evidence.pooled_units(), sa_farthest,
                              label="|Δ_SA| − |Δ_M| [95% interval] ± drift of the two exponents",
                              paper=f"largest |Δ| in {cells_text(farthest, EVERY_ROW)}", untested=too_few(context))


def pooled_ee_law_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.7: ``ee_law`` on every pooled fit. Parameters as ``ee_law_verdict``."""
    r2, _ = paper_cells(context, [PAPER_POOLED])
    every = ", ".join(f"{d} {r2.loc[(PAPER_POOLED, d), 'EE']:.2f}" for d in PAPER_DATASETS)
    return _component_verdict("B3.7", evidence.pooled_units(), ee_law, label="R²_EE [95% interval]",
                              paper=f"R²_EE ≥ {B3_LAW_R2} in {cells_text(r2['EE'] >= B3_LAW_R2, [PAPER_POOLED])}: "
                                    + every, untested={}, why_not=evidence.pooled_reason or "")


def sa_rises_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.8: ``sa_rises`` on every family of ``MIN_SIZES`` sizes and every pooled fit where SA's exponent has
    converged. Parameters as ``ee_law_verdict``."""
    return _component_verdict("B3.8", evidence.family_units(context) + evidence.pooled_units(), sa_rises,
                              label="α_SA [95% interval]",
                              paper="upward trend (Fig. 7, 16 models of several families; qualitative)", needs=("SA",),
                              untested=too_few(context))


def sa_conf_invariant_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.9: ``sa_conf_invariant`` on every family of ``MIN_SIZES`` sizes. Parameters as ``ee_law_verdict``."""
    return _component_verdict("B3.9", evidence.family_units(context), sa_conf_invariant,
                              label="share of ΔCE, smallest to largest model [95% interval]",
                              paper="“remain largely invariant” (qualitative)", untested=too_few(context))


def conf_unstable_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.10: ``conf_spread`` over the per-family fits whose Confidence exponent has converged, together, one unit of
    no corpus and no family (``Unit()``); not testable with fewer than two such fits, the others shown. Parameters as
    ``ee_law_verdict``."""
    r2, _ = paper_cells(context)
    paper = f"R² {span(r2['Conf'], '.2f')} across {len(r2)} family-dataset cells"
    units, untested = evidence.family_units(context), too_few(context)
    converged = [u for u in units if u.convergence["Conf"].converged]
    drifting = "; ".join(f"{u.unit.label} {u.fit('Conf').r2:.3f} (α_Conf drifts {u.convergence['Conf'].error:.4f}, "
                         f"allowed {u.convergence['Conf'].tolerance:.4f})"
                         for u in units if not u.convergence["Conf"].converged and u.fit("Conf") is not None)
    beside = f"not converged, shown and not counted: R²_Conf {drifting}" if drifting else ""
    found = conf_spread(converged)
    if found is None:
        fitted = sum(u.fit("Conf") is not None for u in converged)
        return judge("B3.10", dict.fromkeys(untested), beside, paper=paper, why_not="; ".join(
            [*(_named(u, untested) for u in untested),
             f"{fitted} per-family Conf fit{'s' * (fitted != 1)} whose exponent has converged: the spread needs "
             f"two"]))
    outcome, text = found
    return judge("B3.10", {**dict.fromkeys(untested), Unit(): outcome},
                 "R²_Conf of the fits whose exponent has converged [95% interval]: " + text
                 + (f"; {beside}" if beside else ""), paper=paper, notes=untested)


def pooled_sa_no_law_verdict(evidence: ComponentScaling, context: Context) -> Verdict:
    """B3.11: ``no_law`` of SA on every pooled fit, the paper's pooled SA R^2 (Table 1's "All" row) beside it.
    Parameters as ``ee_law_verdict``."""
    r2, _ = paper_cells(context, [PAPER_POOLED])
    every = ", ".join(f"{d} {r2.loc[(PAPER_POOLED, d), 'SA']:.2f}" for d in PAPER_DATASETS)
    return _component_verdict("B3.11", evidence.pooled_units(), partial(no_law, quantity="SA"),
                              label="pooled R²_SA [95% interval]",
                              paper=f"R²_SA below {B3_NO_LAW_R2} in {cells_text(r2['SA'] < B3_NO_LAW_R2, [PAPER_POOLED])}: "
                                    + every, untested={}, why_not=evidence.pooled_reason or "")


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"B3.1": ee_law_verdict, "B3.2": ee_fits_better_verdict, "B3.3": sa_no_law_verdict,
         "B3.4": conf_no_law_verdict, "B3.5": ee_closest_verdict, "B3.6": sa_farthest_verdict,
         "B3.7": pooled_ee_law_verdict, "B3.8": sa_rises_verdict, "B3.9": sa_conf_invariant_verdict,
         "B3.10": conf_unstable_verdict, "B3.11": pooled_sa_no_law_verdict}


SPEC = ChapterSpec("B3", CLAIMS_B3, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables, and its headline for the findings

def _row_labels(evidence: ComponentScaling) -> list[str]:
    return [f"{g} ({evidence.n_models[g]} models{', pooled' if g == POOLED else ''})" for g in evidence.groups]


def r2_table(evidence: ComponentScaling) -> pd.DataFrame:
    """Our R^2 in the layout of paper B's Table 1: a row per family and the pooled fit, a column per corpus and
    quantity; NaN where a group has fewer than ``MIN_SIZES`` sizes (a line through two points fits exactly)."""
    return pd.DataFrame({(c, q): [f.r2 if (f := evidence.fit(c, g, q)) and evidence.n_sizes[g] >= MIN_SIZES
                                  else np.nan for g in evidence.groups] for c in evidence.corpora for q in QUANTITIES},
                        index=pd.Index(_row_labels(evidence), name="R²"))


def gaps_table(evidence: ComponentScaling) -> pd.DataFrame:
    """Our exponent gaps |α_M − α_CE| in the layout of paper B's Table 2 (``components.exponent_gaps``); NaN where
    a group has no fit."""
    def gaps(c, g):
        unit = evidence.units.get((c, g))
        return {} if unit is None else components.exponent_gaps(dict(zip(QUANTITIES, unit.fits.points)))
    return pd.DataFrame({(c, q): [gaps(c, g).get(q, np.nan) for g in evidence.groups]
                         for c in evidence.corpora for q in metrics.COMPONENTS},
                        index=pd.Index(_row_labels(evidence), name="|Δ|"))


def convergence_table(evidence: ComponentScaling) -> pd.DataFrame:
    """Whether each exponent has converged (chapter B5's check), per corpus, fit and quantity: the exponent on every
    token, its drift over the last doubling of the tokens, the drift allowed, and "yes" or "no"."""
    return pd.DataFrame([{"corpus": c, "fit": g, "quantity": f"α_{q}", "exponent": v.full,
                          "drift over the last doubling": v.error, "allowed": v.tolerance,
                          "converged": "yes" if v.converged else "no"}
                         for (c, g), unit in evidence.units.items() for q, v in unit.convergence.items()])


def converged_counts(table: pd.DataFrame) -> tuple[str, str]:
    """How many exponents of ``convergence_table`` have converged, in all and per quantity ("12 of 27",
    "α_CE: 9 of 9, ...").

    >>> converged_counts(pd.DataFrame({"quantity": ["α_CE", "α_SA", "α_SA"], "converged": ["yes", "no", "yes"]}))
    ('2 of 3', 'α_CE: 1 of 1, α_SA: 1 of 2')
    """
    if not len(table):
        return "0 of 0", "none"
    yes = table["converged"] == "yes"
    return f"{int(yes.sum())} of {len(table)}", ", ".join(
        f"{q}: {int(y.sum())} of {len(y)}" for q, y in yes.groupby(table["quantity"], sort=False))


def exponents_table(evidence: ComponentScaling) -> pd.DataFrame:
    """Every fit's exponent α of |M| against size, per corpus, fit and quantity, with its interval, R^2 (where the
    group has ``MIN_SIZES`` sizes), the mean of its replicates, and whether it converged."""
    rows = []
    for c in evidence.corpora:
        for g in evidence.groups:
            for i, q in enumerate(QUANTITIES):
                f = evidence.fit(c, g, q)
                if f is None:
                    continue
                unit = evidence.units[c, g]
                rows.append({"corpus": c, "fit": g, "sizes": evidence.n_sizes[g], "quantity": f"|{q}|",
                             "exponent α": f.slope,
                             "95% interval": f"[{f.ci[0]:+.4f}, {f.ci[1]:+.4f}]" if f.ci else "—",
                             "R²": f.r2 if evidence.n_sizes[g] >= MIN_SIZES else np.nan,
                             "mean of the replicates": np.mean(unit.fits.slopes[i]),
                             "converged": "yes" if unit.convergence[q].converged else "no"})
    return pd.DataFrame(rows)


def exponent_spans(table: pd.DataFrame) -> tuple[int, str]:
    """The (corpus, fit) pairs of ``exponents_table`` and the range of each quantity's exponent over them.

    >>> exponent_spans(pd.DataFrame({"corpus": ["a", "a"], "fit": ["F", "F"], "quantity": ["|CE|", "|EE|"],
    ...                              "exponent α": [-0.1, -0.12]}))
    (1, '|CE| -0.100; |EE| -0.120')
    """
    if not len(table):
        return 0, "none"
    return len(table[["corpus", "fit"]].drop_duplicates()), "; ".join(
        f"{q} {span(a, '+.3f')}" for q, a in table.groupby("quantity", sort=False)["exponent α"])


def changes_table(evidence: ComponentScaling) -> pd.DataFrame:
    """How CE's change from each family's smallest to its largest model splits, per corpus: ΔCE (nats) and the
    share each component carries, with its interval (the shares sum to 1)."""
    return pd.DataFrame([{"corpus": c, "family": g, "ΔCE (nats)": unit.delta_ce,
                          **{f"{q} share": f"{unit.shares[q]:+.3f} {interval_text(unit.share_intervals[q])}"
                             for q in metrics.COMPONENTS}}
                         for (c, g), unit in evidence.units.items() if unit.shares is not None])


def evaluated(evidence: ComponentScaling) -> str:
    """How many windows and tokens each model is evaluated on, per corpus ("800 windows (409,600 tokens) of
    pydocs, ..."; several numbers where the models differ).

    >>> evaluated(ComponentScaling({}, {"pydocs": None}, {}, {}, {"pydocs": (800,)}, {"pydocs": (409600, 409700)},
    ...                            None))
    '800 windows (409,600/409,700 tokens) of pydocs'
    """
    return ", ".join(f"{'/'.join(f'{n:,}' for n in evidence.windows[c])} windows "
                     f"({'/'.join(f'{n:,}' for n in evidence.tokens[c])} tokens) of {c}" for c in evidence.corpora)


def headline(evidence: ComponentScaling, context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): on the first
    corpus, each family's exponents of CE and EE and their R^2; none where no family has ``MIN_SIZES`` sizes.

    Parameters
    ----------
    evidence : ComponentScaling
    context : Context

    Returns
    -------
    list of str
    """
    usable, first = context.usable(), evidence.corpora[0]
    if not usable:
        return []
    return [f"On {first}, " + "; ".join(
        f"{g}: α_CE {evidence.fit(first, g, 'CE').slope:+.3f} and α_EE {evidence.fit(first, g, 'EE').slope:+.3f}, "
        f"R² of EE {evidence.fit(first, g, 'EE').r2:.2f} against CE's {evidence.fit(first, g, 'CE').r2:.2f}"
        for g in usable) + "."]
