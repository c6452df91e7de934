"""The natural units a held-out document is cut into: a reST section, a module's top-level definition.

The bootstrap of every interval draws whole documents (``rankscale.claims.context.BY``), so an evaluation text of a
few long documents gives wide intervals, however many tokens it holds. A source whose documents have units of their
own, fixed by the source's structure before any model reads them, has its held-out part read as those units, each a
document of its own (``rankscale.corpora.splits.load_split``); its training part keeps the documents whole. A cut
is lossless: the units of a document, joined, give back its text, so the training text is what it was.

- ``marked_units``: the cuts a source marked in its text as it made it (the pydocs stripper marks where each reST
  section's rendered text starts, ``rankscale.corpora.rst``).
- ``python_units``: a Python module at each top-level ``def`` or ``class`` (with its decorators and the comment
  lines right above it); the preamble (docstring, imports, constants) is the first unit, and statements between two
  definitions go with the one before.
"""

from __future__ import annotations

import ast
import re

# Where a unit starts in a text that a source marked as it made it: a control character that neither reST nor
# stripped prose holds
UNIT_MARK = "\x05"
# The version of the cutting: raise it whenever a change of code moves a cut. It enters the identity of every
# held-out part read as units (``rankscale.corpora.get_corpus``), never a training part's.
UNITS_VERSION = 1

_COMMENT = re.compile(r"[ \t]*#")


def marked_units(text: str) -> list[str]:
    """``text`` cut where ``UNIT_MARK`` stands, the marks dropped.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        The pieces, in order, empty ones kept: ``"".join`` gives ``text`` without its marks.

    Examples
    --------
    >>> marked_units("Intro\\n\\n\\x05Usage\\nrun it\\n\\n\\x05Notes\\n")
    ['Intro\\n\\n', 'Usage\\nrun it\\n\\n', 'Notes\\n']
    """
    return text.split(UNIT_MARK)


def python_units(text: str) -> list[str]:
    """A Python module cut at each top-level definition (``def``, ``async def``, ``class``).

    A definition's unit starts at its first decorator, or at the comment lines right above it (no blank line
    between), and runs to the next definition's start; the module's preamble is the first unit. A module that does
    not parse is one unit.

    Parameters
    ----------
    text : str
        The source of a module.

    Returns
    -------
    list of str
        The pieces, in order: ``"".join`` gives ``text``.

    Examples
    --------
    >>> units = python_units('\"\"\"Doc.\"\"\"\\nimport os\\n\\n# the answer\\ndef f():\\n    return 42\\n\\n'
    ...                      'X = 1\\n\\n@staticmethod\\ndef g():\\n    pass\\n')
    >>> [unit.splitlines()[0] for unit in units]
    ['\"\"\"Doc.\"\"\"', '# the answer', '@staticmethod']
    >>> python_units("def broken(:\\n") == ["def broken(:\\n"]
    True
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # not Python this interpreter reads (ValueError: a NUL byte)
        return [text]
    # lines as the parser counts them ("\n" ends one; str.splitlines would also cut at a form feed)
    lines = text.split("\n")
    starts = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1  # 0-based
            while first > 0 and _COMMENT.match(lines[first - 1]):
                first -= 1
            starts.append(first)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    cuts = sorted({offsets[start] for start in starts} - {0})
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
