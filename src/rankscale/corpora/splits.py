"""Sources: keyed collections of documents, split into whole-document train and held-out parts."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rankscale import RankscaleError
from rankscale.corpora.units import UNIT_MARK

SPLITS = ("train", "heldout")
DEFAULT_SPLIT = "heldout"


@dataclass(frozen=True)
class Source:
    """A keyed collection of documents that ``get_corpus`` splits into train and held-out parts.

    Parameters
    ----------
    name : str
        Registry name; ``name:train`` and ``name:heldout`` select the parts.
    documents : callable
        Returns ``(key, text)`` pairs: ``key`` is a stable identifier of the document (a relative
        path, a task id, a dataset row id) and decides which part the document falls in. Called
        lazily, at most once per process (see ``load_split``).
    description : str or callable
        What the documents are, shown in extraction manifests and in the book. A callable is
        evaluated when the corpus is looked up (for sources whose origin depends on the machine).
    heldout_fraction : float
        Expected fraction of documents in the held-out part.
    seed : int
        Seed of the split.
    text_version : int
        Version of the text the source yields: raise it whenever a change of code changes that
        text (a new reST stripper, say). It enters every extraction's identity and every ladder
        model's recipe, so that models and results of the old text are never reused.
    origin : callable
        Says, without reading the documents, which installed files and versions they are made
        from on this machine (a package's version, the Python version); with ``text_version``,
        it identifies the text.
    units : callable or None
        Cuts a document into its natural units, losslessly: joined, they give the document
        without any ``UNIT_MARK`` a source put in it (``rankscale.corpora.units``); the
        held-out part is read one unit per document, the training part whole. None: documents
        are read whole in both.
    unit : str
        What a unit is, in words ("reST section"), for the description.
    """

    name: str
    documents: Callable[[], Iterable[tuple[str, str]]]
    description: str | Callable[[], str]
    heldout_fraction: float
    seed: int = 0
    text_version: int = 1
    origin: Callable[[], str] = lambda: ""
    units: Callable[[str], list[str]] | None = None
    unit: str = ""


def split_documents(
    documents: Iterable[tuple[str, str]], heldout_fraction: float, seed: int
) -> dict[str, list[tuple[str, str]]]:
    """Split keyed documents into whole-document train and held-out parts.

    A document goes to the held-out part when a SHA-256 hash of ``seed`` and its key, read as a
    number in [0, 1), is below ``heldout_fraction``. The assignment of a document therefore
    depends only on its key, the seed and the fraction: adding or removing other documents (a
    newer Python, another package version) moves nothing else, and two sources sharing keys,
    seed and fraction split alike. Empty documents are dropped, and a text that occurs under
    several keys is kept once (under its first key in sorted order), so the two parts never
    share a document.

    Parameters
    ----------
    documents : iterable of (str, str)
        ``(key, text)`` pairs with unique keys.
    heldout_fraction : float
        Expected fraction of held-out documents, in [0, 1].
    seed : int
        Seed of the split; another seed gives another split.

    Returns
    -------
    dict
        ``{"train": [...], "heldout": [...]}``, each a list of ``(key, text)`` sorted by key.

    Examples
    --------
    >>> parts = split_documents([("b", "two"), ("a", "one"), ("c", "one"), ("d", " ")], 0.5, seed=0)
    >>> sorted(parts["train"] + parts["heldout"])
    [('a', 'one'), ('b', 'two')]
    """
    if not 0.0 <= heldout_fraction <= 1.0:
        raise RankscaleError(f"held-out fraction must lie in [0, 1], got {heldout_fraction}")
    parts: dict[str, list[tuple[str, str]]] = {split: [] for split in SPLITS}
    seen: set[str] = set()
    for key, text in sorted(documents):
        if not text.strip() or text in seen:
            continue
        seen.add(text)
        digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2.0**64
        parts["heldout" if u < heldout_fraction else "train"].append((key, text))
    return parts


@functools.cache
def _parts(source: Source) -> dict[str, tuple[tuple[str, str], ...]]:
    """The split of ``source``, computed once per process."""
    return {split: tuple(docs) for split, docs in
            split_documents(source.documents(), source.heldout_fraction, source.seed).items()}


def load_split(source: Source, split: str) -> list[str]:
    """Documents of one part of ``source``, in key order.

    The source is read and split once per process; later calls copy the cached list. Where the
    source cuts its documents into units (``Source.units``), the held-out part holds each unit as
    a document, in order, blank ones left out and each ending as a whole document does (one
    newline), so that its intervals, which draw whole documents, rest on as many as the source's
    structure gives; the training part holds the documents whole, without the marks a source may
    have put where its units start (``rankscale.corpora.units.UNIT_MARK``): since a cut is
    lossless, that is the units joined, without cutting them.

    Parameters
    ----------
    source : Source
        The source to split.
    split : {"train", "heldout"}
        The part.

    Returns
    -------
    list of str
        The part's documents.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from rankscale.corpora.units import marked_units
    >>> source = Source("s", lambda: [("a", "one. \\x05two."), ("b", "three.")], "", 0.0, units=marked_units)
    >>> load_split(source, "train"), load_split(replace(source, heldout_fraction=1.0), "heldout")
    (['one. two.', 'three.'], ['one.\\n', 'two.\\n', 'three.\\n'])
    """
    documents = [text for _, text in _parts(source)[split]]
    if source.units is None:
        return documents
    if split == "train":
        return [text.replace(UNIT_MARK, "") for text in documents]
    return [unit.rstrip() + "\n" for text in documents for unit in source.units(text) if unit.strip()]


def describe_split(source: Source, split: str) -> str:
    """What one part of ``source`` is, for manifests and the book.

    Parameters
    ----------
    source : Source
        The split source.
    split : {"train", "heldout"}
        The part.

    Returns
    -------
    str
        The source's description, then the part and how it was split.
    """
    what = source.description() if callable(source.description) else source.description
    part = "training" if split == "train" else "held-out"
    read_as = f", read one {source.unit} per document" if source.units is not None and split != "train" else ""
    return (f"{what}; {part} part of a whole-document split (held-out fraction "
            f"{source.heldout_fraction:g}, seed {source.seed}){read_as}")
