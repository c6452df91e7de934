"""What the book's pages share besides their data and figures: the banner at the top of each
chapter, the papers' reference tables, and the verdict tables that the scorecard gathers.

A chapter notebook does

    chapter = open_chapter(profile, corpora)                     # shows the banner (``header``)
    ...
    pages.verdict_table("A2", [claims.judge(...), ...])          # displayed, and tagged for the scorecard

and nothing else of its own beyond plotting (``rankscale.book.plots``).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from rankscale import RankscaleError, __version__
from rankscale.claims.base import VERDICTS, Verdict
from rankscale.sets.schema import ModelSet

VERDICT_KEY = "rankscale/verdicts"  # display metadata key the scorecard looks for


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


def header(model_set: ModelSet, runs_by_corpus: dict[str, list]) -> None:
    """Show (IPython display) what the page was computed with: the model set, its models by family
    (non-embedding parameters), the reference models, and tokens, window and dtype per corpus.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    runs_by_corpus : dict of str to list of rankscale.records.runs.Run
        The runs the chapter reads, per corpus; the first corpus's runs name the models.
    """
    from IPython.display import Markdown, display

    from rankscale.records.runs import by_family

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


FINDINGS_KEY = "findings"  # the glue name under which a chapter's findings reach the box at its top


def _claim_phrase(verdict: Verdict) -> str:
    """The claim's text without its pointer into the paper: "EE fits better than CE"."""
    return verdict.claim.split(" (")[0].rstrip(".")


def findings_text(model_set: str, verdicts: list[Verdict], measured: list[str] = ()) -> str:
    """A chapter's findings in a few sentences, written from its verdicts and measurements.

    Parameters
    ----------
    model_set : str
        The set's name.
    verdicts : list of Verdict
        The chapter's verdicts.
    measured : list of str
        Sentences the chapter computes from its own numbers (exponents, R², shares), first.

    Returns
    -------
    str
        MyST Markdown: the measured sentences, then how the papers' empirical claims fared (with
        the units a partly reproduced claim held on), then what failed or could not be tested.

    Examples
    --------
    >>> vs = [Verdict("x grows (§1)", "", "", "reproduced", key="X1.1"),
    ...       Verdict("y falls (§2)", "", "", "partly", key="X1.2", held=1, tested=2),
    ...       Verdict("z is exact (§3)", "", "", "reproduced", kind="analytic", key="X1.3")]
    >>> print(findings_text("tiny", vs, ["x rose by 2."]))  # doctest: +NORMALIZE_WHITESPACE
    x rose by 2. On model set `tiny`, of the 2 empirical claims scored here, 1 is reproduced and 1 partly
    (X1.2 on 1 of 2 units: y falls). Of the 1 other check (analytic), 1 holds.
    """
    sentences = list(measured)
    empirical = [v for v in verdicts if v.kind == "empirical"]
    if empirical:
        counts = {name: [v for v in empirical if v.verdict == name] for name in VERDICTS}
        parts = []
        for name, found in counts.items():
            if not found:
                continue
            word = {"reproduced": "is reproduced", "partly": "partly", "not reproduced": "not reproduced",
                    "undetermined": "undetermined", "not testable on this set": "not testable on this set"}[name]
            part = f"{len(found)} {word}"
            if name in ("partly", "not reproduced"):
                part += " (" + "; ".join(f"{v.key}{' on ' + v.units_text + ' units' if name == 'partly' else ''}: "
                                         f"{_claim_phrase(v)}" for v in found) + ")"
            parts.append(part)
        listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
        sentences.append(f"On model set `{model_set}`, of the {len(empirical)} empirical claim"
                         f"{'s' * (len(empirical) != 1)} scored here, {listed}.")
    others = [v for v in verdicts if v.kind != "empirical"]
    if others:
        kinds = " or ".join(dict.fromkeys(v.kind for v in others))
        failed = [v for v in others if v.verdict in ("partly", "not reproduced")]
        held = sum(v.verdict == "reproduced" for v in others)
        open_ = len(others) - held - len(failed)
        parts = [f"{held} hold{'s' * (held == 1)}"]
        if failed:
            parts.append(f"{len(failed)} fail{'s' * (len(failed) == 1)} (" + "; ".join(
                f"{v.key}: {_claim_phrase(v)}" for v in failed) + ")")
        if open_:
            parts.append(f"{open_} cannot be decided on this set")
        sentences.append(f"Of the {len(others)} other check{'s' * (len(others) != 1)} ({kinds}), "
                         + ", ".join(parts) + ".")
    return " ".join(sentences)


def verdict_table(chapter: str, verdicts: list[Verdict], model_set: str = "", measured: list[str] = ()):
    """Display a chapter's verdicts as a table, its rows in the output's metadata (``VERDICT_KEY``),
    where the scorecard page collects them from the executed notebook (``collect_verdicts``).

    Parameters
    ----------
    chapter : str
        The chapter, e.g. ``"A2"``.
    verdicts : list of Verdict
        At least one, else RankscaleError.
    model_set : str
        The set's name; with it, the chapter's findings (``findings_text``) are glued as
        ``FINDINGS_KEY`` for the box at the top of its page.
    measured : list of str
        The chapter's headline measurements, for the findings.

    Returns
    -------
    pandas.DataFrame
        The table shown: key (column ``""``), claim, kind, rule, paper, ours, verdict, and the
        units it held on of those that decided it ("2 of 3").

    Examples
    --------
    >>> verdict_table("A2", [Verdict("c", "p", "o", "partly", key="A2.1", held=1, tested=3)])["held on"].tolist()
    <pandas.io.formats.style.Styler object at 0x...>
    ['1 of 3']
    """
    import pandas as pd
    from IPython.display import display

    if not verdicts:
        raise RankscaleError(f"chapter {chapter} passes no verdicts; every chapter ends with at least one")
    rows = [{"chapter": chapter, **asdict(v)} for v in verdicts]
    shown = ["key", "claim", "kind", "rule", "paper", "ours", "verdict", "held on"]
    table = pd.DataFrame([{**row, "held on": v.units_text} for row, v in zip(rows, verdicts)])[shown]
    table = table.rename(columns={"key": ""})
    display(table.style.hide(axis="index").format(escape="html"), metadata={VERDICT_KEY: rows})
    if model_set:
        from IPython.display import Markdown
        from myst_nb import glue

        glue(FINDINGS_KEY, Markdown(findings_text(model_set, verdicts, measured)), display=False)
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
        Executed chapter notebooks (``rankscale.book.build.execute_chapter``).
    profile : str
        The profile every notebook must have been executed with.

    Returns
    -------
    pandas.DataFrame
        Columns chapter, key, claim, kind, rule, paper, ours, verdict, held, tested, finding, outcomes
        (tuples of unit and outcome, ``Verdict.outcomes``; empty in a notebook of an older rankscale)
        and "held on" (held of tested, as text; "" where no unit decided the claim); one row per verdict.

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
        # the defaults fill rows of older books; JSON gave the outcomes back as lists
        rows += [{"kind": "empirical", "rule": "", "key": "", "held": 0, "tested": 0, "finding": "", **row,
                  "outcomes": tuple(map(tuple, row.get("outcomes", ())))} for row in found]
    table = pd.DataFrame(rows, columns=["chapter", "key", "claim", "kind", "rule", "paper", "ours", "verdict", "held",
                                        "tested", "finding", "outcomes"])
    table["held on"] = [f"{h} of {t}" if t else "" for h, t in zip(table["held"], table["tested"])]
    return table


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
        Each notebook's ``metadata.rankscale.models.loading`` (``{"family", "name", "non_embedding"}``,
        see ``rankscale.records.runs.models_used``); None if no notebook records them (executed by hand).

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


PAPER_A_TOKENS = 500_000  # paper A, appendix A: every data point averages at least 5e5 evaluation tokens


def token_requirement(runs_by_corpus: dict[str, list], figure: str) -> str:
    """A sentence saying whether ``figure``'s points meet paper A's appendix-A requirement of at
    least 5 x 10^5 evaluation tokens per point (one model on one corpus; ``PAPER_A_TOKENS``).

    Parameters
    ----------
    runs_by_corpus : dict of str to list of rankscale.records.runs.Run
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
