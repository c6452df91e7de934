"""What every chapter starts from: papermill's ``profile`` resolved into the model set once, the
runs it reads per corpus, its families, which of them a size claim can be tested on and why not the
others, and the bootstrap's resamples. A chapter's first code cell is one call::

    chapter = open_chapter(profile, corpora, references=True)
    model_set, corpora, family_runs = chapter.model_set, chapter.corpora, chapter.family_runs
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rankscale import sets
from rankscale.book.pages import header, reference_table
from rankscale.book.plots import use_book_style
from rankscale.claims.base import MIN_SIZES, fittable, why_not_pooled
from rankscale.claims.context import Context, seed_samples
from rankscale.records import runs
from rankscale.records.runs import Run
from rankscale.sets.schema import ModelSet


@dataclass(frozen=True)
class Chapter:
    """The runs and settings of one chapter, resolved from its parameters (``open_chapter``).

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
    corpora : list of str
        The corpora the chapter reads, in set order; the first one names the families.
    family_runs, reference_runs, checkpoint_runs : dict of str to list of Run
        Per corpus: the families' final models, the references and the training checkpoints
        (empty lists where the chapter did not ask for them, or the set has none).
    families : list of str
        The families, in set order.
    usable : list of str
        The families with at least ``MIN_SIZES`` distinct sizes, on which size claims are tested.
    unusable : list of str
        Why each other family is left out ("Llama ladder: 2 sizes, fewer than 3").
    pooled_reason : str or None
        Why the families cannot be pooled into one size fit (paper B's "All"); None where they can.
    n_boot : int
        Bootstrap resamples of every interval.
    seed_runs : dict of str to list of Run
        Per corpus: the extra training runs (seeds) of the ladder sizes that have them (empty where
        the chapter did not ask for them, or the set has none).
    """

    model_set: ModelSet
    corpora: list[str]
    family_runs: dict[str, list[Run]]
    reference_runs: dict[str, list[Run]]
    checkpoint_runs: dict[str, list[Run]]
    families: list[str]
    usable: list[str]
    unusable: list[str]
    pooled_reason: str | None
    n_boot: int
    seed_runs: dict[str, list[Run]]

    def seed_samples(self, corpus: str, members: list[Run], keys: Sequence[str]) -> list[list[dict]]:
        """The other training runs of each of ``members`` as bootstrap samples
        (``rankscale.claims.context.seed_samples``), ``members`` being final models of ``family_runs[corpus]``."""
        return seed_samples(self.seed_runs[corpus], members, keys)

    def context(self, *tables: str) -> Context:
        """What the chapter's rules need beside its evidence (``rankscale.claims.context.Context``): its
        families' sizes, the set's ``n_boot``, and the papers' ``tables`` named (``reference_table``)."""
        return Context.of(self.family_runs[self.corpora[0]], self.n_boot,
                          {name: reference_table(name) for name in tables})


def open_chapter(profile: str, corpora: list[str] | None = None, *, references: bool = False,
                 checkpoints: bool = False, seeds: bool = False, n_boot: int | None = None, home: Path | None = None,
                 show_header: bool = True, device: str = "auto") -> Chapter:
    """Resolve a chapter's parameters once, load its runs, and show what it was computed with; the
    chapter's figures take the book's look from here on (``rankscale.book.plots.use_book_style``).

    Parameters
    ----------
    profile : str
        Papermill's parameter: a built-in model set or a TOML file (``rankscale.sets.get``).
    corpora : list of str, optional
        A subset of the set's corpora; None: all of them.
    references, checkpoints, seeds : bool
        Load the reference models', the training checkpoints' and the extra seeds' runs too.
    n_boot : int, optional
        Bootstrap resamples; None: the set's.
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    show_header : bool
        Display the page's banner (``rankscale.book.pages.header``) of the families and references.
    device : str
        Where a result not on disk yet is extracted (a chapter run by hand before ``make book``;
        ``auto``: CUDA where torch sees a GPU, else the CPU).

    Returns
    -------
    Chapter

    Examples
    --------
    A set whose results are on disk (``make book`` computes them before any chapter runs)::

        chapter = open_chapter("tiny", references=True)
        chapter.families, chapter.usable    # (['NeoX ladder', 'Llama ladder'], ['NeoX ladder', 'Llama ladder'])
    """
    model_set = sets.get(profile)
    corpora = list(corpora or model_set.corpora)
    use_book_style()
    family_runs = {corpus: runs.family_runs(model_set, corpus, home, device) for corpus in corpora}
    reference_runs = {corpus: runs.reference_runs(model_set, corpus, home, device) if references else []
                      for corpus in corpora}
    checkpoint_runs = {corpus: runs.checkpoint_runs(model_set, corpus, home, device) if checkpoints else []
                       for corpus in corpora}
    seed_runs = {corpus: runs.seed_runs(model_set, corpus, home, device) if seeds else [] for corpus in corpora}
    if show_header:
        header(model_set, {corpus: family_runs[corpus] + reference_runs[corpus] for corpus in corpora})
    first = family_runs[corpora[0]]
    usable, unusable = fittable(first, MIN_SIZES)
    return Chapter(model_set, corpora, family_runs, reference_runs, checkpoint_runs,
                   families=list(runs.by_family(first)), usable=list(usable), unusable=unusable,
                   pooled_reason=why_not_pooled(first, MIN_SIZES), n_boot=n_boot or model_set.n_boot,
                   seed_runs=seed_runs)
