"""The book from an installed package as from a checkout: the wheel carries the book's sources
(``rankscale.paths.book_sources``), and ``rankscale book`` says at once, before any work, what an
installation lacks for it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import nbformat
import pytest

from rankscale import RankscaleError, paths
from rankscale.book import build
from rankscale.book.pages import VERDICT_KEY
from rankscale.cli import main
from rankscale.records import jobs
from rankscale.sets import get


def test_a_checkout_reads_the_book_from_its_top_level():
    assert paths.checkout() == paths.ROOT and paths.book_sources() == paths.ROOT == build.SOURCES
    assert build.NOTEBOOKS == paths.ROOT / "notebooks" and build.PAGES == paths.ROOT / "book"
    assert not paths.PACKAGED_BOOK.exists()  # a copy inside the package would hide the checkout's sources


def test_a_copy_in_the_package_marks_an_installed_package(tmp_path, monkeypatch):
    """An installed package reads its own copy, and is no checkout whatever lies two folders above it."""
    copy = tmp_path / "book_sources"
    copy.mkdir()
    monkeypatch.setattr(paths, "PACKAGED_BOOK", copy)
    monkeypatch.delenv("RANKSCALE_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    assert paths.checkout() is None and paths.book_sources() == copy and paths.home() == tmp_path


def test_the_tools_checked_are_the_book_extra():
    extra = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["book"]
    names = {re.match(r"[A-Za-z0-9._-]+", need).group() for need in extra}
    assert set(build.BOOK_TOOLS.values()) == names - {"rankscale"}  # rankscale[offline,gguf]: the corpora and GGUF


def test_book_without_its_tools_fails_in_its_first_second(tmp_path):
    """Python without site-packages, as before `pip install 'rankscale[book]'`: one line naming the
    extra, before anything is imported, trained or extracted, and nothing written."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-S", "-m", "rankscale", "book", "--profile", "smoke", "--out", str(tmp_path)],
                          env={"PYTHONPATH": str(paths.ROOT / "src"), "RANKSCALE_HOME": str(tmp_path / "home")},
                          capture_output=True, text=True, timeout=60)
    assert time.perf_counter() - start < 5  # a bare interpreter: well under a second where nothing else runs
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: the book needs jupyter-book, jupytext, papermill, ipykernel, matplotlib, "
                                  "pandas, sphinx-mathjax-offline, ghp-import, sphinx-exercise, missing from the environment of "
                                  "this Python")
    assert done.stderr.endswith("; pip install 'rankscale[book]' there\n") and list(tmp_path.iterdir()) == []


def test_book_without_the_jupyter_book_command_fails_before_any_work(tmp_path, monkeypatch, capsys):
    """The site is built by the jupyter-book command beside this Python; without it (rankscale
    installed with --target, say) the build stops before training or extracting."""
    monkeypatch.setattr(build, "JUPYTER_BOOK", tmp_path / "bin" / "jupyter-book")
    monkeypatch.setattr(jobs, "prepare", lambda *a, **k: pytest.fail("prepare ran before the check"))
    assert main(["book", "--profile", "smoke", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (f"error: the book needs the jupyter-book command (looked for {tmp_path}/bin/"
                                       f"jupyter-book), missing from the environment of this Python ({sys.executable}); "
                                       "pip install 'rankscale[book]' there\n")


def test_missing_sources_are_named(tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ladder.py").write_text("")
    monkeypatch.setattr(build, "SOURCES", tmp_path)
    with pytest.raises(RankscaleError, match=re.escape(f"the book's sources are not where this rankscale looks for "
                                                       f"them ({tmp_path}): notebooks/a1_metric.py, notebooks/a2_")
                       + r".* and more missing; run it from a checkout .*\(pip install \.\), whose wheel carries them$"):
        build.require_book()


INSTALLED = """
import json, sys
from pathlib import Path
import rankscale
from rankscale import paths
from rankscale.book import build
from rankscale.records import jobs, runs
from rankscale.sets import get

out, smoke = Path(sys.argv[1]), get("smoke")
out.mkdir()
build.require_book()
jobs.prepare(smoke, log=lambda *_: None, progress=False)  # the smoke ladder and its results, where missing
fingerprint = build.code_fingerprint(smoke)
stamp = build.chapter_stamp("a1_metric", "smoke", fingerprint)
executed = build.execute_chapter("a1_metric", "smoke", out, stamp, models=runs.models_used(smoke))
staged, _ = build.stage(out, [executed])
print(json.dumps({"package": rankscale.__file__, "sources": str(paths.book_sources()), "checkout": paths.checkout(),
                  "fingerprint": fingerprint, "stamp": stamp, "executed": str(executed),
                  "staged": sorted(p.relative_to(staged).as_posix() for p in staged.rglob("*") if p.is_file())}))
"""


@pytest.mark.slow  # builds the wheel (pip fetches hatchling), installs it, executes a chapter from it
def test_a_chapter_executes_from_the_installed_wheel(tmp_path, smoke_home):
    """`pip install .` then the book: the wheel carries the chapters, the pages and Jupyter Book's
    configuration, the installed copy finds them outside any checkout, executes a chapter from
    them, and computes the same stamps as the checkout (its book sources are not package code)."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(paths.ROOT)], check=True)
    wheel, = (tmp_path / "dist").glob("rankscale-*.whl")
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True)
    work = tmp_path / "work"  # outside the checkout: nothing two folders above the package is a repository
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "RANKSCALE_REFERENCE"}
    env.update(PYTHONPATH=str(site), RANKSCALE_HOME=str(smoke_home))
    done = subprocess.run([sys.executable, "-c", INSTALLED, str(work / "out")], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.splitlines()[-1])

    assert found["package"] == str(site / "rankscale" / "__init__.py") and found["checkout"] is None
    assert found["sources"] == str(site / "rankscale" / "book_sources")
    assert Path(found["executed"]) == work / "out" / "a1_metric.ipynb"
    nb = nbformat.read(found["executed"], as_version=4)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any(o.get("metadata", {}).get(VERDICT_KEY) for o in outputs), "the chapter passed no verdicts"
    # the same stamps as the checkout's, and the same staged site (configuration, pages, the chapter)
    smoke = get("smoke")
    assert found["fingerprint"] == build.code_fingerprint(smoke, smoke_home)
    assert found["stamp"] == build.chapter_stamp("a1_metric", "smoke", found["fingerprint"])
    staged, _ = build.stage(tmp_path / "here", [Path(found["executed"])])
    assert found["staged"] == sorted(p.relative_to(staged).as_posix() for p in staged.rglob("*") if p.is_file())
    assert {"_config.yml", "_toc.yml", "book/notation.md", "book/chapters/a1_metric.ipynb"} <= set(found["staged"])
