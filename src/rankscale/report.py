"""What the book's chapters share besides their data: the banner at the top of each page, the
papers' reference tables, one look per family in every figure, and the verdict tables that the
scorecard gathers.

A chapter notebook does

    family = runs.family_runs(profile, "pydocs")              # [Run, ...] (rankscale.runs)
    report.header(profile, {"pydocs": family})                 # model set, models, token counts
    ...
    report.verdict_table("A2", [report.Verdict(...), ...])     # displayed, and tagged for the scorecard

and nothing else of its own beyond plotting.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from rankscale import RankscaleError, __version__, modelsets

VERDICTS = ("reproduced", "partly", "not reproduced", "not testable on this set")
VERDICT_KEY = "rankscale/verdicts"  # display metadata key the scorecard looks for
# One colour and marker per family, in the order families appear in a set; references in black.
FAMILY_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                 "tab:olive", "tab:cyan")
FAMILY_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h", "*")


def family_style(profile: str, family: str | None) -> dict:
    """Matplotlib keywords (``color``, ``marker``) of a family, the same in every chapter;
    ``family=None`` (a reference model) is black stars."""
    if family is None:
        return {"color": "black", "marker": "*"}
    names = [f.name for f in modelsets.get(profile).families]
    i = names.index(family) if family in names else len(names)
    return {"color": FAMILY_COLORS[i % len(FAMILY_COLORS)], "marker": FAMILY_MARKERS[i % len(FAMILY_MARKERS)]}


REFERENCE_DIR = Path(__file__).parent / "reference"  # package data; its README cites every file


def reference_dir() -> Path:
    """Where the papers' own tables live as CSV: ``$RANKSCALE_REFERENCE`` if set, else the copy
    that ships inside the package (``rankscale/reference``)."""
    return Path(os.environ.get("RANKSCALE_REFERENCE", REFERENCE_DIR))


def reference_table(name: str):
    """One of the papers' tables (``name`` without ``.csv``) as a pandas DataFrame, shown in the book
    only as the paper's reference values, never as results."""
    import pandas as pd

    path = reference_dir() / f"{name}.csv"
    if not path.exists():
        raise RankscaleError(f"the papers' table {path} is missing; point RANKSCALE_REFERENCE at the "
                             "directory holding the reference CSV files")
    return pd.read_csv(path)


def header(profile: str, runs_by_corpus: dict[str, list]) -> None:
    """Show what this page was computed with: the model set, its models by family (non-embedding
    parameters), the reference models, and tokens, window and dtype per corpus."""
    from IPython.display import Markdown, display

    from rankscale.runs import by_family

    model_set = modelsets.get(profile)
    first = next(iter(runs_by_corpus.values()))
    groups = [f"{family or 'reference'}: " + ", ".join(f"{r.name} ({r.non_embedding:,})" for r in members)
              for family, members in by_family(first).items()]
    corpora = []
    for name, runs in runs_by_corpus.items():
        identity = runs[0].records.manifest.identity
        tokens = sorted({len(r.records) for r in runs})
        dtypes = sorted({r.records.manifest.identity["dtype"] for r in runs})
        corpora.append(f"{name} ({'/'.join(f'{t:,}' for t in tokens)} tokens per model, window "
                       f"{identity['window_len']}, body {'/'.join(dtypes)})")
    display(Markdown(
        f"**Computed with** model set `{model_set.name}` · rankscale {__version__} · models (non-embedding "
        f"parameters) · {' · '.join(groups)} · held-out corpora: {', '.join(corpora)}"
    ))


@dataclass(frozen=True)
class Verdict:
    """One claim of a paper section, the paper's number where it gives one, ours, and the verdict;
    ``rule`` (what is measured, the threshold and why), ``kind`` and ``key`` come from the claim's
    definition in ``rankscale.claims`` (see ``claims.judge``)."""

    claim: str
    paper: str
    ours: str
    verdict: str
    rule: str = ""
    kind: str = "empirical"
    key: str = ""

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
    shown = ["key", "claim", "kind", "rule", "paper", "ours", "verdict"]
    table = pd.DataFrame(rows)[shown].rename(columns={"key": ""})
    display(table.style.hide(axis="index").format(escape="html"), metadata={VERDICT_KEY: rows})
    return table


def _ran_with(nb) -> set[str]:
    """The profile(s) an executed notebook says it ran with: papermill's parameter and the book's
    own stamp (``metadata.rankscale``), where present."""
    return {p for p in (nb.metadata.get("papermill", {}).get("parameters", {}).get("profile"),
                        nb.metadata.get("rankscale", {}).get("profile")) if p is not None}


def collect_verdicts(notebooks: list[str | Path], profile: str):
    """Every verdict table in the executed ``notebooks``, as one DataFrame in the notebooks' order.

    Fails if a notebook is missing, was run with another profile, holds no verdicts, or holds a
    verdict that is not one of ``VERDICTS`` (a notebook executed by an older rankscale): the
    scorecard must never mix profiles or silently drop a chapter.
    """
    import nbformat
    import pandas as pd

    rows = []
    for path in map(Path, notebooks):
        if not path.exists():
            raise RankscaleError(f"{path} has not been executed; run `make book PROFILE={profile}`")
        nb = nbformat.read(path, as_version=4)
        ran_with = ", ".join(map(repr, sorted(_ran_with(nb)))) or "unknown"
        if _ran_with(nb) != {profile}:
            raise RankscaleError(f"{path} was executed with profile {ran_with}, not {profile!r}; "
                                 f"run `make book PROFILE={profile}`")
        found = [row for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
                 for row in out.get("metadata", {}).get(VERDICT_KEY, [])]
        if not found:
            raise RankscaleError(f"{path} holds no verdict table")
        unknown = sorted({row["verdict"] for row in found} - set(VERDICTS))
        if unknown:
            raise RankscaleError(f"{path} holds verdicts {unknown} that are not among {VERDICTS}; it was executed "
                                 f"by an older rankscale: run `make book PROFILE={profile}` again")
        rows += found
    table = pd.DataFrame(rows, columns=["chapter", "key", "claim", "kind", "rule", "paper", "ours", "verdict"])
    return table.fillna({"kind": "empirical", "rule": "", "key": ""})


def collect_models(notebooks: list[str | Path]) -> list[dict] | None:
    """The models the executed ``notebooks`` read, as the book records them in each notebook's
    ``metadata.rankscale.models`` (``{"family", "name", "non_embedding"}``, see
    ``rankscale.runs.models_used``); None if no notebook records them (chapters executed by hand).
    Fails if two notebooks record different models: their pages would describe different sets.
    """
    import nbformat

    seen: dict[str, list[str]] = {}
    for path in map(Path, notebooks):
        models = nbformat.read(path, as_version=4).metadata.get("rankscale", {}).get("models")
        if models:
            seen.setdefault(json.dumps(models, sort_keys=True), []).append(path.stem)
    if len(seen) > 1:
        groups = "; ".join(f"{', '.join(names)}: {len(json.loads(key))} models" for key, names in seen.items())
        raise RankscaleError(f"the executed chapters read different models ({groups}); rebuild them together")
    return json.loads(next(iter(seen))) if seen else None


NOT_TESTABLE = "not testable on this set"


def grade(passed) -> str:
    """The verdict of a claim tested in several places (corpora, families): reproduced if it
    holds in all of them, partly if in some, not reproduced if in none."""
    passed = list(passed)
    if not passed:
        raise RankscaleError("a claim graded on no evidence; mark it not testable on this set instead")
    return "reproduced" if all(passed) else "partly" if any(passed) else "not reproduced"


def fittable(runs: list, min_sizes: int = 3) -> tuple[dict[str, list], list[str]]:
    """The families of ``runs`` (family runs, ``rankscale.runs.Run``) with at least ``min_sizes``
    distinct model sizes, which a size claim can be tested on, and one reason for each other
    family ("Llama ladder: 2 sizes, fewer than 3")."""
    from rankscale.runs import by_family

    usable, reasons = {}, []
    for family, members in by_family(runs).items():
        n = len({run.non_embedding for run in members})
        if n >= min_sizes:
            usable[family] = members
        else:
            reasons.append(f"{family}: {n} size{'s' * (n != 1)}, fewer than {min_sizes}")
    return usable, reasons


def why_not_pooled(runs: list, min_sizes: int = 3) -> str | None:
    """None when a claim about every family pooled into one size fit (paper B's "All") can be
    tested on ``runs`` (family runs): more than one family, and at least one of them with
    ``min_sizes`` distinct sizes, so that the pooled fit is more than the families' differences.
    Otherwise the reason, for the "ours" column of a not-testable verdict."""
    from rankscale.runs import by_family

    families = by_family(runs)
    if len(families) < 2:
        names = ", ".join(families) or "none"
        return f"one family ({names}): pooling families needs at least two"
    usable, reasons = fittable(runs, min_sizes)
    if not usable:
        return f"no family has {min_sizes} or more sizes ({'; '.join(reasons)})"
    return None


def size_plot(ax, profile: str, family: str | None, sizes, values, fitted=None, label: str = "", **style) -> None:
    """Draw one family's points (``values`` against non-embedding ``sizes``) on log-log axes in
    the family's colour and marker, with its fitted power law (``rankscale.fit.PowerLawFit``) as
    a line over the fitted range; non-positive values, which a log axis cannot show, are left out."""
    import numpy as np

    sizes, values = np.asarray(sizes, float), np.asarray(values, float)
    look = {**family_style(profile, family), **style}
    shown = values > 0
    ax.plot(sizes[shown], values[shown], linestyle="none", label=label, color=look["color"],
            marker=look["marker"], alpha=look.get("alpha", 1.0))
    if fitted is not None:
        grid = np.geomspace(sizes.min(), sizes.max(), 50)
        ax.plot(grid, fitted.predict(grid), "-", color=look["color"], alpha=0.7 * look.get("alpha", 1.0),
                lw=1)
    ax.set(xscale="log", yscale="log")


PAPER_A_TOKENS = 500_000  # paper A, appendix A: every data point averages at least 5e5 evaluation tokens


def token_requirement(runs_by_corpus: dict[str, list], figure: str) -> str:
    """A sentence saying whether ``figure``'s points meet paper A's appendix-A requirement of at
    least 5 x 10^5 evaluation tokens per point (one model on one corpus), from the runs it plots.

    >>> class R:
    ...     def __init__(self, n): self.records = [0] * n
    >>> token_requirement({"pydocs": [R(150_000)], "stdlib": [R(600_000)]}, "Fig. A2.1")
    'Fig. A2.1: paper A averages each point over at least 500,000 tokens (its appendix A); here stdlib meets that (600,000 tokens per model) and pydocs does not (150,000).'
    """
    meets, short = [], []
    for corpus, runs in runs_by_corpus.items():
        n = min(len(run.records) for run in runs)
        (meets if n >= PAPER_A_TOKENS else short).append((corpus, n))
    parts = []
    if meets:
        parts.append(f"{', '.join(c for c, _ in meets)} meet{'s' * (len(meets) == 1)} that "
                     f"({', '.join(f'{n:,}' for _, n in meets)} tokens per model)")
    if short:
        parts.append(f"{', '.join(c for c, _ in short)} do{'es' * (len(short) == 1)} not "
                     f"({', '.join(f'{n:,}' for _, n in short)})")
    return (f"{figure}: paper A averages each point over at least {PAPER_A_TOKENS:,} tokens (its appendix A); "
            f"here {' and '.join(parts)}.")
