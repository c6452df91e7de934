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
    """Matplotlib keywords (``color``, ``marker``) of a family, the same in every chapter.

    Parameters
    ----------
    profile : str
        A model set (``rankscale.modelsets.get``); a family's look follows its place in the set.
    family : str or None
        A family of the set; None (a reference model) is black stars.

    Returns
    -------
    dict
        ``{"color": ..., "marker": ...}``.

    Examples
    --------
    >>> family_style("tiny", "Llama ladder"), family_style("tiny", None)
    ({'color': 'tab:orange', 'marker': 's'}, {'color': 'black', 'marker': '*'})
    """
    if family is None:
        return {"color": "black", "marker": "*"}
    names = [f.name for f in modelsets.get(profile).families]
    i = names.index(family) if family in names else len(names)
    return {"color": FAMILY_COLORS[i % len(FAMILY_COLORS)], "marker": FAMILY_MARKERS[i % len(FAMILY_MARKERS)]}


REFERENCE_DIR = Path(__file__).parent / "reference"  # package data; its README cites every file


def reference_dir() -> Path:
    """Where the papers' own tables live as CSV.

    Returns
    -------
    pathlib.Path
        ``$RANKSCALE_REFERENCE`` if set, else the copy that ships inside the package
        (``rankscale/reference``, ``REFERENCE_DIR``).
    """
    return Path(os.environ.get("RANKSCALE_REFERENCE", REFERENCE_DIR))


def reference_table(name: str):
    """One of the papers' tables, shown in the book only as the paper's values, never as results.

    Parameters
    ----------
    name : str
        File name in ``reference_dir()`` without ``.csv``; a missing table raises RankscaleError.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> list(reference_table("ce_paper_table1_r2").columns)
    ['dataset', 'family', 'component', 'r2']
    """
    import pandas as pd

    path = reference_dir() / f"{name}.csv"
    if not path.exists():
        raise RankscaleError(f"the papers' table {path} is missing; point RANKSCALE_REFERENCE at the "
                             "directory holding the reference CSV files")
    return pd.read_csv(path)


def header(profile: str, runs_by_corpus: dict[str, list]) -> None:
    """Show (IPython display) what the page was computed with: the model set, its models by family
    (non-embedding parameters), the reference models, and tokens, window and dtype per corpus.

    Parameters
    ----------
    profile : str
        The model set the chapter runs under.
    runs_by_corpus : dict of str to list of rankscale.runs.Run
        The runs the chapter reads, per corpus; the first corpus's runs name the models.
    """
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
    """One claim of a paper section, the paper's number where it gives one, ours, and the verdict.

    Usually made by ``rankscale.claims.judge``, which fills ``rule``, ``kind`` and ``key`` from
    the claim's definition in ``rankscale.claims``.

    Parameters
    ----------
    claim, paper, ours : str
        The claim in this book's words, the paper's number (where it gives one), ours.
    verdict : str
        One of ``VERDICTS``, else RankscaleError.
    rule, kind, key : str
        What is measured, the threshold and why; one of ``rankscale.claims.KINDS``; chapter
        and number, e.g. ``"A2.1"``.

    Examples
    --------
    >>> Verdict("RBP_1 follows a power law", "R^2 0.99", "R^2 0.98", "reproduced").kind
    'empirical'
    >>> Verdict("RBP_1 follows a power law", "", "", "confirmed")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: verdict 'confirmed' is not one of ('reproduced', 'partly', ...)
    """

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
    """Display a chapter's verdicts as a table, its rows in the output's metadata (``VERDICT_KEY``),
    where the scorecard page collects them from the executed notebook (``collect_verdicts``).

    Parameters
    ----------
    chapter : str
        The chapter, e.g. ``"A2"``.
    verdicts : list of Verdict
        At least one, else RankscaleError.

    Returns
    -------
    pandas.DataFrame
        The table shown: key (column ``""``), claim, kind, rule, paper, ours, verdict.

    Examples
    --------
    >>> verdict_table("A2", [Verdict("c", "p", "o", "partly", key="A2.1")]).shape  # outside a notebook
    <pandas.io.formats.style.Styler object at 0x...>
    (1, 7)
    """
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

    Parameters
    ----------
    notebooks : list of str or pathlib.Path
        Executed chapter notebooks (``rankscale.book.execute_chapter``).
    profile : str
        The profile every notebook must have been executed with.

    Returns
    -------
    pandas.DataFrame
        Columns chapter, key, claim, kind, rule, paper, ours, verdict; one row per verdict.

    Raises
    ------
    RankscaleError
        If a notebook is missing, was run with another profile, holds no verdicts, or holds a
        verdict that is not one of ``VERDICTS`` (a notebook executed by an older rankscale):
        the scorecard must never mix profiles or silently drop a chapter.

    Examples
    --------
    >>> import tempfile, nbformat
    >>> row = dict(asdict(Verdict("c", "p", "o", "partly", key="A2.1")), chapter="A2")
    >>> out = nbformat.v4.new_output("display_data", metadata={VERDICT_KEY: [row]})
    >>> nb = nbformat.v4.new_notebook(metadata={"rankscale": {"profile": "tiny"}},
    ...                               cells=[nbformat.v4.new_code_cell(outputs=[out])])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     nbformat.write(nb, Path(folder) / "a2.ipynb")
    ...     collect_verdicts([Path(folder) / "a2.ipynb"], "tiny")[["key", "verdict"]].values.tolist()
    [['A2.1', 'partly']]
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
        rows += [{"kind": "empirical", "rule": "", "key": "", **row} for row in found]  # rows of older books
    return pd.DataFrame(rows, columns=["chapter", "key", "claim", "kind", "rule", "paper", "ours", "verdict"])


def collect_models(notebooks: list[str | Path]) -> list[dict] | None:
    """The models the executed ``notebooks`` read, as the book records them; fails (RankscaleError)
    if two notebooks record different models: their pages would describe different sets.

    Parameters
    ----------
    notebooks : list of str or pathlib.Path
        Executed chapter notebooks.

    Returns
    -------
    list of dict or None
        Each notebook's ``metadata.rankscale.models`` (``{"family", "name", "non_embedding"}``,
        see ``rankscale.runs.models_used``); None if no notebook records them (executed by hand).

    Examples
    --------
    >>> import tempfile, nbformat
    >>> models = [{"family": "NeoX ladder", "name": "d16-l1", "non_embedding": 3328}]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     nbformat.write(nbformat.v4.new_notebook(metadata={"rankscale": {"models": models}}),
    ...                    Path(folder) / "a1.ipynb")
    ...     collect_models([Path(folder) / "a1.ipynb"]) == models
    True
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
    """The verdict of a claim tested in several places (corpora, families).

    Parameters
    ----------
    passed : iterable of bool
        Whether the claim holds, per place; empty raises RankscaleError (it is ``NOT_TESTABLE``).

    Returns
    -------
    str
        "reproduced" if it holds in all of them, "partly" if in some, "not reproduced" if in none.

    Examples
    --------
    >>> grade([True, True]), grade([True, False]), grade([False])
    ('reproduced', 'partly', 'not reproduced')
    """
    passed = list(passed)
    if not passed:
        raise RankscaleError("a claim graded on no evidence; mark it not testable on this set instead")
    return "reproduced" if all(passed) else "partly" if any(passed) else "not reproduced"


def fittable(runs: list, min_sizes: int = 3) -> tuple[dict[str, list], list[str]]:
    """The families of ``runs`` that a size claim can be tested on, and why not the others.

    Parameters
    ----------
    runs : list of rankscale.runs.Run
        Family runs.
    min_sizes : int
        Distinct non-embedding sizes a family needs.

    Returns
    -------
    usable : dict of str to list of rankscale.runs.Run
        The families with at least ``min_sizes`` distinct model sizes, in order.
    reasons : list of str
        One reason for each other family ("Llama ladder: 2 sizes, fewer than 3").

    Examples
    --------
    >>> from rankscale.runs import Run
    >>> runs = [Run(f, "", None, n, n, None) for f, n in [("NeoX", 3e3), ("NeoX", 6e3), ("NeoX", 3e4), ("Llama", 3e3)]]
    >>> usable, reasons = fittable(runs)
    >>> list(usable), reasons
    (['NeoX'], ['Llama: 1 size, fewer than 3'])
    """
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
    """Why a claim about every family pooled into one size fit (paper B's "All") cannot be tested:
    it needs two families or more, one of ``min_sizes`` distinct sizes or more, so that the pooled
    fit is more than the families' differences.

    Parameters
    ----------
    runs : list of rankscale.runs.Run
        Family runs.
    min_sizes : int
        Distinct sizes the largest family needs.

    Returns
    -------
    str or None
        None when the pooled claim can be tested; otherwise the reason, for the "ours" column
        of a not-testable verdict.

    Examples
    --------
    >>> from rankscale.runs import Run
    >>> runs = [Run(f, "", None, n, n, None) for f, n in [("NeoX", 3e3), ("NeoX", 6e3), ("NeoX", 3e4), ("Llama", 3e3)]]
    >>> why_not_pooled(runs) is None
    True
    >>> why_not_pooled(runs[:3])
    'one family (NeoX): pooling families needs at least two'
    """
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
    """Draw one family's points against non-embedding size on log-log axes, with its fit.

    In the family's colour and marker (``family_style``); non-positive values, which a log axis
    cannot show, are left out; the fitted power law is a line over the range of ``sizes``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on; set to log-log scales.
    profile : str
        The model set (for the family's look).
    family : str or None
        The family; None for a reference model.
    sizes, values : array_like of shape (n,)
        Non-embedding parameters and the quantity plotted, one per model.
    fitted : rankscale.fit.PowerLawFit, optional
        Anything with ``predict(sizes)``; None: points only.
    label, **style
        Legend label of the points; overrides of ``color`` and ``marker``, and ``alpha``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> size_plot(ax, "tiny", "NeoX ladder", [3e3, 3e4, 3e5], [2.0, 0.0, 1.0], label="CE")
    >>> len(ax.lines[0].get_xdata()), ax.get_xscale(), ax.lines[0].get_color()
    (2, 'log', 'tab:blue')
    """
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
    least 5 x 10^5 evaluation tokens per point (one model on one corpus; ``PAPER_A_TOKENS``).

    Parameters
    ----------
    runs_by_corpus : dict of str to list of rankscale.runs.Run
        The runs the figure plots, per corpus.
    figure : str
        How the sentence names the figure.

    Returns
    -------
    str

    Examples
    --------
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
