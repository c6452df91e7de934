"""The claims of paper A's chapters A1 and A2: their rules and thresholds, and the functions that
decide them; and what every chapter of paper A grades with (its interval level, its one band for closeness and
how an interval is read against it, its k scaled to a vocabulary). Chapters A3, A4 and A5 have modules of their
own (``rankscale.claims.a3``, ``.a4``, ``.a5``), which measure as well as decide.

Each of these chapters measures and builds its tables; the functions here take those tables, decide every
unit's outcome under the claim's rule and return the claim's ``Verdict``, with the "ours" text made
from the same numbers. A rule read on one unit (a model, a family's fit) is a small function of its
own, tested apart (``lognormal_preferred``, ``shared_exponent``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, fit, metrics
from rankscale.analysis.bootstrap import LEVEL
from rankscale.claims.base import (
    MIN_SIZES,
    UNDETERMINED,
    Claim,
    Verdict,
    index_claims,
    judge,
    left_out,
    no_family,
)

# ---------------------------------------------------------------------------------------------
# A1

A_LEVEL = LEVEL  # chapters A1-A3: two-sided 95% bootstrap intervals, the usual level (rankscale.analysis.bootstrap)
# What every interval of chapters A1-A3 is (rankscale.analysis.bootstrap.interval), said once in the rules that use one
A_INTERVAL = (f"(the measured value -+ {NormalDist().inv_cdf((1 + A_LEVEL) / 2):.2f} standard deviations of its "
              f"bootstrap replicates; each model's evaluation tokens resampled with replacement, the set's n_boot "
              f"times; in a size fit, a size trained with several seeds first draws one of its runs)")
# "Very close", "nearly identical", "comparable", "similar", "amplified by N": one band for every ratio that paper A
# calls close to 1, whatever the word. It is the range of slope(-log RBP_1) / slope(CE) over the 22 data-set/family
# pairs of paper A's Table 1 whose two fits both have R^2 >= 0.9 (a5.A5_MIN_R2): the pairs appendix B calls "very
# close" and §5.2 "nearly identical", the only place the paper shows what its closeness allows
# (tests/test_claims_a5.py recomputes it from the reference table, a5.table1_ratios).
A_CLOSE = (0.74, 1.32)
# How every closeness claim reads an interval of its ratio against A_CLOSE (``close``), said once in their rules
A_CLOSE_READING = (f"inside [{A_CLOSE[0]}, {A_CLOSE[1]}] (the range of slope(-log RBP_1) / slope(CE) over the pairs "
                   f"of paper A's Table 1 that its appendix B calls very close, the one band of this book for "
                   f"every ratio the paper calls close) the unit holds, wholly outside it fails, and across an edge "
                   f"the data do not decide (undetermined, named apart)")


ACROSS_EDGE = f"every interval crosses an edge of the closeness band [{A_CLOSE[0]}, {A_CLOSE[1]}]"


def close(*bounds: tuple[float, float] | None) -> bool | str | None:
    """The one reading of ratio intervals against ``A_CLOSE``, used by every claim that two quantities are close:
    True if every interval lies inside the band, False if some lies wholly outside it, ``UNDETERMINED`` if some
    crosses an edge (and none lies outside), None if one is missing.

    Examples
    --------
    >>> close((0.9, 1.1)), close((0.9, 1.1), (1.5, 2.0)), close((0.7, 0.9)), close((0.9, 1.1), None)
    (True, False, 'undetermined', None)
    >>> close((0.74, 1.32)), close((0.5, 0.7399))  # the edges belong to the band
    (True, False)
    """
    if any(b is None for b in bounds):
        return None
    found = [bootstrap.within(b, A_CLOSE) for b in bounds]
    return False if False in found else UNDETERMINED if None in found else True


A1_BAND_CENTRES = (0.01, 0.03, 0.1, 0.28)  # target probabilities looked at; 0.28 is paper A's Fig. 1 example
A1_BAND_HALF_WIDTH = 0.1  # a band is centre x (1 -/+ 0.1): the probability is nearly the same throughout
A1_BAND_MIN_TARGETS = 30  # a band is tested only with at least 30 targets: then 5% of them is two or more
A1_BAND_MIN_SHARE = 0.05  # each greedy outcome (rank 1, below rank 1) needs 5% of a band: no single odd token decides
# A1.2's two constructed predictions, (probability of the target, its rank): Fig. 1's 0.28-at-rank-3 kind of case
# against a less confident prediction ranked first
A1_CONSTRUCTED = ((0.4, 2), (0.3, 1))

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
          f"{A_LEVEL:.0%} bootstrap intervals of the p_A difference and of the RBP_1 difference {A_INTERVAL} both "
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
)


def a1_same_probability(band: pd.DataFrame) -> Verdict:
    """A1.1: in every unit some band of nearly equal probability holds targets at rank 1 and below it
    (``metrics.both_outcomes`` with ``A1_BAND_MIN_TARGETS`` and ``A1_BAND_MIN_SHARE``).

    Parameters
    ----------
    band : pandas.DataFrame
        One row per corpus, model and band: ``corpus``, ``unit`` (the model's family, or the reference model),
        ``rank 1`` (targets ranked first), ``targets`` and ``rank 1 share``.

    Returns
    -------
    rankscale.claims.base.Verdict
        One unit per corpus and family (any of its models may show it) or reference model.

    Examples
    --------
    >>> band = pd.DataFrame({"corpus": "c", "unit": ["F", "F", "G"], "rank 1": [20, 40, 1], "targets": [40, 40, 5],
    ...                      "rank 1 share": [0.5, 1.0, 0.2]})
    >>> v = a1_same_probability(band)
    >>> v.verdict, v.ours
    ('reproduced', 'bands showing both outcomes, of those tested: c/F: 1 of 2; c/G: no band with 30 targets; rank-1 share in tested bands 0.50-1.00 (not tested on: c/G)')
    """
    units = {f"{corpus}/{unit}": metrics.both_outcomes(rows["rank 1"], rows["targets"], A1_BAND_MIN_TARGETS,
                                                       A1_BAND_MIN_SHARE)
             for (corpus, unit), rows in band.groupby(["corpus", "unit"], sort=False)}
    shares = band.loc[band["targets"] >= A1_BAND_MIN_TARGETS, "rank 1 share"]
    return judge("A1.1", {u: None if tested == 0 else shown > 0 for u, (tested, shown) in units.items()},
                 "bands showing both outcomes, of those tested: " + "; ".join(
                     f"{u}: {shown} of {tested}" if tested else f"{u}: no band with {A1_BAND_MIN_TARGETS} targets"
                     for u, (tested, shown) in units.items())
                 + f"; rank-1 share in tested bands {shares.min():.2f}-{shares.max():.2f}",
                 why_not=f"no band of any model holds {A1_BAND_MIN_TARGETS} or more targets")


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
    """

    models: int
    found: list
    tau: float

    @property
    def pairs(self) -> int:
        return self.models * (self.models - 1) // 2


def a1_disagree(final_pairs: Mapping[str, FinalPairs]) -> Verdict:
    """A1.2: p_A does not determine RBP_1, checked on the constructed predictions of ``A1_CONSTRUCTED`` (p_A
    orders them one way, RBP_1 the other); the final models' pairs that disagree beyond the ``A_LEVEL``
    bootstrap intervals are shown, not graded.

    Parameters
    ----------
    final_pairs : mapping of str to FinalPairs
        Per corpus.

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> v = a1_disagree({"c": FinalPairs(3, [(0, 2)], 0.33), "d": FinalPairs(1, [], np.nan)})
    >>> v.verdict, v.kind
    ('reproduced', 'analytic')
    >>> v.ours
    'constructed: p_A 0.40 and 0.30, RBP_1 0.00 and 1.00; on data (shown, not graded), pairs ordered oppositely by p_A and RBP_1 beyond the 95% intervals: c: 1 of 3 pairs of 3 final models (Kendall tau 0.330); d: 0 of 0 pairs of 1 final models (Kendall tau nan)'
    """
    p_a, rbp_1 = zip(*((metrics.mean_target_probability(np.log([p])), metrics.rbp(np.array([rank]), [1])[0])
                       for p, rank in A1_CONSTRUCTED))
    opposite = bool(np.sign(p_a[0] - p_a[1]) == -np.sign(rbp_1[0] - rbp_1[1]) != 0)
    return judge("A1.2", {"constructed predictions": opposite},
                 f"constructed: p_A {p_a[0]:.2f} and {p_a[1]:.2f}, RBP_1 {rbp_1[0]:.2f} and {rbp_1[1]:.2f}; on data "
                 f"(shown, not graded), pairs ordered oppositely by p_A and RBP_1 beyond the {A_LEVEL:.0%} intervals: "
                 + "; ".join(f"{c}: {len(r.found)} of {r.pairs} pairs of {r.models} final models (Kendall tau "
                             f"{r.tau:.3f})" for c, r in final_pairs.items()))


def a1_conventions(ties: pd.DataFrame) -> Verdict:
    """A1.3: in every unit no model's RBP_k moves by more than one standard error between the eq. 3 rank and
    the released code's.

    Parameters
    ----------
    ties : pandas.DataFrame
        One row per corpus and model: ``corpus``, ``unit``, ``targets``, ``tied targets (ge != gt)``,
        ``largest |RBP_k(ge) - RBP_k(gt)| over k`` and ``... in standard errors of RBP_k``.

    Returns
    -------
    rankscale.claims.base.Verdict
        One unit per corpus and family or reference model.

    Examples
    --------
    >>> ties = pd.DataFrame({"corpus": "c", "unit": ["F", "F", "G"], "targets": 100, "tied targets (ge != gt)": [0, 2, 9],
    ...                      "largest |RBP_k(ge) - RBP_k(gt)| over k": [0.0, 0.02, 0.09],
    ...                      "... in standard errors of RBP_k": [0.0, 1.0, 3.0]})
    >>> v = a1_conventions(ties)
    >>> v.verdict, v.ours
    ('partly', '11 tied targets of 300 (final models of the families and reference models, every corpus); largest RBP_k change 0.09, at most 3.00 standard errors; above one standard error: c/G')
    """
    by_unit = ties.groupby(["corpus", "unit"], sort=False).agg(
        worst=("... in standard errors of RBP_k", "max"), gap=("largest |RBP_k(ge) - RBP_k(gt)| over k", "max"))
    return judge("A1.3", {f"{c}/{u}": bool(row.worst <= 1) for (c, u), row in by_unit.iterrows()},
                 f"{int(ties['tied targets (ge != gt)'].sum())} tied targets of {int(ties['targets'].sum()):,} (final "
                 f"models of the families and reference models, every corpus); largest RBP_k change "
                 f"{by_unit['gap'].max():.2g}, at most {by_unit['worst'].max():.2f} standard errors"
                 + ("" if (by_unit["worst"] <= 1).all() else "; above one standard error: "
                    + ", ".join(f"{c}/{u}" for (c, u), row in by_unit.iterrows() if row.worst > 1)))


# ---------------------------------------------------------------------------------------------
# A2

PAPER_A_VOCAB = 50_257  # the vocabulary paper A's k were chosen for (GPT-2; Pythia and OPT are within 20 tokens)
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


def scaled_k(k: int, vocab_size: int) -> int:
    """Paper A's ``k`` at the same fraction of a vocabulary of ``vocab_size`` tokens as of its own
    (``PAPER_A_VOCAB``), at least 1.

    >>> scaled_k(20_000, 4096), scaled_k(100, 4096), scaled_k(10, 4096)
    (1630, 8, 1)
    """
    return max(1, round(k * vocab_size / PAPER_A_VOCAB))


CLAIMS_A2 = index_claims(
    Claim("A2.1",
          "-log RBP_1 follows a power law in non-embedding size, for every family on every dataset (§4.1, Fig. 3)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the log-log fit of -log RBP_1 against size has "
          f"R^2 ≥ {A2_MIN_R2} and a negative slope. Why: {A2_MIN_R2} is the paper's own bar for k < 1000 (§4.4), "
          f"which includes k = 1; §4.1 gives no number of its own. The point estimate is graded, as the paper "
          f"grades its fits; the {A_LEVEL:.0%} bootstrap interval of R^2 {A_INTERVAL} is shown beside it.",
          "", needs=("three sizes",)),
    Claim("A2.2",
          "For moderate k (10, 50, 100) the power law holds with R^2 ≥ 0.97 on every dataset (§4.2, Fig. 4)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes: the fits at k = "
          f"{', '.join(map(str, A2_MODERATE_KS))} all have R^2 ≥ {A2_MODERATE_R2} and a negative slope. Why: these "
          f"are the paper's absolute k and its own bar; k counts candidates for top-k sampling whatever the "
          f"vocabulary, and stays far below it (100 is 2.4% of 4,096 tokens). The same fractions of the "
          f"vocabulary as the paper's (k x |V| / {PAPER_A_VOCAB:,}) are shown, not graded.",
          f"R^2 ≥ {A2_MODERATE_R2}", needs=("three sizes",)),
    Claim("A2.3",
          "As k approaches the vocabulary size (k = 20,000 and 30,000 of about 50,000) the power law breaks down "
          "(§4.3, Fig. 5)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at k = "
          f"{' and '.join(f'{k:,}' for k in A2_LARGE_KS)} scaled to the family's vocabulary (x |V| / "
          f"{PAPER_A_VOCAB:,}: about 40% and 60% of it; absolute k would exceed a small vocabulary): the law breaks "
          f"down if at either k the fit has R^2 below {A2_MIN_R2} or does not fall with size. Why: {A2_MIN_R2} is "
          f"the paper's bar for a power law (§4.4); either k, because the paper itself finds 30,000 much more "
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
          f"noise); the bootstrap interval is shown. A set without the paper's GPT-2 models cannot test it.",
          "-log RBP_k grows with size for GPT-2 (Fig. 5)", needs=("three sizes", "the GPT-2 family")),
    Claim("A2.5",
          "At k = 30,000 the points scatter much more than at k = 20,000 (§4.3, Fig. 5)",
          "empirical",
          f"Per corpus and family with at least {MIN_SIZES} sizes, at the two k of A2.3 (about 40% and 60% of the "
          f"vocabulary): the paired {A_LEVEL:.0%} bootstrap interval of R^2(larger k) - R^2(smaller k) "
          f"{A_INTERVAL} lies below zero, i.e. the fit is worse at the larger k beyond token-resampling noise. "
          f"Why: 'more random' has no "
          f"number in the paper, so the sign of the interval decides. A unit where the larger k cannot be fitted "
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

def noise_shrinks(scatter: np.ndarray) -> bool | None:
    """Whether the scatter at large k shrinks as noise does (A2.6): at every k (column) fitted at every fraction of
    ``A2_NOISE_FRACTIONS`` (rows), scatter(all tokens) <= ``A2_NOISE_RATIO`` x scatter(fewest tokens).

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


def a2_noise(scatters: Mapping[tuple[str, str], np.ndarray], large: Mapping[tuple[str, str], Sequence[int]],
             unusable: Sequence[str]) -> Verdict:
    """A2.6: ``noise_shrinks`` in every (corpus, family).

    Parameters
    ----------
    scatters : mapping of (str, str) to ndarray
        Per (corpus, family) with enough sizes: the scatter per fraction (rows) and large k (columns).
    large : mapping of (str, str) to sequence of int
        The large k of each unit, in the columns' order.
    unusable : sequence of str
        One reason per family left out.

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> v = a2_noise({("c", "F"): np.array([[0.4], [0.3], [0.2], [0.1]])}, {("c", "F"): [1630]}, [])
    >>> v.verdict, v.ours
    ('reproduced', 'scatter of log(-log RBP_k) on 0.125 -> all of the tokens: c/F: k=1,630 0.400 -> 0.100 (x0.25)')
    """
    texts = []
    for (c, fam), sc in scatters.items():
        parts = [f"k={k:,} {sc[0, j]:.3f} -> {sc[-1, j]:.3f} (x{sc[-1, j] / sc[0, j]:.2f})"
                 if np.isfinite(sc[:, j]).all() else f"k={k:,} not fittable on every subsample"
                 for j, k in enumerate(large[c, fam])]
        texts.append(f"{c}/{fam}: " + ", ".join(parts))
    return judge("A2.6", {f"{c}/{fam}": noise_shrinks(sc) for (c, fam), sc in scatters.items()},
                 f"scatter of log(-log RBP_k) on {A2_NOISE_FRACTIONS[0]:g} -> all of the tokens: " + "; ".join(texts)
                 + left_out(unusable) if texts else "", why_not=no_family(unusable))


@dataclass(frozen=True)
class RegimeFits:
    """One corpus and family's fits of -log RBP_k against size at chapter A2's k, with their bootstrap.

    Attributes
    ----------
    fits : mapping of int to rankscale.analysis.fit.PowerLawFit or None
        The full-sample fit per k (1, the paper's moderate k, their scaled values and ``large``); None where
        some model has every target inside the top k.
    slopes, r2 : mapping of int to (n_boot,) arrays
        The same fits' slope and R^2 on every resample of the tokens (the same resamples for every k, so
        differences between k are paired); NaN where a replicate cannot be fitted.
    moderate_scaled : tuple of int
        The paper's moderate k as the same fractions of this family's vocabulary (shown, not graded).
    large : tuple of (int, int)
        The paper's k = 20,000 and 30,000 as the same fractions of this family's vocabulary.
    level : float
        Of every interval.
    """

    fits: Mapping[int, object]
    slopes: Mapping[int, np.ndarray]
    r2: Mapping[int, np.ndarray]
    moderate_scaled: tuple[int, ...]
    large: tuple[int, int]
    level: float = A_LEVEL

    def fit_text(self, k: int, interval: bool = False) -> str:
        """"k=10 R^2 0.990 slope -0.059", with R^2's interval if ``interval``."""
        f = self.fits[k]
        if f is None:
            return f"k={k:,} not fittable"
        ci = bootstrap.interval(f.r2, self.r2[k], self.level) if interval else None
        return f"k={k:,} R^2 {f.r2:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "") + f" slope {f.slope:.3f}"


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


def a2_k1_law(units: Mapping[tuple[str, str], RegimeFits], unusable: Sequence[str], table1: pd.DataFrame) -> Verdict:
    """A2.1: -log RBP_1 is a falling power law with R^2 >= ``A2_MIN_R2`` (``fit.falling_law``) in every
    (corpus, family).

    Parameters
    ----------
    units : mapping of (str, str) to RegimeFits
        The (corpus, family) units with enough sizes, in order.
    unusable : sequence of str
        One reason per family left out.
    table1 : pandas.DataFrame
        Paper A's Table 1, graded under the same rule for the paper column (``table1_pass_text``).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    return judge("A2.1", {f"{c}/{fam}": fit.falling_law(u.fits[1], A2_MIN_R2) for (c, fam), u in units.items()},
                  "; ".join(f"{c}/{fam}: {u.fit_text(1, True)}" for (c, fam), u in units.items())
                  + left_out(unusable), paper=table1_pass_text(table1, [1], A2_MIN_R2), why_not=no_family(unusable))


def moderate_law(regime: RegimeFits) -> bool | None:
    """Whether the fits at every moderate k of ``A2_MODERATE_KS`` are falling power laws with R^2 >=
    ``A2_MODERATE_R2`` (A2.2); None where one of them is not fitted."""
    found = [fit.falling_law(regime.fits[k], A2_MODERATE_R2) for k in A2_MODERATE_KS]
    return None if None in found else all(found)


def a2_moderate(units: Mapping[tuple[str, str], RegimeFits], unusable: Sequence[str],
                table1: pd.DataFrame) -> Verdict:
    """A2.2: ``moderate_law`` in every (corpus, family); the scaled k are shown, not graded.

    Parameters
    ----------
    units, unusable, table1
        As in ``a2_k1_law``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    return judge("A2.2", {f"{c}/{fam}": moderate_law(u) for (c, fam), u in units.items()},
                  "; ".join(f"{c}/{fam}: " + ", ".join(u.fit_text(k) for k in A2_MODERATE_KS)
                            + " (at the paper's fractions, not graded: "
                            + ", ".join(u.fit_text(k) for k in u.moderate_scaled) + ")"
                            for (c, fam), u in units.items()) + left_out(unusable),
                  paper=f"R^2 ≥ {A2_MODERATE_R2}; " + table1_pass_text(table1, A2_MODERATE_KS, A2_MODERATE_R2),
                  why_not=no_family(unusable))


def law_breaks(regime: RegimeFits) -> bool | None:
    """Whether the power law breaks down near the vocabulary (A2.3): at either large k the fit is not a
    falling power law with R^2 >= ``A2_MIN_R2``; a k with nothing to fit is left out, and None where
    neither can be fitted."""
    found = [fit.falling_law(regime.fits[k], A2_MIN_R2) for k in regime.large]
    tested = [ok for ok in found if ok is not None]
    return not all(tested) if tested else None


def a2_breakdown(units: Mapping[tuple[str, str], RegimeFits], unusable: Sequence[str]) -> Verdict:
    """A2.3: ``law_breaks`` in every (corpus, family).

    Parameters
    ----------
    units, unusable
        As in ``a2_k1_law``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    return judge("A2.3", {f"{c}/{fam}": law_breaks(u) for (c, fam), u in units.items()},
                  "; ".join(f"{c}/{fam}: " + ", ".join(u.fit_text(k) for k in u.large) for (c, fam), u in units.items())
                  + left_out(unusable), why_not=no_family(unusable))


def slope_rises(regime: RegimeFits) -> bool | None:
    """Whether -log RBP_k grows with size at either large k (A2.4): a positive fitted slope (the point
    estimate, as the paper reads its figure); None where neither k is fitted."""
    found = [regime.fits[k].slope > 0 for k in regime.large if regime.fits[k] is not None]
    return any(found) if found else None


def a2_gpt2_grows(units: Mapping[tuple[str, str], RegimeFits], has_gpt2: bool) -> Verdict:
    """A2.4: ``slope_rises`` on the paper's GPT-2 family, per corpus.

    Parameters
    ----------
    units : mapping of (str, str) to RegimeFits
        The (corpus, family) units of a family of the paper's GPT-2 models with enough sizes.
    has_gpt2 : bool
        Whether the set has a family of the paper's GPT-2 models at all (then an empty ``units`` means it has
        too few sizes).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    texts = []
    for (c, fam), u in units.items():
        parts = []
        for k in u.large:
            f = u.fits[k]
            ci = bootstrap.interval(f.slope, u.slopes[k], u.level) if f is not None else None
            parts.append(f"k={k:,} not fittable" if f is None else
                         f"k={k:,} slope {f.slope:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        texts.append(f"{c}/{fam}: " + ", ".join(parts))
    return judge("A2.4", {f"{c}/{fam}": slope_rises(u) for (c, fam), u in units.items()}, "; ".join(texts),
                  why_not=("the set has no family of the paper's GPT-2 models" if not has_gpt2 else
                           f"the GPT-2 family has fewer than {MIN_SIZES} sizes"))


def scatter_interval(regime: RegimeFits) -> tuple[float, float] | None:
    """Paired interval of R^2(larger large k) - R^2(smaller large k) (A2.5), None where either k (or a
    replicate) cannot be fitted."""
    small, large = regime.large
    if regime.fits[small] is None or regime.fits[large] is None:
        return None
    return bootstrap.interval(regime.fits[large].r2 - regime.fits[small].r2, regime.r2[large] - regime.r2[small],
                              regime.level)


def a2_scatter(units: Mapping[tuple[str, str], RegimeFits], unusable: Sequence[str]) -> Verdict:
    """A2.5: the fit is worse at the larger large k: the interval of ``scatter_interval`` lies below 0, in every
    (corpus, family).

    Parameters
    ----------
    units, unusable
        As in ``a2_k1_law``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    outcomes, texts = {}, []
    for (c, fam), u in units.items():
        small, large = u.large
        ci = scatter_interval(u)
        outcomes[f"{c}/{fam}"] = None if ci is None else bootstrap.side(ci) < 0
        texts.append(f"{c}/{fam}: not testable (k={large:,} or a resample of it has every target of a model inside "
                     f"the top k)" if ci is None else
                     f"{c}/{fam}: R^2 {u.fits[small].r2:.3f} at k={small:,}, {u.fits[large].r2:.3f} at k={large:,}; "
                     f"difference [{ci[0]:.3f}, {ci[1]:.3f}]")
    return judge("A2.5", outcomes, "; ".join(texts) + left_out(unusable), why_not=no_family(unusable))
