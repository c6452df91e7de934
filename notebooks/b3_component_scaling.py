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
# # B3 · Which component scales?
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Paper B's central claim (§4) is that of the three components of cross-entropy only
# Error-Entropy follows a power law in model size, and that it does so even more cleanly than
# CE itself; Self-Alignment and Confidence do not scale. The paper shows it as log-log plots
# (Fig. 7) and with two tables: the $R^2$ of a power-law fit for each quantity (Table 1) and the
# distance of each component's exponent from CE's (Table 2), for the Qwen, Pythia and GPT-2
# families and for all 32 models pooled ("All").
#
# This chapter fits the same laws on the model set's families, each on its own and, where the
# set has more than one family, pooled as the paper pools them. Two statements of the paper
# outside its tables are tested too: that Self-Alignment trends upwards with size (§4.1), and
# that Self-Alignment and Confidence stay largely invariant (abstract), measured by how much of
# CE's change across a family each component carries. Components come from paper B's
# decomposition with the 0-based strict rank-based error $e$ = `gt`.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
n_boot = None  # bootstrap resamples (None: the model set's)
seed = 0

# %%
from dataclasses import replace

import numpy as np
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from matplotlib.ticker import FormatStrFormatter
from myst_nb import glue

from rankscale.analysis.bootstrap import LEVEL
from rankscale.analysis.components import QUANTITIES
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import B5_EXPONENT_TOLERANCE, B5_MIN_TOKENS, B5_N_GRID, B5_N_REPEATS, MIN_SIZES, b3, b5
from rankscale.claims.base import POOLED

chapter = open_chapter(profile, corpora, spec=b3.SPEC, n_boot=n_boot)
model_set, corpora, families = chapter.model_set, chapter.corpora, chapter.families
context = replace(chapter.context(*b3.SPEC.tables), seed=seed)  # the parameter seed draws every resample

# %% [markdown]
# ## The fit (paper B, §4.2, eq. 9)
#
# For each quantity $M \in \{\mathrm{CE}, \mathrm{EE}, \mathrm{SA}, \mathrm{Conf}\}$ paper B
# fits $\log |M| = c_M + \alpha_M \log N$ by least squares across models, with $N$ the
# non-embedding parameter count, and reports the $R^2$ of that line and
# $|\Delta_M| = |\alpha_M - \alpha_{\mathrm{CE}}|$. The absolute value matters for Confidence,
# which can be negative; where it changes sign between models, $\log|\mathrm{Conf}|$ is not a
# smooth function of size and no power law can fit it.
#
# The paper fits each of its three families (Qwen, Pythia, GPT-2) on its own and all of them
# together ("All": one line through every model of every family). So does this chapter: one
# fit per family of the set and, where the set has more than one family, one pooled fit over
# every model. The pooled fit asks more than the per-family ones: a single line can only fit
# well if the families share not just the exponent but also the level, i.e. if models of equal
# size from different families have about the same value.
#
# Every model's evaluation documents are resampled whole with replacement, the same documents for every
# model of a family (`rankscale.analysis.bootstrap.resample`,
# with `rankscale.analysis.components.terms_vector` as the metric) and all four quantities are recomputed
# on each resample, so each replicate gives every fit's exponent and $R^2$ for every quantity at
# once (`rankscale.analysis.components.group_bootstrap`). Differences between quantities (an $R^2$ of EE
# minus that of CE, the gap of SA minus the gap of EE) are then computed replicate by replicate,
# so their spread is the spread of the differences themselves. Every interval of this chapter is
# the value measured on all tokens plus or minus 1.96 standard deviations of its replicates
# (`rankscale.analysis.bootstrap.interval`); why it is centred on the measured value is explained below
# the table of exponents.

# %%
evidence = b3.measure(chapter, context)  # every fit, bootstrap and convergence check of the chapter
glue("b3_n_boot", context.n_boot, display=False)
glue("b3_usable", Markdown(", ".join(context.usable()) or "none"), display=False)
glue("b3_left_out", Markdown("; ".join(context.unusable()) or "none"), display=False)

# %% [markdown]
# Every interval of this chapter rests on {glue:text}`b3_n_boot` bootstrap resamples (the model
# set's number, unless the chapter's parameter `n_boot` sets another; the parameter `seed` draws
# them). Size claims are tested on the families with at least three sizes: {glue:md}`b3_usable:myst`;
# left out: {glue:md}`b3_left_out:myst`.

# %% [markdown]
# ## Component against size (paper B, §4.1, Fig. 7)
#
# {numref}`fig-b3-components` has one row per quantity and one column per corpus, on log-log
# axes of $|M|$ against non-embedding parameters, the panels of the paper's Fig. 7 with its rows
# and columns swapped. The legends give each fit's exponent $\alpha_M$ and $R^2$; a family with
# fewer than three sizes shows its exponent only, since the $R^2$ of a line through two points is
# 1 by construction.

# %% mystnb={"figure": {"caption": "Paper B, Fig. 7 analogue: $|M|$ against non-embedding parameters, one row per quantity ($M$ = CE, EE, SA and Conf) and one column per corpus. Each family has its colour and marker (as in every chapter) and its fitted power law (solid); the dashed black line is the pooled fit over every model (“All”). Each panel's legend gives every fit's exponent α, then its R². Open markers are models whose value is negative, drawn at its absolute value.", "name": "fig-b3-components"}}
fig, axes = plots.corpus_panels(corpora, 2.5, rows=len(QUANTITIES), sharex=True)
for column, corpus in zip(axes.T, corpora):
    table = evidence.values[corpus]
    for ax, quantity in zip(column, QUANTITIES):
        for family in families:
            part, f = table[table.family == family], evidence.fit(corpus, family, quantity)
            plots.size_plot(ax, model_set, family, part["size"], part[quantity].abs(), f,
                            label=plots.fit_label(f, evidence.n_sizes[family], MIN_SIZES))
            negative, style = part[part[quantity] < 0], plots.family_style(model_set, family)
            ax.plot(negative["size"], negative[quantity].abs(), linestyle="none", marker=style["marker"],
                    color=style["color"], markerfacecolor="white")
        pooled = evidence.fit(corpus, POOLED, quantity)
        if pooled:
            grid = np.geomspace(table["size"].min(), table["size"].max(), 50)
            ax.plot(grid, pooled.predict(grid), "--", color="black", lw=1,
                    label=plots.fit_label(pooled, evidence.n_sizes[POOLED], MIN_SIZES))
        ax.yaxis.set_major_formatter(FormatStrFormatter("%.3g"))
        ax.yaxis.set_minor_formatter(plots.plain_minor_labels())
        plots.legend_above_data(ax, 0.35)
for ax, quantity in zip(axes[:, 0], QUANTITIES):
    ax.set_ylabel(f"|{quantity}| (nats)")
plots.size_axes(axes)
pooled_handle = [Line2D([], [], color="black", ls="--", lw=1, label="All (pooled fit)")] if len(families) > 1 else []
plots.legend_below(fig, plots.family_handles(model_set, families, ls="none") + pooled_handle)
plots.show(fig)

# %% [markdown]
# In paper B's Fig. 7 the CE and EE panels of its 16 models (from several families, drawn
# together) fall on nearly straight lines, SA drifts upwards and Confidence scatters. Here
# every model is measured on the same held-out tokens of a corpus, so differences between
# models of one tokenizer are not sampling noise of the text, but SA and Confidence are small
# numbers and, as [chapter B5](b5_sample_size) shows, their estimates carry a bias that depends on the model.

# %%
glue("b3_evaluated", Markdown(b3.evaluated(evidence)), display=False)

# %% [markdown]
# Paper B evaluates each model on 1,000 instances (documents cut to their first 512 tokens) per
# dataset (its App. A.2); this set evaluates every model on {glue:md}`b3_evaluated:myst`. Chapter B5
# shows what that number means for each quantity.

# %% [markdown]
# ## Fit quality (paper B, Table 1)
#
# Our $R^2$ in the layout of the paper's Table 1, a row per family and the pooled row "All",
# then the paper's own Table 1 (its values, read from the reference tables). A family with
# fewer than three sizes has no $R^2$ here ("—"): a line through two points fits them
# exactly. The corpora differ: the paper uses Wikipedia, C4 and the GitHub part of the Pile; the
# offline sets use Python documentation (`pydocs`, prose with code), standard-library sources
# (`stdlib`, code) and HumanEval (`humaneval`, code); the header names this set's. With few
# models a high $R^2$ is easy to get and a low one is informative.
#
# A note for readers of the paper: its §4.2 quotes Confidence values for the pooled fits
# (0.1002, 0.0625, 0.2116) as $R^2$; those numbers are the "All" row of its Table 2 (exponent
# gaps). The pooled $R^2$ of Confidence in its Table 1 are the ones shown below.

# %%
display(b3.r2_table(evidence).style.format("{:.4f}", na_rep="—").set_caption(
    "Ours: R² of the log-log fit of |M| against size, per family and pooled (rows) and per corpus and quantity "
    f"(columns); a dash where a family has fewer than {MIN_SIZES} sizes."))
display(b3.paper_table(context, b3.TABLE1).style.format("{:.4f}").set_caption(
    "Paper B's Table 1 (the paper's values, 32 hub models): R² of the log-log fit of |M| against size, per family "
    "and pooled (rows) and per dataset and quantity (columns)."))

# %% [markdown]
# ## Exponent gaps (paper B, Table 2)
#
# $|\Delta_M| = |\alpha_M - \alpha_{\mathrm{CE}}|$: how far each component's exponent is from
# CE's. A component that carries CE's scaling has a small gap. Exponents of a family with two
# sizes are shown but, like their $R^2$, not graded.

# %%
display(b3.gaps_table(evidence).style.format("{:.4f}", na_rep="—").set_caption(
    "Ours: the exponent gap |α_M − α_CE| of each component, per family and pooled (rows) and per corpus and "
    "component (columns); a dash where there is no fit."))
display(b3.paper_table(context, b3.TABLE2).style.format("{:.4f}").set_caption(
    "Paper B's Table 2 (the paper's values): the exponent gap |α_M − α_CE| per family and pooled (rows) and per "
    "dataset and component (columns)."))

# %% [markdown]
# ## Have the exponents converged? ([chapter B5](b5_sample_size)'s check)
#
# A plug-in estimate of SA or Confidence depends on how many evaluation tokens it is computed
# from, and by a different amount for each model ([chapter B5](b5_sample_size)). An exponent fitted to such
# estimates can then describe the sample rather than the models: a weak model's SA is
# inflated more than a strong model's on the same tokens, which tilts the line. [Chapter B5](b5_sample_size)
# measures this by subsampling whole windows; this chapter runs the same check
# (`rankscale.analysis.sample_size.convergence_by_group`, with the settings of `rankscale.claims`):
# every model's quantities are recomputed on nested subsamples of whole windows, from a few
# windows up to all of them, each group's exponent is refitted on every subsample, and the
# exponent counts as converged at the evaluated token count if its mean moved by at most a
# fixed fraction of its own magnitude over the last doubling of the tokens, or of a fixed share
# of $|\alpha_{\mathrm{CE}}|$ where it is nearer zero than that (stated below).
# A verdict that reads SA's exponent uses only the groups where it has converged, and the verdict
# on how unstable Confidence's fits are only the fits whose Confidence exponent has; the verdicts
# that compare exponents widen their intervals by this drift instead.

# %%
convergence = b3.convergence_table(evidence)
for name, value in (("repeats", B5_N_REPEATS), ("grid", B5_N_GRID), ("min_tokens", f"{B5_MIN_TOKENS:,}"),
                    ("tolerance", B5_EXPONENT_TOLERANCE), ("floor", b5.B5_EXPONENT_FLOOR),
                    *zip(("converged", "converged_each"),
                                                              b3.converged_counts(convergence))):
    glue(f"b3_{name}", Markdown(str(value)), display=False)

# %% [markdown]
# Subsamples: {glue:md}`b3_repeats:myst` random orders of the windows, {glue:md}`b3_grid:myst` token
# counts from {glue:md}`b3_min_tokens:myst` to every token; allowed drift over the last doubling:
# {glue:md}`b3_tolerance:myst` × the exponent's own magnitude, and no less than
# {glue:md}`b3_tolerance:myst` × {glue:md}`b3_floor:myst` × $|\alpha_{\mathrm{CE}}|$ of the same fit
# (relative to an exponent nearer zero no drift would be small). Of the exponents in the
# table below, {glue:md}`b3_converged:myst` have converged at the evaluated token count
# ({glue:md}`b3_converged_each:myst`).

# %% tags=["hide-output"]
display(convergence.style.format({"exponent": "{:+.4f}", "drift over the last doubling": "{:.4f}",
                                  "allowed": "{:.4f}"}).hide(axis="index").set_caption(
    "Whether each exponent has converged, per corpus, fit and quantity: the exponent on every token, how far its mean "
    "moved over the last doubling of the tokens, and the drift allowed."))

# %% [markdown]
# ## Exponents with bootstrap intervals
#
# The paper gives no uncertainty for its exponents. Ours come with 95% intervals from
# resampling the evaluation documents: the exponent on all tokens plus or minus 1.96
# standard deviations of its replicates. They carry the choice of documents from this corpus,
# not the choice of another corpus; they do show which slopes are
# distinguishable from zero on this sample. The last column but one is the mean of the
# replicates, for the reason given under the table.

# %%
exponents = b3.exponents_table(evidence)
pairs, spans = b3.exponent_spans(exponents)
glue("b3_exponent_pairs", pairs, display=False)
glue("b3_exponent_spans", Markdown(spans), display=False)

# %% [markdown]
# Over the table's {glue:text}`b3_exponent_pairs` corpus and fit pairs, the exponent α of each
# quantity spans {glue:md}`b3_exponent_spans:myst`.

# %% tags=["hide-output"]
display(exponents.style.format({"exponent α": "{:+.4f}", "R²": "{:.3f}", "mean of the replicates": "{:+.4f}"},
                               na_rep="—").hide(axis="index").set_caption(
    f"Each fit's exponent α of |M| against size, per corpus, fit and quantity, with its {LEVEL:.0%} "
    f"interval, R² (where {MIN_SIZES} or more sizes), the mean of the replicates, and whether it converged."))

# %% [markdown]
# **Why the intervals are centred on the measured value (Self-Alignment especially).** A
# percentile interval, read off the sorted replicates, assumes that a statistic computed on a
# resample scatters around the statistic of the original sample. For CE, a plain mean, it does.
# Self-Alignment is a plug-in Kullback-Leibler divergence over hundreds or thousands of RBE
# groups, many of them holding one or two targets; such estimators are biased upwards, and their
# bias depends on how many rarely seen groups there are. A resample with replacement keeps only
# about 63% of the distinct tokens, so the group counts change systematically: the resampled SA
# values are not centred on the original SA, and because weaker models spread their targets
# over more ranks, the shift differs between models and moves the fitted slope as well (compare
# the exponent with the mean of its replicates above). Percentiles of the replicates would then
# describe the slope of the *resampled* estimator and can miss the measured one entirely.
# Confidence is affected in the same way through the per-group geometric means, and near zero
# the logarithm of its absolute value magnifies any shift. So the book takes from the
# replicates only their spread, the noise of the resampling, and centres every interval on the
# value measured on all tokens. The bias itself is not noise that more resamples would average
# away: it shrinks only with more evaluation tokens, which is what the convergence check
# measures, and the verdicts below allow for it.
#
# ## How much of CE's change each component carries
#
# $R^2$ and exponents of $\log|M|$ say whether a component follows a power law, not how much
# it moves: SA can fit a line perfectly while changing by a hundredth of a nat. Because
# CE = EE + SA − Conf, the change of CE from a family's smallest to its largest model splits
# exactly into the changes of EE, SA and −Conf; their shares $\Delta\mathrm{EE}/\Delta\mathrm{CE}$,
# $\Delta\mathrm{SA}/\Delta\mathrm{CE}$ and $-\Delta\mathrm{Conf}/\Delta\mathrm{CE}$ add up to 1
# (`rankscale.analysis.components.change_shares`). If only EE scales, its share is close to 1 and the
# others close to 0; a negative share is a component moving against CE (SA rising while CE
# falls, as paper B's Fig. 7 shows). Intervals are from the same resamples as above, centred on
# the shares measured on all tokens.

# %%
display(b3.changes_table(evidence).style.format({"ΔCE (nats)": "{:+.4f}"}).hide(axis="index").set_caption(
    "How CE's change from each family's smallest to its largest model splits, per corpus: ΔCE (nats) and the share of "
    f"it each component carries, with its {LEVEL:.0%} interval; the shares sum to 1."))

# %% [markdown]
# ## Verdicts
#
# Each rule is fixed in `rankscale.claims.b3` (shown in the table) and decided there, by a
# function of its own, from the fits above: *reproduced* if it holds on every unit tested,
# *partly* on some, *not reproduced* on none. Units are (corpus, family) pairs of families with at
# least three sizes and, where a rule says so, the pooled fit of each corpus.
#
# - *Intervals.* Every interval is the value on all tokens plus or minus 1.96 standard
#   deviations of its replicates over the paired resamples of the documents above
#   (`rankscale.analysis.bootstrap.interval`): the replicates give the resampling noise, not the centre,
#   since the plug-in components are biased and the resamples sit to one side of the value. An
#   interval of an $R^2$ can reach above 1, the most an $R^2$ can be; only its lower end enters
#   the rules that use it.
# - *How an interval decides*, one reading for every rule (`rankscale.claims.base.read`,
#   `rankscale.claims.base.read_band`). A claim that a difference or a direction exists (EE fits
#   *better* than CE, EE's exponent is the closest, SA rises, an $R^2$ reaches the threshold)
#   holds where the whole interval lies on its side of the threshold, fails where the whole
#   interval lies on the other side, and is *undetermined* where the interval crosses the
#   threshold: noise shows nothing either way. A claim of parity (SA and Confidence stay *largely
#   invariant*) is read against a band fixed before the data (a quarter of CE's change either way):
#   it holds where the interval lies wholly inside the band, fails where it lies wholly outside,
#   and is undetermined across an edge, so that noise cannot help it either. A unit whose interval
#   ends within the bootstrap's own noise of a threshold is named *at the edge* in the verdict.
# - *Convergence.* A rule waits for convergence only where it reads a converged quantity: the
#   rule that SA rises reads SA's exponent, so it is tested only where that exponent has stopped
#   drifting as tokens are added (above). The rules that compare exponents (EE's the closest to
#   CE's, SA's the farthest) widen each interval by the two exponents' drift over the last
#   doubling of the tokens instead, so the comparison has to hold beyond both the resampling
#   noise and what more tokens could still change. The rule that Confidence's fits are unstable
#   compares their $R^2$ between families, and a spread between fits whose exponent still drifts
#   would be the sample's, not the families': it reads only the fits whose Confidence exponent has
#   converged, shows the others, and is not tested with fewer than two. The other rules on an
#   $R^2$ or on shares of CE's change read no exponent and are applied everywhere.
#
# The paper's column counts the same conditions on the cells of its own tables (its point
# values: the paper gives no intervals).

# %%
table = pages.verdict_table("B3", b3.SPEC.decide(evidence, context), model_set.name, b3.headline(evidence, context))

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B3", table);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them.
#
# ```{exercise} b3.1 · Error-Entropy's power law by hand
# :label: ex-b3-1
# :nonumber:
# Take the final models of the first family on the first corpus, `runs = teaching.family_models(chapter)`
# (smallest first). For each model compute EE from its records with numpy only: group the targets by
# their 0-based strict rank-based error $e$ = `run.records.gt`, let $p_e$ be the share of targets with
# error $e$, and take $\mathrm{EE} = -\sum_e p_e \log p_e$ (natural logarithm). Then fit
# $\log \mathrm{EE} = c + \alpha_{\mathrm{EE}} \log N$ with `numpy.polyfit`, $N$ = `run.non_embedding`,
# and check $\alpha_{\mathrm{EE}}$ with `teaching.check("b3.1", answer, chapter)`. Compare it with the
# exponent of EE in the chapter's table of exponents, for the same family and corpus.
# ```
#
# ```{exercise} b3.2 · Does EE fit better than CE?
# :label: ex-b3-2
# :nonumber:
# For the same models compute CE, the mean of $-$`logp`, and fit $\log \mathrm{CE}$ against $\log N$
# the same way. Compute each line's $R^2$ on the log-log axes,
# $R^2 = 1 - \sum (y - \hat y)^2 / \sum (y - \bar y)^2$ with $y$ the logarithm of the quantity, and give
# $R^2_{\mathrm{EE}} - R^2_{\mathrm{CE}}$ (the family needs at least three sizes: a line through two
# points has $R^2 = 1$). Paper B's Table 1 finds this difference positive for its families. Is it
# here, and is it large next to how far each $R^2$ is from 1?
# ```
#
# ```{exercise} b3.3 · Where CE's change goes
# :label: ex-b3-3
# :nonumber:
# Decompose the first family's smallest and largest models on the first corpus with
# `rankscale.analysis.metrics.ce_decomposition(run.records.logp, run.records.gt)` (its `.terms()` gives
# CE, EE, SA and Conf). Give SA's share of CE's change,
# $(\mathrm{SA}_{\mathrm{largest}} - \mathrm{SA}_{\mathrm{smallest}}) /
# (\mathrm{CE}_{\mathrm{largest}} - \mathrm{CE}_{\mathrm{smallest}})$, and check that the shares of EE,
# SA and $-$Conf add up to 1. Then change the family to the last one,
# `teaching.family_models(chapter, chapter.families[-1])`: which share moved most, and did SA's share
# keep its sign? A negative share is a component moving against CE.
# ```

# %% [markdown]
# ```{solution-start} ex-b3-1
# :class: dropdown
# ```
#
# EE needs only the counts of each error value: $p_e$ is a histogram of `gt`, normalised.

# %%
from rankscale import teaching
from rankscale.analysis import metrics

runs = teaching.family_models(chapter)
sizes = np.array([run.non_embedding for run in runs], dtype=float)
ee = []
for run in runs:
    p_e = np.bincount(run.records.gt) / len(run.records)
    p_e = p_e[p_e > 0]
    ee.append(-np.sum(p_e * np.log(p_e)))
ee = np.array(ee)
alpha_ee = np.polyfit(np.log(sizes), np.log(ee), 1)[0]
glue("ex_b3_1", float(alpha_ee), display=False)
glue("ex_b3_1_page", float(evidence.fit(chapter.corpora[0], chapter.families[0], "EE").slope), display=False)
glue("ex_b3_1_models", len(runs), display=False)
teaching.check("b3.1", alpha_ee, chapter)

# %% [markdown]
# Over the family's {glue:text}`ex_b3_1_models` models, the line through $(\log N, \log \mathrm{EE})$
# has slope $\alpha_{\mathrm{EE}}$ = {glue:text}`ex_b3_1:.4f`; the chapter's fit gives
# {glue:text}`ex_b3_1_page:.4f`, the same least squares on the same values, since EE is positive for
# every model. A negative $\alpha_{\mathrm{EE}}$ means the distribution of errors concentrates (its entropy
# falls) as models grow; the line is the one drawn in the EE row of the figure of components against
# size, first column, in the family's colour.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b3-2
# :class: dropdown
# ```

# %%
ce = np.array([-np.mean(run.records.logp.astype(np.float64)) for run in runs])
x = np.log(sizes)
r2 = {}
for name, values in (("EE", ee), ("CE", ce)):
    y = np.log(values)
    residual = y - np.polyval(np.polyfit(x, y, 1), x)
    r2[name] = 1 - residual @ residual / np.sum((y - y.mean()) ** 2)
glue("ex_b3_2", float(r2["EE"] - r2["CE"]), display=False)
glue("ex_b3_2_ee", float(r2["EE"]), display=False)
glue("ex_b3_2_ce", float(r2["CE"]), display=False)
teaching.check("b3.2", r2["EE"] - r2["CE"], chapter)

# %% [markdown]
# $R^2_{\mathrm{EE}}$ = {glue:text}`ex_b3_2_ee:.4f` and $R^2_{\mathrm{CE}}$ = {glue:text}`ex_b3_2_ce:.4f`,
# a difference of {glue:text}`ex_b3_2:.4f`. Its sign is what Table 1 compares, but with a handful of
# sizes a single model that sits off the line can decide it, which is why the chapter reads the
# difference on its bootstrap interval (rule B3.2) rather than on its sign alone. Since no $R^2$ exceeds
# 1, the difference can be no larger than $1 - R^2_{\mathrm{CE}}$: where CE already fits almost
# perfectly, EE has little room to fit better.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b3-3
# :class: dropdown
# ```

# %%
change_shares = {}
for family in (chapter.families[0], chapter.families[-1]):
    pair = teaching.family_models(chapter, family)
    first, last = (metrics.ce_decomposition(run.records.logp, run.records.gt).terms() for run in (pair[0], pair[-1]))
    delta = {q: last[q] - first[q] for q in first}
    change_shares[family] = {"EE": delta["EE"] / delta["CE"], "SA": delta["SA"] / delta["CE"],
                             "Conf": -delta["Conf"] / delta["CE"]}
sa_share = change_shares[chapter.families[0]]["SA"]
for name, family in (("first", chapter.families[0]), ("last", chapter.families[-1])):
    for q, share in change_shares[family].items():
        glue(f"ex_b3_3_{name}_{q}", float(share), display=False)
glue("ex_b3_3_sum", float(sum(change_shares[chapter.families[0]].values())), display=False)
teaching.check("b3.3", sa_share, chapter)

# %% [markdown]
# In the first family, EE carries a share {glue:text}`ex_b3_3_first_EE:.4f` of CE's change, SA
# {glue:text}`ex_b3_3_first_SA:.4f` and $-$Conf {glue:text}`ex_b3_3_first_Conf:.4f`; they add up to
# {glue:text}`ex_b3_3_sum:.6f`, because CE = EE + SA $-$ Conf holds exactly for every model and so for
# the difference of two. In the last family (the same family where the set has only one) the shares are
# {glue:text}`ex_b3_3_last_EE:.4f`, {glue:text}`ex_b3_3_last_SA:.4f` and
# {glue:text}`ex_b3_3_last_Conf:.4f`. A share is a ratio to CE's change, so a family whose CE moves
# little across its sizes has shares that swing widely; the table of shares above gives their intervals
# on every corpus.
#
# ```{solution-end}
# ```
