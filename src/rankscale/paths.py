"""Where things live: the repository, the book's sources (a checkout's, or the copy an installed
package carries), the home of models and results, and the machine's cache of file hashes."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository, for a checkout (src layout)
# The copy of the book's sources that a wheel carries (pyproject.toml's force-include); a checkout
# has none, so its presence is what tells an installed package from a checkout.
PACKAGED_BOOK = Path(__file__).resolve().parent / "book_sources"


def checkout() -> Path | None:
    """The repository this package runs from: ``ROOT`` for a checkout (or an editable install of
    one), None for an installed package, whatever lies two folders above it.

    Examples
    --------
    >>> checkout() in (ROOT, None)
    True
    """
    return ROOT if not PACKAGED_BOOK.is_dir() and (ROOT / "pyproject.toml").is_file() else None


def book_sources() -> Path:
    """Folder of the book's sources: ``notebooks/`` (one jupytext notebook per chapter), ``book/``
    (the other pages, the bibliography, static files), ``_config.yml`` and ``_toc.yml``.

    A checkout keeps them at the repository's top level; an installed package carries a copy in
    ``rankscale/book_sources/`` (``PACKAGED_BOOK``). Nothing is checked here:
    ``rankscale.book.build.require_book`` says what is missing.

    Returns
    -------
    pathlib.Path
        ``checkout()``, else ``PACKAGED_BOOK``.

    Examples
    --------
    >>> book_sources() in (ROOT, PACKAGED_BOOK)
    True
    """
    return checkout() or PACKAGED_BOOK


def home() -> Path:
    """Folder of ladder models (``models/``) and extraction results (``results/``).

    ``$RANKSCALE_HOME`` if set, else the repository root (``checkout()``), else (an installed
    package) the working directory.

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
    return checkout() or Path.cwd()


def cache_dir() -> Path:
    """Folder of what this machine remembers to save work, never results: the content hashes of
    files, keyed by the files' identity on disk (``rankscale.hashing``), and the Python
    documentation stripped of its markup, keyed by its sources and the stripper
    (``rankscale.corpora.offline.pydocs_documents``).

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
