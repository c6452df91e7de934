"""Chapter B2's module (``rankscale.claims.b2``): the rules on one checkpoint series and one model, each verdict
holding, failing and untestable on constructed evidence, ``measure`` against resamples drawn by hand on small
synthetic runs, and the notebook that only explains."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from rankscale import claims
from rankscale.analysis import dynamics, metrics
from rankscale.claims import b2
from rankscale.analysis.bootstrap import Z
from rankscale.claims.base import FRAGILE_SHARE, NOT_TESTABLE, UNDETERMINED, Unit
from rankscale.claims.context import Chapter, Context
from rankscale.records.runs import Run
from rankscale.records.store import Records

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "b2_training_dynamics.py"
VOCAB, N = 100, 5000
CONTEXT = Context({"NeoX": 3}, n_boot=20)

# ---------------------------------------------------------------------------------------------
# The rules on one series, one model

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
    checks = b2.series_checks(steps, values, boot, VOCAB, N)
    assert all(c.holds for c in checks.values()), checks
    assert checks["uniform_at_init"].value == pytest.approx(np.exp(-0.02))
    assert checks["sa_ends_down"].note == "against the peak at step 16"
    ee = checks["ee_falls"]
    assert ee.value == pytest.approx(2.4 - start) and ee.low < ee.value < ee.high < 0


def test_noise_decides_whether_a_flat_step_is_a_fall_or_a_rise():
    """A step within the noise shows no fall (undetermined), the same step with little noise is a rise (fails),
    and a Confidence change within the noise leaves it undetermined whether Confidence rose."""
    flat = [5.0, 3.0, 3.02]
    values, boot = series(flat, [0.1, 0.3, 0.2], [0.0, 0.1, 0.05], noise=0.05)
    checks = b2.series_checks([10, 20, 30], values, boot, VOCAB, N)
    assert checks["ee_falls"].holds == UNDETERMINED and checks["ee_falls"].note == "no fall shown at 20→30"
    values, boot = series(flat, [0.1, 0.3, 0.2], [0.0, 0.1, 0.05], noise=0.001)
    checks = b2.series_checks([10, 20, 30], values, boot, VOCAB, N)
    assert checks["ee_falls"].holds is False and checks["ee_falls"].note == "rise at 20→30"
    values, boot = series([5.0, 3.0], [0.1, 0.3], [0.0, 0.01], noise=0.05)
    assert b2.series_checks([10, 20], values, boot, VOCAB, N)["conf_rises"].holds == UNDETERMINED


@pytest.mark.parametrize("ee, expected, note", [
    ([5.0, 4.0, 3.9, 3.8], True, "a fall at every step"),
    ([5.0, 4.0, 3.99, 3.8], UNDETERMINED, "no fall shown at 16→128"),  # one step within the noise of 0
    ([5.0, 4.0, 4.1, 3.8], False, "rise at 16→128"),  # one step wholly above 0
    ([5.0, 4.0, 4.1, 4.09], False, "rise at 16→128; no fall shown at 128→1,000"),  # a rise outweighs a flat step
    ([5.0, 5.015, 5.03, 5.045], False, "no fall shown at 0→16, 16→128, 128→1,000"),  # flat steps, a rise overall
])
def test_b2_1_reads_every_step_and_the_whole_on_their_intervals(ee, expected, note):
    """B2.1 is an every-step rule: every step's change and the change from first to last read against 0 together
    (``every``): all wholly below holds, one wholly above fails, else undetermined."""
    values, boot = series(ee, [0.3, 0.2, 0.1, 0.05], [0.0, 0.1, 0.2, 0.3], noise=0.01)  # steps' half-width ~0.028
    check = b2.series_checks([0, 16, 128, 1000], values, boot, VOCAB, N)["ee_falls"]
    assert (check.holds, check.note) == (expected, note)
    assert check.value == pytest.approx(ee[-1] - ee[0])


def test_series_checks_failures_and_what_short_series_cannot_test():
    values, boot = series([dynamics.uniform_entropy(N, VOCAB) - 1.0, 4.1, 3.0], [0.1, 0.05, 0.2], [0.0, 0.1, -0.1])
    checks = b2.series_checks([0, 10, 20], values, boot, VOCAB, N)
    assert {rule: c.holds for rule, c in checks.items()} == {
        "ee_falls": False, "sa_ends_down": False, "conf_rises": False, "ee_first": False, "uniform_at_init": False,
        "ee_largest_at_init": True}
    values, boot = series([4.0, 3.0], [0.2, 0.1], [0.0, 0.1])
    two = b2.series_checks([5, 50], values, boot, VOCAB, N)
    assert two["ee_first"].holds is None and two["ee_first"].note == "needs three checkpoints"
    assert two["uniform_at_init"].holds is None and two["ee_falls"].holds is True
    values, boot = series([4.0], [0.2], [0.0])
    one = b2.series_checks([0], values, boot, VOCAB, N)
    assert [rule for rule, c in one.items() if c.holds is not None] == ["uniform_at_init", "ee_largest_at_init"]
    with pytest.raises(ValueError):
        b2.series_checks([0, 0], *series([4.0, 3.0], [0.2, 0.1], [0.0, 0.1]), VOCAB, N)


def exact(term, change, half, steps=(0, 100)):
    """A two-checkpoint series whose ``term`` changes by ``change`` with the interval ``change`` -+ ``half`` exactly
    (replicates of the last checkpoint at -+ half / Z, so their standard deviation is half / Z); EE falls by 1, SA
    falls by 0.1 and Conf rises by 0.1 otherwise, each without noise, EE largest at the start."""
    values = {"EE": np.array([4.0, 3.0]), "SA": np.array([0.3, 0.2]), "Conf": np.array([0.0, 0.1])}
    values[term] = np.array([values[term][0], values[term][0] + change])
    boot = {t: np.tile(v, (200, 1)) for t, v in values.items()}
    boot[term][:, 1] += np.tile([-half / Z, half / Z], 100)
    return b2.series_checks(list(steps), values, boot, VOCAB, N)


@pytest.mark.parametrize("rule, term, sign", [("conf_rises", "Conf", 1), ("sa_ends_down", "SA", -1),
                                              ("ee_falls", "EE", -1)])
def test_a_series_rule_holds_on_its_side_fails_on_the_other_and_is_undetermined_across(rule, term, sign):
    """The one reading of a change's interval: wholly on the claim's side holds, wholly on the other fails, across 0
    undetermined; an end at 0's edge is fragile."""
    assert exact(term, sign * 0.2, 0.1)[rule].holds is True
    assert exact(term, -sign * 0.2, 0.1)[rule].holds is False
    across = exact(term, sign * 0.05, 0.1)[rule]
    assert across.holds == UNDETERMINED and (across.low, across.high) == pytest.approx(sorted([sign * 0.05 - 0.1,
                                                                                            sign * 0.05 + 0.1]))
    edge = exact(term, sign * 0.101, 0.1)[rule]  # an end 0.001 from 0, within FRAGILE_SHARE of the half-width
    assert edge.holds is True and edge.fragile and 0.001 < FRAGILE_SHARE * 0.1
    assert not exact(term, sign * 0.2, 0.1)[rule].fragile


def test_ee_largest_at_init_and_ee_first_read_their_margins_three_ways():
    # EE(0) 4.0 against SA(0) 0.3: the margin is clear; with SA(0) at 3.95 -+ 0.1 it is undetermined, at 4.5 it fails
    assert exact("Conf", 0.1, 0.01)["ee_largest_at_init"].holds is True
    values = {"EE": np.array([4.0, 3.0]), "SA": np.array([3.95, 0.2]), "Conf": np.array([0.0, 0.1])}
    boot = {t: np.tile(v, (200, 1)) for t, v in values.items()}
    boot["SA"][:, 0] += np.tile([-0.1 / Z, 0.1 / Z], 100)
    assert b2.series_checks([0, 100], values, boot, VOCAB, N)["ee_largest_at_init"].holds == UNDETERMINED
    values["SA"][0] = boot["SA"][:, 0] = 4.5
    assert b2.series_checks([0, 100], values, boot, VOCAB, N)["ee_largest_at_init"].holds is False
    # ee_first: EE leads the first interval clearly, SA + Conf take a larger part later: holds without noise ...
    values, boot = series([5.0, 3.0, 2.8], [0.3, 0.25, 0.05], [0.0, 0.02, 0.3], noise=1e-4)
    assert b2.series_checks([0, 10, 20], values, boot, VOCAB, N)["ee_first"].holds is True
    # ... and within the noise of the margins it is undetermined, not refuted
    values, boot = series([5.0, 3.0, 2.8], [0.3, 0.25, 0.05], [0.0, 0.02, 0.3], noise=0.5)
    assert b2.series_checks([0, 10, 20], values, boot, VOCAB, N)["ee_first"].holds == UNDETERMINED


def test_a_fragile_series_is_named_in_the_verdict():
    edge = exact("Conf", 0.101, 0.1)["conf_rises"]
    assert edge.holds is True and edge.fragile
    clear, at_edge = (exact_series("d16", 0.2), exact_series("d40", 0.101))
    v = b2.conf_rises_verdict(dynamics_of(clear, at_edge, families=("NeoX",)), CONTEXT)
    assert (v.verdict, v.fragile) == ("reproduced", (Unit("pydocs", "NeoX", model="d40"),))
    assert "at the edge of the threshold: pydocs/NeoX: d40" in v.ours
    v = b2.conf_rises_verdict(dynamics_of(clear, exact_series("d40", 0.05), families=("NeoX",)), CONTEXT)
    assert (v.verdict, v.units_text, outcomes(v)[Unit("pydocs", "NeoX", model="d40")]) == \
        ("reproduced", "1 of 1, 1 of 2 decided", "undetermined")


def test_ee_first_is_undetermined_where_ce_does_not_drop_in_every_resample():
    # EE leads the first interval, but CE is flat (within noise) over the later stretch
    values, boot = series([6.0, 3.0, 3.0], [0.1, 0.4, 0.4], [0.0, 0.2, 0.2], noise=0.02)
    check = b2.series_checks([1, 2, 3], values, boot, VOCAB, N)["ee_first"]
    assert check.holds == UNDETERMINED and "parts not defined" in check.note


def test_ee_largest_at_init_compares_with_sa_and_the_magnitude_of_confidence():
    def margin(sa0, conf0, noise=0.01):
        values, boot = series([3.0, 2.5], [sa0, 0.1], [conf0, 0.2], noise=noise)
        return b2.series_checks([0, 100], values, boot, VOCAB, N)["ee_largest_at_init"]
    check = margin(0.5, -0.4)
    assert check.holds and check.value == pytest.approx(2.5) and check.low < 2.5 < check.high
    assert not margin(3.2, 0.0).holds  # SA larger at init
    assert not margin(0.5, -3.5).holds  # Confidence's magnitude larger, though Conf itself is negative
    assert margin(2.98, 0.0, noise=0.05).holds == UNDETERMINED  # ahead by less than the noise
    values, boot = series([3.0, 2.5], [0.5, 0.1], [0.0, 0.2])
    assert b2.series_checks([5, 100], values, boot, VOCAB, N)["ee_largest_at_init"].holds is None


def test_below_holds_wholly_below_fails_wholly_above_and_is_undetermined_across():
    assert b2.below(0.05, np.linspace(0.03, 0.07, 101), 0.1).holds is True
    straddling = b2.below(0.09, np.linspace(0.07, 0.12, 101), 0.1)
    assert straddling.holds == UNDETERMINED and "straddles" in straddling.note
    above = b2.below(0.2, np.linspace(0.15, 0.25, 101), 0.1)
    assert above.holds is False and above.note == "above 0.1"
    assert b2.below(0.05, [0.04, np.nan], 0.1).holds == UNDETERMINED  # not defined on every resample
    # the upper end a hair below the threshold: holds, at the threshold's edge
    edge = b2.below(0.1 - 1.01 * Z * 0.01, 0.1 - 1.01 * Z * 0.01 + np.array([-0.01, 0.01]), 0.1)
    assert edge.holds is True and edge.fragile and not straddling.fragile


def final(logp, rbe, n_boot=20, family="NeoX", model="d16", corpus="pydocs"):
    """A final model's alignment evidence (``b2.alignment``) from its targets' log-probabilities and RBE."""
    records = SimpleNamespace(logp=np.asarray(logp), gt=np.asarray(rbe), window=np.arange(len(rbe)) // 20,
                              document=np.arange(len(rbe), dtype=np.int64) // 20)
    run = SimpleNamespace(family=family, name=model, records=records)
    return b2.alignment(corpus, run, Context({}, n_boot=n_boot))


def test_aligned_is_not_testable_where_sampling_alone_reaches_the_threshold():
    rng = np.random.default_rng(5)
    rbe = np.minimum(rng.geometric(0.3, 4000) - 1, 99)
    model = final(np.log(np.bincount(rbe)[rbe] / len(rbe)), rbe)  # each target scored at its rank's frequency
    check = b2.aligned(model, CONTEXT)
    assert model.floor < 0.1 and check.holds is True and check.value == pytest.approx(0, abs=1e-12)
    # a sample so short that even this aligned model's counts would stray by the threshold cannot test it
    check = b2.aligned(replace(model, floor=claims.B2_MAX_TV), CONTEXT)
    assert check.holds is None and check.note == "sample too small: the floor reaches the threshold"
    off = np.where(rbe < 2, np.log(0.05), np.log(0.5))  # scores far from the ranks' frequencies
    check = b2.aligned(final(off, rbe), CONTEXT)
    assert check.holds is False and check.low > 0.1, check


def test_resample_series_pairs_checkpoints_that_predict_the_same_targets():
    """Two checkpoints with the same ranks whose every probability rises by 1%: Confidence rises
    by log 1.01 exactly, which a paired resample shows and independent resamples drown."""
    rng = np.random.default_rng(6)
    gt = np.minimum(rng.geometric(0.2, 3000) - 1, VOCAB - 1)
    first = {"logp": np.log(rng.uniform(0.01, 0.5, 3000) / (gt + 1)), "gt": gt, "target": rng.integers(0, VOCAB, 3000)}
    second = dict(first, logp=first["logp"] + np.log(1.01))
    paired = b2.series_checks([10, 20], *b2.resample_series([first, second], n_boot=50), VOCAB, 3000)["conf_rises"]
    assert paired.holds and paired.value == pytest.approx(np.log(1.01)) and paired.high - paired.low < 1e-9
    shuffled = dict(second, target=np.roll(first["target"], 1))  # other targets: resampled on its own
    apart = b2.series_checks([10, 20], *b2.resample_series([first, shuffled], n_boot=50), VOCAB, 3000)["conf_rises"]
    assert apart.holds == UNDETERMINED and apart.low < 0 < apart.high


@pytest.mark.parametrize("by_e, expected", [
    ({1: 2, 3: 4}, True),  # right after the target (the caption's reading), moving with it
    ({1: 3, 3: 5}, True),  # one lower (the text's reading)
    ({1: 2, 3: 5}, False),  # each in its accepted set, but the break moved by 3 for a shift of 2
    ({1: 3, 3: 3}, False),  # a break that stays put
    ({1: 1, 3: 3}, False),  # moves with the target, but at the target itself, not below it
    ({1: 4, 3: 6}, False),  # moves with the target, two positions too low
    ({1: 2}, None),  # no target at RBE 3
])
def test_the_break_must_sit_just_below_the_target_and_move_with_it(by_e, expected):
    assert b2.break_moves(by_e) is expected


# ---------------------------------------------------------------------------------------------
# The verdicts, on constructed evidence

def checkpoints(family, model, steps, ee, sa, conf, corpus="pydocs", noise=0.01, seed=0):
    values, boot = series(ee, sa, conf, noise=noise, seed=seed)
    return b2.Series(corpus, family, model, 1000, VOCAB, N, np.array(steps), (), values, boot)


def exact_series(model, conf_change, half=0.1):
    """A ``Series`` of NeoX whose Confidence rises by ``conf_change`` -+ ``half`` exactly (``exact``)."""
    values = {"EE": np.array([4.0, 3.0]), "SA": np.array([0.3, 0.2]), "Conf": np.array([0.0, conf_change])}
    boot = {t: np.tile(v, (200, 1)) for t, v in values.items()}
    boot["Conf"][:, 1] += np.tile([-half / Z, half / Z], 100)
    return b2.Series("pydocs", "NeoX", model, 1000, VOCAB, N, np.array([0, 100]), (), values, boot)


RISING = dict(ee=[4.5, 3.0, 2.5], sa=[0.05, 0.4, 0.1], conf=[-0.5, -0.2, 0.3])  # the paper's story
STEPS = [0, 16, 128]


def dynamics_of(*series_, families=("NeoX", "Llama", "GPT"), finals=(), breaks=(), corpora=("pydocs",)):
    return b2.Dynamics(tuple(corpora), tuple(families), tuple(series_), tuple(finals), tuple(breaks),
                       {family: "d160" for family in families})


def outcomes(verdict):
    return dict(verdict.outcomes)


def test_series_verdicts_count_series_and_name_families_without_checkpoints():
    ev = dynamics_of(checkpoints("NeoX", "d16", STEPS, **RISING), checkpoints("NeoX", "d40", STEPS, **RISING, seed=1),
                     checkpoints("Llama", "d16", [5], [4.0], [0.1], [0.0]))
    v = b2.conf_rises_verdict(ev, CONTEXT)
    assert (v.key, v.verdict, v.units_text) == ("B2.3", "reproduced", "2 of 2")
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="d16"): "holds", Unit("pydocs", "NeoX", model="d40"): "holds",
                           Unit("pydocs", "Llama", model="d16"): "untested", Unit(family="GPT"): "untested"}
    assert v.ours.startswith("holds in 2/2 series (NeoX 2/2); Confidence change first → last checkpoint +0.800 nats")
    assert v.ours.endswith("(not tested on: pydocs/Llama: d16, GPT)")
    assert [rule(ev, CONTEXT).verdict for rule in (b2.ee_falls_verdict, b2.sa_ends_down_verdict, b2.ee_first_verdict,
                                                   b2.uniform_at_init_verdict, b2.ee_largest_at_init_verdict)] \
        == ["reproduced"] * 5


def test_series_verdicts_fail_where_a_series_goes_the_other_way():
    falling = checkpoints("NeoX", "d40", STEPS, ee=[4.5, 3.0, 2.5], sa=[0.05, 0.4, 0.1], conf=[0.3, -0.2, -0.5])
    v = b2.conf_rises_verdict(dynamics_of(checkpoints("NeoX", "d16", STEPS, **RISING), falling), CONTEXT)
    assert (v.verdict, outcomes(v)[Unit("pydocs", "NeoX", model="d40")]) == ("partly", "fails")
    v = b2.conf_rises_verdict(dynamics_of(falling), CONTEXT)
    assert v.verdict == "not reproduced"


def test_b2_1_names_a_series_undecided_by_one_step_in_the_verdict():
    falling, flat = (checkpoints("NeoX", model, [0, 16, 128], ee, [0.3, 0.2, 0.1], [0.0, 0.1, 0.2])
                     for model, ee in (("d16", [5.0, 4.0, 3.9]), ("d40", [5.0, 4.0, 3.99])))
    v = b2.ee_falls_verdict(dynamics_of(falling, flat, families=("NeoX",)), CONTEXT)
    assert (v.key, v.verdict, outcomes(v)) == ("B2.1", "reproduced", {falling.unit: "holds", flat.unit: "undetermined"})
    assert "series with a rise between neighbours: 0, with a step within noise: 1" in v.ours


def test_series_verdicts_say_why_no_series_can_test_them():
    v = b2.ee_first_verdict(dynamics_of(), CONTEXT)
    assert (v.verdict, v.ours) == (NOT_TESTABLE, "no family of this set has training checkpoints")
    assert outcomes(v) == {Unit(family=f): "untested" for f in ("NeoX", "Llama", "GPT")}
    v = b2.ee_first_verdict(dynamics_of(checkpoints("NeoX", "d16", [0, 16], [4.5, 3.0], [0.05, 0.4], [-0.5, 0.3])),
                            CONTEXT)
    assert (v.verdict, v.ours) == (NOT_TESTABLE, "no checkpoint series has three checkpoints")


def tv_series(tv, half=0.01, model="d16", family="NeoX", steps=None):
    """A checkpoint series whose TV at each checkpoint is ``tv`` -+ ``half`` exactly (its interval), on real
    decompositions of an aligned model (so that its floor is the sampling floor of 4,000 targets)."""
    rng = np.random.default_rng(3)
    rbe = np.minimum(rng.geometric(0.3, 4000) - 1, 99)
    dec = metrics.ce_decomposition(np.log(np.bincount(rbe)[rbe] / len(rbe)), rbe)
    tv = np.asarray(tv, float)
    boot = {"TV": tv + np.tile([[-half / Z], [half / Z]], (100, len(tv)))}
    return b2.Series("pydocs", family, model, 1000, VOCAB, 4000, np.array(steps or [0, 16, 128, 1000][-len(tv):]),
                     (dec,) * len(tv), {}, boot)


def test_b2_6_holds_where_the_series_is_apart_early_and_close_at_the_end(monkeypatch):
    bar = claims.B2_MAX_TV
    monkeypatch.setattr(b2.Series, "tv", lambda self: self.boot["TV"].mean(axis=0))
    contrast = tv_series([bar, 3 * bar, 2 * bar, bar / 2])
    v = b2.alignment_verdict(dynamics_of(contrast, families=("NeoX",)), CONTEXT)
    assert (v.key, v.verdict, outcomes(v), v.units_text) == ("B2.6", "reproduced", {contrast.unit: "holds"}, "1 of 1")
    assert b2.series_contrast(contrast, CONTEXT)[1] == 1, "the early checkpoint farthest apart is the control"
    assert "pydocs/NeoX: d16: 0.300 at step 16 → 0.050 at step 1,000" in v.ours


def test_b2_6_fails_without_the_contrast_or_without_alignment_at_the_end(monkeypatch):
    bar = claims.B2_MAX_TV
    monkeypatch.setattr(b2.Series, "tv", lambda self: self.boot["TV"].mean(axis=0))
    always_close = tv_series([bar / 2, bar / 2, bar / 2, bar / 2])  # never apart: the end alone held it before
    never_close = tv_series([3 * bar, 3 * bar, 2 * bar, 2 * bar], model="d40")
    v = b2.alignment_verdict(dynamics_of(always_close, never_close, families=("NeoX",)), CONTEXT)
    assert (v.verdict, outcomes(v)) == ("not reproduced", {always_close.unit: "fails", never_close.unit: "fails"})
    assert b2.series_contrast(always_close, CONTEXT)[0].outcome is False


def test_b2_6_is_undetermined_across_the_bar_and_untested_without_checkpoints_or_on_a_short_sample(monkeypatch):
    bar = claims.B2_MAX_TV
    monkeypatch.setattr(b2.Series, "tv", lambda self: self.boot["TV"].mean(axis=0))
    across_end = tv_series([bar, 3 * bar, 2 * bar, bar], half=0.02)
    across_start = tv_series([bar, bar, bar, bar / 2], half=0.02, model="d40")
    v = b2.alignment_verdict(dynamics_of(across_end, across_start, families=("NeoX",)), CONTEXT)
    assert (v.verdict, outcomes(v), v.tested, v.measured) == (
        "undetermined", {across_end.unit: "undetermined", across_start.unit: "undetermined"}, 0, 2)
    one = tv_series([bar / 2])
    v = b2.alignment_verdict(dynamics_of(one, families=("NeoX", "Llama")), CONTEXT)
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {one.unit: "untested", Unit(family="Llama"): "untested"})
    assert b2.alignment_verdict(dynamics_of(), CONTEXT).ours.startswith("no family of this set has training checkpoints")
    reading, _ = b2.contrast([3 * bar, bar / 2], np.tile([[3 * bar, bar / 2]], (4, 1)), floors=[0.02, bar])
    assert reading.outcome is None, "a sample where even an aligned model measures the bar cannot test it"


def test_b2_6_holds_where_step_0_is_as_close_as_the_end_and_training_parts_the_two_in_between(monkeypatch):
    """At initialisation p_e and q_e are both nearly flat, so a step-0 TV as low as the last one is what the claim
    expects; the early divergence the claim asks for is read at the checkpoint farthest apart."""
    bar = claims.B2_MAX_TV
    monkeypatch.setattr(b2.Series, "tv", lambda self: self.boot["TV"].mean(axis=0))
    course = tv_series([bar / 2, 3 * bar, 2 * bar, bar / 2])
    v = b2.alignment_verdict(dynamics_of(course, families=("NeoX",)), CONTEXT)
    assert (v.verdict, outcomes(v), b2.series_contrast(course, CONTEXT)[1]) == ("reproduced", {course.unit: "holds"}, 1)
    floor = course.floors()[0]
    assert 0 < floor < bar and f"at step 0 (untrained, both nearly flat) TV 0.050, where sampling alone gives " \
        f"{floor:.3f}" in v.ours


@pytest.mark.parametrize("tv, floors, expected, early", [
    ([0.3, 0.2, 0.05], [0.3, 0.02, 0.02], True, 1),  # step 0's TV is sampling's: the next checkpoint is read
    ([0.3, 0.06, 0.05], [0.3, 0.02, 0.02], False, 1),  # ... and without it nothing was ever apart
    ([0.3, 0.2, 0.05], [0.3, 0.1, 0.02], None, -1),  # no early checkpoint can show the two apart: untested
    ([0.3, 0.2, 0.05], [0.02, 0.02, 0.02], True, 0),  # the farthest apart, wherever the floors allow it
])
def test_b2_6_reads_no_early_checkpoint_whose_sampling_floor_reaches_the_bar(tv, floors, expected, early):
    replicates = np.array(tv) + np.array([[-0.005], [0.005]])  # intervals of half-width ~0.014
    reading, read_at = b2.contrast(tv, replicates, floors)
    assert (reading.outcome, read_at) == (expected, early)


def test_b2_6_shows_every_final_model_beside_without_counting_it():
    rng = np.random.default_rng(3)
    rbe = np.minimum(rng.geometric(0.3, 4000) - 1, 99)
    close = final(np.log(np.bincount(rbe)[rbe] / len(rbe)), rbe, model="d16")
    far = final(np.where(rbe < 2, np.log(0.05), np.log(0.5)), rbe, model="d40")
    v = b2.alignment_verdict(dynamics_of(finals=[close, far], families=("NeoX",)), CONTEXT)
    assert (v.verdict, outcomes(v)) == (NOT_TESTABLE, {Unit(family="NeoX"): "untested"})
    assert f"below {claims.B2_MAX_TV} with the whole interval on 1 of 2" in v.ours


def test_b2_7_reads_each_largest_model_and_names_a_missing_rank():
    breaks = [b2.Break(c, "NeoX", "d160", e, 5, np.ones(4), after) for c, e, after in
              (("pydocs", 1, 2), ("pydocs", 3, 4), ("stdlib", 1, 2))]
    v = b2.break_verdict(dynamics_of(breaks=breaks, families=("NeoX",), corpora=("pydocs", "stdlib")), CONTEXT)
    assert (v.key, v.verdict, v.units_text) == ("B2.7", "reproduced", "1 of 1")
    assert outcomes(v) == {Unit("pydocs", "NeoX", model="d160"): "holds",
                           Unit("stdlib", "NeoX", model="d160"): "untested"}
    assert "stdlib/NeoX: d160: rank 2 after 2 (no target at RBE 3)" in v.ours
    moved = [b2.Break("pydocs", "NeoX", "d160", e, 5, np.ones(4), 2) for e in (1, 3)]
    assert b2.break_verdict(dynamics_of(breaks=moved, families=("NeoX",)), CONTEXT).verdict == "not reproduced"
    v = b2.break_verdict(dynamics_of(families=("NeoX",)), CONTEXT)
    assert v.verdict == NOT_TESTABLE and v.ours.startswith("no final model has targets at RBE 1 or 3")


def test_decide_gives_one_verdict_per_claim_in_order():
    ev = dynamics_of(checkpoints("NeoX", "d16", STEPS, **RISING))
    verdicts = b2.SPEC.decide(ev, CONTEXT)
    assert [v.key for v in verdicts] == list(claims.CLAIMS_B2)
    assert [v.verdict for v in b2.SPEC.decide(dynamics_of(), CONTEXT)] == [NOT_TESTABLE] * 8


def test_the_tables_read_the_evidence():
    ev = dynamics_of(checkpoints("NeoX", "d16", [0, 16, 128, 500], [4.5, 3.0, 2.5, 2.4], [0.05, 0.4, 0.1, 0.1],
                                 [-0.5, -0.2, 0.3, 0.3]))
    fig4, fig6 = b2.picks(ev)
    assert fig4 == {"NeoX": ("d16", [0, 128, 500])}, "first, second-to-last and last where the paper's are missing"
    assert fig6 == {"NeoX": ("d16", [0, 16, 128, 500])}
    table = b2.table3(ev)
    assert table["figure"].tolist() == ["Fig. 3"] * 3 + ["Fig. 4"] * 3 + ["Fig. 5"] * 3 + ["Fig. 6"] * 3 \
        + ["Fig. 6 (verdict)"] * 3
    assert table.loc[table["family"] == "GPT", "models and checkpoints"].iloc[0] == f"no checkpoints: {NOT_TESTABLE}"
    assert b2.checkpoints_note(ev).startswith("**Checkpoints** · NeoX: d16 at steps 0, 16, 128, 500 (5,000 held-out")
    assert b2.series_table(ev, CONTEXT).loc[0, "B2.5 uniform_at_init"] == \
        f"yes: {np.exp(4.5 - dynamics.uniform_entropy(N, VOCAB)):.3f}"
    assert b2.headline(ev, CONTEXT)[0].startswith("Across 1 checkpoint series, Error-Entropy changes by -2.10 nats")


# ---------------------------------------------------------------------------------------------
# The measure, on synthetic runs

SMALL_VOCAB = 40


def records(seed, skill, n=400):
    """Records of a model on the same ``n`` targets (so its checkpoints pair), ranking better with ``skill``."""
    rng = np.random.default_rng(seed)
    target = np.random.default_rng(99).integers(0, SMALL_VOCAB, n).astype(np.int32)
    gt = np.where(rng.random(n) < skill, rng.integers(0, 4, n), rng.integers(0, SMALL_VOCAB, n)).astype(np.int32)
    top = np.sort(rng.dirichlet(np.full(SMALL_VOCAB, 0.5), n), axis=1)[:, ::-1][:, :8]
    logp = np.log(top[np.arange(n), np.minimum(gt, 7)]).astype(np.float32)
    return Records(logp=logp, gt=gt, ge=gt, target=target, window=(np.arange(n) // 10).astype(np.int32),
                   document=(np.arange(n) // 10).astype(np.int64), top_logp=np.log(top).astype(np.float32),
                   manifest=SimpleNamespace(vocab_size=SMALL_VOCAB))


@pytest.fixture(scope="module")
def synthetic():
    family_runs = {corpus: [Run("NeoX", "d16", None, 1000, 2000, records(10 * c, 0.7)),
                            Run("NeoX", "d32", None, 2000, 4000, records(10 * c + 1, 0.8)),
                            Run("Llama", "d8", None, 500, 900, records(10 * c + 2, 0.6))]
                   for c, corpus in enumerate(("pydocs", "stdlib"))}
    checkpoints = {corpus: [Run("NeoX", "d32", step, 2000, 4000, records(20 + 10 * c + i, skill))
                            for i, (step, skill) in enumerate(((0, 0.0), (16, 0.4), (128, 0.8)))]
                   for c, corpus in enumerate(family_runs)}
    chapter = Chapter.of(family_runs, 8, checkpoints=checkpoints)
    context = chapter.context()
    return chapter, context, b2.measure(chapter, context)


def test_measure_resamples_each_series_as_by_hand(synthetic):
    chapter, context, ev = synthetic
    assert [(s.corpus, s.family, s.model, s.steps.tolist()) for s in ev.series] == \
        [(c, "NeoX", "d32", [0, 16, 128]) for c in ("pydocs", "stdlib")]
    assert (ev.with_checkpoints, ev.without_checkpoints) == (["NeoX"], ["Llama"])
    for s in ev.series:
        samples = [{**run.records.arrays(), "document": run.records.document}
                   for run in chapter.checkpoint_runs[s.corpus]]
        by_hand = dynamics.resampled_terms(samples, 8, 0, paired=True, min_count=b2.B2_MIN_GROUP, by="document")
        for term in ("EE", "SA", "Conf"):
            np.testing.assert_array_equal(s.boot[term], by_hand[term])
            assert s.values[term] == pytest.approx([dynamics.terms_of(x["logp"], x["gt"])[term] for x in samples])
        assert s.term("CE") == pytest.approx([-np.mean(x["logp"].astype(np.float64)) for x in samples])
        assert (s.vocab, s.tokens, s.params) == (SMALL_VOCAB, 400, 2000)


def test_measure_aligns_every_final_model_as_by_hand(synthetic):
    chapter, context, ev = synthetic
    assert [(m.corpus, m.model) for m in ev.finals] == [(c, r.name) for c in chapter.corpora
                                                       for r in chapter.family_runs[c]]
    for m, run in zip(ev.finals, [r for c in chapter.corpora for r in chapter.family_runs[c]]):
        sample = {"logp": run.records.logp, "gt": run.records.gt, "document": run.records.document}
        by_hand = dynamics.resampled_terms([sample], 8, 0, min_count=b2.B2_MIN_GROUP, by="document")["TV"][:, 0]
        np.testing.assert_array_equal(m.replicates, by_hand)
        dec = metrics.ce_decomposition(run.records.logp, run.records.gt)
        assert m.floor == dynamics.aligned_distance(dec, len(run.records), b2.B2_MIN_GROUP)


def test_measure_finds_the_break_of_each_largest_model(synthetic):
    chapter, context, ev = synthetic
    assert ev.largest == {"NeoX": "d32", "Llama": "d8"}
    assert [(b.family, b.e, b.corpus) for b in ev.breaks] == [(f, e, c) for f in ("NeoX", "Llama") for e in (1, 3)
                                                              for c in ("pydocs", "stdlib")]
    b = ev.breaks[0]
    rec = chapter.family_runs["pydocs"][1].records
    np.testing.assert_allclose(b.probs, metrics.top_rank_probs(rec.top_logp, rec.gt, 1))
    assert (b.predictions, b.after) == (int(np.sum(rec.gt == 1)), metrics.sharpest_drop(b.probs))
    assert [v.key for v in b2.SPEC.decide(ev, context)] == list(claims.CLAIMS_B2)


# ---------------------------------------------------------------------------------------------
# The notebook explains; the package computes
