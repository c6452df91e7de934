"""The offline ladder: determinism, atomic saving, resuming, skipping, checkpoints."""

from __future__ import annotations

import inspect
import json
import json.decoder
import shutil

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from rankscale import RankscaleError
from rankscale import ladder as ld
from rankscale.corpora import get_corpus
from rankscale.models import count_params, load_model

SIZES = (ld.Size(16, 2, 1), ld.Size(24, 2, 2))


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """Two small training corpora (one document per JSON line)."""
    root = tmp_path_factory.mktemp("train")
    paths = []
    for name, module in (("a", json.decoder), ("b", inspect)):
        lines = inspect.getsource(module).split("\n\n")
        path = root / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in lines if t.strip()))
        paths.append(str(path))
    return tuple(paths)


@pytest.fixture(scope="module")
def profile(corpora):
    return ld.Profile("micro", SIZES, corpora, steps=12, batch_size=2, seq_len=32, vocab_size=300,
                      checkpoint_steps=(0, 4, 12), checkpoint_sizes=("d24-l2",), warmup=3)


@pytest.fixture(scope="module")
def built(profile, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    return home, ld.build_ladder(profile, home, progress=False)


def tensors(path):
    return load_file(str(path / "model.safetensors"))


def test_same_seed_gives_bitwise_equal_weights(profile, built, tmp_path):
    home, dirs = built
    again = ld.build_ladder(profile, tmp_path, progress=False)
    for a, b in zip(dirs, again):
        ta, tb = tensors(a), tensors(b)
        assert ta.keys() == tb.keys()
        assert all(torch.equal(ta[k], tb[k]) for k in ta)
    assert torch.equal(tensors(dirs[1] / "checkpoints/step4")["gpt_neox.layers.0.mlp.dense_h_to_4h.weight"],
                       tensors(again[1] / "checkpoints/step4")["gpt_neox.layers.0.mlp.dense_h_to_4h.weight"])


def test_models_load_through_from_pretrained_with_metadata(profile, built):
    _, dirs = built
    for size, path in zip(SIZES, dirs):
        meta = json.loads((path / ld.METADATA).read_text())
        model, tok = load_model(str(path))
        assert len(tok) == 300 and model.config.hidden_size == size.d_model
        assert meta["params_non_embedding"] == count_params(model).non_embedding
        assert meta["tokens_seen"] == 12 * 2 * 32 and meta["seed"] == profile.seed
        assert len(meta["loss_curve"]) == 12 and meta["config"]["num_hidden_layers"] == 2
        assert meta["loss_curve"][-1] < meta["loss_curve"][0]  # it learned something


def test_checkpoints_kept_only_where_asked(built):
    _, (small, large) = built
    assert not (small / "checkpoints").exists()
    steps = sorted(p.name for p in (large / "checkpoints").iterdir())
    assert steps == ["step0", "step12", "step4"]
    final, last, first = tensors(large), tensors(large / "checkpoints/step12"), tensors(large / "checkpoints/step0")
    assert all(torch.equal(final[k], last[k]) for k in final)
    assert not all(torch.equal(final[k], first[k]) for k in final)
    load_model(str(large / "checkpoints/step4"))  # a checkpoint is a loadable model too


def test_second_run_trains_nothing(profile, built, monkeypatch):
    home, dirs = built
    monkeypatch.setattr(ld, "train_model", lambda *a, **k: pytest.fail("retrained an existing model"))
    monkeypatch.setattr(ld, "ensure_tokenizer", lambda *a, **k: pytest.fail("reloaded the tokenizer"))
    assert ld.build_ladder(profile, home, progress=False) == dirs


def test_interrupted_run_loses_only_the_model_in_progress(profile, tmp_path, monkeypatch):
    calls = []
    real_lr = ld.learning_rate

    def stop_in_second_model(step, prof, peak):
        calls.append(step)
        if len(calls) == profile.steps + 5:
            raise KeyboardInterrupt
        return real_lr(step, prof, peak)

    monkeypatch.setattr(ld, "learning_rate", stop_in_second_model)
    with pytest.raises(KeyboardInterrupt):
        ld.build_ladder(profile, tmp_path, progress=False)
    first, second = (ld.model_dir(profile, s, tmp_path) for s in SIZES)
    assert (first / ld.METADATA).exists()
    assert not second.exists() and not list((tmp_path / "models" / "micro").glob("*.tmp-*"))
    with pytest.raises(RankscaleError, match="missing; run `python -m rankscale ladder --profile micro`"):
        ld.ladder_models(profile, tmp_path)

    # a hard kill leaves the temporary directory behind; it must never count as a model
    debris = tmp_path / "models" / "micro" / "d24-l2.tmp-999"
    shutil.copytree(first, debris)
    assert debris.exists()
    monkeypatch.setattr(ld, "learning_rate", real_lr)
    stamp = (first / "model.safetensors").stat().st_mtime_ns
    trained = []
    real_train = ld.train_model
    monkeypatch.setattr(ld, "train_model", lambda size, *a, **k: (trained.append(size.name), real_train(size, *a, **k)))
    ld.build_ladder(profile, tmp_path, progress=False)
    assert trained == ["d24-l2"] and (first / "model.safetensors").stat().st_mtime_ns == stamp
    assert not list((tmp_path / "models" / "micro").glob("*.tmp-*"))
    assert [m["size"] for m in ld.ladder_models(profile, tmp_path)] == ["d16-l2", "d24-l2"]


def test_sequences_take_corpora_in_turn(profile, built):
    home, _ = built
    tok = ld.ensure_tokenizer(profile, home)
    seqs = ld.training_sequences(profile, tok)
    assert seqs.shape == (12 * 2, 33)
    streams = []
    for name in profile.train_corpora:  # each corpus: its documents in order, each closed by EOS
        ids = [i for doc in get_corpus(name).load()
               for i in tok(doc, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]]
        streams.append(np.array(ids[:len(ids) // 33 * 33]).reshape(-1, 33))
    np.testing.assert_array_equal(seqs[0], streams[0][0])
    np.testing.assert_array_equal(seqs[1], streams[1][0])
    np.testing.assert_array_equal(seqs[2], streams[0][1])
    np.testing.assert_array_equal(seqs[3], streams[1][1])


def test_too_little_training_text(profile):
    greedy = ld.Profile("greedy", SIZES, profile.train_corpora, steps=10**5, batch_size=8, seq_len=32,
                        checkpoint_steps=(), checkpoint_sizes=(), vocab_size=300)
    tok = ld.train_tokenizer(["some text to learn from"] * 3, 300)
    with pytest.raises(RankscaleError, match="fewer than the 800000"):
        ld.training_sequences(greedy, tok)


def test_learning_rate_schedule(profile):
    lrs = np.array([ld.learning_rate(s, profile, 1e-3) for s in range(profile.steps)])
    assert lrs[0] == pytest.approx(1e-3 / 3) and lrs[2] == pytest.approx(1e-3)
    assert np.all(np.diff(lrs[3:]) < 0) and lrs[-1] > 1e-3 * profile.min_lr_ratio


def test_peak_learning_rate_falls_with_width():
    tiny = ld.get_profile("tiny")
    peaks = [ld.peak_lr(s, tiny) for s in tiny.sizes]
    assert peaks == [tiny.lr] * 7  # no tiny model is wider than lr_width
    assert ld.peak_lr(ld.Size(512, 2, 32), tiny) == pytest.approx(tiny.lr / 2)


def test_tiny_profile_spans_two_and_a_half_decades():
    tiny = ld.get_profile("tiny")
    assert len(tiny.sizes) == 7 and len(tiny.checkpoint_sizes) >= 3
    counts = []
    for size in tiny.sizes:
        with torch.device("meta"):
            counts.append(count_params(ld.GPTNeoXForCausalLM(size.config(4096, tiny.seq_len))).non_embedding)
    assert counts == sorted(counts) and np.log10(counts[-1] / counts[0]) >= 2.5
    assert set(tiny.checkpoint_sizes) <= {s.name for s in tiny.sizes}
    assert tiny.checkpoint_steps == (0, 16, 128, 1000) and tiny.tokens >= 2_000_000


def test_unknown_profile():
    with pytest.raises(RankscaleError, match="unknown ladder profile 'huge'; choose one of tiny, smoke"):
        ld.get_profile("huge")


def test_moved_home_still_gives_its_results(profile, corpora, built, tmp_path):
    """Results record the model's absolute path; after the whole home moves (a moved clone),
    the same model is found at a new path and its results are extracted again, not refused."""
    home, _ = built
    first = ld.ladder_records(profile, corpora[0], 200, home, progress=False)
    moved = tmp_path / "moved"
    shutil.copytree(home, moved)
    assert len(list((moved / "results" / "micro").glob("*/*/manifest.json"))) == len(first)  # kept under home
    again = ld.ladder_records(profile, corpora[0], 200, moved, progress=False)
    for (_, a), (meta, b) in zip(first, again):
        assert b.manifest["identity"]["model"] == str(moved / "models" / "micro" / meta["size"])
        np.testing.assert_array_equal(a.gt, b.gt)
        np.testing.assert_array_equal(a.logp, b.logp)
