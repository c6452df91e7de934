"""The scatter between training runs: slopes over every choice of run, checked against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankscale.analysis import bootstrap, metrics, seed_spread


def test_seed_slopes_match_a_fit_per_choice():
    sizes = np.array([1e3, 1e4, 1e5, 1e6])
    runs = [[5.0, 5.2, 4.9], [4.5], [4.1, 4.0], [3.8]]
    slopes = seed_spread.seed_slopes(sizes, runs)
    expected = [np.polyfit(np.log(sizes), np.log(choice), 1)[0] for choice in itertools.product(*runs)]
    np.testing.assert_allclose(slopes, expected, rtol=1e-12)
    assert slopes[0] == pytest.approx(np.polyfit(np.log(sizes), np.log([5.0, 4.5, 4.1, 3.8]), 1)[0])


def test_one_run_per_size_has_no_seed_scatter():
    slopes = seed_spread.seed_slopes([1e3, 1e4], [[2.0], [1.0]])
    assert slopes.shape == (1,) and np.isnan(seed_spread.spread(slopes))


def test_run_choices_and_bad_input():
    assert seed_spread.run_choices([1, 1]).tolist() == [[0, 0]]
    with pytest.raises(ValueError, match="at least one run"):
        seed_spread.run_choices([2, 0])
    with pytest.raises(ValueError, match="2 lists of runs for 3 sizes"):
        seed_spread.seed_slopes([1, 2, 3], [[1.0], [2.0]])


def _sample(rng, p, n=3000):
    rank = rng.geometric(p, n)
    return {"logp": -np.log(rank + 1.0), "gt": rank - 1, "rank": rank}


def test_seed_report_against_direct_computation():
    rng = np.random.default_rng(1)
    samples = [_sample(rng, p) for p in (0.3, 0.4, 0.5)]
    extra = [[_sample(rng, 0.33), _sample(rng, 0.28)], [], [_sample(rng, 0.52)]]
    models, exponents = seed_spread.seed_report([1e3, 1e4, 1e5], samples, extra, n_boot=40, seed=5)
    assert [m["index"] for m in models] == [0, 2] and [m["runs"] for m in models] == [3, 2]
    ce_runs = [metrics.cross_entropy(s["logp"]) for s in [samples[0], *extra[0]]]
    assert models[0]["CE", "value"] == pytest.approx(ce_runs[0])
    assert models[0]["CE", "seed sd"] == pytest.approx(np.std(ce_runs, ddof=1))
    token = bootstrap.resample(samples, seed_spread.quantities, 40, 5)
    assert models[0]["CE", "text sd"] == pytest.approx(np.std(token[:, 0, 0], ddof=1))
    rbp1 = [float(metrics.rbp(s["rank"], [1])[0]) for s in [samples[2], *extra[2]]]
    assert models[1]["RBP_1", "seed sd"] == pytest.approx(np.std(rbp1, ddof=1))
    ce = {e["quantity"]: e for e in exponents}["CE"]
    assert ce["choices"] == 6
    own = [metrics.cross_entropy(s["logp"]) for s in samples]
    assert ce["slope"] == pytest.approx(np.polyfit(np.log([1e3, 1e4, 1e5]), np.log(own), 1)[0])
    assert ce["seed sd"] > 0 and ce["text sd"] > 0


def test_seed_report_draws_the_text_as_it_is_told():
    """The text sd is that of the resampling the book's intervals use (``Context.resampling``): whole windows here."""
    rng = np.random.default_rng(2)
    window = np.repeat(np.arange(30), 100)
    samples = [{**_sample(rng, p), "window": window} for p in (0.3, 0.4, 0.5)]
    extra = [[{**_sample(rng, 0.33), "window": window}], [], []]
    how = {"same_text": True, "by": "window"}
    models, exponents = seed_spread.seed_report([1e3, 1e4, 1e5], samples, extra, n_boot=40, seed=5, **how)
    text = bootstrap.resample(samples, seed_spread.quantities, 40, 5, **how)
    assert models[0]["CE", "text sd"] == pytest.approx(np.std(text[:, 0, 0], ddof=1))
    tokens, _ = seed_spread.seed_report([1e3, 1e4, 1e5], samples, extra, n_boot=40, seed=5)
    assert models[0]["CE", "text sd"] != pytest.approx(tokens[0]["CE", "text sd"])
