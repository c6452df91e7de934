"""The command line, run as a user would."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankscale import cli as cli_module
from rankscale.analysis.metrics import rank_1based, summary_with_errors
from rankscale.analysis.rank_models import rank_fits_record
from rankscale.cli import main
from rankscale.records import store
from rankscale.records.store import load_records


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rankscale", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.slow  # the command line in subprocesses
def test_extract_then_metrics(model_dir, corpus_file, tmp_path):
    out = tmp_path / "records"
    done = cli("extract", "--model", model_dir, "--corpus", corpus_file, "--tokens", 1500, "--out", out,
               "--window", 100, "--device", "cpu")
    assert done.returncode == 0, done.stderr
    assert "tok/s" in done.stderr  # the progress bar reports throughput
    records = load_records(out)
    as_json = json.loads(cli("metrics", out, "--json", "--rank-fits").stdout)
    expected = summary_with_errors(sample(records), n_boot=100, seed=0)
    assert expected["bits_per_byte"] > 0 and expected["word_perplexity"] > 0
    assert {k: as_json[k] for k in expected} == expected
    assert as_json["n_tokens"] == 1500 and as_json["model"] == str(model_dir) and as_json["corpus"] == str(corpus_file)
    assert as_json["ce_nats"] == pytest.approx(-records.logp.astype(np.float64).mean())
    ks = (1, 10, 100, 1000)
    assert [as_json[f"rbp_{k}"] for k in ks] == [float(np.mean(records.ge < k)) for k in ks]  # rank = ge + 1
    # the chapters' own functions, on the same ranks
    fits = json.loads(json.dumps(rank_fits_record(rank_1based(records.gt, records.ge), records.manifest.vocab_size)))
    assert as_json["power_law_alpha"] == fits["power_law"]["alpha"] > 1
    assert as_json["lognormal_authors_mu"] == fits["lognormal_authors"].get("mu")
    shown = cli("metrics", out)
    assert shown.returncode == 0, shown.stderr
    header, row = shown.stdout.splitlines()
    assert header.split() == [k for k in as_json if k not in cli_module.TABLE_LEAVES_OUT and "lognormal" not in k
                              and "power_law" not in k]
    assert row.split()[:3] == [str(out), "1500", f"{as_json['ce_nats']:.5g}"]


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["metrics", "/no/such/dir"], "holds no manifest.json"),
    (["extract", "--model", "./missing-model", "--corpus", "CORPUS", "--tokens", 10, "--out", "o"],
     "no model at './missing-model'"),
    (["extract", "--model", "MODEL", "--corpus", "no-such-corpus", "--tokens", 10, "--out", "o"],
     "unknown corpus"),
])
def test_errors_are_messages_not_tracebacks(args, message, model_dir, corpus_file, tmp_path):
    named = {"CORPUS": corpus_file, "MODEL": model_dir, "o": tmp_path / "o"}
    done = cli(*[named.get(a, a) if isinstance(a, str) else a for a in args])
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command", [["ladder", "--home", "HOME"], ["book", "--out", "HOME"]])
def test_training_on_a_gpu_torch_does_not_see_is_one_line(command, tmp_path):
    """``--train-device cuda`` where torch sees no GPU (none made visible, as on a GPU machine too):
    refused before anything is trained, extracted or written."""
    hidden = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "RANKSCALE_HOME": str(tmp_path)}
    done = cli("--quiet", *[str(tmp_path) if a == "HOME" else a for a in command], "--profile", "smoke",
               "--train-device", "cuda", env=hidden)  # --quiet: the book's opening message left out
    assert done.returncode == 1 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: training device 'cuda': this torch ") and "sees no CUDA GPU" in done.stderr
    assert not (tmp_path / "models").exists() and not (tmp_path / "_build").exists()


@pytest.mark.slow
def test_an_unreadable_corpus_file_is_one_line(model_dir, tmp_path):
    (tmp_path / "data.parquet").write_bytes(b"these bytes are no parquet file \xff\xfe")
    done = cli("extract", "--model", model_dir, "--corpus", tmp_path / "data.parquet", "--tokens", 10,
               "--out", tmp_path / "o")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: cannot load ") and "data.parquet: ArrowInvalid" in done.stderr
    assert done.stderr.count("\n") == 1



# ---------------------------------------------------------------------------------------------
# In this process, on results written here: metrics over many folders, exit statuses, logging


def write_result(folder: Path, seed: int, n_windows: int = 12, size: int = 20, format: int = store.FORMAT) -> Path:
    """A finished results folder of made-up records, through the store's own writers; of ``format`` 3, as
    rankscale wrote before records carried each target's span (its bytes and words)."""
    rng = np.random.default_rng(seed)
    n = n_windows * size
    gt = rng.geometric(0.2, n).astype(np.int32) - 1
    n_bytes = rng.integers(1, 7, n).astype(np.int32)
    ends = np.cumsum(n_bytes)
    arrays = {"logp": (-rng.exponential(2.0, n)).astype(np.float32), "gt": gt, "ge": gt,
              "target": rng.integers(0, 50, n).astype(np.int32),
              "window": np.repeat(np.arange(n_windows), size).astype(np.int32),
              "top_logp": np.full((n, store.TOP_K), -1.0, np.float32),
              "document": np.repeat(np.arange(n_windows) // 2, size), "char_start": ends - n_bytes, "char_end": ends,
              "n_bytes": n_bytes, "n_words": rng.integers(0, 2, n).astype(np.int32)}
    manifest = store.Manifest({"model": {"digest": str(seed)}, "dtype": "float32"},
                              {"model": f"runs/m{seed}", "corpus": "notes.txt"}, "notes", "0.1.0", vocab_size=50,
                              head_rows=50, params_total=900, params_non_embedding=500, n_windows=n_windows,
                              shards=(store.Shard("shard-00000.npz", (0, n_windows), n),), format=format)
    folder.mkdir(parents=True)
    manifest.write(folder)
    store.write_shard(folder / "shard-00000.npz", {k: arrays[k] for k in store.shard_fields(format)}, manifest.digest)
    manifest.finished(folder).write(folder)
    return folder


def sample(records: store.Records) -> dict:
    """What ``rankscale metrics`` computes on: the per-target arrays with the documents, bytes and words."""
    return {**records.arrays(), "document": records.document, "n_bytes": records.n_bytes, "n_words": records.n_words}


def test_metrics_of_many_results_in_one_table_csv_and_json_lines(tmp_path, capsys):
    """One row per folder, under the same names in the table's header, the CSV's and the JSON's, each
    number with its standard error; bytes and words that older records lack are - in the table, empty in
    the CSV and null in the JSON, and so are their standard errors, which resample documents they do not name."""
    folders = [write_result(tmp_path / "results" / name, seed, format=format)
               for seed, (name, format) in enumerate([("a", store.FORMAT), ("b", store.FORMAT), ("old", 3)])]
    assert main(["metrics", *map(str, folders), "--k", "1", "5", "--output", str(tmp_path / "all.csv")]) == 0
    table = capsys.readouterr().out.splitlines()
    header = table[0].split()
    assert header[:4] == ["result", "n_tokens", "ce_nats", "ce_nats_se"] and "rbp_5_se" in header
    assert [line.split()[0] for line in table[1:]] == list(map(str, folders))
    bits = header.index("bits_per_byte")
    assert [line.split()[bits] != "-" for line in table[1:]] == [True, True, False]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "all.csv").read_text())))
    assert main(["metrics", *map(str, folders), "--k", "1", "5", "--output", str(tmp_path / "all.jsonl")]) == 0
    assert capsys.readouterr().out.splitlines() == table  # the table on stdout whatever the file's form
    lines = [json.loads(line) for line in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert list(rows[0]) == list(lines[0]) and set(header) <= set(lines[0])
    assert all(name.endswith(("_nats", "_se", "per_byte", "perplexity")) or name.startswith(("rbp_", "n_", "params_"))
               or name in ("result", "model", "revision", "corpus", "dtype") for name in lines[0])
    for folder, line, row in zip(folders, lines, rows):
        records = load_records(folder)
        expected = summary_with_errors(sample(records), ks=[1, 5], n_boot=0 if records.document is None else 100)
        assert {k: line[k] for k in expected} == expected
        assert line["result"] == str(folder) and line["model"] == records.manifest.source["model"]
        if records.n_bytes is None:
            assert line["bits_per_byte"] is line["word_perplexity_se"] is line["ce_nats_se"] is None
            assert row["bits_per_byte"] == row["ce_nats_se"] == "" and line["n_documents"] is None
        else:
            assert float(row["ce_nats_se"]) == line["ce_nats_se"] > 0 and line["n_documents"] == 6
            assert float(row["bits_per_byte"]) == line["bits_per_byte"] > 0 and line["word_perplexity_se"] > 0
    assert main(["metrics", str(folders[0]), "--format", "csv", "--n-boot", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split(",")[:2] == [str(folders[0]), "runs/m0"]


def test_usage_errors_exit_2_and_runtime_errors_exit_1(tmp_path, capsys, monkeypatch):
    folder = write_result(tmp_path / "a", 0)
    for usage in (["metrics"], ["metrics", str(folder), "--n-boot", "-1"],
                  ["metrics", str(folder), "--output", "a.txt"], ["--quiet", "--verbose", "metrics", str(folder)],
                  ["no-such-command"]):
        with pytest.raises(SystemExit) as stop:
            main(usage)
        assert stop.value.code == 2, usage
        assert "usage: rankscale" in capsys.readouterr().err
    missing = tmp_path / "missing"
    assert main(["metrics", str(folder), str(missing)]) == 1
    assert capsys.readouterr().err == (f"error: {missing} holds no manifest.json; run `python -m rankscale extract ... "
                                       f"--out {missing}` first\n")
    (folder / "shard-00000.npz").write_bytes(b"torn")
    assert main(["metrics", str(folder)]) == 1 and "is corrupt" in capsys.readouterr().err

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "_check_profile", interrupted)  # the parser names it when main builds it
    assert main(["check-profile", "tiny"]) == 130 and "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("flags, ours, theirs", [([], logging.INFO, logging.WARNING),
                                                 (["--quiet"], logging.WARNING, logging.ERROR),
                                                 (["-v"], logging.DEBUG, logging.INFO)])
def test_quiet_and_verbose_set_every_library_s_level(flags, ours, theirs, tmp_path, capsys, monkeypatch):
    """rankscale's messages go to stderr at INFO unless --quiet; transformers and datasets follow one step
    quieter, whether they are imported yet (their level variable) or already (their logger)."""
    import transformers  # noqa: F401  (imported: its logger is set directly)

    for name in ("TRANSFORMERS_VERBOSITY", "DATASETS_VERBOSITY"):
        monkeypatch.delenv(name, raising=False)
    folder = write_result(tmp_path / "a", 0)
    assert main([*flags, "metrics", str(folder), "--n-boot", "0", "--output", str(tmp_path / "a.jsonl")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("result") and ("1 row written to" in err) == (ours <= logging.INFO)
    assert ("240 targets in 12 windows" in err) == (ours <= logging.DEBUG)
    assert logging.getLogger("rankscale").getEffectiveLevel() == ours
    assert logging.getLogger("transformers").getEffectiveLevel() == theirs
    named = logging.getLevelName(theirs).lower()
    assert os.environ["TRANSFORMERS_VERBOSITY"] == os.environ["DATASETS_VERBOSITY"] == named
    assert main(["metrics", str(folder), "--n-boot", "0", *flags]) == 0  # after the subcommand as well
    assert logging.getLogger("rankscale").getEffectiveLevel() == ours
