"""Teaching with the book: every chapter's exercises (one module per chapter, ``a1`` ... ``b5``, each
with its ``EXERCISES``) and the checker a student calls on an answer::

    from rankscale import teaching
    teaching.check("a1.1", answer, chapter)   # right within the tolerance, or why not

``chapter`` is the chapter the student opened (``rankscale.book.chapter.open_chapter``): the right value is
computed from its runs, so an exercise checks answers on whichever set it runs. Each chapter page states its
exercises and their solutions (executed, folded); ``rankscale.teaching.notebook`` makes the student's
notebook of a chapter, with the exercises and no solution.
"""

from __future__ import annotations

from rankscale import RankscaleError
from rankscale.claims.context import Chapter
from rankscale.teaching import a1, a2, a3, a4, a5, b1, b2, b3, b4, b5
from rankscale.teaching.exercise import CHECK_KEY, Checked, Exercise, family_models, judge, largest_run

__all__ = ["CHECK_KEY", "EXERCISES", "Checked", "Exercise", "check", "exercises_of", "family_models", "judge",
           "largest_run"]

EXERCISES: dict[str, Exercise] = {exercise.id: exercise for module in (a1, a2, a3, a4, a5, b1, b2, b3, b4, b5)
                                  for exercise in module.EXERCISES}


def exercises_of(chapter: str) -> list[Exercise]:
    """A chapter's exercises in order, by the chapter's label (``"a1"``) or its page's name (``"a1_metric"``)."""
    prefix = chapter.split("_")[0].lower()
    return [exercise for exercise in EXERCISES.values() if exercise.chapter == prefix]


def check(exercise_id: str, value, chapter: Chapter) -> Checked:
    """Whether ``value`` answers exercise ``exercise_id`` on the set ``chapter`` was opened on.

    Parameters
    ----------
    exercise_id : str
        ``"a2.1"``: chapter A2's first exercise.
    value : float or None
        The student's answer (a number, a numpy scalar or a one-element array); None where there is none yet.
    chapter : rankscale.claims.context.Chapter
        The chapter the exercise is about, as the student opened it (its set-up cell).

    Returns
    -------
    Checked
        Right or not, and why; a notebook shows it as one line.

    Raises
    ------
    RankscaleError
        For an unknown exercise, or one answered in words.
    """
    if exercise_id not in EXERCISES:
        raise RankscaleError(f"no exercise {exercise_id!r}; the exercises are {', '.join(EXERCISES)}")
    exercise = EXERCISES[exercise_id]
    if exercise.answer is None:
        raise RankscaleError(f"exercise {exercise_id} is answered in words; it has no checker")
    return judge(exercise, value, float(exercise.answer(chapter)))
