"""The A4 claims: their thresholds where they are taken from the paper's own numbers (A5's are in
tests/test_claims_a5.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankscale import claims
from rankscale.analysis import bootstrap
from rankscale.claims import paper_a


def test_chapter_a4_claims_are_indexed_with_rules_and_kinds():
    for prefix, section in (("A4.", claims.CLAIMS_A4),):
        assert section and all(key.startswith(prefix) and claim.key == key for key, claim in section.items())
        assert all(claim.kind in claims.KINDS and claim.rule for claim in section.values())


def test_rules_describe_the_interval_the_bootstrap_computes():
    """Every A4 rule that reads an interval states its half-width in standard deviations of the
    replicates, and that number is the one ``bootstrap.interval`` uses at the section's level."""
    for level, section in ((claims.A4_LEVEL, claims.CLAIMS_A4),):
        lo, hi = bootstrap.interval(0.0, [-1.0, 1.0], level)  # replicates with a standard deviation of 1
        for claim in section.values():
            assert "percentile" not in claim.rule
            if "interval" in claim.rule and "bootstrap" in claim.rule.lower():
                assert f"-+ {hi:.2f} standard deviations of its replicates" in claim.rule, claim.key


# ---------------------------------------------------------------------------------------------
# A4's decisions (rankscale.claims.paper_a), on constructed tables

def test_a4_power_laws_at_the_bar_and_families_left_out():
    from rankscale.analysis.fit import PowerLawFit

    bar = claims.A4_MIN_R2
    fits = {("pydocs", "NeoX", 1, 1): PowerLawFit(-0.1, 0.0, bar, 3),  # at the bar: holds
            ("pydocs", "NeoX", 1, 2): PowerLawFit(-0.1, 0.0, bar - 1e-9, 3),  # just below: fails
            ("pydocs", "NeoX", 10, 2): None,  # p = 0 for some model: not tested
            ("pydocs", "Llama", 1, 1): PowerLawFit(-0.1, 0.0, 0.99, 2)}  # too few sizes: never graded
    v = paper_a.a4_power_laws(fits, ["NeoX"], ["Llama: 2 sizes, fewer than 3"])
    assert (v.key, v.verdict, v.units_text) == ("A4.1", "partly", "1 of 2")
    assert v.ours.startswith("fits with R^2 ≥ 0.9 and falling: NeoX: 1 of 2; 1 cases not measurable")
    assert "not tested on: Llama: 2 sizes, fewer than 3" in v.ours
    rising = {("pydocs", "NeoX", 1, 1): PowerLawFit(0.1, 0.0, 0.99, 3)}
    assert paper_a.a4_power_laws(rising, ["NeoX"], []).verdict == "not reproduced"
    v = paper_a.a4_power_laws({("pydocs", "NeoX", 1, 1): None}, ["NeoX"], [])
    assert v.verdict == "not testable on this set" and "NeoX (no measurable case)" not in v.ours
    assert paper_a.a4_power_laws({}, [], ["NeoX: 2 sizes, fewer than 3"]).ours.startswith("no family has 3")


def fit_rows(*intervals, family="NeoX"):
    """A4's fit table for one corpus and k: N = 1 (no interval) and N = 2, 3, ... with these intervals."""
    rows = [{"corpus": "pydocs", "family": family, "k": 1, "N": 1, "slope_N - slope_1": 0.0, "interval low": np.nan,
             "interval high": np.nan}]
    rows += [{"corpus": "pydocs", "family": family, "k": 1, "N": n, "slope_N - slope_1": (lo + hi) / 2,
              "interval low": lo, "interval high": hi} for n, (lo, hi) in enumerate(intervals, start=2)]
    return pd.DataFrame(rows)


def test_a4_same_exponent_fails_only_on_an_interval_away_from_zero():
    v = paper_a.a4_same_exponent(fit_rows((0.0, 0.2), (-0.1, 0.1)), ["NeoX"], [])
    assert (v.key, v.verdict) == ("A4.2", "reproduced"), "an interval with 0 at its edge holds"
    v = paper_a.a4_same_exponent(fit_rows((1e-9, 0.2), (-0.1, 0.1)), ["NeoX"], [])
    assert (v.verdict, v.units_text) == ("partly", "1 of 2")
    assert paper_a.a4_same_exponent(fit_rows((0.1, 0.2)), ["NeoX"], []).verdict == "not reproduced"
    v = paper_a.a4_same_exponent(fit_rows((np.nan, np.nan)), ["NeoX"], [])
    assert (v.verdict, v.ours) == ("not testable on this set",
                                   "no case of a family with enough sizes is measurable; no case with an interval")
    v = paper_a.a4_same_exponent(fit_rows((0.1, 0.2), family="Llama"), ["NeoX"], ["Llama: 2 sizes, fewer than 3"])
    assert v.verdict == "not testable on this set", "a family with too few sizes is not graded"


def test_a4_sharpens_at_the_factor():
    def widths(last):
        return pd.DataFrame({"corpus": "pydocs", "family": "NeoX", "k": 1, "N": [1, 4, 16],
                             "width (decades of S)": [10.0, 10.0, last]})

    assert paper_a.a4_sharpens(widths(10.0 * claims.A4_SHARPER - 1e-9), "pydocs").verdict == "reproduced"
    v = paper_a.a4_sharpens(widths(10.0 * claims.A4_SHARPER), "pydocs")
    assert (v.key, v.verdict, v.ours) == ("A4.4", "not reproduced", "NeoX, pydocs, k=1: 10.0 decades at N=1, 9.0 at N=16")
    assert paper_a.a4_sharpens(widths(1.0).iloc[:0], "pydocs").verdict == "not testable on this set"


def test_a4_amplified_reads_the_ratio_against_the_closeness_band():
    low, high = claims.A_CLOSE

    def amp(*intervals):
        return pd.DataFrame([{"corpus": "pydocs", "family": "NeoX", "k": 1, "N": n, "interval low": lo,
                              "interval high": hi} for n, (lo, hi) in enumerate(intervals, start=2)])

    v = paper_a.a4_amplified(amp((low, high), (0.9, 1.1)), [1.0])
    assert (v.key, v.verdict, v.units_text) == ("A4.3", "reproduced", "2 of 2"), "a ratio of 0.9 is N-fold enough"
    v = paper_a.a4_amplified(amp((0.5, low - 1e-9), (0.9, 1.1)), [1.0])
    assert (v.verdict, v.units_text) == ("partly", "1 of 2")
    v = paper_a.a4_amplified(amp((0.5, 0.9), (0.9, 1.1)), [1.0])
    assert (v.verdict, v.units_text) == ("reproduced", "1 of 1") and "across an edge (undetermined): 1" in v.ours
    assert paper_a.a4_amplified(amp((0.5, 0.9)), [1.0]).verdict == "undetermined"
    assert paper_a.a4_amplified(amp((np.nan, np.nan)), []).verdict == "not testable on this set"


def test_findings_about_the_paper_reach_the_verdict():
    """A4.4 and A5.16 fail because the paper's statement is wrong: each carries its derivation, with the paper's
    equation numbers, onto its Verdict; no other claim of paper A does (A5.16's verdict: tests/test_claims_a5.py)."""
    with_finding = {key for key, claim in claims.CLAIMS.items() if claim.finding and key.startswith("A")}
    assert with_finding == {"A4.4", "A5.16"}
    assert "eq. 8" in claims.CLAIMS["A4.4"].finding.lower() and "eq. 24" in claims.CLAIMS["A5.16"].finding
    widths = pd.DataFrame({"corpus": "pydocs", "family": "NeoX", "k": 1, "N": [1, 16], "width (decades of S)": 10.0})
    assert paper_a.a4_sharpens(widths, "pydocs").finding == claims.CLAIMS["A4.4"].finding


def test_a4_sigmoid_needs_points_across_the_inflection():
    from rankscale.analysis.fit import PowerLawFit

    inflection = np.exp(-1)
    law = PowerLawFit(-0.5, 0.0, claims.A4_MIN_R2, 3)

    def success(*p, family="NeoX"):
        return pd.DataFrame({"corpus": "pydocs", "family": family, "S": [1e6, 1e7, 1e8][:len(p)], "k": 1, "N": 2,
                             "measured p_Nk": list(p)})

    fits = {("pydocs", "NeoX", 1, 2): law}
    v = paper_a.a4_sigmoid(success(0.1, inflection - 1e-9, 0.9), fits, ["NeoX"], [])
    assert (v.key, v.verdict) == ("A4.5", "reproduced")
    assert paper_a.a4_sigmoid(success(0.1, 0.9, 0.8), fits, ["NeoX"], []).verdict == "not reproduced", "must rise"
    weak = {("pydocs", "NeoX", 1, 2): PowerLawFit(-0.5, 0.0, claims.A4_MIN_R2 - 1e-9, 3)}
    assert paper_a.a4_sigmoid(success(0.1, 0.5, 0.9), weak, ["NeoX"], []).verdict == "not reproduced"
    v = paper_a.a4_sigmoid(success(inflection, 0.5, 0.9), fits, ["NeoX"], [])
    assert v.verdict == "not testable on this set", "a case starting at 1/e shows one arm only"
    assert "no measured case spans p = 1/e" in v.ours
    assert paper_a.a4_sigmoid(success(0.0, 0.5, 0.9), {}, ["NeoX"], []).verdict == "not testable on this set"
    v = paper_a.a4_sigmoid(success(0.1, 0.9, family="Llama"), fits, ["NeoX"], ["Llama: 2 sizes, fewer than 3"])
    assert v.verdict == "not testable on this set"
