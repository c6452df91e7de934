"""A chapter's contract with the claims stage, declared once in its module as ``SPEC``: its label, its claims,
one rule per claim keyed by the claim's id, the step that measures, the runs it reads beside the families' final
models and the papers' tables its rules read. A missing rule, a rule for no claim, or a rule that grades another
claim than its own is an error when the module is imported or the rule runs, never a verdict in another
claim's row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rankscale import RankscaleError
from rankscale.claims.base import Claim, Verdict
from rankscale.claims.context import Context

READ_KINDS = ("references", "checkpoints", "seeds", "temperatures")  # load_chapter's keywords a chapter may ask for


@dataclass(frozen=True)
class ChapterSpec:
    """One chapter of the claims stage.

    Parameters
    ----------
    label : str
        ``"A2"``: the claims' ids start with it and a dot.
    claims : mapping of str to Claim
        The chapter's claims in the order its table shows them (``rankscale.claims.base.index_claims``).
    rules : mapping of str to callable
        Claim id -> ``rule(evidence, context) -> Verdict``, exactly one per claim.
    measure : callable
        ``measure(chapter, context) -> evidence``: every fit and bootstrap the rules read.
    reads : tuple of str
        The runs ``measure`` reads beside the families' final models (``READ_KINDS``, ``load_chapter``'s keywords).
    tables : tuple of str
        The papers' tables the rules read (``Context.tables``).

    Examples
    --------
    >>> claims = {"X9.1": Claim("X9.1", "a claim", "empirical", "a rule")}
    >>> ChapterSpec("X9", claims, {"X9.2": print}, measure=None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscale.RankscaleError: chapter X9: no rule for X9.1; rules for no claim: X9.2; give each claim one rule, ...
    """

    label: str
    claims: Mapping[str, Claim]
    rules: Mapping[str, Callable[[Any, Context], Verdict]]
    measure: Callable[..., Any]
    reads: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()

    def __post_init__(self):
        missing = [key for key in self.claims if key not in self.rules]
        extra = [key for key in self.rules if key not in self.claims]
        if missing or extra:
            wrong = ([f"no rule for {', '.join(missing)}"] * bool(missing)
                     + [f"rules for no claim: {', '.join(extra)}"] * bool(extra))
            raise RankscaleError(f"chapter {self.label}: {'; '.join(wrong)}; give each claim one rule, keyed by its id")
        foreign = [key for key in self.claims if not key.startswith(self.label + ".")]
        unknown = [kind for kind in self.reads if kind not in READ_KINDS]
        if foreign or unknown:
            raise RankscaleError(f"chapter {self.label}: claims of another chapter {foreign}, or runs it cannot read "
                                 f"{unknown} (it may read {', '.join(READ_KINDS)})")

    def decide(self, evidence, context: Context) -> list[Verdict]:
        """The chapter's verdicts, one per claim in order: each claim's rule on ``evidence``, every unit on a text
        of too few documents then undetermined (``Context.decide``).

        Raises
        ------
        RankscaleError
            Where a rule grades another claim than the one it is keyed by.
        """
        verdicts = context.decide([self.rules[key] for key in self.claims], evidence)
        crossed = [f"{key} -> {verdict.key}" for key, verdict in zip(self.claims, verdicts) if verdict.key != key]
        if crossed:
            raise RankscaleError(f"chapter {self.label}'s rules grade other claims than their own: "
                                 f"{', '.join(crossed)}")
        return verdicts
