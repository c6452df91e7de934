"""The papers' own tables, as the repository ships them (``rankscale/reference``, whose README cites every
file): the values a page shows only as the paper's, and that some rules read as their threshold's source.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from rankscale import RankscaleError

REFERENCE_DIR = Path(__file__).parents[1] / "reference"  # package data; its README cites every file


def reference_dir() -> Path:
    """Where the papers' own tables live as CSV.

    Returns
    -------
    pathlib.Path
        ``$RANKSCALE_REFERENCE`` if set, else the copy that ships inside the package
        (``rankscale/reference``, ``REFERENCE_DIR``).
    """
    return Path(os.environ.get("RANKSCALE_REFERENCE", REFERENCE_DIR))


REFERENCE_SUFFIXES = (".csv", ".json")  # the papers' tables, and paper A's code's per-model records


def reference_table(name: str):
    """One of the papers' tables, shown in the book only as the paper's values, never as results.

    Parameters
    ----------
    name : str
        File name in ``reference_dir()`` without ``.csv`` (a table) or ``.json`` (an object of
        records by model id, one row each); a missing table raises RankscaleError.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> list(reference_table("ce_paper_table1_r2").columns)
    ['dataset', 'family', 'component', 'r2']
    >>> int(reference_table("rbp_authors_param_count").loc["openai-community/gpt2", "vocab_size"])
    50257
    """
    import pandas as pd

    path = reference_dir() / f"{name}.csv"
    if path.exists():
        return pd.read_csv(path)
    if path.with_suffix(".json").exists():
        return pd.DataFrame.from_dict(json.loads(path.with_suffix(".json").read_text()), orient="index")
    raise RankscaleError(f"the papers' table {path} is missing; point RANKSCALE_REFERENCE at the "
                         "directory holding the reference CSV files")
