"""reST to prose: Sphinx documents parsed by docutils and rendered as the text Sphinx shows.

The Python documentation is written for Sphinx, whose roles (``:func:``, ``:ref:``, ...) and
directives (``.. function::``, ``.. versionadded::``, ...) docutils does not know. Before a
document is parsed, the role and directive names it uses are looked up and registered with
plain-text handlers (see ``_sphinx_markup``); docutils then parses the document as it parses any
reST, and the tree is rendered by one small function per kind of node (see ``_RENDER``).

``:ref:`` and ``:doc:`` show the title of the section they point to, which may lie in another
document: a rendered text first holds a placeholder for each, and ``_resolve`` fills them in
once the labels of every document are known (``strip_rst_tree`` does both for a whole tree).
"""

from __future__ import annotations

import contextlib
import functools
import re
import sys
from collections.abc import Callable, Iterator, Mapping

from docutils import frontend, nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, Parser, directives, roles
from docutils.readers.standalone import Reader

from rankscale.corpora.units import UNIT_MARK

# Directives dropped with their whole block: code and other literal text, navigation and
# metadata. Every other directive keeps its content (and its argument, see below).
_DROP = {
    "code-block", "code", "sourcecode", "literalinclude", "parsed-literal", "doctest", "testcode",
    "testoutput", "testsetup", "testcleanup", "productionlist", "highlight", "index", "toctree",
    "include", "contents", "raw", "image", "figure", "math", "csv-table", "tabularcolumns",
    "module", "currentmodule", "program", "sectionauthor", "moduleauthor", "audit-event",
    "audit-event-table", "miscnews", "limited-api-list", "only-latex", "highlightlang",
}
# Admonitions: their content reads after a label, as Sphinx renders them.
_ADMONITIONS = {
    "note": "Note", "warning": "Warning", "caution": "Caution", "important": "Important",
    "attention": "Attention", "danger": "Danger", "error": "Error", "hint": "Hint", "tip": "Tip",
    "seealso": "See also", "impl-detail": "CPython implementation detail",
}
# Directives whose argument starts their label: "Changed in version 3.3: ...".
_VERSIONS = {"versionadded": "New in version", "versionchanged": "Changed in version",
             "deprecated": "Deprecated since version", "deprecated-removed": "Deprecated since version",
             "availability": "Availability"}
# Directives whose argument is not text to keep.
_HIDE_ARGUMENT = {"only", "ifconfig", "glossary", "hlist", "container"}
# docutils' own directives that keep their docutils meaning (``class`` is Sphinx's, not these).
_NATIVE = {"list-table", "table", "rubric", "topic", "sidebar", "compound", "epigraph",
           "highlights", "pull-quote", "line-block", "replace", "unicode", "role", "default-role",
           "admonition"}
# Roles shown with call parentheses.
_PAREN_ROLES = {"func", "meth", "c:func"}

_ROLE_NAME = re.compile(r"(?<![\w`]):([A-Za-z0-9][\w.+:-]*):`")
_DIRECTIVE_NAME = re.compile(r"^\s*\.\.\s+([\w.+:-]+)::", re.MULTILINE)
_TITLED = re.compile(r"(.*?)\s*<([^<>]+)>", re.DOTALL)
# placeholder of a cross-reference: \x01role\x02target\x03 (control characters reST never holds)
_XREF = re.compile(r"\x01([\w:]+)\x02([^\x03]*)\x03")
_FOOTNOTE_MARK = "\x04"  # where a footnote reference stood; it takes the spaces before it along
_MINOR = f"{sys.version_info.major}.{sys.version_info.minor}"


# ---------------------------------------------------------------------------------------------
# Roles


def _role_text(role: str, text: str, labels: Mapping[str, str] | None = None) -> str:
    """What Sphinx shows for ``:role:`text```; ``labels`` holds the titles ``:ref:`` shows."""
    text = " ".join(text.split())
    titled = _TITLED.fullmatch(text)
    if titled and titled.group(1) and role != "abbr":
        return titled.group(1)
    if titled:
        text = titled.group(2)
    if role in ("pep", "rfc"):
        return f"{role.upper()} {text.split('#')[0]}"
    if role in ("issue", "gh"):
        return f"{'bpo' if role == 'issue' else 'gh'}-{text}"
    if role in ("ref", "doc"):  # an unknown target: its last path component, dashes as spaces
        return (labels or {}).get(text.lower(), text.split("/")[-1].replace("-", " "))
    if role in ("samp", "file"):
        text = re.sub(r"\{([^{}]*)\}", r"\1", text)
    shown = text.lstrip("!~")
    if text.startswith("~"):
        shown = shown.split(".")[-1]
    if role in _PAREN_ROLES and not shown.endswith(")"):
        shown += "()"
    return shown


def _role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Any Sphinx role, called as docutils calls roles; cross-references become placeholders."""
    role = name.lower().removeprefix("py:")
    text = " ".join(utils.unescape(text).split())
    if role in ("ref", "doc") and not _TITLED.fullmatch(text):
        return [nodes.Text(f"\x01{role}\x02{text}\x03")], []
    return [nodes.Text(_role_text(role, text))], []


def _resolve(text: str, labels: Mapping[str, str]) -> str:
    """``text`` with its cross-reference placeholders replaced by the titles in ``labels``."""
    return _XREF.sub(lambda m: _role_text(m.group(1), m.group(2), labels), text)


# ---------------------------------------------------------------------------------------------
# Directives


class _AnyOption(dict):
    """An option specification accepting every option, so that none ends up in the content."""

    def __missing__(self, key: str) -> Callable[[str | None], str]:
        return directives.unchanged

    def __bool__(self) -> bool:
        return True


class _Labelled(nodes.Element):
    """Content that reads after ``label`` (``Note: ...``); ``Note.`` alone when empty."""


class _Dropped(Directive):
    """A directive dropped with its block: code, navigation, metadata."""

    has_content, optional_arguments, final_argument_whitespace = True, 1, True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        return []


class _Described(Directive):
    """An object description (``.. function:: abs(x)``) or other Sphinx directive: its argument
    (signatures, one a line), then its content."""

    has_content, optional_arguments, final_argument_whitespace = True, 1, True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        name = self.name.lower().removeprefix("py:")
        argument = self.arguments[0] if self.arguments and name not in _HIDE_ARGUMENT else ""
        lines = [line.strip().removesuffix("\\").rstrip() for line in argument.splitlines()]
        if name == "decorator" and lines:
            lines[0] = "@" + lines[0]
        body = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, body)
        signature = nodes.line_block("", *(nodes.line(line, line) for line in lines))
        return ([signature] if lines else []) + body.children


class _Admonition(Directive):
    """``.. note::`` and the like: content after a label."""

    has_content = True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        node = _Labelled(label=_ADMONITIONS[self.name.lower()])
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class _Versioned(Directive):
    """``.. versionchanged:: 3.3 text`` and ``.. availability:: Unix``: a label made of the
    argument, the rest of the argument, then the content."""

    has_content, optional_arguments, final_argument_whitespace = True, 1, True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        name = self.name.lower()
        words = (self.arguments[0] if self.arguments else "").split(None, 2)
        if name == "availability":
            label, rest = _VERSIONS[name], words
        elif name == "deprecated-removed" and len(words) >= 2:
            label, rest = f"{_VERSIONS[name]} {words[0]}, will be removed in version {words[1]}", words[2:]
        else:
            label, rest = " ".join([_VERSIONS[name], *words[:1]]), words[1:]
        text = " ".join(" ".join(rest).split())
        if text.endswith("::"):  # as in a paragraph: "text::" reads "text:", "text ::" "text"
            text = text[:-2].rstrip() if text.endswith(" ::") else text[:-1]
        node = _Labelled(label=label)
        if text:
            node += nodes.paragraph("", "", *self.state.inline_text(text, self.lineno)[0])
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


def _directive_class(name: str) -> type[Directive] | None:
    """The handler of directive ``name``; None: docutils' own."""
    name = name.lower().removeprefix("py:")
    if name in _DROP:
        return _Dropped
    if name in _ADMONITIONS:
        return _Admonition
    if name in _VERSIONS:
        return _Versioned
    return None if name in _NATIVE else _Described


@contextlib.contextmanager
def _sphinx_markup(text: str) -> Iterator[None]:
    """Register handlers for the roles and directives ``text`` uses, for the time of a parse.

    docutils keeps its registry in module globals; they are restored afterwards, as Sphinx's
    ``docutils_namespace`` does, so nothing leaks into other users of docutils.
    """
    saved = dict(roles._roles), dict(directives._directives)
    try:
        for name in set(_ROLE_NAME.findall(text)):
            roles.register_local_role(name.lower(), _role)
        for name in set(_DIRECTIVE_NAME.findall(text)):
            if (handler := _directive_class(name)) is not None:
                directives.register_directive(name.lower(), handler)
        yield
    finally:
        for registry, old in zip((roles._roles, directives._directives), saved):
            registry.clear()
            registry.update(old)


@functools.cache
def _settings() -> frontend.Values:
    """docutils settings: silent, no file access, no document title promotion."""
    settings = frontend.get_default_settings(Parser, Reader)
    for key, value in {"report_level": 5, "halt_level": 5, "warning_stream": False, "traceback": True,
                       "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False,
                       "sectsubtitle_xform": False, "smart_quotes": False}.items():
        setattr(settings, key, value)
    return settings


def _parse(text: str) -> nodes.document:
    """The docutils tree of a Sphinx document (``|version|``: the running Python's)."""
    defined = "".join(f".. |{name}| replace:: {_MINOR}\n" for name in ("version", "release")
                      if f"|{name}|" in text and f".. |{name}|" not in text)
    with _sphinx_markup(text):
        return publish_doctree(defined + "\n" + text if defined else text, settings=_settings())


# ---------------------------------------------------------------------------------------------
# Rendering: a body element becomes paragraphs, each a list of lines

Paragraphs = list[list[str]]
_SKIPPED = (nodes.comment, nodes.target, nodes.substitution_definition, nodes.system_message,
            nodes.literal_block, nodes.doctest_block, nodes.raw, nodes.image, nodes.figure,
            nodes.math_block, nodes.pending, nodes.label, nodes.docinfo, nodes.decoration)


def _inline(node: nodes.Node) -> str:
    """The text of inline markup; footnote references leave a mark, images nothing."""
    if isinstance(node, nodes.Text):
        return node.astext()
    if isinstance(node, (nodes.footnote_reference, nodes.citation_reference)):
        return _FOOTNOTE_MARK
    if isinstance(node, (nodes.image, nodes.raw, nodes.system_message)):
        return ""
    if isinstance(node, nodes.problematic):  # markup docutils could not resolve, kept as written
        text = node.astext()  # (but for a footnote reference without its footnote)
        return _FOOTNOTE_MARK if re.fullmatch(r"\[[^\]]*\]_", text) else text
    return "".join(_inline(child) for child in node.children)


def _line(node: nodes.Node) -> str:
    """The text of an element on one line, spaces collapsed."""
    return " ".join(re.sub(rf"\s*{_FOOTNOTE_MARK}", "", _inline(node)).split())


def _blocks(node: nodes.Node) -> Paragraphs:
    """The paragraphs of a body element, by the renderer of its class (or of a base class)."""
    render = next((_RENDER[cls] for cls in type(node).__mro__ if cls in _RENDER), _children)
    return render(node)


def _children(node: nodes.Node) -> Paragraphs:
    """Sections, block quotes, containers: the paragraphs of their children in turn."""
    return [p for child in node.children if not isinstance(child, nodes.Text) for p in _blocks(child)]


def _section(node: nodes.section) -> Paragraphs:
    """A section: the paragraphs of its children, the first line marked where the section starts
    (``rankscale.corpora.units.UNIT_MARK``), so that a held-out document can be read section by section."""
    paragraphs = _children(node)
    if paragraphs:
        paragraphs[0] = [UNIT_MARK + paragraphs[0][0], *paragraphs[0][1:]]
    return paragraphs


def _text(node: nodes.Node) -> Paragraphs:
    """A paragraph, title or rubric: one line."""
    line = _line(node)
    return [[line]] if line else []


def _lines(lines: list[str]) -> Paragraphs:
    """One paragraph of the lines that are not empty, or none."""
    line_list = [line for line in lines if line]
    return [line_list] if line_list else []


def _line_block(node: nodes.line_block) -> Paragraphs:
    """A line block (``| text``) or signatures: their lines."""
    return _lines([_line(line) for line in node.findall(nodes.line)])


def _table(node: nodes.table) -> Paragraphs:
    """A table: one line per row, cells separated by ``; `` (the title is not kept)."""
    rows = []
    for row in node.findall(nodes.row):
        cells = (" ".join(line for p in _children(entry) for line in p) for entry in row.children)
        rows.append("; ".join(cell for cell in cells if cell))
    return _lines(rows)


def _labelled(node: _Labelled) -> Paragraphs:
    """An admonition or version note: ``Label: first line``, or ``Label.`` alone."""
    paragraphs = _children(node)
    return _head(f"{node['label']}:", paragraphs) if paragraphs else [[node["label"] + "."]]


def _items(items: list[Paragraphs]) -> Paragraphs:
    """List items, fields, definitions: one paragraph when each item is one paragraph (a
    compact list), else every paragraph of every item in turn."""
    if all(len(item) <= 1 for item in items):
        return _lines([line for item in items for p in item for line in p])
    return [p for item in items for p in item]


def _marker(node: nodes.Element, n: int) -> str:
    """The marker of item ``n`` of a bullet or enumerated list, as Sphinx numbers it."""
    if isinstance(node, nodes.bullet_list):
        return node["bullet"]
    kind = node["enumtype"]
    if kind in ("loweralpha", "upperalpha"):
        number = chr(ord("a" if kind == "loweralpha" else "A") + n - 1)
    elif kind in ("lowerroman", "upperroman"):
        number = ""
        for value, numeral in zip((1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1),
                                  "M CM D CD C XC L XL X IX V IV I".split()):
            count, n = divmod(n, value)
            number += numeral * count
        number = number.lower() if kind == "lowerroman" else number
    else:
        number = str(n)
    return f"{node['prefix']}{number}{node['suffix']}"


def _list(node: nodes.Element) -> Paragraphs:
    """A bullet or enumerated list: each item after its marker (``-``, ``1.``, ``(a)``)."""
    items = [_children(item) for item in node.children]
    for n, item in enumerate(items, node.get("start", 1)):
        if item:
            item[0][0] = f"{_marker(node, n)} {item[0][0]}"
    return _items(items)


def _field_list(node: nodes.field_list) -> Paragraphs:
    """A field list: ``name: body`` for each field."""
    return _items([_head(_line(field[0]) + ":", _children(field[1])) for field in node.children])


def _definition_list(node: nodes.definition_list) -> Paragraphs:
    """A definition list: each term (with its classifiers) on the line before its definition."""
    paragraphs = []
    for item in node.children:
        term = " : ".join(_line(c) for c in item.children if isinstance(c, (nodes.term, nodes.classifier)))
        definition = [p for c in item.children if isinstance(c, nodes.definition) for p in _children(c)]
        paragraphs += _head(term, definition, above=True)
    return paragraphs


def _option_list(node: nodes.option_list) -> Paragraphs:
    """An option list: the options on the line before their description."""
    return [p for item in node.children
            for p in _head(_line(item[0]), _children(item[1]) if len(item) > 1 else [], above=True)]


def _head(head: str, body: Paragraphs, above: bool = False) -> Paragraphs:
    """``head`` before the first line of ``body``: on that line, or on a line ``above`` it."""
    if not body:
        return [[head]]
    first = [head, body[0][0]] if above else [f"{head} {body[0][0]}"]
    return [[*first, *body[0][1:]], *body[1:]]


_RENDER: dict[type, Callable[[nodes.Node], Paragraphs]] = {
    **dict.fromkeys(_SKIPPED, lambda node: []),  # code, comments, targets, metadata
    **dict.fromkeys((nodes.paragraph, nodes.title, nodes.subtitle, nodes.rubric, nodes.attribution,
                     nodes.caption), _text),
    nodes.section: _section, nodes.line_block: _line_block, nodes.table: _table, _Labelled: _labelled,
    nodes.bullet_list: _list, nodes.enumerated_list: _list, nodes.field_list: _field_list,
    nodes.definition_list: _definition_list, nodes.option_list: _option_list,
}


# ---------------------------------------------------------------------------------------------
# Documents


def _join(paragraphs: Paragraphs) -> str:
    """The text of paragraphs: their lines, a blank line between paragraphs."""
    return "".join("\n".join(p) + "\n\n" for p in paragraphs if p).removesuffix("\n")


def _labels(tree: nodes.document) -> dict[str, str]:
    """Labels (``.. _label:``) placed right before a section, mapped to its title."""
    refids = {target["refid"] for target in tree.findall(nodes.target) if "refid" in target}
    return {name: _line(tree.ids[id_][0]) for name, id_ in tree.nameids.items()
            if id_ in refids and isinstance(tree.ids[id_], nodes.section)}


def section_labels(text: str) -> dict[str, str]:
    """Targets ``.. _label:`` placed right before a section title, mapped to that title.

    Parameters
    ----------
    text : str
        reST source.

    Returns
    -------
    dict
        Section titles by label, lower-cased as Sphinx does (what ``:ref:`label``` shows).

    Examples
    --------
    >>> section_labels(".. _Intro-label:\\n\\nGetting *started*\\n===============\\n")
    {'intro-label': 'Getting started'}
    """
    return _labels(_parse(text))


def strip_rst(text: str, labels: Mapping[str, str] | None = None, mark_sections: bool = False) -> str:
    """Plain prose from a reStructuredText (Sphinx) document, as Sphinx shows it.

    Kept: paragraphs (one line each), section titles, list items after their markers, the text
    of admonitions (``Note: ...``) and version notes (``Changed in version 3.3: ...``),
    footnotes, object descriptions (``.. function:: abs(x)``: the signature, then the text), and
    table rows (one a line, cells separated by ``; ``). Inline markup reads as Sphinx shows it:
    ``:func:`len``` -> ``len()``, ``:meth:`~a.b``` -> ``b()``, ``:pep:`8``` -> ``PEP 8``,
    ``:ref:`label``` -> the section title when ``labels`` knows it, ```title <url>`_`` ->
    ``title``. Dropped: code (literal and doctest blocks, ``code-block`` and the like), grammar
    productions, comments, targets, footnote references, index entries, navigation and metadata
    directives (``toctree``, ``module``, ``audit-event``, ...), directive options, bibliographic
    fields, section adornments and table borders.

    Parameters
    ----------
    text : str
        reST source.
    labels : mapping, optional
        Section titles of ``:ref:`` targets, e.g. collected with ``section_labels`` over a
        whole documentation tree. Unknown targets show as the label with dashes as spaces.
    mark_sections : bool
        Put ``rankscale.corpora.units.UNIT_MARK`` where each section's text starts (its title's
        line), for ``units.marked_units``; without, the text has no mark.

    Returns
    -------
    str
        Paragraphs separated by blank lines.

    Examples
    --------
    >>> print(strip_rst('''Title
    ... =====
    ...
    ... Call :func:`len` on *any* sized object [#]_, as in::
    ...
    ...    len([1, 2])
    ...
    ... .. versionadded:: 3.2
    ...    The ``spam`` parameter.
    ... '''))
    Title
    <BLANKLINE>
    Call len() on any sized object, as in:
    <BLANKLINE>
    New in version 3.2: The spam parameter.
    <BLANKLINE>
    """
    return _marked(_resolve(_join(_blocks(_parse(text))), labels or {}), mark_sections)


def _marked(text: str, mark_sections: bool) -> str:
    """``text`` with its section marks, or without any."""
    return text if mark_sections else text.replace(UNIT_MARK, "")


def strip_rst_tree(sources: Mapping[str, str], mark_sections: bool = False) -> dict[str, str]:
    """``strip_rst`` over a documentation tree, resolving ``:ref:`` across it.

    Parameters
    ----------
    sources : mapping
        reST sources by key (a path); each is parsed once.
    mark_sections : bool
        As ``strip_rst``'s.

    Returns
    -------
    dict
        Prose by key, in the order of ``sources``.
    """
    labels: dict[str, str] = {}
    rendered = {}
    for key, text in sources.items():
        tree = _parse(text)
        labels.update(_labels(tree))
        rendered[key] = _join(_blocks(tree))
    return {key: _marked(_resolve(text, labels), mark_sections) for key, text in rendered.items()}
