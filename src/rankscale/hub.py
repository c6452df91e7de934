"""Reaching the Hugging Face hub: whether it answers, and what the local hub cache holds.

Standard library only, so that ``make book`` can say at once, before anything is installed,
whether a hub model set can be computed on this machine.
"""

from __future__ import annotations

import functools
import os
import re
import socket
from pathlib import Path
from urllib.parse import urlparse


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` says the hub is not to be asked (``1``, ``true`` or ``yes``).

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"HF_HUB_OFFLINE": "yes"}):
    ...     hub_offline()
    True
    """
    return os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes"}


def hub_reachable(timeout: float = 3.0) -> bool:
    """True if a TCP connection to the hub endpoint (``HF_ENDPOINT``, default huggingface.co) opens.

    Checked before any network load because the hub client retries for about 20 s before
    giving up, which is a long wait for a message we can give at once. With ``HF_HUB_OFFLINE``
    set (``1``, ``true`` or ``yes``) the hub counts as unreachable and nothing is tried.

    Parameters
    ----------
    timeout : float
        Seconds to wait for the connection.

    Returns
    -------
    bool
        Whether the connection opened.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"HF_HUB_OFFLINE": "1"}):
    ...     hub_reachable()
    False
    """
    if hub_offline():
        return False
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def hub_cache_dir() -> Path:
    """The local hub cache as huggingface_hub resolves it.

    ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub`` (by
    default ``~/.cache/huggingface/hub``). Read here without importing huggingface_hub, so that
    the check of ``make book`` can run before the environment is installed.

    Returns
    -------
    pathlib.Path
        The cache folder, with ``~`` expanded; it need not exist.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"HF_HUB_CACHE": "/scratch/hub"}):
    ...     hub_cache_dir().as_posix()
    '/scratch/hub'
    >>> with mock.patch.dict("os.environ", {"HF_HUB_CACHE": "", "HF_HOME": "/scratch/hf"}):
    ...     hub_cache_dir().as_posix()
    '/scratch/hf/hub'
    """
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "huggingface"
    return Path(home).expanduser() / "hub"


def in_hub_cache(hub_id: str, revision: str | None = None) -> bool:
    """Whether the local hub cache holds ``hub_id`` (at ``revision``).

    A model counts as cached when a snapshot holds its ``config.json``, found through the
    cache's ``refs/<revision>`` file where a revision is named, the revision being taken as a
    commit otherwise (layout ``models--<org>--<name>/{refs,snapshots/<commit>}/``).

    Parameters
    ----------
    hub_id : str
        Hub repository, ``org/name``.
    revision : str, optional
        Branch, tag or commit; None: any snapshot.

    Returns
    -------
    bool
        Whether such a snapshot is in ``hub_cache_dir()``.

    Examples
    --------
    >>> import tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict("os.environ", {"HF_HUB_CACHE": cache}):
    ...     repo = Path(cache) / "models--org--lm"
    ...     (repo / "snapshots" / "abc123").mkdir(parents=True)
    ...     _ = (repo / "snapshots" / "abc123" / "config.json").write_text("{}")
    ...     (repo / "refs").mkdir()
    ...     _ = (repo / "refs" / "step100").write_text("abc123")
    ...     in_hub_cache("org/lm"), in_hub_cache("org/lm", "step100"), in_hub_cache("org/lm", "step200")
    (True, True, False)
    """
    if revision is None:
        return any((_repo(hub_id) / "snapshots").glob("*/config.json"))
    return (_repo(hub_id) / "snapshots" / _ref(hub_id, revision) / "config.json").is_file()


def _repo(hub_id: str, repo_type: str = "model") -> Path:
    """A repository's folder in the local hub cache (``models--<org>--<name>``, ``datasets--...``)."""
    return hub_cache_dir() / f"{repo_type}s--{hub_id.replace('/', '--')}"


def _ref(hub_id: str, revision: str, repo_type: str = "model") -> str:
    """The commit the cache's ``refs/<revision>`` names, else ``revision`` itself, taken as a commit."""
    ref = _repo(hub_id, repo_type) / "refs" / revision
    return ref.read_text().strip() if ref.is_file() else revision


def cached_file(hub_id: str, filename: str, revision: str | None = None) -> Path | None:
    """A file of ``hub_id`` (at ``revision``, default ``main``) in the local hub cache; never downloads.

    A revision is found through the cache's ``refs/`` file or is itself a commit; with no
    revision and no ``refs/main``, any cached snapshot holding the file is used.

    Parameters
    ----------
    hub_id : str
        Hub repository, ``org/name``.
    filename : str
        File inside the repository, e.g. ``tokenizer.json``.
    revision : str, optional
        Branch, tag or commit; None: ``main``, else any snapshot.

    Returns
    -------
    pathlib.Path or None
        The cached file; None if the cache does not hold it.

    Examples
    --------
    >>> import tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict("os.environ", {"HF_HUB_CACHE": cache}):
    ...     snapshot = Path(cache) / "models--org--lm" / "snapshots" / "abc123"
    ...     snapshot.mkdir(parents=True)
    ...     _ = (snapshot / "tokenizer.json").write_text("{}")
    ...     cached_file("org/lm", "tokenizer.json").name, cached_file("org/lm", "vocab.txt")
    ('tokenizer.json', None)
    """
    repo = _repo(hub_id)
    commit = _ref(hub_id, revision or "main")
    if revision is None and not (repo / "snapshots" / commit).is_dir():
        found = sorted((repo / "snapshots").glob(f"*/{filename}"))
        return found[0] if found else None
    path = repo / "snapshots" / commit / filename
    return path if path.is_file() else None


_COMMIT = re.compile(r"[0-9a-f]{40}")


def resolve_commit(hub_id: str, revision: str | None = None, repo_type: str = "model") -> str | None:
    """The commit that ``hub_id`` at ``revision`` (default ``main``) names now: what a result of
    the model (or dataset) is keyed by, and what is loaded, so that a moved branch never serves
    old records.

    A revision that is a commit (40 hexadecimal digits) is itself. Otherwise the hub is asked
    (``huggingface_hub.model_info(...).sha``) where it answers, and the local hub cache's
    ``refs/<revision>`` is read where it does not (``HF_HUB_OFFLINE=1``, a node without network).

    Parameters
    ----------
    hub_id : str
        Hub repository, ``org/name``.
    revision : str, optional
        Branch, tag or commit; None: ``main``.
    repo_type : {"model", "dataset"}
        The kind of repository.

    Returns
    -------
    str or None
        The commit; None where neither the hub nor the cache can say (loading then reports why).

    Examples
    --------
    >>> import tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict("os.environ", {"HF_HUB_CACHE": cache,
    ...                                                                              "HF_HUB_OFFLINE": "1"}):
    ...     (Path(cache) / "models--org--lm" / "refs").mkdir(parents=True)
    ...     _ = (Path(cache) / "models--org--lm" / "refs" / "main").write_text("ab" * 20)
    ...     resolve_commit("org/lm"), resolve_commit("org/lm", "step100"), resolve_commit("org/lm", "cd" * 20)
    ('abababababababababababababababababababab', None, 'cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd')
    """
    if revision is not None and _COMMIT.fullmatch(revision):
        return revision
    # the offline switch is read outside the per-process cache: it may change between calls
    commit = None if hub_offline() else _hub_commit(hub_id, revision, repo_type, os.environ.get("HF_ENDPOINT", ""))
    if commit is None:
        commit = _ref(hub_id, revision or "main", repo_type)
    return commit if _COMMIT.fullmatch(commit) else None


@functools.lru_cache(maxsize=None)
def _hub_commit(hub_id: str, revision: str | None, repo_type: str, endpoint: str) -> str | None:
    """The hub's answer, asked once per process and endpoint (the probe included: a set of a
    hundred checkpoints lists its jobs several times): the plan, the extraction and the chapters
    of one run then agree on the commit."""
    from huggingface_hub import dataset_info, model_info

    if not hub_reachable():
        return None
    try:
        return (model_info if repo_type == "model" else dataset_info)(hub_id, revision=revision).sha
    except Exception:  # no such repository, a gated one, a timeout: the cache decides, loading reports
        return None


def is_hub_id(source: str) -> bool:
    """Whether a model source is a hub id rather than a path.

    Parameters
    ----------
    source : str
        A model as a set or ``rankscale.models.loading.load_model`` names it.

    Returns
    -------
    bool
        True for ``name`` or ``namespace/name`` that is not a path; a path is anything that exists,
        starts with ``.``, ``/`` or ``~``, holds two slashes or more, ends in ``.gguf``, or whose
        first folder exists here (``runs/smal`` beside a folder ``runs`` is a mistyped path, not a
        hub repository: write ``./org/name`` or ``org/name`` from elsewhere to mean either).

    Examples
    --------
    >>> is_hub_id("EleutherAI/pythia-70m"), is_hub_id("./models/d16"), is_hub_id("SmolLM2.Q4_1.gguf")
    (True, False, False)
    """
    if source.startswith((".", "/", "~")) or source.count("/") > 1 or source.endswith(".gguf"):
        return False
    path = Path(source).expanduser()
    return not (path.exists() or ("/" in source and path.parent.is_dir()))
