"""CE components against size: the decomposition per replicate, per-group fits of paper B's eq. 9
on paired replicates, exponent gaps and their differences, change shares, curvature, and the
convergence of exponents with the number of evaluation tokens (chapter B5's check)."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import bootstrap, components, fit, metrics, sample_size


def sample(seed: int, n: int = 3000, spread: float = 20.0) -> dict[str, np.ndarray]:
    """Per-token logp and 0-based ranks of a model whose ranks spread out with ``spread``."""
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.geometric(1 / spread, n) - 1, 500)
    logp = -np.log1p(gt) - rng.exponential(0.5, n)
    return {"logp": logp, "gt": gt}


SIZES = np.array([1e4, 1e5, 1e6, 2e4, 3e5])
SAMPLES = [sample(i, spread=s) for i, s in enumerate([40.0, 20.0, 10.0, 30.0, 12.0])]


def test_terms_vector_is_the_decomposition_and_replicates_are_paired():
    dec = metrics.ce_decomposition(SAMPLES[0]["logp"], SAMPLES[0]["gt"])
    np.testing.assert_allclose(components.terms_vector(SAMPLES[0]),
                               [dec.ce, dec.error_entropy, dec.self_alignment, dec.confidence])
    boot = bootstrap.resample(SAMPLES[:2], components.terms_vector, n_boot=5, seed=3)
    assert boot.shape == (5, 2, 4)
    # the four quantities of a replicate come from one resample: the identity holds replicate by replicate
    np.testing.assert_allclose(boot[..., 0], boot[..., 1] + boot[..., 2] - boot[..., 3], atol=1e-9)
    assert not np.allclose(boot[0], boot[1])  # and the replicates differ


def test_group_bootstrap_matches_fit_power_law_on_every_replicate():
    full = np.array([components.terms_vector(s) for s in SAMPLES])
    boot = bootstrap.resample(SAMPLES, components.terms_vector, n_boot=4, seed=1)
    b = components.group_bootstrap(SIZES, full, boot)
    assert b.slopes.shape == (4, 4) and b.r2.shape == (4, 4)
    for q in range(4):
        f = fit.fit_power_law(SIZES, np.abs(full[:, q]))
        assert b.points[q].slope == pytest.approx(f.slope) and b.points[q].r2 == pytest.approx(f.r2)
        assert b.points[q].ci == pytest.approx(bootstrap.interval(f.slope, b.slopes[q]))
        for k in range(4):
            g = fit.fit_power_law(SIZES, np.abs(boot[k, :, q]))
            assert b.slopes[q, k] == pytest.approx(g.slope, rel=1e-10) and b.r2[q, k] == pytest.approx(g.r2, rel=1e-10)
    # a zero value: no fit of that quantity on the full samples, NaN on the replicate that holds it
    full[2, 3], boot[1, 2, 3] = 0.0, 0.0
    b = components.group_bootstrap(SIZES, full, boot)
    assert b.points[3] is None and b.points[0] is not None
    assert np.isnan(b.slopes[3, 1]) and np.isfinite(b.slopes[3, 0])
    with pytest.raises(ValueError):
        components.group_bootstrap([1e4, 1e4], full[:2], boot[:, :2])
    with pytest.raises(ValueError):
        components.group_bootstrap(SIZES, full, boot[:, :3])


def test_exponent_gaps_and_gap_difference():
    full = np.array([components.terms_vector(s) for s in SAMPLES[:3]])
    boot = bootstrap.resample(SAMPLES[:3], components.terms_vector, n_boot=6, seed=2)
    b = components.group_bootstrap(SIZES[:3], full, boot)
    gaps = components.exponent_gaps(dict(zip(components.QUANTITIES, b.points)))
    assert list(gaps) == list(metrics.COMPONENTS)
    point, replicates = components.gap_difference(b, "SA", "EE")
    assert point == pytest.approx(gaps["SA"] - gaps["EE"])
    for k in range(6):
        alpha = {q: fit.fit_power_law(SIZES[:3], np.abs(boot[k, :, i])).slope
                 for i, q in enumerate(components.QUANTITIES)}
        expected = abs(alpha["SA"] - alpha["CE"]) - abs(alpha["EE"] - alpha["CE"])
        assert replicates[k] == pytest.approx(expected, rel=1e-9)
    b.points[2] = None  # SA not fittable on the full samples: no gap and no difference
    assert "SA" not in components.exponent_gaps(dict(zip(components.QUANTITIES, b.points)))
    assert np.isnan(components.gap_difference(b, "SA", "EE")[0])


def test_share_trend_matches_a_fit_of_each_share():
    full = np.array([components.terms_vector(s) for s in SAMPLES[:3]])
    boot = bootstrap.resample(SAMPLES[:3], components.terms_vector, n_boot=5, seed=4)
    for signed in (True, False):
        point, replicates = components.share_trend(SIZES[:3], full, boot, signed=signed)
        share = lambda t: metrics.ce_shares(t[:, 1], t[:, 2], t[:, 3], signed=signed)["EE"]  # noqa: E731
        assert point == pytest.approx(fit.fit_power_law(SIZES[:3], share(full)).slope, rel=1e-10)
        for k in range(5):
            assert replicates[k] == pytest.approx(fit.fit_power_law(SIZES[:3], share(boot[k])).slope, rel=1e-10)
    # the signed share is EE / CE; with a positive Confidence it exceeds the magnitude share
    rising = full.copy()
    rising[:, 3] = [0.1, 0.3, 0.6]
    rising[:, 0] = rising[:, 1] + rising[:, 2] - rising[:, 3]
    signed = components.share_trend(SIZES[:3], rising, rising[None])[0]
    magnitude = components.share_trend(SIZES[:3], rising, rising[None], signed=False)[0]
    ee_ce = rising[:, 1] / rising[:, 0]
    assert signed == pytest.approx(fit.fit_power_law(SIZES[:3], ee_ce).slope) and signed > magnitude


def test_change_shares_add_up_and_curvature():
    rng = np.random.default_rng(2)
    first, last = rng.normal(size=(7, 4)), rng.normal(size=(7, 4))
    first[:, 0] = first[:, 1] + first[:, 2] - first[:, 3]
    last[:, 0] = last[:, 1] + last[:, 2] - last[:, 3]
    shares = components.change_shares(first, last)
    np.testing.assert_allclose(shares["EE"] + shares["SA"] + shares["Conf"], 1.0, rtol=1e-9)
    # curvature: a quadratic in log size is recovered, a power law has none, sets are independent
    x = np.log(SIZES)
    bent = np.exp(2.0 - 0.1 * x + 0.01 * (x - x.mean()) ** 2)
    rows = np.stack([bent, SIZES ** -0.2, -bent, bent])
    rows[3, 1] = 0.0  # a zero: that set's curvature is undefined, the others' are not
    got = components.curvature(SIZES, rows)
    assert got[0] == pytest.approx(0.01, rel=1e-9) and got[1] == pytest.approx(0.0, abs=1e-12)
    assert got[2] == pytest.approx(0.01, rel=1e-9) and np.isnan(got[3])  # |values|, as paper B fits |M|
    with pytest.raises(ValueError):
        components.curvature([1e3, 1e4], [1.0, 2.0])
    with pytest.raises(ValueError):
        components.curvature(SIZES, np.ones((2, 4)))


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
    conv = sample_size.exponent_convergence(sizes, subs, full, tolerance=0.1, floor=0.1)
    alpha_ce = fit.fit_power_law(sizes, full[:, 0]).slope
    alpha_sa = fit.fit_power_law(sizes, full[:, components.QUANTITIES.index("SA")]).slope
    assert conv["CE"].full == pytest.approx(alpha_ce) and conv["CE"].converged and conv["CE"].error < 1e-12
    # the allowance is relative to the exponent tested, or to a tenth of CE's where that one is nearer zero
    allowed = 0.1 * max(abs(alpha_sa), 0.1 * abs(alpha_ce))
    assert conv["SA"].tolerance == pytest.approx(allowed)
    drift = abs(fit.fit_power_law(sizes, [1.5, 1.2, 1.0]).slope - fit.fit_power_law(sizes, [1.6, 1.2, 1.0]).slope)
    assert conv["SA"].error == pytest.approx(drift, rel=1e-9)
    assert conv["SA"].converged == (drift <= allowed) and np.isnan(conv["SA"].needed) != conv["SA"].converged
    assert conv["EE"].converged and conv["EE"].needed == 2000  # error undefined at 1000 (no half below the grid)
    # a looser tolerance lets the drifting exponent converge
    assert sample_size.exponent_convergence(sizes, subs, full, tolerance=10.0, floor=0.1)["SA"].converged


def test_convergence_by_group_and_instance_exponents_on_records():
    records = ladder_records()
    sizes = np.array([1e4, 1e5, 1e6])
    conv = sample_size.convergence_by_group(sizes, records, {"A": [0, 1, 2], "B": [1, 2]}, min_tokens=1000,
                                           n_grid=4, n_repeats=3, tolerance=0.1, floor=0.1)
    assert set(conv) == {"A", "B"} and set(conv["A"]) == set(components.QUANTITIES)
    grid = sample_size.token_grid(6000, 1000, 4)
    subs = sample_size.subsample_models([records[1], records[2]], grid, 3)
    full = [components.terms_vector({"logp": r.logp, "gt": r.gt}) for r in records[1:]]
    direct = sample_size.exponent_convergence(sizes[1:], subs, full, 0.1, 0.1)
    for q in components.QUANTITIES:
        assert conv["B"][q].error == pytest.approx(direct[q].error) and conv["B"][q].full == pytest.approx(direct[q].full)
    assert conv["A"]["CE"].converged  # CE is a mean: no drift with the sample size
    exps = sample_size.instance_exponents(sizes, records, [10, 10_000], n_repeats=3)
    assert exps.shape == (2, 4)
    every = fit.fit_power_law(sizes, [components.terms_vector({"logp": r.logp, "gt": r.gt})[0] for r in records])
    assert exps[1, 0] == pytest.approx(every.slope)  # 10,000 windows: all of them, in every repeat
    # 10 windows: the mean over repeats of the exponents of each repeat's subsample
    few = [sample_size.subsampled_decompositions(r.logp, r.gt, r.window, [10], n_repeats=3, unit="windows")
           for r in records]
    per_repeat = [fit.fit_power_law(sizes, [s["CE"][0, k] for s in few]).slope for k in range(3)]
    assert exps[0, 0] == pytest.approx(np.mean(per_repeat))


def test_b3_to_b5_thresholds_are_consistent():
    from rankscale import claims

    for prefix, table in (("B3", claims.CLAIMS_B3), ("B4", claims.CLAIMS_B4), ("B5", claims.CLAIMS_B5)):
        assert table and all(key.startswith(prefix + ".") for key in table)
    # "no power law" must lie below "a power law", and a share under which a component is "invariant"
    # below the third it would carry in an even three-way split
    assert 0 < claims.B3_NO_LAW_R2 < claims.B3_LAW_R2 < 1 and 0 < claims.B3_INVARIANT_SHARE < 1 / 3
    assert claims.B4_CURVATURE_MIN_SIZES > claims.MIN_SIZES  # a quadratic through three sizes fits exactly

