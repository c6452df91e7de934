"""What the book's chapters share: which results a profile reads, the banner at the top of each
page, and the verdict tables that the scorecard gathers.

A chapter notebook does

    runs = report.profile_runs(profile, "pydocs")           # [(model metadata, Records), ...]
    report.header(profile, {"pydocs": runs})                 # profile, models, token counts
    ...
    report.verdict_table("A2", [report.Verdict(...), ...])   # displayed, and tagged for the scorecard

and nothing else of its own beyond plotting.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from rankscale import RankscaleError, __version__
from rankscale.models import require_profile
from rankscale.records import Records

# Held-out tokens per corpus that each profile evaluates: enough for stable RBP_1/CE and the
# decomposition on tiny (150k; see the sample-size section of the paper B chapters), small
# enough that the smoke book runs inside `make test`. humaneval's held-out half has ~18k tokens.
EVAL_TOKENS = {
    "smoke": {"pydocs": 20_000, "stdlib": 20_000, "humaneval": 8_000},
    "tiny": {"pydocs": 150_000, "stdlib": 150_000, "humaneval": 15_000},
}
# Tokens per (checkpoint, corpus) for the training-dynamics chapter, at most the corpus's EVAL_TOKENS.
CHECKPOINT_TOKENS = {"smoke": 8_000, "tiny": 40_000}

VERDICTS = ("reproduced", "partly", "not reproduced", "not testable on this profile")
VERDICT_KEY = "rankscale/verdicts"  # display metadata key the scorecard looks for


def eval_tokens(profile: str, corpus: str) -> int:
    """Held-out tokens that ``profile`` evaluates on ``corpus`` (a corpus name without ``:part``)."""
    require_profile(profile)  # a hub profile fails here at once, saying why
    table = EVAL_TOKENS[profile]
    if corpus not in table:
        raise RankscaleError(f"no token budget for corpus {corpus!r} in profile {profile!r}; "
                             f"choose from {', '.join(table)}")
    return table[corpus]


def profile_runs(profile: str, corpus: str, progress: bool = False) -> list[tuple[dict, Records]]:
    """(model metadata, records) of every model of ``profile`` on the held-out part of ``corpus``,
    smallest model first; trains and extracts whatever is not cached yet (``prepare`` does that
    up front, with progress bars, so that none end up on a page)."""
    from rankscale.ladder import ladder_records  # torch only when something must be computed

    return ladder_records(profile, corpus, eval_tokens(profile, corpus), progress=progress)


def profile_checkpoints(profile: str, corpus: str, progress: bool = False) -> list[tuple[dict, int, Records]]:
    """(model metadata, step, records) of every saved training checkpoint of ``profile``."""
    from rankscale.ladder import checkpoint_records

    n_tokens = min(eval_tokens(profile, corpus), CHECKPOINT_TOKENS[profile])
    return checkpoint_records(profile, corpus, n_tokens, progress=progress)


def prepare(profile: str) -> None:
    """Train and extract everything the chapters of ``profile`` read, showing progress bars."""
    require_profile(profile)
    for corpus in EVAL_TOKENS[profile]:
        profile_runs(profile, corpus, progress=True)
        profile_checkpoints(profile, corpus, progress=True)


def reference_dir() -> Path:
    """Where the papers' own tables live as CSV: ``$RANKSCALE_REFERENCE``, else ``shared/reference``
    beside the repository."""
    from rankscale.book import ROOT

    return Path(os.environ.get("RANKSCALE_REFERENCE", ROOT.parent / "shared" / "reference"))


def reference_table(name: str):
    """One of the papers' tables (``name`` without ``.csv``) as a pandas DataFrame, shown in the book
    only as the paper's reference values, never as results."""
    import pandas as pd

    path = reference_dir() / f"{name}.csv"
    if not path.exists():
        raise RankscaleError(f"the papers' table {path} is missing; point RANKSCALE_REFERENCE at the "
                             "directory holding the reference CSV files")
    return pd.read_csv(path)


def sizes(runs: list[tuple]) -> np.ndarray:
    """Non-embedding parameter counts of ``runs`` (pairs or triples starting with metadata)."""
    return np.array([run[0]["params_non_embedding"] for run in runs], dtype=float)


def header(profile: str, runs_by_corpus: dict[str, list[tuple]]) -> None:
    """Show what this page was computed with: profile, models and held-out tokens per corpus."""
    from IPython.display import Markdown, display

    first = next(iter(runs_by_corpus.values()))
    models = ", ".join(f"{run[0]['size']} ({run[0]['params_non_embedding']:,})" for run in first)
    corpora = ", ".join(f"{name} ({len(runs[0][-1]):,} tokens/model, window "
                        f"{runs[0][-1].manifest['identity']['window_len']})"
                        for name, runs in runs_by_corpus.items())
    display(Markdown(
        f"**Computed with** profile `{profile}` · rankscale {__version__} · models (non-embedding "
        f"parameters): {models} · held-out corpora: {corpora}"
    ))


@dataclass(frozen=True)
class Verdict:
    """One claim of a paper section, the paper's number where it gives one, ours, and the verdict."""

    claim: str
    paper: str
    ours: str
    verdict: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise RankscaleError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def verdict_table(chapter: str, verdicts: list[Verdict]):
    """Display a chapter's verdicts as a table and tag the output so that the scorecard page can
    collect it from the executed notebook. Returns the table (a pandas DataFrame)."""
    import pandas as pd
    from IPython.display import display

    if not verdicts:
        raise RankscaleError(f"chapter {chapter} passes no verdicts; every chapter ends with at least one")
    rows = [{"chapter": chapter, **asdict(v)} for v in verdicts]
    table = pd.DataFrame(rows).drop(columns="chapter")
    display(table.style.hide(axis="index").format(escape="html"), metadata={VERDICT_KEY: rows})
    return table


def collect_verdicts(notebooks: list[str | Path], profile: str):
    """Every verdict table in the executed ``notebooks``, as one DataFrame.

    Fails if a notebook is missing, was run with another profile, or holds no verdicts: the
    scorecard must never mix profiles or silently drop a chapter.
    """
    import nbformat
    import pandas as pd

    rows = []
    for path in map(Path, notebooks):
        if not path.exists():
            raise RankscaleError(f"{path} has not been executed; run `make book PROFILE={profile}`")
        nb = nbformat.read(path, as_version=4)
        ran_with = nb.metadata.get("papermill", {}).get("parameters", {}).get("profile")
        if ran_with != profile:
            raise RankscaleError(f"{path} was executed with profile {ran_with!r}, not {profile!r}; "
                                 f"run `make book PROFILE={profile}`")
        found = [row for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
                 for row in out.get("metadata", {}).get(VERDICT_KEY, [])]
        if not found:
            raise RankscaleError(f"{path} holds no verdict table")
        rows += found
    return pd.DataFrame(rows)
