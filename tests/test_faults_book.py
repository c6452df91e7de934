"""A book whose set lacks what some chapters need, and a build that fails.

A user's set of local models with no training checkpoints and no ``temperature_tokens`` (the
README's own example) builds a whole site under ``jupyter-book -W``: the figures it cannot draw
leave no caption, no label and no prose that refers to them, the chapters say in words what
they could not show, and the claims that need the missing pieces are not testable. A build that
fails leaves no site at ``_build/html`` that looks whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
import yaml

from rankscale import RankscaleError
from rankscale.book import build
from rankscale.book.pages import VERDICT_KEY
from rankscale.claims.base import NOT_TESTABLE
from rankscale.models.ladder import build_ladder
from rankscale.sets import get

# The figures of B1 and B2 that need tempered predictions or training checkpoints
UNDRAWN = {"b1_decomposition": ["fig-b1-temperature"],
           "b2_training_dynamics": ["fig-b2-components", "fig-b2-parts", "fig-b2-rbe", "fig-b2-alignment",
                                    "fig-b2-distance"]}
# Their claims, and the words of the reason each verdict must give
NOT_TESTABLE_HERE = {"B1.4": "temperature_tokens", **{key: "training checkpoints" for key in
                                                      ("B2.1", "B2.2", "B2.3", "B2.4", "B2.5", "B2.8")}}


def figure_cell(label: str, outputs: list) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell("...", metadata={"mystnb": {"figure": {"name": label, "caption": "A figure."}}},
                                     outputs=outputs)


def shown(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={"text/markdown": text})


PNG = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})


def test_a_figure_not_drawn_takes_its_caption_and_its_prose_off_the_page():
    section = nbformat.v4.new_markdown_cell("## Training\n\nPaper B reads its Fig. 3 as EE falling first.")
    about_drawn = nbformat.v4.new_markdown_cell("{numref}`fig-drawn` shows the final models.")
    about_undrawn = nbformat.v4.new_markdown_cell("In {numref}`fig-curves` each line is one checkpointed model.")
    drawn, undrawn = figure_cell("fig-drawn", [PNG]), figure_cell("fig-curves", [shown("No checkpoints, so no Fig. 3.")])
    nb = nbformat.v4.new_notebook(cells=[section, about_drawn, drawn, about_undrawn, undrawn])
    assert build.leave_out_undrawn_figures(nb, "b2") == ["fig-curves"]
    assert "remove-cell" in about_undrawn.metadata["tags"]
    assert "mystnb" not in undrawn.metadata  # its note reads as text, not as a captioned figure
    assert undrawn.outputs[0].data["text/markdown"] == "No checkpoints, so no Fig. 3."
    assert "tags" not in section.metadata and "tags" not in about_drawn.metadata
    assert build.figure_label(drawn) == "fig-drawn"


def test_a_figure_not_drawn_must_say_why_and_no_output_may_point_at_it():
    silent = nbformat.v4.new_notebook(cells=[figure_cell("fig-curves", [])])
    with pytest.raises(RankscaleError, match="b2: figure fig-curves was not drawn and its cell shows nothing"):
        build.leave_out_undrawn_figures(silent, "b2")
    pointing = nbformat.v4.new_notebook(cells=[
        figure_cell("fig-curves", [shown("No checkpoints.")]),
        nbformat.v4.new_code_cell("...", outputs=[shown("Tokens per point of {numref}`fig-curves`: 4,000.")])])
    with pytest.raises(RankscaleError, match="an output refers to figure fig-curves, which this set did not draw"):
        build.leave_out_undrawn_figures(pointing, "b2")


def test_a_build_that_fails_at_a_chapter_removes_the_previous_site(tmp_path, monkeypatch):
    html = tmp_path / "_build" / "html"
    html.mkdir(parents=True)
    (html / "index.html").write_text("<html>a book of an earlier build</html>")
    (html / "profile.txt").write_text("smoke\n")

    def chapter_fails(model_set, out, log=print, progress=True, jobs=1):
        raise RankscaleError("chapter b2_training_dynamics failed under profile 'smoke': ValueError: x")

    monkeypatch.setattr("rankscale.records.jobs.prepare", lambda *args, **kwargs: None)
    monkeypatch.setattr(build, "execute_all", chapter_fails)
    lines = []
    with pytest.raises(RankscaleError, match="chapter b2_training_dynamics failed"):
        build.build_book(get("smoke"), tmp_path, log=lines.append, progress=False)
    assert not html.exists()
    assert any(f"site: removed {html}" in line for line in lines), lines


@dataclass(frozen=True)
class Book:
    toml: Path
    out: Path

    @property
    def html(self) -> Path:
        return self.out / "_build" / "html"

    def executed(self, name: str) -> nbformat.NotebookNode:
        return nbformat.read(self.out / "_build" / "executed" / "plain" / f"{name}.ipynb", as_version=4)

    def page_text(self, name: str) -> str:
        """A chapter's page as the reader reads it: its text, without markup."""
        page = (self.html / "book" / "chapters" / f"{name}.html").read_text()
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


@pytest.fixture(scope="module")
def plain_book(tmp_path_factory, smoke_home) -> Book:
    """The book of two families of the smoke ladder's directories, with no checkpoints and no
    ``temperature_tokens``, on small budgets: built as ``rankscale book --profile`` builds it."""
    build_ladder(get("smoke"), smoke_home, progress=False)  # trained once per session (tests/test_book.py)
    models = smoke_home / "models" / "smoke"
    root = tmp_path_factory.mktemp("plain-set")
    toml = root / "plain.toml"
    toml.write_text(f"""
n_boot = 20

[corpora]
pydocs = 4000
humaneval = 2000

[[families]]
name = "NeoX"
models = [{{ model = "{models}/neox/d16-l1" }}, {{ model = "{models}/neox/d24-l1" }}, {{ model = "{models}/neox/d40-l2" }}]

[[families]]
name = "Llama"
models = [{{ model = "{models}/llama/d16-l1" }}, {{ model = "{models}/llama/d40-l2" }}]
""")
    model_set = get(str(toml))
    assert not model_set.temperature_tokens and not any(m.checkpoints for f in model_set.families for m in f.models)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RANKSCALE_HOME", str(smoke_home))  # the chapters' kernels inherit it
        build.build_book(model_set, root / "book", log=lambda *_: None, progress=False)
    return Book(toml, root / "book")


@pytest.mark.slow  # a book of five models executed and built
def test_a_set_without_checkpoints_or_temperature_builds_a_whole_site(plain_book):
    toc = yaml.safe_load((build.ROOT / "_toc.yml").read_text())
    pages = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    for page in pages:
        assert (plain_book.html / f"{page}.html").exists(), page
    assert (plain_book.html / "profile.txt").read_text().strip() == str(plain_book.toml)
    assert not (plain_book.out / "_build" / "site.log").exists()  # jupyter-book reported nothing under -W


@pytest.mark.slow  # a book of five models executed and built
@pytest.mark.parametrize("name", list(UNDRAWN))
def test_the_chapters_say_what_this_set_could_not_show(plain_book, name):
    nb = plain_book.executed(name)
    labels = [build.figure_label(cell) for cell in nb.cells if cell.cell_type == "code"]
    assert not set(UNDRAWN[name]) & set(labels)  # no caption around a figure that is not there
    page = (plain_book.html / "book" / "chapters" / f"{name}.html").read_text()
    for label in UNDRAWN[name]:
        assert label not in page  # neither a figure's anchor nor a reference to one
    text = plain_book.page_text(name)
    if name == "b1_decomposition":
        assert "extracts no tempered predictions" in text and "B1.4 is not testable" in text
        assert "To see it on real predictions" not in text  # the prose about the demonstration went with it
    else:
        assert "No family of this set has training checkpoints" in text
        for figure in ("Fig. 3", "Fig. 4", "Fig. 6", "curve of TV over training"):
            assert f"No checkpoints, so no {figure} on this set" in text
        assert "Paper B, Fig. 3 analogue" not in text  # the caption of the figure not drawn
        assert "Paper B, Fig. 5 analogue" in text  # drawn from the final models
    rows = [row for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
            for row in out.get("metadata", {}).get(VERDICT_KEY, [])]
    for row in rows:
        if row["key"] in NOT_TESTABLE_HERE:
            assert row["verdict"] == NOT_TESTABLE and NOT_TESTABLE_HERE[row["key"]] in row["ours"], row
    assert {row["key"] for row in rows} >= {key for key in NOT_TESTABLE_HERE if key[:2] == name[:2].upper()}


@pytest.mark.slow  # jupyter-book in a subprocess
def test_a_failed_site_build_leaves_no_site_that_looks_whole(tmp_path, monkeypatch):
    html = tmp_path / "_build" / "html"
    html.mkdir(parents=True)
    (html / "index.html").write_text("<html>a book of an earlier build</html>")
    (html / "profile.txt").write_text("smoke\n")
    intro = tmp_path / f"{build.INTRO}.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Scaling laws by rank")]), intro)
    monkeypatch.setattr("rankscale.records.jobs.prepare", lambda *args, **kwargs: None)
    # the root page but no chapter: the table of contents names pages the staged book lacks,
    # which jupyter-book reports as warnings after writing every page it has
    monkeypatch.setattr(build, "execute_all", lambda *args, **kwargs: [intro])
    with pytest.raises(RankscaleError) as failure:
        build.build_book(get("smoke"), tmp_path, log=lambda *_: None, progress=False)
    message = str(failure.value)
    assert "\n" not in message and message.startswith("the site did not build"), message
    assert "nonexisting document" in message and str(tmp_path / "_build" / "site.log") in message, message
    assert not list(tmp_path.rglob("index.html")), "a failed build left a site behind"
    assert "WARNING" in (tmp_path / "_build" / "site.log").read_text()
