"""Chapter A2 of the claims stage, the scaling regimes of -log RBP_k (paper A §4.1-4.3, Figs. 3-5): its thresholds
and claims, its evidence (``Regimes``: per corpus and family, the power-law fits of -log RBP_k against size at
k = 1, at the paper's moderate k and at k near the vocabulary, all refitted on the same bootstrap replicates, and
the scatter at large k on fewer and more of the tokens) and its two steps, ``measure`` (the chapter's runs to
that evidence) and ``decide`` (the evidence to the chapter's verdicts), with the rule of each claim read on one
unit as a small function of its own and the evidence laid out as the chapter's tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, fit, metrics
from rankscale.analysis.bootstrap import INTERVAL, LEVEL, interval_text
from rankscale.claims.base import (
    MIN_SIZES,
    Claim,
    Reading,
    Unit,
    Verdict,
    every,
    index_claims,
    judge,
    left_out,
    no_family,
    read,
    undetermined,
)
from rankscale.claims.context import Chapter, Context, sample, seed_samples
from rankscale.claims.paper_a import ACROSS_LAW, PAPER_A_VOCAB, law_reading, law_rule, scaled_k
from rankscale.claims.spec import ChapterSpec
from rankscale.records.runs import Run, by_family, sizes
from rankscale.sets.registry import REGISTRY

A2_MIN_R2 = 0.9  # paper A §4.4: R^2 above 0.9 for k < 1000, which includes k = 1 (§4.1 gives no number)
A2_MODERATE_KS = (10, 50, 100)  # paper A §4.2, as absolute k: top-k sampling settings
A2_MODERATE_R2 = 0.97  # paper A §4.2: "R^2 >= 0.97 across all datasets" for k = 10, 50, 100
A2_LARGE_KS = (20_000, 30_000)  # paper A §4.3 (Fig. 5), of a vocabulary of about PAPER_A_VOCAB
# The noise conjecture (A2.6): the scatter at large k on 1/8, 1/4, 1/2 and all of each model's tokens, 20 random
# subsamples per fraction (enough that the mean scatter of a fraction is not itself one noisy draw)
A2_NOISE_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
A2_NOISE_REPEATS = 20
# Noise alone shrinks the scatter by sqrt(8) from 1/8 of the tokens to all of them; a systematic departure does
# not shrink it. The conjecture holds below the geometric midpoint of the two, 8^(-1/4) = 0.59.
A2_NOISE_RATIO = (A2_NOISE_FRACTIONS[-1] / A2_NOISE_FRACTIONS[0]) ** -0.25

SMALL_K = 1  # the k of §4.1: the top token

TABLE1 = "rbp_paper_table1"  # the paper's table the rules read (``Context.table``): Table 1, appendix B
READS = ("seeds",)  # the runs measure reads beside the families' final models (``load_chapter``'s keywords)
TABLES = (TABLE1,)  # the papers' tables decide reads (``Context.tables``)
# The chapter's regimes of k, by name: the k each draws (``RegimeFits.regime``), one figure each
REGIMES = ("k = 1", "moderate", "moderate, the paper's fractions", "large")


CLAIMS_A2 = index_claims(
    Claim("A2.1",
          "-log RBP_1 follows a power law in non-embedding size, for every family on every dataset (§4.1, Fig. 3)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the log-log fit of -log RBP_1 against size is a "
          f"falling power law, its R^2 and its slope each with its {INTERVAL}: {law_rule(A2_MIN_R2)}. Why: "
          f"{A2_MIN_R2} is the paper's own bar for k < 1000 (§4.4), which includes k = 1; §4.1 gives no number of "
          f"its own. The paper grades point values, which carry no interval (its column grades Table 1's so); "
          f"here the interval keeps resampling noise from deciding.",
          "", needs=("three sizes",)),
    Claim("A2.2",
          "For moderate k (10, 50, 100) the power law holds with R^2 ≥ 0.97 on every dataset (§4.2, Fig. 4)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the fits at k = "
          f"{', '.join(map(str, A2_MODERATE_KS))} are all falling power laws, each read as A2.1 reads one, its R^2 "
          f"and its slope each with its {INTERVAL}, at the bar {A2_MODERATE_R2}: {law_rule(A2_MODERATE_R2)}. The "
          f"unit holds where every k holds, fails where one fails, and is undetermined otherwise. Why: these are "
          f"the paper's absolute k and its own bar; k counts candidates for top-k sampling whatever the "
          f"vocabulary, and stays far below it (100 is 2.4% of 4,096 tokens). The same fractions of the "
          f"vocabulary as the paper's (k x |V| / {PAPER_A_VOCAB:,}) are shown, not graded.",
          f"R^2 ≥ {A2_MODERATE_R2}", needs=("three sizes",)),
    Claim("A2.3",
          "As k approaches the vocabulary size (k = 20,000 and 30,000 of about 50,000) the power law breaks down "
          "(§4.3, Fig. 5)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at k = "
          f"{' and '.join(f'{k:,}' for k in A2_LARGE_KS)} scaled to the family's vocabulary (x |V| / "
          f"{PAPER_A_VOCAB:,}: about 40% and 60% of it; absolute k would exceed a small vocabulary): the fit at "
          f"each k is read as A2.1 reads a falling power law, its R^2 and its slope each with its {INTERVAL}: "
          f"{law_rule(A2_MIN_R2)}. The law breaks down, and the unit holds, where it fails at either k; the unit "
          f"fails where the law holds at both, and is undetermined otherwise. Why: {A2_MIN_R2} is the paper's bar "
          f"for a power law (§4.4); either k, because the paper itself finds 30,000 much more "
          f"scattered than 20,000, so it does not claim both break. A k where some model ranks every target "
          f"inside the top k has nothing to fit (-log RBP_k = 0) and is left out.",
          "points scatter at k = 20,000 and 30,000 (not tabulated)", needs=("three sizes",)),
    Claim("A2.4",
          "For GPT-2 at k near the vocabulary size, -log RBP_k even grows with model size (§4.3, Fig. 5)",
          "empirical",
          f"Per corpus, on the paper's GPT-2 family (its models recognised by hub id; at least {MIN_SIZES} sizes): "
          f"the log-log slope of -log RBP_k against size is positive at k = {A2_LARGE_KS[0]:,} or at "
          f"{A2_LARGE_KS[1]:,} (the paper does not say which; GPT-2's vocabulary is the one these k were chosen "
          f"for). Why: the point estimate is graded, as the paper reads the trend off its figure (and itself blames "
          f"noise); its {INTERVAL} is shown. A set without the paper's GPT-2 models cannot test it.",
          "-log RBP_k grows with size for GPT-2 (Fig. 5)", needs=("three sizes", "the GPT-2 family")),
    Claim("A2.5",
          "At k = 30,000 the points scatter much more than at k = 20,000 (§4.3, Fig. 5)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at the two k of A2.3 (about 40% and 60% of the "
          f"vocabulary): the paired {INTERVAL} of R^2(larger k) - R^2(smaller k) is read against zero: wholly "
          f"below it (the fit worse at the larger k beyond resampling noise) the unit holds, wholly above it "
          f"fails, and across or touching zero the data do not decide (undetermined, named apart). "
          f"Why: 'more random' has no "
          f"number in the paper, so the side of the interval decides. A unit where the larger k cannot be fitted "
          f"(a model with every target inside the top k) cannot test it.",
          "k = 30,000 much more random than 20,000", needs=("three sizes",)),
    Claim("A2.6",
          "The breakdown near the vocabulary is noise: with more evaluation tokens the scatter of -log RBP_k about "
          "its power law would fall (§4.3: 'we conjecture that that reason might lies in random noise')",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at each k of A2.3 (about 40% and 60% of the "
          f"vocabulary): the scatter is the residual standard deviation of log(-log RBP_k) about its least-squares "
          f"line on log S, averaged over {A2_NOISE_REPEATS} random subsamples (without replacement) of each "
          f"model's tokens at each fraction {', '.join(f'{f:g}' for f in A2_NOISE_FRACTIONS)} of them "
          f"(rankscale.analysis.fit.subsample_scatter). A k holds if the scatter on all tokens is at most "
          f"{A2_NOISE_RATIO:.2f} times that on {A2_NOISE_FRACTIONS[0]:g} of them; the unit holds if every k it can "
          f"test does. Why: sampling noise shrinks as one over the square root of the tokens, by "
          f"{(A2_NOISE_FRACTIONS[-1] / A2_NOISE_FRACTIONS[0]) ** 0.5:.2f} here, while a systematic departure from the "
          f"law does not shrink at all; {A2_NOISE_RATIO:.2f} is the geometric midpoint of the two. A k where some "
          f"subsample has every target of a model inside the top k cannot be fitted and is left out.",
          "conjecture: random noise", needs=("three sizes",)),
)


# ---------------------------------------------------------------------------------------------
# The evidence

def family_ks(vocab: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The paper's moderate k and large k as the same fractions of a vocabulary of ``vocab`` tokens.

    Returns
    -------
    moderate_scaled : tuple of int
        ``A2_MODERATE_KS`` scaled (``scaled_k``), sorted, without repeats (shown, not graded).
    large : tuple of (int, int)
        ``A2_LARGE_KS`` scaled: about 40% and 60% of the vocabulary.

    >>> family_ks(4096)
    ((1, 4, 8), (1630, 2445))
    """
    return tuple(sorted({scaled_k(k, vocab) for k in A2_MODERATE_KS})), tuple(scaled_k(k, vocab) for k in A2_LARGE_KS)


@dataclass(frozen=True)
class RegimeFits:
    """One corpus and family's fits of -log RBP_k against size at chapter A2's k, with their bootstrap.

    Attributes
    ----------
    fits : mapping of int to rankscale.analysis.fit.PowerLawFit or None
        The full-sample fit per k (1, the paper's moderate k, their scaled values and ``large``), in increasing
        k; None where some model has every target inside the top k.
    slopes, r2 : mapping of int to (n_boot,) arrays
        The same fits' slope and R^2 on every resample of the documents (the same resamples for every k, so
        differences between k are paired); NaN where a replicate cannot be fitted.
    moderate_scaled : tuple of int
        The paper's moderate k as the same fractions of this family's vocabulary (shown, not graded).
    large : tuple of (int, int)
        The paper's k = 20,000 and 30,000 as the same fractions of this family's vocabulary.
    level : float
        Of every interval.
    sizes : ndarray of shape (models,)
        The models' non-embedding sizes.
    values : mapping of int to (models,) arrays
        -log RBP_k of each model's full sample, per k of ``fits``.
    vocab : int
        The family's vocabulary size.
    scatter : ndarray of shape (len(A2_NOISE_FRACTIONS), 2) or None
        The scatter of -log RBP_k about its line at each k of ``large`` (columns), on each fraction of the
        tokens (rows; ``rankscale.analysis.fit.subsample_scatter``); None for a family of fewer than
        ``MIN_SIZES`` sizes.
    """

    fits: Mapping[int, object]
    slopes: Mapping[int, np.ndarray]
    r2: Mapping[int, np.ndarray]
    moderate_scaled: tuple[int, ...]
    large: tuple[int, int]
    level: float = LEVEL
    sizes: np.ndarray | None = None
    values: Mapping[int, np.ndarray] | None = None
    vocab: int = PAPER_A_VOCAB
    scatter: np.ndarray | None = None

    def r2_interval(self, k: int) -> tuple[float, float] | None:
        """The interval of R^2 at ``k`` (needs the fit at ``k``); None where a replicate could not be fitted."""
        return bootstrap.interval(self.fits[k].r2, self.r2[k], self.level)

    def slope_interval(self, k: int) -> tuple[float, float] | None:
        """The interval of the slope at ``k`` (needs the fit at ``k``); None where a replicate could not be fitted."""
        return bootstrap.interval(self.fits[k].slope, self.slopes[k], self.level)

    def law(self, k: int, bar: float) -> Reading:
        """Whether the fit at ``k`` is a falling power law with R^2 of at least ``bar``, read on its intervals
        (``law_reading``); ``Reading(None)`` where ``k`` has nothing to fit.

        >>> from rankscale.analysis.fit import PowerLawFit
        >>> r = RegimeFits({1: PowerLawFit(-0.1, 0.0, 0.95, 3), 4: None}, {1: np.array([-0.1, -0.1])},
        ...                {1: np.array([0.9, 1.0])}, (1, 4, 8), (1630, 2445))
        >>> r.law(1, 0.9).outcome, r.law(1, 0.8).outcome, r.law(4, 0.9)  # R^2 0.95 -+ 0.098
        ('undetermined', True, Reading(outcome=None, fragile=False))
        """
        if self.fits[k] is None:
            return Reading(None)
        return law_reading(self.r2_interval(k), self.slope_interval(k), bar)

    def fit_text(self, k: int, interval: bool = False) -> str:
        """"k=10 R^2 0.990 slope -0.059", with the intervals of R^2 and of the slope if ``interval`` ("[—]" where a
        replicate could not be fitted)."""
        f = self.fits[k]
        if f is None:
            return f"k={k:,} not fittable"
        if not interval:
            return f"k={k:,} R^2 {f.r2:.3f} slope {f.slope:.3f}"
        return (f"k={k:,} R^2 {f.r2:.3f} {interval_text(self.r2_interval(k), sign='')} slope {f.slope:.3f} "
                f"{interval_text(self.slope_interval(k), sign='')}")

    def regime(self, name: str) -> list[int]:
        """The k of one of ``REGIMES``: k = 1, the paper's moderate k, the same at the paper's fractions of the
        vocabulary, the large k.

        >>> RegimeFits({}, {}, {}, (1, 4, 8), (1630, 2445)).regime("moderate, the paper's fractions")
        [1, 4, 8]
        """
        return {"k = 1": [SMALL_K], "moderate": list(A2_MODERATE_KS),
                "moderate, the paper's fractions": list(self.moderate_scaled), "large": list(self.large)}[name]

    def reading(self, k: int) -> str:
        """Which regime ``k`` stands for, in the words of the chapter's table of fits.

        >>> r = RegimeFits({}, {}, {}, (1, 4, 8), (1630, 2445))
        >>> r.reading(1), r.reading(10), r.reading(4), r.reading(1630)
        ('k = 1', "moderate, the paper's k", "moderate, the paper's fraction", "large, the paper's fraction")
        """
        if k == SMALL_K:
            return "k = 1"
        if k in A2_MODERATE_KS:
            return "moderate, the paper's k" + (" and fraction" if k in self.moderate_scaled else "")
        return "moderate, the paper's fraction" if k in self.moderate_scaled else "large, the paper's fraction"


@dataclass(frozen=True)
class Regimes:
    """Chapter A2's evidence.

    Attributes
    ----------
    units : mapping of (str, str) to RegimeFits
        By (corpus, family), corpus by corpus, each corpus's families in order: every family with at least two
        sizes.
    gpt2 : tuple of str
        The families made of the paper's GPT-2 models (``paper_family``), whatever their sizes.
    """

    units: Mapping[tuple[str, str], RegimeFits]
    gpt2: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

KEYS = ("rank",)  # the per-token arrays a fit resamples: the target's 1-based rank (ge ties)
LINE_MIN_SIZES = 2  # a family is fitted from two sizes on (its lines are drawn); the claims need MIN_SIZES


def paper_family(members: Sequence[Run]) -> str | None:
    """The paper's family (GPT2, Pythia, ...) if every model of a family is one of the paper's models of it (by
    the hub id its records were computed from, ``rankscale.sets.registry.REGISTRY``), else None."""
    found = {getattr(REGISTRY.get(run.records.manifest.source["model"]), "family", None) for run in members}
    return found.pop() if len(found) == 1 else None


def neg_log_rbp_of(sample: Mapping[str, np.ndarray], ks: Sequence[int]) -> np.ndarray:
    """-log RBP_k of one sample's ranks at each k of ``ks``: the entries a family's fits share.

    >>> neg_log_rbp_of({"rank": np.array([1, 2, 3, 9])}, [1, 3]).round(4).tolist()
    [1.3863, 0.2877]
    """
    return metrics.neg_log_rbp(sample["rank"], ks)


def fit_regimes(members: Sequence[Run], seeds: Sequence[Sequence[Mapping]], context: Context) -> RegimeFits:
    """One corpus and family's fits of -log RBP_k against size at every k of the chapter, on the full samples and
    on ``context.n_boot`` replicates, and, for a family of ``MIN_SIZES`` sizes, the scatter at large k on
    fractions of the tokens.

    Parameters
    ----------
    members : sequence of rankscale.records.runs.Run
        The family's final models on the corpus, at least two sizes.
    seeds : sequence of sequence of mapping
        Each member's other training runs as samples (``rankscale.claims.context.seed_samples``), which a
        replicate draws among (``rankscale.analysis.fit.bootstrap``).
    context : Context
        Its ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    RegimeFits
    """
    vocab = min(run.vocab_size for run in members)
    moderate_scaled, large = family_ks(vocab)
    ks = sorted({SMALL_K, *A2_MODERATE_KS, *moderate_scaled, *large})
    model_sizes = sizes(members)
    samples = [sample(run, KEYS) for run in members]
    entries = partial(neg_log_rbp_of, ks=ks)
    boot = fit.bootstrap(model_sizes, samples, entries, context.n_boot, context.seed, seeds=seeds,
                         **context.resampling(members))
    full = np.array([entries(s) for s in samples]).T  # (k, model)
    scatter = None
    if len(np.unique(model_sizes)) >= MIN_SIZES:
        scatter = fit.subsample_scatter(model_sizes, [s["rank"] for s in samples],
                                        partial(metrics.neg_log_rbp, ks=list(large)), A2_NOISE_FRACTIONS,
                                        A2_NOISE_REPEATS)
    return RegimeFits(dict(zip(ks, boot.points)), dict(zip(ks, boot.slopes)), dict(zip(ks, boot.r2)), moderate_scaled,
                      large, context.level, model_sizes, dict(zip(ks, full)), vocab, scatter)


def measure(chapter: Chapter, context: Context) -> Regimes:
    """Chapter A2's evidence: the fits (``fit_regimes``) of every family with at least two sizes on every corpus,
    and which families are the paper's GPT-2 models.

    Parameters
    ----------
    chapter : Chapter
        The families' final models per corpus, and the extra training runs of the sizes that have them.
    context : Context
        The families' sizes, the bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    Regimes
    """
    units = {(corpus, family): fit_regimes(members, seed_samples(chapter.seed_runs.get(corpus, ()), members, KEYS),
                                           context)
             for corpus, corpus_runs in chapter.family_runs.items()
             for family, members in by_family(corpus_runs).items() if family in context.usable(LINE_MIN_SIZES)}
    first = by_family(chapter.family_runs[chapter.corpora[0]])
    return Regimes(units, tuple(family for family, members in first.items() if paper_family(members) == "GPT2"))


# ---------------------------------------------------------------------------------------------
# Decide: each claim's rule on one unit, and its verdict

def _testable(evidence: Regimes, context: Context) -> dict[tuple[str, str], RegimeFits]:
    """The units of the families with at least ``MIN_SIZES`` sizes, those a size claim is tested on."""
    usable = context.usable()
    return {unit: r for unit, r in evidence.units.items() if unit[1] in usable}


def _ours(texts: Sequence[str], unusable: Sequence[str], lead: str = "") -> str:
    """A verdict's "ours": ``lead``, each unit's text, the families left out; "" where no unit was measured
    (``no_family`` then says why, naming the families)."""
    return lead + "; ".join(texts) + left_out(unusable) if texts else ""


def table1_pass_text(table1: pd.DataFrame, ks: Sequence[int], bar: float) -> str:
    """Paper A's Table 1 at ``ks``: its R^2 range and how many (dataset, family) fits are falling power laws
    with R^2 >= ``bar`` at every one of these k (A2's paper column).

    Parameters
    ----------
    table1 : pandas.DataFrame
        ``dataset``, ``family``, ``k``, ``slope``, ``r2``.
    ks : sequence of int
    bar : float

    Returns
    -------
    str

    Examples
    --------
    >>> table1 = pd.DataFrame({"dataset": "D", "family": ["P", "G"], "k": 1.0, "slope": -0.1, "r2": [0.95, 0.85]})
    >>> table1_pass_text(table1, [1], 0.9)
    'Table 1, k = 1: R^2 0.850-0.950; 1 of 2 (dataset, family) pass this rule'
    """
    rows = table1[table1["k"].isin(ks)]
    passed = rows.groupby(["dataset", "family"]).apply(lambda g: bool(((g["r2"] >= bar) & (g["slope"] < 0)).all()),
                                                       include_groups=False)
    return (f"Table 1, k = {' and '.join(str(int(k)) for k in sorted(rows['k'].unique()))}: R^2 "
            f"{rows['r2'].min():.3f}-{rows['r2'].max():.3f}; {int(passed.sum())} of {len(passed)} (dataset, family) "
            f"pass this rule")


def k1_law(regime: RegimeFits) -> Reading:
    """A2.1 on one unit: whether -log RBP_1 is a falling power law with R^2 >= ``A2_MIN_R2``, read on the intervals
    of its R^2 and slope (``RegimeFits.law``); ``Reading(None)`` where it cannot be fitted."""
    return regime.law(SMALL_K, A2_MIN_R2)


def k1_law_verdict(evidence: Regimes, context: Context) -> Verdict:
    """A2.1: ``k1_law`` in every (corpus, family) with ``MIN_SIZES`` sizes.

    Parameters
    ----------
    evidence : Regimes
        The evidence (``measure``); the families with too few sizes are left out.
    context : Context
        Which families have enough sizes, and paper A's Table 1 (``TABLE1``), graded under the same rule for the
        paper column (``table1_pass_text``).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units, unusable = _testable(evidence, context), context.unusable()
    return judge("A2.1", {Unit(*u): k1_law(r) for u, r in units.items()},
                 _ours([f"{Unit(*u).label}: {r.fit_text(SMALL_K, True)}" for u, r in units.items()], unusable),
                 paper=table1_pass_text(context.table(TABLE1), [SMALL_K], A2_MIN_R2),
                 why_not=no_family(unusable), why_undetermined=ACROSS_LAW)


def moderate_law(regime: RegimeFits) -> Reading:
    """A2.2 on one unit: whether the fits at every moderate k of ``A2_MODERATE_KS`` are falling power laws with
    R^2 >= ``A2_MODERATE_R2``, each read on its intervals (``RegimeFits.law``), all of which must hold (``every``);
    ``Reading(None)`` where one of them is not fitted."""
    return every(*(regime.law(k, A2_MODERATE_R2) for k in A2_MODERATE_KS))


def moderate_verdict(evidence: Regimes, context: Context) -> Verdict:
    """A2.2: ``moderate_law`` in every (corpus, family); the scaled k are shown, not graded.

    Parameters
    ----------
    evidence, context
        As in ``k1_law_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units, unusable = _testable(evidence, context), context.unusable()
    return judge("A2.2", {Unit(*u): moderate_law(r) for u, r in units.items()},
                 _ours([f"{Unit(*u).label}: " + ", ".join(r.fit_text(k, True) for k in A2_MODERATE_KS)
                        + " (at the paper's fractions, not graded: "
                        + ", ".join(r.fit_text(k) for k in r.moderate_scaled) + ")" for u, r in units.items()],
                       unusable),
                 paper=f"R^2 ≥ {A2_MODERATE_R2}; "
                       + table1_pass_text(context.table(TABLE1), A2_MODERATE_KS, A2_MODERATE_R2),
                 why_not=no_family(unusable), why_undetermined=ACROSS_LAW)


def law_breaks(regime: RegimeFits) -> Reading:
    """A2.3 on one unit: whether the power law breaks down near the vocabulary, the law at each large k read as A2.1
    reads it (``RegimeFits.law``, at ``A2_MIN_R2``): it breaks (True) where the law fails at either k, holds on
    (False) where it holds at both, and is ``UNDETERMINED`` otherwise; a k with nothing to fit is left out, and
    ``Reading(None)`` where neither can be fitted.

    >>> from rankscale.analysis.fit import PowerLawFit
    >>> fits = {1630: PowerLawFit(-0.1, 0.0, 0.95, 3), 2445: PowerLawFit(-0.1, 0.0, 0.5, 3)}
    >>> r = RegimeFits(fits, {k: np.array([-0.1, -0.1]) for k in fits}, {k: np.array([0.9, 1.0]) for k in fits},
    ...                (1, 4, 8), (1630, 2445))
    >>> law_breaks(r).outcome  # at 2,445 R^2 0.5 -+ 0.098 lies wholly below 0.9, whatever 1,630's reading
    True
    """
    laws = [regime.law(k, A2_MIN_R2) for k in regime.large if regime.fits[k] is not None]
    if not laws:
        return Reading(None)
    holds = every(*laws)  # the law holds on near the vocabulary: the claim's opposite
    return Reading(holds.outcome if undetermined(holds.outcome) else not holds.outcome, holds.fragile)


def breakdown_verdict(evidence: Regimes, context: Context) -> Verdict:
    """A2.3: ``law_breaks`` in every (corpus, family).

    Parameters
    ----------
    evidence, context
        As in ``k1_law_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units, unusable = _testable(evidence, context), context.unusable()
    return judge("A2.3", {Unit(*u): law_breaks(r) for u, r in units.items()},
                 _ours([f"{Unit(*u).label}: " + ", ".join(r.fit_text(k, True) for k in r.large)
                        for u, r in units.items()], unusable), why_not=no_family(unusable),
                 why_undetermined=ACROSS_LAW)


def slope_rises(regime: RegimeFits) -> bool | None:
    """A2.4 on one unit: whether -log RBP_k grows with size at either large k: a positive fitted slope (the point
    estimate, as the paper reads its figure); None where neither k is fitted."""
    found = [regime.fits[k].slope > 0 for k in regime.large if regime.fits[k] is not None]
    return any(found) if found else None


def gpt2_grows_verdict(evidence: Regimes, context: Context) -> Verdict:
    """A2.4: ``slope_rises`` on the paper's GPT-2 family (``Regimes.gpt2``), per corpus.

    Parameters
    ----------
    evidence, context
        As in ``k1_law_verdict``; a GPT-2 family of fewer than ``MIN_SIZES`` sizes cannot test it.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units = {u: r for u, r in _testable(evidence, context).items() if u[1] in evidence.gpt2}
    texts = []
    for u, r in units.items():
        parts = []
        for k in r.large:
            f = r.fits[k]
            ci = r.slope_interval(k) if f is not None else None
            parts.append(f"k={k:,} not fittable" if f is None else
                         f"k={k:,} slope {f.slope:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        texts.append(f"{Unit(*u).label}: " + ", ".join(parts))
    return judge("A2.4", {Unit(*u): slope_rises(r) for u, r in units.items()}, "; ".join(texts),
                 why_not=("the set has no family of the paper's GPT-2 models" if not evidence.gpt2 else
                          f"the GPT-2 family has fewer than {MIN_SIZES} sizes"))


def scatter_interval(regime: RegimeFits) -> tuple[float, float] | None:
    """A2.5's measure on one unit: the paired interval of R^2(larger large k) - R^2(smaller large k), None where
    either k (or a replicate) cannot be fitted."""
    small, large = regime.large
    if regime.fits[small] is None or regime.fits[large] is None:
        return None
    return bootstrap.interval(regime.fits[large].r2 - regime.fits[small].r2, regime.r2[large] - regime.r2[small],
                              regime.level)


def scatter_worse(regime: RegimeFits) -> Reading:
    """A2.5 on one unit: the interval of ``scatter_interval`` read against 0 (``read``, the claim's side below):
    wholly below holds, wholly above fails, across 0 undetermined; no interval, ``Reading(None)``.

    Examples
    --------
    >>> from rankscale.analysis.fit import PowerLawFit
    >>> fits = {k: PowerLawFit(-0.1, 0.0, r2, 3) for k, r2 in ((1630, 0.9), (2445, 0.6))}
    >>> r2 = {1630: np.array([0.9, 0.9]), 2445: np.array([0.5, 0.7])}
    >>> scatter_worse(RegimeFits(fits, {}, r2, (1, 4, 8), (1630, 2445)))
    Reading(outcome=True, fragile=False)
    """
    return read(scatter_interval(regime), 0.0, -1)


def scatter_verdict(evidence: Regimes, context: Context) -> Verdict:
    """A2.5: the fit is worse at the larger large k, ``scatter_worse`` in every (corpus, family): the interval of
    ``scatter_interval`` wholly below 0 holds, wholly above fails, across 0 is undetermined.

    Parameters
    ----------
    evidence, context
        As in ``k1_law_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units, unusable = _testable(evidence, context), context.unusable()
    outcomes, texts = {}, []
    for u, r in units.items():
        small, large = r.large
        ci = scatter_interval(r)
        outcomes[Unit(*u)] = scatter_worse(r)
        texts.append(f"{Unit(*u).label}: not testable (k={large:,} or a resample of it has every target of a model "
                     f"inside the top k)" if ci is None else
                     f"{Unit(*u).label}: R^2 {r.fits[small].r2:.3f} at k={small:,}, {r.fits[large].r2:.3f} at "
                     f"k={large:,}; difference [{ci[0]:.3f}, {ci[1]:.3f}]")
    return judge("A2.5", outcomes, _ours(texts, unusable), why_not=no_family(unusable),
                 why_undetermined="every interval of the difference crosses zero")


def noise_shrinks(scatter: np.ndarray) -> bool | None:
    """A2.6 on one unit: whether the scatter at large k shrinks as noise does: at every k (column) fitted at every
    fraction of ``A2_NOISE_FRACTIONS`` (rows), scatter(all tokens) <= ``A2_NOISE_RATIO`` x scatter(fewest tokens).

    Parameters
    ----------
    scatter : ndarray of shape (len(A2_NOISE_FRACTIONS), k)
        ``rankscale.analysis.fit.subsample_scatter`` at the large k; NaN where not fitted.

    Returns
    -------
    bool or None
        None where no k is fitted at every fraction.

    Examples
    --------
    >>> noise_shrinks(np.array([[0.3, 0.2], [0.2, 0.2], [0.15, 0.2], [0.1, 0.2]]))  # the second k does not shrink
    False
    >>> noise_shrinks(np.array([[0.3, np.nan], [0.2, 0.1], [0.15, 0.1], [0.1, 0.1]]))
    True
    """
    tested = np.isfinite(scatter).all(axis=0)
    if not tested.any():
        return None
    return bool((scatter[-1, tested] <= A2_NOISE_RATIO * scatter[0, tested]).all())


def noise_verdict(evidence: Regimes, context: Context) -> Verdict:
    """A2.6: ``noise_shrinks`` in every (corpus, family).

    Parameters
    ----------
    evidence, context
        As in ``k1_law_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units, unusable = _testable(evidence, context), context.unusable()
    texts = []
    for u, r in units.items():
        parts = [f"k={k:,} {r.scatter[0, j]:.3f} -> {r.scatter[-1, j]:.3f} (x{r.scatter[-1, j] / r.scatter[0, j]:.2f})"
                 if np.isfinite(r.scatter[:, j]).all() else f"k={k:,} not fittable on every subsample"
                 for j, k in enumerate(r.large)]
        texts.append(f"{Unit(*u).label}: " + ", ".join(parts))
    return judge("A2.6", {Unit(*u): noise_shrinks(r.scatter) for u, r in units.items()},
                 _ours(texts, unusable,
                       f"scatter of log(-log RBP_k) on {A2_NOISE_FRACTIONS[0]:g} -> all of the tokens: "),
                 why_not=no_family(unusable))


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"A2.1": k1_law_verdict, "A2.2": moderate_verdict, "A2.3": breakdown_verdict, "A2.4": gpt2_grows_verdict,
         "A2.5": scatter_verdict, "A2.6": noise_verdict}


SPEC = ChapterSpec("A2", CLAIMS_A2, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables and figures, and its headline for the findings

def regimes_text(family_runs: Sequence[Run]) -> str:
    """Each family's vocabulary and the k of each regime, in Markdown, from its final models on one corpus.

    >>> from types import SimpleNamespace
    >>> runs = [Run("NeoX", "d16", None, 1e3, 0, SimpleNamespace(manifest=SimpleNamespace(vocab_size=4096)))]
    >>> for part in regimes_text(runs).split("; "):
    ...     print(part)
    NeoX: 4,096 tokens
    moderate $k$ 10, 50, 100 (the paper's), 1, 4, 8 at the paper's fractions of the vocabulary
    large $k$ 1,630, 2,445 (the paper's 20,000, 30,000 of 50,257, as fractions)
    """
    texts = []
    for family, members in by_family(list(family_runs)).items():
        vocab = min(run.vocab_size for run in members)
        moderate_scaled, large = family_ks(vocab)
        texts.append(f"{family}: {vocab:,} tokens; moderate $k$ {', '.join(map(str, A2_MODERATE_KS))} (the paper's), "
                     f"{', '.join(map(str, moderate_scaled))} at the paper's fractions of the vocabulary; large $k$ "
                     f"{', '.join(f'{k:,}' for k in large)} (the paper's {', '.join(f'{k:,}' for k in A2_LARGE_KS)} "
                     f"of {PAPER_A_VOCAB:,}, as fractions)")
    return "; ".join(texts)


def regime_curves(evidence: Regimes, corpora: Sequence[str], regime: str) -> dict[str, list]:
    """What a figure of one regime draws (``rankscale.book.plots.size_lines``): per corpus, each fitted family's
    sizes and, per k of the regime, the models' -log RBP_k and its fit.

    Parameters
    ----------
    evidence : Regimes
    corpora : sequence of str
        One panel each, in order (a corpus with no family fitted has an empty panel).
    regime : str
        One of ``REGIMES``.

    Returns
    -------
    dict of str to list of (str, ndarray, list of (int, ndarray, PowerLawFit or None))
    """
    return {corpus: [(family, r.sizes, [(k, r.values[k], r.fits[k]) for k in r.regime(regime)])
                     for (c, family), r in evidence.units.items() if c == corpus] for corpus in corpora}


def fits_table(evidence: Regimes, context: Context) -> pd.DataFrame:
    """Every fit of the chapter, per corpus, family and k: the regime, k as a share of the vocabulary, the sizes
    fitted, and slope and R^2 with their intervals.

    Parameters
    ----------
    evidence : Regimes
    context : Context
        The level of the intervals.

    Returns
    -------
    pandas.DataFrame
        Columns corpus, family, regime, k, k / vocab, sizes, slope, its interval as text, R^2, its interval as
        text, note (why a k has no fit).
    """
    level, rows = context.level, []
    for (corpus, family), r in evidence.units.items():
        for k, f in r.fits.items():
            slope_ci = bootstrap.interval(f.slope, r.slopes[k], level) if f else None
            r2_ci = bootstrap.interval(f.r2, r.r2[k], level) if f else None
            rows.append({"corpus": corpus, "family": family, "regime": r.reading(k), "k": k, "k / vocab": k / r.vocab,
                         "sizes": len(np.unique(r.sizes)), "slope": f.slope if f else np.nan,
                         f"slope {level:.0%} CI": f"[{slope_ci[0]:.3f}, {slope_ci[1]:.3f}]" if slope_ci else "-",
                         "R^2": f.r2 if f else np.nan,
                         f"R^2 {level:.0%} CI": f"[{r2_ci[0]:.3f}, {r2_ci[1]:.3f}]" if r2_ci else "-",
                         "note": "" if f else "RBP_k = 1 for some model: no log-log fit"})
    return pd.DataFrame(rows)


def fits_summary(table: pd.DataFrame) -> str:
    """The headline numbers of ``fits_table``, in Markdown: the slopes' and R^2's ranges at k = 1, at the paper's
    moderate k and at the large k.

    >>> table = pd.DataFrame({"regime": ["k = 1", "large, the paper's fraction"], "slope": [-0.02, np.nan],
    ...                       "R^2": [0.97, np.nan]})
    >>> fits_summary(table)
    'Headline numbers of the table below, over its 2 fits (1 impossible, ...): at $k = 1$, slopes -0.020 and ...'
    >>> fits_summary(table).endswith("at the large $k$ near the vocabulary, slopes — and $R^2$ —.")
    True
    """
    if not len(table):
        return "No family has two sizes, so the table below has no fit."
    by_regime = {"$k = 1$": table[table["regime"] == "k = 1"],
                 f"the paper's moderate $k$ ({', '.join(map(str, A2_MODERATE_KS))})":
                     table[table["regime"].str.startswith("moderate, the paper's k")],
                 "the large $k$ near the vocabulary": table[table["regime"].str.startswith("large")]}
    unfitted = int(table["slope"].isna().sum())
    ranges = [f"at {name}, slopes {bootstrap.span_or_dash(rows['slope'], '+.3f')} and $R^2$ {bootstrap.span_or_dash(rows['R^2'], '.3f')}"
              for name, rows in by_regime.items() if len(rows)]
    return (f"Headline numbers of the table below, over its {len(table)} fits"
            + (f" ({unfitted} impossible, RBP$_k$ = 1 for some model)" if unfitted else "") + ": " + "; ".join(ranges)
            + ".")


def headline(evidence: Regimes, context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): on the first
    corpus, each family's fit of -log RBP_1; none where no family has ``MIN_SIZES`` sizes.

    Parameters
    ----------
    evidence : Regimes
    context : Context
        Which families have enough sizes.

    Returns
    -------
    list of str
    """
    units = _testable(evidence, context)
    if not context.usable():
        return []
    first = next(iter(evidence.units), ("",))[0]
    return [f"On {first}, −log RBP_1 against size: " + "; ".join(
        f"{family} slope {r.fits[SMALL_K].slope:+.3f}, R² {r.fits[SMALL_K].r2:.3f}"
        for (c, family), r in units.items() if c == first and r.fits[SMALL_K] is not None) + "."]
