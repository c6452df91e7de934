"""The chapters' figures: one look per family, and the plotting steps that several chapters share.

Every function draws on axes it is given and returns nothing it computed; the numbers come from
``rankscale.analysis``. A family's colour and marker follow its place in the model set, so a family
looks the same in every figure of the book.
"""

from __future__ import annotations

from rankscale.sets.schema import ModelSet


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
