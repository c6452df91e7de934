"""What a chapter of the claims stage measures and decides with: its runs (``Chapter``, loaded once by
``load_chapter``), ``Context`` (the bootstrap's size, seed and how it resamples the evaluation text, the papers'
tables its rules read, and how many sizes each family has, so which families a size claim can be tested on), and
the runs' per-token arrays as bootstrap samples (``sample``, ``seed_samples``).

A chapter's module (``rankscale.claims.a3``, ...) says which runs it reads beside the families' final models
(``READS``, keywords of ``load_chapter``) and which of the papers' tables its rules read (``TABLES``), and has
two steps: ``measure(chapter, context)`` (the runs to the chapter's evidence) and ``decide(evidence, context)``
(the evidence to its verdicts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from rankscale import RankscaleError
from rankscale.analysis import metrics
from rankscale.analysis.bootstrap import LEVEL
from rankscale.claims.base import MIN_SIZES, Verdict, fittable, too_few_sizes, undecided_where, why_not_pooled
from rankscale.claims.reference import reference_table
from rankscale.records import runs
from rankscale.records.runs import Run, by_family
from rankscale.sets.schema import ModelSet

# The unit of text a bootstrap replicate draws whole (Context.resampling): each target's document, the records'
# array of that name (``text_units``). The windows of one document share its subject, style and vocabulary, so they
# are not independent draws of the text: resampled as if they were, a held-out text of a few long documents gave
# intervals several times too narrow. The documents are what the evaluation text is a sample of.
BY = "document"


def text_units(records) -> np.ndarray:
    """For each target of ``records``, the id of the unit of text a bootstrap replicate draws whole (``BY``).

    Parameters
    ----------
    records : rankscale.records.store.Records

    Returns
    -------
    ndarray of shape (n_targets,)

    Raises
    ------
    RankscaleError
        Results made before rankscale recorded each target's document (format 3).
    """
    units = getattr(records, BY)
    if units is None:
        raise RankscaleError(f"these results record no {BY} of their targets (made before rankscale recorded it, "
                             "format 3), which the intervals resample whole; extract them again (--force)")
    return units


# The fewest documents, counted by their weight (``effective_documents``), whose resamples an interval is read from.
# Below it the spread of the resamples is itself too uncertain to read against a threshold: the standard deviation
# of draws from G independent documents errs by about 1/sqrt(2(G - 1)) of itself, a quarter at 10, and a text of
# one document gives every replicate the same text, an interval of zero width that would decide everything.
MIN_DOCUMENTS = 10


def effective_documents(units) -> float:
    """How many equal documents the targets' documents weigh as: 1 / sum of squared shares of the targets (Kish's
    effective sample size of a clustered sample). Equal documents count in full; one document that holds most of
    the targets counts the rest for little.

    Examples
    --------
    >>> effective_documents(np.repeat(np.arange(4), 5)), round(effective_documents(np.array([0] * 97 + [1, 2, 3])), 2)
    (4.0, 1.06)
    """
    _, counts = np.unique(np.asarray(units), return_counts=True)
    shares = counts / counts.sum()
    return float(1 / np.sum(shares**2))


def unit_counts(units) -> tuple[int, float]:
    """How many units of text (documents) a sample's targets come from, and the largest one's share of the
    targets: what bounds how much a bootstrap over them can say.

    Examples
    --------
    >>> unit_counts(np.array([4, 4, 4, 1, 9, 9]))
    (3, 0.5)
    """
    _, counts = np.unique(np.asarray(units), return_counts=True)
    return len(counts), float(counts.max() / counts.sum())


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
    seed : int
        Of the bootstrap's resampling.
    by : str or None
        The unit of evaluation text a replicate draws (``resampling``): ``BY``, whole documents, for the claims of the
        book, which are about the text in general; None draws single tokens (for comparison only).
    thin : mapping of (str, str) to str
        The evaluation texts of too few documents for an interval (``thin_texts``): their units are undetermined
        in every verdict (``decide``).

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
    # the one level of every interval (rankscale.analysis.bootstrap.LEVEL), the one the rules' texts state: not a
    # setting of a context
    level: ClassVar[float] = LEVEL
    seed: int = 0
    by: str | None = BY
    thin: Mapping[tuple[str, str], str] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, runs: Sequence[Run], n_boot: int, tables: Mapping[str, object] | None = None,
           seed: int = 0) -> Context:
        """The context of a set whose families' final models on one corpus are ``runs``.

        Parameters
        ----------
        runs : sequence of rankscale.records.runs.Run
            Family runs of one corpus (every corpus has the same models).
        n_boot, tables, seed
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
        return cls(sizes, n_boot, dict(tables or {}), seed)

    def resampling(self, members: Sequence[Run], across_families: bool = False) -> dict:
        """How a replicate resamples the evaluation text of ``members``: ``rankscale.analysis.bootstrap.resample``'s
        keywords, the one place that decides them for every chapter.

        Every verdict of the book generalises beyond the tokens scored (a size law, an exponent, one model against
        another on the same text), and the tokens of one document are not independent of each other, so a replicate
        draws whole documents (``by``), and the same documents for every model that was evaluated on the same text,
        so that comparisons between them are paired. Models of one family share a tokenizer, so on one corpus they
        share the windows and their documents; each reference model (no family) is resampled on its own, unless
        ``across_families`` says that ``members`` were chosen for holding the same targets (A1.4 compares models of
        different families target for target), and then all are paired. ``resample`` checks that models paired in
        this way do hold the same documents, and raises where they do not.

        Parameters
        ----------
        members : sequence of rankscale.records.runs.Run
            The runs (of one corpus) whose samples are resampled together, in the order of the samples.
        across_families : bool
            Pair every member, whatever its family: ``members`` hold the same windows.

        Returns
        -------
        dict
            ``same_text`` (a text label per member) and ``by``; the samples must carry ``by``'s array
            (``sample`` does).

        Examples
        --------
        >>> members = [Run(f, n, None, 1, 1, None) for f, n in [("NeoX", "a"), ("NeoX", "b"), (None, "ref")]]
        >>> Context({}, 10).resampling(members)
        {'same_text': [('NeoX',), ('NeoX',), (None, 'ref')], 'by': 'document'}
        >>> Context({}, 10).resampling(members, across_families=True)
        {'same_text': True, 'by': 'document'}
        """
        if across_families:
            return {"same_text": True, "by": self.by}
        return {"same_text": [(run.family,) if run.family is not None else (None, run.name) for run in members],
                "by": self.by}

    def decide(self, rules: Sequence, evidence) -> list[Verdict]:
        """A chapter's verdicts: each of its ``rules`` (callables of the evidence and this context, one per claim, in
        order) on ``evidence``, every unit on a text of too few documents (``thin``) then undetermined
        (``rankscale.claims.base.undecided_where``)."""
        return [undecided_where(rule(evidence, self), self.thin, list(self.sizes)) for rule in rules]

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
        Any of the records' arrays (``logp``, ``gt``, ``ge``...) and ``rank``, the target's 1-based rank
        (``metrics.rank_1based``).

    Returns
    -------
    dict of str to ndarray
        Each of shape (n_tokens,): ``keys``, and ``BY`` (the document ids, whose documents a replicate draws whole,
        ``Context.resampling``).
    """
    arrays = {**run.records.arrays(), BY: text_units(run.records)}
    return {key: metrics.rank_1based(run.records.gt, run.records.ge) if key == "rank" else arrays[key]
            for key in dict.fromkeys([*keys, BY])}


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


@dataclass(frozen=True)
class Chapter:
    """The runs and settings of one chapter, resolved once from its parameters (``load_chapter``).

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
    temperature_runs : dict of float to Run
        Chapter B1's temperature demonstration (``rankscale.records.runs.temperature_runs``): one model on
        the first corpus at each temperature; empty where the chapter did not ask for it, or the set has none.
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
    temperature_runs: dict[float, Run] = field(default_factory=dict)

    @classmethod
    def of(cls, family_runs: Mapping[str, list[Run]], n_boot: int, model_set: ModelSet | None = None, *,
           references: Mapping[str, list[Run]] | None = None, checkpoints: Mapping[str, list[Run]] | None = None,
           seeds: Mapping[str, list[Run]] | None = None,
           temperatures: Mapping[float, Run] | None = None) -> Chapter:
        """A chapter of runs already in hand (what ``load_chapter`` loads, or a test builds).

        Parameters
        ----------
        family_runs : mapping of str to list of Run
            Per corpus, in order: the families' final models; the first corpus names the families.
        n_boot : int
            Bootstrap resamples of every interval.
        model_set : ModelSet, optional
            The set the runs are of (None for runs of no set).
        references, checkpoints, seeds : mapping of str to list of Run, optional
            Per corpus: the reference models', the checkpoints' and the extra seeds' runs; none where absent.
        temperatures : mapping of float to Run, optional
            Temperature -> the run of chapter B1's demonstration at it; none where absent.

        Returns
        -------
        Chapter

        Examples
        --------
        >>> runs = [Run(f, "", None, n, n, None) for f, n in [("NeoX", 1e3), ("NeoX", 2e3), ("NeoX", 4e3), ("Llama", 1e3)]]
        >>> chapter = Chapter.of({"pydocs": runs}, n_boot=10)
        >>> chapter.families, chapter.usable, chapter.unusable
        (['NeoX', 'Llama'], ['NeoX'], ['Llama: 1 size, fewer than 3'])
        """
        corpora = list(family_runs)
        first = family_runs[corpora[0]]
        usable, unusable = fittable(first, MIN_SIZES)

        def per_corpus(given):
            return {corpus: list((given or {}).get(corpus, [])) for corpus in corpora}

        return cls(model_set, corpora, {corpus: list(family_runs[corpus]) for corpus in corpora},
                   per_corpus(references), per_corpus(checkpoints), families=list(by_family(first)),
                   usable=list(usable), unusable=unusable, pooled_reason=why_not_pooled(first, MIN_SIZES),
                   n_boot=n_boot, seed_runs=per_corpus(seeds), temperature_runs=dict(temperatures or {}))

    def corpus_source(self, corpus: str) -> str:
        """What is read for one of ``corpora`` (``rankscale.sets.schema.ModelSet.corpus_source``): the name
        itself for runs of no set.

        Examples
        --------
        >>> Chapter.of({"pydocs": [Run("NeoX", "", None, 1e3, 1e3, None)]}, n_boot=10).corpus_source("pydocs")
        'pydocs'
        """
        return corpus if self.model_set is None else self.model_set.corpus_source(corpus)

    def seed_samples(self, corpus: str, members: list[Run], keys: Sequence[str]) -> list[list[dict]]:
        """The other training runs of each of ``members`` as bootstrap samples
        (``rankscale.claims.context.seed_samples``), ``members`` being final models of ``family_runs[corpus]``."""
        return seed_samples(self.seed_runs[corpus], members, keys)

    def context(self, *tables: str) -> Context:
        """What the chapter's rules need beside its evidence (``rankscale.claims.context.Context``): its
        families' sizes, the set's ``n_boot``, and the papers' ``tables`` named (``reference_table``)."""
        return replace(Context.of(self.family_runs[self.corpora[0]], self.n_boot,
                                  {name: reference_table(name) for name in tables}), thin=thin_texts(self))


def thin_texts(chapter: Chapter, min_documents: int = MIN_DOCUMENTS) -> dict[tuple[str, str], str]:
    """The evaluation texts of ``chapter`` that hold fewer than ``min_documents`` effective documents
    (``effective_documents``), whose intervals mean nothing: by (corpus, family, or the reference model's name), why.

    Every run the chapter reads counts (final models, references, checkpoints, seeds): a family's text is thin where
    any of its runs' is.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> run = lambda family, docs: Run(family, "m", None, 1e3, 1e3, SimpleNamespace(document=np.array(docs)))
    >>> chapter = Chapter.of({"pydocs": [run("NeoX", range(40)), run("Llama", [0] * 30 + [1, 2])]}, n_boot=10)
    >>> thin_texts(chapter)
    {('pydocs', 'Llama'): '3 documents, 1.1 by their weight, fewer than 10'}
    """
    thin: dict[tuple[str, str], tuple[float, int]] = {}
    for corpus in chapter.corpora:
        for run in (*chapter.family_runs[corpus], *chapter.reference_runs[corpus], *chapter.checkpoint_runs[corpus],
                    *chapter.seed_runs[corpus]):
            units = text_units(run.records)
            weight = effective_documents(units)
            key = (corpus, run.family if run.family is not None else run.name)
            if weight < min_documents and weight < thin.get(key, (np.inf, 0))[0]:
                thin[key] = (weight, unit_counts(units)[0])
    return {key: f"{n} documents, {weight:.1f} by their weight, fewer than {min_documents}"
            for key, (weight, n) in thin.items()}


def load_chapter(model_set: ModelSet, corpora: Sequence[str] | None = None, *, references: bool = False,
                 checkpoints: bool = False, seeds: bool = False, temperatures: bool = False, n_boot: int | None = None,
                 home: Path | None = None, device: str = "auto") -> Chapter:
    """The runs of ``model_set`` that a chapter reads, and what follows from them (``Chapter``).

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
    corpora : sequence of str, optional
        A subset of the set's corpora; None: all of them.
    references, checkpoints, seeds : bool
        Load the reference models', the training checkpoints' and the extra seeds' runs too.
    temperatures : bool
        Load chapter B1's temperature demonstration too (``rankscale.records.runs.temperature_runs``).
    n_boot : int, optional
        Bootstrap resamples; None: the set's.
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    device : str
        Where a result not on disk yet is extracted (``auto``: CUDA where torch sees a GPU, else the CPU).

    Returns
    -------
    Chapter

    Notes
    -----
    From here on this process's BLAS runs on one thread. OpenBLAS splits a dot product's sum
    between its threads, so with its default of one thread per core, chapter A5's fits moved in the
    14th digit from a machine of two cores to one; the chapters' arrays are small, and one thread
    was also faster (chapter A5's measuring took 76 s against 98 s with two threads, and the pages
    of ``make book`` run two at a time on two cores).
    """
    # a process-wide setting, not a context: the chapter's measuring happens after this returns
    threadpool_limits(1, user_api="blas")
    corpora = list(corpora or model_set.corpora)
    load = {"references": (references, runs.reference_runs), "checkpoints": (checkpoints, runs.checkpoint_runs),
            "seeds": (seeds, runs.seed_runs)}
    return Chapter.of({corpus: runs.family_runs(model_set, corpus, home, device) for corpus in corpora},
                      n_boot or model_set.n_boot, model_set,
                      **{kind: {corpus: reader(model_set, corpus, home, device) if wanted else [] for corpus in corpora}
                         for kind, (wanted, reader) in load.items()},
                      temperatures=runs.temperature_runs(model_set, home, device) if temperatures else {})
