"""Chapter A1 (``rankscale.claims.a1``): its measure on small synthetic runs, checked against counts and means
done by hand; each claim's rule made to hold, fail and stay untested on constructed evidence, read from the
verdicts' structured outcomes; the chapter's tables; and its notebook, which explains and calls, but computes
nothing."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from helpers import notebook_cells

from rankscale import claims
from rankscale.analysis import metrics
from rankscale.claims import a1
from rankscale.claims.base import Unit
from rankscale.claims.context import Chapter, Context
from rankscale.records.runs import Run
from rankscale.records.store import Records
from rankscale.sets import builtin

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "a1_metric.py"


def outcomes(verdict):
    """The verdict's outcome per unit, by its structured unit."""
    return dict(verdict.outcomes)


def evidence(bands=None, ties=None, pairs=None, orders=None):
    """MetricTables holding only what a rule reads."""
    empty = pd.DataFrame()
    return a1.MetricTables(empty if ties is None else ties, empty if bands is None else bands, empty, pairs or {},
                           empty, orders or {})


CONTEXT = Context({"NeoX": 5, "Llama": 5}, n_boot=2)
NEOX, LLAMA, REF = Unit("pydocs", "NeoX"), Unit("pydocs", "Llama"), Unit("pydocs", "SmolLM2")


def band_table(*units):
    """A1's band table: per (Unit, [(targets at rank 1, targets), ...]) one row per band; a unit whose family is
    "SmolLM2" is a reference model."""
    return pd.DataFrame([{"corpus": unit.corpus, "family": "reference" if unit.family == "SmolLM2" else unit.family,
                          "unit": unit, "rank 1": first, "targets": n, "rank 1 share": first / n}
                         for unit, bands in units for first, n in bands])


def tie_table(*units):
    """A1's tie table: per (Unit, standard errors of its models' largest RBP_k gap) one row per model."""
    return pd.DataFrame([{"corpus": unit.corpus, "family": "reference" if unit.family == "SmolLM2" else unit.family,
                          "unit": unit, "targets": 100, "tied targets (ge != gt)": 1,
                          "largest |RBP_k(ge) - RBP_k(gt)| over k": 0.01 * se, "... in standard errors of RBP_k": se}
                         for unit, worst in units for se in worst])


# ---------------------------------------------------------------------------------------------
# The rules, one claim at a time

def test_a1_1_holds_at_the_share_and_needs_the_target_count():
    n, share = claims.A1_BAND_MIN_TARGETS, claims.A1_BAND_MIN_SHARE
    least = int(np.ceil(share * 100))  # of a band of 100: the fewest targets each outcome needs
    both = (NEOX, [(least, 100)])  # both outcomes at exactly the share: shown
    one = (Unit("stdlib", "NeoX"), [(least - 1, 100)])  # rank 1 just below the share: not shown
    small = (LLAMA, [(n // 2, n - 1)])  # a band one target short of the count is not tested
    v = a1.same_probability_verdict(evidence(band_table(both, one, small)), CONTEXT)
    assert (v.key, v.verdict, v.units_text) == ("A1.1", "partly", "1 of 2")
    assert outcomes(v) == {NEOX: "holds", Unit("stdlib", "NeoX"): "fails", LLAMA: "untested"}
    assert a1.same_probability_verdict(evidence(band_table(one)), CONTEXT).verdict == "not reproduced"
    v = a1.same_probability_verdict(evidence(band_table(small)), CONTEXT)
    assert (v.verdict, outcomes(v)) == ("not testable on this set", {LLAMA: "untested"})
    assert claims.CLAIMS["A1.1"].kind == "definitional"


def test_a1_1_any_band_of_a_unit_shows_it():
    assert a1.shows_both_outcomes(pd.DataFrame({"rank 1": [100, 50], "targets": [100, 100]})) is True
    assert a1.shows_both_outcomes(pd.DataFrame({"rank 1": [100, 0], "targets": [100, 100]})) is False
    assert a1.shows_both_outcomes(pd.DataFrame({"rank 1": [1], "targets": [29]})) is None


def test_a_reference_model_is_a_unit_of_its_own_name_and_says_so():
    v = a1.same_probability_verdict(evidence(band_table((NEOX, [(50, 100)]), (REF, [(50, 100)]))), CONTEXT)
    assert outcomes(v) == {NEOX: "holds", REF: "holds"}
    assert "pydocs/NeoX: 1 of 1; pydocs/SmolLM2 (reference): 1 of 1" in v.ours
    v = a1.conventions_verdict(evidence(ties=tie_table((NEOX, [0.5]), (REF, [3.0]))), CONTEXT)
    assert v.ours.endswith("above one standard error: pydocs/SmolLM2 (reference)")


def test_a1_2_holds_on_predictions_ordered_oppositely_and_shows_the_data():
    agreeing = {"pydocs": a1.FinalPairs(3, [], 1.0), "stdlib": a1.FinalPairs(1, [], np.nan)}
    v = a1.disagree_verdict(evidence(pairs=agreeing), CONTEXT)
    assert (v.key, v.kind, v.verdict, outcomes(v)) == ("A1.2", "analytic", "reproduced", {a1.CONSTRUCTED: "holds"}), \
        "finished models that order alike are no evidence against a possibility"
    assert "pydocs: 0 of 3 pairs of 3 final models" in v.ours and "not graded" in v.ours
    alike = a1.disagree_verdict(evidence(pairs=agreeing), CONTEXT, predictions=((0.4, 1), (0.3, 2)))
    assert (alike.verdict, outcomes(alike)) == ("not reproduced", {a1.CONSTRUCTED: "fails"})
    tied = a1.disagree_verdict(evidence(pairs=agreeing), CONTEXT, predictions=((0.4, 1), (0.3, 1)))
    assert tied.verdict == "not reproduced", "a tie in RBP_1 is no opposite order"


def test_a1_3_allows_one_standard_error():
    v = a1.conventions_verdict(evidence(ties=tie_table((NEOX, [1.0, 0.2]), (LLAMA, [0.0]))), CONTEXT)
    assert (v.key, v.verdict, outcomes(v)) == ("A1.3", "reproduced", {NEOX: "holds", LLAMA: "holds"})
    v = a1.conventions_verdict(evidence(ties=tie_table((NEOX, [1.0 + 1e-9, 0.2]), (LLAMA, [0.0]))), CONTEXT)
    assert (v.verdict, outcomes(v)) == ("partly", {NEOX: "fails", LLAMA: "holds"})
    assert v.ours.startswith("3 tied targets of 300") and v.ours.endswith("above one standard error: pydocs/NeoX")
    assert a1.conventions_verdict(evidence(ties=tie_table((NEOX, [2.0]))), CONTEXT).verdict == "not reproduced"


def test_a1_4_holds_on_one_opposite_pair_fails_where_decided_pairs_agree():
    opposite = a1.PairOrders(3, 3, [("NeoX/a", "NeoX/b")], 0, 0.3)  # one pair beyond noise is enough
    alike = a1.PairOrders(4, 6, [], 3, 1.0)  # half the pairs ordered alike beyond noise, none oppositely
    noisy = a1.PairOrders(4, 6, [], 2, 1.0)  # most pairs within noise on a metric
    lone = a1.PairOrders(1, 0, [], 0, np.nan)  # no pair on the same targets
    v = a1.practical_verdict(evidence(orders={"pydocs": opposite, "stdlib": alike, "humaneval": noisy,
                                              "docs": lone}), CONTEXT)
    assert (v.key, v.kind, v.verdict, v.units_text) == ("A1.4", "empirical", "partly", "1 of 2, 2 of 3 decided")
    assert outcomes(v) == {Unit("pydocs"): "holds", Unit("stdlib"): "fails", Unit("humaneval"): "undetermined",
                           Unit("docs"): "untested"}
    assert a1.practical_verdict(evidence(orders={"stdlib": alike}), CONTEXT).verdict == "not reproduced"
    assert a1.practical_verdict(evidence(orders={"humaneval": noisy}), CONTEXT).verdict == "undetermined"
    assert a1.practical_verdict(evidence(orders={"docs": lone}), CONTEXT).verdict == "not testable on this set"


def test_decide_gives_one_verdict_per_claim_in_order():
    found = evidence(band_table((NEOX, [(50, 100)])), tie_table((NEOX, [0.5])), {"pydocs": a1.FinalPairs(2, [], 1.0)},
                     {"pydocs": a1.PairOrders(2, 1, [("NeoX/a", "NeoX/b")], 0, -1.0)})
    verdicts = a1.SPEC.decide(found, CONTEXT)
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A1)
    assert [v.verdict for v in verdicts] == ["reproduced"] * 4


def test_the_rules_of_the_chapter_say_why_and_what_their_intervals_are():
    for claim in claims.CLAIMS_A1.values():
        assert claim.kind in claims.KINDS and "Why:" in claim.rule
        assert "percentile" not in claim.rule


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

VOCAB = 50


def run(family, name, p, rank, *, ties=0, step=None, source=None, note=""):
    """A run whose targets have probabilities ``p`` and ranks ``rank`` (1-based, gt convention); the first ``ties``
    targets tie with one other token."""
    p, rank = np.asarray(p, np.float64), np.asarray(rank, np.int32)
    gt = rank - 1
    ge = gt + (np.arange(len(gt)) < ties)
    manifest = SimpleNamespace(vocab_size=VOCAB, source=source or {"model": f"local/{name}", "revision": None})
    records = Records(logp=np.log(p).astype(np.float32), gt=gt, ge=ge.astype(np.int32),
                      target=np.zeros(len(p), np.int32), window=np.arange(len(p), dtype=np.int32),
                      document=np.arange(len(p), dtype=np.int64),
                      top_logp=np.zeros((len(p), 1), np.float32), manifest=manifest)
    return Run(family, name, step, 1000 if family else 10_000, 2000, records, note=note)


N = 400
rng = np.random.default_rng(0)
# two models that p_A and RBP_1 order oppositely: "sure" gives its targets 0.5 but ranks them second, "unsure"
# gives them 0.1 and ranks them first; a reference model in between, and a checkpoint of "sure"
SURE = run("NeoX", "sure", np.full(N, 0.5), np.full(N, 2), ties=40)
UNSURE = run("NeoX", "unsure", np.full(N, 0.1), np.ones(N), ties=0)
LOW = run("Llama", "low", rng.uniform(0.005, 0.4, N), rng.integers(1, 4, N))
REFERENCE = run(None, "SmolLM2", rng.uniform(0.005, 0.4, N), rng.integers(1, 30, N), note="a small model")


@pytest.fixture(scope="module")
def chapter():
    early = run("NeoX", "sure", np.full(N, 0.3), np.full(N, 5), step=10)
    last = run("NeoX", "sure", np.full(N, 0.5), np.full(N, 2), ties=40, step=100)  # the final model again
    return Chapter.of({"pydocs": [SURE, UNSURE, LOW]}, n_boot=20, references={"pydocs": [REFERENCE]},
                      checkpoints={"pydocs": [early, last]})


@pytest.fixture(scope="module")
def measured(chapter):
    return a1.measure(chapter, chapter.context(), ks=(1, 3))


def test_measure_counts_ties_and_their_gap_by_hand(measured):
    ties = measured.ties
    assert list(ties["model"]) == ["sure", "unsure", "low", "SmolLM2"]
    assert list(ties["family"]) == ["NeoX", "NeoX", "Llama", "reference"]
    assert list(ties["unit"]) == [NEOX, NEOX, LLAMA, REF]
    assert list(ties["tied targets (ge != gt)"]) == [40, 0, 0, 0]
    sure = ties.iloc[0]
    # "sure" ranks every target second under gt; 40 of them third under ge: RBP_2 moves by 40 / N
    assert sure["RBP_1 (ge)"] == sure["RBP_1 (gt)"] == 0.0
    assert sure["largest |RBP_k(ge) - RBP_k(gt)| over k"] == pytest.approx(40 / N)
    rbp_2 = 1 - 40 / N
    assert sure["... in standard errors of RBP_k"] == pytest.approx((40 / N) / np.sqrt(rbp_2 * (1 - rbp_2) / N))


def test_measure_spreads_each_band_over_ranks_by_hand(measured):
    bands = measured.bands
    assert len(bands) == 4 * len(claims.A1_BAND_CENTRES)
    low = bands[bands["model"] == "low"].set_index("p(t) near")
    p, rank = np.exp(LOW.records.logp.astype(np.float64)), LOW.records.ge + 1
    for lo, hi in a1.probability_bands():
        inside = (p >= lo) & (p < hi)
        row = low.loc[next(c for c in claims.A1_BAND_CENTRES if lo < c < hi)]
        assert row["targets"] == inside.sum()
        assert row["rank 1"] == (inside & (rank == 1)).sum() and row["rank 2"] == (inside & (rank == 2)).sum()
        assert row["rank 4-10"] == (inside & (rank >= 4) & (rank <= 10)).sum()
    sure = bands[bands["model"] == "sure"]
    assert sure["targets"].sum() == 0, "no band holds p = 0.5"


def test_measure_computes_every_result_once_by_hand(measured):
    points = measured.points
    assert list(zip(points["kind"], points["model"], points["step"])) == [
        ("checkpoint", "sure", 10), ("final", "sure", pd.NA), ("final", "unsure", pd.NA), ("final", "low", pd.NA),
        ("reference", "SmolLM2", pd.NA)], "the last checkpoint, the final model's predictions, is listed once"
    low = points[points["model"] == "low"].iloc[0]
    rank = LOW.records.ge + 1
    assert low["p_A"] == pytest.approx(np.exp(LOW.records.logp.astype(np.float64)).mean())
    assert low["CE"] == pytest.approx(-LOW.records.logp.astype(np.float64).mean())
    assert (low["RBP_1"], low["RBP_3"]) == pytest.approx(((rank <= 1).mean(), (rank <= 3).mean()))
    assert measured.ks == (1, 3)


def test_measure_finds_the_pair_ordered_oppositely(measured):
    pairs = measured.pairs["pydocs"]
    assert (pairs.models, pairs.pairs) == (4, 6)
    assert (0, 1) in pairs.found, "'sure' is ahead on p_A, 'unsure' on RBP_1, far beyond any resampling"
    row = measured.discordant.iloc[0]
    assert (row["higher p_A"], row["higher RBP_1"]) == ("NeoX/sure", "NeoX/unsure")
    assert row["p_A"] == "0.5000 vs 0.1000" and row["RBP_1"] == "0.0000 vs 1.0000"


def test_measure_orders_the_pairs_on_the_same_targets_by_ce_and_rbp_1(measured):
    orders = measured.orders["pydocs"]
    # the three final models predict the same (constructed) targets; the reference model is left out
    assert (orders.models, orders.pairs) == (3, 3)
    assert ("NeoX/sure", "NeoX/unsure") in orders.discordant, "'sure' is ahead on CE, 'unsure' on RBP_1"
    assert len(orders.discordant) + orders.concordant + orders.undecided == 3
    assert a1.same_targets([SURE, REFERENCE, UNSURE]) == [[0, 1, 2]], "equal token arrays are one text"


def test_the_library_decides_from_the_measure(measured, chapter):
    verdicts = a1.SPEC.decide(measured, chapter.context())
    assert [v.key for v in verdicts] == list(claims.CLAIMS_A1)
    assert outcomes(verdicts[2]) == {NEOX: "fails", LLAMA: "holds", REF: "holds"}, "'sure' ties 10% of its targets"


# ---------------------------------------------------------------------------------------------
# The chapter's helpers and tables

def test_family_and_name_and_unit_of_a_reference_model():
    assert a1.family_and_name(SURE) == ("NeoX", "sure") and a1.family_and_name(REFERENCE) == ("reference", "SmolLM2")
    assert a1.unit_of("stdlib", SURE) == Unit("stdlib", "NeoX") and a1.unit_of("pydocs", REFERENCE) == REF


def test_metric_row_and_p_a_and_top1():
    row = a1.metric_row(UNSURE, "pydocs", "final", [1, 2])
    assert (row["p_A"], row["CE"], row["RBP_1"], row["RBP_2"]) == pytest.approx((0.1, -np.log(0.1), 1.0, 1.0))
    assert (row["vocabulary"], row["targets"], row["step"]) == (VOCAB, N, None)
    assert a1.p_a_and_top1({"p": np.array([0.2, 0.4]), "top1": np.array([True, True])}) == pytest.approx([0.3, 1.0])


def test_same_predictions_needs_the_same_tokens_and_values():
    last = run("NeoX", "sure", np.full(N, 0.5), np.full(N, 2), step=100)
    assert a1.same_predictions(last, [SURE, UNSURE])
    assert not a1.same_predictions(run("NeoX", "sure", np.full(N, 0.4), np.full(N, 2), step=50), [SURE])
    assert not a1.same_predictions(run("NeoX", "sure", np.full(N - 1, 0.5), np.full(N - 1, 2), step=100), [SURE])
    assert not a1.same_predictions(last, [UNSURE]), "no final model of its own"


def test_shown_runs_are_each_familys_largest_then_the_references(chapter):
    assert [r.name for r in a1.shown_runs(chapter, "pydocs")] == ["unsure", "low", "SmolLM2"]


def test_agreement_table_per_family_then_every_result(measured):
    table = a1.agreement_table(measured, ["NeoX", "Llama"])
    assert list(table["results of"]) == ["NeoX", "Llama", "every family and reference together"]
    assert list(table["results"]) == [3, 1, 5]
    neox = measured.points[measured.points["family"] == "NeoX"]
    assert table["Kendall tau"].iloc[0] == pytest.approx(metrics.order_agreement(neox["p_A"], neox["RBP_1"]))


def test_pairs_points_and_finals_tables(measured):
    pairs = a1.pairs_table(measured)
    assert pairs.iloc[0].tolist()[:3] == ["pydocs", 4, 6] and pairs["pairs disagreeing beyond noise"].iloc[0] >= 1
    assert list(a1.points_table(measured)["model"]) == ["low", "sure", "sure", "unsure", "SmolLM2"]
    finals = a1.finals_table(measured)
    assert list(finals.columns[-2:]) == ["RBP_1", "RBP_3"] and len(finals) == 4
    assert finals["family"].iloc[-1] == "reference (real pretrained model, outside the families)"


def test_above_bound_text_counts_targets_above_one_over_p():
    possible = run(None, "SmolLM2", [0.5, 0.3, 0.01], [2, 3, 100])
    assert a1.above_bound_text([UNSURE, possible]) == f"NeoX/unsure: 0 of {N}; reference/SmolLM2: 0 of 3"
    impossible = run("NeoX", "odd", [0.6, 0.6], [2, 1])  # two tokens of 0.6 cannot both be
    assert a1.above_bound_text([impossible]) == "NeoX/odd: 1 of 2"


def test_describe_references_lists_each_with_its_note():
    assert a1.describe_references([REFERENCE]) == ("- **SmolLM2** (10,000 non-embedding parameters, vocabulary 50 "
                                                   "tokens): a small model.")


def test_evaluates_released_reads_the_models_hub_ids_and_the_corpus():
    released = {"openai-community/gpt2", "openai-community/gpt2-xl"}
    would = [name for name, s in builtin.BUILT_IN.items() if a1.evaluates_released(s, released, "wikipedia")]
    assert "tiny" not in would and set(would) >= {"reduced", "full"}
    assert not a1.evaluates_released(builtin.BUILT_IN["full"], released, "no-such-corpus")


def test_released_table_puts_ours_beside_the_papers():
    gpt2 = run(None, "gpt2", np.full(N, 0.2), np.full(N, 1), ties=N // 2,
               source={"model": "openai-community/gpt2", "revision": None})
    pinned = run(None, "gpt2-old", np.full(N, 0.2), np.full(N, 1),
                 source={"model": "openai-community/gpt2", "revision": "abc"})
    chapter = Chapter.of({"wikipedia": [SURE, UNSURE, LOW]}, n_boot=2, references={"wikipedia": [gpt2, pinned]})
    released = pd.DataFrame({"model": ["openai-community/gpt2"], "ce": [3.0],
                             **{f"rbp_{k}": [0.4] for k in (1, 10, 100, 1000)}})
    table = a1.released_table(chapter, released, "wikipedia")
    assert list(table["values"]) == ["paper A, released (code repository)", "ours, eq. 3 ranks (ge)",
                                     "ours, released code's ranks (gt)"], "a pinned revision is not the released model"
    assert table["RBP_1"].tolist() == pytest.approx([0.4, 0.5, 1.0]), "half the targets tie: ge ranks them second"
    assert a1.released_table(chapter, released, "pydocs").empty


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes

def test_the_chapter_sets_no_threshold_and_names_its_figures():
    source = NOTEBOOK.read_text()
    parameters = source.split('# %% tags=["parameters"]')[1].split("# %%")[0]
    assert not re.search(r"r2|band|margin|ratio|n_boot|level|k_grid|n_k\b", parameters), \
        "no threshold, band or bootstrap setting is a notebook parameter"
    labels = re.findall(r'"name": "(fig-[a-z0-9-]+)"', source)
    assert labels and all(label.startswith("fig-a1-") for label in labels) and len(set(labels)) == len(labels)
    assert set(re.findall(r"\{numref\}`(fig-[a-z0-9-]+)`", source)) <= set(labels), "prose refers to figures that exist"


def test_the_notebook_grades_nothing_itself_and_passes_its_parameters_on():
    source = NOTEBOOK.read_text()
    code = "\n".join("\n".join(lines) for kind, lines in notebook_cells(source) if kind == "code")
    assert "claims.judge(" not in code and "percentile" not in code and "quantile(" not in code
