"""Trust, second round (issue 48): a result is identified by every file its load reads, a family lists no model
twice under two paths, and no family takes a name the chapters give a group of their own. Each test says in its
docstring what happened before; each walks every case of its kind (every load option that names files, every
reserved name), so that a case added later is caught too."""

from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import save_random_model

from rankscale import RankscaleError
from rankscale.cli import main
from rankscale.corpora import get_corpus
from rankscale.hub import hub_cache_dir
from rankscale.models.source import ModelSource, locate
from rankscale.records import extract as ex
from rankscale.records import jobs
from rankscale.records.identity import differences, result_identity
from rankscale.records.store import load_records
from rankscale.sets import get, toml_sets
from rankscale.sets.schema import FILE_OPTIONS, MODEL_OPTIONS, SET_BY_RANKSCALE, Family, ModelSet, check_load_options

N = 300  # target tokens of every extraction here


def extract(model, corpus, out, **kw):
    return ex.extract(str(model), str(corpus), N, out, window_len=64, shard_tokens=100, progress=False, **kw)


def ce(out) -> float:
    return float(-load_records(out).logp.astype(np.float64).mean())


def family_set(path: Path, corpus, *models: str, name: str = "F") -> Path:
    """A TOML set of one family of ``models`` (TOML inline tables, without braces) on ``corpus``."""
    listed = ", ".join(f"{{ {m} }}" for m in models)
    path.write_text(f'[corpora]\n"{corpus}" = {N}\n[[families]]\nname = "{name}"\nmodels = [{listed}]\n')
    return path


def cache_ref(cache: Path, hub_id: str, ref: str, commit: str) -> None:
    """The hub cache's ``refs/<ref>`` of ``hub_id`` naming ``commit``, as a download leaves it."""
    refs = cache / f"models--{hub_id.replace('/', '--')}" / "refs"
    refs.mkdir(parents=True, exist_ok=True)
    (refs / ref).write_text(commit)


@pytest.fixture
def hub_cache(tmp_path, monkeypatch) -> Path:
    """An offline hub cache of this test's: a hub id's commit is read from its refs."""
    cache = tmp_path / "hub-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


# ---------------------------------------------------------------------------------------------
# 1. A model's identity is every file its load reads


def test_a_subfolder_with_new_weights_is_another_result(model_dir, corpus_file, tokenizer, tmp_path):
    """Before: ``subfolder=v1`` was identified by the string "v1": with v1/model.safetensors replaced, the same
    command returned the old records (the old CE), and the set's plan said 0 extractions to run."""
    model = shutil.copytree(model_dir, tmp_path / "model")
    save_random_model(model / "v1", tokenizer, seed=1)
    out = extract(model, corpus_file, tmp_path / "run", load={"subfolder": "v1"})
    old = ce(out)
    toml = family_set(tmp_path / "set.toml", corpus_file, f'model = "{model}", load = {{ subfolder = "v1" }}',
                      f'model = "{model_dir}"')
    home = tmp_path / "home"
    jobs.prepare(get(str(toml)), home, log=lambda *_: None, progress=False)
    assert jobs.plan_commands(get(str(toml)), home) == []

    save_random_model(model / "v1", tokenizer, seed=2)  # retrained in its subfolder
    with pytest.raises(RankscaleError, match=r"differs in: load\.subfolder\.directory\.files\.model\.safetensors"):
        extract(model, corpus_file, out, load={"subfolder": "v1"})
    assert ce(extract(model, corpus_file, tmp_path / "fresh", load={"subfolder": "v1"})) != old
    (planned,) = jobs.plan_commands(get(str(toml)), home)  # the subfolder's model only
    assert "subfolder" in planned


def a_folder(path: Path, **files: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


# For each load option that names files (FILE_OPTIONS): the model it loads, the option's value, and a change of
# a file that value points at, made in place (the value stays as it was).
def _tokenizer_folder(tmp, model_dir):
    other = shutil.copytree(model_dir, tmp / "tokenizer", ignore=shutil.ignore_patterns("*.safetensors"))
    return locate(str(model_dir)), str(other), lambda: (other / "tokenizer.json").write_text("{}")


def _tokenizer_hub(tmp, model_dir):  # a hub id: its main branch's commit, moving
    cache_ref(hub_cache_dir(), "org/tok", "main", "a" * 40)
    return locate(str(model_dir)), "org/tok", lambda: cache_ref(hub_cache_dir(), "org/tok", "main", "b" * 40)


def _adapter_folder(tmp, model_dir):
    adapter = a_folder(tmp / "lora", **{"adapter_config.json": '{"r": 8}', "adapter_model.safetensors": "A"})
    return locate(str(model_dir)), str(adapter), lambda: (adapter / "adapter_model.safetensors").write_text("B")


def _adapter_hub(tmp, model_dir):
    cache_ref(hub_cache_dir(), "org/lora", "main", "a" * 40)
    return locate(str(model_dir)), "org/lora", lambda: cache_ref(hub_cache_dir(), "org/lora", "main", "b" * 40)


def _subfolder(tmp, model_dir):
    model = shutil.copytree(model_dir, tmp / "model")
    shutil.copytree(model_dir, model / "v1")
    return locate(str(model)), "v1", lambda: (model / "v1" / "model.safetensors").write_bytes(b"retrained")


def _subfolder_of_a_gguf_file(tmp, model_dir):  # from_pretrained looks for it beside the file
    model = a_folder(tmp / "gguf", **{"m.gguf": "GGUF"})
    a_folder(model / "v1", **{"m.gguf": "GGUF v1"})
    return ModelSource(str(model / "m.gguf"), "gguf"), "v1", lambda: (model / "v1" / "m.gguf").write_text("GGUF v2")


def _code_revision(tmp, model_dir):  # the revision of a hub model's repository its remote code is read at
    cache_ref(hub_cache_dir(), "org/lm", "code-v2", "a" * 40)
    model = ModelSource("org/lm", "hub", None, "c" * 40)
    return model, "code-v2", lambda: cache_ref(hub_cache_dir(), "org/lm", "code-v2", "b" * 40)


NAMED = {"tokenizer": [_tokenizer_folder, _tokenizer_hub], "adapter": [_adapter_folder, _adapter_hub],
         "subfolder": [_subfolder, _subfolder_of_a_gguf_file], "code_revision": [_code_revision]}


def test_changing_a_file_any_option_names_changes_the_identity(model_dir, tmp_path, hub_cache):
    """Before: only ``tokenizer`` and ``adapter`` were identified by content; ``subfolder`` and ``code_revision``
    were their strings, so new files under them gave the old result. Now a change of any file (or commit) that
    any option of FILE_OPTIONS names is another result, named in ``differences``; a hub model's folders stay
    names, its commit holding them."""
    assert set(NAMED) == set(FILE_OPTIONS)  # a case for each
    corpus = get_corpus("pydocs")

    def identity(model, load):
        return result_identity(model, corpus, 100, load=load, window_len=64, seed=42, dtype="float32",
                               temperature=1.0)

    for i, (option, case) in enumerate((o, c) for o, cases in NAMED.items() for c in cases):
        model, value, change = case(tmp_path / str(i), model_dir)
        before = identity(model, {option: value})
        assert identity(model, {option: value}) == before, case.__name__  # nothing changed: the same result
        change()
        after = identity(model, {option: value})
        assert after != before, f"{case.__name__}: new files under {option}={value} gave the old result"
        assert all(d.startswith(f"load.{option}") for d in differences(before, after)), case.__name__
    cache_ref(hub_cache, "org/lm", "main", "a" * 40)
    hub = identity(locate("org/lm"), {"subfolder": "v1"})
    assert hub["model"] == {"hub": "org/lm", "commit": "a" * 40} and hub["load"] == {"subfolder": "v1"}


def loader_arguments() -> set[str]:
    """Every argument the installed transformers' loaders take that load options reach: the parameters and the
    keyword arguments they read (``kwargs.pop``/``kwargs.get``) of AutoModelForCausalLM.from_pretrained,
    PreTrainedModel.from_pretrained, the config's loaders (the options left over go to them) and the tokenizer's
    (``trust_remote_code`` reaches it). peft's PeftModel.from_pretrained is given the adapter alone."""
    from transformers import AutoConfig, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase
    from transformers.configuration_utils import PreTrainedConfig
    from transformers.models.auto.auto_factory import _BaseAutoModelClass

    found = set()
    for loader in (_BaseAutoModelClass.from_pretrained, PreTrainedModel.from_pretrained, AutoConfig.from_pretrained,
                   PreTrainedConfig.from_pretrained, PreTrainedConfig.get_config_dict,
                   PreTrainedConfig._get_config_dict, AutoTokenizer.from_pretrained,
                   PreTrainedTokenizerBase.from_pretrained):
        found |= {p.name for p in inspect.signature(loader).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        found |= set(re.findall(r"""kwargs\.(?:pop|get)\(\s*["'](\w+)["']""", inspect.getsource(loader)))
    return found


# Every other argument of those loaders, and why it names no file that the identity would miss. A new argument of
# transformers is in none of the lists: classify it (FILE_OPTIONS, rankscale.sets.schema, if it names files).
NAMES_NO_FILE = {
    "cache_dir": "where hub downloads are kept: what is read there is the commit the model's identity names",
    "offload_folder": "where weights offloaded to disk are written, never read as input (rankscale refuses "
                      "offloading to disk)",
    "variant": "picks among the model's own files (model.<variant>.safetensors), all of them in its identity",
    "use_safetensors": "picks among the model's own files, all of them in its identity",
    "state_dict": "weights in memory: not a scalar, refused",
    "generation_config": "an object: not a scalar, refused (and generation is not used)",
    "quantization_config": "an object or table: not a scalar, refused",
    "adapter_kwargs": "a table: not a scalar, refused",
    "key_mapping": "a table: not a scalar, refused",
    "fusion_config": "a table: not a scalar, refused",
    "max_memory": "a table: not a scalar, refused",
    "proxies": "a table: not a scalar, refused",
    "device_mesh": "an object: not a scalar, refused",
    "distributed_config": "an object: not a scalar, refused",
    "kernel_config": "an object: not a scalar, refused",
    "tqdm_class": "a class: not a scalar, refused",
    "adapter_name": "a name within the model",
    "attn_implementation": "a kernel's name, a value",
    "experts_implementation": "a kernel's name, a value",
    "use_kernels": "a switch, a value",
    "allow_all_kernels": "a switch, a value",
    "tp_plan": "how the model is split over devices",
    "tp_size": "how the model is split over devices",
    "offload_buffers": "a switch of offloading, refused where it would happen",
    "ignore_mismatched_sizes": "a switch, a value",
    "force_download": "downloads the same commit again",
    "token": "a credential: what is read is the commit the identity names",
    "output_loading_info": "a switch, a value",
    "weights_only": "a switch of unpickling, a value",
    "disable_mmap": "how the same files are read",
    "trust_remote_code": "a switch; the code is read from the model's own files or commit",
    "use_fast": "the tokenizer's, which load options do not reach",
    "tokenizer_type": "the tokenizer's, which load options do not reach",
    "mistral_format": "the tokenizer's, which load options do not reach",
}


def test_the_options_that_name_files_are_every_one_the_installed_loaders_take():
    """The list is read off the installed transformers: an argument it adds fails here until it is classified."""
    found = loader_arguments()
    unclassified = {a for a in found - set(FILE_OPTIONS) - set(SET_BY_RANKSCALE) - set(NAMES_NO_FILE)
                    if not a.startswith("_")}
    assert not unclassified, f"arguments of from_pretrained classified nowhere: {sorted(unclassified)}"
    assert set(FILE_OPTIONS) - set(MODEL_OPTIONS) <= found  # the ones of transformers are still its arguments
    assert {"config", "gguf_file", "revision", "pretrained_model_name_or_path"} <= set(SET_BY_RANKSCALE) & found


def test_an_option_that_would_load_other_files_than_the_identity_names_is_refused():
    """Before: private arguments of transformers passed as load options (``_commit_hash``: another commit than the
    identity's; ``_configuration_file``: another config), and so did ``pretrained_model_name_or_path``. Every
    argument that rankscale sets itself (the model, its config, GGUF file and revision among them) is refused."""
    for option in [*SET_BY_RANKSCALE, "_commit_hash", "_configuration_file", "pretrained_model_name_or_path"]:
        with pytest.raises(RankscaleError, match=rf"^load option {option}: .*(instead|remove it)$"):
            check_load_options({option: "x"})


# ---------------------------------------------------------------------------------------------
# 2. The same weights twice in a family under two paths


def test_a_copy_of_a_model_in_its_own_family_is_refused(model_dir, corpus_file, tmp_path, capsys):
    """Before: a folder and its copy were accepted as two models of a family (checked by path, while the identity
    is by content): one result, fitted as two sizes."""
    copy = shutil.copytree(model_dir, tmp_path / "copy")
    toml = family_set(tmp_path / "set.toml", corpus_file, f'model = "{model_dir}"', f'model = "{copy}"')
    assert main(["check-profile", str(toml)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"families[0] ('F').models[1]: the same model as models[0] ({model_dir} and " \
                                   f"{copy} hold the same files" in err and "list each model once" in err, err
    with pytest.raises(RankscaleError, match="the same model as models"):
        get(str(toml))


def test_the_same_files_are_found_under_every_kind_of_model_and_load_option(model_dir, corpus_file, tmp_path,
                                                                            tokenizer):
    """A GGUF file and its copy; a folder and its copy, both through the same subfolder or with copied tokenizers;
    but the same folder through two subfolders of other weights, or with other load options, is two models."""
    (tmp_path / "a.gguf").write_bytes(b"GGUF" + bytes(64))
    shutil.copy(tmp_path / "a.gguf", tmp_path / "b.gguf")
    model = shutil.copytree(model_dir, tmp_path / "model")
    save_random_model(model / "v1", tokenizer, seed=1)
    save_random_model(model / "v2", tokenizer, seed=2)
    copy = shutil.copytree(model, tmp_path / "copy")
    tokens = [shutil.copytree(model_dir, tmp_path / f"tok{i}", ignore=shutil.ignore_patterns("*.safetensors"))
              for i in (1, 2)]
    same = {
        "gguf": ('model = "a.gguf"', 'model = "b.gguf"'),
        "subfolder": (f'model = "{model}", load = {{ subfolder = "v1" }}',
                      f'model = "{copy}", load = {{ subfolder = "v1" }}'),
        "tokenizer": (f'model = "{model}", load = {{ tokenizer = "{tokens[0]}" }}',
                      f'model = "{copy}", load = {{ tokenizer = "{tokens[1]}" }}'),
    }
    for kind, models in same.items():
        with pytest.raises(RankscaleError, match=r"models\[1\]: the same model as models\[0\] \(.* hold the same"):
            get(str(family_set(tmp_path / f"{kind}.toml", corpus_file, *models)))
    apart = [(f'model = "{model}", load = {{ subfolder = "v1" }}', f'model = "{copy}", load = {{ subfolder = "v2" }}'),
             (f'model = "{model}"', f'model = "{copy}", load = {{ attn_implementation = "eager" }}')]
    for models in apart:
        assert len(get(str(family_set(tmp_path / "apart.toml", corpus_file, *models))).families[0].models) == 2


def test_a_family_of_models_of_other_sizes_is_checked_without_reading_a_weight(model_dir, corpus_file, tmp_path,
                                                                              tokenizer, monkeypatch):
    """The check costs a stat per file: only models whose files agree in every size are hashed."""
    other = save_random_model(tmp_path / "other", tokenizer, family="gpt2")
    copy = shutil.copytree(model_dir, tmp_path / "copy")
    hashed = []
    monkeypatch.setattr(toml_sets, "file_sha256", lambda path: hashed.append(Path(path).name) or "sha")
    assert len(get(str(family_set(tmp_path / "set.toml", corpus_file, f'model = "{model_dir}"',
                                  f'model = "{other}"'))).families[0].models) == 2
    assert hashed == []
    with pytest.raises(RankscaleError, match="hold the same files"):
        get(str(family_set(tmp_path / "set.toml", corpus_file, f'model = "{model_dir}"', f'model = "{copy}"')))
    assert "model.safetensors" in hashed


# ---------------------------------------------------------------------------------------------
# 3. Names the package gives groups of its own


def chapters_group_names() -> set[str]:
    """Every constant by which a chapter, or the book's scorecard, names a group beside the families."""
    from rankscale.analysis import fit
    from rankscale.book import scorecard
    from rankscale.claims import a1, a5, b1, b3, base

    return {fit.POOLED, base.POOLED, b3.PAPER_POOLED, a1.REFERENCE, a5.REFERENCE, b1.REFERENCE, scorecard.REFERENCE}


@pytest.mark.parametrize("spelt", [str, str.lower, str.upper, str.title], ids=lambda f: f.__name__)
def test_a_family_named_as_a_group_of_the_chapters_is_refused(spelt, model_dir, corpus_file, tmp_path, tokenizer,
                                                              capsys):
    """Before: a family named "All" passed check-profile; verdicts then raised in B3.9, and B4 and B5 silently
    put the family in the place of the pooled fit; a family "reference" was taken for the reference models.
    Now every name a chapter gives a group of its own is refused, in any case, by check-profile (one line) and by
    the Python API."""
    other = save_random_model(tmp_path / "other", tokenizer, seed=1)
    for used in sorted(chapters_group_names()):
        name = spelt(used)
        toml = family_set(tmp_path / "set.toml", corpus_file, f'model = "{model_dir}"', f'model = "{other}"',
                          name=name)
        capsys.readouterr()
        assert main(["check-profile", str(toml)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"set.toml: families[0].name: family name {name!r}" in err, err
        assert f"{used!r}; give the family another name" in err, err
        with pytest.raises(RankscaleError, match=f"family name {name!r}: the chapters name .* {used!r}"):
            ModelSet("mine", (Family(name, get("tiny").families[0].models),), corpora={"pydocs": None})
    with pytest.raises(RankscaleError, match="a family has no name"):  # a reference model's family
        Family("")
