"""Corpora a user names by path or by hub id, read through ``datasets``: a local ``.parquet``,
``.json`` (an array of objects, or one object per line) or ``.jsonl`` file, compressed or not, a
plain text file (one document), or ``hf:org/name[:config]:split`` for any hub dataset.

The rows of a ``datasets`` table become documents here (``Rows``), for these corpora and for the
papers' hub corpora alike (``rankscale.corpora.hub_datasets``); every failure to read is one
line naming the file and what was expected (``ACCEPTED``), never a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from rankscale import RankscaleError

FILE_FORMATS = {".parquet": "parquet", ".json": "json", ".jsonl": "json"}  # suffix -> datasets builder
COMPRESSION = (".gz", ".zst", ".bz2", ".xz")
ACCEPTED = ("a corpus name, a .parquet, .json or .jsonl file (optionally compressed: "
            f"{', '.join(COMPRESSION)}), a UTF-8 text file (one document), or hf:org/name[:config]:split "
            "for a hub dataset")


def file_format(path: Path) -> str | None:
    """The ``datasets`` builder that reads ``path``.

    Parameters
    ----------
    path : pathlib.Path

    Returns
    -------
    str or None
        ``"parquet"`` or ``"json"`` (for ``.json`` and ``.jsonl``, either optionally with one of
        ``COMPRESSION``); None for a file of another kind.

    Examples
    --------
    >>> file_format(Path("a.jsonl.gz")), file_format(Path("b.parquet")), file_format(Path("notes.txt"))
    ('json', 'parquet', None)
    """
    suffixes = path.suffixes[:-1] if path.suffixes[-1:] and path.suffixes[-1] in COMPRESSION else path.suffixes
    return FILE_FORMATS.get(suffixes[-1]) if suffixes else None


def document(row: dict, fields: tuple[str, ...], where: str = "a row") -> str:
    """The ``fields`` of a dataset row, joined by newlines; each must hold text.

    Parameters
    ----------
    row : dict
        One row of a ``datasets`` table.
    fields : tuple of str
        The columns to join.
    where : str
        How an error names the row (``"row 17 of notes.jsonl"``).

    Raises
    ------
    RankscaleError
        Naming the missing fields and the row's own; or a field that holds no text (null, a
        list, a number): its text would otherwise be made up (``"None"``, a list's repr).

    Examples
    --------
    >>> document({"question": "Why?", "answer": "Because."}, ("question", "answer"))
    'Why?\\nBecause.'
    >>> document({"text": None}, ("text",), "row 3 of notes.jsonl")
    Traceback (most recent call last):
    rankscale.RankscaleError: row 3 of notes.jsonl holds no text in its 'text' field but null; drop such rows from the data, or name the field that holds the text (--text-field)
    """
    missing = [f for f in fields if f not in row]
    if missing:
        raise RankscaleError(f"the dataset's rows have no {', '.join(map(repr, missing))} column; "
                             f"they have {', '.join(map(repr, row))}")
    for f in fields:
        if not isinstance(row[f], str):
            held = "null" if row[f] is None else f"a {type(row[f]).__name__} ({str(row[f])[:40]!r})"
            raise RankscaleError(f"{where} holds no text in its {f!r} field but {held}; drop such rows from the "
                                 "data, or name the field that holds the text (--text-field)")
    return "\n".join(row[f] for f in fields)


class Rows(Sequence):
    """The rows of a ``datasets`` table as documents (``document``), read on demand.

    The tables (Wikipedia, 6.4M articles) are memory-mapped and far larger than the documents
    sampled from them.
    """

    def __init__(self, table, fields: tuple[str, ...], what: str = "the dataset"):
        self.table, self.fields, self.what = table, fields, what

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i: int) -> str:
        return document(self.table[int(i)], self.fields, f"row {int(i)} of {self.what}")


@contextlib.contextmanager
def quiet_datasets():
    """Keep ``datasets``' "Generating train split" bars and its logged read errors off the
    terminal while a table loads: the error that matters comes back as one RankscaleError."""
    import datasets

    bars_on, level = datasets.is_progress_bar_enabled(), datasets.logging.get_verbosity()
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # its read errors are logged at ERROR
    try:
        yield
    finally:
        datasets.logging.set_verbosity(level)
        if bars_on:
            datasets.enable_progress_bars()


def load_table(what: str, *args, **kwargs):
    """``datasets.load_dataset(*args, **kwargs)``, quietly, with a failure to read as one line.

    Parameters
    ----------
    what : str
        How the error names what was read (a file, a hub dataset).
    *args, **kwargs
        For ``datasets.load_dataset``.

    Returns
    -------
    datasets.Dataset

    Raises
    ------
    RankscaleError
        Naming ``what`` and the cause (a parse error, no such file or dataset).
    """
    import datasets

    no_rows = RankscaleError(f"cannot load {what}: it holds no rows; give a file with one document per row")
    try:
        with quiet_datasets():
            table = datasets.load_dataset(*args, **kwargs)
    except StopIteration:  # the json builder's answer to an empty file
        raise no_rows from None
    except (ConnectionError, FileNotFoundError, ValueError, datasets.exceptions.DatasetsError) as err:
        if "corresponds to no data" in str(err):  # its answer to a file of blank lines
            raise no_rows from None
        cause = err.__cause__ or err  # datasets wraps the parser's own message
        reason = " ".join(str(cause).split())[:300]
        raise RankscaleError(f"cannot load {what}: {type(cause).__name__}: {reason}") from err
    if getattr(table, "num_rows", None) == 0:
        raise no_rows
    return table


def _text_rows(table, text_field: str, what: str) -> Rows:
    if text_field not in table.column_names:
        raise RankscaleError(f"{what} has no {text_field!r} field; its fields are "
                             f"{', '.join(map(repr, table.column_names))}: name the one holding the text with "
                             "--text-field")
    return Rows(table, (text_field,), what)


def file_documents(path: Path, text_field: str = "text") -> Sequence[str]:
    """The documents of a local file.

    Parameters
    ----------
    path : pathlib.Path
        A ``.parquet``, ``.json`` or ``.jsonl`` file, optionally compressed (``file_format``),
        read through ``datasets.load_dataset("parquet" | "json", data_files=...)``, one document
        per row; any other file is one UTF-8 document.
    text_field : str
        The column holding each row's text.

    Returns
    -------
    sequence of str
        The documents, in the file's order; rows are read on demand.

    Raises
    ------
    RankscaleError
        One line, for a file ``datasets`` cannot read, rows without ``text_field`` (naming the
        fields they have), or a file that is neither a data file nor UTF-8 text (naming what is
        accepted, ``ACCEPTED``).

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "notes.json"
    ...     _ = path.write_text(json.dumps([{"body": "first note"}, {"body": "second note"}]))
    ...     list(file_documents(path, "body"))
    ['first note', 'second note']
    """
    builder = file_format(path)
    if path.stat().st_size == 0:
        raise RankscaleError(f"{path} is empty; give a file that holds the corpus's text")
    if builder is not None:
        return _text_rows(load_table(str(path), builder, data_files=[str(path)], split="train"), text_field, str(path))
    if path.suffix in COMPRESSION:
        raise RankscaleError(f"{path}: a compressed file of an unknown kind; expected {ACCEPTED}")
    try:
        return [path.read_text(encoding="utf-8")]
    except UnicodeDecodeError:
        raise RankscaleError(f"{path} is not UTF-8 text nor a data file by its name; expected {ACCEPTED}") from None


def file_identity(path: Path, text_field: str = "text") -> dict:
    """A corpus file's part of a result's identity: its content's hash, and for a data file the
    field read (``rankscale.corpora.Corpus.content``); never its path.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.txt").write_text("one document")
    ...     _ = (Path(tmp) / "b.jsonl").write_text('{"body": "one document"}')
    ...     sorted(file_identity(Path(tmp) / "a.txt")), sorted(file_identity(Path(tmp) / "b.jsonl", "body"))
    (['file'], ['file', 'text_field'])
    """
    from rankscale.hashing import file_sha256

    identity = {"file": file_sha256(path)}
    if file_format(path) is not None:  # a plain text file is one document whatever the field
        identity["text_field"] = text_field
    return identity


def hf_identity(spec: str, text_field: str = "text") -> dict:
    """An ``hf:`` corpus's part of a result's identity: the dataset, the field read and the
    commit of the dataset's repository now (None where neither the hub nor its cache can say).
    """
    from rankscale.hub import resolve_commit

    name, config, split = parse_hf(spec)
    return {"hf": spec, "text_field": text_field, "commit": resolve_commit(name, repo_type="dataset")}


def parse_hf(spec: str) -> tuple[str, str | None, str]:
    """``hf:org/name[:config]:split`` as (dataset, config, split).

    Raises
    ------
    RankscaleError
        For any other form.

    Examples
    --------
    >>> parse_hf("hf:wikimedia/wikipedia:20231101.en:train"), parse_hf("hf:allenai/c4:validation")
    (('wikimedia/wikipedia', '20231101.en', 'train'), ('allenai/c4', None, 'validation'))
    """
    parts = spec.removeprefix("hf:").split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise RankscaleError(f"corpus {spec!r}: expected hf:org/name:split or hf:org/name:config:split, "
                             "e.g. hf:allenai/c4:en:validation")
    return parts[0], parts[1] if len(parts) == 3 else None, parts[-1]


def hf_documents(spec: str, text_field: str = "text") -> Sequence[str]:
    """The documents of a hub dataset, ``hf:org/name[:config]:split``, one per row.

    Loads through ``datasets.load_dataset(name, config, split=split)``: from the hub, or from the
    datasets cache with ``HF_HUB_OFFLINE=1``.

    Parameters
    ----------
    spec : str
        ``hf:org/name[:config]:split`` (``parse_hf``).
    text_field : str
        The column holding each row's text.

    Returns
    -------
    sequence of str
        In the dataset's order, read on demand.

    Raises
    ------
    RankscaleError
        At once where the hub is unreachable and ``HF_HUB_OFFLINE`` is not set; for a dataset
        that cannot be loaded, and rows without ``text_field``.
    """
    import datasets

    from rankscale.hub import hub_reachable

    name, config, split = parse_hf(spec)
    if not (datasets.config.HF_HUB_OFFLINE or hub_reachable()):
        raise RankscaleError(f"cannot load corpus {spec!r}: the Hugging Face hub is unreachable from this machine; "
                             "set HF_HUB_OFFLINE=1 to read the datasets cache of an earlier download, or give "
                             "local files of the dataset (.parquet, .jsonl)")
    return _text_rows(load_table(f"hub dataset {spec}", name, config, split=split), text_field, f"hub dataset {spec}")
