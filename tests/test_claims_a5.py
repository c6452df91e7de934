"""Chapter A5 (``rankscale.claims.a5``): its thresholds where they are taken from the paper's own numbers; each
claim's rule made to hold, fail and stay undecided (or untested) on constructed evidence, read from the
verdicts' structured outcomes; its measure on small synthetic runs, checked against fits and bootstraps done by
hand; and its notebook, which explains and calls, but computes nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

from rankscale import claims
from rankscale.analysis import appendix_c, bootstrap, fit, metrics, rank_models
from rankscale.analysis.bootstrap import INTERVAL
from rankscale.claims import a2, a5
from rankscale.claims.base import ONE_READING, Reading, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.claims.reference import reference_table
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "a5_lognormal.py"
TABLES = {name: reference_table(name) for name in a5.TABLES}
NEOX = [Unit("pydocs", "NeoX"), Unit("stdlib", "NeoX")]
LOW, HIGH = claims.A_CLOSE


def context(**sizes):
    """A context of families with these sizes (default NeoX with five) and the papers' tables the rules read."""
    return Context(sizes or {"NeoX": 5}, n_boot=2, tables=TABLES)


def evidence(fits=None, trends=None, slopes=None, models=None, approximations=None, path=(),
             corpora=("pydocs", "stdlib")):
    """A5's evidence holding only what a rule reads."""
    empty = pd.DataFrame()
    return a5.RankEvidence(corpora, ("NeoX",), empty if models is None else models, empty if fits is None else fits,
                           {}, empty if trends is None else trends, empty if slopes is None else slopes, {},
                           approximations or {}, tuple(path))


def outcomes(verdict):
    """The verdict's outcome per unit, by its structured unit."""
    return dict(verdict.outcomes)


# ---------------------------------------------------------------------------------------------
# The thresholds and the claims

def test_closeness_band_is_the_range_of_paper_a_table_1():
    ratio = a5.table1_ratios(reference_table(a5.TABLE1))
    assert len(ratio) == 22
    assert np.floor(ratio.min() * 100) / 100 == LOW and np.ceil(ratio.max() * 100) / 100 == HIGH


def test_claims_are_indexed_with_rules_and_kinds():
    assert list(claims.CLAIMS_A5) == [f"A5.{i}" for i in (1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)]
    assert all(claim.kind in claims.KINDS and claim.rule for claim in claims.CLAIMS_A5.values())
    assert "A5.7" not in claims.CLAIMS, "one row for the measured ratio of slopes: A3.5"


def test_authors_pythia_fits_are_well_formed():
    pythia = reference_table(a5.PYTHIA)
    assert len(pythia) == 10 and (np.diff(pythia["non_embedding_params"]) > 0).all()
    assert (pythia["sigma"] > 0).all() and (np.diff(pythia["mu"]) < 0).all()


# ---------------------------------------------------------------------------------------------
# A5.1-A5.4: lognormal ranks

VUONG_WIN = {"degenerate": "", "Vuong z": 4.0, "Vuong p": 1e-4, "KS lognormal": 0.01}


def fit_rows(*models, form="powerlaw", family="NeoX", corpus="pydocs"):
    """Fits of one form: one row per (model, overrides of VUONG_WIN), plus the other forms' rows (which fail)
    so that a rule must select its form."""
    rows = []
    for name, changes in models:
        base = {"corpus": corpus, "family": family, "model": name, "S": 1e6, "V": 100, "KS power law": 0.2,
                "mass beyond V": 0.0001, "CE predicted": 3.0}
        rows.append({**base, **VUONG_WIN, **changes, "fit": form})
        rows += [{**base, **VUONG_WIN, "Vuong z": -1.0, "fit": other} for other in rank_models.FORMS if other != form]
    return pd.DataFrame(rows)


def test_lognormal_preferred_at_its_thresholds():
    assert a5.lognormal_preferred(VUONG_WIN)
    assert a5.lognormal_preferred({**VUONG_WIN, "KS lognormal": a5.A5_MAX_KS}), "the KS bound is inclusive"
    assert not a5.lognormal_preferred({**VUONG_WIN, "KS lognormal": a5.A5_MAX_KS + 1e-9})
    assert a5.lognormal_preferred({**VUONG_WIN, "Vuong p": a5.A5_VUONG_P - 1e-9})
    assert not a5.lognormal_preferred({**VUONG_WIN, "Vuong p": a5.A5_VUONG_P}), "p must be below the level"
    assert not a5.lognormal_preferred({**VUONG_WIN, "Vuong z": -4.0}), "a significant power law is no lognormal"
    assert not a5.lognormal_preferred({**VUONG_WIN, "degenerate": "median far below rank 1"})


def test_a5_1_to_a5_4_grade_every_model_of_their_fit():
    good, bad = ("m1", {}), ("m2", {"Vuong z": -2.0, "Vuong p": 0.01})
    v = a5.lognormal_verdict(evidence(fit_rows(good, ("m3", {}))), context(), "A5.1")
    assert (v.key, v.verdict) == ("A5.1", "reproduced")
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="m1"): "holds", Unit("pydocs", "NeoX", model="m3"): "holds"}
    assert v.ours == ("authors' fit (powerlaw package): lognormal preferred in 2 of 2 model/corpus pairs (NeoX: 2 of 2; "
                      "Vuong z 4.0); KS distance 0.010-0.010 (power law 0.200-0.200); KS within 0.05: 2")
    v = a5.lognormal_verdict(evidence(fit_rows(good, bad, form="1..V")), context(), "A5.4")
    assert (v.key, v.verdict, v.units_text) == ("A5.4", "partly", "1 of 2")
    assert outcomes(v)[Unit("pydocs", "NeoX", model="m2")] == "fails"
    degenerate = ("m3", {"degenerate": "heavy tail", "mass beyond V": np.nan, "Vuong z": np.nan, "Vuong p": np.nan})
    v = a5.lognormal_verdict(evidence(fit_rows(bad, degenerate, ("m4", {"mass beyond V": 0.2}), form="1..inf")),
                             context(), "A5.3")
    assert (v.key, v.verdict, v.units_text) == ("A5.3", "partly", "1 of 3"), "a degenerate fit fails; m4 holds"
    assert v.ours.endswith("; fitted mass beyond the vocabulary up to 20.0%; degenerate: 1")


def test_a5_2_grades_the_reference_models_alone():
    fits = pd.concat([fit_rows(("m1", {})), fit_rows(("Ref", {"Vuong z": -2.0}), family=a5.REFERENCE)])
    v = a5.lognormal_verdict(evidence(fits), context(), "A5.2")
    assert (v.key, v.verdict, outcomes(v)) == ("A5.2", "not reproduced", {Unit("pydocs", "Ref"): "fails"}), \
        "a reference model is a unit of its own family"
    assert "(Ref: 0 of 1;" in v.ours
    assert outcomes(a5.lognormal_verdict(evidence(fits), context(), "A5.1")) == {Unit("pydocs", "NeoX", model="m1"):
                                                                                 "holds"}
    v = a5.lognormal_verdict(evidence(fit_rows(("m1", {}))), context(), "A5.2")
    assert (v.verdict, v.ours, v.outcomes) == ("not testable on this set", "this set has no reference model", ())


# ---------------------------------------------------------------------------------------------
# A5.5-A5.6: how mu and sigma move with size

def trend(mu=(-2.0, -1.0), sigma=(0.1, 0.3), both=(-1.8, -0.8), ratio=(-0.5, -0.2), r2=0.95, r2_spread=0.02,
          corpus="pydocs", family="NeoX"):
    """A row of ``RankEvidence.trends``: the slopes' intervals as given (each slope their middle), R^2 with the
    interval r2 -+ r2_spread."""
    row = {"corpus": corpus, "family": family, "R^2 of mu/sigma": r2, "d mu/sigma / d ln S": sum(ratio) / 2,
           "d mu / d ln S": sum(mu) / 2, "d sigma / d ln S": sum(sigma) / 2}
    for name, (low, high) in (("mu", mu), ("sigma", sigma), ("mu + sigma", both), ("mu/sigma", ratio),
                              ("R^2 of mu/sigma", (r2 - r2_spread, r2 + r2_spread))):
        row |= {f"{name}: low": low, f"{name}: high": high}
    return row


def test_mu_sigma_steady_reads_r2s_interval_against_the_bar_and_the_slopes_against_zero():
    def steady(**kw):
        return a5.mu_sigma_steady(trend(**kw)).outcome

    assert steady() is True, "R^2 0.95 -+ 0.02 wholly above the bar, the slope's interval wholly below 0"
    assert steady(r2=0.8) is False, "R^2's interval wholly below the bar fails, whatever the slope's"
    assert steady(r2=0.8, ratio=(-0.2, 0.2)) is False
    assert steady(ratio=(1e-9, 0.2)) is True, "a rising ratio is steady too"
    assert steady(ratio=(0.0, 0.2)) == claims.UNDETERMINED, "an interval reaching 0 does not decide"
    assert steady(ratio=(-0.2, 0.1)) == claims.UNDETERMINED, "across 0: neither shown nor refuted"
    assert steady(r2=np.nan) is None
    assert steady(ratio=(np.nan, np.nan)) == claims.UNDETERMINED, "fitted, but a replicate could not be"


def test_mu_sigma_steady_is_undetermined_where_r2_is_above_the_bar_and_its_interval_across_it():
    def steady(**kw):
        return a5.mu_sigma_steady(trend(**kw)).outcome

    bar = a5.A5_MIN_R2
    assert steady(r2=0.92, r2_spread=0.05) == claims.UNDETERMINED, "0.92 >= 0.9 held under the point reading"
    assert steady(r2=bar, r2_spread=0.0) == claims.UNDETERMINED, "an interval touching the bar decides nothing"
    assert steady(r2=0.92, r2_spread=np.nan) == claims.UNDETERMINED, "a replicate without R^2"
    assert steady(r2=0.92, r2_spread=0.05, ratio=(-0.2, 0.1)) == claims.UNDETERMINED
    v = a5.steady_verdict(evidence(trends=pd.DataFrame([trend(), trend(corpus="stdlib", r2=0.92, r2_spread=0.05)])),
                          context())
    assert (v.verdict, outcomes(v), v.units_text) == ("reproduced", {NEOX[0]: "holds", NEOX[1]: "undetermined"},
                                                      "1 of 1, 1 of 2 decided")
    v = a5.steady_verdict(evidence(trends=pd.DataFrame([trend(r2=0.92, r2_spread=0.05)]), corpora=("pydocs",)),
                          context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", a5.ACROSS_BAR_OR_ZERO.split(";")[0])
    rule = claims.CLAIMS["A5.5"].rule
    assert INTERVAL in rule and ONE_READING in rule and "R^2 >=" not in rule


def test_mu_falls_sigma_mildly_needs_all_three_sides():
    def drifts(**kw):
        return a5.mu_falls_sigma_mildly(trend(**kw)).outcome

    assert drifts() is True
    assert drifts(mu=(-2.0, 0.0)) == claims.UNDETERMINED, "mu's interval reaching 0 does not decide"
    assert drifts(sigma=(-0.3, -0.1)) is False, "sigma must grow: wholly below 0 fails"
    assert drifts(sigma=(-0.1, 0.3)) == claims.UNDETERMINED, "sigma's interval across 0 does not decide"
    assert drifts(both=(0.1, 0.5)) is False, "sigma must rise by less than mu falls"
    assert drifts(both=(0.1, 0.5), sigma=(-0.1, 0.3)) is False, "one side wholly wrong fails, whatever the others"
    assert drifts(both=(np.nan, np.nan)) is None


def test_a5_5_and_a5_6_name_a_unit_whose_interval_ends_at_0():
    at_zero = (-0.3, -0.001)  # below 0, its upper end within the bootstrap's noise of it
    v = a5.steady_verdict(evidence(trends=pd.DataFrame([trend(ratio=at_zero)]), corpora=("pydocs",)), context())
    assert (outcomes(v), v.fragile) == ({NEOX[0]: "holds"}, (NEOX[0],))
    assert "at the edge of the threshold: pydocs/NeoX" in v.ours
    v = a5.drift_verdict(evidence(trends=pd.DataFrame([trend(mu=at_zero), trend(corpus="stdlib")])), context())
    assert (outcomes(v), v.fragile) == ({NEOX[0]: "holds", NEOX[1]: "holds"}, (NEOX[0],))
    v = a5.drift_verdict(evidence(trends=pd.DataFrame([trend(mu=(-0.3, 0.1))]), corpora=("pydocs",)), context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", a5.ACROSS_ZERO)


def test_a5_5_and_a5_6_per_corpus_and_family_with_the_pythia_fits_beside():
    trends = pd.DataFrame([trend(), trend(corpus="stdlib", r2=0.5, sigma=(-0.3, -0.1)),
                           trend(family="Llama", r2=0.1)])
    v = a5.steady_verdict(evidence(trends=trends), context(NeoX=5, Llama=2))
    assert (v.key, v.verdict, outcomes(v)) == ("A5.5", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"}), \
        "a family of two sizes is not graded"
    assert v.ours.startswith("authors' fits, mu/sigma against ln S: pydocs/NeoX: R^2 0.950 [0.930, 0.970], slope "
                             "-0.350 [-0.500, -0.200]; stdlib/NeoX: R^2 0.500 [0.480, 0.520]")
    assert v.ours.endswith("; left out: Llama: 2 sizes, fewer than 3")
    pythia = a5.pythia_laws(TABLES[a5.PYTHIA])["mu/sigma"]
    assert v.paper == f"Pythia (authors' fits): R^2 {pythia.r2:.3f}, slope {pythia.slope:.3f} per ln S"
    v = a5.drift_verdict(evidence(trends=trends), context())
    assert (v.key, v.verdict, outcomes(v)) == ("A5.6", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert "pydocs/NeoX: d mu -1.500 [-2.000, -1.000], d sigma 0.200 [0.100, 0.300]" in v.ours
    assert a5.drift_verdict(evidence(trends=trends, corpora=("pydocs",)), context()).verdict == "reproduced"
    v = a5.drift_verdict(evidence(trends=trends), context(NeoX=2))
    assert (v.verdict, v.ours, v.outcomes) == ("not testable on this set",
                                               "no family has 3 or more sizes (NeoX: 2 sizes, fewer than 3)", ())


def test_pythia_laws_are_the_authors_parameters_fitted_against_size():
    pythia = TABLES[a5.PYTHIA]
    laws = a5.pythia_laws(pythia)
    sizes = pythia["non_embedding_params"].to_numpy(float)
    assert laws["mu"].slope == pytest.approx(np.polyfit(np.log(sizes), pythia["mu"], 1)[0])
    closed = [appendix_c.approx(m, s).ce for m, s in zip(pythia["mu"], pythia["sigma"])]
    assert laws["CE"].slope == pytest.approx(np.polyfit(np.log(sizes), np.log(closed), 1)[0])
    summary = a5.pythia_summary(pythia)
    assert (summary["mu_first"], summary["ratio_r2"]) == (pythia["mu"].iloc[0], laws["mu/sigma"].r2)


# ---------------------------------------------------------------------------------------------
# A5.8-A5.13: the two scaling laws, predicted and measured

def slope_row(version="powerlaw", ratio=(0.9, 1.1), ce_match=(0.9, 1.1), p1_match=(0.9, 1.1), r2=(0.99, 0.99),
              slopes=(-0.1, -0.1), r2_spread=(0.005, 0.005), slope_spread=(0.01, 0.01), corpus="pydocs",
              family="NeoX"):
    """A row of ``RankEvidence.slopes``: the ratios' intervals as given, and the R^2 and slope of CE and of -log p_1
    (in this order) with the intervals value -+ spread."""
    row = {"corpus": corpus, "family": family, "version": version, "slope CE": slopes[0], "R^2 CE": r2[0],
           "slope -log p_1": slopes[1], "R^2 -log p_1": r2[1], "ratio p_1/CE": slopes[1] / slopes[0]}
    for name, (low, high) in (("ratio", ratio), ("CE pred/meas", ce_match), ("p_1 pred/meas", p1_match)):
        row |= {f"{name}: low": low, f"{name}: high": high}
    for i, series in enumerate(("CE", "-log p_1")):
        for name, value, spread in (("R^2", r2, r2_spread), ("slope", slopes, slope_spread)):
            row |= {f"{name} {series}: low": value[i] - spread[i], f"{name} {series}: high": value[i] + spread[i]}
    return row


def test_shared_exponent_reads_the_band_and_the_laws():
    def shared(**kw):
        return a5.shared_exponent(slope_row(**kw)).outcome

    assert shared() is True
    assert shared(ratio=(LOW, HIGH)) is True, "the band's edges belong to it"
    assert shared(ratio=(LOW - 0.3, LOW)) == claims.UNDETERMINED, "across an edge"
    assert shared(ratio=(LOW - 1e-9, HIGH)) == claims.UNDETERMINED
    assert shared(ratio=(LOW - 0.3, LOW - 1e-9)) is False, "wholly below the band"
    assert shared(ratio=(HIGH + 1e-9, HIGH + 0.3)) is False, "wholly above the band"
    assert shared(r2=(0.95, 0.99), r2_spread=(0.03, 0.005)) is True, "CE's R^2 interval [0.92, 0.98] above the bar"
    assert shared(r2=(0.99, 0.8)) is False, "-log p_1's R^2 interval wholly below the bar"
    assert shared(slopes=(0.1, 0.1)) is False, "rising series share no falling law"
    assert a5.shared_exponent(slope_row(slopes=(0.1, 0.1), ratio=(LOW - 0.001, 1.0))) == Reading(False), \
        "no law fails whatever the interval, and is not named at the band's edge"
    assert shared(r2=(np.nan, 0.99)) is None, "a series without a law cannot test it"
    assert shared(ratio=(np.nan, np.nan)) == claims.UNDETERMINED, "both fitted, but a replicate of the ratio not"
    assert a5.shared_exponent(slope_row(ratio=(LOW + 0.001, 1.0))) == Reading(True, fragile=True)


def test_shared_exponent_is_undetermined_where_an_r2_above_the_bar_has_its_interval_across_it():
    def shared(**kw):
        return a5.shared_exponent(slope_row(**kw)).outcome

    bar = a5.A5_MIN_R2
    assert shared(r2=(0.99, 0.92), r2_spread=(0.005, 0.05)) == claims.UNDETERMINED, \
        "-log p_1's R^2 0.92 held under the point reading; its interval [0.87, 0.97] crosses the bar"
    assert shared(r2=(bar, 0.99)) == claims.UNDETERMINED, "an interval of CE's R^2 across the bar"
    assert shared(r2_spread=(np.nan, 0.005)) == claims.UNDETERMINED, "a replicate without R^2"
    assert shared(slopes=(-0.1, -0.005)) == claims.UNDETERMINED, "-log p_1's slope -0.005 -+ 0.01 holds 0"
    assert shared(r2=(0.99, 0.92), r2_spread=(0.005, 0.05), ratio=(2.0, 3.0)) is False, \
        "a ratio wholly outside the band fails, whatever the laws' undecided parts"
    slopes = pd.DataFrame([slope_row(), slope_row(corpus="stdlib", r2=(0.99, 0.92), r2_spread=(0.005, 0.05))])
    v = a5.shared_verdict(evidence(slopes=slopes), context(), "powerlaw")
    assert (v.verdict, outcomes(v)) == ("reproduced", {NEOX[0]: "holds", NEOX[1]: "undetermined"})
    v = a5.shared_verdict(evidence(slopes=slopes.iloc[1:], corpora=("stdlib",)), context(), "powerlaw")
    assert v.verdict == "undetermined" and v.ours.startswith("in every unit an interval crosses its threshold")
    for key in ("A5.8", "A5.9", "A5.10"):
        rule = claims.CLAIMS[key].rule
        assert INTERVAL in rule and a2.law_rule(bar) in rule and "R^2 >=" not in rule, key


def test_a5_8_to_a5_10_grade_the_version_they_are_given():
    slopes = pd.DataFrame([slope_row(), slope_row("1..V", ratio=(2.0, 3.0)),
                           slope_row("1..V", corpus="stdlib"), slope_row(corpus="stdlib", ratio=(np.nan, np.nan)),
                           slope_row("1..inf", ratio=(1.2, 1.4)), slope_row("1..inf", corpus="stdlib")])
    v = a5.shared_verdict(evidence(slopes=slopes), context(), "powerlaw")
    assert (v.key, v.verdict, outcomes(v)) == ("A5.8", "reproduced", {NEOX[0]: "holds", NEOX[1]: "undetermined"}), \
        "measured, but the ratio of some replicate could not be computed"
    assert v.ours.endswith("stdlib/NeoX: slopes CE -0.100 [-0.110, -0.090] (R^2 0.990 [0.985, 0.995]), p_1 -0.100 "
                           "[-0.110, -0.090] (R^2 0.990 [0.985, 0.995]), ratio 1.00 (no interval) (undetermined on: "
                           "stdlib/NeoX)")
    assert v.paper.startswith("Pythia, authors' fits: slopes CE ")
    v = a5.shared_verdict(evidence(slopes=slopes), context(), "1..inf")
    assert (v.key, v.verdict, outcomes(v)) == ("A5.9", "reproduced", {NEOX[0]: "undetermined", NEOX[1]: "holds"})
    assert v.paper == claims.CLAIMS["A5.9"].paper
    assert a5.shared_verdict(evidence(slopes=slopes, corpora=("pydocs",)), context(), "1..inf").verdict == \
        "undetermined"
    v = a5.shared_verdict(evidence(slopes=slopes), context(), "1..V")
    assert (v.key, v.verdict, outcomes(v)) == ("A5.10", "partly", {NEOX[0]: "fails", NEOX[1]: "holds"})
    assert v.ours.startswith("eq. 10 over 1..V: pydocs/NeoX:")
    assert a5.shared_text(slopes.assign(version="measured"), "measured", [("pydocs", "NeoX")]).startswith(
        "measured: pydocs/NeoX: slopes CE -0.100")


def test_exponents_match_needs_both_ratios_in_the_band():
    def match(**kw):
        return a5.exponents_match(slope_row(**kw)).outcome

    assert match(ce_match=(LOW, HIGH)) is True
    assert match(ce_match=(HIGH, HIGH + 1.0)) == claims.UNDETERMINED
    assert match(ce_match=(HIGH + 1e-9, HIGH + 1.0)) is False
    assert match(ce_match=(HIGH + 1e-9, HIGH + 1.0), p1_match=(HIGH, HIGH + 1.0)) is False, "one ratio outside fails"
    assert match(p1_match=(0.1, LOW - 1e-9)) is False
    assert match(p1_match=(np.nan, np.nan)) is None
    v = a5.match_verdict(evidence(slopes=pd.DataFrame([slope_row(p1_match=(0.9, HIGH - 0.001))]), corpora=("pydocs",)), context(),
                         "powerlaw")
    assert (outcomes(v), v.fragile) == ({NEOX[0]: "holds"}, (NEOX[0],)), "an end at the band's edge is named"


def test_a5_11_to_a5_13_per_fit():
    slopes = pd.DataFrame([slope_row("powerlaw"), slope_row("1..inf", p1_match=(2.0, 2.5)),
                           slope_row("powerlaw", corpus="stdlib", ce_match=(0.1, 0.2))])
    v = a5.match_verdict(evidence(slopes=slopes), context(), "powerlaw")
    assert (v.key, v.verdict, outcomes(v)) == ("A5.11", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert v.ours == ("predicted/measured slope pydocs/NeoX: CE [0.90, 1.10], p_1 [0.90, 1.10]; stdlib/NeoX: CE "
                      "[0.10, 0.20], p_1 [0.90, 1.10]")
    measured = a5.pythia_measured(TABLES[a5.TABLE1])
    ce = a5.pythia_laws(TABLES[a5.PYTHIA])["CE"].slope
    assert v.paper.startswith(f"Pythia on Wikipedia, authors' fits against Table 1: CE {ce / measured['CE']:.2f}, ")
    v = a5.match_verdict(evidence(slopes=slopes, corpora=("pydocs",)), context(), "1..inf")
    assert (v.key, v.verdict, outcomes(v)) == ("A5.12", "not reproduced", {NEOX[0]: "fails"})
    v = a5.match_verdict(evidence(slopes=slopes), context(NeoX=1), "1..V")
    assert (v.key, v.verdict, v.outcomes) == ("A5.13", "not testable on this set", ())


# ---------------------------------------------------------------------------------------------
# A5.14-A5.17: appendix C, checked

def test_a5_14_approximations_at_the_tolerance():
    tol = a5.A5_APPROX_TOLERANCE
    a, b, c = (Unit("pydocs", "NeoX", model=f"{m}, authors' fit") for m in ("a", "b", "c"))
    v = a5.approximations_verdict(evidence(approximations={a: tol, b: 0.001}), context())
    assert (v.key, v.verdict, v.units_text) == ("A5.14", "reproduced", "2 of 2"), "an error of the tolerance is fine"
    v = a5.approximations_verdict(evidence(approximations={a: tol + 1e-9, b: 0.001, c: np.nan}), context())
    assert (v.verdict, outcomes(v)) == ("partly", {a: "fails", b: "holds", c: "untested"})
    assert v.ours.startswith("worst relative error of CE or -log p_1 5.0%; 1 of 3 fits within 5%")
    v = a5.approximations_verdict(evidence(), context())
    assert (v.verdict, v.ours) == ("not testable on this set", "every fit is degenerate")


def test_approximation_errors_are_appendix_c_against_the_exact_sums_at_each_unbounded_fit():
    fits = pd.DataFrame([{"corpus": "pydocs", "family": "NeoX", "model": "m", "fit": form, "degenerate": "",
                          "mu": 1.0, "sigma": 3.0} for form in rank_models.FORMS]
                        + [{"corpus": "pydocs", "family": a5.REFERENCE, "model": "Ref", "fit": "powerlaw",
                            "degenerate": "too far", "mu": np.nan, "sigma": np.nan}])
    errors = a5.approximation_errors(fits)
    exact, approx = appendix_c.exact(1.0, 3.0), appendix_c.approx(1.0, 3.0)
    by_hand = max(abs(approx.ce / exact.ce - 1), abs(approx.neg_log_p1 / exact.neg_log_p1 - 1))
    assert errors == {Unit("pydocs", "NeoX", model="m, authors' fit"): pytest.approx(by_hand),
                      Unit("pydocs", "NeoX", model="m, eq. 10 fit"): pytest.approx(by_hand)}, \
        "the 1..V fit and degenerate fits are not appendix C's"


def test_a5_15_vocabulary_bound_model_by_model():
    def bound(*pairs):
        rows = [{"corpus": "pydocs", "family": "NeoX", "model": f"m{i}", "fit": form, "CE predicted": ce}
                for i, pair in enumerate(pairs) for form, ce in zip(("1..inf", "1..V", "powerlaw"), (*pair, 9.0))]
        return a5.vocabulary_bound_verdict(evidence(pd.DataFrame(rows)), context())

    v = bound((1.049, 1.0), (0.951, 1.0))
    assert (v.key, v.verdict) == ("A5.15", "reproduced") and v.ours.endswith("from 4.9% to 4.9%")
    v = bound((1.051, 1.0), (1.0, 1.0))
    assert (v.verdict, outcomes(v)) == ("partly", {Unit("pydocs", "NeoX", model="m0"): "fails",
                                                   Unit("pydocs", "NeoX", model="m1"): "holds"})
    v = bound((1.051, 1.0), (np.nan, 1.0))
    assert v.verdict == "not reproduced" and "(not tested on: pydocs/NeoX: m1)" in v.ours
    assert bound((np.nan, 1.0)).verdict == "not testable on this set"


def test_a5_16_dominance_at_half_of_ce_and_its_finding():
    assert a5.log_c_dominates(2.0, 1.0) and not a5.log_c_dominates(2.0, 1.0 - 1e-9)
    assert a5.log_c_dominates(-2.0, -3.0), "magnitudes, whatever the signs"
    end = SimpleNamespace(mu=-40.0, sigma=2.0, log_c=-1.0, ce=-1.5)
    v = a5.dominance_verdict(evidence(path=[end]), context())
    assert (v.key, v.verdict, outcomes(v)) == ("A5.16", "reproduced", {a5.MU_PATH: "holds"})
    assert v.ours == "at mu = -40, sigma = 2.00: log c = -1.0, mu^2/(2 sigma^2) = 200.0, CE = -1.50"
    far = SimpleNamespace(mu=-40.0, sigma=2.0, log_c=-200.0, ce=0.01)
    assert outcomes(a5.dominance_verdict(evidence(path=[end, far]), context())) == {a5.MU_PATH: "fails"}, \
        "read at the path's last mu"
    v = a5.dominance_verdict(evidence(), context())
    assert (v.verdict, v.ours) == ("not testable on this set", "no family fit to take sigma from")
    assert v.finding == claims.CLAIMS["A5.16"].finding and "eq. 24" in v.finding


def test_dominance_path_follows_the_median_sigma_of_the_families_eq_10_fits():
    fits = pd.DataFrame({"family": ["NeoX", "NeoX", "NeoX", a5.REFERENCE], "fit": ["1..inf", "1..inf", "1..V", "1..inf"],
                         "sigma": [2.0, 4.0, 9.0, 9.0]})
    path = a5.dominance_path(fits)
    assert [(p.mu, p.sigma) for p in path] == [(mu, 3.0) for mu in a5.A5_DOMINANCE_MUS]
    assert path[-1].ce == appendix_c.exact(a5.A5_DOMINANCE_MUS[-1], 3.0).ce
    assert a5.dominance_path(fits.iloc[2:]) == ()


def test_a5_17_predicts_ee_at_the_tolerance_and_on_the_authors_fit_only():
    tol = a5.A5_APPROX_TOLERANCE

    def joined(*ee, form="powerlaw"):
        models = pd.DataFrame({"corpus": "pydocs", "family": "NeoX", "model": [f"m{i}" for i in range(len(ee))],
                               "S": 1e6, "V": 100, "rank entropy measured": list(ee), "CE measured": 4.0})
        fits = models[["corpus", "family", "model", "S", "V"]].assign(fit=form, **{"CE predicted": 2.0})
        return evidence(fits, models=models)

    v = a5.predicts_ee_verdict(joined(2.0 / (1 + tol - 1e-9), 2.0 / (1 - tol + 1e-9)), context())
    assert (v.key, v.kind, v.verdict, v.units_text) == ("A5.17", "beyond the paper", "reproduced", "2 of 2")
    assert v.ours.endswith("CE predicted / CE measured - 1 from -50.0% to -50.0%")
    v = a5.predicts_ee_verdict(joined(2.0 / (1 + tol + 1e-9), 2.0), context())
    assert (v.verdict, outcomes(v)[Unit("pydocs", "NeoX", model="m0")]) == ("partly", "fails")
    assert a5.predicts_ee_verdict(joined(4.0), context()).verdict == "not reproduced"
    assert a5.predicts_ee_verdict(joined(2.0, form="1..V"), context()).verdict == "not testable on this set", \
        "only the authors' fit is graded"


def test_decide_gives_one_verdict_per_claim_in_order():
    fits = pd.concat([fit_rows(("m1", {}), form=form, corpus=corpus) for form in rank_models.FORMS
                      for corpus in ("pydocs", "stdlib")])
    fits = fits.drop_duplicates(["corpus", "model", "fit"])
    models = fits[["corpus", "family", "model", "S", "V"]].drop_duplicates().assign(
        **{"rank entropy measured": 3.0, "CE measured": 4.0})
    trends = pd.DataFrame([trend(), trend(corpus="stdlib")])
    slopes = pd.DataFrame([slope_row(version, corpus=corpus) for version in rank_models.FORMS
                           for corpus in ("pydocs", "stdlib")])
    full = evidence(fits, trends, slopes, models, {NEOX[0]: 0.01}, [appendix_c.exact(-5.0, 2.0)])
    verdicts = a5.SPEC.decide(full, context())
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A5)
    assert [v.verdict for v in a5.SPEC.decide(full, context(NeoX=2))][4:10] == ["not testable on this set"] * 6, \
        "the size claims need three sizes"


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB = 200


def run(family, size, seed, n=400, name=None):
    """A model of ``size`` non-embedding parameters whose targets rank better the larger it is (lognormal ranks)."""
    rng = np.random.default_rng(seed)
    ge = np.minimum(rng.lognormal(2.0 - 0.3 * np.log10(size), 1.3, n).astype(np.int32), VOCAB - 1)
    logp = (-rng.gamma(2.0, 0.5, n) - 0.2 * np.log1p(ge)).astype(np.float32)
    records = Records(logp=logp, gt=ge, ge=ge, target=np.zeros(n, np.int32), window=(np.arange(n) // 10).astype(np.int32),
                      document=(np.arange(n) // 10).astype(np.int64), top_logp=np.zeros((n, 1), np.float32),
                      manifest=SimpleNamespace(vocab_size=VOCAB))
    return Run(family, name or f"{family}-{size:g}", None, size, 2 * size, records)


SIZES = {"NeoX": [1e3, 1e4, 1e5], "Mono": [5e4]}
CORPORA = ("pydocs", "stdlib")


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run(fam, size, 10 * c + i) for fam, sizes in SIZES.items() for i, size in enumerate(sizes)]
                   for c, corpus in enumerate(CORPORA)}
    references = {corpus: [run(None, 3e5, 99 + c, name="Ref")] for c, corpus in enumerate(CORPORA)}
    chapter = Chapter.of(family_runs, 6, references=references)
    context = Context.of(family_runs["pydocs"], n_boot=6, tables=TABLES)
    return family_runs, references, context, a5.measure(chapter, context)


@pytest.fixture(scope="module")
def by_hand(synthetic):
    """Every run's three fits, by hand: fit_rank_models of its ranks over the vocabulary, by (corpus, name)."""
    family_runs, references, _, _ = synthetic
    return {(corpus, r.name): rank_models.fit_rank_models(metrics.rank_1based(r.records.gt, r.records.ge), VOCAB)
            for corpus in CORPORA for r in family_runs[corpus] + references[corpus]}


def test_measure_fits_every_model_as_fit_rank_models_does(synthetic, by_hand):
    family_runs, references, _, found = synthetic
    assert found.corpora == CORPORA and found.families == ("NeoX", "Mono")
    assert len(found.models) == len(CORPORA) * 5 and len(found.fits) == 3 * len(found.models)
    assert list(found.reference_fits["model"].unique()) == ["Ref"]
    for corpus in CORPORA:
        for r in family_runs[corpus] + references[corpus]:
            rank = metrics.rank_1based(r.records.gt, r.records.ge)
            by_hand_fits = by_hand[corpus, r.name]
            rows = found.fits[(found.fits["corpus"] == corpus) & (found.fits["model"] == r.name)].set_index("fit")
            for form in rank_models.FORMS:
                f = by_hand_fits.forms[form]
                assert rows.loc[form, "CE predicted"] == pytest.approx(f.ce, nan_ok=True)
                if f.degenerate is None:
                    assert rows.loc[form, "Vuong z"] == pytest.approx(f.vuong.z)
                    assert rows.loc[form, "mu/sigma"] == pytest.approx(f.fit.mu / f.fit.sigma)
                    # no mass beyond V over 1..V (not even a rounding's -1e-16), the rest of the pmf's otherwise
                    missing = 0.0 if form == "1..V" else 1 - np.exp(f.fit.log_pmf()).sum()
                    assert rows.loc[form, "mass beyond V"] == pytest.approx(missing, abs=1e-12)
                else:  # a power law weighed against itself: no z to read
                    assert np.isnan(rows.loc[form, ["Vuong z", "Vuong p", "mu/sigma"]].astype(float)).all()
            model = found.models[(found.models["corpus"] == corpus) & (found.models["model"] == r.name)].iloc[0]
            assert model["CE measured"] == pytest.approx(-np.mean(r.records.logp.astype(np.float64)))
            assert model["-log RBP_1 measured"] == pytest.approx(-np.log(np.mean(rank == 1)))


def test_a_fit_over_the_vocabulary_has_no_mass_beyond_it_not_even_minus_a_rounding():
    rank = np.minimum(np.ceil(np.random.default_rng(3).lognormal(0.5, 1.5, 3000)), 100).astype(int)
    fitted = rank_models.fit_rank_models(rank, 100)
    assert 1 - np.exp(logsumexp(fitted.forms["1..V"].fit.log_pmf())) < 0, "these ranks' pmf sums to 1 + 2e-16"
    run = SimpleNamespace(family="NeoX", name="m", non_embedding=1000, vocab_size=100)
    rows = {row["fit"]: row for row in a5.fit_rows("stdlib", run, fitted)}
    assert rows["1..V"]["mass beyond V"] == 0.0
    assert all(row["mass beyond V"] >= 0 for row in rows.values())


def test_measure_trends_are_the_bootstrap_done_by_hand(synthetic, by_hand):
    family_runs, _, context, found = synthetic
    assert list(zip(found.trends["corpus"], found.trends["family"])) == [(c, "NeoX") for c in CORPORA], \
        "a family of one size has no trend"
    members = [r for r in family_runs["stdlib"] if r.family == "NeoX"]
    ranks = [metrics.rank_1based(r.records.gt, r.records.ge) for r in members]
    fitted = [by_hand["stdlib", r.name] for r in members]
    boots = rank_models.bootstrap_rank_models(fitted, [{"rank": rank, "logp": r.records.logp,
                                                        "document": r.records.document}
                                                       for rank, r in zip(ranks, members)], 6, context.seed,
                                              by="document")
    log_s = np.log([r.non_embedding for r in members])
    mu = np.stack([b.params["powerlaw"][:, 0] for b in boots], axis=-1)  # (n_boot, models)
    replicate_slopes = [np.polyfit(log_s, mu[b], 1)[0] for b in range(6)]
    point = np.polyfit(log_s, [f.forms["powerlaw"].fit.mu for f in fitted], 1)[0]
    z = 1.959963984540054  # the one level, 95%
    row = found.trends[found.trends["corpus"] == "stdlib"].iloc[0]
    assert row["d mu / d ln S"] == pytest.approx(point)
    assert (row["mu: low"], row["mu: high"]) == pytest.approx((point - z * np.std(replicate_slopes),
                                                               point + z * np.std(replicate_slopes)))
    measured = np.stack([b.measured for b in boots], axis=-1)  # (n_boot, 2, models)
    ce = [-np.mean(r.records.logp.astype(np.float64)) for r in members]
    p1 = [-np.log(np.mean(rank == 1)) for rank in ranks]
    ratio, bounds = rank_models.exponent_ratio(np.exp(log_s), p1, ce, measured[:, 1], measured[:, 0])
    slope = found.slopes[(found.slopes["corpus"] == "stdlib") & (found.slopes["version"] == "measured")].iloc[0]
    assert slope["ratio p_1/CE"] == pytest.approx(ratio)
    assert (slope["ratio: low"], slope["ratio: high"]) == pytest.approx(bounds)
    assert slope["slope CE"] == pytest.approx(fit.fit_power_law(np.exp(log_s), ce).slope)
    # the R^2 of A5.5's and A5.8's laws, refitted on the replicates their slopes come from (paired), by hand
    ratio_replicates = mu / np.stack([b.params["powerlaw"][:, 1] for b in boots], axis=-1)
    point = fit.fit_semilog(np.exp(log_s), [f.forms["powerlaw"].fit.mu / f.forms["powerlaw"].fit.sigma for f in fitted])
    by_hand = [1 - np.var(y - np.polyval(np.polyfit(log_s, y, 1), log_s)) / np.var(y) for y in ratio_replicates]
    assert (row["R^2 of mu/sigma: low"], row["R^2 of mu/sigma: high"]) == pytest.approx(
        bootstrap.interval(point.r2, by_hand, bootstrap.LEVEL))
    ce_replicates = np.log(measured[:, 0])
    by_hand = [1 - np.var(y - np.polyval(np.polyfit(log_s, y, 1), log_s)) / np.var(y) for y in ce_replicates]
    assert (slope["R^2 CE: low"], slope["R^2 CE: high"]) == pytest.approx(
        bootstrap.interval(fit.fit_power_law(np.exp(log_s), ce).r2, by_hand, bootstrap.LEVEL))


def test_measure_decides_from_records(synthetic):
    _, _, context, found = synthetic
    verdicts = a5.SPEC.decide(found, context)
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A5)
    assert {unit for v in verdicts[4:12] for unit, _ in v.outcomes} <= {Unit(c, "NeoX") for c in CORPORA}
    assert {unit.family for unit, _ in verdicts[1].outcomes} == {"Ref"}, "A5.2: the reference model"
    assert found.approximations and all(unit.model.endswith(("authors' fit", "eq. 10 fit"))
                                        for unit in found.approximations), "A5.14: a unit per unbounded fit"


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes
