"""Chapter B5 of the claims stage, how many evaluation tokens the decomposition needs (beyond paper B, except B5.3,
its App. A.1): its settings and claims, its evidence (``SampleSizes``: CE, EE, SA and Conf of every model on nested
subsamples of whole windows, how each graded fit's size exponents move as tokens are added, and the exponents on
fewer and more evaluation instances) and its two steps, ``measure`` (the chapter's runs to that evidence) and
``decide`` (the evidence to the chapter's verdicts), with the rule of each claim read on one unit as a small
function of its own and the evidence laid out as the chapter's tables.

Its token grid and convergence tolerance (``rankscale.claims.paper_b``) also define the check that chapter B3
applies to its verdicts on SA and Confidence (``rankscale.analysis.sample_size.convergence_by_group``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankscale.analysis import metrics, sample_size
from rankscale.analysis.bootstrap import LEVEL, Z
from rankscale.analysis.components import QUANTITIES
from rankscale.analysis.fit import POOLED
from rankscale.analysis.sample_size import ExponentConvergence, mean_interval
from rankscale.claims.base import Claim, Reading, Unit, Verdict, every, index_claims, judge, left_out, read
from rankscale.claims.context import Chapter, Context
from rankscale.claims.paper_b import B5_EXPONENT_FLOOR, B5_EXPONENT_TOLERANCE, B5_MIN_TOKENS, B5_N_GRID, B5_N_REPEATS
from rankscale.claims.spec import ChapterSpec
from rankscale.corpora import get_corpus
from rankscale.records.runs import Run, sizes
from rankscale.sets.schema import ModelSet

B5_VALUE_TOLERANCE = 0.01  # a component's value: allowed error, as a fraction of CE (a hundredth of the loss it
# decomposes: the precision to which the chapters read a component off a figure)
B5_PAPER_INSTANCES = (1_000, 10_000)  # App. A.1: 1k instances evaluated, "identical trends" with 10k
B5_SET_FRACTION = 10  # this set's analogue of App. A.1: a tenth of its instances against all of them
B5_TREND_QUANTITIES = ("CE", "EE", "SA")  # the §4 trends: CE and EE fall, SA rises; Conf has none (§4.1)
READS = ()  # the runs measure reads beside the families' final models (``load_chapter``'s keywords): none
TABLES = ()  # the papers' tables decide reads (``Context.tables``): none

CLAIMS_B5 = index_claims(
    Claim("B5.1", "Self-Alignment is biased upwards when evaluated on few tokens", "beyond the paper",
          f"For every model of a family, the {LEVEL:.0%} interval of the mean SA over {B5_N_REPEATS} subsamples "
          f"of about {B5_MIN_TOKENS:,} tokens (the mean ± {Z:.2f} standard errors, the standard deviation over the "
          "subsamples divided by the square root of their number), read against SA on all tokens: wholly above it "
          "holds, wholly below it fails, across it undetermined; a family holds where every model holds, fails where "
          "one fails, and is undetermined otherwise; per corpus and family.",
          "not addressed"),
    Claim("B5.2", "Error-Entropy is biased downwards when evaluated on few tokens", "analytic",
          "Plug-in entropy is concave in the frequencies, so its mean over subsamples is at most the entropy of "
          "their mean frequencies, the full set's (Jensen; up to the weighting of whole windows): holds by "
          "construction. Checked as B5.1 with the interval read against EE on all tokens, below it holding.",
          "not addressed"),
    Claim("B5.3", "Conclusions do not depend on the evaluation sample size: identical trends with 1k and 10k "
                  "instances (paper B, App. A.1)", "empirical",
          "An instance is one evaluation window (a document, under the papers' sampling). The signs of the size "
          "exponents of CE, EE and SA (Conf has no trend in §4), mean over subsamples of 1,000 instances, equal "
          "their signs on 10,000 instances; per corpus and graded fit. Needs 10,000 instances per model.",
          "identical trends with 1k and 10k instances", needs=("three sizes", "many windows")),
    Claim("B5.4", "The trends are the same on a tenth of this set's instances as on all of them (this set's analogue "
                  "of App. A.1's 1k against 10k)", "beyond the paper",
          f"As B5.3 with 1/{B5_SET_FRACTION} of the instances against all of them; per corpus and graded fit "
          "(each family with at least three sizes, and the pooled fit).",
          "App. A.1 checks 1k against 10k instances only", needs=("three sizes",)),
    Claim("B5.5", "The set's held-out data suffice for every reported value and exponent", "beyond the paper",
          f"Every model's CE, EE, SA and Conf within {B5_VALUE_TOLERANCE:.0%} of CE, and every graded fit's "
          f"exponents each within {B5_EXPONENT_TOLERANCE:.0%} of its own magnitude (of {B5_EXPONENT_FLOOR} × |α_CE| "
          "where it is nearer zero, relative to which no drift would be small), at the evaluated token count "
          "(spread plus drift over the last doubling, sample_size.sample_size_error); per corpus.",
          "not addressed (1,000 instances per dataset, App. A.2)"),
)


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class Trends:
    """One fit's size exponents on a smaller and a larger number of evaluation instances (windows).

    Attributes
    ----------
    smaller, larger : int
        The two numbers of windows; a number above a model's windows takes all of them.
    exponents : ndarray of shape (2, 4)
        The mean size exponent over ``B5_N_REPEATS`` draws of windows of CE, EE, SA and Conf
        (``components.QUANTITIES`` order), on ``smaller`` (row 0) and ``larger`` (row 1) windows
        (``sample_size.instance_exponents``).
    """

    smaller: int
    larger: int
    exponents: np.ndarray


@dataclass(frozen=True)
class CorpusSample:
    """Chapter B5's measurements on one corpus, for every model of the set (the models of ``SampleSizes``, in order).

    Attributes
    ----------
    grid : ndarray of shape (g,)
        The subsamples' token counts, from ``B5_MIN_TOKENS`` up to the fewest tokens of any model
        (``sample_size.token_grid``).
    subsamples : tuple of dict
        Per model, arrays of shape (g, ``B5_N_REPEATS``) keyed as ``sample_size.subsampled_decompositions``
        (``n_tokens``, ``CE``, ``EE``, ``SA``, ``Conf``, ``ranks_seen``, ...); every model sees the same windows.
    full : ndarray of shape (models, 4)
        CE, EE, SA and Conf of each model on all its tokens (``QUANTITIES`` order).
    tokens, windows : ndarray of int, shape (models,)
        Each model's evaluation tokens and windows (instances).
    convergence : mapping of str to mapping of str to ExponentConvergence
        Graded fit (``SampleSizes.groups``) -> quantity -> how its size exponent moves with the tokens
        (``sample_size.exponent_convergence``, tolerance ``B5_EXPONENT_TOLERANCE``, floor ``B5_EXPONENT_FLOOR``).
    tenth : mapping of str to Trends
        Graded fit -> its exponents on 1/``B5_SET_FRACTION`` of its fewest windows against all of them.
    instances : mapping of str to Trends
        Graded fit -> its exponents on ``B5_PAPER_INSTANCES`` windows, for the fits whose every model has the
        larger number (App. A.1's check); empty on a corpus of fewer windows.
    window_len : int
        Tokens per window at most.
    one_per_document : bool
        Whether the corpus takes one window per document (the papers' sampling), else several in order.
    """

    grid: np.ndarray
    subsamples: tuple[dict[str, np.ndarray], ...]
    full: np.ndarray
    tokens: np.ndarray
    windows: np.ndarray
    convergence: Mapping[str, Mapping[str, ExponentConvergence]]
    tenth: Mapping[str, Trends]
    instances: Mapping[str, Trends]
    window_len: int
    one_per_document: bool

    def term(self, quantity: str) -> np.ndarray:
        """(models,) ``quantity`` of every model on all its tokens."""
        return self.full[:, QUANTITIES.index(quantity)]


@dataclass(frozen=True)
class SampleSizes:
    """Chapter B5's evidence: every model's decomposition on subsamples of every corpus, and what follows for
    each graded fit's exponents.

    Attributes
    ----------
    models, families : tuple of str
        Each model's name and family, in the set's order (the same models on every corpus).
    sizes : ndarray of shape (models,)
        Non-embedding sizes.
    vocab : tuple of int
        Each model's vocabulary size.
    groups : mapping of str to ndarray of int
        The fits whose exponents the claims grade -> the indices of their models: each family with at least
        ``MIN_SIZES`` sizes, then every model pooled (``POOLED``) where the families can be pooled.
    pooled_reason : str or None
        Why the families cannot be pooled (``Chapter.pooled_reason``); None where they are.
    corpora : mapping of str to CorpusSample
        By corpus, in the set's order.

    Examples
    --------
    >>> evidence = SampleSizes(("a", "b", "c"), ("NeoX", "NeoX", "Llama"), np.array([1e3, 1e4, 1e3]), (8, 8, 8),
    ...                        {}, "no family has 3 or more sizes", {})
    >>> evidence.family_names, evidence.members("NeoX").tolist(), evidence.shown(-1)
    (['NeoX', 'Llama'], [0, 1], {'NeoX': 1, 'Llama': 2})
    """

    models: tuple[str, ...]
    families: tuple[str, ...]
    sizes: np.ndarray
    vocab: tuple[int, ...]
    groups: Mapping[str, np.ndarray]
    pooled_reason: str | None
    corpora: Mapping[str, CorpusSample]

    @property
    def family_names(self) -> list[str]:
        """The families, in the set's order."""
        return list(dict.fromkeys(self.families))

    def members(self, family: str) -> np.ndarray:
        """(n,) indices of ``family``'s models, smallest first."""
        return np.flatnonzero(np.array(self.families) == family)

    def shown(self, model_index: int) -> dict[str, int]:
        """The model of each family a figure shows in detail: its ``model_index``-th (-1: its largest), as an
        index into ``models``."""
        return {family: int(self.members(family)[model_index % len(self.members(family))])
                for family in self.family_names}

    @property
    def first(self) -> CorpusSample:
        """The first corpus's measurements (the one the chapter's single-corpus figures and texts read)."""
        return next(iter(self.corpora.values()))


def unit(corpus: str, group: str) -> Unit:
    """The unit of a graded fit on ``corpus``: a family's, or every model pooled (paper B's "All").

    >>> unit("pydocs", "NeoX").label, unit("pydocs", POOLED).label
    ('pydocs/NeoX', 'pydocs/All')
    """
    return Unit(corpus, pooled=True) if group == POOLED else Unit(corpus, group)


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def measure_corpus(corpus: str, runs: Sequence[Run], groups: Mapping[str, np.ndarray],
                   context: Context) -> CorpusSample:
    """One corpus's measurements of chapter B5: every model subsampled on one token grid, each graded fit's
    exponents against the number of tokens, and on fewer and more windows.

    Parameters
    ----------
    corpus : str
        What is read for the corpus (``rankscale.corpora.get_corpus``; ``Chapter.corpus_source``), for how it cuts
        its documents into windows.
    runs : sequence of rankscale.records.runs.Run
        Every family's final models on the corpus, in the set's order.
    groups : mapping of str to ndarray of int
        The graded fits -> their models' indices into ``runs``.
    context : Context
        Its ``seed``: of every draw of windows (the same for every model, so that models evaluated on the same
        windows see the same subsamples).

    Returns
    -------
    CorpusSample
    """
    records = [run.records for run in runs]
    model_sizes = sizes(list(runs))
    tokens = np.array([len(r) for r in records])
    windows = np.array([sample_size.n_windows(r.window) for r in records])
    # families with other tokenizers have other token counts: the grid goes up to the fewest
    grid = sample_size.token_grid(int(tokens.min()), B5_MIN_TOKENS, B5_N_GRID)
    subsamples = tuple(sample_size.subsample_models(records, grid, B5_N_REPEATS, context.seed))
    full = np.array([[terms[q] for q in QUANTITIES]
                     for terms in (metrics.ce_decomposition(r.logp, r.gt).terms() for r in records)])
    convergence, tenth, instances = {}, {}, {}
    small_paper, large_paper = B5_PAPER_INSTANCES
    for group, idx in groups.items():
        convergence[group] = sample_size.exponent_convergence(model_sizes[idx], [subsamples[m] for m in idx],
                                                              full[idx], B5_EXPONENT_TOLERANCE, B5_EXPONENT_FLOOR)
        members = [records[m] for m in idx]
        fewest = int(windows[idx].min())
        if fewest >= large_paper:
            instances[group] = Trends(small_paper, large_paper, sample_size.instance_exponents(
                model_sizes[idx], members, [small_paper, large_paper], B5_N_REPEATS, context.seed))
        smaller = max(1, round(fewest / B5_SET_FRACTION))
        tenth[group] = Trends(smaller, fewest, sample_size.instance_exponents(
            model_sizes[idx], members, [smaller, fewest], B5_N_REPEATS, context.seed))
    return CorpusSample(grid, subsamples, full, tokens, windows, convergence, tenth, instances,
                        int(runs[0].records.manifest.identity["window_len"]),
                        get_corpus(corpus).sampling.windows_per_document == 1)


def measure(chapter: Chapter, context: Context) -> SampleSizes:
    """Chapter B5's evidence: ``measure_corpus`` on every corpus, for the graded fits of the families with at
    least ``MIN_SIZES`` sizes and, where the families can be pooled, of every model at once.

    Parameters
    ----------
    chapter : Chapter
        The families' final models per corpus.
    context : Context
        The families' sizes (which fits are graded) and ``seed`` (of every draw of windows).

    Returns
    -------
    SampleSizes
    """
    models = chapter.family_runs[chapter.corpora[0]]  # the same models, in the same order, on every corpus
    families = np.array([run.family for run in models])
    groups = {family: np.flatnonzero(families == family) for family in context.usable()}
    if chapter.pooled_reason is None:
        groups[POOLED] = np.arange(len(models))
    return SampleSizes(tuple(run.name for run in models), tuple(families.tolist()), sizes(models),
                       tuple(run.vocab_size for run in models), groups, chapter.pooled_reason,
                       {corpus: measure_corpus(chapter.corpus_source(corpus), chapter.family_runs[corpus], groups,
                                               context)
                        for corpus in chapter.corpora})


# ---------------------------------------------------------------------------------------------
# Decide: the evidence to the chapter's verdicts

def biased(subsampled: np.ndarray, on_all: np.ndarray, sign: int, level: float) -> Reading:
    """Whether every model's mean over its subsamples lies off its value on all tokens on the ``sign`` side
    (B5.1 and B5.2): the interval of the mean (``sample_size.mean_interval``) read against that value
    (``rankscale.claims.base.read``): wholly on the ``sign`` side it holds, wholly on the other it fails, across it
    undetermined; every model's must hold (``every``).

    Parameters
    ----------
    subsampled : ndarray of shape (m, repeats)
        The quantity of each of a family's m models on each subsample.
    on_all : ndarray of shape (m,)
        The quantity of each model on all its tokens.
    sign : int
        +1 (biased upwards) or -1 (downwards).
    level : float
        Of the interval.

    Returns
    -------
    rankscale.claims.base.Reading

    Examples
    --------
    >>> up = np.array([[1.2, 1.3, 1.25]])
    >>> on_all = np.array([1.0])
    >>> [biased(up, on_all + shift, sign, 0.95).outcome for shift, sign in ((0, 1), (0, -1), (0.25, 1), (0.5, 1))]
    [True, False, 'undetermined', False]
    """
    lo, hi = mean_interval(subsampled, level)
    return every(*(read((float(a), float(b)), float(value), sign) for a, b, value in zip(lo, hi, on_all)))


def smallest_subsamples(evidence: SampleSizes, quantity: str) -> dict[Unit, tuple[np.ndarray, np.ndarray]]:
    """Each family's ``quantity`` on the smallest subsamples of the grid and on all tokens, per corpus and family:
    what B5.1 and B5.2 read.

    Returns
    -------
    dict of Unit to (ndarray of shape (m, repeats), ndarray of shape (m,))
        By (corpus, family), corpus by corpus.
    """
    return {Unit(corpus, family): (np.stack([s.subsamples[m][quantity][0] for m in evidence.members(family)]),
                                   s.term(quantity)[evidence.members(family)])
            for corpus, s in evidence.corpora.items() for family in evidence.family_names}


def _bias_verdict(key: str, quantity: str, sign: int, evidence: SampleSizes, context: Context) -> Verdict:
    """B5.1 or B5.2: ``biased`` on every (corpus, family), with the range of its models' shifts."""
    units = smallest_subsamples(evidence, quantity)
    outcomes = {u: biased(subsampled, on_all, sign, context.level) for u, (subsampled, on_all) in units.items()}
    shifts = {u: subsampled.mean(axis=1) - on_all for u, (subsampled, on_all) in units.items()}
    return judge(key, outcomes,
                 f"{quantity}(about {evidence.first.grid[0]:,} tokens) − {quantity}(all), range over the family's "
                 "models, nats: " + "; ".join(f"{u.label} {d.min():+.4f} to {d.max():+.4f}" for u, d in shifts.items()))


def sa_bias_verdict(evidence: SampleSizes, context: Context) -> Verdict:
    """B5.1: Self-Alignment is biased upwards on few tokens: ``biased`` (+1) on every (corpus, family).

    Parameters
    ----------
    evidence : SampleSizes
    context : Context
        Its ``level``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    return _bias_verdict("B5.1", "SA", 1, evidence, context)


def ee_bias_verdict(evidence: SampleSizes, context: Context) -> Verdict:
    """B5.2: Error-Entropy is biased downwards on few tokens: ``biased`` (-1) on every (corpus, family).

    Parameters
    ----------
    evidence, context
        As ``sa_bias_verdict``'s.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    return _bias_verdict("B5.2", "EE", -1, evidence, context)


def same_trends(trends: Trends) -> bool:
    """Whether the size exponents of ``B5_TREND_QUANTITIES`` have the same signs on the fewer and the more
    instances (B5.3, B5.4); Confidence, which has no trend in paper B's §4, may flip.

    Examples
    --------
    >>> same_trends(Trends(60, 600, np.array([[-0.1, -0.1, 0.02, 0.05], [-0.1, -0.1, 0.01, -0.05]])))
    True
    >>> same_trends(Trends(60, 600, np.array([[-0.1, -0.1, 0.02, 0.0], [-0.1, -0.1, -0.01, 0.0]])))  # SA flips
    False
    """
    trend = [QUANTITIES.index(q) for q in B5_TREND_QUANTITIES]
    return bool(np.all(np.sign(trends.exponents[0, trend]) == np.sign(trends.exponents[1, trend])))


def _trends_text(trends: Trends) -> str:
    """'α_CE -0.0211→-0.0212, ...': the trend quantities' exponents on the fewer and the more instances."""
    smaller, larger = trends.exponents
    return ", ".join(f"α_{q} {smaller[QUANTITIES.index(q)]:+.4f}→{larger[QUANTITIES.index(q)]:+.4f}"
                     for q in B5_TREND_QUANTITIES)


def _not_graded(evidence: SampleSizes, context: Context) -> list[str]:
    """The fits B5.3 and B5.4 leave out, each with why: families of too few sizes, and the pooled fit where the
    families cannot be pooled."""
    pooled = evidence.pooled_reason is not None and len(evidence.family_names) > 1
    return context.unusable() + ([f"pooled fit ({evidence.pooled_reason})"] if pooled else [])


def _no_fit(evidence: SampleSizes, context: Context) -> str:
    """Why B5.3 and B5.4 have no fit to test: the families' reasons and the pooled fit's."""
    return "no fit to test: " + "; ".join(context.unusable() + [evidence.pooled_reason] * bool(evidence.pooled_reason))


def _windows_text(windows: np.ndarray) -> str:
    """'605' or '86/605': the distinct numbers of windows of a corpus's models."""
    return "/".join(f"{n:,}" for n in sorted(set(windows.tolist())))


def paper_trends_verdict(evidence: SampleSizes, context: Context) -> Verdict:
    """B5.3 (paper B, App. A.1): ``same_trends`` on ``B5_PAPER_INSTANCES`` windows, per corpus and graded fit; a
    corpus where some model has fewer windows than the larger number cannot test it.

    Parameters
    ----------
    evidence : SampleSizes
    context : Context
        Which families have enough sizes.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    small, large = B5_PAPER_INSTANCES
    measured = {unit(c, g): trends for c, s in evidence.corpora.items() for g, trends in s.instances.items()}
    if not measured:
        why_not = ("an instance is an evaluation window; every corpus holds fewer than "
                   f"{large:,} per model (" + ", ".join(f"{c} {_windows_text(s.windows)}"
                                                        for c, s in evidence.corpora.items()) + ")"
                   if evidence.groups else _no_fit(evidence, context))
        return judge("B5.3", {}, "", why_not=why_not)
    short = {c: int(s.windows.max()) for c, s in evidence.corpora.items() if s.windows.min() < large}
    outcomes = {**{Unit(c): None for c in short}, **{u: same_trends(t) for u, t in measured.items()}}
    return judge("B5.3", outcomes,
                 f"size exponents, {small:,}→{large:,} windows: "
                 + "; ".join(f"{u.label} {_trends_text(t)}" for u, t in measured.items())
                 + "".join(f"; {c}: at most {most:,} windows per model" for c, most in short.items())
                 + left_out(_not_graded(evidence, context)))


def tenth_trends_verdict(evidence: SampleSizes, context: Context) -> Verdict:
    """B5.4: ``same_trends`` on 1/``B5_SET_FRACTION`` of the windows against all of them, per corpus and graded
    fit.

    Parameters
    ----------
    evidence, context
        As ``paper_trends_verdict``'s.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    measured = {unit(c, g): trends for c, s in evidence.corpora.items() for g, trends in s.tenth.items()}
    if not measured:
        return judge("B5.4", {}, "", why_not=_no_fit(evidence, context))
    return judge("B5.4", {u: same_trends(t) for u, t in measured.items()},
                 "size exponents, a tenth of the windows → all: "
                 + "; ".join(f"{u.label} ({t.smaller:,}→{t.larger:,}) {_trends_text(t)}" for u, t in measured.items())
                 + left_out(_not_graded(evidence, context)))


def data_suffice(converged: Sequence[bool]) -> bool:
    """Whether a corpus's held-out data suffice (B5.5): every case of it (a family's value of a quantity, a
    graded fit's exponent) settles within its tolerance on the tokens there are (``requirements``).

    >>> data_suffice([True, True]), data_suffice([True, False])
    (True, False)
    """
    return bool(all(converged))


def data_suffice_verdict(evidence: SampleSizes, context: Context) -> Verdict:
    """B5.5: ``data_suffice`` on every corpus.

    Parameters
    ----------
    evidence : SampleSizes
    context : Context
        Unused: every case of ``requirements`` is graded (the signature of every rule).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    needs = requirements(evidence)
    cases = {c: needs.loc[needs["corpus"] == c, "converged"].tolist() for c in evidence.corpora}
    return judge("B5.5", {Unit(c): data_suffice(converged) for c, converged in cases.items()},
                 "converged within the available tokens: "
                 + "; ".join(f"{c} {sum(converged)}/{len(converged)} (figure, fit) cases"
                             for c, converged in cases.items()))


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"B5.1": sa_bias_verdict, "B5.2": ee_bias_verdict, "B5.3": paper_trends_verdict, "B5.4": tenth_trends_verdict,
         "B5.5": data_suffice_verdict}


SPEC = ChapterSpec("B5", CLAIMS_B5, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The chapter's tables and headline

def requirements(evidence: SampleSizes) -> pd.DataFrame:
    """The evaluation tokens each figure needs before its estimate settles within its tolerance
    (``sample_size.tokens_needed``), per corpus: each family's values of CE, EE, SA and Conf (the largest need of
    its models, within ``B5_VALUE_TOLERANCE`` of the model's CE), then each graded fit's exponents (within
    ``B5_EXPONENT_TOLERANCE`` of their own magnitude, ``sample_size.allowed_drift``).

    Returns
    -------
    pandas.DataFrame
        One row per case: ``corpus``, ``fit``, ``figure`` ("SA value", "α_SA exponent"), ``tokens needed`` (NaN:
        more than the tokens there are), ``available`` (the grid's largest count), ``converged`` and ``reading``
        (the need in words).
    """
    rows = []
    for corpus, s in evidence.corpora.items():
        for family in evidence.family_names:
            for quantity in QUANTITIES:
                per_model = [sample_size.tokens_needed(s.grid, s.subsamples[m][quantity],
                                                       B5_VALUE_TOLERANCE * s.term("CE")[m])
                             for m in evidence.members(family)]
                rows.append({"corpus": corpus, "fit": family, "figure": f"{quantity} value",
                             "tokens needed": np.max(per_model), "available": s.grid[-1]})
        for group in evidence.groups:
            for quantity in QUANTITIES:
                rows.append({"corpus": corpus, "fit": group, "figure": f"α_{quantity} exponent",
                             "tokens needed": s.convergence[group][quantity].needed, "available": s.grid[-1]})
    needs = pd.DataFrame(rows)
    needs["converged"] = needs["tokens needed"].notna()
    needs["reading"] = [f"{int(t):,}" if ok else "more than available"
                        for t, ok in zip(needs["tokens needed"], needs["converged"])]
    return needs


def needs_table(evidence: SampleSizes) -> pd.DataFrame:
    """``requirements`` laid out as the page's table: one row per (fit, figure), families' values first, then the
    graded fits' exponents; one column per corpus; each cell the need in words."""
    order = ([(family, f"{q} value") for family in evidence.family_names for q in QUANTITIES]
             + [(group, f"α_{q} exponent") for group in evidence.groups for q in QUANTITIES])
    return requirements(evidence).pivot(index=["fit", "figure"], columns="corpus",
                                        values="reading").loc[order, list(evidence.corpora)]


def tokens_text(evidence: SampleSizes, model_set: ModelSet) -> str:
    """The page's sentence on what the set evaluates and whether its data suffice for the components' values,
    on the final models and, where the set has training checkpoints, on their token budget (chapter B2)."""
    needs = requirements(evidence)
    values = needs[needs["figure"].str.endswith("value")]
    converged = (f"Component values are converged within the tolerance on the available tokens in "
                 f"{int(values['converged'].sum())} of {len(values)} (quantity, family, corpus) cases")
    has_checkpoints = any(f.ladder.checkpoint_sizes if f.ladder else any(m.checkpoints for m in f.models)
                          for f in model_set.families)
    if has_checkpoints:
        budget = {c: min(model_set.checkpoint_tokens or s.grid[-1], s.grid[-1]) for c, s in evidence.corpora.items()}
        meets = sum(int(row["tokens needed"] <= budget[row["corpus"]]) for _, row in values.iterrows())
        checkpoints = (" training checkpoints (chapter B2) on "
                       + (f"{model_set.checkpoint_tokens:,} tokens per corpus" if model_set.checkpoint_tokens
                          else "the same tokens")
                       + f". {converged}; the checkpoint budget meets the requirement in {meets} of {len(values)}.")
    else:
        checkpoints = f" no training checkpoints (chapter B2 has none to show). {converged}."
    return (f"Set `{model_set.name}` evaluates final models on "
            + ", ".join(f"{'/'.join(f'{n:,}' for n in sorted(set(s.tokens.tolist())))} ({c})"
                        for c, s in evidence.corpora.items())
            + " tokens and" + checkpoints)


def instances_text(evidence: SampleSizes) -> str:
    """What an evaluation instance is on each corpus, and whether the set holds the instances App. A.1's check
    needs: one Markdown item per corpus."""
    large = B5_PAPER_INSTANCES[1]
    return "\n".join(
        f"- `{c}`: an instance is a window of at most {s.window_len} tokens, "
        + ("one per document (the papers' sampling)" if s.one_per_document
           else "cut from the documents in order, several per document where a document is longer")
        + f"; the set holds {_windows_text(s.windows)} per model"
        + (f", at least the {large:,} the paper's check needs." if s.windows.min() >= large
           else f", fewer than the {large:,} the paper's check needs.")
        for c, s in evidence.corpora.items())


TENTH, EVERY = f"1/{B5_SET_FRACTION} of the windows", "all windows"  # the trends table's columns of B5.4


def trends_table(evidence: SampleSizes) -> pd.DataFrame:
    """Every graded fit's size exponents on a tenth of the windows and on all of them (B5.4), and on
    ``B5_PAPER_INSTANCES`` windows where every model has that many (B5.3).

    Returns
    -------
    pandas.DataFrame
        One row per corpus, fit and quantity: ``corpus``, ``fit``, ``quantity`` ("α_SA"), ``TENTH``, ``EVERY``,
        and the two paper columns where some fit has them (NaN elsewhere); empty where no fit is graded.
    """
    small, large = B5_PAPER_INSTANCES
    rows = []
    for c, s in evidence.corpora.items():
        for group, tenth in s.tenth.items():
            for k, q in enumerate(QUANTITIES):
                row = {"corpus": c, "fit": group, "quantity": f"α_{q}", TENTH: tenth.exponents[0, k],
                       EVERY: tenth.exponents[1, k]}
                if group in s.instances:
                    row[f"{small:,} windows"], row[f"{large:,} windows"] = s.instances[group].exponents[:, k]
                rows.append(row)
    return pd.DataFrame(rows)


def trend_changes(table: pd.DataFrame) -> str:
    """How far each exponent moves from a tenth of the windows to all of them (``trends_table``), and how many
    rows change sign, in words.

    Examples
    --------
    >>> table = pd.DataFrame({"quantity": ["α_CE", "α_SA"], TENTH: [-0.02, 0.01], EVERY: [-0.021, -0.01]})
    >>> trend_changes(table)
    'the largest change of each exponent is α_CE 0.0010, α_SA 0.0200; the exponent changes sign in 1 of the 2 rows'
    """
    change = (table[EVERY] - table[TENTH]).abs().groupby(table["quantity"], sort=False).max()
    both = table[[TENTH, EVERY]].dropna()
    flips = int((np.sign(both[EVERY]) != np.sign(both[TENTH])).sum())
    return ("the largest change of each exponent is " + ", ".join(f"{q} {d:.4f}" for q, d in change.items())
            + f"; the exponent changes sign in {flips} of the {len(both)} rows")


def headline(evidence: SampleSizes, context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): how far
    Self-Alignment on the smallest subsamples reads off its value on all tokens, over every model and corpus.

    Parameters
    ----------
    evidence : SampleSizes
    context : Context
        Unused (the signature of every chapter's headline).

    Returns
    -------
    list of str
    """
    shifts = np.concatenate([subsampled.mean(axis=1) - on_all
                             for subsampled, on_all in smallest_subsamples(evidence, "SA").values()])
    lo, hi = f"{shifts.min():+.3f}", f"{shifts.max():+.3f}"
    return [f"On about {evidence.first.grid[0]:,} tokens, Self-Alignment reads {lo if lo == hi else f'{lo} to {hi}'} "
            "nats off its value on all tokens."]
