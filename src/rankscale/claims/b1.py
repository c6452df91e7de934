"""Chapter B1 of the claims stage, cross-entropy as Error-Entropy + Self-Alignment − Confidence (paper B §3.1-3.3,
eq. 8, Figs. 1-2): its thresholds and claims, its evidence (``Decompositions``: every final and reference model's
decomposition on every corpus, the control on untrained checkpoints, and one model's predictions at several sampling
temperatures) and its two steps, ``measure`` (the chapter's runs to that evidence) and ``decide`` (the evidence to the
chapter's verdicts), with the rule of each claim read on one unit as a small function of its own and the evidence
laid out as the chapter's tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from rankscale.analysis import dynamics, metrics
from rankscale.claims.base import Claim, Unit, Verdict, index_claims, judge
from rankscale.claims.context import Chapter, Context
from rankscale.claims.spec import ChapterSpec
from rankscale.records import runs
from rankscale.records.runs import Run, by_family

B1_MAX_RESIDUAL = 1e-9  # nats. CE - (EE + SA - Conf) is zero in exact arithmetic; float64 rounding of sums over a
#   few hundred thousand tokens is ~1e-12 and every real term is above 1e-3, so 1e-9 tells rounding from an error
B1_BOUND_SLACK = 1e-6  # nats. The records store log-probabilities in float32 (relative precision 6e-8, |log s| < 17),
#   so a bound that holds exactly can look exceeded by up to ~1e-6 in the stored numbers, never by more
READS = ("references", "checkpoints", "temperatures")  # beside the families' final models (``load_chapter``'s keywords)
TABLES = ()  # B1's rules read none of the papers' tables

CLAIMS_B1 = index_claims(
    Claim("B1.1", "Cross-entropy equals Error-Entropy + Self-Alignment − Confidence exactly (paper B, §3.2, eq. 8)",
          "analytic",
          "Measured: the residual CE − (EE + SA − Conf) of every model (families and references) on every corpus. "
          f"Holds if |residual| < {B1_MAX_RESIDUAL:g} nats everywhere (float64 rounding is ~1e-12, every term is "
          "above 1e-3). An identity of algebra: a check of this code, not a replication.",
          "exact (derivation)"),
    Claim("B1.2", "A trained model's RBE distribution p_e concentrates on small errors: the target sits near the top of "
                  "the ranking more often than random ranking would put it there (paper B, §3.1, Fig. 1)",
          "definitional",
          "Measured on every final model (families and references) on every corpus: P(e < k), the share of targets "
          "with fewer than k tokens strictly above them, against k/V, the share random ranking gives, at every k from "
          "1 to the model's vocabulary size V. Holds if P(e < k) ≥ k/V at every k: p_e lies wholly on the "
          "small-error side of the uniform distribution. Why: the paper gives no number, and the one reference it "
          "names is a model that ranks at random (§3.3); the rule fails for random or worse ranking (the chapter "
          "shows it failing on the untrained step-0 checkpoints, where the set has them).",
          "qualitative (§3.1, Fig. 1)"),
    Claim("B1.3", "Q_e ≤ 1/(e+1) at every RBE value e, so Confidence ≤ log Σ_e 1/(e+1) (paper B, §3.3)",
          "analytic",
          "Measured: log Q_e + log(e+1) at every RBE value of every model (families and references) on every corpus. "
          f"Holds if it is at most {B1_BOUND_SLACK:g} nats everywhere (the float32 precision of the stored "
          "log-probabilities). The e tokens above the target are each at least as probable, so (e+1)s ≤ 1 by "
          "construction: a check of the records, not a replication.",
          "bound (derivation)"),
    Claim("B1.4", "Error-Entropy is unaffected by temperature scaling and top-p truncation, unlike the probability-based "
                  "terms (paper B, §3.1 and §3.3)",
          "analytic",
          "EE is a function of the ranks alone; dividing the logits by a temperature T > 0 keeps their order (top-p "
          "keeps the order of the tokens it keeps), so EE cannot move. Checked on real extractions of one model on "
          "the same tokens at T = 0.5 and T = 2 against T = 1: holds at a temperature if every target's RBE, and so "
          "EE, is identical (T = 0.5 and 2 scale binary floating-point logits exactly, so no tie can appear or "
          "vanish). CE, SA and Conf at each T are shown beside it.",
          "immune (argument)", needs=("temperature runs",)),
)


# ---------------------------------------------------------------------------------------------
# The evidence

REFERENCE = "reference"  # the group of a reference model in the "ours" counts and the tables


@dataclass(frozen=True)
class Decomposed:
    """One final or reference model on one corpus, decomposed (a unit of B1.1-B1.3).

    Attributes
    ----------
    corpus, name : str
        Where it was measured; the model's name.
    family : str or None
        Its family; None for a reference model.
    label : str
        How the tables name it (``rankscale.records.runs.label``).
    non_embedding, vocab, tokens : int
        Its non-embedding parameters, vocabulary size V and evaluation tokens.
    ce : float
        CE computed directly, the mean of -log s over the tokens (nats).
    terms : rankscale.analysis.metrics.Decomposition
        Its decomposition by the strict RBE (``gt``), over the m RBE values that occur.
    concentrated : bool
        P(e < k) >= k/V at every k (``rankscale.analysis.dynamics.concentrated``; B1.2).
    featured : bool
        Drawn one by one in the chapter's figures: each family's largest model and every reference.

    Examples
    --------
    >>> terms = metrics.ce_decomposition(np.log([0.5, 0.25, 0.5]), np.array([0, 1, 0]))
    >>> m = Decomposed("pydocs", "NeoX", "d16", "NeoX: d16", 10, 8, 3, terms.ce, terms, True, True)
    >>> m.unit.label, m.group, round(m.p_0, 3), m.mode_at_0, abs(m.residual) < 1e-12
    ('pydocs/NeoX: d16', 'NeoX', 0.667, True, True)
    """

    corpus: str
    family: str | None
    name: str
    label: str
    non_embedding: int
    vocab: int
    tokens: int
    ce: float
    terms: metrics.Decomposition
    concentrated: bool
    featured: bool

    @property
    def unit(self) -> Unit:
        """A family's model, or a reference model by its name (``rankscale.claims.base.Unit``)."""
        return Unit(self.corpus, self.family, model=self.name) if self.family else Unit(self.corpus, self.name)

    @property
    def group(self) -> str:
        """Its family, or ``REFERENCE``."""
        return self.family or REFERENCE

    @property
    def residual(self) -> float:
        """CE - (EE + SA - Conf), CE computed directly (nats)."""
        t = self.terms
        return self.ce - (t.error_entropy + t.self_alignment - t.confidence)

    @property
    def p_0(self) -> float:
        """The share of targets at RBE 0 (top-1 accuracy)."""
        return float(self.terms.p_e[0]) if self.terms.e[0] == 0 else 0.0

    @property
    def mode_at_0(self) -> bool:
        """Whether RBE 0 is the most frequent value."""
        return bool(self.terms.e[np.argmax(self.terms.p_e)] == 0)

    @property
    def ceiling_excess(self) -> float:
        """max_e log Q_e + log(e+1) (``rankscale.analysis.dynamics.ceiling_excess``; B1.3), nats."""
        return dynamics.ceiling_excess(self.terms)

    @property
    def confidence_bound(self) -> float:
        """log sum_e 1/(e+1) over the RBE values that occur (``rankscale.analysis.dynamics.confidence_bound``)."""
        return dynamics.confidence_bound(self.terms)


@dataclass(frozen=True)
class Decompositions:
    """Chapter B1's evidence.

    Attributes
    ----------
    models : tuple of Decomposed
        Corpus by corpus: the families' final models (family by family, smallest first), then the references.
    controls : tuple of bool
        B1.2's rule (``concentrated``) on each untrained step-0 checkpoint of ``control_corpus``; empty where the
        set has none.
    control_corpus : str
        The chapter's first corpus.
    temperatures : pandas.DataFrame or None
        One model's predictions at each temperature (``temperature_table``); None where the set extracts none.
    tempered : Unit
        That model (``Unit(corpus, family, model=name)``); ``Unit()`` where there is none.
    tempered_tokens : int
        The tokens it predicts at each temperature; 0 where there is none.
    """

    models: tuple[Decomposed, ...]
    controls: tuple[bool, ...] = ()
    control_corpus: str = ""
    temperatures: pd.DataFrame | None = None
    tempered: Unit = Unit()
    tempered_tokens: int = 0

    def featured(self, corpus: str) -> list[Decomposed]:
        """The models drawn one by one on ``corpus``: each family's largest, then the references."""
        return [m for m in self.models if m.corpus == corpus and m.featured]


# ---------------------------------------------------------------------------------------------
# Measure: the chapter's runs to its evidence

def featured_runs(chapter: Chapter) -> dict[str, list[Run]]:
    """Per corpus, the runs drawn one by one: each family's largest final model, then the references.

    Examples
    --------
    >>> rs = [Run("NeoX", f"d{n}", None, n, n, None) for n in (16, 32)] + [Run("Llama", "d8", None, 8, 8, None)]
    >>> [r.name for r in featured_runs(Chapter.of({"pydocs": rs}, 10))["pydocs"]]
    ['d32', 'd8']
    """
    return {corpus: [members[-1] for members in by_family(chapter.family_runs[corpus]).values()]
            + chapter.reference_runs[corpus] for corpus in chapter.corpora}


def decompose(run: Run, corpus: str, featured: bool) -> Decomposed:
    """One model on one corpus, decomposed by its strict RBE (``gt``), with B1.2's check.

    Parameters
    ----------
    run : rankscale.records.runs.Run
    corpus : str
    featured : bool
        Whether the chapter draws it one by one.

    Returns
    -------
    Decomposed
    """
    rec = run.records
    return Decomposed(corpus, run.family, run.name, runs.label(run), run.non_embedding, run.vocab_size, len(rec),
                      metrics.cross_entropy(rec.logp), metrics.ce_decomposition(rec.logp, rec.gt),
                      dynamics.concentrated(rec.gt, run.vocab_size), featured)


def temperature_table(tempered: Mapping[float, Run]) -> pd.DataFrame | None:
    """One model's predictions on the same tokens at each temperature T (B1.4's evidence).

    Parameters
    ----------
    tempered : mapping of float to Run
        Temperature -> the run at it (``rankscale.records.runs.temperature_runs``), 1.0 among them.

    Returns
    -------
    pandas.DataFrame or None
        One row per T, in order: T, CE, EE, SA, Conf (nats), the top-1 share p_0, the targets whose RBE differs
        from T = 1 and whether the targets are those of T = 1; None where ``tempered`` is empty.
    """
    if not tempered:
        return None
    base = tempered[1.0].records
    rows = []
    for t, run in tempered.items():
        dec = metrics.ce_decomposition(run.records.logp, run.records.gt)
        rows.append({"T": t, "CE": dec.ce, "EE": dec.error_entropy, "SA": dec.self_alignment, "Conf": dec.confidence,
                     "p_0 (top-1)": float(np.mean(run.records.gt == 0)),
                     "targets whose RBE differs from T = 1": int(np.sum(run.records.gt != base.gt)),
                     "same targets as T = 1": bool(np.array_equal(run.records.target, base.target))})
    return pd.DataFrame(rows)


def measure(chapter: Chapter, context: Context) -> Decompositions:
    """Chapter B1's evidence: every final and reference model decomposed on every corpus (``decompose``), B1.2's
    rule on the untrained step-0 checkpoints of the first corpus, and the temperature demonstration.

    Parameters
    ----------
    chapter : Chapter
        The families' final models and the references per corpus, the checkpoints and the tempered runs.
    context : Context
        Unused: no claim of B1 is about size; there for the one signature of every chapter.

    Returns
    -------
    Decompositions
    """
    featured = featured_runs(chapter)
    models = tuple(decompose(run, corpus, any(run is f for f in featured[corpus])) for corpus in chapter.corpora
                   for run in chapter.family_runs[corpus] + chapter.reference_runs[corpus])
    first = chapter.corpora[0]
    controls = tuple(dynamics.concentrated(run.records.gt, run.vocab_size)
                     for run in chapter.checkpoint_runs[first] if run.step == 0)
    tempered = chapter.temperature_runs
    if not tempered:
        return Decompositions(models, controls, first)
    base = tempered[1.0]
    corpus = next(iter(chapter.model_set.corpora)) if chapter.model_set else first
    return Decompositions(models, controls, first, temperature_table(tempered),
                          Unit(corpus, base.family, model=base.name), len(base.records))


# ---------------------------------------------------------------------------------------------
# Decide: one rule per claim, read on one unit, and its verdict

def per_group(groups: Sequence[str], passed: Sequence[bool]) -> str:
    """Of each group's units, how many pass, the groups in order of first appearance.

    >>> per_group(["NeoX", "NeoX", "reference"], [True, False, True])
    'NeoX 1/2, reference 1/1'
    """
    counts: dict[str, list[int]] = {}
    for group, ok in zip(groups, passed, strict=True):
        counts.setdefault(group, []).append(bool(ok))
    return ", ".join(f"{group} {sum(oks)}/{len(oks)}" for group, oks in counts.items())


def exact(residual: float) -> bool:
    """B1.1 on one model: |CE - (EE + SA - Conf)| below ``B1_MAX_RESIDUAL`` (the threshold itself is not below).

    >>> exact(1e-13), exact(-B1_MAX_RESIDUAL), exact(2e-3)
    (True, False, False)
    """
    return bool(abs(residual) < B1_MAX_RESIDUAL)


def _untested(key: str) -> Verdict:
    """A claim of every model on a set without one."""
    return judge(key, {}, "", why_not="no model to decompose on this set")


def identity_verdict(evidence: Decompositions, context: Context) -> Verdict:
    """B1.1: the identity is exact (``exact``) on every model of every corpus.

    Parameters
    ----------
    evidence : Decompositions
    context : Context
        Unused (B1's rules read nothing beside their evidence).

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    models = evidence.models
    if not models:
        return _untested("B1.1")
    held = [exact(m.residual) for m in models]
    return judge("B1.1", {m.unit: ok for m, ok in zip(models, held)},
                 f"largest |residual| {max(abs(m.residual) for m in models):.1e} nats; model-corpus pairs below "
                 f"{B1_MAX_RESIDUAL:g}: {per_group([m.group for m in models], held)}")


def control_text(evidence: Decompositions) -> str:
    """B1.2's control in words: how many untrained step-0 checkpoints pass the same rule.

    >>> control_text(Decompositions((), (False, False), "pydocs"))
    'control: the same rule holds for 0 of the 2 untrained step-0 checkpoints on pydocs'
    """
    controls = evidence.controls
    if not controls:
        return "no step-0 checkpoint in this set to run the control on"
    return (f"control: the same rule holds for {sum(controls)} of the {len(controls)} untrained step-0 checkpoints "
            f"on {evidence.control_corpus}")


def concentration_verdict(evidence: Decompositions, context: Context) -> Verdict:
    """B1.2: p_e lies on the small-error side of random ranking (``Decomposed.concentrated``) on every model; the
    mode at RBE 0, p_0 and the control on untrained checkpoints are shown beside it.

    Parameters
    ----------
    evidence, context
        As ``identity_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    models = evidence.models
    if not models:
        return _untested("B1.2")
    groups = [m.group for m in models]
    return judge("B1.2", {m.unit: m.concentrated for m in models},
                 f"model-corpus pairs with P(e < k) ≥ k/V at every k: "
                 f"{per_group(groups, [m.concentrated for m in models])}; "
                 f"with RBE 0 the most frequent value: {per_group(groups, [m.mode_at_0 for m in models])}; "
                 f"p_0 from {min(m.p_0 for m in models):.3f} to {max(m.p_0 for m in models):.3f}; "
                 f"{control_text(evidence)}")


def bound_holds(excess) -> np.ndarray:
    """B1.3 on each model: whether Q_e <= 1/(e+1) at every e, given max_e (log Q_e + log(e+1)) per model, allowing
    ``B1_BOUND_SLACK`` for the float32 records.

    Examples
    --------
    >>> bound_holds([0.0, 5e-7, 1e-3]).tolist()
    [True, True, False]
    """
    return np.asarray(excess, np.float64) <= B1_BOUND_SLACK


def bound_verdict(evidence: Decompositions, context: Context) -> Verdict:
    """B1.3: Q_e <= 1/(e+1) at every RBE value (``bound_holds``) on every model.

    Parameters
    ----------
    evidence, context
        As ``identity_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    models = evidence.models
    if not models:
        return _untested("B1.3")
    excess = [m.ceiling_excess for m in models]
    held = bound_holds(excess)
    conf = [m.terms.confidence for m in models]
    return judge("B1.3", {m.unit: bool(ok) for m, ok in zip(models, held)},
                 f"model-corpus pairs where it holds: {per_group([m.group for m in models], held)}; largest "
                 f"log Q_e + log(e+1) {max(excess):.3f} nats; Conf {min(conf):.3f} to {max(conf):.3f} against bounds "
                 f"≥ {min(m.confidence_bound for m in models):.2f}")


def unchanged(at: pd.DataFrame, t: float) -> bool:
    """B1.4 at temperature ``t``: the targets of T = 1, each with the same RBE, and so the same EE.

    Parameters
    ----------
    at : pandas.DataFrame
        ``temperature_table`` indexed by T.
    t : float

    Examples
    --------
    >>> at = pd.DataFrame({"T": [1.0, 2.0], "same targets as T = 1": [True, True],
    ...                    "targets whose RBE differs from T = 1": [0, 3], "EE": [2.0, 2.0]}).set_index("T")
    >>> unchanged(at, 1.0), unchanged(at, 2.0)
    (True, False)
    """
    return bool(at.loc[t, "same targets as T = 1"] and at.loc[t, "targets whose RBE differs from T = 1"] == 0
                and at.loc[t, "EE"] == at.loc[1.0, "EE"])


def temperature_verdict(evidence: Decompositions, context: Context) -> Verdict:
    """B1.4: at every temperature, the same targets with the same RBE, so the same EE, as at T = 1 (``unchanged``);
    each temperature of the tempered model is a unit.

    Parameters
    ----------
    evidence, context
        As ``identity_verdict``.

    Returns
    -------
    rankscale.claims.base.Verdict
    """
    if evidence.temperatures is None:
        return judge("B1.4", {}, "", why_not="the set extracts no tempered predictions (temperature_tokens = 0)")
    at, model = evidence.temperatures.set_index("T"), evidence.tempered
    others = [t for t in at.index if t != 1.0]
    differing = at["targets whose RBE differs from T = 1"]
    return judge("B1.4", {replace(model, model=f"{model.model} at T = {t:g}"): unchanged(at, t) for t in others},
                 f"{model.family}: {model.model}, {evidence.tempered_tokens:,} tokens: targets whose RBE differs from "
                 "T = 1: "
                 + ", ".join(f"{int(differing[t])} at T = {t:g}" for t in others)
                 + f"; EE {at.loc[1.0, 'EE']:.4f} at T = 1, largest change across T "
                 f"{at['EE'].max() - at['EE'].min():.1e}"
                 f"; CE from {at['CE'].min():.3f} to {at['CE'].max():.3f}, SA {at['SA'].min():.3f} to "
                 f"{at['SA'].max():.3f}, Conf {at['Conf'].min():.3f} to {at['Conf'].max():.3f}")


# claim id -> the rule that grades it (each rule on the evidence and the context, returning its Verdict)
RULES = {"B1.1": identity_verdict, "B1.2": concentration_verdict, "B1.3": bound_verdict, "B1.4": temperature_verdict}


SPEC = ChapterSpec("B1", CLAIMS_B1, RULES, measure, reads=READS, tables=TABLES)  # the chapter, declared once


# ---------------------------------------------------------------------------------------------
# The evidence as the chapter's tables, and its headline for the findings

def first_predictions(run: Run, n: int) -> tuple[pd.DataFrame, bool]:
    """The first ``n`` predictions of ``run``, one per row: the target token (its text where the model's tokenizer
    is at hand, else its id), its probability s, -log s and its RBE e.

    Returns
    -------
    table : pandas.DataFrame
    decoded : bool
        Whether the targets are shown as text.
    """
    rec = run.records
    first = slice(0, n)
    texts = runs.token_texts(run, rec.target[first])
    return pd.DataFrame({
        "target token": [repr(t) for t in texts] if texts is not None else rec.target[first],
        "s = p(target)": np.exp(rec.logp[first].astype(float)),
        "-log s": -rec.logp[first].astype(float),
        "RBE e (gt)": rec.gt[first],
    }), texts is not None


def groups_table(dec: metrics.Decomposition) -> pd.DataFrame:
    """A decomposition's RBE groups, one per row: e, its count n_e and share p_e, the geometric mean Q_e of its
    probabilities and the normalised score q_e (paper B, eqs. 2-4).

    Examples
    --------
    >>> groups_table(metrics.ce_decomposition(np.log([0.5, 0.25, 0.5]), np.array([0, 1, 0])))["n_e"].tolist()
    [2, 1]
    """
    return pd.DataFrame({"e": dec.e, "n_e": dec.n_e, "p_e": dec.p_e, "Q_e": np.exp(dec.log_Q_e), "q_e": dec.q_e})


def glance_table(evidence: Decompositions) -> pd.DataFrame:
    """Each featured model per corpus: vocabulary V, the shares of targets at RBE 0 and below 10, and EE against its
    ceiling log V.

    Returns
    -------
    pandas.DataFrame
        Columns corpus, family, model, V, p_0, P(e < 10), EE, log V, EE / log V.
    """
    return pd.DataFrame([{"corpus": m.corpus, "family": m.group, "model": m.name, "V": m.vocab, "p_0": m.p_0,
                          "P(e < 10)": float(m.terms.p_e[m.terms.e < 10].sum()), "EE": m.terms.error_entropy,
                          "log V": float(np.log(m.vocab)), "EE / log V": m.terms.error_entropy / np.log(m.vocab)}
                         for m in evidence.models if m.featured])


def identity_table(evidence: Decompositions) -> pd.DataFrame:
    """CE = EE + SA - Conf for every model per corpus (B1.1): CE as the mean of -log s, the three terms, their
    combination and the residual.

    Returns
    -------
    pandas.DataFrame
        Columns corpus, family, model, params (non-emb.), tokens, CE = mean(-log s), EE, SA, Conf, EE + SA - Conf,
        residual.
    """
    return pd.DataFrame([{"corpus": m.corpus, "family": m.group, "model": m.name, "params (non-emb.)": m.non_embedding,
                          "tokens": m.tokens, "CE = mean(-log s)": m.ce, "EE": m.terms.error_entropy,
                          "SA": m.terms.self_alignment, "Conf": m.terms.confidence,
                          "EE + SA - Conf": m.terms.error_entropy + m.terms.self_alignment - m.terms.confidence,
                          "residual": m.residual} for m in evidence.models])


def conventions_table(featured: Mapping[str, Sequence[Run]]) -> pd.DataFrame:
    """The terms of each featured run per corpus grouped twice: by paper B's strict RBE (``gt``) and with ties above
    the target (``ge``), beside the tied targets and the residual.

    Parameters
    ----------
    featured : mapping of str to sequence of Run
        Per corpus, the runs drawn one by one (``featured_runs``).

    Returns
    -------
    pandas.DataFrame
        Columns corpus, model, grouping, targets with ties, EE, SA, Conf, residual.
    """
    rows = []
    for corpus, shown in featured.items():
        for run in shown:
            rec = run.records
            for convention, counts in (("gt (paper B)", rec.gt), ("ge (ties above)", rec.ge)):
                dec = metrics.ce_decomposition(rec.logp, counts)
                rows.append({"corpus": corpus, "model": runs.label(run), "grouping": convention,
                             "targets with ties": int(np.sum(rec.ge != rec.gt)),
                             "EE": dec.error_entropy, "SA": dec.self_alignment, "Conf": dec.confidence,
                             "residual": dec.residual})
    return pd.DataFrame(rows)


def bounds_table(evidence: Decompositions) -> pd.DataFrame:
    """Confidence against its ceiling for every model per corpus (B1.3).

    Returns
    -------
    pandas.DataFrame
        Columns corpus, family, model, max log Q_e + log(e+1), Conf, bound log sum 1/(e+1), Q_e ≤ 1/(e+1) for all e.
    """
    table = pd.DataFrame([{"corpus": m.corpus, "family": m.group, "model": m.name,
                           "max log Q_e + log(e+1)": m.ceiling_excess, "Conf": m.terms.confidence,
                           "bound log sum 1/(e+1)": m.confidence_bound} for m in evidence.models])
    table["Q_e ≤ 1/(e+1) for all e"] = bound_holds(table["max log Q_e + log(e+1)"])
    return table


def temperature_moves(temperatures: pd.DataFrame | None) -> dict[str, float]:
    """How far CE, EE, SA and Conf move across the temperatures (largest minus smallest, nats); NaN where the set
    extracts no tempered predictions.

    Examples
    --------
    >>> temperature_moves(pd.DataFrame({"CE": [3.0, 2.5], "EE": [2.0, 2.0], "SA": [0.3, 0.4], "Conf": [0.1, 0.3]}))
    {'CE': 0.5, 'EE': 0.0, 'SA': 0.10000000000000003, 'Conf': 0.19999999999999998}
    """
    return {q: np.nan if temperatures is None else float(temperatures[q].max() - temperatures[q].min())
            for q in ("CE", "EE", "SA", "Conf")}


def references_note(references: Sequence[Run], profile: str) -> str:
    """What the chapter says of the set's reference models (or of their absence), in MyST.

    Examples
    --------
    >>> references_note([], "tiny")[:46]
    'This model set (`tiny`) has **no reference mod'
    """
    if not references:
        return (f"This model set (`{profile}`) has **no reference model**, so the chapter shows the families' own "
                "models only. A set with a `[[references]]` entry (the built-in `tiny` set has one, a real "
                "pretrained model) adds it beside the families' largest models in every figure and table below.")
    return ("**Reference model" + "s" * (len(references) > 1) + "**, shown beside the families' largest models "
            "wherever this chapter looks at one model's predictions: "
            + "; ".join(f"*{run.name}* ({run.non_embedding:,} non-embedding parameters, vocabulary "
                        f"{run.vocab_size:,}): {run.note or 'the model set gives no description'}"
                        for run in references)
            + ". A reference model belongs to no family and is outside every size fit: it is shown for "
              "comparison, as one more trained model's predictions, never as a point on a family's line.")


def references_beside(glance: pd.DataFrame) -> str:
    """How the reference models' p_0 and EE / log V compare with the families' largest models' (``glance_table``),
    in MyST.
    """
    ladders = glance[glance.family != REFERENCE]
    refs = glance[glance.family == REFERENCE]
    if refs.empty:
        return "This set has no reference model to set beside the families."
    return "Beside the families: " + "; ".join(
        f"the reference *{name}* has $p_0$ from {part.p_0.min():.3f} to {part.p_0.max():.3f} and EE / log V from "
        f"{part['EE / log V'].min():.3f} to {part['EE / log V'].max():.3f} over the corpora"
        for name, part in refs.groupby("model", sort=False)) + (
        f", against $p_0$ from {ladders.p_0.min():.3f} to {ladders.p_0.max():.3f} and EE / log V from "
        f"{ladders['EE / log V'].min():.3f} to {ladders['EE / log V'].max():.3f} for the families' largest models.")


def ee_share(evidence: Decompositions) -> tuple[float, float]:
    """The smallest and largest share of CE that Error-Entropy makes up over every model and corpus."""
    shares = [m.terms.error_entropy / m.ce for m in evidence.models]
    return min(shares), max(shares)


def headline(evidence: Decompositions) -> list[str]:
    """The chapter's headline measurement for its findings (``rankscale.book.pages.findings_text``): the largest
    residual of the identity and EE's share of CE.

    Parameters
    ----------
    evidence : Decompositions

    Returns
    -------
    list of str
    """
    low, high = ee_share(evidence)
    return [f"On every model and corpus, CE equals EE + SA − Conf to within "
            f"{max(abs(m.residual) for m in evidence.models):.0e} nats, and Error-Entropy makes up {low:.0%} to "
            f"{high:.0%} of CE."]
