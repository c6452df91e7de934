"""Throughput of extraction on CPU: bare forward pass vs rankscale's extractor vs a naive one.

All three run the same randomly initialised GPT-NeoX (d_model 192, 6 layers, vocabulary 4096,
about 2.7M non-embedding parameters) on the same random token windows. Run: ``make bench``.
"""

from __future__ import annotations

import argparse
import math
import platform
import time

import numpy as np
import torch
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

from rankscale.models.loading import count_params
from rankscale.records.extract import rank_records

VOCAB = 4096
NAIVE_KS = (1, 10, 100, 1000)


def build_model() -> GPTNeoXForCausalLM:
    torch.manual_seed(0)
    config = GPTNeoXConfig(vocab_size=VOCAB, hidden_size=192, num_hidden_layers=6, num_attention_heads=6,
                           intermediate_size=768, max_position_embeddings=512, tie_word_embeddings=False)
    return GPTNeoXForCausalLM(config).eval()


@torch.no_grad()
def bare_forward(model, windows, batch_size):
    for start in range(0, len(windows), batch_size):
        model(input_ids=torch.from_numpy(np.stack(windows[start:start + batch_size]))).logits


@torch.no_grad()
def naive_extract(model, windows):
    """How a first attempt looks: full softmax, then per token a host copy, top-k membership
    tests and a comparison count, in a Python loop. Runs on the model's device (gpu_bench.py
    times it on a GPU too)."""
    out = []
    for w in windows:
        probs = torch.softmax(model(input_ids=torch.from_numpy(w)[None].to(model.device)).logits[0], -1)
        for i, target in enumerate(w[1:]):
            row = probs[i].cpu()
            target = int(target)
            in_top = [target in torch.topk(row, k).indices.tolist() for k in NAIVE_KS]
            out.append((math.log(row[target].item()), int((row > row[target]).sum()), in_top))
    return out


@torch.no_grad()
def body_only(model, windows, batch_size):
    for start in range(0, len(windows), batch_size):
        model.base_model(input_ids=torch.from_numpy(np.stack(windows[start:start + batch_size])))


def best_times(fns, repeats):
    """Best wall time of each function, running them in turn so that a slow spell of a shared
    machine hits all of them alike."""
    best = [math.inf] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--windows", type=int, default=16, help="windows for the fast paths")
    parser.add_argument("--window-len", type=int, default=512)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    model = build_model()
    rng = np.random.default_rng(0)
    windows = [rng.integers(0, VOCAB, args.window_len) for _ in range(args.windows)]
    n_targets = sum(len(w) - 1 for w in windows)
    naive_windows = windows[:1]
    n_naive = len(naive_windows[0]) - 1

    bare_forward(model, windows[:2], args.batch_size)  # warm-up
    t_bare, t_ours, t_body = best_times([
        lambda: bare_forward(model, windows, args.batch_size),
        lambda: rank_records(model, windows, VOCAB, batch_size=args.batch_size),
        lambda: body_only(model, windows, args.batch_size),
    ], args.repeats)
    (t_naive,) = best_times([lambda: naive_extract(model, naive_windows)], 1)

    rows = [("bare forward pass (logits)", n_targets / t_bare),
            ("forward + rankscale extraction", n_targets / t_ours),
            ("naive extractor", n_naive / t_naive),
            ("(body alone, no head)", n_targets / t_body)]
    print(f"model: GPT-NeoX d_model 192, 6 layers, vocab {VOCAB}, "
          f"{count_params(model).non_embedding:,} non-embedding parameters")
    print(f"machine: {platform.processor() or platform.machine()}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; windows of {args.window_len} tokens, batch {args.batch_size}, "
          f"best of {args.repeats}")
    print(f"{'path':<34}{'tokens/s':>12}")
    for name, rate in rows:
        print(f"{name:<34}{rate:>12,.0f}")
    overhead = t_ours / t_bare - 1
    speedup = (n_targets / t_ours) / (n_naive / t_naive)
    print(f"extraction overhead over the bare forward pass: {overhead:+.1%} (target <= +15%)")
    print(f"speed-up over the naive extractor: {speedup:.0f}x (target >= 50x)")


if __name__ == "__main__":
    main()
