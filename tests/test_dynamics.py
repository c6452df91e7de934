"""Paper B's decomposition readings and training-dynamics rules (rankscale.analysis.dynamics, rankscale.claims.training_dynamics)."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import dynamics, metrics
from rankscale.analysis.metrics import COMPONENTS
from rankscale.claims import training_dynamics


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


VOCAB, N = 100, 5000


def series(ee, sa, conf, noise=0.01, n_boot=200, seed=0):
    """Full-sample values and replicates around them (the checkpoints' own noise, unpaired)."""
    rng = np.random.default_rng(seed)
    values = {"EE": np.array(ee, float), "SA": np.array(sa, float), "Conf": np.array(conf, float)}
    values["CE"] = values["EE"] + values["SA"] - values["Conf"]
    boot = {t: v + rng.normal(0, noise, (n_boot, len(v))) for t, v in values.items() if t != "CE"}
    boot["CE"] = boot["EE"] + boot["SA"] - boot["Conf"]
    return values, boot


def test_series_checks_on_a_series_that_follows_the_paper():
    start = dynamics.uniform_entropy(N, VOCAB) - 0.02  # nearly what random ranking gives on N tokens
    steps = [0, 16, 128, 1000]
    values, boot = series([start, 3.0, 2.5, 2.4], [0.05, 0.4, 0.3, 0.02], [-0.5, -0.4, -0.2, 0.3])
    checks = training_dynamics.series_checks(steps, values, boot, VOCAB, N)
    assert all(c.holds for c in checks.values()), checks
    assert checks["uniform_at_init"].value == pytest.approx(np.exp(-0.02))
    assert checks["sa_ends_down"].note == "against the peak at step 16"
    ee = checks["ee_falls"]
    assert ee.value == pytest.approx(2.4 - start) and ee.low < ee.value < ee.high < 0


def test_noise_decides_between_a_flat_step_and_a_rise():
    """A step within the noise is no rise, the same step with little noise is one, and a
    Confidence change within the noise is no evidence that Confidence rose."""
    flat = [5.0, 3.0, 3.02]
    values, boot = series(flat, [0.1, 0.3, 0.2], [0.0, 0.1, 0.05], noise=0.05)
    checks = training_dynamics.series_checks([10, 20, 30], values, boot, VOCAB, N)
    assert checks["ee_falls"].holds and checks["ee_falls"].note == "no significant rise"
    values, boot = series(flat, [0.1, 0.3, 0.2], [0.0, 0.1, 0.05], noise=0.001)
    checks = training_dynamics.series_checks([10, 20, 30], values, boot, VOCAB, N)
    assert not checks["ee_falls"].holds and checks["ee_falls"].note == "significant rise 20→30"
    values, boot = series([5.0, 3.0], [0.1, 0.3], [0.0, 0.01], noise=0.05)
    assert not training_dynamics.series_checks([10, 20], values, boot, VOCAB, N)["conf_rises"].holds


def test_series_checks_failures_and_what_short_series_cannot_test():
    values, boot = series([dynamics.uniform_entropy(N, VOCAB) - 1.0, 4.1, 3.0], [0.1, 0.05, 0.2], [0.0, 0.1, -0.1])
    checks = training_dynamics.series_checks([0, 10, 20], values, boot, VOCAB, N)
    assert {rule: c.holds for rule, c in checks.items()} == {
        "ee_falls": False, "sa_ends_down": False, "conf_rises": False, "ee_first": False, "uniform_at_init": False,
        "ee_largest_at_init": True}
    values, boot = series([4.0, 3.0], [0.2, 0.1], [0.0, 0.1])
    two = training_dynamics.series_checks([5, 50], values, boot, VOCAB, N)
    assert two["ee_first"].holds is None and two["ee_first"].note == "needs three checkpoints"
    assert two["uniform_at_init"].holds is None and two["ee_falls"].holds is True
    values, boot = series([4.0], [0.2], [0.0])
    one = training_dynamics.series_checks([0], values, boot, VOCAB, N)
    assert [rule for rule, c in one.items() if c.holds is not None] == ["uniform_at_init", "ee_largest_at_init"]
    with pytest.raises(ValueError):
        training_dynamics.series_checks([0, 0], *series([4.0, 3.0], [0.2, 0.1], [0.0, 0.1]), VOCAB, N)


def test_ee_first_is_not_shown_where_ce_does_not_drop_in_every_resample():
    # EE leads the first interval, but CE is flat (within noise) over the later stretch
    values, boot = series([6.0, 3.0, 3.0], [0.1, 0.4, 0.4], [0.0, 0.2, 0.2], noise=0.02)
    check = training_dynamics.series_checks([1, 2, 3], values, boot, VOCAB, N)["ee_first"]
    assert check.holds is False and "parts not defined" in check.note


def test_ee_largest_at_init_compares_with_sa_and_the_magnitude_of_confidence():
    def margin(sa0, conf0, noise=0.01):
        values, boot = series([3.0, 2.5], [sa0, 0.1], [conf0, 0.2], noise=noise)
        return training_dynamics.series_checks([0, 100], values, boot, VOCAB, N)["ee_largest_at_init"]
    check = margin(0.5, -0.4)
    assert check.holds and check.value == pytest.approx(2.5) and check.low < 2.5 < check.high
    assert not margin(3.2, 0.0).holds  # SA larger at init
    assert not margin(0.5, -3.5).holds  # Confidence's magnitude larger, though Conf itself is negative
    assert not margin(2.98, 0.0, noise=0.05).holds  # ahead by less than the noise
    values, boot = series([3.0, 2.5], [0.5, 0.1], [0.0, 0.2])
    assert training_dynamics.series_checks([5, 100], values, boot, VOCAB, N)["ee_largest_at_init"].holds is None


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


def test_below_needs_the_whole_interval_under_the_threshold():
    assert training_dynamics.below(0.05, np.linspace(0.03, 0.07, 101), 0.1).holds
    straddling = training_dynamics.below(0.09, np.linspace(0.07, 0.12, 101), 0.1)
    assert straddling.holds is False and "straddles" in straddling.note
    assert training_dynamics.below(0.2, np.linspace(0.15, 0.25, 101), 0.1).note == "above 0.1"


def test_closeness_is_not_testable_where_sampling_alone_reaches_the_threshold():
    rng = np.random.default_rng(5)
    rbe = rng.integers(0, 50, 100)  # 100 targets over 50 ranks: the counts alone are far from p_e
    aligned = np.log(np.bincount(rbe)[rbe] / len(rbe))
    check, floor = training_dynamics.closeness(aligned, rbe, 0.1, n_boot=20)
    assert floor >= 0.1 and check.holds is None and check.value == pytest.approx(0, abs=1e-12)
    off = np.where(rbe < 25, np.log(0.9 / 25), np.log(0.1 / 25))  # scores far from the ranks' frequencies
    many = np.tile(rbe, 100)  # the same ranks, counted 100 times over: now the sample can test it
    check, floor = training_dynamics.closeness(np.tile(off, 100), many, 0.1, n_boot=20)
    assert floor < 0.1 and check.holds is False and check.low > 0.1, check


def test_check_series_pairs_checkpoints_that_predict_the_same_targets():
    """Two checkpoints with the same ranks whose every probability rises by 1%: Confidence rises
    by log 1.01 exactly, which a paired resample shows and independent resamples drown."""
    rng = np.random.default_rng(6)
    gt = np.minimum(rng.geometric(0.2, 3000) - 1, VOCAB - 1)
    first = {"logp": np.log(rng.uniform(0.01, 0.5, 3000) / (gt + 1)), "gt": gt, "target": rng.integers(0, VOCAB, 3000)}
    second = dict(first, logp=first["logp"] + np.log(1.01))
    paired = training_dynamics.check_series([10, 20], [first, second], VOCAB, n_boot=50, uniform_ratio=0.9)["conf_rises"]
    assert paired.holds and paired.value == pytest.approx(np.log(1.01)) and paired.high - paired.low < 1e-9
    shuffled = dict(second, target=np.roll(first["target"], 1))  # other targets: resampled on its own
    apart = training_dynamics.check_series([10, 20], [first, shuffled], VOCAB, n_boot=50, uniform_ratio=0.9)["conf_rises"]
    assert apart.holds is False and apart.low < 0 < apart.high


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

