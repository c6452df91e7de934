"""Chapters on model sets other than the offline ladders, end to end through papermill:

- a stand-in for ``reduced``: small random-weight models under the set's real hub ids (two
  families with different tokenizers, one model with hub revisions as training checkpoints) in a
  temporary hub cache read offline, and the Wikipedia corpus from local files through
  ``RANKSCALE_WIKIPEDIA_FILES``;
- a user's TOML set of two families of local directories with a reference model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest
import torch
from helpers import corpus_documents
from transformers import GPT2Config, GPT2LMHeadModel, GPTNeoXConfig, GPTNeoXForCausalLM

from rankscale.book import build
from rankscale.book.pages import VERDICT_KEY
from rankscale.models.ladder import train_tokenizer
from rankscale.records import jobs, runs
from rankscale.sets import get

pytestmark = pytest.mark.slow  # chapters executed by papermill


def cache_snapshot(cache, hub_id: str, model, tokenizer, revision: str, commit: str) -> None:
    """Save a model into the hub cache's layout, as a download leaves it:
    ``models--org--name/snapshots/<commit>/`` and ``refs/<revision>`` naming the commit."""
    repo = cache / f"models--{hub_id.replace('/', '--')}"
    model.save_pretrained(repo / "snapshots" / commit)
    tokenizer.save_pretrained(repo / "snapshots" / commit)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / revision).write_text(commit)


def random_model(family: str, width: int, vocab: int, seed: int):
    torch.manual_seed(seed)
    if family == "Pythia":
        config = GPTNeoXConfig(vocab_size=vocab, hidden_size=width, num_hidden_layers=2, num_attention_heads=2,
                               intermediate_size=4 * width, max_position_embeddings=128, tie_word_embeddings=False)
        return GPTNeoXForCausalLM(config)
    return GPT2LMHeadModel(GPT2Config(vocab_size=vocab, n_positions=128, n_embd=width, n_layer=2, n_head=2,
                                      bos_token_id=0, eos_token_id=0))


def chapter(name: str, profile: str, out) -> nbformat.NotebookNode:
    """Execute one chapter on ``profile`` and check that it ran cleanly and passed verdicts."""
    path = build.execute_chapter(name, profile, out, stamp="test", models=runs.models_used(get(profile)))
    nb = nbformat.read(path, as_version=4)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o for o in outputs if o.get("name") == "stderr"], [o["text"][:300] for o in outputs if o.get("name") == "stderr"]
    assert any(o.get("metadata", {}).get(VERDICT_KEY) for o in outputs), f"{name} passed no verdicts"
    return nb


def verdicts(nb) -> list[dict]:
    return [row for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
            for row in o.get("metadata", {}).get(VERDICT_KEY, [])]


@pytest.fixture(scope="module")
def reduced_standin(tmp_path_factory):
    root = tmp_path_factory.mktemp("reduced-standin")
    cache = root / "hf" / "hub"
    docs = corpus_documents()
    # two families with their own tokenizers, as Pythia's and GPT-2's differ
    tokenizers = {"Pythia": train_tokenizer(docs, 320), "GPT2": train_tokenizer(docs, 280)}
    ids = {"Pythia": ["EleutherAI/pythia-14m", "EleutherAI/pythia-31m", "EleutherAI/pythia-70m"],
           "GPT2": ["openai-community/gpt2", "openai-community/gpt2-medium", "openai-community/gpt2-large"]}
    for family, hub_ids in ids.items():
        tok = tokenizers[family]
        for i, hub_id in enumerate(hub_ids):
            cache_snapshot(cache, hub_id, random_model(family, 16 * (i + 1), len(tok), i), tok, "main", f"{i:040x}")
    # paper B's checkpoints are hub revisions named after their step
    for step, seed in (("step0", 10), ("step1000", 11)):
        cache_snapshot(cache, "EleutherAI/pythia-70m", random_model("Pythia", 48, 320, seed), tokenizers["Pythia"],
                       step, f"{seed:040x}")
    wiki = root / "wiki.jsonl"  # rows shaped like the hub dataset's (id, url, title, text)
    paragraphs = [p for d in docs for p in d.split("\n\n") if len(p) > 200][:60]
    wiki.write_text("".join(json.dumps({"id": str(i), "url": "", "title": str(i), "text": p}) + "\n"
                            for i, p in enumerate(paragraphs)))
    toml = root / "reduced-standin.toml"
    toml.write_text(f"""name = "reduced-standin"
n_boot = 20

[corpora]
wikipedia = 0

[[families]]
name = "Pythia"
models = [{{ model = "{ids['Pythia'][0]}" }}, {{ model = "{ids['Pythia'][1]}" }},
          {{ model = "{ids['Pythia'][2]}", checkpoints = ["step0", "step1000"] }}]

[[families]]
name = "GPT2"
models = [{", ".join(f'{{ model = "{h}" }}' for h in ids['GPT2'])}]
""")
    env = {"HF_HOME": str(root / "hf"), "HF_HUB_OFFLINE": "1", "RANKSCALE_WIKIPEDIA_FILES": str(wiki),
           "RANKSCALE_HOME": str(root / "home")}
    # as `make book` does, every result is extracted before any chapter runs (in a process of its
    # own, which reads the hub cache's location from the environment when it starts)
    done = subprocess.run([sys.executable, "-c", "from rankscale.records.jobs import prepare; from rankscale.sets import get; "
                           f"prepare(get({str(toml)!r}), progress=False)"],
                          env={**os.environ, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return str(toml), env, root


def test_the_standin_passes_the_hub_check_offline(reduced_standin):
    toml, env, _ = reduced_standin
    done = subprocess.run([sys.executable, "-m", "rankscale", "check-profile", toml], capture_output=True, text=True,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    gone = dict(env, HF_HOME=str(reduced_standin[2] / "empty"))
    done = subprocess.run([sys.executable, "-m", "rankscale", "check-profile", toml], capture_output=True, text=True,
                          env={**os.environ, **gone})
    assert done.returncode == 1 and "not in the local hub cache" in done.stderr and "EleutherAI/pythia-70m@step0" in done.stderr


@pytest.mark.parametrize("name", ["a2_scaling_regimes", "b2_training_dynamics", "b3_component_scaling"])
def test_hub_families_through_the_chapters(reduced_standin, name, monkeypatch, tmp_path):
    toml, env, _ = reduced_standin
    for key, value in env.items():  # the chapter's kernel inherits them
        monkeypatch.setenv(key, value)
    nb = chapter(name, toml, tmp_path)
    models = nb.metadata["rankscale"]["models"]
    assert [(m["family"], m["name"]) for m in models] == [
        ("Pythia", "pythia-14m"), ("Pythia", "pythia-31m"), ("Pythia", "pythia-70m"),
        ("GPT2", "gpt2"), ("GPT2", "gpt2-medium"), ("GPT2", "gpt2-large")]
    assert all(m["non_embedding"] > 0 for m in models)
    rows = verdicts(nb)
    assert rows and all(row["verdict"] for row in rows)
    if name == "b3_component_scaling":  # per-family rows and the pooled "All" of paper B's tables
        tables = "".join(o.get("data", {}).get("text/html", "") for cell in nb.cells for o in cell.get("outputs", []))
        assert "Pythia" in tables and "GPT2" in tables and "All" in tables


@pytest.fixture(scope="module")
def user_toml(tmp_path_factory, smoke_home):
    """Two families of the smoke ladder's directories, as a user would list their own models,
    with one model shown as a reference."""
    jobs.prepare(get("smoke"), smoke_home, log=lambda *_: None, progress=False)
    models = smoke_home / "models" / "smoke"
    root = tmp_path_factory.mktemp("user-toml")
    (root / "notes").mkdir()  # a file corpus, shown by the name it is given rather than by its path
    (root / "notes" / "held-out.jsonl").write_text("".join(json.dumps({"text": d}) + "\n" for d in corpus_documents()))
    (root / "mine.toml").write_text(f"""
[corpora]
pydocs = 4000
"notes/held-out.jsonl" = {{ tokens = 2000, name = "my notes" }}

[[families]]
name = "NeoX"
models = [{{ model = "{models}/neox/d16-l1" }}, {{ model = "{models}/neox/d24-l1" }}, {{ model = "{models}/neox/d40-l2" }}]

[[families]]
name = "Llama"
models = [{{ model = "{models}/llama/d16-l1" }}, {{ model = "{models}/llama/d40-l2" }}]

[[references]]
model = "{models}/llama/d40-l2"
name = "a Llama ladder model"
note = "shown as a reference model by this test"
""")
    jobs.prepare(get(str(root / "mine.toml")), smoke_home, log=lambda *_: None, progress=False)  # as `make book` does
    return str(root / "mine.toml")


@pytest.mark.parametrize("name", ["a1_metric", "b1_decomposition"])
def test_a_users_toml_set_through_the_chapters(user_toml, smoke_home, name, monkeypatch, tmp_path):
    monkeypatch.setenv("RANKSCALE_HOME", str(smoke_home))
    nb = chapter(name, user_toml, tmp_path)
    assert [m["family"] for m in nb.metadata["rankscale"]["models"]] == ["NeoX"] * 3 + ["Llama"] * 2 + [None]
    assert get(user_toml).name == "mine" and (tmp_path / f"{name}.ipynb").exists()
    shown = json.dumps([cell.get("outputs", []) for cell in nb.cells])
    assert "my notes" in shown and "held-out.jsonl" not in shown  # headings and figures name the corpus, not its file
