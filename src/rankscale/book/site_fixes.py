"""A Sphinx extension (``_config.yml``'s ``sphinx.extra_extensions``) that mends what the book's
theme stack gets wrong in a reader's browser, found by crawling the site (``scripts/crawl_site.py``):

- sphinx-thebe registers its inline configuration script each time Sphinx reads the sources, and
  Jupyter Book makes it read them twice, so every page declared ``const THEBE_JS_URL`` twice: an
  uncaught ``SyntaxError`` on every page. Each page now loads each script once.
- pydata-sphinx-theme's page head reads the colour mode from ``html_context['default_mode']``, which
  nothing sets, and logs "Got invalid theme mode" on a reader's first visit. The book sets it to
  ``auto`` (the reader's system setting).
- docutils writes each citation of the references page as ``role="doc-biblioentry"`` inside a
  ``role="list"``: a list whose items are not list items (axe-core: aria-required-children,
  critical) of a role ARIA 1.2 deprecates. The entries become ``role="listitem"``.
"""

from __future__ import annotations


def unique_scripts(scripts: list) -> list:
    """The scripts of a page, each once, in its first place. Two are the same where their file, priority and
    attributes (an inline script's body among them) are; an inline script's file is None or "" as its
    registration happened to say, which Sphinx's own equality tells apart.

    Examples
    --------
    >>> from sphinx.builders.html._assets import _JavaScript
    >>> scripts = [_JavaScript(None, body="const X = 1"), _JavaScript("page.js"), _JavaScript("", body="const X = 1")]
    >>> [s.filename for s in unique_scripts(scripts)]
    [None, 'page.js']
    """
    seen, kept = set(), []
    for script in scripts:
        key = (getattr(script, "filename", script) or "", getattr(script, "priority", None),
               tuple(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    return kept


CITATION_ROLE = 'role="doc-biblioentry"'  # docutils' citations (in a role="list")


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:  # in place: it is the builder's own list, which other handlers add to
        context["script_files"][:] = unique_scripts(context["script_files"])
    if CITATION_ROLE in context.get("body", ""):
        context["body"] = context["body"].replace(CITATION_ROLE, 'role="listitem"')


def _set_default_mode(app, config) -> None:
    config.html_context.setdefault("default_mode", "auto")


def setup(app) -> dict:
    app.connect("config-inited", _set_default_mode)
    app.connect("html-page-context", _page_context, priority=999)  # last: after every handler that adds a script
    return {"parallel_read_safe": True, "parallel_write_safe": True}
