"""What a scored claim is: ``Claim`` and the kinds of claims (see ``rankscale.claims``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rankscale import RankscaleError

KINDS = ("empirical", "analytic", "beyond the paper")
MIN_SIZES = 3  # a size claim needs a family of at least three sizes: a line through two points fits exactly


@dataclass(frozen=True)
class Claim:
    """One scored claim, with the rule that decides it, fixed before any data are seen.

    Parameters
    ----------
    key : str
        Chapter and number, e.g. ``"A2.1"``.
    text : str
        The paper's claim in this book's words, with section and figure.
    kind : str
        One of ``KINDS``.
    rule : str
        What is measured, the threshold and why.
    paper : str
        The paper's own number, where it gives one.

    Raises
    ------
    RankscaleError
        If ``kind`` is not one of ``KINDS`` or ``rule`` is empty.

    Examples
    --------
    >>> Claim("X1.1", "x grows with size", "empirical", "slope of x on log N above 0").kind
    'empirical'
    >>> Claim("X1.2", "x grows with size", "anecdotal", "slope above 0")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: claim X1.2: kind 'anecdotal' is not one of ('empirical', 'analytic', 'beyond the paper')
    """

    key: str
    text: str
    kind: str
    rule: str
    paper: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RankscaleError(f"claim {self.key}: kind {self.kind!r} is not one of {KINDS}")
        if not self.rule:
            raise RankscaleError(f"claim {self.key} states no rule")


def index_claims(*claims: Claim) -> dict[str, Claim]:
    """Claims by key, in order (each chapter's section of ``paper_a``/``paper_b`` is one such index).

    Parameters
    ----------
    *claims : Claim
        The claims, in the order the chapter scores them.

    Returns
    -------
    dict of str to Claim

    Examples
    --------
    >>> list(index_claims(Claim("X1.1", "a", "empirical", "r"), Claim("X1.2", "b", "analytic", "r")))
    ['X1.1', 'X1.2']
    """
    return {c.key: c for c in claims}


VERDICTS = ("reproduced", "partly", "not reproduced", "not testable on this set")


@dataclass(frozen=True)
class Verdict:
    """One claim of a paper section, the paper's number where it gives one, ours, and the verdict.

    Usually made by ``rankscale.claims.judge``, which fills ``rule``, ``kind`` and ``key`` from
    the claim's definition in ``rankscale.claims``.

    Parameters
    ----------
    claim, paper, ours : str
        The claim in this book's words, the paper's number (where it gives one), ours.
    verdict : str
        One of ``VERDICTS``, else RankscaleError.
    rule, kind, key : str
        What is measured, the threshold and why; one of ``rankscale.claims.KINDS``; chapter
        and number, e.g. ``"A2.1"``.

    Examples
    --------
    >>> Verdict("RBP_1 follows a power law", "R^2 0.99", "R^2 0.98", "reproduced").kind
    'empirical'
    >>> Verdict("RBP_1 follows a power law", "", "", "confirmed")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: verdict 'confirmed' is not one of ('reproduced', 'partly', ...)
    """

    claim: str
    paper: str
    ours: str
    verdict: str
    rule: str = ""
    kind: str = "empirical"
    key: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise RankscaleError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


NOT_TESTABLE = "not testable on this set"


def grade(passed) -> str:
    """The verdict of a claim tested in several places (corpora, families).

    Parameters
    ----------
    passed : iterable of bool
        Whether the claim holds, per place; empty raises RankscaleError (it is ``NOT_TESTABLE``).

    Returns
    -------
    str
        "reproduced" if it holds in all of them, "partly" if in some, "not reproduced" if in none.

    Examples
    --------
    >>> grade([True, True]), grade([True, False]), grade([False])
    ('reproduced', 'partly', 'not reproduced')
    """
    passed = list(passed)
    if not passed:
        raise RankscaleError("a claim graded on no evidence; mark it not testable on this set instead")
    return "reproduced" if all(passed) else "partly" if any(passed) else "not reproduced"


def verdict_of(claim: Claim, outcomes: Mapping[str, bool | None], ours: str, paper: str | None = None,
               why_not: str = "") -> Verdict:
    """The verdict of ``claim`` from one outcome per unit of evidence: what ``rankscale.claims.judge``
    does once it has found the claim by its key (the chapters' rule modules, which ``claims``
    imports, call this one, so that they need not import ``claims``).

    Parameters
    ----------
    claim : Claim
        The claim judged.
    outcomes : mapping of str to bool or None
        Unit name -> True (the claim holds there), False (it does not) or None (the unit
        cannot test it).
    ours : str
        What was measured, shown beside the verdict; the untested units are appended to it.
    paper : str, optional
        The paper's number where it is computed from its tables (default: ``claim.paper``).
    why_not : str
        The reason shown when no unit can test the claim.

    Returns
    -------
    Verdict
        ``grade`` of the tested units, or ``NOT_TESTABLE`` with ``why_not`` when there are none.

    Examples
    --------
    >>> claim = Claim("X1.1", "x grows", "empirical", "x rises between the two ends")
    >>> v = verdict_of(claim, {"pydocs": True, "stdlib": None}, "+1")
    >>> v.verdict, v.ours
    ('reproduced', '+1 (not tested on: stdlib)')
    >>> verdict_of(claim, {}, "", why_not="one size").ours
    'one size'
    """
    tested = [bool(v) for v in outcomes.values() if v is not None]
    if tested:
        verdict = grade(tested)
        untested = [unit for unit, v in outcomes.items() if v is None]
        if untested:
            ours = f"{ours} (not tested on: {', '.join(untested)})"
    else:
        verdict = NOT_TESTABLE
        ours = "; ".join(part for part in (why_not or "no unit of this set can test it", ours) if part)
    return Verdict(claim.text, claim.paper if paper is None else paper, ours, verdict, rule=claim.rule,
                   kind=claim.kind, key=claim.key)


def fittable(runs: list, min_sizes: int = 3) -> tuple[dict[str, list], list[str]]:
    """The families of ``runs`` that a size claim can be tested on, and why not the others.

    Parameters
    ----------
    runs : list of rankscale.records.runs.Run
        Family runs.
    min_sizes : int
        Distinct non-embedding sizes a family needs.

    Returns
    -------
    usable : dict of str to list of rankscale.records.runs.Run
        The families with at least ``min_sizes`` distinct model sizes, in order.
    reasons : list of str
        One reason for each other family ("Llama ladder: 2 sizes, fewer than 3").

    Examples
    --------
    >>> from rankscale.records.runs import Run
    >>> runs = [Run(f, "", None, n, n, None) for f, n in [("NeoX", 3e3), ("NeoX", 6e3), ("NeoX", 3e4), ("Llama", 3e3)]]
    >>> usable, reasons = fittable(runs)
    >>> list(usable), reasons
    (['NeoX'], ['Llama: 1 size, fewer than 3'])
    """
    from rankscale.records.runs import by_family

    usable, reasons = {}, []
    for family, members in by_family(runs).items():
        n = len({run.non_embedding for run in members})
        if n >= min_sizes:
            usable[family] = members
        else:
            reasons.append(f"{family}: {n} size{'s' * (n != 1)}, fewer than {min_sizes}")
    return usable, reasons


def why_not_pooled(runs: list, min_sizes: int = 3) -> str | None:
    """Why a claim about every family pooled into one size fit (paper B's "All") cannot be tested:
    it needs two families or more, one of ``min_sizes`` distinct sizes or more, so that the pooled
    fit is more than the families' differences.

    Parameters
    ----------
    runs : list of rankscale.records.runs.Run
        Family runs.
    min_sizes : int
        Distinct sizes the largest family needs.

    Returns
    -------
    str or None
        None when the pooled claim can be tested; otherwise the reason, for the "ours" column
        of a not-testable verdict.

    Examples
    --------
    >>> from rankscale.records.runs import Run
    >>> runs = [Run(f, "", None, n, n, None) for f, n in [("NeoX", 3e3), ("NeoX", 6e3), ("NeoX", 3e4), ("Llama", 3e3)]]
    >>> why_not_pooled(runs) is None
    True
    >>> why_not_pooled(runs[:3])
    'one family (NeoX): pooling families needs at least two'
    """
    from rankscale.records.runs import by_family

    families = by_family(runs)
    if len(families) < 2:
        names = ", ".join(families) or "none"
        return f"one family ({names}): pooling families needs at least two"
    usable, reasons = fittable(runs, min_sizes)
    if not usable:
        return f"no family has {min_sizes} or more sizes ({'; '.join(reasons)})"
    return None
