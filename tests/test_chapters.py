"""The chapters' modules together (``rankscale.claims.chapters``): each one a chapter of the book, with the
parts every module must have, and ``rankscale verdicts``, which prints what they decide."""

from __future__ import annotations

import ast
import json
import re

import pytest

from helpers import notebook_cells

from rankscale import RankscaleError
from rankscale.analysis import bootstrap
from rankscale.book import build
from rankscale.claims import chapters
from rankscale.claims.base import CLAIMS, UNDETERMINED, Claim, Unit, Verdict, judge
from rankscale.claims.context import Context
from rankscale.claims.spec import ChapterSpec
from rankscale.cli import main


@pytest.mark.parametrize("page", list(chapters.CHAPTERS))
def test_each_module_is_a_chapter_of_the_book_with_its_two_steps(page):
    spec = chapters.CHAPTERS[page].SPEC
    assert page in build.CHAPTERS and list(chapters.CHAPTERS) == [p for p in build.CHAPTERS if p in chapters.CHAPTERS]
    assert isinstance(spec, ChapterSpec) and spec.label == chapters.label(page) and callable(spec.measure)
    assert list(spec.claims) == [key for key in CLAIMS if key.startswith(spec.label + ".")], "every claim, in order"
    assert list(spec.rules) == list(spec.claims), "one rule per claim, keyed by its id, in the claims' order"


def test_a_chapter_refuses_a_missing_rule_a_stray_one_and_a_rule_that_grades_another_claim():
    claims = {"X9.1": Claim("X9.1", "a", "empirical", "r"), "X9.2": Claim("X9.2", "b", "empirical", "r")}
    rule = lambda key: lambda evidence, context: Verdict("c", "", "", "reproduced", key=key)  # noqa: E731
    with pytest.raises(RankscaleError, match="chapter X9: no rule for X9.2; rules for no claim: X9.3"):
        ChapterSpec("X9", claims, {"X9.1": rule("X9.1"), "X9.3": rule("X9.3")}, measure=None)
    with pytest.raises(RankscaleError, match="runs it cannot read \\['weights'\\]"):
        ChapterSpec("X9", claims, {"X9.1": rule("X9.1"), "X9.2": rule("X9.2")}, measure=None, reads=("weights",))
    crossed = ChapterSpec("X9", claims, {"X9.1": rule("X9.1"), "X9.2": rule("X9.1")}, measure=None)
    context = Context({}, 10)
    with pytest.raises(RankscaleError, match="grade other claims than their own: X9.2 -> X9.1"):
        crossed.decide(None, context)
    right = ChapterSpec("X9", claims, {"X9.2": rule("X9.2"), "X9.1": rule("X9.1")}, measure=None)
    assert [v.key for v in right.decide(None, context)] == ["X9.1", "X9.2"]  # in the claims' order, whatever the rules'


@pytest.mark.parametrize("page", list(chapters.CHAPTERS))
def test_each_page_explains_and_calls_its_module_once(page):
    """A chapter's notebook defines nothing, grades nothing itself, explains at least as much as it codes, calls its
    module's two steps once each, and every number its prose pastes is glued (else the book's build fails)."""
    source = (build.NOTEBOOKS / f"{page}.py").read_text()
    code = "\n".join("\n".join(lines) for kind, lines in notebook_cells(source) if kind == "code")
    defined = [n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Lambda))]
    assert not defined and "judge(" not in code and "percentile" not in code and "quantile(" not in code
    prose = sum(len(lines) for kind, lines in notebook_cells(source) if kind == "markdown")
    assert prose >= sum(len(lines) for kind, lines in notebook_cells(source) if kind == "code")
    module = chapters.label(page).lower()
    assert code.count(f"{module}.measure(") == 1 and code.count(f"{module}.SPEC.decide(") == 1
    # the page opens its chapter by the module's declaration, not by keywords typed again on the page
    assert f"spec={module}.SPEC" in code and f"chapter.context(*{module}.SPEC.tables)" in code
    assert not re.search(r"open_chapter\([^)]*(references|checkpoints|seeds|temperatures)=", code)
    pasted = set(re.findall(r"\{glue:(?:md|text)\}`([A-Za-z0-9_]+)", source))
    pasted |= set(re.findall(r"```\{glue:md\} ([A-Za-z0-9_]+)", source)) - {"findings"}  # glued by verdict_table
    names = [re.escape(name) for name in re.findall(r'glue\("([A-Za-z0-9_]+)"', source)]
    names += [re.sub(r"\\\{[^}]*\\\}", "[A-Za-z0-9_]+", re.escape(template))
              for template in re.findall(r'glue\(f"([^"]+)"', source)]
    assert not [name for name in pasted if not any(re.fullmatch(n, name) for n in names)]
    # glued Markdown is read as MyST, so that its math ($k$) is typeset; plain Markdown leaves it raw on the page
    assert not re.findall(r"\{glue:md\}`[A-Za-z0-9_]+`", source), "an inline {glue:md} role without :myst"


@pytest.mark.parametrize("page", sorted(path.stem for path in build.NOTEBOOKS.glob("*.py")))
def test_no_page_defines_a_function_or_class(page):
    code = "\n".join("\n".join(lines) for kind, lines in notebook_cells((build.NOTEBOOKS / f"{page}.py").read_text())
                     if kind == "code")
    assert not [n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]


@pytest.mark.parametrize("page", sorted(path.stem for path in build.NOTEBOOKS.glob("*.py")))
def test_a_figure_drawn_only_where_the_set_allows_says_what_it_lacks_otherwise(page):
    """The build refuses a figure that was not drawn and left nothing in its place; a figure cell that draws under an
    ``if`` must display, in its ``else``, what the set lacks (caught here before any book is built)."""
    source = (build.NOTEBOOKS / f"{page}.py").read_text()
    silent = []
    for block in re.split(r"^# %%", source, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        lines = [line for line in body.splitlines() if line.strip()]
        if '"figure"' in head and lines and lines[0].startswith("if ") and not any(
                line.startswith("else:") for line in lines):
            silent.append(re.search(r'"name": "([^"]+)"', head).group(1))
    assert not silent, f"figures drawn under an if with no else: {silent}"


def test_every_rule_that_reads_a_bootstrap_interval_says_it_in_the_one_sentence():
    """One level, one z, one sentence: a rule that reads a bootstrap interval states ``bootstrap.INTERVAL``, whose
    level and half-width are those ``bootstrap.interval`` computes."""
    _, hi = bootstrap.interval(0.0, [-1.0, 1.0])  # replicates with a standard deviation of 1
    assert f"{bootstrap.LEVEL:.0%} bootstrap interval (the measured value ± {hi:.2f} standard deviations" in bootstrap.INTERVAL
    reading = [claim for claim in CLAIMS.values() if re.search(r"bootstrap|interval", claim.rule, re.IGNORECASE)]
    unsaid = [claim.key for claim in reading if "bootstrap" in claim.rule.lower() and bootstrap.INTERVAL not in claim.rule]
    assert len(reading) > 30 and not unsaid, f"rules that read an interval without the one sentence: {unsaid}"
    assert not [claim.key for claim in CLAIMS.values() if "percentile" in claim.rule]


def test_verdicts_prints_each_chapters_verdicts_as_rows_that_read_back(monkeypatch, capsys):
    """``rankscale verdicts`` prints what the chapters' modules decide: a line per claim, or JSON rows that are
    the verdicts again, units and all; an unknown chapter is one line naming the chapters there are."""
    decided = {"a3_k_dependence": [Verdict("x grows", "", "+1", "partly", key="A3.1", held=1, tested=2,
                                           outcomes=((Unit("pydocs", "NeoX"), "holds"),
                                                     (Unit("pydocs", pooled=True), "fails")))]}
    asked = []

    def chapter_verdicts(model_set, pages, device="auto"):
        asked.append((model_set.name, list(pages), device))
        return iter(decided.items())

    monkeypatch.setattr(chapters, "chapter_verdicts", chapter_verdicts)
    assert main(["verdicts", "--profile", "tiny", "--chapter", "a3_k_dependence", "--json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [Verdict.from_row(row) for row in rows] == decided["a3_k_dependence"] and rows[0]["chapter"] == "A3"
    assert main(["verdicts", "--profile", "smoke", "--quiet"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.split()[:4] == ["A3.1", "partly", "1", "of"] and line.endswith("x grows")
    assert asked == [("tiny", ["a3_k_dependence"], "auto"), ("smoke", list(chapters.CHAPTERS), "auto")]
    monkeypatch.undo()
    assert main(["verdicts", "--chapter", "a9_nothing"]) == 1
    assert re.match(r"error: no chapter 'a9_nothing'; the chapters are .*a3_k_dependence", capsys.readouterr().err)


def test_a_chapter_measures_with_one_blas_thread(monkeypatch):
    """OpenBLAS splits a dot product's sum between its threads (two moved chapter A5's fits in the 14th
    digit): a chapter's numbers must not depend on how many cores the machine has, so loading one
    leaves every BLAS of the process on one thread."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from rankscale import sets
    from rankscale.claims import context

    monkeypatch.setattr(context.runs, "family_runs", lambda *args: [])
    before = {pool["prefix"]: pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}
    assert before, "numpy and scipy ship OpenBLAS: threadpoolctl should find it"
    threadpool_limits(2, user_api="blas")  # as on a machine of two cores, whatever this one has
    try:
        context.load_chapter(sets.get("smoke"))
        assert {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"} == {1}
    finally:
        threadpool_limits(before)


@pytest.mark.parametrize("decided, verdict", [((True,), "undetermined"), ((False,), "not reproduced"),
                                              ((True, False), "partly"), ((False, False), "not reproduced")])
def test_a_minority_of_decided_units_confirms_nothing_but_its_counterexamples_stand(monkeypatch, decided, verdict):
    monkeypatch.setitem(CLAIMS, "_t", Claim("_t", "x holds in nearly every setting", "empirical", "x > 0"))
    outcomes = {Unit(f"c{i}"): outcome for i, outcome in enumerate(decided + (UNDETERMINED,) * 5)}
    v = judge("_t", outcomes, "")
    assert (v.verdict, v.tested, v.measured) == (verdict, len(decided), len(outcomes))
    # decided on a majority, the same units grade as they always did
    v = judge("_t", {unit: outcome for unit, outcome in outcomes.items() if not isinstance(outcome, str)}, "")
    assert v.verdict == {(True,): "reproduced"}.get(decided, verdict)


def test_a_chapter_opened_by_its_declaration_takes_no_read_keywords_beside_it():
    from rankscale.book.chapter import open_chapter
    from rankscale.claims import b1

    with pytest.raises(RankscaleError, match=r"chapter B1 names the runs it reads .*; open it with spec= alone"):
        open_chapter("smoke", spec=b1.SPEC, seeds=True)
