"""The chapters' figures: one look per family, and the plotting steps that several chapters share
(a row of panels per corpus, the model-size axis, the families' legend), with the few ways of
writing an interval or a range that their tables and verdict texts share.

Every function draws on axes it is given (or on a figure it makes) and returns nothing it
computed; the numbers come from ``rankscale.analysis``. A family's colour and marker follow its
place in the model set, so a family looks the same in every figure of the book.
"""

from __future__ import annotations

from rankscale.analysis.bootstrap import LEVEL, interval
from rankscale.sets.schema import ModelSet

SIZE_LABEL = "non-embedding parameters"  # the model-size axis of every figure against size


# One colour and marker per family, in the order families appear in a set; references in black.
FAMILY_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                 "tab:olive", "tab:cyan")


FAMILY_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h", "*")


def family_style(model_set: ModelSet, family: str | None) -> dict:
    """Matplotlib keywords (``color``, ``marker``) of a family, the same in every chapter.

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The chapter's model set; a family's look follows its place in the set.
    family : str or None
        A family of the set; None (a reference model) is black stars.

    Returns
    -------
    dict
        ``{"color": ..., "marker": ...}``.

    Examples
    --------
    >>> from rankscale.sets import get
    >>> family_style(get("tiny"), "Llama ladder"), family_style(get("tiny"), None)
    ({'color': 'tab:orange', 'marker': 's'}, {'color': 'black', 'marker': '*'})
    """
    if family is None:
        return {"color": "black", "marker": "*"}
    names = [f.name for f in model_set.families]
    i = names.index(family) if family in names else len(names)
    return {"color": FAMILY_COLORS[i % len(FAMILY_COLORS)], "marker": FAMILY_MARKERS[i % len(FAMILY_MARKERS)]}


def size_plot(ax, model_set: ModelSet, family: str | None, sizes, values, fitted=None, label: str = "", **style) -> None:
    """Draw one family's points against non-embedding size on log-log axes, with its fit.

    In the family's colour and marker (``family_style``); non-positive values, which a log axis
    cannot show, are left out; the fitted power law is a line over the range of ``sizes``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on; set to log-log scales.
    model_set : rankscale.sets.schema.ModelSet
        The chapter's model set (for the family's look).
    family : str or None
        The family; None for a reference model.
    sizes, values : array_like of shape (n,)
        Non-embedding parameters and the quantity plotted, one per model.
    fitted : rankscale.analysis.fit.PowerLawFit, optional
        Anything with ``predict(sizes)``; None: points only.
    label, **style
        Legend label of the points; overrides of ``color`` and ``marker``, and ``alpha``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> from rankscale.sets import get
    >>> size_plot(ax, get("tiny"), "NeoX ladder", [3e3, 3e4, 3e5], [2.0, 0.0, 1.0], label="CE")
    >>> len(ax.lines[0].get_xdata()), ax.get_xscale(), ax.lines[0].get_color()
    (2, 'log', 'tab:blue')
    """
    import numpy as np

    sizes, values = np.asarray(sizes, float), np.asarray(values, float)
    look = {**family_style(model_set, family), **style}
    shown = values > 0
    ax.plot(sizes[shown], values[shown], linestyle="none", label=label, color=look["color"],
            marker=look["marker"], alpha=look.get("alpha", 1.0))
    if fitted is not None:
        grid = np.geomspace(sizes.min(), sizes.max(), 50)
        ax.plot(grid, fitted.predict(grid), "-", color=look["color"], alpha=0.7 * look.get("alpha", 1.0),
                lw=1)
    ax.set(xscale="log", yscale="log")


def size_axes(axes, symbol: str = "") -> None:
    """Make the x axis of every panel the model-size axis: logarithmic, with only its decades
    labelled, and named under the bottom row of panels.

    Call it after drawing (``size_plot`` sets the log scale again, which resets the ticks).

    Parameters
    ----------
    axes : matplotlib.axes.Axes or array_like of Axes
        One panel, a row of panels, or a grid (rows of panels); only the last row gets the label.
    symbol : str
        The size's symbol in the label, in math mode ("S" gives "non-embedding parameters $S$");
        empty: the label alone.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> axes = Figure().subplots(2, 2, squeeze=False)
    >>> size_axes(axes, "S")
    >>> axes[1, 0].get_xscale(), axes[1, 0].get_xlabel(), axes[0, 0].get_xlabel()
    ('log', 'non-embedding parameters $S$', '')
    >>> type(axes[0, 1].xaxis.get_minor_formatter()).__name__
    'NullFormatter'
    """
    import numpy as np
    from matplotlib.ticker import NullFormatter

    grid = np.atleast_2d(np.asarray(axes, dtype=object))
    for ax in grid.flat:
        if ax.get_xscale() != "log":  # already log after size_plot: left as it is
            ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    for ax in grid[-1]:
        ax.set_xlabel(SIZE_LABEL + (f" ${symbol}$" if symbol else ""))


def corpus_panels(corpora: list[str], width: float, height: float, rows: int = 1, title: str | None = "{corpus}",
                  title_size: float | None = None, figure=None, **subplots):
    """A figure with one column of panels per corpus.

    Parameters
    ----------
    corpora : list of str
        The corpora, one column each, in order.
    width, height : float
        Inches per panel: the figure is ``width * len(corpora)`` wide and ``height * rows`` high.
    rows : int
        Rows of panels.
    title : str or None
        Title of each top panel, a format string of ``corpus``; None: no title.
    title_size : float, optional
        Font size of the titles; None: matplotlib's.
    figure : matplotlib.figure.Figure, optional
        Draw on this figure (resized); None: a new pyplot figure, which ``plt.show()`` shows.
    **subplots
        Passed on to ``Figure.subplots`` (``sharex``, ``sharey``, ...).

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : numpy.ndarray of Axes, shape (rows, len(corpora))
        Always two-dimensional, even for one row or one corpus.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig, axes = corpus_panels(["pydocs", "stdlib"], 4.0, 3.0, title="{corpus}: CE", figure=Figure())
    >>> axes.shape, [ax.get_title() for ax in axes[0]], fig.get_size_inches().tolist()
    ((1, 2), ['pydocs: CE', 'stdlib: CE'], [8.0, 3.0])
    """
    figsize = (width * len(corpora), height * rows)
    if figure is None:
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=figsize)
    else:
        figure.set_size_inches(figsize)
    axes = figure.subplots(rows, len(corpora), squeeze=False, **subplots)
    if title is not None:
        for ax, corpus in zip(axes[0], corpora):
            ax.set_title(title.format(corpus=corpus), **({} if title_size is None else {"fontsize": title_size}))
    return figure, axes


def family_handles(model_set: ModelSet, families: list, labels: list[str] | None = None, **line) -> list:
    """Legend entries for families, each in its colour and marker (``family_style``).

    Parameters
    ----------
    model_set : rankscale.sets.schema.ModelSet
        The chapter's model set.
    families : list of str or None
        The families, in legend order; None stands for the reference models (black stars).
    labels : list of str, optional
        One label per family; default the family's name ("reference" for None).
    **line
        Matplotlib ``Line2D`` keywords for every entry (``ls="none"`` for markers alone,
        ``marker=None`` for a line alone, ``markersize``), overriding the family's look.

    Returns
    -------
    list of matplotlib.lines.Line2D
        For ``ax.legend(handles=...)``.

    Examples
    --------
    >>> from rankscale.sets import get
    >>> handles = family_handles(get("tiny"), ["NeoX ladder", "Llama ladder", None], ls="none")
    >>> [(h.get_label(), h.get_color(), h.get_marker(), h.get_linestyle()) for h in handles]
    [('NeoX ladder', 'tab:blue', 'o', 'None'), ('Llama ladder', 'tab:orange', 's', 'None'), ('reference', 'black', '*', 'None')]
    """
    from matplotlib.lines import Line2D

    labels = [family or "reference" for family in families] if labels is None else labels
    return [Line2D([], [], label=label, **{**family_style(model_set, family), **line})
            for family, label in zip(families, labels, strict=True)]


def r2_interval(fitted, replicates, level: float = LEVEL) -> tuple[float, float] | None:
    """The bootstrap interval of a fit's R^2: its R^2 -+ z standard deviations of the refits' R^2
    (``rankscale.analysis.bootstrap.interval``).

    Parameters
    ----------
    fitted : rankscale.analysis.fit.PowerLawFit
        Anything with ``r2``: the fit on all tokens.
    replicates : array_like of shape (n_boot,)
        R^2 of the same fit on each resample.
    level : float
        Two-sided coverage, 95% by default.

    Returns
    -------
    tuple of (float, float) or None
        None where some refit has no finite R^2.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> [round(end, 3) for end in r2_interval(SimpleNamespace(r2=0.9), [0.88, 0.92], level=0.6827)]
    [0.88, 0.92]
    """
    return interval(fitted.r2, replicates, level)


def span(values, fmt: str) -> str:
    """The range of some values as text, or one value where both ends read the same.

    Parameters
    ----------
    values : pandas.Series, numpy.ndarray or sequence of float
        The values; the ends are their own ``min()`` and ``max()`` where they have them (a
        Series skips NaN), else the built-in ``min`` and ``max``.
    fmt : str
        Format specification of each end, e.g. ".2f" or "+.3f".

    Returns
    -------
    str

    Examples
    --------
    >>> span([0.5, -1.25, 2.0], "+.2f"), span([0.301, 0.299], ".2f")
    ('-1.25 to +2.00', '0.30')
    """
    lo, hi = (values.min(), values.max()) if hasattr(values, "min") else (min(values), max(values))
    return format(lo, fmt) if format(lo, fmt) == format(hi, fmt) else f"{lo:{fmt}} to {hi:{fmt}}"


def span_or_dash(values, fmt: str) -> str:
    """``span`` of the values that are not NaN, or a dash where none is (a column without fits).

    Examples
    --------
    >>> span_or_dash([0.5, float("nan"), 2.0], ".1f"), span_or_dash([float("nan")], ".1f")
    ('0.5 to 2.0', '—')
    """
    import pandas as pd

    values = pd.Series(values, dtype=float).dropna()
    return span(values, fmt) if len(values) else "—"
