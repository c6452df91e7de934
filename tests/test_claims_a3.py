"""Chapter A3 (``rankscale.claims.a3``): its measure on small synthetic runs, checked against fits done by hand;
each claim's rule made to hold, fail and stay undecided (or untested) on constructed evidence, read from the
verdicts' structured outcomes; its context; and its notebook, which explains and calls, but computes nothing."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rankscale import RankscaleError, claims
from rankscale.analysis import bootstrap, fit
from rankscale.analysis.bootstrap import INTERVAL, interval_text
from rankscale.analysis.fit import Bootstrap, OffsetBootstrap, OffsetPowerLawFit, PowerLawFit
from rankscale.claims.reference import reference_table
from rankscale.claims import a2, a3
from rankscale.claims.base import ONE_READING, Reading, Unit, fittable
from rankscale.claims.context import Chapter, Context
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "a3_k_dependence.py"

# ---------------------------------------------------------------------------------------------
# Constructed evidence

VOCAB = 4096  # paper A's k = 1000 is k < 81.5 here, and "near the vocabulary" k >= 1638.4
GRID = (1, 10, 100, 2048, 4000)
GOOD = {1: (-0.05, 0.99), 10: (-0.1, 0.99), 100: (-0.2, 0.99), 2048: (-0.3, 0.5), 4000: (-0.3, 0.4)}
UNITS = [("pydocs", "NeoX"), ("stdlib", "NeoX")]
NEOX = [Unit(*unit) for unit in UNITS]


def sweep(rbp, ce=(-0.1, 0.99), spread=None, grid=GRID, offsets=None):
    """A KSweep whose bootstrap has two replicates per entry, value -+ spread (so an interval is value -+
    1.96 spread, and a paired difference of two entries spreads by the difference of their spreads).

    rbp : {k: (slope, R^2) or None (not fittable)}; spread : {"CE" or k: (slope spread, R^2 spread)}.
    """
    spread = spread or {}
    ks = tuple(rbp)
    entries = [ce, *(rbp[k] or (np.nan, np.nan) for k in ks)]
    spreads = [spread.get(name, (0.0, 0.0)) for name in ("CE", *ks)]
    slopes, r2 = (np.array([[v[i] - d[i], v[i] + d[i]] for v, d in zip(entries, spreads)]) for i in (0, 1))
    fits = {k: None if rbp[k] is None else PowerLawFit(rbp[k][0], 0.0, rbp[k][1], 3,
                                                       bootstrap.interval(rbp[k][0], slopes[1 + i]))
            for i, k in enumerate(ks)}
    return a3.KSweep(PowerLawFit(ce[0], 0.0, ce[1], 3), fits, Bootstrap([None] * len(entries), slopes, r2), ks,
                     grid, VOCAB, offsets=offsets)


def table1(ratio=1.0):
    """A Table 1 of one data set and family: CE, and k = 1, 10, 100, 500 and 10,000."""
    rows = [(np.nan, -0.1, 0.99), (1.0, -0.1 * ratio, 0.98), (10.0, -0.15, 0.98), (100.0, -0.2, 0.97),
            (500.0, -0.25, 0.95), (10000.0, -0.3, 0.6)]
    return pd.DataFrame([{"dataset": "Wikipedia", "family": "Pythia", "k": k, "slope": s, "r2": r} for k, s, r in rows])


def context(table=None, **sizes):
    """A context of families with these sizes (default NeoX and Llama, five each) and ``table`` as Table 1."""
    return Context(sizes or {"NeoX": 5, "Llama": 5}, n_boot=2,
                   tables={a3.TABLE1: table1() if table is None else table})


def outcomes(verdict):
    """The verdict's outcome per unit, by its structured unit."""
    return dict(verdict.outcomes)


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_a3_1_r2_bound_holds_above_the_bar_and_fails_below_it_or_rising_on_the_intervals():
    bar = claims.A3_MIN_R2
    above = sweep({**GOOD, 10: (-0.1, 0.95)}, spread={10: (0.01, 0.02)})  # R^2 0.95 -+ 1.96 x 0.02: above 0.9
    assert above.r2_interval(10)[0] > bar
    v = a3.r2_bound_verdict({UNITS[0]: above, UNITS[1]: sweep(GOOD)}, context())
    assert (v.key, v.verdict, outcomes(v)) == ("A3.1", "reproduced", {NEOX[0]: "holds", NEOX[1]: "holds"}), \
        "R^2's interval above the bar passes; k near |V| is not graded"
    assert v.ours.startswith(f"pydocs/NeoX: R^2 reaching lowest 0.950 {interval_text(above.r2_interval(10), sign='')} "
                             f"(k=10) for k < 82")
    assert v.paper.endswith("Table 1 (k = 1-500): 1 of 1 (dataset, family) pass this rule")
    below = sweep({**GOOD, 10: (-0.1, 0.85)}, spread={10: (0.01, 0.02)})  # 0.85 -+ 0.039: below the bar
    assert below.r2_interval(10)[1] < bar
    v = a3.r2_bound_verdict({UNITS[0]: below, UNITS[1]: sweep(GOOD)}, context())
    assert (v.verdict, outcomes(v)[NEOX[0]], v.units_text) == ("partly", "fails", "1 of 2")
    for failing in (sweep({**GOOD, 1: (0.05, 0.99)}), sweep({**GOOD, 1: None})):  # rising; not fittable
        assert outcomes(a3.r2_bound_verdict({UNITS[0]: failing}, context()))[NEOX[0]] == "fails"


def test_a3_1_an_r2_above_the_bar_whose_interval_crosses_it_is_undetermined():
    bar = claims.A3_MIN_R2
    across = sweep({**GOOD, 10: (-0.1, 0.92)}, spread={10: (0.0, 0.05)})  # 0.92 -+ 0.098
    assert fit.falling_law(across.rbp[10], bar), "the point reading held it"
    assert a3.r2_bound(across).outcome == claims.UNDETERMINED
    v = a3.r2_bound_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: across}, context())
    assert (v.verdict, outcomes(v)) == ("reproduced", {NEOX[0]: "holds", NEOX[1]: "undetermined"})
    assert f"stdlib/NeoX: R^2 reaching lowest 0.920 {interval_text(across.r2_interval(10), sign='')} (k=10)" in v.ours
    v = a3.r2_bound_verdict({UNITS[0]: across}, context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", a2.ACROSS_LAW.split(";")[0])
    assert a3.r2_bound(sweep({**GOOD, 10: (-0.1, bar)})).outcome == claims.UNDETERMINED, "an interval touching the bar"
    flat = sweep({**GOOD, 1: (-0.01, 0.99)}, spread={1: (0.02, 0.0)})  # slope -0.01 -+ 0.039: across 0
    assert a3.r2_bound(flat).outcome == claims.UNDETERMINED, "a slope whose interval holds 0 does not show a fall"
    unfitted = sweep(GOOD, spread={10: (0.0, np.nan)})  # a replicate without R^2
    assert a3.r2_bound(unfitted).outcome == claims.UNDETERMINED
    assert a3.r2_bound(sweep({**GOOD, 10: (-0.1, 0.8)}, spread={1: (0.0, np.nan)})).outcome is False, \
        "one k wholly below the bar fails, whatever the others"
    assert a3.r2_bound_verdict({UNITS[0]: sweep(GOOD)}, context(table1().assign(r2=0.5))).paper.endswith(
        "0 of 1 (dataset, family) pass this rule"), "the paper's own table under the same rule"


def test_a3_rules_test_only_the_families_with_enough_sizes_and_name_the_others():
    evidence = {UNITS[0]: sweep(GOOD), ("pydocs", "Llama"): sweep(GOOD)}
    v = a3.r2_bound_verdict(evidence, context(NeoX=5, Llama=2))
    assert outcomes(v) == {NEOX[0]: "holds"} and v.ours.endswith("; left out: Llama: 2 sizes, fewer than 3")
    v = a3.r2_bound_verdict(evidence, context(NeoX=2, Llama=2))
    assert (v.verdict, v.outcomes) == ("not testable on this set", ())
    assert v.ours == "no family has 3 or more sizes (NeoX: 2 sizes, fewer than 3; Llama: 2 sizes, fewer than 3)", \
        "the reason once, without an empty measurement after it"


def test_a3_2_r2_drop_below_zero_holds_above_fails_across_is_undetermined():
    wide = {2048: (0.0, 0.4), 4000: (0.0, 0.4)}  # the difference's interval: -0.54 -+ 1.96 x 0.4
    rise = {**GOOD, 2048: (-0.3, 0.995), 4000: (-0.3, 0.995)}  # R^2 higher near the vocabulary: +0.005
    flat = {**GOOD, 2048: (-0.3, 0.99), 4000: (-0.3, 0.99)}
    v = a3.r2_drop_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: sweep(rise)}, context())
    assert (v.key, v.verdict, outcomes(v)) == ("A3.2", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert "in 1 of 1 (dataset, family)" in v.paper
    assert a3.r2_drops(sweep(GOOD, spread=wide)) == Reading(claims.UNDETERMINED), \
        "a drop within the noise is not shown, and not refuted either"
    v = a3.r2_drop_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: sweep(GOOD, spread=wide)}, context())
    assert (v.verdict, outcomes(v)) == ("reproduced", {NEOX[0]: "holds", NEOX[1]: "undetermined"})
    v = a3.r2_drop_verdict({UNITS[0]: sweep(flat)}, context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", "every interval of the difference crosses zero"), \
        "no change: an interval at zero decides nothing"
    v = a3.r2_drop_verdict({UNITS[0]: sweep({**GOOD, 2048: None, 4000: None})}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_r2_drop_is_the_paired_difference_of_means_over_the_k_fitted_on_every_resample():
    rng = np.random.default_rng(0)
    s = sweep(GOOD)
    r2 = s.boot.r2.copy()
    r2[:, :] = rng.uniform(0.3, 1.0, r2.shape)
    r2[1 + GRID.index(2048), 1] = np.nan  # k = 2048 not fitted on one resample: left out of both sides
    s = a3.KSweep(s.ce, s.rbp, Bootstrap([None] * 6, s.boot.slopes, r2), s.ks, s.grid, s.vocab)
    interval, near = a3.r2_drop(s)
    below = [k for k in GRID if k < 1000 * VOCAB / claims.PAPER_A_VOCAB]
    value = GOOD[4000][1] - np.mean([GOOD[k][1] for k in below])
    replicates = r2[1 + GRID.index(4000)] - r2[[1 + GRID.index(k) for k in below]].mean(axis=0)
    z = 1.959963984540054
    assert near == [4000] and below == [1, 10]
    assert interval == pytest.approx((value - z * replicates.std(), value + z * replicates.std()))


def test_a3_3_exponent_grows_above_zero_holds_below_fails_across_is_undetermined():
    assert a3.exponent_grows(sweep(GOOD)) == Reading(True)
    assert a3.exponent_grows(sweep({**GOOD, 100: (-0.05, 0.99)})).outcome == claims.UNDETERMINED, \
        "an equal exponent (an interval at zero) decides nothing"
    assert a3.exponent_grows(sweep({**GOOD, 100: (-0.05 - 1e-9, 0.99)})).outcome is True
    assert a3.exponent_grows(sweep({**GOOD, 100: (-0.01, 0.99)})).outcome is False, "a smaller exponent at k = 100"
    assert a3.exponent_grows(sweep(GOOD, spread={100: (0.1, 0.0)})).outcome == claims.UNDETERMINED, \
        "an interval holding 0 is neither growth nor its absence"
    assert a3.exponent_grows(sweep({**GOOD, 100: None})) == Reading(None)
    v = a3.exponent_grows_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: sweep({**GOOD, 100: (-0.01, 0.99)})}, context())
    assert (v.key, v.verdict, outcomes(v)) == ("A3.3", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert v.paper.endswith("alpha(100) > alpha(1) in 1 of 1 (dataset, family)")
    v = a3.exponent_grows_verdict({UNITS[0]: sweep(GOOD, spread={100: (0.1, 0.0)})}, context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {NEOX[0]: "undetermined"})
    v = a3.exponent_grows_verdict({UNITS[0]: sweep({**GOOD, 100: None})}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_a3_3_an_interval_ending_at_zero_is_flagged_fragile():
    # alpha(100) - alpha(1) = 0.15 -+ 1.96 x d: its lower end just above zero (d 0.0761) or just below (d 0.0768),
    # either way within a tenth of the half-width of it; far from it for d 0.05
    above, below = (sweep(GOOD, spread={100: (d, 0.0)}) for d in (0.0761, 0.0768))
    assert above.alpha_difference(100, 1)[0] == pytest.approx(0.0008, abs=1e-4)
    assert a3.exponent_grows(above) == Reading(True, fragile=True)
    assert a3.exponent_grows(below) == Reading(claims.UNDETERMINED, fragile=True)
    assert a3.exponent_grows(sweep(GOOD, spread={100: (0.05, 0.0)})) == Reading(True)
    v = a3.exponent_grows_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: above}, context())
    assert (v.verdict, v.fragile) == ("reproduced", (NEOX[1],))
    assert v.ours.endswith("(at the edge of the threshold: stdlib/NeoX)")


def test_a3_4_exponents_sized_at_the_band_edges():
    below, (low, high) = claims.A3_ALPHA_K1_BELOW, claims.A3_ALPHA_K100_BAND
    assert a3.exponents_sized(below - 1e-9, low) and not a3.exponents_sized(below, low)
    assert not a3.exponents_sized(0.05, high) and a3.exponents_sized(0.05, high - 1e-9)
    assert not a3.exponents_sized(0.05, low - 1e-9)
    v = a3.exponent_sizes_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: sweep({**GOOD, 1: (-0.2, 0.99)})}, context())
    assert (v.key, v.verdict, outcomes(v)) == ("A3.4", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert "(0 of 1 below 0.1), alpha(100) 0.200-0.200 (1 of 1 in [0.15, 0.25)); both: 0" in v.paper
    v = a3.exponent_sizes_verdict({UNITS[0]: sweep({**GOOD, 100: None})}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_a3_5_slope_ratio_inside_outside_and_across_the_band():
    inside = sweep(GOOD, ce=(-0.05, 0.99))  # ratio 1
    outside = sweep(GOOD, ce=(-0.01, 0.99))  # ratio 5
    across = sweep(GOOD, ce=(-0.05, 0.99), spread={1: (0.01, 0.0)})  # ratio 1 -+ 0.39
    v = a3.slope_ratio_verdict({UNITS[0]: inside, UNITS[1]: across}, context())
    assert (v.key, v.verdict, v.held, v.tested, v.measured) == ("A3.5", "reproduced", 1, 1, 2)
    assert outcomes(v) == {NEOX[0]: "holds", NEOX[1]: "undetermined"}
    assert a3.slope_ratio_verdict({UNITS[1]: across}, context()).verdict == "undetermined"
    assert outcomes(a3.slope_ratio_verdict({UNITS[0]: outside}, context())) == {NEOX[0]: "fails"}
    assert a3.slope_ratio_verdict({UNITS[0]: outside}, context(table1(ratio=2.0))).paper.startswith(
        "very close in most cases; Table 1: ratio 2.00-2.00 (median 2.00), 0 of 1 within [0.74, 1.32]")
    low = claims.A_CLOSE[0]
    at_edge = sweep(GOOD, ce=(-0.05 / low, 0.99))  # ratio exactly the band's lower edge: inside
    assert outcomes(a3.slope_ratio_verdict({UNITS[0]: at_edge}, context())) == {NEOX[0]: "holds"}
    below = sweep(GOOD, ce=(-0.05 / (low - 1e-6), 0.99))
    assert outcomes(a3.slope_ratio_verdict({UNITS[0]: below}, context())) == {NEOX[0]: "fails"}
    v = a3.slope_ratio_verdict({UNITS[0]: sweep({**GOOD, 1: None})}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_a3_5_a_ratio_ending_at_the_bands_edge_is_flagged_fragile():
    high = claims.A_CLOSE[1]
    # ratio 1.2 -+ 1.96 x 24 d: its upper end 0.002 below the band's upper edge
    at_edge = sweep(GOOD, ce=(-0.05 / 1.2, 0.99), spread={1: (0.002508, 0.0)})
    assert at_edge.slope_ratio()[1] == pytest.approx(high - 0.002, abs=1e-4)
    v = a3.slope_ratio_verdict({UNITS[0]: sweep(GOOD, ce=(-0.05, 0.99)), UNITS[1]: at_edge}, context())
    assert (v.verdict, outcomes(v), v.fragile) == ("reproduced", {NEOX[0]: "holds", NEOX[1]: "holds"}, (NEOX[1],))
    assert "at the edge of the threshold: stdlib/NeoX" in v.ours


def test_a3_6_level_is_the_values_that_round_to_the_papers():
    assert claims.A3_R2_LEVEL_BAR == pytest.approx(claims.A3_R2_LEVEL - 0.5 * 10 ** -a3.A3_R2_LEVEL_DIGITS)
    assert round(claims.A3_R2_LEVEL_BAR + 1e-9, a3.A3_R2_LEVEL_DIGITS) == claims.A3_R2_LEVEL
    assert round(claims.A3_R2_LEVEL_BAR - 1e-9, a3.A3_R2_LEVEL_DIGITS) < claims.A3_R2_LEVEL


def test_a3_6_holds_at_the_level_and_close_on_unexplained_variance():
    bar, (low, high) = claims.A3_R2_LEVEL_BAR, claims.A_CLOSE
    ce = 0.99  # CE leaves 0.01 unexplained
    assert a3.r2_comparable(sweep(GOOD)) == Reading(True)
    # at the bar and as close as the band's upper edge allows: 1 - R^2 = high x 0.01
    edge = sweep({**GOOD, 10: (-0.1, 1 - high * (1 - ce))}, ce=(-0.1, ce))
    assert a3.r2_close(edge, 10).outcome is True and a3.r2_level(edge, 10).outcome is True
    v = a3.r2_comparable_verdict({UNITS[0]: sweep(GOOD), UNITS[1]: sweep({**GOOD, 1: (-0.05, 0.95)})}, context())
    assert (v.key, v.verdict, outcomes(v), v.units_text) == ("A3.6", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"},
                                                             "1 of 2")


def test_a3_6_fails_below_the_level_even_where_the_ratio_of_r2_is_in_the_band():
    low = claims.A_CLOSE[0]
    worse = sweep({**GOOD, 10: (-0.1, 0.99 * low)})  # R^2 ratio at the band's edge: the old rule held it
    assert (a3.r2_level(worse, 10).outcome, a3.r2_close(worse, 10).outcome) == (False, False)
    assert a3.r2_comparable(worse).outcome is False
    # at the level, but CE fits far better: 1 - R^2 is ten times CE's
    bar = claims.A3_R2_LEVEL_BAR
    far = sweep({**GOOD, 1: (-0.05, bar + 0.001)}, ce=(-0.1, 1 - (1 - bar) / 10))
    assert (a3.r2_level(far, 1).outcome, a3.r2_close(far, 1).outcome) == (True, False)
    assert outcomes(a3.r2_comparable_verdict({UNITS[0]: far}, context())) == {NEOX[0]: "fails"}
    # both fit well, CE a little worse: RBP_k leaves half of CE's unexplained, outside the band below
    better = sweep(GOOD, ce=(-0.1, 0.98))
    assert a3.r2_close(better, 1).outcome is False, "comparable is two-sided: much better is not comparable"


def test_a3_6_is_undetermined_across_the_level_or_a_band_edge_and_untested_without_a_fit():
    bar = claims.A3_R2_LEVEL_BAR
    across_level = sweep({**GOOD, 100: (-0.2, bar)}, spread={100: (0.0, 0.004)})  # bar -+ 1.96 x 0.004
    assert a3.r2_level(across_level, 100).outcome == claims.UNDETERMINED
    v = a3.r2_comparable_verdict({UNITS[0]: across_level}, context())
    assert (v.verdict, outcomes(v), v.measured, v.tested) == ("undetermined", {NEOX[0]: "undetermined"}, 1, 0)
    noisy_ce = sweep(GOOD, spread={"CE": (0.0, 0.004)})  # CE's 1 - R^2 0.01 -+ 0.004 across the band's edges
    assert (a3.r2_level(noisy_ce, 1).outcome, a3.r2_close(noisy_ce, 1).outcome) == (True, claims.UNDETERMINED)
    assert a3.r2_comparable(sweep({**GOOD, 100: None})) == Reading(None)
    v = a3.r2_comparable_verdict({UNITS[0]: sweep({**GOOD, 100: None})}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_a3_6_grades_the_papers_table_under_the_same_two_parts():
    v = a3.r2_comparable_verdict({UNITS[0]: sweep(GOOD)}, context())
    # table1(): CE 0.99; k = 1, 10 at 0.98, k = 100 at 0.97: none at the level, 1 - R^2 two and three times CE's
    assert v.paper.endswith(f"R^2 0.970 to 0.980, 0 of 3 at least {claims.A3_R2_LEVEL_BAR}; (1 - R^2(RBP_k)) / "
                            f"(1 - R^2(CE)) 2.00 to 3.00, 0 of 3 within [0.74, 1.32]; both: 0")
    good = table1().assign(r2=lambda t: np.where(t["k"].isin(a3.A3_R2_KS), 0.99, t["r2"]))
    assert a3.r2_comparable_verdict({}, context(good)).paper.endswith("3 of 3 within [0.74, 1.32]; both: 3")


def offset(alpha, replicates, floor=1.0):
    point = None if alpha is None else OffsetPowerLawFit(floor, 2.0, alpha, 0.0, 4)
    return OffsetBootstrap(point, np.array(replicates, float))


def with_offsets(ce, rbp1):
    return sweep(GOOD, ce=(-0.02, 0.99), offsets=(ce, rbp1))


def test_a3_7_offset_exponents_in_the_band():
    agree = with_offsets(offset(0.3, [0.3, 0.3]), offset(0.33, [0.33, 0.33]))
    far = with_offsets(offset(0.3, [0.3, 0.3]), offset(0.9, [0.9, 0.9]))
    v = a3.offset_exponents_verdict({UNITS[0]: agree, UNITS[1]: far}, context())
    assert (v.key, v.verdict, outcomes(v)) == ("A3.7", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert agree.offset_ratio() == pytest.approx((1.1, 1.1)) and "without offsets 2.50" in v.ours
    apart = with_offsets(offset(0.3, [0.3, 0.3]), offset(0.9, [0.9, np.nan]))  # a replicate not fitted
    unfitted = with_offsets(offset(None, [np.nan] * 2), offset(0.33, [0.33, 0.33]))
    v = a3.offset_exponents_verdict({UNITS[0]: apart, UNITS[1]: unfitted}, context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {NEOX[0]: "undetermined", NEOX[1]: "untested"}), \
        "measured, but no interval; no fit at all"
    floor = claims.A3_FLOOR_AT_ZERO
    at_bound = with_offsets(offset(0.3, [0.3, 0.3], floor=floor / 2), offset(0.33, [0.33, 0.33]))
    v = a3.offset_exponents_verdict({UNITS[0]: at_bound, UNITS[1]: far}, context())
    assert (v.verdict, v.held, v.tested, v.measured, outcomes(v)) == ("not reproduced", 0, 1, 2,
                                                                      {NEOX[0]: "undetermined", NEOX[1]: "fails"})
    off_bound = with_offsets(offset(0.3, [0.3, 0.3], floor=floor), offset(0.33, [0.33, 0.33]))
    assert a3.offset_exponents_verdict({UNITS[0]: off_bound}, context()).verdict == "reproduced"


def test_a3_7_needs_four_sizes():
    agree = with_offsets(offset(0.3, [0.3, 0.3]), offset(0.33, [0.33, 0.33]))
    v = a3.offset_exponents_verdict({UNITS[0]: agree, ("pydocs", "Llama"): agree}, context(NeoX=4, Llama=3))
    assert outcomes(v) == {NEOX[0]: "holds"} and v.ours.endswith("; left out: Llama: 3 sizes, fewer than 4")
    v = a3.offset_exponents_verdict({UNITS[0]: agree}, context(NeoX=3))
    assert (v.verdict, v.ours) == ("not testable on this set", "no family has 4 or more sizes (NeoX: 3 sizes, fewer "
                                                                "than 4)")


def test_a3_8_families_alike_pairs_families_against_the_band():
    high = claims.A_CLOSE[1]
    neox = sweep(GOOD)  # alpha_1 0.05
    llama = {name: sweep({**GOOD, 1: (-0.05 * r, 0.99)}) for name, r in
             (("inside", 1 / high), ("outside", 1 / high - 1e-6))}
    pair = Unit("pydocs", "NeoX", versus="Llama")
    v = a3.families_alike_verdict({("pydocs", "NeoX"): neox, ("pydocs", "Llama"): llama["inside"]}, context())
    assert (v.key, v.kind, v.verdict, outcomes(v)) == ("A3.8", "beyond the paper", "reproduced", {pair: "holds"}), \
        "a ratio at the band's edge; not a claim of paper A, so not counted among its empirical claims"
    v = a3.families_alike_verdict({("pydocs", "NeoX"): neox, ("pydocs", "Llama"): llama["outside"]}, context())
    assert outcomes(v) == {pair: "fails"}
    noisy = sweep({**GOOD, 1: (-0.05, 0.99)}, spread={1: (0.02, 0.0)})
    v = a3.families_alike_verdict({("pydocs", "NeoX"): neox, ("pydocs", "Llama"): noisy}, context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {pair: "undetermined"})
    v = a3.families_alike_verdict({("pydocs", "NeoX"): neox, ("pydocs", "Llama"): noisy}, context(NeoX=5, Llama=2))
    assert (v.verdict, v.ours) == ("not testable on this set",
                                   "1 family with 3 or more sizes; comparing families needs two (Llama: 2 sizes, "
                                   "fewer than 3)")
    assert v.paper == "Table 1: one family per data set"
    two = pd.concat([table1(), table1().assign(family="GPT2", slope=lambda t: t["slope"] * 2)])
    assert a3.families_alike_verdict({}, context(two)).paper == (
        "Table 1, k = 1: ratios of alpha_1 between families on one data set 0.50-0.50, 0 of 1 within [0.74, 1.32]")


def test_a3_9_exponent_trend_above_zero_holds_below_fails_across_is_undetermined():
    rising = sweep(GOOD)  # alpha 0.05, 0.1, 0.2, 0.3, 0.3 over k = 1 ... 4000
    v = a3.exponent_trend_verdict({UNITS[0]: rising}, context())
    assert (v.key, v.verdict, outcomes(v)) == ("A3.9", "reproduced", {NEOX[0]: "holds"})
    assert v.paper.endswith("in 1 of 1 (dataset, family)")
    falling = sweep({k: (-0.1 + 0.001 * i, 0.99) for i, k in enumerate(GRID)})
    assert outcomes(a3.exponent_trend_verdict({UNITS[0]: falling}, context())) == {NEOX[0]: "fails"}
    noisy = sweep(GOOD, spread={1: (0.5, 0.0)})  # alpha_1 swings by 0.5 between replicates
    v = a3.exponent_trend_verdict({UNITS[0]: noisy}, context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {NEOX[0]: "undetermined"}), \
        "a rise within the noise is neither shown nor refuted"
    assert v.ours.startswith("every interval of the slope crosses zero")
    assert a3.alpha_rises(noisy).outcome == claims.UNDETERMINED and a3.alpha_rises(falling).outcome is False
    one_k = sweep({1: GOOD[1], **{k: None for k in GRID[1:]}})
    v = a3.exponent_trend_verdict({UNITS[0]: one_k}, context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_alpha_trend_is_the_least_squares_slope_on_ln_k_replicate_by_replicate():
    rng = np.random.default_rng(1)
    s = sweep(GOOD)
    slopes = s.boot.slopes + rng.normal(0, 0.01, s.boot.slopes.shape)
    s = a3.KSweep(s.ce, s.rbp, Bootstrap([None] * 6, slopes, s.boot.r2), s.ks, s.grid, s.vocab)
    slope, interval, ks = a3.alpha_trend(s)
    x = np.log(GRID)
    by_hand = [np.polyfit(x, -slopes[1:, b], 1)[0] for b in range(slopes.shape[1])]
    value = np.polyfit(x, [-GOOD[k][0] for k in GRID], 1)[0]
    z = 1.959963984540054
    assert ks == list(GRID) and slope == pytest.approx(value)
    assert interval == pytest.approx((value - z * np.std(by_hand), value + z * np.std(by_hand)))


def test_decide_gives_one_verdict_per_claim_in_order():
    evidence = {unit: sweep(GOOD, offsets=(offset(0.3, [0.3, 0.3]), offset(0.33, [0.33, 0.33]))) for unit in UNITS}
    verdicts = a3.SPEC.decide(evidence, context(NeoX=5))
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A3)
    assert all(set(outcomes(v)) == set(NEOX) for v in verdicts if v.key != "A3.8")
    assert [v.verdict for v in a3.SPEC.decide(evidence, context(NeoX=2))] == ["not testable on this set"] * 9


def test_the_k_of_table_1_are_the_papers():
    assert a3.A3_TABLE1_KS == tuple(int(k) for k in sorted(reference_table(a3.TABLE1)["k"].dropna().unique()))


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

SMALL_VOCAB = 300


def run(family, size, seed, replica=0):
    """A model of ``size`` non-embedding parameters whose targets rank better the larger it is."""
    rng = np.random.default_rng(seed)
    n = 600
    gt = np.minimum(rng.lognormal(2.5 - 0.35 * np.log10(size), 1.2, n).astype(np.int32), SMALL_VOCAB - 1)
    logp = (-rng.gamma(2.0, 0.5, n) - 0.2 * np.log1p(gt)).astype(np.float32)
    records = Records(logp=logp, gt=gt, ge=gt, target=np.zeros(n, np.int32), window=(np.arange(n) // 10).astype(np.int32),
                      document=(np.arange(n) // 10).astype(np.int64), top_logp=np.zeros((n, 1), np.float32),
                      manifest=SimpleNamespace(vocab_size=SMALL_VOCAB))
    return Run(family, f"{family}-{size:g}", None, size, 2 * size, records, replica=replica)


SIZES = {"NeoX": [1e3, 1e4, 1e5, 1e6], "Llama": [2e3, 2e5], "Mono": [5e4]}
CORPORA = ("pydocs", "stdlib")
N_BOOT = 4  # replicates enough to move with a seed; each costs NeoX's two offset fits per corpus


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run(fam, size, 10 * c + i) for fam, sizes in SIZES.items() for i, size in enumerate(sizes)]
                   for c, corpus in enumerate(CORPORA)}
    context = Context.of(family_runs["pydocs"], n_boot=N_BOOT)
    return family_runs, context, a3.measure(Chapter.of(family_runs, N_BOOT), context)


def test_measure_sweeps_every_family_of_two_sizes_on_every_corpus(synthetic):
    family_runs, context, sweeps = synthetic
    assert list(sweeps) == [(c, fam) for c in CORPORA for fam in ("NeoX", "Llama")], "one size cannot be fitted"
    assert context.usable() == ["NeoX"] and context.unusable() == ["Llama: 2 sizes, fewer than 3",
                                                                    "Mono: 1 size, fewer than 3"]
    for (corpus, family), s in sweeps.items():
        assert (s.vocab, s.level, s.boot.slopes.shape) == (SMALL_VOCAB, context.level, (1 + len(s.ks), N_BOOT))
        assert set(s.grid) <= set(s.ks) and {1, 10, 100} <= set(s.ks) and max(s.ks) == SMALL_VOCAB
        assert (s.offsets is not None) == (family == "NeoX"), "an offset power law needs four sizes"


def test_measure_fits_what_a_fit_by_hand_gives(synthetic):
    family_runs, _, sweeps = synthetic
    for (corpus, family), s in sweeps.items():
        members = [r for r in family_runs[corpus] if r.family == family]
        sizes = [r.non_embedding for r in members]
        ce = [-np.mean(r.records.logp.astype(np.float64)) for r in members]
        by_hand = fit.fit_power_law(sizes, ce)
        assert (s.ce.slope, s.ce.r2) == pytest.approx((by_hand.slope, by_hand.r2))
        for k in s.ks:
            neg_log_rbp = [-np.log(np.mean(r.records.ge + 1 <= k)) for r in members]
            if min(neg_log_rbp) <= 0:  # every target of a model in its top k: nothing to fit
                assert s.rbp[k] is None
                continue
            by_hand = fit.fit_power_law(sizes, neg_log_rbp)
            assert (s.rbp[k].slope, s.rbp[k].r2) == pytest.approx((by_hand.slope, by_hand.r2))
            assert s.rbp[k].ci is None or s.rbp[k].ci[0] <= s.rbp[k].slope <= s.rbp[k].ci[1]
        if s.offsets is not None:
            assert s.offsets[0].point.alpha == pytest.approx(fit.fit_offset_power_law(sizes, ce).alpha)


def test_measure_draws_the_extra_seeds_and_decides_from_records(synthetic):
    family_runs, context, sweeps = synthetic
    seed_runs = {"pydocs": [run("NeoX", 1e3, 99, replica=1)], "stdlib": []}
    seeded = a3.measure(Chapter.of(family_runs, N_BOOT, seeds=seed_runs), context)
    # the same seeds draw the same replicates (measured again on pydocs alone: a unit's draws are its own)
    again = a3.measure(Chapter.of({"pydocs": family_runs["pydocs"]}, N_BOOT, seeds=seed_runs), context)
    before, after = sweeps["pydocs", "NeoX"], seeded["pydocs", "NeoX"]
    assert (after.ce.slope, after.ce.r2) == (before.ce.slope, before.ce.r2), \
        "an extra seed moves the replicates, not the fit of the models themselves"
    assert not np.array_equal(after.boot.slopes, before.boot.slopes)
    np.testing.assert_array_equal(seeded["stdlib", "NeoX"].boot.slopes, sweeps["stdlib", "NeoX"].boot.slopes)
    np.testing.assert_array_equal(again["pydocs", "NeoX"].boot.slopes, after.boot.slopes)
    verdicts = a3.SPEC.decide(sweeps, Context(context.sizes, N_BOOT, {a3.TABLE1: reference_table(a3.TABLE1)}))
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A3)
    assert {unit for v in verdicts if v.key != "A3.8" for unit, _ in v.outcomes} == {Unit(c, "NeoX") for c in CORPORA}


# ---------------------------------------------------------------------------------------------
# The context

def test_the_context_reads_fittable_families_as_fittable_does():
    rng = np.random.default_rng(2)
    for _ in range(20):
        runs = [Run(f"F{rng.integers(4)}", "", None, int(rng.integers(1, 6)), 0, None)
                for _ in range(rng.integers(1, 12))]
        for min_sizes in (2, 3, 4):
            usable, reasons = fittable(runs, min_sizes)
            context = Context.of(runs, n_boot=1)
            assert (context.usable(min_sizes), context.unusable(min_sizes)) == (list(usable), reasons)


def test_a_rule_without_its_table_says_which():
    with pytest.raises(RankscaleError, match="no table 'rbp_paper_table1'"):
        a3.r2_bound_verdict({}, Context({"NeoX": 5}, n_boot=2))


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes

def test_the_rules_say_why_cite_the_paper_and_what_their_intervals_are():
    for claim in claims.CLAIMS_A3.values():
        assert claim.kind in claims.KINDS and "Why:" in claim.rule, "a rule says why its threshold is what it is"
        if claim.kind == "empirical":
            assert "§" in claim.text or "App." in claim.text, "an empirical claim says where the paper makes it"
        assert "percentile" not in claim.rule and "stretched" not in claim.rule and "central" not in claim.rule
    rule = claims.CLAIMS["A3.1"].rule
    assert INTERVAL in rule and ONE_READING in rule and a2.law_rule(claims.A3_MIN_R2) in rule


def test_the_chapter_sets_no_threshold_builds_no_interval_and_names_its_figures():
    source = NOTEBOOK.read_text()
    parameters = source.split('# %% tags=["parameters"]')[1].split("# %%")[0]
    assert not re.search(r"r2|band|margin|ratio|n_boot|level|k_grid|n_k\b", parameters), \
        "no threshold, band or bootstrap setting is a notebook parameter"
    for own in ("percentile", "quantile(", "claims.judge("):
        assert own not in source, f"the chapter builds an interval or grades on its own ({own})"
    labels = re.findall(r'"name": "(fig-[a-z0-9-]+)"', source)
    assert labels and all(label.startswith("fig-a3-") for label in labels) and len(set(labels)) == len(labels)
    assert set(re.findall(r"\{numref\}`(fig-[a-z0-9-]+)`", source)) <= set(labels), "prose refers to figures that exist"
