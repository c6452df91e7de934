"""CE components against size: per-family and pooled fits of paper B's eq. 9, exponent gaps,
EE's share, and the vectorised slopes of chapter B5."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale import components, fit, metrics


def sample(seed: int, n: int = 3000, spread: float = 20.0) -> dict[str, np.ndarray]:
    """Per-token logp and 0-based ranks of a model whose ranks spread out with ``spread``."""
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.geometric(1 / spread, n) - 1, 500)
    logp = -np.log1p(gt) - rng.exponential(0.5, n)
    return {"logp": logp, "gt": gt}


SIZES = np.array([1e4, 1e5, 1e6, 2e4, 3e5])
FAMILIES = ["A", "A", "A", "B", "B"]
SAMPLES = [sample(i, spread=s) for i, s in enumerate([40.0, 20.0, 10.0, 30.0, 12.0])]


def test_term_and_share_match_the_decomposition():
    dec = metrics.ce_decomposition(SAMPLES[0]["logp"], SAMPLES[0]["gt"]).terms()
    for q in components.QUANTITIES:
        assert components.term(q)(SAMPLES[0]) == pytest.approx(abs(dec[q]))
        assert components.term(q, absolute=False)(SAMPLES[0]) == pytest.approx(dec[q])
    signed = metrics.ce_shares(dec["EE"], dec["SA"], dec["Conf"])["EE"]
    magnitude = metrics.ce_shares(dec["EE"], dec["SA"], dec["Conf"], signed=False)["EE"]
    assert components.ee_share()(SAMPLES[0]) == pytest.approx(signed)
    assert components.ee_share(signed=False)(SAMPLES[0]) == pytest.approx(magnitude)
    with pytest.raises(ValueError, match="unknown quantity"):
        components.term("CE2")


def test_fit_components_per_family_and_pooled():
    fits = components.fit_components(SIZES, SAMPLES, FAMILIES, n_boot=10)
    assert list(fits) == ["A", "B", fit.POOLED]
    for group, idx in (("A", [0, 1, 2]), ("B", [3, 4]), (fit.POOLED, [0, 1, 2, 3, 4])):
        assert list(fits[group]) == list(components.QUANTITIES)
        for q in components.QUANTITIES:
            alone = fit.fit_power_law(SIZES[idx], [components.term(q)(SAMPLES[i]) for i in idx])
            assert fits[group][q].slope == pytest.approx(alone.slope, rel=1e-12)
            assert fits[group][q].r2 == pytest.approx(alone.r2, rel=1e-12)
            assert fits[group][q].n_points == len(idx) and fits[group][q].ci is not None
    gaps = components.exponent_gaps(fits["A"])
    assert list(gaps) == list(metrics.COMPONENTS)
    assert gaps["SA"] == pytest.approx(abs(fits["A"]["SA"].slope - fits["A"]["CE"].slope))


def test_one_family_has_no_pooled_fit_and_a_one_size_family_no_fit():
    fits = components.fit_components(SIZES[:3], SAMPLES[:3], ["A"] * 3, n_boot=5, quantities=["CE"])
    assert list(fits) == ["A"] and list(fits["A"]) == ["CE"]
    fits = components.fit_components(SIZES[:4], SAMPLES[:4], ["A", "A", "A", "B"], n_boot=5, quantities=["EE"])
    assert list(fits) == ["A", fit.POOLED]  # B has one size: no line of its own, but it is pooled
    assert fits[fit.POOLED]["EE"].n_points == 4


def test_slopes_match_fit_power_law_over_every_set():
    rng = np.random.default_rng(0)
    values = rng.lognormal(size=(5, 4, 3)) * np.where(rng.random((5, 4, 3)) < 0.2, -1, 1)
    got = components.slopes(SIZES, values)
    assert got.shape == (4, 3)
    for g in range(4):
        for r in range(3):
            assert got[g, r] == pytest.approx(fit.fit_power_law(SIZES, np.abs(values[:, g, r])).slope, rel=1e-12)
    values[2, 1, 0] = 0.0
    assert np.isnan(components.slopes(SIZES, values)[1, 0]) and np.isfinite(components.slopes(SIZES, values)[0, 0])
    assert float(components.slopes(SIZES, np.abs(values[:, 0, 0]))) == pytest.approx(got[0, 0])
    with pytest.raises(ValueError):
        components.slopes([1e4, 1e4], [1.0, 2.0])
    with pytest.raises(ValueError):
        components.slopes(SIZES, np.ones(4))


def test_doctests():
    import doctest

    assert doctest.testmod(components).failed == 0
