"""The A5 claims: their thresholds where they are taken from the paper's own numbers (chapter A4's are in
tests/test_claims_a4.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rankscale import claims
from rankscale.analysis import bootstrap
from rankscale.claims.reference import reference_table
from rankscale.claims import paper_a


def test_closeness_band_is_the_range_of_paper_a_table_1():
    ratio = paper_a.a5_table1_ratios(reference_table("rbp_paper_table1"))
    assert len(ratio) == 22
    lo, hi = claims.A_CLOSE
    assert np.floor(ratio.min() * 100) / 100 == lo and np.ceil(ratio.max() * 100) / 100 == hi


def test_chapter_a5_claims_are_indexed_with_rules_and_kinds():
    for prefix, section in (("A5.", claims.CLAIMS_A5),):
        assert section and all(key.startswith(prefix) and claim.key == key for key, claim in section.items())
        assert all(claim.kind in claims.KINDS and claim.rule for claim in section.values())


def test_rules_describe_the_interval_the_bootstrap_computes():
    """Every A5 rule that reads an interval states its half-width in standard deviations of the
    replicates, and that number is the one ``bootstrap.interval`` uses at the section's level."""
    for level, section in ((claims.A5_LEVEL, claims.CLAIMS_A5),):
        lo, hi = bootstrap.interval(0.0, [-1.0, 1.0], level)  # replicates with a standard deviation of 1
        for claim in section.values():
            assert "percentile" not in claim.rule
            if "interval" in claim.rule and "bootstrap" in claim.rule.lower():
                assert f"-+ {hi:.2f} standard deviations of its replicates" in claim.rule, claim.key


def test_authors_pythia_fits_are_well_formed():
    pythia = reference_table("rbp_authors_pythia_lognormal")
    assert len(pythia) == 10 and (np.diff(pythia["non_embedding_params"]) > 0).all()
    assert (pythia["sigma"] > 0).all() and (np.diff(pythia["mu"]) < 0).all()


# ---------------------------------------------------------------------------------------------
# A5's decisions (rankscale.claims.paper_a), on constructed tables

VUONG_WIN = {"degenerate": "", "Vuong z": 4.0, "Vuong p": 1e-4, "KS lognormal": 0.01}


def fits_table(*models, form="powerlaw", family="NeoX"):
    """A fits table of one form: one row per (model, overrides of VUONG_WIN), plus the other forms' rows
    (which fail) so that a function must select its form."""
    rows = []
    for name, changes in models:
        base = {"corpus": "pydocs", "family": family, "model": name, "KS power law": 0.2, "mass beyond V": 0.0001,
                "CE predicted": 3.0}
        rows.append({**base, **VUONG_WIN, **changes, "fit": form})
        rows += [{**base, **VUONG_WIN, "Vuong z": -1.0, "fit": other} for other in paper_a.A5_FORM_LABELS
                 if other != form]
    return pd.DataFrame(rows)


def test_lognormal_preferred_at_its_thresholds():
    assert paper_a.lognormal_preferred(VUONG_WIN)
    assert paper_a.lognormal_preferred({**VUONG_WIN, "KS lognormal": claims.A5_MAX_KS}), "the KS bound is inclusive"
    assert not paper_a.lognormal_preferred({**VUONG_WIN, "KS lognormal": claims.A5_MAX_KS + 1e-9})
    assert paper_a.lognormal_preferred({**VUONG_WIN, "Vuong p": claims.A5_VUONG_P - 1e-9})
    assert not paper_a.lognormal_preferred({**VUONG_WIN, "Vuong p": claims.A5_VUONG_P}), "p must be below the level"
    assert not paper_a.lognormal_preferred({**VUONG_WIN, "Vuong z": -4.0}), "a significant power law is no lognormal"
    assert not paper_a.lognormal_preferred({**VUONG_WIN, "degenerate": "median far below rank 1"})


def test_a5_lognormal_grades_every_model_of_its_form():
    good, bad = ("m1", {}), ("m2", {"Vuong z": -2.0, "Vuong p": 0.01})
    v = paper_a.a5_lognormal(fits_table(good, ("m3", {})), "powerlaw", "family")
    assert (v.key, v.verdict) == ("A5.1", "reproduced")
    assert v.ours == ("authors' fit (powerlaw package): lognormal preferred in 2 of 2 model/corpus pairs (NeoX: 2 of 2; "
                      "Vuong z 4.0 to 4.0); KS distance 0.010-0.010 (power law 0.200-0.200); KS within 0.05: 2")
    v = paper_a.a5_lognormal(fits_table(good, bad, form="1..V"), "1..V", "all")
    assert (v.key, v.verdict) == ("A5.4", "partly") and "(NeoX: 1 of 2;" in v.ours
    degenerate = ("m3", {"degenerate": "heavy tail", "mass beyond V": np.nan})
    v = paper_a.a5_lognormal(fits_table(bad, degenerate, ("m4", {"mass beyond V": 0.2}), form="1..inf"), "1..inf", "all")
    assert (v.key, v.verdict) == ("A5.3", "partly")  # m4 still holds
    assert v.ours.endswith("; fitted mass beyond the vocabulary up to 20.0%; degenerate: 1")
    v = paper_a.a5_lognormal(fits_table(bad, degenerate, family=None), "powerlaw", "reference")
    assert (v.key, v.verdict) == ("A5.2", "not reproduced") and "(m2: 0 of 1; m3: 1 of 1;" in v.ours
    v = paper_a.a5_lognormal(fits_table(good).iloc[:0], "powerlaw", "reference", why_not="this set has no reference model")
    assert (v.verdict, v.ours) == ("not testable on this set", "this set has no reference model")


def trend(mu=(-2.0, -1.0), sigma=(0.1, 0.3), both=(-1.8, -0.8), ratio=(-0.5, -0.2), r2=0.95, corpus="pydocs",
          family="NeoX"):
    row = {"corpus": corpus, "family": family, "R^2 of mu/sigma": r2, "d mu/sigma / d ln S": sum(ratio) / 2,
           "d mu / d ln S": sum(mu) / 2, "d sigma / d ln S": sum(sigma) / 2}
    for name, (low, high) in (("mu", mu), ("sigma", sigma), ("mu + sigma", both), ("mu/sigma", ratio)):
        row |= {f"{name}: low": low, f"{name}: high": high}
    return row


def test_mu_sigma_steady_needs_the_r2_bar_and_a_slope_away_from_zero():
    assert paper_a.mu_sigma_steady(trend(r2=claims.A5_MIN_R2)), "R^2 at the bar passes"
    assert not paper_a.mu_sigma_steady(trend(r2=claims.A5_MIN_R2 - 1e-9))
    assert paper_a.mu_sigma_steady(trend(ratio=(1e-9, 0.2))), "a rising ratio is steady too"
    assert not paper_a.mu_sigma_steady(trend(ratio=(0.0, 0.2))), "an interval reaching 0 does not exclude it"
    assert paper_a.mu_sigma_steady(trend(r2=np.nan)) is None
    assert paper_a.mu_sigma_steady(trend(ratio=(np.nan, np.nan))) is None


def test_a5_steady_and_drift_per_corpus_and_family():
    trends = pd.DataFrame([trend(), trend(corpus="stdlib", r2=0.5, sigma=(-0.1, 0.2))])
    units = [("pydocs", "NeoX"), ("stdlib", "NeoX")]
    v = paper_a.a5_steady(trends, units, ["Llama: 2 sizes, fewer than 3"], paper="Pythia")
    assert (v.key, v.verdict, v.paper) == ("A5.5", "partly", "Pythia")
    assert v.ours.startswith("authors' fits, mu/sigma against ln S: pydocs/NeoX: R^2 0.950, slope -0.350 "
                             "[-0.500, -0.200]; stdlib/NeoX: R^2 0.500")
    assert v.ours.endswith("(not tested on: Llama: 2 sizes, fewer than 3)")
    v = paper_a.a5_drift(trends, units, [])
    assert (v.key, v.verdict) == ("A5.6", "partly")
    assert "pydocs/NeoX: d mu -1.500 [-2.000, -1.000], d sigma 0.200 [0.100, 0.300]" in v.ours
    assert paper_a.a5_drift(trends, units[:1], []).verdict == "reproduced"
    assert paper_a.a5_steady(trends, units[1:], []).verdict == "not reproduced"
    v = paper_a.a5_drift(trends, [], ["NeoX: 2 sizes, fewer than 3"])
    assert v.verdict == "not testable on this set"
    assert v.ours == "no family has 3 or more sizes (NeoX: 2 sizes, fewer than 3); authors' fits, per ln S: "


def test_mu_falls_sigma_mildly_needs_all_three_sides():
    assert paper_a.mu_falls_sigma_mildly(trend())
    assert not paper_a.mu_falls_sigma_mildly(trend(mu=(-2.0, 0.0))), "mu's interval reaching 0 is no fall"
    assert not paper_a.mu_falls_sigma_mildly(trend(sigma=(-0.3, -0.1))), "sigma must grow"
    assert not paper_a.mu_falls_sigma_mildly(trend(both=(0.1, 0.5))), "sigma must rise by less than mu falls"
    assert paper_a.mu_falls_sigma_mildly(trend(both=(np.nan, np.nan))) is None


LOW, HIGH = claims.A_CLOSE


def slope_row(version="powerlaw", ratio=(0.9, 1.1), ce_match=(0.9, 1.1), p1_match=(0.9, 1.1), r2=(0.99, 0.99),
              slopes=(-0.1, -0.1), corpus="pydocs", family="NeoX"):
    row = {"corpus": corpus, "family": family, "version": version, "slope CE": slopes[0], "R^2 CE": r2[0],
           "slope -log p_1": slopes[1], "R^2 -log p_1": r2[1], "ratio p_1/CE": slopes[1] / slopes[0]}
    for name, (low, high) in (("ratio", ratio), ("CE pred/meas", ce_match), ("p_1 pred/meas", p1_match)):
        row |= {f"{name}: low": low, f"{name}: high": high}
    return row


def test_shared_exponent_reads_the_band_and_the_laws():
    assert paper_a.shared_exponent(slope_row()) is True
    assert paper_a.shared_exponent(slope_row(ratio=(LOW, HIGH))) is True, "the band's edges belong to it"
    assert paper_a.shared_exponent(slope_row(ratio=(LOW - 0.3, LOW))) is claims.UNDETERMINED, "across an edge"
    assert paper_a.shared_exponent(slope_row(ratio=(LOW - 1e-9, HIGH))) is claims.UNDETERMINED
    assert not paper_a.shared_exponent(slope_row(ratio=(LOW - 0.3, LOW - 1e-9))), "wholly below the band"
    assert not paper_a.shared_exponent(slope_row(ratio=(HIGH + 1e-9, HIGH + 0.3))), "wholly above the band"
    assert paper_a.shared_exponent(slope_row(r2=(claims.A5_MIN_R2, 0.99)))
    assert not paper_a.shared_exponent(slope_row(r2=(0.99, claims.A5_MIN_R2 - 1e-9)))
    assert not paper_a.shared_exponent(slope_row(slopes=(0.1, 0.1))), "rising series share no falling law"
    assert paper_a.shared_exponent(slope_row(slopes=(0.1, 0.1), ratio=(LOW - 0.3, LOW))) is False, \
        "no law fails whatever the interval"
    assert paper_a.shared_exponent(slope_row(r2=(np.nan, 0.99))) is None
    assert paper_a.shared_exponent(slope_row(ratio=(np.nan, np.nan))) is None


def test_a5_shared_grades_the_version_it_is_given():
    slopes = pd.DataFrame([slope_row(), slope_row("1..V", ratio=(2.0, 3.0)),
                           slope_row("1..V", corpus="stdlib"), slope_row(corpus="stdlib", ratio=(np.nan, np.nan)),
                           slope_row("1..inf", ratio=(1.2, 1.4)), slope_row("1..inf", corpus="stdlib")])
    units = [("pydocs", "NeoX"), ("stdlib", "NeoX")]
    v = paper_a.a5_shared(slopes, "powerlaw", units, [])
    assert (v.key, v.verdict) == ("A5.8", "reproduced")
    assert v.ours.endswith("stdlib/NeoX: slopes CE -0.100, p_1 -0.100 (R^2 0.99, 0.99), ratio 1.00 (no interval) "
                           "(not tested on: stdlib/NeoX)")
    v = paper_a.a5_shared(slopes, "1..inf", units, [])
    assert (v.key, v.verdict, v.units_text) == ("A5.9", "reproduced", "1 of 1")
    assert "undetermined on: pydocs/NeoX" in v.ours
    assert paper_a.a5_shared(slopes, "1..inf", units[:1], []).verdict == "undetermined"
    v = paper_a.a5_shared(slopes, "1..V", units, [])
    assert (v.key, v.verdict) == ("A5.10", "partly") and v.ours.startswith("eq. 10 over 1..V: pydocs/NeoX:")
    assert paper_a.a5_shared(slopes, "1..V", units[:1], []).verdict == "not reproduced"
    assert paper_a.a5_shared(slopes, "1..V", units[1:], []).verdict == "reproduced"
    assert paper_a.a5_shared(slopes, "powerlaw", units[1:], []).verdict == "not testable on this set"
    with pytest.raises(KeyError):  # the measured ratio is A3.5's, not graded again here
        paper_a.a5_shared(slopes, "measured", units, [])
    assert "A5.7" not in claims.CLAIMS, "one row for the measured ratio of slopes: A3.5"
    assert paper_a.shared_text(slopes.assign(version="measured"), "measured", units[:1]).startswith(
        "measured: pydocs/NeoX: slopes CE -0.100")


def test_exponents_match_needs_both_ratios_in_the_band():
    assert paper_a.exponents_match(slope_row("powerlaw", ce_match=(LOW, HIGH))) is True
    assert paper_a.exponents_match(slope_row("powerlaw", ce_match=(HIGH, HIGH + 1.0))) is claims.UNDETERMINED
    assert not paper_a.exponents_match(slope_row("powerlaw", ce_match=(HIGH + 1e-9, HIGH + 1.0)))
    assert not paper_a.exponents_match(slope_row("powerlaw", ce_match=(HIGH + 1e-9, HIGH + 1.0),
                                                 p1_match=(HIGH, HIGH + 1.0))), "one ratio outside fails"
    assert not paper_a.exponents_match(slope_row("powerlaw", p1_match=(0.1, LOW - 1e-9)))
    assert paper_a.exponents_match(slope_row("powerlaw", p1_match=(np.nan, np.nan))) is None


def test_a5_match_per_form():
    slopes = pd.DataFrame([slope_row("powerlaw"), slope_row("1..inf", p1_match=(2.0, 2.5)),
                           slope_row("powerlaw", corpus="stdlib", ce_match=(0.1, 0.2))])
    units = [("pydocs", "NeoX"), ("stdlib", "NeoX")]
    v = paper_a.a5_match(slopes, "powerlaw", units, [])
    assert (v.key, v.verdict) == ("A5.11", "partly")
    assert v.ours == ("predicted/measured slope pydocs/NeoX: CE [0.90, 1.10], p_1 [0.90, 1.10]; stdlib/NeoX: CE "
                      "[0.10, 0.20], p_1 [0.90, 1.10]")
    v = paper_a.a5_match(slopes, "1..inf", units[:1], ["Llama: 1 size, fewer than 3"])
    assert (v.key, v.verdict) == ("A5.12", "not reproduced")
    assert paper_a.a5_match(slopes, "powerlaw", units[:1], []).verdict == "reproduced"
    assert paper_a.a5_match(slopes, "1..V", [], ["Llama: 1 size, fewer than 3"]).verdict == "not testable on this set"


def test_a5_approximations_at_the_tolerance():
    tol = claims.A5_APPROX_TOLERANCE
    v = paper_a.a5_approximations({"a": tol, "b": 0.001})
    assert (v.key, v.verdict) == ("A5.14", "reproduced"), "an error of exactly the tolerance is accurate"
    v = paper_a.a5_approximations({"a": tol + 1e-9, "b": 0.001, "c": np.nan})
    assert v.verdict == "partly" and v.ours == ("worst relative error of CE or -log p_1 5.0%; 1 of 3 fits within 5% "
                                                "(not tested on: c)")
    assert paper_a.a5_approximations({"a": 0.2}).verdict == "not reproduced"
    v = paper_a.a5_approximations({})
    assert (v.verdict, v.ours) == ("not testable on this set", "every fit is degenerate")


def test_a5_vocabulary_bound_model_by_model():
    def bound(*pairs):
        rows = [{"corpus": "pydocs", "family": "NeoX", "model": f"m{i}", "fit": fit, "CE predicted": ce}
                for i, pair in enumerate(pairs) for fit, ce in zip(("1..inf", "1..V", "powerlaw"), (*pair, 9.0))]
        return paper_a.a5_vocabulary_bound(pd.DataFrame(rows))

    v = bound((1.049, 1.0), (0.951, 1.0))
    assert (v.key, v.verdict) == ("A5.15", "reproduced") and v.ours.endswith("from 4.9% to 4.9%")
    assert bound((1.051, 1.0), (1.0, 1.0)).verdict == "partly"
    v = bound((1.051, 1.0), (np.nan, 1.0))
    assert v.verdict == "not reproduced" and "(not tested on: pydocs/NeoX/m1)" in v.ours
    assert bound((np.nan, 1.0)).verdict == "not testable on this set"


def test_a5_dominance_at_half_of_ce():
    assert paper_a.log_c_dominates(2.0, 1.0) and not paper_a.log_c_dominates(2.0, 1.0 - 1e-9)
    assert paper_a.log_c_dominates(-2.0, -3.0), "magnitudes, whatever the signs"
    end = SimpleNamespace(mu=-40.0, sigma=2.0, log_c=-1.0, ce=-1.5)
    v = paper_a.a5_dominance(end)
    assert (v.key, v.verdict) == ("A5.16", "reproduced")
    assert v.ours == "at mu = -40, sigma = 2.00: log c = -1.0, mu^2/(2 sigma^2) = 200.0, CE = -1.50"
    assert paper_a.a5_dominance(SimpleNamespace(mu=-40.0, sigma=2.0, log_c=-200.0, ce=0.01)).verdict == "not reproduced"
    v = paper_a.a5_dominance(None)
    assert (v.verdict, v.ours) == ("not testable on this set", "no family fit to take sigma from")


def test_findings_about_the_paper_reach_the_verdict():
    """A4.4 and A5.16 fail because the paper's statement is wrong: each carries its derivation, with the paper's
    equation numbers, onto its Verdict; no other claim of paper A does."""
    with_finding = {key for key, claim in claims.CLAIMS.items() if claim.finding and key.startswith("A")}
    assert with_finding == {"A4.4", "A5.16"}
    assert "eq. 8" in claims.CLAIMS["A4.4"].finding.lower() and "eq. 24" in claims.CLAIMS["A5.16"].finding
    assert paper_a.a5_dominance(None).finding == claims.CLAIMS["A5.16"].finding


def test_a5_predicts_ee_at_the_tolerance_and_on_the_authors_fit_only():
    tol = claims.A5_APPROX_TOLERANCE

    def joined(*ee, fit="powerlaw"):
        return pd.DataFrame({"corpus": "pydocs", "family": "NeoX", "model": [f"m{i}" for i in range(len(ee))],
                             "fit": fit, "CE predicted": 2.0, "rank entropy measured": list(ee), "CE measured": 4.0})

    v = paper_a.a5_predicts_ee(joined(2.0 / (1 + tol - 1e-9), 2.0 / (1 - tol + 1e-9)))
    assert (v.key, v.kind, v.verdict) == ("A5.17", "beyond the paper", "reproduced"), "just inside the tolerance"
    assert v.ours.endswith("CE predicted / CE measured - 1 from -50.0% to -50.0%")
    v = paper_a.a5_predicts_ee(joined(2.0 / (1 + tol + 1e-9), 2.0))
    assert (v.verdict, v.units_text) == ("partly", "1 of 2")
    assert paper_a.a5_predicts_ee(joined(4.0)).verdict == "not reproduced"
    other = joined(2.0, fit="1..V")
    assert paper_a.a5_predicts_ee(other).verdict == "not testable on this set", "only the authors' fit is graded"
    degenerate = joined(2.0).assign(**{"CE predicted": np.nan})
    assert paper_a.a5_predicts_ee(degenerate).verdict == "not testable on this set"
