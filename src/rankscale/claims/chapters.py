"""Every chapter's module of the claims stage, by the name of its page, in the book's order, and the verdicts
of a model set computed from them alone: by each module's ``SPEC`` (``rankscale.claims.spec.ChapterSpec``), the
runs the chapter reads, its context (the papers' tables it reads), its evidence (``measure``) and its verdicts
(``decide``), with no notebook in between.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

from rankscale import RankscaleError
from rankscale.claims import a1, a2, a3, a4, a5, b1, b2, b3, b4, b5
from rankscale.claims.base import Verdict
from rankscale.claims.context import load_chapter
from rankscale.sets.schema import ModelSet

# page name -> the chapter's module; the page names are the book's notebooks (rankscale.book.build.CHAPTERS)
CHAPTERS: dict[str, ModuleType] = {
    "a1_metric": a1,
    "a2_scaling_regimes": a2,
    "a3_k_dependence": a3,
    "a4_emergence": a4,
    "a5_lognormal": a5,
    "b1_decomposition": b1,
    "b2_training_dynamics": b2,
    "b3_component_scaling": b3,
    "b4_shares": b4,
    "b5_sample_size": b5,
}


def label(page: str) -> str:
    """A chapter's label from its page's name: ``"a3_k_dependence"`` -> ``"A3"``."""
    return page.split("_")[0].upper()


def chapter_verdicts(model_set: ModelSet, pages: Sequence[str] | None = None, *, home: Path | None = None,
                     device: str = "auto") -> Iterator[tuple[str, list[Verdict]]]:
    """The verdicts of ``model_set``, chapter by chapter, each measured and decided by its module.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        A set whose results are on disk (else they are extracted on ``device`` first).
    pages : sequence of str, optional
        Keys of ``CHAPTERS``; None: every chapter.
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    device : str
        Where a result not on disk yet is extracted.

    Yields
    ------
    (str, list of Verdict)
        A page's name and its chapter's verdicts, in the book's order.
    """
    unknown = [page for page in pages or () if page not in CHAPTERS]
    if unknown:
        raise RankscaleError(f"no chapter {', '.join(map(repr, unknown))}; the chapters are {', '.join(CHAPTERS)}")
    for page in pages or CHAPTERS:
        spec = CHAPTERS[page].SPEC
        chapter = load_chapter(model_set, **{kind: True for kind in spec.reads}, home=home, device=device)
        context = chapter.context(*spec.tables)
        yield page, spec.decide(spec.measure(chapter, context), context)
