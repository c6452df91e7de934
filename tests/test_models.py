"""Model loading and parameter counting."""

from __future__ import annotations

import csv
import json
import sys
import time

import pytest
import torch
from helpers import save_random_model
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    GPT2Config,
    GPTNeoXConfig,
    LlamaConfig,
    MistralConfig,
    OpenAIGPTConfig,
    OPTConfig,
    Qwen2Config,
)

from rankscale import RankscaleError
from rankscale.claims.reference import REFERENCE_DIR
from rankscale.models.loading import config_params, count_params, load_model
from rankscale.sets.builtin import BUILT_IN
from rankscale.sets.registry import REGISTRY

REFERENCE = json.loads((REFERENCE_DIR / "rbp_authors_param_count.json").read_text())
TABLE4 = list(csv.DictReader((REFERENCE_DIR / "ce_paper_table4_models.csv").open()))

# Public architecture shapes: (hidden, layers, heads, intermediate, vocab rows)
PYTHIA = {
    "14m": (128, 6, 4, 512, 50304), "31m": (256, 6, 8, 1024, 50304), "70m": (512, 6, 8, 2048, 50304),
    "160m": (768, 12, 12, 3072, 50304), "410m": (1024, 24, 16, 4096, 50304),
    "1b": (2048, 16, 8, 8192, 50304), "1.4b": (2048, 24, 16, 8192, 50304),
    "2.8b": (2560, 32, 32, 10240, 50304), "6.9b": (4096, 32, 32, 16384, 50432),
    "12b": (5120, 36, 40, 20480, 50688),
}
GPT2 = {"gpt2": (768, 12, 12), "gpt2-medium": (1024, 24, 16), "gpt2-large": (1280, 36, 20), "gpt2-xl": (1600, 48, 25)}
# (hidden, layers, heads, ffn); opt-350m also projects 512-wide embeddings and has no final layer norm
OPT = {"125m": (768, 12, 12, 3072), "350m": (1024, 24, 16, 4096), "1.3b": (2048, 24, 32, 8192),
       "2.7b": (2560, 32, 32, 10240), "6.7b": (4096, 32, 32, 16384)}
# (hidden, layers, heads, key-value heads, intermediate); up to 3B the head is tied and 151,936 rows
QWEN = {"0.5B": (896, 24, 14, 2, 4864), "1.5B": (1536, 28, 12, 2, 8960), "3B": (2048, 36, 16, 2, 11008),
        "7B": (3584, 28, 28, 4, 18944), "14B": (5120, 48, 40, 8, 13824), "72B": (8192, 80, 64, 8, 29568)}
# (vocab, hidden, layers, heads, key-value heads, intermediate)
LLAMA = {"meta-llama/Llama-3.2-1B": (128256, 2048, 16, 32, 8, 8192),
         "meta-llama/Llama-3.2-3B": (128256, 3072, 28, 24, 8, 8192),
         "huggyllama/llama-7b": (32000, 4096, 32, 32, 32, 11008),
         "meta-llama/Meta-Llama-3-8B": (128256, 4096, 32, 32, 8, 14336),
         "meta-llama/Llama-2-13b-hf": (32000, 5120, 40, 40, 40, 13824),
         "meta-llama/Llama-2-70b-hf": (32000, 8192, 80, 64, 8, 28672),
         "mistralai/Mistral-7B-v0.1": (32000, 4096, 32, 32, 8, 14336)}
# Built for real (random weights) besides on the meta device (shapes only): 14m in the fast tests; 70m and gpt2 (a
# tied head), whose 70M and 124M random weights take seconds to draw, in the slow ones. count_params's example counts
# a real tied GPT-2 in the fast tests.
RANDOM_WEIGHTS = {"14m"}
RANDOM_WEIGHTS_SLOW = {"70m", "gpt2"}


def builds(names):
    """(name, real) for each name: real weights where RANDOM_WEIGHTS names it, else the meta device; and the
    names of RANDOM_WEIGHTS_SLOW once more with real weights, as slow tests."""
    return [pytest.param(n, n in RANDOM_WEIGHTS, id=n) for n in names] + [
        pytest.param(n, True, id=f"{n}-real", marks=pytest.mark.slow) for n in names if n in RANDOM_WEIGHTS_SLOW]


def public_config(hub_id):
    """The published architecture of a registry model (its config.json on the hub, shapes only)."""
    org, name = hub_id.split("/")
    if org == "EleutherAI":
        h, n_layer, heads, inter, vocab = PYTHIA[name.removeprefix("pythia-")]
        return GPTNeoXConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=n_layer, num_attention_heads=heads,
                             intermediate_size=inter, rotary_pct=0.25, tie_word_embeddings=False)
    if name == "openai-gpt":
        return OpenAIGPTConfig(vocab_size=40478, n_positions=512, n_embd=768, n_layer=12, n_head=12)
    if org in ("openai-community", "distilbert"):
        h, n_layer, heads = GPT2.get(name, (768, 6, 12))  # distilgpt2: gpt2 with 6 layers
        return GPT2Config(vocab_size=50257, n_positions=1024, n_embd=h, n_layer=n_layer, n_head=heads)
    if org == "facebook":
        size = name.removeprefix("opt-")
        h, n_layer, heads, ffn = OPT[size]
        return OPTConfig(vocab_size=50272, hidden_size=h, num_hidden_layers=n_layer, num_attention_heads=heads,
                         ffn_dim=ffn, word_embed_proj_dim=512 if size == "350m" else h,
                         do_layer_norm_before=size != "350m")
    if org == "Qwen":
        size = name.removeprefix("Qwen2.5-")
        h, n_layer, heads, kv, inter = QWEN[size]
        tied = size in ("0.5B", "1.5B", "3B")
        return Qwen2Config(vocab_size=151936 if tied else 152064, hidden_size=h, num_hidden_layers=n_layer,
                           num_attention_heads=heads, num_key_value_heads=kv, intermediate_size=inter,
                           tie_word_embeddings=tied)
    vocab, h, n_layer, heads, kv, inter = LLAMA[hub_id]
    config_class = MistralConfig if org == "mistralai" else LlamaConfig
    return config_class(vocab_size=vocab, hidden_size=h, num_hidden_layers=n_layer, num_attention_heads=heads,
                        num_key_value_heads=kv, intermediate_size=inter, tie_word_embeddings="3.2" in name)


def build(config, real):
    if real:
        torch.manual_seed(0)
        return AutoModelForCausalLM.from_config(config)
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(config)


@pytest.mark.parametrize("size, real", builds(PYTHIA))
def test_pythia_counts_match_reference(size, real):
    h, n_layer, heads, inter, vocab = PYTHIA[size]
    config = GPTNeoXConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=n_layer, num_attention_heads=heads,
                           intermediate_size=inter, rotary_pct=0.25, tie_word_embeddings=False)
    count = count_params(build(config, real))
    ref = REFERENCE[f"EleutherAI/pythia-{size}"]
    assert count.non_embedding == ref["non_embedding_params"]
    # the reference total leaves out Pythia's untied head; ours includes it
    assert count.total == ref["total_params"] + vocab * h


@pytest.mark.parametrize("name, real", builds(GPT2))
def test_gpt2_counts_match_reference(name, real):
    h, n_layer, heads = GPT2[name]
    config = GPT2Config(vocab_size=50257, n_positions=1024, n_embd=h, n_layer=n_layer, n_head=heads)
    count = count_params(build(config, real))
    ref = REFERENCE[f"openai-community/{name}"]
    assert count.non_embedding == ref["non_embedding_params"]
    assert count.total == ref["total_params"]  # tied head: counted once, as in the reference
    assert count.embedding == ref["embedding_params"]


def test_load_local_directory_with_checked_dtype(model_dir):
    model, tok = load_model(str(model_dir), dtype="float32")
    assert model.dtype == torch.float32 and not model.training
    model16, _ = load_model(str(model_dir), dtype="bfloat16")
    assert model16.dtype == torch.bfloat16
    assert len(tok) == model.get_output_embeddings().weight.shape[0] - 12


def test_missing_local_directory():
    with pytest.raises(RankscaleError, match="no model directory at './no/such/model'"):
        load_model("./no/such/model")


def test_directory_without_config(tmp_path):
    with pytest.raises(RankscaleError, match="holds no config.json"):
        load_model(str(tmp_path))


def test_hub_id_while_hub_unreachable_fails_fast(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    start = time.monotonic()
    with pytest.raises(RankscaleError, match=r"hub is unreachable.*offline model sets \(smoke, tiny\) need no hub"):
        load_model("EleutherAI/pythia-70m")
    assert time.monotonic() - start < 15


def test_vocabulary_mismatch(tmp_path, tokenizer):
    path = save_random_model(tmp_path / "short-head", tokenizer, head_rows=len(tokenizer) - 10)
    with pytest.raises(RankscaleError, match=f"head has {len(tokenizer) - 10} rows but the tokenizer has "
                                             f"{len(tokenizer)} tokens"):
        load_model(str(path))


def test_unknown_dtype(model_dir):
    with pytest.raises(RankscaleError, match="unknown dtype 'int8'"):
        load_model(str(model_dir), dtype="int8")


def test_load_options_reach_from_pretrained(model_dir, tokenizer, tmp_path, monkeypatch):
    """On a local model: the attention implementation and remote-code switch reach the model's
    from_pretrained and take effect; a tokenizer named apart is the one loaded; rankscale's own
    options (tokenizer, adapter) are not passed on."""
    seen = []
    original = AutoModelForCausalLM.from_pretrained

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", spy)
    other = tmp_path / "other-tokenizer"
    tokenizer.save_pretrained(other)
    mine = AutoTokenizer.from_pretrained(other)
    mine.add_tokens(["<only-in-the-other-tokenizer>"])
    mine.save_pretrained(other)
    model, tok = load_model(str(model_dir), load={"attn_implementation": "eager", "trust_remote_code": True,
                                                  "tokenizer": str(other)})
    assert seen[-1]["attn_implementation"] == "eager" and seen[-1]["trust_remote_code"] is True
    assert "tokenizer" not in seen[-1] and model.config._attn_implementation == "eager"
    assert len(tok) == len(tokenizer) + 1
    model, tok = load_model(str(model_dir), load={"attn_implementation": "sdpa"})
    assert model.config._attn_implementation == "sdpa" and len(tok) == len(tokenizer)
    with pytest.raises(RankscaleError, match="load option device_map: rankscale sets it itself; use --device-map"):
        load_model(str(model_dir), load={"device_map": "auto"})


def test_an_adapter_needs_peft(model_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "peft", None)  # as where peft is not installed
    with pytest.raises(RankscaleError, match=r"adapter='my-lora' needs the peft package: pip install peft"):
        load_model(str(model_dir), load={"adapter": "my-lora"})


# ---------------------------------------------------------------------------------------------
# The papers' models


@pytest.mark.parametrize("hub_id", REGISTRY)
def test_registry_counts_recomputed_from_public_configs(hub_id):
    assert config_params(public_config(hub_id)).non_embedding == REGISTRY[hub_id].non_embedding


def test_registry_agrees_with_reference_files():
    for hub_id, model in REGISTRY.items():
        assert model.non_embedding == REFERENCE[hub_id]["non_embedding_params"], hub_id
    # paper B's Table 4: the same 32 models, counts and groups (its gpt-1/2 is our GPT2)
    by_name = {hub_id.split("/")[1].lower(): m for hub_id, m in REGISTRY.items()}
    assert {row["model"] for row in TABLE4} == {name for name, m in by_name.items() if "B" in m.papers}
    group = {"gpt-1/2": "GPT2", "pythia": "Pythia", "opt": "OPT", "qwen": "Qwen", "llama": "Llama",
             "mistral": "Mistral", "others": "Others"}
    for row in TABLE4:
        model = by_name[row["model"]]
        assert (model.non_embedding, model.family) == (int(row["non_embedding_params"]), group[row["family"]])
    # paper A: Pythia 14m-12b, the four GPT-2 sizes, OPT and Qwen2.5 0.5B-14B (its appendix A)
    in_a = [m for m in REGISTRY.values() if "A" in m.papers]
    assert [m.family for m in in_a].count("Pythia") == 10 and len(in_a) == 10 + 4 + 5 + 5
    assert {m.family for m in in_a} == {"Pythia", "GPT2", "OPT", "Qwen"} and "openai-gpt" not in str(in_a)


def test_hub_sets_list_the_papers_models_by_family():
    reduced = BUILT_IN["reduced"]
    assert [f.name for f in reduced.families] == ["Pythia", "GPT2"]
    pythia, gpt2 = ([m.source for m in f.models] for f in reduced.families)
    assert pythia == [f"EleutherAI/pythia-{s}" for s in ("14m", "31m", "70m", "160m", "410m", "1b", "1.4b")]
    assert gpt2 == [f"openai-community/{n}" for n in GPT2]
    full = BUILT_IN["full"]
    assert [(m.source, f.name) for f in full.families for m in f.models] == sorted(
        ((m.hub_id, m.family) for m in REGISTRY.values()), key=lambda pair: [f.name for f in full.families].index(pair[1]))
    assert len(REGISTRY) == 34 and {f.name for f in full.families} == {m.family for m in REGISTRY.values()}
    # paper B's training-dynamics checkpoints (its appendix A.1), on the hub as Pythia's revisions
    with_steps = {m.name: [c.revision for c in m.checkpoints] for f in reduced.families for m in f.models if m.checkpoints}
    assert with_steps == {n: ["step0", "step16", "step128", "step1000", "step10000", "step100000"]
                          for n in ("pythia-160m", "pythia-410m", "pythia-1b")}


def _layers(n, *parts):
    return n * sum(parts)


# Small configs of every family against a count by hand: d hidden, f feed-forward, L layers.
d, f, L, kv = 64, 176, 3, 2  # 4 heads of 16, and 2 key-value heads where the family has them
HAND = {
    # layer norms 2 x 2d, fused qkv and output with biases, MLP with biases; final norm 2d
    "neox": (GPTNeoXConfig(vocab_size=300, hidden_size=d, num_hidden_layers=L, num_attention_heads=4,
                           intermediate_size=f, tie_word_embeddings=False),
             _layers(L, 4 * d, 3 * d * d + 3 * d, d * d + d, d * f + f, f * d + d) + 2 * d),
    # the same with the 4d MLP of GPT-2; position embeddings are embeddings
    "gpt2": (GPT2Config(vocab_size=300, n_positions=64, n_embd=d, n_layer=L, n_head=4),
             _layers(L, 4 * d, 3 * d * d + 3 * d, d * d + d, 8 * d * d + 5 * d) + 2 * d),
    # GPT-1: post-norm, no final layer norm
    "openai-gpt": (OpenAIGPTConfig(vocab_size=300, n_positions=64, n_embd=d, n_layer=L, n_head=4),
                   _layers(L, 4 * d, 3 * d * d + 3 * d, d * d + d, 8 * d * d + 5 * d)),
    # separate q, k, v, out with biases, final norm
    "opt": (OPTConfig(vocab_size=300, hidden_size=d, num_hidden_layers=L, num_attention_heads=4, ffn_dim=f,
                      word_embed_proj_dim=d, max_position_embeddings=64),
            _layers(L, 4 * d, 4 * (d * d + d), d * f + f, f * d + d) + 2 * d),
    # opt-350m's layout: 32-wide embeddings projected in and out (no biases), post-norm, no final norm
    "opt-350m": (OPTConfig(vocab_size=300, hidden_size=d, num_hidden_layers=L, num_attention_heads=4, ffn_dim=f,
                           word_embed_proj_dim=32, do_layer_norm_before=False, max_position_embeddings=64),
                 _layers(L, 4 * d, 4 * (d * d + d), d * f + f, f * d + d) + 2 * 32 * d),
    # RMS norms d, grouped-query attention with q/k/v biases, gated MLP without biases, final norm
    "qwen2": (Qwen2Config(vocab_size=300, hidden_size=d, num_hidden_layers=L, num_attention_heads=4,
                          num_key_value_heads=kv, intermediate_size=f, tie_word_embeddings=True),
              _layers(L, 2 * d, d * d + d, 2 * (d * 32 + 32), d * d, 3 * d * f) + d),
    "llama": (LlamaConfig(vocab_size=300, hidden_size=d, num_hidden_layers=L, num_attention_heads=4,
                          num_key_value_heads=kv, intermediate_size=f),
              _layers(L, 2 * d, d * d, 2 * d * 32, d * d, 3 * d * f) + d),
    "mistral": (MistralConfig(vocab_size=300, hidden_size=d, num_hidden_layers=L, num_attention_heads=4,
                              num_key_value_heads=kv, intermediate_size=f),
                _layers(L, 2 * d, d * d, 2 * d * 32, d * d, 3 * d * f) + d),
}


@pytest.mark.parametrize("family", HAND)
def test_non_embedding_count_by_hand(family):
    config, by_hand = HAND[family]
    assert config_params(config).non_embedding == by_hand


