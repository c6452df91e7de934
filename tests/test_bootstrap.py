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


def windows_of(values, window):
    """A sample whose value names its own token (so a replicate's tokens can be read back) and its window ids."""
    return {"v": np.asarray(values, np.float64), "window": np.asarray(window)}


def test_resample_by_window_draws_the_same_whole_windows_for_every_model_of_a_text():
    window = np.repeat(np.arange(6), [3, 5, 2, 4, 3, 3])
    tokens = np.arange(len(window), dtype=np.float64)
    samples = [windows_of(tokens + 1000 * i, window) for i in range(3)]
    seen = []
    bootstrap.resample(samples, lambda s: seen.append(s) or [0.0], 30, seed=3, same_text=True, by="window")
    replicates = [seen[1 + 3 * b: 4 + 3 * b] for b in range(30)]  # seen[0]: the metric's first call, on the data
    sizes = np.bincount(window)
    for three in replicates:
        assert [int(s["v"].min() // 1000) for s in three] == [0, 1, 2]
        for i, s in enumerate(three):  # every model: the same tokens, in the same order
            np.testing.assert_array_equal(s["v"] - 1000 * i, three[0]["v"])
        drawn = three[0]["window"]
        np.testing.assert_array_equal(window[(three[0]["v"]).astype(int)], drawn)
        counts = np.bincount(drawn, minlength=6)
        assert (counts % sizes == 0).all() and (counts // sizes).sum() == 6  # six windows, each whole
    assert len({tuple(three[0]["window"]) for three in replicates}) > 1, "the replicates differ from one another"


def test_resample_by_window_pairs_by_label_and_resamples_other_texts_apart():
    window = np.repeat(np.arange(20), 5)
    tokens = np.arange(100.0)
    samples = [windows_of(tokens, window), windows_of(tokens, window), windows_of(tokens, window)]
    out = bootstrap.resample(samples, lambda s: [s["v"].mean()], 40, same_text=["a", "a", "b"], by="window")
    np.testing.assert_array_equal(out[:, 0], out[:, 1])
    assert not np.array_equal(out[:, 0], out[:, 2])


def test_window_bootstrap_is_wider_than_the_token_bootstrap_where_a_window_s_tokens_move_together():
    """Each window's 50 tokens share one draw of its level: the tokens are not independent, and only a resample of
    whole windows sees that the mean rests on 40 draws, not 2,000."""
    rng = np.random.default_rng(0)
    window = np.repeat(np.arange(40), 50)
    values = rng.normal(0.0, 1.0, 40)[window] + rng.normal(0.0, 0.1, len(window))
    sample = [windows_of(values, window)]
    mean = float(values.mean())

    def width(**how):
        lo, hi = bootstrap.interval(mean, bootstrap.resample(sample, lambda s: [s["v"].mean()], 400, **how)[:, 0, 0])
        return hi - lo

    token, whole = width(), width(by="window")
    assert whole > 3 * token  # sqrt(2000 / 40 * 1.01 / (1 + 0.01)) ~ 7 in expectation


def test_resample_refuses_to_pair_samples_of_other_windows():
    tokens = np.arange(6.0)
    first = windows_of(tokens, [0, 0, 1, 1, 2, 2])
    other = windows_of(tokens, [0, 0, 0, 1, 1, 2])  # as many tokens, cut into windows elsewhere
    metric = lambda s: [s["v"].mean()]  # noqa: E731
    with pytest.raises(ValueError, match="not evaluated on the same windows"):
        bootstrap.resample([first, other], metric, 5, same_text=True, by="window")
    with pytest.raises(ValueError, match="same_text needs samples of one length"):
        bootstrap.resample([first, windows_of(tokens[:4], [0, 0, 1, 1])], metric, 5, same_text=True, by="window")
    with pytest.raises(ValueError, match="2 labels for 3 models"):
        bootstrap.resample([first, first, first], metric, 5, same_text=["a", "a"], by="window")
    assert bootstrap.resample([first, other], metric, 5, same_text=["a", "b"], by="window").shape == (5, 2, 1)
    seeded = windows_of(tokens + 1, [0, 0, 0, 1, 1, 2])  # a second training run, scored on other windows
    with pytest.raises(ValueError, match="its seeds must be evaluated on the same windows"):
        bootstrap.resample([first], metric, 5, by="window", seeds=[[seeded]])


def test_an_interval_widens_as_the_windows_of_a_document_grow_alike():
    """A text of four long documents, 25 windows of 20 tokens each: as the windows of one document share more of a
    level of their own, the interval of the mean, resampling documents, widens; resampling windows, it stays as
    narrow as if they were independent. Where every window is its own document, the two are one and the same."""
    rng = np.random.default_rng(7)
    documents, windows, tokens = 4, 25, 20
    window = np.repeat(np.arange(documents * windows), tokens)
    document = window // windows
    noise, level = rng.normal(size=window.size), rng.normal(size=documents)

    def half_width(values, by, ids):
        sample = {"v": values, by: ids}
        replicates = bootstrap.resample([sample], lambda s: [s["v"].mean()], n_boot=400, seed=1, by=by)[:, 0, 0]
        low, high = bootstrap.interval(values.mean(), replicates)
        return (high - low) / 2

    by_document, by_window = [], []
    for alike in (0.0, 0.5, 1.0, 2.0):  # how much of a level its own each document's windows share
        values = noise + alike * level[document]
        by_document.append(half_width(values, "document", document))
        by_window.append(half_width(values, "window", window))
    ratio = [d / w for d, w in zip(by_document, by_window)]
    assert all(a < b for a, b in zip(by_document, by_document[1:])), by_document
    assert all(a < b for a, b in zip(ratio, ratio[1:])), ratio  # and ever more than the windows' interval
    assert 0.7 < ratio[0] < 1.3 and ratio[-1] > 4  # independent windows: alike; windows alike: far too narrow
    values = noise + 2.0 * level[document]
    assert half_width(values, "document", window) == half_width(values, "window", window)  # a window per document


def test_a_size_trained_once_carries_the_scatter_its_family_s_seeded_sizes_show():
    rng = np.random.default_rng(5)
    text = {"v": rng.normal(3.0, 0.3, 200), "document": np.repeat(np.arange(40), 5)}
    runs = [{**text, "v": text["v"] * factor} for factor in (0.9, 1.0, 1.1)]  # a seeded size: 3 runs, 10% apart
    once = {**text, "v": text["v"] * 0.5}  # a larger size of the family, trained once

    def spread(same_text, seeds):
        out = bootstrap.resample([runs[0], once], lambda s: [s["v"].mean()], 2000, 1, same_text=same_text,
                                 by="document", seeds=seeds)
        return np.std(out[:, 1, 0] / out[:, 1, 0].mean())

    text_only = spread(True, None)
    carried = spread(True, [runs[1:], []])
    # the runs' relative scatter is 10% (sd of 0.9, 1.0, 1.1 over their mean); it adds in quadrature to the text's
    assert np.sqrt(carried**2 - text_only**2) == pytest.approx(0.1, rel=0.1)
    # a model of another text (another family, a reference model) takes nothing from this family's seeds
    assert spread(False, [runs[1:], []]) == pytest.approx(spread(False, None))
