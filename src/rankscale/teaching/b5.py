"""Chapter B5's exercises (how many evaluation tokens the components need): Self-Alignment read on about a
thousand tokens against all of them, the share of error ranks a sample sees only once, and how many evaluation
windows the first family needs before its Self-Alignment exponent keeps the sign it has on every window.

Every subsample is a prefix of one fixed shuffle of the windows, ``np.random.default_rng(SEED).permutation``
of the sorted window ids, the order ``rankscale.analysis.sample_size.subsampled_decompositions`` draws with
one repeat, so a student draws the same windows by hand.
"""

from __future__ import annotations

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import fit, metrics, sample_size
from rankscale.claims.b5 import B5_MIN_TOKENS
from rankscale.teaching.exercise import Exercise, family_models, largest_run

SEED = 0  # the shuffle of the windows every exercise draws its prefixes from


def sa_shift(chapter) -> float:
    """SA on the shortest prefix of shuffled windows holding ``B5_MIN_TOKENS`` targets minus SA on all tokens,
    of the first family's largest model on the first corpus (``sample_size.subsampled_decompositions``)."""
    records = largest_run(chapter).records
    few = sample_size.subsampled_decompositions(records.logp, records.gt, records.window, [B5_MIN_TOKENS],
                                                n_repeats=1, seed=SEED)["SA"][0, 0]
    return float(few - metrics.ce_decomposition(records.logp, records.gt).self_alignment)


def seen_once(chapter) -> float:
    """Of the distinct RBE values (``gt``) of the same model on all its tokens, the share seen exactly once
    (``metrics.ce_decomposition``'s counts ``n_e``)."""
    records = largest_run(chapter).records
    counts = metrics.ce_decomposition(records.logp, records.gt).n_e
    return float(np.mean(counts == 1))


def window_grid(n_windows: int) -> np.ndarray:
    """1, 2, 4, ... windows, doubling below ``n_windows``, then every window.

    >>> window_grid(10).tolist(), window_grid(8).tolist()
    ([1, 2, 4, 8, 10], [1, 2, 4, 8])
    """
    doubling = 2 ** np.arange(int(np.ceil(np.log2(n_windows))) if n_windows > 1 else 0)
    return np.append(doubling[doubling < n_windows], n_windows).astype(np.int64)


def sa_sign_windows(chapter) -> float:
    """The fewest windows of ``window_grid`` from which on the first family's size exponent of SA (first corpus,
    each model on the same prefix of shuffled windows) has its sign on every window."""
    runs = family_models(chapter)
    sizes = np.array([run.non_embedding for run in runs], np.float64)
    if len(np.unique(sizes)) < 2:
        raise RankscaleError(f"family {runs[0].family} has fewer than two sizes: no size exponent to fit")
    grid = window_grid(min(sample_size.n_windows(run.records.window) for run in runs))
    sa = np.stack([sample_size.subsampled_decompositions(run.records.logp, run.records.gt, run.records.window, grid,
                                                         n_repeats=1, seed=SEED, unit="windows")["SA"][:, 0]
                   for run in runs], axis=1)  # (grid, models)
    signs = np.array([np.sign(fit.fit_power_law(sizes, row).slope) for row in sa])
    wrong = np.flatnonzero(signs != signs[-1])
    return float(grid[0] if len(wrong) == 0 else grid[wrong[-1] + 1])


EXERCISES = (
    Exercise("b5.1", "Self-Alignment on a thousand tokens",
             "SA on the fewest shuffled windows holding 1,000 targets minus SA on all tokens, largest model",
             sa_shift, 1e-9, "shuffle the sorted window ids with np.random.default_rng(0).permutation, keep whole "
             "windows until there are at least 1,000 targets, and use the 0-based strict RBE gt"),
    Exercise("b5.2", "Ranks seen only once",
             "the share of the distinct RBE values of the same model's tokens that occur exactly once", seen_once,
             1e-9, "count the distinct values of gt (not of ge), all tokens, and divide by their number, not by N"),
    Exercise("b5.3", "How many windows until the SA exponent keeps its sign",
             "the fewest windows of the grid 1, 2, 4, ..., all from which on alpha_SA of the first family has its "
             "final sign", sa_sign_windows, 0.5,
             "every model takes the same first n windows of one shuffle; fit log SA on log size; the answer is a "
             "grid point, the one after the last sign change"),
)
