"""Runs: a model set's records, one per (model or checkpoint, corpus), ready for the chapters.

``family_runs``, ``reference_runs`` and ``checkpoint_runs`` load the records of a set's results
(``rankscale.records.jobs``) for the chapters, ``temperature_runs`` those of chapter B1's temperature
demonstration; a result not on disk yet (a chapter run by hand before ``make book``) is
extracted first::

    runs = runs.family_runs(sets.get("tiny"), "pydocs")      # [Run(family, name, non_embedding, records), ...]
    for family, members in runs.by_family(runs).items(): ...
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rankscale.records.jobs import Job, is_done, jobs, read_manifest, run_job, temperature_jobs
from rankscale.records.store import Records, load_records
from rankscale.sets.schema import ModelSet


@dataclass(frozen=True)
class Run:
    """A finished job's records, with what the chapters show about its model.

    Parameters
    ----------
    family : str or None
        The model's family; None for a reference model.
    name : str
        The model's name in the set.
    step : int or None
        Training step of a checkpoint; None for the model itself.
    non_embedding, total : int
        The model's parameter counts, as its manifest records them.
    records : rankscale.records.store.Records
        Ranks and log-probabilities of every target token.
    note : str
        What the model is (a reference model's ``Model.note``).
    replica : int
        0, or k > 0 for a ladder size's k-th extra training run (``seed_runs``).
    """

    family: str | None
    name: str
    step: int | None
    non_embedding: int
    total: int
    records: Records
    note: str = ""
    replica: int = 0

    @property
    def vocab_size(self) -> int:
        """The tokenizer's real tokens, over which ranks are counted (from the manifest)."""
        return self.records.manifest.vocab_size


# ---------------------------------------------------------------------------------------------
# Loading for the chapters


def _load(job: Job, model_set: ModelSet, device: str) -> Run:
    if not is_done(job):  # a chapter run by hand, before `make book` computed everything
        run_job(job, model_set, device=device)
    records = load_records(job.out)
    return Run(job.family, job.name, job.step, records.manifest.params_non_embedding,
               records.manifest.params_total, records, job.note, job.replica)


def family_runs(model_set: ModelSet, corpus: str, home: Path | None = None, device: str = "auto") -> list[Run]:
    """The families' final models on ``corpus``, family by family in set order, smallest first;
    a result not on disk yet (a chapter run by hand before ``prepare``) is extracted first.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    corpus : str
        One of the set's corpora (``model_set.corpora``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    device : str
        Where a result not on disk yet is extracted (``rankscale.records.jobs.run_job``; ``auto``:
        CUDA where torch sees a GPU, else the CPU).

    Returns
    -------
    list of Run
    """
    return [_load(job, model_set, device)
            for job in jobs(model_set, home, [corpus], references=False, checkpoints=False, seeds=False)]


def seed_runs(model_set: ModelSet, corpus: str, home: Path | None = None, device: str = "auto") -> list[Run]:
    """The extra training runs (seeds) of the ladder sizes that have them (``Ladder.seed_sizes``),
    on ``corpus`` and on the same tokens as ``family_runs``; a result not on disk yet is extracted
    first. They stay outside every size fit: a chapter uses them for the scatter between training
    runs (``rankscale.analysis.bootstrap.resample``'s ``seeds``).

    Parameters
    ----------
    model_set, corpus, home, device
        As ``family_runs``.

    Returns
    -------
    list of Run
        Family by family in set order, each size's runs in seed order, every one with ``replica`` > 0;
        empty for a set without them.
    """
    return [_load(job, model_set, device)
            for job in jobs(model_set, home, [corpus], references=False, checkpoints=False) if job.replica]


def reference_runs(model_set: ModelSet, corpus: str, home: Path | None = None, device: str = "auto") -> list[Run]:
    """The set's reference models on ``corpus`` (never part of a size fit); a result not on
    disk yet is extracted first.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    corpus : str
        One of the set's corpora (``model_set.corpora``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    device : str
        Where a result not on disk yet is extracted (``rankscale.records.jobs.run_job``; ``auto``:
        CUDA where torch sees a GPU, else the CPU).

    Returns
    -------
    list of Run
        In set order, each with ``family`` None; empty for a set without references.
    """
    return [_load(job, model_set, device) for job in jobs(model_set, home, [corpus], families=False, checkpoints=False)]


def checkpoint_runs(model_set: ModelSet, corpus: str, home: Path | None = None, device: str = "auto") -> list[Run]:
    """Every training checkpoint of the families' models on ``corpus``; a result not on disk
    yet is extracted first.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    corpus : str
        One of the set's corpora (``model_set.corpora``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    device : str
        Where a result not on disk yet is extracted (``rankscale.records.jobs.run_job``; ``auto``:
        CUDA where torch sees a GPU, else the CPU).

    Returns
    -------
    list of Run
        Per model, in set order, its steps in training order (the last step of a ladder model
        is the final model); empty for a set without checkpoints.
    """
    return [_load(job, model_set, device) for job in jobs(model_set, home, [corpus], references=False, seeds=False)
            if job.step is not None]


def temperature_runs(model_set: ModelSet, home: Path | None = None, device: str = "auto") -> dict[float, Run]:
    """Chapter B1's temperature demonstration (``rankscale.records.jobs.temperature_jobs``); a result
    not on disk yet is extracted first.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.
    device : str
        Where a result not on disk yet is extracted (``rankscale.records.jobs.run_job``; ``auto``:
        CUDA where torch sees a GPU, else the CPU).

    Returns
    -------
    dict of float to Run
        Temperature -> the run of one model on the set's first corpus, the same tokens at each;
        empty where the set has none.
    """
    return {job.temperature: _load(job, model_set, device) for job in temperature_jobs(model_set, home)}


def by_family(runs: list[Run]) -> dict[str, list[Run]]:
    """Runs grouped by family, in the order the families first appear.

    Parameters
    ----------
    runs : list of Run

    Returns
    -------
    dict of str to list of Run
        Each family's runs, in their order in ``runs``; reference runs under None.

    Examples
    --------
    >>> runs = [Run(f, n, None, 0, 0, None) for f, n in [("NeoX", "d16"), ("Llama", "d16"), ("NeoX", "d32")]]
    >>> {family: [run.name for run in members] for family, members in by_family(runs).items()}
    {'NeoX': ['d16', 'd32'], 'Llama': ['d16']}
    """
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(run.family, []).append(run)
    return groups


def sizes(runs: list[Run]) -> np.ndarray:
    """Non-embedding parameter counts of ``runs``, as floats for log-log fits.

    Parameters
    ----------
    runs : list of Run

    Returns
    -------
    ndarray of float, shape (len(runs),)

    Examples
    --------
    >>> sizes([Run("NeoX", "d16", None, 3328, 9000, None), Run("NeoX", "d32", None, 13056, 30000, None)])
    array([ 3328., 13056.])
    """
    return np.array([run.non_embedding for run in runs], dtype=float)


def models_used(model_set: ModelSet, home: Path | None = None) -> list[dict]:
    """Every model the chapters read, as each executed chapter's metadata records them.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    home : pathlib.Path, optional
        Where models and results live; default ``rankscale.paths.home()``.

    Returns
    -------
    list of dict
        ``{"family", "name", "non_embedding"}`` of the families' final models in set order (a
        ladder size's extra seeds named ``<size>-s<k>``), then of the references (family None),
        from the results of the set's first corpus;
        ``non_embedding`` is None for a result not on disk. Nothing is extracted.

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
    ...     models_used(get(f"{tmp}/mine.toml"), Path(tmp))  # doctest: +NORMALIZE_WHITESPACE
    [{'family': 'Pythia', 'name': 'pythia-70m', 'non_embedding': None},
     {'family': 'Pythia', 'name': 'pythia-160m', 'non_embedding': None}]
    """
    first = next(iter(model_set.corpora))
    out = []
    for job in jobs(model_set, home, [first], checkpoints=False):
        manifest = read_manifest(job.out)
        out.append({"family": job.family, "name": job.name + (f"-s{job.replica}" if job.replica else ""),
                    "non_embedding": None if manifest is None else manifest.params_non_embedding})
    return out


def tokenizer_file(run: Run) -> Path | None:
    """The ``tokenizer.json`` of the model behind ``run``; never downloads.

    Parameters
    ----------
    run : Run

    Returns
    -------
    pathlib.Path or None
        In the model's directory (a ladder or local model), or in the local hub cache (a hub
        model, at the run's revision); None where there is none to read (a GGUF file, a hub
        model whose tokenizer is not cached).
    """
    from rankscale.hub import cached_file

    model = run.records.manifest.identity["model"]
    if "hub" in model:  # the commit the records were made of
        return cached_file(model["hub"], "tokenizer.json", model["commit"])
    path = Path(run.records.manifest.source["model"]) / "tokenizer.json"  # where the model was when read
    return path if path.is_file() else None


def token_texts(run: Run, ids) -> list[str] | None:
    """The text of token ids under the tokenizer of ``run``'s model, one token decoded at a time.

    Parameters
    ----------
    run : Run
    ids : sequence of int
        Token ids.

    Returns
    -------
    list of str or None
        One text per id; None if that tokenizer cannot be found here (``tokenizer_file``).
    """
    path = tokenizer_file(run)
    if path is None:
        return None
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    return [tokenizer.decode([int(i)]) for i in ids]


def label(run: Run) -> str:
    """How tables and panel titles name a run.

    Parameters
    ----------
    run : Run

    Returns
    -------
    str
        ``family: name`` (``reference: name`` for a reference model), with ``@ step N`` for a
        checkpoint and ``(extra seed k)`` for an extra training run.

    Examples
    --------
    >>> label(Run("NeoX", "d16", 1000, 0, 0, None)), label(Run(None, "pythia-70m", None, 0, 0, None))
    ('NeoX: d16 @ step 1,000', 'reference: pythia-70m')
    >>> label(Run("NeoX", "d16", None, 0, 0, None, replica=2))
    'NeoX: d16 (extra seed 2)'
    """
    step = f" @ step {run.step:,}" if run.step is not None else ""
    replica = f" (extra seed {run.replica})" if run.replica else ""
    return f"{run.family or 'reference'}: {run.name}{step}{replica}"

