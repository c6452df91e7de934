"""The scatter between training runs (seeds), set beside the scatter of the evaluation text.

Every bootstrap interval of the book resamples the evaluation text; a ladder that trains some
sizes more than once (``rankscale.sets.schema.Ladder.seed_sizes``) also shows how far a model's
CE or RBP_1 moves when only its training seed changes, and how far a fitted exponent moves when
each seeded size may be any of its runs. ``seed_slopes`` refits a power law for every choice of
one run per size, so its spread is the exponent's seed scatter alone, with the tokens held fixed;
``spread`` is the standard deviation both scatters are reported in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

import numpy as np

from rankscale.analysis import metrics
from rankscale.analysis.bootstrap import line_fits, resample


def spread(values) -> float:
    """Sample standard deviation (ddof 1) of ``values``; NaN for fewer than two finite values.

    Parameters
    ----------
    values : array_like of float

    Returns
    -------
    float

    Examples
    --------
    >>> spread([1.0, 2.0, 3.0]), bool(np.isnan(spread([1.0])))
    (1.0, True)
    """
    values = np.asarray(values, np.float64)
    values = values[np.isfinite(values)]
    return float(np.std(values, ddof=1)) if len(values) >= 2 else float("nan")


def run_choices(n_runs: Sequence[int]) -> np.ndarray:
    """Every choice of one run per size: the run index at each size.

    Parameters
    ----------
    n_runs : sequence of int
        Training runs at each size (1 where the size has no extra seed).

    Returns
    -------
    ndarray of int, shape (prod(n_runs), len(n_runs))

    Examples
    --------
    >>> run_choices([2, 1, 2]).tolist()
    [[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1]]
    """
    if any(n < 1 for n in n_runs):
        raise ValueError(f"every size needs at least one run, got {list(n_runs)}")
    return np.array(list(product(*(range(n) for n in n_runs))), dtype=int).reshape(-1, len(n_runs))


def seed_slopes(sizes, values: Sequence[Sequence[float]]) -> np.ndarray:
    """The log-log slope of ``values`` on ``sizes`` for every choice of one run per size.

    Parameters
    ----------
    sizes : array_like of float, shape (n_sizes,)
        Non-embedding parameters, one per size.
    values : sequence of n_sizes sequences of float
        Per size, the positive value (CE, -log RBP_1...) of each of its runs, the size's own run
        first.

    Returns
    -------
    ndarray of float, shape (prod(runs per size),)
        Slopes of log value on log size; their spread is the exponent's scatter between seeds on
        fixed evaluation tokens. A single slope where no size has a second run.

    Examples
    --------
    Two runs at the smallest size, 1.0 and 1.1 times the power law's value:

    >>> sizes = [1e3, 1e4, 1e5]
    >>> slopes = seed_slopes(sizes, [[1.0, 1.1], [0.5], [0.25]])
    >>> slopes.round(4).tolist()
    [-0.301, -0.3217]
    """
    sizes = np.asarray(sizes, np.float64)
    if len(values) != len(sizes):
        raise ValueError(f"{len(values)} lists of runs for {len(sizes)} sizes")
    runs = [np.asarray(v, np.float64) for v in values]
    choices = run_choices([len(v) for v in runs])
    y = np.log(np.stack([runs[j][choices[:, j]] for j in range(len(runs))], axis=1))  # (choices, sizes)
    slopes, _ = line_fits(np.log(sizes), y)
    return slopes


QUANTITIES = ("CE", "EE", "-log RBP_1")  # the quantities whose seed scatter the book reports


def quantities(sample) -> np.ndarray:
    """CE, Error-Entropy and -log RBP_1 of one sample, in the order of ``QUANTITIES``.

    Parameters
    ----------
    sample : mapping
        Per-token arrays ``logp`` (log-probability of the target), ``gt`` (its 0-based strict
        rank) and ``rank`` (its 1-based rank, ``metrics.rank_1based``).

    Returns
    -------
    ndarray of shape (3,)

    Examples
    --------
    >>> q = quantities({"logp": np.log([0.5, 0.25]), "gt": np.array([0, 1]), "rank": np.array([1, 2])})
    >>> q.round(4).tolist()  # CE, EE, -log RBP_1 (half the targets at rank 1)
    [1.0397, 0.6931, 0.6931]
    """
    ce = metrics.cross_entropy(sample["logp"])
    ee = metrics.ce_decomposition(sample["logp"], sample["gt"]).error_entropy
    return np.array([ce, ee, float(metrics.neg_log_rbp(sample["rank"], [1])[0])])


def seed_report(sizes, samples: Sequence[Mapping[str, np.ndarray]], seeds: Sequence[Sequence[Mapping[str, np.ndarray]]],
                n_boot: int, seed: int = 0, *, same_text=False, by: str | None = None) -> tuple[list[dict], list[dict]]:
    """The seed scatter of one family on one corpus, beside the scatter of the evaluation text.

    Parameters
    ----------
    sizes : array_like of float, shape (models,)
        Non-embedding parameters of the family's models (one run each: the run the fits use).
    samples : sequence of mappings
        Each model's sample, with the keys ``quantities`` reads.
    seeds : sequence of sequences of mappings
        Per model, its other training runs' samples on the same tokens (empty where none).
    n_boot, seed : int
        Resamples of the text of the models' own runs (``bootstrap.resample``) and their seed.
    same_text, by
        How a resample draws the text (``bootstrap.resample``; the book's: ``Context.resampling``): by default
        each model's single tokens on their own.

    Returns
    -------
    models : list of dict
        One per model with extra seeds: ``index`` (its position), ``runs``, and per quantity (and
        RBP_1 itself) ``value`` (its own run), ``mean`` (over its runs), ``seed sd`` (over its runs)
        and ``text sd`` (over resamples of the text of its own run), keyed ``(quantity, what)``.
    exponents : list of dict
        One per quantity: ``quantity``, ``slope`` (log-log, own runs), ``text sd`` (over resamples
        of the text), ``seed sd`` (over every choice of one run per size, ``seed_slopes``) and
        ``choices`` (how many such choices there are).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> def fake(level):
    ...     rank = rng.geometric(level, 2000)
    ...     return {"logp": -np.log(rank + 1.0), "gt": rank - 1, "rank": rank}
    >>> samples = [fake(p) for p in (0.3, 0.4, 0.5)]
    >>> models, exponents = seed_report([1e3, 1e4, 1e5], samples, [[fake(0.32)], [], []], n_boot=20)
    >>> models[0]["runs"], [e["quantity"] for e in exponents], exponents[0]["choices"]
    (2, ['CE', 'EE', '-log RBP_1'], 2)
    >>> bool(models[0]["CE", "seed sd"] > 0), bool(exponents[0]["slope"] < 0)
    (True, True)
    """
    sizes = np.asarray(sizes, np.float64)
    own = np.array([quantities(s) for s in samples])  # (models, q)
    others = [[quantities(s) for s in runs] for runs in seeds]
    text = resample(samples, quantities, n_boot, seed, same_text=same_text, by=by)  # (n_boot, models, q)
    models = []
    for i, extra in enumerate(others):
        if not extra:
            continue
        values = np.vstack([own[i], *extra])  # (runs, q)
        row = {"index": i, "runs": len(values)}
        columns = {name: (values[:, j], text[:, i, j]) for j, name in enumerate(QUANTITIES)}
        columns["RBP_1"] = tuple(np.exp(-v) for v in columns["-log RBP_1"])  # RBP_1 itself, as tables show it
        for name, (runs, replicates) in columns.items():
            row[name, "value"], row[name, "mean"] = float(runs[0]), float(runs.mean())
            row[name, "seed sd"], row[name, "text sd"] = spread(runs), spread(replicates)
        models.append(row)
    exponents = []
    for j, name in enumerate(QUANTITIES):
        runs = [[own[i, j], *(v[j] for v in others[i])] for i in range(len(sizes))]
        slopes = seed_slopes(sizes, runs)
        text_slopes, _ = line_fits(np.log(sizes), np.log(text[:, :, j]))
        exponents.append({"quantity": name, "slope": float(slopes[0]), "text sd": spread(text_slopes),
                          "seed sd": spread(slopes), "choices": len(slopes)})
    return models, exponents
