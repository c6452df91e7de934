"""Corpora: named text collections and local files, turned into deterministic token windows.

A corpus is a list of documents (strings). ``token_windows`` shuffles the documents with a fixed
seed, tokenizes them in that order with the model's own tokenizer, cuts each document into
windows of at most ``window_len`` tokens, and keeps windows until exactly ``n_tokens`` targets
are covered. Which tokens are scored, and on what context, is one rule for every corpus
(``rankscale.corpora.windows.document_windows``): lm-evaluation-harness's rolling
log-likelihood, every token of a document scored, its first one after the tokenizer's BOS token
(its EOS where it has no BOS); the papers' corpora keep the papers' encoding, as an exception
declared in that rule.

Named corpora come from ``SOURCES``: each source is a keyed collection of documents, split into
whole-document ``train`` and ``heldout`` parts with a fixed seed. A name selects a part:
``pydocs:train`` is the training part of ``pydocs``, ``pydocs:heldout`` its held-out part, and a
bare ``pydocs`` means ``pydocs:heldout`` (what models are evaluated on). The offline sources are
``pydocs`` (the Python documentation as prose), ``stdlib`` (the standard library's code) and
``humaneval`` (the HumanEval problems); see ``rankscale.corpora.offline``.

The papers' corpora are the unsplit entries of ``HUB_DATASETS`` (``wikipedia``, ``c4``,
``pile-github``, ``hotpotqa``, ``openai_humaneval``, ``auslegal``), read from the Hugging Face
hub or from local files standing in for it (see ``rankscale.corpora.hub_datasets``). They carry the
papers' sampling, ``PAPER_SAMPLING``: shuffle with the seed (42), keep the first 1000 documents,
and evaluate the first ``window_len`` (512) tokens of each, encoded by each model's own
tokenizer with its special tokens, the first of them context only.

A local file can be used anywhere a name is expected: a ``.parquet``, ``.json`` or ``.jsonl``
file, compressed or not (one document per row, text in a field), or any other UTF-8 text file
(one document); and so can any hub dataset, as ``hf:org/name[:config]:split`` (see
``rankscale.corpora.files``).

Modules: ``windows`` (sampling and token windows), ``splits`` (sources and their train and
held-out parts), ``rst`` (reST to prose; needs docutils, the ``offline`` extra), ``offline`` (the
offline sources), ``hub_datasets`` (the papers' corpora), ``files`` (local files and ``hf:``
datasets); this one looks corpora up by name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rankscale import RankscaleError
from rankscale.corpora.files import ACCEPTED, file_documents, file_identity, hf_documents, hf_identity, parse_hf
from rankscale.corpora.hub_datasets import (
    HUB_DATASETS,
    HubDataset,
    files_variable,
    hub_description,
    hub_documents,
    hub_identity,
    local_files,
)
from rankscale.corpora.offline import (
    OFFLINE_HELDOUT_FRACTION,
    PYDOCS_DIR,
    PYDOCS_PACKAGE,
    SOURCES,
    SPLIT_SEED,
    docstring_documents,
    humaneval_documents,
    pydocs_description,
    pydocs_documents,
    stdlib_dir,
    stdlib_documents,
    stdlib_files,
    topic_documents,
)
from rankscale.corpora.splits import DEFAULT_SPLIT, SPLITS, Source, describe_split, load_split, split_documents
from rankscale.corpora.windows import PAPER_SAMPLING, Sampling, Window, target_spans, token_windows
from rankscale.corpora.units import UNITS_VERSION

__all__ = [
    "Corpus", "get_corpus",
    "PAPER_SAMPLING", "Sampling", "Window", "target_spans", "token_windows",
    "DEFAULT_SPLIT", "SPLITS", "Source", "describe_split", "load_split", "split_documents",
    "OFFLINE_HELDOUT_FRACTION", "PYDOCS_DIR", "PYDOCS_PACKAGE", "SOURCES", "SPLIT_SEED",
    "docstring_documents", "humaneval_documents", "pydocs_description", "pydocs_documents",
    "stdlib_dir", "stdlib_documents", "stdlib_files", "topic_documents",
    "HUB_DATASETS", "HubDataset", "files_variable", "hub_description", "hub_documents", "local_files",
]


@dataclass(frozen=True)
class Corpus:
    """A named source of documents.

    Parameters
    ----------
    name : str
        Canonical name: ``source:split``, a hub corpus's name, or a file's resolved path.
    load : callable
        Returns the documents in a fixed order: a list, or for a hub corpus a sequence read on
        demand.
    description : str
        What the documents are, for extraction manifests and the book.
    sampling : Sampling
        How ``token_windows`` draws windows from the documents.
    text_version : int or None
        The version of an offline source's text (``Source.text_version``); None for the hub
        corpora and local files, whose text this package does not produce.
    content : callable
        Returns what the documents are made of, without reading them all: an offline part by its
        name, text version and origin (``Source.origin``), a file by its content hash and the field
        read, a hub dataset by its commit or the local files standing in for it. With the
        sampling, it is the corpus's part of a result's identity (``identity``).
    """

    name: str
    load: Callable[[], Sequence[str]]
    description: str = ""
    sampling: Sampling = Sampling()
    text_version: int | None = None
    content: Callable[[], dict] = dict

    def identity(self) -> dict:
        """The corpus's part of a result's identity (``rankscale.records.identity``): its
        ``content`` and its ``sampling``; never the path of a file.

        Examples
        --------
        >>> get_corpus("pydocs").identity()["text"]["name"]
        'pydocs:heldout'
        """
        return {"text": self.content(), "sampling": asdict(self.sampling)}


def _units_identity(source: Source, split: str) -> dict:
    """How a part's documents are cut (``rankscale.corpora.units.UNITS_VERSION``) where they are: a held-out part
    read as units. A training part reads its documents whole, so its identity, and every model trained on it, stays
    what it was."""
    return {"units": UNITS_VERSION} if source.units is not None and split != "train" else {}


def get_corpus(name: str, text_field: str = "text") -> Corpus:
    """Look up a named corpus or one part of a split source, or wrap a local file as a corpus.

    Parameters
    ----------
    name : str
        ``source`` or ``source:heldout`` (the held-out part), ``source:train`` (the training
        part), a name in ``HUB_DATASETS``, ``hf:org/name[:config]:split`` (any hub dataset), or
        the path of a file (``rankscale.corpora.files.file_documents``: a ``.parquet``, ``.json``
        or ``.jsonl`` file, compressed or not, one document per row; any other text file, one
        document).
    text_field : str
        Field holding the text of a data file or an ``hf:`` dataset.

    Returns
    -------
    Corpus
        For a source, named ``source:split`` whichever way the part was asked for, so results
        are keyed consistently. Nothing is read until ``load`` is called.

    Raises
    ------
    RankscaleError
        For an unknown split, a malformed ``hf:`` name, or a name that is neither a corpus nor an
        existing file (naming what is accepted).

    Examples
    --------
    >>> get_corpus("pydocs").name
    'pydocs:heldout'
    >>> get_corpus("c4").sampling == PAPER_SAMPLING
    True
    """
    if name in HUB_DATASETS:
        return Corpus(name=name, load=functools.partial(hub_documents, name),
                      description=hub_description(name), sampling=PAPER_SAMPLING,
                      content=functools.partial(hub_identity, name))
    if name.startswith("hf:"):
        parse_hf(name)  # a malformed name fails here, before anything is computed
        return Corpus(name=name, load=functools.partial(hf_documents, name, text_field),
                      description=f"hub dataset {name.removeprefix('hf:')}, field {text_field!r}",
                      content=functools.partial(hf_identity, name, text_field))
    base, _, split = name.partition(":")
    if base in SOURCES:
        source = SOURCES[base]
        split = split or DEFAULT_SPLIT
        if split not in SPLITS:
            raise RankscaleError(
                f"corpus {base!r} has no split {split!r}; its splits are "
                + " and ".join(repr(f"{base}:{s}") for s in SPLITS)
                + f" ({base!r} alone means {base + ':' + DEFAULT_SPLIT!r})"
            )
        return Corpus(name=f"{base}:{split}", load=functools.partial(load_split, source, split),
                      description=describe_split(source, split), text_version=source.text_version,
                      content=lambda: {"name": f"{base}:{split}", "text_version": source.text_version,
                                       "origin": source.origin(), **_units_identity(source, split)})
    path = Path(name).expanduser()
    if path.is_file():
        return Corpus(name=str(path.resolve()), load=functools.partial(file_documents, path, text_field),
                      description=f"local file {path}", content=functools.partial(file_identity, path, text_field))
    known = [*(f"{s} (or {s}:train)" for s in SOURCES), *HUB_DATASETS]
    raise RankscaleError(
        f"unknown corpus {name!r}: it is neither a named corpus ({', '.join(known) or 'none'}) "
        f"nor an existing file. Expected {ACCEPTED}."
    )
