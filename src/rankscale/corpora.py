"""Corpora: named text collections and local files, turned into deterministic token windows.

A corpus is a list of documents (strings). ``token_windows`` shuffles the documents with a fixed
seed, tokenizes them in that order with the model's own tokenizer, cuts each document into
windows of at most ``window_len`` tokens, and keeps windows until exactly ``n_tokens`` targets
are covered (a window of L tokens predicts its last L - 1 tokens).

Named corpora are entries of ``CORPORA``; a local ``.txt`` file (one document) or ``.jsonl`` file
(one document per line, text in a field) can be used anywhere a name is expected.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rankscale import RankscaleError


@dataclass(frozen=True)
class Corpus:
    """A named source of documents. ``load`` returns the documents in a fixed order."""

    name: str
    load: Callable[[], list[str]]
    description: str = ""


# Named corpora register here (offline ones from installed packages, hub ones through `datasets`).
CORPORA: dict[str, Corpus] = {}


def read_text_file(path: Path, text_field: str = "text") -> list[str]:
    """Documents of a local file: a ``.jsonl`` file gives one per line (``text_field`` of each
    JSON object); any other file is read as one UTF-8 document."""
    if path.suffix == ".jsonl":
        docs = []
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as err:
                    raise RankscaleError(f"{path}:{lineno} is not valid JSON ({err.msg})") from err
                if not isinstance(record, dict) or text_field not in record:
                    raise RankscaleError(
                        f"{path}:{lineno} has no {text_field!r} field; name the field holding the "
                        "text with --text-field"
                    )
                docs.append(str(record[text_field]))
        return docs
    return [path.read_text(encoding="utf-8")]


def get_corpus(name: str, text_field: str = "text") -> Corpus:
    """Look up a named corpus, or wrap a local ``.txt``/``.jsonl`` file as one."""
    if name in CORPORA:
        return CORPORA[name]
    path = Path(name).expanduser()
    if path.is_file():
        return Corpus(name=str(path.resolve()), load=lambda: read_text_file(path, text_field),
                      description=f"local file {path}")
    known = ", ".join(sorted(CORPORA)) or "none registered yet"
    raise RankscaleError(
        f"unknown corpus {name!r}: it is neither a named corpus ({known}) nor an existing file. "
        "Give a corpus name, or the path of a .txt file (one document) or .jsonl file (one "
        "document per line, in a 'text' field)."
    )


def token_windows(
    documents: list[str],
    tokenizer,
    n_tokens: int,
    window_len: int = 512,
    seed: int = 42,
    corpus_name: str = "corpus",
) -> list[np.ndarray]:
    """Cut documents into token windows covering exactly ``n_tokens`` prediction targets.

    Parameters
    ----------
    documents : the corpus's documents; their order is shuffled with ``seed``.
    tokenizer : a Hugging Face tokenizer; no special tokens are added.
    n_tokens : number of targets wanted. Windows are taken in order and the last one is cut
        short so the total is exact.
    window_len : longest window, in tokens (context plus targets).

    Returns
    -------
    list of int64 arrays, each of length 2..window_len; sum(len(w) - 1) == n_tokens.
    """
    if n_tokens < 1:
        raise RankscaleError(f"--tokens must be positive, got {n_tokens}")
    if window_len < 2:
        raise RankscaleError(f"window length must be at least 2 tokens, got {window_len}")
    order = np.random.default_rng(seed).permutation(len(documents))
    windows: list[np.ndarray] = []
    covered = 0
    for i in order:
        ids = np.asarray(tokenizer(documents[i], add_special_tokens=False, verbose=False)["input_ids"],
                         dtype=np.int64)
        for start in range(0, len(ids), window_len):
            window = ids[start:start + window_len]
            if len(window) < 2:
                continue
            take = min(len(window) - 1, n_tokens - covered)
            windows.append(window[:take + 1])
            covered += take
            if covered == n_tokens:
                return windows
    raise RankscaleError(
        f"corpus {corpus_name} has only {covered} predictable tokens with windows of {window_len} "
        f"tokens, fewer than the {n_tokens} asked for. Ask for at most {covered} tokens, or use a "
        "larger corpus."
    )
