"""Chapter A2 (``rankscale.claims.a2``): its measure on small synthetic runs, checked against fits done by hand;
each claim's rule made to hold, fail and stay untested on constructed evidence, read from the verdicts'
structured outcomes; the chapter's tables; and its notebook, which explains and calls, but computes nothing."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from helpers import notebook_cells

from rankscale import claims
from rankscale.analysis import fit, metrics
from rankscale.analysis.bootstrap import INTERVAL, interval_text
from rankscale.analysis.fit import PowerLawFit
from rankscale.claims import a2
from rankscale.claims.base import ONE_READING, UNDETERMINED, Reading, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.claims.reference import reference_table
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "a2_scaling_regimes.py"

# ---------------------------------------------------------------------------------------------
# Constructed evidence

LARGE = (1630, 2445)  # the paper's k = 20,000 and 30,000 in a 4,096-token vocabulary
UNITS = [("pydocs", "NeoX"), ("stdlib", "NeoX")]
NEOX = [Unit(*unit) for unit in UNITS]


def regime(fits, spread=None, scatter=None):
    """RegimeFits with two replicates per k, value -+ spread: fits {k: (slope, R^2) or None}, spread
    {k: (slope spread, R^2 spread)}."""
    spread = spread or {}
    slopes, r2 = {}, {}
    for k, v in fits.items():
        d = spread.get(k, (0.0, 0.0))
        slopes[k], r2[k] = (np.array([v[i] - d[i], v[i] + d[i]]) if v else np.full(2, np.nan) for i in (0, 1))
    return a2.RegimeFits({k: v and PowerLawFit(v[0], 0.0, v[1], 3) for k, v in fits.items()}, slopes, r2,
                         (1, 4, 8), LARGE, scatter=scatter)


def k_fits(r2=0.99, slope=-0.1, **changes):
    """Fits at every k of A2 (1, 10, 50, 100, the scaled 4 and 8, and LARGE); ``changes`` as k<k>=(slope, R^2)."""
    fits = {k: (slope, r2) for k in (1, 4, 8, 10, 50, 100, *LARGE)}
    return {**fits, **{int(name[1:]): v for name, v in changes.items()}}


def table1_k(r2s=(0.99, 0.97, 0.97, 0.97)):
    return pd.DataFrame([{"dataset": "Wikipedia", "family": "Pythia", "k": k, "slope": -0.1, "r2": r}
                         for k, r in zip((1.0, 10.0, 50.0, 100.0), r2s)])


def context(table=None, **sizes):
    """A context of families with these sizes (default NeoX and Llama, five each) and ``table`` as Table 1."""
    return Context(sizes or {"NeoX": 5, "Llama": 5}, n_boot=2,
                   tables={a2.TABLE1: table1_k() if table is None else table})


def evidence(*regimes, gpt2=()):
    """Regimes of the units ``UNITS`` (in order) holding ``regimes``."""
    return a2.Regimes(dict(zip(UNITS, regimes)), gpt2)


def outcomes(verdict):
    """The verdict's outcome per unit, by its structured unit."""
    return dict(verdict.outcomes)


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_a2_1_k1_law_holds_above_the_bar_and_fails_below_it_on_r2s_interval():
    bar = claims.A2_MIN_R2
    above = regime(k_fits(k1=(-0.1, 0.95)), spread={1: (0.01, 0.02)})  # R^2 0.95 -+ 1.96 x 0.02: above 0.9
    below = regime(k_fits(k1=(-0.1, 0.85)), spread={1: (0.01, 0.02)})  # 0.85 -+ 0.039: below it
    assert above.r2_interval(1)[0] > bar and below.r2_interval(1)[1] < bar
    v = a2.k1_law_verdict(evidence(above, below), context(NeoX=5, Llama=2))
    assert (v.key, v.verdict, outcomes(v)) == ("A2.1", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert v.ours.startswith(f"pydocs/NeoX: k=1 R^2 0.950 {interval_text(above.r2_interval(1), sign='')} slope -0.100 "
                             f"{interval_text(above.slope_interval(1), sign='')}; stdlib/NeoX: k=1 R^2 0.850 [")
    assert v.ours.endswith("; left out: Llama: 2 sizes, fewer than 3")
    assert v.paper == "Table 1, k = 1: R^2 0.990-0.990; 1 of 1 (dataset, family) pass this rule"
    rising = a2.k1_law_verdict(evidence(regime(k_fits(k1=(0.1, 0.99)))), context())
    assert (rising.verdict, outcomes(rising)) == ("not reproduced", {NEOX[0]: "fails"})
    v = a2.k1_law_verdict(evidence(regime(k_fits(k1=None))), context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_a2_1_an_r2_above_the_bar_whose_interval_crosses_it_is_undetermined():
    bar = claims.A2_MIN_R2
    across = regime(k_fits(k1=(-0.1, 0.92)), spread={1: (0.0, 0.05)})  # 0.92 -+ 0.098
    lo, hi = across.r2_interval(1)
    assert lo < bar < 0.92 < hi
    assert fit.falling_law(across.fits[1], bar), "the point reading held it"
    assert a2.k1_law(across).outcome == UNDETERMINED
    v = a2.k1_law_verdict(evidence(regime(k_fits()), across), context())
    assert (v.verdict, outcomes(v), v.units_text) == ("reproduced", {NEOX[0]: "holds", NEOX[1]: "undetermined"},
                                                      "1 of 1, 1 of 2 decided")
    v = a2.k1_law_verdict(evidence(across), context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", a2.ACROSS_LAW.split(";")[0])
    assert a2.k1_law(regime(k_fits(k1=(-0.1, bar)))).outcome == UNDETERMINED, "an interval touching the bar"
    flat = regime(k_fits(k1=(-0.01, 0.99)), spread={1: (0.02, 0.0)})  # slope -0.01 -+ 0.039: across 0
    assert a2.k1_law(flat).outcome == UNDETERMINED, "a slope whose interval holds 0 does not show a fall"
    unfitted = regime(k_fits(), spread={1: (0.0, np.nan)})  # a replicate without R^2
    assert a2.k1_law(unfitted).outcome == UNDETERMINED
    assert "k=1 R^2 0.990 [—]" in a2.k1_law_verdict(evidence(unfitted), context()).ours


def test_a2_rules_test_only_the_families_with_enough_sizes():
    v = a2.k1_law_verdict(evidence(regime(k_fits())), context(NeoX=2, Llama=1))
    assert (v.verdict, v.outcomes) == ("not testable on this set", ())
    assert v.ours == "no family has 3 or more sizes (NeoX: 2 sizes, fewer than 3; Llama: 1 size, fewer than 3)"
    assert [v.verdict for v in a2.SPEC.decide(evidence(regime(k_fits())), context(NeoX=2))] == \
        ["not testable on this set"] * 6


def test_a2_2_moderate_law_needs_every_moderate_k_on_its_intervals():
    bar = claims.A2_MODERATE_R2
    noisy = {k: (0.005, 0.005) for k in claims.A2_MODERATE_KS}  # R^2 -+ 0.0098
    assert a2.moderate_law(regime(k_fits(r2=0.99), spread=noisy)) == Reading(True)
    assert a2.moderate_law(regime(k_fits(r2=0.99, k50=(-0.1, 0.95)), spread=noisy)).outcome is False
    across = regime(k_fits(r2=0.99, k50=(-0.1, 0.975)), spread=noisy)  # at k = 50, 0.975 -+ 0.0098 crosses 0.97
    assert fit.falling_law(across.fits[50], bar), "the point reading held it"
    assert a2.moderate_law(across).outcome == UNDETERMINED
    assert a2.moderate_law(regime(k_fits(r2=0.99, k10=(-0.1, 0.9), k50=(-0.1, 0.975)), spread=noisy)).outcome is False, \
        "one k wholly below the bar fails, whatever the others"
    assert a2.moderate_law(regime(k_fits(k4=(-0.1, 0.5)))) == Reading(True), "the scaled k are not graded"
    assert a2.moderate_law(regime(k_fits(k100=None))) == Reading(None)
    v = a2.moderate_verdict(evidence(regime(k_fits()), regime(k_fits(k10=(-0.1, 0.9)))),
                            context(table1_k(r2s=(0.99, 0.97, 0.96, 0.97))))
    assert (v.key, v.verdict, outcomes(v)) == ("A2.2", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert v.ours.startswith("pydocs/NeoX: k=10 R^2 0.990 [0.990, 0.990] slope -0.100 [-0.100, -0.100], k=50")
    assert "(at the paper's fractions, not graded: k=1 R^2 0.990 slope -0.100, k=4" in v.ours
    assert v.paper == ("R^2 ≥ 0.97; Table 1, k = 10 and 50 and 100: R^2 0.960-0.970; 0 of 1 (dataset, family) pass "
                       "this rule")
    v = a2.moderate_verdict(evidence(across), context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {NEOX[0]: "undetermined"})
    v = a2.moderate_verdict(evidence(regime(k_fits(k50=None))), context())
    assert outcomes(v) == {NEOX[0]: "untested"}


def test_a2_3_law_breaks_at_either_large_k():
    assert a2.law_breaks(regime(k_fits())) == Reading(False), "a falling law above the bar at both k holds on"
    assert a2.law_breaks(regime(k_fits(k2445=(-0.1, 0.8)), spread={2445: (0.0, 0.02)})) == Reading(True)
    assert a2.law_breaks(regime(k_fits(k1630=(0.05, 0.99)))).outcome is True, "a rising line is no falling law"
    assert a2.law_breaks(regime(k_fits(k2445=None))).outcome is False, "a k with nothing to fit is left out"
    assert a2.law_breaks(regime(k_fits(k1630=None, k2445=None))) == Reading(None)
    v = a2.breakdown_verdict(evidence(regime(k_fits()), regime(k_fits(k1630=(-0.1, 0.5)))), context())
    assert (v.key, v.verdict, outcomes(v)) == ("A2.3", "partly", {NEOX[0]: "fails", NEOX[1]: "holds"})
    assert v.ours.startswith("pydocs/NeoX: k=1,630 R^2 0.990 [0.990, 0.990] slope -0.100 [-0.100, -0.100], k=2,445 "
                             "R^2 0.990 [0.990, 0.990] slope -0.100 [-0.100, -0.100]")
    v = a2.breakdown_verdict(evidence(regime(k_fits(k1630=None, k2445=None))), context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})


def test_a2_3_an_r2_above_the_bar_whose_interval_crosses_it_is_undetermined():
    bar = claims.A2_MIN_R2
    across = regime(k_fits(k2445=(-0.1, 0.92)), spread={2445: (0.0, 0.05)})  # 0.92 -+ 0.098
    assert fit.falling_law(across.fits[2445], bar), "the point reading held the law on (the claim failed)"
    assert a2.law_breaks(across).outcome == UNDETERMINED
    v = a2.breakdown_verdict(evidence(across, regime(k_fits(k1630=(-0.1, 0.5)))), context())
    assert (v.verdict, outcomes(v)) == ("reproduced", {NEOX[0]: "undetermined", NEOX[1]: "holds"})
    v = a2.breakdown_verdict(evidence(across), context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", a2.ACROSS_LAW.split(";")[0])
    assert a2.law_breaks(regime(k_fits(k1630=(-0.1, 0.5), k2445=(-0.1, 0.92)), spread={2445: (0.0, 0.05)})) == \
        Reading(True), "broken at one k, whatever the other"
    assert a2.law_breaks(regime(k_fits(k1630=(-0.1, 0.5)), spread={2445: (0.0, np.nan)})) == Reading(True), \
        "a k without an interval does not keep a broken one from deciding"
    assert a2.law_breaks(regime(k_fits(), spread={2445: (0.0, np.nan)})).outcome == UNDETERMINED


def test_a2_4_slope_rises_on_the_gpt2_family_only():
    assert a2.slope_rises(regime(k_fits(k2445=(1e-9, 0.5))))
    assert not a2.slope_rises(regime(k_fits(k2445=(0.0, 0.5)))), "a flat line does not grow"
    assert a2.slope_rises(regime(k_fits(k1630=None, k2445=None))) is None
    rising = regime(k_fits(k1630=(0.02, 0.5)), spread={1630: (0.01, 0.0)})
    v = a2.gpt2_grows_verdict(evidence(rising, regime(k_fits()), gpt2=("NeoX",)), context())
    assert (v.key, v.verdict, outcomes(v)) == ("A2.4", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert v.ours.startswith("pydocs/NeoX: k=1,630 slope 0.020 [0.000, 0.040], k=2,445 slope -0.100 [-0.100, -0.100]")
    v = a2.gpt2_grows_verdict(evidence(rising), context())
    assert (v.verdict, v.ours) == ("not testable on this set", "the set has no family of the paper's GPT-2 models")
    v = a2.gpt2_grows_verdict(evidence(rising, gpt2=("NeoX",)), context(NeoX=2))
    assert (v.verdict, v.ours) == ("not testable on this set", "the GPT-2 family has fewer than 3 sizes")


def test_a2_5_scatter_interval_below_zero_holds_above_fails_across_is_undetermined():
    worse = regime(k_fits(k2445=(-0.1, 0.5)))
    assert a2.scatter_interval(worse) == pytest.approx((-0.49, -0.49))
    better = regime(k_fits(k1630=(-0.1, 0.5)))  # the fit better at the larger k: +0.49
    noisy = regime(k_fits(k2445=(-0.1, 0.5)), spread={2445: (0.0, 0.3)})  # -0.49 -+ 0.59
    v = a2.scatter_verdict(evidence(worse, better), context())
    assert (v.key, v.verdict, outcomes(v)) == ("A2.5", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert v.ours.startswith("pydocs/NeoX: R^2 0.990 at k=1,630, 0.500 at k=2,445; difference [-0.490, -0.490]")
    v = a2.scatter_verdict(evidence(worse, noisy), context())
    assert (v.verdict, v.units_text, outcomes(v)) == ("reproduced", "1 of 1, 1 of 2 decided",
                                                      {NEOX[0]: "holds", NEOX[1]: "undetermined"}), \
        "an interval across zero is not shown, not refuted"
    assert a2.scatter_worse(noisy) == Reading(claims.UNDETERMINED)
    v = a2.scatter_verdict(evidence(noisy), context())
    assert (v.verdict, v.ours.split(";")[0]) == ("undetermined", "every interval of the difference crosses zero")
    equal = a2.scatter_verdict(evidence(regime(k_fits())), context())
    assert (equal.verdict, outcomes(equal)) == ("undetermined", {NEOX[0]: "undetermined"}), \
        "equal fits: an interval touching zero decides nothing"
    untestable = regime(k_fits(), spread={2445: (0.0, np.nan)})
    v = a2.scatter_verdict(evidence(untestable), context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})
    assert "or a resample of it has every target" in v.ours


def test_a2_5_an_interval_ending_at_zero_is_flagged_fragile():
    # difference -0.49 -+ 1.96 x 0.251: its upper end 0.002 above zero, within a tenth of the half-width (0.049)
    at_edge = regime(k_fits(k2445=(-0.1, 0.5)), spread={2445: (0.0, 0.251)})
    assert a2.scatter_interval(at_edge)[1] == pytest.approx(0.002, abs=1e-4)
    v = a2.scatter_verdict(evidence(regime(k_fits(k2445=(-0.1, 0.5))), at_edge), context())
    assert (outcomes(v)[NEOX[1]], v.fragile) == ("undetermined", (NEOX[1],))
    assert "at the edge of the threshold: stdlib/NeoX" in v.ours
    inside = regime(k_fits(k2445=(-0.1, 0.5)), spread={2445: (0.0, 0.248)})  # upper end -0.004: below zero
    assert a2.scatter_worse(inside) == Reading(True, fragile=True), "held, and named as near the threshold"
    assert a2.scatter_worse(regime(k_fits(k2445=(-0.1, 0.5)), spread={2445: (0.0, 0.2)})) == Reading(True)


def scatter(*columns):
    """A2.6's scatter, one column per large k: (scatter on the fewest tokens, on all of them)."""
    return np.array([[c[0] for c in columns]] * 3 + [[c[1] for c in columns]])


def test_a2_6_noise_shrinks_at_the_ratio_and_leaves_out_unfitted_k():
    bar = claims.A2_NOISE_RATIO
    assert abs(bar - 8 ** -0.25) < 1e-12, "the geometric midpoint of no change and 1/sqrt(8)"
    shrinks = regime(k_fits(), scatter=scatter((1.0, bar), (1.0, 0.3)))
    stays = regime(k_fits(), scatter=scatter((1.0, bar + 1e-9), (1.0, 0.3)))
    v = a2.noise_verdict(evidence(shrinks, stays), context(NeoX=5, Llama=2))
    assert (v.key, v.verdict, outcomes(v)) == ("A2.6", "partly", {NEOX[0]: "holds", NEOX[1]: "fails"})
    assert "pydocs/NeoX: k=1,630 1.000 -> 0.595 (x0.59), k=2,445 1.000 -> 0.300 (x0.30)" in v.ours
    assert v.ours.endswith("; left out: Llama: 2 sizes, fewer than 3")
    unfitted = regime(k_fits(), scatter=scatter((np.nan, 0.1), (1.0, 0.3)))
    v = a2.noise_verdict(evidence(unfitted), context())
    assert v.verdict == "reproduced" and "k=1,630 not fittable on every subsample" in v.ours
    v = a2.noise_verdict(evidence(regime(k_fits(), scatter=scatter((np.nan, 0.1), (np.nan, 0.1)))), context())
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {NEOX[0]: "untested"})
    assert a2.noise_verdict(evidence(), context(NeoX=2)).ours.startswith("no family has 3 or more sizes")


def test_decide_gives_one_verdict_per_claim_in_order():
    full = regime(k_fits(), scatter=scatter((1.0, 0.3), (1.0, 0.3)))
    verdicts = a2.SPEC.decide(evidence(full, full, gpt2=("NeoX",)), context())
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A2)
    assert all(set(outcomes(v)) == set(NEOX) for v in verdicts)


def test_the_rules_say_why_cite_the_paper_and_what_their_intervals_are():
    for claim in claims.CLAIMS_A2.values():
        assert claim.kind in claims.KINDS and "Why:" in claim.rule
        assert "§" in claim.text, "an empirical claim says where the paper makes it"
        assert "percentile" not in claim.rule and "stretched" not in claim.rule
        if re.search(r"interval of .*(lies|exclude|does not lie)", claim.rule):
            assert "standard deviations of its bootstrap replicates" in claim.rule
    for key, bar in (("A2.1", claims.A2_MIN_R2), ("A2.2", claims.A2_MODERATE_R2), ("A2.3", claims.A2_MIN_R2)):
        rule = claims.CLAIMS[key].rule
        assert INTERVAL in rule and ONE_READING in rule and a2.law_rule(bar) in rule, key
        assert "point estimate" not in rule, f"{key} grades the interval of R^2, not its point"


def test_scaled_k_and_judge_with_undecided_units():
    assert claims.scaled_k(20_000, claims.PAPER_A_VOCAB) == 20_000
    assert claims.scaled_k(100, 4096) == 8 and claims.scaled_k(1, 4096) == 1
    assert a2.family_ks(4096) == ((1, 4, 8), LARGE)
    v = claims.judge("A2.3", {NEOX[0]: True, NEOX[1]: None}, "broken; not fittable")
    assert v.verdict == "reproduced" and "not tested on: stdlib/NeoX" in v.ours
    assert v.kind == "empirical" and v.rule == claims.CLAIMS["A2.3"].rule


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB = 4096


def run(family, size, seed, source="local/model"):
    """A model of ``size`` non-embedding parameters whose targets rank better the larger it is."""
    rng = np.random.default_rng(seed)
    n = 3000
    gt = np.minimum(rng.lognormal(4.0 - 0.4 * np.log10(size), 2.0, n).astype(np.int32), VOCAB - 1)
    records = Records(logp=np.zeros(n, np.float32), gt=gt, ge=gt, target=np.zeros(n, np.int32),
                      window=(np.arange(n) // 30).astype(np.int32), document=(np.arange(n) // 30).astype(np.int64),
                      top_logp=np.zeros((n, 1), np.float32),
                      manifest=SimpleNamespace(vocab_size=VOCAB, source={"model": source, "revision": None}))
    return Run(family, f"{family}-{size:g}", None, size, 2 * size, records)


GPT2 = ["openai-community/gpt2", "openai-community/gpt2-medium", "openai-community/gpt2-large"]
CORPORA = ("pydocs", "stdlib")


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run("NeoX", size, 10 * c + i) for i, size in enumerate((1e3, 1e4, 1e5, 1e6))]
                   + [run("GPT2", size, 20 * c + i, source=hub) for i, (size, hub) in enumerate(zip((2e3, 2e5), GPT2))]
                   + [run("Mono", 5e4, 30 + c)] for c, corpus in enumerate(CORPORA)}
    chapter = Chapter.of(family_runs, n_boot=6)
    ctx = chapter.context(*a2.TABLES)
    return family_runs, ctx, a2.measure(chapter, ctx)


def test_measure_fits_every_family_of_two_sizes_and_knows_gpt2(synthetic):
    _, ctx, found = synthetic
    assert list(found.units) == [(c, fam) for c in CORPORA for fam in ("NeoX", "GPT2")], "one size cannot be fitted"
    assert found.gpt2 == ("GPT2",)
    for (corpus, family), r in found.units.items():
        assert (r.vocab, r.moderate_scaled, r.large, r.level) == (VOCAB, (1, 4, 8), LARGE, ctx.level)
        assert list(r.fits) == sorted({1, 4, 8, 10, 50, 100, *LARGE})
        assert all(r.slopes[k].shape == (6,) for k in r.fits)
        assert (r.scatter is not None) == (family == "NeoX"), "a scatter about a line needs three sizes"


def test_measure_fits_what_a_fit_by_hand_gives(synthetic):
    family_runs, _, found = synthetic
    for (corpus, family), r in found.units.items():
        members = [m for m in family_runs[corpus] if m.family == family]
        sizes = [m.non_embedding for m in members]
        for k, f in r.fits.items():
            by_hand = [-np.log(np.mean(m.records.ge + 1 <= k)) for m in members]
            assert r.values[k] == pytest.approx(by_hand)
            if min(by_hand) <= 0:
                assert f is None
                continue
            expected = fit.fit_power_law(sizes, by_hand)
            assert (f.slope, f.r2) == pytest.approx((expected.slope, expected.r2))
        if r.scatter is not None:
            ranks = [m.records.ge + 1 for m in members]
            by_hand = fit.subsample_scatter(sizes, ranks, lambda rank: metrics.neg_log_rbp(rank, list(LARGE)),
                                            claims.A2_NOISE_FRACTIONS, claims.A2_NOISE_REPEATS)
            np.testing.assert_allclose(r.scatter, by_hand)


def test_the_library_decides_from_the_measure(synthetic):
    _, ctx, found = synthetic
    verdicts = a2.SPEC.decide(found, ctx)
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A2)
    assert {unit for v in verdicts for unit, _ in v.outcomes} == {Unit(c, "NeoX") for c in CORPORA}
    assert verdicts[3].ours == "the GPT-2 family has fewer than 3 sizes"


def test_paper_family_needs_every_model_of_the_papers_family():
    assert a2.paper_family([run("G", 1e3, 0, GPT2[0]), run("G", 1e4, 1, GPT2[1])]) == "GPT2"
    assert a2.paper_family([run("G", 1e3, 0, GPT2[0]), run("G", 1e4, 1)]) is None
    assert a2.paper_family([run("G", 1e3, 0)]) is None


# ---------------------------------------------------------------------------------------------
# The chapter's tables and figures

def test_fits_table_one_row_per_corpus_family_and_k(synthetic):
    _, ctx, found = synthetic
    table = a2.fits_table(found, ctx)
    assert len(table) == sum(len(r.fits) for r in found.units.values())
    neox = table[(table["corpus"] == "pydocs") & (table["family"] == "NeoX")].set_index("k")
    assert neox.loc[1, "regime"] == "k = 1" and neox.loc[10, "regime"] == "moderate, the paper's k"
    assert neox.loc[4, "regime"] == "moderate, the paper's fraction" and neox.loc[1630, "sizes"] == 4
    assert neox.loc[2445, "k / vocab"] == pytest.approx(2445 / VOCAB)
    summary = a2.fits_summary(table)
    assert summary.startswith(f"Headline numbers of the table below, over its {len(table)} fits")
    assert a2.fits_summary(pd.DataFrame()) == "No family has two sizes, so the table below has no fit."


def test_regime_curves_and_the_k_of_each_regime(synthetic):
    _, _, found = synthetic
    curves = a2.regime_curves(found, ["pydocs", "humaneval"], "large")
    assert list(curves) == ["pydocs", "humaneval"] and curves["humaneval"] == []
    family, model_sizes, lines = curves["pydocs"][0]
    assert family == "NeoX" and [k for k, _, _ in lines] == list(LARGE)
    assert [len(a2.regime_curves(found, ["pydocs"], name)["pydocs"][0][2]) for name in a2.REGIMES] == [1, 3, 3, 2]


def test_regimes_text_and_headline(synthetic):
    family_runs, ctx, found = synthetic
    text = a2.regimes_text(family_runs["pydocs"])
    assert text.startswith("NeoX: 4,096 tokens; moderate $k$ 10, 50, 100 (the paper's), 1, 4, 8 at the paper's")
    assert text.count("; moderate") == 3, "every family, whatever its sizes"
    (line,) = a2.headline(found, ctx)
    r = found.units["pydocs", "NeoX"].fits[1]
    assert line == f"On pydocs, −log RBP_1 against size: NeoX slope {r.slope:+.3f}, R² {r.r2:.3f}."
    assert a2.headline(found, context(NeoX=2)) == []


def test_the_paper_table_read_is_table_1():
    assert set(a2.A2_MODERATE_KS) - {10, 100} <= {50}
    assert {1, 10, 100} <= set(reference_table(a2.TABLE1)["k"].dropna().astype(int))


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes

def test_the_chapter_sets_no_threshold_and_names_its_figures():
    source = NOTEBOOK.read_text()
    parameters = source.split('# %% tags=["parameters"]')[1].split("# %%")[0]
    assert not re.search(r"r2|band|margin|ratio|n_boot|level|k_grid|n_k\b", parameters)
    labels = re.findall(r'"name": "(fig-[a-z0-9-]+)"', source)
    assert labels and all(label.startswith("fig-a2-") for label in labels) and len(set(labels)) == len(labels)
    assert set(re.findall(r"\{numref\}`(fig-[a-z0-9-]+)`", source)) <= set(labels), "prose refers to figures that exist"
    assert set(re.findall(r'a2\.regime_curves\(evidence, corpora, "([^"]+)"\)', source)) == set(a2.REGIMES)


def test_the_notebook_grades_nothing_itself_and_passes_its_parameters_on():
    source = NOTEBOOK.read_text()
    code = "\n".join("\n".join(lines) for kind, lines in notebook_cells(source) if kind == "code")
    assert "claims.judge(" not in code and "percentile" not in code and "quantile(" not in code


def test_a_family_fit_resamples_whole_documents_shared_by_its_models():
    """The fits' replicates draw the same documents for every model of the family (``Context.resampling``), each
    document whole: a family whose models have the same ranks refits a slope of 0 on every replicate; so does a
    family whose models hold the same ranks in every document, shuffled across that document's windows, which
    replicates of single tokens or of windows would tell apart; models cut into other documents raise."""
    records = run("NeoX", 1e4, 1).records
    same = [Run("NeoX", f"NeoX-{size:g}", None, size, 2 * size, records) for size in (1e3, 1e4, 1e5)]
    context = Context({"NeoX": 3}, n_boot=20)
    fits = a2.fit_regimes(same, [[], [], []], context)
    assert all(np.allclose(slopes, 0.0) for slopes in fits.slopes.values())
    tokens = context.resampling(same)
    assert tokens == {"same_text": [("NeoX",)] * 3, "by": "document"}
    fits = a2.fit_regimes(same, [[], [], []], Context({"NeoX": 3}, n_boot=20, by=None))
    assert all(np.allclose(slopes, 0.0) for slopes in fits.slopes.values()), "paired tokens too"
    # documents of 5 windows each (the records' are contiguous); each model's ranks shuffled within every document
    documents = Records(**{**records.__dict__, "document": (records.window // 5).astype(np.int64)})
    starts = np.flatnonzero(np.diff(documents.document, prepend=-1))
    assert len(starts) == len(np.unique(records.window)) // 5 > 1
    rng = np.random.default_rng(0)
    shuffled = []
    for size in (1e3, 1e4, 1e5):
        order = np.concatenate([start + rng.permutation(len(part))
                                for start, part in zip(starts, np.split(documents.document, starts[1:]))])
        assert not np.array_equal(documents.window[order], documents.window), "the shuffles cross windows"
        moved = Records(**{**documents.__dict__, "gt": documents.gt[order], "ge": documents.ge[order]})
        shuffled.append(Run("NeoX", f"NeoX-{size:g}", None, size, 2 * size, moved))
    fits = a2.fit_regimes(shuffled, [[], [], []], context)
    assert all(np.allclose(slopes, 0.0) for slopes in fits.slopes.values()), "whole documents"
    fits = a2.fit_regimes(shuffled, [[], [], []], Context({"NeoX": 3}, n_boot=20, by=None))
    assert not all(np.allclose(slopes, 0.0) for slopes in fits.slopes.values()), "single tokens tell them apart"
    other = Run("NeoX", "moved", None, 1e6, 2e6,
                Records(**{**records.__dict__, "document": records.document[::-1].copy()}))
    with pytest.raises(ValueError, match="not evaluated on the same documents"):
        a2.fit_regimes([*same, other], [[], [], [], []], context)
