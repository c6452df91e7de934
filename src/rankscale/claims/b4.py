"""Chapter B4 of the claims stage, the components' shares of cross-entropy and the slowing of the CE law (paper B §5,
Fig. 8): its thresholds and claims, its evidence (``Shares``: every model's shares of CE, each family's smallest
model's EE/CE, the trend of EE's share with size per family and pooled, and the bend of each family's CE law, all
with intervals from the resamples of chapter B3, whole documents, ``rankscale.claims.paper_b.corpus_terms``) and its two steps,
``measure`` (the chapter's runs to that evidence) and ``decide`` (the evidence to the chapter's verdicts), with the
rule of each claim read on one unit as a small function of its own and the evidence laid out as the chapter's tables
and figures' data.

Two shares, each fixed before the data for what it is read for. B4.2, "EE's share falls" (Fig. 8), grades the
quantity Fig. 8 plots: "the relative ratio of decomposed components", stacked to 100%, i.e. the magnitude share
|EE| / (|EE| + |SA| + |Conf|); EE's signed contribution EE / CE is shown beside it. The mechanism (B4.4) reads the
same share through B4.2's own reading (``falls``): §5's explanation is that "the proportion of Error-Entropy
declines" as Fig. 8 shows it, so the share whose fall is to slow the CE law is Fig. 8's. B4.1 reads EE / CE: §5
speaks of how much of the loss EE "contributes". The two are equal whenever Conf <= 0, as for the paper's large
models; where Confidence is positive, EE / CE exceeds 1 and cannot be a part of a stacked 100%, and it can rise with
size while Fig. 8's share falls (Confidence growing in magnitude takes a larger part of the stack and a smaller
part of CE). Intervals (the value -+ z standard deviations of its replicates, from the same resamples of every
model's tokens as B3) and how they decide: as in B3, one reading (``rankscale.claims.base.read``): wholly on the
claim's side of the threshold holds, wholly on the other side fails, across the threshold (or not defined) is
undetermined, an end within the bootstrap's noise of the threshold named as fragile.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankscale.analysis import components, fit, metrics
from rankscale.analysis.bootstrap import INTERVAL, interval, interval_text, side, span
from rankscale.claims.base import (
    CURVE_MIN_SIZES,
    MIN_SEEDS,
    MIN_SIZES,
    ONE_READING,
    POOLED,
    UNDETERMINED,
    Claim,
    Reading,
    Unit,
    Verdict,
    index_claims,
    judge,
    read,
    too_few_sizes,
    undetermined,
)
from rankscale.claims.context import Chapter, Context
from rankscale.claims.paper_b import B3_LAW_R2, CorpusTerms, corpus_terms, fit_groups, too_few
from rankscale.claims.spec import ChapterSpec

B4_DOMINANT_SHARE = 0.8  # "dominates": the lower end of the paper's "about 80-90%" for small models (Fig. 8)
B4_CURVATURE_MIN_SIZES = CURVE_MIN_SIZES  # a quadratic in log size has three parameters: through three sizes it
# fits exactly, and the scatter between training runs would read as curvature
B4_MIN_SEEDS = MIN_SEEDS  # a curvature through one training run per size cannot tell a seed's luck from a bend: the
# scatter between runs is measured where a size has this many runs (``seed_scatter``), and every interval carries it at
# every size (``rankscale.analysis.bootstrap.resample``'s ``seeds``)
WHY_SEEDS = (f"no size with {B4_MIN_SEEDS} training runs: the scatter between runs is not measured, and a curvature "
             f"through single-run points cannot tell it from a bend")
# How the curvature's interval carries the scatter between training runs, said once in B4.3's and B4.4's rules
_SEED_SCATTER = (f"The replicates carry the scatter between training runs at every size, as every interval of the "
                 f"book does: a size with {B4_MIN_SEEDS} runs or more draws one of them in each replicate, and a size "
                 "with one run is moved by one of those runs' relative deviations from their size's mean (declared: "
                 "the scatter between runs is taken to be the same share of CE at every size of the family as at "
                 "its seeded sizes). Undetermined where no size of the family has "
                 f"{B4_MIN_SEEDS} runs, so that the scatter is not measured.")
READS = ("seeds",)  # the runs measure reads beside the families' final models (``load_chapter``'s keywords)
TABLE4 = "ce_paper_table4_models"  # paper B's Table 4: the models it evaluates, with their non-embedding sizes
TABLES = (TABLE4,)  # the paper gives its shares as a figure only; its Table 4 sets what B4.5 calls small

CLAIMS_B4 = index_claims(
    Claim("B4.1", "Error-Entropy dominates cross-entropy for small models (paper B §5, Fig. 8: “about 80–90%”)",
          "empirical",
          f"EE's share of Fig. 8, |EE| / (|EE| + |SA| + |Conf|) (the stacked percentage B4.2 grades), of each "
          f"family's smallest model, its {INTERVAL} read against {B4_DOMINANT_SHARE} (the lower end of the paper's "
          f"range; {ONE_READING}), per corpus and family. EE/CE, EE's signed contribution, is above 1 wherever "
          "Confidence is positive and is no share of a whole (an earlier rule graded it).",
          "about 80–90% (“nearly 90%” in §5)"),
    Claim("B4.2", "EE's share of CE falls as models grow (paper B §5, Fig. 8)", "empirical",
          f"The slope of log(|EE| / (|EE| + |SA| + |Conf|)) on log size, its {INTERVAL} read against 0 (wholly "
          f"below holds, wholly above fails, across 0 or not defined undetermined), per corpus and family with at "
          f"least {MIN_SIZES} sizes and for all models pooled (Fig. 8 mixes families). Why: Fig. 8 plots 'the "
          "relative ratio of decomposed components' stacked to 100%, and this magnitude share is that quantity; the "
          "paper gives no number for the fall, so the interval's side decides. The slope of log(EE/CE), EE's signed "
          "contribution (above 1 wherever Confidence is positive, so no part of a stacked 100%), is shown beside "
          "it, not graded (an earlier rule graded it).",
          "falls (16 models of several families, 14M–70B; qualitative)", needs=("three sizes",)),
    Claim("B4.3", "The CE power law slows down over this set's range of sizes (paper B §5 takes the slowing at "
                  "very large sizes from other work and calls the law clean for small models, so at this set's "
                  "scale this is the companion's question)", "beyond the paper",
          f"The curvature c of log CE = a + b·x + c·x² (x = log size), its {INTERVAL} read against 0 "
          f"(a falling law whose slope flattens; {ONE_READING}), per corpus and family with at least "
          f"{B4_CURVATURE_MIN_SIZES} sizes. " + _SEED_SCATTER + " (An earlier rule left the curvature undetermined "
          "wherever a size had a single run, so that a set seeded at its smaller sizes only could never decide it.)",
          "clean power law for small models, slower for very large ones (§5, citing others)",
          needs=("four sizes", "two seeds")),
    Claim("B4.4", "CE's law bends the way EE's share moves: it slows where EE's share falls (paper B §5's "
                  "explanation)", "empirical",
          "Where EE's share of Fig. 8, |EE| / (|EE| + |SA| + |Conf|), falls or rises with size as B4.2 reads it "
          "(the slope of its log on log size, its interval wholly below or wholly above 0), CE's curvature (B4.3) "
          "has the sign the paper's mechanism predicts (positive, a slowing law, where the share falls; negative "
          f"where it rises), read on its interval against 0 ({ONE_READING}); units whose share is flat within noise "
          "are untested (the mechanism predicts nothing there). Why: §5 explains the slowing by “the proportion of "
          "Error-Entropy” declining as Fig. 8 shows it, the share B4.2 grades (an earlier rule read EE/CE, which "
          "rises where a positive Confidence grows with size even as Fig. 8's share falls). The curvature's "
          "interval as "
          "B4.3's: " + _SEED_SCATTER,
          "EE's falling share explains the slowing (qualitative)", needs=("four sizes", "two seeds")),
    Claim("B4.5", "For small models cross-entropy follows a clean power law (paper B §5: with EE about 90% of CE, "
                  "“the overall loss therefore appears to follow a clean power law”)", "empirical",
          f"R² of the fit of log CE on log size over a family's small models, its {INTERVAL} read against "
          f"{B3_LAW_R2} ({ONE_READING}), per corpus and family with at least {MIN_SIZES} small sizes. Small: no "
          "larger than the median non-embedding size of the models paper B evaluates (its Table 4), the paper's own "
          "smaller half, fixed before the data. Why: the paper gives no number for “clean”; "
          f"{B3_LAW_R2} is what this book asks of EE's law (B3.1, a tenth below the paper's “close to 0.9” for EE), "
          "and the paper's reason for a clean CE law is that EE dominates it, so CE's fit must meet at least EE's "
          "bar. The R² of a logarithmic law (CE linear in log size) over the same models is shown beside it, not "
          "graded: over a narrow range of CE the two laws are hard to tell apart, so a pass says the CE points lie "
          "on a line in log-log, not that a power law is the only law they follow.",
          "clean power law for small models (qualitative, Fig. 8)", needs=("three sizes",)),
)

Estimate = tuple  # (value, its interval or None): a measured quantity with its bootstrap interval


@dataclass(frozen=True)
class SmallLaw:
    """CE's laws over one family's small models on one corpus (B4.5).

    Attributes
    ----------
    models, sizes : int
        The family's small models, and their distinct sizes.
    r2 : float
        R^2 of the fit of log CE on log size (NaN with fewer than two sizes).
    interval : (float, float) or None
        Its interval from the paired resamples (None where not defined).
    semilog_r2 : float
        R^2 of CE linear in log size over the same models (``fit.fit_semilog``), shown beside it.
    """

    models: int
    sizes: int
    r2: float
    interval: tuple[float, float] | None
    semilog_r2: float


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class Shares:
    """Chapter B4's evidence, every unit keyed by (corpus, group), a group a family or ``POOLED``.

    Attributes
    ----------
    models : mapping of str to pandas.DataFrame
        Per corpus, every model (``models_table``): its family, name, size, CE, EE, SA and Conf, their signed
        contributions to CE and their magnitude shares.
    smallest : mapping of (str, str) to (str, float, (float, float) or None)
        Per corpus and family, its smallest model's name, EE/CE and that share's interval.
    signed, magnitude : mapping of (str, str) to Estimate
        Per corpus and group of two sizes or more, the slope of log(share) on log size with its interval, of the
        signed share EE/CE and of the magnitude share |EE| / (|EE| + |SA| + |Conf|) (``components.share_trend``).
    bends : mapping of (str, str) to Estimate
        Per corpus and family of ``B4_CURVATURE_MIN_SIZES`` sizes, the curvature of log CE in log size
        (``components.curvature``) with its interval.
    seeds : mapping of (str, str) to int
        Per unit of ``bends``, the fewest training runs (seeds) the family has at any of its sizes.
    n_sizes : mapping of str to int
        Per group of ``paper_b.fit_groups``, its distinct sizes.
    pooled_reason : str or None
        Why the families cannot be pooled (``Chapter.pooled_reason``); None where they can.
    scatter : mapping of (str, str) to float, optional
        Per unit of ``bends``, the largest scatter of log CE between training runs at one size (``seed_scatter``),
        NaN where the family has no size with ``B4_MIN_SEEDS`` runs; None: no unit has one.
    small : mapping of (str, str) to SmallLaw, optional
        Per corpus and family, CE's laws over its small models (``small_law``); None: none measured.
    small_limit : float
        The largest non-embedding size called small (``small_limit``).
    """

    models: Mapping[str, pd.DataFrame]
    smallest: Mapping[tuple[str, str], tuple[str, float, tuple[float, float] | None]]
    signed: Mapping[tuple[str, str], Estimate]
    magnitude: Mapping[tuple[str, str], Estimate]
    bends: Mapping[tuple[str, str], Estimate]
    seeds: Mapping[tuple[str, str], int]
    n_sizes: Mapping[str, int]
    pooled_reason: str | None
    scatter: Mapping[tuple[str, str], float] | None = None
    small: Mapping[tuple[str, str], SmallLaw] | None = None
    small_limit: float = float("nan")

    def scatter_of(self, unit: tuple[str, str]) -> float:
        """The scatter between training runs carried into ``unit``'s curvature (``seed_scatter``); NaN where none
        is measured."""
        return (self.scatter or {}).get(unit, float("nan"))

    @property
    def corpora(self) -> list[str]:
        """The corpora, in order."""
        return list(self.models)

    def trend_units(self, context: Context) -> list[tuple[str, str]]:
        """The (corpus, group) whose share trend is graded: the families of ``MIN_SIZES`` sizes and, where the
        families can be pooled, every model of the corpus, corpus by corpus."""
        groups = [*context.usable(), *([POOLED] if self.pooled_reason is None else [])]
        return [(c, g) for c in self.corpora for g in groups]


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def models_table(terms: CorpusTerms) -> pd.DataFrame:
    """Every model of one corpus: family, model, params (non-embedding), CE, EE, SA and Conf, then the signed
    contributions ``"EE/CE (signed)"``, ``"SA/CE (signed)"``, ``"Conf/CE (signed)"`` (for Conf: −Conf/CE; they
    sum to 1), then the magnitude shares ``"EE share of |terms|"``, ... (``metrics.ce_shares``)."""
    table = pd.DataFrame([{"family": run.family, "model": run.name, "params": run.non_embedding,
                           **dict(zip(components.QUANTITIES, terms.full[i]))} for i, run in enumerate(terms.runs)])
    signed = metrics.ce_shares(table.EE, table.SA, table.Conf)
    magnitude = metrics.ce_shares(table.EE, table.SA, table.Conf, signed=False)
    for k in metrics.COMPONENTS:
        table[f"{k}/CE (signed)"] = signed[k]
    for k in metrics.COMPONENTS:
        table[f"{k} share of |terms|"] = magnitude[k]
    return table


def magnitude_share(terms) -> np.ndarray:
    """EE's share of Fig. 8, |EE| / (|EE| + |SA| + |Conf|), of terms (..., 4) in ``QUANTITIES`` order (CE, EE, SA,
    Conf; ``metrics.ce_shares`` unsigned): shape (...).

    >>> float(magnitude_share(np.array([3.0, 2.7, 0.6, 0.3])))
    0.75
    """
    terms = np.asarray(terms, np.float64)
    return metrics.ce_shares(terms[..., 1], terms[..., 2], terms[..., 3], signed=False)["EE"]


def smallest_share(terms: CorpusTerms, family: str, level: float) -> tuple[str, float, tuple[float, float] | None]:
    """The smallest model of ``family`` (the first of that size), EE's share of Fig. 8 (``magnitude_share``) and
    that share's interval."""
    i = min(terms.index(family), key=lambda j: terms.runs[j].non_embedding)
    share = float(magnitude_share(terms.full[i]))
    return terms.runs[i].name, share, interval(share, magnitude_share(terms.replicates[:, i]), level)


def share_trends(terms: CorpusTerms, group: str, level: float) -> tuple[Estimate, Estimate]:
    """The slopes of log(EE/CE) and of log(EE's magnitude share) on log size over ``group``'s models, with their
    intervals (``components.share_trend``)."""
    idx = terms.index(group)
    sizes, full, replicates = terms.sizes[idx], terms.full[idx], terms.replicates[:, idx]
    found = []
    for signed in (True, False):
        point, slopes = components.share_trend(sizes, full, replicates, signed)
        found.append((point, interval(point, slopes, level)))
    return found[0], found[1]


def seed_scatter(log_ce: Mapping[float, Sequence[float]]) -> float:
    """The scatter between training runs measured for B4's curvature, shown beside it and saying whether it was
    measured at all: over the sizes with ``B4_MIN_SEEDS`` runs or more, the largest standard deviation (ddof 1) of
    log CE between the runs of one size; NaN where no size has them (and the curvature is undetermined).

    >>> seed_scatter({1e3: [1.0, 1.04], 1e4: [0.9, 0.9, 0.93], 1e5: [0.8]}) == float(np.std([1.0, 1.04], ddof=1))
    True
    >>> seed_scatter({1e3: [1.0], 1e4: [0.9]})
    nan
    """
    spreads = [float(np.std(v, ddof=1)) for v in log_ce.values() if len(v) >= B4_MIN_SEEDS]
    return max(spreads) if spreads else float("nan")


def bend(terms: CorpusTerms, family: str, level: float) -> Estimate:
    """The curvature of log CE in log size over ``family``'s models (``components.curvature``), with its interval,
    from the replicates of ``terms``, which carry the scatter between training runs at every size
    (``rankscale.analysis.bootstrap.resample``'s ``seeds``)."""
    idx = terms.index(family)
    sizes = terms.sizes[idx]
    point = float(components.curvature(sizes, terms.full[idx, 0]))
    return point, interval(point, components.curvature(sizes, terms.replicates[:, idx, 0]), level)


def small_limit(table4: pd.DataFrame) -> float:
    """The largest non-embedding size B4.5 calls small: the median of the models paper B evaluates (its Table 4).

    >>> small_limit(pd.DataFrame({"non_embedding_params": [1e6, 1e8, 1e9]}))
    100000000.0
    """
    return float(np.median(table4["non_embedding_params"]))


def small_law(terms: CorpusTerms, family: str, limit: float, level: float) -> SmallLaw:
    """CE's power law and logarithmic law over ``family``'s models no larger than ``limit`` (B4.5's unit).

    Parameters
    ----------
    terms : CorpusTerms
        The corpus's quantities and their paired resamples.
    family : str
    limit : float
        ``small_limit``.
    level : float

    Returns
    -------
    SmallLaw
    """
    idx = [i for i in terms.index(family) if terms.sizes[i] <= limit]
    sizes = terms.sizes[idx]
    if len(np.unique(sizes)) < 2:
        return SmallLaw(len(idx), len(np.unique(sizes)), float("nan"), None, float("nan"))
    fits = components.group_bootstrap(sizes, terms.full[idx], terms.replicates[:, idx], level)
    ce = fits.points[0]
    return SmallLaw(len(idx), len(np.unique(sizes)), ce.r2, interval(ce.r2, fits.r2[0], level),
                    fit.fit_semilog(sizes, terms.full[idx, 0]).r2)


def training_runs(chapter: Chapter, corpus: str, family: str) -> dict[float, list[float]]:
    """The log CE of every training run of ``family`` on ``corpus`` (its final models and extra seeds), by size."""
    found: dict[float, list[float]] = {}
    for run in chapter.family_runs[corpus] + chapter.seed_runs[corpus]:
        if run.family == family:
            found.setdefault(run.non_embedding, []).append(float(np.log(metrics.cross_entropy(run.records.logp))))
    return found


def fewest_runs(chapter: Chapter, corpus: str, family: str) -> int:
    """The fewest training runs ``family`` has at any of its sizes on ``corpus`` (its final models and extra seeds)."""
    runs = chapter.family_runs[corpus] + chapter.seed_runs[corpus]
    return min(Counter(run.non_embedding for run in runs if run.family == family).values())


def measure(chapter: Chapter, context: Context) -> Shares:
    """Chapter B4's evidence: every model's shares, each family's smallest model's EE/CE, the share trend of every
    group of two sizes or more, and the bend of every family of ``B4_CURVATURE_MIN_SIZES`` sizes, on every corpus,
    with intervals from ``context.n_boot`` resamples drawn with ``context.seed`` (chapter B3's resamples).

    Parameters
    ----------
    chapter : Chapter
        The families' final models per corpus, and the extra training runs of the sizes that have them.
    context : Context
        The families' sizes, the bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    Shares
    """
    groups = fit_groups(chapter.families)
    first = chapter.family_runs[chapter.corpora[0]]
    n_sizes = {g: len({run.non_embedding for run in first if g == POOLED or run.family == g}) for g in groups}
    curved = context.usable(B4_CURVATURE_MIN_SIZES)
    models, smallest, signed, magnitude, bends, seeds, scatter, small = {}, {}, {}, {}, {}, {}, {}, {}
    limit = small_limit(context.table(TABLE4))
    for corpus in chapter.corpora:
        terms = corpus_terms(chapter, corpus, context)
        models[corpus] = models_table(terms)
        for family in chapter.families:
            smallest[corpus, family] = smallest_share(terms, family, context.level)
            small[corpus, family] = small_law(terms, family, limit, context.level)
        for g in groups:
            if len(np.unique(terms.sizes[terms.index(g)])) > 1:
                signed[corpus, g], magnitude[corpus, g] = share_trends(terms, g, context.level)
        for family in curved:
            scatter[corpus, family] = seed_scatter(training_runs(chapter, corpus, family))
            bends[corpus, family] = bend(terms, family, context.level)
            seeds[corpus, family] = fewest_runs(chapter, corpus, family)
    return Shares(models, smallest, signed, magnitude, bends, seeds, n_sizes, chapter.pooled_reason, scatter, small,
                  limit)


# ---------------------------------------------------------------------------------------------
# The rules, each read on one unit, and their verdicts

def dominates(share_interval: tuple[float, float] | None) -> Reading:
    """B4.1: the interval of EE's share of Fig. 8 read against ``B4_DOMINANT_SHARE``: wholly above holds, wholly
    below fails, across
    the threshold (or not defined) undetermined.

    >>> [dominates(ci).outcome for ci in ((0.85, 0.95), (0.7, 0.79), (0.8, 0.9), None)]
    [True, False, 'undetermined', 'undetermined']
    """
    return read(share_interval, B4_DOMINANT_SHARE, missing=UNDETERMINED)


def falls(trend: Estimate) -> Reading:
    """B4.2 (and B4.4's premise): the slope of log(EE's magnitude share) on log size, its interval read against 0:
    wholly below holds, wholly above fails, across 0 undetermined.

    >>> [falls((0.0, ci)).outcome for ci in ((-0.03, -0.01), (0.01, 0.03), (-0.01, 0.01))]
    [True, False, 'undetermined']
    """
    return read(trend[1], sign=-1, missing=UNDETERMINED)


def slows(curvature: Estimate, scatter: float) -> Reading:
    """B4.3: the curvature of log CE, its interval (carrying the scatter between runs, ``bend``) read against 0
    (wholly above holds, wholly below fails, across undetermined); ``UNDETERMINED`` where no scatter between runs
    was measured (``scatter`` NaN: no size with ``B4_MIN_SEEDS`` runs).

    >>> [slows((0.01, ci), 0.002).outcome for ci in ((0.005, 0.015), (-0.015, -0.005), (-0.005, 0.015))]
    [True, False, 'undetermined']
    >>> slows((0.01, (0.005, 0.015)), float("nan"))
    Reading(outcome='undetermined', fragile=False)
    """
    return Reading(UNDETERMINED) if not np.isfinite(scatter) else read(curvature[1], missing=UNDETERMINED)


def bend_follows(curvature: Estimate, trend: Estimate, scatter: float) -> Reading:
    """B4.4: where EE's magnitude share falls or rises with size as B4.2 reads it (``falls`` of ``trend``, the slope
    of its log on log size), the curvature of log CE has the sign that predicts, read on its interval: positive (a
    slowing law) where the share falls, negative where it rises (wholly on that side holds, wholly on the other
    fails, across 0 undetermined); None (untested) where ``falls`` is undetermined, the share flat within noise (the
    mechanism predicts nothing), ``UNDETERMINED`` as ``slows``. Fragile where an end of either interval lies at 0's
    edge.

    >>> slowing, falling, flat = (0.01, (0.005, 0.015)), (-0.02, (-0.03, -0.01)), (0.0, (-0.01, 0.01))
    >>> [bend_follows(slowing, t, 0.002).outcome for t in (falling, (0.02, (0.01, 0.03)), flat)]
    [True, False, None]
    >>> bend_follows(flat, falling, 0.002).outcome, bend_follows(slowing, falling, float("nan")).outcome
    ('undetermined', 'undetermined')
    """
    premise = falls(trend)
    if undetermined(premise.outcome):
        return Reading(None)
    if not np.isfinite(scatter):
        return Reading(UNDETERMINED)
    bend = read(curvature[1], sign=1 if premise.outcome else -1, missing=UNDETERMINED)  # a falling share predicts c > 0
    return Reading(bend.outcome, bend.fragile or premise.fragile)


def ee_dominates_verdict(evidence: Shares, context: Context) -> Verdict:
    """B4.1: ``dominates`` on every family's smallest model on every corpus.

    Parameters
    ----------
    evidence : Shares
    context : Context
        Which families have enough sizes for each claim.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    outcomes = {Unit(c, fam): dominates(ci) for (c, fam), (_, _, ci) in evidence.smallest.items()}
    texts = [f"{Unit(c, fam).label} ({model}) {share:.3f} {interval_text(ci, sign='')}"
             for (c, fam), (model, share, ci) in evidence.smallest.items()]
    return judge("B4.1", outcomes, "EE's share |EE| / (|EE| + |SA| + |Conf|) of the smallest model [95% interval]: "
                 + "; ".join(texts))


def _unit(corpus: str, group: str) -> Unit:
    return Unit(corpus, pooled=True) if group == POOLED else Unit(corpus, group)


def share_falls_verdict(evidence: Shares, context: Context) -> Verdict:
    """B4.2: ``falls`` of the magnitude share's trend on every family of ``MIN_SIZES`` sizes and every pooled fit; the
    trend of EE/CE is shown beside it and decides nothing. Parameters as ``ee_dominates_verdict``."""
    units = evidence.trend_units(context)
    untested = too_few(context)
    outcomes = {**dict.fromkeys(untested), **{_unit(*u): falls(evidence.magnitude[u]) for u in units}}
    texts = [f"{_unit(*u).label} {evidence.magnitude[u][0]:+.4f} {interval_text(evidence.magnitude[u][1], 4)} "
             f"(EE/CE {evidence.signed[u][0]:+.4f} {interval_text(evidence.signed[u][1], 4)})" for u in units]
    return judge("B4.2", outcomes, "slope of log(|EE| / (|EE| + |SA| + |Conf|)) on log N [95% interval]: "
                 + "; ".join(texts),
                 why_not=f"no family has {MIN_SIZES} or more sizes ({'; '.join(context.unusable())})", notes=untested)


def _no_bend(context: Context) -> str:
    return (f"no family has {B4_CURVATURE_MIN_SIZES} or more sizes "
            f"({'; '.join(context.unusable(B4_CURVATURE_MIN_SIZES))})")


STRAIGHT = "CE law straight within noise"  # why a unit whose curvature's interval crosses 0 is undetermined


def _why_undetermined(evidence: Shares, undecided: list[tuple[str, str]]) -> str:
    """Why the units ``undecided`` of B4.3 or B4.4 are undetermined: a single training run at some size
    (``WHY_SEEDS``), a curvature within noise (``STRAIGHT``), or both.

    >>> _why_undetermined(Shares({}, {}, {}, {}, {}, {}, {}, None, {("pydocs", "NeoX"): 0.002}), [("pydocs", "NeoX")])
    'CE law straight within noise'
    """
    single = any(not np.isfinite(evidence.scatter_of(u)) for u in undecided)
    straight = any(np.isfinite(evidence.scatter_of(u)) for u in undecided)
    return "; ".join(why for why, found in ((WHY_SEEDS, single), (STRAIGHT, straight)) if found)


def law_slows_verdict(evidence: Shares, context: Context) -> Verdict:
    """B4.3: ``slows`` on every family of ``B4_CURVATURE_MIN_SIZES`` sizes, a unit whose curvature is within noise
    named undetermined with why. Parameters as ``ee_dominates_verdict``."""
    untested = too_few(context, B4_CURVATURE_MIN_SIZES)
    outcomes, notes = dict.fromkeys(untested), dict(untested)
    for u, b in evidence.bends.items():
        outcomes[Unit(*u)] = slows(b, evidence.scatter_of(u))
        if undetermined(outcomes[Unit(*u)].outcome) and np.isfinite(evidence.scatter_of(u)):
            notes[Unit(*u)] = STRAIGHT
    undecided = [u for u in evidence.bends if undetermined(outcomes[Unit(*u)].outcome)]
    text = "; ".join(f"{Unit(*u).label} {point:+.5f} {interval_text(ci, 5)}"
                     + (f" (scatter between runs {evidence.scatter_of(u):.5f})" if np.isfinite(evidence.scatter_of(u))
                        else "") for u, (point, ci) in evidence.bends.items())
    return judge("B4.3", outcomes, "curvature c of log CE [95% interval, carrying the scatter of log CE between "
                                   "training runs]: " + text if evidence.bends else "",
                 why_not=_no_bend(context), why_undetermined=_why_undetermined(evidence, undecided), notes=notes)


def bend_follows_share_verdict(evidence: Shares, context: Context) -> Verdict:
    """B4.4: ``bend_follows`` on every family of ``B4_CURVATURE_MIN_SIZES`` sizes, a unit whose share trend is within
    noise named untested, one whose bend is within noise undetermined, each with why. Parameters as
    ``ee_dominates_verdict``."""
    untested = too_few(context, B4_CURVATURE_MIN_SIZES)
    outcomes, notes = dict.fromkeys(untested), dict(untested)
    for u, b in evidence.bends.items():
        outcomes[Unit(*u)] = bend_follows(b, evidence.magnitude[u], evidence.scatter_of(u))
        if outcomes[Unit(*u)].outcome is None:
            notes[Unit(*u)] = "EE's share flat within noise"
        elif undetermined(outcomes[Unit(*u)].outcome) and np.isfinite(evidence.scatter_of(u)):
            notes[Unit(*u)] = STRAIGHT
    undecided = [u for u in evidence.bends if undetermined(outcomes[Unit(*u)].outcome)]
    text = "; ".join(f"{Unit(*u).label} {b[0]:+.5f} {interval_text(b[1], 5)} / {evidence.magnitude[u][0]:+.4f} "
                     f"{interval_text(evidence.magnitude[u][1], 4)}" for u, b in evidence.bends.items())
    return judge("B4.4", outcomes, "curvature of log CE [95% interval] / slope of log(|EE| / (|EE| + |SA| + |Conf|)) "
                                   "on log N [95% interval]: " + text if evidence.bends else "",
                 why_not=_no_bend(context) if not evidence.bends else
                 "on no family is the share's trend clear", why_undetermined=_why_undetermined(evidence, undecided),
                 notes=notes)


def clean_law(law: SmallLaw) -> Reading:
    """B4.5 on one family: CE's R^2 over its small models, its interval read against ``B3_LAW_R2`` (``read``); None
    (untested) with fewer than ``MIN_SIZES`` small sizes.

    >>> [clean_law(SmallLaw(5, 5, 0.9, ci, 0.9)).outcome for ci in ((0.85, 0.95), (0.5, 0.7), (0.7, 0.9), None)]
    [True, False, 'undetermined', 'undetermined']
    >>> clean_law(SmallLaw(2, 2, 1.0, (1.0, 1.0), 1.0)).outcome is None
    True
    """
    if law.sizes < MIN_SIZES:
        return Reading(None)
    return read(law.interval, B3_LAW_R2, missing=UNDETERMINED)


def clean_law_verdict(evidence: Shares, context: Context) -> Verdict:
    """B4.5: ``clean_law`` on every family on every corpus, the logarithmic law's R^2 shown beside. Parameters as
    ``ee_dominates_verdict``."""
    small = evidence.small or {}
    outcomes = {Unit(*u): clean_law(law) for u, law in small.items()}
    notes = {Unit(*u): too_few_sizes(u[1], law.sizes, MIN_SIZES).removeprefix(f"{u[1]}: ") + " small"
             for u, law in small.items() if law.sizes < MIN_SIZES}
    texts = [f"{Unit(*u).label} ({law.models} models) {law.r2:.3f} {interval_text(law.interval, sign='')} "
             f"(logarithmic law {law.semilog_r2:.3f})" for u, law in small.items() if law.sizes >= MIN_SIZES]
    return judge("B4.5", outcomes,
                 f"R²_CE over the models of at most {evidence.small_limit:.3g} non-embedding parameters [95% "
                 "interval] (R² of CE linear in log size beside it, not graded): " + "; ".join(texts) if texts else "",
                 why_not=f"no family has {MIN_SIZES} or more sizes of at most {evidence.small_limit:.3g} non-embedding "
                         "parameters", notes=notes)


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"B4.1": ee_dominates_verdict, "B4.2": share_falls_verdict, "B4.3": law_slows_verdict,
         "B4.4": bend_follows_share_verdict, "B4.5": clean_law_verdict}


SPEC = ChapterSpec("B4", CLAIMS_B4, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables and figures' data, and its headline for the findings

GRADED, SIGNED = "EE share of |terms| (graded)", "EE / CE (signed, shown)"  # the trend table's two shares
TREND_WORDS = {1: "rises", -1: "falls", 0: "flat within noise"}  # a share trend's interval, by its side of 0
BEND_WORDS = {1: "slows (c > 0)", -1: "steepens (c < 0)", 0: "straight within noise"}  # a curvature's, likewise
SHARE_TREND = "EE's share of |terms| (B4.2)"  # the bend table's column of the trend B4.4 holds the bend against


def shares_table(evidence: Shares) -> pd.DataFrame:
    """Every model of every corpus (``models_table``), with its corpus first and Conf's signed contribution named
    −Conf/CE."""
    table = pd.concat([t.assign(corpus=c) for c, t in evidence.models.items()])
    table = table[["corpus", *evidence.models[evidence.corpora[0]].columns]]
    return table.rename(columns={"Conf/CE (signed)": "−Conf/CE (signed)"})


def trend_table(evidence: Shares) -> pd.DataFrame:
    """The slope of the log share on log N per corpus, fit and share (the graded magnitude share of EE, then its signed
    contribution EE/CE), with its interval and the trend it reads (``TREND_WORDS``)."""
    return pd.DataFrame([{"corpus": c, "fit": g, "sizes": evidence.n_sizes[g], "share": label,
                          "slope of log share vs log N": point, "95% interval": interval_text(ci, 4),
                          "trend": TREND_WORDS[side(ci)]}
                         for (c, g) in evidence.signed
                         for label, (point, ci) in ((GRADED, evidence.magnitude[c, g]),
                                                    (SIGNED, evidence.signed[c, g]))])


def trend_counts(table: pd.DataFrame) -> tuple[int, str, str]:
    """Of ``trend_table``'s graded rows: how many, in how many EE/CE falls, rises and is flat, and the range of the
    slopes.

    >>> table = pd.DataFrame({"share": [GRADED, SIGNED, GRADED], "trend": ["rises", "falls", "rises"],
    ...                       "slope of log share vs log N": [0.003, -0.002, 0.004]})
    >>> trend_counts(table)
    (2, 'falls in 0, rises in 2, is flat within noise in 0', '+0.0030 to +0.0040')
    """
    graded = table[table["share"] == GRADED] if len(table) else table
    if not len(graded):
        return 0, "is nowhere measured", "none"
    counts = ", ".join(f"{said} in {int((graded['trend'] == word).sum())}" for word, said in
                       (("falls", "falls"), ("rises", "rises"), ("flat within noise", "is flat within noise")))
    return len(graded), counts, span(graded["slope of log share vs log N"], "+.4f")


def bend_table(evidence: Shares) -> pd.DataFrame:
    """The curvature of log CE per corpus and family of ``B4_CURVATURE_MIN_SIZES`` sizes, with its interval (carrying
    the scatter between training runs, shown), what it says of the CE law (``BEND_WORDS``), and beside it the trend
    of EE's magnitude share as B4.2 reads it, which B4.4 holds the bend against."""
    return pd.DataFrame([{"corpus": c, "family": fam, "sizes": evidence.n_sizes[fam], "curvature c of log CE": point,
                          "95% interval": interval_text(ci, 5), "scatter of log CE between runs":
                          evidence.scatter_of((c, fam)), "CE law": BEND_WORDS[side(ci)],
                          SHARE_TREND: TREND_WORDS[side(evidence.magnitude[c, fam][1])]}
                         for (c, fam), (point, ci) in evidence.bends.items()],
                        columns=["corpus", "family", "sizes", "curvature c of log CE", "95% interval",
                                 "scatter of log CE between runs", "CE law", SHARE_TREND])


@dataclass(frozen=True)
class LocalExponents:
    """One family's local exponent d log CE / d log N of the CE law (fig-b4-local-exponent), each of shape
    (models,) unless said otherwise.

    Attributes
    ----------
    sizes : ndarray
        The family's sizes, increasing.
    ee_only : ndarray
        Predicted from EE's contribution alone, α_EE · EE/CE (only EE scales).
    every : ndarray
        Predicted from all three components' fitted exponents, Σ_M share_M · α_M.
    midpoints, measured : ndarray of shape (models - 1,)
        The geometric midpoints of neighbouring sizes and CE's slope between them.
    law : float
        The exponent of one power law of CE over the family.
    """

    sizes: np.ndarray
    ee_only: np.ndarray
    every: np.ndarray
    midpoints: np.ndarray
    measured: np.ndarray
    law: float


def local_exponents(table: pd.DataFrame) -> dict[str, LocalExponents]:
    """The local exponents of every family of one corpus's ``models_table`` with sizes strictly increasing (one
    size, or two models of one size, have no slope between neighbours): predicted from the shares and the
    components' exponents (``metrics.ce_exponent_from_components``), and measured between neighbours
    (``metrics.local_log_slopes``).

    Parameters
    ----------
    table : pandas.DataFrame
        ``models_table`` of one corpus, each family's models in order of size.

    Returns
    -------
    dict of str to LocalExponents
        By family, in the table's order.
    """
    found = {}
    for family, part in table.groupby("family", sort=False):
        sizes = part.params.values.astype(float)
        if len(sizes) < 2 or not np.all(np.diff(sizes) > 0):
            continue
        signed = {k: part[f"{k}/CE (signed)"].values for k in metrics.COMPONENTS}
        alpha_ee = fit.fit_power_law(sizes, part.EE.values).slope
        alphas = {k: fit.fit_power_law(sizes, np.abs(part[k].values)).slope for k in metrics.COMPONENTS}
        midpoints, measured = metrics.local_log_slopes(sizes, part.CE.values)
        found[family] = LocalExponents(
            sizes, metrics.ce_exponent_from_components(signed, {"EE": alpha_ee, "SA": 0.0, "Conf": 0.0}),
            metrics.ce_exponent_from_components(signed, alphas), midpoints, measured,
            fit.fit_power_law(sizes, part.CE.values).slope)
    return found


def summary(evidence: Shares, context: Context) -> str:
    """What the set shows, per corpus and group with a share trend: whether EE's magnitude share (graded) and its
    signed contribution fall, rise or show no clear trend with size, and the sign of Confidence over the group's
    models (a Markdown list).

    Parameters
    ----------
    evidence : Shares
    context : Context
        Which families are graded (the others are marked).

    Returns
    -------
    str
    """
    said = {"falls": "falls", "rises": "rises", "flat within noise": "shows no clear trend"}
    lines = []
    for c, g in evidence.signed:
        table = evidence.models[c]
        conf = table.Conf.values if g == POOLED else table[table.family == g].Conf.values
        sign = ("positive for every model" if np.all(conf > 0) else
                "negative for every model" if np.all(conf < 0) else "of changing sign")
        note = "" if g == POOLED or g in context.usable() else f" ({evidence.n_sizes[g]} sizes, not graded)"
        lines.append(f"- `{c}`, {g}{note}: EE's magnitude share {said[TREND_WORDS[side(evidence.magnitude[c, g][1])]]}"
                     f" with size, its signed contribution {said[TREND_WORDS[side(evidence.signed[c, g][1])]]}; "
                     f"Confidence is {sign}.")
    return "**On this set:**\n" + "\n".join(lines)


def headline(evidence: Shares, context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): the range of
    EE/CE over the families' smallest models and of the graded share trends (EE's magnitude share).

    Parameters
    ----------
    evidence : Shares
    context : Context

    Returns
    -------
    list of str
    """
    shares = [share for _, share, _ in evidence.smallest.values()]
    units = evidence.trend_units(context)
    return [f"Error-Entropy is {min(shares):.0%} to {max(shares):.0%} of CE for each family's smallest model"
            + (", and the slope of log(|EE| / (|EE| + |SA| + |Conf|)) on log size is "
               + span([evidence.magnitude[u][0] for u in units], "+.4f")
               if units else "") + "."]

