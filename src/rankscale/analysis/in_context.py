"""Targets in context: a model's records read beside the text they score, through the document and
character span each record keeps (``rankscale.records.store.SPAN_FIELDS``).

Example: the ten tokens a model found least likely on a corpus, each with the text around it::

    from rankscale.analysis.in_context import worst_tokens
    from rankscale.corpora import get_corpus
    from rankscale.records.store import load_records

    records = load_records("results/run1")        # extracted on notes.jsonl
    worst_tokens(records, get_corpus("notes.jsonl").load(), n=10)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankscale import RankscaleError


def _one_line(text: str) -> str:
    """``text`` on one line of a table: newlines, carriage returns and tabs written as escapes."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def worst_tokens(records, documents: Sequence[str], n: int = 10, width: int = 30):
    """The ``n`` targets with the lowest log-probability, each shown in its document's text.

    Parameters
    ----------
    records : rankscale.records.store.Records
        Records with spans (format 4 or later); ``n`` of them are read.
    documents : sequence of str
        The corpus's documents in its own order, as its ``load`` gives them
        (``rankscale.corpora.get_corpus(name).load()``): the records' ``document`` indexes them.
    n : int
        Targets shown, at least 1 (fewer where the records hold fewer).
    width : int
        Characters of context shown on each side of a target, at least 0.

    Returns
    -------
    pandas.DataFrame
        One row per target, the least likely first (ties in record order): ``nll`` (-logp, in
        nats), ``rank`` (paper A's 1-based rank, ``ge + 1``), ``left``, ``token`` (the target's
        span of the text), ``right`` (up to ``width`` characters either side, newlines and tabs
        written as ``\\n`` and ``\\t``), ``document``, ``char_start``, ``char_end`` and
        ``record`` (the target's index in the records).

    Raises
    ------
    RankscaleError
        For records without spans (format 3), or documents that are not the records' corpus.

    Examples
    --------
    Two documents, four targets:

    >>> from rankscale.records.store import TOP_K, Records
    >>> docs = ["the cat sat", "a dog\\nbarked"]
    >>> records = Records(logp=np.array([-0.1, -5.0, -0.3, -2.0], np.float32), gt=np.zeros(4, np.int32),
    ...                   ge=np.array([0, 40, 1, 7], np.int32), target=np.zeros(4, np.int32),
    ...                   window=np.array([0, 0, 1, 1], np.int32), top_logp=np.zeros((4, TOP_K), np.float32),
    ...                   manifest=None, document=np.array([0, 0, 1, 1]), char_start=np.array([3, 7, 1, 5]),
    ...                   char_end=np.array([7, 11, 5, 12]), n_bytes=np.array([4, 4, 4, 7], np.int32),
    ...                   n_words=np.ones(4, np.int32))
    >>> table = worst_tokens(records, docs, n=2, width=4)
    >>> table[["nll", "rank", "left", "token", "right"]]  # doctest: +NORMALIZE_WHITESPACE
       nll  rank  left     token right
    0  5.0    41   cat       sat
    1  2.0     8   dog  \\nbarked
    """
    import pandas as pd

    if records.document is None:
        raise RankscaleError("these records keep no document or character span of their targets (records of "
                             "format 3); extract them again with --force to trace them to the text")
    if n < 1 or width < 0:
        raise RankscaleError(f"show at least one token with a width of at least 0 characters, not n={n}, "
                             f"width={width}")
    if len(records) and records.document.max() >= len(documents):
        raise RankscaleError(f"the records name document {records.document.max()} of their corpus, which has "
                             f"{len(documents)} documents; pass the documents of the corpus they were extracted on")
    chosen = np.argsort(records.logp, kind="stable")[:n]
    rows = []
    for i in chosen:
        text = documents[records.document[i]]
        start, end = int(records.char_start[i]), int(records.char_end[i])
        if end > len(text):
            raise RankscaleError(f"target {i} spans characters {start} to {end} of document {records.document[i]}, "
                                 f"which has {len(text)}; pass the documents of the corpus the records were "
                                 "extracted on")
        rows.append({"nll": -float(records.logp[i]), "rank": int(records.ge[i]) + 1,
                     "left": _one_line(text[max(0, start - width):start]), "token": _one_line(text[start:end]),
                     "right": _one_line(text[end:end + width]), "document": int(records.document[i]),
                     "char_start": start, "char_end": end, "record": int(i)})
    return pd.DataFrame(rows, columns=["nll", "rank", "left", "token", "right", "document", "char_start", "char_end",
                                       "record"])
