"""An exercise of a chapter and the check of a student's answer to it: what number the exercise
asks for, how this set's right value is computed from the chapter's runs, the tolerance within which
an answer counts as right, and the verdict on one answer (``Checked``), which says why it is not
right where it is not.

The right value is never typed: ``Exercise.answer`` computes it from the chapter the student has
opened, so the same exercise checks an answer on the smoke set, the tiny set or a user's own set.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis import components, fit
from rankscale.claims.context import Chapter

CHECK_KEY = "rankscale/exercise-check"  # display metadata of a check: what the build's tests read back
CLOSE = 10  # an answer within CLOSE tolerances of the right value is called close (the usual slip: a convention)
# How far off a wrong answer is, relative to the right value: (upper bound, what it most often means). The
# order of magnitude helps a student find the slip without giving the value away.
DISTANCES = ((1e-3, "by less than 0.1% of the value: rounding, float32 arithmetic or a convention such as ties"),
             (0.1, "by 0.1% to 10% of the value"),
             (float("inf"), "by more than 10% of the value: another quantity, model, sign or logarithm's base"))


@dataclass(frozen=True)
class Exercise:
    """One exercise of a chapter.

    Parameters
    ----------
    id : str
        ``"a2.1"``: chapter A2's first exercise (its label on the page is ``ex-a2-1``).
    title : str
        The exercise's title on the page.
    asks : str
        The number the student gives, in one line ("RBP_1 of the largest model of the first family on the
        first corpus"); for an exercise answered in words, what the words explain.
    answer : callable or None
        ``answer(chapter) -> float``: this set's right value, computed by the package from the chapter's runs;
        None for an exercise answered in words, which has no checker.
    tolerance : float
        The largest absolute difference from the right value that still counts as right (> 0), in the
        answer's units; a solution states it.
    hint : str
        What a wrong answer most often means, said to a student whose answer is not right.
    """

    id: str
    title: str
    asks: str
    answer: Callable[[Chapter], float] | None
    tolerance: float = 0.0
    hint: str = ""

    def __post_init__(self):
        chapter, _, number = self.id.partition(".")
        if not (len(chapter) == 2 and chapter[0] in "ab" and chapter[1].isdigit() and number.isdigit()):
            raise ValueError(f"an exercise's id is its chapter and number, like 'a2.1'; got {self.id!r}")
        if self.answer is not None and not (self.tolerance > 0 and self.hint):
            raise ValueError(f"exercise {self.id} is checked: it needs a tolerance > 0 and a hint")

    @property
    def label(self) -> str:
        """The exercise's label on its page (``ex-a2-1``), which its solution names."""
        return "ex-" + self.id.replace(".", "-")

    @property
    def chapter(self) -> str:
        """The chapter's label, ``"a2"``."""
        return self.id.split(".")[0]


@dataclass(frozen=True)
class Checked:
    """The verdict on one answer to an exercise.

    Parameters
    ----------
    exercise : Exercise
    value : float or None
        The student's answer; None where there is none yet.
    expected : float
        This set's right value, which no message shows (a checker, not an exam: it is an attribute away).
    correct : bool or None
        Whether ``value`` is within the tolerance of ``expected``; None where there is no answer yet.
    reason : str
        Why, in one sentence: the tolerance where right, what is off and the exercise's hint where not.
    """

    exercise: Exercise
    value: float | None
    expected: float = field(repr=False)
    correct: bool | None
    reason: str

    def __bool__(self) -> bool:
        return bool(self.correct)

    def __str__(self) -> str:
        verdict = {True: "right", False: "not right", None: "no answer yet"}[self.correct]
        return f"Exercise {self.exercise.id}: {verdict}. {self.reason}"

    def _repr_mimebundle_(self, include=None, exclude=None):
        """A notebook shows the verdict as a line of Markdown; its metadata carry it as numbers
        (``CHECK_KEY``) for the book's tests, the right value only where the answer is right."""
        mark = {True: "✓", False: "✗", None: "…"}[self.correct]
        data = {"text/plain": str(self), "text/markdown": f"{mark} **{str(self).split('. ', 1)[0]}.** {self.reason}"}
        meta = {"id": self.exercise.id, "value": self.value, "tolerance": self.exercise.tolerance,
                "correct": self.correct, **({"expected": self.expected} if self.correct else {})}
        return data, {"text/markdown": {CHECK_KEY: meta}}


def _number(value) -> float | None:
    """A student's answer as a float: a Python or numpy number, or a one-element array; None for None."""
    if value is None:
        return None
    if hasattr(value, "item") and getattr(value, "size", 1) == 1:
        value = value.item()  # numpy scalar or one-element array
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise RankscaleError(f"an answer is one number; got {type(value).__name__} {value!r:.60}")
    return float(value)


def judge(exercise: Exercise, value, expected: float) -> Checked:
    """Whether ``value`` answers ``exercise``, whose right value on this set is ``expected``.

    Right means within the exercise's tolerance. A wrong answer is told whether it is too high or too
    low, and how far off: close (within ``CLOSE`` tolerances), else the order of its distance relative to
    the right value (``DISTANCES``), with what such a distance most often means; never the value itself.

    Examples
    --------
    >>> ex = Exercise("a1.1", "RBP_1 by hand", "RBP_1 of one model", lambda chapter: 0.25, 1e-6, "count rank <= 1")
    >>> judge(ex, 0.25, 0.25).correct, judge(ex, 0.3, 0.25).correct, judge(ex, None, 0.25).correct
    (True, False, None)
    >>> print(judge(ex, 0.2500001, 0.25))
    Exercise a1.1: right. Within 1e-06 of this set's value.
    >>> print(judge(ex, 0.3, 0.25))  # doctest: +NORMALIZE_WHITESPACE
    Exercise a1.1: not right. Too high, by more than 10% of the value: another quantity, model, sign or
    logarithm's base; the checker accepts +-1e-06. Hint: count rank <= 1.
    >>> judge(ex, 0.2500051, 0.25).reason.split(";")[0], judge(ex, 0.2499, 0.25).reason.split(":")[0]
    ('Too high, but close: within 10 times the tolerance', 'Too low, by less than 0.1% of the value')
    """
    if exercise.answer is None:
        raise RankscaleError(f"exercise {exercise.id} is answered in words; it has no checker")
    number = _number(value)
    if number is None:
        return Checked(exercise, None, expected, None,
                       "Set `answer` to your value and run the cell again; the checker then says whether it is right.")
    if not math.isfinite(number):
        return Checked(exercise, number, expected, False,
                       f"Your answer is {number}, not a finite number. Hint: {exercise.hint}.")
    off = number - expected
    if abs(off) <= exercise.tolerance * (1 + 1e-9):  # a value at the stated tolerance, in decimal, is right
        return Checked(exercise, number, expected, True, f"Within {exercise.tolerance:g} of this set's value.")
    if abs(off) <= CLOSE * exercise.tolerance:
        size = f"but close: within {CLOSE} times the tolerance"
    else:
        relative = abs(off) / max(abs(expected), exercise.tolerance)
        size = next(meaning for bound, meaning in DISTANCES if relative < bound)
    return Checked(exercise, number, expected, False, f"Too {'high' if off > 0 else 'low'}, {size}; the checker "
                   f"accepts +-{exercise.tolerance:g}. Hint: {exercise.hint}.")


def family_models(chapter: Chapter, family: str | None = None, corpus: str | None = None) -> list:
    """The final models of one family on one corpus, smallest first: the runs most exercises read.

    Parameters
    ----------
    chapter : Chapter
    family : str, optional
        None: the chapter's first family (``chapter.families[0]``).
    corpus : str, optional
        None: the chapter's first corpus (``chapter.corpora[0]``).

    Returns
    -------
    list of rankscale.records.runs.Run
    """
    family = chapter.families[0] if family is None else family
    corpus = chapter.corpora[0] if corpus is None else corpus
    if corpus not in chapter.family_runs:
        raise RankscaleError(f"this chapter has no corpus {corpus!r}; its corpora are {', '.join(chapter.corpora)}")
    runs = sorted((run for run in chapter.family_runs[corpus] if run.family == family), key=lambda r: r.non_embedding)
    if not runs:
        raise RankscaleError(f"this chapter has no family {family!r}; its families are {', '.join(chapter.families)}")
    return runs


def largest_run(chapter: Chapter, family: str | None = None, corpus: str | None = None):
    """The largest model of a family on a corpus (by default the chapter's first family and corpus)."""
    return family_models(chapter, family, corpus)[-1]


def family_terms(chapter: Chapter, min_sizes: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Sizes and paper B's terms of the first family's final models on the first corpus, smallest first.

    Returns
    -------
    sizes : ndarray of float, shape (m,)
        Non-embedding parameters.
    terms : ndarray of float, shape (m, 4)
        CE, EE, SA and Conf (``rankscale.analysis.components.QUANTITIES``) of each model.

    Raises
    ------
    RankscaleError
        Where the family has fewer than ``min_sizes`` distinct sizes.
    """
    runs = family_models(chapter)
    sizes = np.array([float(run.non_embedding) for run in runs])
    if len(np.unique(sizes)) < min_sizes:
        raise RankscaleError(f"family {runs[0].family} has {len(np.unique(sizes))} sizes on the first corpus; "
                             f"this exercise needs {min_sizes}")
    return sizes, np.array([components.terms_vector(run.records.arrays()) for run in runs]).reshape(len(runs), 4)


def magnitude_law(sizes, values, quantity: str) -> fit.PowerLawFit:
    """The power law of ``|values|`` in ``sizes`` (``fit.fit_if_positive``), or a RankscaleError saying why none."""
    fitted = fit.fit_if_positive(sizes, np.abs(values))
    if fitted is None:
        raise RankscaleError(f"{quantity} is zero or not finite for a model of the first family: no log-log fit")
    return fitted
