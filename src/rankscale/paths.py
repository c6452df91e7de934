"""Where things live: the repository (the book's sources) and the home of models and results."""

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
