"""Chapter A5 of the claims stage, lognormal ranks and the link to cross-entropy (paper A §5.2, Fig. 8,
appendix C): its thresholds and claims, its evidence (``RankEvidence``: every model's rank distribution fitted
as a lognormal in the three forms of ``rankscale.analysis.rank_models.FORMS``, and the size trends of the fitted
parameters and of the CE and -log p_1 they predict, refitted on bootstrap resamples of the text) and its two
steps, ``measure`` (the chapter's runs to that evidence) and ``decide`` (the evidence to the chapter's verdicts),
with the rule of each claim read on one unit as a small function of its own and the evidence laid out as the
chapter's tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from rankscale.analysis import appendix_c, bootstrap, fit, metrics, rank_models
from rankscale.analysis.bootstrap import INTERVAL, interval_text
from rankscale.analysis.rank_models import FORMS
from rankscale.claims.base import (
    MIN_SIZES,
    ONE_READING,
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
    read,
)
from rankscale.claims.context import BY, Chapter, Context, text_units
from rankscale.claims.paper_a import A_CLOSE, A_CLOSE_READING, ACROSS_EDGE, close, law_reading, law_rule
from rankscale.claims.spec import ChapterSpec
from rankscale.records.runs import Run, by_family, sizes

A5_MIN_R2 = 0.9  # paper A's own bar for a size law that holds (section 4.4)
A5_VUONG_P = 0.05  # the lognormal's advantage over the power law must be significant at 5% (Vuong's test)
# The fitted CDF within 5 percentage points of the data's at every rank: the KS distance's own sampling noise is
# below 0.02 for 5,000 or more tokens (1.36 / sqrt(n) at 95%), so a larger gap is the model's, not noise.
A5_MAX_KS = 0.05
# An approximation within 5% of the exact value counts as accurate: about the change of CE from one model size to
# the next in paper A's Pythia series (Fig. 8a), so a larger error could reorder neighbouring models.
A5_APPROX_TOLERANCE = 0.05
A5_DOMINANCE_MUS = (-5.0, -10.0, -20.0, -40.0)  # the mu path of the dominance argument (appendix C, eqs. 22-26)

TABLE1 = "rbp_paper_table1"  # paper A's Table 1 (appendix B): the measured slopes A5.11's paper column reads
PYTHIA = "rbp_authors_pythia_lognormal"  # the authors' lognormal fits to Pythia (their simulate.py): A5.5-A5.11
READS = ("references",)  # the runs measure reads beside the families' final models (``load_chapter``'s keywords)
TABLES = (TABLE1, PYTHIA)  # the papers' tables decide reads (``Context.tables``)


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
_A5_BOOT = (f"Every interval is a {INTERVAL}; each lognormal is refitted on every replicate (one Newton step from "
            f"the full-sample fit).")


def _a5_lognormal_rule(form: str, units: str) -> str:
    return (f"{units}: the lognormal fitted as {_A5_FITS[form]}, is not degenerate (extreme parameters, "
            f"rank_models.degeneracy), beats the power law in Vuong's test (log-likelihood ratio > 0, p < {A5_VUONG_P}; "
            f"the comparison paper A's code makes) and its CDF is within {A5_MAX_KS} of the data's at every rank "
            "(KS distance; its sampling noise is below 0.02 for 5,000 or more tokens).")


def _a5_shared_rule(form: str) -> str:
    return (f"For each corpus and family with at least {MIN_SIZES} sizes, with CE and -log p_1 predicted from "
            f"{_A5_PREDICTED[form]}: both predicted series are falling power laws in S, each read on the bootstrap "
            f"intervals of its R^2 and slope ({law_rule(A5_MIN_R2)}; {A5_MIN_R2} is paper A's bar), and the "
            f"bootstrap interval of slope(-log p_1) / slope(CE) is read against the closeness band: "
            f"{A_CLOSE_READING}. The unit holds where all three hold, fails where a law fails (whatever the ratio) "
            f"or the ratio lies wholly outside the band, and is undetermined otherwise, as where a replicate could "
            f"not be fitted. Why: 'nearly identical' is a claim of closeness, graded with the book's one band and "
            f"one reading for it (A3.5); an earlier rule let an interval that merely reached into a wider band pass. "
            + _A5_BOOT)


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
          f"does, the least-squares line of mu/sigma on ln S: the bootstrap interval of its R^2 is read against "
          f"{A5_MIN_R2} (paper A's bar; {ONE_READING}), and that of its slope against 0, in either direction (the "
          f"paper says only that mu/sigma 'scales with model size'): wholly on one side of 0 it holds, and across "
          f"(or touching) 0 the data do not decide. The unit holds where both hold, fails where the R^2 fails, and "
          f"is undetermined otherwise. " + _A5_BOOT, "", needs=("three sizes",)),
    Claim("A5.6", "As models grow, mu falls while sigma grows only mildly (appendix C, after eq. 25)", "empirical",
          f"For each corpus and family with at least {MIN_SIZES} sizes, with (mu, sigma) fitted as paper A's code "
          "does, slopes against ln S: the bootstrap intervals of d mu / d ln S (claimed below 0), d sigma / d ln S "
          "(above 0) and d mu / d ln S + d sigma / d ln S (below 0: 'mildly', sigma rises by less than mu falls) "
          "are each read against 0: the unit holds if every interval lies wholly on its claimed side, fails if one "
          "lies wholly on the other, and is undetermined if none fails but one is across (or touches) 0. "
          + _A5_BOOT, "", needs=("three sizes",)),
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
                  "cancel, and what is left, CE itself, is small and shrinks (the row gives this set's log c, "
                  "mu^2/(2 sigma^2) and CE at the last mu). Neither term alone tracks CE, so the dominance argument "
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

# The three fits of the lognormal (rankscale.analysis.rank_models.FORMS) as the verdicts and the chapter name them,
# in full and in short (the figures' titles, the units of A5.14)
A5_FORM_LABELS = {"powerlaw": "authors' fit (powerlaw package)", "1..inf": "eq. 10 as written (1..∞)",
                  "1..V": "eq. 10 over 1..V"}
FORM_SHORT = {"powerlaw": "authors'", "1..inf": "eq. 10", "1..V": "1..V"}
# What each version of the two series is read from: the measured CE and -log RBP_1 of the models, or the CE and
# -log p_1 a fit predicts (columns of ``RankEvidence.models`` and ``RankEvidence.fits``)
VERSIONS = {"measured": ("CE measured", "-log RBP_1 measured"),
            **{form: ("CE predicted", "-log p_1 predicted") for form in FORMS}}
REFERENCE = "reference"  # the family column of a reference model's rows: it belongs to no family
LINE_MIN_SIZES = 2  # a family's size trends are fitted from two sizes on (they are drawn); the claims need MIN_SIZES


# ---------------------------------------------------------------------------------------------
# The evidence

@dataclass(frozen=True)
class RankEvidence:
    """Every model's rank distribution fitted as a lognormal in the three forms, and what the chapter reads off
    those fits against size (chapter A5's evidence).

    Attributes
    ----------
    corpora : tuple of str
        The corpora measured, in order.
    families : tuple of str
        The families, in the set's order.
    models : pandas.DataFrame
        One row per corpus and model (reference models included, family ``REFERENCE``): ``corpus``, ``family``,
        ``model``, ``S``, ``V``, ``tokens``, ``CE measured``, ``rank entropy measured`` (paper B's error entropy)
        and ``-log RBP_1 measured``.
    fits : pandas.DataFrame
        One row per corpus, model and form (``FORMS``): the keys of ``models``, ``fit``, ``mu``, ``sigma``,
        ``mu/sigma``, ``mass beyond V``, ``Vuong z``, ``Vuong p`` (these NaN for a degenerate fit), ``KS lognormal``,
        ``KS power law``, ``CE predicted``, ``-log p_1 predicted`` and ``degenerate`` ("" for a usable fit).
    rank_fits : mapping of (str, str or None, str) to rankscale.analysis.rank_models.RankModels
        Each model's fits by (corpus, family, model), family None for a reference model.
    trends : pandas.DataFrame
        One row per corpus and family of ``LINE_MIN_SIZES`` sizes: the slopes on ln S of the authors' fitted mu,
        sigma, mu/sigma and mu + sigma (``d <name> / d ln S``), each with its interval (``<name>: low``,
        ``<name>: high``), and ``R^2 of mu/sigma`` with its interval (``R^2 of mu/sigma: low``, ``: high``).
    slopes : pandas.DataFrame
        One row per corpus, family of ``LINE_MIN_SIZES`` sizes and version (``VERSIONS``): the power-law slopes
        and R^2 of CE and -log p_1 against size, each with its interval (``slope CE: low/high``, ``R^2 CE: low/high``,
        the same for ``-log p_1``), ``ratio p_1/CE`` with its interval (``ratio: low/high``), and on
        the fits' rows the intervals of slope(predicted) / slope(measured) (``CE pred/meas: low/high``,
        ``p_1 pred/meas: low/high``).
    laws : mapping of (str, str, str, int) to rankscale.analysis.fit.PowerLawFit or None
        By (corpus, family, version, 0 for CE or 1 for -log p_1): the power law in S of that series.
    approximations : mapping of rankscale.claims.base.Unit to float
        Per non-degenerate unbounded fit (a model's authors' or eq. 10 fit): the larger relative error of
        appendix C's CE and -log p_1 against the exact sums (NaN where undefined).
    path : tuple of rankscale.analysis.appendix_c.AppendixC
        The exact sums along ``A5_DOMINANCE_MUS`` at the median sigma of the families' eq. 10 fits; empty
        where no family fit gives sigma.
    """

    corpora: tuple[str, ...]
    families: tuple[str, ...]
    models: pd.DataFrame
    fits: pd.DataFrame
    rank_fits: Mapping[tuple, object]
    trends: pd.DataFrame
    slopes: pd.DataFrame
    laws: Mapping[tuple, object]
    approximations: Mapping[Unit, float]
    path: tuple = ()

    @property
    def family_fits(self) -> pd.DataFrame:
        """The rows of ``fits`` of the families' models."""
        return self.fits[self.fits["family"] != REFERENCE]

    @property
    def reference_fits(self) -> pd.DataFrame:
        """The rows of ``fits`` of the reference models."""
        return self.fits[self.fits["family"] == REFERENCE]

    @property
    def joined(self) -> pd.DataFrame:
        """``fits`` with each model's measured values of ``models`` beside every one of its fits."""
        return self.fits.merge(self.models, on=["corpus", "family", "model", "S", "V"])

    def family_rows(self, form: str, corpus: str, family: str) -> pd.DataFrame:
        """The rows of ``fits`` of one form, corpus and family, smallest model first."""
        f = self.fits
        return f[(f["fit"] == form) & (f["corpus"] == corpus) & (f["family"] == family)]

    def version_values(self, corpus: str, family: str, version: str) -> tuple[np.ndarray, np.ndarray]:
        """Sizes (models,) and the (models, 2) CE and -log p_1 (or -log RBP_1) of one family under one version of
        ``VERSIONS``."""
        if version == "measured":
            sel = self.models[(self.models["corpus"] == corpus) & (self.models["family"] == family)]
        else:
            sel = self.family_rows(version, corpus, family)
        return sel["S"].to_numpy(float), sel[list(VERSIONS[version])].to_numpy(float)


def model_row(corpus: str, run: Run, rank: np.ndarray) -> dict:
    """One model's measured values (a row of ``RankEvidence.models``).

    Parameters
    ----------
    corpus : str
    run : rankscale.records.runs.Run
        A family's model or a reference model (family None).
    rank : ndarray of shape (n,)
        The targets' 1-based ranks (``ge`` ties).

    Returns
    -------
    dict
    """
    return {**_keys(corpus, run), "tokens": len(rank), "CE measured": metrics.cross_entropy(run.records.logp),
            "rank entropy measured": metrics.ce_decomposition(run.records.logp, run.records.gt).error_entropy,
            "-log RBP_1 measured": -np.log(metrics.rbp(rank, 1)[0])}


def _keys(corpus: str, run: Run) -> dict:
    return {"corpus": corpus, "family": run.family or REFERENCE, "model": run.name, "S": run.non_embedding,
            "V": run.vocab_size}


def fit_rows(corpus: str, run: Run, fitted) -> list[dict]:
    """One model's three lognormal fits as rows of ``RankEvidence.fits``.

    Parameters
    ----------
    corpus : str
    run : rankscale.records.runs.Run
    fitted : rankscale.analysis.rank_models.RankModels
        The model's fits (``rank_models.fit_rank_models``).

    Returns
    -------
    list of dict
        One per form of ``FORMS``; the parameters and Vuong's test NaN where the fit is degenerate.
    """
    rows = []
    for form in FORMS:
        f = fitted.forms[form]
        ok = f.degenerate is None
        rows.append({**_keys(corpus, run), "fit": form, "mu": f.fit.mu if ok else np.nan,
                     "sigma": f.fit.sigma if ok else np.nan, "mu/sigma": f.fit.mu / f.fit.sigma if ok else np.nan,
                     # never below 0: the 1..V form's is 0 up to rounding, which printed as -0.000 or 0.000
                     "mass beyond V": max(0.0, -np.expm1(logsumexp(f.fit.log_pmf()))) if ok else np.nan,
                     # a degenerate lognormal is a power law in all but name (mu, sigma far out): Vuong's test
                     # then weighs two near-equal curves, and its z is numerical noise (-15 with two BLAS threads,
                     # +10 with one, on one model's ranks over 1..V): a win for neither
                     "Vuong z": f.vuong.z if ok else np.nan, "Vuong p": f.vuong.p_value if ok else np.nan,
                     "KS lognormal": f.ks,
                     "KS power law": f.ks_power_law, "CE predicted": f.ce, "-log p_1 predicted": f.neg_log_p1,
                     "degenerate": f.degenerate or ""})
    return rows


def replicates(boots: Sequence, version: str) -> np.ndarray:
    """A family's bootstrap replicates of one version, models stacked last.

    Parameters
    ----------
    boots : sequence of rankscale.analysis.rank_models.RankBootstrap
        One per model of the family, smallest first.
    version : str
        ``"measured"`` (CE and -log RBP_1) or a form (the CE and -log p_1 it predicts).

    Returns
    -------
    ndarray of shape (n_boot, 2, models)
    """
    return np.stack([b.measured if version == "measured" else b.predicted[version] for b in boots], axis=-1)


def trend_row(corpus: str, family: str, rows: pd.DataFrame, params: np.ndarray, level: float) -> dict:
    """One family's row of ``RankEvidence.trends``: the slopes on ln S of the authors' mu, sigma, mu/sigma and
    mu + sigma, each with its bootstrap interval, and the R^2 of the mu/sigma line with its interval, from the same
    replicates as the slope's.

    Parameters
    ----------
    corpus, family : str
    rows : pandas.DataFrame
        The family's rows of ``fits`` for the authors' fit (``S``, ``mu``, ``sigma``, ``mu/sigma``).
    params : ndarray of shape (n_boot, 2, models)
        The refitted (mu, sigma) of each replicate (``replicates``).
    level : float
        Of the intervals.

    Returns
    -------
    dict
    """
    row = {"corpus": corpus, "family": family, "models": len(rows)}
    log_sizes = np.log(rows["S"].to_numpy(float))
    for name, values in (("mu", params[:, 0]), ("sigma", params[:, 1]), ("mu/sigma", params[:, 0] / params[:, 1]),
                         ("mu + sigma", params[:, 0] + params[:, 1])):
        point = rows[name] if name in rows else rows["mu"] + rows["sigma"]
        f = fit.fit_semilog(rows["S"], point) if point.notna().all() else None
        replicate_slopes, replicate_r2 = bootstrap.line_fits(log_sizes, values)
        bounds = bootstrap.interval(f.slope if f else np.nan, replicate_slopes, level) or (np.nan, np.nan)
        row.update({f"d {name} / d ln S": f.slope if f else np.nan, f"{name}: low": bounds[0],
                    f"{name}: high": bounds[1]})
        if name == "mu/sigma":
            row["R^2 of mu/sigma"] = f.r2 if f else np.nan
            row.update(_interval_columns("R^2 of mu/sigma", bootstrap.interval(row["R^2 of mu/sigma"], replicate_r2,
                                                                               level)))
    return row


def _interval_columns(name: str, bounds: tuple[float, float] | None) -> dict:
    return {f"{name}: low": bounds[0] if bounds else np.nan, f"{name}: high": bounds[1] if bounds else np.nan}


def slope_row(corpus: str, family: str, version: str, sizes_, values: np.ndarray, boot: np.ndarray,
              measured: np.ndarray, measured_boot: np.ndarray, laws: tuple, level: float) -> dict:
    """One family's row of ``RankEvidence.slopes`` for one version: the slopes and R^2 of CE and -log p_1, each with
    its interval (refitted on ``boot``, the replicates of the ratio), their ratio with its interval and, for a fit,
    the intervals of slope(predicted) / slope(measured).

    Parameters
    ----------
    corpus, family, version : str
    sizes_ : ndarray of shape (models,)
    values, measured : ndarray of shape (models, 2)
        CE and -log p_1 of the version, and the measured CE and -log RBP_1.
    boot, measured_boot : ndarray of shape (n_boot, 2, models)
        Their replicates, from the same resamples.
    laws : (PowerLawFit or None, PowerLawFit or None)
        The power laws of CE and -log p_1 of the version.
    level : float
        Of the intervals.

    Returns
    -------
    dict
    """
    ce, p1 = laws
    ratio, shared = rank_models.exponent_ratio(sizes_, values[:, 1], values[:, 0], boot[:, 1], boot[:, 0], level)
    row = {"corpus": corpus, "family": family, "version": version,
           "slope CE": ce.slope if ce else np.nan, "R^2 CE": ce.r2 if ce else np.nan,
           "slope -log p_1": p1.slope if p1 else np.nan, "R^2 -log p_1": p1.r2 if p1 else np.nan,
           "ratio p_1/CE": ratio, **_interval_columns("ratio", shared)}
    log_sizes = np.log(np.asarray(sizes_, np.float64))
    for i, (name, law) in enumerate(zip(("CE", "-log p_1"), laws)):
        replicate_slopes, replicate_r2 = bootstrap.line_fits(log_sizes, bootstrap.log_or_nan(boot[:, i]))
        for column, point, replicated in (("slope", "slope", replicate_slopes), ("R^2", "r2", replicate_r2)):
            bounds = None if law is None else bootstrap.interval(getattr(law, point), replicated, level)
            row.update(_interval_columns(f"{column} {name}", bounds))
    if version != "measured":
        for i, name in enumerate(("CE pred/meas", "p_1 pred/meas")):
            _, match = rank_models.exponent_ratio(sizes_, values[:, i], measured[:, i], boot[:, i],
                                                  measured_boot[:, i], level)
            row.update(_interval_columns(name, match))
    return row


def relative_error(approximate: float, exact: float) -> float:
    """approximate / exact - 1, NaN where the exact value is zero to machine precision.

    >>> relative_error(1.05, 1.0), relative_error(1.0, 0.0)
    (0.050000000000000044, nan)
    """
    return approximate / exact - 1 if abs(exact) > 1e-9 else np.nan


def approximation_errors(fits: pd.DataFrame) -> dict[Unit, float]:
    """Appendix C's closed forms against the exact sums at every non-degenerate unbounded fit (A5.14).

    Parameters
    ----------
    fits : pandas.DataFrame
        ``RankEvidence.fits``.

    Returns
    -------
    dict of Unit to float
        Per fit (``model_unit``), the larger absolute relative error of CE (eq. 21) and -log p_1 (eq. 16 with
        eq. 20's c); NaN where one is undefined.
    """
    errors = {}
    for r in unbounded(fits).to_dict("records"):
        e, a = appendix_c.exact(r["mu"], r["sigma"]), appendix_c.approx(r["mu"], r["sigma"])
        errors[model_unit(r, r["fit"])] = max(abs(relative_error(a.ce, e.ce)),
                                              abs(relative_error(a.neg_log_p1, e.neg_log_p1)))
    return errors


def unbounded(fits: pd.DataFrame) -> pd.DataFrame:
    """The non-degenerate fits of the two unbounded forms (the authors' and eq. 10 as written): those appendix C's
    closed forms are derived for."""
    return fits[fits["fit"].isin(["powerlaw", "1..inf"]) & (fits["degenerate"] == "")]


def dominance_path(fits: pd.DataFrame) -> tuple:
    """Appendix C's exact sums along ``A5_DOMINANCE_MUS`` at the median sigma of the families' eq. 10 fits
    (A5.16); empty where no family fit gives sigma.

    Parameters
    ----------
    fits : pandas.DataFrame
        ``RankEvidence.fits``.

    Returns
    -------
    tuple of rankscale.analysis.appendix_c.AppendixC
    """
    sigmas = fits.loc[(fits["family"] != REFERENCE) & (fits["fit"] == "1..inf"), "sigma"].dropna()
    if not len(sigmas):
        return ()
    return tuple(appendix_c.exact(mu, float(sigmas.median())) for mu in A5_DOMINANCE_MUS)


def measure(chapter: Chapter, context: Context) -> RankEvidence:
    """Chapter A5's evidence: every model's (and reference model's) three lognormal fits, and each family's
    resamples refitted (the same resample of the text for every model of a family), read off as size trends.

    Parameters
    ----------
    chapter : Chapter
        The families' final models and the reference models per corpus.
    context : Context
        The bootstrap's ``n_boot``, ``seed`` and ``level``.

    Returns
    -------
    RankEvidence
    """
    rank_fits, boots, model_rows, rows = {}, {}, [], []
    for corpus in chapter.corpora:
        ranks = {}
        for run in chapter.family_runs[corpus] + chapter.reference_runs[corpus]:
            key = (corpus, run.family, run.name)
            rank = ranks[key] = metrics.rank_1based(run.records.gt, run.records.ge)
            fitted = rank_fits[key] = rank_models.fit_rank_models(rank, run.vocab_size)  # over its own vocabulary
            model_rows.append(model_row(corpus, run, rank))
            rows += fit_rows(corpus, run, fitted)
        for family, members in by_family(chapter.family_runs[corpus]).items():
            keys = [(corpus, family, run.name) for run in members]
            samples = [{"rank": ranks[key], "logp": run.records.logp, BY: text_units(run.records)}
                       for key, run in zip(keys, members)]
            boots.update(zip(keys, rank_models.bootstrap_rank_models([rank_fits[key] for key in keys], samples,
                                                                     context.n_boot, context.seed,
                                                                     **context.resampling(members))))
    # the fits first: the size trends below read them through the evidence's own accessors
    evidence = RankEvidence(tuple(chapter.corpora), tuple(chapter.families), pd.DataFrame(model_rows),
                            pd.DataFrame(rows), rank_fits, pd.DataFrame(), pd.DataFrame(), {}, {})
    laws, trends, slopes = {}, [], []
    for corpus in chapter.corpora:
        members_of = by_family(chapter.family_runs[corpus])
        for family in chapter.families:
            for version in VERSIONS:
                sizes_, values = evidence.version_values(corpus, family, version)
                for i in (0, 1):
                    laws[corpus, family, version, i] = fit.fit_if_positive(sizes_, values[:, i])
            members = members_of[family]
            if len(np.unique(sizes(members))) < LINE_MIN_SIZES:
                continue
            family_boots = [boots[corpus, family, run.name] for run in members]
            trends.append(trend_row(corpus, family, evidence.family_rows("powerlaw", corpus, family),
                                    np.stack([b.params["powerlaw"] for b in family_boots], axis=-1), context.level))
            sizes_, measured = evidence.version_values(corpus, family, "measured")
            measured_boot = replicates(family_boots, "measured")
            for version in VERSIONS:
                values = evidence.version_values(corpus, family, version)[1]
                slopes.append(slope_row(corpus, family, version, sizes_, values, replicates(family_boots, version),
                                        measured, measured_boot, (laws[corpus, family, version, 0],
                                                                  laws[corpus, family, version, 1]), context.level))
    return replace(evidence, trends=pd.DataFrame(trends), slopes=pd.DataFrame(slopes), laws=laws,
                   approximations=approximation_errors(evidence.fits), path=dominance_path(evidence.fits))


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def table1_ratios(table: pd.DataFrame) -> pd.Series:
    """slope(-log RBP_1) / slope(CE) over paper A's Table 1, on the (data set, family) pairs whose two fits both
    have R^2 >= ``A5_MIN_R2``: the pairs the paper calls very close, whose range is ``A_CLOSE``.

    Parameters
    ----------
    table : pandas.DataFrame
        Paper A's Table 1 (``TABLE1``, ``rankscale.claims.reference.reference_table``): ``dataset``, ``family``, ``metric``
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
    >>> table1_ratios(table).round(2).tolist()
    [0.9]
    """
    pairs = table[table["metric"] == "CE"].merge(table[table["metric"] == "-log RBP_1"], on=["dataset", "family"],
                                                 suffixes=(" CE", " RBP_1"))
    pairs = pairs[(pairs["r2 CE"] >= A5_MIN_R2) & (pairs["r2 RBP_1"] >= A5_MIN_R2)]
    return pairs["slope RBP_1"] / pairs["slope CE"]



def model_unit(row: Mapping, form: str = "") -> Unit:
    """The unit of one model (a row of ``RankEvidence.fits`` or ``models``), or of one of its fits where
    ``form`` is given: a family's model by its family and name, a reference model as its own family.

    >>> model_unit({"corpus": "pydocs", "family": "NeoX", "model": "d16"}, "powerlaw").label
    "pydocs/NeoX: d16, authors' fit"
    >>> model_unit({"corpus": "pydocs", "family": REFERENCE, "model": "SmolLM2"}).label
    'pydocs/SmolLM2'
    """
    fitted = f"{FORM_SHORT[form]} fit" if form else ""
    if row["family"] == REFERENCE:
        return Unit(row["corpus"], row["model"], model=fitted)
    return Unit(row["corpus"], row["family"], model=", ".join(part for part in (row["model"], fitted) if part))


def lognormal_preferred(row: Mapping) -> bool:
    """Whether one model's fitted lognormal describes its ranks (A5.1-A5.4): not degenerate, preferred to
    the power law by Vuong's test (z > 0, p < ``A5_VUONG_P``) and within ``A5_MAX_KS`` of the data's CDF.

    Parameters
    ----------
    row : mapping
        One row of ``RankEvidence.fits``: ``"degenerate"`` (str, "" for a usable fit), ``"Vuong z"``,
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


def _lognormal_ours(chosen: pd.DataFrame, form: str, by: str) -> str:
    """What A5.1-A5.4 measured: Vuong wins per ``by`` group, the KS distances, mass beyond V, degenerate fits."""
    wins = (chosen["Vuong z"] > 0) & (chosen["Vuong p"] < A5_VUONG_P)
    degenerate = (chosen["degenerate"] != "").sum()
    per = "; ".join(f"{name}: {w.sum()} of {len(w)}" for name, w in wins.groupby(chosen[by], sort=False))
    beyond = chosen["mass beyond V"].dropna()
    ks, ks_law = chosen["KS lognormal"], chosen["KS power law"]
    # mass beyond V under 0.05% would print as 0.0%: not worth a mention
    return (f"{A5_FORM_LABELS[form]}: lognormal preferred in {wins.sum()} of {len(wins)} model/corpus pairs ({per}; "
            f"Vuong z {bootstrap.span_or_dash(chosen['Vuong z'], '.1f')}); KS distance {ks.min():.3f}-"
            f"{ks.max():.3f} (power law {ks_law.min():.3f}-{ks_law.max():.3f}); KS within {A5_MAX_KS}: "
            f"{(ks <= A5_MAX_KS).sum()}"
            + (f"; fitted mass beyond the vocabulary up to {beyond.max():.1%}" if len(beyond) and beyond.max() >= 0.0005
               else "") + (f"; degenerate: {degenerate}" if degenerate else ""))


# The models each of A5.1-A5.4 grades, with the fit: the families' (A5.1), the references' (A5.2), or all
_LOGNORMAL = {"A5.1": ("powerlaw", "family"), "A5.2": ("powerlaw", REFERENCE), "A5.3": ("1..inf", "all"),
              "A5.4": ("1..V", "all")}


def lognormal_verdict(evidence: RankEvidence, context: Context, key: str) -> Verdict:
    """A5.1-A5.4: whether every model's ranks are lognormal under one fit (``lognormal_preferred``), one unit per
    corpus and model (``model_unit``).

    Parameters
    ----------
    evidence : RankEvidence
    context : Context
        Unused: a model's fit needs no size.
    key : str
        ``"A5.1"`` (the families' models, authors' fit), ``"A5.2"`` (the reference models, authors' fit; counted
        per model rather than per family), ``"A5.3"`` (every model, eq. 10 as written) or ``"A5.4"`` (every model,
        eq. 10 over 1..V).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    form, models = _LOGNORMAL[key]
    chosen = {"family": evidence.family_fits, REFERENCE: evidence.reference_fits, "all": evidence.fits}[models]
    chosen = chosen[chosen["fit"] == form]
    outcomes = {model_unit(r): lognormal_preferred(r) for r in chosen.to_dict("records")}
    ours = _lognormal_ours(chosen, form, "model" if models == REFERENCE else "family") if len(chosen) else ""
    return judge(key, outcomes, ours, why_not="this set has no reference model" if models == REFERENCE else "")


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


def size_units(evidence: RankEvidence, context: Context) -> list[tuple[str, str]]:
    """The (corpus, family) pairs a size claim is tested on: every corpus, the families with ``MIN_SIZES`` sizes."""
    return [(corpus, family) for corpus in evidence.corpora for family in context.usable()]


def _size_verdict(key: str, cases: Mapping[tuple[str, str], Reading], texts: Sequence[str], lead: str,
                  context: Context, paper: str | None = None, why_undetermined: str = ACROSS_EDGE) -> Verdict:
    """A size claim of A5: one Reading per (corpus, family), its texts after ``lead``, the families with too few
    sizes named as left out (as chapter A3 names them); ``why_undetermined`` where no unit decides (by default,
    that every interval crosses an edge of the closeness band)."""
    unusable = context.unusable()
    ours = lead + "; ".join(texts) + left_out(unusable) if texts else ""
    return judge(key, {Unit(*unit): ok for unit, ok in cases.items()}, ours, paper=paper,
                 why_not=no_family(unusable), why_undetermined=why_undetermined)


def pythia_laws(pythia: pd.DataFrame) -> dict[str, object]:
    """The authors' lognormal fits to Pythia (``PYTHIA``) read as the chapter reads its own: mu, sigma and
    mu/sigma against ln S (``fit.fit_semilog``), and the CE and -log p_1 appendix C's closed forms predict from
    them against S (``fit.fit_power_law``).

    Parameters
    ----------
    pythia : pandas.DataFrame
        ``non_embedding_params``, ``mu``, ``sigma``, one row per model, smallest first.

    Returns
    -------
    dict of str to fit
        Keys ``"mu"``, ``"sigma"``, ``"mu/sigma"`` (SemilogFit), ``"CE"`` and ``"-log p_1"`` (PowerLawFit).
    """
    sizes_ = pythia["non_embedding_params"].to_numpy(float)
    closed = np.array([[a.ce, a.neg_log_p1] for a in (appendix_c.approx(m, s)
                                                       for m, s in zip(pythia["mu"], pythia["sigma"]))])
    return {"mu": fit.fit_semilog(sizes_, pythia["mu"]), "sigma": fit.fit_semilog(sizes_, pythia["sigma"]),
            "mu/sigma": fit.fit_semilog(sizes_, pythia["mu"] / pythia["sigma"]),
            "CE": fit.fit_power_law(sizes_, closed[:, 0]), "-log p_1": fit.fit_power_law(sizes_, closed[:, 1])}


def pythia_summary(pythia: pd.DataFrame) -> dict[str, float]:
    """What the chapter says of the authors' Pythia fits (``PYTHIA``): mu and sigma at the smallest and the largest
    model (``mu_first``, ``mu_last``, ``sigma_first``, ``sigma_last``), the slopes on ln S of mu, sigma and
    mu/sigma (``mu_slope``, ``sigma_slope``, ``ratio_slope``) and the R^2 of the mu/sigma line (``ratio_r2``).

    >>> pythia = pd.DataFrame({"non_embedding_params": [1e6, 1e7, 1e8], "mu": [1.0, 0.0, -1.0], "sigma": 2.0})
    >>> round(pythia_summary(pythia)["ratio_slope"], 3)
    -0.217
    """
    laws = pythia_laws(pythia)
    summary = {"mu_first": pythia["mu"].iloc[0], "mu_last": pythia["mu"].iloc[-1], "mu_slope": laws["mu"].slope,
               "sigma_first": pythia["sigma"].iloc[0], "sigma_last": pythia["sigma"].iloc[-1],
               "sigma_slope": laws["sigma"].slope, "ratio_slope": laws["mu/sigma"].slope, "ratio_r2": laws["mu/sigma"].r2}
    return {name: float(value) for name, value in summary.items()}  # plain floats, which MyST-NB's glue can format


# Why A5.5 or A5.6 is undetermined where no unit decides it
ACROSS_ZERO = "in every unit a slope's interval crosses or touches 0"
ACROSS_BAR_OR_ZERO = (f"in every unit the interval of R^2 crosses {A5_MIN_R2} or the slope's crosses or touches 0, or "
                      "a replicate could not be fitted")


def mu_sigma_steady(trend: Mapping) -> Reading:
    """Whether mu/sigma changes steadily with size in one family (A5.5): the interval of its line's R^2 on ln S read
    against ``A5_MIN_R2``, and that of its slope against 0 in either direction (``read`` on the side of the fitted
    slope, the interval's middle: wholly on one side of 0 holds, across it undetermined), both of which must hold
    (``every``).

    Parameters
    ----------
    trend : mapping
        One row of ``RankEvidence.trends``: ``"R^2 of mu/sigma"``, ``"d mu/sigma / d ln S"`` and the intervals
        ``"R^2 of mu/sigma: low"``, ``": high"``, ``"mu/sigma: low"``, ``"mu/sigma: high"`` (NaN where not
        computed).

    Returns
    -------
    Reading
        Reading(None) where the line is not fitted; ``UNDETERMINED`` where it is but an interval is missing (a
        replicate could not be fitted).

    Examples
    --------
    >>> row = {"R^2 of mu/sigma": 0.95, "R^2 of mu/sigma: low": 0.92, "R^2 of mu/sigma: high": 0.98,
    ...        "d mu/sigma / d ln S": -0.2, "mu/sigma: low": -0.3, "mu/sigma: high": -0.1}
    >>> mu_sigma_steady(row).outcome, mu_sigma_steady({**row, "mu/sigma: high": 0.1}).outcome
    (True, 'undetermined')
    >>> mu_sigma_steady({**row, "R^2 of mu/sigma: low": 0.85}).outcome  # R^2 across the bar
    'undetermined'
    >>> mu_sigma_steady({**row, "R^2 of mu/sigma: low": 0.5, "R^2 of mu/sigma: high": 0.8}).outcome
    False
    >>> mu_sigma_steady({**row, "R^2 of mu/sigma": np.nan}), mu_sigma_steady({**row, "mu/sigma: low": np.nan}).outcome
    (Reading(outcome=None, fragile=False), 'undetermined')
    """
    if np.isnan(trend["R^2 of mu/sigma"]):
        return Reading(None)
    return every(read(_interval(trend, "R^2 of mu/sigma"), A5_MIN_R2, missing=UNDETERMINED),
                 read(_interval(trend, "mu/sigma"), 0.0, sign=1 if trend["d mu/sigma / d ln S"] > 0 else -1,
                      missing=UNDETERMINED))


def steady_verdict(evidence: RankEvidence, context: Context) -> Verdict:
    """A5.5: mu/sigma changes steadily with size, in every (corpus, family) of ``size_units`` (``mu_sigma_steady``);
    the paper column reads the authors' Pythia fits (``PYTHIA``) the same way.

    Parameters
    ----------
    evidence : RankEvidence
    context : Context
        Which families have enough sizes, and the table ``PYTHIA``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    rows = {unit: _unit_row(evidence.trends, *unit) for unit in size_units(evidence, context)}
    texts = [f"{Unit(*unit).label}: R^2 {r['R^2 of mu/sigma']:.3f} "
             f"{interval_text(_interval(r, 'R^2 of mu/sigma'), sign='')}, slope {r['d mu/sigma / d ln S']:.3f} "
             f"{interval_text(_interval(r, 'mu/sigma'), sign='')}" for unit, r in rows.items()]
    ratio = pythia_laws(context.table(PYTHIA))["mu/sigma"]
    return _size_verdict("A5.5", {unit: mu_sigma_steady(r) for unit, r in rows.items()}, texts,
                         "authors' fits, mu/sigma against ln S: ", context,
                         paper=f"Pythia (authors' fits): R^2 {ratio.r2:.3f}, slope {ratio.slope:.3f} per ln S",
                         why_undetermined=ACROSS_BAR_OR_ZERO)


def mu_falls_sigma_mildly(trend: Mapping) -> Reading:
    """Whether mu falls while sigma rises by less (A5.6): the slope intervals on ln S of mu, sigma and
    mu + sigma, each read against 0 (``read``) on its claimed side, below, above and below, all of which must hold
    (``every``).

    Parameters
    ----------
    trend : mapping
        One row of ``RankEvidence.trends``: ``"<name>: low"`` and ``"<name>: high"`` for ``name`` in mu, sigma,
        mu + sigma (NaN where not computed).

    Returns
    -------
    Reading
        Reading(None) where an interval is missing.

    Examples
    --------
    >>> trend = {"mu: low": -2.0, "mu: high": -1.0, "sigma: low": 0.1, "sigma: high": 0.3,
    ...          "mu + sigma: low": -1.9, "mu + sigma: high": -0.7}
    >>> [mu_falls_sigma_mildly({**trend, **more}).outcome for more in ({}, {"sigma: low": -0.1},
    ...                                                                 {"sigma: low": -0.3, "sigma: high": -0.1})]
    [True, 'undetermined', False]
    """
    return every(*(read(_interval(trend, name), 0.0, sign) for name, sign in (("mu", -1), ("sigma", 1),
                                                                              ("mu + sigma", -1))))


def drift_verdict(evidence: RankEvidence, context: Context) -> Verdict:
    """A5.6: mu falls and sigma grows only mildly with size, in every (corpus, family) of ``size_units``
    (``mu_falls_sigma_mildly``).

    Parameters
    ----------
    evidence, context
        As in ``steady_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    rows = {unit: _unit_row(evidence.trends, *unit) for unit in size_units(evidence, context)}
    texts = [f"{Unit(*unit).label}: d mu {r['d mu / d ln S']:.3f} [{r['mu: low']:.3f}, {r['mu: high']:.3f}], d sigma "
             f"{r['d sigma / d ln S']:.3f} [{r['sigma: low']:.3f}, {r['sigma: high']:.3f}]" for unit, r in rows.items()]
    laws = pythia_laws(context.table(PYTHIA))
    return _size_verdict("A5.6", {unit: mu_falls_sigma_mildly(r) for unit, r in rows.items()}, texts,
                         "authors' fits, per ln S: ", context,
                         paper=f"Pythia (authors' fits): d mu {laws['mu'].slope:.3f}, d sigma {laws['sigma'].slope:.3f} "
                               f"per ln S", why_undetermined=ACROSS_ZERO)


def shared_exponent(slopes: Mapping) -> Reading:
    """Whether CE and -log p_1 share their exponent in one family (A5.8-A5.10): both are falling power laws with
    R^2 >= ``A5_MIN_R2``, each read on the intervals of its R^2 and slope (``law_reading``), and the interval of
    slope(-log p_1) / slope(CE) read by ``close``, all of which must hold (``every``); a failed law fails whatever
    the ratio's interval.

    Parameters
    ----------
    slopes : mapping
        One row of ``RankEvidence.slopes``: ``"R^2 CE"`` and ``"R^2 -log p_1"`` (NaN where not fitted), and the
        intervals ``"<name>: low"``, ``"<name>: high"`` of ``R^2 CE``, ``slope CE``, ``R^2 -log p_1``,
        ``slope -log p_1`` and ``ratio`` (NaN where a replicate could not be fitted).

    Returns
    -------
    Reading
        Reading(None) where a law is not fitted; ``UNDETERMINED`` where both are but an interval is missing. A
        failed law is never named at the band's edge (the ratio's interval does not decide it).

    Examples
    --------
    >>> row = {"R^2 CE": 0.99, "R^2 -log p_1": 0.95, "ratio: low": 1.1, "ratio: high": 1.3}
    >>> for name, (low, high) in {"R^2 CE": (0.98, 1.0), "R^2 -log p_1": (0.93, 0.97), "slope CE": (-0.11, -0.09),
    ...                           "slope -log p_1": (-0.13, -0.11)}.items():
    ...     row |= {f"{name}: low": low, f"{name}: high": high}
    >>> shared_exponent(row).outcome, shared_exponent({**row, "ratio: low": 1.4, "ratio: high": 1.6}).outcome
    (True, False)
    >>> [shared_exponent({**row, **more}).outcome for more in ({"ratio: high": 1.4}, {"R^2 -log p_1: low": 0.85})]
    ['undetermined', 'undetermined']
    >>> shared_exponent({**row, "R^2 -log p_1: low": 0.5, "R^2 -log p_1: high": 0.8, "ratio: high": 1.4})
    Reading(outcome=False, fragile=False)
    """
    if np.isnan(slopes["R^2 CE"]) or np.isnan(slopes["R^2 -log p_1"]):
        return Reading(None)
    laws = every(*(law_reading(_interval(slopes, f"R^2 {name}"), _interval(slopes, f"slope {name}"), A5_MIN_R2)
                   for name in ("CE", "-log p_1")))
    if laws.outcome is False:
        return laws  # no shared law, whatever the ratio's interval, and not named at the band's edge for it
    bounds = _interval(slopes, "ratio")
    return every(laws, close(bounds) if bounds is not None else Reading(UNDETERMINED))


def shared_text(slopes: pd.DataFrame, version: str, units: Sequence[tuple[str, str]]) -> str:
    """The slopes of CE and -log p_1 and their ratio, per (corpus, family), of one version: what A5.8-A5.10 show,
    and what the chapter shows of the measured version (graded as A3.5).

    Parameters
    ----------
    slopes : pandas.DataFrame
        ``RankEvidence.slopes``.
    version : str
        A key of ``VERSIONS``.
    units : sequence of (str, str)
        The (corpus, family) pairs shown.

    Returns
    -------
    str

    Examples
    --------
    >>> row = {"corpus": "c", "family": "F", "version": "measured", "ratio p_1/CE": 1.0, "ratio: low": 0.9,
    ...        "ratio: high": 1.1}
    >>> for name in ("CE", "-log p_1"):
    ...     row |= {f"slope {name}": -0.1, f"slope {name}: low": -0.12, f"slope {name}: high": -0.08,
    ...             f"R^2 {name}": 0.99, f"R^2 {name}: low": np.nan, f"R^2 {name}: high": np.nan}
    >>> text = shared_text(pd.DataFrame([row]), "measured", [("c", "F")])
    >>> text[:text.index(", p_1")], text[text.index("ratio"):]  # an R^2 without an interval: a replicate unfitted
    ('measured: c/F: slopes CE -0.100 [-0.120, -0.080] (R^2 0.990 [—])', 'ratio 1.00 [0.90, 1.10]')
    """
    return ("measured" if version == "measured" else A5_FORM_LABELS[version]) + ": " + "; ".join(
        _shared_part(_unit_row(slopes, *unit, version=version), unit) for unit in units)


def _shared_part(r: Mapping, unit: tuple[str, str]) -> str:
    """One unit of ``shared_text``: each series' slope and R^2 with their intervals, and the ratio with its."""
    bounds = _interval(r, "ratio")
    laws = [f"{short} {r[f'slope {name}']:.3f} {interval_text(_interval(r, f'slope {name}'), sign='')} (R^2 "
            f"{r[f'R^2 {name}']:.3f} {interval_text(_interval(r, f'R^2 {name}'), sign='')})"
            for name, short in (("CE", "CE"), ("-log p_1", "p_1"))]
    return (f"{Unit(*unit).label}: slopes {', '.join(laws)}, ratio {r['ratio p_1/CE']:.2f}"
            + (f" [{bounds[0]:.2f}, {bounds[1]:.2f}]" if bounds else " (no interval)"))


def shared_verdict(evidence: RankEvidence, context: Context, form: str) -> Verdict:
    """A5.8-A5.10: CE and -log p_1 predicted by one fit share their exponent in every (corpus, family) of
    ``size_units`` (``shared_exponent``); the measured version is A3.5. A5.8's paper column reads the authors'
    Pythia fits (``PYTHIA``) through the same closed forms.

    Parameters
    ----------
    evidence, context
        As in ``steady_verdict``.
    form : str
        ``"powerlaw"`` (A5.8), ``"1..inf"`` (A5.9) or ``"1..V"`` (A5.10).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    units = size_units(evidence, context)
    rows = {unit: _unit_row(evidence.slopes, *unit, version=form) for unit in units}
    paper = None
    if form == "powerlaw":
        laws = pythia_laws(context.table(PYTHIA))
        ce, p1 = laws["CE"].slope, laws["-log p_1"].slope
        paper = f"Pythia, authors' fits: slopes CE {ce:.3f}, -log p_1 {p1:.3f}, ratio {p1 / ce:.2f}"
    return _size_verdict(_SHARED_KEYS[form], {unit: shared_exponent(r) for unit, r in rows.items()},
                         [_shared_part(r, unit) for unit, r in rows.items()], A5_FORM_LABELS[form] + ": ", context,
                         paper, why_undetermined=f"in every unit an interval crosses its threshold (R^2's {A5_MIN_R2}, "
                                                 f"a slope's 0, the ratio's an edge of the closeness band "
                                                 f"[{A_CLOSE[0]}, {A_CLOSE[1]}]), or a replicate could not be fitted")


def exponents_match(slopes: Mapping) -> Reading:
    """Whether one fit's predicted exponents match the measured ones in one family (A5.11-A5.13): the
    intervals of slope(predicted) / slope(measured), of CE and of -log p_1, read together by ``close``.

    Parameters
    ----------
    slopes : mapping
        One row of ``RankEvidence.slopes``: ``"CE pred/meas: low"``, ``"CE pred/meas: high"``,
        ``"p_1 pred/meas: low"``, ``"p_1 pred/meas: high"`` (NaN where not computed).

    Returns
    -------
    Reading
        Reading(None) where an interval is missing.

    Examples
    --------
    >>> row = {"CE pred/meas: low": 0.8, "CE pred/meas: high": 0.9, "p_1 pred/meas: low": 1.1,
    ...        "p_1 pred/meas: high": 1.3}
    >>> exponents_match(row).outcome, exponents_match({**row, "CE pred/meas: high": 0.7, "CE pred/meas: low": 0.6}).outcome
    (True, False)
    >>> exponents_match({**row, "p_1 pred/meas: high": 1.4})
    Reading(outcome='undetermined', fragile=False)
    """
    return close(_interval(slopes, "CE pred/meas"), _interval(slopes, "p_1 pred/meas"))


def pythia_measured(table1: pd.DataFrame) -> dict[str, float]:
    """Paper A's measured slopes of CE and -log RBP_1 for Pythia on Wikipedia (Table 1, ``TABLE1``)."""
    rows = table1[(table1["dataset"] == "Wikipedia") & (table1["family"] == "Pythia")]
    return {m: float(rows.loc[rows["metric"] == m, "slope"].iloc[0]) for m in ("CE", "-log RBP_1")}


def match_verdict(evidence: RankEvidence, context: Context, form: str) -> Verdict:
    """A5.11-A5.13: the exponents one fit predicts match the measured ones in every (corpus, family) of
    ``size_units`` (``exponents_match``). A5.11's paper column sets the authors' Pythia fits (``PYTHIA``) against
    the paper's measured slopes (``TABLE1``).

    Parameters
    ----------
    evidence, context
        As in ``steady_verdict``; the context also brings ``TABLE1``.
    form : str
        ``"powerlaw"`` (A5.11), ``"1..inf"`` (A5.12) or ``"1..V"`` (A5.13).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    rows = {unit: _unit_row(evidence.slopes, *unit, version=form) for unit in size_units(evidence, context)}
    texts = []
    for unit, r in rows.items():
        ce, p1 = _interval(r, "CE pred/meas"), _interval(r, "p_1 pred/meas")
        texts.append(f"{Unit(*unit).label}: CE " + (f"[{ce[0]:.2f}, {ce[1]:.2f}]" if ce else "(no interval)")
                     + ", p_1 " + (f"[{p1[0]:.2f}, {p1[1]:.2f}]" if p1 else "(no interval)"))
    paper = None
    if form == "powerlaw":
        laws, measured = pythia_laws(context.table(PYTHIA)), pythia_measured(context.table(TABLE1))
        paper = (f"Pythia on Wikipedia, authors' fits against Table 1: CE {laws['CE'].slope / measured['CE']:.2f}, "
                 f"-log p_1 {laws['-log p_1'].slope / measured['-log RBP_1']:.2f}")
    return _size_verdict(_MATCH_KEYS[form], {unit: exponents_match(r) for unit, r in rows.items()}, texts,
                         "predicted/measured slope ", context, paper)


# The claim that grades each version of the shared exponent (A5.8-A5.10) and of the match (A5.11-A5.13)
# (the measured version, slope(-log RBP_1) / slope(CE), is chapter A3's A3.5: the same ratio on the same data)
_SHARED_KEYS = {"powerlaw": "A5.8", "1..inf": "A5.9", "1..V": "A5.10"}
_MATCH_KEYS = {"powerlaw": "A5.11", "1..inf": "A5.12", "1..V": "A5.13"}


def accurate(error: float) -> bool | None:
    """Whether a relative error is within ``A5_APPROX_TOLERANCE`` (A5.14, A5.15, A5.17); None where it is NaN
    (undefined: the unit cannot test it).

    >>> accurate(0.05), accurate(-0.06), accurate(float("nan"))
    (True, False, None)
    """
    return None if np.isnan(error) else bool(abs(error) <= A5_APPROX_TOLERANCE)


def approximations_verdict(evidence: RankEvidence, context: Context) -> Verdict:
    """A5.14: appendix C's approximations are within ``A5_APPROX_TOLERANCE`` at every fitted (mu, sigma)
    (``RankEvidence.approximations``, one unit per fit).

    Parameters
    ----------
    evidence : RankEvidence
    context : Context
        Unused: an approximation's accuracy depends on (mu, sigma) alone.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    errors = evidence.approximations
    outcomes = {unit: accurate(err) for unit, err in errors.items()}
    ours = (f"worst relative error of CE or -log p_1 {np.nanmax(list(errors.values())):.1%}; "
            f"{sum(ok is True for ok in outcomes.values())} of {len(outcomes)} fits within "
            f"{A5_APPROX_TOLERANCE:.0%}" if errors else "")
    return judge("A5.14", outcomes, ours, why_not="every fit is degenerate")


def vocabulary_bound_verdict(evidence: RankEvidence, context: Context) -> Verdict:
    """A5.15: CE predicted by eq. 21 from the eq. 10 fit is within ``A5_APPROX_TOLERANCE`` of the 1..V fit's exact
    entropy, model by model (a model with a degenerate fit cannot test it).

    Parameters
    ----------
    evidence, context
        As in ``approximations_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    predicted = evidence.fits.pivot(index=["corpus", "family", "model"], columns="fit", values="CE predicted")
    gap = (predicted["1..inf"] / predicted["1..V"] - 1).abs()
    outcomes = {model_unit(dict(zip(("corpus", "family", "model"), key))): accurate(g) for key, g in gap.items()}
    ours = (f"|CE(eq. 21, eq. 10 fit) / CE(1..V fit, exact) - 1| from {gap.min():.1%} to {gap.max():.1%}"
            if gap.notna().any() else "")
    return judge("A5.15", outcomes, ours, why_not="every fit is degenerate")


def log_c_dominates(ce: float, log_c: float) -> bool:
    """Whether log c is most of CE (A5.16): |CE - log c| <= |CE| / 2.

    >>> log_c_dominates(2.0, 1.5), log_c_dominates(2.0, 0.5)
    (True, False)
    """
    return bool(abs(ce - log_c) <= abs(ce) / 2)


MU_PATH = Unit(model="mu path")  # A5.16's one unit: a path of (mu, sigma), of no corpus and no family


def dominance_verdict(evidence: RankEvidence, context: Context) -> Verdict:
    """A5.16: at the last mu of ``A5_DOMINANCE_MUS`` log c is the dominant part of CE (``log_c_dominates``).

    Parameters
    ----------
    evidence, context
        As in ``approximations_verdict``; the evidence's ``path`` is read.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    end = evidence.path[-1] if evidence.path else None
    ours = (f"at mu = {end.mu:g}, sigma = {end.sigma:.2f}: log c = {end.log_c:.1f}, mu^2/(2 sigma^2) = "
            f"{end.mu**2 / (2 * end.sigma**2):.1f}, CE = {end.ce:.2f}" if end else "")
    return judge("A5.16", {MU_PATH: None if end is None else log_c_dominates(end.ce, end.log_c)}, ours,
                 why_not="no family fit to take sigma from")


def predicts_ee_verdict(evidence: RankEvidence, context: Context) -> Verdict:
    """A5.17: model by model, the CE predicted by the authors' fit (eq. 21) is within ``A5_APPROX_TOLERANCE`` of the
    measured error entropy (a degenerate fit cannot test it).

    Parameters
    ----------
    evidence, context
        As in ``approximations_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    joined = evidence.joined
    rows = joined[joined["fit"] == "powerlaw"]
    to_ee = rows["CE predicted"] / rows["rank entropy measured"] - 1
    to_ce = rows["CE predicted"] / rows["CE measured"] - 1
    outcomes = {model_unit(r): accurate(gap) for r, gap in zip(rows.to_dict("records"), to_ee)}
    ours = (f"CE predicted / EE measured - 1 from {to_ee.min():.1%} to {to_ee.max():.1%} "
            f"({sum(ok is True for ok in outcomes.values())} of {to_ee.notna().sum()} within {A5_APPROX_TOLERANCE:.0%}); "
            f"CE predicted / CE measured - 1 from {to_ce.min():.1%} to {to_ce.max():.1%}" if to_ee.notna().any() else "")
    return judge("A5.17", outcomes, ours, why_not="every fit is degenerate")


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {**{key: partial(lognormal_verdict, key=key) for key in _LOGNORMAL}, "A5.5": steady_verdict,
         "A5.6": drift_verdict,
         **{key: partial(shared_verdict, form=form) for key, form in zip(("A5.8", "A5.9", "A5.10"), FORMS)},
         **{key: partial(match_verdict, form=form) for key, form in zip(("A5.11", "A5.12", "A5.13"), FORMS)},
         "A5.14": approximations_verdict, "A5.15": vocabulary_bound_verdict, "A5.16": dominance_verdict,
         "A5.17": predicts_ee_verdict}


SPEC = ChapterSpec("A5", CLAIMS_A5, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables and texts, and its headline for the findings

def reference_text(chapter: Chapter) -> str:
    """Who the set's reference models are (name, size, vocabulary against the families', precision, the set's
    note on it), in Markdown, pointing to their figure (``fig-a5-reference``); a sentence saying there is none where
    the set has none.

    Parameters
    ----------
    chapter : Chapter
        With its reference runs loaded.

    Returns
    -------
    str
    """
    references = chapter.reference_runs[chapter.corpora[0]]
    if not references:
        return ("This model set has no reference model, so no real pretrained model's rank distribution is shown "
                "beside the families, and the claim about it is not testable on this set. A set with a "
                "`[[references]]` entry (the built-in `tiny` set has one) shows it here.")
    family_vocab = ", ".join(f"{family} {members[0].vocab_size:,}"
                             for family, members in by_family(chapter.family_runs[chapter.corpora[0]]).items())
    return "\n\n".join(
        f"**Reference model: {run.name}** ({run.non_embedding:,} non-embedding parameters; vocabulary "
        f"{run.vocab_size:,} tokens, against {family_vocab} for the families; weights read as "
        f"{run.records.manifest.identity['dtype']}): {run.note or 'the model set gives no description'}."
        for run in references) + "\n\n{numref}`fig-a5-reference` shows the reference models' rank distributions and fits."


def reference_summary(evidence: RankEvidence) -> str:
    """The reference models' fits over the corpora, one Markdown list item per form, after the share of
    targets they rank first; "" where the set has no reference model.

    Parameters
    ----------
    evidence : RankEvidence

    Returns
    -------
    str
    """
    fits = evidence.reference_fits
    if not len(fits):
        return ""
    lines = []
    for form in FORMS:
        sel = fits[fits["fit"] == form]
        fine = sel[sel["degenerate"] == ""]
        why = sel.loc[sel["degenerate"] != "", "degenerate"]
        lines.append(
            f"- {A5_FORM_LABELS[form]}: "
            + (f"degenerate on {len(why)} of {len(sel)} model/corpus pairs ({why.iloc[0]}); " if len(why) else "")
            + (f"$\\mu$ {bootstrap.span(fine['mu'], '.2f')}, $\\sigma$ {bootstrap.span(fine['sigma'], '.2f')}; " if len(fine) else "")
            + f"Vuong $z$ {bootstrap.span_or_dash(sel['Vuong z'], '.1f')}, KS distance {bootstrap.span(sel['KS lognormal'], '.3f')} "
              f"(power law {bootstrap.span(sel['KS power law'], '.3f')}).")
    share = pd.Series([m.counts[1] / m.counts.sum() for key, m in evidence.rank_fits.items() if key[1] is None])
    return (f"The reference models rank {bootstrap.span(share * 100, '.0f')}% of targets first. Over the corpora, their "
            "three fits:\n\n" + "\n".join(lines))


def map_grid(fits: pd.DataFrame, mu_range: Sequence[float], sigma_range: Sequence[float],
             points: int) -> tuple[np.ndarray, np.ndarray]:
    """The (mu, sigma) grid of the appendix-C maps: ``mu_range`` and ``sigma_range`` widened to take in every
    non-degenerate unbounded fit (``unbounded``).

    Parameters
    ----------
    fits : pandas.DataFrame
        ``RankEvidence.fits``.
    mu_range, sigma_range : (float, float)
        The least each axis spans.
    points : int
        Grid points per axis.

    Returns
    -------
    mus, sigmas : ndarray of shape (points,)

    Examples
    --------
    >>> fits = pd.DataFrame({"fit": ["powerlaw"], "degenerate": [""], "mu": [-20.0], "sigma": [8.0]})
    >>> [(float(a[0]), float(a[-1])) for a in map_grid(fits, (-16.0, 8.0), (0.5, 7.0), 3)]
    [(-21.0, 8.0), (0.5, 8.8)]
    """
    shown = unbounded(fits)
    mu_lo, mu_hi = min(mu_range[0], shown["mu"].min() - 1), max(mu_range[1], shown["mu"].max() + 1)
    sigma_lo = min(sigma_range[0], shown["sigma"].min() * 0.9)
    sigma_hi = max(sigma_range[1], shown["sigma"].max() * 1.1)
    return np.linspace(mu_lo, mu_hi, points), np.linspace(sigma_lo, sigma_hi, points)


def _log_ratio_error(log_approx: float, log_exact: float) -> float:
    """exp(log_approx - log_exact) - 1, capped short of overflow: the relative error of a sum kept as its log."""
    return np.expm1(min(log_approx - log_exact, 700.0))


# Each approximation of appendix C (the maps' titles, with the equation) and its relative error from the exact and
# the approximate sums at one (mu, sigma)
APPROXIMATIONS = {
    "$c$ (eq. 20)": lambda e, a: _log_ratio_error(a.log_c, e.log_c),
    r"$\sum \psi(k) \ln k \approx I_1$ (eq. 14)": lambda e, a: _log_ratio_error(a.log_s1, e.log_s1),
    r"$\sum \psi(k) \ln^2 k \approx I_2$ (eq. 15)": lambda e, a: _log_ratio_error(a.log_s2, e.log_s2),
    r"$-\log p_1$ (eqs. 16, 20)": lambda e, a: relative_error(a.neg_log_p1, e.neg_log_p1),
    "CE (eq. 21)": lambda e, a: relative_error(a.ce, e.ce),
}


def approximation_grid(mus: np.ndarray, sigmas: np.ndarray) -> tuple[dict[str, np.ndarray], float]:
    """Every approximation of appendix C against the exact sums over a (mu, sigma) grid, and how far eq. 18
    (with the integrals) is from eq. 21 over it (they should agree exactly).

    Parameters
    ----------
    mus : ndarray of shape (m,)
    sigmas : ndarray of shape (s,)

    Returns
    -------
    errors : dict of str to ndarray of shape (s, m)
        Per approximation (``APPROXIMATIONS``), its relative error; NaN where undefined.
    eq18_gap : float
        The largest |eq. 18 - eq. 21| over the grid, in nats.
    """
    exact = [[appendix_c.exact(m, s) for m in mus] for s in sigmas]
    approx = [[appendix_c.approx(m, s) for m in mus] for s in sigmas]
    with np.errstate(invalid="ignore", over="ignore"):
        errors = {name: np.array([[error(e, a) for e, a in zip(erow, arow)] for erow, arow in zip(exact, approx)])
                  for name, error in APPROXIMATIONS.items()}
    gap = max(abs(appendix_c.ce_from_sums(a.mu, a.sigma, a.log_c, a.log_s1, a.log_s2) - a.ce)
              for row in approx for a in row)
    return errors, float(gap)


def dominance_table(evidence: RankEvidence) -> pd.DataFrame:
    """Appendix C's split of CE (eq. 26) along ``RankEvidence.path``: each term, CE and -log p_1 per mu."""
    return pd.DataFrame([{"mu": p.mu, "sigma": p.sigma, **p.ce_terms(), "CE": p.ce, "-log p_1": p.neg_log_p1}
                         for p in evidence.path])


def fig8a_text(evidence: RankEvidence, context: Context) -> str:
    """Fig. 8a's measured ratio of slopes (graded once, as A3.5) beside the range of paper A's Table 1 (``TABLE1``)."""
    units = size_units(evidence, context)
    if not units:
        return "Fig. 8a, measured: no family has enough sizes (A3.5 in chapter A3)."
    ratio = table1_ratios(context.table(TABLE1))
    return (f"Fig. 8a, measured (graded once, as A3.5 in chapter A3): {shared_text(evidence.slopes, 'measured', units)}"
            f"; paper A's Table 1: ratio {ratio.min():.2f}-{ratio.max():.2f} over {len(ratio)} data-set/family pairs.")


# The claims of Fig. 8 that depend on the fit, each with its claim under each form of FORMS
BY_FIT = {"Fig. 8c: the families' ranks are lognormal": ("A5.1", "A5.3", "A5.4"),
          "Fig. 8b: predicted CE and -log p_1 share the exponent": ("A5.8", "A5.9", "A5.10"),
          "Figs. 8a-8b: predicted exponents match the measured ones": ("A5.11", "A5.12", "A5.13")}


def verdicts_by_fit(verdicts: Sequence[Verdict]) -> pd.DataFrame:
    """The verdict of each claim of ``BY_FIT`` (rows) under each of the three fits (columns, ``A5_FORM_LABELS``)."""
    by_key = {v.key: v.verdict for v in verdicts}
    return pd.DataFrame([{"claim": claim, **{A5_FORM_LABELS[form]: by_key[key] for form, key in zip(FORMS, keys)}}
                         for claim, keys in BY_FIT.items()])


CONTRAST = ("d_mu", "d_sigma", "beyond_authors", "beyond_eq10", "beyond_max", "sigma_1V", "sigma_eq10", "mu_1V",
            "mu_eq10")  # what ``form_contrast`` measures, by name


def form_contrast(evidence: RankEvidence) -> dict[str, float]:
    """How the three fits of the families' models differ: the largest gaps in mu and sigma between the authors'
    fit and eq. 10 as written (``d_mu``, ``d_sigma``), the median mass each unbounded fit puts beyond the
    vocabulary (``beyond_authors``, ``beyond_eq10``) and the largest (``beyond_max``), and the median sigma and
    mu of the 1..V fit against eq. 10 as written (``sigma_1V``, ``sigma_eq10``, ``mu_1V``, ``mu_eq10``).

    Returns
    -------
    dict of str to float
        By the names of ``CONTRAST``; all NaN where every fit of some form is degenerate.

    Examples
    --------
    >>> fits = pd.DataFrame({"corpus": "c", "family": "F", "model": "m", "fit": ["powerlaw", "1..inf", "1..V"],
    ...                      "mu": [1.0, 1.5, 3.0], "sigma": [2.0, 2.25, 4.0], "mass beyond V": [0.1, 0.2, np.nan]})
    >>> contrast = form_contrast(RankEvidence((), (), pd.DataFrame(), fits, {}, pd.DataFrame(), pd.DataFrame(), {}, {}))
    >>> contrast["d_mu"], contrast["beyond_max"], contrast["sigma_1V"]
    (0.5, 0.2, 4.0)
    """
    fine = evidence.family_fits.pivot(index=["corpus", "family", "model"], columns="fit",
                                      values=["mu", "sigma", "mass beyond V"])
    if not len(fine) or not all(form in fine["mu"] and fine["mu"][form].notna().any() for form in FORMS):
        return dict.fromkeys(CONTRAST, np.nan)
    beyond = fine["mass beyond V"]
    contrast = {"d_mu": (fine["mu"]["powerlaw"] - fine["mu"]["1..inf"]).abs().max(),
                "d_sigma": (fine["sigma"]["powerlaw"] - fine["sigma"]["1..inf"]).abs().max(),
                "beyond_authors": beyond["powerlaw"].median(), "beyond_eq10": beyond["1..inf"].median(),
                "beyond_max": beyond[["powerlaw", "1..inf"]].max().max(),
                "sigma_1V": fine["sigma"]["1..V"].median(), "sigma_eq10": fine["sigma"]["1..inf"].median(),
                "mu_1V": fine["mu"]["1..V"].median(), "mu_eq10": fine["mu"]["1..inf"].median()}
    return {name: float(value) for name, value in contrast.items()}  # plain floats, which MyST-NB's glue can format


def headline(evidence: RankEvidence) -> list[str]:
    """The chapter's measured lines for the findings: the range of mu/sigma and of the KS distance of the
    authors' fits over the families' models; none where there is no such fit."""
    authors = evidence.family_fits[evidence.family_fits["fit"] == "powerlaw"]
    if not len(authors):
        return []
    return [f"The authors' lognormal fit gives μ/σ from {authors['mu/sigma'].min():.2f} to "
            f"{authors['mu/sigma'].max():.2f} over the family models, with a KS distance of "
            f"{authors['KS lognormal'].min():.3f} to {authors['KS lognormal'].max():.3f}."]
