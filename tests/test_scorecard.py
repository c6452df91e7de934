"""The scorecard's picture and narrative, on constructed verdict rows: where each unit's outcome
lands, how a column pools them, what the grid draws and what the narrative counts."""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.figure import Figure

from rankscale import RankscaleError
from rankscale.book import scorecard
from rankscale.claims.base import NOT_TESTABLE, UNDETERMINED, Unit

CORPORA, FAMILIES, REFERENCES = ["pydocs", "stdlib"], ["NeoX ladder", "Llama ladder"], ["SmolLM2-135M"]


def grid_of(*outcomes) -> pd.DataFrame:
    rows = pd.DataFrame({"key": [f"X1.{i}" for i in range(len(outcomes))], "outcomes": list(outcomes)})
    return scorecard.claim_grid(rows, CORPORA, FAMILIES, REFERENCES)


def test_every_kind_of_unit_lands_in_its_columns():
    units = {
        Unit("pydocs", "NeoX ladder"): [("pydocs", "NeoX ladder")],
        Unit("pydocs", "NeoX ladder", model="d40-l2"): [("pydocs", "NeoX ladder")],
        Unit("stdlib", "Llama ladder", setting="k=100/N=4"): [("stdlib", "Llama ladder")],
        Unit("pydocs", pooled=True): [("pydocs", "All")],
        Unit("pydocs", "NeoX ladder", versus="Llama ladder"): [("pydocs", "NeoX ladder"), ("pydocs", "Llama ladder")],
        Unit("stdlib", "SmolLM2-135M"): [("", "reference")],  # a reference model: one column beside every corpus
        Unit(): [("", "other")],
        Unit("pydocs"): [("pydocs", "NeoX ladder"), ("pydocs", "Llama ladder")],
        Unit(family="Llama ladder"): [("pydocs", "Llama ladder"), ("stdlib", "Llama ladder")],
    }
    for unit, columns in units.items():
        grid = grid_of(((unit, "holds"),))
        assert [c for c in grid.columns if grid.loc["X1.0", c] == "holds"] == columns, unit


def test_a_unit_named_in_words_is_refused():
    with pytest.raises(RankscaleError, match="is a name, not a Unit"):
        grid_of((("pydocs/NeoX ladder", "holds"),))


def test_a_structured_unit_lands_in_its_columns_whatever_its_family_is_called():
    """A family named like the pooled fit, with "/" and ":" in its name, and sharing its first word with
    another: read from a name, its units would land in the wrong cells; read from a Unit's fields, they cannot."""
    families = ["All / beta: x", "All NeoX"]
    rows = pd.DataFrame({"key": ["X1.0"], "outcomes": [(
        (Unit("pydocs", "All / beta: x", model="d40-l2"), "holds"),
        (Unit("stdlib", "All NeoX", versus="All / beta: x"), "fails"),
        (Unit(family="All NeoX"), UNDETERMINED),  # a family on no one corpus: every corpus
        (Unit(corpus="stdlib"), "untested"),  # a corpus and no one family: every family there
        (Unit("pydocs", "SmolLM2-135M"), "fails"),  # a reference model
        (Unit(), "holds"))]})  # neither: "other"
    grid = scorecard.claim_grid(rows, CORPORA, families, REFERENCES)
    assert grid.columns.tolist() == [("pydocs", "All / beta: x"), ("pydocs", "All NeoX"),
                                     ("stdlib", "All / beta: x"), ("stdlib", "All NeoX"), ("", "reference"),
                                     ("", "other")], "no pooled column \"All\": no unit is the families pooled"
    assert grid.loc["X1.0"].tolist() == ["holds", UNDETERMINED, "fails", "fails", "fails", "holds"]


def test_a_column_pools_its_units_as_the_verdict_does():
    neox, llama = (lambda corpus, model="": Unit(corpus, "NeoX ladder", model=model),
                   lambda corpus, model="": Unit(corpus, "Llama ladder", model=model))
    grid = grid_of(
        ((neox("pydocs", "a"), "holds"), (neox("pydocs", "b"), "fails"),  # mixed
         (llama("pydocs", "a"), "fails"), (llama("pydocs", "b"), UNDETERMINED),  # the decided one counts
         (neox("stdlib"), UNDETERMINED), (neox("stdlib", "c"), "untested"),
         (llama("stdlib"), "untested")),
        ())
    assert grid.loc["X1.0"].tolist() == ["mixed", "fails", UNDETERMINED, "untested"]
    assert grid.loc["X1.1"].tolist() == ["no unit"] * 4  # no column beside the families where no unit needs one
    assert list(grid.columns) == [(c, f) for c in CORPORA for f in FAMILIES]


def test_the_grid_draws_one_cell_per_outcome_and_its_text_at_body_size():
    outcomes = [((Unit("pydocs", "NeoX ladder"), o), (Unit("stdlib", pooled=True), "fails"), (Unit(), "holds"),
                 (Unit("stdlib", REFERENCES[0]), "fails")) for o in ("holds", "fails", UNDETERMINED, "untested")] * 11
    rows = pd.DataFrame({"key": [f"X1.{i}" for i in range(len(outcomes))], "outcomes": outcomes})
    grid = scorecard.claim_grid(rows, [*CORPORA, "humaneval"], FAMILIES, REFERENCES)
    verdicts = dict.fromkeys(grid.index, NOT_TESTABLE)
    fig = scorecard.draw_grid(grid, verdicts, figure=Figure(), fontsize=13)
    ax = fig.axes[0]
    marks = [t.get_text() for t in ax.texts]
    # per row: pydocs/NeoX its outcome, stdlib/All and the reference fail, other holds; every other cell empty
    assert (marks.count("✓"), marks.count("✗"), marks.count("?"), marks.count("–")) == (11 + 44, 11 + 88, 11, 11)
    assert len(ax.get_yticklabels()) == 44 and len(ax.get_xticklabels()) == grid.shape[1] == 11
    # the book's column is about 770 px in a 1400 px window, its body text 16 px: at most 48 text heights
    # across for a grid of nine columns (three corpora, two families and "All"), the reference models and "other"
    fig.canvas.draw()
    drawn = fig.get_tightbbox().width  # in inches, with every label (the page shows the figure cropped to it)
    assert drawn / (13 / 72) <= 770 / 16, drawn / (13 / 72)


def test_the_narrative_counts_what_holds_fails_and_why_claims_are_open():
    rows = pd.DataFrame({
        "key": ["A2.1", "A2.2", "A2.3", "A3.7", "B4.4", "A5.2", "B3.7"],
        "claim": ["x falls (§4)", "y", "z", "w", "v", "u", "t"],
        "verdict": ["reproduced", "not reproduced", "partly", NOT_TESTABLE, NOT_TESTABLE, NOT_TESTABLE, UNDETERMINED],
        "ours": ["", "", "", "no family has 4 or more sizes (NeoX ladder: 3 sizes); fits",
                 "no family has 4 or more sizes (Llama ladder: 2 sizes)", "this set has no reference model",
                 "the fit is at its bound; slopes"],
        "held": [1, 0, 1, 0, 0, 0, 0], "tested": [2, 2, 2, 0, 0, 0, 0],
        "outcomes": [((Unit("pydocs", "NeoX ladder"), "holds"), (Unit("pydocs", "Llama ladder"), "holds")),
                     ((Unit("pydocs", "NeoX ladder"), "fails"), (Unit("pydocs", "Llama ladder"), "fails")),
                     ((Unit("pydocs", "NeoX ladder"), "holds"), (Unit("pydocs", "Llama ladder"), "fails")), (), (), (),
                     ((Unit("pydocs", pooled=True), UNDETERMINED),)]})
    text = scorecard.narrative(rows, scorecard.claim_grid(rows, CORPORA, FAMILIES))
    assert "**Holds** wherever it was decided (1): A2.1 (x falls)." in text
    assert "(1): A2.2." in text and "(1): A2.3 (1 of 2)." in text
    assert "NeoX ladder held in 2 of 3; Llama ladder held in 1 of 3" in text
    assert "**Undetermined** (1): the fit is at its bound (B3.7)." in text
    assert ("**Not testable on this set** (3): no family has 4 or more sizes (A3.7, B4.4); "
            "this set has no reference model (A5.2).") in text


def test_a_family_called_all_and_the_pooled_fit_keep_their_own_columns():
    rows = pd.DataFrame({"key": ["X1.0"], "outcomes": [((Unit("pydocs", "All"), "holds"),
                                                        (Unit("pydocs", pooled=True), "fails"))]})
    grid = scorecard.claim_grid(rows, ["pydocs"], ["All"])
    assert grid.columns.tolist() == [("pydocs", "All"), ("pydocs", "All (not a family)")]
    assert grid.loc["X1.0"].tolist() == ["holds", "fails"], "the family first, the pooled fit beside it"
