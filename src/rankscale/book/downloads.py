"""What a page of the site gives its reader to take away, made from the executed notebook at
staging time (``rankscale.book.build.stage``), so that the site and its downloads are one build:

- the executed notebook itself (the page's ``_sources`` copy: the theme's download button, and a
  link in the page's "Downloads" section), whose metadata names the model set it ran on;
- its jupytext source, ``downloads/<page>/<page>.py``;
- the data behind each figure as CSV, ``downloads/<page>/<figure>.csv``, linked under the figure
  (``rankscale.book.plots.show`` puts the plotted points and the figure's alt text into the image's
  output metadata, ``rankscale.book.readout.FIGURE_KEY``);
- a chapter's verdicts as JSON, ``downloads/<page>/<page>.verdicts.json``: the rows its verdict
  table carries (``pages.VERDICT_KEY``), the rows ``rankscale verdicts --json`` prints;
- the BibTeX entry of the paper the chapter replays, from the book's own ``references.bib``;
- a chapter's exercise notebook, ``downloads/<page>/<page>.exercises.ipynb``: its set-up and its exercises with a
  cell to answer each, no solution (``rankscale.teaching.notebook``).

Each figure also gets its alt text (MyST-NB's cell-level ``image.alt``) and the page a description
for link previews (``myst.html_meta``). Where ``_config.yml`` names the repository
(``repository.url``), the notebook's first cell installs rankscale from it where it is missing (the
package is not on PyPI), and ``site_config`` gives each page a Colab button onto the notebook the
``gh-pages`` branch holds.
"""

from __future__ import annotations

import itertools
import json
import re

from rankscale import RankscaleError
from rankscale.book.readout import plain_text

FOLDER = "downloads"  # beside the pages: downloads/<page>/...
PAPERS = {"a": "yue2025relative", "b": "yan2025whatscales"}  # chapter a*/b*: the paper it replays (references.bib)
PAGES_BRANCH = "gh-pages"  # where `rankscale publish` puts the site; Colab opens the notebooks there


def install_cell_source(url: str) -> str:
    """The code of a downloaded notebook's first cell: install rankscale with the book's tools from
    the repository at ``url`` where it cannot be imported (Colab, a fresh environment).

    Examples
    --------
    >>> print(install_cell_source("https://github.com/someone/rankscale"))  # doctest: +NORMALIZE_WHITESPACE
    # rankscale is not on PyPI: where it is missing (Colab, a fresh environment), install it from its repository
    import importlib.util, subprocess, sys
    if importlib.util.find_spec("rankscale") is None:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "rankscale[book] @ git+https://github.com/someone/rankscale"])
    """
    return ("# rankscale is not on PyPI: where it is missing (Colab, a fresh environment), install it from its "
            "repository\nimport importlib.util, subprocess, sys\n"
            'if importlib.util.find_spec("rankscale") is None:\n'
            f'    subprocess.check_call([sys.executable, "-m", "pip", "install", "rankscale[book] @ git+{url}"])')


# A downloaded chapter's cell after its parameters: the page only reads what `make book` computed, so a
# notebook run away from it computes that first (what is on disk already is kept).
PREPARE_CELL = ("# What this page reads, trained and extracted where it is missing (make book does this before any page runs)\n"
                "from rankscale.records.jobs import prepare\n"
                "from rankscale.sets import get\n"
                "prepare(get(profile))")


def site_config(config: dict) -> dict:
    """The site's Jupyter Book configuration from the book's ``_config.yml``: where it names the
    repository (``repository.url``), a Colab button on every notebook page, opening that page's
    notebook from the ``gh-pages`` branch (``_sources/``, where ``rankscale publish`` puts it);
    where it does not, no launch button at all.

    Examples
    --------
    >>> site_config({"repository": {"path_to_book": "."}, "launch_buttons": {"colab_url": ""}})["launch_buttons"]
    {'colab_url': ''}
    >>> config = site_config({"repository": {"url": "https://github.com/someone/rankscale"}})
    >>> config["launch_buttons"]["colab_url"], config["repository"]["branch"], config["repository"]["path_to_book"]
    ('https://colab.research.google.com', 'gh-pages', '_sources')
    """
    config = json.loads(json.dumps(config))  # a copy
    repository = config.setdefault("repository", {})
    buttons = config.setdefault("launch_buttons", {})
    if repository.get("url"):
        repository.update(branch=PAGES_BRANCH, path_to_book="_sources")
        buttons["colab_url"] = "https://colab.research.google.com"
    else:
        buttons["colab_url"] = ""
    return config


def bibtex_entry(bib: str, key: str) -> str:
    """The entry ``key`` of a BibTeX file's text, as written there.

    Examples
    --------
    >>> bib = "@misc{a,\\n  title = {One {Two}}\\n}\\n@misc{b,\\n  title = {B}\\n}\\n"
    >>> print(bibtex_entry(bib, "a"))
    @misc{a,
      title = {One {Two}}
    }
    >>> bibtex_entry(bib, "c")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: no BibTeX entry 'c' in the book's references.bib
    """
    start = re.search(r"@\w+\{" + re.escape(key) + ",", bib)
    if start is None:
        raise RankscaleError(f"no BibTeX entry {key!r} in the book's references.bib")
    depth = 0
    for end in range(bib.index("{", start.start()), len(bib)):
        depth += {"{": 1, "}": -1}.get(bib[end], 0)
        if depth == 0:
            return bib[start.start():end + 1]
    raise RankscaleError(f"the BibTeX entry {key!r} of the book's references.bib is not closed")


def _plain(markdown: str) -> str:
    """Markdown prose as one line of plain text (for a link preview's description)."""
    text = re.sub(r"(`{3,}).*?\1(?!`)", " ", markdown, flags=re.S)  # directives and code blocks
    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)\s*(?:<[^`]*>)?`", r"\1", text)  # {role}`text <target>` -> text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)  # display math: no place in a one-line preview
    text = re.sub(r"\$[^$]+\$", lambda math: plain_text(math.group()), text)  # inline math as it reads
    text = re.sub(r"[*`#\\]|(?<![\w^])_|_(?![\w{])", "", text)  # markup, and underscores of emphasis (not RBP_k)
    return " ".join(text.split())


def description(nb) -> str:
    """A page's description for link previews: the first paragraph of prose after its title, at
    most about 200 characters, cut at a word.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
    ...     "# A1 · The metric\\n\\n````{admonition} box\\n```{glue:md} x\\n```\\n````\\n\\n"
    ...     "Paper A *starts* from $p(t)$ and $-\\\\log \\\\mathrm{RBP}_k$, after {cite:t}`x`.")])
    >>> description(nb)
    'Paper A starts from p(t) and -log RBP_k, after x.'
    """
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        body = re.sub(r"^#[^\n]*\n", "", cell.source.strip())  # the title
        body = re.sub(r"(`{3,})[^\n]*\n.*?\n\1(?!`)", "\n\n", body, flags=re.S)  # boxes (nested ones whole)
        for paragraph in body.split("\n\n"):
            text = _plain(paragraph)
            if len(text) > 30:  # a paragraph, not a stray line
                return text if len(text) <= 200 else text[:text.rfind(" ", 0, 197)] + " ..."
    return ""


def _download_links(files: list[str], folder: str) -> str:
    """MyST download links to ``files`` of ``folder``, each named by its file name."""
    return ", ".join(f"{{download}}`{name} <{folder}/{name}>`" for name in files)


def page_downloads(nb, page: str, source: str, *, bib: str | None = None, install_url: str | None = None,
                   prepares: bool = True) -> dict[str, bytes]:
    """Give an executed page its downloads, changing the notebook in place, and return their files.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The executed page (a copy: the cached executed notebook stays as papermill wrote it).
    page : str
        The page's path in the site, without suffix (``book/chapters/a1_metric``).
    source : str
        Its jupytext source.
    bib : str, optional
        The book's ``references.bib``; a chapter of paper A or B (``a*``, ``b*``) cites its paper from it.
    install_url : str, optional
        The repository's address (``_config.yml``'s ``repository.url``): the notebook's first cell
        installs rankscale from it where it is missing.
    prepares : bool
        Put ``PREPARE_CELL`` after the notebook's parameters, so that the notebook run on its own trains
        and extracts what it reads (a page that reads other executed pages instead does not).

    Returns
    -------
    dict of str to bytes
        Path under the page's folder (``downloads/<name>/...``, relative to the page) to content.
    """
    import jupytext
    import nbformat

    from rankscale import teaching
    from rankscale.book.pages import VERDICT_KEY
    from rankscale.book.readout import FIGURE_KEY, figure_table
    from rankscale.teaching.notebook import student_notebook

    name = page.rsplit("/", 1)[-1]
    folder = f"{FOLDER}/{name}"
    new = itertools.count(1)  # the cells added here, numbered for their ids
    files: dict[str, bytes] = {f"{folder}/{name}.py": source.encode()}
    figures: list[str] = []
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        shown = [out.metadata[FIGURE_KEY] for out in cell.get("outputs", []) if FIGURE_KEY in out.get("metadata", {})]
        if not shown:
            continue
        label = cell.metadata.get("mystnb", {}).get("figure", {}).get("name") or f"{name}-figure-{len(figures) + 1}"
        names = [f"{label}.csv"] if len(shown) == 1 else [f"{label}-{i}.csv" for i in range(1, len(shown) + 1)]
        for csv, figure in zip(names, shown):
            files[f"{folder}/{csv}"] = figure_table(figure).to_csv(index=False).encode()
        figures += names
        cell.metadata.setdefault("mystnb", {})["image"] = {"alt": " ".join(figure["alt"] for figure in shown)}
        tags = cell.metadata.get("tags", [])
        link = _markdown_cell(f"{name}-data-{next(new)}",
                              f"Data of the figure above (CSV): {_download_links(names, folder)}",
                              ["remove-cell"] if "remove-cell" in tags else [])
        cells.append(link)
    rows = [row for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
            for row in out.get("metadata", {}).get(VERDICT_KEY, [])]
    if rows:
        files[f"{folder}/{name}.verdicts.json"] = (json.dumps(rows, indent=1, ensure_ascii=False) + "\n").encode()
    lines = ["## Downloads", "",
             f'- <a href="{"../" * page.count("/")}_sources/{page}.ipynb" download>the executed notebook</a> this page '
             f"was built from (its metadata names the model set), and {{download}}`its source <{folder}/{name}.py>` "
             "(a jupytext percent script)"]
    if figures:
        lines.append(f"- the data behind each figure, as CSV: {_download_links(figures, folder)}")
    if rows:
        lines.append(f"- the verdicts of this chapter as JSON ({{download}}`{name}.verdicts.json "
                     f"<{folder}/{name}.verdicts.json>`), the rows `rankscale verdicts --json` prints")
    if bib is not None and name[:1] in PAPERS and name[1:2].isdigit():
        lines += ["", "The paper this chapter replays, as BibTeX:", "", "```bibtex",
                  bibtex_entry(bib, PAPERS[name[0]]), "```"]
    exercises = teaching.exercises_of(name)
    if exercises:
        student = student_notebook(jupytext.reads(source, fmt="py:percent"), name, exercises)
        student.cells = _runnable_alone(student.cells, f"{name}-exercises", install_url, prepares=True)
        files[f"{folder}/{name}.exercises.ipynb"] = nbformat.writes(student).encode()
        lines.append(f"- the exercises of this chapter as a notebook to fill in ({{download}}`{name}.exercises.ipynb "
                     f"<{folder}/{name}.exercises.ipynb>`): the chapter's set-up and its {len(exercises)} exercises, "
                     "without solutions, run on the smoke set by default")
    cells.append(_markdown_cell(f"{name}-downloads", "\n".join(lines)))
    nb.cells = _runnable_alone(cells, name, install_url, prepares)
    text = description(nb)
    nb.metadata.setdefault("myst", {})["html_meta"] = {"description": text, "property=og:description": text}
    return files


def _runnable_alone(cells: list, name: str, install_url: str | None, prepares: bool) -> list:
    """A notebook's cells, with ``PREPARE_CELL`` after its parameters where it ``prepares`` (it then trains and
    extracts what it reads, run on its own) and the install cell first where the repository is named."""
    cells = list(cells)
    if prepares:
        marked = [i for i, cell in enumerate(cells)  # papermill's parameter cells (build.HIDDEN_TAGS, which imports this)
                  if {"parameters", "injected-parameters"} & set(cell.metadata.get("tags", []))]
        if not marked:
            raise RankscaleError(f"page {name} has no cell tagged parameters, which names its model set (profile); "
                                 "tag its first code cell so (notebooks/README.md)")
        cells.insert(marked[-1] + 1, _code_cell(f"{name}-prepare", PREPARE_CELL, ["remove-cell"]))
    if install_url:
        cells.insert(0, _code_cell(f"{name}-install", install_cell_source(install_url), ["remove-cell"]))
    return cells


def _markdown_cell(cell_id: str, text: str, tags: list[str] | None = None):
    import nbformat

    # an id of its own, the same at every build (nbformat would draw a random one)
    return nbformat.v4.new_markdown_cell(text, id=cell_id, metadata={"tags": tags} if tags else {})


def _code_cell(cell_id: str, text: str, tags: list[str]):
    import nbformat

    return nbformat.v4.new_code_cell(text, id=cell_id, metadata={"tags": tags})
