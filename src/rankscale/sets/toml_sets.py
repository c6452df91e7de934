"""A user's own model set, read from a TOML file, with a one-line error naming the file, the entry
and the fix for every mistake.

The layout::

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
    "notes/held-out.jsonl" = 20000    #   shown as held-out: a file's name less its suffix
    "data/2024/eval.parquet" = { tokens = 50000, name = "eval-2024" }   # or the name given

    [[families]]
    name = "Pythia"
    models = [
      { model = "EleutherAI/pythia-70m" },
      { model = "EleutherAI/pythia-160m", checkpoints = ["step0", "step1000", "step143000"] },
    ]

    [[families]]
    name = "mine"
    load = { trust_remote_code = true }   # optional: load options of every model of the family
    models = [
      { model = "runs/small", name = "small" },
      { model = "runs/large", load = { adapter = "runs/large-lora", attn_implementation = "eager" } },
    ]

    [[references]]
    model = "downloads/model.Q4_K_M.gguf"

Load options (``rankscale.sets.schema.LOAD_OPTIONS``: ``trust_remote_code``,
``attn_implementation``, ``tokenizer``, ``adapter``; any other key goes to ``from_pretrained`` as
it is) are given per family or per model, a model's own overriding its family's. Relative paths
(models, corpora, and a ``tokenizer`` or ``adapter`` that exists there) are read from the TOML
file's folder, a ``subfolder`` from its model's. Everything that would fail, or quietly mean
something else, once models run is refused here: a corpus that is neither a name rankscale knows nor a file, a negative budget, a
setting out of its range (``SETTINGS``), two models of a family (or two references) of one name,
one model listed twice in a family (the same files, under one path or two), and a family named
as the chapters name a group of their own (``rankscale.sets.schema.check_family_name``: ``All``,
``reference``).

Standard library only: the corpus names are checked where ``rankscale.corpora`` can be imported
(not in ``make book``'s first check, before anything is installed), but a key that can only be a
file (``_names_a_file``) must exist in any case.

A corpus is shown by a short name on every heading, figure and table: a corpus rankscale knows by
its own name, a file by its name less its suffix (and a compression's: ``a.jsonl.gz`` is ``a``), an ``hf:`` dataset as written, unless a
table ``{ tokens = ..., name = "..." }`` gives it one (``ModelSet.corpus_sources`` keeps what is read
for it). The name changes no number: a result is identified by the corpus's content. Two corpora of
one name are refused.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from rankscale import RankscaleError
from rankscale.hashing import file_sha256
from rankscale.hub import is_hub_id
from rankscale.sets.builtin import BUILT_IN
from rankscale.sets.schema import (LOAD_OPTIONS, MODEL_OPTIONS, Checkpoint, Family, Model, ModelSet, check_family_name,
                                   check_load_options, directory_identity, load_identity)

_TOP_KEYS = {"name", "corpora", "families", "references", "window", "n_boot", "checkpoint_tokens", "dtype",
             "seed", "temperature_tokens"}


_CORPUS_KEYS = {"tokens", "name"}


_FAMILY_KEYS = {"name", "models", "load"}


_MODEL_KEYS = {"model", "name", "revision", "checkpoints", "note", "load"}


_CHECKPOINT_KEYS = {"step", "revision", "model"}


_STEP_REVISION = re.compile(r"step(\d+)$")


# top-level whole numbers: the least value each takes, what it counts, and what leaving it out gives
SETTINGS = {
    "window": (2, "the tokens per window (a context token and a target)", "512, or the model's maximum length if shorter"),
    "n_boot": (1, "the bootstrap resamples of every fit", "200"),
    "checkpoint_tokens": (1, "the tokens per checkpoint and corpus", "as many as the models"),
    "seed": (0, "the seed of the window sampling", "42"),
}


class _Where:
    """Builds the one-line errors of ``load_toml``: file, entry, problem, fix."""

    def __init__(self, path: Path):
        self.path = path

    def error(self, entry: str, problem: str, fix: str) -> RankscaleError:
        return RankscaleError(f"{self.path}: {entry}: {problem}; {fix}")

    def within(self, entry: str, err: RankscaleError) -> RankscaleError:
        """``err``, a check's one line naming the problem and the fix, placed at ``entry``."""
        return RankscaleError(f"{self.path}: {entry}: {err}")

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
        invalid TOML, an unknown key, no corpus, a corpus that is neither a known name nor a file,
        a negative budget, a setting below its least value (``SETTINGS``), no families, a family
        of fewer than two models or of a reserved name, two models of a family (or two
        references) of one name, one model twice in a family (by its files' content: a copied
        folder too), a local model that does not exist, a malformed checkpoint. Hub ids are
        checked later, by ``require_available``.

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
    tokens, sources, named = {}, {}, {}
    for corpus, value in corpora.items():
        entry = f"corpora.{_toml_key(corpus)}"
        if isinstance(value, dict):
            where.keys(value, _CORPUS_KEYS, entry)
            if "tokens" not in value:
                raise where.error(entry, "no tokens", "give tokens = the target tokens per model (0 for all)")
        table = value if isinstance(value, dict) else {"tokens": value}
        n = where.typed(table["tokens"], int, f"{entry}.tokens" if table is value else entry,
                        "a whole number of tokens (0 for all)")
        if n < 0:
            raise where.error(entry, f"negative ({n})", "give the target tokens per model, or 0 for all")
        source = _toml_corpus(where, base, corpus, entry)
        name = _display_name(where, corpus, source, table, entry)
        if name in named:
            raise where.error(entry, f"shown as {name!r}, as {named[name]} is",
                              'give one of them its own name: { tokens = ..., name = "..." } (a file is shown by '
                              "its name less its suffix unless given one)")
        named[name] = entry
        tokens[name] = n or None
        if source != name:
            sources[name] = source
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
        try:
            check_family_name(name)
        except RankscaleError as err:
            raise where.within(f"{entry}.name", err) from None
        entry = f"families[{i}] ({name!r})"
        models = where.typed(family.get("models", []), list, f"{entry}.models", "an array of tables")
        if len(models) < 2:
            raise where.error(entry, f"has {len(models)} model{'s' * (len(models) != 1)}",
                              "a family is fitted against size and needs at least two models "
                              "(add models, or list a single model under [[references]])")
        shared = _toml_load(where, base, family.get("load", {}), f"{entry}.load")
        members = tuple(_toml_model(where, base, m, f"{entry}.models[{j}]", shared) for j, m in enumerate(models))
        _listed_once(where, members, f"{entry}.")
        _distinct(where, members, f"{entry}.", "models", "model of the family")
        parsed.append(Family(name, members))
    names = [f.name for f in parsed]
    if len(set(names)) < len(names):
        raise where.error("[[families]]", "two families share a name", "give each family its own name")
    references = tuple(_toml_model(where, base, m, f"references[{i}]")
                       for i, m in enumerate(where.typed(data.get("references", []), list, "[[references]]",
                                                         "an array of tables")))
    _distinct(where, references, "", "references", "reference")
    options = {}
    for key, (least, what, default) in SETTINGS.items():
        if key in data:
            wanted = f"a whole number of at least {least}"
            options[key] = where.typed(data[key], int, key, wanted)
            if options[key] < least:
                raise where.error(key, f"{options[key]} is too small",
                                  f"give {what}, {wanted}, or leave it out (default: {default})")
    if "temperature_tokens" in data:
        n = where.typed(data["temperature_tokens"], int, "temperature_tokens", "a whole number of tokens (0 for none)")
        if n < 0:
            raise where.error("temperature_tokens", f"negative ({n})", "give a number of tokens, or 0 for none")
        options["temperature_tokens"] = n
    if "dtype" in data and data["dtype"] not in ("auto", "float32", "bfloat16", "float16"):
        raise where.error("dtype", f"unknown dtype {data['dtype']!r}", "use auto, float32, bfloat16 or float16")
    name = where.typed(data.get("name", path.stem), str, "name", "a string")
    return ModelSet(name, tuple(parsed), tokens, references=references, dtype=data.get("dtype", "auto"),
                    source=str(path.resolve()), corpus_sources=sources, **options)


def _toml_key(key: str) -> str:
    """``key`` as TOML writes it after a dot: bare where it can be, else quoted.

    Examples
    --------
    >>> _toml_key("pydocs"), _toml_key("notes/held-out.jsonl")
    ('pydocs', '"notes/held-out.jsonl"')
    """
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _names_a_file(corpus: str) -> bool:
    """Whether a ``[corpora]`` key can only be a file: it has a folder, ``~`` or a suffix, none of
    which a corpus name has (an ``hf:`` dataset aside, whose config may hold dots).

    Examples
    --------
    >>> [_names_a_file(k) for k in ("data/a.jsonl", "notes.txt", "~/c", "pydocs:train", "c4", "hf:w/w:20231101.en:train")]
    [True, True, True, False, False, False]
    """
    return not corpus.startswith("hf:") and ("/" in corpus or "\\" in corpus or corpus.startswith("~")
                                             or bool(Path(corpus).suffix))


def _display_name(where: _Where, corpus: str, source: str, table: dict, entry: str) -> str:
    """The name a ``[corpora]`` entry is shown by: its ``name``, else a file's name less its suffix and
    a compression's (``notes/held-out.jsonl.gz``: ``held-out``), else the key as written. A corpus rankscale knows
    keeps its own name, by which the chapters find it in the papers' tables.

    Examples
    --------
    >>> where = _Where(Path("mine.toml"))
    >>> _display_name(where, "notes/held-out.jsonl.gz", "/data/notes/held-out.jsonl.gz", {}, "corpora.x")
    'held-out'
    >>> _display_name(where, "pydocs", "pydocs", {}, "corpora.pydocs")
    'pydocs'
    >>> _display_name(where, "pydocs", "pydocs", {"name": "docs"}, "corpora.pydocs")
    Traceback (most recent call last):
    rankscale.RankscaleError: mine.toml: corpora.pydocs: a corpus rankscale knows keeps its own name; give a name only to a file or an hf: dataset
    """
    if "name" in table:
        name = where.typed(table["name"], str, f"{entry}.name", "a string")
        if not name.strip():
            raise where.error(f"{entry}.name", "empty", "give a short name, or leave name out")
        if source == corpus and not corpus.startswith("hf:"):
            raise where.error(entry, "a corpus rankscale knows keeps its own name",
                              "give a name only to a file or an hf: dataset")
        return name
    if source == corpus:  # a name rankscale knows, or an hf: dataset
        return corpus
    name = Path(source)
    if name.suffix in (".gz", ".bz2", ".xz", ".zst"):  # a compressed file: its data suffix goes too
        name = name.with_suffix("")
    return name.stem


def _toml_corpus(where: _Where, base: Path, corpus: str, entry: str) -> str:
    """A ``[corpora]`` key as ``ModelSet.corpora`` holds it: a file beside the TOML file (or at an
    absolute path) made absolute, or a corpus name as written, once ``rankscale.corpora`` knows it.
    A file is never looked for in the working directory, which is not the TOML file's folder when
    the chapters run."""
    local = base / Path(corpus).expanduser()
    if local.is_file():
        return str(local)
    if _names_a_file(corpus):
        raise where.error(entry, f"no file {corpus!r} (looked for {local})",
                          "give the path of an existing data file, relative to this file's folder or absolute")
    try:
        from rankscale.corpora import HUB_DATASETS, SOURCES, get_corpus
    except ImportError:  # numpy is not installed yet (make book's first check): the names are checked later
        return corpus
    if corpus in HUB_DATASETS:  # its local files (RANKSCALE_<NAME>_FILES) are require_available's
        return corpus
    if corpus.startswith("hf:") or corpus.partition(":")[0] in SOURCES:
        try:
            get_corpus(corpus)  # an unknown split or a malformed hf: name raises here, reading nothing
        except RankscaleError as err:
            raise where.error(entry, str(err).rstrip("."), "correct the key in [corpora]") from None
        return corpus
    raise where.error(entry, f"neither a corpus rankscale knows nor a file (looked for {local})",
                      f"use one of {', '.join(SOURCES)} (each also :train or :heldout), {', '.join(HUB_DATASETS)}, "
                      "hf:org/name[:config]:split, or the path of a data file")


def _distinct(where: _Where, models: tuple[Model, ...], prefix: str, listed: str, what: str) -> None:
    """Refuse two of ``models`` (the entries ``<prefix><listed>[j]``) of one name, which tables,
    legends and fits tell apart by name."""
    named = {}
    for j, model in enumerate(models):
        if model.name in named:
            raise where.error(f"{prefix}{listed}[{j}]", f"named {model.name!r}, as {listed}[{named[model.name]}] is",
                              f'give each {what} a name = "..." (a model is named after the last part of its path '
                              "unless given one)")
        named.setdefault(model.name, j)


def _listed_once(where: _Where, models: tuple[Model, ...], prefix: str) -> None:
    """Refuse one model listed twice in a family (the entries ``<prefix>models[j]``), which has no
    size of its own to fit: the same files (``_made_of``) under one path or two, at the same
    revision, with load options that name the same files.

    Hashing every model here would read every weight each time a set is read: a model is first
    identified by the sizes of its files (a ``stat`` each), and hashed (``file_sha256``, read once
    and remembered for its extractions) only where another of the family agrees in every size."""
    by_size = [_made_of(model, _size) for model in models]
    by_content = {}

    def content(i: int) -> dict:
        if i not in by_content:
            by_content[i] = _made_of(models[i], file_sha256)
        return by_content[i]

    for j, model in enumerate(models):
        twin = next((i for i in range(j) if by_size[i] == by_size[j] and content(i) == content(j)), None)
        if twin is None:
            continue
        first = models[twin]
        if first.source == model.source:
            revision = model.revision or ("main" if is_hub_id(model.source) else None)
            how = f"{model.source}{'@' + revision if revision else ''}, same revision and load options"
        else:
            how = f"{first.source} and {model.source} hold the same files, loaded with the same options"
        raise where.error(f"{prefix}models[{j}]", f"the same model as models[{twin}] ({how})",
                          "list each model once (a copy of a model's folder is the same model)")


def _size(path: Path) -> int:
    return path.stat().st_size


def _made_of(model: Model, fingerprint) -> dict:
    """What a model of a set loads, as a result's identity holds it (``rankscale.models.source.ModelSource.identity``
    and ``rankscale.sets.schema.load_identity``, each file by ``fingerprint``), but asking no network: a directory
    holding ``config.json`` by its files, a GGUF file by its content, a hub model by its id and revision (``main``
    unless given). Any other path is no model (listing its jobs refuses it, naming why) and stands for itself."""
    path, hub = Path(model.source), is_hub_id(model.source)
    revision = model.revision or ("main" if hub else None)
    if hub:
        kind, made = "hub", {"hub": model.source, "revision": revision}
    elif path.suffix == ".gguf" and path.is_file():
        kind, made = "gguf", {"gguf": fingerprint(path)}
    elif (path / "config.json").is_file():
        kind, made = "directory", {"directory": directory_identity(path, fingerprint)}
    else:
        return {"path": model.source, "revision": revision, "load": dict(model.load)}
    return {"model": made, "load": load_identity(dict(model.load), model.source, kind, fingerprint=fingerprint,
                                                 resolve=False)}


def _toml_load(where: _Where, base: Path, table, entry: str) -> dict:
    """A ``load`` table checked (``check_load_options``), a ``tokenizer`` or ``adapter`` that
    exists beside the TOML file made absolute."""
    where.typed(table, dict, entry, "a table such as { trust_remote_code = true }")
    try:
        options = check_load_options(table)
    except RankscaleError as err:
        raise where.error(entry, str(err), f"the options rankscale reads are {', '.join(LOAD_OPTIONS)}; "
                                           "others go to from_pretrained as they are") from None
    for key in MODEL_OPTIONS:
        if key in options and (base / options[key]).exists():
            options[key] = str((base / options[key]).resolve())
    return options


def _toml_model(where: _Where, base: Path, table, entry: str, shared: dict | None = None) -> Model:
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
    load = {**(shared or {}), **_toml_load(where, base, table.get("load", {}), f"{entry}.load")}
    return Model(name, source, revision=table.get("revision"), checkpoints=tuple(checkpoints), note=table.get("note", ""),
                 load=tuple(sorted(load.items())))


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
