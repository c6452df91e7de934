"""Correctness of extraction with a bf16 body on the shapes of pythia-160m, pythia-1.4b,
Qwen2.5-0.5B, pythia-6.9b and Llama-3-8B (randomly initialised, ``benchmarks/model_shapes.py``), on a GPU or on the CPU.

Five checks per model (four on the CPU, where the fused head does not run), each printed as a
PASS or FAIL line:

reference
    ``gt``, ``ge`` and ``logp`` of ``rank_records`` at every target against an fp64 computation
    (on the model's device) from the same bf16 body's hidden states and the head's real rows.
    Where the fused head runs (``rankscale.records.fused_head``: a GPU), ranks must equal fp64's
    at every target; with the fp32 head (the CPU) they may differ where two logits lie so close
    that fp32 and fp64 may order them differently (within ``REL_TOL``, relative to the largest
    logit the head can produce for that hidden state). ``logp`` must agree within ``LOGP_TOL``.
bound
    On a GPU, tensor-core logits (bf16 inputs, fp32 accumulation, cuBLAS) of a sample of hidden
    states against fp64: every error within ``fused_head.logit_error_bound``, and the largest
    error's share of its bound printed. The line also says how much fp64 work the fused head's
    band asked for (rows with near ties, candidate pairs, rows counted whole).
ties
    Three head rows are each copied into two other real rows, so that their tokens' logits tie
    exactly; at every target among them ``gt`` and ``ge`` must equal the reference's exactly, and
    ``ge - gt`` count both copies.
batch size
    Records at batch sizes 1, 4 and 8 are bitwise identical.
out of memory
    ``extract._rank_shard`` starting at batch 8, where it does not fit, halves the batch until it
    fits and finishes with the records ``rank_records`` gives at that batch size. On a GPU the
    out-of-memory is real (the allocator is capped below batch 8's peak and above a smaller
    batch's); on the CPU it is simulated, and the line says so.

The exit status is 1 if any check fails. Run: ``.venv/bin/python scripts/gpu_check.py`` on a GPU
machine; ``--small --device cpu`` runs shrunken models in seconds.
"""

from __future__ import annotations

import argparse
import gc
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # the shapes gpu_bench.py measures
from model_shapes import NAMES, build_model, random_windows, resolve_device, shapes  # noqa: E402
from rankscale.records import fused_head  # noqa: E402
from rankscale.records.extract import _rank_shard, fp32_head, rank_records  # noqa: E402

# The fp32 rounding margin, relative to |h| max_v |w_v|, within which fp32 and fp64 may order two
# logits apart. The fp32 head's logits of these shapes (bf16 hidden states, 0.02-scale rows) err
# by at most 7e-8 of that scale on the CPU (over 3M logits per shape), so two logits' errors stay
# far inside 1e-6. In pythia-160m's head, 1e-5 would hold several tokens each side of a target and
# so excuse an off-by-one count at nine targets in ten (1e-6: one in three).
REL_TOL = 1e-6
LOGP_TOL = 1e-4  # absolute, on log-probabilities computed in fp32 (rank_records) and in fp64
BATCH_SIZES = (1, 4, 8)  # the largest is where the out-of-memory check starts
TIE_SOURCES, TIE_COPIES = 3, 2  # head rows copied, and into how many other real rows each
TIES_PER_WINDOW = 8  # positions of each window given a tied token, so that every window has some
# Least gap between two batch sizes' peaks for a memory cap halfway between them to separate them:
# the cap counts reserved memory, which the allocator rounds up to 2 MiB blocks and fragments.
CAP_MARGIN = 256 << 20


@dataclass(frozen=True)
class Outcome:
    """The result of one check on one model.

    Parameters
    ----------
    check : str
        Which check (``reference``, ``ties``, ``batch size``, ``out of memory``).
    passed : bool
    detail : str
        What was compared and what was found.
    """

    check: str
    passed: bool
    detail: str

    def line(self, model: str) -> str:
        """The line printed for it, PASS or FAIL first."""
        return f"{'PASS' if self.passed else 'FAIL'}  {model:<14}{self.check:<15}{self.detail}"


def plant_ties(model, n_real: int, seed: int = 0) -> np.ndarray:
    """Copy ``TIE_SOURCES`` random real head rows each into ``TIE_COPIES`` other real rows, so that
    the ``1 + TIE_COPIES`` tokens of each group score exactly alike after every hidden state.

    With a tied head (Qwen2.5) the input embeddings change alike, which is harmless: the records
    are compared with a reference computed from the same modified model.

    Returns
    -------
    ndarray of int, shape (TIE_SOURCES, 1 + TIE_COPIES)
        Each group's rows, the copied one first.
    """
    rng = np.random.default_rng(seed)
    groups = rng.choice(n_real, (TIE_SOURCES, 1 + TIE_COPIES), replace=False)
    weight = model.get_output_embeddings().weight
    with torch.no_grad():
        for source, *copies in groups.tolist():
            weight[copies] = weight[source].clone()  # torch refuses to copy a view into its own tensor
    return groups


def windows_with_ties(n: int, length: int, n_real: int, tie_tokens: np.ndarray, seed: int = 0) -> list[np.ndarray]:
    """Random windows (``model_shapes.random_windows``) with the tied tokens at ``TIES_PER_WINDOW``
    target positions of each."""
    positions = np.linspace(1, length - 1, TIES_PER_WINDOW).astype(int)
    windows = random_windows(n, length, n_real, seed)
    for w in windows:
        w[positions] = np.resize(tie_tokens, len(positions))
    return windows


@torch.no_grad()
def body_hidden(model, windows: list[np.ndarray], batch_size: int) -> torch.Tensor:
    """The body's final hidden states before every target, in record order, on the CPU.

    The windows must all have one length: they are then batched as ``rank_records`` batches
    them, so each matmul has the same shape there and here and the bf16 hidden states are
    identical (``rank_records`` runs the body with TF32 off, torch's default, which this script
    leaves as it is).

    Returns
    -------
    torch.Tensor, shape (n_targets, d), in the model's dtype
    """
    device = model.get_input_embeddings().weight.device
    parts = []
    for start in range(0, len(windows), batch_size):
        ids = torch.from_numpy(np.stack(windows[start:start + batch_size])).to(device)
        hidden = model.base_model(input_ids=ids, use_cache=False).last_hidden_state[:, :-1]
        parts.append(hidden.reshape(-1, hidden.shape[-1]))
    return torch.cat(parts)


def fp64_reference(hidden: torch.Tensor, targets: np.ndarray, weight: torch.Tensor, bias: torch.Tensor | None,
                   rel_tol: float = REL_TOL, chunk: int = 64) -> dict[str, np.ndarray]:
    """What ``rank_records`` should record, computed in fp64 on ``hidden``'s device, with the range of ranks
    that logits within the fp32 rounding margin allow.

    Parameters
    ----------
    hidden : torch.Tensor, shape (n, d)
        Final hidden states, any dtype.
    targets : ndarray of int, shape (n,)
    weight : torch.Tensor, shape (V, d)
    bias : torch.Tensor, shape (V,), or None
        The head over the real rows (``fp32_head``).
    rel_tol : float
        The margin is ``rel_tol * (|h| * max_v |w_v| + max |b|)``, a bound on every logit of that
        hidden state (and on the sum of absolute products whose rounding the fp32 matmul incurs).
    chunk : int
        Hidden states per fp64 matmul, bounding memory by chunk x V.

    Returns
    -------
    dict of str to ndarray
        ``target``, ``logp``, ``gt``, ``ge`` as ``rank_records`` defines them, and the bounds
        ``gt_low``/``gt_high``/``ge_low``/``ge_high`` of ``gt`` and ``ge`` when the target's logit
        is moved by up to the margin either way.

    Examples
    --------
    Token 1 ties with token 2 and lies 1e-9 below token 0, so within the margin fp32 may rank it
    anywhere from first to third:

    >>> head = torch.tensor([[1 + 1e-9], [1.0], [1.0]], dtype=torch.float64)
    >>> ref = fp64_reference(torch.tensor([[1.0]]), np.array([1]), head, None)
    >>> {k: int(v[0]) for k, v in ref.items() if k != "logp"}
    {'target': 1, 'gt': 1, 'ge': 2, 'gt_low': 0, 'gt_high': 2, 'ge_low': 0, 'ge_high': 2}
    """
    w = weight.detach().to(hidden.device).double()
    b = None if bias is None else bias.detach().to(hidden.device).double()
    largest_row = w.norm(dim=1).max() + (0.0 if b is None else b.abs().max())
    parts: dict[str, list] = {}
    for c in range(0, len(targets), chunk):
        h = hidden[c:c + chunk].double()
        z = h @ w.T
        if b is not None:
            z += b
        zt = z.gather(1, torch.as_tensor(targets[c:c + chunk], dtype=torch.int64, device=z.device)[:, None])
        tol = rel_tol * h.norm(dim=1, keepdim=True) * largest_row
        found = {
            "logp": zt[:, 0] - torch.logsumexp(z, 1),
            "gt": (z > zt).sum(1), "ge": (z >= zt).sum(1) - 1,  # the target itself is not counted
            "gt_low": (z > zt + tol).sum(1), "gt_high": (z > zt - tol).sum(1) - 1,
            "ge_low": (z >= zt + tol).sum(1), "ge_high": (z >= zt - tol).sum(1) - 1,
        }
        for name, values in found.items():
            parts.setdefault(name, []).append(values.cpu().numpy())
    return {"target": np.asarray(targets), **{name: np.concatenate(v) for name, v in parts.items()}}


def compare_with_reference(records: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                           logp_tol: float = LOGP_TOL, margin: bool = True) -> Outcome:
    """The ``reference`` check: ``records`` (``target``, ``logp``, ``gt``, ``ge`` of the same
    targets) against ``fp64_reference``.

    A rank that differs from the reference passes only inside the bounds the fp32 margin allows,
    and with ``gt <= ge``, which holds in any ordering; with ``margin=False`` (the fused head)
    not at all.

    Examples
    --------
    >>> ref = {"target": np.array([3]), "logp": np.array([-1.0]), "gt": np.array([5]), "ge": np.array([5]),
    ...        "gt_low": np.array([5]), "gt_high": np.array([5]), "ge_low": np.array([5]), "ge_high": np.array([5])}
    >>> compare_with_reference({"target": [3], "logp": [-1.0], "gt": [6], "ge": [6]}, ref).passed
    False
    """
    gt, ge, logp = (np.asarray(records[k]) for k in ("gt", "ge", "logp"))
    exact = (gt == reference["gt"]) & (ge == reference["ge"])
    within = margin & ((reference["gt_low"] <= gt) & (gt <= reference["gt_high"])
              & (reference["ge_low"] <= ge) & (ge <= reference["ge_high"]) & (gt <= ge))
    unexplained = np.flatnonzero(~exact & ~within)
    wrong_target = int((np.asarray(records["target"]) != reference["target"]).sum())
    logp_err = float(np.abs(logp - reference["logp"]).max())
    detail = (f"{len(gt)} targets: ranks equal at {int(exact.sum())}, within the fp32 margin at "
              f"{int((~exact & within).sum())}, unexplained at {len(unexplained)}")
    if len(unexplained):
        i = unexplained[0]
        detail += f" (first: gt {gt[i]} ge {ge[i]}, fp64 gt {reference['gt'][i]} ge {reference['ge'][i]})"
    if wrong_target:
        detail += f"; {wrong_target} records name the wrong target token"
    detail += f"; max |logp - fp64| {logp_err:.1e} (tolerance {logp_tol:.0e})"
    return Outcome("reference", not len(unexplained) and not wrong_target and logp_err <= logp_tol, detail)


def check_ties(records: dict[str, np.ndarray], reference: dict[str, np.ndarray], copies: int = TIE_COPIES) -> Outcome:
    """The ``ties`` check: at targets tied exactly with ``copies`` other tokens, ``gt`` and ``ge``
    equal the fp64 reference with no margin, and ``ge - gt`` counts the copies in both."""
    gt, ge = np.asarray(records["gt"]), np.asarray(records["ge"])
    exact = int(((gt == reference["gt"]) & (ge == reference["ge"])).sum())
    seen = int((ge - gt >= copies).sum())
    built = int((reference["ge"] - reference["gt"] >= copies).sum())
    n = len(gt)
    return Outcome("ties", n > 0 and exact == seen == built == n,
                   f"{n} targets tied with {copies} copies of their head row: gt, ge equal to fp64 at {exact}, "
                   f"ge - gt >= {copies} at {seen} (fp64: {built})")


def record_differences(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, int]:
    """For each field of two ``rank_records`` results, how many records differ (all 0: identical)."""
    return {name: int((a[name] != b[name]).reshape(len(a[name]), -1).any(1).sum()) for name in a}


def describe_differences(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> str:
    """``identical``, or the fields that differ, at how many records, and by how much ``logp``
    does: rounding-sized differences point at the kernels, large ones at a bug."""
    parts = [f"{name} at {n}" + (f" (max |logp difference| {np.abs(a[name] - b[name]).max():.1e})"
                                 if name == "logp" else "")
             for name, n in record_differences(a, b).items() if n]
    return ", ".join(parts) or "identical"


def check_batch_sizes(by_batch: dict[int, dict[str, np.ndarray]]) -> Outcome:
    """The ``batch size`` check: every batch size's records identical to the first's."""
    (first, base), *others = by_batch.items()
    found = {size: describe_differences(records, base) for size, records in others}
    return Outcome("batch size", all(d == "identical" for d in found.values()),
                   f"{len(base['gt'])} records at batch " + ", ".join(map(str, by_batch)) + ": "
                   + "; ".join(f"{size} vs {first}: {d}" for size, d in found.items()))


def records_by_batch_size(model, windows: list[np.ndarray], n_real: int, device: str
                          ) -> tuple[dict[int, dict[str, np.ndarray]], dict[int, int]]:
    """``rank_records`` at each of ``BATCH_SIZES``, and on a GPU the peak memory of each run.

    Returns
    -------
    by_batch : dict of int to dict
    peaks : dict of int to int
        Bytes allocated at the peak, the model included (empty on the CPU).
    """
    on_gpu = torch.device(device).type == "cuda"
    by_batch, peaks = {}, {}
    for size in BATCH_SIZES:
        if on_gpu:
            gc.collect()
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(device)
        by_batch[size] = rank_records(model, windows, n_real, batch_size=size)
        if on_gpu:
            peaks[size] = torch.cuda.max_memory_allocated(device)
    return by_batch, peaks


def memory_cap(peaks: dict[int, int], margin: int = CAP_MARGIN) -> tuple[int, int] | None:
    """A memory cap under which the largest batch size cannot run and a smaller one can.

    The head's peak stops growing once a batch fills a head chunk (Qwen2.5-0.5B's chunk holds
    fewer targets than 4 windows), so the half of the largest batch may peak as high as it; the
    cap goes halfway to the largest smaller batch size whose peak is at least ``margin`` lower.

    Parameters
    ----------
    peaks : dict of int to int
        Peak bytes allocated by ``rank_records`` at each batch size.
    margin : int
        Least gap between the two peaks.

    Returns
    -------
    (cap, fits) : tuple of int, or None
        The cap in bytes and the batch size that fits under it; None if no smaller batch size
        peaks ``margin`` lower.

    Examples
    --------
    >>> memory_cap({1: 3000, 4: 5000, 8: 5010}, margin=1000)
    (4005, 1)
    >>> memory_cap({1: 3000, 4: 5000, 8: 5010}, margin=3000) is None
    True
    """
    first = max(peaks)
    lower = [size for size in sorted(peaks, reverse=True) if size < first and peaks[first] - peaks[size] >= margin]
    return ((peaks[first] + peaks[lower[0]]) // 2, lower[0]) if lower else None


def check_out_of_memory(model, windows: list[np.ndarray], n_real: int, device: str,
                        by_batch: dict[int, dict[str, np.ndarray]], peaks: dict[int, int]) -> Outcome:
    """The ``out of memory`` check: ``_rank_shard`` from the largest of ``BATCH_SIZES``, which
    does not fit, halves until a batch fits and records what ``rank_records`` records at that
    batch size.

    On a GPU the caching allocator is capped below the largest batch size's peak
    (``memory_cap``, ``torch.cuda.set_per_process_memory_fraction``), so the out-of-memory is
    real. On the CPU, which has no such cap, and on a GPU whose peaks lie too close for one (the
    fused head's memory hardly grows with the batch), the body raises ``torch.OutOfMemoryError``
    for batches larger than half the largest.
    """
    first = max(BATCH_SIZES)
    progress = tqdm(total=sum(len(w) - 1 for w in windows), disable=True)
    cap = memory_cap(peaks) if torch.device(device).type == "cuda" else None
    if cap is not None:
        limit, fits = cap
        how = (f"real: memory capped at {limit / 2**30:.2f} GiB, between the peaks of batch {fits} "
               f"({peaks[fits] / 2**30:.2f} GiB) and {first} ({peaks[first] / 2**30:.2f} GiB)")
        gc.collect()
        torch.cuda.empty_cache()  # the cap counts reserved memory: start from the model alone
        torch.cuda.set_per_process_memory_fraction(limit / torch.cuda.get_device_properties(device).total_memory,
                                                   device)
        try:
            records, fitted = _rank_shard(model, windows, n_real, first, progress)
        finally:
            torch.cuda.set_per_process_memory_fraction(1.0, device)
    else:
        # the CPU has no cap; with the fused head a GPU's peaks at batch 1 to 8 lie too close for one
        why = ("on CPU" if not peaks else "as no memory cap separates the batch sizes' peaks (GiB: "
               + ", ".join(f"{size}: {peak / 2**30:.2f}" for size, peak in peaks.items()) + ")")
        how = f"simulated {why}: the body raises torch.OutOfMemoryError for batches over {first // 2} windows"

        def refuse(module, args, kwargs):
            if kwargs["input_ids"].shape[0] > first // 2:
                raise torch.OutOfMemoryError("out of memory (simulated by gpu_check.py)")

        hook = model.base_model.register_forward_pre_hook(refuse, with_kwargs=True)
        try:
            records, fitted = _rank_shard(model, windows, n_real, first, progress)
        finally:
            hook.remove()
    expected = by_batch[fitted] if fitted in by_batch else rank_records(model, windows, n_real, batch_size=fitted)
    differences = describe_differences(records, expected)
    return Outcome("out of memory", fitted < first and differences == "identical",
                   f"{how}; batch {first} -> {fitted}, records vs batch {fitted} alone: {differences}")


BOUND_ROWS = 256  # hidden states whose every tensor-core logit the bound check compares with fp64


def check_bound(hidden: torch.Tensor, weight: torch.Tensor, head: fused_head.FusedHead) -> Outcome:
    """The ``bound`` check: tensor-core logits of ``BOUND_ROWS`` hidden states within the bound of
    ``fused_head.logit_error_bound`` of their fp64 values, and the fp64 work the band asked of
    ``head`` (its ``tally``) so far."""
    h, w = hidden[:BOUND_ROWS], weight.to(hidden.dtype)
    tensor_core = torch.mm(h, w.T, out_dtype=torch.float32).double()
    exact = h.double() @ w.double().T
    bound = (fused_head.logit_error_bound(h.shape[1]) * h.double().norm(dim=1)[:, None]
             * w.double().norm(dim=1)[None, :])
    share = float(((tensor_core - exact).abs() / bound).max())
    t = head.tally
    return Outcome("bound", share <= 1,
                   f"largest |tensor-core logit - fp64| over {exact.numel():,} logits: {share:.2e} of its bound; "
                   f"the band sent {t['rows_with_near_ties'] / t['targets']:.1%} of {t['targets']} targets to fp64, "
                   f"{t['candidate_pairs'] / t['targets']:.1f} candidate tokens per target, "
                   f"{t['rows_counted_whole']} targets counted whole")


def check_model(shape, device: str, n_windows: int, window_len: int) -> list[Outcome]:
    """Every check on one model shape (``model_shapes.ModelShape``), in the order of the module's docstring."""
    model = build_model(shape, device)
    groups = plant_ties(model, shape.n_real)
    windows = windows_with_ties(n_windows, window_len, shape.n_real, groups[:, 0])
    by_batch, peaks = records_by_batch_size(model, windows, shape.n_real, device)
    largest = max(BATCH_SIZES)
    records = by_batch[largest]
    hidden = body_hidden(model, windows, largest)  # batched as the records compared with it were
    weight, bias = fp32_head(model, shape.n_real)
    targets = np.concatenate([w[1:] for w in windows])
    tied = np.isin(targets, groups)
    head_rows = model.get_output_embeddings().weight[:shape.n_real].detach()
    fused = fused_head.applies(head_rows)
    reference = fp64_reference(hidden, targets, weight, bias)

    def at(found: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
        return {name: values[mask] for name, values in found.items()}

    outcomes = [compare_with_reference(at(records, ~tied), at(reference, ~tied), margin=not fused),
                check_ties(at(records, tied), at(reference, tied))]
    if fused:
        head = fused_head.FusedHead(head_rows, bias)
        head(hidden, torch.as_tensor(targets, device=hidden.device))
        outcomes.append(check_bound(hidden, head_rows, head))
    outcomes.append(check_batch_sizes(by_batch))
    outcomes.append(check_out_of_memory(model, windows, shape.n_real, device, by_batch, peaks))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    """Run every check on every chosen model, print a line per check and a summary.

    Returns
    -------
    int
        The exit status: 0 if every check passed, 1 otherwise.
    """
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="cuda, cuda:N or cpu (default: cuda where available)")
    parser.add_argument("--small", action="store_true", help="shrunken models and 64-token windows: seconds on a CPU")
    parser.add_argument("--models", nargs="+", choices=NAMES, help="a subset of the models (default: all)")
    parser.add_argument("--windows", type=int, default=max(BATCH_SIZES), help="windows per model")
    args = parser.parse_args(argv)
    try:
        device = resolve_device(args.device)
    except ValueError as err:
        parser.error(f"--{err}")
    device_type = torch.device(device).type
    if args.windows < max(BATCH_SIZES):
        parser.error(f"--windows must be at least {max(BATCH_SIZES)}, the largest batch size checked")
    window_len = 64 if args.small else 512
    name = torch.cuda.get_device_name(device) if device_type == "cuda" else "CPU"
    print(f"{name}; {'shrunken' if args.small else 'full-size'} models, bf16 body; "
          f"{args.windows} windows of {window_len} tokens; torch {torch.__version__}")
    outcomes = []
    for shape in shapes(args.small, args.models):
        for outcome in check_model(shape, device, args.windows, window_len):
            print(outcome.line(shape.name), flush=True)
            outcomes.append(outcome)
        gc.collect()  # the model is gone with check_model's frame; free it before building the next
        if device_type == "cuda":
            torch.cuda.empty_cache()
    failed = sum(not o.passed for o in outcomes)
    print(f"{len(outcomes) - failed} of {len(outcomes)} checks passed" + (f", {failed} FAILED" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
