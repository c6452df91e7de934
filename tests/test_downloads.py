"""What a staged page offers to download (rankscale.book.downloads), on made-up executed notebooks:
each figure's data as CSV with a link under it and its alt text, the verdicts as JSON, the source,
the paper's BibTeX, a description for link previews, and the install cell and Colab button only
where the repository's address is written."""

from __future__ import annotations

import json

import nbformat
import pandas as pd
import pytest

from rankscale import RankscaleError

from rankscale.book import build, downloads, pages, readout

FIGURE = {"alt": "Figure of 1 panel (pydocs): CE (nats) against non-embedding parameters for 2 series.",
          "columns": ["panel", "series", "non-embedding parameters", "CE (nats)"],
          "rows": [["pydocs", "NeoX", 1000.0, 5.5], ["pydocs", "NeoX", 8000.0, 4.25], ["pydocs", "Llama", 2000.0, None]]}
ROW = {"chapter": "A1", "key": "A1.1", "verdict": "reproduced", "held": 2, "tested": 2}


def executed(figures: int = 1) -> nbformat.NotebookNode:
    image = [nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="}, metadata={readout.FIGURE_KEY: FIGURE})
             for _ in range(figures)]
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A1 · The metric\n\nPaper A measures how often the right token is in the top "
                                      "$k$, next to cross-entropy."),
        nbformat.v4.new_code_cell('profile = "tiny"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell('profile = "smoke"', metadata={"tags": ["injected-parameters"]}),
        nbformat.v4.new_code_cell("plots.show(fig)", outputs=image, metadata={
            "tags": ["hide-input"], "mystnb": {"figure": {"name": "fig-a1-x", "caption": "A caption."}}}),
        nbformat.v4.new_code_cell("pages.verdict_table(...)", metadata={"tags": ["hide-input"]}, outputs=[
            nbformat.v4.new_output("display_data", data={"text/html": "<table>"}, metadata={pages.VERDICT_KEY: [ROW]})]),
    ])


def stage_page(nb, page="book/chapters/a1_metric", url=None) -> dict[str, bytes]:
    source = (build.NOTEBOOKS / f"{page.rsplit('/', 1)[-1]}.py").read_text()  # the page's own (its exercises)
    return downloads.page_downloads(nb, page, source, bib=(build.PAGES / "references.bib").read_text(), install_url=url)


def test_a_chapter_gives_its_figure_data_verdicts_source_and_paper(tmp_path):
    nb = executed()
    files = stage_page(nb)
    assert sorted(files) == ["downloads/a1_metric/a1_metric.exercises.ipynb", "downloads/a1_metric/a1_metric.py",
                             "downloads/a1_metric/a1_metric.verdicts.json", "downloads/a1_metric/fig-a1-x.csv"]
    (tmp_path / "fig.csv").write_bytes(files["downloads/a1_metric/fig-a1-x.csv"])
    table = pd.read_csv(tmp_path / "fig.csv")
    assert list(table.columns) == FIGURE["columns"]
    assert table["CE (nats)"].tolist()[:2] == [5.5, 4.25] and pd.isna(table["CE (nats)"].iloc[2])
    assert json.loads(files["downloads/a1_metric/a1_metric.verdicts.json"]) == [ROW]
    assert nb.cells[3].source == downloads.PREPARE_CELL and nb.cells[3].metadata["tags"] == ["remove-cell"]
    figure, link = nb.cells[4], nb.cells[5]
    assert figure.metadata["mystnb"]["image"]["alt"] == FIGURE["alt"]
    assert link.cell_type == "markdown" and "{download}`fig-a1-x.csv <downloads/a1_metric/fig-a1-x.csv>`" in link.source
    section = nb.cells[-1].source
    assert section.startswith("## Downloads")
    assert '<a href="../../_sources/book/chapters/a1_metric.ipynb" download>' in section
    assert "@misc{yue2025relative," in section and "yan2025whatscales" not in section
    meta = nb.metadata["myst"]["html_meta"]
    assert meta["description"].startswith("Paper A measures how often the right token is in the top k")
    assert nb.cells[0].cell_type == "markdown"  # no repository address: no install cell
    assert len({cell.id for cell in nb.cells}) == len(nb.cells)
    nbformat.validate(nb)


def test_several_images_of_one_cell_each_get_a_file_and_paper_b_its_own_entry():
    nb = executed(figures=2)
    files = stage_page(nb, page="book/chapters/b3_component_scaling")
    assert {"downloads/b3_component_scaling/fig-a1-x-1.csv", "downloads/b3_component_scaling/fig-a1-x-2.csv"} <= set(files)
    assert "@misc{yan2025whatscales," in nb.cells[-1].source


def test_pages_outside_the_chapters_link_their_notebook_from_where_they_are():
    nb = executed()
    downloads.page_downloads(nb, "book/intro", "", prepares=False)  # the introduction reads the executed chapters
    section = nb.cells[-1].source
    assert '<a href="../_sources/book/intro.ipynb" download>' in section and "BibTeX" not in section
    assert downloads.PREPARE_CELL not in [cell.source for cell in nb.cells]


def test_a_page_without_parameters_is_named():
    nb = executed()
    nb.cells = [cell for cell in nb.cells if "parameters" not in cell.source and "profile" not in cell.source]
    with pytest.raises(RankscaleError, match="page a1_metric has no cell tagged parameters"):
        stage_page(nb)


def test_with_the_repository_address_the_notebook_installs_rankscale_first():
    nb = executed()
    stage_page(nb, url="https://github.com/someone/rankscale")
    first = nb.cells[0]
    assert first.cell_type == "code" and first.metadata["tags"] == ["remove-cell"]
    assert "rankscale[book] @ git+https://github.com/someone/rankscale" in first.source
    namespace = {}
    exec(compile(first.source, "install", "exec"), namespace)  # rankscale is importable here: nothing installed


def test_the_staged_configuration_has_a_colab_button_only_with_an_address(monkeypatch, tmp_path):
    import yaml

    staged, _ = build.stage(tmp_path, [])
    config = yaml.safe_load((staged / "_config.yml").read_text())
    assert config["launch_buttons"]["colab_url"] == "" and not config["repository"].get("url")
    assert config["sphinx"] == yaml.safe_load((build.SOURCES / "_config.yml").read_text())["sphinx"]


def test_a_missing_bibtex_entry_is_named():
    with pytest.raises(Exception, match="no BibTeX entry 'nobody2020'"):
        downloads.bibtex_entry("@misc{a,\n}\n", "nobody2020")


def test_the_citation_file_cites_the_two_papers_as_the_book_does():
    import yaml

    citation = yaml.safe_load((build.ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT"
    assert citation["title"].startswith("rankscale")
    bib = (build.PAGES / "references.bib").read_text()
    for reference, key in zip(citation["references"], downloads.PAPERS.values()):
        entry = downloads.bibtex_entry(bib, key)
        assert f"title  = {{{reference['title']}}}" in entry
        assert [a["family-names"] for a in reference["authors"]] == [
            name.split(",")[0].strip() for name in entry.split("author = {")[1].split("}")[0].split(" and ")]
