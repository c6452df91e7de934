"""Model sets: the built-in sets as data, and a user's own set as a TOML file, with one-line
errors that name the file, the entry and the fix."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rankscale import RankscaleError
from rankscale.sets import builtin, get, require_available
from rankscale.sets.builtin import BUILT_IN
from rankscale.sets.schema import Checkpoint
from rankscale.sets.toml_sets import load_toml


@pytest.fixture
def two_dirs(tmp_path) -> tuple[Path, Path]:
    """Two folders standing in for save_pretrained directories (load_toml only checks they exist)."""
    dirs = tmp_path / "runs" / "small", tmp_path / "runs" / "large"
    for d in dirs:
        d.mkdir(parents=True)
    return dirs


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "my-models.toml"
    path.write_text(text)
    return path


GOOD = """
name = "mine"
n_boot = 20
checkpoint_tokens = 500

[corpora]
pydocs = 2000
"notes.jsonl" = 0

[[families]]
name = "local"
models = [
  { model = "runs/small", name = "S" },
  { model = "runs/large", checkpoints = [{ step = 0, model = "runs/small" }] },
]

[[families]]
name = "Pythia"
models = [
  { model = "EleutherAI/pythia-14m" },
  { model = "EleutherAI/pythia-70m", revision = "main", checkpoints = ["step0", "step1000"] },
]

[[references]]
model = "EleutherAI/pythia-160m"
note = "shown beside the families"
"""


def test_a_user_set_reads_as_the_built_in_ones(tmp_path, two_dirs):
    (tmp_path / "notes.jsonl").write_text('{"text": "a note"}\n')
    model_set = get(str(write(tmp_path, GOOD)))
    assert model_set.name == "mine" and model_set.n_boot == 20 and model_set.checkpoint_tokens == 500
    assert model_set.temperature_tokens == 0  # no temperature demonstration unless asked for
    assert get(str(write(tmp_path, "temperature_tokens = 3000\n" + GOOD))).temperature_tokens == 3000
    assert model_set.source == str((tmp_path / "my-models.toml").resolve())
    # a corpus file is read from the TOML file's folder; 0 tokens means all of them
    assert model_set.corpora == {"pydocs": 2000, "notes": None}  # a file shown by its name less its suffix
    assert model_set.corpus_source("notes") == str(tmp_path / "notes.jsonl")
    local, pythia = model_set.families
    assert [(m.name, m.source) for m in local.models] == [("S", str(two_dirs[0])), ("large", str(two_dirs[1]))]
    assert local.models[1].checkpoints == (Checkpoint(0, source=str(two_dirs[0])),)
    assert [m.name for m in pythia.models] == ["pythia-14m", "pythia-70m"]
    assert pythia.models[1].checkpoints == (Checkpoint(0, revision="step0"), Checkpoint(1000, revision="step1000"))
    assert model_set.references[0].note == "shown beside the families"
    assert model_set.hub_models() == [("EleutherAI/pythia-14m", None), ("EleutherAI/pythia-70m", "main"),
                                      ("EleutherAI/pythia-70m", "step0"), ("EleutherAI/pythia-70m", "step1000"),
                                      ("EleutherAI/pythia-160m", None)]


@pytest.mark.parametrize("text, entry, fix", [
    ("famlies = []\n[corpora]\npydocs = 10\n", "top level: unknown key 'famlies'", "the keys here are"),
    ("[corpora]\npydocs = 10\n", r"\[\[families\]\]: no family", "add at least one"),
    ("[[families]]\nname = 'x'\nmodels = [{ model = 'runs/small' }, { model = 'runs/large' }]\n",
     r"\[corpora\]: no corpus", "add a \\[corpora\\] table"),
    ("[corpora]\npydocs = 10\n[[families]]\nname = 'solo'\nmodels = [{ model = 'runs/small' }]\n",
     r"families\[0\] \('solo'\): has 1 model", "needs at least two models"),
    ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\nmodels = [{ model = 'runs/small' }, { model = 'runs/lage' }]\n",
     r"families\[0\] \('x'\).models\[1\]: no model at 'runs/lage'", "give an existing save_pretrained directory"),
    ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\nmodels = [{ model = 'runs/small', size = 3 }, { model = 'runs/large' }]\n",
     r"families\[0\] \('x'\).models\[0\]: unknown key 'size'", "the keys here are checkpoints, load, model, name"),
    ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\nload = { trust_remote_code = 'yes' }\n"
     "models = [{ model = 'runs/small' }, { model = 'runs/large' }]\n",
     r"families\[0\] \('x'\).load: load option trust_remote_code: expected true or false", "trust_remote_code, attn_impl"),
    ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\n"
     "models = [{ model = 'runs/small', load = { dtype = 'float16' } }, { model = 'runs/large' }]\n",
     r"models\[0\].load: load option dtype: rankscale sets it itself; use --dtype", "others go to from_pretrained"),
    ("[corpora]\npydocs = 'all'\n", r"corpora.pydocs: expected a whole number", "write corpora.pydocs as"),
    ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\nmodels = [{ model = 'runs/small', checkpoints = ['final'] }, "
     "{ model = 'runs/large' }]\n", r"checkpoints\[0\]: cannot read a training step from 'final'", "step = 1000"),
    ("[corpora\n", "file: not valid TOML", "fix the syntax"),
    ("temperature_tokens = -5\n[corpora]\npydocs = 10\n[[families]]\nname = 'x'\n"
     "models = [{ model = 'runs/small' }, { model = 'runs/large' }]\n", "temperature_tokens: negative", "or 0 for none"),
])
def test_a_malformed_set_gets_one_line_naming_file_entry_and_fix(tmp_path, two_dirs, text, entry, fix):
    path = write(tmp_path, text)
    with pytest.raises(RankscaleError) as err:
        load_toml(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert re.search(entry, message) and re.search(fix, message), message


def test_load_options_per_family_and_model(tmp_path, two_dirs):
    """A family's load options reach each of its models, a model's own override them, and a
    tokenizer or adapter beside the TOML file is made absolute; a model without any has none."""
    (tmp_path / "lora").mkdir()
    text = GOOD.replace('name = "local"\n', 'name = "local"\nload = { trust_remote_code = true, attn_implementation = "sdpa" }\n')
    text = text.replace('{ model = "runs/small", name = "S" }',
                        '{ model = "runs/small", name = "S", load = { attn_implementation = "eager", adapter = "lora", '
                        'rope_scaling_factor = 2.5 } }')
    (tmp_path / "notes.jsonl").write_text('{"text": "a note"}\n')
    local, pythia = get(str(write(tmp_path, text))).families
    assert dict(local.models[0].load) == {"adapter": str(tmp_path / "lora"), "attn_implementation": "eager",
                                          "rope_scaling_factor": 2.5, "trust_remote_code": True}
    assert local.models[1].load == (("attn_implementation", "sdpa"), ("trust_remote_code", True))
    assert all(m.load == () for m in pythia.models)


def test_a_corpus_shows_its_display_name_and_reads_its_file(tmp_path):
    """A file corpus is shown by a short name (given, or its file's name less its suffixes) on every
    heading, and what is read for it is the file: the name is in no result's identity, so renaming it
    leaves every result where it was."""
    from rankscale.records import jobs

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "held-out.jsonl").write_text("".join(f'{{"text": "note {i} " }}\n' for i in range(20)))
    (tmp_path / "eval.txt").write_text("some text to read")
    models = ('[[families]]\nname = "Pythia"\nmodels = [{ model = "EleutherAI/pythia-70m" }, '
              '{ model = "EleutherAI/pythia-160m" }]\n')
    named = get(str(write(tmp_path, '[corpora]\n"data/held-out.jsonl" = { tokens = 500, name = "notes" }\n'
                                   '"eval.txt" = 0\n' + models)))
    assert named.corpora == {"notes": 500, "eval": None}
    assert named.corpus_sources == {"notes": str(tmp_path / "data" / "held-out.jsonl"),
                                    "eval": str(tmp_path / "eval.txt")}
    renamed = get(str(write(tmp_path, '[corpora]\n"data/held-out.jsonl" = 500\n' + models)))
    assert list(renamed.corpora) == ["held-out"]
    ours, theirs = jobs.jobs(named, tmp_path, ["notes"]), jobs.jobs(renamed, tmp_path)
    assert [job.corpus for job in ours] == ["notes", "notes"] and [job.corpus for job in theirs] == ["held-out"] * 2
    assert [(job.identity, job.out) for job in ours] == [(job.identity, job.out) for job in theirs]
    assert f"--corpus {tmp_path / 'data' / 'held-out.jsonl'} " in ours[0].command(named)


@pytest.mark.parametrize("corpora, entry, fix", [
    ('"a/notes.jsonl" = 5\n"b/notes.jsonl" = 5\n',
     r'corpora."b/notes.jsonl": shown as \'notes\', as corpora."a/notes.jsonl" is', "give one of them its own name"),
    ('"a/notes.jsonl" = { tokens = 5, name = "pydocs" }\npydocs = 5\n', "corpora.pydocs: shown as 'pydocs'",
     "its own name"),
    ('pydocs = { tokens = 5, name = "docs" }\n', "corpora.pydocs: a corpus rankscale knows keeps its own name",
     "give a name only to a file or an hf: dataset"),
    ('"a/notes.jsonl" = { name = "n" }\n', r'corpora."a/notes.jsonl": no tokens', "give tokens = "),
    ('"a/notes.jsonl" = { tokens = 5, label = "n" }\n', "unknown key 'label'", "the keys here are name, tokens"),
    ('"a/notes.jsonl" = { tokens = 5, name = "" }\n', r'corpora."a/notes.jsonl".name: empty', "give a short name"),
])
def test_display_names_are_refused_where_they_would_mislead(tmp_path, two_dirs, corpora, entry, fix):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.jsonl").write_text('{"text": "a note"}\n')
    path = write(tmp_path, "[corpora]\n" + corpora + "[[families]]\nname = 'x'\n"
                                                      "models = [{ model = 'runs/small' }, { model = 'runs/large' }]\n")
    with pytest.raises(RankscaleError) as err:
        get(str(path))
    assert str(err.value).startswith(f"{path}: ") and re.search(entry, str(err.value)) and fix in str(err.value)


def test_unknown_set_names_the_choices():
    with pytest.raises(RankscaleError, match="use one of smoke, tiny, reduced, full or the path of a .toml file"):
        get("huge")
    with pytest.raises(RankscaleError, match="no model-set file"):
        get("missing.toml")


def test_check_profile_reads_a_toml_set_before_anything_is_installed(tmp_path, two_dirs):
    """`make book PROFILE=x.toml` checks the file with the standard library alone (the Makefile runs
    this with the system python, before .venv exists)."""
    bad = write(tmp_path, "[corpora]\npydocs = 10\n[[families]]\nname = 'solo'\nmodels = [{ model = 'runs/small' }]\n")
    done = subprocess.run([sys.executable, "-S", "-m", "rankscale", "check-profile", str(bad)],
                          env={"PYTHONPATH": str(Path(builtin.__file__).parents[2])}, capture_output=True, text=True)
    assert done.returncode == 1 and "has 1 model" in done.stderr and done.stderr.count("\n") == 1


def test_the_offline_sets_need_nothing_and_settings_live_in_the_set():
    for name in builtin.OFFLINE_SETS:
        model_set = BUILT_IN[name]
        assert model_set.hub_models() == [] and model_set.training is not None
        assert set(model_set.corpora) == {"pydocs", "stdlib", "humaneval"}
        assert all(model_set.tokens(c) for c in model_set.corpora)
    # the real pretrained model is a reference of tiny only, with its own (smaller) budget
    assert BUILT_IN["smoke"].references == () and [m.name for m in BUILT_IN["tiny"].references] == [
        builtin.SMOLLM2.name]
    assert all(BUILT_IN["tiny"].tokens(c, reference=True) <= BUILT_IN["tiny"].tokens(c) for c in ("pydocs", "stdlib", "humaneval"))


def test_a_hub_dataset_corpus_needs_the_hub_or_its_cache(tmp_path, two_dirs, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    path = write(tmp_path, "[corpora]\n'hf:allenai/c4:en:validation' = 100\n[[families]]\nname = 'x'\n"
                           "models = [{ model = 'runs/small' }, { model = 'runs/large' }]\n")
    with pytest.raises(RankscaleError, match=r"corpora without local files: hf:allenai/c4:en:validation \(or HF_HUB_OFFLINE=1"):
        require_available(get(str(path)))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    require_available(get(str(path)))
