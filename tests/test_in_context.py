"""The worst tokens of a model in context, on a small result built by hand from real windows."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rankscale import RankscaleError
from rankscale.analysis.in_context import worst_tokens
from rankscale.corpora import target_spans, token_windows
from rankscale.records.store import SPAN_FIELDS, TOP_K, Records

DOCUMENTS = ["def add(a, b):\n    return a + b\n", "The cat sat on the mat.", "x = [i * i for i in range(10)]"]


@pytest.fixture(scope="module")
def result(tokenizer):
    """Records of the three documents' every token, with log-probabilities drawn at random."""
    windows = token_windows(DOCUMENTS, tokenizer, None, window_len=8)
    spans = target_spans(windows)
    n = len(spans["document"])
    logp = -np.random.default_rng(0).exponential(2.0, n).astype(np.float32)
    logp[5] = logp[9] = logp.min() - 1  # a tie for the worst, kept in record order
    ranks = np.random.default_rng(1).integers(0, 300, n).astype(np.int32)
    targets = np.concatenate([w.targets for w in windows]).astype(np.int32)
    records = Records(logp=logp, gt=ranks, ge=ranks + 1, target=targets,
                      window=np.repeat(np.arange(len(windows), dtype=np.int32), [len(w.targets) for w in windows]),
                      top_logp=np.zeros((n, TOP_K), np.float32), manifest=None, **spans)
    return records


def test_the_worst_tokens_in_their_text(result, tokenizer):
    table = worst_tokens(result, DOCUMENTS, n=10, width=12)
    assert len(table) == 10 and table["record"].tolist()[:2] == [5, 9]
    expected = sorted(range(len(result)), key=lambda i: (result.logp[i], i))[:10]  # brute force
    assert table["record"].tolist() == expected
    np.testing.assert_allclose(table["nll"], -result.logp[expected])
    assert table["rank"].tolist() == (result.ge[expected] + 1).tolist()
    for row in table.itertuples():
        text = DOCUMENTS[row.document]
        assert row.token == text[row.char_start:row.char_end].replace("\n", "\\n")
        assert row.token == tokenizer.decode([result.target[row.record]]).replace("\n", "\\n")
        assert row.left == text[max(0, row.char_start - 12):row.char_start].replace("\n", "\\n")
        assert row.right == text[row.char_end:row.char_end + 12].replace("\n", "\\n")
    assert len(worst_tokens(result, DOCUMENTS, n=10_000)) == len(result)


def test_records_without_spans_or_of_another_corpus_are_refused(result):
    older = dataclasses.replace(result, **{name: None for name in SPAN_FIELDS})
    with pytest.raises(RankscaleError, match="format 3.*--force"):
        worst_tokens(older, DOCUMENTS)
    with pytest.raises(RankscaleError, match="name document 2 of their corpus, which has 2 documents"):
        worst_tokens(result, DOCUMENTS[:2])
    with pytest.raises(RankscaleError, match="pass the documents of the corpus"):
        worst_tokens(result, [d[:3] for d in DOCUMENTS], n=len(result))
    with pytest.raises(RankscaleError, match="at least one token"):
        worst_tokens(result, DOCUMENTS, n=0)
