"""The claims of paper A's chapters A4 and A5: their rules and thresholds, and the functions that
decide them; and what every chapter of paper A grades with (its interval level, its one band for closeness and
how an interval is read against it, its k scaled to a vocabulary). Chapters A1, A2 and A3 have modules of their
own, ``rankscale.claims.a1``, ``a2`` and ``a3``, which measure as well as decide.

Each of these chapters measures and builds its tables; the functions here take those tables, decide every
unit's outcome under the claim's rule and return the claim's ``Verdict``, with the "ours" text made
from the same numbers. A rule read on one unit (a model, a family's fit) is a small function of its
own, tested apart (``lognormal_preferred``, ``shared_exponent``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

from rankscale.analysis import bootstrap, fit
from rankscale.analysis.bootstrap import LEVEL
from rankscale.claims.base import (
    MIN_SIZES,
    UNDETERMINED,
    Claim,
    Verdict,
    index_claims,
    judge,
    no_family,
)

# ---------------------------------------------------------------------------------------------
# What every chapter of paper A grades with

A_LEVEL = LEVEL  # chapters A1-A3: two-sided 95% bootstrap intervals, the usual level (rankscale.analysis.bootstrap)
# What every interval of chapters A1-A3 is (rankscale.analysis.bootstrap.interval), said once in the rules that use one
A_INTERVAL = (f"(the measured value -+ {NormalDist().inv_cdf((1 + A_LEVEL) / 2):.2f} standard deviations of its "
              f"bootstrap replicates; each model's evaluation tokens resampled with replacement, the set's n_boot "
              f"times; in a size fit, a size trained with several seeds first draws one of its runs)")
# "Very close", "nearly identical", "comparable", "similar", "amplified by N": one band for every ratio that paper A
# calls close to 1, whatever the word. It is the range of slope(-log RBP_1) / slope(CE) over the 22 data-set/family
# pairs of paper A's Table 1 whose two fits both have R^2 >= 0.9 (A5_MIN_R2): the pairs appendix B calls "very
# close" and §5.2 "nearly identical", the only place the paper shows what its closeness allows
# (tests/test_claims_a4_a5.py recomputes it from the reference table).
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


# ---------------------------------------------------------------------------------------------
# Paper A's k, chosen for its vocabulary of about 50,000 tokens

PAPER_A_VOCAB = 50_257  # the vocabulary paper A's k were chosen for (GPT-2; Pythia and OPT are within 20 tokens)


def scaled_k(k: int, vocab_size: int) -> int:
    """Paper A's ``k`` at the same fraction of a vocabulary of ``vocab_size`` tokens as of its own
    (``PAPER_A_VOCAB``), at least 1.

    >>> scaled_k(20_000, 4096), scaled_k(100, 4096), scaled_k(10, 4096)
    (1630, 8, 1)
    """
    return max(1, round(k * vocab_size / PAPER_A_VOCAB))


# ---------------------------------------------------------------------------------------------
# A4 (paper A, section 5.1: emergence)

# The grid of k and N: paper A's code uses k from 1 to 10^4 and N = 1, 5, 10, 50, 100; here k stays well below
# the ladders' 4,096-token vocabulary, and N below the run lengths that small models almost never complete.
A4_KS = (1, 10, 100)
A4_WINDOW_LENGTHS = (1, 2, 4, 8, 16)
A4_MIN_R2 = 0.9  # paper A's own bar for a size law that holds (section 4.4: "R^2 above 0.9 when k < 1000")
A4_LEVEL = 0.95  # every interval: the measured value -+ 1.96 SD of its bootstrap replicates (bootstrap.interval)
A4_TRANSITION = (0.1, 0.9)  # the emergence transition runs from 10% to 90% success
A4_SHARPER = 0.9  # "sharper": the largest N's transition is narrower than 90% of that of N = 1

_A4_WINDOWS = (f"Evaluation windows are resampled with replacement (runs never cross a window, so neighbouring "
               f"targets stay together), one resample of the text for every model of a family, N and k, so that "
               f"differences are paired; the {A4_LEVEL:.0%} interval is the measured value -+ "
               f"{NormalDist().inv_cdf((1 + A4_LEVEL) / 2):.2f} standard deviations of its replicates. A case "
               f"where the data or some resample has no successful run is not tested.")

CLAIMS_A4 = index_claims(
    Claim("A4.1", "Sequence-level error -log p_{N,k}, measured, follows a power law in model size for every k and N "
                  "(§5.1, Fig. 7: the fitted power laws 'align closely' with the data)", "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k in {A4_KS} and N in {A4_WINDOW_LENGTHS}: the "
          f"least-squares line of log(-log p_N,k) on log S has R^2 >= {A4_MIN_R2} (paper A's own bar, §4.4) and a "
          "negative slope. A case where some model never completes a run (p = 0, which has no logarithm) cannot test "
          "it.", "fits align closely (no R^2 given)", needs=("three sizes",)),
    Claim("A4.2", "The size exponent of -log p_{N,k} does not depend on N: -log p_{N,k} ∝ N S^-alpha with the "
                  "token-level alpha (eq. 7; §5.1 says Fig. 7 confirms it)", "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k and N >= 2: the {A4_LEVEL:.0%} bootstrap "
          "interval of slope(N) - slope(N = 1) contains 0 (the equation claims equality, so only a difference the "
          "noise cannot explain counts against it). " + _A4_WINDOWS, "same alpha for every N", needs=("three sizes",)),
    Claim("A4.3", "Sequence-level error is the token-level error amplified exactly N-fold, "
                  "-log p_{N,k} = N (-log RBP_k), as independent positions give (eqs. 6-7; §5.1: 'linearly "
                  "amplified by N')", "empirical",
          f"For each corpus, family (any number of sizes: this is a property of each model), k and N >= 2: the "
          f"geometric mean over the family's models of -log p_N,k / (N * -log RBP_k) has a {A4_LEVEL:.0%} bootstrap "
          f"interval, read against the closeness band: {A_CLOSE_READING}. Why: §5.1 says 'linearly amplified by N' "
          f"and Fig. 7 shows curves that 'align closely', a claim of closeness, not of an exact ratio of 1 (an "
          f"earlier rule asked the interval to contain 1, which a large sample fails for any small departure and "
          f"a small one passes for any). " + _A4_WINDOWS, "assumed (independence); Fig. 7 shows agreement"),
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
    Claim("A4.5", "On the measured points, not only on eq. 8's extrapolation, the success rate p_{N,k} rises with "
                  "model size along an S-shaped curve (§5.1: as S grows 'p_{N,k} rises sharply toward one')",
          "empirical",
          f"For each corpus, family with at least {MIN_SIZES} sizes, k in {A4_KS} and N in {A4_WINDOW_LENGTHS}: a case "
          f"can show the S only if its measured p_N,k span eq. 8's inflection, p = 1/e (some model below it and "
          f"some above); a case on one arm of the S, or with a model that never completes a run (no eq. 8 fit), "
          f"cannot test it. It holds if the measured p_N,k rise with size at every step and eq. 8 fitted to the "
          f"measured points (A4.1's line of log(-log p_N,k) on log S) has R^2 >= {A4_MIN_R2} and falls. Why: in "
          f"ln S eq. 8 is a Gumbel curve whose inflection is at -ln p = 1; below it the curve is convex and above "
          f"it concave, so only points on both sides show an S rather than one arm of it; {A4_MIN_R2} is paper A's "
          f"own bar for a law (§4.4).",
          "S-shaped curves (Fig. 7, extrapolated)", needs=("three sizes",)),
)


def _case_outcomes(cases: Mapping[tuple, bool | None], reasons: Sequence[str] = ()) -> dict:
    """judge's outcomes for chapter A4: every tested (corpus, family, k, N) case by its joined name, one untested
    unit per reason in ``reasons`` and per family without any tested case."""
    out = {"/".join(str(x) for x in key): ok for key, ok in cases.items() if ok is not None}
    tested = {key[1] for key, ok in cases.items() if ok is not None}
    out.update({reason: None for reason in reasons})
    out.update({f"{fam} (no measurable case)": None for fam in dict.fromkeys(key[1] for key in cases) if fam not in tested})
    return out


def _tally(cases: Mapping[tuple, bool | None]) -> str:
    """'family: a of b' per family, over the tested cases of ``{(corpus, family, k, N): outcome}``."""
    per: dict[str, list] = {}
    for (_, fam, *_), ok in cases.items():
        if ok is not None and ok is not UNDETERMINED:  # undetermined cases are counted apart by their claim
            per.setdefault(fam, []).append(ok)
    return "; ".join(f"{fam}: {sum(v)} of {len(v)}" for fam, v in per.items())


def _n_untested(cases: Mapping[tuple, bool | None]) -> int:
    return sum(ok is None for ok in cases.values())


def _a4_why_not(usable: Sequence[str], unusable: Sequence[str]) -> str:
    """Why a size claim of A4 has no tested case: no family with enough sizes, or none of theirs measurable."""
    return "no case of a family with enough sizes is measurable" if usable else no_family(unusable)


def _case(corpus: str, family: str, k: int, n: int | None = None) -> tuple:
    """A case of chapter A4 as its verdicts name it: (corpus, family, "k=10"[, "N=4"])."""
    return (corpus, family, f"k={k}") + (() if n is None else (f"N={n}",))


def a4_power_laws(sequence_fits: Mapping[tuple, object], usable: Sequence[str], unusable: Sequence[str]) -> Verdict:
    """A4.1: every measured -log p_{N,k} of a family with enough sizes is a falling power law with R^2 >=
    ``A4_MIN_R2`` (``fit.falling_law``).

    Parameters
    ----------
    sequence_fits : mapping of (str, str, int, int) to rankscale.analysis.fit.PowerLawFit or None
        (corpus, family, k, N) -> the log-log fit of -log p_{N,k} on size; None where some model has p = 0.
    usable : sequence of str
        The families with at least ``MIN_SIZES`` sizes.
    unusable : sequence of str
        One reason per family left out.

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> from rankscale.analysis.fit import fit_power_law
    >>> law = fit_power_law([1e6, 1e7, 1e8], [4.0, 2.0, 1.0])
    >>> v = a4_power_laws({("c", "F", 1, 1): law, ("c", "F", 1, 2): None}, ["F"], [])
    >>> v.verdict, v.ours
    ('reproduced', 'fits with R^2 ≥ 0.9 and falling: F: 1 of 1; 1 cases not measurable (p = 0 for some model)')
    """
    cases = {_case(c, fam, k, n): fit.falling_law(f, A4_MIN_R2)
             for (c, fam, k, n), f in sequence_fits.items() if fam in usable}
    return judge("A4.1", _case_outcomes(cases, unusable),
                 f"fits with R^2 ≥ {A4_MIN_R2} and falling: {_tally(cases)}; {_n_untested(cases)} cases not "
                 f"measurable (p = 0 for some model)", why_not=_a4_why_not(usable, unusable))


def a4_same_exponent(fit_table: pd.DataFrame, usable: Sequence[str], unusable: Sequence[str]) -> Verdict:
    """A4.2: for every N >= 2 the interval of slope(N) - slope(N = 1) contains 0, in every case of a family with
    enough sizes.

    Parameters
    ----------
    fit_table : pandas.DataFrame
        One row per corpus, family, k and N: ``corpus``, ``family``, ``k``, ``N``, ``slope_N - slope_1``,
        ``interval low``, ``interval high`` (NaN where there is no interval).
    usable, unusable
        As in ``a4_power_laws``.

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> table = pd.DataFrame({"corpus": "c", "family": "F", "k": 1, "N": [1, 2, 4], "slope_N - slope_1": [0, 0.01, 0.2],
    ...                       "interval low": [np.nan, -0.02, 0.1], "interval high": [np.nan, 0.04, 0.3]})
    >>> v = a4_same_exponent(table, ["F"], [])
    >>> v.verdict, v.ours
    ('partly', 'slope_N - slope_1 from 0.010 to 0.200; interval contains 0: F: 1 of 2; 0 cases without an interval')
    """
    cases, gaps = {}, []
    for row in fit_table[fit_table["family"].isin(usable) & (fit_table["N"] > 1)].to_dict("records"):
        lo, hi = row["interval low"], row["interval high"]
        ok = None if np.isnan(lo) else bootstrap.side((lo, hi)) == 0
        cases[_case(row["corpus"], row["family"], row["k"], row["N"])] = ok
        if ok is not None:
            gaps.append(row["slope_N - slope_1"])
    return judge("A4.2", _case_outcomes(cases, unusable),
                 f"slope_N - slope_1 from {min(gaps):.3f} to {max(gaps):.3f}; interval contains 0: {_tally(cases)}; "
                 f"{_n_untested(cases)} cases without an interval" if gaps else "no case with an interval",
                 why_not=_a4_why_not(usable, unusable))


def a4_amplified(amplification: pd.DataFrame, ratios: Sequence[float]) -> Verdict:
    """A4.3: the sequence-level error is N times the token-level one: in every case the interval of the family's
    mean measured / predicted ratio is read by ``close`` (inside ``A_CLOSE`` holds, outside fails, across an edge
    undetermined).

    Parameters
    ----------
    amplification : pandas.DataFrame
        One row per corpus, family, k and N >= 2: ``corpus``, ``family``, ``k``, ``N``, ``interval low``,
        ``interval high`` (of the geometric-mean ratio; NaN where some model has no successful run).
    ratios : sequence of float
        Every model's measured / predicted -log p_{N,k} with N >= 2, where measurable (shown).

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> table = pd.DataFrame({"corpus": "c", "family": "F", "k": 1, "N": [2, 4], "interval low": [0.9, np.nan],
    ...                       "interval high": [1.1, np.nan]})
    >>> v = a4_amplified(table, [0.95, 1.05])
    >>> v.verdict, v.ours
    ('reproduced', 'measured / predicted -log p per model: median 1.00, range 0.95-1.05; family mean inside [0.74, 1.32]: F: 1 of 1; 1 cases without an interval')
    """
    cases = {_case(r["corpus"], r["family"], r["k"], r["N"]):
             None if np.isnan(r["interval low"]) else close((r["interval low"], r["interval high"]))
             for r in amplification.to_dict("records")}
    ratios = np.asarray(ratios, np.float64)
    return judge("A4.3", _case_outcomes(cases),
                 f"measured / predicted -log p per model: median {np.median(ratios):.2f}, range {ratios.min():.2f}-"
                 f"{ratios.max():.2f}; family mean inside [{A_CLOSE[0]}, {A_CLOSE[1]}]: {_tally(cases)}"
                 + (f"; across an edge (undetermined): {sum(ok is UNDETERMINED for ok in cases.values())}"
                    if UNDETERMINED in cases.values() else "")
                 + f"; {_n_untested(cases)} cases without an interval" if len(ratios) else "no measurable case with N ≥ 2",
                 why_not="no model completes a run of 2 or more tokens", why_undetermined=ACROSS_EDGE)


def a4_sharpens(widths: pd.DataFrame, shown_corpus: str) -> Verdict:
    """A4.4: under eq. 8 the transition at the largest N is narrower than ``A4_SHARPER`` times that at N = 1, per
    corpus, family and k.

    Parameters
    ----------
    widths : pandas.DataFrame
        One row per corpus, family, k and N (N ascending within each case): ``corpus``, ``family``, ``k``,
        ``N``, ``width (decades of S)`` (between the success rates of ``A4_TRANSITION``).
    shown_corpus : str
        The corpus whose widths the "ours" text lists (the chapter's figure shows it).

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> widths = pd.DataFrame({"corpus": "c", "family": "F", "k": 1, "N": [1, 16],
    ...                        "width (decades of S)": [30.0, 30.0]})
    >>> v = a4_sharpens(widths, "c")
    >>> v.verdict, v.ours
    ('not reproduced', 'F, c, k=1: 30.0 decades at N=1, 30.0 at N=16')
    """
    groups = list(widths.groupby(["corpus", "family", "k"], sort=False))
    cases = {_case(c, fam, k): bool(g["width (decades of S)"].iloc[-1] < A4_SHARPER * g["width (decades of S)"].iloc[0])
             for (c, fam, k), g in groups}
    shown = "; ".join(f"{fam}, {c}, k={k}: {g['width (decades of S)'].iloc[0]:.1f} decades at N={g['N'].iloc[0]}, "
                      f"{g['width (decades of S)'].iloc[-1]:.1f} at N={g['N'].iloc[-1]}"
                      for (c, fam, k), g in groups if c == shown_corpus)
    corpora = widths["corpus"].unique()
    return judge("A4.4", {"/".join(key): ok for key, ok in cases.items()},
                 shown + (f" (first corpus shown; {len(cases)} cases in all)" if len(corpora) > 1 else ""),
                 why_not="no family has a falling token-level law")


def measured_sigmoid(sizes, success, law) -> bool | None:
    """Whether one case's measured success rates show eq. 8's S (A4.5): they span p = 1/e, rise with size at every
    step, and ``law`` (the fit of log(-log p) on log S) is a falling law with R^2 >= ``A4_MIN_R2``.

    Parameters
    ----------
    sizes, success : array_like, shape (models,)
        The family's sizes and measured p_{N,k} (NaN for an N longer than every window).
    law : rankscale.analysis.fit.PowerLawFit or None
        None where some model has p = 0.

    Returns
    -------
    bool or None
        None where the points do not span 1/e, some are missing, or there is no fit.

    Examples
    --------
    >>> from rankscale.analysis.fit import PowerLawFit
    >>> law = PowerLawFit(-0.5, 0.0, 0.99, 3)
    >>> measured_sigmoid([1e6, 1e7, 1e8], [0.1, 0.4, 0.8], law), measured_sigmoid([1e6, 1e7, 1e8], [0.1, 0.5, 0.4], law)
    (True, False)
    >>> measured_sigmoid([1e6, 1e7, 1e8], [0.01, 0.1, 0.3], law) is None  # one arm of the S only
    True
    """
    order = np.argsort(np.asarray(sizes, np.float64))
    p = np.asarray(success, np.float64)[order]
    if np.isnan(p).any() or not p.min() < np.exp(-1) < p.max() or law is None:
        return None
    return bool((np.diff(p) > 0).all() and fit.falling_law(law, A4_MIN_R2))


def a4_sigmoid(success: pd.DataFrame, sequence_fits: Mapping[tuple, object], usable: Sequence[str],
               unusable: Sequence[str]) -> Verdict:
    """A4.5: ``measured_sigmoid`` in every case of a family with enough sizes.

    Parameters
    ----------
    success : pandas.DataFrame
        One row per corpus, model, k and N: ``corpus``, ``family``, ``S``, ``k``, ``N``, ``measured p_Nk``.
    sequence_fits, usable, unusable
        As in ``a4_power_laws``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    cases, spans = {}, []
    for (c, fam, k, n), rows in success[success["family"].isin(usable)].groupby(["corpus", "family", "k", "N"],
                                                                                 sort=False):
        ok = cases[_case(c, fam, k, n)] = measured_sigmoid(rows["S"], rows["measured p_Nk"],
                                                            sequence_fits.get((c, fam, k, n)))
        if ok is not None:
            spans.append(f"{c}/{fam}/k={k}/N={n}: p {rows['measured p_Nk'].min():.2f}-{rows['measured p_Nk'].max():.2f}")
    return judge("A4.5", _case_outcomes(cases, unusable),
                 f"cases spanning p = 1/e that rise along eq. 8: {_tally(cases) or 'none'}; {_n_untested(cases)} "
                 f"cases on one arm of the S or without a fit" + (f" (tested: {'; '.join(spans)})" if spans else ""),
                 why_not=_a4_why_not(usable, unusable) if not usable else
                 "no measured case spans p = 1/e: every case shows one arm of the S at most")


# ---------------------------------------------------------------------------------------------
# A5 (paper A, section 5.2 and appendix C: lognormal ranks)

A5_MIN_R2 = 0.9  # paper A's own bar for a size law that holds (section 4.4)
A5_LEVEL = 0.95  # every interval: the measured value -+ 1.96 SD of its bootstrap replicates (bootstrap.interval)
A5_VUONG_P = 0.05  # the lognormal's advantage over the power law must be significant at 5% (Vuong's test)
# The fitted CDF within 5 percentage points of the data's at every rank: the KS distance's own sampling noise is
# below 0.02 for 5,000 or more tokens (1.36 / sqrt(n) at 95%), so a larger gap is the model's, not noise.
A5_MAX_KS = 0.05
# An approximation within 5% of the exact value counts as accurate: about the change of CE from one model size to
# the next in paper A's Pythia series (Fig. 8a), so a larger error could reorder neighbouring models.
A5_APPROX_TOLERANCE = 0.05
A5_DOMINANCE_MUS = (-5.0, -10.0, -20.0, -40.0)  # the mu path of the dominance argument (appendix C, eqs. 22-26)

_A5_FITS = {
    "powerlaw": "the powerlaw package's lognormal, as paper A's code fits it (powerlaw.Fit(ranks, discrete=True, "
                "xmin=1)), against that package's power law",
    "1..inf": "eq. 10 exactly as written (point densities normalised over ranks 1..infinity, eq. 11, "
              "rank_models.fit_lognormal_eq10), against the unbounded power law",
    "1..V": "eq. 10 normalised over the vocabulary's ranks 1..V, against the power law over 1..V",
}
_A5_PREDICTED = {
    "powerlaw": "the authors' fitted (mu, sigma) put into eq. 21 and eq. 16 with eq. 20's c, as their code does",
    "1..inf": "the eq. 10 fit's (mu, sigma) put into eq. 21 and eq. 16 with eq. 20's c (the closed forms derived "
              "for that model)",
    "1..V": "the exact entropy and -log p_1 of the 1..V fit, summed over ranks 1..V",
}
_A5_BOOT = (f"Bootstrap: the evaluation tokens are resampled with replacement, the same resample of the text for "
            f"every model of a family (a lower bound on the uncertainty: neighbouring tokens are not independent), "
            f"measured values recomputed and each lognormal refitted on every resample (one Newton step from the "
            f"full-sample fit); the {A5_LEVEL:.0%} interval is the measured value -+ "
            f"{NormalDist().inv_cdf((1 + A5_LEVEL) / 2):.2f} standard deviations of its replicates.")


def _a5_lognormal_rule(form: str, units: str) -> str:
    return (f"{units}: the lognormal fitted as {_A5_FITS[form]}, is not degenerate (extreme parameters, "
            f"rank_models.degeneracy), beats the power law in Vuong's test (log-likelihood ratio > 0, p < {A5_VUONG_P}; "
            f"the comparison paper A's code makes) and its CDF is within {A5_MAX_KS} of the data's at every rank "
            "(KS distance; its sampling noise is below 0.02 for 5,000 or more tokens).")


def _a5_shared_rule(form: str) -> str:
    return (f"For each corpus and family with at least {MIN_SIZES} sizes, with CE and -log p_1 predicted from "
            f"{_A5_PREDICTED[form]}: both predicted series fit power laws in S with R^2 >= {A5_MIN_R2} (paper A's "
            f"bar) and negative slopes (else it fails), and the bootstrap interval of slope(-log p_1) / slope(CE) is "
            f"read against the closeness band: {A_CLOSE_READING}. Why: 'nearly identical' is a claim of closeness, "
            f"graded with the book's one band and one reading for it (A3.5); an earlier rule let an interval that "
            f"merely reached into a wider band pass. " + _A5_BOOT)


def _a5_match_rule(form: str) -> str:
    return (f"For each corpus and family with at least {MIN_SIZES} sizes, with the predictions from "
            f"{_A5_PREDICTED[form]}: the bootstrap intervals of slope(predicted CE) / slope(measured CE) and of "
            f"slope(predicted -log p_1) / slope(measured -log RBP_1) are read against the closeness band: "
            f"{A_CLOSE_READING}; the unit holds if both are inside, fails if either lies outside. Why: 'similar' is "
            f"a claim of closeness, graded with the book's one band and reading (A3.5). Measured and predicted "
            f"values come from the same resample, so the ratios are paired. " + _A5_BOOT)


CLAIMS_A5 = index_claims(
    Claim("A5.1", "The rank of the correct token follows a lognormal distribution (§5.2, Fig. 8c: 'well supported "
                  "by real data'), fitted as paper A's code fits it", "empirical",
          _a5_lognormal_rule("powerlaw", "For each corpus and model of every family"),
          "good fit on Pythia (no statistic given)"),
    Claim("A5.2", "The rank distribution of a real pretrained model, the set's reference, is lognormal (Fig. 8c "
                  "fits pretrained Pythia models), fitted as paper A's code fits it", "empirical",
          _a5_lognormal_rule("powerlaw", "For each corpus and reference model"),
          "good fit on Pythia (no statistic given)", needs=("a reference model",)),
    Claim("A5.3", "The ranks are lognormal when eq. 10 is fitted exactly as written (support 1..infinity)",
          "beyond the paper", _a5_lognormal_rule("1..inf", "For each corpus and model, references included"),
          "the model of eq. 10-11; not fitted this way in the paper"),
    Claim("A5.4", "The ranks are lognormal when eq. 10 is normalised over the vocabulary's ranks 1..V",
          "beyond the paper", _a5_lognormal_rule("1..V", "For each corpus and model, references included"),
          "not discussed"),
    Claim("A5.5", "mu/sigma of the fitted lognormal changes steadily, roughly linearly, with model size (review "
                  "version: §5.2, Fig. 8d, appendix B.4)", "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes, with (mu, sigma) fitted as paper A's code "
          f"does: the least-squares line of mu/sigma on ln S has R^2 >= {A5_MIN_R2} (paper A's bar) and the "
          f"bootstrap interval of its slope excludes 0. " + _A5_BOOT, "", needs=("three sizes",)),
    Claim("A5.6", "As models grow, mu falls while sigma grows only mildly (appendix C, after eq. 25)", "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes, with (mu, sigma) fitted as paper A's code "
          "does, slopes against ln S: the bootstrap interval of d mu / d ln S lies below 0, that of "
          "d sigma / d ln S above 0, and that of d mu / d ln S + d sigma / d ln S below 0 ('mildly': sigma rises by "
          "less than mu falls). " + _A5_BOOT, "", needs=("three sizes",)),
    Claim("A5.8", "CE and -log p_1 predicted from the fitted lognormals fall with nearly identical exponents "
                  "(§5.2, Fig. 8b), with the lognormal fitted and used as paper A's code does", "empirical",
          _a5_shared_rule("powerlaw"), "", needs=("three sizes",)),
    Claim("A5.9", "Fig. 8b's shared exponent, with eq. 10 fitted as written and appendix C's closed forms",
          "beyond the paper", _a5_shared_rule("1..inf"), "not fitted this way in the paper", needs=("three sizes",)),
    Claim("A5.10", "Fig. 8b's shared exponent, with eq. 10 fitted over ranks 1..V and summed exactly over them",
          "beyond the paper", _a5_shared_rule("1..V"), "not discussed", needs=("three sizes",)),
    Claim("A5.11", "The exponents predicted from the lognormal fits are similar to the measured ones (review "
                   "version, §5.2: Fig. 8b 'similar to the real results' of Fig. 8a), with the lognormal fitted and "
                   "used as paper A's code does", "empirical", _a5_match_rule("powerlaw"), "similar",
                   needs=("three sizes",)),
    Claim("A5.12", "Predicted and measured exponents agree, with eq. 10 fitted as written and appendix C's closed "
                   "forms", "beyond the paper", _a5_match_rule("1..inf"), "not fitted this way in the paper",
                   needs=("three sizes",)),
    Claim("A5.13", "Predicted and measured exponents agree, with eq. 10 fitted over ranks 1..V and summed exactly",
          "beyond the paper", _a5_match_rule("1..V"), "not discussed", needs=("three sizes",)),
    Claim("A5.14", "Appendix C's integral approximations (eqs. 14-21) are accurate at the models' fitted "
                   "parameters", "analytic",
          f"At every non-degenerate (mu, sigma) fitted as eq. 10 or as paper A's code does (every corpus and model, "
          f"references included): CE from eq. 21 and -log p_1 from eq. 16 with eq. 20's c are within "
          f"{A5_APPROX_TOLERANCE:.0%} of the exact sums over ranks 1..infinity (appendix_c.exact). Analytic: "
          "a property of the formulas at given parameters; the models only choose where to look.",
          "stated as approximations"),
    Claim("A5.15", "Summing ranks to infinity instead of to the vocabulary size does not change the predicted CE",
          "beyond the paper",
          f"For each corpus and model with non-degenerate fits: CE predicted by eq. 21 from the eq. 10 fit (ranks "
          f"1..infinity) is within {A5_APPROX_TOLERANCE:.0%} of the exact entropy of the 1..V fit (ranks 1..V), "
          "both fitted to the same ranks.", "not discussed"),
    Claim("A5.16", "As |mu| grows, log c becomes the dominant part of CE (appendix C, eqs. 22-26; the review "
                   "version names mu^2/(2 sigma^2) instead)", "analytic",
          f"Along mu = {', '.join(f'{m:g}' for m in A5_DOMINANCE_MUS)} at the median sigma of the families' eq. 10 "
          f"fits, with exact sums: at the last mu, |CE - log c| <= |CE| / 2, i.e. log c is most of CE. Analytic: "
          "it depends on (mu, sigma) only.", "log c dominates",
          finding="Appendix C writes CE as log(sqrt(2 pi) sigma) + log c + mu^2/(2 sigma^2) + a remainder (eq. 26) and "
                  "argues that log c dominates as |mu| grows (eqs. 22-25). But c is of the order of phi(mu/sigma) "
                  "(eq. 24), so log c = -mu^2/(2 sigma^2) up to terms logarithmic in |mu| and sigma: the two large terms "
                  "cancel, and what is left, CE itself, is small and shrinks (at mu = -40, sigma = 2.3: log c about "
                  "-158, mu^2/(2 sigma^2) about +156, CE 0.02). Neither term alone tracks CE, so the dominance argument "
                  "cannot explain why CE and -log p_1 scale alike."),
    Claim("A5.17", "The CE that appendix C predicts (eq. 21) is the entropy of the rank distribution, paper B's "
                   "error entropy (EE), not the cross-entropy: the lognormal's predicted CE matches the measured EE",
          "beyond the paper",
          f"For each corpus and model (references included) with a non-degenerate lognormal fitted as paper A's code "
          f"does: |CE predicted (eq. 21) / EE measured - 1| <= {A5_APPROX_TOLERANCE:.0%}, EE the entropy of the "
          f"histogram of the target's rank (paper B, eq. 4, strict gt ranks; ties are too rare to matter, A1.3). "
          f"Why: eq. 21 computes -sum_r p_r log p_r with p_r the lognormal's mass at rank r, the entropy of the rank "
          f"distribution and so EE if the lognormal fits the ranks; it drops the part of CE that how probability "
          f"is spread among the candidates adds (paper B's SA - Conf). {A5_APPROX_TOLERANCE:.0%} is the book's "
          f"tolerance for an accurate value (about one size step of CE in Fig. 8a; A5.14). The gap to the "
          f"measured CE is shown beside it.",
          "eq. 21 is called the CE"),
)

# The three fits of the lognormal (rankscale.analysis.rank_models.FORMS) as the verdicts and the chapter name them
A5_FORM_LABELS = {"powerlaw": "authors' fit (powerlaw package)", "1..inf": "eq. 10 as written (1..∞)",
                  "1..V": "eq. 10 over 1..V"}
# The claim that grades each version of the shared exponent (A5.8-A5.10) and of the match (A5.11-A5.13)
# (the measured version, slope(-log RBP_1) / slope(CE), is chapter A3's A3.5: the same ratio on the same data)
_A5_SHARED_KEYS = {"powerlaw": "A5.8", "1..inf": "A5.9", "1..V": "A5.10"}
_A5_MATCH_KEYS = {"powerlaw": "A5.11", "1..inf": "A5.12", "1..V": "A5.13"}
_A5_LOGNORMAL_KEYS = {("powerlaw", "family"): "A5.1", ("powerlaw", "reference"): "A5.2", ("1..inf", "all"): "A5.3",
                      ("1..V", "all"): "A5.4"}




def _interval(row: Mapping, name: str) -> tuple[float, float] | None:
    """The interval ``(row["<name>: low"], row["<name>: high"])``, None where it is missing (NaN)."""
    low, high = row[f"{name}: low"], row[f"{name}: high"]
    return None if np.isnan(low) else (low, high)


def _unit_row(table: pd.DataFrame, corpus: str, family: str, **more) -> pd.Series:
    """The one row of ``table`` for a corpus and family (and the further ``column=value`` of ``more``)."""
    pick = (table["corpus"] == corpus) & (table["family"] == family)
    for column, value in more.items():
        pick &= table[column] == value
    return table[pick].iloc[0]


def _a5_size_verdict(key: str, cases: Mapping[tuple[str, str], bool | None], ours: str, unusable: Sequence[str],
                     paper: str | None = None) -> Verdict:
    """A size claim of A5: one outcome per (corpus, family), the families with too few sizes named as untested."""
    outcomes = {**{f"{c}/{fam}": ok for (c, fam), ok in cases.items()}, **{reason: None for reason in unusable}}
    return judge(key, outcomes, ours, paper=paper, why_not=no_family(unusable), why_undetermined=ACROSS_EDGE)


def lognormal_preferred(row: Mapping) -> bool:
    """Whether one model's fitted lognormal describes its ranks (A5.1-A5.4): not degenerate, preferred to
    the power law by Vuong's test (z > 0, p < ``A5_VUONG_P``) and within ``A5_MAX_KS`` of the data's CDF.

    Parameters
    ----------
    row : mapping
        One row of the chapter's fits table: ``"degenerate"`` (str, "" for a usable fit), ``"Vuong z"``,
        ``"Vuong p"`` and ``"KS lognormal"`` (floats).

    Returns
    -------
    bool

    Examples
    --------
    >>> row = {"degenerate": "", "Vuong z": 3.0, "Vuong p": 0.003, "KS lognormal": 0.02}
    >>> lognormal_preferred(row), lognormal_preferred({**row, "KS lognormal": 0.08})
    (True, False)
    """
    return bool(row["degenerate"] == "" and row["Vuong z"] > 0 and row["Vuong p"] < A5_VUONG_P
                and row["KS lognormal"] <= A5_MAX_KS)


def a5_lognormal(fits: pd.DataFrame, form: str, models: str = "family", why_not: str = "") -> Verdict:
    """A5.1-A5.4: whether every model's ranks are lognormal under one fit (``lognormal_preferred``).

    Parameters
    ----------
    fits : pandas.DataFrame
        One row per corpus, model and fit, with columns ``corpus``, ``family``, ``model``, ``fit`` (a key of
        ``A5_FORM_LABELS``), ``degenerate``, ``Vuong z``, ``Vuong p``, ``KS lognormal``, ``KS power law`` and
        ``mass beyond V`` (NaN for a degenerate fit); the rows of the models the claim is about.
    form : str
        The fit graded: ``"powerlaw"`` (A5.1, A5.2), ``"1..inf"`` (A5.3) or ``"1..V"`` (A5.4).
    models : str
        ``"family"`` (the families' models, A5.1), ``"reference"`` (reference models, A5.2; counted per model
        rather than per family) or ``"all"`` (A5.3, A5.4).
    why_not : str
        Why no model can test it (the set has none of these models).

    Returns
    -------
    rankscale.claims.base.Verdict
        One unit per corpus and model.

    Examples
    --------
    >>> fits = pd.DataFrame({"corpus": "c", "family": "F", "model": ["m1", "m2"], "fit": "1..V", "degenerate": "",
    ...                      "Vuong z": [4.0, -1.0], "Vuong p": [1e-4, 0.3], "KS lognormal": 0.01,
    ...                      "KS power law": 0.2, "mass beyond V": np.nan})
    >>> a5_lognormal(fits, "1..V", "all").verdict
    'partly'
    """
    chosen = fits[fits["fit"] == form]
    outcomes = {f"{r['corpus']}/{r['family']}/{r['model']}": lognormal_preferred(r) for r in chosen.to_dict("records")}
    ours = _lognormal_ours(chosen, form, "model" if models == "reference" else "family") if len(chosen) else ""
    return judge(_A5_LOGNORMAL_KEYS[form, models], outcomes, ours, why_not=why_not)


def _lognormal_ours(chosen: pd.DataFrame, form: str, by: str) -> str:
    """What A5.1-A5.4 measured: Vuong wins per ``by`` group, the KS distances, mass beyond V, degenerate fits."""
    wins = (chosen["Vuong z"] > 0) & (chosen["Vuong p"] < A5_VUONG_P)
    degenerate = (chosen["degenerate"] != "").sum()
    per = "; ".join(f"{name}: {w.sum()} of {len(w)}" for name, w in wins.groupby(chosen[by], sort=False))
    beyond = chosen["mass beyond V"].dropna()
    ks, ks_law = chosen["KS lognormal"], chosen["KS power law"]
    # mass beyond V under 0.05% would print as 0.0%: not worth a mention
    return (f"{A5_FORM_LABELS[form]}: lognormal preferred in {wins.sum()} of {len(wins)} model/corpus pairs ({per}; "
            f"Vuong z {chosen['Vuong z'].min():.1f} to {chosen['Vuong z'].max():.1f}); KS distance {ks.min():.3f}-"
            f"{ks.max():.3f} (power law {ks_law.min():.3f}-{ks_law.max():.3f}); KS within {A5_MAX_KS}: "
            f"{(ks <= A5_MAX_KS).sum()}"
            + (f"; fitted mass beyond the vocabulary up to {beyond.max():.1%}" if len(beyond) and beyond.max() >= 0.0005
               else "") + (f"; degenerate: {degenerate}" if degenerate else ""))


def mu_sigma_steady(trend: Mapping) -> bool | None:
    """Whether mu/sigma changes steadily with size in one family (A5.5): its line on ln S has
    R^2 >= ``A5_MIN_R2`` and a slope whose interval excludes 0.

    Parameters
    ----------
    trend : mapping
        One row of the chapter's trends table: ``"R^2 of mu/sigma"``, ``"mu/sigma: low"``,
        ``"mu/sigma: high"`` (NaN where not computed).

    Returns
    -------
    bool or None
        None where the fit or its interval is missing.

    Examples
    --------
    >>> mu_sigma_steady({"R^2 of mu/sigma": 0.95, "mu/sigma: low": -0.3, "mu/sigma: high": -0.1})
    True
    >>> mu_sigma_steady({"R^2 of mu/sigma": 0.95, "mu/sigma: low": -0.3, "mu/sigma: high": 0.1})
    False
    """
    bounds = _interval(trend, "mu/sigma")
    if np.isnan(trend["R^2 of mu/sigma"]) or bounds is None:
        return None
    return bool(trend["R^2 of mu/sigma"] >= A5_MIN_R2 and bootstrap.side(bounds) != 0)


def a5_steady(trends: pd.DataFrame, units: Sequence[tuple[str, str]], unusable: Sequence[str],
              paper: str | None = None) -> Verdict:
    """A5.5: mu/sigma changes steadily with size, in every (corpus, family) of ``units`` (``mu_sigma_steady``).

    Parameters
    ----------
    trends : pandas.DataFrame
        One row per corpus and family (at least those of ``units``): ``corpus``, ``family``,
        ``R^2 of mu/sigma``, ``d mu/sigma / d ln S``, ``mu/sigma: low``, ``mu/sigma: high``.
    units : sequence of (str, str)
        The (corpus, family) pairs with enough sizes.
    unusable : sequence of str
        One reason per family left out ("NeoX: 2 sizes, fewer than 3").
    paper : str, optional
        The paper's number.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    rows = {unit: _unit_row(trends, *unit) for unit in units}
    ours = "authors' fits, mu/sigma against ln S: " + "; ".join(
        f"{c}/{fam}: R^2 {r['R^2 of mu/sigma']:.3f}, slope {r['d mu/sigma / d ln S']:.3f} [{r['mu/sigma: low']:.3f}, "
        f"{r['mu/sigma: high']:.3f}]" for (c, fam), r in rows.items())
    return _a5_size_verdict("A5.5", {unit: mu_sigma_steady(r) for unit, r in rows.items()}, ours, unusable, paper)


def mu_falls_sigma_mildly(trend: Mapping) -> bool | None:
    """Whether mu falls while sigma rises by less (A5.6): the slope intervals on ln S of mu, sigma and
    mu + sigma lie below, above and below 0.

    Parameters
    ----------
    trend : mapping
        One row of the chapter's trends table: ``"<name>: low"`` and ``"<name>: high"`` for ``name`` in
        mu, sigma, mu + sigma (NaN where not computed).

    Returns
    -------
    bool or None
        None where an interval is missing.

    Examples
    --------
    >>> trend = {"mu: low": -2.0, "mu: high": -1.0, "sigma: low": 0.1, "sigma: high": 0.3,
    ...          "mu + sigma: low": -1.9, "mu + sigma: high": -0.7}
    >>> mu_falls_sigma_mildly(trend), mu_falls_sigma_mildly({**trend, "sigma: low": -0.1})
    (True, False)
    """
    bounds = [_interval(trend, name) for name in ("mu", "sigma", "mu + sigma")]
    if None in bounds:
        return None
    return [bootstrap.side(b) for b in bounds] == [-1, 1, -1]


def a5_drift(trends: pd.DataFrame, units: Sequence[tuple[str, str]], unusable: Sequence[str],
             paper: str | None = None) -> Verdict:
    """A5.6: mu falls and sigma grows only mildly with size, in every (corpus, family) of ``units``
    (``mu_falls_sigma_mildly``).

    Parameters
    ----------
    trends : pandas.DataFrame
        One row per corpus and family: ``corpus``, ``family``, ``d mu / d ln S``, ``d sigma / d ln S``, and
        ``<name>: low``, ``<name>: high`` for ``name`` in mu, sigma, mu + sigma.
    units, unusable, paper
        As in ``a5_steady``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    rows = {unit: _unit_row(trends, *unit) for unit in units}
    ours = "authors' fits, per ln S: " + "; ".join(
        f"{c}/{fam}: d mu {r['d mu / d ln S']:.3f} [{r['mu: low']:.3f}, {r['mu: high']:.3f}], d sigma "
        f"{r['d sigma / d ln S']:.3f} [{r['sigma: low']:.3f}, {r['sigma: high']:.3f}]" for (c, fam), r in rows.items())
    return _a5_size_verdict("A5.6", {unit: mu_falls_sigma_mildly(r) for unit, r in rows.items()}, ours, unusable,
                            paper)


def shared_exponent(slopes: Mapping) -> bool | str | None:
    """Whether CE and -log p_1 share their exponent in one family (A5.8-A5.10): both fit power laws with
    R^2 >= ``A5_MIN_R2`` and negative slopes (else False), and the interval of slope(-log p_1) / slope(CE) read
    by ``close``.

    Parameters
    ----------
    slopes : mapping
        One row of the chapter's slopes table: ``"slope CE"``, ``"R^2 CE"``, ``"slope -log p_1"``,
        ``"R^2 -log p_1"`` (NaN where not fitted), ``"ratio: low"`` and ``"ratio: high"``.

    Returns
    -------
    bool, UNDETERMINED or None
        None where a fit or the interval is missing.

    Examples
    --------
    >>> row = {"slope CE": -0.1, "R^2 CE": 0.99, "slope -log p_1": -0.12, "R^2 -log p_1": 0.95,
    ...        "ratio: low": 1.1, "ratio: high": 1.3}
    >>> shared_exponent(row), shared_exponent({**row, "ratio: low": 1.4, "ratio: high": 1.6})
    (True, False)
    >>> shared_exponent({**row, "ratio: high": 1.4}), shared_exponent({**row, "R^2 -log p_1": 0.5})
    ('undetermined', False)
    """
    bounds = _interval(slopes, "ratio")
    if np.isnan(slopes["R^2 CE"]) or np.isnan(slopes["R^2 -log p_1"]) or bounds is None:
        return None
    laws = (min(slopes["R^2 CE"], slopes["R^2 -log p_1"]) >= A5_MIN_R2 and slopes["slope CE"] < 0
            and slopes["slope -log p_1"] < 0)
    return close(bounds) if laws else False


def shared_text(slopes: pd.DataFrame, version: str, units: Sequence[tuple[str, str]]) -> str:
    """The slopes of CE and -log p_1 and their ratio, per (corpus, family), of one version: what A5.8-A5.10 show,
    and what chapter A5 shows of the measured version (graded as A3.5).

    Parameters
    ----------
    slopes : pandas.DataFrame
        One row per corpus, family and version: ``corpus``, ``family``, ``version``, ``slope CE``,
        ``R^2 CE``, ``slope -log p_1``, ``R^2 -log p_1``, ``ratio p_1/CE``, ``ratio: low``, ``ratio: high``.
    version : str
        ``"measured"`` or a fit: ``"powerlaw"``, ``"1..inf"``, ``"1..V"``.
    units : sequence of (str, str)
        The (corpus, family) pairs with enough sizes.

    Returns
    -------
    str

    Examples
    --------
    >>> slopes = pd.DataFrame([{"corpus": "c", "family": "F", "version": "measured", "slope CE": -0.1,
    ...                         "R^2 CE": 0.99, "slope -log p_1": -0.1, "R^2 -log p_1": 0.99, "ratio p_1/CE": 1.0,
    ...                         "ratio: low": 0.9, "ratio: high": 1.1}])
    >>> shared_text(slopes, "measured", [("c", "F")])
    'measured: c/F: slopes CE -0.100, p_1 -0.100 (R^2 0.99, 0.99), ratio 1.00 [0.90, 1.10]'
    """
    parts = []
    for c, fam in units:
        r = _unit_row(slopes, c, fam, version=version)
        bounds = _interval(r, "ratio")
        parts.append(f"{c}/{fam}: slopes CE {r['slope CE']:.3f}, p_1 {r['slope -log p_1']:.3f} (R^2 "
                     f"{r['R^2 CE']:.2f}, {r['R^2 -log p_1']:.2f}), ratio {r['ratio p_1/CE']:.2f}"
                     + (f" [{bounds[0]:.2f}, {bounds[1]:.2f}]" if bounds else " (no interval)"))
    return ("measured" if version == "measured" else A5_FORM_LABELS[version]) + ": " + "; ".join(parts)


def a5_shared(slopes: pd.DataFrame, version: str, units: Sequence[tuple[str, str]], unusable: Sequence[str],
              paper: str | None = None) -> Verdict:
    """A5.8-A5.10: CE and -log p_1 predicted by one fit share their exponent in every (corpus, family) of
    ``units`` (``shared_exponent``); the measured version is A3.5.

    Parameters
    ----------
    slopes : pandas.DataFrame
        As in ``shared_text``.
    version : str
        The fit: ``"powerlaw"`` (A5.8), ``"1..inf"`` (A5.9), ``"1..V"`` (A5.10).
    units, unusable, paper
        As in ``a5_steady``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    key = _A5_SHARED_KEYS[version]  # KeyError for "measured": that ratio is A3.5's
    cases = {unit: shared_exponent(_unit_row(slopes, *unit, version=version)) for unit in units}
    return _a5_size_verdict(key, cases, shared_text(slopes, version, units), unusable, paper)


def exponents_match(slopes: Mapping) -> bool | str | None:
    """Whether one fit's predicted exponents match the measured ones in one family (A5.11-A5.13): the
    intervals of slope(predicted) / slope(measured), of CE and of -log p_1, read together by ``close``.

    Parameters
    ----------
    slopes : mapping
        One row of the chapter's slopes table: ``"CE pred/meas: low"``, ``"CE pred/meas: high"``,
        ``"p_1 pred/meas: low"``, ``"p_1 pred/meas: high"`` (NaN where not computed).

    Returns
    -------
    bool, UNDETERMINED or None
        None where an interval is missing.

    Examples
    --------
    >>> row = {"CE pred/meas: low": 0.8, "CE pred/meas: high": 0.9, "p_1 pred/meas: low": 1.1,
    ...        "p_1 pred/meas: high": 1.3}
    >>> exponents_match(row), exponents_match({**row, "CE pred/meas: high": 0.7, "CE pred/meas: low": 0.6})
    (True, False)
    >>> exponents_match({**row, "p_1 pred/meas: high": 1.4})
    'undetermined'
    """
    return close(_interval(slopes, "CE pred/meas"), _interval(slopes, "p_1 pred/meas"))


def a5_match(slopes: pd.DataFrame, form: str, units: Sequence[tuple[str, str]], unusable: Sequence[str],
             paper: str | None = None) -> Verdict:
    """A5.11-A5.13: the exponents one fit predicts match the measured ones in every (corpus, family) of
    ``units`` (``exponents_match``).

    Parameters
    ----------
    slopes : pandas.DataFrame
        As in ``a5_shared``, with ``CE pred/meas: low/high`` and ``p_1 pred/meas: low/high`` on the rows of
        the fits.
    form : str
        ``"powerlaw"`` (A5.11), ``"1..inf"`` (A5.12) or ``"1..V"`` (A5.13).
    units, unusable, paper
        As in ``a5_steady``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    rows = {unit: _unit_row(slopes, *unit, version=form) for unit in units}
    parts = []
    for (c, fam), r in rows.items():
        ce, p1 = _interval(r, "CE pred/meas"), _interval(r, "p_1 pred/meas")
        parts.append(f"{c}/{fam}: CE " + (f"[{ce[0]:.2f}, {ce[1]:.2f}]" if ce else "(no interval)")
                     + ", p_1 " + (f"[{p1[0]:.2f}, {p1[1]:.2f}]" if p1 else "(no interval)"))
    return _a5_size_verdict(_A5_MATCH_KEYS[form], {unit: exponents_match(r) for unit, r in rows.items()},
                            "predicted/measured slope " + "; ".join(parts), unusable, paper)


def a5_approximations(errors: Mapping[str, float]) -> Verdict:
    """A5.14: appendix C's approximations are within ``A5_APPROX_TOLERANCE`` at every fitted (mu, sigma).

    Parameters
    ----------
    errors : mapping of str to float
        Per fit (its name): the larger relative error of eq. 21's CE and eq. 16's -log p_1 against the exact
        sums; NaN where a relative error is undefined (that fit cannot test it).

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> v = a5_approximations({"m1": 0.01, "m2": 0.08})
    >>> v.verdict, v.ours
    ('partly', 'worst relative error of CE or -log p_1 8.0%; 1 of 2 fits within 5%')
    """
    outcomes = {name: None if np.isnan(err) else bool(err <= A5_APPROX_TOLERANCE) for name, err in errors.items()}
    ours = (f"worst relative error of CE or -log p_1 {np.nanmax(list(errors.values())):.1%}; "
            f"{sum(ok is True for ok in outcomes.values())} of {len(outcomes)} fits within "
            f"{A5_APPROX_TOLERANCE:.0%}" if errors else "")
    return judge("A5.14", outcomes, ours, why_not="every fit is degenerate")


def a5_vocabulary_bound(fits: pd.DataFrame) -> Verdict:
    """A5.15: CE predicted by eq. 21 from the eq. 10 fit is within ``A5_APPROX_TOLERANCE`` of the 1..V
    fit's exact entropy, model by model.

    Parameters
    ----------
    fits : pandas.DataFrame
        One row per corpus, model and fit: ``corpus``, ``family``, ``model``, ``fit`` (with rows of
        ``"1..inf"`` and ``"1..V"``) and ``CE predicted`` (NaN for a degenerate fit).

    Returns
    -------
    rankscale.claims.base.Verdict
        One unit per corpus and model; a model with a degenerate fit cannot test it.

    Examples
    --------
    >>> fits = pd.DataFrame({"corpus": "c", "family": "F", "model": ["m", "m"], "fit": ["1..inf", "1..V"],
    ...                      "CE predicted": [3.3, 3.0]})
    >>> v = a5_vocabulary_bound(fits)
    >>> v.verdict, v.ours
    ('not reproduced', '|CE(eq. 21, eq. 10 fit) / CE(1..V fit, exact) - 1| from 10.0% to 10.0%')
    """
    predicted = fits.pivot(index=["corpus", "family", "model"], columns="fit", values="CE predicted")
    gap = (predicted["1..inf"] / predicted["1..V"] - 1).abs()
    outcomes = {"/".join(key): None if np.isnan(g) else bool(g <= A5_APPROX_TOLERANCE) for key, g in gap.items()}
    ours = (f"|CE(eq. 21, eq. 10 fit) / CE(1..V fit, exact) - 1| from {gap.min():.1%} to {gap.max():.1%}"
            if gap.notna().any() else "")
    return judge("A5.15", outcomes, ours, why_not="every fit is degenerate")


def a5_predicts_ee(joined: pd.DataFrame) -> Verdict:
    """A5.17: model by model, the CE predicted by the authors' fit (eq. 21) is within ``A5_APPROX_TOLERANCE`` of the
    measured error entropy.

    Parameters
    ----------
    joined : pandas.DataFrame
        One row per corpus, model and fit: ``corpus``, ``family``, ``model``, ``fit`` (rows of ``"powerlaw"``
        are graded), ``CE predicted`` (NaN for a degenerate fit), ``rank entropy measured`` (EE) and
        ``CE measured``.

    Returns
    -------
    rankscale.claims.base.Verdict
        One unit per corpus and model; a degenerate fit cannot test it.

    Examples
    --------
    >>> joined = pd.DataFrame({"corpus": "c", "family": "F", "model": ["m1", "m2"], "fit": "powerlaw",
    ...                        "CE predicted": [2.0, 2.0], "rank entropy measured": [2.05, 2.5],
    ...                        "CE measured": [3.0, 3.0]})
    >>> v = a5_predicts_ee(joined)
    >>> v.verdict, v.ours
    ('partly', 'CE predicted / EE measured - 1 from -20.0% to -2.4% (1 of 2 within 5%); CE predicted / CE measured - 1 from -33.3% to -33.3%')
    """
    rows = joined[joined["fit"] == "powerlaw"]
    to_ee = rows["CE predicted"] / rows["rank entropy measured"] - 1
    to_ce = rows["CE predicted"] / rows["CE measured"] - 1
    outcomes = {f"{r['corpus']}/{r['family']}/{r['model']}": None if np.isnan(gap) else bool(abs(gap) <= A5_APPROX_TOLERANCE)
                for r, gap in zip(rows.to_dict("records"), to_ee)}
    ours = (f"CE predicted / EE measured - 1 from {to_ee.min():.1%} to {to_ee.max():.1%} "
            f"({sum(ok is True for ok in outcomes.values())} of {to_ee.notna().sum()} within {A5_APPROX_TOLERANCE:.0%}); "
            f"CE predicted / CE measured - 1 from {to_ce.min():.1%} to {to_ce.max():.1%}" if to_ee.notna().any() else "")
    return judge("A5.17", outcomes, ours, why_not="every fit is degenerate")


def log_c_dominates(ce: float, log_c: float) -> bool:
    """Whether log c is most of CE (A5.16): |CE - log c| <= |CE| / 2.

    >>> log_c_dominates(2.0, 1.5), log_c_dominates(2.0, 0.5)
    (True, False)
    """
    return bool(abs(ce - log_c) <= abs(ce) / 2)


def a5_dominance(end) -> Verdict:
    """A5.16: at the last mu of ``A5_DOMINANCE_MUS`` log c is the dominant part of CE (``log_c_dominates``).

    Parameters
    ----------
    end : rankscale.analysis.appendix_c.AppendixC or None
        The exact sums at the path's last (mu, sigma) (``mu``, ``sigma``, ``log_c``, ``ce``); None where no
        family fit gives sigma.

    Returns
    -------
    rankscale.claims.base.Verdict

    Examples
    --------
    >>> from rankscale.analysis import appendix_c
    >>> a5_dominance(None).verdict
    'not testable on this set'
    >>> a5_dominance(appendix_c.exact(-40.0, 2.0)).verdict  # log c about -202, CE about 0.004
    'not reproduced'
    """
    ours = (f"at mu = {end.mu:g}, sigma = {end.sigma:.2f}: log c = {end.log_c:.1f}, mu^2/(2 sigma^2) = "
            f"{end.mu**2 / (2 * end.sigma**2):.1f}, CE = {end.ce:.2f}" if end else "")
    return judge("A5.16", {"mu path": None if end is None else log_c_dominates(end.ce, end.log_c)}, ours,
                  why_not="no family fit to take sigma from")


def a5_table1_ratios(table: pd.DataFrame) -> pd.Series:
    """slope(-log RBP_1) / slope(CE) over paper A's Table 1, on the (data set, family) pairs whose two fits both
    have R^2 >= ``A5_MIN_R2``: the pairs the paper calls very close, whose range is ``A_CLOSE``.

    Parameters
    ----------
    table : pandas.DataFrame
        Paper A's Table 1 (``rankscale.claims.reference.reference_table("rbp_paper_table1")``): ``dataset``, ``family``, ``metric``
        (``"CE"``, ``"-log RBP_1"``, ...), ``slope``, ``r2``.

    Returns
    -------
    pandas.Series
        One ratio per kept pair.

    Examples
    --------
    >>> table = pd.DataFrame({"dataset": "D", "family": ["P", "P", "G", "G"],
    ...                       "metric": ["CE", "-log RBP_1"] * 2, "slope": [-0.1, -0.09, -0.1, -0.2],
    ...                       "r2": [0.99, 0.98, 0.99, 0.5]})
    >>> a5_table1_ratios(table).round(2).tolist()
    [0.9]
    """
    pairs = table[table["metric"] == "CE"].merge(table[table["metric"] == "-log RBP_1"], on=["dataset", "family"],
                                                 suffixes=(" CE", " RBP_1"))
    pairs = pairs[(pairs["r2 CE"] >= A5_MIN_R2) & (pairs["r2 RBP_1"] >= A5_MIN_R2)]
    return pairs["slope RBP_1"] / pairs["slope CE"]


