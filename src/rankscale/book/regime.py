"""What a pass on a model set means: the regime of its families in numbers (how far CE moves against what counting
tokens reaches, how much -log RBP_1 changes, EE's part of CE, the embedding share of each size) and how well a
logarithmic law fits beside the papers' power laws, with size measured as the papers' final versions do (non-embedding
S) and as paper A's review version did (total M); the tables of the ladder page and the clause that the introduction's
headline and the scorecard's tally carry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from rankscale.analysis import components, fit, metrics
from rankscale.analysis.baselines import count_baselines
from rankscale.analysis.bootstrap import span
from rankscale.claims.a1 import same_targets
from rankscale.claims.base import MIN_SIZES
from rankscale.claims.context import sample, text_units
from rankscale.records import runs as runs_
from rankscale.records.runs import Run

LAW_QUANTITIES = ("CE", "EE", "-log RBP_1")  # the main laws: paper B's CE and EE, paper A's -log RBP_1


def model_rows(family_runs: Mapping[str, Sequence[Run]]) -> pd.DataFrame:
    """Every final model of the families on every corpus: its sizes and the quantities of the main laws.

    Parameters
    ----------
    family_runs : mapping of str to sequence of Run
        Per corpus, the families' final models (``Chapter.family_runs``).

    Returns
    -------
    pandas.DataFrame
        Columns ``corpus``, ``family``, ``model``, ``S`` (non-embedding parameters), ``M`` (total parameters),
        ``embedding share`` (1 - S/M), ``CE``, ``EE``, ``EE / CE`` and ``-log RBP_1``.
    """
    rows = []
    for corpus, members in family_runs.items():
        for run in members:
            ce, ee = components.terms_vector(sample(run, ("logp", "gt")))[:2]
            rows.append({"corpus": corpus, "family": run.family, "model": run.name, "S": run.non_embedding,
                         "M": run.total, "embedding share": 1 - run.non_embedding / run.total, "CE": ce, "EE": ee,
                         "EE / CE": ee / ce, "-log RBP_1": float(metrics.neg_log_rbp(
                             metrics.rank_1based(run.records.gt, run.records.ge), [1])[0])})
    return pd.DataFrame(rows)


def law_rows(models: pd.DataFrame) -> pd.DataFrame:
    """The main laws of every family of ``MIN_SIZES`` sizes on every corpus, three ways: a power law in S (the
    papers' fit), a logarithmic law in S (the quantity linear in log S) and a power law in M.

    Parameters
    ----------
    models : pandas.DataFrame
        ``model_rows``.

    Returns
    -------
    pandas.DataFrame
        Columns ``corpus``, ``family``, ``quantity`` (of ``LAW_QUANTITIES``), ``change`` (the largest model's value
        over the smallest's, minus 1), ``R² power law (S)``, ``R² log law (S)``, ``slope (S)``, ``R² power law (M)``
        and ``slope (M)`` (slopes of the log-log fits).

    Examples
    --------
    >>> s = np.array([1e3, 1e4, 1e5])
    >>> models = pd.DataFrame({"corpus": "c", "family": "f", "S": s, "M": s + 1e5, "CE": 6 * s ** -0.02,
    ...                        "EE": 5 * s ** -0.02, "-log RBP_1": 2 * s ** -0.05})
    >>> row = law_rows(models).iloc[0]
    >>> row["quantity"], round(float(row["R² power law (S)"]), 6), round(float(row["slope (S)"]), 6)
    ('CE', 1.0, -0.02)
    >>> bool(row["slope (M)"] < row["slope (S)"])  # M moves less across the family than S: a steeper law in M
    True
    """
    rows = []
    for (corpus, family), part in models.groupby(["corpus", "family"], sort=False):
        part = part.sort_values("S", kind="stable")
        if part["S"].nunique() < MIN_SIZES:
            continue
        for q in LAW_QUANTITIES:
            by_s, by_m = fit.fit_power_law(part["S"], part[q]), fit.fit_power_law(part["M"], part[q])
            rows.append({"corpus": corpus, "family": family, "quantity": q,
                         "change": part[q].iloc[-1] / part[q].iloc[0] - 1,
                         "R² power law (S)": by_s.r2, "R² log law (S)": fit.fit_semilog(part["S"], part[q]).r2,
                         "slope (S)": by_s.slope, "R² power law (M)": by_m.r2, "slope (M)": by_m.slope})
    return pd.DataFrame(rows)


def baseline_rows(family_runs: Mapping[str, Sequence[Run]]) -> pd.DataFrame:
    """What counting tokens reaches on each corpus's held-out text (``baselines.count_baselines``), once per
    tokenizer (the families whose models predict the same targets share it), beside the CE of the families'
    smallest and largest models on the same targets.

    Parameters
    ----------
    family_runs : mapping of str to sequence of Run
        Per corpus, the families' final models.

    Returns
    -------
    pandas.DataFrame
        Columns ``corpus``, ``families``, ``targets``, ``unigram CE``, ``unigram alpha``, ``bigram CE``,
        ``bigram alpha``, ``smallest model CE`` and ``largest model CE`` (over the families sharing the targets:
        the highest CE of their smallest models, the lowest of their largest).
    """
    rows = []
    for corpus, members in family_runs.items():
        for group in ([members[i] for i in idx] for idx in same_targets(members)):
            first = group[0].records
            found = count_baselines(first.target, first.window, text_units(first), group[0].vocab_size)
            by_family = runs_.by_family(group)
            ce = {family: [metrics.cross_entropy(run.records.logp) for run in sorted(fam, key=lambda r: r.non_embedding)]
                  for family, fam in by_family.items()}
            rows.append({"corpus": corpus, "families": ", ".join(by_family), "targets": len(first),
                         "unigram CE": found["unigram"].ce, "unigram alpha": found["unigram"].alpha,
                         "bigram CE": found["bigram"].ce, "bigram alpha": found["bigram"].alpha,
                         "smallest model CE": max(v[0] for v in ce.values()),
                         "largest model CE": min(v[-1] for v in ce.values())})
    return pd.DataFrame(rows)


def regime_clause(models: pd.DataFrame, laws: pd.DataFrame, baselines: pd.DataFrame, corpus: str) -> str:
    """The set's regime in one clause, for the sentence that tallies its verdicts: how far CE moves on ``corpus``
    against a bigram counted on other documents of the text, how much -log RBP_1 and EE's part of CE move across a family, how a
    logarithmic law fits beside the power law, and so what a pass can mean.

    Parameters
    ----------
    models, laws, baselines : pandas.DataFrame
        ``model_rows``, ``law_rows`` and ``baseline_rows`` of the set.
    corpus : str
        The corpus whose CE and laws the clause quotes (the book's first).

    Returns
    -------
    str
        "" where no family has ``MIN_SIZES`` sizes (no law to set beside).

    Examples
    --------
    >>> s = np.array([1e3, 1e4, 1e5])
    >>> models = pd.DataFrame({"corpus": "c", "family": "f", "S": s, "M": s + 1e5, "CE": 6 * s ** -0.02,
    ...                        "EE": 5 * s ** -0.02, "EE / CE": 5 / 6, "-log RBP_1": 2 * s ** -0.05})
    >>> baselines = pd.DataFrame({"corpus": ["c"], "bigram CE": [5.9], "smallest model CE": [5.2],
    ...                           "largest model CE": [4.8]})
    >>> print(regime_clause(models, law_rows(models), baselines, "c"))  # doctest: +NORMALIZE_WHITESPACE
    on models whose CE on `c` falls only from 5.20 to 4.80 nats (a bigram counted on other documents of the held-out
    text scores 5.90), whose -log RBP_1 falls by 21% across a family and whose EE is 83% of CE, and on which a
    logarithmic law fits CE with R² 1.000 against the power law's 1.000, so that a pass here says a law holds over this
    range and does not confirm the paper at its scale
    """
    if laws.empty:
        return ""
    here, ce_laws = baselines[baselines["corpus"] == corpus], laws[(laws["corpus"] == corpus) & (laws["quantity"] == "CE")]
    rbp = laws[laws["quantity"] == "-log RBP_1"]["change"]
    ce_small, ce_large = here["smallest model CE"].max(), here["largest model CE"].min()
    # the words follow the numbers: a set of the user's own may have a family that gets worse with size
    ce_moves = "falls only" if ce_large < ce_small else "goes"
    rbp_moves = f"falls by {span(-rbp, '.0%')}" if (rbp < 0).all() else f"changes by {span(rbp, '+.0%')}"
    return (f"on models whose CE on `{corpus}` {ce_moves} from {ce_small:.2f} to "
            f"{ce_large:.2f} nats (a bigram counted on other documents of the held-out text scores "
            f"{span(here['bigram CE'], '.2f')}), whose -log RBP_1 {rbp_moves} across a family "
            f"and whose EE is {span(models['EE / CE'], '.0%')} of CE, and on which a logarithmic law fits CE "
            f"with R² {span(ce_laws['R² log law (S)'], '.3f')} against the power law's "
            f"{span(ce_laws['R² power law (S)'], '.3f')}, so that a pass here says a law holds over this range and "
            "does not confirm the paper at its scale")
