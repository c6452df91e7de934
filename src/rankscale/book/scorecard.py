"""The scorecard page's picture and narrative: every empirical claim's units of evidence placed in
columns of corpus and family with one outcome per column (``claim_grid``), drawn as a coloured
grid (``draw_grid``), the sentences that say what holds, what fails and what this set cannot
decide (``narrative``), and the paragraph of them that opens the book (``headline``), all computed
from the verdicts that ``rankscale.book.pages.collect_verdicts`` gathers.
"""

from __future__ import annotations

import re

from rankscale import RankscaleError
from rankscale.book.pages import claim_phrase, tally_words
from rankscale.book.plots import DPI, STYLE
from rankscale.claims.base import NOT_TESTABLE, POOLED, UNDETERMINED, VERDICTS, Unit

REFERENCE, OTHER = "reference", "other"  # the columns beside the families and the pooled one (POOLED)
COLUMN_LABELS = {REFERENCE: "ref.\nmodel"}  # a header as narrow as a column of the grid (draw_grid)
# A column's outcome: the unit outcomes of rankscale.claims.base.UNIT_OUTCOMES, "mixed" where
# the claim held on some units of the column and failed on others, "no unit" where none fell there.
CELL_OUTCOMES = ("holds", "mixed", "fails", UNDETERMINED, "untested", "no unit")
# Okabe-Ito colours, told apart with any colour vision, and a mark in each cell for print
CELL_LOOK = {"holds": ("#009E73", "✓"), "mixed": ("#E69F00", "½"), "fails": ("#D55E00", "✗"),
             UNDETERMINED: ("#CC79A7", "?"), "untested": ("#BBBBBB", "–"), "no unit": ("#FFFFFF", "")}


def unit_columns(unit: Unit, corpora: list[str], families: list[str],
                 references: list[str] = ()) -> list[tuple[str, str]]:
    """The (corpus, group) columns a unit's outcome counts in, read from its fields alone (see ``claim_grid``).

    >>> unit_columns(Unit("pydocs", "NeoX", model="d40-l2"), ["pydocs", "stdlib"], ["NeoX", "Llama"])
    [('pydocs', 'NeoX')]
    >>> unit_columns(Unit(family="Llama"), ["pydocs", "stdlib"], ["NeoX", "Llama"])
    [('pydocs', 'Llama'), ('stdlib', 'Llama')]
    >>> unit_columns(Unit("stdlib", pooled=True), ["pydocs", "stdlib"], ["NeoX"]), unit_columns(Unit(), [], [])
    ([('stdlib', 'All')], [('', 'other')])
    """
    if not isinstance(unit, Unit):
        raise RankscaleError(f"the unit {unit!r} is a name, not a Unit: a verdict's units are placed by their "
                             "fields; build it with rankscale.claims.base.Unit")
    named = [name for name in (unit.family, unit.versus) if name]
    # a reference model sits beside the families in one column over every corpus: a grid of a column per corpus
    # and reference would be too wide for the page to show its text at body size
    beside = [("", _beside(REFERENCE, families))] if any(name in references for name in named) else []
    groups = [name for name in named if name not in references] + [_beside(POOLED, families)] * unit.pooled
    if beside and not groups:
        return beside
    if not unit.corpus and not groups:
        return [("", _beside(OTHER, families))]
    # a unit of one corpus and no family decides every family there; one of a family and no corpus, every corpus
    return [(c, g) for c in ([unit.corpus] if unit.corpus else corpora) for g in groups or families] + beside


def _beside(column: str, families: list[str]) -> str:
    """The name of a column beside the families (``POOLED``, ``REFERENCE``, ``OTHER``), told apart from a family
    of the same name.

    >>> _beside("All", ["NeoX"]), _beside("All", ["All", "NeoX"])
    ('All', 'All (not a family)')
    """
    return f"{column} (not a family)" if column in families else column


def _pooled(outcomes) -> str:
    """One outcome of several units in one column, decided as ``rankscale.claims.base.judge`` decides."""
    decided = set(outcomes) & {"holds", "fails"}
    if decided:
        return decided.pop() if len(decided) == 1 else "mixed"
    return next((o for o in (UNDETERMINED, "untested") if o in set(outcomes)), "no unit")


def claim_grid(verdicts, corpora: list[str], families: list[str], references: list[str] = ()):
    """Each claim's outcome per column of corpus and family: its units' outcomes grouped by the columns their
    fields place them in.

    A ``Unit`` counts in the column of its corpus and of its family and of the family it is compared with (the
    families pooled, paper B's "All": the column "All"); a reference model, whatever its corpus, in one column
    "reference" beside every corpus's.
    A unit of a corpus and no family counts for every family on that corpus, one of a family and no corpus on
    every corpus; a unit of neither goes to one column "other". A column's outcome is "holds" or "fails"
    where every deciding unit there agrees, "mixed" where they differ; else "undetermined" where some unit
    could not decide, "untested" where none could test it, "no unit" where no unit falls there.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        Rows of ``rankscale.book.pages.collect_verdicts``: columns key and outcomes (pairs of ``Unit`` and
        outcome).
    corpora, families : list of str
        The model set's corpora and families, in order: the columns, corpus by corpus.
    references : list of str
        The reference models' names.

    Returns
    -------
    pandas.DataFrame
        One row per claim (index: key, in the rows' order), one column per (corpus, group), a
        ``pandas.MultiIndex``: each family, then "All" where a unit falls there, on every corpus, then
        ``("", "reference")`` and ``("", "other")`` where a unit falls there; values from ``CELL_OUTCOMES``.

    Raises
    ------
    RankscaleError
        Where a unit is a name rather than a ``Unit``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"key": ["A2.1", "B3.1", "B1.4"], "outcomes": [
    ...     ((Unit("pydocs", "NeoX"), "holds"), (Unit("stdlib", "NeoX"), "fails"), (Unit(family="Llama"), "untested")),
    ...     ((Unit("pydocs", "NeoX", model="d16"), "holds"), (Unit("pydocs", "NeoX", model="d32"), "fails"),
    ...      (Unit("pydocs", pooled=True), "holds")),
    ...     ((Unit(), UNDETERMINED),)]})
    >>> grid = claim_grid(rows, ["pydocs", "stdlib"], ["NeoX", "Llama"])
    >>> grid.columns.tolist()
    [('pydocs', 'NeoX'), ('pydocs', 'Llama'), ('pydocs', 'All'), ('stdlib', 'NeoX'), ('stdlib', 'Llama'), ('stdlib', 'All'), ('', 'other')]
    >>> grid.loc["A2.1"].tolist()
    ['holds', 'untested', 'no unit', 'fails', 'untested', 'no unit', 'no unit']
    >>> grid.loc["B3.1", "pydocs"].tolist(), grid.loc["B1.4", ("", "other")]
    (['mixed', 'no unit', 'holds'], 'undetermined')
    """
    import pandas as pd

    placed = pd.DataFrame([(key, corpus, group, outcome) for key, outcomes in zip(verdicts["key"], verdicts["outcomes"])
                           for unit, outcome in outcomes
                           for corpus, group in unit_columns(unit, corpora, families, references)],
                          columns=["key", "corpus", "group", "outcome"])
    cells = placed.groupby(["key", "corpus", "group"], sort=False)["outcome"].agg(_pooled)
    used = set(placed["group"]) - set(families)
    groups = [*families, *(g for g in [_beside(POOLED, families)] if g in used)]
    columns = [(c, g) for c in corpora for g in groups]
    columns += [("", g) for g in (_beside(REFERENCE, families), _beside(OTHER, families)) if g in used]
    grid = cells.unstack(["corpus", "group"], fill_value="no unit") if len(cells) else pd.DataFrame()
    return grid.reindex(index=pd.Index(list(verdicts["key"]), name="key"), columns=pd.MultiIndex.from_tuples(columns),
                        fill_value="no unit")


def draw_grid(grid, verdicts: dict[str, str], figure=None, fontsize: float = STYLE["font.size"]):
    """Draw ``claim_grid``'s table: one row per claim, its verdict at the right, one coloured cell
    per column (``CELL_LOOK``, with a mark for readers without colour), the corpora above their
    columns and a legend on top.

    Every length is a multiple of the text's height, and the figure is drawn at 150 dots per inch,
    wider than the book's column (about 770 pixels at a 1400-pixel window), so the page scales it
    to the column's width; eleven columns make about 46 text heights across, which puts its text
    at the page's 16-pixel body size.

    Parameters
    ----------
    grid : pandas.DataFrame
        ``claim_grid``'s result.
    verdicts : dict of str to str
        The verdict of each claim of the grid, by key.
    figure : matplotlib.figure.Figure, optional
        Draw on this figure (resized); None: a new pyplot figure, for ``rankscale.book.plots.show``.
    fontsize : float
        Points of every text.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> from matplotlib.figure import Figure
    >>> grid = pd.DataFrame([["holds", "fails"]], index=pd.Index(["A2.1"], name="key"),
    ...                     columns=pd.MultiIndex.from_tuples([("pydocs", "NeoX"), ("pydocs", "Llama")]))
    >>> fig = draw_grid(grid, {"A2.1": "partly"}, figure=Figure())
    >>> ax = fig.axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], [t.get_text() for t in ax.get_xticklabels()]
    (['A2.1'], ['NeoX', 'Llama'])
    >>> sorted(t.get_text() for t in ax.texts if t.get_text())
    ['partly', 'pydocs', '✓', '✗']
    """
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    n_rows, n_cols = grid.shape
    em = fontsize / 72  # inches per text height
    # text heights: row labels, a column, the longest verdict; a row; the legend and column labels on top.
    # Eleven columns (two families and the pooled fit on three corpora, the reference models, other) at 12 pt give an
    # image about 780 px wide at plots.DPI: the book's column shows it at its own size, text at body size
    left, column, right, row, bottom, top = 2.7, 3.25, 7.0, 1.7, 0.3, 7.8
    width, height = em * (left + column * n_cols + right), em * (bottom + row * n_rows + top)
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=(width, height), dpi=DPI, layout="none")  # its own fixed layout
    else:
        figure.set_size_inches(width, height)
    ax = figure.add_axes([em * left / width, em * bottom / height, em * column * n_cols / width,
                          em * row * n_rows / height])
    codes = grid.apply(lambda col: col.map(CELL_OUTCOMES.index)).to_numpy()
    ax.imshow(codes, cmap=ListedColormap([CELL_LOOK[o][0] for o in CELL_OUTCOMES]), vmin=0,
              vmax=len(CELL_OUTCOMES) - 1, aspect="auto", interpolation="nearest")
    for (i, j), code in np.ndenumerate(codes):
        ax.text(j, i, CELL_LOOK[CELL_OUTCOMES[code]][1], ha="center", va="center", fontsize=fontsize)
    ax.set_yticks(range(n_rows), grid.index, fontsize=fontsize)
    ax.set_xticks(range(n_cols), [COLUMN_LABELS.get(group, group.replace(" ", "\n")) for _, group in grid.columns],
                  fontsize=fontsize)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(-0.5, n_cols), minor=True)
    ax.set_yticks(np.arange(-0.5, n_rows), minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.spines[:].set_visible(False)
    for corpus in dict.fromkeys(corpus for corpus, _ in grid.columns):  # named above its columns
        at = [j for j, (c, _) in enumerate(grid.columns) if c == corpus]
        if corpus:  # above two lines of column labels
            ax.annotate(corpus, (np.mean(at), 1), xycoords=("data", "axes fraction"), xytext=(0, 3.0 * fontsize),
                        textcoords="offset points", ha="center", va="bottom", fontsize=fontsize, fontweight="bold")
        if at[0]:
            ax.axvline(at[0] - 0.5, color="black", lw=2)
    chapters = [key.split(".")[0] for key in grid.index]
    for i in range(1, n_rows):
        if chapters[i] != chapters[i - 1]:  # a line between chapters
            ax.axhline(i - 0.5, color="black", lw=1)
    for i, key in enumerate(grid.index):  # "not testable" alone: the longest verdict sets the figure's width
        ax.text(n_cols - 0.3, i, verdicts[key].replace(NOT_TESTABLE, "not testable"), ha="left", va="center",
                fontsize=fontsize)
    figure.legend(handles=[Patch(facecolor=CELL_LOOK[o][0], edgecolor="grey", label=f"{CELL_LOOK[o][1]} {o}".strip())
                           for o in CELL_OUTCOMES], loc="upper left", ncol=3, fontsize=fontsize, frameon=False,
                  bbox_to_anchor=(0.0, 1.0))
    return figure


def narrative(verdicts, grid) -> str:
    """The scorecard's reading of its picture, in a few sentences computed from the verdicts.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        The empirical rows of ``rankscale.book.pages.collect_verdicts``.
    grid : pandas.DataFrame
        ``claim_grid`` of those rows.

    Returns
    -------
    str
        Markdown: which claims hold on every unit that decides them (with their texts), which fail
        on all of them and which on some (by key), how often each column group (a family, "All")
        held where it decided a claim (counting cells of the grid), and
        why the undetermined and the untestable ones could not be decided, each reason with the
        claims it stops.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"key": ["A2.1", "A2.2", "A2.3", "A3.7"], "claim": ["x falls (§4)", "y rises (§4)", "w", "z"],
    ...                      "verdict": ["reproduced", "not reproduced", "partly", NOT_TESTABLE],
    ...                      "ours": ["", "", "", "no family has 4 or more sizes (NeoX: 3 sizes); slopes"],
    ...                      "held": [1, 0, 1, 0], "tested": [1, 1, 2, 0],
    ...                      "outcomes": [((Unit("pydocs", "NeoX"), "holds"),), ((Unit("pydocs", "NeoX"), "fails"),),
    ...                                   ((Unit("pydocs", "NeoX", model="d16"), "holds"),
    ...                                    (Unit("pydocs", "NeoX", model="d32"), "fails")), ()]})
    >>> print(narrative(rows, claim_grid(rows, ["pydocs"], ["NeoX"])))  # doctest: +NORMALIZE_WHITESPACE
    **Holds** wherever it was decided (1): A2.1 (x falls). **Fails** on every unit that decided it (1):
    A2.2. **Holds on some units only**, of those that decided it (1): A2.3 (1 of 2). **By column**,
    counting the grid's cells that a claim decided: NeoX held in 1 of 3 (1 mixed). **Not testable on
    this set** (1): no family has 4 or more sizes (A3.7).
    """
    sentences = []
    held = verdicts[verdicts["verdict"] == "reproduced"]
    if len(held):  # the few that hold, in words; the many others by key, their texts in the tables below
        sentences.append(f"**Holds** wherever it was decided ({len(held)}): " + "; ".join(
            f"{row.key} ({claim_phrase(row.claim)})" for row in held.itertuples()) + ".")
    for verdict, lead in (("not reproduced", "**Fails** on every unit that decided it"),
                          ("partly", "**Holds on some units only**, of those that decided it")):
        found = verdicts[verdicts["verdict"] == verdict]
        if len(found):
            sentences.append(f"{lead} ({len(found)}): " + ", ".join(
                row.key + (f" ({row.held} of {row.tested})" if verdict == "partly" else "")
                for row in found.itertuples()) + ".")
    groups = list(dict.fromkeys(group for corpus, group in grid.columns if corpus))
    shares = []
    for group in groups:
        cells = grid.loc[:, [column for column in grid.columns if column[1] == group]].to_numpy().ravel()
        decided = [c for c in cells if c in ("holds", "fails", "mixed")]
        if decided:
            shares.append(f"{group} held in {decided.count('holds')} of {len(decided)}"
                          + (f" ({decided.count('mixed')} mixed)" if "mixed" in decided else ""))
    if shares:
        sentences.append("**By column**, counting the grid's cells that a claim decided: " + "; ".join(shares) + ".")
    for verdict, label in ((UNDETERMINED, "**Undetermined**"), (NOT_TESTABLE, "**Not testable on this set**")):
        found = verdicts[verdicts["verdict"] == verdict]
        if not len(found):
            continue
        # judge puts the reason first in "ours"; its details (in parentheses) differ from claim to claim
        why: dict[str, list[str]] = {}
        for row in found.itertuples():
            reason = re.sub(r"\s*\(.*", "", row.ours.split("; ")[0]).strip() or "no reason recorded"
            why.setdefault(reason, []).append(row.key)
        sentences.append(f"{label} ({len(found)}): " + "; ".join(f"{reason} ({', '.join(keys)})"
                                                                  for reason, keys in why.items()) + ".")
    return " ".join(sentences)


def headline(verdicts, model_set: str, regime: str = "") -> str:
    """The build's headline in one paragraph: how the papers' empirical claims fared on this set, in the same
    sentence as the regime they fared in, and the findings about the papers themselves, for the top of the
    introduction.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        Every row of ``rankscale.book.pages.collect_verdicts``: columns key, kind, verdict, finding.
    model_set : str
        The set's name.
    regime : str
        The set's regime as a clause (``rankscale.book.regime.regime_clause``), appended to the tally's sentence;
        "" for none.

    Returns
    -------
    str
        Markdown, with a link to the scorecard (the introduction's ``chapters/scorecard``).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"key": ["A2.1", "A2.2", "A4.4"], "kind": ["empirical", "empirical", "analytic"],
    ...                      "verdict": ["reproduced", "partly", "not reproduced"], "finding": ["", "", "eq. 8 only shifts"]})
    >>> print(headline(rows, "smoke"))  # doctest: +NORMALIZE_WHITESPACE
    **On this build** (model set `smoke`), of the papers' 2 empirical claims 1 is reproduced, 1 partly,
    0 not reproduced, 0 undetermined and 0 not testable on this set ([scorecard](chapters/scorecard)).
    1 claim fails whatever the data, because the paper's own derivation does not give what its text
    says (A4.4).
    >>> headline(rows, "smoke", "on models whose CE moves little").split("[scorecard](chapters/scorecard)")[1][:35]
    '), on models whose CE moves little.'
    """
    empirical = verdicts[verdicts["kind"] == "empirical"]
    counts = [tally_words(v, int((empirical["verdict"] == v).sum())) for v in VERDICTS]
    text = (f"**On this build** (model set `{model_set}`), of the papers' {len(empirical)} empirical claims "
            f"{', '.join(counts[:-1])} and {counts[-1]} ([scorecard](chapters/scorecard))"
            + (f", {regime}." if regime else "."))
    findings = verdicts[verdicts["finding"] != ""]
    if len(findings):
        text += (f" {len(findings)} claim{' fails' if len(findings) == 1 else 's fail'} whatever the data, because "
                 f"the paper's own derivation does not give what its text says ({', '.join(findings['key'])}).")
    return text
