"""The papers' corpora: Hugging Face hub datasets, or local files standing in for them.

They load through ``datasets.load_dataset`` with the hub ids and splits of the papers' code, or
through the same call from local files named by ``RANKSCALE_<NAME>_FILES`` (the Pile's GitHub
documents only ever come from local files, as for the papers' authors), and carry the papers'
sampling, ``PAPER_SAMPLING``.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from rankscale import RankscaleError
from rankscale.corpora.files import Rows, document, file_format, load_table
from rankscale.corpora.windows import PAPER_SAMPLING


def _pile_github(row: dict) -> bool:
    """GitHub documents of the Pile (meta.pile_set_name) longer than 512 characters."""
    return (row.get("meta") or {}).get("pile_set_name") == "Github" and len(row["text"]) > 512


@dataclass(frozen=True)
class HubDataset:
    """One of the papers' corpora, loaded as the papers' code loads it.

    Parameters
    ----------
    label : str
        The papers' name for it (the ``dataset`` column of their result tables).
    path, config, split : str or None
        What ``datasets.load_dataset`` is given; ``path`` None: local files only.
    fields : tuple of str
        Columns joined by newlines into one document.
    first_rows : int or None
        Stream only the first rows of the split instead of downloading it all (C4).
    keep : callable or None
        Rows to keep, applied with ``Dataset.filter`` before the shuffle; its docstring says
        which.
    """

    label: str
    path: str | None
    config: str | None
    split: str | None
    fields: tuple[str, ...] = ("text",)
    first_rows: int | None = None
    keep: Callable[[dict], bool] | None = None


HUB_DATASETS: dict[str, HubDataset] = {
    "wikipedia": HubDataset("Wikipedia", "wikimedia/wikipedia", "20231101.en", "train"),
    "c4": HubDataset("C4", "allenai/c4", "en", "validation", first_rows=1000),
    # the papers' authors read the Pile's own test and validation files (test.jsonl.zst, val.jsonl.zst)
    "pile-github": HubDataset("GitHub", None, None, None, keep=_pile_github),
    "hotpotqa": HubDataset("HotpotQA", "hotpotqa/hotpot_qa", "distractor", "validation",
                           fields=("question", "answer")),
    "openai_humaneval": HubDataset("HumanEval", "openai/openai_humaneval", None, "test",
                                   fields=("prompt", "canonical_solution")),
    "auslegal": HubDataset("AusLegal", "isaacus/open-australian-legal-corpus", None, "corpus"),
}


def files_variable(name: str) -> str:
    """The environment variable naming local files that stand in for hub corpus ``name``.

    Parameters
    ----------
    name : str
        A name in ``HUB_DATASETS``.

    Returns
    -------
    str
        ``RANKSCALE_<NAME>_FILES``, with every character other than a letter, digit or
        underscore written as an underscore.

    Examples
    --------
    >>> files_variable("pile-github")
    'RANKSCALE_PILE_GITHUB_FILES'
    """
    return "RANKSCALE_" + re.sub(r"\W", "_", name.upper()) + "_FILES"


def local_files(name: str) -> tuple[str, list[str]] | None:
    """The local files that stand in for hub corpus ``name``.

    Parameters
    ----------
    name : str
        A name in ``HUB_DATASETS``.

    Returns
    -------
    tuple of (str, list of str) or None
        The ``datasets`` builder (``"parquet"`` or ``"json"``) and the sorted paths of the files
        that ``files_variable(name)`` names, or None if it is unset. It may name a file, a glob
        pattern or a directory; files are ``.parquet``, or ``.json``/``.jsonl`` (optionally
        ``.gz``, ``.zst``, ``.bz2``, ``.xz``).

    Raises
    ------
    RankscaleError
        When the variable names no such file, or files of several formats.
    """
    variable = files_variable(name)
    value = os.environ.get(variable)
    if not value:
        return None
    path = Path(value).expanduser()
    candidates = path.iterdir() if path.is_dir() else map(Path, glob.glob(str(path)))
    files = sorted(f for f in candidates if f.is_file() and file_format(f))
    formats = {file_format(f) for f in files}
    if len(formats) != 1:
        found = "files of several formats" if formats else "no .parquet or .json(l) files"
        raise RankscaleError(f"{variable}={value} names {found}; point it at the .parquet or .jsonl "
                             f"files of the {HUB_DATASETS[name].label} dataset")
    return formats.pop(), [str(f) for f in files]


def hub_description(name: str) -> str:
    """Where hub corpus ``name`` is read from on this machine, and how it is sampled.

    Parameters
    ----------
    name : str
        A name in ``HUB_DATASETS``.

    Returns
    -------
    str
        The description shown in extraction manifests and in the book.
    """
    dataset = HUB_DATASETS[name]
    files = local_files(name)
    if files is not None:
        origin = f"local files {', '.join(files[1])}"
    else:
        origin = f"hub dataset {dataset.path}" + (f" ({dataset.config})" if dataset.config else "") \
            + f", split {dataset.split}"
    if dataset.first_rows:
        origin += f", its first {dataset.first_rows} rows"
    if dataset.keep is not None:
        origin += f", {dataset.keep.__doc__.rstrip('.')}"
    return (f"{name} ({dataset.label}): {origin}; field(s) {' + '.join(dataset.fields)}; documents "
            f"shuffled with the extraction seed, the first {PAPER_SAMPLING.documents} kept, and each "
            "cut to its first window, encoded with the model tokenizer's own special tokens")


def hub_identity(name: str) -> dict:
    """A hub corpus's part of a result's identity: the local files standing in for it by their
    content, or the dataset, config and split with the commit of its repository now (None where
    neither the hub nor its cache can say).

    Parameters
    ----------
    name : str
        A name in ``HUB_DATASETS``.

    Returns
    -------
    dict
    """
    from rankscale.hashing import file_sha256
    from rankscale.hub import resolve_commit

    dataset = HUB_DATASETS[name]
    files = local_files(name)
    if files is not None:
        return {"name": name, "files": [file_sha256(f) for f in files[1]]}
    commit = resolve_commit(dataset.path, repo_type="dataset") if dataset.path else None
    return {"name": name, "dataset": dataset.path, "config": dataset.config, "split": dataset.split, "commit": commit}


def hub_documents(name: str) -> Sequence[str]:
    """The documents of hub corpus ``name``, in the dataset's own order.

    Loads through ``datasets.load_dataset``: from the hub (the ids and splits of the papers'
    code; C4 streams only its first rows), or, when ``files_variable(name)`` is set, from those
    local files through the same call (``load_dataset("json" | "parquet", data_files=...)``).
    ``token_windows`` then shuffles exactly as ``Dataset.shuffle(seed)`` does (a
    ``numpy.random.default_rng(seed)`` permutation), so the sampled documents are the papers'.

    Parameters
    ----------
    name : str
        A name in ``HUB_DATASETS``.

    Returns
    -------
    sequence of str
        The documents; a large table is read row by row on demand.

    Raises
    ------
    RankscaleError
        At once, without waiting on network retries, when the hub is unreachable and neither
        local files nor ``HF_HUB_OFFLINE=1`` (the datasets cache) are given; or when the dataset
        cannot be loaded.
    """
    import datasets

    from rankscale.corpora.offline import SOURCES
    from rankscale.hub import hub_reachable

    dataset = HUB_DATASETS[name]
    variable = files_variable(name)
    files = local_files(name)
    if files is not None:
        args, kwargs = (files[0],), {"data_files": files[1], "split": "train"}
    elif dataset.path is None:
        raise RankscaleError(f"corpus {name!r} is read from local files: set {variable} to the Pile's "
                             "jsonl files (its test.jsonl.zst and val.jsonl.zst, as the papers' authors "
                             "used; .zst needs the zstandard package) or to a directory holding them")
    elif not (datasets.config.HF_HUB_OFFLINE or hub_reachable()):
        raise RankscaleError(
            f"cannot load corpus {name!r} ({dataset.path}): the Hugging Face hub is unreachable from "
            f"this machine. Use the offline corpora ({', '.join(SOURCES)}), which need no network "
            f"(make book PROFILE=tiny evaluates on them); or set {variable} to local copies of the dataset's .parquet or .jsonl "
            "files; or set HF_HUB_OFFLINE=1 to read the datasets cache of an earlier download."
        )
    else:
        args, kwargs = (dataset.path, dataset.config), {"split": dataset.split}
    what = f"corpus {name!r} (set {variable} to local files of the dataset instead, or use an offline model set)"
    if dataset.first_rows:
        rows = load_table(what, *args, streaming=True, **kwargs)
        return [document(row, dataset.fields, f"row {i} of {name}")
                for i, row in enumerate(islice(rows, dataset.first_rows))]
    table = load_table(what, *args, **kwargs)
    if dataset.keep is not None:
        table = table.filter(dataset.keep)
        if len(table) == 0:
            raise RankscaleError(f"no row of corpus {name!r} is one of the {dataset.keep.__doc__.rstrip('.')}; "
                                 f"check the files that {variable} names")
    return Rows(table, dataset.fields, f"corpus {name!r}")

