"""The bootstrap's decisions: which pairs of models two metrics order oppositely beyond resampling noise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankscale.analysis import bootstrap


def test_discordant_pairs_need_both_differences_beyond_noise():
    rng = np.random.default_rng(4)
    n = 20_000
    # model 0: better p_A, worse top-1; model 1 the opposite, clearly; model 2 a noisy copy of 0
    hits = [rng.random(n) < p for p in (0.30, 0.40, 0.30)]
    prob = [rng.beta(a, 5, n) for a in (3.0, 2.0, 3.0)]
    samples = [{"p": p, "hit": h} for p, h in zip(prob, hits)]

    def stats(s):
        return [s["p"].mean(), s["hit"].mean()]

    values = np.array([stats(s) for s in samples])
    reps = bootstrap.resample(samples, stats, n_boot=200)
    assert bootstrap.discordant_pairs(values, reps) == [(0, 1), (1, 2)]  # never (0, 2): equal models
    with pytest.raises(ValueError, match="replicates"):
        bootstrap.discordant_pairs(values, reps[:, :2])


def test_discordant_pairs_centres_intervals_on_the_measured_difference():
    """Replicates shifted away from the measured values (as plug-in estimates can be) must not
    move the interval: it is the measured difference -+ z SD, not a percentile range."""
    values = np.array([[0.30, 0.50], [0.20, 0.60]])
    rng = np.random.default_rng(8)
    reps = values + rng.normal(0, 0.001, (100, 2, 2))
    reps[:, 0, 0] -= 0.2  # the replicates of result 0's metric 0 all sit far below its value
    assert bootstrap.discordant_pairs(values, reps) == [(0, 1)]

def test_interval_text_formats_a_known_interval():
    assert bootstrap.interval_text((-0.01234, 0.5)) == "[-0.012, +0.500]"
    assert bootstrap.interval_text((0.91234, 0.99)) == "[+0.912, +0.990]"
    assert bootstrap.interval_text((0.91234, 0.99), 2, sign="") == "[0.91, 0.99]"
    assert bootstrap.interval_text((1e-5, 2e-5), 5) == "[+0.00001, +0.00002]"
    assert bootstrap.interval_text(None) == bootstrap.interval_text(None, 4) == "[—]"


def _mean(sample):
    return [sample["v"].mean()]


def test_resample_without_seeds_is_unchanged_by_them_where_every_run_is_alike():
    """Seeds that repeat a model's own sample change nothing: the token resamples are drawn as without seeds."""
    rng = np.random.default_rng(3)
    samples = [{"v": rng.normal(size=50)}, {"v": rng.normal(size=50)}]
    plain = bootstrap.resample(samples, _mean, 30, seed=7)
    twins = bootstrap.resample(samples, _mean, 30, seed=7, seeds=[[samples[0]], [samples[1], samples[1]]])
    np.testing.assert_array_equal(plain, twins)


def test_resample_draws_every_run_about_equally_and_widens_the_spread():
    base = np.zeros(40)
    samples = [{"v": base}]
    out = bootstrap.resample(samples, _mean, 600, seeds=[[{"v": base + 1}, {"v": base + 2}]])
    counts = np.bincount(out[:, 0, 0].round().astype(int), minlength=3)
    assert counts.sum() == 600 and counts.min() > 150  # each of three runs about a third of the time
    assert bootstrap.resample(samples, _mean, 50)[:, 0, 0].std() == 0  # without seeds: no spread at all


def test_resample_refuses_seeds_that_do_not_fit():
    samples = [{"v": np.zeros(10)}, {"v": np.zeros(10)}]
    with pytest.raises(ValueError, match="seeds gives 1 entries for 2 models"):
        bootstrap.resample(samples, _mean, 5, seeds=[[]])
    with pytest.raises(ValueError, match="evaluated on 9 tokens, the model on 10"):
        bootstrap.resample(samples, _mean, 5, seeds=[[{"v": np.zeros(9)}], []])


def test_span_one_value_or_a_range():
    assert bootstrap.span([0.301, 0.299], ".2f") == "0.30"
    assert bootstrap.span([0.5, -1.25, 2.0], "+.2f") == "-1.25 to +2.00"
    assert bootstrap.span(pd.Series([3.0, np.nan, 1.0]), ".1f") == "1.0 to 3.0"  # a Series skips NaN
    assert bootstrap.span(np.array([7.0]), ".0f") == "7"
