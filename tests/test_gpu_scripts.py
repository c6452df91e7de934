"""benchmarks/gpu_bench.py and scripts/gpu_check.py on shrunken models on the CPU (as a user runs
them, in subprocesses), and the check's comparisons on made-up records, where they must fail."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from rankscale.records.extract import head_rank_counts
from tools import ROOT, load_script

CHECKS = ("reference", "ties", "batch size", "out of memory")
gpu_check = load_script(ROOT / "scripts" / "gpu_check.py")  # also puts benchmarks/ on sys.path
import model_shapes  # noqa: E402


def run_script(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # a subprocess measuring three models
def test_bench_measures_every_model(tmp_path):
    out = tmp_path / "rows.json"
    done = run_script("benchmarks/gpu_bench.py", "--small", "--device", "cpu", "--repeats", "1", "--json", out)
    assert done.returncode == 0, done.stderr
    rows = {row["model"]: row for row in json.loads(out.read_text())}
    assert list(rows) == list(model_shapes.NAMES)
    for name, row in rows.items():
        assert row["tokens_per_s_bare"] > 0 and row["tokens_per_s_extract"] > 0, name
        assert row["peak_bytes_bare"] is None and row["peak_ratio"] is None  # no peak to read on CPU
        assert f" {name} " in done.stdout
    assert rows["pythia-160m"]["naive_tokens_per_s"] > 0 and rows["pythia-160m"]["speedup"] > 0
    assert rows["pythia-1.4b"]["speedup"] is None
    assert "n/a" in done.stdout


@pytest.mark.slow  # a subprocess checking every model shape
def test_check_passes_on_every_model():
    done = run_script("scripts/gpu_check.py", "--small", "--device", "cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert [line.split()[0] for line in lines] == ["PASS"] * len(model_shapes.NAMES) * len(CHECKS), done.stdout
    for name in model_shapes.NAMES:
        assert sum(f" {name} " in line for line in lines) == len(CHECKS)
    assert "simulated on CPU" in done.stdout
    n = len(model_shapes.NAMES) * len(CHECKS)
    assert f"{n} of {n} checks passed" in done.stdout


def test_devices_are_checked_and_made_explicit():
    assert model_shapes.resolve_device("cpu") == "cpu"
    for name, message in [("mps", "only cuda and cpu"), ("gpu0", "not a device name")]:
        with pytest.raises(ValueError, match=message):
            model_shapes.resolve_device(name)
    if torch.cuda.is_available():
        assert model_shapes.resolve_device("cuda") == f"cuda:{torch.cuda.current_device()}"
    else:
        with pytest.raises(ValueError, match="sees no CUDA device"):
            model_shapes.resolve_device("cuda")


def test_script_examples():
    assert doctest.testmod(gpu_check).failed == 0
    assert doctest.testmod(model_shapes).failed == 0


@pytest.fixture(scope="module")
def head_case():
    """Records of the real fp32 head (``head_rank_counts``) for 40 bf16 hidden states, and their
    fp64 reference."""
    gen = torch.Generator().manual_seed(0)
    hidden = torch.randn(40, 16, generator=gen).bfloat16()
    weight = torch.randn(500, 16, generator=gen)
    targets = torch.randint(0, 500, (40,), generator=gen)
    logp, gt, ge, _ = head_rank_counts(hidden, targets, weight, None)
    records = {"target": targets.numpy(), "logp": logp.numpy(), "gt": gt.numpy(), "ge": ge.numpy()}
    return records, gpu_check.fp64_reference(hidden, targets.numpy(), weight, None)


def test_reference_check_passes_the_real_head(head_case):
    records, reference = head_case
    outcome = gpu_check.compare_with_reference(records, reference)
    assert outcome.passed, outcome.detail
    assert outcome.line("m").startswith("PASS  m")


@pytest.mark.parametrize("field, change, message", [
    ("gt", 1, "unexplained at 1"),
    ("ge", -1, "unexplained at 1"),
    ("logp", 1e-3, "max |logp - fp64| 1.0e-03"),
    ("target", 1, "1 records name the wrong target token"),
])
def test_reference_check_fails_a_corrupted_record(head_case, field, change, message):
    records, reference = head_case
    corrupted = {name: values.copy() for name, values in records.items()}
    corrupted[field][7] += change
    outcome = gpu_check.compare_with_reference(corrupted, reference)
    assert not outcome.passed and message in outcome.detail
    assert outcome.line("m").startswith("FAIL  m")


def test_margin_excuses_only_a_near_tie():
    """Token 0 scores 1e-7 above the target (token 1), inside the fp32 margin, token 2 far below:
    fp32 may rank the target first, but never below token 2."""
    weight = torch.tensor([[1 + 1e-7], [1.0], [0.5]], dtype=torch.float64)
    reference = gpu_check.fp64_reference(torch.tensor([[1.0]]), np.array([1]), weight, None)
    records = {"target": [1], "logp": reference["logp"], "gt": [1], "ge": [1]}
    assert gpu_check.compare_with_reference(records, reference).passed
    swapped = gpu_check.compare_with_reference({**records, "gt": [0], "ge": [0]}, reference)
    assert swapped.passed and "within the fp32 margin at 1" in swapped.detail
    assert not gpu_check.compare_with_reference({**records, "gt": [2], "ge": [2]}, reference).passed
    # the fused head's ranks are fp64's: no margin excuses the swap
    assert not gpu_check.compare_with_reference({**records, "gt": [0], "ge": [0]}, reference, margin=False).passed


@pytest.mark.parametrize("excess, passed", [(0.0, True), (2.0, False)])
def test_bound_check_fails_an_error_beyond_the_bound(monkeypatch, excess, passed):
    """The bound check against a stand-in for cuBLAS's tensor-core product (CUDA only): the fp32
    product passes; one whose every logit errs by twice the bound fails."""
    pytest.importorskip("triton")
    from rankscale.records import fused_head

    gen = torch.Generator().manual_seed(0)
    hidden, weight = torch.randn(20, 32, generator=gen).bfloat16(), torch.randn(50, 32, generator=gen).bfloat16()
    bound = (fused_head.logit_error_bound(32) * hidden.double().norm(dim=1)[:, None]
             * weight.double().norm(dim=1)[None, :]).float()
    monkeypatch.setattr(torch, "mm", lambda a, b, out_dtype=None: a.float() @ b.float() + excess * bound)
    head = fused_head.FusedHead(weight, None)
    head(hidden, torch.arange(20))
    outcome = gpu_check.check_bound(hidden, weight, head)
    assert outcome.passed is passed and "of its bound" in outcome.detail


def test_tie_check_fails_a_missed_tie():
    reference = {"gt": np.array([3, 0]), "ge": np.array([5, 2])}
    assert gpu_check.check_ties({"gt": [3, 0], "ge": [5, 2]}, reference).passed
    missed = gpu_check.check_ties({"gt": [3, 0], "ge": [4, 2]}, reference)  # one copy not counted
    assert not missed.passed and "ge - gt >= 2 at 1" in missed.detail
    assert not gpu_check.check_ties({"gt": [], "ge": []}, {"gt": np.array([]), "ge": np.array([])}).passed


def test_batch_check_names_what_differs():
    records = {"logp": np.zeros(4, np.float32), "gt": np.arange(4), "top_logp": np.zeros((4, 8), np.float32)}
    changed = {**records, "top_logp": records["top_logp"].copy()}
    changed["top_logp"][2, 5] = -1.0
    assert gpu_check.check_batch_sizes({1: records, 4: records}).passed
    outcome = gpu_check.check_batch_sizes({1: records, 4: records, 8: changed})
    assert not outcome.passed
    assert outcome.detail.endswith("4 vs 1: identical; 8 vs 1: top_logp at 1")
    changed["logp"] = np.array([0, 0, 2e-7, 0], np.float32)
    assert "logp at 1 (max |logp difference| 2.0e-07), top_logp at 1" in gpu_check.check_batch_sizes(
        {1: records, 8: changed}).detail


def test_memory_cap_skips_a_batch_that_peaks_as_high():
    """Qwen2.5-0.5B's head chunk is full at 4 windows, so batch 4 peaks like batch 8: the cap must
    separate 8 from 1."""
    gib = 1 << 30
    assert gpu_check.memory_cap({1: 3 * gib, 4: 5 * gib, 8: 6 * gib}) == (11 * gib // 2, 4)
    assert gpu_check.memory_cap({1: 3 * gib, 4: 5 * gib, 8: 5 * gib + (1 << 20)}) == (4 * gib + (1 << 19), 1)
    assert gpu_check.memory_cap({1: 5 * gib, 4: 5 * gib, 8: 5 * gib}) is None


head_error_bench = load_script(ROOT / "benchmarks" / "head_error_bench.py")


def test_head_error_bench_counts_near_ties_and_catches_a_head_outside_its_bound(monkeypatch):
    """An exact tie is a near tie at every bound; an error far above c * u * s leaves rows whose rank
    is wrong without a near tie (uncertified), which the benchmark must count."""
    gen = torch.Generator().manual_seed(0)
    w = torch.randn(50, 16, generator=gen).to(torch.bfloat16)
    h = torch.randn(40, 16, generator=gen).to(torch.bfloat16)
    w[7] = w[3]  # entries 3 and 7 tie exactly in every row
    target = torch.full((40,), 3)
    stats = head_error_bench.measure(h, w, target)
    for s in stats.values():  # bf16 products are exact in fp32 and fp64: 16 terms stray little
        assert s["max"] < 16 and s["differ"] == 0
        assert (s["flagged"] == 40).all() and (s["near"] >= 40).all() and (s["uncertified"] == 0).all()

    def shifted(rows, weights):  # a head that moves every entry but the target's far past any bound
        x = rows.float() @ weights.float().T
        return x + torch.linspace(-3, 3, x.shape[1])[torch.randperm(x.shape[1], generator=gen)]
    monkeypatch.setattr(head_error_bench, "fp32_head", shifted)
    bad = head_error_bench.measure(h, w, torch.zeros(40, dtype=torch.long))["fp32"]
    assert bad["max"] > 1e4 and bad["differ"] > 0 and bad["uncertified"][0] > 0
