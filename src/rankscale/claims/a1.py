"""Chapter A1 of the claims stage, the metric (paper A §1-3, Figs. 1-2): its thresholds and claims, its evidence
(``MetricTables``: per model and corpus, the ties between the target and other tokens, the ranks of targets of
nearly equal probability, p_A, CE and RBP_k of every result, and the pairs of final models that p_A and RBP_1
order oppositely, and the pairs on the same targets by how CE and RBP_1 order them) and its two steps, ``measure`` (the chapter's runs to that evidence) and ``decide`` (the evidence to
the chapter's verdicts), with the rule of each claim read on one unit as a small function of its own and the
evidence laid out as the chapter's tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, metrics, rank_models
from rankscale.analysis.bootstrap import INTERVAL
from rankscale.claims.base import UNDETERMINED, Claim, Unit, Verdict, index_claims, judge
from rankscale.claims.context import BY, Chapter, Context, sample, seed_samples, text_units
from rankscale.claims.spec import ChapterSpec
from rankscale.records.runs import Run, by_family
from rankscale.sets.schema import ModelSet

A1_BAND_CENTRES = (0.01, 0.03, 0.1, 0.28)  # target probabilities looked at; 0.28 is paper A's Fig. 1 example
A1_BAND_HALF_WIDTH = 0.1  # a band is centre x (1 -/+ 0.1): the probability is nearly the same throughout
A1_BAND_MIN_TARGETS = 30  # a band is tested only with at least 30 targets: then 5% of them is two or more
A1_BAND_MIN_SHARE = 0.05  # each greedy outcome (rank 1, below rank 1) needs 5% of a band: no single odd token decides
# A1.2's two constructed predictions, (probability of the target, its rank): Fig. 1's 0.28-at-rank-3 kind of case
# against a less confident prediction ranked first
A1_CONSTRUCTED = ((0.4, 2), (0.3, 1))

# the k of the chapter's tables of RBP_k (its notebook's ``ks``); no rule reads them
TABLE_KS = (1, 2, 5, 10, 100, 1000)
# The ranks the band table counts: the first three one by one, then 4-10 and the rest (0-based columns of
# ``rank_models.rank_counts_by_probability`` with max_rank 10, whose last column is every rank above 10)
RANK_GROUPS = {"rank 1": [0], "rank 2": [1], "rank 3": [2], "rank 4-10": list(range(3, 10)), "rank 11+": [10]}
REFERENCE = "reference"  # a reference model's family in the chapter's tables
READS = ("references", "checkpoints", "seeds")  # the runs measure reads beside the families' final models (``load_chapter``)
TABLES = ()  # the papers' tables decide reads (``Context.tables``): none

CLAIMS_A1 = index_claims(
    Claim("A1.1",
          "A probability does not fix a rank: targets given nearly the same probability are ranked first in "
          "some contexts and below first in others, so greedy decoding gets some right and misses others "
          "(§1, Fig. 1: p = 0.28 at rank 1 and at rank 3)",
          "definitional",
          f"Targets are grouped into bands of nearly equal probability (p(t) within ±{A1_BAND_HALF_WIDTH:.0%} of "
          f"{', '.join(f'{c:g}' for c in A1_BAND_CENTRES)}; ge ranks, eq. 3). A band with at least "
          f"{A1_BAND_MIN_TARGETS} targets shows the claim if at least {A1_BAND_MIN_SHARE:.0%} of them are at rank 1 "
          f"and at least {A1_BAND_MIN_SHARE:.0%} below it, the two cases of Fig. 1. A unit (a corpus and a family, "
          f"or a reference model on a corpus) holds if any tested band of its models shows it. Why: the paper "
          f"claims only that both cases occur at one probability; {A1_BAND_MIN_SHARE:.0%} of at least "
          f"{A1_BAND_MIN_TARGETS} targets is two or more targets of each kind, so one odd token cannot decide. "
          f"Definitional: any trained model that ranks its targets neither always first nor never first at some "
          f"probability meets it, so it is shown and checked, not counted among the paper's empirical claims.",
          "p = 0.28 at rank 1 and at rank 3 (an illustration)"),
    Claim("A1.2",
          "The mean probability of the correct token (p_A) does not determine RBP_k: two models can be ordered "
          "one way by p_A and the other way by how often the correct token is ranked first (§3.1-3.2, Fig. 2)",
          "analytic",
          f"Conceptual: §3.2 says RBP_k 'cannot be deduced from the cross-entropy value', a statement about what "
          f"the metrics can do, shown by a toy example (Fig. 2). It is checked on two constructed predictions, with "
          f"this book's metric functions: a target given probability {A1_CONSTRUCTED[0][0]} behind a competitor (rank "
          f"{A1_CONSTRUCTED[0][1]}) and a target given {A1_CONSTRUCTED[1][0]} ranked first; it holds if p_A orders "
          f"them one way and RBP_1 the other. Why: the paper claims a possibility, so one instance shows it, and "
          f"finished models that happen to order alike are no evidence against it. The data are shown, not "
          f"graded: on each corpus, the pairs of final models (the families' and the reference models) whose "
          f"intervals of the p_A difference and of the RBP_1 difference, each a {INTERVAL}, both "
          f"exclude zero, with opposite signs.",
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
    Claim("A1.4",
          "In practice RBP tells what cross-entropy cannot: how often greedy decoding is right is not deduced from "
          "a model's CE (§3.2: “this cannot be deduced from the cross-entropy value”; §1 and §7: RBP complements CE)",
          "empirical",
          f"On each corpus, every pair of the families' final models that predict the same targets (one tokenizer, "
          f"one text; the reference models, on other tokens, are left out) is compared on CE and on RBP_1, each "
          f"difference with its {INTERVAL} from resampling whole documents, the same documents for both models "
          f"(paired). A pair is discordant where the two intervals exclude zero on opposite sides (CE and RBP_1 "
          f"rank the two models oppositely), concordant where they exclude it on the same side. The corpus holds "
          f"if at least one pair is discordant; it fails if none is and at least half of its pairs are concordant "
          f"(wherever both metrics tell the models apart, CE's order gives RBP_1's); otherwise (most pairs within "
          f"noise on a metric) it is undetermined. Why: if CE determined RBP_1 on real models, no two models could "
          f"be ordered oppositely, so one pair ordered oppositely beyond noise is what the paper's practical claim "
          f"predicts can be seen; a set where every decided pair agrees shows RBP_1 adding nothing to CE's order "
          f"on those models. The half is judge's minority rule: a minority of decided pairs does not speak for the "
          f"corpus. A1.2 shows the possibility on constructed predictions; this row asks whether it is seen.",
          "qualitative (§3.2; no pair of models shown)"),
)

# The one unit of A1.2: two predictions made up for the claim, of no corpus and no family (the scorecard's "other")
CONSTRUCTED = Unit(model="constructed predictions")


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class FinalPairs:
    """One corpus's comparison of p_A and RBP_1 over every pair of its final models (A1.2).

    Attributes
    ----------
    models : int
        Final models on the corpus (the families' and the reference models).
    found : list of (int, int)
        The pairs ordered oppositely by p_A and RBP_1 beyond the bootstrap intervals
        (``bootstrap.discordant_pairs``).
    tau : float
        Kendall's tau between p_A and RBP_1 over the models (NaN where undefined).

    Examples
    --------
    >>> FinalPairs(4, [(0, 2)], 0.5).pairs
    6
    """

    models: int
    found: list
    tau: float

    @property
    def pairs(self) -> int:
        """How many pairs the corpus's final models make."""
        return self.models * (self.models - 1) // 2


@dataclass(frozen=True)
class PairOrders:
    """One corpus's pairs of final models on the same targets, ordered by CE and by RBP_1 (A1.4).

    Attributes
    ----------
    models : int
        Final models of the families on the corpus.
    pairs : int
        Pairs of them that predict the same targets (the pairs compared).
    discordant : list of (str, str)
        The pairs CE and RBP_1 order oppositely beyond the intervals, each as (ahead on CE, ahead on RBP_1).
    concordant : int
        The pairs both order the same way beyond the intervals.
    tau : float
        Kendall's tau between -CE and RBP_1 over the models (NaN where undefined).

    Examples
    --------
    >>> PairOrders(4, 6, [], 4, 1.0).undecided
    2
    """

    models: int
    pairs: int
    discordant: list
    concordant: int
    tau: float

    @property
    def undecided(self) -> int:
        """The pairs that one metric or both cannot tell apart."""
        return self.pairs - len(self.discordant) - self.concordant


@dataclass(frozen=True)
class MetricTables:
    """Chapter A1's evidence: the absolute and relative metrics of every result of the set, and what the claims
    read of them.

    Attributes
    ----------
    ties : pandas.DataFrame
        One row per corpus and final model (the families', then the references'): ``corpus``, ``family``
        (``REFERENCE`` for a reference model), ``model``, ``unit`` (its ``Unit``), ``targets``, ``tied targets
        (ge != gt)``, ``RBP_1 (ge)``, ``RBP_1 (gt)``, ``largest |RBP_k(ge) - RBP_k(gt)| over k`` and ``... in
        standard errors of RBP_k`` (``tie_row``).
    bands : pandas.DataFrame
        One row per corpus, final model and band of ``probability_bands``: ``corpus``, ``family``, ``model``,
        ``unit``, ``p(t) near``, ``targets``, ``rank 1 share``, ``commonest rank share`` and the targets of each
        group of ``RANK_GROUPS`` (``band_rows``).
    points : pandas.DataFrame
        One row per result (checkpoints, final models, references) and corpus: p_A, CE and RBP_k at ``ks``
        (``metric_row``).
    pairs : mapping of str to FinalPairs
        Per corpus, the final models' pairs that p_A and RBP_1 order oppositely beyond the bootstrap.
    discordant : pandas.DataFrame
        One row per such pair: ``corpus``, the model ahead on each metric, both values.
    orders : mapping of str to PairOrders
        Per corpus, the families' final models on the same targets compared on CE and RBP_1 (A1.4).
    ks : tuple of int
        The k of ``points``.
    """

    ties: pd.DataFrame
    bands: pd.DataFrame
    points: pd.DataFrame
    pairs: Mapping[str, FinalPairs]
    discordant: pd.DataFrame
    orders: Mapping[str, PairOrders]
    ks: tuple[int, ...] = TABLE_KS


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def family_and_name(run: Run) -> tuple[str, str]:
    """A run's family (``REFERENCE`` for a reference model) and name, as the chapter's tables show them.

    >>> family_and_name(Run("NeoX", "d16", None, 0, 0, None)), family_and_name(Run(None, "gpt2", None, 0, 0, None))
    (('NeoX', 'd16'), ('reference', 'gpt2'))
    """
    return run.family or REFERENCE, run.name


def unit_of(corpus: str, run: Run) -> Unit:
    """The unit of evidence a run belongs to on ``corpus``: its family, or the reference model itself.

    >>> unit_of("pydocs", Run("NeoX", "d16", None, 0, 0, None)), unit_of("pydocs", Run(None, "gpt2", None, 0, 0, None)).label
    (Unit(corpus='pydocs', family='NeoX'), 'pydocs/gpt2')
    """
    return Unit(corpus, run.family or run.name)


def probability_bands() -> np.ndarray:
    """The bands of nearly equal probability, one per ``A1_BAND_CENTRES``: centre x (1 -/+ ``A1_BAND_HALF_WIDTH``).

    Returns
    -------
    ndarray of shape (len(A1_BAND_CENTRES), 2)
        Each band's lower and upper edge.

    >>> probability_bands()[-1].round(3).tolist()
    [0.252, 0.308]
    """
    return np.array([[c * (1 - A1_BAND_HALF_WIDTH), c * (1 + A1_BAND_HALF_WIDTH)] for c in A1_BAND_CENTRES])


def tie_row(corpus: str, run: Run) -> dict:
    """A model's ties between its targets and other tokens, and how far they move RBP_k (A1.3's row).

    Parameters
    ----------
    corpus : str
    run : Run
        A final model or a reference model on ``corpus``.

    Returns
    -------
    dict
        The columns of ``MetricTables.ties``; the gap over every k is ``metrics.convention_gap``'s.
    """
    rec = run.records
    rbp_ge = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="ge"), [1])[0]
    rbp_gt = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="gt"), [1])[0]
    gap, gap_in_se = metrics.convention_gap(rec.gt, rec.ge)
    family, name = family_and_name(run)
    return {"corpus": corpus, "family": family, "model": name, "unit": unit_of(corpus, run), "targets": len(rec),
            "tied targets (ge != gt)": int(np.count_nonzero(rec.ge != rec.gt)), "RBP_1 (ge)": rbp_ge,
            "RBP_1 (gt)": rbp_gt, "largest |RBP_k(ge) - RBP_k(gt)| over k": gap,
            "... in standard errors of RBP_k": gap_in_se}


def band_rows(corpus: str, run: Run) -> list[dict]:
    """How a model's targets of nearly equal probability spread over ranks: one row per band of
    ``probability_bands`` (A1.1's rows).

    Parameters
    ----------
    corpus : str
    run : Run
        A final model or a reference model on ``corpus``.

    Returns
    -------
    list of dict
        The columns of ``MetricTables.bands``; shares NaN in a band without targets.
    """
    rec = run.records
    rank = metrics.rank_1based(rec.gt, rec.ge)
    # the edges of every band in a row; counts between one band's upper edge and the next's lower are dropped
    per_band = rank_models.rank_counts_by_probability(rec.logp, rank, probability_bands().ravel(), max_rank=10)[::2]
    family, name = family_and_name(run)
    return [{"corpus": corpus, "family": family, "model": name, "unit": unit_of(corpus, run), "p(t) near": centre,
             "targets": int(row.sum()), "rank 1 share": row[0] / row.sum() if row.sum() else np.nan,
             "commonest rank share": row.max() / row.sum() if row.sum() else np.nan,
             **{group: row[cols].sum() for group, cols in RANK_GROUPS.items()}}
            for centre, row in zip(A1_BAND_CENTRES, per_band)]


def metric_row(run: Run, corpus: str, kind: str, ks: Sequence[int]) -> dict:
    """One result's absolute and relative metrics (a point of Fig. 2's comparison).

    Parameters
    ----------
    run : Run
    corpus : str
    kind : str
        "checkpoint", "final" or "reference".
    ks : sequence of int
        The k of its RBP_k columns.

    Returns
    -------
    dict
        corpus, family, model, step, kind, targets, vocabulary, p_A (paper A, Fig. 2a), CE (nats) and
        ``RBP_<k>`` (ge ranks) per k.
    """
    rec = run.records
    rank = metrics.rank_1based(rec.gt, rec.ge)
    family, name = family_and_name(run)
    return {"corpus": corpus, "family": family, "model": name, "step": run.step, "kind": kind,
            "targets": len(rec), "vocabulary": run.vocab_size, "p_A": metrics.mean_target_probability(rec.logp),
            "CE": metrics.cross_entropy(rec.logp), **{f"RBP_{k}": v for k, v in zip(ks, metrics.rbp(rank, ks))}}


def same_predictions(checkpoint: Run, finals: Sequence[Run]) -> bool:
    """Whether a checkpoint's predictions are exactly those of its final model (among ``finals``) on the same
    tokens: a ladder's last checkpoint where the checkpoints' sample is the final models' (then it is listed
    once, as the final model)."""
    final = [run for run in finals if family_and_name(run) == family_and_name(checkpoint)]
    return bool(final) and len(final[0].records) == len(checkpoint.records) and np.array_equal(
        final[0].records.logp, checkpoint.records.logp)


def p_a_and_top1(sample: Mapping[str, np.ndarray]) -> list[float]:
    """p_A and RBP_1 of one model's sample: the statistic the bootstrap of A1.2's pairs resamples.

    >>> p_a_and_top1({"p": np.array([0.5, 0.1]), "top1": np.array([True, False])})
    [np.float64(0.3), np.float64(0.5)]
    """
    return [sample["p"].mean(), sample["top1"].mean()]


def final_pairs(finals: Sequence[Run], context: Context) -> tuple[FinalPairs, np.ndarray]:
    """One corpus's final models compared pair by pair on p_A and RBP_1 (A1.2's data).

    Parameters
    ----------
    finals : sequence of Run
        The families' final models and the reference models on one corpus.
    context : Context
        The bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    pairs : FinalPairs
    values : ndarray of shape (len(finals), 2)
        Each model's p_A and RBP_1.
    """
    samples = [{"p": np.exp(run.records.logp.astype(np.float64)),
                "top1": metrics.rank_1based(run.records.gt, run.records.ge) == 1, BY: text_units(run.records)}
               for run in finals]
    values = np.array([p_a_and_top1(sample) for sample in samples])
    replicates = bootstrap.resample(samples, p_a_and_top1, context.n_boot, context.seed, **context.resampling(finals))
    found = bootstrap.discordant_pairs(values, replicates, context.level)
    return FinalPairs(len(finals), found, metrics.order_agreement(values[:, 0], values[:, 1])), values


PAIR_KEYS = ("logp", "rank")  # the per-token arrays A1.4's statistic reads (``minus_ce_and_top1``)


def minus_ce_and_top1(sample: Mapping[str, np.ndarray]) -> list[float]:
    """-CE and RBP_1 of one model's sample (both larger for the better model): the statistic A1.4 resamples.

    >>> minus_ce_and_top1({"logp": np.log([0.5, 0.5]), "rank": np.array([1, 3])})
    [np.float64(-0.6931471805599453), np.float64(0.5)]
    """
    return [np.mean(sample["logp"], dtype=np.float64), np.mean(sample["rank"] == 1)]


def same_targets(runs: Sequence[Run]) -> list[list[int]]:
    """The runs grouped by the targets they predict (equal token arrays: one tokenizer on one text), each group
    the indices of its runs in order.

    >>> from types import SimpleNamespace
    >>> rec = lambda t: SimpleNamespace(target=np.array(t))
    >>> same_targets([Run("a", "x", None, 0, 0, rec([1, 2])), Run("b", "y", None, 0, 0, rec([3])),
    ...               Run("a", "z", None, 0, 0, rec([1, 2]))])
    [[0, 2], [1]]
    """
    groups: list[list[int]] = []
    for i, run in enumerate(runs):
        match = [g for g in groups if np.array_equal(runs[g[0]].records.target, run.records.target)]
        if match:
            match[0].append(i)
        else:
            groups.append([i])
    return groups


def pair_orders(finals: Sequence[Run], context: Context, seed_runs: Sequence[Run] = ()) -> PairOrders:
    """A1.4's data on one corpus: every pair of ``finals`` that predict the same targets, compared on CE and RBP_1
    with intervals from resampling whole documents, the same for both models (``bootstrap.pair_sides``), and
    carrying the scatter between training runs: a model's order against another can be its seed's luck.

    Parameters
    ----------
    finals : sequence of Run
        The families' final models on one corpus.
    context : Context
        The bootstrap's ``n_boot``, ``seed`` and ``level``.
    seed_runs : sequence of Run
        The other training runs of the corpus (``Chapter.seed_runs``): a replicate draws one run of a seeded size,
        and moves the others by the seeded sizes' scatter (``bootstrap.resample``'s ``seeds``).

    Returns
    -------
    PairOrders
    """
    discordant, concordant, pairs = [], 0, 0
    values = np.empty((len(finals), 2))
    for group in same_targets(finals):
        runs = [finals[i] for i in group]
        samples = [sample(run, PAIR_KEYS) for run in runs]
        full = np.array([minus_ce_and_top1(s) for s in samples])
        values[group] = full
        replicates = bootstrap.resample(samples, minus_ce_and_top1, context.n_boot, context.seed,
                                        seeds=seed_samples(seed_runs, runs, PAIR_KEYS),
                                        **context.resampling(runs, across_families=True))
        for (i, j), (ce, top1) in bootstrap.pair_sides(full, replicates, context.level).items():
            pairs += 1
            if ce * top1 == -1:
                ahead_ce, ahead_top1 = (runs[i], runs[j]) if ce > 0 else (runs[j], runs[i])
                discordant.append(("/".join(family_and_name(ahead_ce)), "/".join(family_and_name(ahead_top1))))
            concordant += ce * top1 == 1
    return PairOrders(len(finals), pairs, discordant, int(concordant),
                      metrics.order_agreement(values[:, 0], values[:, 1]))


def measure(chapter: Chapter, context: Context, ks: Sequence[int] = TABLE_KS) -> MetricTables:
    """Chapter A1's evidence from every result of the set.

    Parameters
    ----------
    chapter : Chapter
        The families' final models, the references and the training checkpoints, per corpus.
    context : Context
        The bootstrap's ``n_boot``, ``seed`` and ``level`` (A1.2's pairs).
    ks : sequence of int
        The k of the table of every result's RBP_k (``MetricTables.points``); no rule reads them.

    Returns
    -------
    MetricTables
    """
    ties, bands, points, pairs, discordant, orders = [], [], [], {}, [], {}
    for corpus in chapter.corpora:
        orders[corpus] = pair_orders(chapter.family_runs[corpus], context, chapter.seed_runs.get(corpus, ()))
        finals = chapter.family_runs[corpus] + chapter.reference_runs[corpus]
        for run in finals:
            ties.append(tie_row(corpus, run))
            bands += band_rows(corpus, run)
        checkpoints = [ck for ck in chapter.checkpoint_runs[corpus]
                       if not same_predictions(ck, chapter.family_runs[corpus])]
        points += [metric_row(run, corpus, kind, ks) for kind, runs in
                   (("checkpoint", checkpoints), ("final", chapter.family_runs[corpus]),
                    ("reference", chapter.reference_runs[corpus])) for run in runs]
        pairs[corpus], values = final_pairs(finals, context)
        for i, j in pairs[corpus].found:
            hi, lo = (i, j) if values[i, 0] > values[j, 0] else (j, i)
            discordant.append({"corpus": corpus, "higher p_A": "/".join(family_and_name(finals[hi])),
                               "higher RBP_1": "/".join(family_and_name(finals[lo])),
                               "p_A": f"{values[hi, 0]:.4f} vs {values[lo, 0]:.4f}",
                               "RBP_1": f"{values[hi, 1]:.4f} vs {values[lo, 1]:.4f}"})
    points = pd.DataFrame(points)
    points["step"] = points["step"].astype("Int64")
    return MetricTables(pd.DataFrame(ties), pd.DataFrame(bands), points, pairs, pd.DataFrame(discordant), orders,
                        tuple(ks))


# ---------------------------------------------------------------------------------------------
# Decide: each claim's rule on one unit, and its verdict

def _named(unit: Unit, rows: pd.DataFrame) -> str:
    """A unit as the "ours" texts name it: a reference model's label says that it is one."""
    return unit.label + (f" ({REFERENCE})" if (rows["family"] == REFERENCE).all() else "")


def shows_both_outcomes(rows: pd.DataFrame) -> bool | None:
    """A1.1 on one unit: whether some band of its models with ``A1_BAND_MIN_TARGETS`` targets has at least
    ``A1_BAND_MIN_SHARE`` of them at rank 1 and as many below it (``metrics.both_outcomes``); None where no band
    has that many targets.

    Parameters
    ----------
    rows : pandas.DataFrame
        The unit's rows of ``MetricTables.bands`` (``rank 1``, ``targets``).

    Returns
    -------
    bool or None

    Examples
    --------
    >>> shows_both_outcomes(pd.DataFrame({"rank 1": [20, 40], "targets": [40, 40]}))
    True
    >>> shows_both_outcomes(pd.DataFrame({"rank 1": [1], "targets": [5]})) is None
    True
    """
    tested, shown = metrics.both_outcomes(rows["rank 1"], rows["targets"], A1_BAND_MIN_TARGETS, A1_BAND_MIN_SHARE)
    return None if tested == 0 else shown > 0


def same_probability_verdict(evidence: MetricTables, context: Context) -> Verdict:
    """A1.1: ``shows_both_outcomes`` in every unit (a corpus and family, any of its models, or a reference model).

    Parameters
    ----------
    evidence : MetricTables
        Its ``bands``.
    context : Context
        Unused: the rule reads bands of single models, not sizes.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    outcomes, texts = {}, []
    for unit, rows in evidence.bands.groupby("unit", sort=False):
        outcomes[unit] = shows_both_outcomes(rows)
        tested, shown = metrics.both_outcomes(rows["rank 1"], rows["targets"], A1_BAND_MIN_TARGETS, A1_BAND_MIN_SHARE)
        texts.append(f"{_named(unit, rows)}: {shown} of {tested}" if tested else
                     f"{_named(unit, rows)}: no band with {A1_BAND_MIN_TARGETS} targets")
    shares = evidence.bands.loc[evidence.bands["targets"] >= A1_BAND_MIN_TARGETS, "rank 1 share"]
    return judge("A1.1", outcomes, "bands showing both outcomes, of those tested: " + "; ".join(texts)
                 + f"; rank-1 share in tested bands {shares.min():.2f}-{shares.max():.2f}",
                 why_not=f"no band of any model holds {A1_BAND_MIN_TARGETS} or more targets")


def constructed_metrics(predictions: Sequence[tuple[float, int]]) -> tuple[list[float], list[float]]:
    """p_A and RBP_1 of predictions of one target each, computed with the book's metric functions.

    Parameters
    ----------
    predictions : sequence of (float, int)
        Each prediction's probability of its target and the target's rank.

    Returns
    -------
    p_a, rbp_1 : list of float

    >>> constructed_metrics(A1_CONSTRUCTED)
    ([0.4, 0.3], [0.0, 1.0])
    """
    p_a = [float(metrics.mean_target_probability(np.log([p]))) for p, _ in predictions]
    rbp_1 = [float(metrics.rbp(np.array([rank]), [1])[0]) for _, rank in predictions]
    return p_a, rbp_1


def orders_oppositely(predictions: Sequence[tuple[float, int]]) -> bool:
    """A1.2 on its one unit: whether p_A orders two predictions one way and RBP_1 the other (a tie in either is no
    opposite order).

    >>> orders_oppositely(A1_CONSTRUCTED), orders_oppositely(((0.4, 1), (0.3, 2)))
    (True, False)
    >>> orders_oppositely(((0.4, 1), (0.3, 1)))
    False
    """
    p_a, rbp_1 = constructed_metrics(predictions)
    return bool(np.sign(p_a[0] - p_a[1]) == -np.sign(rbp_1[0] - rbp_1[1]) != 0)


def disagree_verdict(evidence: MetricTables, context: Context, predictions: Sequence[tuple[float, int]] = A1_CONSTRUCTED
                     ) -> Verdict:
    """A1.2: p_A does not determine RBP_1, checked on ``predictions`` (``orders_oppositely``); the final models'
    pairs that disagree beyond the bootstrap intervals are shown, not graded.

    Parameters
    ----------
    evidence : MetricTables
        Its ``pairs``, per corpus.
    context : Context
        The level of the pairs' intervals.
    predictions : sequence of (float, int)
        The constructed predictions (``A1_CONSTRUCTED``).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    p_a, rbp_1 = constructed_metrics(predictions)
    return judge("A1.2", {CONSTRUCTED: orders_oppositely(predictions)},
                 f"constructed: p_A {p_a[0]:.2f} and {p_a[1]:.2f}, RBP_1 {rbp_1[0]:.2f} and {rbp_1[1]:.2f}; on data "
                 f"(shown, not graded), pairs ordered oppositely by p_A and RBP_1 beyond the {context.level:.0%} "
                 f"intervals: " + "; ".join(f"{c}: {len(r.found)} of {r.pairs} pairs of {r.models} final models "
                                            f"(Kendall tau {r.tau:.3f})" for c, r in evidence.pairs.items()))


def within_noise(rows: pd.DataFrame) -> bool:
    """A1.3 on one unit: whether no model of it moves RBP_k by more than one standard error between the eq. 3 rank
    and the released code's.

    >>> within_noise(pd.DataFrame({"... in standard errors of RBP_k": [0.2, 1.0]}))
    True
    """
    return bool(rows["... in standard errors of RBP_k"].max() <= 1)


def conventions_verdict(evidence: MetricTables, context: Context) -> Verdict:
    """A1.3: ``within_noise`` in every unit (a corpus and family, or a reference model).

    Parameters
    ----------
    evidence : MetricTables
        Its ``ties``.
    context : Context
        Unused: the rule reads single models.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    ties = evidence.ties
    units = {unit: rows for unit, rows in ties.groupby("unit", sort=False)}
    outcomes = {unit: within_noise(rows) for unit, rows in units.items()}
    gap = ties["largest |RBP_k(ge) - RBP_k(gt)| over k"].max()
    worst = ties["... in standard errors of RBP_k"].max()
    above = [_named(unit, units[unit]) for unit, held in outcomes.items() if not held]
    return judge("A1.3", outcomes,
                 f"{int(ties['tied targets (ge != gt)'].sum())} tied targets of {int(ties['targets'].sum()):,} (final "
                 f"models of the families and reference models, every corpus); largest RBP_k change {gap:.2g}, at "
                 f"most {worst:.2f} standard errors" + (f"; above one standard error: {', '.join(above)}" if above
                                                         else ""))


def tells_apart(orders: PairOrders) -> bool | str | None:
    """A1.4 on one corpus: True if CE and RBP_1 order some pair oppositely beyond noise, False if none and at least
    half of the pairs are ordered alike beyond noise, ``UNDETERMINED`` otherwise; None without a pair.

    >>> [tells_apart(PairOrders(4, 6, d, c, 0.9)) for d, c in (([("a", "b")], 0), ([], 3), ([], 2))]
    [True, False, 'undetermined']
    >>> tells_apart(PairOrders(1, 0, [], 0, float("nan"))) is None
    True
    """
    if not orders.pairs:
        return None
    if orders.discordant:
        return True
    return False if 2 * orders.concordant >= orders.pairs else UNDETERMINED


def practical_verdict(evidence: MetricTables, context: Context) -> Verdict:
    """A1.4: ``tells_apart`` on every corpus.

    Parameters
    ----------
    evidence : MetricTables
        Its ``orders``, per corpus.
    context : Context
        The level of the intervals.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    orders = evidence.orders
    return judge("A1.4", {Unit(corpus): tells_apart(r) for corpus, r in orders.items()},
                 f"pairs of final models on the same targets, by CE and RBP_1 beyond the {context.level:.0%} "
                 f"intervals ({BY}s resampled): " + "; ".join(
                     f"{c}: {len(r.discordant)} ordered oppositely, {r.concordant} alike, {r.undecided} within noise, "
                     f"of {r.pairs} (Kendall tau of -CE and RBP_1 over {r.models} models {r.tau:.3f})"
                     + (f"; opposite: {', '.join(f'{a} ahead on CE, {b} on RBP_1' for a, b in r.discordant)}"
                        if r.discordant else "") for c, r in orders.items()),
                 why_not="no two final models of a corpus predict the same targets")


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"A1.1": same_probability_verdict, "A1.2": disagree_verdict, "A1.3": conventions_verdict,
         "A1.4": practical_verdict}


SPEC = ChapterSpec("A1", CLAIMS_A1, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables, and its headline for the findings

def shown_runs(chapter: Chapter, corpus: str) -> list[Run]:
    """The models the chapter's figures show on ``corpus``: the largest model of each family, then every
    reference."""
    return [members[-1] for members in by_family(chapter.family_runs[corpus]).values()] + \
        chapter.reference_runs[corpus]


def above_bound_text(runs: Sequence[Run]) -> str:
    """How many targets of each run lie above the bound R p(t) <= 1 (none can: ``metrics.above_rank_bound``).

    >>> from rankscale.records.store import Records
    >>> logp, gt = np.log([0.6, 0.2]), np.array([0, 3])
    >>> rec = Records(logp=logp, gt=gt, ge=gt, target=gt, window=gt, top_logp=logp[:, None], manifest=None)
    >>> above_bound_text([Run("NeoX", "d16", None, 0, 0, rec)])
    'NeoX/d16: 0 of 2'
    """
    counts = [metrics.above_rank_bound(metrics.rank_1based(run.records.gt, run.records.ge), run.records.logp)
              for run in runs]
    return "; ".join(f"{'/'.join(family_and_name(run))}: {above} of {len(run.records):,}"
                     for run, above in zip(runs, counts))


def agreement_table(evidence: MetricTables, families: Sequence[str]) -> pd.DataFrame:
    """Kendall's tau between p_A and RBP at the first k of ``evidence.ks`` over each family's results (final
    models and checkpoints, every corpus), then over every result of the set, references included.

    Parameters
    ----------
    evidence : MetricTables
    families : sequence of str
        The set's families, in order.

    Returns
    -------
    pandas.DataFrame
        Columns ``results of``, ``results``, ``Kendall tau``.
    """
    points, k = evidence.points, evidence.ks[0]
    of_families = points[points["kind"] != "reference"]
    rows = [(family, of_families[of_families["family"] == family]) for family in families]
    rows.append(("every family and reference together", points))
    return pd.DataFrame([{"results of": name, "results": len(found),
                          "Kendall tau": metrics.order_agreement(found["p_A"], found[f"RBP_{k}"])}
                         for name, found in rows])


def pairs_table(evidence: MetricTables) -> pd.DataFrame:
    """Per corpus, the final models' pairs: how many, Kendall's tau between p_A and RBP_1, and how many the two
    order oppositely beyond the bootstrap (A1.2's data)."""
    return pd.DataFrame([{"corpus": corpus, "final models": r.models, "pairs": r.pairs, "Kendall tau": r.tau,
                          "pairs disagreeing beyond noise": len(r.found)} for corpus, r in evidence.pairs.items()])


def orders_table(evidence: MetricTables) -> pd.DataFrame:
    """Per corpus, the pairs of final models on the same targets by how CE and RBP_1 order them beyond noise (A1.4's
    data), with Kendall's tau between -CE and RBP_1."""
    return pd.DataFrame([{"corpus": corpus, "final models": r.models, "pairs on the same targets": r.pairs,
                          "ordered oppositely": len(r.discordant), "ordered alike": r.concordant,
                          "within noise": r.undecided, "Kendall tau (-CE, RBP_1)": r.tau}
                         for corpus, r in evidence.orders.items()])


def points_table(evidence: MetricTables) -> pd.DataFrame:
    """Every result of ``evidence.points``, per corpus, family, model and step (final models after their
    checkpoints)."""
    return evidence.points.sort_values(["corpus", "family", "model", "step"], na_position="last")


def finals_table(evidence: MetricTables) -> pd.DataFrame:
    """Every final model of the families and every reference model, per corpus: vocabulary, targets, p_A, CE and
    RBP_k, a reference model's family saying what it is."""
    finals = evidence.points[evidence.points["kind"].isin(["final", REFERENCE])]
    side = finals[["corpus", "family", "model", "vocabulary", "targets", "p_A", "CE",
                   *[f"RBP_{k}" for k in evidence.ks]]].copy()
    side["family"] = side["family"].replace({REFERENCE: "reference (real pretrained model, outside the families)"})
    return side


def describe_references(runs: Sequence[Run]) -> str:
    """The reference models as a Markdown list: name, size, vocabulary and the set's note on each.

    >>> from types import SimpleNamespace
    >>> run = Run(None, "gpt2", None, 85_056_000, 0, SimpleNamespace(manifest=SimpleNamespace(vocab_size=50_257)))
    >>> describe_references([run])
    '- **gpt2** (85,056,000 non-embedding parameters, vocabulary 50,257 tokens): no description given in the model set.'
    """
    return "\n".join(f"- **{run.name}** ({run.non_embedding:,} non-embedding parameters, vocabulary "
                     f"{run.vocab_size:,} tokens): {run.note or 'no description given in the model set'}."
                     for run in runs)


def evaluates_released(model_set: ModelSet, released_models: set[str], corpus: str) -> bool:
    """Whether ``model_set`` evaluates one of paper A's released models (by hub id, at no pinned revision) on
    ``corpus``."""
    sources = {m.source for f in model_set.families for m in f.models if m.revision is None}
    sources |= {m.source for m in model_set.references if m.revision is None}
    return corpus in model_set.corpora and bool(sources & released_models)


def released_table(chapter: Chapter, released: pd.DataFrame, corpus: str) -> pd.DataFrame:
    """Paper A's released CE and RBP_k of its models on ``corpus`` beside ours, under each rank convention.

    Parameters
    ----------
    chapter : Chapter
    released : pandas.DataFrame
        Paper A's released values (``rbp_released_gpt2_wikipedia``): ``model`` (hub id), ``ce`` and ``rbp_<k>``
        for k = 1, 10, 100, 1000.
    corpus : str
        The corpus of the released values.

    Returns
    -------
    pandas.DataFrame
        Per released model the set evaluates on ``corpus`` (at no pinned revision): the paper's row, ours with
        eq. 3's ranks (ge) and ours with the released code's (gt); empty where it evaluates none.
    """
    ks, rows = (1, 10, 100, 1000), []
    runs = chapter.family_runs.get(corpus, []) + chapter.reference_runs.get(corpus, []) \
        if corpus in chapter.corpora else []
    for run in runs:
        source = run.records.manifest.source
        if source["model"] not in set(released["model"]) or source["revision"] is not None:
            continue
        rec, paper_row = run.records, released[released["model"] == source["model"]].iloc[0]
        rows.append({"model": source["model"], "values": "paper A, released (code repository)", "targets": np.nan,
                     "CE": paper_row["ce"], **{f"RBP_{k}": paper_row[f"rbp_{k}"] for k in ks}})
        for ties, what in (("ge", "ours, eq. 3 ranks (ge)"), ("gt", "ours, released code's ranks (gt)")):
            rbp = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties=ties), ks)
            rows.append({"model": source["model"], "values": what, "targets": len(rec),
                         "CE": metrics.cross_entropy(rec.logp), **{f"RBP_{k}": v for k, v in zip(ks, rbp)}})
    return pd.DataFrame(rows).astype({"targets": "Int64"}) if rows else pd.DataFrame()


def headline(evidence: MetricTables, context: Context) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): how far ties
    move RBP_1, and how the share of targets ranked first varies within one narrow probability band.

    Parameters
    ----------
    evidence : MetricTables
    context : Context
        Unused.

    Returns
    -------
    list of str
    """
    ties, bands = evidence.ties, evidence.bands
    return [f"Ties between the target and another token move RBP_1 by at most "
            f"{ties['largest |RBP_k(ge) - RBP_k(gt)| over k'].max():.1e} on any model; within one narrow "
            f"probability band, the target is ranked first in {bands['rank 1 share'].min():.0%} to "
            f"{bands['rank 1 share'].max():.0%} of the predictions."]
