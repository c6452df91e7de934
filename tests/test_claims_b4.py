"""Chapter B4 (``rankscale.claims.b4``): each claim's rule made to hold, fail, stay undetermined and go untested on
constructed evidence, read from the verdicts' structured outcomes; its measure on small synthetic runs, checked
against shares, trends and curvatures done by hand; and its notebook, which explains and calls, but computes
nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from helpers import notebook_cells

from rankscale import claims
from rankscale.analysis import components, fit
from rankscale.analysis.bootstrap import side
from rankscale.claims import b4
from rankscale.claims.reference import reference_table
from rankscale.claims.base import NOT_TESTABLE, POOLED, UNDETERMINED, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "b4_shares.py"
NEOX, STDLIB = Unit("pydocs", "NeoX"), Unit("stdlib", "NeoX")
RISES, FALLS, FLAT = (0.01, (0.005, 0.015)), (-0.01, (-0.015, -0.005)), (0.0, (-0.01, 0.01))
SLOWS, STEEPENS, STRAIGHT = (0.01, (0.005, 0.015)), (-0.01, (-0.015, -0.005)), (0.01, (-0.005, 0.025))

# ---------------------------------------------------------------------------------------------
# Constructed evidence


def shares(*, smallest=None, signed=None, magnitude=None, bends=None, seeds=None, pooled_reason="one family",
           scatter=None, small=None):
    """Evidence of these units, keyed (corpus, group); a trend given for one share only is flat for the other, the
    seeds default to two, the scatter between runs to a measured one wherever a size has two runs (there: all)."""
    trends = [*(signed or {}), *(magnitude or {})]
    signed, magnitude = ({u: (given or {}).get(u, FLAT) for u in trends} for given in (signed, magnitude))
    units = [*(smallest or {}), *signed, *(bends or {})]
    return b4.Shares(dict.fromkeys(c for c, _ in units), smallest or {}, signed, magnitude, bends or {},
                     seeds or dict.fromkeys(bends or {}, claims.B4_MIN_SEEDS), {}, pooled_reason,
                     dict.fromkeys(bends or {}, 0.002) | (scatter or {}), small, 1e9)


def context(**sizes) -> Context:
    return Context(sizes or {"NeoX": 5}, n_boot=2)


def outcomes(verdict) -> dict:
    return dict(verdict.outcomes)


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_b4_1_ee_dominates_holds_above_the_share_fails_below_and_is_undetermined_across():
    at = claims.B4_DOMINANT_SHARE
    github = Unit("github", "NeoX")
    v = b4.ee_dominates_verdict(shares(smallest={("pydocs", "NeoX"): ("d16", 0.9, (0.85, 0.95)),
                                                 ("stdlib", "NeoX"): ("d16", 0.75, (0.72, 0.78)),
                                                 ("github", "NeoX"): ("d16", 0.82, (0.79, 0.85))}), context())
    assert (v.key, v.verdict, outcomes(v), v.units_text) == (
        "B4.1", "partly", {NEOX: "holds", STDLIB: "fails", github: "undetermined"}, "1 of 2, 2 of 3 decided")
    assert b4.dominates((at + 1e-9, at + 0.04)).outcome is True
    assert b4.dominates((at, at + 0.04)).outcome == UNDETERMINED, "touching the threshold is not above it"
    assert b4.dominates(None).outcome == UNDETERMINED, "measured, but no interval: nothing shown either way"


def test_b4_names_a_unit_read_at_the_edge_of_its_threshold_as_fragile():
    at = claims.B4_DOMINANT_SHARE
    v = b4.ee_dominates_verdict(shares(smallest={("pydocs", "NeoX"): ("d16", at + 0.0401, (at + 0.0001, at + 0.08)),
                                                 ("stdlib", "NeoX"): ("d16", 0.9, (0.85, 0.95))}), context())
    assert (v.verdict, v.fragile) == ("reproduced", (NEOX,))
    assert "at the edge of the threshold: pydocs/NeoX" in v.ours
    unit = ("pydocs", "NeoX")
    v = b4.law_slows_verdict(shares(bends={unit: (0.0101, (0.0001, 0.0201))}), context())
    assert (outcomes(v), v.fragile) == ({NEOX: "holds"}, (NEOX,))


def test_b4_2_share_falls_is_decided_by_the_magnitude_share_that_fig_8_plots_alone():
    pooled = Unit("pydocs", pooled=True)
    v = b4.share_falls_verdict(shares(magnitude={("pydocs", "NeoX"): FALLS}, signed={("pydocs", "NeoX"): RISES}),
                               context())
    assert (v.key, v.verdict, outcomes(v)) == ("B4.2", "reproduced", {NEOX: "holds"}), \
        "EE/CE rising (Confidence positive and growing) is shown, not graded"
    assert outcomes(b4.share_falls_verdict(shares(magnitude={("pydocs", "NeoX"): RISES},
                                                  signed={("pydocs", "NeoX"): FALLS}), context())) == {NEOX: "fails"}
    v = b4.share_falls_verdict(shares(magnitude={("pydocs", "NeoX"): (-0.01, (-0.02, 0.001))}), context())
    assert (v.verdict, outcomes(v)) == ("undetermined", {NEOX: "undetermined"}), \
        "a fall within the noise is not shown, nor refuted"
    both = shares(magnitude={("pydocs", "NeoX"): FALLS, ("pydocs", POOLED): RISES}, pooled_reason=None)
    assert outcomes(b4.share_falls_verdict(both, context())) == {NEOX: "holds", pooled: "fails"}, \
        "the pooled fit is a unit where the families can be pooled"


def test_b4_2_names_families_with_too_few_sizes_and_needs_one_with_enough():
    llama = Unit(family="Llama")
    v = b4.share_falls_verdict(shares(magnitude={("pydocs", "NeoX"): FALLS}), context(NeoX=5, Llama=2))
    assert outcomes(v) == {llama: "untested", NEOX: "holds"}
    v = b4.share_falls_verdict(shares(), context(NeoX=2))
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {Unit(family="NeoX"): "untested"})
    assert v.ours.startswith("no family has 3 or more sizes (NeoX: 2 sizes, fewer than 3)")


def test_b4_3_a_curvature_with_no_measured_scatter_between_runs_is_undetermined():
    unit, unmeasured = ("pydocs", "NeoX"), float("nan")
    v = b4.law_slows_verdict(shares(bends={unit: SLOWS}, seeds={unit: 1}, scatter={unit: unmeasured}), context())
    assert (v.key, v.verdict, outcomes(v), v.tested) == ("B4.3", UNDETERMINED, {NEOX: UNDETERMINED}, 0)
    assert outcomes(b4.law_slows_verdict(shares(bends={unit: SLOWS}), context())) == {NEOX: "holds"}
    v = b4.law_slows_verdict(shares(bends={unit: STRAIGHT}), context())
    assert (v.verdict, outcomes(v)) == (UNDETERMINED, {NEOX: UNDETERMINED})
    assert v.ours.startswith("CE law straight within noise"), "why, where the seeds are not"
    assert outcomes(b4.law_slows_verdict(shares(bends={unit: STEEPENS}), context())) == {NEOX: "fails"}
    mixed = shares(bends={unit: SLOWS, ("stdlib", "NeoX"): SLOWS}, seeds={unit: 3, ("stdlib", "NeoX"): 1},
                   scatter={("stdlib", "NeoX"): unmeasured})
    v = b4.law_slows_verdict(mixed, context())
    assert (v.verdict, outcomes(v)) == ("reproduced", {NEOX: "holds", STDLIB: UNDETERMINED})
    one_seeded = shares(bends={unit: SLOWS}, seeds={unit: 1}, scatter={unit: 0.002})
    assert outcomes(b4.law_slows_verdict(one_seeded, context())) == {NEOX: "holds"}, \
        "one run at some size, the scatter measured at another: decided"


def test_b4_3_needs_four_sizes():
    v = b4.law_slows_verdict(shares(bends={("pydocs", "NeoX"): SLOWS}), context(NeoX=5, Llama=3))
    assert outcomes(v) == {Unit(family="Llama"): "untested", NEOX: "holds"}
    v = b4.law_slows_verdict(shares(), context(NeoX=3))
    assert (v.verdict, v.ours) == (NOT_TESTABLE, "no family has 4 or more sizes (NeoX: 3 sizes, fewer than 4)")


def test_b4_4_the_bend_must_follow_the_share_where_the_share_is_clear():
    unit = ("pydocs", "NeoX")

    def outcome(bend, trend, scatter=0.002):
        v = b4.bend_follows_share_verdict(shares(magnitude={unit: trend}, bends={unit: bend}, scatter={unit: scatter}),
                                          context())
        return v.key, outcomes(v)[NEOX]
    assert outcome(SLOWS, FALLS) == outcome(STEEPENS, RISES) == ("B4.4", "holds")
    assert outcome(SLOWS, RISES) == outcome(STEEPENS, FALLS) == ("B4.4", "fails")
    assert outcome(SLOWS, FALLS, scatter=float("nan")) == ("B4.4", UNDETERMINED), "no scatter between runs measured"
    assert outcome(SLOWS, FLAT) == outcome(STEEPENS, FLAT) == ("B4.4", "untested"), "the mechanism predicts nothing"
    assert outcome(STRAIGHT, FALLS) == outcome(STRAIGHT, RISES) == ("B4.4", UNDETERMINED), "a bend within noise"
    v = b4.bend_follows_share_verdict(shares(magnitude={unit: FALLS, ("stdlib", "NeoX"): FALLS},
                                             bends={unit: SLOWS, ("stdlib", "NeoX"): STRAIGHT}), context())
    assert (v.verdict, "stdlib/NeoX (CE law straight within noise)" in v.ours) == ("reproduced", True)
    v = b4.bend_follows_share_verdict(shares(magnitude={unit: FLAT, ("stdlib", "NeoX"): FALLS},
                                             bends={unit: SLOWS, ("stdlib", "NeoX"): SLOWS}), context())
    assert (v.verdict, "pydocs/NeoX (EE's share flat within noise)" in v.ours) == ("reproduced", True), \
        "the untested unit named with why"
    v = b4.bend_follows_share_verdict(shares(magnitude={unit: FLAT}, bends={unit: SLOWS}), context())
    assert (v.verdict, v.ours.startswith("on no family is the share's trend clear")) == (NOT_TESTABLE, True)


@pytest.mark.parametrize("magnitude, signed, bend, expected", [
    (FALLS, RISES, SLOWS, "holds"),  # Fig. 8's share falls while EE/CE rises (Confidence growing): c > 0 predicted
    (FALLS, RISES, STEEPENS, "fails"),  # the bend EE/CE would predict is against the mechanism on Fig. 8's share
    (FLAT, FALLS, SLOWS, "untested"),  # EE/CE's clear fall predicts nothing where Fig. 8's share is flat
])
def test_b4_4_reads_the_share_b4_2_grades_not_ee_over_ce(magnitude, signed, bend, expected):
    unit = ("pydocs", "NeoX")
    evidence = shares(magnitude={unit: magnitude}, signed={unit: signed}, bends={unit: bend})
    assert outcomes(b4.bend_follows_share_verdict(evidence, context()))[NEOX] == expected
    premise = b4.share_falls_verdict(evidence, context())  # B4.2 reads the same share, with the same function
    assert outcomes(premise)[NEOX] == {FALLS: "holds", FLAT: "undetermined"}[magnitude]
    v = b4.bend_follows_share_verdict(evidence, context())
    assert f"pydocs/NeoX {bend[0]:+.5f} [{bend[1][0]:+.5f}, {bend[1][1]:+.5f}] / {magnitude[0]:+.4f}" in v.ours


def test_b4_5_clean_law_reads_ces_r2_over_the_small_models_against_the_law_threshold():
    at, laws = claims.B3_LAW_R2, {}
    for corpus, ci in (("pydocs", (at + 0.001, at + 0.1)), ("stdlib", (at - 0.2, at - 0.01)),
                       ("github", (at - 0.05, at + 0.05))):
        laws[corpus, "NeoX"] = b4.SmallLaw(5, 5, sum(ci) / 2, ci, 0.97)
    laws["pydocs", "Llama"] = b4.SmallLaw(2, 2, 1.0, None, 1.0)  # two small sizes: a line fits them exactly
    v = b4.clean_law_verdict(shares(small=laws), context())
    assert (v.key, v.kind, v.verdict, v.units_text) == ("B4.5", "empirical", "partly", "1 of 2, 2 of 3 decided")
    assert outcomes(v) == {NEOX: "holds", Unit("stdlib", "NeoX"): "fails", Unit("github", "NeoX"): "undetermined",
                           Unit("pydocs", "Llama"): "untested"}
    assert v.fragile == (NEOX,), "the interval's lower end lies within the bootstrap's noise of the threshold"
    v = b4.clean_law_verdict(shares(small={("pydocs", "Llama"): laws["pydocs", "Llama"]}), context())
    assert v.verdict == NOT_TESTABLE
    assert b4.small_limit(reference_table(b4.TABLE4)) == float(reference_table(b4.TABLE4)["non_embedding_params"]
                                                                 .median())


def test_decide_gives_one_verdict_per_claim_in_order():
    unit = ("pydocs", "NeoX")
    evidence = shares(smallest={unit: ("d16", 0.9, (0.85, 0.95))}, signed={unit: FALLS},
                      magnitude={unit: FALLS}, bends={unit: SLOWS}, small={unit: b4.SmallLaw(5, 5, 0.99, (0.98, 1.0), 0.99)})
    verdicts = b4.SPEC.decide(evidence, context())
    assert [v.key for v in verdicts] == list(claims.CLAIMS_B4)
    assert [v.verdict for v in verdicts] == ["reproduced"] * 5


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB, TOKENS = 300, 1200


def run(family, size, seed, replica=0):
    """A model of ``size`` non-embedding parameters whose targets rank better the larger it is."""
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.lognormal(2.5 - 0.35 * np.log10(size), 1.2, TOKENS).astype(np.int32), VOCAB - 1)
    logp = (-rng.gamma(2.0, 0.5, TOKENS) - 0.2 * np.log1p(gt)).astype(np.float32)
    records = Records(logp=logp, gt=gt, ge=gt, target=np.zeros(TOKENS, np.int32),
                      window=(np.arange(TOKENS) // 40).astype(np.int32),
                      document=(np.arange(TOKENS) // 40).astype(np.int64),
                      top_logp=np.zeros((TOKENS, 1), np.float32), manifest=SimpleNamespace(vocab_size=VOCAB))
    return Run(family, f"{family}-{size:g}", None, size, 2 * size, records, replica=replica)


SIZES = {"NeoX": [1e3, 1e4, 1e5, 1e6], "Llama": [2e3, 2e5]}
CORPORA = ("pydocs", "stdlib")


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run(fam, size, 10 * c + i) for fam, sizes in SIZES.items() for i, size in enumerate(sizes)]
                   for c, corpus in enumerate(CORPORA)}
    context = Context.of(family_runs["pydocs"], n_boot=6, tables={b4.TABLE4: reference_table(b4.TABLE4)})
    return family_runs, context, b4.measure(Chapter.of(family_runs, 6, seeds=synthetic_seeds()), context)


def synthetic_seeds():
    """A second run at every NeoX size on pydocs, at the smallest only on stdlib."""
    return {"pydocs": [run("NeoX", size, 50 + i, replica=1) for i, size in enumerate(SIZES["NeoX"])],
            "stdlib": [run("NeoX", 1e3, 99, replica=1)]}


def test_the_curvature_is_read_on_the_replicates_of_the_terms():
    """The replicates carry the scatter between runs already (``bootstrap.resample``'s seeds, tested there): the
    curvature's interval is the spread of the curvature over them, and adds nothing of its own."""
    from rankscale.claims.b3 import CorpusTerms
    rng = np.random.default_rng(4)
    x = np.log([1e3, 1e4, 1e5, 1e6])
    ce = np.exp(1.5 - 0.05 * x + 0.002 * (x - x.mean()) ** 2)
    members = tuple(Run("NeoX", f"m{i}", None, float(np.exp(v)), 0, None) for i, v in enumerate(x))
    full = np.column_stack([ce, ce, 0 * ce, 0 * ce])
    still = CorpusTerms(members, full, np.tile(full, (400, 1, 1)))  # replicates that do not move
    point, interval = b4.bend(still, "NeoX", 0.95)
    assert point == pytest.approx(0.002) and interval == pytest.approx((0.002, 0.002)), "no scatter: no width"
    moved = np.tile(full, (400, 1, 1)) * np.exp(rng.normal(0, 0.01, (400, 4, 1)))
    point, interval = b4.bend(CorpusTerms(members, full, moved), "NeoX", 0.95)
    by_hand = [components.curvature(np.exp(x), moved[b, :, 0]) for b in range(400)]
    assert interval == pytest.approx((point - 1.959964 * np.std(by_hand), point + 1.959964 * np.std(by_hand)), rel=1e-5)

def terms(runs):
    return np.array([components.terms_vector({"logp": r.records.logp, "gt": r.records.gt}) for r in runs])


def test_measure_gives_what_shares_trends_and_curvatures_by_hand_give(synthetic):
    family_runs, _, evidence = synthetic
    assert list(evidence.smallest) == [(c, f) for c in CORPORA for f in SIZES]
    assert list(evidence.signed) == [(c, g) for c in CORPORA for g in ("NeoX", "Llama", POOLED)]
    assert list(evidence.bends) == [(c, "NeoX") for c in CORPORA], "a bend needs four sizes"
    assert evidence.seeds == {("pydocs", "NeoX"): 2, ("stdlib", "NeoX"): 1}, "the fewest runs at any size"
    for corpus, sizes in (("pydocs", SIZES["NeoX"]), ("stdlib", SIZES["NeoX"][:1])):  # the sizes with a second run
        by_hand = max(np.std(np.log([-np.mean(r.records.logp, dtype=np.float64) for r in runs]), ddof=1) for runs in
                      ([r for r in family_runs[corpus] + [*synthetic_seeds()[corpus]] if r.family == "NeoX"
                        and r.non_embedding == size] for size in sizes))
        assert evidence.scatter_of((corpus, "NeoX")) == pytest.approx(by_hand)
    for corpus in CORPORA:
        for group in ("NeoX", "Llama", POOLED):
            members = [r for r in family_runs[corpus] if group == POOLED or r.family == group]
            values, x = terms(members), np.log([r.non_embedding for r in members])
            if group != POOLED:
                name, share, ci = evidence.smallest[corpus, group]
                by_hand = abs(values[0, 1]) / np.abs(values[0, 1:]).sum()  # Fig. 8's share, not EE/CE
                assert (name, share) == (members[0].name, pytest.approx(by_hand))
                assert ci[0] <= share <= ci[1]
            slope = np.polyfit(x, np.log(values[:, 1] / values[:, 0]), 1)[0]
            assert evidence.signed[corpus, group][0] == pytest.approx(slope)
            magnitude = np.abs(values[:, 1]) / np.abs(values[:, 1:]).sum(axis=1)
            assert evidence.magnitude[corpus, group][0] == pytest.approx(np.polyfit(x, np.log(magnitude), 1)[0])
            if group == "NeoX":
                curvature = np.polyfit(x - x.mean(), np.log(values[:, 0]), 2)[0]
                assert evidence.bends[corpus, group][0] == pytest.approx(curvature)
        table = evidence.models[corpus]
        assert table[["EE/CE (signed)", "SA/CE (signed)", "Conf/CE (signed)"]].sum(axis=1).to_numpy() == \
            pytest.approx(1.0)


def test_measure_draws_with_the_contexts_seed(synthetic):
    family_runs, context, evidence = synthetic
    chapter, unit = Chapter.of(family_runs, 6), ("pydocs", "NeoX")
    once, again = b4.measure(chapter, context), b4.measure(chapter, context)
    other = b4.measure(chapter, Context(context.sizes, 6, context.tables, seed=1))
    assert once.bends[unit] == again.bends[unit]
    assert other.bends[unit][0] == once.bends[unit][0] and other.bends[unit][1] != once.bends[unit][1], \
        "another seed draws other resamples, not other models"
    assert evidence.bends[unit][1] != once.bends[unit][1], "the extra seeds enter the resamples"


def test_measure_then_decide_and_the_tables(synthetic):
    _, context, evidence = synthetic
    verdicts = b4.SPEC.decide(evidence, context)
    assert [v.key for v in verdicts] == list(claims.CLAIMS_B4)
    assert {u for u, _ in verdicts[1].outcomes} == {Unit(c, "NeoX") for c in CORPORA} | \
        {Unit(c, pooled=True) for c in CORPORA} | {Unit(family="Llama")}
    assert np.isfinite(evidence.scatter_of(("stdlib", "NeoX"))), \
        "one run at three of stdlib's NeoX sizes: the scatter measured at the fourth is carried to them"
    law = evidence.small["pydocs", "NeoX"]
    neox = evidence.models["pydocs"][lambda t: t["family"] == "NeoX"]
    assert (law.models, law.sizes) == (4, 4) and evidence.small["pydocs", "Llama"].sizes == 2
    assert law.r2 == pytest.approx(fit.fit_power_law(neox["params"], neox["CE"]).r2), "every synthetic size is small"
    assert law.semilog_r2 == pytest.approx(fit.fit_semilog(neox["params"], neox["CE"]).r2)
    assert verdicts[4].outcomes[1] == (Unit("pydocs", "Llama"), "untested"), "two sizes: a line fits them exactly"
    trends = b4.trend_table(evidence)
    assert len(trends) == 2 * 3 * 2 and list(trends["share"][:2]) == [b4.GRADED, b4.SIGNED]
    assert b4.trend_counts(trends)[0] == 6
    bends = b4.bend_table(evidence)
    assert list(bends["family"]) == ["NeoX", "NeoX"]
    assert bends[b4.SHARE_TREND].tolist() == [b4.TREND_WORDS[side(evidence.magnitude[c, "NeoX"][1])] for c in CORPORA], \
        "beside the bend, the trend B4.2 grades and B4.4 reads"
    assert b4.summary(evidence, context).count("\n- `") == 6 and "Llama (2 sizes, not graded)" in \
        b4.summary(evidence, context)
    assert list(b4.shares_table(evidence).columns[:5]) == ["corpus", "family", "model", "params", "CE"]


def test_local_exponents_are_the_fits_of_the_family_and_the_slopes_between_neighbours(synthetic):
    _, _, evidence = synthetic
    table = evidence.models["pydocs"]
    local = b4.local_exponents(pd.concat([table, table.iloc[[-1]].assign(family="Single")]))
    assert list(local) == ["NeoX", "Llama"], "one size has no slope between neighbours"
    neox = table[table.family == "NeoX"]
    sizes, ce = neox.params.to_numpy(float), neox.CE.to_numpy()
    assert local["NeoX"].law == pytest.approx(fit.fit_power_law(sizes, ce).slope)
    assert local["NeoX"].measured == pytest.approx(np.diff(np.log(ce)) / np.diff(np.log(sizes)))
    alpha_ee = fit.fit_power_law(sizes, neox.EE.to_numpy()).slope
    assert local["NeoX"].ee_only == pytest.approx(alpha_ee * neox["EE/CE (signed)"].to_numpy())


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes

def test_the_notebook_grades_nothing_itself_and_passes_its_parameters_on():
    source = NOTEBOOK.read_text()
    code = "\n".join("\n".join(lines) for kind, lines in notebook_cells(source) if kind == "code")
    assert "seed=seed" in code and "n_boot=n_boot" in code, "the parameters reach the context and the chapter"
