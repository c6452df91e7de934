"""The book: compute a model set's results, execute every chapter notebook on them, and build the
Jupyter Book, with one progress display per stage (train, extract, chapters, site).

    jupytext .py ─► papermill (profile injected) ─► executed .ipynb ─► jupyter-book build (no execution)

Executed notebooks live in ``<out>/_build/executed/<set name>/`` and carry a stamp: a hash of
the notebook source, every source file of the package, the papers' reference tables, the model set's definition
and the manifests of every result it reads. A chapter is re-executed only when its stamp
changed, so a second ``make book`` does no computing, and results copied in from a cluster are
picked up. The site is built from a staging copy of the book sources plus the executed notebooks
of exactly one set, so a page can never mix two sets' results. A figure a set cannot draw takes
its caption and the prose about it off the page (``leave_out_undrawn_figures``). The site is
built in a folder of its own and appears at ``<out>/_build/html`` only when whole; a build that
fails at any stage leaves no site there.

The sources (``notebooks/``, ``book/``, ``_config.yml``, ``_toc.yml``) are read from
``rankscale.paths.book_sources()``: the checkout, or the copy an installed package carries, so
the book builds from ``pip install rankscale`` as from a clone. ``require_book`` says at once,
before any work, what this installation lacks for it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rankscale import RankscaleError, paths
from rankscale.processes import interruptible, run_in_processes
from rankscale.sets import require_available
from rankscale.sets.schema import ModelSet

_log = logging.getLogger(__name__)

SOURCES = paths.book_sources()  # notebooks/, book/, _config.yml and _toc.yml
ROOT = paths.checkout() or Path.cwd()  # where the book is built by default: the repository, else the working directory
PACKAGE = Path(__file__).resolve().parents[1]  # every source file here is in the chapters' fingerprint
NOTEBOOKS = SOURCES / "notebooks"
PAGES = SOURCES / "book"
CHAPTERS = (
    "a1_metric", "a2_scaling_regimes", "a3_k_dependence", "a4_emergence", "a5_lognormal",
    "b1_decomposition", "b2_training_dynamics", "b3_component_scaling", "b4_shares", "b5_sample_size",
)
SCORECARD = "scorecard"
# pages executed like the chapters but before them, with no verdicts of their own: what the model set
# is and which verdicts its regime can limit
BEFORE_CHAPTERS = ("ladder",)
INTRO = "intro"  # the book's root page: it opens with this build's headline, read from the executed chapters
READERS = (SCORECARD, INTRO)  # the pages that read the executed chapters: they run after every chapter
HIDDEN_TAGS = {"parameters", "injected-parameters"}  # papermill's cells, kept out of the pages
# What executing the chapters and building the site import, by module (the Sphinx extension as
# _config.yml names it), and the distribution that installs each: the `book` extra of
# pyproject.toml (a test holds the two lists together).
BOOK_TOOLS = {"jupyter_book": "jupyter-book", "jupytext": "jupytext", "papermill": "papermill", "ipykernel": "ipykernel",
              "matplotlib": "matplotlib", "pandas": "pandas", "sphinx-mathjax-offline": "sphinx-mathjax-offline",
              "ghp_import": "ghp-import", "sphinx_exercise": "sphinx-exercise"}
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"  # the command that builds the site, of this environment
# Kernels talk to papermill over Unix sockets: no TCP port, no loopback needed, and no warning
# about unencrypted TCP from every kernel that starts. Each kernel's sockets go to a folder of its
# own (``kernel_config``): jupyter_client numbers them by the first free name in one folder, so two
# kernels starting at once there took the same sockets and read each other's messages ("Invalid
# Signature").
KERNEL_CONFIG = {"KernelManager": {"transport": "ipc"}}
SITE_RECORD = "site.json"  # in a built site: the model set it shows and its site_stamp


def kernel_config(sockets: Path):
    """``KERNEL_CONFIG`` with the kernel's Unix sockets in the folder ``sockets``, as traitlets' Config."""
    from traitlets.config import Config

    return Config({"KernelManager": {**KERNEL_CONFIG["KernelManager"], "ip": str(sockets / "kernel")}})


def require_book() -> None:
    """Fail at once, naming what is missing and what to do, if this installation cannot build the
    book: its sources (``rankscale.paths.book_sources``) or the tools of the ``book`` extra
    (``BOOK_TOOLS``, and the ``jupyter-book`` command beside this Python); pass silently otherwise.

    Only the standard library is used, so that the check comes before anything is trained or
    extracted, within a second.

    Raises
    ------
    RankscaleError
        Naming the missing sources and how to get them, or the missing tools and
        ``pip install 'rankscale[book]'``.

    Examples
    --------
    >>> require_book()  # the environment of the tests has the book's tools
    """
    wanted = [*(f"notebooks/{name}.py" for name in (*BEFORE_CHAPTERS, *CHAPTERS, SCORECARD, INTRO)),
              "book", "_config.yml", "_toc.yml"]
    missing = [name for name in wanted if not (SOURCES / name).exists()]
    if missing:
        raise RankscaleError(f"the book's sources are not where this rankscale looks for them ({SOURCES}): "
                             f"{', '.join(missing[:4])}{' and more' if len(missing) > 4 else ''} missing; run it "
                             "from a checkout of the repository, or reinstall it from one (pip install .), "
                             "whose wheel carries them")
    absent = [dist for module, dist in BOOK_TOOLS.items() if importlib.util.find_spec(module) is None]
    if not absent and not JUPYTER_BOOK.is_file():
        absent = [f"the jupyter-book command (looked for {JUPYTER_BOOK})"]
    if absent:
        raise RankscaleError(f"the book needs {', '.join(absent)}, missing from the environment of this Python "
                             f"({sys.executable}); pip install 'rankscale[book]' there")


def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def code_fingerprint(model_set: ModelSet, home: Path | None = None) -> str:
    """Hash of what every chapter's results depend on besides its own source: every source file
    of the package (``PACKAGE``, its subpackages included: a claim's threshold moves verdicts as
    surely as a metric's formula moves numbers), the papers' reference tables, the model set's
    definition and, once they exist, the manifests of the results it reads (they change with every
    retraining or re-extraction).

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    home : pathlib.Path, optional
        Where the results live; default ``rankscale.paths.home()``.

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    from rankscale.claims.reference import REFERENCE_SUFFIXES, reference_dir
    from rankscale.records.jobs import jobs

    # an installed package's copy of the book's sources is left out: each chapter's stamp hashes its own notebook
    sources = sorted((f for f in PACKAGE.rglob("*.py") if not f.is_relative_to(PACKAGE / paths.PACKAGED_BOOK.name)),
                     key=lambda f: f.relative_to(PACKAGE).as_posix())
    parts = [part for f in sources for part in (f.relative_to(PACKAGE).as_posix().encode(), f.read_bytes())]
    parts += [f.read_bytes() for f in sorted(reference_dir().iterdir()) if f.suffix in REFERENCE_SUFFIXES]
    parts += [repr(model_set).encode()]
    try:
        parts += [(job.out / "manifest.json").read_bytes() for job in jobs(model_set, home)
                  if (job.out / "manifest.json").exists()]
    except RankscaleError:  # a ladder not trained yet: nothing computed to hash
        pass
    return _sha256(*parts)


def chapter_stamp(name: str, profile: str, fingerprint: str, extra: str = "") -> str:
    """Hash of everything an executed chapter depends on; a changed stamp means re-execute.

    Parameters
    ----------
    name : str
        A chapter of ``CHAPTERS``, ``SCORECARD`` or ``INTRO`` (``notebooks/<name>.py``).
    profile, fingerprint : str
        The model set, and ``code_fingerprint(profile)``.
    extra : str
        Anything else the chapter depends on (the scorecard and the introduction: every chapter's stamp).

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> stamp = chapter_stamp("a1_metric", "tiny", "0" * 64)
    >>> len(stamp), stamp == chapter_stamp("a1_metric", "smoke", "0" * 64)
    (64, False)
    """
    return _sha256(name.encode(), profile.encode(), (NOTEBOOKS / f"{name}.py").read_bytes(),
                   fingerprint.encode(), extra.encode())


def page_stamps(model_set: ModelSet) -> dict[str, str]:
    """The stamp every executed page of a model set must carry to be current (``chapter_stamp``):
    ``BEFORE_CHAPTERS`` and ``CHAPTERS`` on their own sources, then the pages that read the
    chapters (``READERS``) on every chapter's stamp too, in that order."""
    profile, fingerprint = model_set.profile, code_fingerprint(model_set)
    stamps = {name: chapter_stamp(name, profile, fingerprint) for name in (*BEFORE_CHAPTERS, *CHAPTERS)}
    chapters = "".join(stamps[name] for name in CHAPTERS)
    return stamps | {name: chapter_stamp(name, profile, fingerprint, chapters) for name in READERS}


def site_stamp(stamps) -> str:
    """Hash of what a whole site is built from: its pages' stamps (``page_stamps``, in order) and the
    book's other sources (the pages of ``book/``, ``_config.yml``, ``_toc.yml``). A built site
    records it (``SITE_RECORD``); ``rankscale publish`` refuses a site whose stamp is no longer the
    sources' and results' own.

    Examples
    --------
    >>> len(site_stamp(["a" * 64])), site_stamp(["a" * 64]) == site_stamp(["b" * 64])
    (64, False)
    """
    pages = sorted(f for f in PAGES.rglob("*") if f.is_file() and "chapters" not in f.relative_to(PAGES).parts)
    return _sha256(*(stamp.encode() for stamp in stamps),
                   *(part for f in pages for part in (f.relative_to(PAGES).as_posix().encode(), f.read_bytes())),
                   (SOURCES / "_config.yml").read_bytes(), (SOURCES / "_toc.yml").read_bytes())


def _stamp_of(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())["metadata"].get("rankscale", {}).get("stamp")
    except (json.JSONDecodeError, KeyError):
        return None


def page_tags(cell) -> list[str]:
    """A code cell's tags with how its page shows it: the code folded under its outputs
    (``hide-input``), or the whole cell left off the page (``remove-cell``) where it shows nothing
    (set-up, papermill's parameters). The downloadable notebook keeps every cell.

    Parameters
    ----------
    cell : nbformat.NotebookNode
        An executed code cell.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import nbformat
    >>> figure = nbformat.v4.new_code_cell("plt.show()", outputs=[nbformat.v4.new_output("display_data")])
    >>> page_tags(figure), page_tags(nbformat.v4.new_code_cell("import numpy as np"))
    (['hide-input'], ['remove-cell'])
    >>> page_tags(nbformat.v4.new_code_cell("profile = 'x'", metadata={"tags": ["parameters"]}, outputs=[]))
    ['parameters', 'remove-cell']
    """
    tags = [t for t in cell.metadata.get("tags", []) if t not in ("hide-input", "remove-cell")]
    shown = [out for out in cell.get("outputs", []) if out.get("name") != "stderr"]  # the pages drop stderr
    shows = shown and not HIDDEN_TAGS & set(tags)
    return [*tags, "hide-input" if shows else "remove-cell"]


def figure_label(cell) -> str | None:
    """The label of the figure a code cell draws (its MyST-NB ``figure.name``), or None."""
    return cell.metadata.get("mystnb", {}).get("figure", {}).get("name")


def _draws(cell) -> bool:
    return any(key.startswith("image/") for out in cell.get("outputs", []) for key in out.get("data", {}))


_REFERENCE = re.compile(r"\{(?:num)?ref\}`(?:[^`<]*<)?([^`<>]+)>?`")  # {numref}`label`, {ref}`text <label>`


def leave_out_undrawn_figures(nb, name: str) -> list[str]:
    """Take off the page what a figure this set did not draw would leave dangling.

    A figure cell (one with a MyST-NB figure label) that displays no image was not drawn: a set
    without training checkpoints has no training curves to plot. Its label and caption go, so
    that what the cell shows instead (why there is no figure) reads as text, not as a captioned
    figure, and every markdown cell that refers to the figure is left off the page
    (``remove-cell``): prose about a figure lives in cells of its own, which go with it. The
    downloadable notebook keeps every cell.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook, changed in place.
    name : str
        The page, for the errors.

    Returns
    -------
    list of str
        The labels of the figures not drawn, in page order.

    Raises
    ------
    RankscaleError
        Where a figure cell that drew nothing shows nothing in its place either (a page must say
        what it could not show and why), or where a code cell's output refers to a figure not
        drawn (output can only be changed by the code that displays it).

    Examples
    --------
    >>> import nbformat
    >>> figure = nbformat.v4.new_code_cell("if drawn: ...", metadata={"mystnb": {"figure": {"name": "fig-x"}}},
    ...     outputs=[nbformat.v4.new_output("display_data", data={"text/markdown": "No checkpoints, so no Fig. 3."})])
    >>> about = nbformat.v4.new_markdown_cell("In {numref}`fig-x` each line is one checkpoint.")
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Training"), about, figure])
    >>> leave_out_undrawn_figures(nb, "b2"), about.metadata["tags"], figure.metadata
    (['fig-x'], ['remove-cell'], {})
    """
    undrawn = []
    for cell in nb.cells:
        label = figure_label(cell) if cell.cell_type == "code" else None
        if label is None or _draws(cell):
            continue
        if not [out for out in cell.get("outputs", []) if out.get("name") != "stderr"]:
            raise RankscaleError(f"{name}: figure {label} was not drawn and its cell shows nothing in its place; "
                                 "display there what this set lacks for it")
        del cell.metadata["mystnb"]["figure"]
        if not cell.metadata["mystnb"]:
            del cell.metadata["mystnb"]
        undrawn.append(label)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if set(_REFERENCE.findall(cell.source)) & set(undrawn):
                cell.metadata["tags"] = [*cell.metadata.get("tags", []), "remove-cell"]
            continue
        for out in cell.get("outputs", []):
            text = "".join(str(v) for k, v in out.get("data", {}).items() if k.startswith("text/"))
            dangling = sorted(set(_REFERENCE.findall(text)) & set(undrawn))
            if dangling:
                raise RankscaleError(f"{name}: an output refers to figure {dangling[0]}, which this set did not "
                                     "draw; display that text only where the figure is drawn")
    return undrawn


_TABLE = re.compile(r"<table\b[^>]*>")
_CAPTION = re.compile(r"<caption\b[^>]*>")


def number_tables(nb, prefix: str) -> int:
    """Number the tables a notebook's outputs show, in page order: ``Table <prefix><n>.``
    opens each one's caption (a caption of the number alone where the table has none).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook, changed in place.
    prefix : str
        The chapter's number and a dot (``"8."``, as its figures are numbered), or ``""`` for a
        page outside the numbered parts.

    Returns
    -------
    int
        How many tables were numbered.

    Examples
    --------
    >>> import nbformat
    >>> html = nbformat.v4.new_output("display_data", data={"text/html": '<table id="T"><caption>Fits</caption>'})
    >>> bare = nbformat.v4.new_output("display_data", data={"text/html": '<table border="1">'})
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("t", outputs=[html, bare])])
    >>> number_tables(nb, "8."), [o.data["text/html"] for o in nb.cells[0].outputs]
    (2, ['<table id="T"><caption>Table 8.1. Fits</caption>', '<table border="1"><caption>Table 8.2</caption>'])
    """
    n = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            html = out.get("data", {}).get("text/html")
            table = _TABLE.search(html) if html else None
            if table is None:
                continue
            n += 1
            label = f"Table {prefix}{n}"
            caption = _CAPTION.search(html)
            out.data["text/html"] = (html[:caption.end()] + f"{label}. " + html[caption.end():] if caption else
                                     html[:table.end()] + f"<caption>{label}</caption>" + html[table.end():])
    return n


def execute_chapter(name: str, profile: str, out: Path, stamp: str, parameters: dict | None = None,
                    models: list[dict] | None = None) -> Path:
    """Run ``notebooks/<name>.py`` with papermill into ``out/<name>.ipynb``.

    Each code cell is tagged for its page (``page_tags``), a figure this set did not draw takes
    the prose about it off the page (``leave_out_undrawn_figures``), and the notebook's metadata
    records its stamp, profile and the models it read (``metadata.rankscale``). On failure the
    partly executed notebook is kept as ``<name>.failed.ipynb`` and no ``<name>.ipynb`` of this
    stamp exists, and RankscaleError is raised with the cause.

    Parameters
    ----------
    name : str
        A page of ``BEFORE_CHAPTERS``, a chapter of ``CHAPTERS``, ``SCORECARD`` or ``INTRO``.
    profile : str
        The model set, injected as the notebook's ``profile`` parameter.
    out : pathlib.Path
        Folder of the executed notebooks (``executed_dir``).
    stamp : str
        ``chapter_stamp`` of this execution.
    parameters : dict, optional
        Further papermill parameters (the scorecard's and the introduction's ``executed_dir``).
    models : list of dict, optional
        ``rankscale.records.runs.models_used(model_set)``, recorded in the metadata.

    Returns
    -------
    pathlib.Path
        ``out/<name>.ipynb``.
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
        with tempfile.TemporaryDirectory(prefix="rankscale-kernel-") as sockets:
            papermill.execute_notebook(nb, str(tmp), parameters={"profile": profile, **(parameters or {})},
                                       kernel_name="python3", cwd=str(NOTEBOOKS), progress_bar=False,
                                       config=kernel_config(Path(sockets)))
    except Exception as err:  # papermill raises its own error types, and kernel errors as others
        tmp.replace(failed) if tmp.exists() else None
        cause = f"{err.ename}: {err.evalue}" if hasattr(err, "evalue") else str(err).strip()[-2000:]
        raise RankscaleError(f"chapter {name} failed under profile {profile!r}: {cause}\n"
                             f"the partly executed notebook, with the traceback, is {failed}") from err
    executed = nbformat.read(tmp, as_version=4)
    for cell in executed.cells:
        if cell.cell_type == "code":
            cell.metadata["tags"] = page_tags(cell)
    try:
        leave_out_undrawn_figures(executed, name)
    except RankscaleError as err:
        tmp.replace(failed)
        raise RankscaleError(f"chapter {name} failed under profile {profile!r}: {err}\n"
                             f"the executed notebook is {failed}") from None
    number_tables(executed, f"{CHAPTERS.index(name) + 1}." if name in CHAPTERS else "")
    executed.metadata["rankscale"] = {"stamp": stamp, "profile": profile, "models": models or []}
    nbformat.write(executed, tmp)
    tmp.replace(target)
    failed.unlink(missing_ok=True)
    return target


def executed_dir(model_set: ModelSet, out: Path) -> Path:
    """Folder of one model set's executed notebooks under the book's output folder ``out``.

    Examples
    --------
    >>> from rankscale.sets import get
    >>> executed_dir(get("tiny"), Path("/tmp/out")).as_posix()
    '/tmp/out/_build/executed/tiny'
    """
    return out / "_build" / "executed" / model_set.name


def execute_in_processes(tasks: dict[str, tuple], jobs: int, bar, run=execute_chapter) -> None:
    """``run(*tasks[name])`` for every page, ``jobs`` at a time in fresh processes
    (``rankscale.processes``), the pages that read the chapters (``READERS``) after all the
    others; the first failure is raised once the pages already running have ended. ``bar`` is a
    tqdm bar, advanced as each page ends."""
    last = [name for name in tasks if name in READERS]
    for wave in filter(None, ([name for name in tasks if name not in last], last)):
        bar.set_postfix_str(", ".join(wave[:jobs]))
        run_in_processes(_execute_page, [(run, name, tasks[name]) for name in wave], jobs, bar, torch_threads=False)


def _execute_page(task: tuple, bar) -> None:
    run, name, args = task
    run(*args)
    bar.update(1)
    bar.set_postfix_str(f"{name} done")


def execute_all(model_set: ModelSet, out: Path, log=_log.info, progress: bool = True, jobs: int = 1) -> list[Path]:
    """Execute every page (``BEFORE_CHAPTERS``, ``CHAPTERS``) whose stamp changed, then the
    scorecard and the introduction, which read the chapters' verdicts, with one progress bar.

    With ``jobs`` above 1 the pages run that many at a time, each in a process of its own (papermill
    is safe across processes; within one, its change of working directory is not): the pages do not
    read each other, except the scorecard and the introduction, which start when every chapter has
    ended. A page that fails stops the build once the pages already running have ended.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set; its results must be on disk (``rankscale.records.jobs.prepare``).
    out : pathlib.Path
        The book's output folder; notebooks go to ``executed_dir(model_set, out)``.
    log : callable
        Takes one line of progress text; default this module's logger, at level INFO.
    progress : bool
        Show the progress bar.
    jobs : int
        How many pages execute at a time; 1: one after another, in this process.

    Returns
    -------
    list of pathlib.Path
        Every executed notebook: ``BEFORE_CHAPTERS``, the chapters in ``CHAPTERS`` order, then the
        scorecard and the introduction.
    """
    from tqdm import tqdm

    from rankscale.records.runs import models_used

    profile = model_set.profile
    where = executed_dir(model_set, out)
    where.mkdir(parents=True, exist_ok=True)
    stamps = page_stamps(model_set)
    stale = [name for name, stamp in stamps.items() if _stamp_of(where / f"{name}.ipynb") != stamp]
    if not stale:
        log(f"chapters: all {len(stamps)} up to date")
    else:
        models = models_used(model_set)
        tasks = {name: (name, profile, where, stamps[name],
                        {"executed_dir": str(where)} if name in READERS else {}, models) for name in stale}
        start = time.perf_counter()
        with tqdm(total=len(stale), desc="chapters", unit="chapter", disable=not progress) as bar:
            if jobs == 1:
                for name in stale:
                    bar.set_postfix_str(name)
                    execute_chapter(*tasks[name])
                    bar.update()
            else:
                execute_in_processes(tasks, jobs, bar)
        log(f"chapters: {len(stale)} of {len(stamps)} executed in {time.perf_counter() - start:.0f} s"
            + (f", {jobs} at a time" if jobs > 1 else ""))
    return [where / f"{name}.ipynb" for name in stamps]


def stage(out: Path, executed: list[Path]) -> tuple[Path, bool]:
    """Write the site's sources into ``out/_build/stage``: the book's pages and configuration, and
    one set's executed notebooks with what each offers to download (``rankscale.book.downloads``:
    its source, each figure's data, its verdicts, the paper's BibTeX; alt text on every figure).
    Files no longer part of the book are removed; unchanged files are left alone.

    Parameters
    ----------
    out : pathlib.Path
        The book's output folder.
    executed : list of pathlib.Path
        Executed notebooks (``execute_all``), staged as ``book/chapters/<name>``, the
        introduction (``INTRO``) as the root page ``book/intro.ipynb``.

    Returns
    -------
    folder : pathlib.Path
    changed : bool
        Whether anything in the folder changed.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out:
    ...     folder, changed = stage(Path(out), [])
    ...     folder.relative_to(out).as_posix(), changed, stage(Path(out), [])[1]
    ('_build/stage', True, False)
    """
    import nbformat
    import yaml

    from rankscale.book import downloads

    root = out / "_build" / "stage"
    config = downloads.site_config(yaml.safe_load((SOURCES / "_config.yml").read_text()))
    wanted: dict[Path, bytes] = {root / "_config.yml": yaml.safe_dump(config, sort_keys=False).encode(),
                                 root / "_toc.yml": (SOURCES / "_toc.yml").read_bytes()}
    for src in PAGES.rglob("*"):
        if src.is_file() and "chapters" not in src.relative_to(PAGES).parts:
            wanted[root / "book" / src.relative_to(PAGES)] = src.read_bytes()
    bib = (PAGES / "references.bib").read_text()
    for path in executed:
        page = f"book/{'' if path.stem == INTRO else 'chapters/'}{path.stem}"
        nb = nbformat.read(path, as_version=4)
        files = downloads.page_downloads(nb, page, (NOTEBOOKS / f"{path.stem}.py").read_text(), bib=bib,
                                         install_url=config["repository"].get("url"), prepares=path.stem not in READERS)
        wanted[root / f"{page}.ipynb"] = nbformat.writes(nb).encode()
        wanted |= {root / page.rsplit("/", 1)[0] / name: data for name, data in files.items()}
    changed = False
    for dst, data in wanted.items():
        if dst.exists() and dst.read_bytes() == data:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
        changed = True
    for stale in [p for p in root.rglob("*") if p.is_file() and p not in wanted]:
        stale.unlink()
        changed = True
    return root, changed


_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # Sphinx colours its warnings


def site_problems(output: str) -> list[str]:
    """The warnings and errors in jupyter-book's output, one line each, without colour codes:
    Sphinx's warnings (``path:line: WARNING: ...``), then the message of an error that stopped it
    (the line after ``Sphinx error:``).

    Examples
    --------
    >>> site_problems("Running Jupyter-Book\\n\\x1b[91m/s/b1.ipynb:7: WARNING: undefined label: 'fig-x'\\x1b[39;49;00m\\n")
    ["/s/b1.ipynb:7: WARNING: undefined label: 'fig-x'"]
    >>> site_problems("\\x1b[91mSphinx error:\\x1b[39;49;00m\\nSphinx is unable to load the master document")
    ['Sphinx is unable to load the master document']
    """
    lines = [_ANSI.sub("", line).strip() for line in output.splitlines()]
    warnings = [line for line in lines if re.search(r"\b(WARNING|ERROR|CRITICAL):", line)]
    return warnings + [after for line, after in zip(lines, lines[1:]) if line == "Sphinx error:" and after]


def publish_site(built: Path, html: Path) -> None:
    """Put a whole site ``built`` where the reader opens it, ``html``, in place of any older one.

    Two renames on one file system: at no moment does ``html`` hold a mix of two builds.
    """
    old = html.with_name(f"{html.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if html.exists():
        html.rename(old)
    built.rename(html)
    shutil.rmtree(old, ignore_errors=True)


def build_site(source: Path, out: Path, profile: str, stamp: str) -> Path:
    """Build the HTML site from the staged sources with jupyter-book (every warning an error) into
    a folder of its own, and put it at ``out/_build/html`` only once it is whole (``publish_site``).

    Parameters
    ----------
    source : pathlib.Path
        The staged book sources (``stage``).
    out : pathlib.Path
        The book's output folder.
    profile : str
        The model set the site shows, written last into its ``profile.txt``.
    stamp : str
        ``site_stamp`` of the pages built, recorded with the profile in the site's ``SITE_RECORD``.

    Returns
    -------
    pathlib.Path
        ``out/_build/html``.

    Raises
    ------
    RankscaleError
        With one line naming the first of jupyter-book's warnings or errors and where its whole
        output is (``out/_build/site.log``); nothing of the failed build is left in ``out/_build``
        but that log.
    """
    html, building, report = out / "_build" / "html", out / "_build" / "site.building", out / "_build" / "site.log"
    shutil.rmtree(building, ignore_errors=True)
    # --all: a page whose own source is unchanged still shows every chapter title in its
    # navigation, so Sphinx's incremental build would leave stale titles behind; a SIGTERM unwinds this process
    # (interruptible), and subprocess.run kills jupyter-book on the way out rather than leave it building
    with interruptible():
        result = subprocess.run([str(JUPYTER_BOOK), "build", str(source), "--path-output", str(building), "--all",
                                 "-W", "--keep-going", "-q"], capture_output=True, text=True)
    built = building / "_build" / "html"
    if result.returncode != 0 or not (built / "index.html").exists():
        output = result.stdout + result.stderr
        report.write_text(output)
        shutil.rmtree(building, ignore_errors=True)
        problems = site_problems(output) or [f"jupyter-book exited with status {result.returncode}"]
        first = problems[0].replace(f"{source}/", "")
        raise RankscaleError(f"the site did not build: jupyter-book reported {len(problems)} problem"
                             f"{'s' * (len(problems) != 1)} and the book allows no warning; the first: {first}; fix "
                             f"it and run the same command again (jupyter-book's whole output: {report})")
    (built / SITE_RECORD).write_text(json.dumps({"profile": profile, "stamp": stamp}) + "\n")
    (built / "profile.txt").write_text(profile + "\n")  # last: only a whole build of this set has it
    publish_site(built, html)
    shutil.rmtree(building, ignore_errors=True)
    report.unlink(missing_ok=True)
    return html


def build_book(model_set: ModelSet, out: str | Path | None = None, log=_log.info, progress: bool = True,
               device: str = "auto", train_device: str = "cpu", jobs: int = 1) -> Path:
    """Train and extract what is missing, execute stale chapters, and build the HTML book.

    The site appears at ``<out>/_build/html`` only when it was built whole (``build_site``). A
    build whose chapters or site fail removes the site a previous build left there: the reader
    opens that folder as the result of the last build, and would take an older book, or one of
    another set, for this one. (The previous set's executed chapters stay cached in
    ``_build/executed``, so building it again takes about as long as the site build.) A build that
    stops before its chapters (a set that cannot be had, an interruption) leaves that site as it is.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    out : str or pathlib.Path, optional
        The book's output folder; default ``ROOT``: the repository, else the working directory.
    log, progress
        Takes one line of progress text at a time (default: this module's logger, at level INFO);
        show progress bars.
    device : str
        Where the missing results are extracted (``rankscale.records.jobs.prepare``; ``auto``:
        CUDA where torch sees a GPU, in bf16 where the set's dtype is ``auto``, else the CPU).
        The chapters only read what ``prepare`` computed.
    train_device : str
        Where the missing ladder models train (``prepare``): ``cpu``, the default and the canonical
        book's, or a GPU (``cuda``, ``cuda:N``).
    jobs : int
        How many models extract at a time on the CPU (``prepare``'s ``workers``) and how many
        chapters execute at a time (``execute_all``).

    Returns
    -------
    pathlib.Path
        ``<out>/_build/html``.

    Examples
    --------
    ``make book PROFILE=tiny`` runs (trains, extracts and executes; minutes)::

        build_book(rankscale.sets.get("tiny"))
    """
    require_book()  # before anything is imported, trained or extracted
    from rankscale.records.jobs import prepare

    out = Path(out) if out is not None else ROOT
    profile = model_set.profile  # a TOML set's absolute path: the kernels run in notebooks/
    require_available(model_set)  # a hub set that cannot be had fails here, before any work
    log(f"model set {model_set.name!r}: {len(model_set.families)} families, "
        f"{len(model_set.references)} reference models, corpora {', '.join(model_set.corpora)}")
    prepare(model_set, log=log, progress=progress, device=device, train_device=train_device, workers=jobs)
    html = out / "_build" / "html"
    # From here on the book is this build's: a chapter or a site that fails leaves no site that
    # another build made to pass for this one's (an interruption, which breaks nothing, leaves it)
    try:
        executed = execute_all(model_set, out, log, progress, jobs)
        source, changed = stage(out, executed)
        built_for = html / "profile.txt"
        if not changed and built_for.exists() and built_for.read_text().strip() == profile:
            log("site: up to date")
            return html
        log("site: building with jupyter-book")
        start = time.perf_counter()
        # a page without a stamp gives a site stamp no sources give: `rankscale publish` refuses it as stale
        build_site(source, out, profile, site_stamp(_stamp_of(path) or "" for path in executed))
    except Exception:
        if html.exists():
            shutil.rmtree(html)
            log(f"site: removed {html}, since the build failed: no book is left there that it did not make")
        raise
    log(f"site: built in {time.perf_counter() - start:.0f} s")
    return html
