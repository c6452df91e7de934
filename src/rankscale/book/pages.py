"""What the book's pages share besides their data and figures: the banner at the top of each
chapter and the verdict tables that the scorecard gathers.

A chapter notebook does

    chapter = open_chapter(profile, corpora)                     # shows the banner (``header``)
    ...
    pages.verdict_table("A2", [claims.judge(...), ...])          # displayed, and tagged for the scorecard

and nothing else of its own beyond plotting (``rankscale.book.plots``).
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from rankscale import RankscaleError, __version__
from rankscale.claims.base import VERDICTS, Unit, Verdict
from rankscale.claims.reference import reference_table
from rankscale.sets.schema import ModelSet

VERDICT_KEY = "rankscale/verdicts"  # display metadata key the scorecard looks for
VERDICT_FIELDS = tuple(f.name for f in fields(Verdict))  # what each row of VERDICT_KEY holds beside its chapter


def header(model_set: ModelSet, runs_by_corpus: dict[str, list]) -> None:
    """Show (IPython display) what the page was computed with: the model set, its models by family
    (non-embedding parameters), the reference models, and per corpus the tokens, the documents they
    come from (the unit every interval resamples, ``rankscale.claims.context.BY``) with the largest
    one's share of the tokens, the window and the dtype.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The model set, resolved once by the caller (``rankscale.sets.get``).
    runs_by_corpus : dict of str to list of rankscale.records.runs.Run
        The runs the chapter reads, per corpus; the first corpus's runs name the models.
    """
    from IPython.display import Markdown, display

    from rankscale.claims.context import BY, text_units, unit_counts
    from rankscale.records.runs import by_family

    first = next(iter(runs_by_corpus.values()))
    groups = [f"{family or 'reference'}: " + ", ".join(f"{r.name} ({r.non_embedding:,})" for r in members)
              for family, members in by_family(first).items()]
    corpora = []
    for name, runs in runs_by_corpus.items():
        identity = runs[0].records.manifest.identity
        tokens = sorted({len(r.records) for r in runs})
        dtypes = sorted({r.records.manifest.identity["dtype"] for r in runs})
        held = [unit_counts(text_units(r.records)) for r in runs]
        units = sorted({n for n, _ in held})
        corpora.append(f"{name} ({'/'.join(f'{t:,}' for t in tokens)} tokens per model from "
                       f"{'/'.join(f'{n:,}' for n in units)} {BY}s, the largest holding {max(s for _, s in held):.0%} "
                       f"of the tokens; window {identity['window_len']}, body {'/'.join(dtypes)})")
    display(Markdown(
        f"**Computed with** model set `{model_set.name}` · rankscale {__version__} · models (non-embedding "
        f"parameters) · {' · '.join(groups)} · held-out corpora: {', '.join(corpora)}"
    ))


FINDINGS_KEY = "findings"  # the glue name under which a chapter's findings reach the box at its top


def size_law(family: str, fitted) -> str:
    """A family's power law in MyST, as a sentence names it: its exponent and its R^2.

    >>> from rankscale.analysis.fit import PowerLawFit
    >>> size_law("NeoX", PowerLawFit(-0.0412, 1.0, 0.987, 5)), size_law("Llama", None)
    ('NeoX $S^{-0.041}$ ($R^2$ 0.99)', 'Llama (no log-log fit)')
    """
    return f"{family} $S^{{{fitted.slope:.3f}}}$ ($R^2$ {fitted.r2:.2f})" if fitted else f"{family} (no log-log fit)"


def claim_phrase(claim: str) -> str:
    """A claim's text without its pointer into the paper.

    Examples
    --------
    >>> claim_phrase("EE fits a power law better than CE (paper B §4.2 and Table 1).")
    'EE fits a power law better than CE'
    """
    return claim.split(" (")[0].rstrip(".")


def tally_words(verdict: str, n: int) -> str:
    """How many claims got ``verdict``, in words that agree with the count.

    Examples
    --------
    >>> tally_words("reproduced", 1), tally_words("reproduced", 4), tally_words("partly", 2)
    ('1 is reproduced', '4 are reproduced', '2 partly')
    """
    if verdict == "reproduced":
        return f"{n} {'is' if n == 1 else 'are'} reproduced"
    return f"{n} {verdict}"


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

    A check that holds on some of its units is said to hold in part, not to fail:

    >>> print(findings_text("tiny", [Verdict("w is close (§4)", "", "", "partly", kind="analytic", key="X1.4",
    ...                                      held=33, tested=36)]))
    Of the 1 other check (analytic), 0 hold, 1 holds in part (X1.4 on 33 of 36 units: w is close).
    """
    sentences = list(measured)
    empirical = [v for v in verdicts if v.kind == "empirical"]
    if empirical:
        counts = {name: [v for v in empirical if v.verdict == name] for name in VERDICTS}
        parts = []
        for name, found in counts.items():
            if not found:
                continue
            part = tally_words(name, len(found))
            if name in ("partly", "not reproduced"):
                part += " (" + "; ".join(f"{v.key}{' on ' + v.units_text + ' units' if name == 'partly' else ''}: "
                                         f"{claim_phrase(v.claim)}" for v in found) + ")"
            parts.append(part)
        listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
        sentences.append(f"On model set `{model_set}`, of the {len(empirical)} empirical claim"
                         f"{'s' * (len(empirical) != 1)} scored here, {listed}.")
    others = [v for v in verdicts if v.kind != "empirical"]
    if others:
        kinds = " or ".join(dict.fromkeys(v.kind for v in others))
        in_part = [v for v in others if v.verdict == "partly"]
        failed = [v for v in others if v.verdict == "not reproduced"]
        held = sum(v.verdict == "reproduced" for v in others)
        open_ = len(others) - held - len(in_part) - len(failed)
        parts = [f"{held} hold{'s' * (held == 1)}"]
        if in_part:
            parts.append(f"{len(in_part)} hold{'s' * (len(in_part) == 1)} in part (" + "; ".join(
                f"{v.key} on {v.units_text} units: {claim_phrase(v.claim)}" for v in in_part) + ")")
        if failed:
            parts.append(f"{len(failed)} fail{'s' * (len(failed) == 1)} (" + "; ".join(
                f"{v.key}: {claim_phrase(v.claim)}" for v in failed) + ")")
        if open_:
            parts.append(f"{open_} cannot be decided on this set")
        sentences.append(f"Of the {len(others)} other check{'s' * (len(others) != 1)} ({kinds}), "
                         + ", ".join(parts) + ".")
    return " ".join(sentences)


PROSE_TABLE = "prose"  # the class of a table of sentences, whose cells wrap (book/_static/rankscale.css)


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
    rows = [v.row(chapter) for v in verdicts]
    shown = ["key", "claim", "kind", "rule", "paper", "ours", "verdict", "held on"]
    table = pd.DataFrame([{**row, "held on": v.units_text} for row, v in zip(rows, verdicts)])[shown]
    table = table.rename(columns={"key": ""})
    styled = (table.style.hide(axis="index").format(escape="html").set_table_attributes(f'class="{PROSE_TABLE}"')
              .set_caption(f"Chapter {chapter}'s verdicts: each claim, the rule that decides it (fixed before the "
                           "data), the paper's value, this set's, and the units it held on."))
    display(styled, metadata={VERDICT_KEY: rows})
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
        (pairs of ``Unit`` and outcome, ``Verdict.outcomes``), each row a
        ``Verdict`` read back (``Verdict.from_row``), and "held on" (held of tested, as text; "" where no unit decided the claim); one row per verdict.

    Raises
    ------
    RankscaleError
        If a notebook is missing, was run with another profile, holds no verdicts, or holds a
        verdict that is not one of ``VERDICTS`` or a row without a field of ``Verdict`` (a notebook
        executed by an older rankscale):
        the scorecard must never mix profiles or silently drop a chapter.

    Examples
    --------
    >>> import tempfile, nbformat
    >>> row = Verdict("c", "p", "o", "partly", key="A2.1").row("A2")
    >>> out = nbformat.v4.new_output("display_data", metadata={VERDICT_KEY: [row]})
    >>> nb = nbformat.v4.new_notebook(metadata={"rankscale": {"profile": "tiny"}},
    ...                               cells=[nbformat.v4.new_code_cell(outputs=[out])])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     nbformat.write(nb, Path(folder) / "a2.ipynb")
    ...     collect_verdicts([Path(folder) / "a2.ipynb"], "tiny")[["key", "verdict"]].values.tolist()
    [['A2.1', 'partly']]

    A unit comes back as the ``Unit`` it was, from the fields JSON kept of it:

    >>> row = Verdict("c", "p", "o", "partly", key="A3.1", outcomes=((Unit("pydocs", "NeoX"), "holds"),)).row("A3")
    >>> nb.cells[0].outputs[0].metadata[VERDICT_KEY] = [row]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     nbformat.write(nb, Path(folder) / "a3.ipynb")
    ...     collect_verdicts([Path(folder) / "a3.ipynb"], "tiny")["outcomes"][0]
    ((Unit(corpus='pydocs', family='NeoX'), 'holds'),)
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
        lacking = sorted({name for row in found for name in VERDICT_FIELDS if name not in row})
        if unknown or lacking:
            odd = f"verdicts {unknown} that are not among {VERDICTS}" if unknown else f"rows without {lacking}"
            raise RankscaleError(f"{path} holds {odd}; it was executed by an older rankscale: "
                                 f"run `make book PROFILE={profile}` again")
        rows += [{"chapter": row["chapter"], **vars(Verdict.from_row(row))} for row in found]
    table = pd.DataFrame(rows, columns=["chapter", *VERDICT_FIELDS])
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
        Each notebook's ``metadata.rankscale.models`` (``{"family", "name", "non_embedding"}``,
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


RUN_IT_FILE = "my-models.toml"  # the file name "Run it on your models" writes its example set to


def example_toml(needs) -> str:
    """A user's model set in the TOML layout of ``rankscale.sets.toml_sets``, holding what ``needs``
    asks for and no more: the example a chapter's "Run it on your models" shows.

    Parameters
    ----------
    needs : iterable of str
        Keys of ``rankscale.claims.base.NEEDS``; another raises RankscaleError.

    Returns
    -------
    str
        TOML: one family (``runs/...``, ``save_pretrained`` directories beside the file) of as many
        sizes as the needs ask (two at least), a second family of the paper's GPT-2 or Pythia hub
        models, checkpoints, a reference and chapter B1's temperature runs where asked for.

    Examples
    --------
    >>> print(example_toml(["three sizes"]))  # doctest: +NORMALIZE_WHITESPACE
    name = "my-models"
    <BLANKLINE>
    [corpora]                     # corpus name, file or hub dataset -> target tokens per model
    pydocs = 150000
    <BLANKLINE>
    [[families]]
    name = "mine"
    models = [                    # smallest first: save_pretrained directories or .gguf files
      { model = "runs/small" },
      { model = "runs/medium" },
      { model = "runs/large" },
    ]
    """
    from rankscale.claims.base import CURVE_MIN_SIZES, MIN_SEEDS, MIN_SIZES, NEEDS
    from rankscale.claims.b5 import B5_PAPER_INSTANCES
    from rankscale.sets.builtin import TEMPERATURE_TOKENS

    needs = set(needs)
    unknown = sorted(needs - set(NEEDS))
    if unknown:
        raise RankscaleError(f"needs {unknown} are not among {list(NEEDS)}")
    lines = ['name = "my-models"']
    if "temperature runs" in needs:
        lines.append(f"temperature_tokens = {TEMPERATURE_TOKENS}   # chapter B1: the first family's largest model "
                     "at 3 temperatures")
    lines += ["", "[corpora]                     # corpus name, file or hub dataset -> target tokens per model",
              "pydocs = 150000"]
    if "many windows" in needs:
        lines.append(f'"hf:allenai/c4:en:validation" = 0   # 0: every window; B5.3 needs '
                     f"{B5_PAPER_INSTANCES[1]:,} windows per model")
    n_sizes = CURVE_MIN_SIZES if "four sizes" in needs else MIN_SIZES if "three sizes" in needs else 2
    names = ("small", "medium", "large", "xl")[:n_sizes]
    steps = (0, 1000, 4000) if "a step-0 checkpoint" in needs else (1000, 2000, 4000)
    models = []
    for i, size in enumerate(names):
        checkpoints = ""
        if ("checkpoints" in needs or "a step-0 checkpoint" in needs) and i == len(names) - 1:
            checkpoints = (", checkpoints = [\n      " + ",\n      ".join(
                f'{{ step = {s}, model = "runs/{size}/step{s}" }}' for s in steps) + ",\n    ]")
        models.append(f'  {{ model = "runs/{size}"{checkpoints} }},')
        if "two seeds" in needs:  # the same shape trained again: the scatter between runs
            models += [f'  {{ model = "runs/{size}-seed{seed}" }},' for seed in range(2, MIN_SEEDS + 1)]
    lines += ["", "[[families]]", 'name = "mine"',
              "models = [                    # smallest first: save_pretrained directories or .gguf files",
              *models, "]"]
    if "two families" in needs or "the GPT-2 family" in needs:
        family, ids = (("GPT-2", ["openai-community/gpt2", "openai-community/gpt2-medium", "openai-community/gpt2-large"])
                       if "the GPT-2 family" in needs else
                       ("Pythia", ["EleutherAI/pythia-70m", "EleutherAI/pythia-160m", "EleutherAI/pythia-410m"]))
        lines += ["", "[[families]]                  # a second family: hub ids work as well as directories",
                  f'name = "{family}"', "models = [", *[f'  {{ model = "{i}" }},' for i in ids], "]"]
    if "a reference model" in needs:
        lines += ["", "[[references]]                # shown beside the families, never fitted",
                  'model = "downloads/model.Q4_K_M.gguf"']
    return "\n".join(lines)


def run_it_yourself(chapter: str, shown=None) -> str:
    """Display (IPython) the end of a chapter: how to run its claims on one's own models, with
    the TOML of a model set that can test every one of them (``example_toml``), the commands,
    and which claims need what (``rankscale.claims.base.NEEDS``, from each ``Claim.needs``).

    Parameters
    ----------
    chapter : str
        The chapter, e.g. ``"B4"``; its claims are the keys ``B4.<n>`` of
        ``rankscale.claims.CLAIMS``, none raises RankscaleError.
    shown : pandas.DataFrame, optional
        The chapter's verdicts as ``verdict_table`` returned them; with them, the claims this set
        could not test or decide are named.

    Returns
    -------
    str
        The Markdown shown.

    Examples
    --------
    >>> text = run_it_yourself("B4")
    <IPython.core.display.Markdown object>
    >>> "make book PROFILE=my-models.toml" in text, "- **two seeds**" in text, "B4.1 needs" in text
    (True, True, True)
    """
    from IPython.display import Markdown, display

    from rankscale.claims.base import CLAIMS, NEEDS, NOT_TESTABLE, UNDETERMINED

    claims = [c for key, c in CLAIMS.items() if key.split(".")[0] == chapter]
    if not claims:
        raise RankscaleError(f"no claims of chapter {chapter} in rankscale.claims")
    needed = {need: [c.key for c in claims if need in c.needs] for need in NEEDS}
    listed = [f"- **{need}**, {NEEDS[need]}: {', '.join(keys)}" for need, keys in needed.items() if keys]
    free = [c.key for c in claims if not c.needs]
    parts = [(f"Every claim of chapter {chapter} can be scored on your own families of models. Write them into "
              f"`{RUN_IT_FILE}` (this set has what each claim needs; relative paths are read from the file's "
              "folder), check it, and build the book with it:"),
             f"```toml\n{example_toml(n for c in claims for n in c.needs)}\n```",
             f"```bash\n.venv/bin/python -m rankscale check-profile {RUN_IT_FILE}\nmake book PROFILE={RUN_IT_FILE}\n```"]
    if listed:
        parts.append("Beyond families of two models, its claims need:\n\n" + "\n".join(listed))
    if free:
        parts.append(f"{', '.join(free)} need{'s' * (len(free) == 1)} nothing more.")
    if shown is not None:
        verdicts = dict(zip(shown[""], shown["verdict"]))
        for verdict, word in ((NOT_TESTABLE, "not testable"), (UNDETERMINED, "undetermined")):
            keys = [key for key, v in verdicts.items() if v == verdict]
            if keys:
                parts.append(f"On this set, {', '.join(keys)} {'is' if len(keys) == 1 else 'are'} {word}; "
                             "the verdict table above says why.")
    text = "\n\n".join(parts)
    display(Markdown(text))
    return text


def papers_regime():
    """The papers' models in the numbers the ladder page sets beside this set's: how many, their
    non-embedding sizes and span in decades (``rankscale.sets.registry``, from paper A's code and
    paper B's Table 4) and their vocabularies (``rbp_authors_param_count``, where it lists them).

    Returns
    -------
    pandas.DataFrame
        One row per paper ("paper A", "paper B"): models, smallest and largest non-embedding
        parameters, decades of size, smallest and largest vocabulary.

    Examples
    --------
    >>> papers = papers_regime().set_index("models of")
    >>> int(papers.loc["paper A", "smallest"]), bool(papers.loc["paper B", "decades of size"] > 4)
    (1189888, True)
    """
    import numpy as np
    import pandas as pd

    from rankscale.sets.registry import REGISTRY

    vocab = reference_table("rbp_authors_param_count")["vocab_size"]
    rows = []
    for paper in ("A", "B"):
        models = [m for m in REGISTRY.values() if paper in m.papers]
        sizes = [m.non_embedding for m in models]
        vocabs = [int(vocab[m.hub_id]) for m in models if m.hub_id in vocab.index]
        rows.append({"models of": f"paper {paper}", "models": len(models), "smallest": min(sizes),
                     "largest": max(sizes), "decades of size": float(np.log10(max(sizes) / min(sizes))),
                     "vocabulary from": min(vocabs), "vocabulary to": max(vocabs)})
    return pd.DataFrame(rows)


def ladder_findings(model_set: str, regime, final, papers, seed_exponents=None) -> str:
    """The ladder page's findings: the regime of a set's ladders in a few sentences, every
    number read from its tables.

    Parameters
    ----------
    model_set : str
        The set's name.
    regime : pandas.DataFrame
        ``rankscale.models.ladder.regime`` of the set's ladder models; empty for a set without
        ladders.
    final : pandas.DataFrame
        The families' final models on the first corpus the page shows: family, model,
        non-embedding parameters, corpus, CE and RBP_1, smallest first within a family.
    papers : pandas.DataFrame
        ``papers_regime()``.
    seed_exponents : pandas.DataFrame, optional
        ``rankscale.analysis.seed_spread.seed_report``'s exponents with ``corpus`` and ``family``
        columns; None or empty for a set without extra seeds.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> regime = pd.DataFrame({"family": ["F", "F"], "model": ["s", "l"], "non-embedding parameters": [3_000, 1_200_000],
    ...                        "training tokens": [2_000_000] * 2, "tokens per parameter": [666.7, 1.667],
    ...                        "seed": [1, 1], "runs at this size": [1, 1], "vocabulary": [4096] * 2,
    ...                        "training corpora": ["pydocs:train, stdlib:train"] * 2})
    >>> final = regime[["family", "model", "non-embedding parameters"]].assign(corpus="pydocs", CE=[5.5, 4.9],
    ...                                                                          RBP_1=[0.12, 0.25])
    >>> print(ladder_findings("tiny", regime, final, papers_regime()))  # doctest: +NORMALIZE_WHITESPACE
    On model set `tiny`, every ladder model trains on the same 2,000,000 tokens: 667 tokens per non-embedding
    parameter for the smallest (F s) down to 1.67 for the largest (F l). Across 2.6 decades of size, CE on
    pydocs falls only from 5.50 to 4.90 nats and RBP_1 rises from 0.12 to 0.25 (F). The vocabulary has
    4,096 tokens (the papers' models: 32,000 to 152,064), there is 1 training run (seed) per size, and the
    held-out text comes from the training distribution (held-out documents of a corpus the ladders trained on).
    >>> print(ladder_findings("reduced", regime.iloc[:0], final, papers_regime()))  # doctest: +NORMALIZE_WHITESPACE
    Model set `reduced` has no ladder: its families are models trained elsewhere, whose training this page does
    not record (F: 3,000 to 1,200,000 non-embedding parameters).
    """
    import numpy as np

    spans = []
    for family, part in final.groupby("family", sort=False):
        sizes = part["non-embedding parameters"]
        spans.append((family, part.iloc[0], part.iloc[-1], float(np.log10(sizes.max() / sizes.min()))))
    if regime.empty:
        return (f"Model set `{model_set}` has no ladder: its families are models trained elsewhere, whose "
                "training this page does not record (" + "; ".join(
                    f"{family}: {small['non-embedding parameters']:,} to {large['non-embedding parameters']:,} "
                    "non-embedding parameters" for family, small, large, _ in spans) + ").")
    tokens = sorted(regime["training tokens"].unique())
    smallest = regime.loc[regime["tokens per parameter"].idxmax()]
    largest = regime.loc[regime["tokens per parameter"].idxmin()]
    same = (f"the same {tokens[0]:,} tokens" if len(tokens) == 1
            else f"{tokens[0]:,} to {tokens[-1]:,} tokens")
    corpus = final["corpus"].iloc[0]
    changes = "; ".join(f"from {small.CE:.2f} to {large.CE:.2f} nats and RBP_1 rises from {small.RBP_1:.2f} to "
                        f"{large.RBP_1:.2f} ({family})" for family, small, large, _ in spans)
    decades = max(d for *_, d in spans)
    vocab = sorted(int(v) for v in regime["vocabulary"].unique())
    trained_on = {name.split(":")[0] for names in regime["training corpora"] for name in names.split(", ")}
    source = ("comes from the training distribution (held-out documents of a corpus the ladders trained on)"
              if corpus in trained_on else f"is not from the training corpora ({', '.join(sorted(trained_on))})")
    runs = sorted(int(n) for n in regime["runs at this size"].unique())
    per_size = (f"{runs[0]} training run{'s' * (runs[0] != 1)} (seed{'s' * (runs[0] != 1)})" if len(runs) == 1
                else f"{runs[0]} to {runs[-1]} training runs (seeds)")
    return (f"On model set `{model_set}`, every ladder model trains on {same}: {smallest['tokens per parameter']:.3g} "
            f"tokens per non-embedding parameter for the smallest ({smallest.family} {smallest.model}) down to "
            f"{largest['tokens per parameter']:.3g} for the largest ({largest.family} {largest.model}). Across "
            f"{decades:.1f} decades of size, CE on {corpus} falls only {changes}. The vocabulary has "
            f"{'/'.join(f'{v:,}' for v in vocab)} tokens (the papers' models: {papers['vocabulary from'].min():,} to "
            f"{papers['vocabulary to'].max():,}), there {'is' if runs == [1] else 'are'} {per_size} per size, and the "
            f"held-out text {source}." + _seed_sentence(seed_exponents, corpus))


def _seed_sentence(seed_exponents, corpus: str) -> str:
    """How far the CE slope moves between seeds against the text's scatter, on ``corpus``."""
    if seed_exponents is None or seed_exponents.empty:
        return ""
    rows = seed_exponents[(seed_exponents["corpus"] == corpus) & (seed_exponents["quantity"] == "CE")]
    return (" Between training runs of the seeded sizes, the log-log slope of CE on " + corpus + " moves by a standard "
            "deviation of " + " and ".join(f"{row['seed sd']:.4f} ({row['family']})" for _, row in rows.iterrows())
            + ", against " + " and ".join(f"{row['text sd']:.4f}" for _, row in rows.iterrows())
            + " from resampling the evaluation windows.")
