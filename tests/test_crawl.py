"""scripts/crawl_site.py: the site served under a sub-path as GitHub Pages serves it, and a crawl in
headless Chromium that reports exactly what was planted in a small site, and nothing in a clean one."""

from __future__ import annotations

import base64
import importlib.util
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tools import ROOT, load_script, needs_chromium

crawl_site = load_script(ROOT / "scripts" / "crawl_site.py")

PNG = base64.b64decode(  # one white pixel
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC")


def page(title: str, main: str, extra: str = "", up: str = "") -> str:
    """A page with what axe asks of every page: a language, a title, landmarks around all content
    (``up``: the way to the site's root, for a page in a folder)."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body>'
            f'<header><p>The planted book</p></header>'
            f'<nav aria-label="pages"><a href="{up}index.html">Home</a> <a href="{up}other.html">Other</a></nav>'
            f'<main><h1>{title}</h1>{main}</main><footer><p>the end</p></footer>{extra}</body></html>')


# Sphinx's search page, faked: lists one result for a word of "searchable" pages, none otherwise.
SEARCH = page("Search", '<div id="search-results"></div>', """<script>
setTimeout(() => {
  const q = new URLSearchParams(location.search).get('q') || '';
  const box = document.getElementById('search-results');
  box.innerHTML = WORDS.includes(q) ? '<ul class="search"><li><a href="index.html">Home</a></li></ul>'
                                    : '<p>Search finished, found 0 pages matching the search query.</p>';
}, 300);
</script>""")


def write_site(root: Path, pages: dict[str, str], words: list[str]) -> Path:
    root.mkdir()
    for name, text in pages.items():
        (root / name).write_text(text)
    (root / "figure.png").write_bytes(PNG)
    (root / "data.csv").write_text("rank,loss\n1,2.0\n")
    (root / "search.html").write_text(SEARCH.replace("WORDS", json.dumps(words)))
    return root


@pytest.fixture
def planted(tmp_path) -> Path:
    """One of each problem, on index.html; other.html is clean."""
    return write_site(tmp_path / "planted", {
        "index.html": page("Planted", (
            '<p id="intro">The loss falls as $x$ grows, for scaling scaling scaling.</p>'
            '<p><a href="other.html">fine</a>, <a href="other.html#ranks">a fine anchor</a>, '
            '<a href="missing.html">a missing page</a>, <a href="other.html#nowhere">a missing anchor</a>, '
            '<a href="/other.html">an absolute path</a>, <a href="data.csv">the data</a>, '
            '<a href="mailto:someone@example.com">mail</a>, <a href="https://example.org/">elsewhere</a></p>'
            '<img src="figure.png" width="10" height="10">'
            '<pre>price = "$5 and $6"</pre>'), (
            "<script>console.error('planted error');"
            "fetch('https://example.com/x').catch(() => null);</script>")),
        "other.html": page("Other", '<h2 id="ranks">Ranks</h2><p><a href="index.html#intro">back</a></p>'),
    }, words=[])  # the search finds nothing


@pytest.fixture
def clean(tmp_path) -> Path:
    root = write_site(tmp_path / "clean", {
        "index.html": page("Home", (
            '<p id="intro">The loss of a ladder of models falls with their ranks.</p>'
            '<p><a href="other.html#ranks">Ranks</a>, <a href="#intro">up</a>, <a href="data.csv">the data</a>, '
            '<a href="sub/">a folder</a>, <a href="old.html">a page that moved</a></p>'
            '<img src="figure.png" alt="a white pixel" width="10" height="10"><pre>cost = "$5 and $6"</pre>')),
        "other.html": page("Other", '<h2 id="ranks">Ranks</h2><p><a href="index.html#intro">back</a></p>'),
        "old.html": "<script>location.replace('other.html#ranks')</script>",  # not opened as a page of its own
    }, words=["ladder"])
    (root / "sub").mkdir()
    (root / "sub" / "index.html").write_text(page("Sub", '<p><a href="../#top">up</a> <a href="./">here</a></p>', up="../"))
    return root


def test_serve_under_serves_only_under_the_prefix(tmp_path):
    (tmp_path / "page.html").write_text("<p>hello</p>")
    (tmp_path / "index.html").write_text("<p>home</p>")
    (tmp_path / "folder").mkdir()  # no index.html: a 404, as on Pages, not a listing
    httpd, base = crawl_site.serve_under(tmp_path, "rankscale")  # the prefix however written
    try:
        assert base.endswith(":%d/rankscale/" % httpd.server_address[1])
        assert urllib.request.urlopen(base + "page.html").read() == b"<p>hello</p>"
        origin = base.removesuffix("rankscale/")
        for outside in ("page.html", "rankscale-page.html", "other/page.html"):
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(origin + outside)
            assert answer.value.code == 404, outside
        with urllib.request.urlopen(origin + "rankscale") as answer:  # redirected to the slash, as Pages does
            assert (answer.geturl(), answer.read()) == (base, b"<p>home</p>")
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(base + "folder/")
        assert answer.value.code == 404
        assert crawl_site.check_url(base + "missing.html")[0] == 404
        assert crawl_site.check_url(base + "page.html")[::2] == (200, "text/html")
    finally:
        httpd.shutdown()


def test_problems_count_serious_axe_violations_and_the_summary_all():
    Violation = crawl_site.Violation
    report = crawl_site.Report(pages=["a.html"], axe=[
        Violation("image-alt", "critical", 2, "a.html", "img"), Violation("region", "moderate", 1, "a.html", "div"),
        Violation("color-contrast", "serious", 3, "a.html", "p"), Violation("heading-order", "minor", 1, "a.html", "h3")],
        weights={"a.html": 2048}, largest_page=("a.html", 2048), axe_run=True)
    assert report.problems() == ["a.html: axe image-alt (critical) on 2 element(s), first img",
                                 "a.html: axe color-contrast (serious) on 3 element(s), first p"]
    summary = report.summary()
    assert summary["axe violations"] == {"critical": 1, "serious": 1, "moderate": 1, "minor": 1}
    assert summary["largest page"] == "a.html (2 KiB)"
    assert re.search(r"^axe violations +1 critical, 1 serious, 1 moderate, 1 minor$", crawl_site.table(summary), re.M)
    report.search_word, report.search_results = "ladder", 0
    assert report.problems()[-1] == "search for 'ladder' found nothing"


def test_search_word_is_a_frequent_long_word():
    assert crawl_site.search_word("The loss of the ladder; the ladder of ranks, which there") == "ladder"
    assert crawl_site.search_word("a be it") is None


@needs_chromium
@pytest.mark.slow  # starts Chromium
def test_crawl_reports_exactly_the_planted_problems(planted):
    report = crawl_site.crawl(planted, prefix="/rankscale/")
    assert report.pages == ["index.html", "other.html"]
    assert sorted(report.problems()) == sorted([
        "index.html: broken link missing.html (HTTP 404)",
        "index.html: broken link /other.html (HTTP 404, outside /rankscale/: an absolute path?)",
        "index.html: link other.html#nowhere names no element of its page",
        "index.html: console error: planted error",
        "request left the site: https://example.com/x",
        "index.html: raw math '$x$'",  # not the $ of the code listing
        "index.html: axe image-alt (critical) on 1 element(s), first img",
        "search for 'scaling' found nothing",
    ])
    assert [(v.rule, v.impact, v.page) for v in report.axe] == [("image-alt", "critical", "index.html")]
    assert report.external_links == 1  # example.org: not followed
    assert not report.empty_images and not report.page_errors and not report.failed_responses
    # the start link; the 10 links of index.html less mailto and example.org, other.html twice (nav and
    # text) counted once; other.html's 3 (its nav and index.html#intro)
    assert report.links_checked == 1 + 7 + 3
    assert report.weights["index.html"] == len(planted.joinpath("index.html").read_bytes()) + len(PNG)
    assert report.largest_page[0] == "index.html"


@needs_chromium
@pytest.mark.slow  # starts Chromium
def test_crawl_finds_nothing_on_a_clean_site(clean, tmp_path):
    report = crawl_site.crawl(clean, prefix="/rankscale/", shots=tmp_path / "shots")
    assert report.problems() == [], report.problems()
    assert report.axe == []  # moderate and minor ones too
    assert report.pages == ["index.html", "other.html", "sub/index.html"]  # sub/ and ./ are sub/index.html
    assert report.redirects == {"old.html": "other.html"}
    assert (report.search_word, report.search_results) == ("ladder", 1)
    assert report.total_bytes == sum(p.stat().st_size for p in clean.rglob("*") if p.is_file())
    assert sorted(p.name for p in (tmp_path / "shots").iterdir()) == ["index.png", "other.png", "sub__index.png"]


@needs_chromium
@pytest.mark.slow  # starts Chromium, in a subprocess
def test_command_line_prints_the_summary_and_exits_1_on_problems(planted, tmp_path):
    out = tmp_path / "report.json"
    done = subprocess.run([sys.executable, ROOT / "scripts" / "crawl_site.py", planted, "--prefix", "/rankscale/",
                           "--json", out, "--no-axe"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert re.search(r"^broken links +2$", done.stdout, re.M) and "7 problem(s):" in done.stdout
    assert re.search(r"^axe violations +not checked$", done.stdout, re.M)
    report = json.loads(out.read_text())
    assert report["axe"] == [] and report["summary"]["pages"] == 2 and len(report["problems"]) == 7


JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"
STOCK_CONFIG = """title: A stock book
only_build_toc_files: true
execute:
  execute_notebooks: "off"
bibtex_bibfiles:
  - references.bib
parse:
  myst_enable_extensions: [dollarmath, amsmath]
sphinx:
  extra_extensions: [sphinx-mathjax-offline]
"""


@needs_chromium
@pytest.mark.slow  # builds a Jupyter Book, starts Chromium
@pytest.mark.skipif(not JUPYTER_BOOK.exists() or importlib.util.find_spec("sphinx-mathjax-offline") is None,
                    reason="the book's packages are not installed (pip install -e .[book])")
def test_crawl_reads_a_stock_jupyter_book(tmp_path):
    """The checks that need Sphinx's own pages: index.html only sends the reader on (a meta refresh),
    MathJax typesets the math, the search page lists a result. The theme's own faults (console
    errors, axe) are not asserted here."""
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text(STOCK_CONFIG)
    (book / "references.bib").write_text("")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: second\n")
    (book / "intro.md").write_text("# Scaling by rank\n\nThe loss $L$ falls with the rank $k$:\n\n$$\nL(k) = k^{-\\beta}\n$$\n\n"
                                   "See [the ranks](second.md#ranks).\n\n![A white pixel](figure.png)\n")
    (book / "second.md").write_text("# The second page\n\nInline $k = 1$.\n\n(ranks)=\n## Ranks\n\n[Back](intro.md).\n")
    (book / "figure.png").write_bytes(PNG)
    done = subprocess.run([JUPYTER_BOOK, "build", book], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = crawl_site.crawl(book / "_build" / "html", prefix="/rankscale/", axe=False)
    assert report.redirects == {"index.html": "intro.html"}
    assert report.pages == ["intro.html", "second.html"]
    assert not (report.broken_links or report.missing_anchors or report.left_site or report.failed_responses)
    assert not (report.untypeset_math or report.empty_images)
    assert report.search_word and report.search_results >= 1, report.search_word
    assert min(report.weights.values()) > 100_000  # the theme's scripts and MathJax
