"""A student's exercise notebook, made from a chapter's jupytext source: the chapter's set-up (its
parameters and its first code cell, which opens the chapter), then each exercise's text and a cell to
answer it in, which calls the checker. Nothing of a solution is copied: the notebook is built from the
exercises alone, not by cutting solutions out of the page.

A chapter writes an exercise as a ``sphinx-exercise`` directive in a Markdown cell::

    ```{exercise} a1.1 · RBP_k by hand
    :label: ex-a1-1
    :nonumber:
    Plain Markdown and math, no MyST role (the student's notebook shows it as Jupyter does).
    ```

and its solution between ``{solution-start} ex-a1-1`` and ``{solution-end}``, executed code included.
"""

from __future__ import annotations

import re

from rankscale import RankscaleError
from rankscale.teaching.exercise import Exercise

# a fenced exercise directive: its fence, title, options (":label: ...") and body
EXERCISE = re.compile(r"^(?P<fence>`{3,})\{exercise\}[ \t]*(?P<title>[^\n]*)\n(?P<options>(?::[^\n]*\n)*)"
                      r"(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
TEACHING_IMPORT = "from rankscale import teaching"  # the student's notebook's cell after the set-up
STUDENT_PROFILE = "smoke"  # the set a student's notebook runs on by default: trained on a laptop in a few minutes


def exercise_texts(nb) -> dict[str, tuple[str, str]]:
    """The exercises a chapter's notebook states, in order: label (``ex-a1-1``) -> (title, body).

    Examples
    --------
    >>> import nbformat
    >>> cell = nbformat.v4.new_markdown_cell("## Exercises\\n\\n```{exercise} By hand\\n:label: ex-a1-1\\n"
    ...                                      "Count the ranks.\\n```\\n")
    >>> exercise_texts(nbformat.v4.new_notebook(cells=[cell]))
    {'ex-a1-1': ('By hand', 'Count the ranks.')}
    """
    found: dict[str, tuple[str, str]] = {}
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for match in EXERCISE.finditer(cell.source):
            label = re.search(r"^:label:\s*(\S+)", match["options"], re.M)
            if label is None:
                raise RankscaleError(f"an exercise ({match['title']!r}) has no :label:; give it one, ex-<chapter>-<n>")
            found[label[1]] = (match["title"].strip(), match["body"].strip())
    return found


def _setup_cells(nb, name: str) -> list:
    """The chapter's parameters cell and the code cell after it, which opens the chapter."""
    marked = [i for i, cell in enumerate(nb.cells) if "parameters" in cell.metadata.get("tags", [])]
    following = [i for i in range(marked[0] + 1, len(nb.cells)) if nb.cells[i].cell_type == "code"] if marked else []
    if not following or "open_chapter(" not in nb.cells[following[0]].source:
        raise RankscaleError(f"page {name} does not start as a chapter does (a cell tagged parameters, then one that "
                             "calls open_chapter); see notebooks/README.md")
    return [nb.cells[marked[0]], nb.cells[following[0]]]


def page_title(exercise: Exercise) -> str:
    """The exercise's title as its page writes it: its id, which the checker takes, then its title (the book
    numbers no exercise, so that its id is the one number a reader sees).

    >>> page_title(Exercise("b2.1", "When does Self-Alignment peak?", "a step", None))
    'b2.1 · When does Self-Alignment peak?'
    """
    return f"{exercise.id} · {exercise.title}"


def starter_source(exercise: Exercise) -> str:
    """The code cell a student answers ``exercise`` in.

    Examples
    --------
    >>> print(starter_source(Exercise("a1.2", "Ties", "what the two conventions change", None)))
    # Exercise a1.2: your code. It is answered in words: what the two conventions change (a Markdown cell below).
    """
    if exercise.answer is None:
        return (f"# Exercise {exercise.id}: your code. It is answered in words: {exercise.asks} "
                "(a Markdown cell below).")
    return (f"# Exercise {exercise.id}: {exercise.asks}.\n"
            f"# Compute it, set `answer` to it and run the cell; the checker accepts +-{exercise.tolerance:g} of this "
            "set's value.\n"
            "answer = None\n"
            f'teaching.check("{exercise.id}", answer, chapter)')


def student_notebook(nb, name: str, exercises: list[Exercise]):
    """A chapter's exercise notebook for students: its set-up, then every exercise, each with a cell to
    answer it in, and no solution.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The chapter's notebook, from its jupytext source (not executed).
    name : str
        The page's name (``a1_metric``).
    exercises : list of Exercise
        The chapter's exercises (``rankscale.teaching.exercises_of``), in the order the page states them.

    Returns
    -------
    nbformat.NotebookNode
        Its parameters cell runs the smoke set (``STUDENT_PROFILE``).

    Raises
    ------
    RankscaleError
        Where the page's exercises and ``exercises`` differ, or the page does not start as a chapter.
    """
    import nbformat

    texts = exercise_texts(nb)
    if list(texts) != [exercise.label for exercise in exercises]:
        raise RankscaleError(f"page {name} states the exercises {list(texts)}, and rankscale.teaching has "
                             f"{[exercise.label for exercise in exercises]}; make them the same, in order")
    for exercise in exercises:
        if texts[exercise.label][0] != page_title(exercise):
            raise RankscaleError(f"page {name} titles exercise {exercise.id} {texts[exercise.label][0]!r}; "
                                 f"rankscale.teaching's title gives {page_title(exercise)!r}")
    parameters, setup = (nbformat.from_dict(cell) for cell in _setup_cells(nb, name))
    # ids of their own, the same at every build (jupytext draws random ones), so that staging twice changes nothing
    parameters.id, setup.id = f"{name}-exercises-parameters", f"{name}-exercises-setup"
    parameters.source = re.sub(r'^profile = .*$', f'profile = "{STUDENT_PROFILE}"  # or "tiny": the book\'s own set, '
                               "about an hour to train on a laptop", parameters.source, count=1, flags=re.M)
    title = next((m[1] for cell in nb.cells if cell.cell_type == "markdown"
                  for m in [re.match(r"#\s+(.+)", cell.source)] if m), name)
    cells = [nbformat.v4.new_markdown_cell(
        f"# {title}: exercises\n\n"
        "The chapter's set-up, then its exercises, each with a cell to answer it in. Run the set-up first: it "
        f"opens the chapter on the `{STUDENT_PROFILE}` set (trained and extracted on first use) as `chapter`. "
        "`teaching.check` says whether a number is right on the set you run, and why not. A record's arrays are "
        "float32: compute in float64 (`.astype(np.float64)`), as the tightest tolerances assume. The solutions are "
        "on the chapter's page of the book, folded under each exercise.", id=f"{name}-exercises-title"),
        parameters, setup,
        nbformat.v4.new_code_cell(TEACHING_IMPORT, id=f"{name}-exercises-import")]
    for exercise in exercises:
        title, body = texts[exercise.label]
        cells += [nbformat.v4.new_markdown_cell(f"## Exercise {title}\n\n{body}",
                                                id=f"{exercise.label}-text"),
                  nbformat.v4.new_code_cell(starter_source(exercise), id=f"{exercise.label}-answer")]
    return nbformat.v4.new_notebook(cells=cells, metadata=nb.metadata)
