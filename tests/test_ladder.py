"""The offline ladders: two architectures on one token stream, determinism, atomic saving,
resuming, skipping, checkpoints."""

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
from rankscale.corpora import get_corpus
from rankscale.models import ladder as ld
from rankscale.records.jobs import plan_commands
from rankscale.models.loading import count_params, load_model
from rankscale.sets.builtin import BUILT_IN
from rankscale.sets.schema import Family, Ladder, LadderSize, LadderTraining, ModelSet

pytestmark = pytest.mark.slow  # trains small ladders


NEOX = Ladder("neox", (LadderSize(16, 2, 1), LadderSize(24, 2, 2)), checkpoint_sizes=("d24-l2",))
LLAMA = Ladder("llama", (LadderSize(16, 1, 1), LadderSize(24, 2, 2)))


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
def micro(corpora) -> ModelSet:
    training = LadderTraining(corpora, steps=12, batch_size=2, seq_len=32, vocab_size=300,
                              checkpoint_steps=(0, 4, 12), warmup=3)
    return ModelSet("micro", (Family("NeoX", ladder=NEOX), Family("Llama", ladder=LLAMA)),
                    corpora={corpora[0]: 200}, training=training)


@pytest.fixture(scope="module")
def built(micro, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    return home, ld.build_ladder(micro, home, progress=False)


def tensors(path):
    return load_file(str(path / "model.safetensors"))


def test_same_seed_gives_bitwise_equal_weights(micro, built, tmp_path):
    _, dirs = built
    again = ld.build_ladder(micro, tmp_path, progress=False)
    for a, b in zip(dirs, again):
        ta, tb = tensors(a), tensors(b)
        assert ta.keys() == tb.keys()
        assert all(torch.equal(ta[k], tb[k]) for k in ta)
    key = "gpt_neox.layers.0.mlp.dense_h_to_4h.weight"
    assert torch.equal(tensors(dirs[1] / "checkpoints/step4")[key], tensors(again[1] / "checkpoints/step4")[key])


def test_models_load_through_from_pretrained_with_metadata(micro, built):
    _, dirs = built
    sizes = [(family.name, family.ladder.arch, size) for family in micro.families for size in family.ladder.sizes]
    assert [d.relative_to(d.parents[2]).as_posix() for d in dirs] == [
        "micro/neox/d16-l2", "micro/neox/d24-l2", "micro/llama/d16-l1", "micro/llama/d24-l2"]
    for (family, arch, size), path in zip(sizes, dirs):
        meta = json.loads((path / ld.METADATA).read_text())
        model, tok = load_model(str(path))
        assert len(tok) == 300 and model.config.hidden_size == size.d_model
        assert (meta["family"], meta["arch"], meta["set"]) == (family, arch, "micro")
        assert meta["params_non_embedding"] == count_params(model).non_embedding
        assert meta["tokens_seen"] == 12 * 2 * 32 and meta["seed"] == micro.training.seed
        assert len(meta["loss_curve"]) == 12 and meta["config"]["num_hidden_layers"] == size.n_layers
        assert meta["loss_curve"][-1] < meta["loss_curve"][0]  # it learned something
        assert meta["trained_on"] == "cpu"


def test_the_two_architectures_are_different_models(built):
    """Llama-style: RMSNorm, a gated (SwiGLU) MLP, rotary on the whole head, untied head; the
    NeoX ladder: LayerNorm with biases, a 4x GELU MLP, rotary on a quarter of each head."""
    _, dirs = built
    neox, _ = load_model(str(dirs[1]))
    llama, _ = load_model(str(dirs[3]))
    assert type(neox).__name__ == "GPTNeoXForCausalLM" and type(llama).__name__ == "LlamaForCausalLM"
    assert type(llama.model.norm).__name__ == "LlamaRMSNorm" and not hasattr(llama.model.norm, "bias")
    mlp = llama.model.layers[0].mlp
    assert {"gate_proj", "up_proj", "down_proj"} <= {n for n, _ in mlp.named_children()}
    assert mlp.gate_proj.out_features == ld.swiglu_width(24) == 64 and llama.config.hidden_act == "silu"
    assert llama.config.rope_parameters.get("partial_rotary_factor", 1.0) == 1.0
    assert neox.config.rope_parameters["partial_rotary_factor"] == 0.25 and neox.config.intermediate_size == 4 * 24
    for model in (neox, llama):  # untied heads
        assert model.get_output_embeddings().weight.data_ptr() != model.get_input_embeddings().weight.data_ptr()


def test_checkpoints_kept_only_where_asked(built):
    _, (small, large, *llama) = built
    assert not (small / "checkpoints").exists() and not any((d / "checkpoints").exists() for d in llama)
    steps = sorted(p.name for p in (large / "checkpoints").iterdir())
    assert steps == ["step0", "step12", "step4"]
    final, last, first = tensors(large), tensors(large / "checkpoints/step12"), tensors(large / "checkpoints/step0")
    assert all(torch.equal(final[k], last[k]) for k in final)
    assert not all(torch.equal(final[k], first[k]) for k in final)
    load_model(str(large / "checkpoints/step4"))  # a checkpoint is a loadable model too


def test_second_run_trains_nothing(micro, built, monkeypatch):
    home, dirs = built
    monkeypatch.setattr(ld, "train_model", lambda *a, **k: pytest.fail("retrained an existing model"))
    monkeypatch.setattr(ld, "ensure_tokenizer", lambda *a, **k: pytest.fail("reloaded the tokenizer"))
    assert ld.build_ladder(micro, home, progress=False) == dirs


def test_a_changed_recipe_is_refused(micro, built):
    home, _ = built
    longer = ModelSet("micro", micro.families, micro.corpora,
                      training=LadderTraining(**{**micro.training.__dict__, "steps": 13}))
    with pytest.raises(RankscaleError, match="steps: saved 12, now 13.*train the ladder again"):
        ld.build_ladder(longer, home, progress=False)


def test_a_cpu_run_keeps_the_recipe_of_before_gpus(micro, built):
    """What a CPU run saves is the recipe of a call that names no device, as every ladder trained
    before the training device existed was identified, byte for byte: the CPU book's models are
    neither refused nor retrained."""
    home, dirs = built
    for entry, path in zip(ld._ladder_plan(micro, home), dirs):
        saved = json.loads((path / ld.METADATA).read_text())["recipe"]
        before = ld.recipe(entry.ladder.arch, entry.size, micro.training, entry.replica, ld._kept(micro, entry))
        assert json.dumps(saved) == json.dumps(before) and "device" not in saved
        assert ld.recipe(entry.ladder.arch, entry.size, micro.training, entry.replica, ld._kept(micro, entry),
                         "cpu") == before


def test_a_gpu_recipe_is_another_recipe(micro):
    """The kind of device is part of the recipe, not the GPU's index."""
    cpu = ld.recipe("neox", NEOX.sizes[0], micro.training)
    cuda = ld.recipe("neox", NEOX.sizes[0], micro.training, device="cuda")
    assert cuda != cpu and cuda == {**cpu, "device": "cuda"}
    assert ld.recipe("neox", NEOX.sizes[0], micro.training, device="cuda:1") == cuda


def test_a_ladder_trained_on_another_device_is_refused(micro, built, tmp_path):
    """A CPU ladder is refused where a GPU's is asked for, and a GPU's (its ladder.json written
    as a GPU run writes it) where the CPU's is; each error names the device the ladder trained on."""
    home, _ = built
    with pytest.raises(RankscaleError, match=r"trained on cpu, not on cuda: train with --train-device cpu .* "
                                             r"or delete .*micro to train it on cuda$"):
        ld.missing_models(micro, home, "cuda")
    shutil.copytree(home / "models", tmp_path / "models")
    for meta_file in (tmp_path / "models" / "micro").glob(f"*/*/{ld.METADATA}"):
        meta = json.loads(meta_file.read_text())
        meta_file.write_text(json.dumps({**meta, "recipe": {**meta["recipe"], "device": "cuda"}}))
    with pytest.raises(RankscaleError, match="trained on cuda, not on cpu: train with --train-device cuda"):
        ld.missing_models(micro, tmp_path, "cpu")
    assert ld.missing_models(micro, tmp_path, "cuda:1") == []  # another GPU of the machine is the same kind
    # `rankscale plan` reads the ladder as `ladder` trained it
    assert all(" extract " in c for c in plan_commands(micro, tmp_path, train_device="cuda"))
    with pytest.raises(RankscaleError, match="trained on cuda, not on cpu"):
        plan_commands(micro, tmp_path)


def test_a_gpu_that_torch_does_not_see_is_refused_before_any_work(micro, tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RankscaleError, match=r"^training device 'cuda': this torch .* sees no CUDA GPU; train on the "
                                             r"CPU \(--train-device cpu, the default\)"):
        ld.build_ladder(micro, tmp_path, progress=False, device="cuda")
    with pytest.raises(RankscaleError, match="unknown training device 'gpu'; use cpu"):
        ld.build_ladder(micro, tmp_path, progress=False, device="gpu")
    assert not (tmp_path / "models").exists()


def test_a_gpu_trains_every_model_in_this_process(micro, tmp_path, monkeypatch):
    """On a GPU the models go one after another to ``train_model`` in this process, in set order,
    with the device; no worker pool is started. (What a GPU computes is checked on a GPU: this
    machine only follows the route, with the training itself left out.)"""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(ld, "_train_in_parallel", lambda *a, **k: pytest.fail("started a worker pool"))
    routed = []
    monkeypatch.setattr(ld, "train_model", lambda arch, size, *a, device, **k: routed.append((arch, size.name, device)))
    with pytest.raises(RankscaleError, match="2 workers: a GPU trains the models one after another"):
        ld.build_ladder(micro, tmp_path, progress=False, workers=2, device="cuda")
    with pytest.raises(RankscaleError, match=r"training device 'cuda:1': torch sees 1 GPU\(s\), cuda:0 to cuda:0"):
        ld.build_ladder(micro, tmp_path, progress=False, device="cuda:1")
    ld.build_ladder(micro, tmp_path, progress=False, device="cuda:0")
    assert routed == [("neox", "d16-l2", "cuda:0"), ("neox", "d24-l2", "cuda:0"), ("llama", "d16-l1", "cuda:0"),
                      ("llama", "d24-l2", "cuda:0")]


def test_interrupted_run_loses_only_the_model_in_progress(micro, tmp_path, monkeypatch):
    calls = []
    real_lr = ld.learning_rate

    def stop_in_second_model(step, training, peak):
        calls.append(step)
        if len(calls) == micro.training.steps + 5:
            raise KeyboardInterrupt
        return real_lr(step, training, peak)

    monkeypatch.setattr(ld, "learning_rate", stop_in_second_model)
    with pytest.raises(KeyboardInterrupt):  # one worker: the patched schedule runs in this process
        ld.build_ladder(micro, tmp_path, progress=False, workers=1)
    first, second = (ld.model_dir(micro, NEOX, s, tmp_path) for s in NEOX.sizes)
    root = tmp_path / "models" / "micro"
    assert (first / ld.METADATA).exists()
    assert not second.exists() and not list(root.glob("**/*.tmp-*"))
    with pytest.raises(RankscaleError, match="missing; run `python -m rankscale ladder --profile micro`"):
        ld.ladder_models(micro, tmp_path)

    # a hard kill leaves the temporary directory behind; it must never count as a model
    debris = root / "neox" / "d24-l2.tmp-999"
    shutil.copytree(first, debris)
    monkeypatch.setattr(ld, "learning_rate", real_lr)
    stamp = (first / "model.safetensors").stat().st_mtime_ns
    trained = []
    real_train = ld.train_model
    monkeypatch.setattr(ld, "train_model", lambda arch, size, *a, **k: (trained.append(f"{arch}/{size.name}"),
                                                                       real_train(arch, size, *a, **k)))
    ld.build_ladder(micro, tmp_path, progress=False, workers=1)
    assert trained == ["neox/d24-l2", "llama/d16-l1", "llama/d24-l2"]
    assert (first / "model.safetensors").stat().st_mtime_ns == stamp and not list(root.glob("**/*.tmp-*"))
    assert [(m["arch"], m["size"]) for m in ld.ladder_models(micro, tmp_path)] == [
        ("neox", "d16-l2"), ("neox", "d24-l2"), ("llama", "d16-l1"), ("llama", "d24-l2")]


def test_sequences_take_corpora_in_turn(micro, built):
    home, _ = built
    tok = ld.ensure_tokenizer(micro.training, ld.set_dir(micro, home))
    seqs = ld.training_sequences(micro.training, tok)
    assert seqs.shape == (12 * 2, 33)
    streams = []
    for name in micro.training.train_corpora:  # each corpus: its documents in order, each closed by EOS
        ids = [i for doc in get_corpus(name).load()
               for i in tok(doc, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]]
        streams.append(np.array(ids[:len(ids) // 33 * 33]).reshape(-1, 33))
    np.testing.assert_array_equal(seqs[0], streams[0][0])
    np.testing.assert_array_equal(seqs[1], streams[1][0])
    np.testing.assert_array_equal(seqs[2], streams[0][1])
    np.testing.assert_array_equal(seqs[3], streams[1][1])


def test_too_little_training_text(micro):
    greedy = LadderTraining(micro.training.train_corpora, steps=10**5, batch_size=8, seq_len=32,
                            checkpoint_steps=(), vocab_size=300)
    tok = ld.train_tokenizer(["some text to learn from"] * 3, 300)
    with pytest.raises(RankscaleError, match="fewer than the 800000"):
        ld.training_sequences(greedy, tok)


def test_learning_rate_schedule(micro):
    training = micro.training
    lrs = np.array([ld.learning_rate(s, training, 1e-3) for s in range(training.steps)])
    assert lrs[0] == pytest.approx(1e-3 / 3) and lrs[2] == pytest.approx(1e-3)
    assert np.all(np.diff(lrs[3:]) < 0) and lrs[-1] > 1e-3 * training.min_lr_ratio


def test_peak_learning_rate_falls_with_width():
    tiny = BUILT_IN["tiny"].training
    widths = [size for family in BUILT_IN["tiny"].ladder_families for size in family.ladder.sizes]
    assert [ld.peak_lr(s, tiny) for s in widths] == [tiny.lr] * len(widths)  # none wider than lr_width
    assert ld.peak_lr(LadderSize(512, 2, 32), tiny) == pytest.approx(tiny.lr / 2)


@pytest.mark.parametrize("name", ["tiny", "smoke"])
def test_offline_sets_have_two_ladder_families(name):
    """tiny: two architectures, each over at least 2.5 decades of non-embedding size with three
    checkpointed sizes; smoke: two families of 2-3 models."""
    model_set = BUILT_IN[name]
    families = model_set.ladder_families
    assert [f.ladder.arch for f in families] == ["neox", "llama"]
    for family in families:
        counts = []
        for size in family.ladder.sizes:
            config = ld.model_config(family.ladder.arch, size, model_set.training.vocab_size, model_set.training.seq_len)
            with torch.device("meta"):
                counts.append(count_params(ld.model_class(family.ladder.arch)(config)).non_embedding)
        assert counts == sorted(counts)
        assert set(family.ladder.checkpoint_sizes) <= {s.name for s in family.ladder.sizes}
        if name == "tiny":
            assert np.log10(counts[-1] / counts[0]) >= 2.5 and len(family.ladder.checkpoint_sizes) >= 3
        else:
            assert 2 <= len(counts) <= 3


def test_a_model_trained_on_an_older_corpus_text_is_refused(micro, tmp_path, monkeypatch):
    """A model's recipe names the training text by its identity (an offline corpus's text version
    among it): a model trained before the text changed (a new reST stripper, say) is refused, not
    reused."""
    import dataclasses

    from rankscale.corpora import SOURCES

    training = LadderTraining(("humaneval:train",), steps=4, batch_size=2, seq_len=32, vocab_size=300,
                              checkpoint_steps=(), warmup=2, tokenizer_chars=20_000)
    small = ModelSet("micro-he", (Family("NeoX", ladder=Ladder("neox", NEOX.sizes[:1])),), micro.corpora,
                     training=training)
    (path,) = ld.build_ladder(small, tmp_path, progress=False)
    (text,) = json.loads((path / ld.METADATA).read_text())["recipe"]["text"]
    assert "name humaneval:train" in text and f"text_version {SOURCES['humaneval'].text_version}" in text
    monkeypatch.setitem(SOURCES, "humaneval", dataclasses.replace(SOURCES["humaneval"], text_version=99))
    with pytest.raises(RankscaleError, match=r"text: saved \[.*text_version 1.*\], now \[.*text_version 99.*\]"):
        ld.build_ladder(small, tmp_path, progress=False)


SEEDED = Ladder("neox", NEOX.sizes, checkpoint_sizes=("d16-l2",), seed_sizes=("d16-l2",), n_seeds=3)


@pytest.fixture(scope="module")
def seeded(micro, tmp_path_factory):
    """The micro NeoX ladder with two extra seeds of its smaller size, trained two at a time."""
    model_set = ModelSet("seeded", (Family("NeoX", ladder=SEEDED),), micro.corpora, training=micro.training)
    home = tmp_path_factory.mktemp("seeded")
    return model_set, home, ld.build_ladder(model_set, home, progress=False, workers=2)


def test_extra_seeds_are_other_runs_of_the_same_recipe(seeded):
    model_set, home, dirs = seeded
    assert [d.name for d in dirs] == ["d16-l2", "d16-l2-s1", "d16-l2-s2", "d24-l2"]
    metas = ld.ladder_models(model_set, home)
    seed = model_set.training.seed
    assert [(m["size"], m["seed"], m["replica"]) for m in metas] == [
        ("d16-l2", seed, 0), ("d16-l2", seed + 1, 1), ("d16-l2", seed + 2, 2), ("d24-l2", seed, 0)]
    assert len({m["params_non_embedding"] for m in metas[:3]}) == 1
    key = "gpt_neox.layers.0.mlp.dense_h_to_4h.weight"
    finals = [tensors(d)[key] for d in dirs[:3]]
    assert not torch.equal(finals[0], finals[1]) and not torch.equal(finals[1], finals[2])
    assert len({m["loss_curve"][0] for m in metas[:3]}) == 3  # other initial weights, the same first batch
    assert all(m["recipe"]["sequences"] == "the set's order" for m in metas[1:3]) and "sequences" not in metas[0]["recipe"]
    # checkpoints are kept for the size's own run only
    assert (dirs[0] / "checkpoints").is_dir() and not (dirs[1] / "checkpoints").exists()


def test_the_own_run_of_a_seeded_size_is_the_unseeded_ladders_model(seeded, built):
    """Adding seeds leaves the run every fit uses as it was (both ladders trained two at a time)."""
    _, _, dirs = seeded
    _, plain = built
    for a, b in ((dirs[0], plain[0]), (dirs[3], plain[1])):
        ta, tb = tensors(a), tensors(b)
        assert all(torch.equal(ta[k], tb[k]) for k in ta)


def test_parallel_and_sequential_training_agree_to_rounding(micro, built, tmp_path):
    """One worker with every thread, or two with one thread each: the same models up to the last
    bits of float rounding."""
    _, parallel = built
    sequential = ld.build_ladder(micro, tmp_path, progress=False, workers=1)
    for a, b in zip(parallel, sequential):
        ta, tb = tensors(a), tensors(b)
        for k in ta:
            np.testing.assert_allclose(ta[k].numpy(), tb[k].numpy(), rtol=1e-4, atol=1e-5)


def test_seed_sizes_must_be_sizes_of_the_ladder():
    with pytest.raises(RankscaleError, match="seed_sizes names d99-l1, which is not one of its sizes"):
        Ladder("neox", NEOX.sizes, seed_sizes=("d99-l1",), n_seeds=2)
    with pytest.raises(RankscaleError, match="n_seeds must be at least 1"):
        Ladder("neox", NEOX.sizes, n_seeds=0)


def test_seed_runs_stay_outside_the_fits(seeded):
    """The extra seeds are extracted on the same tokens as their size's own run, listed by
    ``seed_runs`` and never by ``family_runs``; a chapter hands them to the bootstrap per model."""
    from rankscale.claims.context import Chapter
    from rankscale.records import jobs, runs

    model_set, home, _ = seeded
    jobs.prepare(model_set, home, log=lambda _: None, progress=False)
    corpus = next(iter(model_set.corpora))
    own = runs.family_runs(model_set, corpus, home)
    extra = runs.seed_runs(model_set, corpus, home)
    assert [(r.name, r.replica) for r in own] == [("d16-l2", 0), ("d24-l2", 0)]
    assert [(r.name, r.replica) for r in extra] == [("d16-l2", 1), ("d16-l2", 2)]
    assert runs.label(extra[0]) == "NeoX: d16-l2 (extra seed 1)"
    assert len({len(r.records.logp) for r in own + extra}) == 1
    assert not np.array_equal(own[0].records.logp, extra[0].records.logp)
    chapter = Chapter.of({corpus: own}, 10, model_set, seeds={corpus: extra})
    samples = chapter.seed_samples(corpus, own, ["logp", "rank"])
    assert [len(s) for s in samples] == [2, 0]
    np.testing.assert_array_equal(samples[0][1]["logp"], extra[1].records.logp)
    assert samples[0][0]["rank"].min() >= 1


_TRAIN_AND_HASH = """
import hashlib, sys, torch
from rankscale.models.ladder import model_class, model_config
from rankscale.models.loading import keep_freed_memory
from rankscale.sets.schema import LadderSize
if sys.argv[1] == "keep":
    assert keep_freed_memory()
torch.manual_seed(0)
model = model_class("neox")(model_config("neox", LadderSize(16, 1, 1), 4096, 256))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
tokens = torch.randint(0, 4096, (8, 257), generator=torch.Generator().manual_seed(1))
for _ in range(3):
    model(input_ids=tokens, labels=tokens).loss.backward()
    opt.step()
    opt.zero_grad()
print(hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in model.parameters())).hexdigest())
"""


def test_reusing_freed_memory_trains_the_same_weights():
    """``keep_freed_memory`` changes where tensors live, not what is computed: bitwise the same
    weights after training steps whose logits (33 MB) glibc would otherwise map afresh."""
    import subprocess
    import sys

    hashes = [subprocess.run([sys.executable, "-c", _TRAIN_AND_HASH, mode], capture_output=True, text=True,
                             check=True).stdout.strip() for mode in ("keep", "system")]
    assert len(hashes[0]) == 64 and hashes[0] == hashes[1]
