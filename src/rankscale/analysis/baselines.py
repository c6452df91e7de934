"""What a model with no network scores on a held-out text: add-alpha unigram and bigram models of the text's own
tokens, counted on one half of its documents and scored on the other (and the other way round), so that a family's
cross-entropy can be read against the floor of what counting tokens alone reaches on the same targets. The halves
are of documents, not of windows: the windows of one document share its names and phrases, so counts from one
window of a document score its other windows better than any unseen text, and the baseline would look stronger
than counting is (on pydocs, a bigram counted on the even windows scored 5.03 nats on the odd ones of the same
documents, and 6.20 on other documents).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# the add-alpha smoothings tried; each baseline reports the best of them on the held-out half, which makes the
# baseline as strong as counting tokens can be (a model that barely beats it has learnt little beyond counts)
ALPHAS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class Baseline:
    """A count model's cross-entropy on a text, at the smoothing that scored best.

    Attributes
    ----------
    ce : float
        Mean -log p of the targets (nats), every target scored by a model counted on the other half of the
        documents.
    alpha : float
        The add-alpha smoothing of ``ALPHAS`` that gave it.
    """

    ce: float
    alpha: float


def _halves(document: np.ndarray) -> np.ndarray:
    """(n,) bool: the targets of the even-numbered documents (in the order of the ids)."""
    _, number = np.unique(document, return_inverse=True)
    return number % 2 == 0


def _unigram_logp(fit_targets: np.ndarray, score_targets: np.ndarray, vocab_size: int, alpha: float) -> np.ndarray:
    counts = np.bincount(fit_targets, minlength=vocab_size).astype(np.float64)
    return np.log((counts[score_targets] + alpha) / (counts.sum() + alpha * vocab_size))


def _pairs(target: np.ndarray, window: np.ndarray) -> np.ndarray:
    """(n,) bool: the targets whose previous target lies in the same window (a bigram's context is known)."""
    follows = np.zeros(len(target), bool)
    follows[1:] = window[1:] == window[:-1]
    return follows


def _bigram_logp(target: np.ndarray, window: np.ndarray, fit: np.ndarray, score: np.ndarray, vocab_size: int,
                 alpha: float) -> np.ndarray:
    """log p of the targets ``score`` under an add-alpha bigram fitted on the targets ``fit``; a target with no
    previous target in its window (a window's first) gets the add-alpha unigram's."""
    follows = _pairs(target, window)
    prev = np.concatenate([[0], target[:-1]])
    pair = prev.astype(np.int64) * vocab_size + target
    fitted = fit & follows
    keys, counts = np.unique(pair[fitted], return_counts=True)
    context = np.bincount(prev[fitted], minlength=vocab_size).astype(np.float64)
    out = _unigram_logp(target[fit], target[score], vocab_size, alpha)
    scored = follows[score]
    where = np.searchsorted(keys, pair[score][scored])
    found = (where < len(keys)) & (keys[np.minimum(where, len(keys) - 1)] == pair[score][scored])
    n_pair = np.where(found, counts[np.minimum(where, len(keys) - 1)], 0)
    out[scored] = np.log((n_pair + alpha) / (context[prev[score][scored]] + alpha * vocab_size))
    return out


def count_baselines(target, window, document, vocab_size: int) -> dict[str, Baseline]:
    """The add-alpha unigram and bigram cross-entropy of a text's targets, cross-fitted by halves of its documents.

    Each half of the documents (even- and odd-numbered) is scored by a model counted on the other half, so no
    target is scored by counts of its own document; each model's smoothing is the best of ``ALPHAS`` on the scored
    halves.

    Parameters
    ----------
    target : array_like of int, shape (n,)
        The token id of each target, in text order (``Records.target``).
    window : array_like of int, shape (n,)
        The window each target belongs to (``Records.window``); a bigram's context never crosses a window.
    document : array_like of int, shape (n,)
        The document each target belongs to (``Records.document``): what the halves are made of.
    vocab_size : int
        The tokenizer's vocabulary.

    Returns
    -------
    dict
        ``{"unigram": Baseline, "bigram": Baseline}``.

    Raises
    ------
    ValueError
        If the arrays differ in length, a token lies outside the vocabulary, or the text has fewer than two
        documents.

    Examples
    --------
    A text that repeats "0 1 2 3" in every window (ten documents of five windows): the unigram sees four equally
    frequent tokens (log 4), the bigram knows every next token but each window's first.

    >>> target, window = np.tile([0, 1, 2, 3], 50), np.repeat(np.arange(50), 4)
    >>> found = count_baselines(target, window, window // 5, vocab_size=4)
    >>> round(found["unigram"].ce, 3), round(float(np.log(4)), 3), found["bigram"].ce < 0.5
    (1.386, 1.386, True)
    """
    target, window, document = np.asarray(target, np.int64), np.asarray(window), np.asarray(document)
    if not target.shape == window.shape == document.shape or target.ndim != 1:
        raise ValueError(f"target, window and document must be 1-d of one length, got {target.shape}, "
                         f"{window.shape} and {document.shape}")
    if len(target) and (target.min() < 0 or target.max() >= vocab_size):
        raise ValueError(f"token ids must lie in [0, {vocab_size}), got {target.min()}..{target.max()}")
    even = _halves(document)
    if even.all() or not even.any():
        raise ValueError("cross-fitting needs at least two documents")
    best = {}
    for name in ("unigram", "bigram"):
        scored = []
        for alpha in ALPHAS:
            logp = np.empty(len(target))
            for score in (even, ~even):
                logp[score] = (_unigram_logp(target[~score], target[score], vocab_size, alpha) if name == "unigram"
                               else _bigram_logp(target, window, ~score, score, vocab_size, alpha))
            scored.append(Baseline(float(-logp.mean()), alpha))
        best[name] = min(scored, key=lambda b: b.ce)
    return best
