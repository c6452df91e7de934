"""The hub model sets without the hub: the papers' model families saved with padded heads, the
papers' corpora read from local stand-in files through the same ``datasets`` calls and sampled as
the papers sample them, and fast, clear failures where the hub cannot be reached."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import datasets
import numpy as np
import pandas as pd
import pytest
import torch
from helpers import N_PAD, WIDTH, forward_reference, save_random_model
from tokenizers import Tokenizer
from tokenizers.processors import TemplateProcessing
from transformers import PreTrainedTokenizerFast

from rankscale import RankscaleError
from rankscale.corpora import PAPER_SAMPLING, files_variable, get_corpus, token_windows
from rankscale.hashing import file_sha256
from rankscale.models.loading import load_model, real_vocab_size
from rankscale.records import extract as ex
from rankscale.records.store import load_records
from rankscale.sets import require_available
from rankscale.sets.builtin import BUILT_IN, PAPER_CORPORA


@pytest.fixture(autouse=True)
def no_hub(monkeypatch, tmp_path):
    """Every test here runs with an unreachable hub, empty caches and online-mode datasets."""
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))  # read by require_available
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "hub-cache"))  # by transformers
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "datasets-cache"))


# ---------------------------------------------------------------------------------------------
# Families with padded heads


@pytest.fixture(scope="module")
def windows(tokenizer, corpus_file):
    return [w.ids for w in token_windows(get_corpus(str(corpus_file)).load(), tokenizer, 1500, window_len=128)]


@pytest.mark.parametrize("family, device_map", [("neox", None), ("gpt2", "auto"), ("opt", None)])
def test_family_with_padded_head_extracts_like_its_forward_pass(family, device_map, tokenizer, windows, tmp_path):
    model, tok = load_model(str(save_random_model(tmp_path / family, tokenizer, family=family, head_rows=len(tokenizer) + N_PAD)),
                            device_map=device_map)
    n_real = real_vocab_size(tok)
    assert model.get_output_embeddings().weight.shape[0] == n_real + N_PAD
    assert model.get_output_embeddings().bias is None  # no head bias in these families (hub configs alike)
    rec = ex.rank_records(model, windows, n_real, batch_size=3, chunk_tokens=101)
    ref = forward_reference(model, windows, n_real)
    np.testing.assert_array_equal(rec["gt"], ref["gt"])
    np.testing.assert_array_equal(rec["ge"], ref["ge"])
    np.testing.assert_allclose(rec["logp"], ref["logp"], atol=2e-5)
    # the padded rows outscore every real token, so counting them would have moved every rank
    np.testing.assert_array_equal(ref["gt_all_rows"], rec["gt"] + N_PAD)


def test_head_bias_is_applied(tokenizer, windows, tmp_path):
    model, tok = load_model(str(save_random_model(tmp_path / "gpt2", tokenizer, family="gpt2", head_rows=len(tokenizer) + N_PAD)))
    n_real = real_vocab_size(tok)
    unbiased = ex.rank_records(model, windows, n_real)
    biased = torch.nn.Linear(WIDTH, n_real + N_PAD, bias=True)
    with torch.no_grad():
        biased.weight.copy_(model.lm_head.weight)
        biased.bias.normal_(0.0, 3.0)
    model.lm_head = biased  # as in models whose head has a bias (phi-2, for one)
    rec = ex.rank_records(model, windows, n_real)
    ref = forward_reference(model, windows, n_real)
    np.testing.assert_array_equal(rec["gt"], ref["gt"])
    np.testing.assert_allclose(rec["logp"], ref["logp"], atol=2e-5)
    assert (rec["gt"] != unbiased["gt"]).mean() > 0.5


# ---------------------------------------------------------------------------------------------
# The papers' corpora from local stand-in files

WORDS = "the of a legal court question answer python return value river city year model".split()


def text(rng, n_words):
    return " ".join(rng.choice(WORDS, n_words))


def standin_rows(name, rng):
    """Rows shaped like the hub dataset's (its columns), short enough to tokenize fast."""
    if name == "wikipedia":
        return [{"id": str(i), "url": f"https://en.wikipedia.org/wiki?curid={i}", "title": f"T{i}",
                 "text": f"{i} " + text(rng, rng.integers(1, 40))} for i in range(1200)]
    if name == "c4":
        return [{"text": f"{i} " + text(rng, 20), "timestamp": "2019-04-25T12:57:54Z", "url": f"u{i}"}
                for i in range(1100)]
    if name == "pile-github":
        return [{"text": f"{i} " + text(rng, 130 if i % 5 else 30),
                 "meta": {"pile_set_name": "Github" if i % 2 else "Pile-CC"}} for i in range(2600)]
    if name == "hotpotqa":
        return [{"id": f"q{i}", "question": f"{i} " + text(rng, 12) + "?", "answer": text(rng, 2), "type": "bridge",
                 "level": "hard"} for i in range(1300)]
    if name == "openai_humaneval":
        return [{"task_id": f"HumanEval/{i}", "prompt": f"def f{i}(x):\n", "canonical_solution": "    return x\n",
                 "test": "", "entry_point": f"f{i}"} for i in range(164)]
    return [{"version_id": f"v{i}", "type": "decision", "text": f"{i} " + text(rng, 25)} for i in range(1050)]


# The papers' code, written out: the text of a row, the rows it keeps, and how many it streams first.
PAPERS_CODE = {
    "wikipedia": (("text",), None, None),
    "c4": (("text",), None, 1000),
    "pile-github": (("text",), lambda r: r["meta"]["pile_set_name"] == "Github" and len(r["text"]) > 512, None),
    "hotpotqa": (("question", "answer"), None, None),
    "openai_humaneval": (("prompt", "canonical_solution"), None, None),
    "auslegal": (("text",), None, None),
}


def write_standin(name, directory, rng):
    rows = standin_rows(name, rng)
    if name in ("wikipedia", "openai_humaneval"):
        path = directory / "part-0.parquet"
        pd.DataFrame(rows).to_parquet(path)
        return "parquet", path
    path = directory / ("part-0.jsonl.gz" if name == "c4" else "part-0.jsonl")
    payload = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(gzip.compress(payload) if name == "c4" else payload)
    return "json", path


@pytest.fixture(scope="module")
def bos_tokenizer(tokenizer):
    """The test tokenizer, made to put a BOS token first, as Llama's, Mistral's and OPT's do."""
    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    eos = tokenizer.eos_token
    backend.post_processor = TemplateProcessing(single=f"{eos} $A", special_tokens=[(eos, tokenizer.eos_token_id)])
    return PreTrainedTokenizerFast(tokenizer_object=backend, bos_token=eos, eos_token=eos, unk_token=eos)


@pytest.mark.parametrize("name", PAPERS_CODE)
def test_local_standin_goes_through_datasets_and_is_sampled_as_the_papers_did(name, bos_tokenizer, tmp_path,
                                                                               monkeypatch):
    builder, path = write_standin(name, tmp_path, np.random.default_rng(0))
    monkeypatch.setenv(files_variable(name), str(tmp_path))
    corpus = get_corpus(name)
    assert corpus.sampling == PAPER_SAMPLING and str(path) in corpus.description
    windows = token_windows(corpus.load(), bos_tokenizer, None, window_len=32, seed=42, sampling=corpus.sampling)
    # what the papers' code does: load, (stream the first rows,) filter, shuffle(seed=42), first 1000
    fields, keep, first_rows = PAPERS_CODE[name]
    table = datasets.load_dataset(builder, data_files=str(path), split="train")
    if first_rows:
        table = table.select(range(first_rows))
    if keep:
        table = table.filter(keep)
    sample = table.shuffle(seed=42).select(range(min(1000, len(table))))
    expected = [bos_tokenizer("\n".join(str(row[f]) for f in fields))["input_ids"][:32] for row in sample]
    assert [w.ids.tolist() for w in windows] == expected
    assert windows[0].ids[0] == bos_tokenizer.bos_token_id  # each model's own special tokens
    assert len(windows) == min(1000, len(table)) and len(table) == len(corpus.load())


def test_extract_records_the_whole_paper_sample(model_dir, tokenizer, tmp_path, monkeypatch):
    builder, path = write_standin("openai_humaneval", tmp_path, np.random.default_rng(0))
    monkeypatch.setenv(files_variable("openai_humaneval"), str(path))
    out = ex.extract(str(model_dir), "openai_humaneval", None, tmp_path / "run", progress=False)
    rec = load_records(out)
    identity = rec.manifest.identity
    assert (rec.manifest.source["corpus"], identity["n_tokens"], identity["window_len"]) == ("openai_humaneval", None, 128)
    # the local files standing in for the hub dataset, by their content
    assert identity["corpus"]["text"] == {"name": "openai_humaneval", "files": [file_sha256(path)]}
    assert "HumanEval" in rec.manifest.corpus_description and rec.manifest.n_windows == 164
    lengths = [min(len(tokenizer(r["prompt"] + "\n" + r["canonical_solution"])["input_ids"]), 128)
               for r in standin_rows("openai_humaneval", None)]
    assert len(rec) == sum(n - 1 for n in lengths)


def test_local_files_variable_must_name_dataset_files(tmp_path, monkeypatch):
    monkeypatch.setenv(files_variable("wikipedia"), str(tmp_path / "nothing-*.parquet"))
    with pytest.raises(RankscaleError, match="RANKSCALE_WIKIPEDIA_FILES=.* names no .parquet or .json"):
        get_corpus("wikipedia")
    (tmp_path / "a.parquet").write_bytes(b"")
    (tmp_path / "b.jsonl").write_text("")
    monkeypatch.setenv(files_variable("wikipedia"), str(tmp_path))
    with pytest.raises(RankscaleError, match="several formats"):
        get_corpus("wikipedia")


def test_rows_without_the_papers_fields_are_reported(tmp_path, monkeypatch):
    (tmp_path / "rows.jsonl").write_text(json.dumps({"question": "q?", "reply": "a"}) + "\n")
    monkeypatch.setenv(files_variable("hotpotqa"), str(tmp_path / "rows.jsonl"))
    with pytest.raises(RankscaleError, match="no 'answer' column"):
        get_corpus("hotpotqa").load()[0]


# ---------------------------------------------------------------------------------------------
# Offline: fail at once, say why, name the offline sets


def test_reduced_set_fails_fast_when_the_hub_is_unreachable():
    start = time.monotonic()
    with pytest.raises(RankscaleError) as err:
        require_available(BUILT_IN["reduced"])
    assert time.monotonic() - start < 5
    message = str(err.value)
    assert "cannot reach" in message and "smoke or tiny" in message
    # 11 models and paper B's 6 training checkpoints of 3 Pythia sizes
    assert "29 of the 29 hub models and checkpoints it reads are not in the local hub cache" in message
    assert "pythia-14m, " in message and "and 24 more" in message
    assert "wikipedia (set RANKSCALE_WIKIPEDIA_FILES)" in message


def fake_cached(cache, hub_id, revisions=("main",)):
    """What the hub client leaves in its cache after downloading a model (just the config here):
    one snapshot per revision, found through ``refs/<revision>``."""
    repo = cache / f"models--{hub_id.replace('/', '--')}"
    for i, revision in enumerate(revisions):
        commit = f"{i:040d}"
        (repo / "refs").mkdir(parents=True, exist_ok=True)
        (repo / "refs" / revision).write_text(commit)
        (repo / "snapshots" / commit).mkdir(parents=True)
        (repo / "snapshots" / commit / "config.json").write_text("{}")


def test_reduced_set_runs_offline_from_the_hub_cache_and_local_corpora(tmp_path, monkeypatch):
    reduced = BUILT_IN["reduced"]
    models = [m for f in reduced.families for m in f.models]
    for model in models[:-1]:
        fake_cached(tmp_path / "hub-cache", model.source, ["main", *(c.revision for c in model.checkpoints)])
    for corpus in PAPER_CORPORA:
        monkeypatch.setenv(files_variable(corpus), str(tmp_path / f"{corpus}.jsonl"))
    with pytest.raises(RankscaleError, match=r"1 of the 29 .* not in the local hub cache .*: openai-community/gpt2-xl\."):
        require_available(reduced)
    fake_cached(tmp_path / "hub-cache", models[-1].source)
    require_available(reduced)
    monkeypatch.delenv(files_variable("c4"))
    with pytest.raises(RankscaleError, match=r"corpora without local files: c4 \(set RANKSCALE_C4_FILES\)"):
        require_available(reduced)
    require_available(BUILT_IN["tiny"])  # the offline sets pass without looking at the hub


@pytest.mark.parametrize("name", ["wikipedia", "c4", "hotpotqa", "openai_humaneval", "auslegal"])
def test_hub_corpus_fails_fast_offline(name):
    start = time.monotonic()
    with pytest.raises(RankscaleError) as err:
        get_corpus(name).load()
    assert time.monotonic() - start < 5
    message = str(err.value)
    assert "hub is unreachable" in message and "offline corpora (pydocs, stdlib, humaneval)" in message
    assert files_variable(name) in message


def test_offline_mode_reads_only_the_datasets_cache(monkeypatch):
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)  # HF_HUB_OFFLINE=1 when datasets was imported
    with pytest.raises(RankscaleError, match="cannot load corpus 'hotpotqa'.*RANKSCALE_HOTPOTQA_FILES"):
        get_corpus("hotpotqa").load()


def test_pile_github_needs_local_files():
    with pytest.raises(RankscaleError, match="RANKSCALE_PILE_GITHUB_FILES to the Pile's jsonl files"):
        get_corpus("pile-github").load()


def test_unreachable_corpus_fails_before_the_model_loads(model_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "load_model", lambda *a, **k: pytest.fail("model loaded for a corpus that cannot be had"))
    with pytest.raises(RankscaleError, match="hub is unreachable"):
        ex.extract(str(model_dir), "wikipedia", None, tmp_path / "run", progress=False)


@pytest.mark.slow  # make in a subprocess
def test_make_book_with_a_hub_profile_fails_at_once_offline(tmp_path):
    """`make book PROFILE=reduced` checks the hub before any set-up, with the standard library only."""
    env = {**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HUB_CACHE": str(tmp_path / "hub-cache")}
    start = time.monotonic()
    done = subprocess.run(["make", "--no-print-directory", "book", "PROFILE=reduced"],
                          cwd=Path(__file__).resolve().parents[1], env=env, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - start < 30
    assert done.returncode != 0
    assert "cannot reach" in done.stderr and "make book PROFILE=tiny" in done.stderr
    assert not (tmp_path / "hub-cache").exists()  # nothing was downloaded or set up


# ---------------------------------------------------------------------------------------------
# Results keyed by the commit a revision names


def cache_model(cache: Path, hub_id: str, model: Path, commit: str, ref: str = "main") -> None:
    """``model`` as a download leaves it in the hub cache: a snapshot named by its commit, and
    ``refs/<ref>`` naming that commit."""
    repo = cache / f"models--{hub_id.replace('/', '--')}"
    shutil.copytree(model, repo / "snapshots" / commit)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / ref).write_text(commit)


def test_a_hub_model_is_loaded_and_keyed_by_the_commit_its_branch_names(model_dir, tokenizer, corpus_file, tmp_path):
    """From a hub-cache layout: the manifest records the commit ``main`` names, and when ``main``
    moves to a retrained model the old records are never served for it: the same folder refuses
    them, the set's jobs get a new folder, and the new weights are the ones loaded."""
    from rankscale.records import jobs
    from rankscale.sets import get

    cache, old, new = tmp_path / "hub-cache", "a" * 40, "b" * 40
    cache_model(cache, "org/lm", model_dir, old)
    cache_model(cache, "org/lm-big", model_dir, old)

    def extract(out):
        return ex.extract("org/lm", str(corpus_file), 300, out, window_len=64, progress=False)

    before = load_records(extract(tmp_path / "run"))
    assert before.manifest.identity["model"] == {"hub": "org/lm", "commit": old}
    assert before.manifest.source["revision"] is None
    toml = tmp_path / "hub.toml"
    toml.write_text(f'[corpora]\n"{corpus_file}" = 300\n[[families]]\nname = "LM"\n'
                    'models = [{ model = "org/lm" }, { model = "org/lm-big" }]\n')
    (job_before, _) = jobs.jobs(get(str(toml)), tmp_path / "home")
    assert job_before.commit == old and f"hub/org--lm/{old[:12]}/" in job_before.out.as_posix()

    save_random_model(tmp_path / "retrained", tokenizer, seed=7)
    cache_model(cache, "org/lm", tmp_path / "retrained", new)  # main now names another commit
    with pytest.raises(RankscaleError, match=r"another result \(it differs in: model.commit\)"):
        extract(tmp_path / "run")
    after = load_records(extract(tmp_path / "run-new"))
    assert after.manifest.identity["model"]["commit"] == new
    assert not np.array_equal(after.logp, before.logp)  # the retrained weights, not the old snapshot
    (job_after, _) = jobs.jobs(get(str(toml)), tmp_path / "home")
    assert job_after.commit == new and job_after.out != job_before.out


def test_the_hub_names_the_commit_where_it_answers(tmp_path, monkeypatch):
    """Where the hub answers, its commit wins over an older one in the cache; where it fails,
    the cache's is used."""
    import huggingface_hub

    from rankscale import hub

    (tmp_path / "model").mkdir()
    cache_model(tmp_path / "hub-cache", "org/lm", tmp_path / "model", "a" * 40)
    asked = []

    def model_info(hub_id, revision=None):
        asked.append((hub_id, revision))
        if hub_id == "org/gone":
            raise huggingface_hub.errors.RepositoryNotFoundError("no such repository", response=None)
        return SimpleNamespace(sha="c" * 40)

    monkeypatch.setattr(huggingface_hub, "model_info", model_info)
    monkeypatch.setattr(hub, "hub_reachable", lambda: True)
    hub._hub_commit.cache_clear()
    try:
        assert hub.resolve_commit("org/lm") == "c" * 40 and asked == [("org/lm", None)]
        assert hub.resolve_commit("org/lm", "step16") == "c" * 40 and asked[-1] == ("org/lm", "step16")
        assert hub.resolve_commit("org/gone") is None
        assert hub.resolve_commit("org/lm", "d" * 40) == "d" * 40 and len(asked) == 3  # a commit is itself
    finally:
        hub._hub_commit.cache_clear()
    monkeypatch.setattr(hub, "hub_reachable", lambda: False)
    assert hub.resolve_commit("org/lm") == "a" * 40
