"""Paper B's decomposition readings (rankscale.analysis.dynamics)."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import dynamics, metrics
from rankscale.analysis.metrics import COMPONENTS


def test_interval_parts_sum_to_one_and_match_definitions():
    ee, sa, conf = np.array([8.0, 5.0, 4.5]), np.array([0.1, 0.3, 0.2]), np.array([-1.0, -0.5, 0.0])
    parts = dynamics.interval_parts(ee, sa, conf)
    ce = ee + sa - conf
    drop = -np.diff(ce)
    np.testing.assert_allclose(sum(parts[name] for name in COMPONENTS), 1.0)
    np.testing.assert_allclose(parts["EE"], -np.diff(ee) / drop)
    np.testing.assert_allclose(parts["Conf"], np.diff(conf) / drop)


def test_interval_parts_of_a_flat_interval_are_undefined_without_warning():
    with np.errstate(all="raise"):
        parts = dynamics.interval_parts([1.0, 1.0], [0.5, 0.5], [0.0, 0.0])
    assert not np.isfinite(parts["EE"][0])
    with pytest.raises(ValueError):
        dynamics.interval_parts([1.0], [0.5], [0.0])


VOCAB = 100


def test_uniform_entropy_is_exact():
    rng = np.random.default_rng(1)
    for n, v in ((300, 50), (2000, 4096)):
        sims = [metrics.ce_decomposition(np.zeros(n), rng.integers(0, v, n)).error_entropy for _ in range(400)]
        assert dynamics.uniform_entropy(n, v) == pytest.approx(np.mean(sims), abs=4 * np.std(sims) / 20)
    assert dynamics.uniform_entropy(10**6, 10) == pytest.approx(np.log(10) - 9 / (2 * 10**6), abs=1e-8)
    assert dynamics.uniform_entropy(7, 1) == 0.0


def test_alignment_distance_is_zero_for_an_aligned_model_and_sees_the_head_only_if_asked():
    rbe = np.repeat([0, 1, 2, 5], [50, 30, 15, 5])
    p = np.bincount(rbe)[rbe] / len(rbe)
    aligned = metrics.ce_decomposition(np.log(p), rbe)  # every target scored at its rank's frequency: q_e = p_e
    assert dynamics.alignment_distance(aligned) == pytest.approx(0, abs=1e-12)
    assert aligned.self_alignment == pytest.approx(0, abs=1e-12)
    off = metrics.ce_decomposition(np.log(np.where(rbe == 0, 0.2, p)), rbe)
    tv = dynamics.alignment_distance(off)
    assert 0 < tv <= np.sqrt(off.self_alignment / 2)  # Pinsker
    assert dynamics.head_share(off, 10) == pytest.approx(0.95)
    assert np.isnan(dynamics.alignment_distance(off, min_count=60)) and dynamics.head_share(off, 60) == 0


def test_resampled_terms_pair_the_checkpoints_of_a_series():
    rng = np.random.default_rng(2)
    sample = {"logp": -rng.exponential(2, 400), "gt": rng.integers(0, 30, 400)}
    same = dynamics.resampled_terms([sample, sample], n_boot=20, paired=True)
    assert same["EE"].shape == (20, 2)
    np.testing.assert_array_equal(same["SA"][:, 0], same["SA"][:, 1])  # one resample for both
    apart = dynamics.resampled_terms([sample, sample], n_boot=20)
    assert not np.array_equal(apart["SA"][:, 0], apart["SA"][:, 1])
    np.testing.assert_array_equal(dynamics.resampled_terms([sample], 5, seed=3)["CE"],
                                  dynamics.resampled_terms([sample], 5, seed=3)["CE"])
    with pytest.raises(ValueError, match="one length"):
        dynamics.resampled_terms([sample, {k: v[:10] for k, v in sample.items()}], 3, paired=True)


def test_concentrated_agrees_with_p_of_e_below_k_and_fails_for_random_ranking():
    rng = np.random.default_rng(7)
    for gt in (np.minimum(rng.geometric(0.05, 2000) - 1, VOCAB - 1), rng.integers(0, VOCAB, 2000),
               np.minimum(rng.geometric(0.01, 500) - 1, VOCAB - 1)):
        ks = np.arange(1, VOCAB + 1)
        expected = bool(np.all(metrics.rbp(gt + 1, ks) >= ks / VOCAB))
        assert dynamics.concentrated(gt, VOCAB) is expected
    assert dynamics.concentrated(np.minimum(rng.geometric(0.05, 2000) - 1, VOCAB - 1), VOCAB)
    assert not dynamics.concentrated(rng.integers(0, VOCAB, 2000), VOCAB)  # random ranking dips below k/V somewhere
    assert not dynamics.concentrated(VOCAB - 1 - np.minimum(rng.geometric(0.05, 2000) - 1, VOCAB - 1), VOCAB)
    with pytest.raises(ValueError):
        dynamics.concentrated(np.array([0, VOCAB]), VOCAB)


def test_the_ceiling_holds_for_probabilities_consistent_with_their_ranks_only():
    rng = np.random.default_rng(8)
    probs = rng.dirichlet(np.full(VOCAB, 0.3), 400)  # 400 output distributions
    target = rng.integers(0, VOCAB, 400)
    s = probs[np.arange(400), target]
    gt = (probs > s[:, None]).sum(axis=1)
    dec = metrics.ce_decomposition(np.log(s), gt)
    assert dynamics.ceiling_excess(dec) <= 0 and dec.confidence <= dynamics.confidence_bound(dec)
    inflated = metrics.ce_decomposition(np.log(np.where(gt == gt.max(), 0.9, s)), gt)  # a target below others at 0.9
    assert dynamics.ceiling_excess(inflated) > 0


def test_aligned_distance_is_the_sampling_floor_of_a_perfectly_aligned_model():
    rng = np.random.default_rng(4)
    rbe = np.minimum(rng.geometric(0.05, 20_000) - 1, 999)
    dec = metrics.ce_decomposition(np.zeros(len(rbe)), rbe)
    floors = [dynamics.aligned_distance(dec, n, min_count=10) for n in (2_000, 20_000, 200_000)]
    assert floors[0] > floors[1] > floors[2] > 0  # noise falls with the sample
    # what the measurement itself gives for a model that scores each target at its rank's frequency
    sample = rng.choice(dec.e, size=20_000, p=dec.p_e)
    aligned = metrics.ce_decomposition(np.log(dec.p_e[np.searchsorted(dec.e, sample)]), sample)
    assert dynamics.alignment_distance(aligned, 10) == pytest.approx(floors[1], rel=0.5)

