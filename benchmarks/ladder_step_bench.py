"""Time one optimizer step of each ladder size of a model set (both architectures), with the set's
head count and alternatives.

The tiny set's ladders must train within the book's time budget on 2 cores; this measures where the
time goes per model and why small models use a single attention head (narrow heads cost time per
step on CPU).

Run on a quiet machine: ``.venv/bin/python benchmarks/ladder_step_bench.py`` (add ``--malloc`` for the
allocator settings training uses, ``keep_freed_memory``)
"""

from __future__ import annotations

import argparse
import time

import torch

from rankscale.models.ladder import model_class, model_config
from rankscale.models.loading import count_params, keep_freed_memory
from rankscale.sets import get
from rankscale.sets.schema import LadderSize


def step_seconds(model, batch_size: int, seq_len: int, vocab_size: int, steps: int, warmup: int) -> float:
    """Mean wall time of one forward + backward + AdamW step on random tokens, after ``warmup`` steps."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, vocab_size, (batch_size, seq_len + 1))
    for i in range(warmup + steps):
        if i == warmup:
            start = time.perf_counter()
        model(input_ids=tokens, labels=tokens).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="tiny", help="a model set with ladder families (default tiny)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--heads", action="store_true", help="also time other head counts of each size")
    parser.add_argument("--malloc", action="store_true",
                        help="reuse freed memory first, as training does (rankscale.models.loading.keep_freed_memory)")
    args = parser.parse_args()
    if args.malloc:
        keep_freed_memory()
    model_set = get(args.profile)
    training = model_set.training
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch {training.batch_size} x {training.seq_len}")
    print(f"{'family':<14}{'size':<9}{'heads':>6}{'head dim':>9}{'non-emb':>11}{'ms/step':>9}{'set min':>9}")
    total = 0.0
    for family in model_set.ladder_families:
        for size in family.ladder.sizes:
            variants = sorted({size.n_heads, 1, max(1, size.d_model // 16)}) if args.heads else [size.n_heads]
            for heads in (h for h in variants if size.d_model % h == 0):
                torch.manual_seed(0)
                variant = LadderSize(size.d_model, size.n_layers, heads)
                arch = family.ladder.arch
                model = model_class(arch)(model_config(arch, variant, training.vocab_size, training.seq_len))
                seconds = step_seconds(model, training.batch_size, training.seq_len, training.vocab_size,
                                       args.steps, args.warmup)
                minutes = seconds * training.steps / 60
                total += minutes if heads == size.n_heads else 0.0
                print(f"{family.name:<14}{variant.name:<9}{heads:>6}{size.d_model // heads:>9}"
                      f"{count_params(model).non_embedding:>11,}{seconds * 1000:>9.0f}"
                      f"{f'{minutes:.1f}' if heads == size.n_heads else '':>9}")
    print(f"training steps of {model_set.name!r}: about {total:.1f} min (plus tokenizer, data and saving)")


if __name__ == "__main__":
    main()
