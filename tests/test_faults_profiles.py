"""Model sets that ``check-profile`` used to pass and that failed (or quietly did something else)
later: each is now refused by ``load_toml`` with one line naming the file, the entry and the fix."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from rankscale import RankscaleError
from rankscale.cli import main
from rankscale.sets import get
from rankscale.sets.toml_sets import load_toml

TWO_MODELS = "[[families]]\nname = 'x'\nmodels = [{ model = 'runs/small' }, { model = 'runs/large' }]\n"


@pytest.fixture
def folder(tmp_path) -> Path:
    """The TOML file's folder, with four directories standing in for save_pretrained directories
    (load_toml only checks that they exist) and one corpus file."""
    for d in ("runs/small", "runs/large", "a/m1", "b/m1"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "notes.jsonl").write_text('{"text": "a note"}\n')
    return tmp_path


def write(folder: Path, text: str) -> Path:
    path = folder / "my-models.toml"
    path.write_text(text)
    return path


def refused(path: Path) -> str:
    """The one-line message ``load_toml`` refuses ``path`` with."""
    with pytest.raises(RankscaleError) as err:
        load_toml(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: "), message
    return message


FAULTS = {
    # a corpus file that is not there: path-like keys, and names that are neither corpora nor files
    "missing file in a folder": ("[corpora]\n'data/held-out.jsonl' = 100\n" + TWO_MODELS,
                                 r'corpora\."data/held-out\.jsonl": no file .*looked for .*data/held-out\.jsonl',
                                 "relative to this file's folder"),
    "missing file beside it": ("[corpora]\n'note.jsonl' = 100\n" + TWO_MODELS,
                               r'corpora\."note\.jsonl": no file', "relative to this file's folder"),
    "misspelt corpus name": ("[corpora]\nwikipedai = 100\n" + TWO_MODELS,
                             r"corpora\.wikipedai: neither a corpus rankscale knows nor a file",
                             r"use one of pydocs, stdlib, humaneval \(each also :train or :heldout\), wikipedia, c4"),
    "unknown split": ("[corpora]\n'pydocs:test' = 100\n" + TWO_MODELS,
                      r"corpora\.\"pydocs:test\": corpus 'pydocs' has no split 'test'", "its splits are"),
    "malformed hf: name": ("[corpora]\n'hf:allenai/c4' = 100\n" + TWO_MODELS,
                           r"corpora\.\"hf:allenai/c4\": corpus 'hf:allenai/c4': expected hf:org/name:split",
                           "e.g. hf:allenai/c4:en:validation"),
    # budgets and settings out of their range
    "negative budget": ("[corpora]\npydocs = -5\n" + TWO_MODELS, r"corpora\.pydocs: negative \(-5\)",
                        "give the target tokens per model, or 0 for all"),
    "window 0": ("window = 0\n[corpora]\npydocs = 10\n" + TWO_MODELS, r"window: 0 is too small",
                 r"at least 2, or leave it out \(default: 512"),
    "window 1": ("window = 1\n[corpora]\npydocs = 10\n" + TWO_MODELS, r"window: 1 is too small", "at least 2"),
    "n_boot -5": ("n_boot = -5\n[corpora]\npydocs = 10\n" + TWO_MODELS, r"n_boot: -5 is too small", "at least 1"),
    "n_boot 0": ("n_boot = 0\n[corpora]\npydocs = 10\n" + TWO_MODELS, r"n_boot: 0 is too small", "at least 1"),
    "checkpoint_tokens 0": ("checkpoint_tokens = 0\n[corpora]\npydocs = 10\n" + TWO_MODELS,
                            r"checkpoint_tokens: 0 is too small", r"at least 1, or leave it out \(default: as many as the models\)"),
    "checkpoint_tokens -1": ("checkpoint_tokens = -1\n[corpora]\npydocs = 10\n" + TWO_MODELS,
                             r"checkpoint_tokens: -1 is too small", "at least 1"),
    "seed -1": ("seed = -1\n[corpora]\npydocs = 10\n" + TWO_MODELS, r"seed: -1 is too small", "at least 0"),
    # models that cannot be told apart
    "same name": ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\n"
                  "models = [{ model = 'runs/small', name = 'A' }, { model = 'runs/large', name = 'A' }]\n",
                  r"families\[0\] \('x'\)\.models\[1\]: named 'A', as models\[0\] is",
                  r'give each model of the family a name = "\.\.\."'),
    "same basename": ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\nmodels = [{ model = 'a/m1' }, { model = 'b/m1' }]\n",
                      r"families\[0\] \('x'\)\.models\[1\]: named 'm1', as models\[0\] is",
                      r'give each model of the family a name = "\.\.\." \(a model is named after'),
    "same model twice": ("[corpora]\npydocs = 10\n[[families]]\nname = 'x'\n"
                         "models = [{ model = 'runs/small' }, { model = 'runs/large' }, { model = './runs/small', name = 'S2' }]\n",
                         r"families\[0\] \('x'\)\.models\[2\]: the same model as models\[0\] \(.*runs/small, "
                         r"same revision and load options\)", "list each model once"),
    # a hub model's revision is main unless given
    "same hub model twice": ("[corpora]\npydocs = 10\n[[families]]\nname = 'P'\nmodels = [{ model = 'EleutherAI/pythia-70m' }, "
                             "{ model = 'EleutherAI/pythia-70m', revision = 'main', name = 'again' }]\n",
                             r"families\[0\] \('P'\)\.models\[1\]: the same model as models\[0\] "
                             r"\(EleutherAI/pythia-70m@main, same revision and load options\)", "list each model once"),
    "two references of one name": ("[corpora]\npydocs = 10\n" + TWO_MODELS + "[[references]]\nmodel = 'a/m1'\n"
                                   "[[references]]\nmodel = 'b/m1'\n",
                                   r"references\[1\]: named 'm1', as references\[0\] is", r'give each reference a name'),
}


@pytest.mark.parametrize("case", FAULTS)
def test_a_set_that_would_fail_later_is_refused_at_once(folder, case):
    text, entry, fix = FAULTS[case]
    message = refused(write(folder, text))
    assert re.search(entry, message) and re.search(fix, message), message


def test_check_profile_prints_the_one_line(folder, capsys):
    """The command a user runs: exit status 1 (a runtime error) and the line, prefixed ``error:``, on stderr alone."""
    path = write(folder, "[corpora]\npydocs = -5\n" + TWO_MODELS)
    assert main(["check-profile", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: {path}: corpora.pydocs: negative (-5); give the target tokens per model, or 0 for all\n"


def test_without_the_corpus_code_a_missing_file_is_still_refused(folder, monkeypatch):
    """``make book`` checks a set before numpy is installed: corpus names cannot be looked up then,
    but a key that can only be a file is refused when the file is not there."""
    monkeypatch.setitem(sys.modules, "rankscale.corpora", None)  # any import of it raises ImportError
    with pytest.raises(ImportError):
        import rankscale.corpora  # noqa: F401
    assert re.search(r'corpora\."data/x\.parquet": no file', refused(write(folder, "[corpora]\n'data/x.parquet' = 1\n" + TWO_MODELS)))
    assert re.search(r'corpora\."x\.txt": no file', refused(write(folder, "[corpora]\n'x.txt' = 1\n" + TWO_MODELS)))
    # a name is left to the later check, which has the corpus code
    assert load_toml(write(folder, "[corpora]\nwikipedai = 1\n" + TWO_MODELS)).corpora == {"wikipedai": 1}


def test_what_is_right_still_passes(folder, monkeypatch):
    """The boundaries of each rule: the smallest settings allowed, every kind of corpus key, one model
    at two revisions or with two load options, and names that differ only where they must."""
    monkeypatch.chdir(folder.parent)  # corpus files are read beside the TOML file, not from the working directory
    text = ("window = 2\nn_boot = 1\ncheckpoint_tokens = 1\nseed = 0\n[corpora]\npydocs = 0\n'stdlib:train' = 5\n"
            "'humaneval:heldout' = 5\nc4 = 5\n'hf:allenai/c4:en:validation' = 5\n'notes.jsonl' = 5\n"
            "[[families]]\nname = 'x'\nmodels = [{ model = 'a/m1' }, { model = 'b/m1', name = 'm1b' }, "
            "{ model = 'a/m1', name = 'merged', load = { adapter = 'runs/small' } }]\n"
            "[[families]]\nname = 'P'\nmodels = [{ model = 'EleutherAI/pythia-70m' }, "
            "{ model = 'EleutherAI/pythia-70m', revision = 'step1000', name = 'early' }]\n"
            "[[references]]\nmodel = 'a/m1'\n")  # a reference may be a family's model: it is shown, not fitted
    model_set = get(str(write(folder, text)))
    assert (model_set.window, model_set.n_boot, model_set.checkpoint_tokens, model_set.seed) == (2, 1, 1, 0)
    assert model_set.corpora == {"pydocs": None, "stdlib:train": 5, "humaneval:heldout": 5, "c4": 5,
                                 "hf:allenai/c4:en:validation": 5, "notes": 5}
    assert model_set.corpus_sources == {"notes": str(folder / "notes.jsonl")}
    assert [[m.name for m in f.models] for f in model_set.families] == [["m1", "m1b", "merged"], ["pythia-70m", "early"]]
    # a missing file is named by where it was looked for, not found in the working directory instead
    (folder.parent / "only-here.jsonl").write_text('{"text": "x"}\n')
    assert f"(looked for {folder / 'only-here.jsonl'})" in refused(write(folder, "[corpora]\n'only-here.jsonl' = 1\n" + TWO_MODELS))
