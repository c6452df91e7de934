"""The package's shape: no import cycle between its modules, subpackages included (imports inside
functions count too, since they only postpone a cycle), no stage of the pipeline importing a later one, and
every module says what it is."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import rankscale

PACKAGE = Path(rankscale.__file__).parent
# what a docstring says when a module stands in for another: where things moved, not what it is
FORWARDING = re.compile(r"\b(moved|now lives?|re-?export\w*|keeps? working|importable from here|kept for compatibility|"
                        r"for backward compatibility)\b", re.IGNORECASE)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def sources() -> dict[Path, ast.Module]:
    """Every module of the package, parsed (once for all the tests)."""
    return {p: ast.parse(p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))}


def statements(nodes):
    """Every statement among ``nodes`` and in their bodies, at any depth (functions, classes, if, try, with, match):
    an import is a statement, so the expressions, most of a module's nodes, need no visit."""
    for node in nodes:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from statements(getattr(node, field, ()))


def imports(path: Path) -> set[str]:
    """The rankscale modules a module imports, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in statements(sources()[path].body):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x / from .x import y
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    modules = {module_name(p) for p in sources()}
    return {m for m in found if m in modules and m != name and m != "rankscale"}


@cache
def graph() -> dict[str, frozenset[str]]:
    return {module_name(p): frozenset(imports(p)) for p in sources()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    found = cycles(graph())
    assert not found, f"import cycles between rankscale modules: {found}"


# The pipeline's stages in order: a module may import its own stage and those before it, never a later one (a model
# set names and checks its corpora, so the corpora come first)
STAGES = ("corpora", "sets", "models", "records", "analysis", "claims", "teaching", "book")


def stage(module: str) -> int | None:
    """A module's place in ``STAGES``; None for the package's top level (paths, hashing, cli, ...)."""
    part = module.split(".")[1] if module.count(".") else ""
    return STAGES.index(part) if part in STAGES else None


def test_the_stage_finder_places_modules():
    assert (stage("rankscale.claims.b2"), stage("rankscale.book.plots"), stage("rankscale.cli")) == (5, 7, None)
    assert stage("rankscale.teaching.a1") == 6
    assert stage("rankscale.corpora") == 0 and stage("rankscale.sets.toml_sets") == 1


def test_no_stage_imports_a_later_one():
    backwards = sorted(f"{module} -> {target}" for module, targets in graph().items() for target in targets
                       if stage(module) is not None and stage(target) is not None and stage(target) > stage(module))
    assert not backwards, f"imports against the pipeline's order ({' < '.join(STAGES)}): {backwards}"


def docstring_problem(source: str | ast.Module) -> str | None:
    """Why a module's docstring does not say what the module is (its source, or the source parsed), or None if
    it does."""
    doc = ast.get_docstring(source if isinstance(source, ast.Module) else ast.parse(source))
    if not doc or len(doc.split()) < 8 or "TODO" in doc:
        return "no docstring that says what the module is"
    if FORWARDING.search(doc):
        return f"its docstring says where something moved ({FORWARDING.search(doc).group(0)!r})"
    return None


def test_the_docstring_check_catches_forwarding_modules():
    assert docstring_problem('"""Metrics: pure numpy functions of per-target records, one per metric of the papers."""') is None
    assert docstring_problem('"""The parts moved to rankscale.sets.schema; they are re-exported here."""')
    assert docstring_problem('"""Names imported here so that old imports keep working with the new layout."""')
    assert docstring_problem('"""TODO docstring."""')
    assert docstring_problem("x = 1\n")


def test_every_module_says_what_it_is():
    found = {module_name(p): why for p, tree in sources().items()
             if p.name != "__main__.py" and (why := docstring_problem(tree))}
    assert not found, f"modules whose docstring does not say what they are: {found}"


def test_no_chapter_module_imports_another():
    """A chapter's thresholds move its own verdicts only: what two chapters share lives in ``paper_a`` or ``paper_b``."""
    chapter = re.compile(r"rankscale\.claims\.[ab]\d$")
    crossing = sorted(f"{module} -> {target}" for module, targets in graph().items() if chapter.match(module)
                      for target in targets if chapter.match(target) and target != module)
    assert not crossing, f"chapter modules importing each other: {crossing}"
