"""Straight-line fits of bootstrap replicates against brute force."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from rankscale import replicates


def test_doctests():
    assert doctest.testmod(replicates).failed == 0


def test_line_fits_match_polyfit_row_by_row():
    rng = np.random.default_rng(0)
    x = np.log([1e3, 3e3, 1e4, 5e4, 2e5])
    y = rng.normal(size=(4, 3, 5))
    slope, r2 = replicates.line_fits(x, y)
    assert slope.shape == r2.shape == (4, 3)
    for idx in np.ndindex(4, 3):
        b, a = np.polyfit(x, y[idx], 1)
        residual = y[idx] - (a + b * x)
        assert slope[idx] == pytest.approx(b, rel=1e-10)
        assert r2[idx] == pytest.approx(1 - residual @ residual / ((y[idx] - y[idx].mean()) ** 2).sum(), rel=1e-10)


def test_rows_with_a_missing_value_have_no_fit_and_no_interval():
    slope, r2 = replicates.line_fits([0.0, 1.0, 2.0], [[1.0, 2.0, 3.0], [1.0, np.nan, 3.0]])
    assert slope[0] == pytest.approx(1.0) and np.isnan(slope[1]) and np.isnan(r2[1])
    assert replicates.interval(slope) is None
    assert replicates.interval(slope[:1]) == (1.0, 1.0)
    np.testing.assert_array_equal(replicates.log_or_nan([np.e, 0.0, -1.0, np.inf]), [1.0, np.nan, np.nan, np.nan])
    with pytest.raises(ValueError):
        replicates.line_fits([1.0, 1.0], [2.0, 3.0])


def test_overlaps_is_interval_intersection():
    band = (0.74, 1.32)
    assert replicates.overlaps((0.5, 0.74), band) and replicates.overlaps((1.0, 1.1), band)
    assert replicates.overlaps((0.1, 5.0), band)
    assert not replicates.overlaps((1.33, 2.0), band) and not replicates.overlaps((0.1, 0.7), band)
