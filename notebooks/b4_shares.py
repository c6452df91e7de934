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
# # B4 · Shares of the components and the slowing of the CE law
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Cross-entropy falls as a clean power law of model size for small models but more slowly for
# very large ones. Paper B (§5, Fig. 8) offers an explanation built on its decomposition: if only
# Error-Entropy scales and Self-Alignment and Confidence stay roughly constant, then CE behaves
# like a power law only as long as EE makes up most of it. The paper reports that EE is about
# 80-90% of CE for small models and that its share shrinks as models grow, so the non-scaling
# terms take over and the CE law bends.
#
# This chapter measures the shares on the model set's families and checks what they imply for
# the local exponent of the CE law. The paper's Fig. 8 puts 16 models of several families side
# by side in order of size; here each family is followed on its own and, where the set has more
# than one family, all models are also taken together in order of size, as in the figure.
# Components use paper B's 0-based strict rank-based error $e$ = `gt`.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
n_boot = None  # bootstrap resamples (None: the model set's)
seed = 0

# %%
from dataclasses import replace

from matplotlib.lines import Line2D
import numpy as np
from IPython.display import Markdown, display
from myst_nb import glue

from rankscale.analysis import metrics
from rankscale.analysis.bootstrap import LEVEL
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import B4_CURVATURE_MIN_SIZES, b4

chapter = open_chapter(profile, corpora, spec=b4.SPEC, n_boot=n_boot)
model_set, corpora, families = chapter.model_set, chapter.corpora, chapter.families
context = replace(chapter.context(*b4.SPEC.tables), seed=seed)  # the parameter seed draws every resample
evidence = b4.measure(chapter, context)  # every share, trend and bend of the chapter, with its interval
glue("b4_n_boot", context.n_boot, display=False)
for name, listed in (("usable", context.usable()), ("curved", context.usable(B4_CURVATURE_MIN_SIZES))):
    glue(f"b4_{name}", Markdown(", ".join(listed) or "none"), display=False)
glue("b4_left_out", Markdown("; ".join(context.unusable()) or "none"), display=False)

# %% [markdown]
# Every interval of this chapter rests on {glue:text}`b4_n_boot` bootstrap resamples (the model
# set's number, unless the chapter's parameter `n_boot` sets another; the parameter `seed` draws
# them, the same resamples as [chapter B3](b3_component_scaling)'s). Trends with size are tested
# on the families with at least three sizes: {glue:md}`b4_usable:myst` (left out: {glue:md}`b4_left_out:myst`);
# the bend of the CE law on those with at least four: {glue:md}`b4_curved:myst`.

# %% [markdown]
# ## Two ways to count a share
#
# Since CE = EE + SA − Conf, the three *signed contributions* $\mathrm{EE}/\mathrm{CE}$,
# $\mathrm{SA}/\mathrm{CE}$ and $-\mathrm{Conf}/\mathrm{CE}$ add up to exactly 1. When Confidence
# is positive its contribution is negative and EE's exceeds 1. A stacked percentage chart like
# paper B's Fig. 8 needs non-negative parts; the natural choice is the *magnitude shares*
# $|M| / (|\mathrm{EE}| + |\mathrm{SA}| + |\mathrm{Conf}|)$. The two are identical whenever
# Confidence is negative or zero, and differ only when it is positive. Fig. 8 plots "the relative
# ratio of decomposed components", stacked to 100%: the magnitude shares, since a signed
# contribution above 1 cannot be a part of a stacked whole. So the claim that EE's share falls
# (B4.2, Fig. 8) is graded on the magnitude share, with $\mathrm{EE}/\mathrm{CE}$ beside it, and
# so are the mechanism (B4.4), through B4.2's own reading (paper B's §5 explains the slowing by "the
# proportion of Error-Entropy" declining as Fig. 8 shows it), and EE's dominance of small models
# (B4.1), whose "about 80–90%" is read off Fig. 8; each choice is fixed in `rankscale.claims`
# before any data were seen.

# %%
shares_table = b4.shares_table(evidence)
display(shares_table.style.format({c: "{:.4f}" for c in shares_table.columns[4:]} | {"params": "{:,}"})
        .hide(axis="index").set_caption(
            "Every model per corpus: its size, CE and components (nats), their signed contributions to CE (summing "
            "to 1), and their magnitude shares of |EE| + |SA| + |Conf|."))

# %% [markdown]
# ## Shares against size (paper B, §5, Fig. 8)
#
# {numref}`fig-b4-stacked` is the analogue of the paper's Fig. 8, which puts 16 hub models from
# 14M to 70B parameters side by side: the magnitude shares stacked to 100% for each model, all
# families together in order of size; their trend is what B4.2 grades and B4.4 reads. {numref}`fig-b4-signed`
# shows the signed contributions, shown beside the graded shares, against size for each family.

# %% mystnb={"figure": {"caption": "Paper B, Fig. 8 analogue: the magnitude shares $|M| / (|\\mathrm{EE}| + |\\mathrm{SA}| + |\\mathrm{Conf}|)$ of each model stacked to 100%, one row per corpus, models in order of size (smallest on the left, the same models in every row) with their names, under the last row, in their family's colour.", "name": "fig-b4-stacked"}}
colors = {"EE": "C0", "SA": "C2", "Conf": "C3"}
# one corpus a row, so that each model's name has room under its bar; the models are the same on every corpus
fig, axes = plots.panels(len(corpora), 1, 2.2, sharex=True)
for ax, corpus in zip(axes[:, 0], corpora):
    table = evidence.models[corpus].sort_values("params", kind="stable").reset_index(drop=True)
    bottom = np.zeros(len(table))
    for k in metrics.COMPONENTS:
        ax.bar(table.index, 100 * table[f"{k} share of |terms|"], bottom=bottom, color=colors[k], label=k)
        bottom += 100 * table[f"{k} share of |terms|"].values
    ax.set_xticks(table.index, table.model, rotation=45, ha="right", rotation_mode="anchor")
    for tick, family in zip(ax.get_xticklabels(), table.family):
        tick.set_color(plots.family_style(model_set, family)["color"])
    ax.set(ylim=(0, 100), title=corpus, ylabel="share (%)")
plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
plots.show(fig)

# %% mystnb={"figure": {"caption": "The signed contributions EE/CE (solid), SA/CE (dashed) and −Conf/CE (dotted), which sum to 1, against non-embedding parameters, one panel per corpus, one line per family and component in the family's colour and marker; the grey dotted line marks 1.", "name": "fig-b4-signed"}}
lines = {"EE": "-", "SA": "--", "Conf": ":"}
fig, axes = plots.corpus_panels(corpora, 3.4, sharey=True)
for ax, corpus in zip(axes[0], corpora):
    for family, part in evidence.models[corpus].groupby("family", sort=False):
        style = plots.family_style(model_set, family)
        for k in metrics.COMPONENTS:
            ax.plot(part.params, part[f"{k}/CE (signed)"], linestyle=lines[k], marker=style["marker"],
                    color=style["color"], ms=4)
    ax.axhline(1, color="grey", ls=":", lw=1)
    ax.axhline(0, color="k", lw=0.5)
plots.size_axes(axes)
handles = (plots.family_handles(model_set, families, linestyle="none")
           + [Line2D([], [], color="grey", linestyle=lines[k], label=label)
              for k, label in (("EE", "EE / CE"), ("SA", "SA / CE"), ("Conf", "−Conf / CE"))])
plots.legend_below(fig, handles, ncol=3)
plots.show(fig)

# %% [markdown]
# ## Is EE's share falling?
#
# The trend of a share with size is the slope of $\log(\text{share})$ against $\log N$, fitted
# like the power laws of [chapter B3](b3_component_scaling): per family, and pooled over every model of every family
# ("All"), the reading of the paper's Fig. 8. A negative slope means EE's share shrinks as
# models grow, as the paper reports (`rankscale.analysis.components.share_trend`). Every model's tokens
# are resampled with replacement (`rankscale.analysis.bootstrap.resample`, the same resamples as chapter
# B3) and the slope refitted on each resample; the trend column reads the 95% interval, the
# slope on all tokens plus or minus 1.96 standard deviations of its replicates. The shares are
# ratios of plug-in estimates, whose resampled values are shifted off the measured ones (chapter
# B3), so the replicates give the interval's width and the measured slope its centre. The graded
# share is the magnitude share; the trend of the signed one is shown beside it.

# %%
trend_table = b4.trend_table(evidence)
for name, value in zip(("pairs", "counts", "slopes"), b4.trend_counts(trend_table)):
    glue(f"b4_trend_{name}", Markdown(str(value)), display=False)

# %% [markdown]
# Over the table's {glue:md}`b4_trend_pairs:myst` corpus and fit pairs, EE's magnitude share
# {glue:md}`b4_trend_counts:myst`, with slopes {glue:md}`b4_trend_slopes:myst` per unit of log N.

# %% tags=["hide-output"]
display(trend_table.style.format({"slope of log share vs log N": "{:+.4f}"}).hide(axis="index").set_caption(
    "Slope of the log share against log N per corpus, fit and share (EE's graded magnitude share, and its signed "
    f"contribution EE/CE), with its {LEVEL:.0%} interval and the trend it reads."))

# %% [markdown]
# A family with two sizes has a trend here (a line through two points) but is not graded, and the
# pooled trend mixes the change with size with the differences between families at similar
# sizes.
#
# ## What the shares imply for the CE law
#
# Differentiating CE = EE + SA − Conf with respect to $\log N$ gives an exact relation between
# the local exponent of CE and those of its components (paper B's $\alpha_M$ of eq. 9, fitted
# to $|M|$):
#
# $$\frac{d \log \mathrm{CE}}{d \log N} = \frac{\mathrm{EE}}{\mathrm{CE}}\,\alpha_{\mathrm{EE}}
#   + \frac{\mathrm{SA}}{\mathrm{CE}}\,\alpha_{\mathrm{SA}}
#   - \frac{\mathrm{Conf}}{\mathrm{CE}}\,\alpha_{\mathrm{Conf}} .$$
#
# Under the paper's hypothesis only EE scales ($\alpha_{\mathrm{SA}} = \alpha_{\mathrm{Conf}} = 0$),
# so CE's local exponent is $\alpha_{\mathrm{EE}} \cdot \mathrm{EE}/\mathrm{CE}$: it shrinks in
# magnitude exactly as fast as EE's signed contribution shrinks, and the CE law slows.
# {numref}`fig-b4-local-exponent` compares that prediction (with EE's fitted exponent) with
# CE's measured local slope between neighbouring models. If EE's contribution *grows* with size instead, the same relation
# predicts a CE law that steepens. A third line uses the fitted exponents of all three
# components: where it departs from the EE-only line, SA or Confidence are scaling too and
# carry part of CE's improvement.
#
# This is done per family: a local slope between neighbouring models of two different families
# would measure the difference between the families rather than the effect of size, so the
# pooled set has no local slopes. How much of CE's change across each family each component
# carries, in nats rather than exponents, is tabulated in [chapter B3](b3_component_scaling).

# %% mystnb={"figure": {"caption": "Local exponent $d \\log \\mathrm{CE} / d \\log N$ of the CE law per family (the family's colour), one panel per corpus: predicted from EE's contribution alone, $\\alpha_{\\mathrm{EE}} \\cdot \\mathrm{EE}/\\mathrm{CE}$ (solid), predicted from all three components' fitted exponents (dash-dot), measured between neighbouring models (dashed, open markers, drawn at the geometric midpoint of the pair), and the exponent of a single power law fitted over the family (dotted).", "name": "fig-b4-local-exponent"}}
fig, axes = plots.corpus_panels(corpora, 3.8, sharey=True)
for ax, corpus in zip(axes[0], corpora):
    for family, local in b4.local_exponents(evidence.models[corpus]).items():
        style = plots.family_style(model_set, family)
        ax.plot(local.sizes, local.ee_only, "-", marker=style["marker"], color=style["color"], ms=4)
        ax.plot(local.sizes, local.every, "-.", color=style["color"], lw=1)
        ax.plot(local.midpoints, local.measured, "--", marker=style["marker"], mfc="white", color=style["color"], ms=4)
        ax.axhline(local.law, color=style["color"], ls=":", lw=1)
plots.size_axes(axes)
axes[0, 0].set_ylabel("d log CE / d log N")
handles = (plots.family_handles(model_set, families, linestyle="none")
           + [Line2D([], [], color="grey", ls="-", label="α_EE · EE/CE (only EE scales)"),
              Line2D([], [], color="grey", ls="-.", label="Σ_M share_M · α_M (all fitted)"),
              Line2D([], [], color="grey", ls="--", marker="o", mfc="white",
                     label="CE, local slope between neighbours"),
              Line2D([], [], color="grey", ls=":", label="CE, one power law over all sizes")])
plots.legend_below(fig, handles, ncol=2)
plots.show(fig)

# %% [markdown]
# The measured local slopes between neighbouring models scatter far more than the prediction:
# one training run at each size (the seeds of the smallest sizes stay out of the fits), and size
# steps of less than a decade, leave noise of the order of the effect. The prediction's change across a family is small when the shares change little
# over the family's range of sizes.
#
# ## Does the CE law bend?
#
# Two endpoint slopes are too noisy to tell whether the law slows. Instead a quadratic in
# $x = \log N$ is fitted to $\log \mathrm{CE}$ over each family,
# $\log \mathrm{CE} = a + b\,x + c\,x^2$ (`rankscale.analysis.components.curvature`): a straight line
# on log-log axes has $c = 0$, and since CE falls with size, $c > 0$ means its local exponent
# $b + 2cx$ flattens as models grow, the slowing of §5, while $c < 0$ means it steepens. The
# interval comes from the same resamples of the documents as above. A quadratic through three sizes fits
# them exactly and turns any scatter between training runs into curvature, so the bend is
# measured only on families with at least four sizes. The bootstrap carries that scatter at every
# size: each replicate draws one of a seeded size's runs, and moves each size trained once by one of
# those runs' relative deviations (see [the ladder page](ladder)); the largest scatter of log CE
# between the runs of one size is in the table's column. A curvature distinguishable from zero is
# then distinguishable from that much roughness of a single ladder, not from any.
#
# Paper B's explanation makes a second, sharper prediction: the law should bend the way EE's
# share of Fig. 8 moves, slowing ($c > 0$) where it falls and steepening where it rises (under its
# hypothesis, SA and Confidence fixed, that share and $\mathrm{EE}/\mathrm{CE}$ fall together, and
# CE's local exponent $\alpha_{\mathrm{EE}} \cdot \mathrm{EE}/\mathrm{CE}$ with
# $\alpha_{\mathrm{EE}} < 0$ shrinks). The table puts the curvature beside the share's trend as
# B4.2 reads it.

# %%
display(b4.bend_table(evidence).style.format({"curvature c of log CE": "{:+.5f}"}).hide(axis="index").set_caption(
    f"Curvature c of log CE in log N per corpus and family of {B4_CURVATURE_MIN_SIZES} or more sizes, with its "
    f"{LEVEL:.0%} interval, what it says of the CE law, and the trend of EE's magnitude share (B4.2's) beside it."))

# %%
glue("b4_summary", Markdown(b4.summary(evidence, context)), display=False)

# %% [markdown]
# Each family, and every model pooled, in one line: the trends of EE's magnitude share (graded)
# and of its signed contribution that the table of trends reads, and the sign of Confidence over
# the group's models, which decides how far the two can part.
#
# ```{glue:md} b4_summary
# :format: myst
# ```

# %% [markdown]
# ## Why the paper's trend need not appear on a small set
#
# Paper B's argument has two parts: EE keeps falling as a power law, and SA and Confidence stay
# roughly where they are, so EE's share must eventually fall. On small models neither premise
# is guaranteed, and the outcome printed above should be read with that in mind:
#
# - The offline sets' models are tiny (thousands to about a million non-embedding parameters)
#   and trained for minutes. Their EE is still a large fraction of $\log V$, i.e. they are far
#   from the regime where EE becomes small enough for the other terms to matter; the paper sees
#   EE's share fall over models from 14M to 70B parameters.
# - Self-Alignment need not be constant: on the ladders it falls with size ([chapter B3](b3_component_scaling)), which
#   by itself raises EE's share.
# - Confidence can be positive ($C > 1$). A growing positive Confidence *subtracts* more from CE
#   as models grow, which pushes EE's signed contribution above 1 and upwards, while the
#   magnitude share, which counts Confidence as a positive part, can move the other way.
# - Confidence also depends on the evaluation sample: $C$ sums $Q_e$ over the ranks that occur,
#   so it grows as more tokens reveal more ranks, and its sign can flip with the number of
#   tokens alone ([chapter B5](b5_sample_size)). Shares involving Confidence are comparable between models only
#   when they are evaluated on the same tokens, as the models of one family (one tokenizer)
#   are here; families with different tokenizers see different token sequences of the same
#   text.
#
# If EE's signed contribution rises with size, the decomposition predicts a CE law that steepens
# over this range, the opposite of a slowdown, even where the magnitude share that Fig. 8 plots,
# and on which the mechanism (B4.4) is read, falls; a verdict against the mechanism then holds
# *at this scale*, which does not test it at the paper's scale. Likewise, where SA or
# Confidence change with size themselves ([chapter B3](b3_component_scaling)), the mechanism's premise does not hold,
# and a bend of the CE law can come from them rather than from EE's share; the mechanism's verdict (B4.4)
# records such a case as the mechanism not reproduced, and [chapter B3](b3_component_scaling)'s rows on SA and
# Confidence say whether the premise held.
#
# ## Verdicts
#
# Each rule is fixed in `rankscale.claims.b4` (shown in the table) and decided there, by a
# function of its own: *reproduced* if it holds on every unit tested, *partly* on some,
# *not reproduced* on none. B4.2 grades EE's magnitude share, the quantity of Fig. 8, with the
# trend of its signed contribution EE/CE beside it, and the mechanism (B4.4) reads the same share
# through B4.2's reading, as does EE's dominance of the smallest models (B4.1). Every rule
# here claims a difference or a direction (EE dominates, its share falls, the law slows), read
# on its 95% interval (as in [chapter B3](b3_component_scaling): the value on all tokens plus or minus 1.96
# standard deviations of its replicates over the paired resamples of the documents): wholly on the claimed
# side it holds, wholly on the other side it fails, and an interval that contains the threshold
# leaves the unit *undetermined*, neither for nor against the claim. Whether the law slows
# over this set's sizes is this companion's question, not the paper's: the paper places the
# slowing at very large sizes and calls the law clean for small models. The paper's own claim
# is the mechanism, tested by B4.4: the bend follows EE's share, wherever the share's
# trend is clear (where it is flat within noise the mechanism predicts nothing, and the unit is
# not tested). A curvature needs more than the bootstrap of the text: at a size with one training run it
# holds the model fixed, so the scatter between runs (a seed's luck) can read as a bend. The two
# curvature rules carry that scatter at every size: a size with several runs draws one of them in
# each replicate, and a size with one run is moved in each replicate by one of those runs' relative
# deviations (declared: the scatter is taken to be the same share of CE at every size); a family with
# no seeded size leaves them *undetermined*.
#
# The paper's other statement about small models, that their CE "appears to follow a clean power
# law", is B4.5: the $R^2$ of CE's log-log fit over a family's small models (no larger than the
# median size of the models paper B evaluates, so every ladder model here), read on its interval
# against the bar this book sets for EE's law in [chapter B3](b3_component_scaling). Beside it
# stands the $R^2$ of a logarithmic law, CE linear in log size, over the same models: where CE
# moves over a narrow range, a line in log-log and a line in semilog fit nearly alike, so a pass
# says the points are straight on the paper's axes, not that the power law is the only law that
# describes them.

# %%
verdicts = pages.verdict_table("B4", b4.SPEC.decide(evidence, context), model_set.name, b4.headline(evidence, context))

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B4", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them.
#
# ```{exercise} b4.1 · EE's share of a small model
# :label: ex-b4-1
# :nonumber:
# Take the final models of the first family on the first corpus, `runs = teaching.family_models(chapter)`
# (smallest first), and decompose each with
# `rankscale.analysis.metrics.ce_decomposition(run.records.logp, run.records.gt)` (its attributes `ce`,
# `error_entropy`, `self_alignment`, `confidence`). For the smallest model give EE's magnitude share
# $|\mathrm{EE}| / (|\mathrm{EE}| + |\mathrm{SA}| + |\mathrm{Conf}|)$ and check it with
# `teaching.check("b4.1", answer, chapter)`. Put its signed contribution $\mathrm{EE}/\mathrm{CE}$ beside
# it: when are the two equal, and which is larger when they are not? Paper B reads "about 80-90%" off its
# Fig. 8 for small models.
# ```
#
# ```{exercise} b4.2 · Is EE's share falling?
# :label: ex-b4-2
# :nonumber:
# Over the same models, fit the slope of $\log$ (EE's magnitude share) against $\log N$, with $N$ =
# `run.non_embedding` and natural logarithms, using `numpy.polyfit`, and check it. Then change the share
# to the signed contribution $\mathrm{EE}/\mathrm{CE}$ and fit again. Did the slope change sign or size?
# Count the models whose Confidence is positive and say what that count has to do with the answer.
# ```
#
# ```{exercise} b4.3 · Does the CE law bend?
# :label: ex-b4-3
# :nonumber:
# Fit $\log \mathrm{CE} = a + b\,x + c\,x^2$ with $x = \log N$ over the same models with
# `numpy.polyfit(x, y, 2)` and give $c$ (the family needs at least three sizes, and with exactly three
# the quadratic passes through every point). Is the law slowing ($c > 0$) or steepening over this
# family? Then change the corpus: fit the same family on every corpus,
# `teaching.family_models(chapter, corpus=corpus)` for `corpus` in `chapter.corpora`. Does the sign of
# $c$ hold from one corpus to the next?
# ```
#
# ```{exercise} b4.4 · CE's exponent if only EE scales
# :label: ex-b4-4
# :nonumber:
# Fit $\alpha_{\mathrm{EE}}$, the slope of $\log \mathrm{EE}$ against $\log N$, over the same models. Under
# paper B's hypothesis that only EE scales, CE's local exponent at a size is
# $\alpha_{\mathrm{EE}} \cdot \mathrm{EE}/\mathrm{CE}$: give it at the family's largest model and check it.
# Then let every component scale: fit $\alpha_{\mathrm{SA}}$ and $\alpha_{\mathrm{Conf}}$ to
# $|\mathrm{SA}|$ and $|\mathrm{Conf}|$ the same way and add
# $\alpha_{\mathrm{SA}}\,\mathrm{SA}/\mathrm{CE} - \alpha_{\mathrm{Conf}}\,\mathrm{Conf}/\mathrm{CE}$.
# Which of the two predictions is nearer the slope of a single power law fitted to CE over the family?
# ```

# %% [markdown]
# ```{solution-start} ex-b4-1
# :class: dropdown
# ```

# %%
from rankscale import teaching

runs = teaching.family_models(chapter)
parts = [metrics.ce_decomposition(run.records.logp, run.records.gt) for run in runs]
terms = np.array([[d.ce, d.error_entropy, d.self_alignment, d.confidence] for d in parts])  # CE, EE, SA, Conf
magnitude = np.abs(terms[:, 1]) / np.abs(terms[:, 1:]).sum(axis=1)
signed = terms[:, 1] / terms[:, 0]
glue("ex_b4_1", float(magnitude[0]), display=False)
glue("ex_b4_1_signed", float(signed[0]), display=False)
glue("ex_b4_1_conf", float(terms[0, 3]), display=False)
teaching.check("b4.1", magnitude[0], chapter)

# %% [markdown]
# The smallest model's EE is a share {glue:text}`ex_b4_1:.4f` of $|\mathrm{EE}| + |\mathrm{SA}| +
# |\mathrm{Conf}|$, and its signed contribution is {glue:text}`ex_b4_1_signed:.4f`; its Confidence is
# {glue:text}`ex_b4_1_conf:.4f` nats. The two shares have the same numerator and differ in the
# denominator only by Confidence's term: $\mathrm{CE} = \mathrm{EE} + \mathrm{SA} - \mathrm{Conf}$
# against $\mathrm{EE} + \mathrm{SA} + |\mathrm{Conf}|$. They are equal where Confidence is zero or
# negative, and where it is positive CE is the smaller denominator, so the signed contribution is the
# larger share.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b4-2
# :class: dropdown
# ```

# %%
x = np.log(np.array([run.non_embedding for run in runs], dtype=float))
slope_magnitude = np.polyfit(x, np.log(magnitude), 1)[0]
slope_signed = np.polyfit(x, np.log(signed), 1)[0]
glue("ex_b4_2", float(slope_magnitude), display=False)
glue("ex_b4_2_signed", float(slope_signed), display=False)
glue("ex_b4_2_positive", int((terms[:, 3] > 0).sum()), display=False)
glue("ex_b4_2_models", len(runs), display=False)
teaching.check("b4.2", slope_magnitude, chapter)

# %% [markdown]
# EE's magnitude share moves by {glue:text}`ex_b4_2:+.5f` per unit of $\log N$ and its signed
# contribution by {glue:text}`ex_b4_2_signed:+.5f`. Of the family's {glue:text}`ex_b4_2_models` models,
# {glue:text}`ex_b4_2_positive` have a positive Confidence. Where none has, the two shares are the same
# numbers and so are their slopes; where some have, the two can part, and a Confidence that grows with
# size can even turn one slope up and the other down, since it enlarges the magnitude share's
# denominator and shrinks CE. This is why the chapter grades Fig. 8's magnitude share and shows the
# signed one beside it.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b4-3
# :class: dropdown
# ```

# %%
bend = np.polyfit(x - x.mean(), np.log(terms[:, 0]), 2)[0]
bends = []
for corpus in chapter.corpora:
    other = teaching.family_models(chapter, corpus=corpus)
    log_size = np.log(np.array([run.non_embedding for run in other], dtype=float))
    log_ce = np.log([-np.mean(run.records.logp.astype(np.float64)) for run in other])
    bends.append(f"{corpus} {np.polyfit(log_size, log_ce, 2)[0]:+.5f}")
glue("ex_b4_3", float(bend), display=False)
glue("ex_b4_3_corpora", Markdown(", ".join(bends)), display=False)
teaching.check("b4.3", bend, chapter)

# %% [markdown]
# On the first corpus $c$ = {glue:text}`ex_b4_3:+.5f`; centring $x$, as the chapter does, changes $a$
# and $b$ but not $c$. Per corpus: {glue:md}`ex_b4_3_corpora:myst`. The family's models are the same
# on every corpus, so where the sign changes between corpora it is the text that moved it. The chapter measures
# a bend only on families of at least four sizes and reads it on an interval that carries the scatter
# between training runs: a quadratic through three points has no residual, so its $c$ cannot be told
# from that scatter.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b4-4
# :class: dropdown
# ```

# %%
alpha = {name: np.polyfit(x, np.log(np.abs(terms[:, i])), 1)[0] for i, name in ((1, "EE"), (2, "SA"), (3, "Conf"))}
largest = terms[-1]
ee_only = alpha["EE"] * largest[1] / largest[0]
every = ee_only + alpha["SA"] * largest[2] / largest[0] - alpha["Conf"] * largest[3] / largest[0]
ce_law = np.polyfit(x, np.log(terms[:, 0]), 1)[0]
glue("ex_b4_4", float(ee_only), display=False)
for name, value in (("every", every), ("law", ce_law), ("alpha", alpha["EE"])):
    glue(f"ex_b4_4_{name}", float(value), display=False)
teaching.check("b4.4", ee_only, chapter)

# %% [markdown]
# With $\alpha_{\mathrm{EE}}$ = {glue:text}`ex_b4_4_alpha:+.4f`, the EE-only prediction at the largest
# model is {glue:text}`ex_b4_4:+.4f`; letting SA and Confidence scale with their fitted exponents gives
# {glue:text}`ex_b4_4_every:+.4f`, and one power law through CE has slope
# {glue:text}`ex_b4_4_law:+.4f`. The relation is exact for local derivatives; with fitted exponents it
# holds only as well as each component follows its own power law, so neither prediction needs to match
# the law. The gap between the two predictions is what SA and Confidence contribute by moving with size:
# where it is small compared with the EE-only value, EE carries CE's scaling, as paper B's §5 assumes.
#
# ```{solution-end}
# ```
