"""Paper B's training-dynamics rules over one checkpoint series (rankscale.dynamics)."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale import dynamics
from rankscale.metrics import COMPONENTS


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


def test_series_checks_on_a_series_that_follows_the_paper():
    vocab = 100
    steps = [0, 16, 128, 1000]
    ee = [0.97 * np.log(vocab), 3.0, 2.5, 2.4]
    sa = [0.05, 0.4, 0.3, 0.02]
    conf = [-0.5, -0.4, -0.2, 0.3]
    checks = dynamics.series_checks(steps, ee, sa, conf, vocab)
    assert set(checks) == set(dynamics.RULES) == set(dynamics.REQUIRES)
    assert all(checks.values()), checks
    # order does not matter: the series is sorted by step
    shuffled = [3, 0, 2, 1]
    again = dynamics.series_checks(*(np.asarray(x)[shuffled] for x in (steps, ee, sa, conf)), vocab)
    assert again == checks


def test_series_checks_failures_and_what_short_series_cannot_test():
    vocab = 100
    checks = dynamics.series_checks([0, 10, 20], [4.0, 4.1, 3.0], [0.1, 0.05, 0.2], [0.0, 0.1, -0.1], vocab)
    assert checks == {"ee_falls": False, "sa_ends_down": False, "conf_rises": False, "ee_first": False,
                      "uniform_at_init": False, "sa_lowest_at_end": False}
    two = dynamics.series_checks([5, 50], [4.0, 3.0], [0.2, 0.1], [0.0, 0.1], vocab)
    assert two["ee_first"] is None and two["uniform_at_init"] is None and two["ee_falls"] is True
    one = dynamics.series_checks([0], [4.0], [0.2], [0.0], vocab)
    assert [rule for rule, value in one.items() if value is not None] == ["uniform_at_init"]
    with pytest.raises(ValueError):
        dynamics.series_checks([0, 0], [4.0, 3.0], [0.2, 0.1], [0.0, 0.1], vocab)
