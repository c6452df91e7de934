"""What every chapter page starts from: papermill's ``profile`` resolved into the model set once, its runs
loaded (``rankscale.claims.context.load_chapter``), its banner shown and the book's look set. A chapter's
first code cell is one call, by the chapter's declaration in the claims stage::

    chapter = open_chapter(profile, corpora, spec=b1.SPEC)
    model_set, corpora, family_runs = chapter.model_set, chapter.corpora, chapter.family_runs
"""

from __future__ import annotations

from pathlib import Path

from rankscale import RankscaleError, sets
from rankscale.book.pages import header
from rankscale.book.plots import use_book_style
from rankscale.claims.context import Chapter, load_chapter
from rankscale.claims.spec import ChapterSpec


def open_chapter(profile: str, corpora: list[str] | None = None, *, spec: ChapterSpec | None = None,
                 references: bool = False, checkpoints: bool = False, seeds: bool = False, temperatures: bool = False,
                 n_boot: int | None = None, home: Path | None = None, show_header: bool = True,
                 device: str = "auto") -> Chapter:
    """Resolve a chapter's parameters once, load its runs, and show what it was computed with; the
    chapter's figures take the book's look from here on (``rankscale.book.plots.use_book_style``).

    Parameters
    ----------
    profile : str
        Papermill's parameter: a built-in model set or a TOML file (``rankscale.sets.get``).
    corpora : list of str, optional
        A subset of the set's corpora; None: all of them.
    spec : rankscale.claims.spec.ChapterSpec, optional
        A chapter of the claims stage (``<module>.SPEC``): the runs its ``reads`` name are loaded, and the
        four keywords below are not given.
    references, checkpoints, seeds : bool
        Load the reference models', the training checkpoints' and the extra seeds' runs too (a page that is
        no chapter of the claims stage).
    temperatures : bool
        Load chapter B1's temperature demonstration too.
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

        chapter = open_chapter("tiny", spec=a5.SPEC)   # with the reference models, which chapter A5 reads
        chapter.families, chapter.usable    # (['NeoX ladder', 'Llama ladder'], ['NeoX ladder', 'Llama ladder'])
    """
    reads = {"references": references, "checkpoints": checkpoints, "seeds": seeds, "temperatures": temperatures}
    if spec is not None:
        if any(reads.values()):
            raise RankscaleError(f"chapter {spec.label} names the runs it reads (its SPEC.reads, {spec.reads}); "
                                 "open it with spec= alone")
        reads = {kind: kind in spec.reads for kind in reads}
    model_set = sets.get(profile)
    use_book_style()
    chapter = load_chapter(model_set, corpora, **reads, n_boot=n_boot, home=home, device=device)
    if show_header:
        header(model_set, {corpus: chapter.family_runs[corpus] + chapter.reference_runs[corpus]
                           for corpus in chapter.corpora})
    return chapter
