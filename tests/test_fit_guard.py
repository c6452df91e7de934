"""fit.fit_if_positive: the one guard in front of a log-log fit (fit.bootstrap and the chapters use it)."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import fit


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan])
def test_values_a_log_cannot_take_give_none_where_fit_power_law_raises(bad):
    sizes, values = [1e5, 1e6, 1e7], [3.0, bad, 1.0]
    with pytest.raises(ValueError):
        fit.fit_power_law(sizes, values)
    assert fit.fit_if_positive(sizes, values) is None


def test_fittable_values_give_fit_power_law():
    sizes, values = [1e5, 1e6, 1e7, 1e8], [3.0, 2.1, 1.4, 1.0]
    assert fit.fit_if_positive(sizes, values) == fit.fit_power_law(sizes, values)
    assert fit.fit_if_positive([1e5, 1e5, 1e6], [3.0, 2.9, 2.0]).n_points == 3  # two distinct sizes suffice
    with pytest.raises(ValueError):
        fit.fit_if_positive([1e5, 1e6], [3.0, 2.0, 1.0])  # a shape error is the caller's, not the data's


def test_bootstrap_points_use_the_guard():
    samples = [{"v": np.full(4, v)} for v in (2.0, 1.0, 0.5)]
    b = fit.bootstrap([1e4, 1e5, 1e6], samples, lambda s: [s["v"].mean(), s["v"].mean() - 1.0], n_boot=3)
    assert b.points[0] == fit.fit_if_positive([1e4, 1e5, 1e6], [2.0, 1.0, 0.5])
    assert b.points[1] is None and np.isnan(b.slopes[1]).all()  # 1.0 - 1 = 0 has no logarithm
