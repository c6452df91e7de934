"""What a scored claim is: ``Claim`` and the kinds of claims (see ``rankscale.claims``)."""

from __future__ import annotations

from dataclasses import dataclass

from rankscale import RankscaleError

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


def index_claims(*claims: Claim) -> dict[str, Claim]:
    """Claims by key, in order (each chapter's section of ``paper_a``/``paper_b`` is one such index)."""
    return {c.key: c for c in claims}
