"""The output head fused with the rank counts on a GPU, with ranks certified equal to fp64's.

``rankscale.records.extract.head_rank_counts`` materialises a chunk's fp32 logits and compares
them with the target's. On a GPU that costs as much as the body itself (issue 34: +97% over the
bare forward pass on pythia-1.4b), and its ranks are only fp32's. This module computes the same
four outputs (``logp``, ``gt``, ``ge``, the ``TOP_K`` best log-probabilities) from a bf16 or fp16
body without ever writing the logits to memory:

1. ``_pair_dot_kernel`` computes the target's logit ``z`` of every row in fp64, from the hidden
   state and the head row (each product of two bf16 or fp16 numbers is exact in fp64; the sum of
   ``d`` of them in a fixed order rounds at most at 2^-53 relative to its terms).
2. ``_fused_head_kernel`` walks over the vocabulary tile by tile, each tile's logits computed on
   tensor cores (bf16/fp16 inputs, fp32 accumulation) and kept in registers. Per row it counts the
   logits certainly above ``z`` (further above than the error bound), keeps the indices of those
   within the bound (the *candidates*: near ties, and the target itself), and carries an online
   log-sum-exp and the ``TOP_K`` largest logits.
3. Each candidate's logit is computed again in fp64 by ``_pair_dot_kernel`` (the arithmetic that
   gave ``z``, so an exact tie stays exact), and compared with ``z``. A row with more candidates
   than the buffer holds is counted entirely in fp64.

So ``gt`` and ``ge`` are the fp64 counts at every target, whatever the tensor cores' rounding,
provided the bound holds (``logit_error_bound``, tested against fp64 by ``scripts/gpu_check.py``);
``logp`` and ``top_logp`` carry the tensor cores' error in the log-sum-exp (at most the bound).

Every row is reduced alone, in an order fixed by constants that do not depend on the number of
rows: the records are bitwise identical at any batch size (``rank_records`` never pads).

On a CPU, ``TRITON_INTERPRET=1`` runs the same kernels through Triton's interpreter (the tests do).
"""

from __future__ import annotations

import math
import os

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # the CPU install need not carry Triton: rank_records then keeps the fp32 head
    triton = None

from rankscale import RankscaleError
from rankscale.records.store import TOP_K

# The error model of a tensor-core inner product, after Blanchard et al. (2020, "Mixed precision
# block fused multiply-add", SIAM J. Sci. Comput. 42(3)) and Fasi et al. (2021, "Numerical behavior
# of NVIDIA tensor cores", PeerJ Comput. Sci. 7:e330): the products of bf16 or fp16 inputs are exact
# in fp32; they are added into the fp32 accumulator a block of ACCUMULATION_BLOCK products at a time,
# each block rounding once, possibly by truncation, so with relative error at most 2 * 2^-24 of the
# magnitudes it adds (accumulator included). The smallest block those studies saw on NVIDIA tensor
# cores is 4 (V100, T4); a larger block only makes the bound looser than it need be.
ACCUMULATION_BLOCK = 4
FP32_UNIT = 2.0**-24
ROUND_UP = 1 + 2.0**-20  # covers the fp32 rounding of the bound's own factors
# rows, vocabulary entries and hidden units per tile, warps per program and software-pipelined loads:
# the fastest of the tilings timed on an H100 (issue 34's closing note, stop 39: 64x256 with 4 stages took
# 5-37% less kernel time than 64x128 with 3 on the pythia-1.4b, Qwen2.5-0.5B, pythia-6.9b and Llama-3-8B
# shapes; 128x256 up to 3x more)
BLOCK_M, BLOCK_N, BLOCK_K = 64, 256, 64
NUM_WARPS, NUM_STAGES = 8, 4
SPLIT_COLS = 8192  # vocabulary entries per program: a fixed split, so that no order depends on the batch
# near-tie indices kept per row and split; a row with more is counted in fp64 whole, which costs a
# full row of fp64 dot products (on a Llama-3-8B-shaped random model 64 left a tenth of rows over)
CANDIDATES = 256
PAIR_BLOCK, PAIR_K = 32, 128  # pairs per program and hidden units per step of the fp64 dot products
FULL_ROWS = 16  # rows counted whole in fp64 at a time
# Triton's interpreter (TRITON_INTERPRET=1, the kernels on a CPU) multiplies bf16 tiles wrongly
# (3.9.0: errors of 1e10 on unit-scale data); there the tiles go to fp32 first, which computes the
# same exact products and so tests the same logic.
INTERPRETED = os.environ.get("TRITON_INTERPRET", "0") == "1"


def available() -> bool:
    """Whether Triton is installed (the fused head needs it; the exact fp32 head does not)."""
    return triton is not None


def applies(weight: torch.Tensor) -> bool:
    """Whether ``rank_records`` uses the fused head for a head ``weight``: a CUDA tensor in bf16 or
    fp16 (an fp32 body keeps the exact fp32 head) and Triton installed."""
    return available() and weight.is_cuda and weight.dtype in (torch.bfloat16, torch.float16)


def which(weight: torch.Tensor, asked: str = "auto") -> str:
    """The head ``rank_records`` computes for a head ``weight``: ``"fused"`` or ``"fp32"``.

    Parameters
    ----------
    weight : torch.Tensor, shape (V, d)
        The head's real rows.
    asked : {"auto", "fused", "fp32"}
        ``"auto"``: the fused head wherever it applies (``applies``), else fp32.

    Raises
    ------
    RankscaleError
        For another ``asked``, or ``"fused"`` where it does not apply.

    Examples
    --------
    >>> which(torch.zeros(3, 2)), which(torch.zeros(3, 2), "fp32")
    ('fp32', 'fp32')
    """
    if asked not in ("auto", "fused", "fp32"):
        raise RankscaleError(f"head must be auto, fused or fp32, got {asked!r}")
    if asked == "fused" and not applies(weight):
        raise RankscaleError("the fused head needs a CUDA model in bfloat16 or float16 and Triton installed; "
                             "use head='fp32' here")
    return "fused" if asked != "fp32" and applies(weight) else "fp32"


def logit_error_bound(d: int) -> float:
    """The factor ``g`` with ``|logit_tc - logit| <= g * |h| * |w|`` for a tensor-core logit.

    Under the block-FMA model above, the accumulated error of ``ceil(d / ACCUMULATION_BLOCK)``
    roundings, each at most ``2u`` times the magnitudes added so far, is at most
    ``ceil(d / b) * 2u * sum_k |h_k w_k|``, and ``sum_k |h_k w_k| <= |h| |w|`` (Cauchy-Schwarz).

    Parameters
    ----------
    d : int
        The hidden size (terms of each dot product).

    Returns
    -------
    float
        ``g``; multiply by the Euclidean norms of the hidden state and of the head row.

    Examples
    --------
    >>> f"{logit_error_bound(2048):.3g}"
    '6.1e-05'
    """
    return math.ceil(d / ACCUMULATION_BLOCK) * 2 * FP32_UNIT * ROUND_UP


if triton is not None:
    @triton.jit
    def _pair_dot_kernel(h_ptr, w_ptr, row_ptr, tok_ptr, out_ptr, n_pairs, d,
                         PAIRS: tl.constexpr, STEP: tl.constexpr):
        """out[p] = sum_k h[row[p], k] * w[tok[p], k] in fp64, the terms in a fixed order."""
        p = tl.program_id(0) * PAIRS + tl.arange(0, PAIRS)
        ok = p < n_pairs
        rows = tl.load(row_ptr + p, mask=ok, other=0).to(tl.int64)
        toks = tl.load(tok_ptr + p, mask=ok, other=0).to(tl.int64)
        acc = tl.zeros((PAIRS,), tl.float64)
        for k0 in range(0, d, STEP):
            k = k0 + tl.arange(0, STEP)
            both = ok[:, None] & (k < d)[None, :]
            h = tl.load(h_ptr + rows[:, None] * d + k[None, :], mask=both, other=0.0).to(tl.float64)
            w = tl.load(w_ptr + toks[:, None] * d + k[None, :], mask=both, other=0.0).to(tl.float64)
            acc += tl.sum(h * w, 1)
        tl.store(out_ptr + p, acc, mask=ok)

    @triton.jit
    def _fused_head_kernel(h_ptr, w_ptr, bias_ptr, wnorm_ptr, z_ptr, radius_ptr, slack_ptr,
                           above_ptr, count_ptr, cand_ptr, max_ptr, sum_ptr, top_ptr,
                           m, v, d, inv_t,
                           HAS_BIAS: tl.constexpr, UPCAST: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr, STEP: tl.constexpr,
                           SPLIT: tl.constexpr, CAP: tl.constexpr, TOP: tl.constexpr):
        """One block of ROWS rows against one split of SPLIT vocabulary entries (see the module).

        Writes, at [split, row]: the count certainly above z, the number of candidates and their
        indices (the first CAP), the running maximum and sum of exp(logit / t - max), and the TOP
        largest logit / t (unsorted).
        """
        split = tl.program_id(1)
        rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
        row_ok = rows < m
        rows64 = rows.to(tl.int64)
        z = tl.load(z_ptr + rows, mask=row_ok, other=0.0)
        radius = tl.load(radius_ptr + rows, mask=row_ok, other=0.0)
        slack = tl.load(slack_ptr + rows, mask=row_ok, other=0.0)
        above = tl.zeros((ROWS,), tl.int32)
        count = tl.zeros((ROWS,), tl.int32)
        run_max = tl.full((ROWS,), float("-inf"), tl.float32)
        run_sum = tl.zeros((ROWS,), tl.float32)
        top = tl.full((ROWS, TOP), float("-inf"), tl.float32)
        top_cols = tl.arange(0, TOP)
        tile_cols = tl.arange(0, COLS)
        v_start = split * SPLIT
        v_end = tl.minimum(v_start + SPLIT, v)
        for v0 in range(v_start, v_end, COLS):
            cols = v0 + tile_cols
            col_ok = cols < v_end
            cols64 = cols.to(tl.int64)
            acc = tl.zeros((ROWS, COLS), tl.float32)
            for k0 in range(0, d, STEP):
                k = k0 + tl.arange(0, STEP)
                k_ok = k < d
                h = tl.load(h_ptr + rows64[:, None] * d + k[None, :], mask=row_ok[:, None] & k_ok[None, :], other=0.0)
                w = tl.load(w_ptr + cols64[:, None] * d + k[None, :], mask=col_ok[:, None] & k_ok[None, :], other=0.0)
                if UPCAST:
                    acc = tl.dot(h.to(tl.float32), tl.trans(w.to(tl.float32)), acc, input_precision="ieee")
                else:
                    acc = tl.dot(h, tl.trans(w), acc)
            if HAS_BIAS:
                acc += tl.load(bias_ptr + cols, mask=col_ok, other=0.0)[None, :]
            band = radius[:, None] * tl.load(wnorm_ptr + cols, mask=col_ok, other=0.0)[None, :] + slack[:, None]
            diff = acc - z[:, None]
            live = row_ok[:, None] & col_ok[None, :]
            above += tl.sum((live & (diff > band)).to(tl.int32), 1)
            near = live & (tl.abs(diff) <= band)
            slot = count[:, None] + tl.cumsum(near.to(tl.int32), 1) - 1
            keep = near & (slot < CAP)
            tl.store(cand_ptr + (split * m + rows64[:, None]) * CAP + slot, cols[None, :], mask=keep)
            count += tl.sum(near.to(tl.int32), 1)

            x = tl.where(col_ok[None, :], acc * inv_t, float("-inf"))
            tile_max = tl.max(x, 1)
            new_max = tl.maximum(run_max, tile_max)
            run_sum = run_sum * tl.exp(run_max - new_max) + tl.sum(tl.exp(x - new_max[:, None]), 1)
            run_max = new_max
            # the TOP largest: each round moves every row's best remaining value of the tile into
            # the place of its smallest kept one, while it beats it in some row; after the first
            # tiles a tile rarely holds more than one such value, so rounds are few
            low = tl.min(top, 1)
            rest = tl.where(x > low[:, None], x, float("-inf"))
            best, at = tl.max(rest, 1, return_indices=True)
            while tl.max((best > low).to(tl.int32), 0) > 0:
                low_at = tl.argmin(top, 1)
                top = tl.where((top_cols[None, :] == low_at[:, None]) & (best > low)[:, None], best[:, None], top)
                rest = tl.where(tile_cols[None, :] == at[:, None], float("-inf"), rest)
                low = tl.min(top, 1)
                best, at = tl.max(rest, 1, return_indices=True)
        out = split * m + rows64
        tl.store(above_ptr + out, above, mask=row_ok)
        tl.store(count_ptr + out, count, mask=row_ok)
        tl.store(max_ptr + out, run_max, mask=row_ok)
        tl.store(sum_ptr + out, run_sum, mask=row_ok)
        tl.store(top_ptr + out[:, None] * TOP + top_cols[None, :], top, mask=row_ok[:, None])


def _pair_dots(hidden: torch.Tensor, weight: torch.Tensor, rows: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """fp64 ``hidden[rows[p]] . weight[tokens[p]]`` for every pair p (``_pair_dot_kernel``)."""
    out = torch.empty(len(rows), dtype=torch.float64, device=hidden.device)
    if len(rows):
        _pair_dot_kernel[(triton.cdiv(len(rows), PAIR_BLOCK),)](
            hidden, weight, rows.to(torch.int32).contiguous(), tokens.to(torch.int32).contiguous(), out, len(rows),
            hidden.shape[1], PAIRS=PAIR_BLOCK, STEP=PAIR_K)
    return out


class FusedHead:
    """The fused, certified head of one model (``rank_records`` builds it once per call).

    Parameters
    ----------
    weight : torch.Tensor of bfloat16 or float16, shape (V, d)
        The head's real rows, on the device that runs the kernels.
    bias : torch.Tensor, shape (V,), or None
    temperature : float
        Divides the logits before the softmax; the ranks do not depend on it.

    Notes
    -----
    Calling it on hidden states ``(c, d)`` in the weight's dtype and targets ``(c,)`` returns what
    ``rankscale.records.extract.head_rank_counts`` returns: ``logp`` float32 (c,), ``gt`` and ``ge``
    int64 (c,), ``top`` float32 (c, TOP_K), padded with -inf where V < TOP_K.
    """

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None, temperature: float = 1.0):
        if triton is None:
            raise RankscaleError("the fused head needs Triton; install it (pip install triton) or use the fp32 head")
        if temperature <= 0:
            raise RankscaleError(f"temperature must be positive, got {temperature}")
        self.weight = weight.contiguous()
        self.bias = None if bias is None else bias.detach().to(torch.float64)
        self.inv_t = 1.0 / temperature
        self.splits = triton.cdiv(weight.shape[0], SPLIT_COLS)
        # in fp64 and in slices: a 152k-row head in fp64 at once would take a GiB
        self.wnorm = torch.cat([w.double().norm(dim=1) for w in self.weight.split(8192)]).mul(ROUND_UP).float()
        self.gamma = logit_error_bound(weight.shape[1])
        self.bias_max = 0.0 if bias is None else float(self.bias.abs().max())
        # how much fp64 work the band asked for, over every call (benchmarks and gpu_check report it)
        self.tally = {"targets": 0, "rows_with_near_ties": 0, "candidate_pairs": 0, "rows_counted_whole": 0}

    @torch.no_grad()
    def __call__(self, hidden: torch.Tensor, targets: torch.Tensor):
        hidden = hidden.to(self.weight.dtype).contiguous()
        m, (v, d) = hidden.shape[0], self.weight.shape
        dev = hidden.device
        rows = torch.arange(m, device=dev)
        z = _pair_dots(hidden, self.weight, rows, targets)
        if self.bias is not None:
            z += self.bias[targets]
        # the band: tensor-core error, plus the fp32 roundings of z, of the bias sum and of the difference
        radius = (hidden.double().norm(dim=1) * (self.gamma * ROUND_UP)).float()
        slack = ((z.abs() + self.bias_max) * (4 * FP32_UNIT) + 1e-30).float()
        shape = (self.splits, m)
        above = torch.empty(shape, dtype=torch.int32, device=dev)
        count = torch.empty(shape, dtype=torch.int32, device=dev)
        cand = torch.empty((*shape, CANDIDATES), dtype=torch.int32, device=dev)
        run_max = torch.empty(shape, dtype=torch.float32, device=dev)
        run_sum = torch.empty(shape, dtype=torch.float32, device=dev)
        top = torch.empty((*shape, TOP_K), dtype=torch.float32, device=dev)
        bias32 = self.bias.float() if self.bias is not None else self.wnorm  # any pointer where there is no bias
        _fused_head_kernel[(triton.cdiv(m, BLOCK_M), self.splits)](
            hidden, self.weight, bias32, self.wnorm, z.float(), radius, slack,
            above, count, cand, run_max, run_sum, top, m, v, d, self.inv_t,
            HAS_BIAS=self.bias is not None, UPCAST=INTERPRETED, ROWS=BLOCK_M, COLS=BLOCK_N, STEP=BLOCK_K, SPLIT=SPLIT_COLS,
            CAP=CANDIDATES, TOP=TOP_K, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        gt, ge = self._exact_counts(hidden, targets, z, above, count, cand)
        # the splits' log-sum-exps, merged in split order (elementwise: no order depends on m)
        best = run_max.max(0).values
        total = torch.zeros(m, dtype=torch.float32, device=dev)
        for j in range(self.splits):
            total += run_sum[j] * torch.exp(run_max[j] - best)
        log_z = best + torch.log(total)
        logp = (z * self.inv_t - log_z.double()).float()
        best_top = top.permute(1, 0, 2).reshape(m, -1).topk(TOP_K, dim=1).values - log_z[:, None]
        return logp, gt, ge, best_top

    def _exact_counts(self, hidden, targets, z, above, count, cand):
        """``gt`` and ``ge`` from the kernel's counts and fp64 logits of the candidates; rows whose
        candidates overflowed the buffer are counted whole in fp64."""
        m = hidden.shape[0]
        overflow = (count > CANDIDATES).any(0)
        kept = (torch.arange(CANDIDATES, device=hidden.device) < count[..., None]) & ~overflow[None, :, None]
        split, row, slot = kept.nonzero(as_tuple=True)
        tokens = cand[split, row, slot].long()
        other = tokens != targets[row]
        row, tokens = row[other], tokens[other]
        exact = _pair_dots(hidden, self.weight, row, tokens)
        if self.bias is not None:
            exact += self.bias[tokens]
        full = overflow.nonzero()[:, 0]
        self.tally["targets"] += m
        self.tally["rows_with_near_ties"] += int(torch.bincount(row, minlength=m).count_nonzero()) + len(full)
        self.tally["candidate_pairs"] += len(row)
        self.tally["rows_counted_whole"] += len(full)
        base = above.sum(0, dtype=torch.int64)
        gt = base + torch.bincount(row[exact > z[row]], minlength=m)
        ge = base + torch.bincount(row[exact >= z[row]], minlength=m)
        every = torch.arange(self.weight.shape[0], device=hidden.device)
        for start in range(0, len(full), FULL_ROWS):
            part = full[start:start + FULL_ROWS]
            pair_rows = part.repeat_interleave(len(every))
            exact = _pair_dots(hidden, self.weight, pair_rows, every.repeat(len(part))).view(len(part), -1)
            if self.bias is not None:
                exact += self.bias
            zr = z[part][:, None]
            # the target's own logit is z exactly (the same arithmetic): it counts in >= only
            gt[part] = (exact > zr).sum(1)
            ge[part] = (exact >= zr).sum(1) - 1
        return gt, ge
