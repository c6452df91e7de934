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
# # B5 · How many evaluation tokens do the components need? (beyond paper B)
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Cross-entropy is a plain average over tokens: with fewer tokens it gets noisier but not
# biased. Its three components are not averages. Error-Entropy is the entropy of an *estimated*
# distribution $p_e$ over thousands of possible ranks, Self-Alignment a divergence between two
# estimated distributions, and Confidence the logarithm of a sum of per-rank geometric means.
# With a finite sample, many RBE values are seen only once or twice; their $p_e$ and $Q_e$ are
# then dominated by chance, and such plug-in estimators are biased. The plug-in entropy is
# biased downwards, so EE is underestimated; Self-Alignment is biased upwards. Because CE itself
# is unbiased and CE = EE + SA − Conf holds on every sample, the biases of the three terms
# cancel in sum.
#
# Paper B evaluates on 1,000 instances (documents, cut to their first 512 tokens) per dataset
# and reports that selected experiments gave identical trends with 10,000 (its App. A.1). This
# chapter measures on the model set's families how EE, SA and Confidence, and their scaling
# exponents, change with the number of evaluation tokens, and from that how many tokens each
# figure of chapters B1-B4 needs; it then repeats the paper's own check, counted in instances,
# where the set holds enough of them. The same measurement decides which exponents [chapter B3](b3_component_scaling)
# may grade (`rankscale.analysis.sample_size.convergence_by_group`, with the settings of
# `rankscale.claims.b5`). Components use paper B's 0-based strict RBE $e$ = `gt`.
#
# Every number of this page comes from one call, `b5.measure`, which draws the subsamples
# (with the notebook's `seed`), decomposes CE on each and refits the exponents; the page then
# draws what it measured, lays it out as tables, and `b5.decide` turns it into verdicts. The
# parameter `model_index` only chooses which model of each family the first two figures show.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
model_index = -1  # the model of each family shown in detail (-1: the family's largest)
seed = 0

# %%
from dataclasses import replace

import numpy as np
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from myst_nb import glue

from rankscale.analysis.components import QUANTITIES
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import MIN_SIZES, b5

chapter = open_chapter(profile, corpora, spec=b5.SPEC)
model_set, corpora = chapter.model_set, chapter.corpora
context = replace(chapter.context(*b5.SPEC.tables), seed=seed)  # the seed of every draw of windows
evidence = b5.measure(chapter, context)  # every subsample, decomposition and exponent of the chapter
shown, first = evidence.shown(model_index), evidence.first  # the models drawn in detail; the first corpus
uneven = [c for c, s in evidence.corpora.items() if len(set(s.tokens.tolist())) > 1]
glue("b5_repeats", b5.B5_N_REPEATS, display=False)
glue("b5_sizes", len(first.grid), display=False)
glue("b5_fewest", Markdown(f"{first.grid[0]:,}"), display=False)
glue("b5_shown", Markdown(", ".join(f"{family} {evidence.models[m]}" for family, m in shown.items())), display=False)
glue("b5_uneven", Markdown(f"On {', '.join(uneven)} the models have different numbers of tokens (their tokenizers "
                           "differ); the subsample sizes there go up to the smallest of them." if uneven else
                           "Every model has the same number of tokens on each corpus."), display=False)
glue("b5_graded", Markdown(
    f"On this set the graded fits are {', '.join(evidence.groups)}." if evidence.groups else
    f"No exponent is graded on this set: no family has {MIN_SIZES} or more sizes ({'; '.join(context.unusable())}); "
    "the figure shows SA of every model only."), display=False)
glue("b5_value_tolerance", Markdown(f"{b5.B5_VALUE_TOLERANCE:.0%}"), display=False)
glue("b5_exponent_tolerance", b5.B5_EXPONENT_TOLERANCE, display=False)
glue("b5_exponent_floor", b5.B5_EXPONENT_FLOOR, display=False)

# %% [markdown]
# ## Subsampling
#
# For each corpus the held-out windows are shuffled (fixed seed) and the shortest run of whole
# windows holding at least $n$ tokens is taken, for a grid of $n$ from a thousand tokens up to
# every held-out token (`rankscale.analysis.sample_size.subsampled_decompositions`); this is repeated with
# different shuffles. Whole windows are kept
# together because neighbouring tokens are correlated, as they would be in a smaller evaluation
# set. Every model of a family sees the same subsamples, so differences between those models
# are not sampling noise of the text. At the largest $n$ every repeat holds the full set and
# the spread is zero.
#
# On this set: {glue:text}`b5_repeats` subsamples of whole windows per size, {glue:text}`b5_sizes`
# sizes from {glue:md}`b5_fewest:myst` tokens up to every token. {glue:md}`b5_uneven:myst`
#
# ## The components against the number of tokens
#
# {numref}`fig-b5-components-tokens` has one column per family, showing the model selected by
# `model_index` (by default the family's largest; here {glue:md}`b5_shown:myst`), and one row per
# quantity.

# %% mystnb={"figure": {"caption": "CE, EE, SA and Conf (rows) of one model per family (columns) against the number of evaluation tokens in subsamples of whole windows: mean over the repeats (line), one standard deviation (band) and the value on all tokens (dotted). Colours are corpora here, not families.", "name": "fig-b5-components-tokens"}}
fig, axes = plots.panels(len(QUANTITIES), len(shown), 2.4, sharex=True, sharey="row")
for column, (family, i) in zip(axes.T, shown.items()):
    for ax, quantity in zip(column, QUANTITIES):
        for j, (corpus, s) in enumerate(evidence.corpora.items()):
            n, values = s.subsamples[i]["n_tokens"].mean(axis=1), s.subsamples[i][quantity]
            mean, sd = values.mean(axis=1), values.std(axis=1)
            ax.semilogx(n, mean, "o-", ms=3, color=f"C{j}", label=corpus)
            ax.fill_between(n, mean - sd, mean + sd, color=f"C{j}", alpha=0.2)
            ax.axhline(s.term(quantity)[i], color=f"C{j}", ls=":", lw=1)
    column[0].set_title(f"{family} {evidence.models[i]}")
    column[-1].set_xlabel("evaluation tokens")
for ax, quantity in zip(axes[:, 0], QUANTITIES):
    ax.set_ylabel(f"{quantity} (nats)")
plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
plots.show(fig)

# %% [markdown]
# CE should wander around its full-set value, with a spread that shrinks as tokens are added,
# but without systematic drift. The components are expected to drift: the plug-in entropy EE
# upwards as more ranks get sampled, SA downwards. Confidence moves with them, since the drifts
# of EE, SA and Conf cancel in CE. Where a curve is still moving at the right edge, the value on
# all tokens, and with it the figures of chapters B1-B4, has not converged either.
#
# ## Why: ranks seen only once
#
# The number of distinct RBE values in a sample keeps growing with the sample, and a large part
# of them are seen exactly once. For such a rank $p_e = 1/N$ and $Q_e$ is one prediction's
# probability, so its term in SA, $p_e \log(p_e / q_e)$, is set by chance. Confidence has a
# second, simpler reason to depend on the sample: $C = \sum_e Q_e$ sums over the RBE values that
# *occur*, so every newly seen rank adds a term and $C$ grows with the sample until all $V$ ranks
# have been seen. The sign of Confidence can therefore change with nothing but the number of
# evaluation tokens. {numref}`fig-b5-ranks-seen` shows how many distinct RBE values a sample
# holds, and what fraction of them it holds once, for the models above.

# %% mystnb={"figure": {"caption": "Distinct RBE values in a subsample (left) and the fraction of them seen exactly once (right) against the number of evaluation tokens, for the models of the previous figure (one row per family; colours are corpora). The dashed line is the family's vocabulary size $V$, the number of RBE values there are.", "name": "fig-b5-ranks-seen"}}
fig, axes = plots.panels(len(shown), 2, 2.8, sharex=True, sharey="col")
for row, (family, i) in zip(axes, shown.items()):
    for j, (corpus, s) in enumerate(evidence.corpora.items()):
        sub = s.subsamples[i]
        n = sub["n_tokens"].mean(axis=1)
        row[0].semilogx(n, sub["ranks_seen"].mean(axis=1), "o-", ms=3, color=f"C{j}", label=corpus)
        row[1].semilogx(n, (sub["ranks_seen_once"] / sub["ranks_seen"]).mean(axis=1), "o-", ms=3, color=f"C{j}")
    row[0].axhline(evidence.vocab[i], color="grey", ls="--", lw=1, label="vocabulary V")
    row[0].set_ylabel("distinct RBE values")
    row[1].set_ylabel("fraction seen exactly once")
    for ax in row:
        ax.set_title(f"{family} {evidence.models[i]}")
for ax in axes[-1]:
    ax.set_xlabel("evaluation tokens")
plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
plots.show(fig)

# %% [markdown]
# ## Every model, and the scaling exponents
#
# The figures of chapters B3 and B4 compare models. A bias that were the same for every model
# would not matter for them; it is not, because weaker models spread their targets over more
# ranks. {numref}`fig-b5-exponents-tokens` shows, on the first corpus, SA of every model and
# the size exponents of every fit whose exponents the verdicts grade (each family with at least
# three sizes, and all models pooled as in [chapter B3](b3_component_scaling)), against the number of tokens.
# {glue:md}`b5_graded:myst`

# %% mystnb={"figure": {"caption": "First panel (top left): SA of every model against the number of evaluation tokens on the first corpus, in its family's colour and marker (lighter for smaller models). Then one panel per graded fit, on the same corpus: the size exponent $\\alpha_M$ of each quantity (paper B, eq. 9, colours in the legend) against the number of tokens, the mean over repeats of the exponents fitted on each repeat's subsample, with the exponent on all tokens dotted.", "name": "fig-b5-exponents-tokens"}}
corpus, groups = corpora[0], evidence.groups
n_cols = min(2, 1 + len(groups))  # two across, so that the text stays at body size (plots.show)
fig, axes = plots.panels(-(-(1 + len(groups)) // n_cols), n_cols, 3.0)
for ax in axes.flat[1 + len(groups):]:
    ax.set_visible(False)
axes = axes.flat[:1 + len(groups)]
for family in shown:
    idx, style = evidence.members(family), plots.family_style(model_set, family)
    for rank, m in enumerate(idx):
        sub = first.subsamples[m]
        axes[0].semilogx(sub["n_tokens"].mean(axis=1), sub["SA"].mean(axis=1), "-", marker=style["marker"], ms=3,
                         color=style["color"], alpha=0.35 + 0.65 * (rank + 1) / len(idx))
axes[0].set(title=f"SA of every model · {corpus}", ylabel="SA (nats)")
# the families' legend where SA has fallen away, top right; the exponents' colours (the same C0, C1, ...) below
axes[0].legend(handles=plots.family_handles(model_set, list(shown), ms=3), loc="upper right")
for ax, group in zip(axes[1:], groups):
    for k, quantity in enumerate(QUANTITIES):
        conv = first.convergence[group][quantity]
        ax.semilogx(first.grid, np.nanmean(conv.exponents, axis=1), "o-", ms=3, color=f"C{k}")
        ax.axhline(conv.full, color=f"C{k}", ls=":", lw=1)
    ax.axhline(0, color="k", lw=0.5)
    ax.set(title=f"{group} ({len(groups[group])} models)", ylabel="size exponent of |M|")
for ax in axes:
    ax.set_xlabel("evaluation tokens")
if groups:
    plots.legend_below(fig, [Line2D([], [], marker="o", ms=3, color=f"C{k}", label=f"α_{quantity}")
                             for k, quantity in enumerate(QUANTITIES)])
plots.show(fig)

# %% [markdown]
# ## How many tokens each figure needs
#
# The value on all tokens cannot serve as the truth when it is itself still drifting, so the
# error of an estimate from $n$ tokens is estimated from the data at hand: the spread of the
# repeats at $n$, combined with how much their mean still moved over the last doubling, from
# $n/2$ to $n$ tokens (for a bias that shrinks like $1/n$, that change equals the bias left at
# $n$; `rankscale.analysis.sample_size.sample_size_error`). A figure needs $n$ tokens if this error is within
# the tolerance at $n$ and at every larger size of the grid. The tolerances are fixed in
# `rankscale.claims.b5`: for a component's value {glue:md}`b5_value_tolerance:myst` of CE, for an
# exponent {glue:text}`b5_exponent_tolerance` × its own magnitude: a claim on an exponent (its
# sign, the law it belongs to) is on that exponent, and a drift of a tenth of it changes
# neither, however large or small the exponent is beside CE's. Near zero no drift is small
# relative to the exponent, so one smaller in magnitude than {glue:text}`b5_exponent_floor` ×
# $|\alpha_{\mathrm{CE}}|$ of the same fit is allowed {glue:text}`b5_exponent_tolerance` × that
# instead: on the scale on which the loss scales it does not scale, and a drift that small cannot
# make it. For the values the table gives, per family,
# the largest requirement over the family's models; exponents are those of the graded fits above.
# "more than available" means that the estimate was still moving over the last doubling up to
# the full held-out set: the page's figure for it is not converged. [Chapter B3](b3_component_scaling) grades its claim
# that SA rises only where SA's exponent reads converged here, and widens its comparisons of
# exponents by their drift.

# %%
glue("b5_tokens", Markdown(b5.tokens_text(evidence, model_set)), display=False)
b5.needs_table(evidence).style.set_caption(
    "Evaluation tokens each figure needs before its estimate settles within the tolerance, per fit and quantity "
    "(rows) and corpus (columns); a value's need is the largest over the family's models.")

# %% [markdown]
# {glue:md}`b5_tokens:myst`
#
# ## Paper B's own check: 1,000 against 10,000 instances (App. A.1)
#
# Paper B counts its evaluation sample in *instances*: it shuffles each dataset, keeps the first
# 1,000 documents and evaluates each one's first 512 tokens, and it reports that selected
# experiments repeated with 10,000 instances showed identical trends. An instance is therefore
# one evaluation window, and the paper's check compares the trends on 1,000 windows with those
# on 10,000. The trends of its §4 are the signs of the size exponents: CE and EE fall with size,
# SA rises; Confidence has no consistent trend (§4.1), so it is not compared. The check is
# repeated here literally where every model of a fit has at least 10,000 windows, and, as this
# companion's own question, at this set's scale: a tenth of the set's windows against all of
# them, the same ratio. Subsamples of windows are drawn as above (`unit="windows"`), and the
# exponent at each count is the mean over the repeats.

# %%
trends = b5.trends_table(evidence)
glue("b5_instances", Markdown(b5.instances_text(evidence)), display=False)
glue("b5_trend_changes", Markdown(
    f"Headline numbers of the table below: from {b5.TENTH} to {b5.EVERY}, {b5.trend_changes(trends)}."
    if len(trends) else "No fit is graded on this set, so there are no trends to compare."), display=False)

# %% [markdown]
# On this set:
#
# ```{glue:md} b5_instances
# :format: myst
# ```
#
# {glue:md}`b5_trend_changes:myst`

# %% tags=["hide-output"]
if len(trends):
    display(trends.style.format({col: "{:+.4f}" for col in trends.columns[3:]}, na_rep="—")
            .hide(axis="index").set_caption(
                f"Size exponents per corpus, fit and quantity on {b5.TENTH} and on {b5.EVERY} (each the mean over "
                f"{b5.B5_N_REPEATS} draws of windows), and on {b5.B5_PAPER_INSTANCES[0]:,} and "
                f"{b5.B5_PAPER_INSTANCES[1]:,} windows where every model has that many."))

# %% [markdown]
# ## Verdicts
#
# Each rule is fixed in `rankscale.claims.b5` (shown in the table) and decided there by a
# function of its own: *reproduced* if it holds on every unit tested, *partly* on some,
# *not reproduced* on none. Only the App. A.1 row is a claim of paper B; the bias rows are this
# companion's measurements (the one on EE holds by construction, so it is marked analytic), and
# so is the last row, which asks whether this set's held-out data are enough for everything the
# chapters B1-B4 report. The bias rules read the mean over repeats at the smallest subsample
# with its 95% interval ($\pm 1.96$ standard errors over the repeats), and claim a direction: a
# model's interval wholly on the claimed side of the value on all tokens holds, wholly on the
# other side fails, and one that holds the value leaves the family undetermined. The trend rules
# are tested on the graded fits only (a family with fewer than three sizes is named and left
# out), and the last row on each corpus as a whole.

# %%
verdicts = pages.verdict_table("B5", b5.SPEC.decide(evidence, context), model_set.name, b5.headline(evidence, context))

# %% [markdown]
# ## What the verdicts say together
#
# B5.1 and B5.2 are the reason for the rest: the components' values on a small sample are
# biased, not only noisy, and the bias differs between models. B5.3 and B5.4 ask whether that
# bias reaches the conclusions of paper B, which rest on the signs of the size exponents; a
# trend that keeps its sign from a tenth of the windows to all of them can still move in size,
# which the table above shows. B5.5 asks the stricter question of whether the numbers
# themselves, not only their signs, have settled on the tokens this set evaluates.

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B5", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them. Every subsample here is a prefix of one fixed, seeded shuffle of a model's windows, so
# the checker draws the same windows as you do.
#
# ```{exercise} b5.1 · Self-Alignment on a thousand tokens
# :label: ex-b5-1
# :nonumber:
# Take the largest model of the first family on the first corpus, `run = teaching.largest_run(chapter)`.
# Shuffle its windows, `ids = np.unique(run.records.window)` and
# `order = ids[np.random.default_rng(0).permutation(len(ids))]`, and keep the fewest whole windows from the
# start of `order` that hold at least 1,000 targets. With numpy only, decompose CE on those targets and on all
# of them (paper B's 0-based strict RBE $e$ = `gt`; $p_e = N_e/N$, $\log Q_e$ the mean `logp` of the
# targets of rank $e$, $q_e = Q_e / \sum_e Q_e$, $\mathrm{SA} = \sum_e p_e \log(p_e/q_e)$), and give SA on
# the subsample minus SA on all tokens; check it with `teaching.check("b5.1", answer, chapter)`. Then
# change two things: do the same for EE, and keep 4,000 targets instead of 1,000. Which way did each term
# move, and by how much less with four times the tokens?
# ```
#
# ```{exercise} b5.2 · Ranks seen only once
# :label: ex-b5-2
# :nonumber:
# For the same model, on all its tokens, what share of the distinct RBE values (distinct values of `gt`)
# occurs exactly once? Check it with `teaching.check("b5.2", answer, chapter)`. Then compute the same
# share on the 1,000-target subsample of the previous exercise. Why does a rank seen once make its term of
# SA a matter of chance, and why does Confidence tend to grow as the sample sees more ranks?
# ```
#
# ```{exercise} b5.3 · How many windows until the SA exponent keeps its sign
# :label: ex-b5-3
# :nonumber:
# Take the first family on the first corpus, `runs = teaching.family_models(chapter)` (smallest first).
# For $n$ = 1, 2, 4, 8, ... windows (the powers of two below the fewest windows of any of its models, then
# all of those windows), give every model the first $n$ windows of its own shuffle (made as in exercise
# b5.1, from its own window ids), compute its SA, and fit the size exponent $\alpha_{\mathrm{SA}}$ as the
# slope of $\log \mathrm{SA}$ on $\log$ of the non-embedding size (`run.non_embedding`) with
# `numpy.polyfit`. From which $n$ of that grid on does $\alpha_{\mathrm{SA}}$ have, at every larger $n$,
# the sign it has on all windows? Check that $n$ with `teaching.check("b5.3", answer, chapter)`. Then put
# EE in place of SA and say what moved, and why the chapter's B5.3 and B5.4 compare signs on many more
# instances than this.
# ```

# %% [markdown]
# ```{solution-start} ex-b5-1
# :class: dropdown
# ```
#
# For each number of targets, the windows are added in the shuffled order until they hold enough
# targets; the decomposition then groups the kept targets by their rank:

# %%
import numpy as np

from rankscale import teaching

run = teaching.largest_run(chapter)
logp, rbe, window = run.records.logp.astype(np.float64), run.records.gt, run.records.window
ids = np.unique(window)
order = ids[np.random.default_rng(0).permutation(len(ids))]
filled = np.cumsum([np.sum(window == w) for w in order])  # targets in the first 1, 2, ... windows
terms, kept = {}, {}  # targets wanted -> (SA, EE) on the subsample, and which targets it holds
for wanted in (1000, 4000, len(logp)):
    keep = kept[wanted] = np.isin(window, order[:min(int(np.argmax(filled >= wanted)) + 1, len(order))])
    e, inverse, n_e = np.unique(rbe[keep], return_inverse=True, return_counts=True)
    p, log_q = n_e / keep.sum(), np.bincount(inverse, weights=logp[keep]) / n_e
    log_q = log_q - np.log(np.sum(np.exp(log_q)))  # q_e = Q_e / C
    terms[wanted] = (np.sum(p * (np.log(p) - log_q)), -np.sum(p * np.log(p)))
answer = terms[1000][0] - terms[len(logp)][0]
glue("ex_b5_1", float(answer), display=False)
glue("ex_b5_1_ee", float(terms[1000][1] - terms[len(logp)][1]), display=False)
glue("ex_b5_1_sa4", float(terms[4000][0] - terms[len(logp)][0]), display=False)
glue("ex_b5_1_ee4", float(terms[4000][1] - terms[len(logp)][1]), display=False)
teaching.check("b5.1", answer, chapter)

# %% [markdown]
# On about 1,000 tokens SA reads {glue:text}`ex_b5_1:.4f` nats off its value on all tokens, and EE
# {glue:text}`ex_b5_1_ee:.4f`; on about 4,000 tokens the two differences are {glue:text}`ex_b5_1_sa4:.4f`
# and {glue:text}`ex_b5_1_ee4:.4f`. A positive difference means the small sample overstates the term.
# One shuffle is one draw: the chapter's claims B5.1 and B5.2 average ten of them and read the mean
# against its interval, so a single draw may land on either side where the bias is small against the
# spread. A bias that falls like $1/n$ would shrink about fourfold from the first pair to the second;
# how far these numbers follow that depends on the draw as much as on the bias.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b5-2
# :class: dropdown
# ```

# %%
values, counts = np.unique(rbe, return_counts=True)
once = np.mean(counts == 1)
glue("ex_b5_2", float(once), display=False)
glue("ex_b5_2_distinct", len(values), display=False)
glue("ex_b5_2_few", float(np.mean(np.unique(rbe[kept[1000]], return_counts=True)[1] == 1)), display=False)
teaching.check("b5.2", once, chapter)

# %% [markdown]
# On all tokens {glue:text}`ex_b5_2_distinct` distinct RBE values occur, and a share of
# {glue:text}`ex_b5_2:.4f` of them only once; on the 1,000-target subsample the share is
# {glue:text}`ex_b5_2_few:.4f`. A rank seen once has $p_e = 1/N$ and $Q_e$ equal to the probability of
# that single prediction, so its term $p_e \log(p_e/q_e)$ in SA is set by one draw, not by the model.
# Confidence is $\log \sum_e Q_e$ over the ranks that occur: each newly seen rank adds a positive term
# to the sum, so $C$ tends to grow with the sample (the $Q_e$ of ranks already seen move too) until all
# $V$ ranks have been seen.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b5-3
# :class: dropdown
# ```
#
# Every model of the family is evaluated on the same windows, so one shuffle per model gives each the
# same subsamples; the slope of a line through $(\log N, \log \mathrm{SA})$ is the exponent at each $n$:

# %%
runs = teaching.family_models(chapter)
n_all = min(len(np.unique(r.records.window)) for r in runs)
grid = [2 ** i for i in range(n_all.bit_length()) if 2 ** i < n_all] + [n_all]
sa, ee = np.zeros((len(runs), len(grid))), np.zeros((len(runs), len(grid)))
for j, r in enumerate(runs):
    ids = np.unique(r.records.window)
    order = ids[np.random.default_rng(0).permutation(len(ids))]
    for i, n in enumerate(grid):
        keep = np.isin(r.records.window, order[:n])
        e, inverse, n_e = np.unique(r.records.gt[keep], return_inverse=True, return_counts=True)
        p, log_q = n_e / keep.sum(), np.bincount(inverse, weights=r.records.logp[keep].astype(np.float64)) / n_e
        sa[j, i] = np.sum(p * (np.log(p) - log_q + np.log(np.sum(np.exp(log_q)))))
        ee[j, i] = -np.sum(p * np.log(p))
log_size = np.log([r.non_embedding for r in runs])
slopes = {q: np.polyfit(log_size, np.log(v), 1)[0] for q, v in (("SA", sa), ("EE", ee))}  # one per n
signs = {q: np.sign(a) for q, a in slopes.items()}
first_kept = {q: grid[0] if np.all(s == s[-1]) else grid[int(np.flatnonzero(s != s[-1])[-1]) + 1]
              for q, s in signs.items()}
answer = first_kept["SA"]
glue("ex_b5_3", answer, display=False)
glue("ex_b5_3_all", n_all, display=False)
glue("ex_b5_3_ee", first_kept["EE"], display=False)
glue("ex_b5_3_alpha", float(slopes["SA"][-1]), display=False)
teaching.check("b5.3", answer, chapter)

# %% [markdown]
# Out of {glue:text}`ex_b5_3_all` windows, $\alpha_{\mathrm{SA}}$ keeps its final sign from
# {glue:text}`ex_b5_3` windows on (on all windows $\alpha_{\mathrm{SA}}$ = {glue:text}`ex_b5_3_alpha:.4f` in
# this family); with EE in its place the answer is {glue:text}`ex_b5_3_ee` windows. A sign that settles on
# few windows says that the models differ in that term by more than one draw of text moves it. Yet this
# is one shuffle and a grid of doublings: the sign could still flip at a count between two grid points,
# or under another shuffle, which is why the chapter's B5.3 and B5.4 take the mean exponent over ten
# draws and compare signs on a tenth of the windows and on all of them, or on 1,000 and 10,000.
#
# ```{solution-end}
# ```
