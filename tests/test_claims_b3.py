"""Chapter B3 (``rankscale.claims.b3``): each claim's rule made to hold, fail and go untested on constructed units,
read from the verdicts' structured outcomes; the paper's own tables under the same conditions; its measure on small
synthetic runs, checked against fits and shares done by hand; and its notebook, which explains and calls, but
computes nothing."""

from __future__ import annotations

from pathlib import Path
from statistics import NormalDist
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from helpers import notebook_cells

from rankscale import claims
from rankscale.analysis import components, fit
from rankscale.analysis.components import QUANTITIES
from rankscale.analysis.sample_size import ExponentConvergence
from rankscale.claims import b3
from rankscale.claims.base import NOT_TESTABLE, POOLED, UNDETERMINED, Reading, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.claims.reference import reference_table
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "b3_component_scaling.py"
Z = NormalDist().inv_cdf(0.975)  # the interval's half-width is Z standard deviations of the replicates
N_BOOT = 400
NEOX = Unit("pydocs", "NeoX")

# ---------------------------------------------------------------------------------------------
# Constructed evidence


def standard_noise(seed: int) -> np.ndarray:
    """(N_BOOT,) replicate noise with mean 0 and standard deviation exactly 1, so an interval's
    half-width is exactly Z times the noise's scale."""
    z = np.random.default_rng(seed).standard_normal(N_BOOT)
    return (z - z.mean()) / z.std()


def convergence(error: float = 0.0, converged: bool = True) -> ExponentConvergence:
    grid = np.array([1000.0, 2000.0])
    return ExponentConvergence(grid, np.zeros((2, 3)), 0.0, error, 0.001, np.nan, converged)


def unit(where: Unit = NEOX, *, r2=None, r2_sd=None, slopes=None, slope_sd=0.001, drift=0.0, converged=True,
         shares=None, share_intervals=None) -> b3.ComponentUnit:
    """A unit whose fits have the given R^2 and slopes, with replicates spread by the given
    standard deviations (independent across quantities; a quantity with sd 0 is constant)."""
    r2 = {"CE": 0.95, "EE": 0.95, "SA": 0.3, "Conf": 0.2, **(r2 or {})}
    r2_sd = {q: 0.01 for q in QUANTITIES} | (r2_sd or {})
    slopes = {"CE": -0.10, "EE": -0.11, "SA": 0.05, "Conf": -0.02, **(slopes or {})}
    slope_reps = np.array([slopes[q] + slope_sd * standard_noise(i) for i, q in enumerate(QUANTITIES)])
    r2_reps = np.array([r2[q] + r2_sd[q] * standard_noise(10 + i) for i, q in enumerate(QUANTITIES)])
    points = [fit.PowerLawFit(slopes[q], 0.0, r2[q], 4, (slopes[q] - Z * slope_sd, slopes[q] + Z * slope_sd))
              for q in QUANTITIES]
    drift = drift if isinstance(drift, dict) else dict.fromkeys(QUANTITIES, drift)
    converged = converged if isinstance(converged, dict) else dict.fromkeys(QUANTITIES, converged)
    shares = shares or {"EE": 0.9, "SA": 0.05, "Conf": 0.05}
    share_intervals = share_intervals or {q: (s - 0.01, s + 0.01) for q, s in shares.items()}
    return b3.ComponentUnit(where, fit.Bootstrap(points, slope_reps, r2_reps),
                            {q: convergence(drift.get(q, 0.0), converged.get(q, True)) for q in QUANTITIES},
                            None if where.pooled else shares, None if where.pooled else share_intervals)


ONE_FAMILY = "one family (NeoX): pooling families needs at least two"


def evidence(*units: b3.ComponentUnit, pooled_reason: str | None = "") -> b3.ComponentScaling:
    """The evidence of these units (every usable family of the context must have one on every corpus); the families
    can be pooled where a pooled unit is given, unless ``pooled_reason`` says why not."""
    corpora = dict.fromkeys(u.unit.corpus for u in units)
    if pooled_reason == "":
        pooled_reason = None if any(u.unit.pooled for u in units) else ONE_FAMILY
    return b3.ComponentScaling({(u.unit.corpus, POOLED if u.unit.pooled else u.unit.family): u for u in units},
                               dict.fromkeys(corpora), {}, {}, {}, {}, pooled_reason)


def context(**sizes) -> Context:
    """A context of families with these sizes (default NeoX, five) and paper B's Tables 1-2."""
    return Context(sizes or {"NeoX": 5}, n_boot=N_BOOT, tables={name: reference_table(name) for name in b3.TABLES})


def outcomes(verdict) -> dict:
    return dict(verdict.outcomes)


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_b3_1_ee_law_holds_above_the_threshold_fails_below_and_is_undetermined_across():
    v = b3.ee_law_verdict(evidence(unit(r2={"EE": 0.95})), context())
    assert (v.key, v.verdict, outcomes(v)) == ("B3.1", "reproduced", {NEOX: "holds"})
    assert outcomes(b3.ee_law_verdict(evidence(unit(r2={"EE": 0.7})), context())) == {NEOX: "fails"}
    stdlib = Unit("stdlib", "NeoX")
    mixed = b3.ee_law_verdict(evidence(unit(), unit(stdlib, r2={"EE": 0.7})), context())
    assert (mixed.verdict, outcomes(mixed), mixed.units_text) == ("partly", {NEOX: "holds", stdlib: "fails"}, "1 of 2")
    assert outcomes(b3.ee_law_verdict(evidence(unit(r2={"EE": 0.81})), context())) == {NEOX: "undetermined"}
    at = claims.B3_LAW_R2 + Z * 0.01  # the interval then starts at the threshold
    assert b3.ee_law(unit(r2={"EE": at + 1e-6}))[0].outcome is True
    assert b3.ee_law(unit(r2={"EE": at - 1e-6}))[0].outcome == UNDETERMINED


def test_b3_names_a_unit_read_at_the_edge_of_its_threshold_as_fragile():
    at = claims.B3_LAW_R2 + Z * 0.01
    stdlib = Unit("stdlib", "NeoX")
    v = b3.ee_law_verdict(evidence(unit(r2={"EE": at + 1e-4}), unit(stdlib)), context())
    assert (v.verdict, v.fragile) == ("reproduced", (NEOX,))
    assert "at the edge of the threshold: pydocs/NeoX" in v.ours
    assert b3.ee_law(unit(r2={"EE": 0.95}))[0].fragile is False
    # a share's interval ending just inside B3.9's band
    u = unit(shares={"SA": 0.2, "Conf": 0.1}, share_intervals={"SA": (0.15, 0.249), "Conf": (0.05, 0.15)})
    v = b3.sa_conf_invariant_verdict(evidence(u), context())
    assert (outcomes(v), v.fragile) == ({NEOX: "holds"}, (NEOX,))


def test_b3_rules_name_the_families_with_too_few_sizes_as_untested():
    llama = Unit(family="Llama")
    v = b3.ee_law_verdict(evidence(unit()), context(NeoX=5, Llama=2))
    assert (v.verdict, outcomes(v)) == ("reproduced", {llama: "untested", NEOX: "holds"})
    assert "Llama (2 sizes, fewer than 3)" in v.ours, "the unit's reason beside its name"
    v = b3.ee_law_verdict(evidence(unit()), context(NeoX=2, Llama=2))
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {Unit(family="NeoX"): "untested", llama: "untested"})


def test_b3_2_ee_fits_better_is_a_superiority_test_not_parity():
    def outcome(ee, ce=0.92):
        return outcomes(b3.ee_fits_better_verdict(evidence(unit(r2={"EE": ee, "CE": ce}, r2_sd={"CE": 0.0})),
                                                  context()))[NEOX]
    assert outcome(0.97) == "holds"
    assert outcome(0.93) == "undetermined", "EE ahead by less than its noise: 'better' is not shown, nor refuted"
    assert outcome(0.85) == "fails"
    edge = 0.92 + Z * 0.01  # the difference's interval then starts at 0
    assert (outcome(edge + 1e-6), outcome(edge - 1e-6)) == ("holds", "undetermined")
    assert outcome(0.92 - Z * 0.01 - 1e-6) == "fails", "wholly below 0"


def test_b3_2_reads_the_families_and_the_pooled_fits():
    pooled = Unit("pydocs", pooled=True)
    v = b3.ee_fits_better_verdict(evidence(unit(r2={"EE": 0.99, "CE": 0.9}), unit(pooled, r2={"EE": 0.8})),
                                  context())
    assert outcomes(v) == {NEOX: "holds", pooled: "fails"}
    v = b3.ee_fits_better_verdict(evidence(unit(r2={"EE": 0.99, "CE": 0.9}), unit(pooled), pooled_reason="one family"),
                                  context())
    assert outcomes(v) == {NEOX: "holds"}, "no pooled unit where the families cannot be pooled"


WIDTH = Z * 0.01  # the half-width of an R^2 interval whose replicates have sd 0.01 (``unit``)


@pytest.mark.parametrize("shift, expected", [(-2 * WIDTH, "holds"), (2 * WIDTH, "fails"), (0.0, "undetermined")])
def test_b3_3_reads_sas_r2_interval_below_the_threshold_and_is_not_gated_on_the_exponent(shift, expected):
    drifting = dict.fromkeys(QUANTITIES, False)
    r2 = claims.B3_NO_LAW_R2 + shift
    v = b3.sa_no_law_verdict(evidence(unit(r2={"SA": r2}, converged=drifting)), context())
    assert (v.key, outcomes(v)) == ("B3.3", {NEOX: expected})
    assert f"R²_SA [95% interval]: pydocs/NeoX {r2:.3f} [{r2 - WIDTH:.3f}, {r2 + WIDTH:.3f}]" in v.ours


@pytest.mark.parametrize("r2, sd, expected", [
    (claims.B3_NO_LAW_R2 - 2 * WIDTH, 0.01, "holds"),
    (claims.B3_NO_LAW_R2 + 2 * WIDTH, 0.01, "fails"),
    (0.241, 0.153, "undetermined"),  # a low point R^2 whose interval, [-0.06, 0.54], reaches past the threshold
])
def test_b3_4_reads_the_pooled_conf_r2_interval_below_the_threshold(r2, sd, expected):
    pooled = Unit("pydocs", pooled=True)
    v = b3.conf_no_law_verdict(evidence(unit(), unit(pooled, r2={"Conf": r2}, r2_sd={"Conf": sd})), context())
    assert (v.key, outcomes(v)) == ("B3.4", {pooled: expected})
    assert f"pooled R²_Conf [95% interval]: pydocs/All {r2:.3f} [{r2 - Z * sd:.3f}, {r2 + Z * sd:.3f}]" in v.ours


def test_b3_3_and_b3_4_take_a_quantity_that_cannot_be_fitted_for_no_law():
    no_fit = unit(Unit("pydocs", pooled=True))
    no_fit.fits.points[QUANTITIES.index("Conf")] = None
    assert b3.no_law(no_fit, "Conf") == (Reading(True), "not fittable (a value is 0)"), "no fit is no power law"
    v = b3.conf_no_law_verdict(evidence(unit()), context())
    assert (v.verdict, v.outcomes, v.ours) == (NOT_TESTABLE, (), ONE_FAMILY)


def test_b3_5_and_b3_6_widen_the_gaps_by_the_drift_instead_of_waiting_for_convergence():
    # |Δ_EE| = 0.01, |Δ_SA| = 0.15, |Δ_Conf| = 0.08: EE closest, SA farthest
    steady = evidence(unit())
    assert outcomes(b3.ee_closest_verdict(steady, context())) == {NEOX: "holds"}
    assert outcomes(b3.sa_farthest_verdict(steady, context())) == {NEOX: "holds"}
    # SA - Conf gap 0.07: a drift of 0.04 per exponent (0.08 for the pair) hides it (undetermined); EE's gaps stay
    assert outcomes(b3.sa_farthest_verdict(evidence(unit(drift=0.04, converged=False)), context())) == \
        {NEOX: "undetermined"}
    assert b3.farther(unit(drift=0.04), "SA", "Conf")[1].endswith("± 0.0800")
    assert outcomes(b3.ee_closest_verdict(evidence(unit(drift=0.02, converged=False)), context())) == {NEOX: "holds"}
    # Conf nearer CE than EE is: EE is not the closest
    assert outcomes(b3.ee_closest_verdict(evidence(unit(slopes={"Conf": -0.101})), context())) == {NEOX: "fails"}
    # Conf as near CE as EE is, within the noise: undetermined, and failing wins over undetermined
    assert outcomes(b3.ee_closest_verdict(evidence(unit(slopes={"Conf": -0.109}, slope_sd=0.01)), context())) == \
        {NEOX: "undetermined"}
    readings = {name: b3.farther(unit(slopes={"Conf": -0.101, "SA": -0.1095}), name, "EE")[0].outcome
                for name in ("SA", "Conf")}
    assert readings == {"SA": UNDETERMINED, "Conf": False}
    assert b3.ee_closest(unit(slopes={"Conf": -0.101, "SA": -0.1095}))[0].outcome is False


def test_b3_7_pooled_ee_law():
    pooled = Unit("pydocs", pooled=True)
    v = b3.pooled_ee_law_verdict(evidence(unit(), unit(pooled, r2={"EE": 0.9})), context())
    assert (v.key, v.verdict, outcomes(v)) == ("B3.7", "reproduced", {pooled: "holds"})
    assert outcomes(b3.pooled_ee_law_verdict(evidence(unit(), unit(pooled, r2={"EE": 0.7})), context())) == \
        {pooled: "fails"}
    assert b3.pooled_ee_law_verdict(evidence(unit(), pooled_reason="one family"), context()).verdict == NOT_TESTABLE


def test_b3_11_pooled_sa_no_law_reads_its_r2_interval_below_the_threshold():
    pooled, at = Unit("pydocs", pooled=True), claims.B3_NO_LAW_R2
    for r2, expected in ((at - 2 * WIDTH, "holds"), (at + 2 * WIDTH, "fails"), (at, "undetermined")):
        v = b3.pooled_sa_no_law_verdict(evidence(unit(), unit(pooled, r2={"SA": r2})), context())
        assert (v.key, v.kind, outcomes(v)) == ("B3.11", "empirical", {pooled: expected})
    table1 = reference_table(b3.TABLE1)
    paper = table1[(table1["family"] == b3.PAPER_POOLED) & (table1["component"] == "SA")]
    assert v.paper.startswith(f"R²_SA below {at} in {int((paper['r2'] < at).sum())}/3 datasets (All row)")
    no_fit = unit(pooled)
    no_fit.fits.points[QUANTITIES.index("SA")] = None
    assert b3.no_law(no_fit, "SA")[0].outcome is True, "no fit is no power law either"
    v = b3.pooled_sa_no_law_verdict(evidence(unit()), context())
    assert (v.verdict, v.outcomes, v.ours) == (NOT_TESTABLE, (), ONE_FAMILY)


def test_b3_8_sa_rises_is_gated_on_sas_exponent_alone():
    def outcome(**given):
        return outcomes(b3.sa_rises_verdict(evidence(unit(**given)), context()))[NEOX]
    assert (outcome(slopes={"SA": 0.05}), outcome(slopes={"SA": -0.05})) == ("holds", "fails")
    assert outcome(slopes={"SA": 0.001}, slope_sd=0.01) == "undetermined", "a rise within the noise: not shown"
    v = b3.sa_rises_verdict(evidence(unit(converged={"SA": False}, drift={"SA": 0.07})), context())
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {NEOX: "untested"})
    assert "α_SA drifts 0.0700" in v.ours, "the drift is the reason named"
    assert outcome(converged={"Conf": False}) == "holds", "Conf's drift does not gate a rule on SA"


@pytest.mark.parametrize("sa, conf, expected", [
    ((0.05, (0.03, 0.07)), (0.10, (0.05, 0.15)), "holds"),
    ((0.40, (0.35, 0.45)), (0.10, (0.05, 0.15)), "fails"),  # SA carries far more than a quarter
    ((0.24, (0.21, 0.27)), (0.10, (0.05, 0.15)), "undetermined"),  # straddles the band's edge: parity not shown
    ((0.05, (0.03, 0.07)), (-0.30, (-0.34, -0.26)), "fails"),  # the band is two-sided
    ((0.26, (0.2501, 0.27)), (0.10, (0.05, 0.15)), "fails"),  # just outside the band
    ((0.05, (0.03, 0.07)), (-0.24, (-0.30, -0.18)), "undetermined"),  # across the lower edge
    ((0.05, (0.03, 0.07)), (0.10, None), "undetermined"),  # a share not defined on every resample
    ((0.40, (0.35, 0.45)), (0.24, (0.21, 0.27)), "fails"),  # one wholly outside fails, whatever the other
])
def test_b3_9_invariance_holds_inside_the_band_fails_outside_and_is_undetermined_across(sa, conf, expected):
    u = unit(shares={"SA": sa[0], "Conf": conf[0]}, share_intervals={"SA": sa[1], "Conf": conf[1]},
             converged=False, drift=0.5)
    assert outcomes(b3.sa_conf_invariant_verdict(evidence(u), context())) == {NEOX: expected}


def test_b3_10_confidence_is_unstable_only_with_a_wide_spread_beyond_the_noise():
    llama, stdlib = Unit("pydocs", "Llama"), Unit("stdlib", "NeoX")
    both = context(NeoX=5, Llama=5)

    def verdict(neox, llama_r2, stdlib_r2, llama_sd=0.01):  # the fourth fit between the first and the third
        return b3.conf_unstable_verdict(evidence(unit(r2={"Conf": neox}), unit(llama, r2={"Conf": llama_r2},
                                                                                r2_sd={"Conf": llama_sd}),
                                                 unit(stdlib, r2={"Conf": stdlib_r2}),
                                                 unit(Unit("stdlib", "Llama"), r2={"Conf": (neox + stdlib_r2) / 2})),
                                        both)
    wide = verdict(0.1, 0.1 + claims.B3_UNSTABLE_RANGE + 0.01, 0.2)
    assert (wide.key, wide.verdict, outcomes(wide)) == ("B3.10", "reproduced", {Unit(): "holds"})
    assert outcomes(verdict(0.5, 0.5 + claims.B3_UNSTABLE_RANGE - 0.01, 0.6)) == {Unit(): "fails"}, "too narrow"
    assert outcomes(verdict(0.1, 0.6, 0.2, llama_sd=0.3)) == {Unit(): "undetermined"}, "the ends overlap"
    assert outcomes(verdict(0.5, 0.5 + claims.B3_UNSTABLE_RANGE - 0.01, 0.6, llama_sd=0.3)) == {Unit(): "fails"}, \
        "too narrow fails, overlapping or not"
    v = b3.conf_unstable_verdict(evidence(unit()), context(NeoX=5, Llama=2))
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {Unit(family="Llama"): "untested"})
    assert v.ours.endswith("1 per-family Conf fit whose exponent has converged: the spread needs two")


def test_b3_10_counts_only_the_fits_whose_confidence_exponent_has_converged():
    llama, stdlib = Unit("pydocs", "Llama"), Unit("stdlib", "NeoX")
    both = context(NeoX=5, Llama=5)
    high = 0.1 + claims.B3_UNSTABLE_RANGE + 0.1
    low_drifting = unit(r2={"Conf": 0.1}, converged={"Conf": False}, drift={"Conf": 0.5})
    # the wide spread rests on the drifting fit alone: without it the rest span too little
    v = b3.conf_unstable_verdict(evidence(low_drifting, unit(llama, r2={"Conf": high}),
                                          unit(stdlib, r2={"Conf": high - 0.05}),
                                          unit(Unit("stdlib", "Llama"), r2={"Conf": high - 0.02})), both)
    assert (v.verdict, outcomes(v)) == ("not reproduced", {Unit(): "fails"})
    assert "not converged, shown and not counted: R²_Conf pydocs/NeoX 0.100 (α_Conf drifts 0.5000" in v.ours
    # the same spread between converged fits holds
    v = b3.conf_unstable_verdict(evidence(unit(r2={"Conf": 0.1}), unit(llama, r2={"Conf": high})), both)
    assert (v.verdict, outcomes(v)) == ("reproduced", {Unit(): "holds"})
    # no converged fit: nothing is measured
    v = b3.conf_unstable_verdict(evidence(low_drifting, unit(llama, r2={"Conf": high}, converged={"Conf": False})),
                                 both)
    assert (v.verdict, v.outcomes, v.measured) == (NOT_TESTABLE, (), 0)
    assert "0 per-family Conf fits whose exponent has converged: the spread needs two" in v.ours
    # another quantity's drift does not gate it
    v = b3.conf_unstable_verdict(evidence(unit(r2={"Conf": 0.1}, converged={"SA": False}),
                                          unit(llama, r2={"Conf": high})), both)
    assert outcomes(v) == {Unit(): "holds"}


def test_the_paper_column_counts_the_papers_cells_under_the_same_condition():
    r2, gap = b3.paper_cells(context())
    assert len(r2) == len(gap) == 9 and set(r2.index.get_level_values(0)) == set(b3.PAPER_FAMILIES)
    table1 = reference_table(b3.TABLE1)
    cells = table1[table1["family"].isin(b3.PAPER_FAMILIES) & (table1["component"] == "EE")]
    assert b3.ee_law_verdict(evidence(unit()), context()).paper == (
        f"R² ≥ {claims.B3_LAW_R2} in {int((cells['r2'] >= claims.B3_LAW_R2).sum())}/9 family-dataset cells")
    assert b3.cells_text(pd.Series([True, False]), b3.EVERY_ROW) == "1/2 cells, All row included"


def test_decide_gives_one_verdict_per_claim_in_order():
    pooled = Unit("pydocs", pooled=True)
    verdicts = b3.SPEC.decide(evidence(unit(), unit(Unit("pydocs", "Llama")), unit(pooled)), context(NeoX=5, Llama=4))
    assert [v.key for v in verdicts] == list(claims.CLAIMS_B3)
    assert [v.verdict for v in b3.SPEC.decide(evidence(unit()), context(NeoX=2))].count(NOT_TESTABLE) == 11


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB = 300
TOKENS, WINDOW = 2400, 40


def run(family, size, seed, replica=0):
    """A model of ``size`` non-embedding parameters whose targets rank better the larger it is."""
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.lognormal(2.5 - 0.35 * np.log10(size), 1.2, TOKENS).astype(np.int32), VOCAB - 1)
    logp = (-rng.gamma(2.0, 0.5, TOKENS) - 0.2 * np.log1p(gt)).astype(np.float32)
    records = Records(logp=logp, gt=gt, ge=gt, target=np.zeros(TOKENS, np.int32),
                      window=(np.arange(TOKENS) // WINDOW).astype(np.int32),
                      document=(np.arange(TOKENS) // WINDOW).astype(np.int64),
                      top_logp=np.zeros((TOKENS, 1), np.float32), manifest=SimpleNamespace(vocab_size=VOCAB))
    return Run(family, f"{family}-{size:g}", None, size, 2 * size, records, replica=replica)


SIZES = {"NeoX": [1e3, 1e4, 1e5], "Llama": [2e3, 2e5]}
CORPORA = ("pydocs", "stdlib")


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run(fam, size, 10 * c + i) for fam, sizes in SIZES.items() for i, size in enumerate(sizes)]
                   for c, corpus in enumerate(CORPORA)}
    context = Context.of(family_runs["pydocs"], n_boot=6)
    return family_runs, context, b3.measure(Chapter.of(family_runs, 6), context)


def terms(run):
    return components.terms_vector({"logp": run.records.logp, "gt": run.records.gt})


def test_measure_fits_what_a_fit_by_hand_gives(synthetic):
    family_runs, _, scaling = synthetic
    assert list(scaling.units) == [(c, g) for c in CORPORA for g in ("NeoX", "Llama", POOLED)]
    assert scaling.n_sizes == {"NeoX": 3, "Llama": 2, POOLED: 5} and scaling.n_models[POOLED] == 5
    for (corpus, group), u in scaling.units.items():
        assert u.unit == (Unit(corpus, pooled=True) if group == POOLED else Unit(corpus, group))
        members = [r for r in family_runs[corpus] if group == POOLED or r.family == group]
        values = np.array([terms(r) for r in members])
        for i, q in enumerate(QUANTITIES):
            by_hand = fit.fit_power_law([r.non_embedding for r in members], np.abs(values[:, i]))
            assert (u.fit(q).slope, u.fit(q).r2) == pytest.approx((by_hand.slope, by_hand.r2))
            assert u.fit(q).ci[0] <= u.fit(q).slope <= u.fit(q).ci[1]
        assert u.fits.slopes.shape == (4, 6) and set(u.convergence) == set(QUANTITIES)
        ce = abs(u.convergence["CE"].full)
        for q, conv in u.convergence.items():  # chapter B5's allowance: a tenth of the exponent, or of the floor
            assert conv.full == pytest.approx(u.fit(q).slope)
            assert conv.tolerance == pytest.approx(claims.B5_EXPONENT_TOLERANCE * max(abs(conv.full),
                                                                                     b3.B5_EXPONENT_FLOOR * ce))
            assert conv.converged == (conv.error <= conv.tolerance)
        if group == POOLED:
            assert u.shares is None
            continue
        first, last = values[0], values[-1]  # the family's runs are in order of size
        assert u.delta_ce == pytest.approx(last[0] - first[0])
        assert u.shares["EE"] == pytest.approx((last[1] - first[1]) / (last[0] - first[0]))
        assert sum(u.shares.values()) == pytest.approx(1.0)
    assert scaling.windows == {c: (TOKENS // WINDOW,) for c in CORPORA}
    assert scaling.tokens == {c: (TOKENS,) for c in CORPORA}


def test_measure_draws_with_the_contexts_seed_and_the_extra_seeds(synthetic):
    family_runs, context, scaling = synthetic
    pydocs = {"pydocs": family_runs["pydocs"]}  # measured again on pydocs alone: a unit's draws are its own
    again = b3.measure(Chapter.of(pydocs, 6), context)
    np.testing.assert_array_equal(again.units["pydocs", "NeoX"].fits.slopes, scaling.units["pydocs", "NeoX"].fits.slopes)
    other = b3.measure(Chapter.of(pydocs, 6), Context(context.sizes, 6, seed=1))
    assert not np.array_equal(other.units["pydocs", "NeoX"].fits.slopes, scaling.units["pydocs", "NeoX"].fits.slopes)
    seeded = b3.measure(Chapter.of(family_runs, 6, seeds={"pydocs": [run("NeoX", 1e3, 99, replica=1)]}), context)
    assert seeded.units["pydocs", "NeoX"].fit("EE").slope == scaling.units["pydocs", "NeoX"].fit("EE").slope, \
        "an extra seed moves the replicates, not the fit of the models themselves"
    assert not np.array_equal(seeded.units["pydocs", "NeoX"].fits.slopes, scaling.units["pydocs", "NeoX"].fits.slopes)
    np.testing.assert_array_equal(seeded.units["stdlib", "NeoX"].fits.slopes, scaling.units["stdlib", "NeoX"].fits.slopes)


def test_measure_then_decide_tests_the_usable_families_and_the_pooled_fits(synthetic):
    _, context, scaling = synthetic
    verdicts = b3.SPEC.decide(scaling, Context(context.sizes, 6, {name: reference_table(name) for name in b3.TABLES}))
    assert [v.key for v in verdicts] == list(claims.CLAIMS_B3)
    units = {u for v in verdicts for u, _ in v.outcomes}
    converged = sum(u.convergence["Conf"].converged for u in scaling.family_units(context))
    assert units == {Unit(c, "NeoX") for c in CORPORA} | {Unit(c, pooled=True) for c in CORPORA} | \
        {Unit(family="Llama")} | ({Unit()} if converged >= 2 else set()), "B3.10 is one unit, where it is tested"
    tables = (b3.r2_table(scaling), b3.gaps_table(scaling), b3.exponents_table(scaling), b3.changes_table(scaling))
    assert tables[0].loc["Llama (2 models)"].isna().all(), "two sizes give no R^2 worth showing"
    assert tables[1].shape == (3, 6) and len(tables[2]) == 2 * 3 * 4 and len(tables[3]) == 4
    assert len(b3.convergence_table(scaling)) == 2 * 3 * 4


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes

def test_the_notebook_grades_nothing_itself_and_passes_its_parameters_on():
    source = NOTEBOOK.read_text()
    code = "\n".join("\n".join(lines) for kind, lines in notebook_cells(source) if kind == "code")
    assert "seed=seed" in code and "n_boot=n_boot" in code, "the parameters reach the context and the chapter"
