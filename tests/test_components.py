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


def test_bootstrap_terms_is_paired_and_matches_the_decomposition():
    tb = components.bootstrap_terms(SAMPLES[:2], n_boot=6, seed=3)
    assert tb.full.shape == (2, 4) and tb.boot.shape == (6, 2, 4)
    for i in range(2):
        np.testing.assert_allclose(tb.full[i], components.terms_vector(SAMPLES[i]))
    # replicate b of model i: one resample of its tokens, drawn in this order, for all four quantities
    rng = np.random.default_rng(3)
    for i in range(2):
        n = len(SAMPLES[i]["logp"])
        for b in range(6):
            idx = rng.integers(0, n, n)
            expected = components.terms_vector({k: v[idx] for k, v in SAMPLES[i].items()})
            np.testing.assert_allclose(tb.boot[b, i], expected, rtol=1e-12)
    np.testing.assert_allclose(tb.boot[..., 0], tb.boot[..., 1] + tb.boot[..., 2] - tb.boot[..., 3], atol=1e-9)
    sub = tb.select([1])
    np.testing.assert_array_equal(sub.boot[:, 0], tb.boot[:, 1])


def test_lines_and_group_bootstrap_match_fit_power_law():
    rng = np.random.default_rng(1)
    values = rng.lognormal(size=(5, 3))
    slope, r2 = components.lines(SIZES, values)
    for j in range(3):
        f = fit.fit_power_law(SIZES, values[:, j])
        assert slope[j] == pytest.approx(f.slope, rel=1e-12) and r2[j] == pytest.approx(f.r2, rel=1e-12)
    tb = components.bootstrap_terms(SAMPLES, n_boot=4)
    b = components.group_bootstrap(SIZES, tb)
    assert b.slopes.shape == (4, 4) and b.r2.shape == (4, 4)
    for q in range(4):
        f = fit.fit_power_law(SIZES, np.abs(tb.full[:, q]))
        assert b.points[q].slope == pytest.approx(f.slope) and b.points[q].r2 == pytest.approx(f.r2)
        for k in range(4):
            g = fit.fit_power_law(SIZES, np.abs(tb.boot[k, :, q]))
            assert b.slopes[q, k] == pytest.approx(g.slope, rel=1e-10) and b.r2[q, k] == pytest.approx(g.r2, rel=1e-10)
    with pytest.raises(ValueError):
        components.group_bootstrap([1e4, 1e4], tb.select([0, 1]))


def test_change_shares_add_up_and_curvature_and_side():
    rng = np.random.default_rng(2)
    first, last = rng.normal(size=(7, 4)), rng.normal(size=(7, 4))
    first[:, 0] = first[:, 1] + first[:, 2] - first[:, 3]
    last[:, 0] = last[:, 1] + last[:, 2] - last[:, 3]
    shares = components.change_shares(first, last)
    np.testing.assert_allclose(shares["EE"] + shares["SA"] + shares["Conf"], 1.0, rtol=1e-9)
    # curvature: a quadratic in log size is recovered, a power law has none, sets are independent
    x = np.log(SIZES)
    bent = np.exp(2.0 - 0.1 * x + 0.01 * (x - x.mean()) ** 2)
    got = components.curvature(SIZES, np.stack([bent, SIZES ** -0.2], axis=1))
    assert got[0] == pytest.approx(0.01, rel=1e-9) and got[1] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError):
        components.curvature([1e3, 1e4], [1.0, 2.0])
    assert components.side((0.1, 0.2)) == 1 and components.side((-0.2, -0.1)) == -1
    assert components.side((-0.1, 0.1)) == 0 and components.side((np.nan, 1.0)) == 0
    assert components.side((0.81, 0.9), 0.8) == 1 and components.side((0.7, 0.79), 0.8) == -1
    assert components.covering((0.2, 0.3), 0.1) == (0.1, 0.3)


class Rec:
    """A record stand-in: per-token logp, gt and window."""

    def __init__(self, logp, gt, window):
        self.logp, self.gt, self.window = logp, gt, window

    def __len__(self):
        return len(self.logp)


def ladder_records(n=6000, spreads=(40.0, 20.0, 10.0), seed=0):
    rng = np.random.default_rng(seed)
    window = np.repeat(np.arange(n // 50), 50)
    out = []
    for spread in spreads:
        gt = np.minimum(rng.geometric(1 / spread, n) - 1, 2000)
        out.append(Rec(-np.log1p(gt) - rng.exponential(0.5, n), gt, window))
    return out


def test_exponent_convergence_on_a_known_drift():
    sizes = np.array([1e4, 1e5, 1e6])
    grid = np.array([1000, 2000, 4000])
    full = np.array([[4.0, 3.0, 1.5, 0.5], [3.5, 2.7, 1.2, 0.4], [3.0, 2.4, 1.0, 0.4]])
    # repeats identical; SA's smallest model drifts by 0.1 per doubling towards its full value
    subs = []
    for m in range(3):
        sub = {q: np.repeat(full[m, k] * np.ones((3, 1)), 2, axis=1) for k, q in enumerate(components.QUANTITIES)}
        sub["n_tokens"] = np.repeat(grid[:, None], 2, axis=1).astype(float)
        if m == 0:
            sub["SA"] = np.array([[1.7, 1.7], [1.6, 1.6], [1.5, 1.5]])
        subs.append(sub)
    conv = components.exponent_convergence(sizes, subs, full, tolerance=0.1)
    alpha_ce = fit.fit_power_law(sizes, full[:, 0]).slope
    assert conv["CE"].full == pytest.approx(alpha_ce) and conv["CE"].converged and conv["CE"].error < 1e-12
    assert conv["SA"].tolerance == pytest.approx(0.1 * abs(alpha_ce))
    drift = abs(components.slopes(sizes, [1.5, 1.2, 1.0]) - components.slopes(sizes, [1.6, 1.2, 1.0]))
    assert conv["SA"].error == pytest.approx(float(drift), rel=1e-9)
    assert conv["SA"].converged == (drift <= 0.1 * abs(alpha_ce)) and np.isnan(conv["SA"].needed) != conv["SA"].converged
    assert conv["EE"].converged and conv["EE"].needed == 2000  # error undefined at 1000 (no half below the grid)


def test_convergence_by_group_and_instance_exponents_on_records():
    records = ladder_records()
    sizes = np.array([1e4, 1e5, 1e6])
    conv = components.convergence_by_group(sizes, records, {"A": [0, 1, 2], "B": [1, 2]}, min_tokens=1000,
                                           n_grid=4, n_repeats=3, tolerance=0.1)
    assert set(conv) == {"A", "B"} and set(conv["A"]) == set(components.QUANTITIES)
    grid = metrics.token_grid(6000, 1000, 4)
    subs = components.subsample_models([records[1], records[2]], grid, 3)
    full = [components.terms_vector({"logp": r.logp, "gt": r.gt}) for r in records[1:]]
    direct = components.exponent_convergence(sizes[1:], subs, full, 0.1)
    for q in components.QUANTITIES:
        assert conv["B"][q].error == pytest.approx(direct[q].error) and conv["B"][q].full == pytest.approx(direct[q].full)
    assert conv["A"]["CE"].converged  # CE is a mean: no drift with the sample size
    exps = components.instance_exponents(sizes, records, [10, 10_000], n_repeats=3)
    assert exps.shape == (2, 4)
    every = fit.fit_power_law(sizes, [components.terms_vector({"logp": r.logp, "gt": r.gt})[0] for r in records])
    assert exps[1, 0] == pytest.approx(every.slope)  # 10,000 windows: all of them, in every repeat


def test_b3_to_b5_claims_are_defined_with_rules():
    from rankscale import claims

    for prefix, table in (("B3", claims.CLAIMS_B3), ("B4", claims.CLAIMS_B4), ("B5", claims.CLAIMS_B5)):
        assert table and all(key.startswith(prefix + ".") and c.rule for key, c in table.items())
    assert claims.CLAIMS_B5["B5.2"].kind == "analytic" and claims.CLAIMS_B4["B4.3"].kind == "beyond the paper"
    assert 0 < claims.B3_NO_LAW_R2 < claims.B3_LAW_R2 < 1 and 0 < claims.B3_INVARIANT_SHARE < 1 / 3
    assert claims.B4_CURVATURE_MIN_SIZES > claims.MIN_SIZES
    assert claims.judge("B3.2", {"a": True, "b": None}, "x").verdict == "reproduced"


def test_doctests():
    import doctest

    assert doctest.testmod(components).failed == 0
