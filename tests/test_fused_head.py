"""The fused, certified head (``rankscale.records.fused_head``) against fp64 brute force, run by
Triton's interpreter where there is no GPU (``conftest`` sets TRITON_INTERPRET=1 there)."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("triton")

from rankscale import RankscaleError
from rankscale.records import fused_head
from rankscale.records.extract import head_rank_counts
from rankscale.records.store import TOP_K

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def fp64_records(hidden, targets, weight, bias=None, temperature=1.0):
    """logp, gt, ge and the TOP_K best log-probabilities from fp64 logits of the whole vocabulary."""
    logits = hidden.double() @ weight.double().T
    if bias is not None:
        logits += bias.double()
    z = logits.gather(1, targets[:, None])
    log_z = torch.logsumexp(logits / temperature, 1)
    top = (logits / temperature).topk(min(TOP_K, logits.shape[1]), 1).values - log_z[:, None]
    return z[:, 0] / temperature - log_z, (logits > z).sum(1), (logits >= z).sum(1) - 1, top


def planted_head(v=300, d=48, m=70, seed=0):
    """A random bf16 head with exact ties (rows 10, 11 copy row 3) and near ties (row 21 is row 20
    with one weight one bf16 step larger), and targets that hit both."""
    gen = torch.Generator().manual_seed(seed)
    weight = (torch.randn(v, d, generator=gen) * 0.5).bfloat16()
    hidden = torch.randn(m, d, generator=gen).bfloat16()
    weight[10] = weight[3]
    weight[11] = weight[3]
    weight[21] = weight[20]
    weight[21, 0] = (weight[20, 0:1].view(torch.int16) + 1).view(torch.bfloat16)[0]  # the next bf16 away from 0
    targets = torch.randint(0, v, (m,), generator=gen)
    targets[:4], targets[4:6], targets[6:9], targets[9:12] = 3, 10, 20, 21
    return hidden.to(DEVICE), targets.to(DEVICE), weight.to(DEVICE)


def assert_matches_fp64(got, want, logp_tol=1e-5):
    logp, gt, ge, top = got
    want_logp, want_gt, want_ge, want_top = want
    assert torch.equal(gt.cpu(), want_gt.cpu()) and torch.equal(ge.cpu(), want_ge.cpu())
    assert (logp.double() - want_logp).abs().max() < logp_tol
    k = want_top.shape[1]
    assert (top[:, :k].double() - want_top).abs().max() < logp_tol
    assert torch.isneginf(top[:, k:]).all()


@pytest.mark.parametrize("split_cols", [fused_head.SPLIT_COLS, 128])
def test_ranks_equal_fp64_with_ties_and_near_ties(monkeypatch, split_cols):
    monkeypatch.setattr(fused_head, "SPLIT_COLS", split_cols)  # 128: three splits of 300 tokens
    hidden, targets, weight = planted_head()
    got = fused_head.FusedHead(weight, None)(hidden, targets)
    assert_matches_fp64(got, fp64_records(hidden, targets, weight))
    _, gt, ge, _ = got
    assert (ge[:6] - gt[:6] == 2).all()  # the target's two copies tie with it
    near = hidden[6:12, 0].float() != 0
    assert (ge[6:12] - gt[6:12])[near].eq(0).all()  # a one-step difference is no tie


def test_bias_and_temperature():
    hidden, targets, weight = planted_head(v=257, d=40, seed=1)
    bias = torch.randn(257, generator=torch.Generator().manual_seed(2)).to(DEVICE)
    got = fused_head.FusedHead(weight, bias, temperature=0.7)(hidden, targets)
    assert_matches_fp64(got, fp64_records(hidden, targets, weight, bias, 0.7))


def test_vocabulary_smaller_than_top_k_pads_with_minus_infinity():
    gen = torch.Generator().manual_seed(3)
    hidden, weight = torch.randn(9, 16, generator=gen).bfloat16(), torch.randn(5, 16, generator=gen).bfloat16()
    hidden, weight, targets = hidden.to(DEVICE), weight.to(DEVICE), torch.arange(9, device=DEVICE) % 5
    got = fused_head.FusedHead(weight, None)(hidden, targets)
    assert got[3].shape == (9, TOP_K)
    assert_matches_fp64(got, fp64_records(hidden, targets, weight))


def test_rows_with_more_candidates_than_the_buffer_are_counted_whole(monkeypatch):
    monkeypatch.setattr(fused_head, "CANDIDATES", 2)
    hidden, targets, weight = planted_head(seed=4)
    weight[30:40] = weight[3]  # twelve copies of token 3: its rows overflow a buffer of two
    got = fused_head.FusedHead(weight, None)(hidden, targets)
    assert_matches_fp64(got, fp64_records(hidden, targets, weight))
    assert (got[2][:4] - got[1][:4] == 12).all()


def test_a_band_that_takes_every_token_still_gives_fp64s_counts(monkeypatch):
    """Every token a candidate, in each of three splits: the refinement alone decides every rank."""
    monkeypatch.setattr(fused_head, "SPLIT_COLS", 128)
    monkeypatch.setattr(fused_head, "logit_error_bound", lambda d: 10.0)
    hidden, targets, weight = planted_head(m=8, seed=7)
    head = fused_head.FusedHead(weight, None)
    got = head(hidden, targets)
    assert_matches_fp64(got, fp64_records(hidden, targets, weight))
    assert head.tally["candidate_pairs"] == 8 * (300 - 1) and head.tally["rows_counted_whole"] == 0


def test_records_do_not_depend_on_the_batch():
    """Bitwise for rows at the same place in their tile of BLOCK_M rows; elsewhere the interpreter's
    numpy matmul may round a row's logits otherwise (a GPU's MMA computes each logit alone, which
    scripts/gpu_check.py checks at batch sizes 1, 4 and 8), and only the exact counts are equal."""
    m = fused_head.BLOCK_M + 20
    hidden, targets, weight = planted_head(v=200, m=m, seed=5)
    head = fused_head.FusedHead(weight, None)
    whole = head(hidden, targets)
    for part in (slice(0, 1), slice(fused_head.BLOCK_M, m)):
        alone = head(hidden[part], targets[part])
        for a, b in zip(alone, whole):
            assert torch.equal(a, b[part])
    shifted = head(hidden[3:50], targets[3:50])
    assert torch.equal(shifted[1], whole[1][3:50]) and torch.equal(shifted[2], whole[2][3:50])
    assert (shifted[0] - whole[0][3:50]).abs().max() < 1e-5


def test_the_fp32_head_can_miss_a_near_tie_that_the_fused_head_gets():
    """A near tie below fp32's resolution: fp32 logits call it a tie, fp64 and the fused head not."""
    d = 32
    hidden = torch.zeros(1, d)
    hidden[0, 0], hidden[0, 1] = 1.0, 2.0**-25
    weight = torch.zeros(4, d)
    weight[:, 0] = torch.tensor([1.0, 1.0, 0.5, -1.0])
    weight[1, 1] = 1.0  # token 1 scores 2^-25 above token 0, below fp32's step at 1 (2^-23)
    hidden, weight, targets = hidden.bfloat16().to(DEVICE), weight.bfloat16().to(DEVICE), torch.tensor([0], device=DEVICE)
    fp32 = head_rank_counts(hidden, targets, weight.float(), None)
    fused = fused_head.FusedHead(weight, None)(hidden, targets)
    want = fp64_records(hidden, targets, weight)
    assert (fp32[1].item(), fp32[2].item()) == (0, 1)
    assert (fused[1].item(), fused[2].item()) == (want[1].item(), want[2].item()) == (1, 1)


def test_the_bound_covers_the_interpreters_fp32_logits():
    """The band is wider than the fp32 error it must cover, and not absurdly so (a check on the
    bound's arithmetic; the GPU's tensor cores are checked by scripts/gpu_check.py)."""
    hidden, _, weight = planted_head(v=200, d=64, m=40, seed=6)
    err = (hidden.float() @ weight.float().T - hidden.double() @ weight.double().T).abs()
    bound = fused_head.logit_error_bound(64) * hidden.double().norm(dim=1)[:, None] * weight.double().norm(dim=1)
    assert (err <= bound).all() and (err.max() / bound.max()) > 1e-6


def test_the_head_is_chosen_once_and_a_wrong_ask_is_refused():
    cpu_head = torch.zeros(3, 2, dtype=torch.bfloat16)
    assert fused_head.which(cpu_head) == fused_head.which(cpu_head, "fp32") == "fp32"
    with pytest.raises(RankscaleError, match="needs a CUDA model"):
        fused_head.which(cpu_head, "fused")
    with pytest.raises(RankscaleError, match="auto, fused or fp32"):
        fused_head.which(cpu_head, "fp64")
