"""Extraction against a slow reference, batch independence, storage, resume and bad input."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
import torch
from helpers import forward_reference

from rankscale import RankscaleError
from rankscale.corpora import get_corpus, target_spans, token_windows
from rankscale.models.loading import auto_dtype, load_model, real_vocab_size
from rankscale.records import extract as ex
from rankscale.records import store as rs

N_TOKENS = 3000


@pytest.fixture(scope="module")
def loaded(model_dir):
    return load_model(str(model_dir))


@pytest.fixture(scope="module")
def cut(loaded, corpus_file):
    """The windows extraction cuts from the test corpus."""
    _, tok = loaded
    return token_windows(get_corpus(str(corpus_file)).load(), tok, N_TOKENS, window_len=100)


@pytest.fixture(scope="module")
def windows(cut):
    """Their tokens, each window scored after its first token, for the tests of ``rank_records`` alone."""
    return [w.ids for w in cut]


def test_matches_slow_reference_with_ties_and_padded_head(loaded, windows):
    model, tok = loaded
    n_real = real_vocab_size(tok)
    assert model.get_output_embeddings().weight.shape[0] > n_real  # the head is padded
    rec = ex.rank_records(model, windows, n_real, batch_size=4, chunk_tokens=97)
    ref = forward_reference(model, windows, n_real)
    assert len(rec["gt"]) == N_TOKENS
    np.testing.assert_array_equal(rec["gt"], ref["gt"])
    np.testing.assert_array_equal(rec["ge"], ref["ge"])
    np.testing.assert_allclose(rec["logp"], ref["logp"], atol=2e-5)
    np.testing.assert_allclose(rec["top_logp"], ref["top_logp"], atol=2e-5)
    # the best token's log-probability bounds the target's, with equality exactly at rank 1
    assert (rec["top_logp"][:, 0] >= rec["logp"] - 1e-6).all()
    np.testing.assert_allclose(rec["top_logp"][rec["gt"] == 0, 0], rec["logp"][rec["gt"] == 0], atol=1e-6)
    np.testing.assert_array_equal(rec["target"], np.concatenate([w[1:] for w in windows]))
    # the constructed ties really occur, and the padded rows, which outscore every real token,
    # were not counted: counting them would have moved every rank
    assert (rec["ge"] > rec["gt"]).sum() > 100
    np.testing.assert_array_equal(ref["gt_all_rows"], rec["gt"] + (model.get_output_embeddings().weight.shape[0] - n_real))


def test_bfloat16_body_uses_fp32_head(model_dir, windows):
    model, tok = load_model(str(model_dir), dtype="bfloat16")
    assert model.dtype == torch.bfloat16
    n_real = real_vocab_size(tok)
    rec = ex.rank_records(model, windows[:5], n_real)
    with torch.no_grad():
        hidden = [model.base_model(input_ids=torch.from_numpy(w)[None]).last_hidden_state[0, :-1] for w in windows[:5]]
    logits32 = torch.cat(hidden).float() @ model.get_output_embeddings().weight[:n_real].float().T
    logits16 = torch.cat(hidden) @ model.get_output_embeddings().weight[:n_real].T
    targets = torch.from_numpy(np.concatenate([w[1:] for w in windows[:5]]))[:, None]
    ge32 = (logits32 >= logits32.gather(1, targets)).sum(1) - 1
    ge16 = (logits16 >= logits16.gather(1, targets)).sum(1) - 1
    np.testing.assert_array_equal(rec["ge"], ge32.numpy())
    assert not np.array_equal(rec["ge"], ge16.numpy())  # bf16 logits would have given other ranks


def test_batch_size_does_not_change_results(loaded, windows):
    model, tok = loaded
    one = ex.rank_records(model, windows, real_vocab_size(tok), batch_size=1)
    eight = ex.rank_records(model, windows, real_vocab_size(tok), batch_size=8)
    for name in rs.RECORD_FIELDS:
        np.testing.assert_array_equal(one[name], eight[name])


def test_a_longer_context_scores_the_same_targets_as_the_tail_of_a_window(loaded, windows):
    """A window whose first c tokens are context (a document's last window under the rolling rule) has the
    records of its last len - c targets, as they are when every token after the first is scored."""
    model, tok = loaded
    n_real = real_vocab_size(tok)
    some = windows[:5]
    context = [1, 3, 50, 98, 2]
    full = ex.rank_records(model, some, n_real, batch_size=2, chunk_tokens=97)
    part = ex.rank_records(model, some, n_real, context=context, batch_size=2, chunk_tokens=97)
    keep = np.concatenate([np.arange(1, len(w)) >= c for w, c in zip(some, context)])
    assert len(part["logp"]) == keep.sum() == sum(len(w) - c for w, c in zip(some, context))
    np.testing.assert_array_equal(part["window"], full["window"][keep])
    for name in ("gt", "ge", "target"):
        np.testing.assert_array_equal(part[name], full[name][keep])
    np.testing.assert_allclose(part["logp"], full["logp"][keep], atol=1e-6)
    with pytest.raises(RankscaleError, match="cannot have 100 tokens of context"):
        ex.rank_records(model, some[:1], n_real, context=[100])


def test_temperature_keeps_the_ranks_and_tempers_the_softmax(loaded, windows):
    """At T = 0.5 and 2 (exact scalings of binary floating-point logits) every rank count is the
    one of T = 1, and the log-probabilities are a brute-force softmax of the logits divided by T."""
    model, tok = loaded
    n_real = real_vocab_size(tok)
    some = windows[:6]
    plain = ex.rank_records(model, some, n_real, batch_size=4, chunk_tokens=97)
    with torch.no_grad():
        hidden = torch.cat([model.base_model(input_ids=torch.from_numpy(w)[None]).last_hidden_state[0, :-1]
                            for w in some]).float()
        logits = (hidden @ model.get_output_embeddings().weight[:n_real].float().T).double().numpy()
    targets = np.concatenate([w[1:] for w in some])
    for t in (0.5, 2.0):
        rec = ex.rank_records(model, some, n_real, batch_size=4, chunk_tokens=97, temperature=t)
        np.testing.assert_array_equal(rec["gt"], plain["gt"])
        np.testing.assert_array_equal(rec["ge"], plain["ge"])
        z = logits / t
        log_z = np.log(np.exp(z - z.max(1, keepdims=True)).sum(1)) + z.max(1)
        np.testing.assert_allclose(rec["logp"], z[np.arange(len(z)), targets] - log_z, atol=2e-5)
        np.testing.assert_allclose(rec["top_logp"], -np.sort(-z, axis=1)[:, :rs.TOP_K] - log_z[:, None], atol=2e-5)
        assert not np.allclose(rec["logp"], plain["logp"], atol=1e-3)  # the probabilities did move


def run(model_dir, corpus_file, out, **kw):
    kw.setdefault("n_tokens", N_TOKENS)
    return ex.extract(str(model_dir), str(corpus_file), out_dir=out, window_len=100, shard_tokens=700,
                      progress=False, **kw)


@pytest.fixture(scope="module")
def finished(model_dir, corpus_file, tmp_path_factory):
    return run(model_dir, corpus_file, tmp_path_factory.mktemp("full") / "run")


def test_extract_writes_manifest_and_shards(finished, model_dir, cut):
    manifest = json.loads((finished / rs.MANIFEST).read_text())
    assert manifest["complete"] and manifest["identity"]["n_tokens"] == N_TOKENS
    assert manifest["source"]["model"] == str(model_dir.resolve()) and manifest["code_version"]
    # the model by the content of its files, not by its path
    files = manifest["identity"]["model"]["directory"]["files"]
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= files.keys()
    assert files["model.safetensors"] == hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    sizes = [s["n_tokens"] for s in manifest["shards"]]
    assert len(sizes) == 4 and all(700 <= n < 700 + 99 for n in sizes[:-1])  # windows hold 99 targets
    rec = rs.load_records(finished)
    assert len(rec) == N_TOKENS and sum(s["n_tokens"] for s in manifest["shards"]) == N_TOKENS
    # window ids are global across shards and the stored targets are the windows' tokens
    np.testing.assert_array_equal(rec.window, np.repeat(np.arange(len(cut)), [len(w.targets) for w in cut]))
    np.testing.assert_array_equal(rec.target, np.concatenate([w.targets for w in cut]))
    for name, values in target_spans(cut).items():
        np.testing.assert_array_equal(getattr(rec, name), values)
    assert not list(finished.glob("*.tmp"))


def test_finished_extraction_is_reused_without_loading(finished, model_dir, corpus_file, monkeypatch):
    stamp = [p.stat().st_mtime_ns for p in sorted(finished.glob("shard-*.npz"))]
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("model loaded for a finished pair"))
    assert run(model_dir, corpus_file, finished) == finished
    assert stamp == [p.stat().st_mtime_ns for p in sorted(finished.glob("shard-*.npz"))]


def test_auto_dtype_is_resolved_before_the_identity(finished, model_dir, corpus_file, monkeypatch):
    assert (auto_dtype("cpu"), auto_dtype("cuda:1")) == ("float32", "bfloat16")
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("model loaded for a finished pair"))
    assert run(model_dir, corpus_file, finished, dtype="auto") == finished  # float32 on CPU: the same run


def test_temperature_is_part_of_the_identity(finished, model_dir, corpus_file, tmp_path):
    assert json.loads((finished / rs.MANIFEST).read_text())["identity"]["temperature"] == 1.0
    out = run(model_dir, corpus_file, tmp_path / "hot", n_tokens=300, temperature=2.0)
    assert json.loads((out / rs.MANIFEST).read_text())["identity"]["temperature"] == 2.0
    with pytest.raises(RankscaleError, match=r"another result \(it differs in: temperature\)"):
        run(model_dir, corpus_file, out, n_tokens=300)
    with pytest.raises(RankscaleError, match="temperature must be a positive number"):
        run(model_dir, corpus_file, tmp_path / "frozen", n_tokens=300, temperature=0.0)
    assert not (tmp_path / "frozen").exists()


def test_the_manifest_says_how_the_records_were_made(finished):
    """Date, device and versions are recorded beside the identity, never inside it, and so are
    the path of the model and of the corpus."""
    import platform

    import transformers

    from rankscale import __version__

    manifest = json.loads((finished / rs.MANIFEST).read_text())
    made = manifest["provenance"]
    assert made["versions"] == {"rankscale": __version__, "torch": torch.__version__,
                                "transformers": transformers.__version__, "python": platform.python_version()}
    assert made["device"].startswith("cpu (") and made["date"].endswith("+00:00")
    assert made["threads"] == torch.get_num_threads()
    assert abs(datetime.fromisoformat(made["date"]) - datetime.now(timezone.utc)) < timedelta(hours=1)
    assert set(manifest["identity"]) == {"model", "load", "corpus", "n_tokens", "window_len", "seed", "dtype",
                                         "temperature", "format"}
    assert set(manifest["source"]) == {"model", "revision", "corpus"}


def test_records_written_before_the_provenance_are_still_reused(finished, model_dir, corpus_file, tmp_path,
                                                                monkeypatch):
    """The provenance is never compared: a result whose manifest lacks it (or says another date or
    machine) is the same result, reused as it is by extract and counted as done by the jobs."""
    from rankscale.records import jobs
    from rankscale.sets.schema import ModelSet

    old = tmp_path / "old"
    old.mkdir()
    for f in finished.iterdir():
        (old / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((old / rs.MANIFEST).read_text())
    del manifest["provenance"]
    (old / rs.MANIFEST).write_text(json.dumps(manifest))
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("a finished result was recomputed"))
    assert run(model_dir, corpus_file, old) == old and "provenance" not in json.loads((old / rs.MANIFEST).read_text())
    model_set = ModelSet("t", (), {str(corpus_file): N_TOKENS}, window=100)
    job = dataclasses.replace(jobs.make_job(model_set, tmp_path, "F", "m", str(model_dir), None, None, str(corpus_file),
                                            N_TOKENS), out=old)
    assert jobs.is_done(job)
    eager = jobs.make_job(model_set, tmp_path, "F", "m", str(model_dir), None, None, str(corpus_file), N_TOKENS,
                          load=(("attn_implementation", "eager"),))
    assert not jobs.is_done(dataclasses.replace(eager, out=old))


def test_load_options_are_part_of_the_identity(finished, model_dir, corpus_file, tmp_path):
    assert json.loads((finished / rs.MANIFEST).read_text())["identity"]["load"] == {}
    out = run(model_dir, corpus_file, tmp_path / "eager", n_tokens=300, load={"attn_implementation": "eager"})
    assert json.loads((out / rs.MANIFEST).read_text())["identity"]["load"] == {"attn_implementation": "eager"}
    with pytest.raises(RankscaleError, match=r"another result \(it differs in: load.attn_implementation\)"):
        run(model_dir, corpus_file, out, n_tokens=300)


def test_model_args_on_the_command_line(model_dir, corpus_file, tmp_path, capsys):
    from rankscale.cli import main

    out = tmp_path / "cli"
    args = ["extract", "--model", str(model_dir), "--corpus", str(corpus_file), "--tokens", "200", "--window", "100",
            "--out", str(out), "--quiet"]
    assert main([*args, "--model-args", "attn_implementation=eager,trust_remote_code=false"]) == 0
    assert rs.load_records(out).manifest.identity["load"] == {"attn_implementation": "eager",
                                                               "trust_remote_code": False}
    assert main([*args, "--model-args", "eager", "--force"]) == 1
    assert "error: --model-args: expected key=value pairs" in capsys.readouterr().err


def test_out_of_memory_halves_the_batch_until_it_fits(finished, model_dir, corpus_file, tmp_path, monkeypatch):
    real_load, real_rank = ex.load_model, ex.rank_records

    def load_on_a_small_gpu(*args, **kwargs):
        net, tok = real_load(*args, **kwargs)

        def check(module, args, kwargs):
            if kwargs["input_ids"].shape[0] > 2:
                raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        net.base_model.register_forward_pre_hook(check, with_kwargs=True)
        return net, tok

    tried = []

    def spy(*args, batch_size, **kwargs):
        tried.append(batch_size)
        return real_rank(*args, batch_size=batch_size, **kwargs)

    monkeypatch.setattr(ex, "load_model", load_on_a_small_gpu)
    monkeypatch.setattr(ex, "rank_records", spy)
    out = run(model_dir, corpus_file, tmp_path / "run", batch_size=8)
    assert tried == [8, 4, 2, 2, 2, 2]  # halved on the first shard, then kept for the other three
    a, b = rs.load_records(out), rs.load_records(finished)
    for name in rs.RECORD_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))

    def never_fits(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory (simulated)")

    monkeypatch.setattr(ex, "rank_records", never_fits)
    with pytest.raises(RankscaleError, match="out of memory with one window per forward pass"):
        run(model_dir, corpus_file, tmp_path / "run2")


def test_interrupted_run_resumes_to_identical_arrays(finished, model_dir, corpus_file, tmp_path, monkeypatch):
    out = tmp_path / "run"
    written = []
    real_write = ex.write_shard

    def write_then_stop(path, arrays, identity):
        if len(written) == 2:
            raise KeyboardInterrupt
        real_write(path, arrays, identity)
        written.append(path.name)

    monkeypatch.setattr(ex, "write_shard", write_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run(model_dir, corpus_file, out)
    monkeypatch.setattr(ex, "write_shard", real_write)
    assert len(list(out.glob("shard-*.npz"))) == 2
    with pytest.raises(RankscaleError, match="incomplete"):
        rs.load_records(out)
    # debris a hard kill could leave: a temporary file and a truncated shard
    (out / "shard-00003.npz.999.tmp").write_bytes(b"partial")
    (out / "shard-00002.npz").write_bytes(b"PK\x03\x04truncated")
    resumed_writes = []
    monkeypatch.setattr(ex, "write_shard", lambda p, a, i: (resumed_writes.append(p.name), real_write(p, a, i)))
    run(model_dir, corpus_file, out)
    assert resumed_writes == ["shard-00002.npz", "shard-00003.npz"]
    a, b = rs.load_records(out), rs.load_records(finished)
    for name in rs.RECORD_FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not list(out.glob("*.tmp"))


def test_corrupt_shard_is_reported_then_repaired(model_dir, corpus_file, tmp_path):
    out = run(model_dir, corpus_file, tmp_path / "run")
    good = rs.load_records(out).gt.copy()
    shard = out / "shard-00001.npz"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    with pytest.raises(RankscaleError, match="corrupt"):
        rs.load_records(out)
    run(model_dir, corpus_file, out)
    np.testing.assert_array_equal(rs.load_records(out).gt, good)


def test_missing_manifest_and_other_settings(model_dir, corpus_file, finished, tmp_path):
    with pytest.raises(RankscaleError, match="no manifest.json"):
        rs.load_records(tmp_path)
    with pytest.raises(RankscaleError, match=r"another result \(it differs in: n_tokens\).*--force"):
        run(model_dir, corpus_file, finished, n_tokens=N_TOKENS - 1)


def older_copy(finished, old, format=3):
    """A copy of the records in ``finished`` as an older version wrote them: a manifest of
    ``format`` (its identity too), and, for format 3, shards without the targets' spans, each
    carrying that identity's digest."""
    from rankscale.hashing import digest

    old.mkdir()
    manifest = json.loads((finished / rs.MANIFEST).read_text())
    manifest["format"] = manifest["identity"]["format"] = format
    for shard in manifest["shards"]:
        with np.load(finished / shard["file"]) as data:
            arrays = {k: data[k] for k in rs.RECORD_FIELDS}
        rs.write_shard(old / shard["file"], arrays, digest(manifest["identity"]))
        shard["sha256"] = hashlib.sha256((old / shard["file"]).read_bytes()).hexdigest()
    (old / rs.MANIFEST).write_text(json.dumps(manifest))
    return old


def test_records_of_format_3_load_without_spans(finished, tmp_path):
    old = older_copy(finished, tmp_path / "old")
    records, current = rs.load_records(old), rs.load_records(finished)
    assert records.manifest.format == 3 and current.manifest.format == rs.FORMAT
    for name in rs.RECORD_FIELDS:
        np.testing.assert_array_equal(getattr(records, name), getattr(current, name))
    assert all(getattr(records, name) is None for name in rs.SPAN_FIELDS)
    assert all(len(getattr(current, name)) == N_TOKENS for name in rs.SPAN_FIELDS)


def test_records_to_pandas_one_row_per_target(finished, tmp_path):
    rec = rs.load_records(finished)
    table = rec.to_pandas(top=True)
    assert len(table) == N_TOKENS and table.index.tolist() == list(range(N_TOKENS))
    for name in ("window", "target", "logp", "gt", "ge", *rs.SPAN_FIELDS):
        np.testing.assert_array_equal(table[name].to_numpy(), getattr(rec, name))
    np.testing.assert_array_equal(table[[f"top_logp_{k + 1}" for k in range(rs.TOP_K)]].to_numpy(), rec.top_logp)
    assert table["logp"].dtype == np.float32 and str(table["n_bytes"].dtype) == "Int64"
    # per-document cross-entropy, the question the spans answer
    per_document = table.groupby("document")["logp"].mean()
    assert len(per_document) == len(set(rec.document.tolist())) >= 1
    old = rs.load_records(older_copy(finished, tmp_path / "old")).to_pandas()
    assert old["document"].isna().all() and list(old.columns) == list(table.columns[:len(old.columns)])


def test_records_of_an_older_format_ask_for_a_new_extraction(finished, tmp_path):
    old = older_copy(finished, tmp_path / "old", format=2)
    with pytest.raises(RankscaleError, match="format 2, this version reads formats 3 and 4.*--force"):
        rs.load_records(old)
    assert len(rs.load_records(finished)) == N_TOKENS  # the current format loads


def test_spans_give_back_each_targets_text(finished, corpus_file, loaded):
    """Each target's span of its document is the text of its token: its decoding where that is
    whole characters; a window's spans follow each other; bytes and words are those of the span."""
    _, tok = loaded
    documents = get_corpus(str(corpus_file)).load()
    rec = rs.load_records(finished)
    pieces = [documents[d][a:b] for d, a, b in zip(rec.document, rec.char_start, rec.char_end)]
    decoded = [tok.decode([t]) for t in rec.target]
    whole = [p == d for p, d in zip(pieces, decoded) if "\ufffd" not in d]
    assert len(whole) > 0.9 * N_TOKENS and all(whole)
    same_window = rec.window[1:] == rec.window[:-1]
    np.testing.assert_array_equal(rec.char_start[1:][same_window], rec.char_end[:-1][same_window])
    np.testing.assert_array_equal(rec.n_bytes, [len(p.encode()) for p in pieces])
    starts = {d: {m.start() for m in re.finditer(r"\S+", documents[d])} for d in set(rec.document.tolist())}
    np.testing.assert_array_equal(rec.n_words, [sum(a <= s < b for s in starts[d])
                                                for d, a, b in zip(rec.document, rec.char_start, rec.char_end)])
    assert rec.n_words.sum() > 100 and rec.document.dtype == np.int64 and rec.n_bytes.dtype == np.int32


def test_the_manifest_reads_back_what_it_wrote(finished, tmp_path):
    manifest = rs.Manifest.read(finished)
    assert manifest.complete and all(s.sha256 for s in manifest.shards) and manifest.verified(finished)
    manifest.write(tmp_path)
    assert rs.Manifest.read(tmp_path) == manifest
    assert json.loads((tmp_path / rs.MANIFEST).read_text())["format"] == rs.FORMAT
    assert not manifest.verified(tmp_path)  # the shards are not there


def test_corpus_shorter_than_tokens(model_dir, corpus_file, tmp_path):
    with pytest.raises(RankscaleError, match=r"only \d+ predictable tokens.*Ask for at most"):
        run(model_dir, corpus_file, tmp_path / "run", n_tokens=10**7)
    assert not (tmp_path / "run" / rs.MANIFEST).exists() or not json.loads(
        (tmp_path / "run" / rs.MANIFEST).read_text())["complete"]


def test_unknown_corpus(model_dir, tmp_path):
    with pytest.raises(RankscaleError, match="unknown corpus 'no-such-corpus'"):
        run(model_dir, "no-such-corpus", tmp_path / "run")


def test_window_longer_than_model_positions(model_dir, corpus_file, tmp_path):
    with pytest.raises(RankscaleError, match="exceeds the model's 128 positions"):
        ex.extract(str(model_dir), str(corpus_file), 100, tmp_path / "run", window_len=512, progress=False)


def test_an_older_format_is_replaced_when_asked(model_dir, corpus_file, finished, tmp_path):
    """`replace=True` (what the book's preparation passes) extracts again over records of an older
    format instead of refusing them."""
    for format in (2, 3):
        old = older_copy(finished, tmp_path / f"old{format}", format)
        with pytest.raises(RankscaleError, match="--force"):
            run(model_dir, corpus_file, old)
        run(model_dir, corpus_file, old, replace=True)
        assert rs.load_records(old).manifest.format == rs.FORMAT
        np.testing.assert_array_equal(rs.load_records(old).gt, rs.load_records(finished).gt)


def test_the_longest_windows_go_first(model_dir, windows):
    """So that an out-of-memory halving happens on the first, largest batch, not the last."""
    from rankscale.models.loading import load_model

    net, tok = load_model(str(model_dir))
    lengths = []
    net.base_model.register_forward_pre_hook(lambda m, a, kw: lengths.append(kw["input_ids"].shape[1]),
                                             with_kwargs=True)
    mixed = [windows[0][:5], windows[1], windows[2][:20]]
    ex.rank_records(net, mixed, len(tok), batch_size=1)
    assert lengths == sorted(lengths, reverse=True) == [len(windows[1]), 20, 5]
