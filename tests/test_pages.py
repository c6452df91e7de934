"""What the chapters share: testability of pooled claims, the scorecard's gathering of verdicts
and models from executed notebooks, and each chapter's "Run it on your models"."""

from __future__ import annotations

import re

import nbformat
import pandas as pd
import pytest

from rankscale import RankscaleError
from rankscale.book import pages
from rankscale.claims import base
from rankscale.records.runs import Run
from rankscale.sets.toml_sets import load_toml


def runs_of(*families: tuple[str, list[int]]) -> list[Run]:
    return [Run(family, f"m{size}", None, size, size, None) for family, sizes in families for size in sizes]


def test_why_not_pooled():
    assert base.why_not_pooled(runs_of(("A", [1, 2, 3]), ("B", [1, 2]))) is None
    assert "one family (A)" in base.why_not_pooled(runs_of(("A", [1, 2, 3])))
    reason = base.why_not_pooled(runs_of(("A", [1, 2]), ("B", [1, 2])))
    assert reason.startswith("no family has 3 or more sizes") and "A: 2 sizes" in reason
    assert base.why_not_pooled(runs_of(("A", [1, 2]), ("B", [1, 2])), min_sizes=2) is None


def executed(path, profile: str, rows: list[dict], models: list[dict] | None = None):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("verdicts")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "table"},
                                           metadata={pages.VERDICT_KEY: rows})]
    nb.cells = [cell]
    nb.metadata["papermill"] = {"parameters": {"profile": profile}}
    if models is not None:
        nb.metadata["rankscale"] = {"stamp": "x", "profile": profile, "models": models}
    nbformat.write(nb, path)
    return path


def row(chapter: str, verdict: str) -> dict:
    return {**base.Verdict("c", "p", "o", "reproduced").row(chapter), "verdict": verdict}


def test_collect_verdicts_in_order_and_checked(tmp_path):
    a = executed(tmp_path / "a.ipynb", "smoke", [row("A1", "reproduced"), row("A1", base.NOT_TESTABLE)])
    b = executed(tmp_path / "b.ipynb", "smoke", [row("B1", "partly")])
    table = pages.collect_verdicts([a, b], "smoke")
    assert table.chapter.tolist() == ["A1", "A1", "B1"]
    assert table.verdict.tolist() == ["reproduced", base.NOT_TESTABLE, "partly"]
    with pytest.raises(RankscaleError, match="executed with profile 'smoke', not 'tiny'"):
        pages.collect_verdicts([a], "tiny")
    with pytest.raises(RankscaleError, match="has not been executed"):
        pages.collect_verdicts([tmp_path / "c.ipynb"], "smoke")
    old = executed(tmp_path / "old.ipynb", "smoke", [row("A1", "not testable on this profile")])
    with pytest.raises(RankscaleError, match="verdicts .* not among .* older rankscale"):
        pages.collect_verdicts([old], "smoke")
    unkeyed = {k: v for k, v in row("A1", "partly").items() if k not in ("key", "outcomes")}
    older = executed(tmp_path / "older.ipynb", "smoke", [unkeyed])  # before keys and outcomes were recorded
    with pytest.raises(RankscaleError, match=r"rows without \['key', 'outcomes'\]; .* older rankscale"):
        pages.collect_verdicts([older], "smoke")
    empty = executed(tmp_path / "empty.ipynb", "smoke", [])
    with pytest.raises(RankscaleError, match="holds no verdict table"):
        pages.collect_verdicts([empty], "smoke")


def test_collect_models(tmp_path):
    models = [{"family": "A", "name": "m1", "non_embedding": 10}, {"family": None, "name": "ref", "non_embedding": 5}]
    a = executed(tmp_path / "a.ipynb", "smoke", [row("A1", "partly")], models)
    b = executed(tmp_path / "b.ipynb", "smoke", [row("B1", "partly")], models)
    hand = executed(tmp_path / "hand.ipynb", "smoke", [row("B2", "partly")])
    assert pages.collect_models([a, b, hand]) == models
    assert pages.collect_models([hand]) is None
    other = executed(tmp_path / "other.ipynb", "smoke", [row("B3", "partly")], models[:1])
    with pytest.raises(RankscaleError, match="different models"):
        pages.collect_models([a, other])


CHAPTER_KEYS = sorted({key.split(".")[0] for key in base.CLAIMS if not key.startswith("_")})


def provided(model_set) -> set[str]:
    """The needs (``base.NEEDS``) a model set meets, read off the set itself."""
    first = model_set.families[0].models
    sizes = {m.name.split("-seed")[0] for m in first}  # the example names a seed's run <size>-seed<n>
    checkpoints = [c for f in model_set.families for m in f.models for c in m.checkpoints]
    gpt2 = [m for f in model_set.families for m in f.models if m.source.startswith("openai-community/gpt2")]
    has = {"three sizes": len(sizes) >= base.MIN_SIZES, "four sizes": len(sizes) >= base.CURVE_MIN_SIZES,
           "two seeds": len(first) >= base.MIN_SEEDS * len(sizes), "two families": len(model_set.families) >= 2,
           "the GPT-2 family": len(gpt2) >= base.MIN_SIZES, "checkpoints": len(checkpoints) >= 3,
           "a step-0 checkpoint": any(c.step == 0 for c in checkpoints), "a reference model": bool(model_set.references),
           "temperature runs": model_set.temperature_tokens > 0,
           "many windows": None in model_set.corpora.values()}
    return {need for need, yes in has.items() if yes}


@pytest.mark.parametrize("chapter", CHAPTER_KEYS)
def test_run_it_yourself_shows_a_set_that_tests_every_claim(chapter, tmp_path):
    text = pages.run_it_yourself(chapter)
    assert f"make book PROFILE={pages.RUN_IT_FILE}" in text
    snippet = re.search(r"```toml\n(.*?)\n```", text, re.S).group(1)
    for local in re.findall(r'model = "((?:runs|downloads)/[^"]+)"', snippet):  # the user's files, made here
        (tmp_path / local).mkdir(parents=True, exist_ok=True)  # load_toml asks only that it exists
    (tmp_path / pages.RUN_IT_FILE).write_text(snippet)
    model_set = load_toml(tmp_path / pages.RUN_IT_FILE)
    needs = {need for key, claim in base.CLAIMS.items() if key.split(".")[0] == chapter for need in claim.needs}
    assert needs <= provided(model_set)
    if "two families" not in needs and "the GPT-2 family" not in needs:  # no more than the chapter needs
        assert len(model_set.families) == 1
    assert bool(model_set.references) == ("a reference model" in needs)
    for need, keys in {n: [k for k, c in base.CLAIMS.items() if k.startswith(chapter + ".") and n in c.needs]
                       for n in needs}.items():
        assert f"- **{need}**, {base.NEEDS[need]}: {', '.join(keys)}" in text


def test_run_it_yourself_names_what_this_set_could_not_test():
    shown = pd.DataFrame({"": ["B4.1", "B4.2", "B4.3"],
                          "verdict": ["reproduced", base.NOT_TESTABLE, base.UNDETERMINED]})
    text = pages.run_it_yourself("B4", shown)
    assert "On this set, B4.2 is not testable" in text and "On this set, B4.3 is undetermined" in text
    assert "B4.1 needs nothing more." in text
    with pytest.raises(RankscaleError, match="no claims of chapter Z9"):
        pages.run_it_yourself("Z9")
    with pytest.raises(RankscaleError, match="not among"):
        pages.example_toml(["a GPU"])


def test_a_claim_needs_only_what_a_set_can_have():
    with pytest.raises(RankscaleError, match="needs \\['a GPU'\\] are not among"):
        base.Claim("X1.1", "x grows", "empirical", "slope above 0", needs=("a GPU",))


@pytest.mark.parametrize("phrase, need", [("checkpoint series", "checkpoints"), ("with a step-0 checkpoint", "a step-0 checkpoint"),
                                          (f"at least {base.MIN_SIZES} sizes", "three sizes"),
                                          (f"at least {base.CURVE_MIN_SIZES} sizes", "four sizes"),
                                          ("GPT-2 family", "the GPT-2 family"), ("and reference model:", "a reference model")])
def test_a_rule_that_asks_for_something_names_it_as_a_need(phrase, need):
    """A claim whose rule asks for sizes, checkpoints or a family names that need (a rule about a
    family of four sizes needs more than three)."""
    asking = [key for key, claim in base.CLAIMS.items() if phrase in claim.rule and claim.kind != "analytic"]
    assert asking
    implied = {need, "four sizes"} if need == "three sizes" else {need}
    assert [key for key in asking if not implied & set(base.CLAIMS[key].needs)] == []


def ladder_meta(family, size, n, tokens=2_000_000, seed=1, corpora=("pydocs:train",)):
    return {"family": family, "size": size, "params_non_embedding": n, "tokens_seen": tokens, "seed": seed,
            "train_corpora": list(corpora), "config": {"vocab_size": 4096}}


def test_ladder_regime_counts_tokens_per_parameter_and_seeds():
    from rankscale.models.ladder import regime

    table = regime([ladder_meta("F", "s", 4_000), ladder_meta("F", "s", 4_000, seed=2),
                    ladder_meta("F", "l", 1_000_000), ladder_meta("G", "s", 4_000)])
    assert table["tokens per parameter"].tolist() == [500.0, 500.0, 2.0, 500.0]
    assert table["runs at this size"].tolist() == [2, 2, 1, 1]  # seeds are counted within a family
    assert table["training corpora"].iloc[0] == "pydocs:train"
    gpu = regime([{**ladder_meta("F", "s", 4_000), "trained_on": "NVIDIA H100 80GB HBM3"}, ladder_meta("F", "l", 1_000)])
    assert gpu["trained on"].tolist() == ["NVIDIA H100 80GB HBM3", "cpu"]  # no trained_on: from before GPUs could train


def test_ladder_findings_are_read_from_the_tables():
    from rankscale.models.ladder import regime

    table = regime([ladder_meta("F", "s", 4_000, tokens=1_000_000, corpora=("stdlib:train",)),
                    ladder_meta("F", "s", 4_000, tokens=1_000_000, seed=2, corpora=("stdlib:train",)),
                    ladder_meta("F", "l", 400_000, tokens=2_000_000, corpora=("stdlib:train",))])
    final = pd.DataFrame({"family": ["F", "F"], "model": ["s", "l"], "non-embedding parameters": [4_000, 400_000],
                          "corpus": ["pydocs"] * 2, "CE": [6.0, 5.0], "RBP_1": [0.1, 0.2]})
    text = pages.ladder_findings("mine", table, final, pages.papers_regime())
    assert "trains on 1,000,000 to 2,000,000 tokens: 250 tokens per non-embedding parameter" in text
    assert "down to 5 for the largest (F l)" in text and "Across 2.0 decades of size" in text
    assert "there are 1 to 2 training runs (seeds) per size" in text
    assert "is not from the training corpora (stdlib)" in text


def test_papers_regime_reads_the_reference_tables(tmp_path, monkeypatch):
    papers = pages.papers_regime().set_index("models of")
    assert papers.loc["paper A", "vocabulary from"] <= 50_257 <= papers.loc["paper A", "vocabulary to"]
    monkeypatch.setenv("RANKSCALE_REFERENCE", str(tmp_path))
    with pytest.raises(RankscaleError, match="RANKSCALE_REFERENCE"):
        pages.papers_regime()


def test_collect_verdicts_gives_back_the_verdicts_written(tmp_path):
    judged = [base.Verdict("c", "p", "o", "partly", key="A2.1", held=1, tested=2,
                           outcomes=((base.Unit("pydocs", "NeoX ladder"), "holds"),
                                     (base.Unit("pydocs", "Llama"), "fails"))),
              base.Verdict("d", "", "o", "reproduced", key="B3.7", held=1, tested=1,
                           outcomes=((base.Unit("pydocs", pooled=True), "holds"),
                                     (base.Unit("pydocs", "All"), "untested")))]
    written = executed(tmp_path / "new.ipynb", "smoke", [v.row("A2") for v in judged])
    table = pages.collect_verdicts([written], "smoke")
    read = [base.Verdict(**{name: row[name] for name in pages.VERDICT_FIELDS}) for row in table.to_dict("records")]
    assert read == judged, "a verdict comes back whole, a pooled unit apart from a family named All"
    with pytest.raises(RankscaleError, match="not among"):
        base.Verdict("c", "p", "o", "partly", outcomes=((base.Unit("pydocs"), "sort of"),))
    with pytest.raises(RankscaleError, match="not Units"):
        base.Verdict("c", "p", "o", "partly", outcomes=(("pydocs", "holds"),))


def test_findings_text_counts_in_words_that_agree_with_the_count():
    from rankscale.claims.base import Verdict

    two = [Verdict("x grows (§1)", "", "", "reproduced", key="X1.1"), Verdict("y falls", "", "", "reproduced", key="X1.2")]
    assert "of the 2 empirical claims scored here, 2 are reproduced." in pages.findings_text("tiny", two)
    assert "1 is reproduced" in pages.findings_text("tiny", two[:1])
