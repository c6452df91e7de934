"""Fuzzing the corpus readers (issue 48): corpus files of every supported format, cut short, with bytes
flipped, re-encoded in another encoding, given a byte-order mark, compressed otherwise than their
name says or named in another case. For each, rankscale's reader (``rankscale.corpora.get_corpus``)
gives the documents a plain reading of those bytes by their format's specification gives
(``reference``), or one line of RankscaleError: never another exception, never documents that
differ from them. Where the bytes mean the clean file's documents (a byte-order mark, the name's
case) it gives those; where the content contradicts the name, it refuses.

The fast suite runs a few examples of each property (``FAST``); ``-m slow`` runs many more (``FULL``).
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import itertools
import json
import lzma
from pathlib import Path, PurePath

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankscale import RankscaleError
from rankscale.corpora import get_corpus

# derandomized in the fast suite: the same examples every run, so that a failure is reproducible
FAST = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
FULL = settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress,
            ".zst": zstandard.ZstdCompressor(write_checksum=True).compress}  # the zstd tool writes checksums too
FORMATS = [(".txt", None), (".jsonl", None), (".json", None), (".parquet", None),
           *((".jsonl", c) for c in COMPRESS), (".json", ".gz")]
JSON_SPACE = " \t\r\n"
_names = itertools.count()


def unzstd(data: bytes) -> bytes:
    """zstd frames one after another, each whole."""
    out = []
    while data:
        frame = zstandard.ZstdDecompressor().decompressobj()
        out.append(frame.decompress(data))
        if not frame.eof:
            raise EOFError("a zstd frame cut short")
        data = frame.unused_data
    return b"".join(out)


DECOMPRESS = {".gz": lambda data: gzip.GzipFile(fileobj=io.BytesIO(data)).read(), ".bz2": bz2.decompress,
              ".xz": lzma.decompress, ".zst": unzstd}


def reference(name: str, data: bytes) -> list[str]:
    """The documents of a file named ``name`` holding ``data``, as its format's specification reads them: the
    compression its name says; UTF-8, less a byte-order mark; a text file one document with no NUL; JSON Lines one
    object per non-blank line, or a .json file's one array of objects; a parquet table's text column, all text.
    Raises whatever the bytes make it raise where they do not meet that."""
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes[-1] in DECOMPRESS:
        data = DECOMPRESS[suffixes.pop()](data)
    if suffixes[-1] == ".parquet":
        import pyarrow.parquet as pq

        texts = pq.read_table(io.BytesIO(data)).column("text").to_pylist()
        assert texts and all(isinstance(t, str) for t in texts)
        return texts
    text = data.decode("utf-8").removeprefix("\ufeff")
    if suffixes[-1] == ".txt":
        assert text and "\0" not in text
        return [text]
    if suffixes[-1] == ".json" and text.lstrip(JSON_SPACE).startswith("["):
        rows = json.loads(text)
    else:
        rows = [json.loads(line) for line in text.split("\n") if line.strip(JSON_SPACE)]
    assert rows and all(isinstance(r, dict) and isinstance(r["text"], str) for r in rows)
    return [r["text"] for r in rows]


def content(fmt: str, documents: list[str]) -> bytes:
    """The uncompressed bytes of a clean file of format ``fmt`` holding ``documents``."""
    if fmt == ".txt":
        return documents[0].encode()
    if fmt == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist([{"text": d, "id": i} for i, d in enumerate(documents)]), sink)
        return sink.getvalue()
    rows = [{"text": d, "id": i} for i, d in enumerate(documents)]
    if fmt == ".json":
        return json.dumps(rows, ensure_ascii=False, indent=1).encode()
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


@st.composite
def corpus_files(draw):
    """(format, compression, documents, name, content): a clean corpus file of any supported format."""
    fmt, compression = draw(st.sampled_from(FORMATS))
    # a text file's one document: no NUL (not text) and no opening U+FEFF (a byte-order mark, dropped)
    text = st.text(st.characters(blacklist_characters="\0\ufeff", blacklist_categories=("Cs",)), min_size=1,
                   max_size=30)
    documents = draw(st.lists(text, min_size=1, max_size=1 if fmt == ".txt" else 4))
    return fmt, compression, documents, f"corpus{fmt}{compression or ''}", content(fmt, documents)


def packed(compression: str | None, data: bytes) -> bytes:
    return COMPRESS[compression](data) if compression else data


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder for the examples' files; datasets' cache of the tables read from them beside it, not in the user's
    cache (a module's fixture: hypothesis runs every example of a test within one call of it)."""
    import datasets

    root = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(datasets.config, "HF_DATASETS_CACHE", str(root / "datasets-cache"))
        yield root


def read(folder: Path, name: str, data: bytes) -> list[str] | RankscaleError:
    """What rankscale reads from a new file named ``name`` holding ``data``: its documents, or the RankscaleError,
    which is one line; any other exception fails the test."""
    path = folder / str(next(_names)) / name  # a new path: nothing cached for another content is reused
    path.parent.mkdir()
    path.write_bytes(data)
    try:
        return list(get_corpus(str(path)).load())
    except RankscaleError as err:
        assert "\n" not in str(err) and str(err), str(err)
        return err


def agrees(folder: Path, name: str, data: bytes) -> None:
    """rankscale's reading of ``data`` is the reference's, or an error; and an error where the reference has one."""
    got = read(folder, name, data)
    try:
        expected = reference(name, data)
    except Exception as err:  # noqa: BLE001 (the reference's failure, whatever it is, means: no documents)
        assert isinstance(got, RankscaleError), f"{name}: read {got!r} where the reference fails ({err!r})"
        return
    assert isinstance(got, RankscaleError) or got == expected, f"{name}: read {got!r}, expected {expected!r}"


# ---------------------------------------------------------------------------------------------
# The properties, each run by a fast test and a slow full one (fuzz)


def cut_short(folder, case, data):
    """A file cut short anywhere."""
    fmt, compression, documents, name, text = case
    whole = packed(compression, text)
    agrees(folder, name, whole[:data.draw(st.integers(0, len(whole) - 1), label="length")])


def flipped(folder, case, data):
    """One to three bytes of a file changed."""
    fmt, compression, documents, name, text = case
    changed = bytearray(packed(compression, text))
    for _ in range(data.draw(st.integers(1, 3), label="flips")):
        at = data.draw(st.integers(0, len(changed) - 1), label="at")
        changed[at] ^= data.draw(st.integers(1, 255), label="mask")
    agrees(folder, name, bytes(changed))


def re_encoded(folder, case, data):
    """A file's text in another encoding (a parquet table's binary is not text: it is left out)."""
    fmt, compression, documents, name, text = case
    if fmt == ".parquet":
        return
    encoding = data.draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252"]))
    agrees(folder, name, packed(compression, text.decode().encode(encoding, errors="replace")))


def with_byte_order_mark(folder, case, data):
    """A UTF-8 byte-order mark before a file's text is no part of any document, in every format."""
    fmt, compression, documents, name, text = case
    if fmt == ".parquet":  # binary: a mark would make it no parquet table, which check_rows says
        assert isinstance(read(folder, name, codecs.BOM_UTF8 + text), RankscaleError)
        return
    assert read(folder, name, packed(compression, codecs.BOM_UTF8 + text)) == read(folder, name, packed(
        compression, text)) == documents


def compressed_otherwise(folder, case, data):
    """Content compressed otherwise than the name says (or not at all, or where it says none) is refused."""
    fmt, compression, documents, name, text = case
    other = data.draw(st.sampled_from([c for c in [None, *COMPRESS] if c != compression]), label="compression")
    got = read(folder, name, packed(other, text))
    assert isinstance(got, RankscaleError), f"{name} holding {other} data read as {got!r}"


def named_in_another_case(folder, case, data):
    """A name's suffixes in any case say the same format: ``NOTES.JSONL`` is JSON Lines."""
    fmt, compression, documents, name, text = case
    renamed = data.draw(st.sampled_from([name.upper(), name.title(), name.swapcase()]), label="name")
    assert read(folder, renamed, packed(compression, text)) == documents


def fuzz(prop):
    """The fast test of a property and its slow full run."""
    fast = FAST(given(case=corpus_files(), data=st.data())(prop))
    full = FULL(given(case=corpus_files(), data=st.data())(prop))
    return fast, pytest.mark.slow(full)


test_cut_short, test_cut_short_full = fuzz(cut_short)
test_flipped, test_flipped_full = fuzz(flipped)
test_re_encoded, test_re_encoded_full = fuzz(re_encoded)
test_byte_order_mark, test_byte_order_mark_full = fuzz(with_byte_order_mark)
test_compressed_otherwise, test_compressed_otherwise_full = fuzz(compressed_otherwise)
test_named_in_another_case, test_named_in_another_case_full = fuzz(named_in_another_case)
