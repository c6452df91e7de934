"""Shared fixtures: a small corpus from the standard library, a byte-level BPE tokenizer trained
on it, and randomly initialised causal LMs saved with ``save_pretrained``."""

from __future__ import annotations

import inspect
import json
import json.decoder
import json.encoder
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

from rankscale.ladder import train_tokenizer

N_PAD = 12  # extra head rows beyond the tokenizer, as in Pythia's padded head


def corpus_documents() -> list[str]:
    """A few kB of real text (standard-library sources) available on every machine."""
    return [inspect.getsource(m) for m in (json, json.decoder, json.encoder, inspect)]


def save_random_neox(path: Path, tokenizer, head_rows: int, tie_rows: list[int], seed: int = 0) -> Path:
    """A random GPT-NeoX whose head has zeroed rows ``tie_rows`` (exact ties at logit 0) and
    large padded rows beyond the tokenizer (which would top every ranking if counted)."""
    torch.manual_seed(seed)
    config = GPTNeoXConfig(vocab_size=head_rows, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=64, max_position_embeddings=128, tie_word_embeddings=False)
    model = GPTNeoXForCausalLM(config)
    with torch.no_grad():
        head = model.get_output_embeddings().weight
        head.mul_(20.0)  # spread the logits so the random model is not near-uniform
        head[tie_rows] = 0.0
        head[len(tokenizer):] = 50.0
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def smoke_home(tmp_path_factory) -> Path:
    """RANKSCALE_HOME of every test that trains or reads the smoke ladder: a temporary folder, so
    that no test writes into the working tree's models/ or results/."""
    return tmp_path_factory.mktemp("rankscale-home")


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in corpus_documents()))
    return path


@pytest.fixture(scope="session")
def tokenizer():
    return train_tokenizer(corpus_documents(), vocab_size=320)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory, tokenizer) -> Path:
    ids = np.concatenate([tokenizer(d)["input_ids"] for d in corpus_documents()])
    common = np.argsort(np.bincount(ids, minlength=len(tokenizer)))[::-1]
    tie_rows = [int(i) for i in common[:6]] + list(range(100, 130))  # frequent targets tie with 35 others
    return save_random_neox(tmp_path_factory.mktemp("model") / "neox", tokenizer, len(tokenizer) + N_PAD, tie_rows)
