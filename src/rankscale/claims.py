"""The papers' claims that the book scores, each with its rule fixed here, before any data are seen.

A claim has a *kind*:

- ``empirical``: something a paper says about data (models, corpora); only these are counted in the
  scorecard's totals and headline;
- ``analytic``: an identity or a derivation that holds by construction (CE = EE + SA - Conf, an
  approximation's accuracy); shown, checked, never counted as a replication;
- ``beyond the paper``: a question of this companion's own.

Its *rule* says what is measured, the threshold, and why that threshold. A chapter measures, then
calls ``judge`` with one outcome per unit of evidence (a corpus and family, a model, ...): the
claim is reproduced if it holds for every unit, partly if for some, not reproduced if for none;
units that cannot test it (None) are left out, and a claim with no testable unit is "not testable
on this set", with the reason. Thresholds are constants of this module, imported by the chapters,
not parameters a chapter could change after seeing its data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rankscale import RankscaleError
from rankscale.report import NOT_TESTABLE, Verdict, grade

KINDS = ("empirical", "analytic", "beyond the paper")
MIN_SIZES = 3  # a size claim needs a family of at least three sizes: a line through two points fits exactly


@dataclass(frozen=True)
class Claim:
    """One scored claim: ``key`` (chapter and number, e.g. "A2.1"), ``text`` (the paper's claim in
    this book's words, with section and figure), ``kind`` (``KINDS``), ``rule`` (what is measured,
    the threshold and why) and ``paper`` (the paper's own number, where it gives one)."""

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


def _index(*claims: Claim) -> dict[str, Claim]:
    return {c.key: c for c in claims}


# ---------------------------------------------------------------------------------------------
# A1

CLAIMS_A1 = _index()


# ---------------------------------------------------------------------------------------------
# A2

CLAIMS_A2 = _index()


# ---------------------------------------------------------------------------------------------
# A3

CLAIMS_A3 = _index()


# ---------------------------------------------------------------------------------------------
# A4

CLAIMS_A4 = _index()


# ---------------------------------------------------------------------------------------------
# A5

CLAIMS_A5 = _index()


# ---------------------------------------------------------------------------------------------
# B1

CLAIMS_B1 = _index()


# ---------------------------------------------------------------------------------------------
# B2

CLAIMS_B2 = _index()


# ---------------------------------------------------------------------------------------------
# B3

CLAIMS_B3 = _index()


# ---------------------------------------------------------------------------------------------
# B4

CLAIMS_B4 = _index()


# ---------------------------------------------------------------------------------------------
# B5

CLAIMS_B5 = _index()


# ---------------------------------------------------------------------------------------------

CLAIMS: dict[str, Claim] = {**CLAIMS_A1, **CLAIMS_A2, **CLAIMS_A3, **CLAIMS_A4, **CLAIMS_A5,
                             **CLAIMS_B1, **CLAIMS_B2, **CLAIMS_B3, **CLAIMS_B4, **CLAIMS_B5}


def judge(key: str, outcomes: Mapping[str, bool | None], ours: str, paper: str | None = None,
          why_not: str = "") -> Verdict:
    """The verdict of claim ``key`` from one outcome per unit of evidence.

    outcomes : unit name -> True (the claim holds there), False (it does not) or None (the unit
        cannot test it); ours : what was measured, shown beside the verdict; paper : the paper's
        number where it is computed from its tables (default: the claim's own); why_not : the
        reason shown when no unit can test the claim.

    >>> CLAIMS["_doc"] = Claim("_doc", "x grows", "empirical", "x rises between the two ends")
    >>> judge("_doc", {"pydocs": True, "stdlib": False}, "+1, -1").verdict
    'partly'
    >>> judge("_doc", {"pydocs": None}, "", why_not="one size").verdict
    'not testable on this set'
    >>> del CLAIMS["_doc"]
    """
    if key not in CLAIMS:
        raise RankscaleError(f"no claim {key!r} in rankscale.claims; define it there, with its rule, first")
    claim = CLAIMS[key]
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
