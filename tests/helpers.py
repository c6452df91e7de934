"""What several test modules share: a little real text, one factory of random causal LMs saved
with ``save_pretrained``, and one brute-force reference of the records that extraction computes."""

from __future__ import annotations

import inspect
import json
import re
import json.decoder
import json.encoder
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForCausalLM, GPT2Config, GPTNeoXConfig, OPTConfig

from rankscale.records.store import TOP_K

N_PAD = 12  # extra head rows beyond the tokenizer, as in Pythia's padded head
WIDTH = 32
# config for a head of `rows` rows, and the final norm whose bias shifts every hidden state
FAMILIES = {
    "neox": (lambda rows: GPTNeoXConfig(vocab_size=rows, hidden_size=WIDTH, num_hidden_layers=2, num_attention_heads=4,
                                        intermediate_size=64, max_position_embeddings=128, tie_word_embeddings=False),
             "gpt_neox.final_layer_norm"),
    "gpt2": (lambda rows: GPT2Config(vocab_size=rows, n_positions=128, n_embd=WIDTH, n_layer=2, n_head=4),
             "transformer.ln_f"),
    "opt": (lambda rows: OPTConfig(vocab_size=rows, hidden_size=WIDTH, num_hidden_layers=2, num_attention_heads=4,
                                   ffn_dim=64, word_embed_proj_dim=WIDTH, max_position_embeddings=128),
            "model.decoder.final_layer_norm"),
}


def corpus_documents() -> list[str]:
    """A few kB of real text (standard-library sources) available on every machine."""
    return [inspect.getsource(m) for m in (json, json.decoder, json.encoder, inspect)]


def save_random_model(path: Path, tokenizer, *, family: str = "neox", head_rows: int | None = None,
                      tie_rows=(), seed: int = 0) -> Path:
    """A random causal LM of ``family`` (``FAMILIES``) saved with its tokenizer.

    The head is scaled up so that the model is far from uniform; ``tie_rows`` are zeroed (exact
    ties at logit 0 for every position); rows beyond the tokenizer (``head_rows`` >
    ``len(tokenizer)``, as in Pythia's padded head) are set to 50 and the final norm's bias to
    0.5, so that every hidden state sums to 0.5 x width and a padded row scores about 800 where
    real rows score a few units: counted, padded rows would top every ranking. GPT-2 and OPT tie
    the head to the input table; padded ids are never input.
    """
    config, final_norm = FAMILIES[family]
    rows = head_rows or len(tokenizer)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config(rows))
    with torch.no_grad():
        head = model.get_output_embeddings().weight
        head.mul_(20.0)
        head[list(tie_rows)] = 0.0
        if rows > len(tokenizer):
            head[len(tokenizer):] = 50.0
            model.get_submodule(final_norm).bias.fill_(0.5)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def forward_reference(model, windows, n_real: int, near_tie: float = 0.0) -> dict[str, np.ndarray]:
    """What extraction records, by brute force: the model's own full forward pass (its head, bias
    and all), one window at a time, each row of fp32 logits counted over the real tokens in fp64.

    Returns ``logp``, ``gt``, ``ge``, ``top_logp`` (best first), ``gt_all_rows`` (``gt`` counted
    over every head row, padded ones included) and, where ``near_tie`` > 0, the bounds of ``gt``
    and ``ge`` when the target's logit is nudged that much either way (``*_low``, ``*_high``):
    logits that close may be ordered either way by rounding in another computation of them.
    """
    parts: dict[str, list] = {}
    with torch.no_grad():
        for w in windows:
            full = model(input_ids=torch.from_numpy(w)[None]).logits[0, :-1].float().double().numpy()
            logits = full[:, :n_real]
            target = logits[np.arange(len(w) - 1), w[1:]][:, None]
            log_z = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
            found = {
                "gt": (logits > target).sum(1),
                "ge": (logits >= target).sum(1) - 1,  # the target itself is not counted
                "gt_all_rows": (full > target).sum(1),
                "logp": target[:, 0] - log_z,
                "top_logp": -np.sort(-logits, axis=1)[:, :TOP_K] - log_z[:, None],
            }
            if near_tie > 0:
                found.update({
                    "gt_low": (logits > target + near_tie).sum(1), "gt_high": (logits > target - near_tie).sum(1) - 1,
                    "ge_low": (logits >= target + near_tie).sum(1), "ge_high": (logits >= target - near_tie).sum(1) - 1,
                })
            for name, values in found.items():
                parts.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in parts.items()}


def random_records(seed: int, n: int = 5000, vocab: int = 300):
    """Made-up records (logp, gt, ge, window) with ties and a lognormal-ish rank, sorted by window."""
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.lognormal(1.0, 1.5, n).astype(np.int64), vocab - 1)
    ge = gt + rng.binomial(1, 0.1, n) * rng.integers(1, 4, n)
    logp = -rng.gamma(2.0, 1.0, n) - 0.2 * np.log1p(gt)
    window = np.sort(rng.integers(0, 40, n))
    return logp, gt, ge, window


def window_success(rank: np.ndarray, window: np.ndarray, n: int, ks) -> np.ndarray:
    """p_{N,k} by its definition, the reference ``rankscale.analysis.emergence`` is checked against: the fraction
    of runs of ``n`` consecutive targets that all rank within the top k (paper A, section 5.1).

    Runs slide one target at a time and never cross a window boundary.
    rank : (n_targets,) 1-based ranks; window : (n_targets,) window ids, each window's targets
    contiguous and in order; ks : scalar or (m,). Returns (m,) floats.
    """
    rank = np.asarray(rank)
    window = np.asarray(window)
    if n < 1:
        raise ValueError(f"run length n must be at least 1, got {n}")
    starts = np.arange(len(rank) - n + 1)
    starts = starts[window[starts] == window[starts + n - 1]]
    if len(starts) == 0:
        raise ValueError(f"no window holds {n} consecutive targets; use a smaller n or longer windows")
    result = []
    for k in np.atleast_1d(ks):
        hits = np.concatenate([[0], np.cumsum(rank <= k)])
        result.append(np.mean(hits[starts + n] - hits[starts] == n))
    return np.array(result)


def notebook_cells(source: str) -> list[tuple[str, list[str]]]:
    """A percent-format notebook's cells after its header: (kind, non-blank lines), markdown without its '# '."""
    found = []
    for block in re.split(r"^# %%", source, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        kind = "markdown" if "[markdown]" in head else "code"
        lines = [line.removeprefix("#").strip() if kind == "markdown" else line for line in body.splitlines()]
        found.append((kind, [line for line in lines if line.strip()]))
    return found
