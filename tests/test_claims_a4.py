"""Chapter A4 (``rankscale.claims.a4``): its claims and the interval their rules describe; each claim's rule made
to hold, fail and stay undecided (or untested) on constructed evidence, read from the verdicts' structured
outcomes; its measure on small synthetic runs, checked against counts and fits done by hand; and its notebook,
which explains and calls, but computes nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import window_success

from rankscale import claims
from rankscale.analysis import bootstrap, fit, metrics
from rankscale.analysis.emergence import SlopeGaps
from rankscale.analysis.bootstrap import INTERVAL, interval_text
from rankscale.analysis.fit import PowerLawFit
from rankscale.claims import a2, a4
from rankscale.claims.base import ONE_READING, UNDETERMINED, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "a4_emergence.py"
NS, KS = a4.A4_WINDOW_LENGTHS, a4.A4_KS


def test_claims_are_indexed_with_rules_and_kinds():
    assert list(a4.CLAIMS_A4) == [f"A4.{i}" for i in range(1, 6)] and claims.CLAIMS_A4 is a4.CLAIMS_A4
    assert all(claim.kind in claims.KINDS and claim.rule for claim in a4.CLAIMS_A4.values())


def test_a4_4_carries_its_finding_about_the_paper():
    assert "eq. 8" in a4.CLAIMS_A4["A4.4"].finding.lower()
    assert not [key for key, claim in a4.CLAIMS_A4.items() if claim.finding and key != "A4.4"]


# ---------------------------------------------------------------------------------------------
# Constructed evidence

SIZES = (1e3, 1e4, 1e5)
LAW = PowerLawFit(-0.2, 0.0, 0.99, 3)  # a falling power law well above the bar


def family(fits=None, exponents=None, ratios=None, laws=None, success=None, sizes=SIZES, open_ended=None):
    """A family's SequenceSuccess on A4's grid: every case a falling law of R^2 0.99, every exponent ratio
    slope_N / slope_1 1 with the interval (0.9, 1.1), every amplification ratio 1 with the interval (0.9, 1.1) and
    every p_{N,k} 0.5 (above 1/e for every model), but where given.

    fits : {(k, N): PowerLawFit or None}; exponents : {(k, N): (low, high) or None}; ratios : {(k, N): (low, high),
    or None where the ratio is not measured (NaN)}; laws : {k: PowerLawFit}; success : {(k, N): p per model};
    open_ended : {(k, N): m}, the ratio 0.6 measured but without an interval, the first model without a run on the
    first m of four resamples.
    """
    shape = (len(NS), len(KS))

    def intervals(given, default):
        found = np.full(shape + (2,), np.nan)
        for (i, n), (j, k) in ((a, b) for a in enumerate(NS) for b in enumerate(KS)):
            ci = (given or {}).get((k, n), default)
            if ci is not None:
                found[i, j] = ci
        return found

    exponent_intervals = intervals(exponents, (0.9, 1.1))
    exponent_intervals[0] = np.nan  # N = 1 is the reference, with no ratio to compare
    p = np.full((len(sizes),) + shape, 0.5)
    for (k, n), values in (success or {}).items():
        p[:, NS.index(n), KS.index(k)] = values
    ratio, ratio_intervals = np.ones(shape), intervals(ratios, (0.9, 1.1))
    replicates = np.repeat(p[None], 4, axis=0)
    for (k, n), value in (ratios or {}).items():
        if value is None:
            ratio[NS.index(n), KS.index(k)] = np.nan
    for (k, n), m in (open_ended or {}).items():
        ratio[NS.index(n), KS.index(k)], ratio_intervals[NS.index(n), KS.index(k)] = 0.6, np.nan
        replicates[:m, 0, NS.index(n), KS.index(k)] = 0.0
    return a4.SequenceSuccess(tuple(f"m{i}" for i in range(len(sizes))), np.array(sizes), p, replicates,
                              {k: LAW for k in KS} | (laws or {}), {(k, n): LAW for k in KS for n in NS} | (fits or {}),
                              SlopeGaps(np.zeros(shape), np.ones(shape), np.zeros(shape), np.full(shape + (2,), np.nan),
                                        np.ones(shape), exponent_intervals),
                              ratio, ratio_intervals)


NEG_LOG_P = np.array([0.4, 0.2, 0.1])  # -log p of the three models: it halves with each tenfold size


def bent(point, bends, k=1, n=2):
    """A family whose case (k, N) falls along a power law but for its middle model, whose -log p is exp(point) times
    the law's on the data and exp(point + bend) times it on each of the four resamples, one bend each: the bends
    move R^2 (a point off the line), not the slope (the middle point of three sizes spaced evenly in log S)."""

    def p(bend):
        return np.exp(-NEG_LOG_P * np.exp([0.0, bend, 0.0]))

    e = family({(k, n): fit.fit_power_law(SIZES, -np.log(p(point)))}, success={(k, n): p(point)})
    e.replicates[:, :, NS.index(n), KS.index(k)] = [p(point + bend) for bend in bends]
    return e


def context(**sizes):
    """A context of families with these sizes (default NeoX, five sizes)."""
    return Context(sizes or {"NeoX": 5}, n_boot=2)


def outcomes(verdict):
    """The verdict's outcome per unit, by its structured unit."""
    return dict(verdict.outcomes)


def case(k, n=None, corpus="pydocs", family="NeoX"):
    return Unit(corpus, family, setting=f"k={k}" + ("" if n is None else f"/N={n}"))


def everywhere(value):
    """The same value at every case of the grid."""
    return {(k, n): value for k in KS for n in NS}


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_a4_1_power_law_holds_above_the_bar_and_fails_below_it_or_rising_on_the_intervals():
    bar = a4.A4_MIN_R2
    above = bent(0.0, (0.0, 0.0, 0.1, -0.1))  # R^2 1 on the data, at least 0.99 on every resample
    assert above.law_intervals(1, 2)[0][0] > bar
    v = a4.power_laws_verdict({("pydocs", "NeoX"): above}, context())
    assert (v.key, v.verdict, v.units_text) == ("A4.1", "reproduced", f"{len(KS) * len(NS)} of {len(KS) * len(NS)}")
    assert outcomes(v)[case(1, 2)] == "holds" and case(1, 2).label == "pydocs/NeoX/k=1/N=2"
    below = bent(0.8, (0.0, 0.0, 0.05, -0.05))  # the middle model far off the line on the data and every resample
    assert below.law_intervals(1, 2)[0][1] < bar
    rising = family({(1, 2): PowerLawFit(0.1, 0.0, 0.99, 3)})
    for failing in (below, rising):
        v = a4.power_laws_verdict({("pydocs", "NeoX"): failing}, context())
        assert (v.verdict, outcomes(v)[case(1, 2)]) == ("partly", "fails")
    v = a4.power_laws_verdict({("pydocs", "NeoX"): family({(1, 2): None})}, context())
    assert case(1, 2) not in outcomes(v), "a case with p = 0 for some model is counted, not named"
    v = a4.power_laws_verdict({("pydocs", "NeoX"): family(everywhere(None))}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {Unit(family="NeoX"): "untested"})


def test_a4_1_an_r2_above_the_bar_whose_interval_crosses_it_is_undetermined():
    bar = a4.A4_MIN_R2
    across = bent(0.0, (0.0, 0.0, 0.5, -0.5))  # R^2 1 on the data, 0.85 on half of the resamples
    lo, hi = across.law_intervals(1, 2)[0]
    assert lo < bar < across.fits[1, 2].r2 < hi
    assert fit.falling_law(across.fits[1, 2], bar), "the point reading held it"
    assert a4.power_law(across, 1, 2).outcome == UNDETERMINED
    v = a4.power_laws_verdict({("pydocs", "NeoX"): across}, context())
    cases = len(KS) * len(NS)
    assert (v.verdict, outcomes(v)[case(1, 2)], v.units_text) == ("reproduced", "undetermined",
                                                                  f"{cases - 1} of {cases - 1}, {cases - 1} of {cases} "
                                                                  f"decided")
    assert "across a threshold or without an interval (undetermined): 1" in v.ours
    assert f"R^2 [interval] reaching lowest: NeoX 1.000 {interval_text((lo, hi), sign='')} (pydocs/NeoX/k=1/N=2)" \
        in v.ours
    at_bar = family({(1, 2): PowerLawFit(-0.1, 0.0, bar, 3)})  # no spread: an interval touching the bar
    assert a4.power_law(at_bar, 1, 2).outcome == UNDETERMINED
    no_run = family()
    no_run.replicates[0, 0, NS.index(2), KS.index(1)] = 0.0  # a resample where the first model completes no run
    assert no_run.law_intervals(1, 2) == (None, None) and a4.power_law(no_run, 1, 2).outcome == UNDETERMINED
    everywhere_across = family(everywhere(PowerLawFit(-0.1, 0.0, bar, 3)))
    v = a4.power_laws_verdict({("pydocs", "NeoX"): everywhere_across}, context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", a2.ACROSS_LAW.split(";")[0])


def test_a4_1_r2s_interval_is_refitted_on_the_replicates_the_slopes_come_from():
    e = bent(0.2, (0.0, 0.3, -0.2, 0.1))
    i, j = NS.index(2), KS.index(1)
    log_s = np.log(SIZES)
    refits = [np.polyfit(log_s, np.log(-np.log(e.replicates[b, :, i, j])), 1) for b in range(4)]
    r2 = [1 - np.var(np.log(-np.log(e.replicates[b, :, i, j])) - np.polyval(line, log_s))
          / np.var(np.log(-np.log(e.replicates[b, :, i, j]))) for b, line in enumerate(refits)]
    r2_bounds, slope_bounds = e.law_intervals(1, 2)
    assert r2_bounds == pytest.approx(bootstrap.interval(e.fits[1, 2].r2, r2, bootstrap.LEVEL))
    assert slope_bounds == pytest.approx(bootstrap.interval(e.fits[1, 2].slope, [line[0] for line in refits],
                                                            bootstrap.LEVEL))
    assert a4.CLAIMS_A4["A4.1"].rule.count(INTERVAL) == 1 and ONE_READING in a4.CLAIMS_A4["A4.1"].rule
    assert a2.law_rule(bar=a4.A4_MIN_R2) in a4.CLAIMS_A4["A4.1"].rule


def test_a4_size_claims_test_only_the_families_with_enough_sizes_and_name_the_others():
    evidence = {("pydocs", "NeoX"): family(), ("pydocs", "Llama"): family()}
    for rule in (a4.power_laws_verdict, a4.same_exponent_verdict, a4.sigmoid_verdict):
        v = rule(evidence, context(NeoX=5, Llama=2))
        assert {unit.family for unit in outcomes(v)} <= {"NeoX"}, rule.__name__
        v = rule(evidence, context(NeoX=2, Llama=2))
        assert (v.verdict, v.outcomes) == ("not testable on this set", ()), rule.__name__
        assert v.ours.startswith("no family has 3 or more sizes (NeoX: 2 sizes, fewer than 3; Llama: 2 sizes")
    v = a4.power_laws_verdict(evidence, context(NeoX=5, Llama=2))
    assert v.ours.endswith("; left out: Llama: 2 sizes, fewer than 3")


def test_a4_2_same_exponent_reads_the_ratio_of_exponents_against_the_closeness_band():
    low, high = claims.A_CLOSE
    v = a4.same_exponent_verdict({("pydocs", "NeoX"): family(exponents={(1, 2): (low, high)})}, context())
    assert (v.key, v.verdict, outcomes(v)[case(1, 2)]) == ("A4.2", "reproduced", "holds"), "the band's edges are in"
    v = a4.same_exponent_verdict({("pydocs", "NeoX"): family(exponents={(1, 2): (high + 1e-9, 2.0)})}, context())
    assert (v.verdict, outcomes(v)[case(1, 2)]) == ("partly", "fails"), "wholly outside the band"
    v = a4.same_exponent_verdict({("pydocs", "NeoX"): family(exponents={(1, 2): (1.1, 1.5)})}, context())
    cases = len(KS) * (len(NS) - 1)
    assert (v.verdict, outcomes(v)[case(1, 2)]) == ("reproduced", "undetermined"), \
        "across an edge the data do not decide: neither held nor failed (the old reading of a difference failed it)"
    assert v.units_text == f"{cases - 1} of {cases - 1}, {cases - 1} of {cases} decided"
    assert case(1, 1) not in outcomes(v), "N = 1 is the reference, not a case"
    v = a4.same_exponent_verdict({("pydocs", "NeoX"): family(exponents=everywhere((1.1, 1.5)))}, context())
    assert v.verdict == "undetermined" and v.ours.startswith(a4.ACROSS_EDGE)
    v = a4.same_exponent_verdict({("pydocs", "NeoX"): family(exponents=everywhere(None))}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {Unit(family="NeoX"): "untested"})


def test_a4_2_and_a4_3_name_a_case_whose_interval_ends_at_an_edge_of_the_band():
    high = claims.A_CLOSE[1]
    at_edge = (0.9, high - 0.001)  # inside, its end within the bootstrap's noise of the band's edge
    v = a4.same_exponent_verdict({("pydocs", "NeoX"): family(exponents={(1, 2): at_edge})}, context())
    assert (outcomes(v)[case(1, 2)], v.fragile) == ("holds", (case(1, 2),))
    assert case(1, 2).label in v.ours.split("at the edge of the threshold: ")[1]
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios={(1, 4): at_edge})}, context())
    assert (outcomes(v)[case(1, 4)], v.fragile) == ("holds", (case(1, 4),))
    assert a4.same_exponent_verdict({("pydocs", "NeoX"): family()}, context()).fragile == ()


def test_a4_3_amplified_reads_the_ratio_against_the_closeness_band():
    low, high = claims.A_CLOSE
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios={(1, 2): (low, high)})}, context())
    assert (v.key, v.verdict, outcomes(v)[case(1, 2)]) == ("A4.3", "reproduced", "holds"), "the band's edges are in"
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios={(1, 2): (0.5, low - 1e-9)})}, context())
    assert (v.verdict, outcomes(v)[case(1, 2)]) == ("partly", "fails")
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios={(1, 2): (0.5, 0.9)})}, context())
    assert (v.verdict, outcomes(v)[case(1, 2)]) == ("reproduced", "undetermined")
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios=everywhere((0.5, 0.9)))}, context())
    assert v.verdict == "undetermined"
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios=everywhere(None))}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {Unit(family="NeoX"): "untested"})
    v = a4.amplified_verdict({("pydocs", "NeoX"): family()}, context(NeoX=1))
    assert v.verdict == "reproduced", "a property of each model: a family of one size is graded too"


def test_a4_3_a_measured_ratio_whose_resamples_lack_a_run_is_undetermined_and_named():
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(open_ended={(10, 16): 3})}, context())
    cases = len(KS) * (len(NS) - 1)
    assert (v.verdict, outcomes(v)[case(10, 16)], v.measured, v.tested) == ("reproduced", "undetermined", cases,
                                                                           cases - 1)
    assert a4.amplified(family(open_ended={(10, 16): 3}), 10, 16) == a4.Reading(claims.UNDETERMINED)
    assert a4.unbounded(family(open_ended={(10, 16): 3}), 10, 16) == 3
    assert "pydocs/NeoX/k=10/N=16 0.60 (3 of 4 resamples without a run)" in v.ours.split("unbounded (undetermined): ")[1]
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(ratios={(10, 16): None})}, context())
    assert case(10, 16) not in outcomes(v) and v.measured == cases - 1, "no ratio on the data: not measured"
    v = a4.amplified_verdict({("pydocs", "NeoX"): family(open_ended=everywhere(1))}, context())
    assert (v.verdict, v.measured, v.tested) == ("undetermined", cases, 0)


def test_a4_4_transition_widths_are_eq_8s():
    alpha = 0.25
    widths = a4.transition_widths(PowerLawFit(-alpha, 1.0, 0.99, 3), NS)
    by_hand = (np.log(-np.log(a4.A4_TRANSITION[0])) - np.log(-np.log(a4.A4_TRANSITION[1]))) / alpha / np.log(10)
    assert widths == pytest.approx([by_hand] * len(NS))


def test_a4_4_sharpens_at_the_factor(monkeypatch):
    v = a4.sharpens_verdict({("pydocs", "NeoX"): family(), ("stdlib", "NeoX"): family()}, context())
    assert (v.key, v.kind, v.verdict) == ("A4.4", "analytic", "not reproduced"), "eq. 8 never sharpens"
    assert set(outcomes(v)) == {case(k, corpus=c) for c in ("pydocs", "stdlib") for k in KS}
    assert v.finding == a4.CLAIMS_A4["A4.4"].finding
    monkeypatch.setattr(a4, "transition_widths", lambda law, ns: np.array([10.0, 10.0 * a4.A4_SHARPER - 1e-9]))
    assert a4.sharpens(LAW, NS) is True
    monkeypatch.setattr(a4, "transition_widths", lambda law, ns: np.array([10.0, 10.0 * a4.A4_SHARPER]))
    assert a4.sharpens(LAW, NS) is False
    monkeypatch.undo()
    rising = {k: PowerLawFit(0.1, 0.0, 0.99, 3) for k in KS}
    v = a4.sharpens_verdict({("pydocs", "NeoX"): family(laws=rising)}, context())
    assert (v.verdict, v.outcomes) == ("not testable on this set", ()), "a rising law has no transition"


def test_a4_5_sigmoid_holds_on_a_family_whose_cases_of_n_2_or_more_across_the_inflection_rise():
    inflection, unit = np.exp(-1), Unit("pydocs", "NeoX")
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): family(success={(1, 2): (0.1, inflection - 1e-9, 0.9)})}, context())
    assert (v.key, v.verdict, outcomes(v), v.units_text) == ("A4.5", "reproduced", {unit: "holds"}, "1 of 1")
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): family(success={(1, 2): (0.1, 0.9, 0.8)})}, context())
    assert (v.verdict, outcomes(v)) == ("not reproduced", {unit: "fails"}), "it must rise"
    weak = {(1, 2): PowerLawFit(-0.5, 0.0, a4.A4_MIN_R2 - 1e-9, 3)}
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): family(weak, success={(1, 2): (0.1, 0.5, 0.9)})}, context())
    assert outcomes(v) == {unit: "fails"}
    both = family(success={(1, 2): (0.1, 0.5, 0.9), (10, 4): (0.1, 0.9, 0.8)})
    assert outcomes(a4.sigmoid_verdict({("pydocs", "NeoX"): both}, context())) == {unit: "fails"}, \
        "a family holds only where every case across 1/e holds"


def test_a4_5_reads_every_step_and_the_law_on_their_intervals():
    """A rise whose interval crosses 0 is within noise: the case, and the family, undetermined, where the point
    reading held them; a fall beyond noise fails it, whatever the noise elsewhere."""
    unit, p = Unit("pydocs", "NeoX"), np.array([0.1, 0.5, 0.9])
    e = family(fits={(1, 2): fit.fit_power_law(SIZES, -np.log(p))}, success={(1, 2): p})
    assert outcomes(a4.sigmoid_verdict({("pydocs", "NeoX"): e}, context())) == {unit: "holds"}
    e.replicates[:, 1, NS.index(2), KS.index(1)] = [0.05, 0.95, 0.1, 0.9]  # the middle model's p all over the place
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): e}, context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {unit: "undetermined"})
    assert "within noise" in v.ours
    falling = family(success={(1, 2): (0.1, 0.9, 0.8)})
    falling.replicates[:, 0, NS.index(2), KS.index(1)] = [0.05, 0.2, 0.1, 0.15]  # the first step's noise
    assert outcomes(a4.sigmoid_verdict({("pydocs", "NeoX"): falling}, context())) == {unit: "fails"}


def test_a4_5_n_1_is_not_counted_and_one_arm_leaves_the_family_undetermined():
    inflection, unit = np.exp(-1), Unit("pydocs", "NeoX")
    token_level = family(success={(10, 1): (0.1, 0.5, 0.9)})  # top-10 accuracy crosses 1/e; no N >= 2 case does
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): token_level}, context())
    assert (v.verdict, outcomes(v), v.tested, v.measured) == ("undetermined", {unit: "undetermined"}, 0, 1), \
        "N = 1 is top-k accuracy, not emergence"
    assert "N = 1 (top-k accuracy, not counted): pydocs/NeoX/k=10/N=1: p 0.10-0.90 (holds)" in v.ours
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): family(success={(1, 2): (inflection, 0.5, 0.9)})}, context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {unit: "undetermined"}), \
        "a case starting at 1/e shows one arm only"
    unfitted = family({(1, 2): None}, success={(1, 2): (0.1, 0.5, 0.9)})
    assert outcomes(a4.sigmoid_verdict({("pydocs", "NeoX"): unfitted}, context())) == {unit: "undetermined"}
    unmeasured = family(success={(k, n): (np.nan,) * 3 for k in KS for n in NS[1:]})
    v = a4.sigmoid_verdict({("pydocs", "NeoX"): unmeasured}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {unit: "untested"})


def test_a4_5_a_minority_of_families_decided_leaves_it_undetermined():
    crossing = family(success={(1, 2): (0.1, 0.5, 0.9)})
    evidence = {("pydocs", "NeoX"): crossing, ("stdlib", "NeoX"): family(), ("humaneval", "NeoX"): family()}
    v = a4.sigmoid_verdict(evidence, context())
    assert (v.verdict, v.held, v.tested, v.measured) == ("undetermined", 1, 1, 3)


def test_decide_gives_one_verdict_per_claim_in_order():
    evidence = {(c, fam): family() for c in ("pydocs", "stdlib") for fam in ("NeoX", "Llama")}
    verdicts = a4.SPEC.decide(evidence, context(NeoX=5, Llama=5))
    assert [v.key for v in verdicts] == list(a4.CLAIMS_A4)
    assert {unit.family for v in verdicts for unit, _ in v.outcomes} == {"NeoX", "Llama"}
    assert [v.verdict for v in a4.SPEC.decide(evidence, context(NeoX=2, Llama=2))][:2] == ["not testable on this set"] * 2


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB = 300
WINDOW = 50


def run(family, size, seed):
    """A model of ``size`` non-embedding parameters whose targets rank better the larger it is, on 12 windows."""
    rng = np.random.default_rng(seed)
    n = 12 * WINDOW
    gt = np.minimum(rng.lognormal(1.5 - 0.3 * np.log10(size), 1.2, n).astype(np.int32), VOCAB - 1)
    records = Records(logp=np.zeros(n, np.float32), gt=gt, ge=gt, target=np.zeros(n, np.int32),
                      window=np.repeat(np.arange(n // WINDOW), WINDOW).astype(np.int32),
                      document=np.repeat(np.arange(n // WINDOW), WINDOW).astype(np.int64),
                      top_logp=np.zeros((n, 1), np.float32), manifest=SimpleNamespace(vocab_size=VOCAB))
    return Run(family, f"{family}-{size:g}", None, size, 2 * size, records)


SYNTHETIC_SIZES = {"NeoX": [1e3, 1e4, 1e5, 1e6], "Mono": [5e4]}


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run(fam, size, 10 * c + i) for fam, sizes in SYNTHETIC_SIZES.items()
                            for i, size in enumerate(sizes)] for c, corpus in enumerate(("pydocs", "stdlib"))}
    context = Context.of(family_runs["pydocs"], n_boot=16)
    return family_runs, context, a4.measure(Chapter.of(family_runs, 16), context)


def test_measure_counts_every_family_on_every_corpus(synthetic):
    family_runs, context, evidence = synthetic
    assert list(evidence) == [(c, fam) for c in ("pydocs", "stdlib") for fam in ("NeoX", "Mono")], \
        "a family of one size is measured too (A4.3 reads every model)"
    for (corpus, family), e in evidence.items():
        members = [r for r in family_runs[corpus] if r.family == family]
        assert e.models == tuple(r.name for r in members) and e.replicates.shape == (16, len(members), len(NS), len(KS))
        for m, r in enumerate(members):
            rank = metrics.rank_1based(r.records.gt, r.records.ge)
            for i, n in enumerate(NS):
                np.testing.assert_allclose(e.success[m, i], window_success(rank, r.records.window, n, KS))
    assert evidence["pydocs", "Mono"].gaps is None and all(f is None for f in evidence["pydocs", "Mono"].fits.values())


def test_measure_fits_what_a_fit_by_hand_gives(synthetic):
    _, _, evidence = synthetic
    e = evidence["pydocs", "NeoX"]
    for j, k in enumerate(KS):
        for i, n in enumerate(NS):
            p = e.success[:, i, j]
            if (p <= 0).any() or (p >= 1).any():
                assert e.fits[k, n] is None
                continue
            by_hand = fit.fit_power_law(e.sizes, -np.log(p))
            assert (e.fits[k, n].slope, e.fits[k, n].r2) == pytest.approx((by_hand.slope, by_hand.r2))
            if n == 1:
                assert e.token_laws[k].slope == pytest.approx(by_hand.slope)
            else:  # A4.2's interval: the ratio of the slopes refitted on every replicate, by hand
                if not ((e.replicates[:, :, [0, i], j] > 0) & (e.replicates[:, :, [0, i], j] < 1)).all():
                    assert e.exponent_ratio_interval(k, n) is None, "a replicate without a fit leaves no interval"
                    continue
                boot = [np.polyfit(np.log(e.sizes), np.log(-np.log(r[:, i, j])), 1)[0]
                        / np.polyfit(np.log(e.sizes), np.log(-np.log(r[:, 0, j])), 1)[0] for r in e.replicates]
                ratio = by_hand.slope / e.token_laws[k].slope
                assert e.exponent_ratio(k, n) == pytest.approx(ratio)
                assert e.exponent_ratio_interval(k, n) == pytest.approx(bootstrap.interval(ratio, boot, bootstrap.LEVEL))
                ratios = -np.log(p) / (n * -np.log(e.success[:, 0, j]))
                assert e.ratio[i, j] == pytest.approx(np.exp(np.mean(np.log(ratios))))


def test_measure_takes_its_seed_from_the_context(synthetic):
    family_runs, context, evidence = synthetic
    again = a4.measure(Chapter.of(family_runs, 16), context)
    np.testing.assert_array_equal(again["pydocs", "NeoX"].replicates, evidence["pydocs", "NeoX"].replicates)
    other_seed = a4.measure(Chapter.of(family_runs, 16), Context(context.sizes, 16, seed=1))
    assert not np.array_equal(other_seed["pydocs", "NeoX"].replicates, evidence["pydocs", "NeoX"].replicates)


def test_measure_decides_and_lays_out_its_tables(synthetic):
    _, context, evidence = synthetic
    verdicts = a4.SPEC.decide(evidence, context)
    assert [v.key for v in verdicts] == list(a4.CLAIMS_A4)
    assert len(a4.fits_table(evidence)) == len(evidence) * len(KS) * len(NS)
    assert len(a4.amplification_table(evidence)) == len(evidence) * len(KS) * (len(NS) - 1)
    success = a4.success_table(evidence)
    assert len(success) == sum(len(e.models) for e in evidence.values()) * len(KS) * len(NS)
    longer = success[success["N"] > 1]["-log measured / (N * -log RBP_k)"].dropna()
    assert sorted(longer) == pytest.approx(sorted(a4.model_ratios(evidence)))
    widths = a4.widths_table(evidence)
    assert list(widths.columns) == list(a4.WIDTH_COLUMNS) and set(widths["N"]) <= set(NS)


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes
