"""Model loading and parameter counting."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, GPT2Config, GPTNeoXConfig

from conftest import save_random_neox
from rankscale import RankscaleError
from rankscale.models import count_params, load_model

REFERENCE = json.loads((Path(__file__).parents[2] / "shared/reference/rbp_authors_param_count.json").read_text())

# Public architecture shapes: (hidden, layers, heads, intermediate, vocab rows)
PYTHIA = {
    "14m": (128, 6, 4, 512, 50304), "31m": (256, 6, 8, 1024, 50304), "70m": (512, 6, 8, 2048, 50304),
    "160m": (768, 12, 12, 3072, 50304), "410m": (1024, 24, 16, 4096, 50304),
    "1b": (2048, 16, 8, 8192, 50304), "1.4b": (2048, 24, 16, 8192, 50304),
    "2.8b": (2560, 32, 32, 10240, 50304), "6.9b": (4096, 32, 32, 16384, 50432),
    "12b": (5120, 36, 40, 20480, 50688),
}
GPT2 = {"gpt2": (768, 12, 12), "gpt2-medium": (1024, 24, 16), "gpt2-large": (1280, 36, 20), "gpt2-xl": (1600, 48, 25)}
RANDOM_WEIGHTS = {"14m", "70m", "gpt2"}  # built for real; the rest on the meta device (shapes only)


def build(config, name):
    if name in RANDOM_WEIGHTS:
        torch.manual_seed(0)
        return AutoModelForCausalLM.from_config(config)
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(config)


@pytest.mark.parametrize("size", PYTHIA)
def test_pythia_counts_match_reference(size):
    h, n_layer, heads, inter, vocab = PYTHIA[size]
    config = GPTNeoXConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=n_layer, num_attention_heads=heads,
                           intermediate_size=inter, rotary_pct=0.25, tie_word_embeddings=False)
    count = count_params(build(config, size))
    ref = REFERENCE[f"EleutherAI/pythia-{size}"]
    assert count.non_embedding == ref["non_embedding_params"]
    # the reference total leaves out Pythia's untied head; ours includes it
    assert count.total == ref["total_params"] + vocab * h


@pytest.mark.parametrize("name", GPT2)
def test_gpt2_counts_match_reference(name):
    h, n_layer, heads = GPT2[name]
    config = GPT2Config(vocab_size=50257, n_positions=1024, n_embd=h, n_layer=n_layer, n_head=heads)
    count = count_params(build(config, name))
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
    with pytest.raises(RankscaleError, match=r"hub is unreachable.*offline `tiny` profile needs no hub"):
        load_model("EleutherAI/pythia-70m")
    assert time.monotonic() - start < 15


def test_vocabulary_mismatch(tmp_path, tokenizer):
    path = save_random_neox(tmp_path / "short-head", tokenizer, head_rows=len(tokenizer) - 10, tie_rows=[])
    with pytest.raises(RankscaleError, match=f"head has {len(tokenizer) - 10} rows but the tokenizer has "
                                             f"{len(tokenizer)} tokens"):
        load_model(str(path))


def test_unknown_dtype(model_dir):
    with pytest.raises(RankscaleError, match="unknown dtype 'int8'"):
        load_model(str(model_dir), dtype="int8")
