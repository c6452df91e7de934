"""The output head alone, on one shard's hidden states (16384 rows, random, unit RMS like a final
norm's output) and the randomly initialised heads of ``model_shapes.py``: cuBLAS's bf16 logits
(what the bare forward pass spends on its head), the fp32 head (``head_rank_counts`` over chunks)
and the fused head (``rankscale.records.fused_head``) at several tilings, with the fp64 work its
band asked for. Every tiling's ranks must equal the first's (they are fp64's).

Run on a GPU: ``python benchmarks/fused_head_bench.py``; ``--small --device cpu`` with
TRITON_INTERPRET=1 checks that the script runs.
"""

from __future__ import annotations

import argparse
import functools

import torch
from extract_bench import best_times
from gpu_bench import synced
from model_shapes import build_model, shapes

from rankscale.records import fused_head
from rankscale.records.extract import default_chunk_tokens, head_rank_counts

TILINGS = [  # BLOCK_M, BLOCK_N, BLOCK_K, NUM_WARPS, NUM_STAGES; the first is fused_head's own
    (64, 256, 64, 8, 4), (64, 256, 64, 8, 3), (64, 128, 64, 8, 3), (128, 128, 64, 8, 3), (128, 256, 64, 8, 3),
]


def measure(shape, device: str, rows: int, repeats: int) -> None:
    """Print one shape's lines: the bf16 logits, the fp32 head, and the fused head at each tiling."""
    model = build_model(shape, device)
    weight = model.get_output_embeddings().weight[:shape.n_real].detach()
    del model
    gen = torch.Generator(device=device).manual_seed(0)
    hidden = torch.randn(rows, weight.shape[1], generator=gen, device=device).bfloat16()
    targets = torch.randint(0, shape.n_real, (rows,), generator=gen, device=device)
    w32 = weight.float()  # what extract.fp32_head gives for this head
    chunk = default_chunk_tokens(shape.n_real, device)

    def bare():
        hidden @ weight.T

    def fp32():
        for c in range(0, rows, chunk):
            head_rank_counts(hidden[c:c + chunk], targets[c:c + chunk], w32, None)

    t_bare, t_fp32 = best_times([synced(bare, device), synced(fp32, device)], repeats)
    print(f"{shape.name}: {rows} rows, V={shape.n_real}, d={weight.shape[1]}: bf16 logits {t_bare * 1e3:.2f} ms, "
          f"fp32 head {t_fp32 * 1e3:.2f} ms", flush=True)
    first = None
    for tiling in TILINGS:
        (fused_head.BLOCK_M, fused_head.BLOCK_N, fused_head.BLOCK_K, fused_head.NUM_WARPS,
         fused_head.NUM_STAGES) = tiling
        head = fused_head.FusedHead(weight, None)
        try:
            out = head(hidden, targets)
            (t,) = best_times([synced(functools.partial(head, hidden, targets), device)], repeats)
        except Exception as err:  # noqa: BLE001 - a tiling that does not compile or fit is reported, not fatal
            print(f"  tiling {tiling}: {type(err).__name__}: {str(err)[:200]}", flush=True)
            continue
        same = "" if first is None else (" ranks equal the first tiling's" if all(
            torch.equal(a, b) for a, b in zip(out[1:3], first[1:3])) else " RANKS DIFFER from the first tiling's")
        first = first or out
        tally = {k: v / (1 + repeats) for k, v in head.tally.items()}
        print(f"  tiling {tiling}: {t * 1e3:.2f} ms ({t / t_bare:.2f}x the bf16 logits); "
              f"{tally['rows_with_near_ties'] / rows:.1%} rows to fp64, "
              f"{tally['candidate_pairs'] / rows:.2f} pairs per row, "
              f"{tally['rows_counted_whole']:.0f} rows whole;{same}", flush=True)


def main(argv: list[str] | None = None) -> None:
    """Parse the options and measure every chosen shape."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--small", action="store_true", help="shrunken models (with TRITON_INTERPRET=1 on a CPU)")
    parser.add_argument("--rows", type=int, default=16384, help="hidden states (default: one 16384-token shard)")
    parser.add_argument("--models", nargs="+", default=["pythia-1.4b", "Qwen2.5-0.5B", "Llama-3-8B"])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    for shape in shapes(args.small, args.models):
        measure(shape, args.device, args.rows, args.repeats)
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
