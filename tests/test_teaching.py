"""The exercises of the book (rankscale.teaching): the checker's verdicts on right, wrong, missing and malformed
answers; every chapter's exercises as its page states them, each with an executed solution that checks its own
value; the student's notebook of every chapter, which holds the exercises and nothing of a solution; and the
course page, whose equations name functions that exist and whose sessions cover every exercise. That each solution
executes and is accepted on the smoke set, and a wrong value refused, is tested on the smoke book (test_book.py)."""

from __future__ import annotations

import importlib
import re
from types import SimpleNamespace

import jupytext
import nbformat
import numpy as np
import pytest

from rankscale import RankscaleError, teaching
from rankscale.book import build
from rankscale.claims.chapters import CHAPTERS
from rankscale.teaching.exercise import CHECK_KEY, Exercise, judge
from rankscale.teaching.notebook import (STUDENT_PROFILE, TEACHING_IMPORT, exercise_texts, page_title,
                                         starter_source, student_notebook)

EXERCISE = Exercise("a1.9", "A made-up exercise", "a number", lambda chapter: chapter.value, 0.01, "look again")
ROLE = re.compile(r"\{[a-z][a-z:-]*\}`")  # a MyST role, which a student's Jupyter shows as it is typed


def page_notebook(page: str):
    return jupytext.read(build.NOTEBOOKS / f"{page}.py")


def solutions(nb) -> dict[str, list]:
    """Each gated solution's cells, by the label of its exercise."""
    found: dict[str, list] = {}
    label = None
    for cell in nb.cells:
        start = re.search(r"```\{solution-start\}\s+(\S+)", cell.source) if cell.cell_type == "markdown" else None
        if start:
            label = start[1]
            found[label] = []
        if label is not None:
            found[label].append(cell)
            if cell.cell_type == "markdown" and "{solution-end}" in cell.source:
                label = None
    assert label is None, f"the solution of {label} is not closed by a solution-end"
    return found


@pytest.mark.parametrize(("value", "correct", "says"), [
    (0.5, True, "Within 0.01"), (0.51, True, "Within"), (np.float32(0.505), True, "Within"),
    (np.array([0.5]), True, "Within"), (0.52, False, "Too high, but close"), (0.2, False, "Too low, by more than"),
    (float("nan"), False, "not a finite number"), (None, None, "Set `answer`")])
def test_the_checker_says_right_wrong_or_missing_and_why(value, correct, says):
    checked = judge(EXERCISE, value, 0.5)
    assert checked.correct is correct and says in checked.reason
    assert bool(checked) is bool(correct)
    if correct is False:
        assert "look again" in checked.reason and "0.5" not in checked.reason  # the hint, never the right value


@pytest.mark.parametrize("value", ["0.5", True, [0.5, 0.6], np.array([0.5, 0.6])])
def test_an_answer_that_is_not_one_number_is_refused_in_one_line(value):
    with pytest.raises(RankscaleError, match="an answer is one number"):
        judge(EXERCISE, value, 0.5)


def test_a_check_carries_its_numbers_for_the_books_tests_and_shows_no_student_the_right_value():
    data, metadata = judge(EXERCISE, 0.6, 0.5)._repr_mimebundle_()
    assert data["text/markdown"].startswith("✗ **Exercise a1.9: not right.**")
    assert metadata["text/markdown"][CHECK_KEY] == {"id": "a1.9", "value": 0.6, "tolerance": 0.01, "correct": False}
    assert "0.5" not in repr(judge(EXERCISE, 0.6, 0.5)) + str(judge(EXERCISE, 0.6, 0.5))
    _, metadata = judge(EXERCISE, 0.505, 0.5)._repr_mimebundle_()
    assert metadata["text/markdown"][CHECK_KEY]["expected"] == 0.5  # a right answer: the build's tests compare it


@pytest.mark.parametrize(("value", "tolerance", "says"), [
    (0.5002, 1e-5, "by less than 0.1% of the value"), (0.52, 0.01, "but close"), (0.52, 1e-4, "by 0.1% to 10%"),
    (5.0, 0.01, "by more than 10% of the value")])
def test_a_wrong_answer_is_told_the_order_of_its_distance(value, tolerance, says):
    exercise = Exercise("a1.9", "t", "a number", lambda chapter: 0.5, tolerance, "look")
    assert says in judge(exercise, value, 0.5).reason and f"accepts +-{tolerance:g}" in judge(exercise, value, 0.5).reason


def test_check_computes_the_right_value_from_the_students_chapter(monkeypatch):
    monkeypatch.setitem(teaching.EXERCISES, "a1.9", EXERCISE)
    assert teaching.check("a1.9", 1.0, SimpleNamespace(value=1.0)).correct
    assert not teaching.check("a1.9", 1.0, SimpleNamespace(value=2.0)).correct
    with pytest.raises(RankscaleError, match="no exercise 'a9.9'; the exercises are a1.1, "):
        teaching.check("a9.9", 1.0, None)
    words = Exercise("a1.8", "Explain", "why", None)
    monkeypatch.setitem(teaching.EXERCISES, "a1.8", words)
    with pytest.raises(RankscaleError, match="a1.8 is answered in words; it has no checker"):
        teaching.check("a1.8", 1.0, None)


def test_an_exercise_is_named_by_its_chapter_and_checked_only_with_a_tolerance_and_a_hint():
    with pytest.raises(ValueError, match="like 'a2.1'"):
        Exercise("A2-1", "t", "a number", None)
    with pytest.raises(ValueError, match="needs a tolerance > 0 and a hint"):
        Exercise("a2.1", "t", "a number", lambda chapter: 1.0)
    assert Exercise("b5.2", "t", "why", None).label == "ex-b5-2"


def test_the_models_an_exercise_reads_are_named_and_a_wrong_name_is_one_line():
    run = lambda family, size: SimpleNamespace(family=family, non_embedding=size)  # noqa: E731
    chapter = SimpleNamespace(families=["F", "G"], corpora=["c"],
                              family_runs={"c": [run("F", 30), run("G", 5), run("F", 10)]})
    assert [r.non_embedding for r in teaching.family_models(chapter)] == [10, 30]
    assert teaching.largest_run(chapter, "G").non_embedding == 5
    with pytest.raises(RankscaleError, match="no family 'H'; its families are F, G"):
        teaching.family_models(chapter, "H")
    with pytest.raises(RankscaleError, match="no corpus 'd'"):
        teaching.largest_run(chapter, corpus="d")


@pytest.mark.parametrize("page", list(CHAPTERS))
def test_every_chapter_states_its_exercises_and_an_executed_solution_under_each(page):
    exercises = teaching.exercises_of(page)
    assert 2 <= len(exercises) <= 4, f"{page} has {len(exercises)} exercises; a chapter has 2 to 4"
    assert [e.id for e in exercises] == [f"{page[:2]}.{n}" for n in range(1, len(exercises) + 1)]
    assert any(e.answer is not None for e in exercises), "at least one exercise has a number the checker checks"
    nb = page_notebook(page)
    texts = exercise_texts(nb)
    assert list(texts) == [e.label for e in exercises]
    for exercise in exercises:
        title, body = texts[exercise.label]
        assert title == page_title(exercise), f"{exercise.id}: the page's title is its id, then its title"
        assert body and not ROLE.search(body) and "```" not in body, f"{exercise.id}: plain Markdown only"
    options = re.findall(r"\{exercise\}[^\n]*\n((?:# :[^\n]*\n)+)", (build.NOTEBOOKS / f"{page}.py").read_text())
    assert len(options) == len(exercises) and all(":nonumber:" in o for o in options), "its id is its one number"
    solved = solutions(nb)
    assert list(solved) == list(texts), "one solution under each exercise, in order"
    for exercise in exercises:
        code = "\n".join(cell.source for cell in solved[exercise.label] if cell.cell_type == "code")
        assert code, f"{exercise.id}: its solution executes code"
        if exercise.answer is not None:
            assert f'teaching.check("{exercise.id}", ' in code, f"{exercise.id}: its solution checks its own value"
    starts = [cell.source for cell in nb.cells if "{solution-start}" in cell.source]
    assert all(":class: dropdown" in source for source in starts), "solutions are folded"


@pytest.mark.parametrize("page", list(CHAPTERS))
def test_a_students_notebook_holds_the_set_up_and_the_exercises_and_no_solution(page):
    nb = page_notebook(page)
    student = student_notebook(nb, page, teaching.exercises_of(page))
    nbformat.validate(student)
    again = student_notebook(page_notebook(page), page, teaching.exercises_of(page))
    assert nbformat.writes(again) == nbformat.writes(student), "made twice, the same bytes (else the site rebuilds)"
    text = "\n".join(cell.source for cell in student.cells)
    assert "{solution" not in text and "{exercise}" not in text
    solution_lines = {line.strip() for cells in solutions(nb).values() for cell in cells if cell.cell_type == "code"
                      for line in cell.source.splitlines() if len(line.strip()) > 20}
    given = {TEACHING_IMPORT} | {line.strip() for exercise in teaching.exercises_of(page)
                                 for line in starter_source(exercise).splitlines()}
    code = "\n".join(cell.source for cell in student.cells if cell.cell_type == "code")
    assert not [line for line in solution_lines - given if line in code], "a line of a solution in the notebook"
    parameters = [cell for cell in student.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(parameters) == 1 and f'profile = "{STUDENT_PROFILE}"' in parameters[0].source
    for exercise in teaching.exercises_of(page):
        assert f"## Exercise {exercise.id} · " in text
        assert (f'teaching.check("{exercise.id}", answer, chapter)' in text) is (exercise.answer is not None)


def test_a_page_whose_exercises_differ_from_the_packages_is_named():
    nb = page_notebook("a1_metric")
    with pytest.raises(RankscaleError, match=r"page a1_metric states the exercises \['ex-a1-1'"):
        student_notebook(nb, "a1_metric", teaching.exercises_of("a1")[:1])
    nb.cells = [cell for cell in nb.cells if "open_chapter(" not in cell.source]
    with pytest.raises(RankscaleError, match="does not start as a chapter does"):
        student_notebook(nb, "a1_metric", teaching.exercises_of("a1"))


COURSE = build.PAGES / "teaching.md"


def test_the_course_plan_covers_every_exercise_in_four_to_six_sessions():
    text = COURSE.read_text()
    sessions = re.findall(r"^## Session \d", text, re.M)
    assert 4 <= len(sessions) <= 6
    named, declared = set(re.findall(r"\b([ab]\d\.\d)\b", text)), set(teaching.EXERCISES)
    assert declared <= named, f"exercises in no session: {sorted(declared - named)}"
    assert not named - declared, f"the plan names exercises that do not exist: {sorted(named - declared)}"


def test_every_function_the_course_page_names_exists():
    names = set(re.findall(r"`(rankscale(?:\.[a-z_0-9]+)+)`", COURSE.read_text()))
    assert len(names) >= 10
    missing = []
    for name in sorted(names):
        module, _, attribute = name.rpartition(".")
        try:
            importlib.import_module(name)
        except ImportError:
            try:
                getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError):
                missing.append(name)
    assert not missing, f"the course page names what does not exist: {missing}"
