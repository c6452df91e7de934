"""Token windows: how documents are shuffled, tokenized and cut for evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankscale import RankscaleError


@dataclass(frozen=True)
class Sampling:
    """How ``token_windows`` draws windows from a corpus's documents once it has shuffled them.

    Parameters
    ----------
    documents : int or None
        Use only the first this many documents of the shuffled order; None: all of them.
    windows_per_document : int or None
        Windows cut from the start of each document; None: all of them, 1: only its first
        ``window_len`` tokens.
    special_tokens : bool
        Encode with the tokenizer's own special tokens, as ``tokenizer(text)`` does by default
        (a BOS token for Llama, Mistral and OPT; none for GPT-2, Pythia and Qwen2.5).

    Examples
    --------
    >>> Sampling() == Sampling(documents=None, windows_per_document=None, special_tokens=False)
    True
    """

    documents: int | None = None
    windows_per_document: int | None = None
    special_tokens: bool = False


# The papers' sampling, from paper A's code (shuffle with seed 42, first 1000 documents, each cut
# to its first 512 tokens by the model's own tokenizer); paper B's "first 1000 instances after
# shuffling with seed 42" is the same. The seed and window length are extraction settings whose
# defaults (42, 512) are the papers'.
PAPER_SAMPLING = Sampling(documents=1000, windows_per_document=1, special_tokens=True)


def token_windows(
    documents: Sequence[str],
    tokenizer,
    n_tokens: int | None,
    window_len: int = 512,
    seed: int = 42,
    corpus_name: str = "corpus",
    sampling: Sampling = Sampling(),
) -> list[np.ndarray]:
    """Cut documents into token windows.

    The documents are shuffled with ``seed`` exactly as ``datasets.Dataset.shuffle(seed=seed)``
    shuffles rows (a ``numpy.random.default_rng(seed)`` permutation), tokenized in that order,
    and cut into windows of at most ``window_len`` tokens; windows are kept until ``n_tokens``
    targets are covered (a window of L tokens predicts its last L - 1 tokens).

    Parameters
    ----------
    documents : sequence of str
        The corpus's documents.
    tokenizer : transformers tokenizer
        A Hugging Face tokenizer; special tokens are added only if ``sampling`` says so.
    n_tokens : int or None
        Number of targets wanted. Windows are taken in order and the last one is cut short so
        the total is exact. None: every window that ``sampling`` allows.
    window_len : int
        Longest window, in tokens (context plus targets).
    seed : int
        Seed of the shuffle.
    corpus_name : str
        Name used in error messages.
    sampling : Sampling
        Which documents and windows to use; the default uses them all.

    Returns
    -------
    list of numpy.ndarray
        int64 arrays, each of length 2 to ``window_len``; ``sum(len(w) - 1) == n_tokens`` when
        ``n_tokens`` is given.

    Raises
    ------
    RankscaleError
        When the documents hold fewer than ``n_tokens`` predictable tokens.
    """
    if n_tokens is not None and n_tokens < 1:
        raise RankscaleError(f"--tokens must be positive, got {n_tokens}")
    if window_len < 2:
        raise RankscaleError(f"window length must be at least 2 tokens, got {window_len}")
    order = np.random.default_rng(seed).permutation(len(documents))[:sampling.documents]
    windows: list[np.ndarray] = []
    covered = 0
    for i in order:
        ids = np.asarray(tokenizer(documents[i], add_special_tokens=sampling.special_tokens,
                                   verbose=False)["input_ids"], dtype=np.int64)
        starts = range(0, len(ids), window_len)[:sampling.windows_per_document]
        for start in starts:
            window = ids[start:start + window_len]
            if len(window) < 2:
                continue
            take = len(window) - 1 if n_tokens is None else min(len(window) - 1, n_tokens - covered)
            windows.append(window[:take + 1])
            covered += take
            if covered == n_tokens:
                return windows
    limits = "" if sampling == Sampling() else f" under its sampling ({sampling})"
    if n_tokens is None:
        if covered:
            return windows
        raise RankscaleError(f"corpus {corpus_name} has no document of two tokens or more{limits}")
    raise RankscaleError(
        f"corpus {corpus_name} has only {covered} predictable tokens with windows of {window_len} "
        f"tokens{limits}, fewer than the {n_tokens} asked for. Ask for at most {covered} tokens, or "
        "use a larger corpus."
    )
