"""Runs of a model set: where each result lives, what counts as done, the cluster plan, and
results computed elsewhere used as they are."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import save_random_model

from rankscale import RankscaleError
from rankscale.cli import main
from rankscale.records import jobs, runs, store
from rankscale.sets import get


@pytest.fixture(scope="module")
def user_set(tmp_path_factory, tokenizer, corpus_file):
    """A TOML set of two families of local directories (random GPT-NeoX models, each of its own
    seed) on one corpus file, and an empty home for its results."""
    root = tmp_path_factory.mktemp("user-set")
    for family in ("a", "b"):
        for seed in (1, 2):
            save_random_model(root / family / f"m{seed}", tokenizer, seed=seed + 2 * (family == "b"))
    shutil.copy(corpus_file, root / "docs.jsonl")
    (root / "set.toml").write_text("""
[corpora]
"docs.jsonl" = 300

[[families]]
name = "A"
models = [{ model = "a/m1" }, { model = "a/m2", checkpoints = [{ step = 0, model = "b/m1" }] }]

[[families]]
name = "B"
models = [{ model = "b/m1" }, { model = "b/m2" }]
""")
    return str(root / "set.toml"), tmp_path_factory.mktemp("home")


def test_jobs_list_every_model_checkpoint_and_corpus_in_set_order(user_set):
    profile, home = user_set
    found = jobs.jobs(get(profile), home)
    assert [(j.family, j.name, j.step) for j in found] == [("A", "m1", None), ("A", "m2", None), ("A", "m2", 0),
                                                          ("B", "m1", None), ("B", "m2", None)]
    assert all(j.out.is_relative_to(home / "results" / "local") for j in found)
    assert all(j.out.name.startswith("file-300-") for j in found)  # a corpus file is named by its content
    # the checkpoint is the weights of b/m1: the same result folder as that model's
    assert found[2].out == found[3].out and len({j.out for j in found}) == 4


def test_prepare_then_runs_by_family(user_set):
    profile, home = user_set
    lines = []
    jobs.prepare(get(profile), home, log=lines.append, progress=False)
    assert len(lines) == 1 and lines[0].startswith("extract: 4 results computed in "), lines
    corpus = next(iter(get(profile).corpora))
    family = runs.family_runs(get(profile), corpus, home)
    assert [(r.family, r.name) for r in family] == [("A", "m1"), ("A", "m2"), ("B", "m1"), ("B", "m2")]
    assert list(runs.by_family(family)) == ["A", "B"] and all(len(r.records) == 300 for r in family)
    assert not np.array_equal(family[0].records.logp, family[1].records.logp)
    (checkpoint,) = runs.checkpoint_runs(get(profile), corpus, home)
    assert (checkpoint.family, checkpoint.name, checkpoint.step) == ("A", "m2", 0)
    np.testing.assert_array_equal(checkpoint.records.logp, family[2].records.logp)
    assert runs.reference_runs(get(profile), corpus, home) == []
    again = []
    jobs.prepare(get(profile), home, log=again.append, progress=False)
    assert again == ["extract: all 4 results are on disk"]


def test_jobs_of_one_model_stay_together_and_the_costliest_start_first(user_set, tmp_path):
    """Extraction in processes takes a model's jobs as one task; a result two jobs ask for (the
    checkpoint that is b/m1's weights) is computed once; a larger model or more tokens go first."""
    profile, home = user_set
    found = jobs.jobs(get(profile), home)
    groups = jobs._by_model(found)
    # five jobs, four results: B/m1's job is the checkpoint's; equal models keep the set's order
    assert [[(j.family, j.name, j.step) for j in group] for group in groups] == [
        [("A", "m1", None)], [("A", "m2", None)], [("A", "m2", 0)], [("B", "m2", None)]]
    # the same models on another corpus: one task per model, its corpora in order
    other = [dataclasses.replace(job, corpus="other", out=job.out.with_name("other-" + job.out.name)) for job in found]
    by_model = jobs._by_model(found + other)
    assert len(by_model) == 4 and [[j.corpus for j in g] for g in by_model][0] == [found[0].corpus, "other"]
    # a file of more bytes or more target tokens costs more
    big = tmp_path / "big.gguf"
    big.write_bytes(b"x" * 10**8)
    costly = dataclasses.replace(found[-1], source=str(big), out=tmp_path / "big-result")
    assert jobs._by_model(found + [costly])[0] == [costly]
    longer = dataclasses.replace(found[-1], n_tokens=10**6, out=tmp_path / "long-result")
    assert jobs._by_model(found + [longer])[0] == [found[-1], longer]


@pytest.mark.slow  # two spawned worker processes
def test_models_extracted_in_processes_give_the_same_records(user_set, tmp_path):
    """Two workers of one thread each write the ranks one process with every thread writes, and
    the log-probabilities up to float rounding; each manifest says how many threads made it."""
    profile, home = user_set
    jobs.prepare(get(profile), home, log=lambda *_: None, progress=False)
    lines = []
    jobs.prepare(get(profile), tmp_path, log=lines.append, progress=False, workers=2)
    assert len(lines) == 1 and lines[0].startswith("extract: 4 results computed in "), lines
    one, two = (sorted((h / "results").rglob("manifest.json")) for h in (home, tmp_path))
    assert [p.relative_to(home) for p in one] == [p.relative_to(tmp_path) for p in two] and len(one) == 4
    for a, b in zip(one, two):
        ra, rb = store.load_records(a.parent), store.load_records(b.parent)
        for name in ("gt", "ge", "target", "window"):
            assert np.array_equal(getattr(ra, name), getattr(rb, name)), (a.parent.name, name)
        for name in ("logp", "top_logp"):
            np.testing.assert_allclose(getattr(ra, name), getattr(rb, name), rtol=0, atol=1e-4)
        assert rb.manifest.provenance["threads"] == max(1, (os.cpu_count() or 1) // 2)
    again = []
    jobs.prepare(get(profile), tmp_path, log=again.append, progress=False, workers=2)
    assert again == ["extract: all 4 results are on disk"]


@pytest.mark.slow  # an extract command in a subprocess
def test_a_result_computed_elsewhere_is_used_as_it_is(user_set, tmp_path, monkeypatch):
    """The cluster route: `plan` prints independent extract commands writing under another root;
    that folder copied into the home's results/ is then found, whatever dtype it was computed in
    (a GPU node resolves the set's dtype auto to bfloat16)."""
    profile, home = user_set
    jobs.prepare(get(profile), home, log=lambda *_: None, progress=False)
    fresh = tmp_path / "fresh-home"
    commands = jobs.plan_commands(get(profile), fresh, results=tmp_path / "scratch")
    assert len(commands) == 4 and all("--out " + shlex.quote(str(tmp_path / "scratch")) in c for c in commands)
    # run one command as a cluster task on a GPU node would (a subprocess of the CLI, bf16 body)
    args = shlex.split(commands[0])
    assert args[:4] == [sys.executable, "-m", "rankscale", "extract"] and args[args.index("--dtype") + 1] == "auto"
    args[args.index("--dtype") + 1] = "bfloat16"
    done = subprocess.run([*args, "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "scratch" / jobs.jobs(get(profile), fresh)[0].out.relative_to(fresh / "results")
    assert json.loads((out / "manifest.json").read_text())["identity"]["dtype"] == "bfloat16"
    shutil.copytree(tmp_path / "scratch", fresh / "results")
    assert len(jobs.plan_commands(get(profile), fresh)) == 3  # the copied result counts as done
    monkeypatch.setattr("rankscale.records.extract.load_model", lambda *a, **k: pytest.fail("recomputed a finished result"))
    first = jobs.jobs(get(profile), fresh, checkpoints=False)[0]
    assert jobs.is_done(first)
    main(["plan", profile])  # prints, computes nothing


def test_a_replaced_local_model_gets_a_new_result_folder(user_set, tokenizer):
    profile, home = user_set
    job = jobs.jobs(get(profile), home)[0]
    assert jobs.jobs(get(profile), home)[0].out == job.out  # reading the model changes nothing
    save_random_model(job.source, tokenizer, seed=99)  # retrained in place
    again = jobs.jobs(get(profile), home)[0]
    assert again.out != job.out and again.identity["model"] != job.identity["model"]
    save_random_model(job.source, tokenizer, seed=1)  # the first weights back: the first result again
    assert jobs.jobs(get(profile), home)[0].out == job.out


def test_hub_results_are_keyed_by_id_and_commit(tmp_path, monkeypatch):
    """Two revisions naming the same commit are one result; the revision's name is no part of it."""
    from rankscale.corpora import get_corpus
    from rankscale.models.source import locate
    from rankscale.records.identity import result_identity

    cache = tmp_path / "hub-cache"
    (cache / "models--org--lm" / "refs").mkdir(parents=True)
    for ref in ("main", "step1000"):
        (cache / "models--org--lm" / "refs" / ref).write_text("c" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def folder(revision):
        identity = result_identity(locate("org/lm", revision), get_corpus("pydocs"), 100, load={}, window_len=64,
                                   seed=42, dtype="auto", temperature=1.0)
        return jobs.result_dir(tmp_path, identity)

    assert folder(None) == folder("step1000") == folder("c" * 40)
    assert folder(None).parent == tmp_path / "results" / "hub" / "org--lm" / ("c" * 12)
    assert folder("d" * 40) != folder(None)


def test_a_corpus_the_set_does_not_evaluate(user_set):
    profile, home = user_set
    with pytest.raises(RankscaleError, match="does not evaluate corpus 'pydocs'"):
        runs.family_runs(get(profile), "pydocs", home)


def test_token_texts_and_labels(tmp_path, tokenizer, monkeypatch):
    """A run's target tokens decode with its model's tokenizer.json (a local directory, or the
    hub cache for a hub id), and nothing is decoded where no tokenizer can be found."""
    from rankscale.records.store import Records

    def run_of(model, revision=None, family="F", step=None):
        identity = {"hub": model, "commit": revision} if "/" in model and not model.startswith("/") else {"gguf": "x"}
        manifest = SimpleNamespace(identity={"model": identity}, source={"model": model, "revision": revision})
        empty = np.zeros(0)
        return runs.Run(family, "m", step, 1, 2, Records(empty, empty, empty, empty, empty, empty, manifest,
                                                             document=np.zeros(0, np.int64)))

    ids = tokenizer("def main():")["input_ids"]
    tokenizer.save_pretrained(tmp_path / "local")
    texts = runs.token_texts(run_of(str(tmp_path / "local")), ids)
    assert "".join(texts) == tokenizer.decode(ids) and len(texts) == len(ids)
    assert runs.token_texts(run_of(str(tmp_path / "model.gguf")), ids) is None
    cache = tmp_path / "hub-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert runs.token_texts(run_of("org/name", "step16"), ids) is None
    snapshot = cache / "models--org--name" / "snapshots" / "abc123"
    tokenizer.save_pretrained(snapshot)
    (cache / "models--org--name" / "refs").mkdir()
    (cache / "models--org--name" / "refs" / "step16").write_text("abc123")
    assert runs.tokenizer_file(run_of("org/name", "step16")) == snapshot / "tokenizer.json"
    assert runs.tokenizer_file(run_of("org/name")) == snapshot / "tokenizer.json"  # no refs/main: any snapshot
    assert runs.tokenizer_file(run_of("org/name", "step128")) is None
    assert runs.label(run_of("x", family=None)) == "reference: m"
    assert runs.label(run_of("x", step=1000)) == "F: m @ step 1,000"


def test_a_gguf_file_is_keyed_by_its_content(tmp_path):
    """The same GGUF file installed in two places (two clones' environments) shares its results;
    another file at the same path does not."""
    from rankscale.corpora import get_corpus
    from rankscale.models.source import locate
    from rankscale.records.identity import result_identity

    a, b = tmp_path / "a" / "m.gguf", tmp_path / "b" / "m.gguf"
    for path in (a, b):
        path.parent.mkdir()
        path.write_bytes(b"GGUF" + bytes(100))

    def folder(path):
        identity = result_identity(locate(str(path)), get_corpus("pydocs"), 100, load={}, window_len=64, seed=42,
                                   dtype="auto", temperature=1.0)
        return jobs.result_dir(tmp_path, identity)

    assert folder(a) == folder(b) and folder(a).parent.parent == tmp_path / "results" / "gguf"
    b.write_bytes(b"GGUF" + bytes(101))
    assert folder(a) != folder(b)


def test_temperature_demonstration_jobs_and_runs(tmp_path, tokenizer, corpus_file):
    """A set with temperature_tokens extracts its first family's largest model on its first corpus at
    T = 0.5, 1 and 2, on the same tokens: the ranks agree, the probabilities do not; without the
    setting there is no such job."""
    for name, seed in (("s1", 1), ("s2", 2)):
        save_random_model(tmp_path / name, tokenizer, seed=seed)
    shutil.copy(corpus_file, tmp_path / "docs.jsonl")
    body = """
[corpora]
"docs.jsonl" = 300

[[families]]
name = "A"
models = [{ model = "s1" }, { model = "s2" }]
"""
    (tmp_path / "none.toml").write_text(body)
    (tmp_path / "hot.toml").write_text("temperature_tokens = 120\n" + body)
    home = tmp_path / "home"
    assert jobs.temperature_jobs(get(str(tmp_path / "none.toml")), home) == []
    assert runs.temperature_runs(get(str(tmp_path / "none.toml")), home) == {}
    profile = str(tmp_path / "hot.toml")
    found = jobs.temperature_jobs(get(profile), home)
    assert [(j.family, j.name, j.temperature, j.n_tokens) for j in found] == [("A", "s2", t, 120)
                                                                              for t in (0.5, 1.0, 2.0)]
    assert len({j.out for j in found}) == 3 and "-T0.5-" in found[0].out.name
    assert "--temperature 2.0" in found[2].command(get(profile)) and "--temperature" not in found[1].command(get(profile))
    assert len(jobs.plan_commands(get(profile), home)) == 2 + 3
    hot = runs.temperature_runs(get(profile), home)
    assert list(hot) == [0.5, 1.0, 2.0] and all(len(r.records) == 120 for r in hot.values())
    for t in (0.5, 2.0):
        np.testing.assert_array_equal(hot[t].records.gt, hot[1.0].records.gt)
        np.testing.assert_array_equal(hot[t].records.target, hot[1.0].records.target)
        assert not np.allclose(hot[t].records.logp, hot[1.0].records.logp)
        assert hot[t].records.manifest.identity["temperature"] == t
    assert all(jobs.is_done(job) for job in found)
    # a result at another temperature in the folder is not this job's
    hotter = jobs.make_job(get(profile), home, "A", "s2", found[0].source, None, None, found[0].corpus, 120,
                           temperature=3.0)
    assert not jobs.is_done(dataclasses.replace(hotter, out=found[0].out))
    lines = []
    jobs.prepare(get(profile), home, log=lines.append, progress=False)
    assert len(lines) == 1 and lines[0].startswith("extract: 2 results computed"), lines  # the family's two
    jobs.prepare(get(profile), home, log=lines.append, progress=False)
    assert lines[1] == "extract: all 5 results are on disk"


def test_a_result_of_an_older_corpus_text_is_extracted_again(user_set, monkeypatch):
    """Results name the version of an offline corpus's text; after the text changes (a new reST
    stripper) the old results no longer count as done."""
    from rankscale.corpora import SOURCES

    profile, home = user_set
    model_set = get(profile)
    source = jobs.jobs(model_set, home)[0].source
    job = jobs.make_job(model_set, home, "A", "m", source, None, None, "humaneval", 50)
    from rankscale.records.extract import extract

    extract(job.source, "humaneval", 50, job.out, progress=False)
    assert jobs.is_done(job)
    monkeypatch.setitem(SOURCES, "humaneval", dataclasses.replace(SOURCES["humaneval"], text_version=99))
    newer = jobs.make_job(model_set, home, "A", "m", source, None, None, "humaneval", 50)
    assert newer.out != job.out and not jobs.is_done(dataclasses.replace(newer, out=job.out))


def test_make_book_and_the_chapters_extract_on_the_device_chosen(user_set, tmp_path, monkeypatch):
    """`make book` runs `rankscale book`: its device (auto: CUDA where torch sees a GPU) reaches
    every extraction, and so does a chapter's; no GPU is needed to follow the value."""
    from rankscale.book.chapter import open_chapter

    profile, _ = user_set
    monkeypatch.setenv("RANKSCALE_HOME", str(tmp_path))  # nothing extracted yet
    seen = []

    def extract(model, corpus, n_tokens, out, **settings):
        seen.append(settings["device"])
        raise RankscaleError("stopped before any work")

    monkeypatch.setattr("rankscale.records.extract.extract", extract)
    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    assert main(["book", "--profile", profile]) == 1 and seen == ["cuda"]
    # one job: on the CPU two would extract in worker processes, which this test's fake does not reach
    assert main(["book", "--profile", profile, "--device", "cpu", "--jobs", "1"]) == 1 and seen[-1] == "cpu"
    with pytest.raises(RankscaleError, match="stopped"):
        open_chapter(profile, show_header=False, device="cuda:1")
    assert seen[-1] == "cuda:1"
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    assert main(["book", "--profile", profile, "--jobs", "1"]) == 1 and seen[-1] == "cpu"
    assert main(["book", "--profile", profile, "--device", "cuda"]) == 1 and len(seen) == 4  # refused at once


def test_make_book_and_rankscale_ladder_train_on_the_device_chosen(tmp_path, monkeypatch):
    """`--train-device` reaches the ladder's training as one value, from `rankscale book` (through
    `build_book` and `prepare`) and from `rankscale ladder`; the CPU by default. No GPU is needed
    to follow the value."""
    monkeypatch.setenv("RANKSCALE_HOME", str(tmp_path))  # no ladder trained yet
    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    monkeypatch.setattr("torch.cuda.device_count", lambda: 1)
    seen = []

    def build_ladder(model_set, home, progress=True, workers=None, device="cpu"):
        seen.append(device)
        raise RankscaleError("stopped before any work")

    monkeypatch.setattr("rankscale.models.ladder.build_ladder", build_ladder)
    assert main(["book", "--profile", "smoke"]) == 1 and seen == ["cpu"]
    assert main(["book", "--profile", "smoke", "--train-device", "cuda:0"]) == 1 and seen[-1] == "cuda:0"
    assert main(["ladder", "--profile", "smoke", "--train-device", "cuda"]) == 1 and seen[-1] == "cuda"


def test_plan_names_this_interpreter_and_spreads_models_larger_than_one_gpu(user_set, tmp_path, capsys):
    """Each planned command runs the interpreter that planned it; a model whose weights exceed one
    GPU's memory (the registry's count for the papers' models, the config's for others) gets
    --device-map auto."""
    (tmp_path / "big.toml").write_text("""
[corpora]
wikipedia = 1000
[[families]]
name = "Llama"
models = [{ model = "meta-llama/Llama-2-13b-hf" }, { model = "meta-llama/Llama-2-70b-hf" }]
""")
    planned = [shlex.split(c) for c in jobs.plan_commands(get(str(tmp_path / "big.toml")), tmp_path)]
    assert [a[0] for a in planned] == [sys.executable] * 2
    assert [("--device-map", "auto") == tuple(a[a.index("--device-map"):][:2]) if "--device-map" in a else False
            for a in planned] == [False, True]  # 13B in bf16 is 26 GB, 70B 137 GB: more than 80
    assert main(["plan", str(tmp_path / "big.toml"), "--gpu-memory-gb", "24"]) == 0
    assert capsys.readouterr().out.count("--device-map auto") == 2
    profile, home = user_set
    small = jobs.plan_commands(get(profile), tmp_path / "fresh", gpu_memory_gb=80)
    tiny_gpu = jobs.plan_commands(get(profile), tmp_path / "fresh", gpu_memory_gb=1e-6)
    assert len(small) == 4 and not any("--device-map" in c for c in small)
    assert all("--device-map auto" in c for c in tiny_gpu)  # local models: sized from their config
