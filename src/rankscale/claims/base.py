"""What a scored claim is and how it is graded: ``Claim``, the registry of every claim, ``Verdict``
and ``judge`` (see ``rankscale.claims``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import NamedTuple

import numpy as np

from rankscale import RankscaleError
from rankscale.analysis.bootstrap import side
from rankscale.analysis.fit import POOLED  # a pooled unit's name in words
from rankscale.sets.schema import ModelSet

KINDS = ("empirical", "definitional", "analytic", "beyond the paper")
# "definitional": a statement any trained model meets by what training is (it ranks targets better than
# chance); checked and shown, but, like "analytic", not counted among the papers' empirical claims
MIN_SIZES = 3  # a size claim needs a family of at least three sizes: a line through two points fits exactly
CURVE_MIN_SIZES = 4  # a curve of three parameters (a floor, a bend) fits three sizes exactly
MIN_SEEDS = 2  # training runs per size that show the scatter between runs (one run per size cannot)
# What a claim needs of a model set beyond families of two models, each with how a set provides it. A claim names
# its needs once (``Claim.needs``), so that what a reader must bring to test it is read from one place (the
# chapters' "Run it on your models", ``rankscale.book.pages.run_it_yourself``), whatever the set at hand has.
NEEDS = {
    "three sizes": f"a family of at least {MIN_SIZES} models of different sizes",
    "four sizes": f"a family of at least {CURVE_MIN_SIZES} models of different sizes, for a curve of three parameters",
    "two seeds": f"{MIN_SEEDS} models of the same size, trained with different seeds, at every size of a family",
    "two families": "a second family, to pool with or to compare",
    "the GPT-2 family": "the paper's GPT-2 models (openai-community/gpt2 ...), recognised by hub id",
    "checkpoints": "training checkpoints of a family's models",
    "a step-0 checkpoint": "the initialisation (step 0) among a model's checkpoints",
    "a reference model": "a model shown beside the families, outside every fit ([[references]])",
    "temperature runs": "the first family's largest model extracted again at other temperatures (temperature_tokens)",
    "many windows": "as many evaluation windows per model on a corpus as paper B's larger sample (its App. A.1)",
}


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
    finding : str
        Where the claim fails because the paper's own statement is wrong (an analytic row), the
        derivation that shows it, in a few sentences with the paper's equation numbers; the
        scorecard headlines these as findings about the paper. Empty otherwise.
    needs : tuple of str
        Keys of ``NEEDS``: what a model set must have for the claim to be tested at all, beyond
        families of two models; without it the verdict is "not testable on this set".

    Raises
    ------
    RankscaleError
        If ``kind`` is not one of ``KINDS``, ``rule`` is empty or a need is not one of ``NEEDS``.

    Examples
    --------
    >>> Claim("X1.1", "x grows with size", "empirical", "slope of x on log N above 0").kind
    'empirical'
    >>> Claim("X1.2", "x grows with size", "anecdotal", "slope above 0")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: claim X1.2: kind 'anecdotal' is not one of ('empirical', 'definitional', 'analytic', 'beyond the paper')
    """

    key: str
    text: str
    kind: str
    rule: str
    paper: str = ""
    finding: str = ""
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RankscaleError(f"claim {self.key}: kind {self.kind!r} is not one of {KINDS}")
        if not self.rule:
            raise RankscaleError(f"claim {self.key} states no rule")
        unknown = [need for need in self.needs if need not in NEEDS]
        if unknown:
            raise RankscaleError(f"claim {self.key}: needs {unknown} are not among {list(NEEDS)}")


# every claim by key, chapter by chapter in the book's order (A1 ... B5), each chapter's claims in the order it
# scores them; filled by index_claims as the claims' modules are read, in whatever order they are imported
CLAIMS: dict[str, Claim] = {}


def claims_needing(need: str) -> list[str]:
    """The keys of every claim defined so far that needs ``need`` of a model set, in order.

    >>> CLAIMS["_doc"] = Claim("_doc", "x grows", "empirical", "a fit", needs=("four sizes",))
    >>> claims_needing("four sizes")[-1], "_doc" in claims_needing("two seeds")
    ('_doc', False)
    >>> del CLAIMS["_doc"]
    >>> claims_needing("three models")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: no need 'three models'; a claim can need one of ['three sizes', ...]
    """
    if need not in NEEDS:
        raise RankscaleError(f"no need {need!r}; a claim can need one of {list(NEEDS)}")
    return [key for key, claim in CLAIMS.items() if need in claim.needs]


def index_claims(*claims: Claim) -> dict[str, Claim]:
    """Claims by key, in order, each also entered in ``CLAIMS`` at its chapter's place (each chapter's
    claims, in ``rankscale.claims.a3`` and each chapter's module, are one such index).

    Parameters
    ----------
    *claims : Claim
        The claims, in the order the chapter scores them.

    Returns
    -------
    dict of str to Claim

    Raises
    ------
    RankscaleError
        If a key is already taken by a different claim.

    Examples
    --------
    >>> section = index_claims(Claim("X1.1", "a", "empirical", "r"), Claim("X1.2", "b", "analytic", "r"))
    >>> list(section), CLAIMS["X1.2"].text
    (['X1.1', 'X1.2'], 'b')
    >>> _ = index_claims(Claim("A0.2", "c", "empirical", "r"), Claim("A0.1", "d", "empirical", "r"))
    >>> list(CLAIMS)[:2]  # the chapter before every other, its claims in the order given
    ['A0.2', 'A0.1']
    >>> del CLAIMS["A0.1"], CLAIMS["A0.2"]
    >>> index_claims(Claim("X1.1", "another", "empirical", "r"))
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: two claims share the key 'X1.1'
    >>> del CLAIMS["X1.1"], CLAIMS["X1.2"]
    """
    for claim in claims:
        if CLAIMS.get(claim.key, claim) != claim:
            raise RankscaleError(f"two claims share the key {claim.key!r}")
        CLAIMS[claim.key] = claim
    # a stable sort by chapter: a chapter's module may be imported after a later chapter's (A3 after A5)
    in_book_order = sorted(CLAIMS.items(), key=lambda item: item[0].split(".")[0])
    CLAIMS.clear()
    CLAIMS.update(in_book_order)
    return {c.key: c for c in claims}


VERDICTS = ("reproduced", "partly", "not reproduced", "undetermined", "not testable on this set")
UNDETERMINED = "undetermined"  # a unit's outcome where it was measured but the measurement cannot decide
# (a fit at its bound, a curvature of single-seed points): counted apart from "not testable", which
# means the set lacks what the claim needs
UNIT_OUTCOMES = ("holds", "fails", UNDETERMINED, "untested")  # a unit's outcome as a Verdict records it


def undetermined(outcome) -> bool:
    """Whether a rule's outcome for a unit is ``UNDETERMINED``, by value (a copy of the string counts too).

    >>> undetermined("".join(["undeter", "mined"])), undetermined(True), undetermined(None)
    (True, False, False)
    """
    return isinstance(outcome, str) and outcome == UNDETERMINED


# An interval end this close to a threshold, as a share of the interval's half-width, is within the
# bootstrap's own noise of it: an interval is the estimate plus or minus z standard deviations of its
# replicates, and the standard deviation of n replicates errs by about 1/sqrt(2(n - 1)) of itself, so
# two such errors at the sets' default of n_boot replicates. Another run (another seed of the
# bootstrap, another machine's arithmetic in training) may put the end on the other side.
FRAGILE_SHARE = 2 / math.sqrt(2 * (ModelSet.__dataclass_fields__["n_boot"].default - 1))


# How every interval rule reads its interval (``read``, ``read_band``), in the rules' own words
ONE_READING = ("wholly on the claim's side of its threshold it holds, wholly on the other side it fails, across the "
               "threshold (or where a measured quantity's interval could not be computed) it is undetermined")


class Reading(NamedTuple):
    """A unit's outcome as an interval rule reads it (``read``, ``read_band``), for ``judge``.

    Parameters
    ----------
    outcome : bool, UNDETERMINED or None
        True: the interval lies wholly on the claim's side; False: wholly on the other; UNDETERMINED:
        across (or touching) the threshold; None: no interval (the unit cannot test the claim).
    fragile : bool
        An end lies within ``FRAGILE_SHARE`` of the half-width of a threshold (``judge`` names the unit).
    """

    outcome: bool | str | None
    fragile: bool = False


def outcome_of(outcome: Reading | bool | str | None) -> bool | str | None:
    """A rule's outcome for a unit without its ``Reading``: True, False, UNDETERMINED or None.

    >>> outcome_of(Reading(UNDETERMINED, True)), outcome_of(True), outcome_of(None)
    ('undetermined', True, None)
    """
    return outcome.outcome if isinstance(outcome, Reading) else outcome


def near_edge(bounds: tuple[float, float], edges: Sequence[float]) -> bool:
    """Whether an end of ``bounds`` lies within ``FRAGILE_SHARE`` of its half-width of one of ``edges``.

    >>> near_edge((-0.330, 0.004), [0.0]), near_edge((-0.330, -0.1), [0.0])
    (True, False)
    """
    margin = FRAGILE_SHARE * (bounds[1] - bounds[0]) / 2
    return any(abs(end - edge) <= margin for end in bounds for edge in edges)


def read(bounds: tuple[float, float] | None, threshold: float = 0.0, sign: int = 1,
         missing: bool | str | None = None) -> Reading:
    """The one reading of an interval for a claim of a direction: that a quantity lies above
    ``threshold`` (``sign`` +1) or below it (-1).

    Wholly on the claim's side it holds, wholly on the other side it fails, across the threshold
    (or touching it) the data do not decide.

    Parameters
    ----------
    bounds : tuple of (float, float) or None
        The interval (``rankscale.analysis.bootstrap.interval``); None: the unit has none.
    threshold : float
    sign : {1, -1}
        The claim's side.
    missing : None or UNDETERMINED
        The outcome where there is no interval: None (the unit cannot test the claim), or
        ``UNDETERMINED`` where the unit was measured but some resample could not compute the quantity,
        so that nothing can be said of its noise.

    Returns
    -------
    Reading

    Examples
    --------
    >>> read((0.1, 0.3)), read((-0.3, -0.1)), read((-0.1, 0.3)), read((-0.3, -0.1), sign=-1)
    (Reading(outcome=True, fragile=False), Reading(outcome=False, fragile=False), Reading(outcome='undetermined', fragile=False), Reading(outcome=True, fragile=False))
    >>> read((-0.330, 0.004), sign=-1), read(None)
    (Reading(outcome='undetermined', fragile=True), Reading(outcome=None, fragile=False))
    """
    if bounds is None:
        return Reading(missing)
    where = side(bounds, threshold)
    return Reading(UNDETERMINED if where == 0 else where == sign, near_edge(bounds, [threshold]))


def read_band(bounds: tuple[float, float] | None, band: tuple[float, float],
              missing: bool | str | None = None) -> Reading:
    """The one reading of an interval for a claim that a quantity lies inside ``band`` (closeness,
    parity): wholly inside it holds (the edges belong to the band), wholly outside it fails, across
    an edge the data do not decide; ``missing`` where there is no interval (``read``).

    Examples
    --------
    >>> read_band((0.9, 1.1), (0.74, 1.32)).outcome, read_band((1.5, 2.0), (0.74, 1.32)).outcome
    (True, False)
    >>> read_band((0.7, 0.9), (0.74, 1.32))
    Reading(outcome='undetermined', fragile=False)
    >>> read_band((0.745, 1.0), (0.74, 1.32))
    Reading(outcome=True, fragile=True)
    """
    if bounds is None:
        return Reading(missing)
    lo, hi = bounds
    outcome = True if band[0] <= lo and hi <= band[1] else False if hi < band[0] or lo > band[1] else UNDETERMINED
    return Reading(outcome, near_edge(bounds, band))


def every(*readings: Reading) -> Reading:
    """Readings that must all hold, as one: None if one is missing, False if one fails, UNDETERMINED
    if one is undecided, else True; fragile if one is.

    >>> every(read((0.1, 0.3)), read((0.2, 0.4))).outcome, every(read((0.1, 0.3)), read((-0.3, 0.1))).outcome
    (True, 'undetermined')
    >>> every(read((-0.3, 0.1)), read((-0.3, -0.1))).outcome, every(read((0.1, 0.3)), read(None)).outcome
    (False, None)
    """
    outcomes = [r.outcome for r in readings]
    outcome = (None if None in outcomes else False if False in outcomes
               else UNDETERMINED if any(undetermined(o) for o in outcomes) else True)
    return Reading(outcome, any(r.fragile for r in readings))


@dataclass(frozen=True, repr=False)
class Unit:
    """One unit of evidence a claim is judged on, by what it is made of, so that a page places it by its
    fields (``rankscale.book.scorecard.claim_grid``) and never by reading its name back.

    Parameters
    ----------
    corpus : str
        The corpus it was measured on; "" where it is of no one corpus.
    family : str
        The family it is about; "" where it is about no one family.
    model : str
        The model of ``family`` it is about; "" for the family as a whole.
    versus : str
        A second family that ``family`` is compared with; "" for none.
    pooled : bool
        The fit over every model of every family at once (paper B's "All"), with ``family`` "": named "All"
        in words, and never taken for a family of that name.
    setting : str
        Where a claim is graded at several settings of one family's measurement (a k, a run length N), the
        setting ("k=10/N=4"); "" for none. A page places the unit by its corpus and family alone.

    A reference model (a set's ``references``) is a unit whose ``family`` is its name.

    Examples
    --------
    >>> Unit("pydocs", "NeoX ladder").label, Unit("pydocs", "NeoX ladder", model="d40-l2").label
    ('pydocs/NeoX ladder', 'pydocs/NeoX ladder: d40-l2')
    >>> Unit("stdlib", "NeoX ladder", versus="Llama ladder").label, Unit(family="All / beta: x").label
    ('stdlib/NeoX ladder vs Llama ladder', 'All / beta: x')
    >>> Unit("pydocs", pooled=True).label
    'pydocs/All'
    >>> Unit("pydocs", "NeoX ladder", setting="k=10/N=4").label
    'pydocs/NeoX ladder/k=10/N=4'
    """

    corpus: str = ""
    family: str = ""
    model: str = ""
    versus: str = ""
    pooled: bool = False
    setting: str = ""

    def __repr__(self) -> str:
        """Only the fields that are set: ``Unit(corpus='pydocs', family='NeoX')``."""
        return f"Unit({', '.join(f'{f.name}={getattr(self, f.name)!r}' for f in fields(self) if getattr(self, f.name))})"

    @property
    def label(self) -> str:
        """The unit in the words of a verdict's "ours" text: corpus/family/setting, " vs " the other family, ": "
        the model."""
        where = "/".join(part for part in (self.corpus, POOLED if self.pooled else self.family, self.setting) if part)
        return where + (f" vs {self.versus}" if self.versus else "") + (f": {self.model}" if self.model else "")


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
    held, tested : int
        Of the units whose outcome decided the verdict, how many there are and on how many the
        claim held (0 and 0 for a claim no unit decided).
    measured : int
        The units measured, decided or not (those that can test the claim); ``tested`` of them decided.
    finding : str
        The claim's ``finding`` (``Claim``): the derivation showing the paper's statement wrong,
        "" for every other claim.
    outcomes : tuple of (Unit or str, str)
        Every unit judged, in order, with its outcome, one of ``UNIT_OUTCOMES`` ("holds" where the
        claim held, "untested" where the unit cannot test it): ``(Unit("pydocs", "NeoX ladder"), "holds")``.
    fragile : tuple of Unit
        The units whose interval has an end at a threshold's edge (``Reading.fragile``): another run
        may read them otherwise.

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
    held: int = 0
    tested: int = 0
    finding: str = ""
    outcomes: tuple[tuple[Unit, str], ...] = ()
    measured: int = 0
    fragile: tuple[Unit, ...] = ()

    @property
    def units_text(self) -> str:
        """How many of the units that decided the claim it held on ("2 of 3"), with how many of the
        units measured decided where some did not ("2 of 3, 3 of 5 decided"); "" where none decided.

        >>> Verdict("c", "", "", "partly", held=2, tested=3, measured=5).units_text
        '2 of 3, 3 of 5 decided'
        >>> Verdict("c", "", "", "partly", held=2, tested=3, measured=3).units_text
        '2 of 3'
        """
        if not self.tested:
            return ""
        return f"{self.held} of {self.tested}" + (f", {self.tested} of {self.measured} decided"
                                                  if self.measured > self.tested else "")

    def row(self, chapter: str) -> dict:
        """The verdict as a JSON-ready row of chapter ``chapter`` ("A3"): its fields, each unit as its fields.

        >>> Verdict("c", "p", "o", "partly", key="A3.1", outcomes=((Unit("pydocs", "NeoX"), "holds"),)).row("A3")
        ... # doctest: +ELLIPSIS
        {'chapter': 'A3', 'claim': 'c', ..., 'outcomes': [[{'corpus': 'pydocs', 'family': 'NeoX', ...}, 'holds']], 'measured': 0, 'fragile': []}
        """
        row = {"chapter": chapter, **asdict(self)}
        row["outcomes"] = [[asdict(unit), outcome] for unit, outcome in self.outcomes]
        row["fragile"] = [asdict(unit) for unit in self.fragile]
        return row

    @classmethod
    def from_row(cls, row: Mapping) -> Verdict:
        """The verdict a ``row`` holds (read back from JSON: a unit's fields become the ``Unit`` again).

        >>> v = Verdict("c", "p", "o", "partly", key="A3.1", outcomes=((Unit("pydocs", pooled=True), "fails"),))
        >>> Verdict.from_row(v.row("A3")) == v
        True
        """
        known = {f.name for f in fields(cls)}
        outcomes = tuple((Unit(**unit), outcome) for unit, outcome in row.get("outcomes", ()))
        fragile = tuple(Unit(**unit) for unit in row.get("fragile", ()))
        return cls(**{**{k: v for k, v in row.items() if k in known}, "outcomes": outcomes, "fragile": fragile})

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise RankscaleError(f"verdict {self.verdict!r} is not one of {VERDICTS}")
        named = [unit for unit, _ in self.outcomes if not isinstance(unit, Unit)]
        if named:
            raise RankscaleError(f"the units {named} are not Units: a verdict's units are placed by their fields")
        odd = [unit for unit, outcome in self.outcomes if outcome not in UNIT_OUTCOMES]
        if odd:
            raise RankscaleError(f"outcomes of {odd} are not among {UNIT_OUTCOMES}")


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
            reasons.append(too_few_sizes(family, n, min_sizes))
    return usable, reasons


def too_few_sizes(family: str, n: int, min_sizes: int) -> str:
    """Why a family of ``n`` distinct sizes is left out of a claim that needs ``min_sizes``.

    >>> too_few_sizes("Llama", 1, 3), too_few_sizes("NeoX", 3, 4)
    ('Llama: 1 size, fewer than 3', 'NeoX: 3 sizes, fewer than 4')
    """
    return f"{family}: {n} size{'s' * (n != 1)}, fewer than {min_sizes}"


def no_family(unusable: Sequence[str], min_sizes: int = MIN_SIZES) -> str:
    """Why a size claim cannot be tested when no family has ``min_sizes`` sizes: its "ours" text.

    >>> no_family(["Llama: 2 sizes, fewer than 3"])
    'no family has 3 or more sizes (Llama: 2 sizes, fewer than 3)'
    """
    return f"no family has {min_sizes} or more sizes ({'; '.join(unusable)})"


def left_out(unusable: Sequence[str]) -> str:
    """The families a size claim leaves out, appended to its "ours" text ("" where none is).

    >>> left_out(["Llama: 2 sizes, fewer than 3"]), left_out([])
    ('; left out: Llama: 2 sizes, fewer than 3', '')
    """
    return f"; left out: {'; '.join(unusable)}" if unusable else ""


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


def judge(key: str, outcomes: Mapping[Unit, Reading | bool | str | None], ours: str, paper: str | None = None,
          why_not: str = "", why_undetermined: str = "", notes: Mapping[Unit, str] | None = None) -> Verdict:
    """The verdict of claim ``key`` from one outcome per unit of evidence.

    The claim is reproduced if it holds on every unit that decides it, partly if on some, not
    reproduced if on none (``grade``); units that cannot test it and units the measurement could
    not decide are named in ``ours``. With no deciding unit the verdict is "undetermined" where
    some unit was measured but undecided (``why_undetermined`` says why), else "not testable on
    this set" (``why_not`` says why). A claim decided on fewer than half of the units measured, all
    of them for it, is undetermined too: a minority of units does not speak for the set. A decided
    counterexample does, however few units decide: every claim of the book says that something holds
    in every (or nearly every) setting, so a unit where it fails beyond noise stands whatever the
    undecided units would say, and the verdict is graded on the decided units. Units read at a
    threshold's edge (``Reading.fragile``) are named in ``ours``.

    Parameters
    ----------
    key : str
        A key of ``CLAIMS``, e.g. ``"A2.1"``.
    outcomes : mapping of Unit to Reading, bool, UNDETERMINED or None
        Unit -> True (the claim holds there), False (it does not), ``UNDETERMINED``
        (the unit was measured but the measurement cannot decide) or None (the unit cannot test it);
        or a ``Reading`` of an interval (``read``, ``read_band``), which carries one of these.
    ours : str
        What was measured, shown beside the verdict.
    paper : str, optional
        The paper's number where it is computed from its tables (default: the claim's own).
    why_not, why_undetermined : str
        The reason shown when no unit can test the claim, or when none could decide it.
    notes : mapping of Unit or str to str, optional
        Why a unit is undecided or untested, shown in brackets after its name in ``ours``.

    Returns
    -------
    Verdict
        With the claim's text, rule, kind, key and finding, how many deciding units it held on,
        and every unit's outcome in words (``UNIT_OUTCOMES``).

    Raises
    ------
    RankscaleError
        If no claim ``key`` is defined, or an outcome is none of the four.

    Examples
    --------
    >>> CLAIMS["_doc"] = Claim("_doc", "x grows", "empirical", "x rises between the two ends")
    >>> v = judge("_doc", {Unit("pydocs"): True, Unit("stdlib"): False, Unit("humaneval"): UNDETERMINED}, "+1, -1")
    >>> v.verdict, v.units_text, v.ours
    ('partly', '1 of 2, 2 of 3 decided', '+1, -1 (undetermined on: humaneval)')
    >>> [outcome for _, outcome in v.outcomes]
    ['holds', 'fails', 'undetermined']
    >>> v = judge("_doc", {Unit("pydocs", "NeoX"): True, Unit("pydocs", "Llama"): UNDETERMINED}, "+1")
    >>> v.ours, v.outcomes[0]
    ('+1 (undetermined on: pydocs/Llama)', (Unit(corpus='pydocs', family='NeoX'), 'holds'))
    >>> judge("_doc", {Unit("pydocs", "NeoX"): True, Unit("pydocs", "Llama"): None}, "+1",
    ...       notes={Unit("pydocs", "Llama"): "2 sizes"}).ours
    '+1 (not tested on: pydocs/Llama (2 sizes))'
    >>> judge("_doc", {Unit("pydocs"): UNDETERMINED}, "", why_undetermined="fit at its bound").verdict
    'undetermined'
    >>> v = judge("_doc", {Unit("pydocs"): True, Unit("stdlib"): UNDETERMINED, Unit("humaneval"): UNDETERMINED}, "+1")
    >>> v.verdict, v.ours
    ('undetermined', '+1 (decided on 1 of 3 units measured; undetermined on: stdlib, humaneval)')
    >>> v = judge("_doc", {Unit("pydocs"): False, Unit("stdlib"): UNDETERMINED, Unit("humaneval"): UNDETERMINED}, "-1")
    >>> v.verdict, v.ours
    ('not reproduced', '-1 (decided on 1 of 3 units measured, a counterexample among them; undetermined on: stdlib, humaneval)')
    >>> v = judge("_doc", {Unit("pydocs"): read((-0.330, 0.004), sign=-1), Unit("stdlib"): read((-0.3, -0.1), sign=-1)}, "")
    >>> v.verdict, v.fragile, v.ours
    ('reproduced', (Unit(corpus='pydocs'),), ' (undetermined on: pydocs; at the edge of the threshold: pydocs)')
    >>> judge("_doc", {Unit("pydocs"): "undetermined".upper().lower()}, "").outcomes  # by value, not by identity
    ((Unit(corpus='pydocs'), 'undetermined'),)
    >>> judge("_doc", {Unit("pydocs"): None}, "", why_not="one size").verdict
    'not testable on this set'
    >>> CLAIMS["_doc"] = Claim("_doc", "x sharpens", "analytic", "width falls", finding="eq. 8 only shifts")
    >>> judge("_doc", {Unit(): False}, "").finding
    'eq. 8 only shifts'
    >>> judge("_doc", {"pydocs/NeoX": True}, "")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: claim _doc: the units ['pydocs/NeoX'] are names, not rankscale.claims.base.Unit: a verdict's units are placed by their fields
    >>> del CLAIMS["_doc"]
    >>> judge("Z9.9", {}, "")
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: no claim 'Z9.9' in rankscale.claims; define it there, with its rule, first
    """
    if key not in CLAIMS:
        raise RankscaleError(f"no claim {key!r} in rankscale.claims; define it there, with its rule, first")
    claim = CLAIMS[key]
    named = [unit for unit in outcomes if not isinstance(unit, Unit)]
    if named:
        raise RankscaleError(f"claim {key}: the units {named} are names, not rankscale.claims.base.Unit: a verdict's "
                             "units are placed by their fields")
    fragile = tuple(unit for unit, v in outcomes.items() if isinstance(v, Reading) and v.fragile and v.outcome is not None)
    outcomes = {unit: outcome_of(v) for unit, v in outcomes.items()}
    odd = [_name(unit) for unit, v in outcomes.items()
           if not (v is None or undetermined(v) or isinstance(v, (bool, np.bool_)))]
    if odd:
        raise RankscaleError(f"claim {key}: outcomes of {odd} are none of True, False, UNDETERMINED, None")
    decided = [bool(v) for v in outcomes.values() if v is not None and not undetermined(v)]
    measured = sum(v is not None for v in outcomes.values())
    undecided = [_name(unit, notes) for unit, v in outcomes.items() if undetermined(v)]
    untested = [_name(unit, notes) for unit, v in outcomes.items() if v is None]
    verdict = _graded(decided, measured)
    if decided:
        minority = 2 * len(decided) < measured
        parts = ([f"decided on {len(decided)} of {measured} units measured"
                  + ("" if all(decided) else ", a counterexample among them")] if minority else [])
        parts += [f"{label}: {', '.join(units)}" for label, units in
                  (("undetermined on", undecided), ("not tested on", untested), ("at the edge of the threshold",
                                                                                 [_name(u) for u in fragile]))
                  if units]
        if parts:
            ours = f"{ours} ({'; '.join(parts)})"
    elif undecided:
        ours = "; ".join(part for part in (why_undetermined or "the measurement cannot decide", ours) if part)
    else:
        ours = "; ".join(part for part in (why_not or "no unit of this set can test it", ours) if part)
    return Verdict(claim.text, claim.paper if paper is None else paper, ours, verdict, rule=claim.rule,
                   kind=claim.kind, key=claim.key, held=sum(decided), tested=len(decided),
                   finding=claim.finding, outcomes=tuple((unit, _in_words(v)) for unit, v in outcomes.items()),
                   measured=measured, fragile=fragile)


def _graded(decided: Sequence[bool], measured: int) -> str:
    """``judge``'s verdict from the outcomes of the units that decided and how many units were measured: graded on
    the decided units (``grade``), undetermined where a minority decided and all for the claim, or where none
    decided but some was measured, not testable where none was."""
    if decided:
        # a minority that only confirms says nothing of the set; a decided counterexample refutes it anyway
        return UNDETERMINED if 2 * len(decided) < measured and all(decided) else grade(decided)
    return UNDETERMINED if measured else NOT_TESTABLE


def undecided_where(verdict: Verdict, thin: Mapping[tuple[str, str], str], families: Sequence[str] = ()) -> Verdict:
    """``verdict`` with every decided unit whose evaluation text holds too few documents for an interval
    (``thin``) made undetermined, and the verdict graded again as ``judge`` grades.

    Parameters
    ----------
    verdict : Verdict
    thin : mapping of (str, str) to str
        (corpus, family or reference model) -> why its text is too thin
        (``rankscale.claims.context.thin_texts``). A unit is on a thin text where its corpus and family, or
        the family it is compared with, are; a unit of every family (pooled, or of no one family) where any
        of ``families`` is on its corpus.
    families : sequence of str
        The set's families (not its reference models, which no unit of every family reads).

    Returns
    -------
    Verdict
        The same where no decided unit is on a thin text; else with those units undetermined, ``held``,
        ``tested`` and ``verdict`` graded again, and ``ours`` naming the units and why.

    Examples
    --------
    >>> CLAIMS["_doc"] = Claim("_doc", "x grows", "empirical", "x rises")
    >>> v = judge("_doc", {Unit("pydocs", "NeoX"): True, Unit("stdlib", "NeoX"): False}, "+1, -1")
    >>> thin = undecided_where(v, {("stdlib", "NeoX"): "4 documents"})
    >>> thin.verdict, thin.units_text, thin.ours
    ('reproduced', '1 of 1, 1 of 2 decided', '+1, -1 (too few documents for an interval, so undetermined: stdlib/NeoX (4 documents))')
    >>> undecided_where(v, {("humaneval", "NeoX"): "4 documents"}) is v
    True
    >>> v = judge("_doc", {Unit("stdlib"): True, Unit("pydocs"): True}, "+1")  # units of every family on a corpus
    >>> undecided_where(v, {("stdlib", "Smol"): "4 documents"}, families=["NeoX"]) is v  # a reference's text
    True
    >>> undecided_where(v, {("stdlib", "NeoX"): "4 documents"}, families=["NeoX"]).ours
    '+1 (too few documents for an interval, so undetermined: stdlib (NeoX: 4 documents))'
    >>> del CLAIMS["_doc"]
    """
    def why(unit: Unit) -> str | None:
        if unit.pooled or not unit.family:
            reasons = [f"{name}: {reason}" for (corpus, name), reason in thin.items()
                       if corpus == unit.corpus and name in families]
        else:
            reasons = [thin[key] for key in ((unit.corpus, unit.family), (unit.corpus, unit.versus)) if key in thin]
        return "; ".join(reasons) or None

    reasons = {unit: why(unit) for unit, outcome in verdict.outcomes if outcome in ("holds", "fails")}
    hit = {unit: reason for unit, reason in reasons.items() if reason}
    if not hit:
        return verdict
    outcomes = tuple((unit, UNDETERMINED if unit in hit else outcome) for unit, outcome in verdict.outcomes)
    decided = [outcome == "holds" for _, outcome in outcomes if outcome in ("holds", "fails")]
    named = ", ".join(f"{unit.label} ({reason})" for unit, reason in hit.items())
    return replace(verdict, verdict=_graded(decided, verdict.measured), held=sum(decided), tested=len(decided),
                   outcomes=outcomes, ours=f"{verdict.ours} (too few documents for an interval, so undetermined: "
                                           f"{named})")


def _in_words(outcome: bool | str | None) -> str:
    """A unit's outcome as ``judge`` was given it, in the words of ``UNIT_OUTCOMES``."""
    return "untested" if outcome is None else UNDETERMINED if undetermined(outcome) else "holds" if outcome else "fails"


def _name(unit: Unit, notes: Mapping[Unit, str] | None = None) -> str:
    """A unit as the "ours" text names it, with its note in brackets where it has one; a unit of no corpus, family or
    model (a claim measured once on the whole set) is "the set"."""
    name = unit.label or "the set"
    return f"{name} ({notes[unit]})" if notes and unit in notes else name
