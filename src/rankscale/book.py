"""The book: execute every chapter notebook under one profile, then build the Jupyter Book.

    jupytext .py ─► papermill (profile injected) ─► executed .ipynb ─► jupyter-book build (no execution)

Executed notebooks live in ``<out>/_build/executed/<profile>/`` and carry a stamp: a hash of the
notebook source, the package's code, the profile and the ladder models' metadata. A chapter is
re-executed only when its stamp changed, so a second ``make book`` does no computing. The site is
built from a staging copy of the book sources plus the executed notebooks of exactly one
profile, so a page can never mix two profiles' results. A chapter that fails stops the build
before the site is touched.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from rankscale import RankscaleError
from rankscale.models import OFFLINE_PROFILES, require_profile

ROOT = Path(__file__).resolve().parents[2]  # the repository (src layout, installed editable)
NOTEBOOKS = ROOT / "notebooks"
PAGES = ROOT / "book"
CHAPTERS = (
    "a1_metric", "a2_scaling_regimes", "a3_k_dependence", "a4_emergence", "a5_lognormal",
    "b1_decomposition", "b2_training_dynamics", "b3_component_scaling", "b4_shares", "b5_sample_size",
)
SCORECARD = "scorecard"
HIDDEN_TAGS = {"parameters", "injected-parameters"}  # papermill's cells, kept out of the pages


def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def code_fingerprint(profile: str) -> str:
    """Hash of what every chapter's results depend on besides its own source: the package code,
    the papers' reference tables and, for offline profiles, the trained ladder's metadata (which
    changes with every retraining)."""
    from rankscale.ladder import get_profile, profile_dir
    from rankscale.report import reference_dir

    files = sorted((ROOT / "src" / "rankscale").glob("*.py")) + sorted(reference_dir().glob("*.csv"))
    if profile in OFFLINE_PROFILES:
        files += sorted(profile_dir(get_profile(profile)).glob("*/ladder.json"))
    return _sha256(*(f.read_bytes() for f in files))


def chapter_stamp(name: str, profile: str, fingerprint: str, extra: str = "") -> str:
    """Hash of everything an executed chapter depends on; a changed stamp means re-execute."""
    return _sha256(name.encode(), profile.encode(), (NOTEBOOKS / f"{name}.py").read_bytes(),
                   fingerprint.encode(), extra.encode())


def _stamp_of(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())["metadata"].get("rankscale", {}).get("stamp")
    except (json.JSONDecodeError, KeyError):
        return None


def execute_chapter(name: str, profile: str, out: Path, stamp: str, parameters: dict | None = None) -> Path:
    """Run ``notebooks/<name>.py`` with papermill into ``out/<name>.ipynb``.

    The parameter cells get Jupyter Book's ``remove-cell`` tag and the notebook records its stamp
    and profile. On failure the partly executed notebook is kept as ``<name>.failed.ipynb`` and
    no ``<name>.ipynb`` of this stamp exists.
    """
    import jupytext
    import nbformat
    import papermill

    nb = jupytext.read(NOTEBOOKS / f"{name}.py")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    target, failed = out / f"{name}.ipynb", out / f"{name}.failed.ipynb"
    tmp = out / f"{name}.running.ipynb"
    target.unlink(missing_ok=True)  # never leave an executed notebook of an older stamp behind
    try:
        papermill.execute_notebook(nb, str(tmp), parameters={"profile": profile, **(parameters or {})},
                                   kernel_name="python3", cwd=str(NOTEBOOKS), progress_bar=False)
    except Exception as err:  # papermill raises its own error types, and kernel errors as others
        tmp.replace(failed) if tmp.exists() else None
        cause = f"{err.ename}: {err.evalue}" if hasattr(err, "evalue") else str(err).strip()[-2000:]
        raise RankscaleError(f"chapter {name} failed under profile {profile!r}: {cause}\n"
                             f"the partly executed notebook, with the traceback, is {failed}") from err
    executed = nbformat.read(tmp, as_version=4)
    for cell in executed.cells:
        tags = cell.metadata.get("tags", [])
        if HIDDEN_TAGS & set(tags) and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
    executed.metadata["rankscale"] = {"stamp": stamp, "profile": profile}
    nbformat.write(executed, tmp)
    tmp.replace(target)
    failed.unlink(missing_ok=True)
    return target


def execute_all(profile: str, out: Path, log=print) -> list[Path]:
    """Execute every chapter (where stale) and then the scorecard; returns the executed notebooks."""
    executed_dir = out / "_build" / "executed" / profile
    executed_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = code_fingerprint(profile)
    paths, stamps = [], []
    for name in (*CHAPTERS, SCORECARD):
        if name == SCORECARD:  # its inputs are the chapters just executed
            stamp = chapter_stamp(name, profile, fingerprint, "".join(stamps))
            parameters = {"executed_dir": str(executed_dir)}
        else:
            stamp = chapter_stamp(name, profile, fingerprint)
            parameters = {}
        path = executed_dir / f"{name}.ipynb"
        if _stamp_of(path) == stamp:
            log(f"  {name}: up to date")
        else:
            start = time.perf_counter()
            execute_chapter(name, profile, executed_dir, stamp, parameters)
            log(f"  {name}: executed in {time.perf_counter() - start:.0f} s")
        paths.append(path)
        stamps.append(stamp)
    return paths


def stage(profile: str, out: Path, executed: list[Path]) -> tuple[Path, bool]:
    """Copy the book sources and this profile's executed notebooks into ``out/_build/stage``,
    removing files no longer part of the book. Returns the folder and whether anything in it
    changed (unchanged files are left alone)."""
    root = out / "_build" / "stage"
    wanted: dict[Path, Path] = {root / "_config.yml": ROOT / "_config.yml", root / "_toc.yml": ROOT / "_toc.yml"}
    for src in PAGES.rglob("*"):
        if src.is_file() and "chapters" not in src.relative_to(PAGES).parts:
            wanted[root / "book" / src.relative_to(PAGES)] = src
    for path in executed:
        wanted[root / "book" / "chapters" / path.name] = path
    changed = False
    for dst, src in wanted.items():
        if dst.exists() and dst.read_bytes() == src.read_bytes():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        changed = True
    for stale in [p for p in root.rglob("*") if p.is_file() and p not in wanted]:
        stale.unlink()
        changed = True
    return root, changed


def build_book(profile: str = "tiny", out: str | Path | None = None, log=print) -> Path:
    """Train/extract what is missing, execute stale chapters, and build the HTML book.

    Returns ``<out>/_build/html`` (``out`` defaults to the repository root).
    """
    out = Path(out) if out is not None else ROOT
    require_profile(profile)  # a hub profile fails here at once, before any work
    from rankscale.report import prepare

    log(f"ladder ({profile}): training and extracting what is missing")
    prepare(profile)
    log(f"chapters ({profile}):")
    executed = execute_all(profile, out, log)
    source, changed = stage(profile, out, executed)
    html = out / "_build" / "html"
    built_for = html / "profile.txt"  # written last: present only after a whole build of this profile
    if not changed and built_for.exists() and built_for.read_text().strip() == profile:
        log("site up to date")
        return html
    built_for.unlink(missing_ok=True)
    # --all: a page whose own source is unchanged still shows every chapter title in its
    # navigation, so Sphinx's incremental build would leave stale titles behind
    log("jupyter-book build")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    result = subprocess.run([str(jupyter_book), "build", str(source), "--path-output", str(out), "--all",
                             "-W", "--keep-going", "-q"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RankscaleError(f"jupyter-book build failed:\n{(result.stdout + result.stderr)[-4000:]}")
    built_for.write_text(profile + "\n")
    return html
