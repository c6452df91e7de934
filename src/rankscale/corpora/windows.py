"""Token windows: how documents are shuffled, tokenized and cut for evaluation, and where each
target token lies in its document's text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rankscale import RankscaleError


PREFIXED = "prefixed"  # Sampling.first_token: lm-evaluation-harness's rolling windows, every token scored
PAPERS = "papers"  # Sampling.first_token: the model's own encoding, whose first token is context only


@dataclass(frozen=True)
class Sampling:
    """How ``token_windows`` draws windows from a corpus's documents once it has shuffled them.

    Parameters
    ----------
    documents : int or None
        Use only the first this many documents of the shuffled order; None: all of them.
    windows_per_document : int or None
        Windows cut from the start of each document; None: all of them, 1: only its first.
    first_token : {"prefixed", "papers"}
        How a document starts (``document_windows``): ``"prefixed"`` (every corpus but the
        papers'), the tokenizer's BOS token (its EOS where it has no BOS) is put before the
        document, so every token of it is scored, as in lm-evaluation-harness's rolling
        log-likelihood; ``"papers"``, the document encoded with the tokenizer's own special tokens
        as ``tokenizer(text)`` encodes it (a BOS token for Llama, Mistral and OPT; none for GPT-2,
        Pythia and Qwen2.5), whose first token is context only, as the papers' code had it.

    Examples
    --------
    >>> Sampling() == Sampling(documents=None, windows_per_document=None, first_token="prefixed")
    True
    """

    documents: int | None = None
    windows_per_document: int | None = None
    first_token: str = PREFIXED

    def __post_init__(self):
        if self.first_token not in (PREFIXED, PAPERS):
            raise ValueError(f"first_token is {PREFIXED!r} or {PAPERS!r}, not {self.first_token!r}")


# The papers' sampling, from paper A's code (shuffle with seed 42, first 1000 documents, each cut
# to its first 512 tokens by the model's own tokenizer, the loss taken over the tokens after the
# first); paper B's "first 1000 instances after shuffling with seed 42" is the same. The seed and
# window length are extraction settings whose defaults (42, 512) are the papers'.
PAPER_SAMPLING = Sampling(documents=1000, windows_per_document=1, first_token=PAPERS)


@dataclass(frozen=True, eq=False)
class Window:
    """Tokens of one document that the model reads at once: it is scored on the last
    ``len(ids) - context`` of them, the window's targets.

    Parameters
    ----------
    ids : ndarray of int64, shape (L,)
        Token ids, as the model reads them.
    context : int
        Leading tokens that are context only, at least 1 (the first token has nothing to be
        predicted from); the targets are ``ids[context:]``.
    document : int
        Index of the document in the corpus's order (before shuffling).
    char_start, char_end : ndarray of int64, shape (L - context,)
        Each target's span of the document's text, end exclusive (``token_spans``).
    n_bytes, n_words : ndarray of int32, shape (L - context,)
        UTF-8 bytes of each target's span, and whitespace-separated words whose first character
        lies in it (``span_sizes``).

    Examples
    --------
    >>> w = Window(np.array([5, 6, 7]), 1, 0, np.array([0, 2]), np.array([2, 3]), np.array([2, 1], np.int32),
    ...            np.array([1, 0], np.int32))
    >>> w.targets.tolist(), w.first(1).ids.tolist(), w.first(1).char_end.tolist()
    ([6, 7], [5, 6], [2])
    """

    ids: np.ndarray
    context: int
    document: int
    char_start: np.ndarray
    char_end: np.ndarray
    n_bytes: np.ndarray
    n_words: np.ndarray

    @property
    def targets(self) -> np.ndarray:
        """The scored tokens, ``ids[context:]``."""
        return self.ids[self.context:]

    def first(self, n: int) -> Window:
        """This window cut after its first ``n`` targets (``n`` >= 1)."""
        return Window(self.ids[:self.context + n], self.context, self.document, self.char_start[:n],
                      self.char_end[:n], self.n_bytes[:n], self.n_words[:n])


def target_spans(windows: Sequence[Window]) -> dict[str, np.ndarray]:
    """Where the targets of ``windows`` lie in their documents, one entry per target in window
    order: the per-target arrays that records keep beside the model's numbers
    (``rankscale.records.store.SPAN_FIELDS``).

    Parameters
    ----------
    windows : sequence of Window

    Returns
    -------
    dict of str to ndarray
        ``document``, ``char_start``, ``char_end`` (int64) and ``n_bytes``, ``n_words`` (int32),
        each of length sum(len(w.targets)).

    Examples
    --------
    >>> w = Window(np.array([5, 6, 7]), 1, 4, np.array([0, 2]), np.array([2, 3]), np.array([2, 1], np.int32),
    ...            np.array([1, 0], np.int32))
    >>> {k: v.tolist() for k, v in target_spans([w, w.first(1)]).items()}  # doctest: +NORMALIZE_WHITESPACE
    {'document': [4, 4, 4], 'char_start': [0, 2, 0], 'char_end': [2, 3, 2], 'n_bytes': [2, 1, 2],
     'n_words': [1, 0, 1]}
    """
    counts = [len(w.targets) for w in windows]
    return {
        "document": np.repeat(np.array([w.document for w in windows], np.int64), counts),
        **{name: np.concatenate([np.zeros(0, dtype)] + [getattr(w, name) for w in windows]).astype(dtype)
           for name, dtype in (("char_start", np.int64), ("char_end", np.int64), ("n_bytes", np.int32),
                               ("n_words", np.int32))},
    }


# The codes of every character str.split() splits on (str.isspace); none lies above U+3000.
_WHITESPACE = np.array([c for c in range(0x3001) if chr(c).isspace()], np.uint32)


def span_sizes(text: str, char_start: np.ndarray, char_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """UTF-8 bytes of each span of ``text``, and the whitespace-separated words (as ``str.split``
    finds them) whose first character lies in it: the units of bits per byte and of byte- and
    word-level perplexity, which add up over spans that tile the text.

    Parameters
    ----------
    text : str
    char_start, char_end : ndarray of int, shape (n,)
        Character spans of ``text``, end exclusive.

    Returns
    -------
    n_bytes, n_words : ndarray of int32, shape (n,)

    Examples
    --------
    >>> n_bytes, n_words = span_sizes("né le  x", np.array([0, 2, 3, 5]), np.array([2, 3, 5, 8]))
    >>> n_bytes.tolist(), n_words.tolist()
    ([3, 1, 2, 3], [1, 0, 1, 1])
    """
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    width = 1 + (codes >= 0x80) + (codes >= 0x800) + (codes >= 0x10000)
    byte_at = np.concatenate([[0], np.cumsum(width)])
    space = np.isin(codes, _WHITESPACE)
    word_first = ~space & np.concatenate([[True], space[:-1]])
    words_before = np.concatenate([[0], np.cumsum(word_first)])
    return ((byte_at[char_end] - byte_at[char_start]).astype(np.int32),
            (words_before[char_end] - words_before[char_start]).astype(np.int32))


# Tokens decoded together in ``_decoded_ends``: enough for a character's bytes or a word piece's
# leading space to be decoded beside the tokens before it, as streaming detokenizers do.
_LOOKBACK = 6


def token_spans(text: str, tokenizer, special_tokens: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Encode ``text`` and give each token a span of it, the spans tiling the text.

    A fast tokenizer (``tokenizer.is_fast``) maps each token to characters
    (``return_offsets_mapping``); a token's span runs from the end of the previous token's
    characters to the end of its own, so the spans follow each other without gap or overlap:
    whitespace the tokenizer trims from its offsets goes to the token that follows it, a
    character split over several byte-level tokens to the first of them (the others get an
    empty span), and special tokens get empty spans; the last token reaching the end of the
    characters takes what follows them. A slow tokenizer has no offset mapping: each token's
    characters are then what decoding it beside the ``_LOOKBACK`` tokens before it adds, with
    special tokens adding none (the fallback; ``RankscaleError`` where those pieces do not make
    up the text, as for a tokenizer that normalizes it).

    Parameters
    ----------
    text : str
        One document.
    tokenizer : transformers tokenizer
    special_tokens : bool
        Whether the tokenizer adds its special tokens.

    Returns
    -------
    ids : ndarray of int64, shape (n,)
    char_start, char_end : ndarray of int64, shape (n,)
        ``text[char_start[i]:char_end[i]]`` is token i's part of the text; ``char_start[0] == 0``,
        ``char_start[i + 1] == char_end[i]`` and ``char_end[-1] == len(text)``.

    Raises
    ------
    RankscaleError
        For a slow tokenizer whose decoded tokens are not the text.
    """
    if getattr(tokenizer, "is_fast", False):
        encoded = tokenizer(text, add_special_tokens=special_tokens, return_offsets_mapping=True, verbose=False)
        ids = np.asarray(encoded["input_ids"], np.int64)
        ends = np.maximum.accumulate(np.asarray(encoded["offset_mapping"], np.int64).reshape(-1, 2)[:, 1])
        if len(ends):
            ends[np.argmax(ends == ends[-1]):] = len(text)
    else:
        ids = np.asarray(tokenizer(text, add_special_tokens=special_tokens, verbose=False)["input_ids"], np.int64)
        ends = _decoded_ends(text, ids, tokenizer)
    return ids, np.concatenate([[0], ends])[:-1].astype(np.int64), ends


def _decoded_ends(text: str, ids: np.ndarray, tokenizer) -> np.ndarray:
    """Where each token's characters end in ``text``, by decoding (``token_spans``'s fallback).

    The length a token adds to the decoding of the tokens before it is counted; a token ending
    inside a character adds a replacement character that the next one takes back, so the ends
    are made non-decreasing from the last backwards (the character goes to the first of its
    tokens, as with offsets).
    """
    special = set(tokenizer.all_special_ids)
    plain = [int(i) for i in ids]

    def decoded(part: list[int]) -> str:
        return tokenizer.decode([i for i in part if i not in special], skip_special_tokens=True,
                                clean_up_tokenization_spaces=False)

    ends = np.cumsum([len(decoded(plain[max(0, k - _LOOKBACK):k + 1])) - len(decoded(plain[max(0, k - _LOOKBACK):k]))
                      for k in range(len(plain))], dtype=np.int64)
    if decoded(plain) != text or len(ends) and ends[-1] != len(text):
        raise RankscaleError(
            f"{type(tokenizer).__name__} has no offset mapping (it is not a fast tokenizer) and its decoded tokens "
            "are not the document's text, so the targets cannot be placed in it; load the model's fast tokenizer "
            "(tokenizers installed, or --model-args tokenizer=... naming one)")
    return np.minimum.accumulate(ends[::-1])[::-1].copy()


def prefix_token(tokenizer) -> int | None:
    """The token put before every document under ``Sampling.first_token == "prefixed"``: the
    tokenizer's BOS token, or its EOS token where it has no BOS (lm-evaluation-harness's
    ``prefix_token_id``); None where it has neither.

    Examples
    --------
    >>> class Tokenizer:
    ...     bos_token_id, eos_token_id = None, 2
    >>> prefix_token(Tokenizer())
    2
    """
    return tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id


def document_windows(text: str, document: int, tokenizer, window_len: int, sampling: Sampling) -> list[Window]:
    """The windows of one document: which of its tokens are scored, and on what context. The one
    rule of every corpus, hub datasets, local files and offline corpora alike.

    The rule is lm-evaluation-harness's rolling log-likelihood (``loglikelihood_rolling``: its
    ``get_rolling_token_windows`` with ``context_len=1``, each window made disjoint) with
    ``max_length = window_len - 1`` positions scored per window:

    - the document is encoded without special tokens and the tokenizer's BOS token is put
      before it (its EOS where it has no BOS, ``prefix_token``), so that its first token is
      scored, conditioned on that prefix alone;
    - the first window is the prefix and the document's first ``window_len - 1`` tokens, all of
      those scored;
    - each next window scores the next ``window_len - 1`` tokens, with the one token before them
      as its only context beyond them;
    - the last window scores what is left, with as many tokens before it as make up a whole
      window of ``window_len`` (fewer where the document is shorter) as context.

    Every token of the document is thus scored once, and with the context the harness gives it:
    a document's log-likelihood is the harness's, and the sums of its records' ``n_bytes`` and
    ``n_words`` are its UTF-8 bytes and its words as ``str.split`` finds them (``token_spans``),
    so bits per byte and byte perplexity are the harness's too (its wikitext task counts the
    words of ``re.split(r"\\s+", text)``, one more for whitespace at either end).

    One declared exception, ``sampling.first_token == "papers"``, for the papers' six corpora
    (``PAPER_SAMPLING``): the document is encoded as ``tokenizer(text)`` encodes it, with the
    model's own special tokens, and that encoding's first token takes the prefix's place, so it
    is context only: a BOS token for models whose tokenizer adds one (Llama, Mistral, OPT), the
    document's first token for the others (GPT-2, Pythia, Qwen2.5), whose first token is then
    never scored. That is what the papers' code evaluated (the first 512 tokens of each
    document's own encoding, the loss over all but the first), and the papers' numbers are what
    the book replays. The same holds for a tokenizer with neither BOS nor EOS token under
    ``"prefixed"``: the document's first token is context only.

    Parameters
    ----------
    text : str
        The document.
    document : int
        Its index in the corpus's order.
    tokenizer : transformers tokenizer
    window_len : int
        Longest window, in tokens (context plus targets), at least 2.
    sampling : Sampling
        Its ``first_token`` and ``windows_per_document``.

    Returns
    -------
    list of Window
        In document order; none for a document with nothing to score.

    Examples
    --------
    Ten tokens in windows of four (three targets each, ``*`` the prefix):

    >>> def encode(text, add_special_tokens, return_offsets_mapping, verbose):
    ...     return {"input_ids": [int(c) for c in text], "offset_mapping": [(i, i + 1) for i in range(len(text))]}
    >>> tokenizer = type("Digits", (), {"bos_token_id": 99, "eos_token_id": 98, "is_fast": True,
    ...                                 "__call__": lambda self, *a, **k: encode(*a, **k)})()
    >>> for w in document_windows("0123456789", 0, tokenizer, 4, Sampling()):
    ...     print(w.ids.tolist(), w.context, w.targets.tolist())
    [99, 0, 1, 2] 1 [0, 1, 2]
    [2, 3, 4, 5] 1 [3, 4, 5]
    [5, 6, 7, 8] 1 [6, 7, 8]
    [6, 7, 8, 9] 3 [9]
    """
    papers = sampling.first_token == PAPERS
    ids, char_start, char_end = token_spans(text, tokenizer, special_tokens=papers)
    prefix = None if papers else prefix_token(tokenizer)
    if prefix is not None:  # the prefix is read, never scored: its span is never kept
        ids, char_start, char_end = (np.concatenate([[value], part]) for value, part in
                                     ((prefix, ids), (0, char_start), (0, char_end)))
    n_bytes, n_words = span_sizes(text, char_start, char_end)
    # positions 1 .. len(ids) - 1 of ``ids`` are the document's targets; ``done`` of them are scored
    windows, done, n_targets = [], 0, len(ids) - 1
    while done < n_targets and (sampling.windows_per_document is None or len(windows) < sampling.windows_per_document):
        scored = min(n_targets - done, window_len - 1)
        stop = done + scored + 1
        start = max(0, stop - window_len)
        targets = slice(done + 1, stop)
        windows.append(Window(ids[start:stop], stop - start - scored, document, char_start[targets],
                              char_end[targets], n_bytes[targets], n_words[targets]))
        done += scored
    return windows


def token_windows(
    documents: Sequence[str],
    tokenizer,
    n_tokens: int | None,
    window_len: int = 512,
    seed: int = 42,
    corpus_name: str = "corpus",
    sampling: Sampling = Sampling(),
) -> list[Window]:
    """Cut documents into token windows.

    The documents are shuffled with ``seed`` exactly as ``datasets.Dataset.shuffle(seed=seed)``
    shuffles rows (a ``numpy.random.default_rng(seed)`` permutation), tokenized in that order,
    and cut into windows of at most ``window_len`` tokens by the one rule of every corpus
    (``document_windows``: lm-evaluation-harness's rolling windows, the document's first token
    scored after a BOS or EOS prefix; the papers' corpora keep the papers' encoding); windows are
    kept until ``n_tokens`` targets are covered.

    Parameters
    ----------
    documents : sequence of str
        The corpus's documents.
    tokenizer : transformers tokenizer
        A Hugging Face tokenizer.
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
    list of Window
        Each of 2 to ``window_len`` tokens; ``sum(len(w.targets)) == n_tokens`` when ``n_tokens``
        is given.

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
    windows: list[Window] = []
    covered = 0
    for i in order:
        for window in document_windows(documents[i], int(i), tokenizer, window_len, sampling):
            take = len(window.targets) if n_tokens is None else min(len(window.targets), n_tokens - covered)
            windows.append(window.first(take))
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
