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
# the same profile as the pages it summarises. A verdict says whether a claim held *on the models
# of this profile*: the offline ladder is several orders of magnitude smaller than the papers'
# models, and a claim that fails here is not thereby refuted at the papers' scale.

# %% tags=["parameters"]
profile = "tiny"
executed_dir = "../_build/executed/tiny"  # where `python -m rankscale book` put the chapters

# %%
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from rankscale import book, report

chapters = [Path(executed_dir) / f"{name}.ipynb" for name in book.CHAPTERS]
verdicts = report.collect_verdicts(chapters, profile)
display(Markdown(f"**Computed with** profile `{profile}`: {len(verdicts)} claims from {len(chapters)} chapters."))

# %% [markdown]
# ## Verdicts by chapter
#
# Chapters A1-A5 replay paper A (relative-based scaling law), B1-B5 paper B (the cross-entropy
# decomposition); B5 goes beyond the paper.

# %%
counts = pd.crosstab(verdicts["chapter"], verdicts["verdict"]).reindex(columns=list(report.VERDICTS), fill_value=0)
counts.loc["all"] = counts.sum()
counts

# %% [markdown]
# ## Every claim

# %%
verdicts.style.hide(axis="index").format(escape="html")
