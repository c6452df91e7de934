"""What the chapters of paper B share (``rankscale.claims.b3`` ... ``b5``), so that none imports another: the
token grid and the convergence tolerance of chapter B5's check, which chapter B3 also applies to its verdicts on
SA and Confidence (``rankscale.analysis.sample_size.convergence_by_group``); the R^2 a power law must reach
(B3.1, and B4's laws on small models); every final model's four quantities on paired resamples of its documents,
which chapters B3 and B4 fit and compare (``CorpusTerms``, ``corpus_terms``); the groups a size law is fitted on;
and the families too small for a size claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankscale.analysis import bootstrap, components
from rankscale.analysis.components import QUANTITIES
from rankscale.claims.base import MIN_SIZES, POOLED, Unit, too_few_sizes
from rankscale.claims.context import Chapter, Context, sample
from rankscale.records import runs
from rankscale.records.runs import Run

B5_MIN_TOKENS = 1000  # smallest subsample of the token grid: a few windows, far below any set's evaluation
B5_N_GRID = 8  # token counts from B5_MIN_TOKENS to every token, evenly spaced in log
B5_N_REPEATS = 10  # random subsamples per count
B5_EXPONENT_TOLERANCE = 0.1  # a size exponent: allowed drift, as a fraction of its own magnitude (a claim on an
# exponent is on that exponent, its sign or its law: a drift of a tenth of it changes neither; an earlier rule allowed
# a tenth of |alpha_CE| whatever the exponent, and so refused components whose exponents, larger than CE's, drifted by
# a few percent of themselves)
B5_EXPONENT_FLOOR = 0.1  # an exponent smaller in magnitude than this fraction of |alpha_CE| is near zero: relative
# to it no drift is small (at 0 none would be allowed), so its drift is allowed B5_EXPONENT_TOLERANCE of this
# fraction of |alpha_CE| instead; over the set's sizes such a quantity moves by less than a tenth of CE's change in
# log, not scaling on the scale the loss scales on, and a drift that small cannot make it scale

B3_LAW_R2 = 0.8  # "follows a power law": §4.2 calls its EE fits "close to 0.9"; a tenth below that. Its own table
# meets 0.8 in 10 of 12 EE cells (not Pythia and All on GitHub, 0.73 and 0.72, which it also calls close to 0.9)


# ---------------------------------------------------------------------------------------------
# The quantities of every model on paired resamples (chapters B3 and B4)

KEYS = ("logp", "gt")  # the per-token arrays the decomposition reads: paper B's 0-based strict rank-based error


@dataclass(frozen=True)
class CorpusTerms:
    """CE, EE, SA and Conf of one corpus's final models, on all their tokens and on paired resamples of their documents
    (what chapters B3 and B4 fit and compare).

    Attributes
    ----------
    runs : tuple of Run
        The corpus's final models, in the set's order.
    full : ndarray of shape (models, 4)
        ``components.terms_vector`` of each model on all its tokens (``QUANTITIES`` order).
    replicates : ndarray of shape (n_boot, models, 4)
        The same on each resample; replicate b of every quantity comes from one resample, the same documents for
        every model of a family (``Context.resampling``), and a size trained with several seeds first draws one of
        its runs (``bootstrap.resample``).

    Examples
    --------
    >>> terms = CorpusTerms((Run("NeoX", "a", None, 1e3, 0, None), Run("Llama", "b", None, 1e3, 0, None),
    ...                      Run("NeoX", "c", None, 1e4, 0, None)), np.zeros((3, 4)), np.zeros((2, 3, 4)))
    >>> terms.index("NeoX"), terms.index(POOLED), terms.sizes.tolist()
    ([0, 2], [0, 1, 2], [1000.0, 1000.0, 10000.0])
    """

    runs: tuple[Run, ...]
    full: np.ndarray
    replicates: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        """(models,) non-embedding sizes."""
        return runs.sizes(self.runs)

    def index(self, group: str) -> list[int]:
        """The models of ``group``, a family or ``POOLED`` (every model)."""
        return [i for i, run in enumerate(self.runs) if group == POOLED or run.family == group]


def corpus_terms(chapter: Chapter, corpus: str, context: Context) -> CorpusTerms:
    """Every final model's quantities on ``corpus``, on all its tokens and on ``context.n_boot`` resamples drawn with
    ``context.seed`` (the extra seeds of a size drawn among its runs).

    Parameters
    ----------
    chapter : Chapter
        The families' final models per corpus and the extra training runs of the sizes that have them.
    corpus : str
    context : Context

    Returns
    -------
    CorpusTerms
    """
    members = chapter.family_runs[corpus]
    samples = [sample(run, KEYS) for run in members]
    full = np.array([components.terms_vector(s) for s in samples]).reshape(len(members), len(QUANTITIES))
    replicates = bootstrap.resample(samples, components.terms_vector, context.n_boot, context.seed,
                                    seeds=chapter.seed_samples(corpus, members, KEYS), **context.resampling(members))
    return CorpusTerms(tuple(members), full, replicates)


def fit_groups(families: Sequence[str]) -> list[str]:
    """The groups a size law is fitted on: every family and, where there are two or more, all of them pooled.

    >>> fit_groups(["NeoX", "Llama"]), fit_groups(["NeoX"])
    (['NeoX', 'Llama', 'All'], ['NeoX'])
    """
    return [*families, *([POOLED] if len(families) > 1 else [])]



def too_few(context: Context, min_sizes: int = MIN_SIZES) -> dict[Unit, str]:
    """The families with fewer than ``min_sizes`` sizes, which a size claim cannot be tested on, each a unit of every
    corpus, with why (what ``judge`` shows as its note).

    >>> too_few(Context({"NeoX": 5, "Llama": 2}, n_boot=1))
    {Unit(family='Llama'): '2 sizes, fewer than 3'}
    """
    return {Unit(family=family): too_few_sizes(family, n, min_sizes).removeprefix(f"{family}: ")
            for family, n in context.sizes.items() if n < min_sizes}
