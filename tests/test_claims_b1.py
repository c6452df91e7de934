"""Chapter B1's module (``rankscale.claims.b1``): each rule holds, fails and cannot be tested on constructed
evidence, ``measure`` gives what a decomposition by hand gives on small synthetic runs, and the notebook only
explains."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rankscale import claims
from rankscale.analysis import dynamics, metrics
from rankscale.claims import b1
from rankscale.claims.base import NOT_TESTABLE, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "b1_decomposition.py"
CONTEXT = Context({"NeoX": 3}, n_boot=2)

# ---------------------------------------------------------------------------------------------
# Constructed evidence

TERMS = metrics.ce_decomposition(np.log([0.5, 0.25, 0.5, 0.1]), np.array([0, 1, 0, 3]))


def model(name, family="NeoX", corpus="pydocs", residual=0.0, concentrated=True, terms=TERMS, featured=False):
    """A decomposed model whose identity misses by ``residual`` nats."""
    label = f"{family or 'reference'}: {name}"
    return b1.Decomposed(corpus, family, name, label, 1000, 8, 4, terms.ce + residual, terms, concentrated, featured)


def temperatures(differing=0, same=True, ee_shift=0.0):
    return pd.DataFrame({"T": [0.5, 1.0, 2.0], "CE": [3.0, 2.5, 2.8], "EE": [2.0 + ee_shift, 2.0, 2.0],
                         "SA": [0.3, 0.4, 0.5], "Conf": [0.1, 0.2, 0.3], "p_0 (top-1)": [0.4, 0.4, 0.4],
                         "targets whose RBE differs from T = 1": [differing, 0, 0],
                         "same targets as T = 1": [same, True, True]})


def evidence(*models, controls=(), table=None):
    return b1.Decompositions(tuple(models), tuple(controls), "pydocs", table,
                             Unit("pydocs", "NeoX", model="d160") if table is not None else Unit(), 4000)


def outcomes(verdict):
    """The verdict's outcome per unit, by its structured unit."""
    return dict(verdict.outcomes)


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_b1_1_the_identity_holds_below_the_threshold_and_fails_at_it():
    at = claims.B1_MAX_RESIDUAL
    models = [model("d16", residual=at * 0.99), model("d32", residual=-at * 0.99), model("Smol", family=None)]
    v = b1.identity_verdict(evidence(*models), CONTEXT)
    assert (v.key, v.verdict, v.held, v.tested) == ("B1.1", "reproduced", 3, 3)
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="d16"): "holds", Unit("pydocs", "NeoX", model="d32"): "holds",
                           Unit("pydocs", "Smol"): "holds"}, "a reference model is a unit of its own name"
    models[1] = model("d32", residual=-at)  # the threshold itself is not below it
    v = b1.identity_verdict(evidence(*models), CONTEXT)
    assert (v.verdict, outcomes(v)[Unit("pydocs", "NeoX", model="d32")]) == ("partly", "fails")
    assert "NeoX 1/2, reference 1/1" in v.ours
    v = b1.identity_verdict(evidence(), CONTEXT)
    assert (v.verdict, v.tested) == (NOT_TESTABLE, 0)


def test_b1_2_concentration_follows_each_models_check_and_reports_the_control():
    models = [model("d16"), model("d32", concentrated=False), model("d16", corpus="stdlib")]
    v = b1.concentration_verdict(evidence(*models, controls=(False, True, False)), CONTEXT)
    assert (v.key, v.verdict) == ("B1.2", "partly")
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="d16"): "holds", Unit("pydocs", "NeoX", model="d32"): "fails",
                           Unit("stdlib", "NeoX", model="d16"): "holds"}
    assert "NeoX 2/3" in v.ours and v.ours.endswith("1 of the 3 untrained step-0 checkpoints on pydocs")
    v = b1.concentration_verdict(evidence(model("d16")), CONTEXT)
    assert v.verdict == "reproduced" and v.ours.endswith("no step-0 checkpoint in this set to run the control on")
    assert b1.concentration_verdict(evidence(), CONTEXT).verdict == NOT_TESTABLE


def test_b1_3_the_ceiling_holds_within_the_slack_and_fails_beyond_it():
    slack = claims.B1_BOUND_SLACK
    assert b1.bound_holds([slack, slack * 1.01, -3.0]).tolist() == [True, False, True]
    # records whose second target, below one token, has probability 0.6: Q_1 = 0.6 > 1/2
    broken = metrics.ce_decomposition(np.log([0.9, 0.6]), np.array([0, 1]))
    v = b1.bound_verdict(evidence(model("d16"), model("d32", terms=broken)), CONTEXT)
    assert (v.key, v.verdict) == ("B1.3", "partly")
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="d16"): "holds", Unit("pydocs", "NeoX", model="d32"): "fails"}
    assert f"largest log Q_e + log(e+1) {np.log(1.2):.3f} nats" in v.ours
    assert b1.bound_verdict(evidence(model("d16")), CONTEXT).verdict == "reproduced"
    assert b1.bound_verdict(evidence(), CONTEXT).verdict == NOT_TESTABLE


def test_b1_4_needs_identical_ranks_and_ee_at_every_temperature():
    at = {t: Unit("pydocs", "NeoX", model=f"d160 at T = {t}") for t in ("0.5", "2")}
    v = b1.temperature_verdict(evidence(table=temperatures()), CONTEXT)
    assert (v.key, v.verdict, outcomes(v)) == ("B1.4", "reproduced", {at["0.5"]: "holds", at["2"]: "holds"})
    assert v.ours.startswith("NeoX: d160, 4,000 tokens: targets whose RBE differs from T = 1: 0 at T = 0.5, 0 at T = 2")
    v = b1.temperature_verdict(evidence(table=temperatures(differing=3)), CONTEXT)
    assert (v.verdict, outcomes(v)) == ("partly", {at["0.5"]: "fails", at["2"]: "holds"}) and "3 at T = 0.5" in v.ours
    assert b1.temperature_verdict(evidence(table=temperatures(same=False)), CONTEXT).verdict == "partly"
    assert b1.temperature_verdict(evidence(table=temperatures(ee_shift=1e-12)), CONTEXT).verdict == "partly"
    v = b1.temperature_verdict(evidence(), CONTEXT)
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {}) and "temperature_tokens = 0" in v.ours


def test_decide_gives_one_verdict_per_claim_in_order():
    verdicts = b1.SPEC.decide(evidence(model("d16"), model("Smol", family=None), table=temperatures()), CONTEXT)
    assert [v.key for v in verdicts] == list(claims.CLAIMS_B1)
    assert [v.verdict for v in verdicts] == ["reproduced"] * 4
    assert [v.verdict for v in b1.SPEC.decide(evidence(), CONTEXT)] == [NOT_TESTABLE] * 4


def test_the_headline_and_the_tables_read_the_evidence():
    ev = evidence(model("d16", residual=1e-12), model("d32", featured=True), model("Smol", family=None, featured=True))
    share = TERMS.error_entropy / TERMS.ce
    assert b1.ee_share(ev) == pytest.approx((share / (1 + 1e-12 / TERMS.ce), share))
    assert b1.headline(ev)[0].startswith("On every model and corpus, CE equals EE + SA − Conf to within 1e-12 nats")
    assert b1.glance_table(ev)["model"].tolist() == ["d32", "Smol"], "the featured models only"
    assert b1.identity_table(ev)["family"].tolist() == ["NeoX", "NeoX", "reference"]
    assert b1.bounds_table(ev)["Q_e ≤ 1/(e+1) for all e"].all()
    assert b1.references_beside(b1.glance_table(ev)).startswith("Beside the families: the reference *Smol*")
    assert b1.temperature_moves(temperatures()) == pytest.approx({"CE": 0.5, "EE": 0.0, "SA": 0.2, "Conf": 0.2})
    assert all(np.isnan(list(b1.temperature_moves(None).values())))


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB = 50


def records(seed, skill, n=300, vocab=VOCAB, gt=None):
    """Records of a model whose targets rank better the larger ``skill`` is (skill 0: ranked at random)."""
    rng = np.random.default_rng(seed)
    if gt is None:
        gt = np.where(rng.random(n) < skill, rng.integers(0, 3, n), rng.integers(0, vocab, n)).astype(np.int32)
    logp = (-np.log1p(gt) - rng.gamma(2.0, 0.3, len(gt))).astype(np.float32)
    ties = rng.random(len(gt)) < 0.1
    return Records(logp=logp, gt=gt, ge=(gt + ties).astype(np.int32), target=np.arange(len(gt), dtype=np.int32) % vocab,
                   window=np.zeros(len(gt), np.int32), document=np.arange(len(gt), dtype=np.int64) // 10,
                   top_logp=np.zeros((len(gt), 1), np.float32),
                   manifest=SimpleNamespace(vocab_size=vocab))


def run(family, name, seed, skill=0.8, step=None, recs=None):
    return Run(family, name, step, 1000 * (seed + 1), 2000 * (seed + 1), recs or records(seed, skill))


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [run("NeoX", "d16", 10 * c), run("NeoX", "d32", 10 * c + 1), run("Llama", "d8", 10 * c + 2)]
                   for c, corpus in enumerate(("pydocs", "stdlib"))}
    references = {corpus: [run(None, "Smol", 10 * c + 3, skill=0.95)] for c, corpus in enumerate(family_runs)}
    checkpoints = {"pydocs": [run("NeoX", "d32", 20, skill=0.0, step=0), run("NeoX", "d32", 21, step=100)],
                   "stdlib": [run("NeoX", "d32", 22, skill=0.0, step=0)]}
    base = records(30, 0.8)
    shuffled = base.gt.copy()
    shuffled[:5] = (shuffled[:5] + 1) % VOCAB  # five targets change rank at T = 2
    tempered = {0.5: run("NeoX", "d32", 31, recs=records(31, 0.8, gt=base.gt)), 1.0: run("NeoX", "d32", 30, recs=base),
                2.0: run("NeoX", "d32", 32, recs=records(32, 0.8, gt=shuffled))}
    chapter = Chapter.of(family_runs, 2, references=references, checkpoints=checkpoints, temperatures=tempered)
    return chapter, b1.measure(chapter, chapter.context())


def test_measure_decomposes_every_model_as_by_hand(synthetic):
    chapter, ev = synthetic
    shown = [(c, r) for c in chapter.corpora for r in chapter.family_runs[c] + chapter.reference_runs[c]]
    assert [(m.corpus, m.family, m.name) for m in ev.models] == [(c, r.family, r.name) for c, r in shown]
    for m, (corpus, r) in zip(ev.models, shown):
        by_hand = metrics.ce_decomposition(r.records.logp, r.records.gt)
        assert m.ce == pytest.approx(-np.mean(r.records.logp.astype(np.float64)))
        assert (m.terms.error_entropy, m.terms.self_alignment, m.terms.confidence) == pytest.approx(
            (by_hand.error_entropy, by_hand.self_alignment, by_hand.confidence))
        assert m.concentrated == dynamics.concentrated(r.records.gt, VOCAB)
        assert (m.vocab, m.tokens) == (VOCAB, 300)
    assert [m.name for m in ev.featured("stdlib")] == ["d32", "d8", "Smol"], "each family's largest, the references"


def test_measure_runs_the_control_on_the_first_corpus_step_0_checkpoints_only(synthetic):
    chapter, ev = synthetic
    assert (ev.control_corpus, ev.controls) == ("pydocs", (False,)), "a checkpoint ranking at random fails the rule"
    assert all(m.concentrated for m in ev.models)


def test_measure_tabulates_the_temperatures(synthetic):
    chapter, ev = synthetic
    table = ev.temperatures.set_index("T")
    assert table.index.tolist() == [0.5, 1.0, 2.0]
    assert table["targets whose RBE differs from T = 1"].tolist() == [0, 0, 5]
    assert table.loc[1.0, "EE"] == table.loc[0.5, "EE"] != table.loc[2.0, "EE"]
    assert (ev.tempered, ev.tempered_tokens) == (Unit("pydocs", "NeoX", model="d32"), 300)
    v = b1.SPEC.decide(ev, chapter.context())[3]
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="d32 at T = 0.5"): "holds",
                           Unit("pydocs", "NeoX", model="d32 at T = 2"): "fails"}
    # the same runs with each target its own 10-target document, bar one that holds nearly all of pydocs' NeoX text
    thin = Chapter.of({"pydocs": [run("NeoX", "d32", 1, recs=replace(records(30, 0.8), document=np.arange(300) > 5))]}, 2,
                      temperatures=chapter.temperature_runs)
    v = b1.SPEC.decide(ev, thin.context())[3]
    assert (v.verdict, set(outcomes(v).values())) == ("undetermined", {"undetermined"})
    assert "too few documents for an interval, so undetermined: pydocs/NeoX: d32 at T = 0.5 (2 documents" in v.ours


def test_measure_without_temperatures_or_checkpoints(synthetic):
    chapter, _ = synthetic
    bare = b1.measure(Chapter.of(chapter.family_runs, 2), chapter.context())
    assert (bare.temperatures, bare.controls, len(bare.models)) == (None, (), 6)
    assert [v.verdict for v in b1.SPEC.decide(bare, chapter.context())][3] == NOT_TESTABLE


def test_the_conventions_table_groups_by_both_counts(synthetic):
    chapter, _ = synthetic
    table = b1.conventions_table(b1.featured_runs(chapter))
    assert len(table) == 2 * 2 * 3 and set(table["grouping"]) == {"gt (paper B)", "ge (ties above)"}
    first = chapter.family_runs["pydocs"][1].records
    by_ge = metrics.ce_decomposition(first.logp, first.ge)
    assert table.loc[1, "EE"] == pytest.approx(by_ge.error_entropy)
    assert table.loc[0, "targets with ties"] == int(np.sum(first.ge != first.gt)) > 0


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes
