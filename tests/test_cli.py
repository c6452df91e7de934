"""The command line, run as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from rankscale.analysis.metrics import rank_1based, summary
from rankscale.analysis.rank_models import rank_fits_record
from rankscale.records.store import load_records

pytestmark = pytest.mark.slow  # the command line in subprocesses


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rankscale", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env)


def test_extract_then_metrics(model_dir, corpus_file, tmp_path):
    out = tmp_path / "records"
    done = cli("extract", "--model", model_dir, "--corpus", corpus_file, "--tokens", 1500, "--out", out,
               "--window", 100, "--device", "cpu")
    assert done.returncode == 0, done.stderr
    assert "tok/s" in done.stderr  # the progress bar reports throughput
    shown = cli("metrics", out)
    assert shown.returncode == 0, shown.stderr
    expected = summary(*(getattr(load_records(out), f) for f in ("logp", "gt", "ge")))
    for name in ("CE", "RBP_1", "RBP_10", "RBP_100", "RBP_1000", "EE", "SA", "Conf"):
        assert f"{name:>10} {expected[name]:.6f}" in shown.stdout
    assert "1,500 tokens" in shown.stdout
    records = load_records(out)
    as_json = json.loads(cli("metrics", out, "--json").stdout)
    assert set(as_json) == {"model", "corpus", "n_tokens", "ce", "rbp", "decomposition", "rank_fits"}
    assert as_json["ce"] == pytest.approx(-records.logp.astype(np.float64).mean())
    assert as_json["rbp"] == {str(k): float(np.mean(records.ge < k)) for k in (1, 10, 100, 1000)}  # rank = ge + 1
    assert as_json["decomposition"] == {"ee": expected["EE"], "sa": expected["SA"], "conf": expected["Conf"]}
    # the chapters' own functions, on the same ranks
    record = rank_fits_record(rank_1based(records.gt, records.ge), records.manifest.vocab_size)
    assert as_json["rank_fits"] == json.loads(json.dumps(record))
    assert set(as_json["rank_fits"]) == {"lognormal_authors", "lognormal_eq10", "power_law"}
    assert as_json["rank_fits"]["power_law"]["alpha"] > 1


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
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["ladder", "--home", "HOME"], ["book", "--out", "HOME"]])
def test_training_on_a_gpu_torch_does_not_see_is_one_line(command, tmp_path):
    """``--train-device cuda`` where torch sees no GPU (none made visible, as on a GPU machine too):
    refused before anything is trained, extracted or written."""
    hidden = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "RANKSCALE_HOME": str(tmp_path)}
    done = cli(*[str(tmp_path) if a == "HOME" else a for a in command], "--profile", "smoke", "--train-device", "cuda",
               env=hidden)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: training device 'cuda': this torch ") and "sees no CUDA GPU" in done.stderr
    assert not (tmp_path / "models").exists() and not (tmp_path / "_build").exists()


def test_an_unreadable_corpus_file_is_one_line(model_dir, tmp_path):
    (tmp_path / "data.parquet").write_bytes(b"these bytes are no parquet file \xff\xfe")
    done = cli("extract", "--model", model_dir, "--corpus", tmp_path / "data.parquet", "--tokens", 10,
               "--out", tmp_path / "o")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: cannot load ") and "data.parquet: ArrowInvalid" in done.stderr
    assert done.stderr.count("\n") == 1

