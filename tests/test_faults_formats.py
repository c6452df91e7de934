"""Faults of the second round (issue 48): corpus formats decided by their content, not by the spelling
of their names; every row checked before any work; errors that name their real cause; extreme
settings refused up front; paths and token counts that mean what they say. Each test says what
happened before in its docstring; now a result is the one its inputs give, or there is one line
naming the cause, where it lies and the fix, and nothing left that looks like a result."""

from __future__ import annotations

import bz2
import codecs
import errno
import gzip
import io
import json
import lzma
import math
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from rankscale import RankscaleError
from rankscale import cli as cli_module
from rankscale.cli import build_parser, main
from rankscale.corpora import get_corpus
from rankscale.corpora.files import file_identity
from rankscale.records import extract as ex
from rankscale.records.store import load_records

N = 300  # target tokens of every extraction here
ROWS = [{"text": f"note {i}: " + "words of a note " * (i % 5 + 1), "id": i} for i in range(40)]
DOCUMENTS = [row["text"] for row in ROWS]
JSONL = "".join(json.dumps(row) + "\n" for row in ROWS).encode()
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress,
            ".zst": zstandard.ZstdCompressor(write_checksum=True).compress}


def parquet(rows: list[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), sink)
    return sink.getvalue()


def documents(path: Path, text_field: str = "text") -> list[str]:
    return list(get_corpus(str(path), text_field).load())


def refused(path: Path, text_field: str = "text") -> str:
    """The one line of RankscaleError that reading ``path`` gives."""
    with pytest.raises(RankscaleError) as err:
        documents(path, text_field)
    assert "\n" not in str(err.value)
    return str(err.value)


def cli(capsys, *args) -> tuple[int, str]:
    """``rankscale ARGS`` in this process: the exit status and what it printed on stderr."""
    status = main([str(a) for a in args])
    return status, capsys.readouterr().err


@pytest.fixture(scope="module")
def result(model_dir, corpus_file, tmp_path_factory) -> Path:
    """A finished result of a few hundred tokens."""
    return ex.extract(str(model_dir), str(corpus_file), N, tmp_path_factory.mktemp("result") / "run", window_len=64,
                      shard_tokens=100, progress=False)


# ---------------------------------------------------------------------------------------------
# Formats by content, not by spelling


def test_a_data_file_s_suffixes_are_read_in_any_case(tmp_path):
    """Before: NOTES.JSONL was one plain-text document (its JSON scored: CE 7.55 against notes.jsonl's
    7.06), and its result ignored --text-field, exit 0."""
    for name, data in [("notes.jsonl", JSONL), ("NOTES.JSONL", JSONL), ("Notes.JsonL.GZ", gzip.compress(JSONL)),
                       ("NOTES.PARQUET", parquet(ROWS)), ("NOTES.JSON", json.dumps(ROWS).encode())]:
        (tmp_path / name).write_bytes(data)
        assert documents(tmp_path / name) == DOCUMENTS, name
        assert "text_field" in file_identity(tmp_path / name), name


@pytest.mark.parametrize("name, data, message", [
    ("notes.jsonl", gzip.compress(JSONL), r"notes.jsonl holds gzip data, but its name says json: name it by its "
                                          r"content \(notes.jsonl.gz\)"),
    ("notes.jsonl.gz", bz2.compress(JSONL), r"holds bz2 data, but its name says gzip: .*\(notes.jsonl.bz2\)"),
    ("notes.jsonl.gz", COMPRESS[".zst"](JSONL), r"holds zstd data, but its name says gzip: .*\(notes.jsonl.zst\)"),
    ("notes.jsonl.zst", JSONL, r"holds no zstd data \(it begins with b'\{\"text\": \"'\), but its name says zstd: "
                               r"name it by its content \(notes.jsonl\)"),
    ("notes.jsonl.xz", gzip.compress(JSONL), r"holds gzip data, but its name says xz"),
    ("notes.json", parquet(ROWS), r"holds parquet data, but its name says json: .*\(notes.parquet\)"),
    ("notes.parquet", JSONL, r"cannot load .*notes.parquet: ArrowInvalid: Parquet magic bytes not found"),
    ("notes.parquet", b"\xef\xbb\xbf" + parquet(ROWS), r"notes.parquet: it does not begin with PAR1"),
    ("notes.parquet.gz", gzip.compress(parquet(ROWS)), r"a parquet table compresses its own pages .* give "
                                                       r"notes.parquet as it was written"),
    ("notes.jsonl", JSONL.decode().encode("utf-16"), r"notes.jsonl is UTF-16 text \(its byte-order mark says so\); "
                                                     r"save it as UTF-8"),
    ("notes.jsonl.gz", gzip.compress(JSONL.decode().encode("utf-32")), r"is UTF-32 text"),
    ("notes.txt", "a note".encode("utf-16"), r"notes.txt is UTF-16 text"),
    ("notes.txt", "a note".encode("utf-16-le"), r"notes.txt is not UTF-8 text: it holds a NUL character at byte 1 "
                                                r"\(line 1\), as UTF-16 text without a byte-order mark does"),
    ("notes.txt", gzip.compress(b"a note"), r"notes.txt holds gzip data, not text: decompress it, or name it "
                                            r"notes.jsonl.gz if it holds JSON Lines"),
    ("notes.jsonl", b'[{"text": "a"}]\n', r"notes.jsonl holds a JSON array, not JSON Lines: .* \(.json\)"),
    ("notes.jsonl", b"just some words\n", r"notes.jsonl holds no JSON: it begins with 'just some words'"),
])
def test_a_file_whose_content_contradicts_its_name_is_one_line(tmp_path, name, data, message):
    """Before: gzip data named .jsonl was read (datasets went by the magic number, whatever the name), zstd
    data named .gz or plain JSON named .gz raised BadGzipFile, a UTF-16 text file was read with a NUL after
    every character, gzip data named .txt was "not UTF-8 text", a JSON array in a .jsonl was read."""
    (tmp_path / name).write_bytes(data)
    line = refused(tmp_path / name)
    assert re.search(message, line), line


def test_a_byte_order_mark_is_dropped_in_every_format(tmp_path):
    """Before: a .txt corpus's mark was scored (three tokens of U+FEFF) while a .jsonl's was dropped."""
    as_json = json.dumps(ROWS, indent=1).encode()
    for name, text, expected in [("notes.txt", b"one note", ["one note"]), ("notes.jsonl", JSONL, DOCUMENTS),
                                 ("notes.json", as_json, DOCUMENTS), *((f"notes.jsonl{c}", JSONL, DOCUMENTS)
                                                                       for c in COMPRESS)]:
        compress = COMPRESS.get(Path(name).suffix, bytes)
        (tmp_path / "plain").mkdir(exist_ok=True)
        (tmp_path / "marked").mkdir(exist_ok=True)
        (tmp_path / "plain" / name).write_bytes(compress(text))
        (tmp_path / "marked" / name).write_bytes(compress(codecs.BOM_UTF8 + text))
        assert documents(tmp_path / "marked" / name) == documents(tmp_path / "plain" / name) == expected, name
    # a text scored with its mark before is another text now: its records are not taken for the new ones
    assert file_identity(tmp_path / "marked" / "notes.txt")["byte_order_mark"] == "dropped"
    assert "byte_order_mark" not in file_identity(tmp_path / "plain" / "notes.txt")


# ---------------------------------------------------------------------------------------------
# Compressed formats the README lists, read in the environment make builds


def test_a_zst_corpus_is_read_whole_or_refused(tmp_path):
    """Before: .jsonl.zst failed with "Compression type zstd not supported" (naming no package), and once the
    package was there, a file cut short gave the rows before the cut, or none, without a word."""
    half = len(ROWS) // 2
    first, second = (COMPRESS[".zst"]("".join(json.dumps(r) + "\n" for r in rows).encode())
                     for rows in (ROWS[:half], ROWS[half:]))
    skippable = struct.pack("<II", 0x184D2A50, 4) + b"meta"  # pzstd writes such a frame first
    (tmp_path / "notes.jsonl.zst").write_bytes(skippable + first + second)  # frames one after another, as zstd -c a b
    assert documents(tmp_path / "notes.jsonl.zst") == DOCUMENTS
    (tmp_path / "cut.jsonl.zst").write_bytes(first + second[:len(second) // 2])
    line = refused(tmp_path / "cut.jsonl.zst")
    assert line.startswith(f"the zstd data of row {half} of {tmp_path / 'cut.jsonl.zst'} (line {half + 1}, byte ")
    assert "of its decompressed text) is cut short (EOFError" in line and "copy or download the file again" in line


# ---------------------------------------------------------------------------------------------
# Every row checked before any work, its row, line and byte named


def test_every_row_is_checked_before_any_work(tmp_path, model_dir, capsys, monkeypatch):
    """Before: a bad row was found only if a window drew it: a null in row 900 of 1000 passed, and its
    extraction exited 0 unless the sample reached it."""
    rows = [{"text": f"row {i} " * 20} for i in range(1000)]
    rows[900]["text"] = None
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert refused(tmp_path / "rows.jsonl").startswith(f"row 900 of {tmp_path / 'rows.jsonl'} holds no text in its "
                                                       "'text' field but null")
    (tmp_path / "rows.parquet").write_bytes(parquet(rows))
    assert refused(tmp_path / "rows.parquet").startswith(f"row 900 of {tmp_path / 'rows.parquet'} holds no text")
    rows[900]["text"] = "fine again"
    rows[950] = {"body": "no text field"}
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert refused(tmp_path / "rows.jsonl").startswith(f"row 950 of {tmp_path / 'rows.jsonl'} has no 'text' field "
                                                       "(its fields are 'body')")
    # through the command line: one line, before the model loads, nothing written
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("the model loaded before the rows were checked"))
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", tmp_path / "rows.jsonl", "--tokens", N,
                      "--out", tmp_path / "run", "--quiet")
    assert status == 1 and err.count("\n") == 1 and err.startswith("error: row 950 of ")
    assert not (tmp_path / "run").exists()


def test_a_parquet_row_that_is_not_utf8_is_named(tmp_path):
    """Before: pyarrow read the bytes as they were, and the row failed with UnicodeDecodeError once drawn."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    values = [f"row {i}".encode() for i in range(20)]
    values[13] = b"row \xff\xfe"
    table = pa.table({"text": pa.array(values, pa.binary()).view(pa.string())})  # bytes that claim to be text
    pq.write_table(table, tmp_path / "rows.parquet")
    assert refused(tmp_path / "rows.parquet").startswith(f"row 13 of {tmp_path / 'rows.parquet'} holds bytes that are "
                                                         "not UTF-8 in its 'text' column")


def test_a_parquet_footer_naming_a_column_in_bytes_that_are_not_utf8_is_one_line(tmp_path):
    """Found by the full fuzz run: one flipped byte in the footer's column name made pyarrow raise
    UnicodeDecodeError while opening the table."""
    data = parquet(ROWS)
    at = data.find(b"\x18\x04text") + 2  # the footer's schema: the column's name, four bytes long
    (tmp_path / "notes.parquet").write_bytes(data[:at] + b"\xe9" + data[at + 1:])
    assert refused(tmp_path / "notes.parquet").startswith(f"cannot load {tmp_path / 'notes.parquet'}: "
                                                          "UnicodeDecodeError")


@pytest.mark.parametrize("name, data, message", [
    ("rows.jsonl", b'{"text": "a"}\n{"text": "b"}\n\n{"text": "c"}\n{"text": "caf\xe9"}\n',
     r"row 3 of .*rows.jsonl \(line 5, byte 56\) is not UTF-8: byte 0xe9 \(invalid continuation byte\); save the "
     r"file as UTF-8"),
    ("rows.jsonl.gz", gzip.compress(JSONL)[:-30],
     r"the gzip data of row \d+ of .*rows.jsonl.gz \(line \d+, byte \d+ of its decompressed text\) is cut short "
     r"\(EOFError: Compressed file ended before the end-of-stream marker was reached\); copy or download the file "
     r"again, whole"),
    ("rows.jsonl.bz2", bz2.compress(JSONL)[:-9], r"the bz2 data of row \d+ of .* is cut short"),
    ("rows.jsonl.xz", lzma.compress(JSONL)[:-9], r"the xz data of row \d+ of .* is (cut short|corrupt)"),
    ("rows.jsonl", b'{"text": "a"}\n{"text": "b"} {"text": "c"}\n',
     r"row 1 of .*rows.jsonl \(line 2, byte 28\) is not one JSON object: Extra data \(column 15\); give one JSON "
     r"object per line"),
    ("rows.json", b'[{"text": "a"},\n {"text": "b"}\n', r"rows.json \(line \d, byte \d+\) is not valid JSON: "),
])
def test_a_row_that_cannot_be_read_is_named_by_its_row_line_and_byte(tmp_path, model_dir, capsys, name, data,
                                                                      message):
    """Before: invalid UTF-8 in a row raised UnicodeDecodeError, a truncated .jsonl.gz EOFError: tracebacks."""
    (tmp_path / name).write_bytes(data)
    assert re.search(message, refused(tmp_path / name)), refused(tmp_path / name)
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", tmp_path / name, "--tokens", N, "--out",
                      tmp_path / "run", "--quiet")
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err and re.search(message, err)
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------------------------------------
# --text-field where the corpus has no fields


def test_text_field_is_refused_where_the_corpus_has_no_fields(model_dir, tmp_path, capsys):
    """Before: --text-field on a .txt file (or a named corpus) was ignored, and a result made with another
    field was reused for it in the same --out."""
    (tmp_path / "notes.txt").write_text("a note to score " * 100)
    for corpus, what in [(tmp_path / "notes.txt", "a text file, read as one document"),
                         ("pydocs", "a named corpus, read by its own recipe")]:
        status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", corpus, "--tokens", N, "--out",
                          tmp_path / "run", "--text-field", "body", "--quiet")
        assert status == 1 and err.count("\n") == 1 and f"corpus {corpus} is {what}, which has none" in err
        assert "leave --text-field out" in err and not (tmp_path / "run").exists()
    (tmp_path / "notes.jsonl").write_bytes(JSONL)
    assert cli_module._text_field(str(tmp_path / "notes.jsonl"), "body") == "body"  # a data file's field: taken
    assert cli_module._text_field("hf:org/name:train", "body") == "body"
    assert cli_module._text_field(str(tmp_path / "notes.txt"), None) == "text"  # not given: the default


# ---------------------------------------------------------------------------------------------
# OSError: the real cause


class _Verdict:
    def __init__(self, row):
        self._row = row

    def row(self, label):
        return {"chapter": label, **self._row}


def fake_verdicts(rows):
    """``chapter_verdicts`` that yields made-up verdicts at once, for the command's output alone."""
    def chapter_verdicts(model_set, pages, device="auto"):
        yield pages[0], [_Verdict(r) for r in rows]
    return chapter_verdicts


def into_closed_pipe(argv: list[str], monkeypatch) -> int:
    """``main(argv)`` with stdout a pipe whose reader has closed it, as ``| head -1`` leaves it once it has its
    line."""
    read, write = os.pipe()
    os.close(read)
    with open(write, "w") as stream, monkeypatch.context() as patch:  # closed once main pointed it at /dev/null
        patch.setattr(sys, "stdout", stream)
        return main(argv)


def test_a_closed_pipe_ends_quietly(result, capsys, monkeypatch):
    """Before: `rankscale metrics ... | head -1` and `rankscale verdicts ... | head -1` said "error: Broken pipe;
    check that the file can be read and its disk has space" and exited 1."""
    import rankscale.claims.chapters as chapters

    assert into_closed_pipe(["metrics", str(result), "--n-boot", "0", "--quiet"], monkeypatch) == 141
    assert cli_module.BROKEN_PIPE == 141  # 128 + SIGPIPE, as a shell reports a program that a closed pipe stopped
    rows = [{"key": f"A{i}", "verdict": "held", "held": 1, "tested": 1, "claim": "x" * 200} for i in range(500)]
    monkeypatch.setattr(chapters, "chapter_verdicts", fake_verdicts(rows))
    assert into_closed_pipe(["verdicts", "--json", "--quiet"], monkeypatch) == 141
    assert into_closed_pipe(["verdicts", "--quiet"], monkeypatch) == 141
    assert capsys.readouterr().err == ""


@pytest.mark.slow  # the command line in a subprocess
def test_a_closed_pipe_ends_quietly_in_a_real_process(result):
    """Before: exit 1 and an error line; Python's own flush at exit could add a second message."""
    child = subprocess.Popen([sys.executable, "-m", "rankscale", "metrics", str(result), "--n-boot", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # before it writes: it is still importing
    _, err = child.communicate(timeout=300)
    assert child.returncode == 141 and err == b""


@pytest.mark.parametrize("code, filename, fix", [
    (errno.ENOENT, "missing/folder/rows.csv", "the folder {tmp}/missing/folder does not exist: create it, or give a "
                                              "path in a folder that does"),
    (errno.ENOENT, "rows.csv", "No such file or directory: {tmp}/rows.csv; check the path"),
    (errno.ENOSPC, "rows.csv", "; free some space, then run the same command again"),
    (errno.EDQUOT, "rows.csv", "; free some space within your quota"),
    (errno.EACCES, "rows.csv", "; check its permissions, or choose a path you can read or write"),
    (errno.EPERM, "rows.csv", "; check its permissions"),
    (errno.EROFS, "rows.csv", "; choose a path on a file system you can write to"),
    (errno.EISDIR, "rows.csv", "; it is a folder: name a file"),
    (errno.ENOTDIR, "rows.csv", "; a part of the path is a file, not a folder: correct the path"),
    (errno.EIO, "rows.csv", "; the disk or the network file system failed: check it"),
    (errno.EBUSY, "rows.csv", "; check that the file can be read and its disk has space"),
])
def test_an_os_error_names_its_cause(result, tmp_path, capsys, monkeypatch, code, filename, fix):
    """Before: every OSError said "check that the file can be read and its disk has space", a missing folder
    included."""
    import rankscale.analysis.metrics as metrics

    def fails(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(tmp_path / filename))

    monkeypatch.setattr(metrics, "summary_with_errors", fails)  # where metrics meets the disk, say
    status, err = cli(capsys, "metrics", result, "--n-boot", "0")
    assert status == 1 and err.count("\n") == 1 and fix.format(tmp=tmp_path) in err


def test_a_missing_or_wrong_output_is_named(result, tmp_path, capsys):
    """Before: `metrics --output missing/rows.csv` said "No such file or directory: ...; check that the file can be
    read and its disk has space"."""
    status, err = cli(capsys, "metrics", result, "--n-boot", "0", "--output", tmp_path / "missing" / "rows.csv")
    assert (status, err) == (1, f"error: the folder {tmp_path / 'missing'} does not exist: create it, or give a path "
                                "in a folder that does\n")
    (tmp_path / "rows.csv").mkdir()
    status, err = cli(capsys, "metrics", result, "--n-boot", "0", "--output", tmp_path / "rows.csv")
    assert status == 1 and err.endswith("rows.csv; it is a folder: name a file\n")


# ---------------------------------------------------------------------------------------------
# Extreme settings refused up front; --json never writes a value JSON has not


@pytest.mark.parametrize("temperature", ["1e-30", "1e-40", "0.001", "1000", "1e40", "nan", "inf", "0", "-1"])
def test_a_temperature_without_finite_numbers_is_refused_up_front(model_dir, corpus_file, tmp_path, capsys,
                                                                  monkeypatch, temperature):
    """Before: --temperature 1e-30 was accepted (its perplexities infinite, written as Infinity); 1e-40 on a float32
    run was told to "extract with --dtype float32"; 1e40 tied every token."""
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("the model loaded for a refused temperature"))
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", corpus_file, "--tokens", N, "--out",
                      tmp_path / "run", "--dtype", "float32", "--temperature", temperature, "--quiet")
    assert status == 1 and err.count("\n") == 1
    assert "temperature must be a positive number from 0.01 to 100, where it gives finite" in err
    assert "the perplexities overflow" in err and "--dtype" not in err and not (tmp_path / "run").exists()


def strict_json(text: str):
    """``json.loads`` that refuses Infinity and NaN, as JSON readers other than Python's do."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_json_output_has_null_for_a_number_that_is_not_finite(result, tmp_path, capsys, monkeypatch):
    """Before: `metrics --json` wrote Infinity for an infinite perplexity (a temperature of 1e-30), which no JSON
    reader but Python's takes; `verdicts --json` alike."""
    import rankscale.analysis.metrics as metrics
    import rankscale.claims.chapters as chapters

    real = metrics.summary_with_errors
    monkeypatch.setattr(metrics, "summary_with_errors",
                        lambda *a, **k: {**real(*a, **k), "word_perplexity": math.inf, "byte_perplexity": math.nan})
    assert main(["metrics", str(result), "--n-boot", "0", "--json"]) == 0
    row = strict_json(capsys.readouterr().out)
    assert row["word_perplexity"] is row["byte_perplexity"] is None and math.isfinite(row["ce_nats"])
    assert main(["metrics", str(result), "--n-boot", "0", "--output", str(tmp_path / "rows.jsonl")]) == 0
    assert strict_json((tmp_path / "rows.jsonl").read_text())["word_perplexity"] is None
    capsys.readouterr()  # the table, for the eye
    monkeypatch.setattr(chapters, "chapter_verdicts", fake_verdicts([{"key": "A1", "verdict": "held", "held": 1,
                                                                      "tested": 1, "claim": "c", "ours": -math.inf,
                                                                      "units": [{"slope": math.nan}]}]))
    assert main(["verdicts", "--json", "--quiet"]) == 0
    (row,) = strict_json(capsys.readouterr().out)
    assert row["ours"] is None and row["units"] == [{"slope": None}]


# ---------------------------------------------------------------------------------------------
# Paths and token counts that mean what they say


def test_every_path_argument_expands_the_home_folder(result, tmp_path, capsys, monkeypatch):
    """Before: `--out "~/x"` made a folder named ~ in the working directory, and so did every path argument
    given ~ in quotes or after =."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    parser = build_parser()
    for argv, names in [
        (["extract", "--model", "~/m", "--corpus", "~/c.jsonl", "--out", "~/o"], ["model", "corpus", "out"]),
        (["metrics", "~/r1", "~/r2", "--output", "~/rows.csv"], ["dir", "output"]),
        (["ladder", "--profile", "~/set.toml", "--home", "~/h"], ["profile", "home"]),
        (["book", "--profile", "~/set.toml", "--out", "~/b"], ["profile", "out"]),
        (["publish", "--out", "~/b"], ["out"]),
        (["verdicts", "--profile", "~/set.toml"], ["profile"]),
        (["check-profile", "~/set.toml"], ["profile"]),
        (["plan", "~/set.toml", "--results", "~/r"], ["profile", "results"]),
    ]:
        args = parser.parse_args(argv)
        for name in names:
            values = getattr(args, name)
            assert all(v.startswith(f"{home}/") for v in (values if isinstance(values, list) else [values])), argv
    monkeypatch.chdir(tmp_path)
    assert main(["metrics", str(result), "--n-boot", "0", "--output", "~/rows.csv", "--quiet"]) == 0
    assert (home / "rows.csv").is_file() and not (tmp_path / "~").exists()


def test_tokens_0_means_every_token_as_in_a_model_set(model_dir, tmp_path, capsys):
    """Before: `extract --tokens 0` was refused ("--tokens must be a positive number"), while a set's [corpora]
    took 0 to mean every token the corpus's sampling gives."""
    assert build_parser().parse_args(["extract", "--model", "m", "--corpus", "c", "--out", "o", "--tokens",
                                      "0"]).tokens is None
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["extract", "--model", "m", "--corpus", "c", "--out", "o", "--tokens", "-5"])
    assert stop.value.code == 2 and "expected a whole number of at least 0, got '-5'" in capsys.readouterr().err
    text = "a short note to score whole. " * 12
    (tmp_path / "short.txt").write_text(text)
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", tmp_path / "short.txt", "--tokens", 0,
                      "--window", 64, "--out", tmp_path / "run", "--quiet")
    assert status == 0, err
    records = load_records(tmp_path / "run")
    assert records.manifest.identity["n_tokens"] is None  # the identity of a set's `= 0`
    assert int(records.n_bytes.sum()) == len(text.encode())  # every token of the text scored
