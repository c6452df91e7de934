"""What a scored claim is: ``Claim`` and the kinds of claims (see ``rankscale.claims``)."""

from __future__ import annotations

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
