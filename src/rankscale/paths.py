"""Where things live: the repository (the book's sources), the home of models and results, and the
machine's cache of file hashes."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository, for a checkout (src layout)


def home() -> Path:
    """Folder of ladder models (``models/``) and extraction results (``results/``).

    ``$RANKSCALE_HOME`` if set, else the repository root, else (an installed package run
    outside a checkout) the working directory.

    Returns
    -------
    pathlib.Path
        The home folder, with ``~`` expanded; it need not exist yet.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"RANKSCALE_HOME": "~/rankscale"}):
    ...     home() == Path.home() / "rankscale"
    True
    >>> with mock.patch.dict("os.environ", {"RANKSCALE_HOME": ""}):
    ...     home() in (ROOT, Path.cwd())
    True
    """
    if os.environ.get("RANKSCALE_HOME"):
        return Path(os.environ["RANKSCALE_HOME"]).expanduser()
    return ROOT if (ROOT / "pyproject.toml").exists() else Path.cwd()


def cache_dir() -> Path:
    """Folder of what this machine remembers to save work, never results: the content hashes of
    files, keyed by the files' identity on disk (``rankscale.hashing``).

    ``$RANKSCALE_CACHE`` if set, else ``$XDG_CACHE_HOME/rankscale``, else ``~/.cache/rankscale``.

    Returns
    -------
    pathlib.Path
        The folder, with ``~`` expanded; it need not exist yet.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"RANKSCALE_CACHE": "/scratch/rs"}):
    ...     cache_dir().as_posix()
    '/scratch/rs'
    >>> with mock.patch.dict("os.environ", {"RANKSCALE_CACHE": "", "XDG_CACHE_HOME": "/xdg"}):
    ...     cache_dir().as_posix()
    '/xdg/rankscale'
    """
    if os.environ.get("RANKSCALE_CACHE"):
        return Path(os.environ["RANKSCALE_CACHE"]).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser() / "rankscale"
