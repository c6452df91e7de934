"""The count baselines (``rankscale.analysis.baselines``): cross-fitted add-alpha unigram and bigram cross-entropy,
checked against a count done token by token with dictionaries."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from rankscale.analysis.baselines import ALPHAS, count_baselines


def by_hand(target, window, vocab, alpha, bigram):
    """The cross-fitted CE of one smoothing, counted with dictionaries: windows alternate between the halves by their
    order of appearance, each half scored by counts of the other."""
    order = {w: i for i, w in enumerate(dict.fromkeys(window))}
    half = [order[w] % 2 for w in window]
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
    found = count_baselines(target, window, vocab)
    for name in ("unigram", "bigram"):
        expected = {a: by_hand(list(target), list(window), vocab, a, name == "bigram") for a in ALPHAS}
        alpha = min(expected, key=expected.get)
        assert (found[name].alpha, found[name].ce) == (alpha, pytest.approx(expected[alpha]))
    assert found["bigram"].ce < found["unigram"].ce


def test_count_baselines_refuse_what_they_cannot_cross_fit():
    with pytest.raises(ValueError, match="two windows"):
        count_baselines([0, 1, 2], [0, 0, 0], 3)
    with pytest.raises(ValueError, match="vocabulary|token ids"):
        count_baselines([0, 5], [0, 1], 3)
    with pytest.raises(ValueError, match="one length"):
        count_baselines([0, 1], [0], 3)
