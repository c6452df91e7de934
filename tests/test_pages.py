"""What the chapters share: testability of pooled claims, and the scorecard's gathering of
verdicts and models from executed notebooks."""

from __future__ import annotations

from dataclasses import asdict

import nbformat
import pytest

from rankscale import RankscaleError
from rankscale.book import pages
from rankscale.claims import base
from rankscale.records.runs import Run


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
    return {"chapter": chapter, "claim": "c", "paper": "p", "ours": "o", "verdict": verdict}


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
    with pytest.raises(RankscaleError, match="older rankscale"):
        pages.collect_verdicts([old], "smoke")
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


def test_collect_verdicts_carries_each_units_outcome(tmp_path):
    judged = base.Verdict("c", "p", "o", "partly", key="A2.1", held=1, tested=2,
                          outcomes=(("pydocs/NeoX ladder", "holds"), ("pydocs/Llama ladder", "fails")))
    new = executed(tmp_path / "new.ipynb", "smoke", [{"chapter": "A2", **asdict(judged)}])
    old = executed(tmp_path / "old.ipynb", "smoke", [row("A3", "partly")])  # before outcomes were recorded
    table = pages.collect_verdicts([new, old], "smoke")
    assert table.outcomes.tolist() == [judged.outcomes, ()]
    with pytest.raises(RankscaleError, match="not among"):
        base.Verdict("c", "p", "o", "partly", outcomes=(("pydocs", "sort of"),))
