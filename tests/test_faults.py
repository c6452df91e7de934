"""Faults a researcher meets with their own models and corpora (issue 30): every case here once gave
a wrong or lost result with exit status 0, or a traceback, or an error naming the wrong cause.
Each test says what happened before in its docstring; now a result is the one its inputs give,
or there is one line naming the cause and the fix, and nothing left that looks like a result."""

from __future__ import annotations

import dataclasses
import errno
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import save_random_model

from rankscale import RankscaleError
from rankscale.cli import main
from rankscale.records import extract as ex
from rankscale.records import jobs
from rankscale.records.store import MANIFEST, Manifest, load_records, write_shard
from rankscale.sets import get

N = 300  # target tokens of every extraction here


def extract(model, corpus, out, **kw):
    kw.setdefault("window_len", 64)
    return ex.extract(str(model), str(corpus), kw.pop("n_tokens", N), out, shard_tokens=100, progress=False, **kw)


def ce(out) -> float:
    return float(-load_records(out).logp.astype(np.float64).mean())


def cli(capsys, *args) -> tuple[int, str]:
    """``rankscale ARGS`` in this process: the exit status and what it printed on stderr."""
    status = main([str(a) for a in args])
    return status, capsys.readouterr().err


@pytest.fixture
def retrainable(tmp_path, tokenizer) -> Path:
    """A model directory of the user's, to be retrained in place."""
    return save_random_model(tmp_path / "my-model", tokenizer, seed=1)


def other_weights(path: Path, tokenizer) -> Path:
    save_random_model(path, tokenizer, seed=2)
    return path


# ---------------------------------------------------------------------------------------------
# Silent wrong or lost results


def test_a_model_retrained_in_place_is_another_result(retrainable, corpus_file, tmp_path, tokenizer):
    """Before: the same --out returned the old records (the result was keyed by the model's path)."""
    out = extract(retrainable, corpus_file, tmp_path / "run")
    old_ce = ce(out)
    other_weights(retrainable, tokenizer)
    changed = r"another result \(it differs in: model\.directory\.files\.model\.safetensors\).*--force"
    with pytest.raises(RankscaleError, match=changed):
        extract(retrainable, corpus_file, out)
    assert ce(out) == old_ce  # refused: the old result is still there, as the old result
    fresh = extract(retrainable, corpus_file, tmp_path / "fresh")
    assert ce(extract(retrainable, corpus_file, out, force=True)) == ce(fresh) != old_ce


def test_a_corpus_edited_in_place_is_another_result(model_dir, corpus_file, tmp_path, capsys, tokenizer):
    """Before: the same --out returned the records of the old text, and `plan` said 0 extractions."""
    corpus = tmp_path / "notes.jsonl"
    shutil.copy(corpus_file, corpus)
    out = extract(model_dir, corpus, tmp_path / "run")
    other = other_weights(tmp_path / "other", tokenizer)
    # a copy of the model, as a reference beside the family: the same weights, one result
    (tmp_path / "set.toml").write_text(f'[corpora]\n"{corpus}" = {N}\n[[families]]\nname = "F"\n'
                                       f'models = [{{ model = "{model_dir}" }}, {{ model = "{other}" }}]\n'
                                       f'[[references]]\nmodel = "{model_dir}-b"\n')
    shutil.copytree(model_dir, f"{model_dir}-b", dirs_exist_ok=True)
    model_set = get(str(tmp_path / "set.toml"))
    jobs.prepare(model_set, tmp_path / "home", log=lambda *_: None, progress=False)
    assert jobs.plan_commands(model_set, tmp_path / "home") == []
    lines = corpus.read_text().splitlines()
    corpus.write_text("\n".join(reversed(lines)) + "\n")  # the same rows in another order: another text
    with pytest.raises(RankscaleError, match=r"differs in: corpus\.text\.file"):
        extract(model_dir, corpus, out)
    # the model and its copy are one result, the other model another: two commands
    assert len(jobs.plan_commands(model_set, tmp_path / "home")) == 2


def test_a_changed_text_field_seed_or_revision_is_never_taken_for_the_old_result(model_dir, corpus_file, tmp_path,
                                                                                 capsys, tokenizer):
    """Before: --text-field was in neither identity nor manifest (reused); `seed = 7` added to a
    set said "0 extractions to run"; --revision on a local directory was ignored but recorded."""
    corpus = tmp_path / "qa.jsonl"
    corpus.write_text("".join(json.dumps({"question": f"What is {i} squared? " * 8, "answer": f"It is {i * i}. " * 8})
                              + "\n" for i in range(60)))
    out = extract(model_dir, corpus, tmp_path / "run", text_field="question")
    with pytest.raises(RankscaleError, match=r"differs in: corpus\.text\.text_field"):
        extract(model_dir, corpus, out, text_field="answer")
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", corpus, "--tokens", N, "--out",
                      tmp_path / "rev", "--revision", "step1000", "--quiet")
    assert status == 1 and "--revision step1000 names a version of a hub model" in err
    assert not (tmp_path / "rev").exists()

    copy = shutil.copytree(model_dir, tmp_path / "copy")  # the same weights as a reference: one result for both
    other = other_weights(tmp_path / "other", tokenizer)
    body = (f'[corpora]\n"{corpus_file}" = {N}\n[[families]]\nname = "F"\n'
            f'models = [{{ model = "{model_dir}" }}, {{ model = "{other}" }}]\n[[references]]\nmodel = "{copy}"\n')
    (tmp_path / "a.toml").write_text(body)
    (tmp_path / "b.toml").write_text("seed = 7\n" + body)
    home = tmp_path / "home"
    jobs.prepare(get(str(tmp_path / "a.toml")), home, log=lambda *_: None, progress=False)
    assert jobs.plan_commands(get(str(tmp_path / "a.toml")), home) == []
    seeded = jobs.plan_commands(get(str(tmp_path / "b.toml")), home)
    assert len(seeded) == 2 and all("--seed 7" in command for command in seeded)  # the copy's is the model's
    jobs.prepare(get(str(tmp_path / "b.toml")), home, log=lambda *_: None, progress=False)
    outs = {j.out for j in jobs.jobs(get(str(tmp_path / "b.toml")), home)}
    assert len(outs) == 2 and {load_records(out).manifest.identity["seed"] for out in outs} == {7}


def test_a_second_writer_is_refused_and_a_shard_of_another_result_is_never_taken(model_dir, corpus_file, tmp_path,
                                                                                tokenizer):
    """Before: two extract processes on one --out both exited 0; one result was lost, or the
    manifest named one model, said complete, verified every checksum, and held a mix of both
    models' shards."""
    from filelock import FileLock

    out = tmp_path / "run"
    out.mkdir()
    with FileLock(out / ex.LOCK):  # another process holds the folder
        with pytest.raises(RankscaleError, match="another process is writing records into .*choose another --out"):
            extract(model_dir, corpus_file, out)
    assert sorted(p.name for p in out.iterdir()) == [ex.LOCK]  # it wrote nothing there

    other = other_weights(tmp_path / "other", tokenizer)
    mine, theirs = extract(model_dir, corpus_file, out), extract(other, corpus_file, tmp_path / "theirs")
    good = load_records(mine).logp.copy()
    # the race's outcome: a shard of the other model under this result's manifest, its checksum updated
    shutil.copy(theirs / "shard-00001.npz", mine / "shard-00001.npz")
    manifest = Manifest.read(mine)
    manifest.finished(mine).write(mine)
    with pytest.raises(RankscaleError, match="made for another result than .*manifest.json names"):
        load_records(mine)
    np.testing.assert_array_equal(load_records(extract(model_dir, corpus_file, mine)).logp, good)  # repaired


def test_a_manifest_edited_to_name_another_model_is_not_reused_for_it(model_dir, corpus_file, tmp_path, tokenizer):
    """Before: a manifest edited to name another model was reused for that model."""
    other = other_weights(tmp_path / "other", tokenizer)
    truth = ce(extract(other, corpus_file, tmp_path / "truth"))
    forged = extract(model_dir, corpus_file, tmp_path / "forged")
    assert ce(forged) != truth
    manifest = json.loads((forged / MANIFEST).read_text())
    manifest["identity"] = json.loads((tmp_path / "truth" / MANIFEST).read_text())["identity"]
    (forged / MANIFEST).write_text(json.dumps(manifest))
    assert ce(extract(other, corpus_file, forged)) == truth  # every shard recomputed for the model named


@pytest.mark.parametrize("value, held", [(None, "null"), (["a", "list"], "a list"), (17, "a int")])
def test_a_row_without_text_is_an_error_not_a_made_up_document(model_dir, corpus_file, tmp_path, capsys, value, held):
    """Before: a null became the document "None" (half a corpus), a list its Python repr."""
    rows = [json.loads(line) for line in corpus_file.read_text().splitlines()]
    rows[1]["text"] = value
    corpus = tmp_path / "rows.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", corpus, "--out", tmp_path / "run",
                      "--window", 64, "--quiet")
    assert status == 1 and err.count("\n") == 1
    assert f"row 1 of {corpus} holds no text in its 'text' field but {held}" in err and "--text-field" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.slow  # trains two micro ladders
def test_the_ladder_is_identified_by_its_whole_recipe(tmp_path):
    """Before: the ladder's cache identity left out min_lr_ratio, vocab_size, tokenizer_chars,
    lr_width, AdamW's betas and eps and the clip, and a tokenizer.json was reused whenever it
    existed: old models were reused under new settings."""
    from rankscale.models import ladder as ld
    from rankscale.sets.schema import Family, Ladder, LadderSize, LadderTraining, ModelSet

    training = LadderTraining(("humaneval:train",), steps=3, batch_size=2, seq_len=32, vocab_size=300,
                              checkpoint_steps=(), warmup=1, tokenizer_chars=20_000)
    family = Family("NeoX", ladder=Ladder("neox", (LadderSize(16, 1, 1),)))

    def with_training(**changes):
        return ModelSet("micro", (family,), {"humaneval": 100}, training=dataclasses.replace(training, **changes))

    ld.build_ladder(with_training(), tmp_path, progress=False)
    ld.build_ladder(with_training(), tmp_path, progress=False)  # the same recipe: nothing to do
    for change, message in [({"min_lr_ratio": 0.2}, "min_lr_ratio: saved 0.1, now 0.2"),
                            ({"lr_width": 8}, "lr_width: saved 256, now 8"),
                            ({"betas": (0.9, 0.99)}, r"betas: saved \[0.9, 0.95\], now \[0.9, 0.99\]"),
                            ({"eps": 1e-6}, "eps: saved 1e-08, now 1e-06"), ({"clip": 0.5}, "clip: saved 1.0, now 0.5"),
                            ({"vocab_size": 280}, "vocab_size: saved 300, now 280"),
                            ({"tokenizer_chars": 10_000}, "tokenizer_chars: saved 20000, now 10000")]:
        with pytest.raises(RankscaleError, match=f"another recipe .*{message}.*train the ladder again"):
            ld.build_ladder(with_training(**change), tmp_path, progress=False)
    # the tokenizer alone, with no model left to say so, is refused too
    shutil.rmtree(tmp_path / "models" / "micro" / "neox")
    with pytest.raises(RankscaleError,
                       match=r"tokenizer was trained with another recipe .*vocab_size: saved 300, now 280"):
        ld.build_ladder(with_training(vocab_size=280), tmp_path, progress=False)


def test_rbp_needs_a_k_of_at_least_one(model_dir, corpus_file, tmp_path, capsys):
    """Before: `metrics --k 0 -3` printed RBP_0 and RBP_-3 as 0."""
    out = extract(model_dir, corpus_file, tmp_path / "run")
    with pytest.raises(SystemExit) as stop:
        main(["metrics", str(out), "--k", "0", "-3"])
    assert stop.value.code == 2 and "expected a whole number of at least 1, got '0'" in capsys.readouterr().err
    assert main(["metrics", str(out), "--k", "1", "5"]) == 0 and "rbp_5" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# Errors that were tracebacks or named the wrong cause, and the --out they left behind


def test_a_full_disk_is_one_line_and_keeps_what_can_resume(model_dir, corpus_file, tmp_path, capsys, monkeypatch):
    """Before: a traceback (OSError: No space left on device)."""
    room = []  # how many more shards fit on the disk

    def disk_fills(path, arrays, identity):
        if not room:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        room.pop()
        write_shard(path, arrays, identity)

    monkeypatch.setattr(ex, "write_shard", disk_fills)
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", corpus_file, "--tokens", N, "--window", 64,
                      "--quiet", "--out", tmp_path / "run")
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "No space left on device" in err and "free some space, then run the same command again" in err
    assert not (tmp_path / "run").exists()  # nothing written, nothing left
    room.append(1)
    with pytest.raises(RankscaleError, match="No space left on device"):
        extract(model_dir, corpus_file, tmp_path / "run")
    with pytest.raises(RankscaleError, match="incomplete"):  # the shard written is kept, and is no result
        load_records(tmp_path / "run")
    monkeypatch.setattr(ex, "write_shard", write_shard)
    assert len(load_records(extract(model_dir, corpus_file, tmp_path / "run"))) == N


def test_an_out_that_cannot_be_written_is_one_line(model_dir, corpus_file, tmp_path, capsys, monkeypatch):
    """Before: tracebacks for a read-only --out and for --out naming a file, each leaving an
    empty --out behind where it could."""
    args = ["extract", "--model", model_dir, "--corpus", corpus_file, "--tokens", N, "--window", 64, "--quiet"]
    (tmp_path / "a-file").write_text("not a folder")
    status, err = cli(capsys, *args, "--out", tmp_path / "a-file")
    assert status == 1 and "--out " in err and "is a file; give the path of a directory" in err
    status, err = cli(capsys, *args, "--out", tmp_path / "a-file" / "run")
    assert status == 1 and "a part of the --out path is a file" in err

    real_mkdir = Path.mkdir

    def read_only(self, *a, **k):  # as root no permission stops a write, so the file system says it
        if self.name == "ro":
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        return real_mkdir(self, *a, **k)

    monkeypatch.setattr(Path, "mkdir", read_only)
    status, err = cli(capsys, *args, "--out", tmp_path / "ro")
    assert status == 1 and err.count("\n") == 1 and "Read-only file system" in err
    assert "choose an --out in a folder you can write to" in err and not (tmp_path / "ro").exists()


def test_bad_corpora_and_load_options_are_one_line(model_dir, tmp_path, capsys):
    """Before: an empty .jsonl raised StopIteration, an unknown --model-args key a TypeError."""
    (tmp_path / "empty.jsonl").write_text("")
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", tmp_path / "empty.jsonl", "--tokens", N,
                      "--out", tmp_path / "run", "--quiet")
    assert status == 1 and err.count("\n") == 1 and "empty.jsonl is empty" in err
    (tmp_path / "blank.jsonl").write_text("\n\n")
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", tmp_path / "blank.jsonl", "--tokens", N,
                      "--out", tmp_path / "run", "--quiet")
    assert status == 1 and err.count("\n") == 1 and "holds no rows" in err
    (tmp_path / "docs.txt").write_text("some text to read " * 200)
    status, err = cli(capsys, "extract", "--model", model_dir, "--corpus", tmp_path / "docs.txt", "--tokens", N,
                      "--out", tmp_path / "run", "--model-args", "no_such_option=1", "--window", 64, "--quiet")
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "from_pretrained refused the load options no_such_option" in err and "remove the ones" in err
    assert not (tmp_path / "run").exists()


def test_a_mistyped_path_and_a_model_without_tokenizer_are_named_for_what_they_are(model_dir, corpus_file, tmp_path,
                                                                                    capsys, monkeypatch):
    """Before: a mistyped local path was told the hub is unreachable; a model directory without
    tokenizer files was told the corpus has 0 predictable tokens."""
    (tmp_path / "runs" / "small").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    status, err = cli(capsys, "extract", "--model", "runs/smal", "--corpus", corpus_file, "--tokens", N,
                      "--out", tmp_path / "run", "--quiet")
    assert status == 1 and "no model at 'runs/smal'" in err and "hub" not in err.split(";")[0]
    bare = tmp_path / "bare"
    shutil.copytree(model_dir, bare)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (bare / name).unlink(missing_ok=True)
    status, err = cli(capsys, "extract", "--model", bare, "--corpus", corpus_file, "--tokens", N,
                      "--out", tmp_path / "run", "--quiet")
    assert status == 1 and "holds no tokenizer files" in err and "--model-args tokenizer=" in err
    assert "predictable tokens" not in err and not (tmp_path / "run").exists()
    status, err = cli(capsys, "extract", "--model", bare, "--corpus", corpus_file, "--tokens", N, "--window", 64,
                      "--model-args", f"tokenizer={model_dir}", "--out", tmp_path / "run", "--quiet")
    assert status == 0, err  # the tokenizer named from elsewhere, and part of the identity by its content
    assert "directory" in load_records(tmp_path / "run").manifest.identity["load"]["tokenizer"]


def test_force_replaces_a_manifest_cut_short(model_dir, corpus_file, tmp_path, capsys):
    """Before: --force refused a truncated manifest ("not valid JSON")."""
    out = extract(model_dir, corpus_file, tmp_path / "run")
    (out / MANIFEST).write_text((out / MANIFEST).read_text()[:100])
    with pytest.raises(RankscaleError, match="not valid JSON.*--force"):
        extract(model_dir, corpus_file, out)
    assert len(load_records(extract(model_dir, corpus_file, out, force=True))) == N


@pytest.mark.parametrize("case", ["window", "model", "corpus", "interrupt"])
def test_a_failure_leaves_no_out_folder_behind(model_dir, corpus_file, tmp_path, monkeypatch, case):
    """Before: every failure left an empty --out behind."""
    out = tmp_path / "run"
    if case == "window":  # found once the model is loaded
        call = dict(model=model_dir, corpus=corpus_file, out=out, window_len=1000)
    elif case == "model":
        call = dict(model=tmp_path / "missing", corpus=corpus_file, out=out)
    elif case == "corpus":
        call = dict(model=model_dir, corpus=corpus_file, out=out, n_tokens=10**7)
    else:
        def interrupt(*args, **kwargs):
            raise KeyboardInterrupt
        monkeypatch.setattr(ex, "rank_records", interrupt)
        call = dict(model=model_dir, corpus=corpus_file, out=out)
    with pytest.raises((RankscaleError, KeyboardInterrupt)):
        extract(call.pop("model"), call.pop("corpus"), call.pop("out"), **call)
    assert not out.exists()
