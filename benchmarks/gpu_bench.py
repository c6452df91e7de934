"""Throughput and peak memory of extraction with a bf16 body, on the shapes of pythia-160m,
pythia-1.4b, Qwen2.5-0.5B, pythia-6.9b and Llama-3-8B (randomly initialised, ``model_shapes.py``):
the bare forward pass (logits in the model's dtype) against forward +
``rankscale.records.extract.rank_records`` at the same batch size, with the head it chooses (on a
GPU the fused head of ``rankscale.records.fused_head``) and with the fp32 head, and on pythia-160m
the naive per-token extractor of ``extract_bench.py``.

Run: ``make bench-gpu`` on a GPU machine; ``--small --device cpu`` runs shrunken models in
seconds (a check that the script works, not a measurement of the targets). ``--json PATH``
writes the table's rows.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
from pathlib import Path

import numpy as np
import torch

from extract_bench import best_times, naive_extract
from model_shapes import NAMES, build_model, random_windows, resolve_device, shapes
from rankscale.records.extract import rank_records
from rankscale.models.loading import count_params

# Issue 34's targets, for the full-size models on a GPU.
OVERHEAD_TARGETS = {"pythia-1.4b": 0.05, "Qwen2.5-0.5B": 0.25, "pythia-6.9b": 0.10,
                    "Llama-3-8B": 0.10}  # t_extract / t_bare - 1
PEAK_RATIO_TARGET = 1.0  # peak memory with extraction over that of the bare forward pass
SPEEDUP_TARGET = 100  # rankscale's tokens/s over the naive extractor's, on pythia-160m
NAIVE_MODEL = "pythia-160m"
# On a GPU each shape's own batch (model_shapes.ModelShape.gpu_batch: 32 windows of 512 tokens are
# one 16384-token shard, the batch extract starts from); on CPU extract uses 8 (extract.CPU_BATCH),
# as larger batches gain nothing there.
CPU_BATCH = 8
BATCHES_PER_RUN = 4


def sync(device: str) -> None:
    """Wait for the device's queued kernels, so that a wall-clock time covers them."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def synced(fn, device: str):
    """``fn`` followed by ``sync``, for ``extract_bench.best_times``."""
    def run():
        fn()
        sync(device)
    return run


def peak_memory(fn, device: str) -> int | None:
    """Peak bytes of device memory allocated while ``fn`` runs, the model's weights included.

    Returns None on CPU: torch's CPU allocations bypass ``tracemalloc`` and the process's peak
    resident size never falls, so there is no per-call peak to read.
    """
    if torch.device(device).type != "cuda":
        return None
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device)


@torch.no_grad()
def bare_forward(model, windows: list[np.ndarray], batch_size: int) -> None:
    """The model's own forward pass with its logits in its dtype, batch by batch, as an
    evaluation without ranks would run it."""
    device = model.get_input_embeddings().weight.device
    for start in range(0, len(windows), batch_size):
        model(input_ids=torch.from_numpy(np.stack(windows[start:start + batch_size])).to(device)).logits


def device_name(device: str) -> str:
    """The GPU's name, or the CPU's and its thread count."""
    if torch.device(device).type == "cuda":
        return torch.cuda.get_device_name(device)
    return f"{platform.processor() or platform.machine()} CPU, {torch.get_num_threads()} threads"


def measure(shape, device: str, n_windows: int, window_len: int, batch_size: int, naive_windows: int,
            repeats: int) -> dict:
    """One row of the table: throughput and peak memory of one model shape.

    Parameters
    ----------
    shape : model_shapes.ModelShape
    device : str
    n_windows, window_len : int
        Random windows timed by the fast paths.
    batch_size : int
        Windows per forward pass, the same for both paths.
    naive_windows : int
        Windows the naive extractor is timed on, once (``NAIVE_MODEL`` only: with a host copy and
        four top-k per token it is too slow for more).
    repeats : int
        The fast paths' best of this many runs.

    Returns
    -------
    dict
        The row, ready for JSON: rates in target tokens per second, peaks in bytes (None on CPU),
        naive rate and speed-up None for the other models.
    """
    model = build_model(shape, device)
    windows = random_windows(n_windows, window_len, shape.n_real)
    n_targets = n_windows * (window_len - 1)

    def bare():
        bare_forward(model, windows, batch_size)

    def extract():
        rank_records(model, windows, shape.n_real, batch_size=batch_size)

    def extract_fp32():
        rank_records(model, windows, shape.n_real, batch_size=batch_size, head="fp32")

    # one batch of each first: CUDA context, cuBLAS handles, kernel choices and Triton's compilation
    bare_forward(model, windows[:batch_size], batch_size)
    rank_records(model, windows[:batch_size], shape.n_real, batch_size=batch_size)
    rank_records(model, windows[:batch_size], shape.n_real, batch_size=batch_size, head="fp32")
    t_bare, t_extract, t_fp32 = best_times([synced(bare, device), synced(extract, device),
                                            synced(extract_fp32, device)], repeats)
    peak_bare, peak_extract = peak_memory(bare, device), peak_memory(extract, device)
    row = {
        "device": device_name(device), "model": shape.name, "non_embedding": count_params(model).non_embedding,
        "window_len": window_len, "windows": n_windows, "batch_size": batch_size,
        "tokens_per_s_bare": n_targets / t_bare, "tokens_per_s_extract": n_targets / t_extract,
        "overhead": t_extract / t_bare - 1, "tokens_per_s_fp32_head": n_targets / t_fp32,
        "overhead_fp32_head": t_fp32 / t_bare - 1,
        "peak_bytes_bare": peak_bare, "peak_bytes_extract": peak_extract,
        "peak_ratio": None if peak_bare is None else peak_extract / peak_bare,
        "naive_tokens_per_s": None, "speedup": None,
    }
    if shape.name == NAIVE_MODEL:
        few = windows[:naive_windows]
        (t_naive,) = best_times([synced(lambda: naive_extract(model, few), device)], 1)
        row["naive_tokens_per_s"] = sum(len(w) - 1 for w in few) / t_naive
        row["speedup"] = row["tokens_per_s_extract"] / row["naive_tokens_per_s"]
    return row


def release(device: str) -> None:
    """Free a finished model's memory, cached blocks included, before the next model is built."""
    gc.collect()
    if torch.device(device).type == "cuda":
        torch.cuda.empty_cache()


def _gib(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 2**30:.2f} GiB"


def format_table(rows: list[dict]) -> list[str]:
    """The table's lines: one per model, peak memory with extraction shown with its ratio to the bare pass."""
    header = (f"{'device':<28}{'model':<14}{'batch':>6}{'bare tok/s':>12}{'extract tok/s':>15}{'overhead':>10}"
              f"{'fp32 head':>12}{'overhead':>10}"
              f"{'peak bare':>12}{'peak extract (ratio)':>23}{'naive tok/s':>13}{'speed-up':>10}")
    lines = [header, "-" * len(header)]
    for r in rows:
        peak = _gib(r["peak_bytes_extract"]) + ("" if r["peak_ratio"] is None else f" ({r['peak_ratio']:.2f}x)")
        naive = "-" if r["naive_tokens_per_s"] is None else f"{r['naive_tokens_per_s']:,.0f}"
        speedup = "-" if r["speedup"] is None else f"{r['speedup']:,.0f}x"
        lines.append(f"{r['device'][:27]:<28}{r['model']:<14}{r['batch_size']:>6}{r['tokens_per_s_bare']:>12,.0f}"
                     f"{r['tokens_per_s_extract']:>15,.0f}{r['overhead']:>+10.1%}{r['tokens_per_s_fp32_head']:>12,.0f}"
                     f"{r['overhead_fp32_head']:>+10.1%}{_gib(r['peak_bytes_bare']):>12}"
                     f"{peak:>23}{naive:>13}{speedup:>10}")
    return lines


def target_lines(rows: list[dict]) -> list[str]:
    """Each of issue 24's targets that this run measured, with met or missed."""
    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    lines = []
    for r in rows:
        if r["model"] in OVERHEAD_TARGETS:
            target = OVERHEAD_TARGETS[r["model"]]
            lines.append(f"{r['model']}: overhead {r['overhead']:+.1%} (target <= +{target:.0%}): "
                         f"{verdict(r['overhead'] <= target)}")
        if r["peak_ratio"] is not None:
            lines.append(f"{r['model']}: peak memory {r['peak_ratio']:.2f}x the bare pass's "
                         f"(target <= {PEAK_RATIO_TARGET}x): {verdict(r['peak_ratio'] <= PEAK_RATIO_TARGET)}")
        if r["speedup"] is not None:
            lines.append(f"{r['model']}: {r['speedup']:,.0f}x the naive extractor (target >= {SPEEDUP_TARGET}x): "
                         f"{verdict(r['speedup'] >= SPEEDUP_TARGET)}")
    return lines


def main(argv: list[str] | None = None) -> None:
    """Parse the options, measure every chosen model, print the table and write ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="cuda, cuda:N or cpu (default: cuda where available)")
    parser.add_argument("--small", action="store_true",
                        help="shrunken models and 64-token windows: seconds on a CPU")
    parser.add_argument("--batch-size", type=int, help="windows per forward pass (default: each shape's own on a GPU, 32 or 16, and 8 on CPU)")
    parser.add_argument("--models", nargs="+", choices=NAMES, help="a subset of the models (default: all)")
    parser.add_argument("--windows", type=int, help=f"windows timed (default: {BATCHES_PER_RUN} batches)")
    parser.add_argument("--naive-windows", type=int, default=2,
                        help=f"windows the naive extractor runs on {NAIVE_MODEL}")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs of the fast paths")
    parser.add_argument("--json", type=Path, help="write the table's rows here")
    args = parser.parse_args(argv)
    try:
        device = resolve_device(args.device)
    except ValueError as err:
        parser.error(f"--{err}")
    device_type = torch.device(device).type
    if min(v for v in (args.batch_size, args.windows, args.naive_windows, args.repeats) if v is not None) < 1:
        parser.error("--batch-size, --windows, --naive-windows and --repeats must be at least 1")
    window_len = 64 if args.small else 512

    rows = []
    for shape in shapes(args.small, args.models):
        batch_size = args.batch_size or (shape.gpu_batch if device_type == "cuda" else CPU_BATCH)
        n_windows = args.windows or BATCHES_PER_RUN * batch_size
        rows.append(measure(shape, device, n_windows, window_len, batch_size, args.naive_windows, args.repeats))
        print("\n".join(format_table(rows[-1:])[2:]), flush=True)
        release(device)
    print(f"{'shrunken models (--small)' if args.small else 'full-size models'}, randomly initialised, bf16 body; "
          f"'extract': the head rank_records chooses (fused on a GPU), 'fp32 head': head='fp32'; "
          f"{args.windows or f'{BATCHES_PER_RUN} batches of'} windows of {window_len} tokens, best of {args.repeats}; "
          f"torch {torch.__version__}; tokens/s count targets (window length - 1 per window)")
    print("\n".join(format_table(rows)))
    print("\nissue 34 targets" + (" (set for the full-size models on a GPU; this run only shows the script works)"
                                  if args.small or device_type != "cuda" else "") + ":")
    print("\n".join("  " + line for line in target_lines(rows)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
