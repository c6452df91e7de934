"""Corpora a user names by path or by hub id, read through ``datasets``: a local ``.parquet``,
``.json`` (an array of objects, or one object per line) or ``.jsonl`` file, compressed or not, a
plain text file (one document), or ``hf:org/name[:config]:split`` for any hub dataset.

A file's format is decided by its suffixes, whatever their case (``NOTES.JSONL.GZ`` is gzipped JSON
Lines), and checked against its first bytes (``content_kind``): a file whose content contradicts its
name (gzip data named ``.jsonl``, a parquet table named ``.json``, zstd data named ``.gz``) is refused,
never read as something else. Every row of a data file is checked in one streaming pass before any
work (``check_rows``): its compression whole, its bytes UTF-8, one JSON object per line (or an array
of objects), its text field present and text; an error names the row (counted from 0), the line and
the byte where it applies. A UTF-8 byte-order mark opening a file is dropped, in every format; a
UTF-16 or UTF-32 file is refused.

The rows of a ``datasets`` table become documents here (``Rows``), for these corpora and for the
papers' hub corpora alike (``rankscale.corpora.hub_datasets``); every failure to read is one
line naming the file and what was expected (``ACCEPTED``), never a traceback.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import gzip
import io
import json
import lzma
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import zstandard

from rankscale import RankscaleError

FILE_FORMATS = {".parquet": "parquet", ".json": "json", ".jsonl": "json"}  # suffix -> datasets builder
COMPRESSION = {".gz": "gzip", ".zst": "zstd", ".bz2": "bz2", ".xz": "xz"}  # suffix -> what the data is
ACCEPTED = ("a corpus name, a .parquet, .json or .jsonl file (optionally compressed: "
            f"{', '.join(COMPRESSION)}), a UTF-8 text file (one document), or hf:org/name[:config]:split "
            "for a hub dataset")
# What a file's first bytes say it holds, whatever its name (content_kind: bzip2's too, whose "BZh" is text).
MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"PAR1", "parquet"),
         (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))
HEAD = 10  # the first bytes content_kind reads
SUFFIX = {kind: suffix for suffix, kind in COMPRESSION.items()}  # a compression -> the suffix that names it
# what reading compressed data raises where it is cut short (EOFError) or corrupt; an OSError with an errno is
# the disk's, not the data's, and goes on as it is
DATA_FAULTS = (EOFError, OSError, zlib.error, lzma.LZMAError, zstandard.ZstdError)


def name_kind(path: Path) -> tuple[str | None, str | None]:
    """What a file's name says it is: its data format's suffix and its compression's, lower-cased.

    Parameters
    ----------
    path : pathlib.Path

    Returns
    -------
    (str or None, str or None)
        A key of ``FILE_FORMATS`` (None: not a data file by its name) and a key of ``COMPRESSION``
        (None: not compressed by its name).

    Examples
    --------
    >>> name_kind(Path("NOTES.JSONL.GZ")), name_kind(Path("b.parquet")), name_kind(Path("notes.txt"))
    (('.jsonl', '.gz'), ('.parquet', None), (None, None))
    """
    suffixes = [s.lower() for s in path.suffixes]
    compression = suffixes.pop() if suffixes and suffixes[-1] in COMPRESSION else None
    return (suffixes[-1] if suffixes and suffixes[-1] in FILE_FORMATS else None), compression


def file_format(path: Path) -> str | None:
    """The ``datasets`` builder that reads ``path``, by its name (``name_kind``).

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
    >>> file_format(Path("a.jsonl.gz")), file_format(Path("B.Parquet")), file_format(Path("notes.txt"))
    ('json', 'parquet', None)
    """
    return FILE_FORMATS.get(name_kind(path)[0])


def content_kind(head: bytes) -> str | None:
    """What a file's first bytes say it holds, whatever its name.

    Parameters
    ----------
    head : bytes
        The file's first ``HEAD`` bytes.

    Returns
    -------
    str or None
        A value of ``COMPRESSION``, ``"parquet"``, ``"UTF-16"`` or ``"UTF-32"`` (by a byte-order
        mark); None for anything else (UTF-8 text, JSON).

    Examples
    --------
    >>> content_kind(b"\\x1f\\x8b\\x08\\x00"), content_kind(b"PAR1\\x15\\x04"), content_kind(b'{"text": ')
    ('gzip', 'parquet', None)
    >>> content_kind("text".encode("utf-16")), content_kind(b"BZh91AY&SY"), content_kind(b"BZh is a word")
    ('UTF-16', 'bz2', None)
    """
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    # bzip2's "BZh" is followed by the block size and the magic number of a block or of the end, so that a
    # text beginning with "BZh" is not taken for it
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bz2"
    if len(head) >= 4 and head[0] & 0xF0 == 0x50 and head[1:4] == b"\x2a\x4d\x18":
        return "zstd"  # a skippable frame, which pzstd writes first
    return None


def _contradiction(path: Path, head: bytes, named: str, compression: str | None) -> RankscaleError | None:
    """The error for a file whose first bytes (``head``, read as ``content_kind``) contradict what its name
    says it holds (``named``: a value of ``COMPRESSION``, ``"parquet"``, ``"json"`` or ``"text"``), or None;
    ``compression`` is the suffix of a compression its name has."""
    found = content_kind(head)
    if found == named or found is None and named in ("json", "text", "parquet"):  # parquet: _check_parquet says
        return None
    if found in ("UTF-16", "UTF-32"):
        return RankscaleError(f"{path} is {found} text (its byte-order mark says so); save it as UTF-8")
    plain = path.name[:len(path.name) - len(compression)] if compression else path.name
    if found == "parquet":  # parquet compresses its own pages: a table is named .parquet, nothing after
        rename = Path(plain).with_suffix(".parquet").name
    elif found is not None:
        rename = plain + SUFFIX[found]
    elif compression:
        rename = plain
    else:
        return RankscaleError(f"{path} is not {named} data, as its name says: it begins with {head!r}; "
                              f"give a {named} file")
    what = f"{found} data" if found else f"no {named} data (it begins with {head!r})"
    return RankscaleError(f"{path} holds {what}, but its name says {named}: name it by its content ({rename}), "
                          "or give the file it was made from")


class _ZstdFrames(io.RawIOBase):
    """The content of zstd frames one after another, as the zstd tool writes them: python-zstandard's own
    reader returns what it has where the data is cut short, this one raises EOFError, as gzip's does."""

    def __init__(self, raw):
        self.raw, self.frame, self.data, self.at = raw, None, b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self.at == len(self.data):
            compressed = self.raw.read(1 << 16)
            if not compressed:
                if self.frame is not None and not self.frame.eof:
                    raise EOFError("the zstd data ends inside a frame")
                return 0
            self.data, self.at = b"", 0
            while compressed:
                if self.frame is None or self.frame.eof:
                    self.frame = zstandard.ZstdDecompressor().decompressobj()
                self.data += self.frame.decompress(compressed)
                compressed = self.frame.unused_data if self.frame.eof else b""
        n = min(len(buffer), len(self.data) - self.at)
        buffer[:n] = self.data[self.at:self.at + n]
        self.at += n
        return n


def _zstd_open(raw) -> io.BufferedReader:
    return io.BufferedReader(_ZstdFrames(raw), 1 << 16)


OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open, ".zst": _zstd_open}  # compression suffix -> reader


@contextlib.contextmanager
def _content(path: Path, compression: str | None) -> Iterator[io.BufferedIOBase]:
    """A file's bytes, decompressed as its name says (``compression``, a key of ``COMPRESSION``)."""
    with open(path, "rb") as raw:
        if compression is None:
            yield raw
        else:
            with OPENERS[compression](raw) as stream:
                yield stream


JSON_SPACE = " \t\r\n"  # JSON's whitespace: a line of it is blank, and a line of any other is not JSON
JSON_KINDS = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
              bool: "true or false", type(None): "null"}
_CHECKED: set[tuple] = set()  # the files whose rows passed check_rows in this process, by content's stat


class _Cursor:
    """Where a streaming check of a JSON file has come to: the row (counted from 0; None in a JSON array, whose
    rows are found once it is whole), the line (from 1) and the byte at which that line starts (from 0, of the
    decompressed text of a compressed file), for an error to name."""

    def __init__(self, path: Path, compressed: bool):
        self.path, self.compressed = path, compressed
        self.row, self.line, self.offset = 0, 0, 0

    def where(self, byte: int, lines: int = 0) -> str:
        """``row 3 of notes.jsonl (line 4, byte 120)``, ``lines`` after the cursor's line."""
        of = " of its decompressed text" if self.compressed else ""
        row = "" if self.row is None else f"row {self.row} of "
        return f"{row}{self.path} (line {self.line + lines}, byte {byte}{of})"

    def decoded(self, raw: bytes, skip: int = 0) -> str:
        """The text of ``raw`` (bytes from the cursor's line on) less its first ``skip`` bytes (a byte-order mark)."""
        try:
            return raw[skip:].decode("utf-8")
        except UnicodeDecodeError as err:
            bad = skip + err.start
            where = self.where(self.offset + bad, raw.count(b"\n", 0, bad))
            raise RankscaleError(f"{where} is not UTF-8: byte 0x{raw[bad]:02x} ({err.reason}); save the file as "
                                 "UTF-8") from None

    def parsed(self, text: str, skip: int = 0):
        """The JSON value of one line's ``text`` (found after ``skip`` bytes of the line)."""
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            byte = self.offset + skip + len(text[:err.pos].encode())
            raise RankscaleError(f"{self.where(byte)} is not one JSON object: {err.msg} (column {err.colno}); "
                                 "give one JSON object per line") from None
        except RecursionError:
            raise RankscaleError(f"{self.where(self.offset)} nests arrays or objects too deep for Python's JSON "
                                 "reader; give each row as an object with its text in a field") from None


def _no_field(what: str, field: str, fields) -> RankscaleError:
    return RankscaleError(f"{what} has no {field!r} field; its fields are {', '.join(map(repr, fields)) or 'none'}: "
                          "name the one holding the text with --text-field")


def _no_rows(what: str) -> RankscaleError:
    return RankscaleError(f"cannot load {what}: it holds no rows; give a file with one document per row")


def _check_row(value, fields: tuple[str, ...], path: Path, row: int) -> None:
    """One row of a JSON file: an object with text in each of ``fields`` (``document``). A first row without a
    field says the file has none such (a wrong --text-field), before a large file is read to its end."""
    where = f"row {row} of {path}"
    if not isinstance(value, dict):
        raise RankscaleError(f"{where} is {JSON_KINDS[type(value)]}, not an object; give each row as a JSON object "
                             f"with its text in a field ({fields[0]!r})")
    missing = [f for f in fields if f not in value]
    if missing and row == 0:
        raise _no_field(str(path), missing[0], value)
    if missing:
        raise RankscaleError(f"{where} has no {missing[0]!r} field (its fields are "
                             f"{', '.join(map(repr, value)) or 'none'}); drop such rows from the data, or name the "
                             "field that holds the text (--text-field)")
    document(value, fields, where)


def _check_json(path: Path, fields: tuple[str, ...], fmt: str, compression: str | None) -> None:
    """``check_rows`` of JSON Lines, or of a ``.json`` file's array of objects, line by line."""
    at = _Cursor(path, compression is not None)
    with _content(path, compression) as stream:
        try:
            if compression and (fault := _contradiction(path, stream.peek(HEAD)[:HEAD], "json", None)):
                raise fault
            for raw in stream:
                at.line += 1
                skip = len(codecs.BOM_UTF8) if at.line == 1 and raw.startswith(codecs.BOM_UTF8) else 0
                text = at.decoded(raw, skip)
                opening = text.lstrip(JSON_SPACE)[:1]
                if opening and at.row == 0 and opening != "{":
                    if opening != "[" or fmt != ".json":
                        kind = "a JSON array, not JSON Lines" if opening == "[" else "no JSON"
                        raise RankscaleError(
                            f"{path} holds {kind}: it begins with {text.strip()[:24]!r}; give one JSON object per "
                            "line (.jsonl), an array of objects (.json), or name a text file by its own suffix "
                            "(.txt)")
                    at.row = None  # a JSON array: its rows are known once it is whole
                    _check_json_array(at.decoded(raw + stream.read(), skip), fields, at, skip)
                    return
                if opening:
                    _check_row(at.parsed(text, skip), fields, path, at.row)
                    at.row += 1
                at.offset += len(raw)
        except DATA_FAULTS as err:
            if isinstance(err, OSError) and err.errno is not None:  # the disk's, not the data's
                raise
            state = "cut short" if isinstance(err, EOFError) else "corrupt"
            place = str(path) if at.row is None else at.where(at.offset, 1)  # the line being read
            raise RankscaleError(f"the {COMPRESSION[compression]} data of {place} is {state} ({type(err).__name__}: "
                                 f"{err}); copy or download the file again, whole") from None
    if at.row == 0:
        raise _no_rows(str(path))


def _check_json_array(text: str, fields: tuple[str, ...], at: _Cursor, skip: int) -> None:
    """A ``.json`` file's one array of objects, ``text`` from its first line on."""
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as err:
        byte = at.offset + skip + len(text[:err.pos].encode())
        raise RankscaleError(f"{at.where(byte, err.lineno - 1)} is not valid JSON: {err.msg} (column {err.colno}); "
                             "give an array of objects, or one object per line") from None
    except RecursionError:
        raise RankscaleError(f"{at.path} nests arrays or objects too deep for Python's JSON reader; give an array "
                             "of objects, each with its text in a field") from None
    for row, value in enumerate(rows):
        _check_row(value, fields, at.path, row)
    if not rows:
        raise _no_rows(str(at.path))


def _first_invalid(column) -> int:
    """The index of the first value of a pyarrow string array that is not valid (its bytes not UTF-8), found by
    halving: pyarrow reads a table's bytes as they are, and only their conversion to Python would fail."""
    import pyarrow as pa

    low, high = 0, len(column)  # the first invalid value lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        try:
            column.slice(low, middle - low).validate(full=True)
            low = middle
        except pa.ArrowInvalid:
            high = middle
    return low


def _check_parquet(path: Path, fields: tuple[str, ...], head: bytes) -> None:
    """``check_rows`` of a parquet table (whose first bytes are ``head``): whole, from its footer to the ``PAR1``
    it begins with, and its columns ``fields`` text, row group by row group."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def unreadable(err: Exception, where: str) -> RankscaleError | None:
        if isinstance(err, OSError) and err.errno is not None:  # the disk's, not the data's
            return None
        reason = " ".join(str(err).split())[:200]
        return RankscaleError(f"cannot load {path}: {type(err).__name__}: {reason} (reading {where}); it is no whole "
                              "parquet table: copy it again, or write it anew")

    try:
        table = pq.ParquetFile(path, page_checksum_verification=True)
        schema = table.schema_arrow
    # UnicodeDecodeError: a footer whose column names are not UTF-8, which pyarrow decodes as it opens the table
    except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
        raise unreadable(err, "its footer") or err from None
    if not head.startswith(b"PAR1"):
        raise RankscaleError(f"cannot load {path}: it does not begin with PAR1, as a parquet table does (it begins "
                             f"with {head!r}); copy it again, or write it anew")
    missing = [f for f in fields if f not in schema.names]
    if missing:
        raise _no_field(str(path), missing[0], schema.names)
    for field in fields:
        held = schema.field(field).type
        held = held.value_type if pa.types.is_dictionary(held) else held
        if not (pa.types.is_string(held) or pa.types.is_large_string(held)):
            raise RankscaleError(f"{path}: its {field!r} column holds {held}, not text; name the column that holds "
                                 "the text with --text-field")
    start = 0
    try:
        for batch in table.iter_batches(columns=list(fields)):
            for field in fields:
                column = batch.column(field)
                if pa.types.is_dictionary(column.type):
                    column = column.dictionary_decode()
                if column.null_count:
                    document({field: None}, (field,), f"row {start + pc.index(column.is_null(), True).as_py()} "
                                                      f"of {path}")
                try:
                    column.validate(full=True)
                except pa.ArrowInvalid:
                    raise RankscaleError(f"row {start + _first_invalid(column)} of {path} holds bytes that are not "
                                         f"UTF-8 in its {field!r} column; write the table again from UTF-8 "
                                         "text") from None
            start += batch.num_rows
    except (pa.ArrowException, OSError) as err:
        raise unreadable(err, f"the rows from row {start} on") or err from None
    if start == 0:
        raise _no_rows(str(path))


def check_rows(path: Path, fields: tuple[str, ...] = ("text",)) -> None:
    """Check every row of a data file before anything is computed on it, in one streaming pass.

    The file's content must be what its name says (``_contradiction``); its compressed data whole
    (a file cut short fails here, not after a partial read); every row UTF-8, one JSON object per
    line (or, in a ``.json`` file, one array of objects), with text in each of ``fields``; a
    parquet table's columns text, with no null and no byte that is not UTF-8. A file that passed
    is not read again by this process until it changes.

    Parameters
    ----------
    path : pathlib.Path
        A data file (``file_format`` is not None).
    fields : tuple of str
        The fields each row's text is in.

    Raises
    ------
    RankscaleError
        One line naming the cause, the row (counted from 0), the line and the byte where it
        applies, and the fix.

    Examples
    --------
    >>> import gzip, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "Notes.JSONL.gz"
    ...     _ = path.write_bytes(gzip.compress(b'{"text": "one"}\\n{"text": "two \\xff"}\\n'))
    ...     check_rows(path)
    Traceback (most recent call last):
    rankscale.RankscaleError: row 1 of /.../Notes.JSONL.gz (line 2, byte 30 of its decompressed text) is not UTF-8: byte 0xff (invalid start byte); save the file as UTF-8
    """
    stat = path.stat()
    key = (str(path.resolve()), tuple(fields), stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev)
    if key in _CHECKED:
        return
    fmt, compression = name_kind(path)
    with open(path, "rb") as fh:
        head = fh.read(HEAD)
    named = "parquet" if fmt == ".parquet" else "json"
    fault = _contradiction(path, head, COMPRESSION[compression] if compression else named, compression)
    if fault:
        raise fault
    if fmt == ".parquet" and compression:
        raise RankscaleError(f"{path}: a parquet table compresses its own pages and is read uncompressed; "
                             f"give {path.name[:len(path.name) - len(compression)]} as it was written")
    if fmt == ".parquet":
        _check_parquet(path, tuple(fields), head)
    else:
        _check_json(path, tuple(fields), fmt, compression)
    _CHECKED.add(key)


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

    no_rows = _no_rows(what)
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
        raise _no_field(what, text_field, table.column_names)
    return Rows(table, (text_field,), what)


def _text_document(path: Path) -> str:
    """A plain text file as one document: UTF-8, less a byte-order mark, with no NUL character."""
    data = path.read_bytes()
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[skip:].decode("utf-8")
    except UnicodeDecodeError as err:
        found = content_kind(data[:HEAD])
        if found in COMPRESSION.values():  # compressed text is not read: a text file is read as it is
            raise RankscaleError(f"{path} holds {found} data, not text: decompress it, or name it "
                                 f"{path.stem}.jsonl{SUFFIX[found]} if it holds JSON Lines") from None
        fault = _contradiction(path, data[:HEAD], "text", None)
        if fault:
            raise fault from None
        bad = skip + err.start
        line = data.count(b"\n", 0, bad) + 1
        raise RankscaleError(f"{path} is not UTF-8 text nor a data file by its name: byte {bad} (line {line}) is "
                             f"0x{data[bad]:02x} ({err.reason}); save it as UTF-8; expected "
                             f"{ACCEPTED}") from None
    nul = text.find("\0")
    if nul >= 0:
        bad, line = skip + len(text[:nul].encode()), text.count("\n", 0, nul) + 1
        raise RankscaleError(f"{path} is not UTF-8 text: it holds a NUL character at byte {bad} (line {line}), as "
                             "UTF-16 text without a byte-order mark does; save it as UTF-8")
    return text


def file_documents(path: Path, text_field: str = "text") -> Sequence[str]:
    """The documents of a local file.

    Parameters
    ----------
    path : pathlib.Path
        A ``.parquet``, ``.json`` or ``.jsonl`` file, optionally compressed (``name_kind``, whatever
        the case of its suffixes), read through ``datasets.load_dataset("parquet" | "json",
        data_files=...)``, one document per row, once ``check_rows`` has checked every row; any
        other file is one UTF-8 document. A UTF-8 byte-order mark opening the file is dropped.
    text_field : str
        The column holding each row's text.

    Returns
    -------
    sequence of str
        The documents, in the file's order; rows are read on demand.

    Raises
    ------
    RankscaleError
        One line, for a file whose content contradicts its name, a row that cannot be read (its
        row, line and byte named), rows without ``text_field`` (naming the fields they have), or a
        file that is neither a data file nor UTF-8 text (naming what is accepted, ``ACCEPTED``).

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "notes.json"
    ...     _ = path.write_text(json.dumps([{"body": "first note"}, {"body": "second note"}]))
    ...     list(file_documents(path, "body"))
    ['first note', 'second note']
    """
    if path.stat().st_size == 0:
        raise RankscaleError(f"{path} is empty; give a file that holds the corpus's text")
    fmt, compression = name_kind(path)
    if fmt is None and compression:
        raise RankscaleError(f"{path}: a compressed file of an unknown kind; expected {ACCEPTED}")
    if fmt is None:
        return [_text_document(path)]
    check_rows(path, (text_field,))
    return _text_rows(load_table(str(path), FILE_FORMATS[fmt], data_files=[str(path)], split="train"), text_field,
                      str(path))


def file_identity(path: Path, text_field: str = "text") -> dict:
    """A corpus file's part of a result's identity: its content's hash, and for a data file the
    field read (``rankscale.corpora.Corpus.content``); never its path. A text file that opens with
    a byte-order mark says it is dropped: records made when it was scored are another text's.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "a.txt").write_text("one document")
    ...     _ = (Path(tmp) / "b.jsonl").write_text('{"body": "one document"}')
    ...     _ = (Path(tmp) / "c.txt").write_text("one document", encoding="utf-8-sig")
    ...     [sorted(file_identity(Path(tmp) / name, "body")) for name in ("a.txt", "b.jsonl", "c.txt")]
    [['file'], ['file', 'text_field'], ['byte_order_mark', 'file']]
    """
    from rankscale.hashing import file_sha256

    identity = {"file": file_sha256(path)}
    if file_format(path) is not None:  # a plain text file is one document whatever the field
        identity["text_field"] = text_field
    else:
        with open(path, "rb") as fh:
            if fh.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8:
                identity["byte_order_mark"] = "dropped"
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
