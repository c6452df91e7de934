"""A result's identity: everything that changes its numbers, and nothing else.

One function, ``result_identity``, says what a (model, corpus) result is, for every way a result
is asked for: ``rankscale extract``, ``rankscale.records.extract.extract``, a model set's jobs,
``rankscale plan`` and the book. It holds

- the model by its content (``rankscale.models.source.ModelSource.identity``): a directory's
  weights, config and tokenizer files, a GGUF file, a hub repository's commit; and the load
  options, with whatever files they name by their content too (``rankscale.sets.schema.load_identity``:
  a ``subfolder`` of the model, a tokenizer, an adapter, a revision of its code), so that every
  file the load reads is in it;
- the corpus by its content (``rankscale.corpora.Corpus.identity``): a file's hash and the field
  read, an offline text's version and origin, a hub dataset's commit; and how windows are
  sampled from it (``rankscale.corpora.windows.Sampling``, the first-token rule of
  ``document_windows`` included);
- the settings: target tokens, window length, sampling seed, the body's dtype, the temperature,
  and the format of the records.

Paths, names, the device and the batch size are not part of it: a model copied elsewhere, or run on
another GPU with another batch, gives the same result (the records do not depend on the batch:
``rankscale.records.extract.rank_records``). A result directory holds one identity; its manifest
names it and its shards carry its digest (``rankscale.records.store.Manifest.digest``).

A model set whose dtype is ``auto`` asks for the dtype the device that computes it chooses
(bf16 on a GPU, fp32 on a CPU): ``same_result`` then accepts a finished result in either.
"""

from __future__ import annotations

from collections.abc import Mapping

from rankscale.corpora import Corpus
from rankscale.models.loading import default_window
from rankscale.models.source import ModelSource
from rankscale.records.store import FORMAT
from rankscale.sets.schema import check_load_options, load_identity

AUTO = "auto"


def result_identity(model: ModelSource, corpus: Corpus, n_tokens: int | None, *, load: Mapping,
                    window_len: int | None, seed: int, dtype: str, temperature: float) -> dict:
    """The identity of the result of ``model`` on ``corpus`` with these settings: what
    ``rankscale.records.extract.extract`` writes, and what a model set's job asks for.

    Parameters
    ----------
    model : rankscale.models.source.ModelSource
        The model, located (``rankscale.models.source.locate``).
    corpus : rankscale.corpora.Corpus
    n_tokens : int or None
        Target tokens (None: every window the corpus's sampling gives).
    load : mapping
        Load options (``rankscale.sets.schema.check_load_options``); what they name is identified
        relative to ``model`` (``rankscale.sets.schema.load_identity``).
    window_len : int or None
        Tokens per window; None: the model's default (``rankscale.models.loading.default_window``),
        resolved here so that asking for the default and for its value is the same result.
    seed : int
        Seed of the window sampling.
    dtype : str
        The body's dtype (``float32``, ``bfloat16``, ``float16``), or ``auto`` for what a job asks
        for when its set leaves the choice to the device (``same_result``).
    temperature : float
        The logits' divisor.

    Returns
    -------
    dict
        JSON-ready: ``model``, ``load``, ``corpus``, ``n_tokens``, ``window_len``, ``seed``, ``dtype``,
        ``temperature`` and the records' ``format`` (``rankscale.records.store.FORMAT``).

    Examples
    --------
    >>> from rankscale.corpora import get_corpus
    >>> hub = ModelSource("EleutherAI/pythia-70m", "hub", None, "ab" * 20)
    >>> identity = result_identity(hub, get_corpus("pydocs"), 1000, load={}, window_len=512, seed=42,
    ...                            dtype="float32", temperature=1.0)
    >>> identity["model"], identity["corpus"]["text"]["name"], identity["format"] == FORMAT
    ({'hub': 'EleutherAI/pythia-70m', 'commit': 'abababababababababababababababababababab'}, 'pydocs:heldout', True)
    """
    return {"model": model.identity(), "load": load_identity(check_load_options(load), model.name, model.kind),
            "corpus": corpus.identity(), "n_tokens": n_tokens,
            "window_len": default_window(model.name, model.load_revision, window_len),
            "seed": seed, "dtype": dtype, "temperature": float(temperature), "format": FORMAT}


def same_result(found: dict, wanted: dict) -> bool:
    """Whether a result of identity ``found`` is the one ``wanted`` asks for: the same identity,
    in any dtype where ``wanted`` leaves the dtype to the device (``auto``).

    Examples
    --------
    >>> same_result({"model": 1, "dtype": "bfloat16"}, {"model": 1, "dtype": "auto"})
    True
    >>> same_result({"model": 1, "dtype": "bfloat16"}, {"model": 1, "dtype": "float32"})
    False
    """
    if wanted.get("dtype") == AUTO:
        found, wanted = {**found, "dtype": AUTO}, wanted
    return found == wanted


def differences(found: dict, wanted: dict) -> list[str]:
    """The parts in which two identities differ, named for an error message (``corpus.text``...).

    Examples
    --------
    >>> differences({"model": {"gguf": "a"}, "seed": 1, "dtype": "float32"},
    ...             {"model": {"gguf": "b"}, "seed": 1, "dtype": "float32"})
    ['model.gguf']
    """
    out = []
    for key in sorted(set(found) | set(wanted)):
        a, b = found.get(key), wanted.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += [f"{key}.{inner}" for inner in differences(a, b)]
        else:
            out.append(key)
    return out
