"""Which tokens extraction scores, and on what context: one rule for every corpus, checked against
lm-evaluation-harness's rolling log-likelihood arithmetic computed independently here."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import corpus_documents
from tokenizers import Tokenizer
from transformers import PreTrainedTokenizerFast

from rankscale import RankscaleError
from rankscale.corpora.windows import PAPER_SAMPLING, PAPERS, Sampling, document_windows, prefix_token, token_windows


def harness_contexts(tokens: list[int], prefix: int, max_length: int) -> list[tuple[tuple[int, ...], int]]:
    """Each token of a document with the tokens a model reads before it under lm-evaluation-harness's
    ``loglikelihood_rolling``, re-derived from its arithmetic (not its code):

    - ``get_rolling_token_windows(tokens, prefix, max_length, context_len=1)``: a first request of the prefix and
      the first ``max_length - 1`` tokens predicting the first ``max_length``; then requests predicting the next
      ``max_length`` tokens each (the last one what is left), each reading the ``max_length`` tokens that end just
      before its last prediction;
    - ``make_disjoint_window``: a request's context is what of its input comes before its predictions;
    - ``_loglikelihood_tokens``: the model reads context + continuation, cut to its last ``max_length + 1`` tokens,
      all but the last; each continuation token is predicted from every token before it there.
    """
    requests = []
    first = min(max_length, len(tokens))
    if first:
        requests.append(([prefix] + tokens[:first - 1], tokens[:first]))
    predicted = first
    while predicted < len(tokens):
        n = min(len(tokens) - predicted, max_length)  # pred_len = max_length - context_len + 1
        end = predicted + n
        requests.append((tokens[end - max_length - 1:end - 1], tokens[end - n:end]))
        predicted += n
    scored = []
    for inputs, continuation in requests:
        context = inputs[:len(inputs) - (len(continuation) - 1)]
        read = (context + continuation)[-(max_length + 1):]
        for position in range(len(read) - len(continuation), len(read)):
            scored.append((tuple(read[:position]), read[position]))
    return scored


def our_contexts(windows) -> list[tuple[tuple[int, ...], int]]:
    """Each target of ``windows`` with the tokens of its window before it: what ``rank_records`` conditions it on."""
    return [(tuple(w.ids[:p].tolist()), int(w.ids[p])) for w in windows for p in range(w.context, len(w.ids))]


DOCUMENTS = [corpus_documents()[1][:3000], "x", "", "Héllo  wörld 😀 the\n  end  "]


@pytest.mark.parametrize("window_len", [2, 3, 10, 100, 512])
@pytest.mark.parametrize("text", DOCUMENTS, ids=["source", "one-character", "empty", "unicode"])
def test_every_token_is_scored_on_the_context_lm_evaluation_harness_gives_it(tokenizer, text, window_len):
    windows = document_windows(text, 7, tokenizer, window_len, Sampling())
    tokens = tokenizer(text, add_special_tokens=False)["input_ids"]
    assert prefix_token(tokenizer) == tokenizer.bos_token_id is not None
    assert our_contexts(windows) == harness_contexts(tokens, tokenizer.bos_token_id, window_len - 1)
    assert all(len(w.ids) <= window_len and w.document == 7 for w in windows)
    if windows:  # the targets' spans tile the document: its bytes and words, the harness's units
        start = np.concatenate([w.char_start for w in windows])
        end = np.concatenate([w.char_end for w in windows])
        assert start[0] == 0 and (start[1:] == end[:-1]).all() and end[-1] == len(text)
        assert sum(w.n_bytes.sum() for w in windows) == len(text.encode())
        assert sum(w.n_words.sum() for w in windows) == len(text.split())


def without_bos(tokenizer, eos: bool = True):
    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    return PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=tokenizer.eos_token if eos else None)


def test_a_tokenizer_without_bos_is_prefixed_with_its_eos_and_one_with_neither_reads_its_first_token(tokenizer):
    text = DOCUMENTS[0]
    tokens = tokenizer(text, add_special_tokens=False)["input_ids"]
    eos_only = without_bos(tokenizer)
    assert eos_only.bos_token_id is None and prefix_token(eos_only) == eos_only.eos_token_id
    windows = document_windows(text, 0, eos_only, 10, Sampling())
    assert our_contexts(windows) == harness_contexts(tokens, eos_only.eos_token_id, 9)
    bare = without_bos(tokenizer, eos=False)
    assert prefix_token(bare) is None
    windows = document_windows(text, 0, bare, 10, Sampling())
    assert windows[0].ids.tolist() == tokens[:10] and windows[0].context == 1
    assert our_contexts(windows) == harness_contexts(tokens[1:], tokens[0], 9)  # the first token as the prefix


def test_the_papers_corpora_keep_the_papers_encoding(tokenizer):
    """The declared exception: the model's own encoding, its first 512 tokens, all but the first scored."""
    text = DOCUMENTS[0]
    assert PAPER_SAMPLING.first_token == PAPERS
    windows = document_windows(text, 0, tokenizer, 512, PAPER_SAMPLING)
    own = tokenizer(text)["input_ids"]
    assert len(windows) == 1 and windows[0].ids.tolist() == own[:512] and windows[0].context == 1
    # this tokenizer adds no BOS, so the papers leave the document's first token unscored where the rule scores it
    assert own[0] != tokenizer.bos_token_id
    prefixed = document_windows(text, 0, tokenizer, 512, Sampling())[0]
    assert prefixed.targets.tolist() == own[:511] and windows[0].targets.tolist() == own[1:512]


def test_windows_per_document_and_the_token_budget_cut_the_same_windows(tokenizer):
    docs = [f"{i} " + "return value " * 20 for i in range(10)]
    every = {i: document_windows(docs[i], i, tokenizer, 16, Sampling()) for i in range(10)}
    sampling = Sampling(documents=4, windows_per_document=2)
    windows = token_windows(docs, tokenizer, None, window_len=16, seed=3, sampling=sampling)
    first = np.random.default_rng(3).permutation(10)[:4]  # Dataset.shuffle(seed=3), first 4 rows
    assert [(w.document, w.ids.tolist()) for w in windows] == [(int(i), w.ids.tolist()) for i in first
                                                               for w in every[i][:2]]
    cut = token_windows(docs, tokenizer, 40, window_len=16, seed=3, sampling=sampling)
    whole = sum(len(w.targets) for w in windows[:len(cut) - 1])  # the windows before the last are whole
    assert [w.ids.tolist() for w in cut[:-1]] == [w.ids.tolist() for w in windows[:len(cut) - 1]]
    assert cut[-1].ids.tolist() == windows[len(cut) - 1].first(40 - whole).ids.tolist()
    with pytest.raises(RankscaleError, match=r"only \d+ predictable tokens .* under its sampling"):
        token_windows(docs, tokenizer, sum(len(w.targets) for w in windows) + 1, window_len=16, seed=3,
                      sampling=sampling)


def test_the_rule_is_part_of_a_results_identity(corpus_file):
    from rankscale.corpora import get_corpus

    assert get_corpus("c4").identity()["sampling"]["first_token"] == PAPERS
    assert get_corpus("pydocs").identity()["sampling"]["first_token"] == get_corpus(str(corpus_file)).identity()[
        "sampling"]["first_token"] == "prefixed"
    with pytest.raises(ValueError, match="first_token"):
        Sampling(first_token="bos")
