"""How far a tensor-core output head's logits stray from exact ones, and what a bound that covers
the error costs in rows to recompute (issue 34's "certified exact" head, measured before it is built).

For each model shape (randomly initialised, bf16 body, ``model_shapes.py``), the final hidden states
h of random windows and the head W are both bf16, so every product h_i W_ji is exact in fp32 and
fp64: a head's error is only its accumulation. Against the exact logits e = h W^T (fp64) it reports,
for the tensor-core head (bf16 inputs, fp32 accumulation: ``torch.mm(..., out_dtype=torch.float32)``)
and for cuBLAS's fp32 head (TF32 off):

- ``max err / (u * s)``: the largest |x_j - e_j| over every row and vocabulary entry, in units of
  u * s_j, where u = 2^-24 (fp32's unit roundoff) and s_j = sum_i |h_i W_ji| (the error bound of
  a dot product scales with s_j);
- ``ranks differ``: the share of targets whose rank (count of e_j >= e_target) differs from fp64's;
- for a bound of c * u * s (c the column): the share of rows with a near tie, some j whose
  |x_j - x_target| <= c * u * (s_j + s_target), and the mean number of such j per row (the dot
  products an exact recompute of only the near entries would redo). If every |x_j - e_j| <= c * u * s_j, a row
  without a near tie ranks exactly as fp64 does, so only the flagged rows need an exact
  recompute; ``uncertified`` counts rows without a near tie whose rank is wrong anyway (must be 0
  where c is above the measured max).

Run on a GPU machine: ``python benchmarks/head_error_bench.py``; ``--small --device cpu`` runs the
shrunken shapes in seconds (a check of the script; the CPU has no tensor cores, so the
"tensor-core" head there is the fp32 one).
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
import torch

from model_shapes import build_model, random_windows, resolve_device, shapes

U32 = 2.0 ** -24
BOUND_FACTORS = (4, 16, 64, 256, 1024)  # c of the candidate bounds c * u * s
ROW_CHUNK = 1024  # rows of the fp64 reference at a time (each chunk holds a few rows x vocabulary fp64 arrays)


def tensor_core_head(h: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """bf16 x bf16 with fp32 accumulation and output, as a fused head would compute its tiles."""
    try:
        return torch.mm(h, w.T, out_dtype=torch.float32)
    except (TypeError, RuntimeError):  # no out_dtype on this device or torch: the fp32 head stands in
        return fp32_head(h, w)


def fp32_head(h: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return h.float() @ w.float().T


def ranks(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """1-based ``ge`` ranks: entries at or above the target's logit."""
    return (logits >= logits.gather(1, target[:, None])).sum(1)


def measure(h: torch.Tensor, w: torch.Tensor, target: torch.Tensor) -> dict:
    """Error and near-tie statistics of both heads over rows ``h`` (n, d) bf16 against ``w`` (V, d) bf16."""
    stats = {name: {"max": 0.0, "differ": 0, "flagged": np.zeros(len(BOUND_FACTORS), int),
                    "uncertified": np.zeros(len(BOUND_FACTORS), int), "near": np.zeros(len(BOUND_FACTORS), int)} for name in ("tensor core", "fp32")}
    w64, w64_abs = w.double(), w.double().abs()
    for start in range(0, len(h), ROW_CHUNK):
        rows, t = h[start:start + ROW_CHUNK], target[start:start + ROW_CHUNK]
        exact = rows.double() @ w64.T
        scale = rows.double().abs() @ w64_abs.T
        exact_rank = ranks(exact, t)
        scale_t = scale.gather(1, t[:, None])
        for name, head in (("tensor core", tensor_core_head), ("fp32", fp32_head)):
            x = head(rows, w).double()
            s = stats[name]
            s["max"] = max(s["max"], float(((x - exact).abs() / (U32 * scale).clamp_min(1e-300)).max()))
            wrong = ranks(x, t) != exact_rank
            s["differ"] += int(wrong.sum())
            gap = (x - x.gather(1, t[:, None])).abs()
            for i, c in enumerate(BOUND_FACTORS):
                n_near = (gap <= c * U32 * (scale + scale_t)).sum(1) - 1  # the target itself always counts
                near = n_near > 0
                s["flagged"][i] += int(near.sum())
                s["near"][i] += int(n_near.sum())
                s["uncertified"][i] += int((wrong & ~near).sum())
            del x, gap
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="shrunken shapes (a check of the script)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--windows", type=int, default=16, help="random windows of 512 tokens per model")
    args = parser.parse_args()
    device = resolve_device(args.device)
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name() if device.startswith('cuda') else platform.processor() or 'cpu'}")
    header = " | ".join(f"c={c}: flagged / near per row / uncertified" for c in BOUND_FACTORS)
    print(f"| model | d | head | targets | max err / (u s) | ranks differ | {header} |")
    for shape in shapes(args.small):
        model = build_model(shape, device)
        ids = torch.as_tensor(np.stack(random_windows(args.windows, 512, shape.n_real)), device=device)
        with torch.no_grad():
            hidden = model.base_model(input_ids=ids, use_cache=False).last_hidden_state[:, :-1]
            h = hidden.reshape(-1, hidden.shape[-1]).contiguous()
            w = model.get_output_embeddings().weight[:shape.n_real].contiguous()
            stats = measure(h, w, ids[:, 1:].reshape(-1))
        n = len(h)
        for name, s in stats.items():
            cells = " | ".join(f"{f / n:.2%} / {m / n:.1f} / {u}" for f, m, u in zip(s["flagged"], s["near"], s["uncertified"]))
            print(f"| {shape.name} | {h.shape[1]} | {name} | {n:,} | {s['max']:.1f} | {s['differ'] / n:.3%} | {cells} |",
                  flush=True)
        del model, h, w, hidden
        if device.startswith("cuda"):
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
