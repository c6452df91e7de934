"""The count baselines (``rankscale.analysis.baselines``): cross-fitted add-alpha unigram and bigram cross-entropy,
checked against a count done token by token with dictionaries."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from rankscale.analysis.baselines import ALPHAS, count_baselines


def by_hand(target, window, document, vocab, alpha, bigram):
    """The cross-fitted CE of one smoothing, counted with dictionaries: documents alternate between the halves in the
    order of their ids, each half scored by counts of the other."""
    order = {d: i for i, d in enumerate(sorted(set(document)))}
    half = [order[d] % 2 for d in document]
    total = 0.0
    for h in (0, 1):
        fit = [i for i in range(len(target)) if half[i] != h]
        uni = Counter(target[i] for i in fit)
        pairs = Counter((target[i - 1], target[i]) for i in fit if i > 0 and window[i] == window[i - 1])
        context = Counter(target[i - 1] for i in fit if i > 0 and window[i] == window[i - 1])
        for i in range(len(target)):
            if half[i] != h:
                continue
            if bigram and i > 0 and window[i] == window[i - 1]:
                p = (pairs[target[i - 1], target[i]] + alpha) / (context[target[i - 1]] + alpha * vocab)
            else:
                p = (uni[target[i]] + alpha) / (len(fit) + alpha * vocab)
            total -= np.log(p)
    return total / len(target)


def test_count_baselines_match_a_count_by_hand_at_the_best_smoothing():
    rng = np.random.default_rng(3)
    vocab = 12
    target = rng.integers(0, vocab, 300)
    target[1::2] = (target[::2] + 1) % vocab  # every odd target follows from the one before: a bigram learns it
    window = np.repeat(np.arange(15), 20)
    document = np.array([7, 2, 2, 9, 9, 9, 4, 1, 1, 1, 1, 3, 3, 8, 8])[window]  # documents of one to four windows
    found = count_baselines(target, window, document, vocab)
    for name in ("unigram", "bigram"):
        expected = {a: by_hand(list(target), list(window), list(document), vocab, a, name == "bigram") for a in ALPHAS}
        alpha = min(expected, key=expected.get)
        assert (found[name].alpha, found[name].ce) == (alpha, pytest.approx(expected[alpha]))
    assert found["bigram"].ce < found["unigram"].ce


def test_count_baselines_refuse_what_they_cannot_cross_fit():
    with pytest.raises(ValueError, match="two documents"):
        count_baselines([0, 1, 2], [0, 1, 2], [5, 5, 5], 3)
    with pytest.raises(ValueError, match="vocabulary|token ids"):
        count_baselines([0, 5], [0, 1], [0, 1], 3)
    with pytest.raises(ValueError, match="one length"):
        count_baselines([0, 1], [0, 1], [0], 3)


def test_a_document_never_scores_itself():
    """Documents that each repeat a phrase of their own: counted on windows of the same documents a bigram would know
    every phrase; counted on other documents it knows none, and does no better than a uniform guess."""
    rng = np.random.default_rng(0)
    phrases = rng.permutation(40).reshape(10, 4)  # ten documents, each its own four tokens
    target = np.concatenate([np.tile(p, 20) for p in phrases])
    window = np.repeat(np.arange(50), 16)  # five windows a document
    document = np.repeat(np.arange(10), 80)
    found = count_baselines(target, window, document, 40)
    assert found["bigram"].ce > 0.95 * np.log(40)
    same_documents = count_baselines(target, window, window, 40)  # each window its own document: the old halves
    assert same_documents["bigram"].ce < 0.5  # all but the first token of each window known
