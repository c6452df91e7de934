"""What a chapter of the claims stage measures and decides with, beside its own evidence: ``Context``
(the bootstrap's size, seed and interval level, the papers' tables its rules read, and how many sizes
each family has, so which families a size claim can be tested on), and the runs' per-token arrays as
bootstrap samples (``sample``, ``seed_samples``).

A chapter's module (``rankscale.claims.a3``, ...) takes a ``Context`` in both of its steps:
``measure(family_runs, seed_runs, context)`` and ``decide(evidence, context)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import metrics
from rankscale.analysis.bootstrap import LEVEL
from rankscale.claims.base import MIN_SIZES, too_few_sizes
from rankscale.records.runs import Run, by_family


@dataclass(frozen=True)
class Context:
    """What every rule of a chapter needs beside its evidence, fixed before the chapter measures.

    Parameters
    ----------
    sizes : mapping of str to int
        Every family of the set, in the set's order, with its number of distinct non-embedding sizes.
    n_boot : int
        Bootstrap replicates of every interval (the model set's).
    tables : mapping of str to pandas.DataFrame
        The papers' tables the chapter's rules read, by their name in ``rankscale/reference``
        (``rankscale.book.pages.reference_table``).
    level : float
        Of every interval (``rankscale.analysis.bootstrap.interval``).
    seed : int
        Of the bootstrap's resampling.

    Examples
    --------
    >>> context = Context({"NeoX": 7, "Llama": 2}, n_boot=200)
    >>> context.usable(), context.unusable()
    (['NeoX'], ['Llama: 2 sizes, fewer than 3'])
    >>> context.usable(8), context.unusable(8)
    ([], ['NeoX: 7 sizes, fewer than 8', 'Llama: 2 sizes, fewer than 8'])
    """

    sizes: Mapping[str, int]
    n_boot: int
    tables: Mapping[str, object] = field(default_factory=dict, compare=False)
    level: float = LEVEL
    seed: int = 0

    @classmethod
    def of(cls, runs: Sequence[Run], n_boot: int, tables: Mapping[str, object] | None = None,
           level: float = LEVEL, seed: int = 0) -> Context:
        """The context of a set whose families' final models on one corpus are ``runs``.

        Parameters
        ----------
        runs : sequence of rankscale.records.runs.Run
            Family runs of one corpus (every corpus has the same models).
        n_boot, tables, level, seed
            As the class's.

        Returns
        -------
        Context

        Examples
        --------
        >>> runs = [Run(f, "", None, n, n, None) for f, n in [("NeoX", 3e3), ("NeoX", 6e3), ("Llama", 3e3)]]
        >>> Context.of(runs, 10).sizes
        {'NeoX': 2, 'Llama': 1}
        """
        sizes = {family: len({run.non_embedding for run in members}) for family, members in by_family(runs).items()}
        return cls(sizes, n_boot, dict(tables or {}), level, seed)

    def usable(self, min_sizes: int = MIN_SIZES) -> list[str]:
        """The families with at least ``min_sizes`` distinct sizes, in order: those a size claim is tested on."""
        return [family for family, n in self.sizes.items() if n >= min_sizes]

    def unusable(self, min_sizes: int = MIN_SIZES) -> list[str]:
        """Why each other family is left out (``rankscale.claims.base.too_few_sizes``), in order."""
        return [too_few_sizes(family, n, min_sizes) for family, n in self.sizes.items() if n < min_sizes]

    def table(self, name: str):
        """The paper's table ``name``; RankscaleError where the chapter did not bring it.

        >>> Context({}, 10).table("rbp_paper_table1")
        Traceback (most recent call last):
        ...
        rankscale.RankscaleError: the rules were given no table 'rbp_paper_table1' (they have: none)
        """
        if name not in self.tables:
            have = ", ".join(self.tables) or "none"
            raise RankscaleError(f"the rules were given no table {name!r} (they have: {have})")
        return self.tables[name]


def sample(run: Run, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """A run's per-token arrays as a bootstrap sample (``rankscale.analysis.bootstrap.resample``).

    Parameters
    ----------
    run : Run
    keys : sequence of str
        Any of the records' arrays (``logp``, ``gt``, ``ge``, ``window``...) and ``rank``, the
        target's 1-based rank (``metrics.rank_1based``).

    Returns
    -------
    dict of str to ndarray
        Each of shape (n_tokens,).
    """
    arrays = run.records.arrays()
    return {key: metrics.rank_1based(run.records.gt, run.records.ge) if key == "rank" else arrays[key] for key in keys}


def seed_samples(seed_runs: Sequence[Run], members: Sequence[Run], keys: Sequence[str]) -> list[list[dict]]:
    """The other training runs of each of ``members`` as bootstrap samples (``sample``): what
    ``rankscale.analysis.bootstrap.resample`` takes as ``seeds``.

    Parameters
    ----------
    seed_runs : sequence of Run
        The extra training runs (seeds) of one corpus (``rankscale.records.runs.seed_runs``).
    members : sequence of Run
        Final models of the same corpus.
    keys : sequence of str
        The per-token arrays each sample holds (``sample``).

    Returns
    -------
    list of list of dict
        One list per member, empty for a model without extra seeds.
    """
    return [[sample(other, keys) for other in seed_runs if (other.family, other.name) == (run.family, run.name)]
            for run in members]
