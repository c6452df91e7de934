# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Replication scorecard
#
# Every chapter ends with a table of the claims its paper section makes and a verdict on each.
# This page gathers those tables from the executed chapters of this build, so it always shows
# the same model set as the pages it summarises; first as one picture of where each claim held.

# %% tags=["parameters"]
profile = "tiny"
executed_dir = None  # the executed chapters (None: where `python -m rankscale book` puts this set's)

# %%
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from rankscale import RankscaleError
from rankscale import sets
from rankscale.book import build, pages, plots, regime, scorecard
from rankscale.book.chapter import open_chapter
from rankscale.claims import base, chapters

model_set = sets.get(profile)
where = Path(executed_dir) if executed_dir else build.executed_dir(model_set, build.ROOT)
# the book's chapters, in book order, read by name (never a .failed or .running copy beside them)
present = [name for name in build.CHAPTERS if (where / f"{name}.ipynb").is_file()]
missing = [name for name in build.CHAPTERS if name not in present]
if not present:
    raise RankscaleError(f"no executed chapter in {where}; run `make book PROFILE={profile}`")
notebooks = [where / f"{name}.ipynb" for name in present]
verdicts = pages.collect_verdicts(notebooks, profile)
models = pages.collect_models(notebooks)
# the regime the verdicts were reached in, said in the same sentence as their tally (rankscale.book.regime)
chapter = open_chapter(profile, show_header=False)
set_models = regime.model_rows(chapter.family_runs)
clause = regime.regime_clause(set_models, regime.law_rows(set_models), regime.baseline_rows(chapter.family_runs),
                              chapter.corpora[0])


n_families = len(model_set.families)
if models is not None:
    groups: dict[str, list[str]] = {}
    for model in models:
        groups.setdefault(model["family"] or "reference", []).append(model["name"])
    used = "; ".join(f"{family}: {', '.join(names)}" for family, names in groups.items())
    source = "the models the executed chapters read"
else:
    used = "; ".join([family.name for family in model_set.families]
                     + [f"reference: {model.name}" for model in model_set.references])
    source = "as the set defines them; the executed chapters do not record their models"
display(Markdown(
    f"**Computed with** model set `{model_set.name}`, {n_families} famil{'y' if n_families == 1 else 'ies'} "
    f"({source}): {used}. {len(verdicts)} claims from {len(present)} chapters."
    + (f"\n\n**Missing:** no executed notebook of {', '.join(map(chapters.label, missing))} in {where}; "
       "their claims are not counted below." if missing else "")))

# %%
empirical = verdicts[verdicts["kind"] == "empirical"]
grid = scorecard.claim_grid(empirical, list(model_set.corpora), [family.name for family in model_set.families],
                            [model.name for model in model_set.references])
fig = scorecard.draw_grid(grid, dict(zip(empirical["key"], empirical["verdict"])))
plots.show(fig)

# %% [markdown]
# Each row is one of the papers' empirical claims, each column a held-out corpus and a family
# (with "All", the families pooled into one fit, where a claim of paper B asks for it). A cell
# pools the claim's units of evidence that fall there (the family's fit, or each of its models):
# *holds* or *fails* where they agree, *mixed* where the claim held on some and failed on others,
# *undetermined* where the measurement could not decide, *untested* where the set lacks what the
# claim needs there; a white cell has no unit. The claim's verdict is at the right of its row.
# A verdict says whether a claim held *on the models of this set*: the offline sets' ladders are
# several orders of magnitude smaller than the papers' models, and a claim that fails there is
# not thereby refuted at the papers' scale. Nor is a claim that holds there thereby confirmed:
# over the narrow range these models span, a law of another form can fit as well, as the tally
# below says in numbers.
#
# ## The papers' empirical claims, by chapter
#
# Chapters A1-A5 replay paper A (relative-based scaling law), B1-B5 paper B (the cross-entropy
# decomposition). Only the papers' *empirical* claims, statements about models and data, are
# counted here. Statements that any trained model meets ("definitional"), identities and
# derivations that hold by construction ("analytic") and this companion's own questions
# ("beyond the paper") are listed in their own sections below and never counted as
# replications. A claim is *partly* reproduced when it holds on some of the units (corpus and
# family, or model) that decide it; the "held on" column says on how many, and how many of the
# units measured decided where some did not. Every interval is read one way: wholly on the
# claim's side of its threshold the claim holds there, wholly on the other side it fails, across
# the threshold the unit is undecided. *Undetermined* means the set measured the claim but the
# measurement cannot decide it (intervals across the threshold, a fit at its bound, a curvature
# through single-seed points), or decided it, all for the claim, on fewer than half of the units
# measured (a decided counterexample counts however few units decide); *not
# testable* means the set lacks what the claim needs. A unit whose interval ends within the
# bootstrap's own noise of a threshold is named "at the edge of the threshold": another run may
# read it otherwise. Every claim's rule (what is measured, the threshold and why)
# is fixed in `rankscale.claims` before any data are seen, and is shown beside its verdict.

# %%
counts = (pd.crosstab(empirical["chapter"], empirical["verdict"])
          .reindex(index=list(dict.fromkeys(verdicts["chapter"])), columns=list(base.VERDICTS), fill_value=0))
counts.loc["all"] = counts.sum()
totals = counts.loc["all"]
display(Markdown(
    f"**{len(empirical)} empirical claims of the papers on model set `{model_set.name}`:** "
    + ", ".join(f"{int(totals[v])} {v}" for v in base.VERDICTS) + (f", {clause}." if clause else ".")
    + " The [ladder page](ladder) sets these numbers out model by model."))
counts.style.set_caption("The papers' empirical claims by chapter and verdict on this set.")

# %% [markdown]
# What the picture and the tally say, and why the claims left open are open:

# %%
Markdown(scorecard.narrative(empirical, grid))

# %% [markdown]
# ## Findings about the papers
#
# A row can fail whatever the data, where the paper's own derivation does not give what its text
# says. Such rows are kind "analytic" and not counted above, but they are findings about the
# papers, so they come first; each carries its derivation.

# %%
findings = verdicts[verdicts["finding"] != ""]
display(Markdown("\n\n".join(f"**{row.key} · {row.claim}** ({row.verdict}). {row.finding}"
                               for row in findings.itertuples()) if len(findings)
                 else "No row of this build records a finding about a paper."))

# %% [markdown]
# ## Every empirical claim

# %%
columns = ["chapter", "key", "claim", "rule", "paper", "ours", "verdict", "held on"]
prose = f'class="{pages.PROSE_TABLE}"'
empirical[columns].style.hide(axis="index").format(escape="html").set_table_attributes(prose).set_caption(
    "Every empirical claim: its rule, the paper's value, this set's, the verdict and the units it held on.")

# %% [markdown]
# ## Definitional checks
#
# Statements that a model meets by being trained at all (it ranks the correct token above
# chance): a failure would mean a broken model or a bug, so a pass is no evidence for a paper.

# %%
definitional = verdicts[verdicts["kind"] == "definitional"]
(definitional[columns].style.hide(axis="index").format(escape="html").set_table_attributes(prose)
 .set_caption("Definitional checks: met by any trained model, listed apart from the count.") if len(definitional)
 else Markdown("No definitional check in this build."))

# %% [markdown]
# ## Analytic checks
#
# Identities and derivations that hold by construction; a failure here would be a bug in this
# companion or a slip in a paper's algebra, not a finding about models.

# %%
analytic = verdicts[verdicts["kind"] == "analytic"]
(analytic[columns].style.hide(axis="index").format(escape="html").set_table_attributes(prose)
 .set_caption("Analytic checks: identities and derivations, true or false by construction.") if len(analytic)
 else Markdown("No analytic check in this build."))

# %% [markdown]
# ## Beyond the papers
#
# Questions of this companion's own, about what the papers' measurements need.

# %%
beyond = verdicts[verdicts["kind"] == "beyond the paper"]
(beyond[columns].style.hide(axis="index").format(escape="html").set_table_attributes(prose)
 .set_caption("This companion's own questions, beyond what the papers claim.") if len(beyond)
 else Markdown("No question beyond the papers in this build."))
