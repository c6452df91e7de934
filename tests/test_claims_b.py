"""Paper B's decision functions (``rankscale.claims.paper_b``) on constructed fits: each rule holds
where it must, fails where it must, and sits on the stated side of its threshold."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from rankscale import claims
from rankscale.analysis import fit
from rankscale.analysis.components import QUANTITIES
from rankscale.analysis.sample_size import ExponentConvergence
from rankscale.claims import paper_b

Z = NormalDist().inv_cdf(0.975)  # the interval's half-width is Z standard deviations of the replicates
N_BOOT = 400


def standard_noise(seed: int) -> np.ndarray:
    """(N_BOOT,) replicate noise with mean 0 and standard deviation exactly 1, so an interval's
    half-width is exactly Z times the noise's scale."""
    z = np.random.default_rng(seed).standard_normal(N_BOOT)
    return (z - z.mean()) / z.std()


def convergence(error: float = 0.0, converged: bool = True) -> ExponentConvergence:
    grid = np.array([1000.0, 2000.0])
    return ExponentConvergence(grid, np.zeros((2, 3)), 0.0, error, 0.001, np.nan, converged)


def unit(name: str = "pydocs/NeoX", *, r2=None, r2_sd=None, slopes=None, slope_sd=0.001, drift=0.0,
         converged=True, shares=None, share_intervals=None) -> paper_b.ComponentUnit:
    """A unit whose fits have the given R^2 and slopes, with replicates spread by the given
    standard deviations (independent across quantities; a quantity with sd 0 is constant)."""
    r2 = {"CE": 0.95, "EE": 0.95, "SA": 0.3, "Conf": 0.2, **(r2 or {})}
    r2_sd = {q: 0.01 for q in QUANTITIES} | (r2_sd or {})
    slopes = {"CE": -0.10, "EE": -0.11, "SA": 0.05, "Conf": -0.02, **(slopes or {})}
    slope_reps = np.array([slopes[q] + slope_sd * standard_noise(i) for i, q in enumerate(QUANTITIES)])
    r2_reps = np.array([r2[q] + r2_sd[q] * standard_noise(10 + i) for i, q in enumerate(QUANTITIES)])
    points = [fit.PowerLawFit(slopes[q], 0.0, r2[q], 4, (slopes[q] - Z * slope_sd, slopes[q] + Z * slope_sd))
              for q in QUANTITIES]
    drift = drift if isinstance(drift, dict) else dict.fromkeys(QUANTITIES, drift)
    converged = converged if isinstance(converged, dict) else dict.fromkeys(QUANTITIES, converged)
    return paper_b.ComponentUnit(name, fit.Bootstrap(points, slope_reps, r2_reps),
                                 {q: convergence(drift.get(q, 0.0), converged.get(q, True)) for q in QUANTITIES},
                                 shares, share_intervals)


def test_ee_law_holds_only_where_the_whole_interval_clears_the_threshold():
    v = paper_b.ee_law("B3.1", [unit(r2={"EE": 0.95})], paper="")
    assert v.verdict == "reproduced" and v.key == "B3.1" and "0.950" in v.ours
    assert paper_b.ee_law("B3.1", [unit(r2={"EE": 0.7})], paper="").verdict == "not reproduced"
    mixed = paper_b.ee_law("B3.1", [unit("pydocs/NeoX"), unit("stdlib/NeoX", r2={"EE": 0.7})], paper="")
    assert mixed.verdict == "partly"
    half = Z * 0.01
    at = claims.B3_LAW_R2 + half
    assert paper_b.ee_law("B3.1", [unit(r2={"EE": at + 1e-6})], paper="").verdict == "reproduced"
    assert paper_b.ee_law("B3.1", [unit(r2={"EE": at - 1e-6})], paper="").verdict == "not reproduced"


def test_ee_law_with_no_unit_is_not_testable_and_says_why():
    v = paper_b.ee_law("B3.7", [], paper="", why_not="one family (NeoX): pooling families needs at least two")
    assert v.verdict == claims.base.NOT_TESTABLE and "pooling families" in v.ours
    v = paper_b.ee_law("B3.1", [], paper="", untested=["Llama: 2 sizes, fewer than 3"])
    assert v.verdict == claims.base.NOT_TESTABLE and "Llama: 2 sizes" in v.ours
    v = paper_b.ee_law("B3.1", [unit()], paper="", untested=["Llama: 2 sizes, fewer than 3"])
    assert v.verdict == "reproduced" and "not tested on: Llama: 2 sizes" in v.ours


def test_ee_fits_better_is_a_superiority_test_not_parity():
    no_noise = {"CE": 0.0}
    better = unit(r2={"EE": 0.97, "CE": 0.92}, r2_sd=no_noise)
    assert paper_b.ee_fits_better([better], paper="").verdict == "reproduced"
    # EE ahead by less than its noise: "at least as well" would pass, "better" must not
    tied = unit(r2={"EE": 0.93, "CE": 0.92}, r2_sd=no_noise)
    assert paper_b.ee_fits_better([tied], paper="").verdict == "not reproduced"
    worse = unit(r2={"EE": 0.85, "CE": 0.92}, r2_sd=no_noise)
    assert paper_b.ee_fits_better([worse], paper="").verdict == "not reproduced"
    edge = 0.92 + Z * 0.01  # the difference's interval then starts at 0
    assert paper_b.ee_fits_better([unit(r2={"EE": edge + 1e-6, "CE": 0.92}, r2_sd=no_noise)],
                                  paper="").verdict == "reproduced"
    assert paper_b.ee_fits_better([unit(r2={"EE": edge - 1e-6, "CE": 0.92}, r2_sd=no_noise)],
                                  paper="").verdict == "not reproduced"


def test_no_law_reads_r2_only_and_is_not_gated_on_the_exponent():
    drifting = dict.fromkeys(QUANTITIES, False)
    v = paper_b.no_law("B3.3", "SA", [unit(r2={"SA": 0.3}, converged=drifting)], paper="")
    assert v.verdict == "reproduced"
    assert paper_b.no_law("B3.3", "SA", [unit(r2={"SA": 0.6})], paper="").verdict == "not reproduced"
    at = claims.B3_NO_LAW_R2
    assert paper_b.no_law("B3.4", "Conf", [unit(r2={"Conf": at})], paper="").verdict == "not reproduced"
    assert paper_b.no_law("B3.4", "Conf", [unit(r2={"Conf": at - 1e-9})], paper="").verdict == "reproduced"
    assert "pooled R²_Conf" in paper_b.no_law("B3.4", "Conf", [unit()], paper="").ours


def test_exponent_gaps_widen_by_the_drift_instead_of_waiting_for_convergence():
    # |Δ_EE| = 0.01, |Δ_SA| = 0.15, |Δ_Conf| = 0.08: EE closest, SA farthest
    steady = unit()
    assert paper_b.ee_closest([steady], paper="").verdict == "reproduced"
    assert paper_b.sa_farthest([steady], paper="").verdict == "reproduced"
    # SA - Conf gap 0.07: a drift of 0.04 per exponent (0.08 for the pair) hides it; EE's gaps stay
    drifting = unit(drift=0.04, converged=False)
    v = paper_b.sa_farthest([drifting], paper="")
    assert v.verdict == "not reproduced" and "± 0.0800" in v.ours
    assert paper_b.ee_closest([unit(drift=0.02, converged=False)], paper="").verdict == "reproduced"
    # Conf nearer CE than EE is: EE is not the closest
    assert paper_b.ee_closest([unit(slopes={"Conf": -0.101})], paper="").verdict == "not reproduced"


def test_sa_rises_is_gated_on_sas_exponent_alone():
    assert paper_b.sa_rises([unit(slopes={"SA": 0.05})], paper="").verdict == "reproduced"
    assert paper_b.sa_rises([unit(slopes={"SA": -0.05})], paper="").verdict == "not reproduced"
    assert paper_b.sa_rises([unit(slopes={"SA": 0.001}, slope_sd=0.01)], paper="").verdict == "not reproduced"
    v = paper_b.sa_rises([unit(converged={"SA": False}, drift={"SA": 0.07})], paper="")
    assert v.verdict == claims.base.NOT_TESTABLE and "α_SA drifts 0.0700" in v.ours
    assert paper_b.sa_rises([unit(converged={"Conf": False})], paper="").verdict == "reproduced"


@pytest.mark.parametrize("sa, conf, expected", [
    ((0.05, (0.03, 0.07)), (0.10, (0.05, 0.15)), "reproduced"),
    ((0.40, (0.35, 0.45)), (0.10, (0.05, 0.15)), "not reproduced"),  # SA carries far more than a quarter
    ((0.24, (0.21, 0.27)), (0.10, (0.05, 0.15)), "reproduced"),  # straddles the band's edge: parity not refuted
    ((0.05, (0.03, 0.07)), (-0.30, (-0.34, -0.26)), "not reproduced"),  # the band is two-sided
    ((0.26, (0.2501, 0.27)), (0.10, (0.05, 0.15)), "not reproduced"),  # just outside the band
])
def test_invariance_fails_only_wholly_outside_the_band(sa, conf, expected):
    u = unit(shares={"SA": sa[0], "Conf": conf[0]}, share_intervals={"SA": sa[1], "Conf": conf[1]},
             converged=False, drift=0.5)
    assert paper_b.sa_conf_invariant([u], paper="").verdict == expected


def test_ee_dominates_needs_the_whole_interval_above_the_share():
    at = claims.B4_DOMINANT_SHARE
    v = paper_b.ee_dominates({"pydocs/NeoX": ("d16", 0.9, (0.85, 0.95)), "stdlib/NeoX": ("d16", 0.82, (0.79, 0.85))})
    assert v.verdict == "partly" and v.units_text == "1 of 2"
    assert paper_b.ee_dominates({"u": ("m", at + 0.02, (at + 1e-9, at + 0.04))}).verdict == "reproduced"
    assert paper_b.ee_dominates({"u": ("m", at + 0.02, (at, at + 0.04))}).verdict == "not reproduced"
    assert paper_b.ee_dominates({"u": ("m", 0.9, None)}).verdict == "not reproduced"  # no interval shows nothing


def test_share_falls_is_decided_by_the_signed_share_alone():
    rises = {"pydocs/NeoX": (0.01, (0.005, 0.015))}
    falls = {"pydocs/NeoX": (-0.01, (-0.015, -0.005))}
    v = paper_b.share_falls(falls, rises)
    assert v.verdict == "reproduced" and "magnitude share +0.0100" in v.ours
    assert paper_b.share_falls(rises, falls).verdict == "not reproduced"
    assert paper_b.share_falls({"u": (-0.01, (-0.02, 0.001))}, {"u": (-0.01, (-0.02, -0.001))}).verdict == \
        "not reproduced"
    v = paper_b.share_falls({}, {}, untested=["Llama: 2 sizes"], why_not="no family has 3 or more sizes")
    assert v.verdict == claims.base.NOT_TESTABLE and "no family has 3" in v.ours


def test_curvature_through_single_seed_points_is_undetermined():
    slows = {"pydocs/NeoX": (0.01, (0.005, 0.015))}
    v = paper_b.law_slows(slows, {"pydocs/NeoX": 1})
    assert v.verdict == "undetermined" and "seed" in v.ours and v.tested == 0
    assert paper_b.law_slows(slows, {"pydocs/NeoX": claims.B4_MIN_SEEDS}).verdict == "reproduced"
    straight = {"pydocs/NeoX": (0.01, (-0.005, 0.025))}
    assert paper_b.law_slows(straight, {"pydocs/NeoX": 2}).verdict == "not reproduced"
    # one unit decided, one undetermined: graded on the decided one, the other named
    both = {**slows, "stdlib/NeoX": (0.02, (0.01, 0.03))}
    v = paper_b.law_slows(both, {"pydocs/NeoX": 3, "stdlib/NeoX": 1})
    assert v.verdict == "reproduced" and "undetermined on: stdlib/NeoX" in v.ours


def test_the_bend_must_follow_the_share_where_both_are_clear():
    slows, steepens = (0.01, (0.005, 0.015)), (-0.01, (-0.015, -0.005))
    falls, rises, flat = (-0.02, (-0.03, -0.01)), (0.02, (0.01, 0.03)), (0.0, (-0.01, 0.01))
    enough = {"u": 2}
    assert paper_b.bend_follows_share({"u": slows}, {"u": falls}, enough).verdict == "reproduced"
    assert paper_b.bend_follows_share({"u": steepens}, {"u": rises}, enough).verdict == "reproduced"
    assert paper_b.bend_follows_share({"u": slows}, {"u": rises}, enough).verdict == "not reproduced"
    v = paper_b.bend_follows_share({"u": slows}, {"u": flat}, enough)
    assert v.verdict == claims.base.NOT_TESTABLE and "on no family are both the bend and the share's" in v.ours
    assert paper_b.bend_follows_share({"u": slows}, {"u": falls}, {"u": 1}).verdict == "undetermined"


def test_subsample_bias_needs_every_model_clear_of_its_full_value_on_the_claimed_side():
    rng = np.random.default_rng(0)
    up = 1.0 + 0.2 + 0.01 * rng.standard_normal((3, 10))  # three models, ten subsamples, biased up by 0.2
    on_all = np.ones(3)
    assert paper_b.subsample_bias("B5.1", "SA", 1, {"u": (up, on_all)}, 1000).verdict == "reproduced"
    assert paper_b.subsample_bias("B5.2", "EE", -1, {"u": (up, on_all)}, 1000).verdict == "not reproduced"
    one_flat = up.copy()
    one_flat[1] = 1.0 + 0.05 * rng.standard_normal(10)  # the middle model's mean is not clear of its value
    v = paper_b.subsample_bias("B5.1", "SA", 1, {"u": (one_flat, on_all), "w": (up, on_all)}, 1000)
    assert v.verdict == "partly" and "about 1,000 tokens" in v.ours


def test_trends_must_keep_the_sign_of_ce_ee_and_sa_but_not_conf():
    same = np.array([[-0.1, -0.12, 0.02, 0.05], [-0.09, -0.11, 0.03, -0.05]])  # only Conf flips: not a trend
    flipped_ee = np.array([[-0.1, 0.01, 0.02, 0.0], [-0.1, -0.11, 0.02, 0.0]])
    assert paper_b.same_trends("B5.4", {"u": same}, label="x").verdict == "reproduced"
    assert paper_b.same_trends("B5.4", {"u": flipped_ee}, label="x").verdict == "not reproduced"
    v = paper_b.same_trends("B5.3", {}, label="x", untested=["stdlib (at most 800 windows per model)"],
                            why_not="every corpus holds fewer than 10,000")
    assert v.verdict == claims.base.NOT_TESTABLE and "fewer than 10,000" in v.ours


def test_data_suffice_per_corpus():
    v = paper_b.data_suffice({"pydocs": [True, True], "stdlib": [True, False, True]})
    assert v.verdict == "partly" and "stdlib 2/3" in v.ours and v.units_text == "1 of 2"


def test_confidence_is_unstable_only_with_a_wide_spread_beyond_the_noise():
    wide = [unit("pydocs/NeoX", r2={"Conf": 0.1}), unit("stdlib/NeoX", r2={"Conf": 0.2}),
            unit("pydocs/Llama", r2={"Conf": 0.1 + claims.B3_UNSTABLE_RANGE + 0.01})]
    v = paper_b.conf_unstable(wide, paper="")
    assert v.verdict == "reproduced" and "apart" in v.ours and v.units_text == "1 of 1"
    narrow = [unit("pydocs/NeoX", r2={"Conf": 0.5}), unit("stdlib/NeoX", r2={"Conf": 0.5 + claims.B3_UNSTABLE_RANGE
                                                                                 - 0.01})]
    assert paper_b.conf_unstable(narrow, paper="").verdict == "not reproduced"
    noisy = [unit("pydocs/NeoX", r2={"Conf": 0.1}, r2_sd={"Conf": 0.3}), unit("stdlib/NeoX", r2={"Conf": 0.6})]
    v = paper_b.conf_unstable(noisy, paper="")
    assert v.verdict == "not reproduced" and "overlapping" in v.ours
    v = paper_b.conf_unstable(wide[:1], paper="", untested=["Llama: 2 sizes, fewer than 3"])
    assert v.verdict == claims.base.NOT_TESTABLE and "the spread needs two" in v.ours
