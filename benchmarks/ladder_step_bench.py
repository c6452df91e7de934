"""Time one optimizer step of each tiny-ladder size, with the profile's head count and alternatives.

The tiny profile must train in at most 20 minutes on 2 cores; this measures where the time goes and
why small models use a single attention head (narrow heads cost time per step on CPU).

Run on a quiet machine: ``.venv/bin/python benchmarks/ladder_step_bench.py``
"""

from __future__ import annotations

import argparse
import time

import torch
from transformers import GPTNeoXForCausalLM

from rankscale.ladder import TINY_SIZES, Size, get_profile
from rankscale.models import count_params


def step_seconds(size: Size, batch_size: int, seq_len: int, vocab_size: int, steps: int, warmup: int) -> float:
    """Mean wall time of one forward + backward + AdamW step on random tokens, after ``warmup`` steps."""
    torch.manual_seed(0)
    model = GPTNeoXForCausalLM(size.config(vocab_size, seq_len))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, vocab_size, (batch_size, seq_len))
    for i in range(warmup + steps):
        if i == warmup:
            start = time.perf_counter()
        model(input_ids=tokens, labels=tokens).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    profile = get_profile("tiny")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch {profile.batch_size} x {profile.seq_len}")
    print(f"{'size':<9}{'heads':>6}{'head dim':>9}{'non-emb':>11}{'ms/step':>9}{'profile min':>12}")
    total = 0.0
    for size in TINY_SIZES:
        variants = sorted({size.n_heads, 1, max(1, size.d_model // 16)})
        for heads in variants:
            if size.d_model % heads:
                continue
            variant = Size(size.d_model, size.n_layers, heads)
            model = GPTNeoXForCausalLM(variant.config(4096, profile.seq_len))
            seconds = step_seconds(variant, profile.batch_size, profile.seq_len, 4096, args.steps, args.warmup)
            in_profile = heads == size.n_heads
            minutes = seconds * profile.steps / 60
            total += minutes if in_profile else 0.0
            print(f"{variant.name:<9}{heads:>6}{size.d_model // heads:>9}{count_params(model).non_embedding:>11,}"
                  f"{seconds * 1000:>9.0f}{f'{minutes:.1f}' if in_profile else '':>12}")
    print(f"training steps of the tiny profile: about {total:.1f} min (plus tokenizer, data and saving)")


if __name__ == "__main__":
    main()
