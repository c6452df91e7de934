"""Reading a drawn figure back: the data behind it, one row per plotted point (``figure_data``), and
what it shows in words for a reader who cannot see it (``describe``), both from the matplotlib
Figure itself, so that every figure of the book offers a table to download and an alt text
without its chapter saying more than it draws. ``rankscale.book.plots.show`` puts both into the
image's output metadata (``FIGURE_KEY``, ``figure_metadata``); the site's build writes the table
as CSV (``figure_table``, ``rankscale.book.downloads``) and gives the image its alt text.
"""

from __future__ import annotations

FIGURE_KEY = "rankscale/figure"  # the output metadata of a shown figure: {"alt", "columns", "rows"}
ALT_CHARS = 400  # at most this long, an alt text a screen reader reads in one go
# A curve of more points (a fit drawn at every rank of a vocabulary) is given at this many, evenly along its x
# axis: more than the column has pixels across, and a table of tens of thousands of rows per model otherwise.
CURVE_POINTS = 1000

# mathtext commands and what they read as in plain text
_MATH_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ",
    "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ",
    "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "times": "×", "cdot": "·", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠", "ne": "≠",
    "approx": "≈", "sim": "~", "propto": "∝", "pm": "±", "infty": "∞", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "in": "∈", "ell": "ℓ", "sum": "Σ", "prod": "Π", "partial": "∂", "ldots": "…",
    "dots": "…", "cdots": "…", "lt": "<", "gt": ">", "prime": "′", "circ": "°",
}
_MATH_OPERATORS = {"log", "ln", "exp", "min", "max", "sin", "cos", "tan", "Pr", "lim", "arg", "argmax", "argmin",
                   "det", "sup", "inf"}
_MATH_FONTS = ("mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal", "mathbb", "mathdefault", "text",
               "textrm", "textit", "textbf", "operatorname", "boldsymbol", "bf", "rm", "it")
_MATH_SPACES = {",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " "}
_MATH_SIZES = ("left", "right", "big", "Big", "bigg", "Bigg", "displaystyle", "textstyle")


def plain_text(text: str) -> str:
    """A matplotlib text as plain text: mathtext (between ``$``) without its markup, the rest as written, on one
    line. Greek letters and symbols become their Unicode characters, font commands (``\\mathrm{}``, ...), spacing
    and grouping braces go, ``_`` and ``^`` stay, ``\\frac{a}{b}`` reads ``a/b``.

    Examples
    --------
    >>> plain_text(r"$-\\log \\mathrm{RBP}_1$"), plain_text(r"RBP$_{30}$ (ge)"), plain_text(r"exponent $\\alpha$")
    ('-log RBP_1', 'RBP_30 (ge)', 'exponent α')
    >>> plain_text(r"ceiling $1/(e+1)$"), plain_text(r"$\\frac{1}{V}\\,\\mathrm{nats}$"), plain_text("a\\nb")
    ('ceiling 1/(e+1)', '1/V nats', 'a b')
    >>> plain_text(r"costs \\$5"), plain_text(r"$10^{-3}$ of $\\sigma^2$")
    ('costs $5', '10^-3 of σ^2')
    """
    import re

    parts = re.split(r"(?<!\\)\$", text)
    if len(parts) % 2 == 0:  # an odd number of unescaped $: matplotlib draws it all as text
        parts = [text]
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(part.replace(r"\$", "$"))
            continue
        math = part
        for escaped, char in (("\\{", "\x00"), ("\\}", "\x01"), ("\\%", "%"), ("\\_", "\x02"), ("\\#", "#"),
                              ("\\&", "&"), ("\\$", "$")):
            math = math.replace(escaped, char)
        inner = r"\{([^{}]*)\}"
        for _ in range(10):  # innermost groups first, so that nested ones unfold
            before = math
            math = re.sub(r"\\[td]?frac\s*" + inner + r"\s*" + inner,
                          lambda m: "/".join(g if len(g) == 1 or g.isalnum() else f"({g})" for g in m.groups()),
                          math)
            math = re.sub(r"\\sqrt\s*" + inner, r"sqrt(\1)", math)
            math = re.sub(r"\\(?:" + "|".join(_MATH_FONTS) + r")\s*" + inner, r"\1", math)
            if math == before:
                break

        def command(m):
            name = m.group(1)
            if name in _MATH_SPACES:
                return _MATH_SPACES[name]
            if name in _MATH_SIZES:
                return ""
            if name in _MATH_SYMBOLS:
                return _MATH_SYMBOLS[name]
            following = math[m.end():m.end() + 1]
            return name + (" " if name in _MATH_OPERATORS and (following.isalnum() or following in "\\{") else "")

        math = re.sub(r"\\([A-Za-z]+|[,;:! ])", command, math)
        math = math.replace("{", "").replace("}", "")
        out.append(math.replace("\x00", "{").replace("\x01", "}").replace("\x02", "_"))
    return " ".join("".join(out).split())


def _rgb(color):
    """A colour as a comparable (r, g, b), "none" where it is transparent."""
    from matplotlib.colors import to_rgba

    try:
        rgba = to_rgba(color)
    except (ValueError, TypeError):
        return None
    return "none" if rgba[3] == 0 else tuple(round(float(v), 3) for v in rgba[:3])


def _first_rgb(colors):
    import numpy as np

    colors = np.asarray(colors)
    if colors.size == 0:
        return "none"
    return _rgb(colors.reshape(-1, colors.shape[-1])[0] if colors.ndim > 1 else colors)


def _marker_path(marker):
    """The outline a marker draws (for comparing a scatter's marker with a legend entry's), None without one."""
    from matplotlib.markers import MarkerStyle

    if marker is None or (isinstance(marker, str) and marker in ("", " ", "None", "none")):
        return None
    style = marker if isinstance(marker, MarkerStyle) else MarkerStyle(marker)
    return style.get_path().transformed(style.get_transform()).vertices.round(3)


def _look(artist) -> dict:
    """What a legend entry and a plotted artist are compared on: colours, marker outline, line style."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(artist, Line2D):
        marker = _marker_path(artist.get_marker())
        ls = artist.get_linestyle()
        look = {"color": _rgb(artist.get_color()), "marker": marker,
                "ls": None if ls in ("None", "none", "", " ") else ls}
        if marker is not None:
            look.update(face=_rgb(artist.get_markerfacecolor()), edge=_rgb(artist.get_markeredgecolor()))
        return look
    if isinstance(artist, Patch):
        return {"face": _rgb(artist.get_facecolor()), "edge": _rgb(artist.get_edgecolor())}
    if isinstance(artist, Collection):
        paths = artist.get_paths()
        look = {"face": _first_rgb(artist.get_facecolor()), "edge": _first_rgb(artist.get_edgecolor())}
        if type(artist).__name__ == "PathCollection" and len(paths):
            look["marker"] = paths[0].vertices.round(3)
        return look
    return {}


def _match_score(look: dict, entry: dict):
    """How alike a plotted artist and a legend entry look: None where they share no colour, else the number
    of their properties (colours, marker, line style) that agree."""
    import numpy as np

    def colors(one):
        return {one.get(k) for k in ("color", "face", "edge")} - {None, "none"}

    if not colors(look) & colors(entry):
        return None
    if (look.get("marker") is not None and entry.get("marker") is not None
            and (look.get("face") == "none") != (entry.get("face") == "none")):
        return None  # open markers against filled ones: another kind of point (a1's checkpoints and final models)
    if "color" not in look and "color" in entry:  # a patch or a collection against a line's entry
        entry = {"face": entry.get("face", entry["color"]) if entry.get("marker") is not None else entry["color"],
                 "edge": entry.get("edge", entry["color"]), "marker": entry.get("marker")}
    score = 0
    for key in set(look) & set(entry):
        a, b = look[key], entry[key]
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            score += a is not None and b is not None and np.shape(a) == np.shape(b) and np.allclose(a, b)
        else:
            score += a == b
    return score


def _parent_figure(ax):
    """The (sub)figure that holds a panel (``get_figure(root=False)``, before matplotlib 3.10 ``ax.figure``)."""
    try:
        return ax.get_figure(root=False)
    except TypeError:
        return ax.figure


def _root_figure(fig):
    """The figure at the top of a (sub)figure or panel."""
    fig = _parent_figure(fig) if hasattr(fig, "get_subplotspec") else fig
    while getattr(fig, "_parent", None) is not None and fig._parent is not fig:
        fig = fig._parent
    return fig


def _fig_text(fig, which: str) -> str:
    """A (sub)figure's ``suptitle``, ``supxlabel`` or ``supylabel`` text, "" where it has none."""
    text = getattr(fig, f"_{which}", None)
    return text.get_text() if text is not None else ""


def _legend_entries(ax, fig) -> list[list[tuple[str, dict]]]:
    """The legend entries that may name a panel's artists, as (label, look), in tiers searched in turn: the
    panel's own legend, the figure's (``legend_below``, a subfigure's), those of panels turned off to hold a
    legend. Other panels' legends are not searched: their colours may mean other things (B5's first panel)."""
    root = _root_figure(fig)
    figure_legends, figures = [], [root]
    while figures:
        here = figures.pop(0)
        figure_legends += list(here.legends)
        figures += list(getattr(here, "subfigs", []))
    tiers = [[ax.get_legend()], figure_legends,
             [other.get_legend() for other in root.axes if other is not ax and not other.axison]]
    entries = []
    for legends in tiers:
        tier = []
        for legend in legends:
            if legend is None:
                continue
            for handle, text in zip(legend.legend_handles, legend.get_texts()):
                if handle is not None and text.get_text():
                    tier.append((plain_text(text.get_text()), _look(handle)))
        entries.append(tier)
    return entries


def _legend_label(artist, entries) -> str | None:
    """The label of the legend entry that looks most like ``artist``, in the first tier of ``entries`` where one
    shares its colour; None where none does, or where entries of different labels look as much like it."""
    look = _look(artist)
    for tier in entries:
        scored = [(score, label) for label, entry in tier if (score := _match_score(look, entry)) is not None]
        if not scored:
            continue
        best = max(score for score, _ in scored)
        labels = {label for score, label in scored if score == best}
        return labels.pop() if len(labels) == 1 else None
    return None


def _own_label(artist) -> str | None:
    label = artist.get_label()
    return plain_text(str(label)) if label and not str(label).startswith("_") else None


def _subplot_place(ax):
    """(gridspec, rows, columns) of a panel of a grid, None for an axes placed by hand."""
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    if spec is None:
        return None
    spec = spec.get_topmost_subplotspec()  # a colour bar outside constrained layout nests its panel's place
    return spec.get_gridspec(), spec.rowspan, spec.colspan


def _axis_label(ax, panels, which: str) -> str:
    """A panel's own label of its x or y axis, else that of an axis it shares, else the one label the other
    panels of its grid column (x) or row (y) carry, else (x) the one label of every panel of its grid, or of its
    column in other subfigures' grids of as many columns (the book names an axis once, under
    the bottom row or beside the left column); "" where none."""
    def label(one):
        return plain_text(one.get_xlabel() if which == "x" else one.get_ylabel())

    if own := label(ax):
        return own
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    for sibling in shared.get_siblings(ax):
        if sibling is not ax and (text := label(sibling)):
            return text
    place = _subplot_place(ax)
    if place is None:
        return ""
    grid, rows, cols = place
    same_grid = [(other, other_place) for other in panels if other is not ax
                 and (other_place := _subplot_place(other)) is not None and other_place[0] is grid]
    line = [other for other, (_, other_rows, other_cols) in same_grid
            if (other_cols == cols if which == "x" else other_rows == rows)]
    elsewhere = [other for other in panels if which == "x" and _parent_figure(other) is not _parent_figure(ax)
                 and (other_place := _subplot_place(other)) is not None and other_place[0].ncols == grid.ncols
                 and other_place[2] == cols]  # the same column of another subfigure's panels (``rank_share_bars``)
    everywhere = [other for other, _ in same_grid] if which == "x" else []  # size_axes: under the middle panel
    for candidates in (line, everywhere, elsewhere):
        labels = {text for other in candidates if (text := label(other))}
        if len(labels) == 1:
            return labels.pop()
    return ""


def _figure_label(ax, which: str) -> str:
    """The label a panel's (sub)figure, or the figure above it, gives all its panels (``supxlabel``)."""
    fig = _parent_figure(ax)
    while fig is not None:
        if text := _fig_text(fig, f"sup{which}label"):
            return plain_text(text)
        parent = getattr(fig, "_parent", None)
        fig = parent if parent is not fig else None
    return ""


def _data_panels(fig) -> list:
    """The panels of a figure that show data, in order: not colour bars, not hidden or turned off."""
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison and ax.get_label() != "<colorbar>"
            and not hasattr(ax, "_colorbar")]


def _panel_names(fig, panels) -> list[dict]:
    """Each panel's name (``figure_data``'s ``panel``) and the names of its x and y columns."""
    out = []
    for n, ax in enumerate(panels, 1):
        x, y = _axis_label(ax, panels, "x"), _axis_label(ax, panels, "y")
        headings = []
        sub = _parent_figure(ax)
        if sub is not _root_figure(ax) and (sub_title := _fig_text(sub, "suptitle")):
            headings.append(plain_text(sub_title))
        if figure_y := _figure_label(ax, "y"):  # the figure names the quantity: a panel's own y label names its row
            if y and y != figure_y:
                headings.append(y)
            y = figure_y
        x = x or _figure_label(ax, "x")
        title = plain_text(ax.get_title()) or _column_title(ax, panels)
        name = ", ".join(headings + [title] if title else headings) or f"panel {n}"
        x, y = x or "x", y or "y"
        if x == y:
            x, y = f"{x} (x)", f"{y} (y)"
        out.append({"ax": ax, "panel": name, "x": x, "y": y, "n": n})
    seen = set()
    for p in out:  # a panel named as an earlier one (a column's title) gets its number
        if p["panel"] in seen:
            p["panel"] = f"{p['panel']} (panel {p['n']})"
        seen.add(p["panel"])
    return out


def _column_title(ax, panels) -> str:
    """The title a panel without one takes from the top panel of its column (``corpus_panels`` and
    ``model_blocks`` title the top row only), in its grid or in an earlier subfigure's grid of as many columns."""
    place = _subplot_place(ax)
    if place is None:
        return ""
    grid, rows, cols = place
    if rows.start == 0 and _parent_figure(ax) is _root_figure(ax):
        return ""
    for other in panels:
        if other is ax:
            break
        other_place = _subplot_place(other)
        if other_place is None or not other.get_title():
            continue
        other_grid, other_rows, other_cols = other_place
        if (other_rows.start == 0 and other_cols == cols and other_grid.ncols == grid.ncols
                and (other_grid is grid or _parent_figure(other) is not _parent_figure(ax))):
            return plain_text(other.get_title())
    return ""


def _positions(axis, values, names_from_ticks: bool):
    """Values along an axis as a reader names them: a category axis's (or, for bars and images, the fixed
    tick labels': of the nearest tick, within half the gap between ticks) names where every value has one,
    else the numbers."""
    import numpy as np
    from matplotlib.category import StrCategoryFormatter
    from matplotlib.ticker import FixedFormatter, FixedLocator, FuncFormatter

    values = np.asarray(values, float)
    formatter = axis.get_major_formatter()
    named = names_from_ticks and isinstance(axis.get_major_locator(), FixedLocator) and isinstance(
        formatter, (FixedFormatter, FuncFormatter))  # set_xticks(positions, labels)
    if isinstance(formatter, StrCategoryFormatter) or named:
        locs = np.asarray(axis.get_majorticklocs(), float)
        names = [plain_text(str(name)) for name in formatter.format_ticks(locs)]
        if len(locs) and len(values):
            nearest = np.abs(values[:, None] - locs[None, :]).argmin(axis=1)
            # a bar of a group beside its tick (``bar(x + offset, ...)``) is still that tick's: within half the gap
            gap = np.diff(np.sort(locs)).min() / 2 if len(locs) > 1 else 0.5
            near = (np.abs(locs[nearest] - values) < gap - 1e-9 if names_from_ticks
                    else np.isclose(locs[nearest], values))
            if near.all() and all(names[i] for i in nearest):
                return np.array([names[i] for i in nearest], dtype=object)
    return values


def _colorbar_label(mappable, fig) -> str:
    """The label of the colour bar that keys ``mappable``: its own, else that of a mappable of the same figure
    drawn with the same colour map and limits (one colour bar keys a row of maps); "" where none."""
    def label(bar):
        axis = bar.ax.yaxis if bar.orientation == "vertical" else bar.ax.xaxis
        return plain_text(axis.get_label_text())

    if getattr(mappable, "colorbar", None) is not None:
        return label(mappable.colorbar)
    key = (mappable.get_cmap().name, mappable.get_clim())
    root = _root_figure(fig)
    for ax in root.axes:
        for other in [*ax.collections, *ax.images]:
            bar = getattr(other, "colorbar", None)
            if bar is not None and (other.get_cmap().name, other.get_clim()) == key:
                return label(bar)
    return ""


def _thinned(shown, x, log: bool):
    """``CURVE_POINTS`` of a curve's drawn points, spread evenly along its x axis (on a log axis, evenly in
    log x), its two ends included: the mask ``shown`` with the others cleared.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(1.0, 5001.0)
    >>> kept = _thinned(np.ones(5000, bool), x, log=True)
    >>> int(kept.sum()) <= CURVE_POINTS, x[kept][[0, 1, -1]].tolist()
    (True, [1.0, 2.0, 5000.0])
    """
    import numpy as np

    where = np.flatnonzero(shown)
    along = np.log(x[where]) if log else x[where]
    marks = np.linspace(along.min(), along.max(), CURVE_POINTS)
    nearest = np.unique(np.clip(np.searchsorted(np.sort(along), marks), 0, len(where) - 1))
    kept = np.zeros_like(shown)
    kept[where[np.argsort(along, kind="stable")[nearest]]] = True
    return kept


def _line_rows(line, ax, names):
    """A ``Line2D``'s points (x, y), or an ``axhline``/``axvline``'s one value; None for other lines."""
    import numpy as np

    transform = line.get_transform()
    xy = np.asarray(line.get_xydata(), float).reshape(-1, 2)
    if transform is ax.get_yaxis_transform(which="grid"):  # axhline: x in axes fractions
        values = np.unique(xy[:, 1][np.isfinite(xy[:, 1])])
        return {names["y"]: values}, "reference line"
    if transform is ax.get_xaxis_transform(which="grid"):  # axvline
        values = np.unique(xy[:, 0][np.isfinite(xy[:, 0])])
        return {names["x"]: values}, "reference line"
    if transform is not ax.transData:
        return None
    shown = np.isfinite(xy).all(axis=1)
    ls = line.get_linestyle()
    kind = "points" if ls in ("None", "none", "", " ") else "line"
    if kind == "line" and shown.sum() > CURVE_POINTS:
        shown = _thinned(shown, xy[:, 0], ax.get_xscale() == "log")
    return {names["x"]: _positions(ax.xaxis, xy[shown, 0], False),
            names["y"]: _positions(ax.yaxis, xy[shown, 1], False)}, kind


def _bar_rows(container, ax, names):
    """A ``BarContainer``'s bars: centre (or category) and length, and where they start if any bar does not at 0."""
    import numpy as np

    bars = [bar for bar in container.patches]
    x = np.array([bar.get_x() for bar in bars], float)
    y = np.array([bar.get_y() for bar in bars], float)
    w = np.array([bar.get_width() for bar in bars], float)
    h = np.array([bar.get_height() for bar in bars], float)
    if getattr(container, "orientation", "vertical") == "horizontal":
        shown = np.isfinite(y + h) & np.isfinite(x + w)
        columns = {names["y"]: _positions(ax.yaxis, (y + h / 2)[shown], True), names["x"]: w[shown]}
        if np.any(x[shown] != 0):
            columns[f"{names['x']} left"] = x[shown]
    else:
        shown = np.isfinite(x + w) & np.isfinite(y + h)
        columns = {names["x"]: _positions(ax.xaxis, (x + w / 2)[shown], True), names["y"]: h[shown]}
        if np.any(y[shown] != 0):
            columns[f"{names['y']} bottom"] = y[shown]
    return columns, "bars"


def _errorbar_rows(container, ax, names):
    """An ``ErrorbarContainer``'s points with the ends of their bars (``<label> low``/``high``)."""
    import numpy as np

    data_line, _, bar_lines = container.lines
    bar_lines = list(bar_lines)
    x_bars = bar_lines.pop(0) if container.has_xerr and bar_lines else None
    y_bars = bar_lines.pop(0) if container.has_yerr and bar_lines else None

    def ends(bars, along, points):  # the bars' low and high ends, matched to the points
        segments = [np.asarray(s, float) for s in bars.get_segments()]
        other = 1 - along
        low, high = np.full(len(points), np.nan), np.full(len(points), np.nan)
        for seg in segments:
            if seg.shape[0] < 2:
                continue
            at = np.flatnonzero(np.isclose(points[:, other], seg[0, other])
                                & (points[:, along] >= seg[:, along].min() - 1e-12)
                                & (points[:, along] <= seg[:, along].max() + 1e-12))
            if len(at):
                low[at[0]], high[at[0]] = seg[:, along].min(), seg[:, along].max()
        return low, high

    if data_line is not None:
        xy = np.asarray(data_line.get_xydata(), float).reshape(-1, 2)
    else:  # no markers: the points are the bars' middles
        bars = y_bars if y_bars is not None else x_bars
        xy = np.array([np.asarray(s, float).mean(axis=0) for s in bars.get_segments()]).reshape(-1, 2)
    shown = np.isfinite(xy).all(axis=1)
    xy = xy[shown]
    columns = {names["x"]: _positions(ax.xaxis, xy[:, 0], False), names["y"]: _positions(ax.yaxis, xy[:, 1], False)}
    if x_bars is not None:
        columns[f"{names['x']} low"], columns[f"{names['x']} high"] = ends(x_bars, 0, xy)
    if y_bars is not None:
        columns[f"{names['y']} low"], columns[f"{names['y']} high"] = ends(y_bars, 1, xy)
    return columns, "error bars"


def _band_rows(band, ax, names):
    """A ``fill_between`` band's x with the band's lower and upper edge (``fill_betweenx``: y with left and right),
    one row per x of every filled stretch."""
    import numpy as np

    along = getattr(band, "t_direction", "x")
    t, f = ("x", "y") if along == "x" else ("y", "x")
    ts, lows, highs = [], [], []
    for path in band.get_paths():
        pts = np.asarray(path.vertices, float)
        if len(pts) % 2:  # closed: the first point again
            pts = pts[:-1]
        n = (len(pts) - 2) // 2
        if n < 1:
            continue
        if along != "x":
            pts = pts[:, ::-1]
        first, second = pts[1:n + 1], pts[n + 2:2 * n + 2][::-1]
        ts.append(first[:, 0])
        lows.append(np.minimum(first[:, 1], second[:, 1]))
        highs.append(np.maximum(first[:, 1], second[:, 1]))
    if not ts:
        return {names[t]: np.array([])}, "band"
    axis = ax.xaxis if t == "x" else ax.yaxis
    return {names[t]: _positions(axis, np.concatenate(ts), False), f"{names[f]} low": np.concatenate(lows),
            f"{names[f]} high": np.concatenate(highs)}, "band"


def _span_rows(patch, ax, names):
    """An ``axvspan``'s (``axhspan``'s) extent along its axis; None for other patches."""
    import numpy as np
    from matplotlib.artist import Artist
    from matplotlib.patches import Rectangle

    if not isinstance(patch, Rectangle):
        return None
    transform = Artist.get_transform(patch)
    if transform is ax.get_xaxis_transform(which="grid"):
        low, high = patch.get_x(), patch.get_x() + patch.get_width()
        which = "x"
    elif transform is ax.get_yaxis_transform(which="grid"):
        low, high = patch.get_y(), patch.get_y() + patch.get_height()
        which = "y"
    else:
        return None
    low, high = sorted((float(low), float(high)))
    return {f"{names[which]} low": np.array([low]), f"{names[which]} high": np.array([high])}, "shaded span"


def _value_labels(mappable, values, ax, fig):
    """A map's values as the legend names their colours (a grid of outcomes keyed by coloured patches, as the
    scorecard's), where every value's colour is one patch entry's; else None."""
    import numpy as np

    distinct = np.unique(values[np.isfinite(values)])
    if not len(distinct) or len(distinct) > 20:
        return None
    entries = [(label, look) for tier in _legend_entries(ax, fig) for label, look in tier if "color" not in look]
    names = {}
    for value in distinct:
        color = _rgb(mappable.to_rgba(value))
        found = {label for label, look in entries if look.get("face") == color}
        if len(found) != 1:
            return None
        names[value] = found.pop()
    return np.array([names.get(value) for value in values], dtype=object)


def _cell_value_name(mappable, fig, values, default: str) -> str:
    import numpy as np

    if label := _colorbar_label(mappable, fig):
        return label
    if default == "count" and len(values) and np.all((values >= 0) & (values == np.round(values))):
        return "count"
    return "value"


def _centres(corners, log: bool):
    import numpy as np

    corners = np.asarray(corners, float)
    if log and np.all(corners > 0):
        return np.exp(np.log(corners).mean(axis=-1))
    return corners.mean(axis=-1)


def _mesh_rows(mesh, ax, names, fig):
    """A ``QuadMesh`` (``pcolormesh``, ``hist2d``): each cell's centre (geometric on a log axis) and its value;
    empty (masked or NaN) cells left out."""
    import numpy as np

    coords = np.asarray(mesh.get_coordinates(), float)
    values = np.ma.masked_invalid(np.ma.asarray(mesh.get_array(), float))
    ny, nx = coords.shape[0] - 1, coords.shape[1] - 1
    if values.size == ny * nx:
        values = values.reshape(ny, nx)
        quads = np.stack([coords[:-1, :-1], coords[:-1, 1:], coords[1:, :-1], coords[1:, 1:]], axis=-1)
        x = _centres(quads[..., 0, :], ax.get_xscale() == "log")
        y = _centres(quads[..., 1, :], ax.get_yscale() == "log")
    else:  # gouraud shading: values at the nodes
        values = values.reshape(coords.shape[:2])
        x, y = coords[..., 0], coords[..., 1]
    values = np.asarray(values.filled(np.nan), float)
    shown = np.isfinite(values)
    if np.all((values[shown] >= 0) & (values[shown] == np.round(values[shown]))):  # counts: empty cells hold 0
        shown &= values != 0
    values = values[shown]
    name = _cell_value_name(mesh, fig, values, "count")
    if name == "value" and (labels := _value_labels(mesh, values, ax, fig)) is not None:
        values = labels
    return {names["x"]: x[shown], names["y"]: y[shown], name: values}, "map"


def _image_rows(image, ax, names, fig):
    """An ``AxesImage`` (``imshow``): each pixel's centre, named by the tick labels where they name them all,
    and its value; masked or NaN pixels, and colour (RGB) images, left out."""
    import numpy as np

    values = np.ma.masked_invalid(np.ma.asarray(image.get_array(), float))
    if values.ndim != 2:
        return None
    rows, cols = values.shape
    left, right, bottom, top = image.get_extent()
    x = left + (np.arange(cols) + 0.5) * (right - left) / cols
    if image.origin == "upper":
        y = top + (np.arange(rows) + 0.5) * (bottom - top) / rows
    else:
        y = bottom + (np.arange(rows) + 0.5) * (top - bottom) / rows
    yy, xx = np.meshgrid(y, x, indexing="ij")
    shown = ~np.ma.getmaskarray(values)
    cells = np.asarray(values.filled(np.nan), float)[shown]
    name = _cell_value_name(image, fig, cells, "value")
    if name == "value" and (labels := _value_labels(image, cells, ax, fig)) is not None:
        cells = labels
    return {names["x"]: _positions(ax.xaxis, xx[shown], True), names["y"]: _positions(ax.yaxis, yy[shown], True),
            name: cells}, "map"


def _hexbin_rows(hexagons, ax, names, fig):
    """A ``hexbin``'s hexagons: each centre and its value (its count, or what ``C`` reduced to), as a map's cells."""
    import numpy as np

    xy = np.asarray(hexagons.get_offsets(), float).reshape(-1, 2)
    values = np.asarray(np.ma.asarray(hexagons.get_array(), float).filled(np.nan)).reshape(-1)
    if len(xy) != len(values):
        return None
    shown = np.isfinite(values) & np.isfinite(xy).all(axis=1)
    if np.all((values[shown] >= 0) & (values[shown] == np.round(values[shown]))):  # counts: empty hexagons hold 0
        shown &= values != 0
    name = _cell_value_name(hexagons, fig, values[shown], "count")
    return {names["x"]: xy[shown, 0], names["y"]: xy[shown, 1], name: values[shown]}, "map"


def _scatter_rows(collection, ax, names, fig):
    """A scatter's points, with the value its colour stands for where a colour map draws it."""
    import numpy as np

    xy = np.asarray(collection.get_offsets(), float).reshape(-1, 2)
    shown = np.isfinite(xy).all(axis=1)
    columns = {names["x"]: _positions(ax.xaxis, xy[shown, 0], False),
               names["y"]: _positions(ax.yaxis, xy[shown, 1], False)}
    mapped = collection.get_array()
    if mapped is not None and np.size(mapped) == len(xy):
        mapped = np.asarray(np.ma.asarray(mapped, float).filled(np.nan)).reshape(-1)
        columns[_colorbar_label(collection, fig) or "value"] = mapped[shown]
    return columns, "points"


def _contour_rows(contours, ax, names):
    """A ``contour``'s lines: the points of each level's line, the level naming the series."""
    import numpy as np

    out = []
    for level, path in zip(contours.levels, contours.get_paths()):
        xy = np.asarray(path.vertices, float).reshape(-1, 2)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy):
            out.append(({names["x"]: xy[:, 0], names["y"]: xy[:, 1]}, f"contour at {level:g}"))
    return out


def _artist_rows(ax, fig, names):
    """Each data artist of a panel, in drawing order: (artist for its legend look, columns, kind, own label)."""
    from matplotlib.collections import PathCollection, PolyCollection, QuadMesh
    from matplotlib.container import BarContainer, ErrorbarContainer
    from matplotlib.contour import ContourSet
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    in_container, containers = {}, {}
    for container in ax.containers:
        if isinstance(container, BarContainer):
            members = list(container.patches)
        elif isinstance(container, ErrorbarContainer):
            line, caps, bars = container.lines
            members = [line, *caps, *bars]
        else:
            continue
        for artist in members:
            if artist is not None:
                in_container[id(artist)] = container
    out = []
    for artist in ax.get_children():
        if not artist.get_visible():
            continue
        if id(artist) in in_container:
            container = in_container[id(artist)]
            if id(container) in containers:
                continue
            containers[id(container)] = True
            if isinstance(container, BarContainer):
                columns, kind = _bar_rows(container, ax, names)
                look = container.patches[0] if len(container.patches) else None
            else:
                columns, kind = _errorbar_rows(container, ax, names)
                line = container.lines[0]
                look = line if line is not None else (container.lines[2][0] if container.lines[2] else None)
            own = _own_label(container)
            if own is None and isinstance(container, BarContainer) and len(container.patches):
                own = _own_label(container.patches[0])  # hist labels its first bar
            out.append((look, columns, kind, own))
            continue
        found = None
        if isinstance(artist, Line2D):
            found = _line_rows(artist, ax, names)
        elif isinstance(artist, ContourSet):
            if not artist.filled:
                out += [(artist, columns, kind, None) for columns, kind in _contour_rows(artist, ax, names)]
            continue
        elif isinstance(artist, QuadMesh):
            found = _mesh_rows(artist, ax, names, fig)
        elif isinstance(artist, AxesImage):
            found = _image_rows(artist, ax, names, fig)
        elif isinstance(artist, PathCollection):
            found = _scatter_rows(artist, ax, names, fig)
        elif type(artist).__name__ == "FillBetweenPolyCollection" or (
                type(artist) is PolyCollection and artist.get_array() is None):  # fill_between before mpl 3.10
            found = _band_rows(artist, ax, names)
        elif isinstance(artist, PolyCollection):  # hexbin: the hexagons' centres
            found = _hexbin_rows(artist, ax, names, fig)
        elif isinstance(artist, Patch):
            found = _span_rows(artist, ax, names)
        if found is not None:
            columns, kind = found
            out.append((artist, columns, kind, _own_label(artist)))
    return out


_LINE_STYLES = {"-": "line", "--": "dashed line", ":": "dotted line", "-.": "dash-dot line"}


def _look_words(artist, kind: str) -> str:
    """How an artist looks, in a word or two, to tell apart the series a legend entry names more than once."""
    from matplotlib.lines import Line2D

    if isinstance(artist, Line2D) and kind == "line":
        return _LINE_STYLES.get(artist.get_linestyle(), "line")
    return kind


def figure_data(fig):
    """The data behind a figure: one row per plotted point of every panel, under the names its axes give.

    Panels are the figure's axes in order, less colour bars and panels hidden or turned off. A row's
    ``panel`` is its panel's title (a panel without one takes the title of the top panel of its grid
    column, where the book titles the top row only; a subfigure's title or a row's own y label, where the
    figure names the quantity with ``supylabel``, comes first), else "panel N". Its ``series`` is the
    artist's own label, else that of the legend entry that looks like it (colour, marker, line style, open or
    filled; searched in the panel's legend, then the figure's, as ``legend_below`` draws it, then those of
    panels turned off to hold one; none where entries of different labels look as much like it), told apart
    by its look where one entry names differently drawn artists of a panel ("NeoX (points)", "NeoX (line)"),
    else what it is and its place among its kind in the panel ("line 3", "points 2", "bars 1", "band 1",
    "map 1"; unlabelled ``axhline``/``axvline``: "reference line").

    The values sit in columns named by the axis labels as plain text (``plain_text``): a panel's own, else
    an axis it shares, else the one label its grid column (x) or row (y) carries, else (x) the one label of
    its grid or of its column in other subfigures, else the figure's ``supxlabel``/``supylabel``, else
    "x"/"y"; a figure's ``supylabel`` names the y values of all its panels (``model_blocks``; a panel's own y
    label then heads its name). Where x and y read the same, " (x)"/" (y)" tell them apart. Panels of
    other labels fill other columns, and leave the rest empty. What each artist adds:

    - ``Line2D`` (``plot``, ``loglog``, ``step``, ...): x and y of each finite point; ``axhline`` and
      ``axvline`` one row with their value (series "reference line" unless labelled);
    - scatter (``PathCollection``): x and y, and the value a colour map draws, under its colour bar's label
      (else "value");
    - ``errorbar``: x and y with ``<label> low`` and ``<label> high``, the ends of the bars;
    - ``bar``/``barh``/``hist`` (``BarContainer``): the bar's centre, or its category or tick label, and its
      length, with ``<label> bottom`` (``left``) where bars are stacked;
    - ``fill_between``/``fill_betweenx``: x with ``<y label> low`` and ``high`` (rows of y for the latter);
    - ``axvspan``/``axhspan``: ``<label> low`` and ``high``;
    - ``pcolormesh``/``hist2d`` (``QuadMesh``), ``imshow`` (``AxesImage``), ``hexbin``: each cell's centre
      (geometric on a log axis; an image's tick labels where they name every row or column) and its value,
      under the colour bar's label (of this map, or of one of the same colour map and limits), else "count"
      (whole non-negative values of a mesh or hexbin) or "value"; masked and NaN cells, and empty (0) cells
      of counts, left out; a map without a colour bar whose every colour is one legend patch's (the
      scorecard) gives that patch's label as its value;
    - ``contour`` (lines, not filled): the points of each level's line, series "contour at <level>".

    Texts and annotations are not data; other artists (arrows, polygons of ``fill``, ``stairs``, ``vlines``,
    RGB images) are left out.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    pandas.DataFrame
        Shape (points, 2 + value columns): ``panel``, ``series``, then the value columns in the order
        they first appear; NaN where a row's panel has no such column. No data: no rows, those two columns.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> left, right = fig.subplots(1, 2, sharey=True)
    >>> _ = left.plot([1, 2], [3.0, 4.0], label="NeoX"), left.set(title="pydocs", xlabel="size", ylabel="CE (nats)")
    >>> _ = right.bar(["a", "b"], [0.5, 0.25], color="C1"), right.set(xlabel="$p(t)$ band")
    >>> _ = right.axhline(0.3), fig.legend(handles=[right.containers[0].patches[0]], labels=["share"])
    >>> figure_data(fig)
         panel          series  size  CE (nats) p(t) band
    0   pydocs            NeoX   1.0       3.00       NaN
    1   pydocs            NeoX   2.0       4.00       NaN
    2  panel 2           share   NaN       0.50         a
    3  panel 2           share   NaN       0.25         b
    4  panel 2  reference line   NaN       0.30       NaN
    """
    return _figure_table(fig)[0]


def _number(value: float) -> str:
    """A number in an alt text: two significant digits, exponents without their padding ("1.2e5")."""
    import re

    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{value:.2g}")


def _listed(names: list[str], most: int, total: int | None = None) -> str:
    """Names joined for reading: at most ``most`` of them, then how many more of ``total`` (default: the names);
    by semicolons where a name holds a comma.

    >>> _listed(["a", "b", "c"], 3), _listed(["a", "b", "c"], 2), _listed(["a, b", "c"], 2), _listed(["a"], 2, 4)
    ('a, b and c', 'a, b and 1 more', 'a, b and c', 'a and 3 more')
    """
    comma = "; " if any("," in name for name in names[:most]) else ", "
    total = len(names) if total is None else total
    if total == len(names) and (total <= most or not most):
        return comma.join(names[:-2] + [" and ".join(names[-2:])]) if names else ""
    return comma.join(names[:most]) + f" and {total - len(names[:most])} more"


def _caption_sentence(caption: str) -> str:
    """A figure caption's first sentence as plain text (roles and code marks dropped)."""
    import re

    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)\s*(?:<[^`]*>)?`", r"\1", caption)  # {numref}`fig-x` -> fig-x
    text = plain_text(text.replace("`", ""))
    end = re.search(r"(?<=[a-z0-9)])\.\s", text + " ")
    return text[:end.start() + 1] if end else text


def describe(fig, caption: str | None = None) -> str:
    """Alt text for a figure, for readers who cannot see it: its title, how many panels and their titles, what
    each plots against what (axis labels as plain text, the data's range, log scales) and the series shown.

    One or two sentences of plain text, at most ``ALT_CHARS`` characters (details go before the text is cut);
    read off the figure as ``figure_data`` reads its data, so never a file name.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    caption : str, optional
        The figure's caption (MyST markup allowed): its first sentence opens the text.

    Returns
    -------
    str

    Examples
    --------
    >>> import textwrap
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> axes = fig.subplots(1, 2, sharey=True)
    >>> for ax, corpus in zip(axes, ["pydocs", "stdlib"]):
    ...     _ = ax.loglog([1.2e5, 3.4e7], [3.0, 2.5], "o", label="NeoX ladder")
    ...     _ = ax.loglog([2e5, 3e7], [3.1, 2.4], "s", label="Llama ladder")
    ...     _ = ax.set(title=corpus, xlabel="non-embedding parameters")
    >>> _ = axes[0].set_ylabel(r"$-\\log \\mathrm{RBP}_1$")
    >>> print(textwrap.fill(describe(fig), 100, break_on_hyphens=False))
    Figure of 2 panels (pydocs and stdlib); each plots -log RBP_1 (2.4 to 3.1, log scale) against
    non-embedding parameters (1.2e5 to 3.4e7, log scale) for 2 series: NeoX ladder and Llama ladder.
    """
    return _describe(fig, *_figure_table(fig), caption)


def _describe(fig, frame, panels, labelled, caption):
    import pandas as pd

    def span(values, scale):
        numbers = pd.to_numeric(pd.Series(values), errors="coerce")
        if numbers.notna().sum() < len(values) or not len(values):  # names, not numbers
            names = list(dict.fromkeys(str(v) for v in values))
            return f"{len(names)} categories" if len(names) > 3 else _listed(names, 3)
        low, high = numbers.min(), numbers.max()
        text = _number(low) if low == high else f"{_number(low)} to {_number(high)}"
        return text + (", log scale" if scale == "log" else "")

    groups: dict[tuple, dict] = {}
    for panel in panels:
        rows = frame[frame["panel"] == panel["panel"]] if len(frame) else frame
        if not len(rows):
            continue
        x, y, ax = panel["x"], panel["y"], panel["ax"]
        filled = [c for c in frame.columns[2:] if rows[c].notna().any()]
        mapped = [c for c in filled if c not in (x, y) and not c.startswith((x + " ", y + " "))]
        key = (x, y, tuple(mapped))
        group = groups.setdefault(key, {"names": [], "x": [], "y": [], "xscale": ax.get_xscale(),
                                        "yscale": ax.get_yscale()})
        group["names"].append(panel["panel"])
        ranged = rows[rows["series"] != "reference line"]  # a grid's separators are no range of the data
        for axis, column in (("x", x), ("y", y)):
            if column in filled:
                group[axis] += ranged[column].dropna().tolist()
    series = list(dict.fromkeys(s for s, named in labelled if named))
    unnamed = len(dict.fromkeys(s for s, named in labelled if not named and not s.startswith("map ")
                                and s != "reference line"))
    title = plain_text(_fig_text(fig, "suptitle"))
    n = len(panels)

    def text(most_panels, ranges, most_series):
        head = "Figure" + (f" '{title}'" if title else "") + f" of {n} panel{'s' if n != 1 else ''}"
        names = [p["panel"] for p in panels if not p["panel"].startswith("panel ")]
        if most_panels and names and len(groups) < 2:  # else the panels are named with what they plot
            head += f" ({_listed(names, most_panels)})"
        if not groups:
            return head + " with no data drawn."
        phrases = []
        for (x, y, mapped), group in groups.items():
            xr = f" ({span(group['x'], group['xscale'])})" if ranges >= 1 and group["x"] else ""
            yr = f" ({span(group['y'], group['yscale'])})" if ranges >= 2 and group["y"] else ""
            what = (f"maps {_listed(list(mapped), 2)} over {x}{xr} and {y}{yr}" if mapped
                    else f"plots {y}{yr} against {x}{xr}")
            phrases.append((group["names"], what))
        total = len(series) + unnamed
        listing = ""
        if total:
            listing = f"{total} series" + (": " + _listed(series, most_series, total) if most_series and series
                                           else "")
        if len(phrases) == 1:
            body = f"{head}; {'each' if n > 1 else 'it'} {phrases[0][1]}"
            return body + (f" for {listing}." if listing else ".")
        parts = []
        for names, what in phrases:  # "pydocs plots ...", "pydocs and stdlib plot ...", "2 panels plot ..."
            who = (_listed(names, 2) if most_panels else f"{len(names)} panels") if len(names) > 1 else (
                names[0] if most_panels else "1 panel")
            verb, rest = what.split(" ", 1)
            parts.append(f"{who} {verb[:-1] if len(names) > 1 else verb} {rest}")
        body = f"{head}: " + "; ".join(parts) + "."
        return body + (f" {listing[0].upper()}{listing[1:]}." if listing else "")

    opening = (_caption_sentence(caption) + " ") if caption else ""
    for levels in ((4, 2, 3), (4, 1, 3), (3, 0, 3), (2, 0, 2), (0, 0, 0)):
        alt = opening + text(*levels)
        if len(alt) <= ALT_CHARS:
            break
    else:
        body = text(0, 0, 0)
        room = ALT_CHARS - len(body) - 2
        if opening and room > 40:
            alt = opening[:opening.rfind(" ", 0, room)] + "… " + body
        else:
            alt = body if len(body) <= ALT_CHARS else body[:body.rfind(" ", 0, ALT_CHARS - 1)] + "…"
    return alt.replace("$", "")


def _figure_table(fig):
    """``figure_data``'s frame, the panels it read (name, column names, axes) and each series as (name,
    whether a label or a legend named it)."""
    import pandas as pd

    frames, labelled = [], []
    panels = _panel_names(fig, _data_panels(fig))
    for panel in panels:
        ax, artists = panel["ax"], _artist_rows(panel["ax"], fig, panel)
        entries = None
        named, counts = [], {}
        for artist, columns, kind, own in artists:
            counts[kind] = counts.get(kind, 0) + 1
            series, from_legend = own, False
            if series is None and artist is not None and kind != "map":
                if entries is None:
                    entries = _legend_entries(ax, fig)
                series = _legend_label(artist, entries)
                from_legend = series is not None
            if series is None:
                series = kind if kind.startswith("contour") or kind == "reference line" else f"{kind} {counts[kind]}"
            named.append([series, from_legend, artist, kind, columns, own is not None or from_legend])
        looks = {}  # one legend entry for artists that look different (or one labelled): tell them apart by look
        for series, from_legend, artist, kind, *rest in named:
            if rest[-1]:
                looks.setdefault(series, set()).add(_look_words(artist, kind) if from_legend else "labelled")
        for entry in named:
            if entry[1] and len(looks[entry[0]]) > 1:
                entry[0] = f"{entry[0]} ({_look_words(entry[2], entry[3])})"
        for series, _, _, _, columns, is_named in named:
            length = max((len(values) for values in columns.values()), default=0)
            if length == 0:
                continue
            labelled.append((series, is_named))
            frames.append(pd.DataFrame({"panel": [panel["panel"]] * length, "series": [series] * length,
                                        **{name: list(values) if getattr(values, "dtype", None) == object else values
                                           for name, values in columns.items()}}))
    frame = (pd.concat(frames, ignore_index=True, sort=False) if frames
             else pd.DataFrame({"panel": pd.Series(dtype=object), "series": pd.Series(dtype=object)}))
    return frame, panels, labelled


def _json_value(value):
    """A table's cell as JSON writes it: NaN and infinities as None, numpy scalars as Python ones."""
    import math

    import numpy as np

    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (bool, int, str)):
        return value
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def figure_metadata(fig, caption: str | None = None) -> dict:
    """What ``show`` puts into a figure's output metadata under ``FIGURE_KEY``: its alt text (``describe``) and
    its data (``figure_data``) as JSON-safe columns and rows.

    Returns
    -------
    dict
        ``{"alt": str, "columns": list of str, "rows": list of list}``: one row per row of the table, in the
        order of ``columns``; None for NaN and infinities, Python numbers for numpy ones.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> _ = ax.plot([1, 2], [0.5, float("inf")], label="CE"), ax.set(xlabel="size", ylabel="nats")
    >>> meta = figure_metadata(fig)
    >>> meta["columns"], meta["rows"]
    (['panel', 'series', 'size', 'nats'], [['panel 1', 'CE', 1.0, 0.5]])
    """
    frame, panels, labelled = _figure_table(fig)
    return {"alt": _describe(fig, frame, panels, labelled, caption), "columns": [str(c) for c in frame.columns],
            "rows": [[_json_value(v) for v in row] for row in frame.itertuples(index=False, name=None)]}


def figure_table(metadata: dict):
    """A figure's data back from the output metadata ``show`` gave it (``FIGURE_KEY``): the frame of
    ``figure_data``, empty cells as NaN, for the build to write as CSV.

    Parameters
    ----------
    metadata : dict
        ``{"alt": ..., "columns": [...], "rows": [[...], ...]}``.

    Returns
    -------
    pandas.DataFrame
        Shape (len(rows), len(columns)).

    Examples
    --------
    >>> table = figure_table({"alt": "", "columns": ["panel", "series", "size", "CE (nats)"],
    ...                       "rows": [["pydocs", "NeoX", 1000.0, 5.5], ["pydocs", "NeoX", 8000.0, None]]})
    >>> table
        panel series    size  CE (nats)
    0  pydocs   NeoX  1000.0        5.5
    1  pydocs   NeoX  8000.0        NaN
    >>> print(table.to_csv(index=False), end="")
    panel,series,size,CE (nats)
    pydocs,NeoX,1000.0,5.5
    pydocs,NeoX,8000.0,
    """
    import numpy as np
    import pandas as pd

    columns = list(metadata["columns"])
    frame = pd.DataFrame(list(metadata["rows"]), columns=columns) if metadata["rows"] else pd.DataFrame(
        {name: pd.Series(dtype=object) for name in columns})
    for name in columns:
        column = frame[name]
        if column.dtype == object:
            if column.isna().all():
                frame[name] = column.astype(float)
            else:
                frame[name] = column.where(column.notna(), np.nan).infer_objects()
    return frame


