"""Reaching the Hugging Face hub: whether it answers, and what the local hub cache holds.

Standard library only, so that ``make book`` can say at once, before anything is installed,
whether a hub model set can be computed on this machine.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse


def hub_reachable(timeout: float = 3.0) -> bool:
    """True if a TCP connection to the hub endpoint (``HF_ENDPOINT``, default huggingface.co) opens.

    Checked before any network load because the hub client retries for about 20 s before
    giving up, which is a long wait for a message we can give at once.
    """
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes"}:
        return False
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def hub_cache_dir() -> Path:
    """The local hub cache as huggingface_hub resolves it: ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``,
    else ``~/.cache/huggingface/hub``. Read here without importing huggingface_hub, so that the
    check of ``make book`` can run before the environment is installed."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "huggingface"
    return Path(home).expanduser() / "hub"


def in_hub_cache(hub_id: str, revision: str | None = None) -> bool:
    """Whether the local hub cache holds ``hub_id`` (at ``revision``): a snapshot with its
    config.json, found through the cache's ``refs/<revision>`` file where a revision is named
    (layout ``models--<org>--<name>/{refs,snapshots/<commit>}/``)."""
    repo = hub_cache_dir() / f"models--{hub_id.replace('/', '--')}"
    if revision is None:
        return any((repo / "snapshots").glob("*/config.json"))
    ref = repo / "refs" / revision
    commit = ref.read_text().strip() if ref.is_file() else revision
    return (repo / "snapshots" / commit / "config.json").is_file()


def cached_file(hub_id: str, filename: str, revision: str | None = None) -> Path | None:
    """A file of ``hub_id`` (at ``revision``, default ``main``) in the local hub cache, or None
    if the cache does not hold it; never downloads. A revision is found through the cache's
    ``refs/`` file or is itself a commit; with no revision and no ``refs/main``, any cached
    snapshot holding the file is used."""
    repo = hub_cache_dir() / f"models--{hub_id.replace('/', '--')}"
    ref = repo / "refs" / (revision or "main")
    commit = ref.read_text().strip() if ref.is_file() else revision
    if commit is None:
        found = sorted((repo / "snapshots").glob(f"*/{filename}"))
        return found[0] if found else None
    path = repo / "snapshots" / commit / filename
    return path if path.is_file() else None
