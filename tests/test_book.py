"""The book as a user gets it: a `git clone` of HEAD into a directory with nothing beside it (no
sibling folders, no ``RANKSCALE_REFERENCE``), the smoke book built there in a subprocess with a
temporary ``RANKSCALE_HOME``; every chapter executed by papermill without error output, a terminal
log free of library noise, and the site read in headless Chromium with the network cut off."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
import yaml

from rankscale import RankscaleError, teaching
from rankscale.book import build, pages, plots
from rankscale.claims import base, reference
from rankscale.claims.chapters import CHAPTERS, label
from rankscale.claims.context import load_chapter
from rankscale.records import runs
from rankscale.sets import get
from tools import CHROMIUM, ROOT, load_script, needs_chromium

crawl_site = load_script(ROOT / "scripts" / "crawl_site.py")  # reads a site as a reader meets it, in Chromium
RAW_MATH, PROSE = crawl_site.RAW_MATH, crawl_site.PROSE  # math MathJax left untypeset, in the page's prose
# Lines a user gains nothing from: per-model bars of transformers, Jupyter's kernel transport
# warning, tqdm's complaint about widgets, and any traceback.
NOISE = ("Writing model shards", "Loading weights", "without encryption", "IProgress not found", "Traceback")


@dataclass(frozen=True)
class Build:
    clone: Path
    log: str

    @property
    def html(self) -> Path:
        return self.clone / "_build" / "html"

    def executed(self, name: str) -> nbformat.NotebookNode:
        return nbformat.read(self.clone / "_build" / "executed" / "smoke" / f"{name}.ipynb", as_version=4)


def run_in_clone(clone: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m rankscale ARGS`` with the clone's own package, as `make book` runs it there."""
    env = {k: v for k, v in os.environ.items() if k != "RANKSCALE_REFERENCE"}
    env.update(PYTHONPATH=str(clone / "src"), RANKSCALE_HOME=str(home), PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "rankscale", *args], cwd=clone, env=env,
                          capture_output=True, text=True)


def build_smoke(clone: Path, home: Path) -> str:
    result = run_in_clone(clone, home, "book", "--profile", "smoke")
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"the smoke book failed in a lone clone:\n{log[-6000:]}"
    return log


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, smoke_home) -> Build:
    alone = tmp_path_factory.mktemp("alone")
    clone = alone / "rankscale"
    subprocess.run(["git", "clone", "--quiet", str(build.ROOT), str(clone)], check=True)
    if subprocess.run(["git", "status", "--porcelain"], cwd=build.ROOT, capture_output=True, text=True).stdout:
        warnings.warn("the book test builds the repository's HEAD; uncommitted changes are not in it")
    where = run_in_clone(clone, smoke_home, "--version").stdout  # imports the package without work
    assert where.startswith("rankscale"), where
    log = build_smoke(clone, smoke_home)
    print(log)
    assert [p.name for p in alone.iterdir()] == ["rankscale"]  # nothing was written beside the clone
    return Build(clone, log)


def test_a_changed_threshold_re_executes_the_chapters_and_nothing_else_does(tmp_path, monkeypatch):
    """The chapters' cache hashes every source file of the package, subpackages included: a claim's
    threshold changed in a copy of the package re-executes the chapters, a rebuild with nothing
    changed executes none."""
    package = tmp_path / "rankscale"
    shutil.copytree(build.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(build, "PACKAGE", package)
    executed = []

    def execute(name, profile, out, stamp, parameters=None, models=None):  # records the stamp only
        executed.append(name)
        nb = nbformat.v4.new_notebook(metadata={"rankscale": {"stamp": stamp, "profile": profile}})
        nbformat.write(nb, out / f"{name}.ipynb")

    monkeypatch.setattr(build, "execute_chapter", execute)
    monkeypatch.setattr(runs, "models_used", lambda model_set: [])  # no ladder trained here
    smoke, out = get("smoke"), tmp_path / "out"
    build.execute_all(smoke, out, log=lambda *_: None, progress=False)
    assert executed == [*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD, build.INTRO]
    executed.clear()
    build.execute_all(smoke, out, log=lambda *_: None, progress=False)
    assert executed == []
    rules = package / "claims" / "b3.py"
    source = rules.read_text()
    assert source.count("B3_NO_LAW_R2 = 0.5") == 1
    rules.write_text(source.replace("B3_NO_LAW_R2 = 0.5", "B3_NO_LAW_R2 = 0.4"))
    build.execute_all(smoke, out, log=lambda *_: None, progress=False)
    assert executed == [*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD, build.INTRO]


class Bar:
    def __init__(self):
        self.n, self.times = 0, []

    def update(self, n=1):
        self.n += n
        self.times.append(time.time())

    def set_postfix_str(self, text):
        pass


def page_task(folder: Path, name: str, seconds: float) -> tuple:
    """``subprocess.check_call``'s arguments for a page that writes the process that ran it (the shell's parent) and
    when it started and ended, by the machine's clock; the workers import no torch for it."""
    return ([shutil.which("sh"), "-c", f"s=$(date +%s.%N); sleep {seconds}; echo $PPID $s $(date +%s.%N) > {folder / name}"],)


def test_pages_run_at_once_in_processes_and_the_scorecard_after_every_chapter(tmp_path):
    names = [*build.BEFORE_CHAPTERS, "a1_metric", "a2_scaling_regimes", build.SCORECARD, build.INTRO]
    tasks = {name: page_task(tmp_path, name, 0.5 if name in build.CHAPTERS else 0) for name in names}
    bar = Bar()
    build.execute_in_processes(tasks, 2, bar, run=subprocess.check_call)
    assert bar.n == len(names)
    times = {name: [float(x) for x in (tmp_path / name).read_text().split()] for name in names}
    pids = {pid for pid, _, _ in times.values()}
    assert os.getpid() not in pids and len(pids) >= 2  # never this process; a pool for the chapters, one for the readers
    first, second = (times[name] for name in ("a1_metric", "a2_scaling_regimes"))
    assert first[1] < second[2] and second[1] < first[2]  # the two chapters overlap in time
    # the bar moves as each page ends (the first page takes no time), not when the last chapter has ended
    assert bar.times[0] < max(first[2], second[2])
    chapters_end = max(end for name, (_, _, end) in times.items() if name not in (build.SCORECARD, build.INTRO))
    assert min(times[build.SCORECARD][1], times[build.INTRO][1]) >= chapters_end


def test_a_page_that_fails_in_a_process_stops_the_build_with_its_error(tmp_path):
    tasks = {"a1_metric": page_task(tmp_path, "a1_metric", 0), "bad": (["sh", "-c", "exit 3"],),
             build.SCORECARD: page_task(tmp_path, build.SCORECARD, 0)}
    with pytest.raises(subprocess.CalledProcessError, match="exit status 3"):
        build.execute_in_processes(tasks, 2, Bar(), run=subprocess.check_call)
    assert not (tmp_path / build.SCORECARD).exists()  # what reads the chapters never ran


KERNEL_RUN = """
import pathlib, sys, tempfile
import nbformat, papermill
from rankscale.book.build import kernel_config
folder, i = pathlib.Path(sys.argv[1]), sys.argv[2]
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"import os, time; time.sleep(1); print(os.getpid(), {i})")])
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
with tempfile.TemporaryDirectory() as sockets:
    papermill.execute_notebook(nb, str(folder / f"{i}.ipynb"), kernel_name="python3", cwd=str(folder),
                               progress_bar=False, config=kernel_config(pathlib.Path(sockets)))
"""


@pytest.mark.slow  # two Jupyter kernels
def test_two_kernels_started_at_once_in_one_folder_each_answer_their_own_notebook(tmp_path):
    tasks = {name: ([sys.executable, "-c", KERNEL_RUN, str(tmp_path), str(i)],)
             for i, name in enumerate(("a1_metric", "a2_scaling_regimes", "a3_k_dependence", "a4_emergence"))}
    build.execute_in_processes(tasks, 4, Bar(), run=subprocess.check_call)
    printed = [nbformat.read(tmp_path / f"{i}.ipynb", as_version=4).cells[-1].outputs[0].text.split() for i in range(4)]
    assert [int(i) for _, i in printed] == [0, 1, 2, 3]
    assert len({pid for pid, _ in printed}) == 4  # four kernels


@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_the_clone_reads_its_own_code_and_tables(smoke, smoke_home):
    probe = ("import rankscale, rankscale.claims.reference as r; print(rankscale.__file__); print(r.reference_dir())")
    env = {k: v for k, v in os.environ.items() if k != "RANKSCALE_REFERENCE"}
    env["PYTHONPATH"] = str(smoke.clone / "src")
    lines = subprocess.run([sys.executable, "-c", probe], cwd=smoke.clone, env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    assert all(Path(line).is_relative_to(smoke.clone) for line in lines), lines


def test_nothing_in_the_project_points_outside_it():
    outside = "/".join(("..", "shared"))  # spelled so that this file does not hold it
    tracked = subprocess.run(["git", "ls-files"], cwd=build.ROOT, capture_output=True, text=True, check=True)
    for name in tracked.stdout.split():
        path = build.ROOT / name
        if path.suffix in {".py", ".md", ".yml", ".toml", ".cfg"} or path.name in {"Makefile", "run"}:
            assert outside not in path.read_text(), f"{name} refers to {outside}, which a clone lacks"


JUPYTER = ("papermill", "nbformat", "nbclient", "IPython", "ipykernel", "jupyter_client", "myst_nb")
VERDICTS_ALONE = f"""
import json, sys
from rankscale.cli import main
status = main(["verdicts", "--profile", "smoke", "--json", "--quiet"])
sys.stderr.write(json.dumps({{"status": status, "jupyter": sorted(set({JUPYTER!r}) & set(sys.modules))}}))
"""


@pytest.mark.slow  # the smoke book in a lone clone
def test_the_library_alone_gives_the_books_verdicts(smoke, smoke_home):
    """``rankscale verdicts`` measures and decides every chapter from the smoke set's records without
    importing anything of Jupyter, and gives every verdict row of the executed chapters, units included."""
    env = {k: v for k, v in os.environ.items() if k != "RANKSCALE_REFERENCE"}
    env.update(PYTHONPATH=str(smoke.clone / "src"), RANKSCALE_HOME=str(smoke_home))
    result = subprocess.run([sys.executable, "-c", VERDICTS_ALONE], cwd=smoke.clone, env=env, capture_output=True,
                            text=True)
    ran = json.loads(result.stderr.splitlines()[-1])
    assert ran == {"status": 0, "jupyter": []}, result.stderr[-3000:]
    library = json.loads(result.stdout)
    book = [row for page in CHAPTERS for cell in smoke.executed(page).cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) for row in out.get("metadata", {}).get(pages.VERDICT_KEY, [])]
    assert len(library) == len(book) and {row["chapter"] for row in library} == set(map(label, CHAPTERS))
    for ours, theirs in zip(library, book):
        assert ours == theirs, ours["key"]


@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_terminal_log_is_quiet(smoke):
    noisy = [line for line in smoke.log.splitlines() if any(n in line for n in NOISE)]
    assert not noisy, noisy[:5]


def test_toc_lists_exactly_the_chapters():
    chapters = [p.removeprefix("book/chapters/") for p in toc_pages() if p.startswith("book/chapters/")]
    assert chapters == [*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD]
    for name in chapters:
        assert (build.NOTEBOOKS / f"{name}.py").exists()


def test_every_figure_is_shown_the_books_way():
    for name in (*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD, build.INTRO):
        source = (build.NOTEBOOKS / f"{name}.py").read_text()
        assert "plt.show(" not in source, f"{name}: show figures with plots.show(fig), which checks their text size"
        assert "tight_layout(" not in source, f"{name}: the book's style lays figures out (constrained layout)"


def toc_pages() -> list[str]:
    toc = yaml.safe_load((build.ROOT / "_toc.yml").read_text())
    return [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]


@pytest.mark.parametrize("name", [*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD, build.INTRO])
@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_chapter_executed_cleanly(smoke, name):
    nb = smoke.executed(name)
    assert nb.metadata["papermill"]["parameters"]["profile"] == "smoke"
    assert nb.metadata["rankscale"]["profile"] == "smoke"
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"]
    streams = "".join(out.get("text", "") for out in outputs if out.get("name") == "stderr")
    assert "Traceback" not in streams and "TqdmWarning" not in streams, streams[:500]
    assert "smallest text" not in streams, streams[:500]  # plots.show: a figure the column would make illegible
    assert any("image/png" in out.get("data", {}) for out in outputs), f"{name} draws no figure"
    if name in build.CHAPTERS:
        assert any(out.get("metadata", {}).get("rankscale/verdicts") for out in outputs), f"{name} has no verdicts"
    hidden = [c for c in nb.cells if {"parameters", "injected-parameters"} & set(c.metadata.get("tags", []))]
    assert hidden and all("remove-cell" in c.metadata["tags"] for c in hidden)


@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_the_first_build_shows_one_progress_display_per_stage(smoke):
    bars = {line.split(":")[0] for line in smoke.log.replace("\r", "\n").splitlines() if "%|" in line}
    assert bars == {"train", "extract", "chapters"}, bars
    assert "site: built in" in smoke.log


@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_rebuild_with_nothing_changed_does_nothing(smoke, smoke_home):
    log = build_smoke(smoke.clone, smoke_home)
    assert "%|" not in log, log  # no stage had anything to do
    runs = sum(len(f.ladder.replicas(size)) for f in get("smoke").ladder_families for size in f.ladder.sizes)
    assert runs == 7  # five sizes, two of them trained twice
    for line in (f"train: all {runs} ladder models of 'smoke' are trained", "extract: all ", "chapters: all 13 up to date",
                 "site: up to date"):
        assert line in log, log


def test_verdicts_are_checked():
    with pytest.raises(RankscaleError, match="passes no verdicts"):
        pages.verdict_table("A1", [])
    with pytest.raises(RankscaleError, match="is not one of"):
        base.Verdict("claim", "paper", "ours", "sort of")


def test_stamp_depends_on_profile_and_code():
    smoke_stamp = build.chapter_stamp("a1_metric", "smoke", "code-1")
    assert smoke_stamp == build.chapter_stamp("a1_metric", "smoke", "code-1")
    assert smoke_stamp != build.chapter_stamp("a1_metric", "tiny", "code-1")
    assert smoke_stamp != build.chapter_stamp("a1_metric", "smoke", "code-2")
    assert build.code_fingerprint(get("smoke")) != build.code_fingerprint(get("tiny"))


def test_stamp_follows_the_papers_reference_tables(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKSCALE_REFERENCE", str(tmp_path))
    (tmp_path / "rbp_paper_table1.csv").write_text("k,r2\n1,0.99\n")
    before = build.code_fingerprint(get("smoke"))
    (tmp_path / "rbp_paper_table1.csv").write_text("k,r2\n1,0.98\n")
    assert build.code_fingerprint(get("smoke")) != before
    assert reference.reference_table("rbp_paper_table1")["r2"].tolist() == [0.98]
    with pytest.raises(RankscaleError, match="RANKSCALE_REFERENCE"):
        reference.reference_table("no_such_table")


@pytest.mark.slow  # the smoke book in a lone clone
def test_the_ladder_page_names_the_device_that_trained_each_family(smoke):
    tables = [out.data["text/html"] for cell in smoke.executed("ladder").cells if cell.cell_type == "code"
              for out in cell.outputs if "text/html" in out.get("data", {})]
    assert sum("on each held-out corpus. Trained on cpu.</caption>" in table for table in tables) == 2  # two families


@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_site_has_every_page_and_the_downloads(smoke):
    assert (smoke.html / "profile.txt").read_text().strip() == "smoke"
    for page in toc_pages():
        assert (smoke.html / f"{page}.html").exists(), page
    for name in (*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD):
        assert (smoke.html / "_sources" / "book" / "chapters" / f"{name}.ipynb").exists()  # the download
    for name in build.CHAPTERS:  # each chapter's exercise notebook, linked from its page
        assert list(smoke.html.glob(f"_downloads/*/{name}.exercises.ipynb")), name
        assert f"{name}.exercises.ipynb" in (smoke.html / "book" / "chapters" / f"{name}.html").read_text()
    teaching_page = (smoke.html / "book" / "teaching.html").read_text()
    assert "Session 1" in teaching_page and "rankscale.teaching.check" in teaching_page


# Elements of the main column that reach past its right edge, unless a box that scrolls sideways
# holds them (a wide table may scroll inside its own box; the page itself must not).
OVERFLOW = """() => {
  const column = document.querySelector('article.bd-article') || document.querySelector('main');
  const edge = column.getBoundingClientRect().right + 1;
  const scrolls = el => { for (let p = el.parentElement; p && p !== column; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll') return true; } return false; };
  return [...column.querySelectorAll('*')].filter(el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > edge && !scrolls(el); })
    .slice(0, 3).map(el => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : ''));
}"""
# The chapter's "What this set shows" box, whole, within the first screen (the viewport's height).
FINDINGS_FIRST = """() => [...document.querySelectorAll('main .admonition')].some(box =>
  box.querySelector('.admonition-title')?.textContent.includes('What this set shows')
  && box.getBoundingClientRect().top >= 0 && box.getBoundingClientRect().bottom <= window.innerHeight)"""
# A figure that starts within the first screen (the root page opens with the build's main figure).
FIGURE_FIRST = "() => [...document.querySelectorAll('main img')].some(i => i.getBoundingClientRect().top < window.innerHeight)"
# Code cells whose source shows without a click (a folded cell sits in a closed <details>).
UNFOLDED = """() => [...document.querySelectorAll('main .cell_input')]
  .filter(el => !el.closest('details:not([open])')).length"""


def figure_text(page) -> list[str]:
    """What is wrong with the text size of the figures on an open page: each image says the size of
    its smallest text in points (``plots.png``); shown at the width the browser gives it, that text
    must read no smaller than the page's body text."""
    import PIL.Image

    body = float(page.evaluate("() => getComputedStyle(document.querySelector('main p') || document.body).fontSize")
                 .removesuffix("px"))
    shown = page.evaluate("() => [...document.querySelectorAll('main img')]"
                          ".map(i => [i.src, i.naturalWidth, i.getBoundingClientRect().width])")
    problems = []
    for n, (src, natural, displayed) in enumerate(shown, 1):
        if natural > 0:
            image = PIL.Image.open(io.BytesIO(page.request.get(src).body()))
            if plots.TEXT_KEY not in image.info:
                problems.append(f"figure {n} does not say its text size (show it with rankscale.book.plots.show)")
                continue
            px = float(image.info[plots.TEXT_KEY]) * image.info["dpi"][0] / 72 * displayed / natural
            if px < body - 0.05:
                problems.append(f"figure {n}'s smallest text reads at {px:.1f} px, below the body's {body:g} px")
    return problems


def read_in_chromium(base: str, pages: list[str], shots: Path) -> list[str]:
    """Open each page (``name`` for ``name.html`` under ``base``, a URL ending in /) in headless Chromium with
    every non-local request aborted, and return what a reader would see wrong, one line each."""
    from playwright.sync_api import sync_playwright

    problems, leaving, broken = [], [], []

    def only_local(route):
        if route.request.url.startswith(base):
            route.continue_()
        else:  # the network is cut: record anything that tries to leave the machine
            leaving.append(route.request.url)
            route.abort()

    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=crawl_site.CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.route("**/*", only_local)
        page.on("response", lambda r: broken.append(r.url) if r.status >= 400 else None)
        for name in pages:
            response = page.goto(f"{base}{name}.html", wait_until="load")
            if response is None or not response.ok:
                problems.append(f"{name}: does not load")
                continue
            page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
            page.evaluate("() => window.MathJax ? window.MathJax.startup.promise : null")
            images = page.evaluate("() => [...document.querySelectorAll('main img')].map(i => [i.src, i.naturalWidth, i.naturalHeight])")
            problems += [f"{name}: image {src} is empty" for src, w, h in images if not (w > 0 and h > 0)]
            problems += [f"{name}: {problem}" for problem in figure_text(page)]
            # the navigation too (chapter titles appear on every page); code listings may hold $
            problems += [f"{name}: raw math {m!r}" for m in RAW_MATH.findall(page.evaluate(PROSE))]
            if name.startswith("book/chapters/") and not name.endswith("scorecard"):
                if not images:
                    problems.append(f"{name}: shows no figure")
                if page.locator("main mjx-container").count() == 0:
                    problems.append(f"{name}: no typeset math")
            if (name.endswith("scorecard") or name == "book/intro") and not page.evaluate(FIGURE_FIRST):
                problems.append(f"{name}: no figure on the first screen")
            if name.startswith("book/chapters/"):
                problems += [f"{name}: {what} is wider than the column" for what in page.evaluate(OVERFLOW)]
                unfolded = page.evaluate(UNFOLDED)
                if unfolded:
                    problems.append(f"{name}: {unfolded} code cells shown unfolded")
                if not name.endswith("scorecard") and not page.evaluate(FINDINGS_FIRST):
                    problems.append(f"{name}: the findings box is not on the first screen")
            if name.endswith("scorecard"):
                if page.locator("main table").count() < 2 or "reproduced" not in page.inner_text("main"):
                    problems.append(f"{name}: the scorecard tables are missing")
            page.screenshot(path=str(shots / f"{Path(name).name}.png"), full_page=False)
        browser.close()
    problems += [f"request left the machine: {url}" for url in leaving[:5]]
    problems += [f"failed to load: {url}" for url in broken[:5]]
    return problems


@needs_chromium
@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_site_reads_offline_in_chromium(smoke):
    """Served under a sub-path, as GitHub Pages serves a project: the book's own checks on every page of the table of
    contents (figures, their text size, math, the findings box, folded code)."""
    assert CHROMIUM, "chromium is missing; on Debian: apt-get install chromium"
    httpd, base = crawl_site.serve_under(smoke.html, "/rankscale/")
    try:
        problems = read_in_chromium(base, toc_pages(), smoke.clone / "_build" / "screenshots")
    finally:
        httpd.shutdown()
    assert not problems, problems


@needs_chromium
@pytest.mark.slow  # the smoke book in a lone clone, crawled in Chromium
def test_the_site_crawled_under_a_sub_path_has_no_problem(smoke):
    """Every page reachable from the start page, under /rankscale/: every link and anchor resolves (the downloads
    too), no console error, no request leaves the site, math typeset, images loaded, search finds, and axe-core
    finds no serious or critical violation."""
    report = crawl_site.crawl(smoke.html, "/rankscale/")
    print(crawl_site.table(report.summary()))
    assert not report.problems(), report.problems()
    assert {f"{page}.html" for page in toc_pages()} <= set(report.pages)
    assert report.search_results > 0 and report.links_checked > 100
    for name in build.CHAPTERS:  # each chapter's notebook, source, verdicts and figure data, all found
        assert f"_sources/book/chapters/{name}.ipynb" in report.downloads
        assert [f for f in report.downloads if f.endswith((f"/{name}.py", f"/{name}.verdicts.json"))], name
    assert len([f for f in report.downloads if f.endswith(".csv")]) >= len(build.CHAPTERS)


@pytest.mark.slow  # the smoke book in a lone clone
def test_each_figures_csv_holds_the_points_it_plots(smoke, smoke_home):
    """Every figure of every page has its CSV among the site's downloads, and reading it back gives the points the
    image's metadata carries; for A2's figures against size, those are the models' sizes and measured values, as the
    chapter's own records give them."""
    from rankscale.book import readout

    csvs = {path.name: path for path in (smoke.html / "_downloads").rglob("*.csv")}
    found = 0
    for name in (*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD, build.INTRO):
        page = "book/intro" if name == build.INTRO else f"book/chapters/{name}"
        nb = nbformat.read(smoke.html / "_sources" / f"{page}.ipynb", as_version=4)
        for cell in nb.cells:
            figures = [out.metadata[readout.FIGURE_KEY] for out in cell.get("outputs", [])
                       if readout.FIGURE_KEY in out.get("metadata", {})]
            label = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
            for i, figure in enumerate(figures, 1):
                stem = label or ""
                csv = [path for file, path in csvs.items()
                       if file in (f"{stem}.csv", f"{stem}-{i}.csv") or (not label and file.startswith(f"{name}-figure-"))]
                assert csv, f"{name}: no CSV for figure {label or i}"
                table = pd.read_csv(csv[0])
                expected = readout.figure_table(figure)
                assert list(table.columns) == list(expected.columns), name
                assert len(table) == len(expected) and len(table) > 0, name
                found += 1
    assert found >= len(build.CHAPTERS)
    # the ladder page's CE against size: each model's mean -log p(t) on pydocs, from its own records
    from rankscale.book.chapter import open_chapter

    chapter = open_chapter("smoke", home=smoke_home, show_header=False)
    measured = {(run.family, run.non_embedding): -float(np.mean(run.records.logp, dtype=np.float64))
                for run in chapter.family_runs["pydocs"]}
    plotted = pd.read_csv(csvs["fig-ladder-regime.csv"]).query("panel == 'CE on pydocs'")
    for (family, size), ce in measured.items():
        row = plotted[(plotted["series"] == family) & (plotted["non-embedding parameters"] == size)]
        assert len(row) == 1 and row["CE (nats)"].iloc[0] == pytest.approx(ce, rel=1e-6), (family, size)


@needs_chromium
@pytest.mark.slow  # the smoke book in a lone clone, read in Chromium
def test_browser_check_catches_untypeset_math(tmp_path):
    assert CHROMIUM, "chromium is missing; on Debian: apt-get install chromium"
    (tmp_path / "planted.html").write_text("<html><body><main><p>the same fraction as $x$ here</p>"
                                           "<p>and \\(y\\) there</p><pre>label = '$z$'</pre></main></body></html>")
    (tmp_path / "clean.html").write_text("<html><body><main><p>costs 5 dollars, k = 1,630</p></main></body></html>")
    httpd, base = crawl_site.serve_under(tmp_path)
    try:
        problems = read_in_chromium(base, ["planted", "clean"], tmp_path / "shots")
    finally:
        httpd.shutdown()
    assert problems == ["planted: raw math '$x$'", "planted: raw math '\\\\('"]


@needs_chromium
@pytest.mark.slow  # starts Chromium
def test_browser_check_catches_overflow_unfolded_code_and_a_late_figure(tmp_path):
    assert CHROMIUM, "chromium is missing; on Debian: apt-get install chromium"
    from matplotlib.figure import Figure

    chapters = tmp_path / "book" / "chapters"
    chapters.mkdir(parents=True)
    for name, inches, pt in (("small.png", 12, 12), ("legible.png", 5, 12)):  # shown 600 px wide: 8 px and 16.7 px
        figure = Figure(figsize=(inches, 3), dpi=plots.DPI)
        figure.subplots().set_title("text", fontsize=pt)
        figure.axes[0].tick_params(labelsize=pt)
        (chapters / name).write_bytes(plots.png(figure))
    Figure(figsize=(4, 3), dpi=plots.DPI).savefig(chapters / "unlabelled.png")  # not drawn by plots.png
    (chapters / "planted.html").write_text(
        '<html><body><main><article class="bd-article" style="width: 600px"><p>body text</p>'
        '<img src="small.png" style="max-width: 100%"><img src="legible.png" style="max-width: 100%">'
        '<img src="unlabelled.png">'
        '<div class="cell_input">x = 1</div>'
        '<details><summary>Show code</summary><div class="cell_input">y = 2</div></details>'
        '<div style="width: 900px">a figure drawn too wide</div>'
        '<div style="overflow-x: auto"><table style="width: 900px"><tr><td>a wide table in its own box</td></tr></table>'
        '</div></article></main></body></html>')
    (tmp_path / "book" / "intro.html").write_text(  # the root page, its figure below the first screen
        '<html><body><main><div style="height: 1200px">the headline</div><svg width="10" height="10"></svg>'
        '</main></body></html>')
    httpd, base = crawl_site.serve_under(tmp_path)
    try:
        problems = read_in_chromium(base, ["book/chapters/planted", "book/intro"], tmp_path / "shots")
    finally:
        httpd.shutdown()
    assert "book/intro: no figure on the first screen" in problems
    assert "book/chapters/planted: div is wider than the column" in problems
    assert "book/chapters/planted: 1 code cells shown unfolded" in problems
    assert "book/chapters/planted: the findings box is not on the first screen" in problems
    assert not [p for p in problems if "table" in p]
    assert [p for p in problems if "figure 1's smallest text reads at" in p and "below the body's 16 px" in p]
    assert not [p for p in problems if "figure 2" in p]
    assert ("book/chapters/planted: figure 3 does not say its text size (show it with rankscale.book.plots.show)"
            in problems)


def exercise_check(output) -> dict | None:
    """What a check of an exercise's answer (``rankscale.teaching.check``) displayed carries, or None."""
    return output.get("metadata", {}).get("text/markdown", {}).get(teaching.CHECK_KEY)


@pytest.mark.slow  # the smoke book in a lone clone
def test_every_solution_is_accepted_and_a_wrong_value_refused_on_the_smoke_set(smoke, smoke_home):
    """Each chapter's solutions executed in the smoke book and the checker accepted their values; computed again
    from the smoke set's runs, the right value is the same, and a value three tolerances off either way is refused
    with the exercise's hint."""
    chapter = load_chapter(get("smoke"), references=True, checkpoints=True, seeds=True, temperatures=True,
                           home=smoke_home)
    for name in build.CHAPTERS:
        nb = smoke.executed(name)
        checks = {check["id"]: check for cell in nb.cells for out in cell.get("outputs", [])
                  if (check := exercise_check(out))}
        for exercise in teaching.exercises_of(name):
            if exercise.answer is None:
                continue
            assert checks[exercise.id]["correct"] is True, (exercise.id, checks.get(exercise.id))
            expected = checks[exercise.id]["expected"]
            assert teaching.check(exercise.id, checks[exercise.id]["value"], chapter).correct
            assert expected == pytest.approx(float(exercise.answer(chapter)), rel=1e-9, abs=1e-12)
            for wrong in (expected + 3 * exercise.tolerance, expected - 3 * exercise.tolerance):
                checked = teaching.check(exercise.id, wrong, chapter)
                assert checked.correct is False and exercise.hint in checked.reason, (exercise.id, wrong)


DOWNLOADED = "a1_metric"  # the chapter a reader downloads and runs, away from any checkout


@pytest.mark.slow  # builds the wheel, a virtual environment, trains the smoke ladder afresh and runs a chapter
def test_a_downloaded_chapter_runs_from_the_wheel_outside_the_checkout(smoke, tmp_path):
    """The notebook a chapter page offers (its ``_sources`` copy) runs in a fresh virtual environment where
    rankscale comes only from the wheel, installed as ``rankscale[book]``, in an empty folder with an empty home:
    it trains and extracts what it needs and executes without error."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(smoke.clone)], check=True)
    wheel, = (tmp_path / "dist").glob("rankscale-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    new_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              capture_output=True, text=True, check=True).stdout.strip()
    # the dependencies are this environment's (no network here), linked one by one into a folder that a path entry
    # names, rankscale's own entries (the checkout's editable install) left out; pip sees them installed
    dependencies = tmp_path / "dependencies"
    dependencies.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        if not entry.name.lower().lstrip("_").startswith(("rankscale", "editable")):
            (dependencies / entry.name).symlink_to(entry)
    Path(new_site, "dependencies.pth").write_text(f"{dependencies}\n")
    # venv's own setuptools would shadow this environment's (torch asks for a newer one)
    subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "--quiet", "uninstall", "--yes",
                    "setuptools"], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("RANKSCALE_REFERENCE", "PYTHONPATH")}
    assert subprocess.run([str(python), "-c", "import rankscale"], env=env, capture_output=True).returncode != 0
    subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "--quiet", "install", "--no-index",
                    f"rankscale[book] @ {wheel.as_uri()}"], env=env, check=True)
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    notebook = smoke.html / "_sources" / "book" / "chapters" / f"{DOWNLOADED}.ipynb"
    shutil.copy(notebook, work / notebook.name)
    env.update(RANKSCALE_HOME=str(home))
    where = subprocess.run([str(python), "-c", "import rankscale; print(rankscale.__file__)"], cwd=work, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(venv), where
    ran = subprocess.run([str(python), "-m", "papermill", notebook.name, "ran.ipynb", "--kernel", "python3",
                          "--no-progress-bar"], cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    assert ran.returncode == 0, ran.stderr[-4000:]
    nb = nbformat.read(work / "ran.ipynb", as_version=4)
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"]
    assert any(out.get("metadata", {}).get(pages.VERDICT_KEY) for out in outputs)
    assert nb.metadata["rankscale"]["profile"] == "smoke"  # the set it was built on, recorded in the download
    assert (home / "models" / "smoke").is_dir()  # trained what it needed, in the empty home
    # every chapter's exercise notebook, as the site offers it, runs there too on its default set (smoke)
    for name in build.CHAPTERS:
        exercises = smoke.clone / "_build" / "stage" / "book" / "chapters" / "downloads" / name / f"{name}.exercises.ipynb"
        shutil.copy(exercises, work / exercises.name)
        ran = subprocess.run([str(python), "-m", "papermill", exercises.name, f"ran-{name}.ipynb", "--kernel", "python3",
                              "--no-progress-bar"], cwd=work, env=env, capture_output=True, text=True, timeout=1200)
        assert ran.returncode == 0, f"{exercises.name}: {ran.stderr[-4000:]}"
        nb = nbformat.read(work / f"ran-{name}.ipynb", as_version=4)
        checks = [exercise_check(out) for cell in nb.cells for out in cell.get("outputs", []) if exercise_check(out)]
        assert [check["id"] for check in checks] == [e.id for e in teaching.exercises_of(name) if e.answer is not None]
        assert all(check["correct"] is None for check in checks)  # no answer yet: the student writes it



@pytest.mark.slow  # the smoke book in a lone clone
def test_the_smoke_site_publishes_whole_once_and_never_stale(smoke, smoke_home, tmp_path):
    remote = tmp_path / "pages.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "pages", str(remote)], cwd=smoke.clone, check=True)
    published = run_in_clone(smoke.clone, smoke_home, "publish", "--remote", "pages")
    assert published.returncode == 0, published.stderr[-3000:]
    assert published.stdout.startswith("published: commit ") and "on branch gh-pages of remote 'pages'" in published.stdout
    files = set(subprocess.run(["git", "ls-tree", "-r", "--name-only", "gh-pages"], cwd=remote, capture_output=True,
                               text=True, check=True).stdout.split())
    assert ".nojekyll" in files and "search.html" in files
    assert {f"{page}.html" for page in toc_pages()} <= files
    for name in (*build.BEFORE_CHAPTERS, *build.CHAPTERS, build.SCORECARD):
        assert f"_sources/book/chapters/{name}.ipynb" in files
        assert any(f.startswith("_downloads/") and f.endswith(f"/{name}.py") for f in files), name
    for name in build.CHAPTERS:
        assert any(f.endswith(f"/{name}.verdicts.json") for f in files), name
    assert len([f for f in files if f.startswith("_downloads/") and f.endswith(".csv")]) >= len(build.CHAPTERS)
    commits = subprocess.run(["git", "rev-list", "gh-pages"], cwd=remote, capture_output=True, text=True).stdout.split()
    again = run_in_clone(smoke.clone, smoke_home, "publish", "--remote", "pages")
    assert again.returncode == 0 and again.stdout.startswith("already published, unchanged"), again.stdout
    page = smoke.clone / "book" / "notation.md"
    text = page.read_text()
    try:
        page.write_text(text + "\nA sentence added after the build.\n")
        stale = run_in_clone(smoke.clone, smoke_home, "publish", "--remote", "pages")
    finally:
        page.write_text(text)
    assert stale.returncode == 1 and "is stale" in stale.stderr, stale.stderr
    after = subprocess.run(["git", "rev-list", "gh-pages"], cwd=remote, capture_output=True, text=True).stdout.split()
    assert after == commits and len(commits) == 1
