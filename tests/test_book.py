"""The book as `make test` builds it (smoke profile): every chapter executed by papermill without
error output, the site built by Jupyter Book, and the site read in headless Chromium with the
network cut off."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import time
from pathlib import Path

import nbformat
import pytest
import yaml

from rankscale import RankscaleError, book, report

OUT = book.ROOT / "_build" / "smoke"  # kept between runs: a rebuild only redoes what changed
CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="module")
def site() -> Path:
    start = time.perf_counter()
    html = book.build_book("smoke", OUT, log=lambda *_: None)
    print(f"smoke book built in {time.perf_counter() - start:.0f} s")
    return html


def executed(name: str) -> nbformat.NotebookNode:
    return nbformat.read(OUT / "_build" / "executed" / "smoke" / f"{name}.ipynb", as_version=4)


def toc_pages() -> list[str]:
    toc = yaml.safe_load((book.ROOT / "_toc.yml").read_text())
    return [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]


def test_toc_lists_exactly_the_chapters():
    chapters = [p.removeprefix("book/chapters/") for p in toc_pages() if p.startswith("book/chapters/")]
    assert chapters == [*book.CHAPTERS, book.SCORECARD]
    for name in chapters:
        assert (book.NOTEBOOKS / f"{name}.py").exists()


@pytest.mark.parametrize("name", [*book.CHAPTERS, book.SCORECARD])
def test_chapter_executed_cleanly(site, name):
    nb = executed(name)
    assert nb.metadata["papermill"]["parameters"]["profile"] == "smoke"
    assert nb.metadata["rankscale"]["profile"] == "smoke"
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"]
    assert not [out for out in outputs if out.get("name") == "stderr" and "Traceback" in out.get("text", "")]
    if name != book.SCORECARD:
        assert any("image/png" in out.get("data", {}) for out in outputs), f"{name} draws no figure"
        assert any(out.get("metadata", {}).get("rankscale/verdicts") for out in outputs), f"{name} has no verdicts"
    hidden = [c for c in nb.cells if {"parameters", "injected-parameters"} & set(c.metadata.get("tags", []))]
    assert hidden and all("remove-cell" in c.metadata["tags"] for c in hidden)


def test_rebuild_with_nothing_changed_executes_nothing(site):
    lines = []
    book.execute_all("smoke", OUT, log=lines.append)
    assert len(lines) == len(book.CHAPTERS) + 1 and all(line.endswith("up to date") for line in lines)


def test_rebuild_with_nothing_changed_leaves_the_site_alone(site):
    lines = []
    assert book.build_book("smoke", OUT, log=lines.append) == site
    assert lines[-1] == "site up to date"


def test_verdicts_are_checked():
    with pytest.raises(RankscaleError, match="passes no verdicts"):
        report.verdict_table("A1", [])
    with pytest.raises(RankscaleError, match="is not one of"):
        report.Verdict("claim", "paper", "ours", "sort of")


def test_stamp_depends_on_profile_and_code():
    smoke = book.chapter_stamp("a1_metric", "smoke", "code-1")
    assert smoke == book.chapter_stamp("a1_metric", "smoke", "code-1")
    assert smoke != book.chapter_stamp("a1_metric", "tiny", "code-1")
    assert smoke != book.chapter_stamp("a1_metric", "smoke", "code-2")
    assert book.code_fingerprint("smoke") != book.code_fingerprint("tiny")


def test_stamp_follows_the_papers_reference_tables(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKSCALE_REFERENCE", str(tmp_path))
    (tmp_path / "rbp_paper_table1.csv").write_text("k,r2\n1,0.99\n")
    before = book.code_fingerprint("smoke")
    (tmp_path / "rbp_paper_table1.csv").write_text("k,r2\n1,0.98\n")
    assert book.code_fingerprint("smoke") != before
    assert report.reference_table("rbp_paper_table1")["r2"].tolist() == [0.98]
    with pytest.raises(RankscaleError, match="RANKSCALE_REFERENCE"):
        report.reference_table("no_such_table")


def test_site_has_every_page_and_the_downloads(site):
    assert (site / "profile.txt").read_text().strip() == "smoke"
    for page in toc_pages():
        assert (site / f"{page}.html").exists(), page
    for name in (*book.CHAPTERS, book.SCORECARD):
        assert (site / "_sources" / "book" / "chapters" / f"{name}.ipynb").exists()  # the download


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server(site):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                    reason="Debian chromium is not installed (make installs it where apt is available)")
def test_site_reads_offline_in_chromium(server):
    from playwright.sync_api import sync_playwright

    assert CHROMIUM, "chromium is missing; on Debian: apt-get install chromium"
    shots = OUT / "screenshots"
    shots.mkdir(exist_ok=True)
    leaving, broken = [], []

    def only_local(route):
        if route.request.url.startswith(server):
            route.continue_()
        else:  # the network is cut: record anything that tries to leave the machine
            leaving.append(route.request.url)
            route.abort()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.route("**/*", only_local)
        page.on("response", lambda r: broken.append(r.url) if r.status >= 400 else None)
        for name in toc_pages():
            response = page.goto(f"{server}/{name}.html", wait_until="load")
            assert response is not None and response.ok, name
            page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
            page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
            images = page.evaluate("() => [...document.querySelectorAll('main img')].map(i => [i.src, i.naturalWidth, i.naturalHeight])")
            assert all(w > 0 and h > 0 for _, w, h in images), (name, images)
            text = page.inner_text("main")
            everywhere = page.inner_text("body")  # the navigation too: titles appear on every page
            assert "\\(" not in everywhere and "\\[" not in everywhere and "$$" not in everywhere, \
                f"raw math left on {name}"
            if name.startswith("book/chapters/") and not name.endswith("scorecard"):
                assert images, f"{name} shows no figure"
                assert page.locator("main mjx-container").count() > 0, f"no typeset math on {name}"
            if name.endswith("scorecard"):
                assert page.locator("main table").count() >= 2
                assert "reproduced" in text
            page.screenshot(path=str(shots / f"{Path(name).name}.png"), full_page=False)
        browser.close()
    assert not leaving, f"requests left the machine: {leaving[:5]}"
    assert not broken, f"pages or assets failed to load: {broken[:5]}"
