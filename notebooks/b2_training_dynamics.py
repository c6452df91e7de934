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
# # B2 · The three components during training
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# [Chapter B1](b1_decomposition) showed that cross-entropy splits exactly into Error-Entropy (EE), Self-Alignment
# (SA) and Confidence (Conf). Paper B then argues that this split is not just algebra: training
# lowers EE first, because it is by far the largest term, and only later works on SA and Conf
# (paper B, §3.2, Fig. 3). It illustrates what each term does to the model's outputs with the
# RBE distribution becoming concentrated (§3.3, Fig. 4), with the shape of the output
# distribution around the target (Fig. 5) and with the score distribution $q_e$ converging to
# the RBE distribution $p_e$ (Fig. 6).
#
# The paper follows three Pythia models through their public training checkpoints (its
# appendix A.1). Here the same analysis runs on every family of the model set that has
# checkpoints: a ladder trained by this project saves them at steps 0 (the random
# initialisation), 16, 128 and its final step for some of its sizes, and the hub sets read
# Pythia's published revisions at the steps the paper uses. A family without checkpoints still
# takes part in Fig. 5 and in the verdict on Fig. 6, whose claims are about trained models; for
# the other claims it is *not testable on this set*. Everything uses paper B's 0-based strict rank-based error
# $e$ = `gt` (log axes show $e + 1$, the 1-based rank with strict ties).
#
# The paper reads its figures by eye. The verdicts here read them with rules fixed in
# `rankscale.claims` before the data are seen, and because two checkpoints evaluated on a few
# thousand tokens differ by sampling noise as well as by training, every comparison between
# checkpoints is made with a bootstrap interval (`rankscale.analysis.bootstrap`): the evaluation documents are
# resampled whole, the same documents for every checkpoint of a model (they predict the same targets),
# the interval is the measured change plus or minus 1.96 standard deviations of its replicates
# (95%). A change is read one way: shown where its interval lies wholly on the claimed side of
# zero, refuted where it lies wholly on the other side, and *undetermined* where it crosses zero.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set

# %%
from itertools import pairwise

import numpy as np
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from myst_nb import glue

from rankscale import claims
from rankscale.analysis import dynamics, metrics
from rankscale.analysis.bootstrap import span
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import b2

chapter = open_chapter(profile, corpora, spec=b2.SPEC)  # the page's header: the final models
model_set, corpora, families = chapter.model_set, chapter.corpora, chapter.families
context = chapter.context(*b2.SPEC.tables)
evidence = b2.measure(chapter, context)  # every checkpoint series, final model and break, with their resamples
with_checkpoints = evidence.with_checkpoints
glue("b2_checkpoints", Markdown(b2.checkpoints_note(evidence)), display=False)
first_shares = {c: [s.compared()[0] for s in evidence.series if s.corpus == c] for c in corpora}
glue("b2_first_share", Markdown(
    "At the earliest checkpoint the ranks compared hold " + "; ".join(
        f"{span(shares, '.0%')} of the targets on `{c}`" for c, shares in first_shares.items() if shares) + "."
    if with_checkpoints else ""), display=False)

# %% [markdown]
# {glue:md}`b2_checkpoints:myst`
#
# Everything the verdicts below read is computed in one step, `rankscale.claims.b2.measure`: every
# checkpointed model's decomposition at each of its checkpoints on every corpus, with the bootstrap
# resamples of its documents (one resample for all its checkpoints), every final model's distance
# between $p_e$ and $q_e$ with its resamples and the distance a perfectly aligned model would show,
# and where the output probability of each family's largest final model breaks off around its
# targets. The figures and tables of this page lay that evidence out.

# %% [markdown]
# ## Setup (paper B, Table 3)
#
# Paper B's Table 3 lists which data and checkpoints each training-dynamics figure uses: Pythia
# 160M, 410M and 1B at steps 0, 16, 128, 1k, 10k and 100k on Wikipedia, C4 and Pile-GitHub for
# Fig. 3; Pythia-160M at steps 0, 128 and 10k for Fig. 4; a trained Pythia-70M for Fig. 5; and
# Pythia-410M at steps 0, 16, 128 and 10k for Fig. 6. This chapter makes the same choices within
# each family by position rather than by name: Fig. 3 uses every checkpointed model; Fig. 4 the
# family's smallest checkpointed model (160M is the smallest of the paper's three), at the
# paper's steps where that model has them and otherwise at its first, second-to-last and last;
# Fig. 5 the family's largest final model; Fig. 6 its middle checkpointed model (410M is the
# middle one), at the paper's steps where it has them and otherwise at every step. The table
# says what that gives on this set.


# %%
fig4, fig6 = b2.picks(evidence)  # family -> the model and steps of Figs. 4 and 6
display(b2.table3(evidence).style.hide(axis="index").set_table_attributes(f'class="{pages.PROSE_TABLE}"').set_caption(
    "Paper B's Table 3 on this set: for each training-dynamics figure and family, the corpora used and the "
    "models and checkpoints that stand in for the paper's."))

# %% [markdown]
# ## The four quantities across training (paper B, §3.2, Fig. 3)
#
# Paper B's reading of its Fig. 3: EE falls steadily, SA comes down at the end, and Confidence
# rises (it enters CE with a minus sign, so a rising Confidence lowers CE).

# %% [markdown]
# In {numref}`fig-b2-components` each column is a corpus, each row one quantity; each line is one
# checkpointed model, in its family's colour and marker (line styles tell a family's models
# apart). The step axis is linear up to 1 and logarithmic beyond, so that the initialisation
# (step 0) has a place.

# %%
quantities = ["CE", "EE", "SA", "Conf"]
legend_columns = min(plots.MOST_ACROSS, len(with_checkpoints))  # a family's models in a column of their own

# %% mystnb={"figure": {"caption": "Paper B, Fig. 3 analogue: CE, Error-Entropy, Self-Alignment and Confidence (rows, in nats, each on one vertical scale across its row) over the training checkpoints of every checkpointed model, on each corpus (columns). Colour and marker: family; line style: model within the family.", "name": "fig-b2-components"}}
if with_checkpoints:
    fig, axes = plots.corpus_panels(corpora, 2.2, rows=len(quantities), sharex=True, sharey="row")
    for row, quantity in zip(axes, quantities):
        for ax, corpus in zip(row, corpora):
            plots.step_lines(ax, model_set, [(s.family, s.model, s.steps, s.term(quantity)) for s in evidence.series
                                             if s.corpus == corpus])
        row[0].set_ylabel(f"{quantity} (nats)")
    for ax in axes[-1]:
        ax.set_xlabel("training step")
    plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0], ncol=legend_columns)
    plots.show(fig)
else:
    display(Markdown(b2.no_checkpoints_note("Fig. 3", evidence)))

# %%
if with_checkpoints:
    display(b2.checkpoints_table(evidence).style.format({q: "{:.4f}" for q in quantities}
                                                        | {"params": "{:,}", "step": "{:,}"}).hide(axis="index")
            .set_caption("Every checkpoint of every checkpointed model, per corpus: its non-embedding parameters, "
                         "training step, and CE, Error-Entropy, Self-Alignment and Confidence in nats."))

# %% [markdown]
# The table holds the numbers drawn in {numref}`fig-b2-components`, one row per checkpoint. Within
# a model's rows CE = EE + SA − Conf holds at every step ([chapter B1](b1_decomposition)'s
# identity), so the last three columns account exactly for every change of CE from one row to the
# next; the next section splits each such change into those three parts.

# %% [markdown]
# ### Who moves CE between two checkpoints?
#
# Because CE = EE + SA − Conf holds at every checkpoint, the drop of CE between two checkpoints
# splits exactly into the drop of EE, the drop of SA and the *rise* of Confidence. The paper's
# account predicts EE's part to dominate the first interval and SA and Confidence to matter only
# later.

# %% [markdown]
# The bars of {numref}`fig-b2-parts` show each component's part of CE's drop over each interval,
# as a fraction of that drop (the three parts add up to 1; a negative part means that component
# worked against the drop; `rankscale.analysis.dynamics.interval_parts`). One panel per
# checkpointed model (rows) and corpus (columns).


# %%
series_keys = [(family, name) for family in with_checkpoints for name in evidence.checkpointed(family)
               if len(evidence.steps(family, name)) >= 2]

# %% mystnb={"figure": {"caption": "Each component's part of the drop of CE between consecutive checkpoints, for every checkpointed model (rows) on each corpus (columns): EE's drop (blue), SA's drop (green) and Confidence's rise (red), as fractions of CE's drop; the three parts sum to 1. Under the panels: each interval, from one checkpoint's step to the next's. Linear axis between −1 and 1, logarithmic beyond.", "name": "fig-b2-parts"}}
if series_keys:
    # where every model has the same checkpoints, its intervals are named under the bottom row only
    same_steps = len({tuple(evidence.steps(*key)) for key in series_keys}) == 1
    fig, axes = plots.corpus_panels(corpora, 1.75, rows=len(series_keys), sharex=same_steps, sharey=True)
    for column, corpus in zip(axes.T, corpora):
        for ax, key in zip(column, series_keys):
            series = evidence.series_of(corpus, *key)
            parts = dynamics.interval_parts(series.term("EE"), series.term("SA"), series.term("Conf"))
            x = np.arange(len(series.steps) - 1)
            for j, (component, color) in enumerate(zip(metrics.COMPONENTS, ["C0", "C2", "C3"])):
                label = {"EE": "EE drop", "SA": "SA drop", "Conf": "Conf rise"}[component]
                ax.bar(x + (j - 1) * 0.27, np.nan_to_num(parts[component], posinf=0, neginf=0), width=0.27,
                       color=color, label=label)
            ax.axhline(0, color="k", lw=0.5)
            # an interval's two steps on two lines: on one, neighbouring intervals' names collide
            ax.set_xticks(x, [f"{plots.short_step(a)}→\n{plots.short_step(b)}" for a, b in pairwise(series.steps)])
            ax.set_yscale("symlog", linthresh=1)
            ax.set_yticks([-10, -1, 0, 1, 10], ["−10", "−1", "0", "1", "10"])
    for ax, (family, name) in zip(axes[:, 0], series_keys):
        ax.set_ylabel(f"{family}\n{name}")
    fig.supylabel("part of the CE drop")
    plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
    plots.show(fig)
else:
    display(Markdown("No model of this set has two or more checkpoints, so there is no interval to split."))

# %% [markdown]
# The vertical axis of {numref}`fig-b2-parts` is linear between −1 and 1 and logarithmic outside:
# over an interval where CE barely moves, components that cancel each other can have parts far
# from $[0, 1]$.

# %% [markdown]
# ## The RBE distribution concentrates (paper B, §3.3, Fig. 4)
#
# At initialisation the model ranks the target essentially at random, so $p_e$ is close to the
# uniform $1/V$ and Error-Entropy is close to its maximum $\log V$. Training moves the mass
# towards small RBE values, which is what lowering EE requires.

# %% [markdown]
# {numref}`fig-b2-rbe` has one row per family with checkpoints: its smallest checkpointed model on
# the first corpus, with $1/V$ as a grey line.


# %% mystnb={"figure": {"caption": "Paper B, Fig. 4 analogue: the RBE distribution $p_e$ of each family's smallest checkpointed model (rows) at up to three training steps (paper B's where the model has them; each title gives the step, EE and its ceiling log V), on the set's first corpus, against RBE $e$ + 1 (the 1-based rank with strict ties) on log-log axes shared along each row. Dashed grey: $1/V$, random ranking.", "name": "fig-b2-rbe"}}
if fig4:
    picked = list(fig4.items())  # one block of panels per family: (family, (model, steps))
    fig, drawn = plots.model_blocks([(family, name) for family, (name, _) in picked],
                                    [steps for _, (_, steps) in picked], 2.6, "$p_e$", "RBE $e$ + 1", sharex="row",
                                    sharey="row")
    for ax, i, step in drawn:
        family, (name, _) = picked[i]
        series = evidence.series_of(corpora[0], family, name)
        dec = series.at(step)
        ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color=plots.family_style(model_set, family)["color"])
        ax.axhline(1 / series.vocab, color="grey", ls="--", lw=1)
        ax.set_title(f"step {step:,}\nEE = {dec.error_entropy:.2f}, log V = {np.log(series.vocab):.2f}")
    plots.show(fig)
else:
    display(Markdown(b2.no_checkpoints_note("Fig. 4", evidence)))

# %% [markdown]
# With a finite evaluation sample the step-0 distribution of {numref}`fig-b2-rbe` is not flat:
# each rank is hit a handful of times, so the points scatter around $1/V$, and its plug-in
# entropy sits below $\log V$ even for ranks drawn truly at random ([chapter B5](b5_sample_size)
# quantifies this bias). The verdict on "nearly uniform" therefore compares EE at step 0 with the
# EE that random ranking has on the same number of tokens
# (`rankscale.analysis.dynamics.uniform_entropy`, an exact formula), not with $\log V$.

# %% [markdown]
# ## What the output distribution looks like around the target (paper B, §3.3, Fig. 5)
#
# Confidence, $\log C$ with $C = \sum_e Q_e$, grows when the model gives high probability to its
# targets at every rank, which it can afford only by taking probability away from tokens it
# ranks *below* the target. Paper B shows this with the average output probability of the best,
# second-best, ... token over predictions whose target has RBE 1 (rank 2) and RBE 3 (rank 4),
# and reports that the probability breaks off a little after the target's position. The
# records keep the highest few log-probabilities of every prediction, enough for that picture.
# {numref}`fig-b2-break` shows it for the largest final model of each family (one row each),
# whether or not the family has checkpoints.

# %% mystnb={"figure": {"caption": "Paper B, Fig. 5 analogue: the mean output probability of the best, second-best, ... token over the predictions whose target has RBE 1 (left) and RBE 3 (right), for each family's largest final model (rows) on each corpus (colours). Dotted: the target's own position.", "name": "fig-b2-break"}}
fig, axes = plots.panels(len(families), len(claims.B2_FIG5_RBES), 2.6, sharex=True, sharey=True)
for row, family in zip(axes, families):
    for ax, e in zip(row, claims.B2_FIG5_RBES):
        for b in evidence.breaks:  # a corpus where the model has no target at RBE e has no line
            if (b.family, b.e) == (family, e):
                ax.plot(np.arange(1, len(b.probs) + 1), b.probs, "o-", ms=4, color=f"C{corpora.index(b.corpus)}")
        ax.axvline(e + 1, color="grey", ls=":", lw=1)
        ax.set_yscale("log")
    row[0].set_ylabel(f"{family}\n{evidence.largest[family]}")
for ax, e in zip(axes[0], claims.B2_FIG5_RBES):
    ax.set_title(f"target at RBE {e} (rank {e + 1})")
for ax in axes.flat:
    plots.plain_log_ticks(ax)
for ax in axes[-1]:
    ax.set_xlabel("position in the model's ranking")
fig.supylabel("mean output probability")
plots.legend_below(fig, [Line2D([], [], marker="o", ms=4, color=f"C{i}", label=corpus)
                         for i, corpus in enumerate(corpora)])
plots.show(fig)

# %%
display(b2.breaks_table(evidence).style.hide(axis="index").set_caption(
    "Where the mean output probability breaks off, for each family's largest final model per corpus and target RBE e: "
    "the target's position, the predictions averaged, and the position after the sharpest drop."))

# %% [markdown]
# "Sharpest drop after position $j$" is the $j$ at which the mean probability falls by the
# largest factor from position $j$ to $j+1$. Paper B places that break just after the token
# below the target: after position 3 for a target at rank 2 and after position 5 for a target at
# rank 4 (the paper's text labels the second case "RBE = 1"; a target at rank 4 has RBE 3). Its
# caption says the scores drop for the tokens ranked *below* the target, which puts the break
# right after the target's own position, $e+1$; the verdict accepts either reading, but the
# figure's point is that the break follows the target, so it must sit at the same offset for
# both targets: a break that stays at one position while the target moves down fails.
#
# ## The score distribution aligns with the RBE distribution (paper B, §3.3, Fig. 6)
#
# Self-Alignment is the Kullback-Leibler divergence from $q_e$ to $p_e$. If a model's
# normalised scores tracked its own error frequencies exactly, $q_e$ would equal $p_e$ and SA
# would be zero. Paper B's Fig. 6 shows them far apart early and nearly
# identical after training.

# %% [markdown]
# {numref}`fig-b2-alignment` has a block of panels per family with checkpoints: its middle
# checkpointed model on the first corpus.
#
# One thing to keep in mind when reading the first panel: at initialisation *both* distributions
# are close to uniform (random ranks, near-uniform scores), so SA starts small; what is left of
# it there comes mostly from the scatter of $p_e$ over a finite sample. The divergence appears
# once training has begun to concentrate $p_e$ and the scores have not yet followed.

# %% mystnb={"figure": {"caption": "Paper B, Fig. 6 analogue: the RBE distribution $p_e$ (blue) and the score distribution $q_e$ (orange) of each family's middle checkpointed model (named on the left) at its training checkpoints (left to right, then top to bottom), on the set's first corpus, against RBE $e$ + 1 (the 1-based rank with strict ties) on log-log axes. Each title gives the step, SA and the total-variation distance over the well-sampled ranks.", "name": "fig-b2-alignment"}}
if fig6:
    dot = {"ls": "none", "marker": ".", "ms": 10}  # larger than the panels' dots, so that the colour reads
    picked = list(fig6.items())
    fig, drawn = plots.model_blocks([(family, name) for family, (name, _) in picked],
                                    [steps for _, (_, steps) in picked], 2.5, "probability", "RBE $e$ + 1")
    for ax, i, step in drawn:
        family, (name, _) = picked[i]
        dec = evidence.series_of(corpora[0], family, name).at(step)
        ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color="C0")
        ax.loglog(dec.e + 1, dec.q_e, ".", ms=3, color="C1", alpha=0.6)
        tv = dynamics.alignment_distance(dec, claims.B2_MIN_GROUP)
        shown = (f"{tv:.3f} ({dynamics.head_share(dec, claims.B2_MIN_GROUP):.0%} of targets)" if np.isfinite(tv)
                 else "— (no rank held that often)")
        ax.set_title(f"step {step:,}: SA = {dec.self_alignment:.3f}\nTV = {shown}")
        plots.plain_log_ticks(ax)
    plots.legend_below(fig, [Line2D([], [], color="C0", label="$p_e$", **dot),
                             Line2D([], [], color="C1", alpha=0.6, label="$q_e$", **dot)])
    plots.show(fig)
else:
    display(Markdown(b2.no_checkpoints_note("Fig. 6", evidence)))

# %% [markdown]
# ### How close is "almost indistinguishable"?
#
# Self-Alignment is a divergence, but its size in nats does not say how far apart two
# distributions look. A scale that does is the total-variation distance
# $\mathrm{TV} = \tfrac12 \sum_e |p_e - q_e|$: the largest difference between the probabilities
# the two give to any set of RBE values, between 0 (identical) and 1 (disjoint); one observation
# drawn from one of them tells which with probability at most $(1 + \mathrm{TV})/2$. Paper B gives
# no number for "almost indistinguishable"; the verdict reads it as TV below a threshold
# (`rankscale.claims.B2_MAX_TV`, given with the table of final models below).
#
# A finite text cannot measure the tail of $p_e$: a rank seen once gets $p_e = 1/N$, far above
# its real frequency, while its $q_e$ follows that one target's score, so over the tail the two
# stay apart however well a model is aligned ([chapter B5](b5_sample_size) measures what this does to SA). TV is
# therefore computed over the RBE values that some minimum number of targets hold
# (`rankscale.claims.B2_MIN_GROUP`), both distributions renormalised there, and the share of
# targets those ranks hold is shown beside it.
#
# Even a perfectly aligned model, one that scores every target of rank $e$ at exactly $p_e$, would
# not measure TV = 0 on a finite text: the counts behind $p_e$ are noisy. The table's column "TV
# if aligned" is that floor (`rankscale.analysis.dynamics.aligned_distance`: the same $p_e$, the same
# number of tokens, multinomial counts), so the threshold can be read against what the sample
# allows; where the floor reaches the threshold, the sample is too short to show alignment at
# all, and that model cannot test the claim. The verdict grades the course Fig. 6 draws, on every
# checkpoint series (`rankscale.claims.b2.contrast`): TV, with its bootstrap interval, below the
# threshold at the last checkpoint and above it at the early checkpoint farthest apart (one
# whose floor reaches the threshold is passed over: sampling alone would put it there). At
# initialisation both distributions are nearly flat, the targets ranked at random and scored
# nearly alike, so TV at step 0 can be as low as at the end, near its floor; that is what the
# claim expects, and the divergence it speaks of comes after, where $p_e$ has concentrated and
# $q_e$ not yet followed. Closeness at the end alone, which the untrained model meets too, would
# say nothing of training, so the verdict asks for both. Every final model's TV, those without
# checkpoints (and so without a course) among them, is in the table below, shown and not counted.

# %% [markdown]
# {numref}`fig-b2-distance` follows TV over training for every checkpointed model (one column per
# corpus). At initialisation the targets are spread over the whole vocabulary, so the ranks that
# enough targets hold cover much of the sample only where it has several targets for every
# vocabulary entry; on a shorter sample TV there compares a small part of it, or nothing.
# {glue:md}`b2_first_share:myst` The lower row of the figure shows how much of the sample each
# point rests on.

# %% mystnb={"figure": {"caption": "Top: the total-variation distance between $p_e$ and $q_e$, over the ranks that enough targets hold, across the training checkpoints of every checkpointed model, on each corpus (columns); dashed: the verdict's threshold. Bottom: the share of the targets those ranks hold.", "name": "fig-b2-distance"}}
if with_checkpoints:
    fig, axes = plots.corpus_panels(corpora, 2.9, rows=2, sharex=True, sharey="row")
    for col, corpus in enumerate(corpora):
        here = [s for s in evidence.series if s.corpus == corpus]
        plots.step_lines(axes[0, col], model_set, [(s.family, s.model, s.steps, s.tv()) for s in here])
        plots.step_lines(axes[1, col], model_set, [(s.family, s.model, s.steps, s.compared()) for s in here])
        axes[0, col].axhline(claims.B2_MAX_TV, color="grey", ls="--", lw=1)
        axes[1, col].set_xlim(left=0)
        axes[1, col].set_xlabel("training step")
    axes[0, 0].set_ylabel("TV($p_e$, $q_e$)")
    axes[1, 0].set_ylabel(f"share of targets at ranks\nheld by ≥ {claims.B2_MIN_GROUP} targets")
    plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0], ncol=legend_columns)
    plots.show(fig)
else:
    display(Markdown(b2.no_checkpoints_note("curve of TV over training", evidence)))

# %%
glue("b2_threshold", Markdown(b2.threshold_text(context)), display=False)
display(b2.alignment_table(evidence, context).style.format(
    {c: "{:.3f}" for c in ["SA", "TV", "TV low", "TV high", "targets in the ranks compared", "TV if aligned",
                           "TV, all ranks"]})
    .hide(axis="index").set_caption(
        f"Every final model per corpus: SA (nats), TV between p_e and q_e over the ranks held by {claims.B2_MIN_GROUP} "
        f"or more targets with its {context.level:.0%} interval, those ranks' share of targets, an aligned model's TV, "
        "and TV over all ranks."))

# %% [markdown]
# {glue:md}`b2_threshold:myst`

# %% [markdown]
# ## Verdicts
#
# Each verdict is decided by `rankscale.claims.b2.decide` under the rule shown in its row, fixed in
# `rankscale.claims.b2` before the data are seen. The training-dynamics rules are applied to every
# series of checkpoints, one per (family, checkpointed model, corpus), with
# `rankscale.claims.b2.series_checks`; Fig. 6's closeness to every final model of every family on
# every corpus; Fig. 5's break to each family's largest final model on every corpus
# (`rankscale.claims.b2.break_follows_target`). A claim is
# *reproduced* if it holds on every unit that can test it, *partly* if on some, *not reproduced*
# if on none; units that cannot test it (a family without checkpoints, a series without a step-0
# checkpoint or with fewer than three checkpoints) are named in the "ours" column, and a claim no
# unit can test is *not testable on this set*. On a set with checkpoints, the table below gives
# every series' numbers: the measured change with its paired bootstrap interval (in nats; for
# B2.4, the gain in the part of CE's drop that SA and Confidence carry), or for "uniform at init"
# the ratio of effective ranks to random ranking's. The bootstrap resamples this corpus's windows only, so these intervals are
# a lower bound on the uncertainty: another text, another seed or another training run would add to it.

# %%
if evidence.series:
    display(b2.series_table(evidence, context).style.hide(axis="index").set_caption(
        "Every checkpoint series (corpus, family, model) under each training-dynamics rule, headed by its claim: "
        f"whether it holds (yes, no or undecided), with the change (nats) and its {context.level:.0%} interval, or for "
        f"{b2.RULE_CLAIMS['uniform_at_init']} the ratio of effective ranks."))
verdicts = pages.verdict_table("B2", b2.SPEC.decide(evidence, context), model_set.name, b2.headline(evidence, context))

# %% [markdown]
# ## What the verdicts say together
#
# B2.1 to B2.3 are the three curves of Fig. 3 read one at a time. B2.8 and B2.4 are the paper's
# explanation of them: Error-Entropy starts as the largest term, and training lowers it first,
# leaving Self-Alignment and Confidence for later; a set can show the curves without the order.
# B2.8 is checked but not counted as a replication: any model that starts by ranking at random
# (B2.5) starts with Error-Entropy near log V, far above the other two.
# B2.5 and B2.6 are the two ends of Figs. 4 and 6: targets ranked at random before training, and
# scores that, after drifting away from the ranks' frequencies early on, follow them by the end. B2.7 is Fig. 5's account of how Confidence
# grows, by taking probability from the tokens ranked below the target.

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B2", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them.
#
# ```{exercise} b2.1 · When does Self-Alignment peak?
# :label: ex-b2-1
# :nonumber:
# The three exercises of this chapter read one model's checkpoints:
# `series = teaching.b2.checkpoints(chapter)` gives them, earliest first, for the largest checkpointed
# model of the first family that has checkpoints on the first corpus (each is a run with its training
# step `run.step` and its records `run.records`; the call raises an error on a set without
# checkpoints). Decompose every checkpoint of `series` into CE, EE, SA and Conf (by hand as in chapter
# B1, or with `rankscale.analysis.metrics.ce_decomposition(run.records.logp, run.records.gt)`), and
# give the training step at which Self-Alignment is largest to `teaching.check("b2.1", answer, chapter)`.
# Is the peak at the first checkpoint, the last or in between, and what would each say about the
# order in which training works on the terms?
# ```
#
# ```{exercise} b2.2 · Who carries the drop of CE?
# :label: ex-b2-2
# :nonumber:
# For the same checkpoints, `series`, give Error-Entropy's part of CE's drop from the first checkpoint to the
# last, $(\mathrm{EE}_\mathrm{first} - \mathrm{EE}_\mathrm{last}) / (\mathrm{CE}_\mathrm{first} -
# \mathrm{CE}_\mathrm{last})$, to `teaching.check("b2.2", answer, chapter)`. Then change the interval:
# take only the first two checkpoints, then only the last two. How does EE's part move, and what
# carries the rest of the drop in each?
# ```
#
# ```{exercise} b2.3 · How close is close, and over which ranks?
# :label: ex-b2-3
# :nonumber:
# At the last checkpoint of `series`, keep the RBE values held by at least `claims.B2_MIN_GROUP`
# targets, renormalise $p_e$ and $q_e$ over them, and give the total-variation distance
# $\tfrac12 \sum_e |p_e - q_e|$ to `teaching.check("b2.3", answer, chapter)`. Then change the threshold
# to 1 (every rank that occurs) and to ten times `claims.B2_MIN_GROUP`: how do the distance and the
# share of targets it compares move, and why do ranks seen only once or twice pull $p_e$ and $q_e$
# apart?
# ```

# %% [markdown]
# ```{solution-start} ex-b2-1
# :class: dropdown
# ```
#
# `dynamics.terms_of` gives CE, EE, SA, Conf (and the distance of the third exercise) of one sample;
# one row per checkpoint:

# %%
import pandas as pd

from rankscale import RankscaleError, teaching

try:
    series = teaching.b2.checkpoints(chapter)
except RankscaleError as missing:
    series = []
    display(Markdown(f"The exercises have no data on this set: {missing}."))
terms = [dynamics.terms_of(run.records.logp, run.records.gt, claims.B2_MIN_GROUP) for run in series]
by_step = pd.DataFrame([{"step": run.step, **t} for run, t in zip(series, terms)], columns=["step", *dynamics.TERMS])
peak = float(by_step["step"][by_step["SA"].idxmax()]) if series else float("nan")
glue("ex_b2_1", peak, display=False)
glue("ex_b2_1_model", Markdown(f"{series[-1].family} {series[-1].name}" if series else "none"), display=False)
display(by_step.style.format({term: "{:.4f}" for term in dynamics.TERMS}).hide(axis="index"))
teaching.check("b2.1", peak, chapter) if series else None

# %% [markdown]
# The model is {glue:md}`ex_b2_1_model:myst`, and its Self-Alignment is largest at step
# {glue:text}`ex_b2_1:,.0f` (the table gives every checkpoint). An untrained model ranks its targets
# nearly at random and scores the tokens nearly alike, so both $p_e$ and $q_e$ start close to uniform
# and leave SA little to measure. A peak in between fits paper B's reading of its Fig. 3: $p_e$
# concentrates first, the scores lag behind, and SA grows while they lag and falls as they catch up. A peak at the last
# checkpoint means that the scores had not yet caught up when training stopped; a peak at the first,
# that SA fell all along. The checkpoints are few, so the true peak may lie anywhere between the
# neighbours of the one found.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b2-2
# :class: dropdown
# ```
#
# By hand for the two ends: CE is the mean of $-\log s$, EE the entropy of the RBE counts. Then every
# interval with `dynamics.interval_parts`:

# %%
ends = []
for run in series[:1] + series[-1:]:
    counts = np.bincount(run.records.gt)
    p = counts[counts > 0] / len(run.records.gt)
    ends.append((-np.mean(run.records.logp.astype(np.float64)), -np.sum(p * np.log(p))))
ee_part = (ends[0][1] - ends[1][1]) / (ends[0][0] - ends[1][0]) if series else float("nan")
parts = dynamics.interval_parts(by_step["EE"], by_step["SA"], by_step["Conf"]) if series else {}
glue("ex_b2_2", float(ee_part), display=False)
for where, i in (("first", 0), ("last", -1)):
    for component in metrics.COMPONENTS:
        value = float(parts[component][i]) if series else float("nan")
        glue(f"ex_b2_2_{where}_{component}", value, display=False)
teaching.check("b2.2", ee_part, chapter) if series else None

# %% [markdown]
# From the first checkpoint to the last, Error-Entropy carries a part {glue:text}`ex_b2_2:.3f` of
# CE's drop; Self-Alignment's drop and Confidence's rise carry the rest (the three parts add up to 1,
# and a negative part worked against the drop). Over the first interval alone the parts are EE
# {glue:text}`ex_b2_2_first_EE:.3f`, SA {glue:text}`ex_b2_2_first_SA:.3f` and Conf
# {glue:text}`ex_b2_2_first_Conf:.3f`; over the last interval EE {glue:text}`ex_b2_2_last_EE:.3f`, SA
# {glue:text}`ex_b2_2_last_SA:.3f` and Conf {glue:text}`ex_b2_2_last_Conf:.3f`. Paper B's account
# expects EE's part to be largest early and SA and Confidence to take a larger part later; over an
# interval where CE barely moves, the parts can lie far outside $[0, 1]$ because they divide by a
# small drop.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b2-3
# :class: dropdown
# ```
#
# At the last checkpoint, by hand: the counts and mean log-probabilities of each RBE value, then the
# distance over the values held often enough, for three thresholds:

# %%
thresholds = (1, claims.B2_MIN_GROUP, 10 * claims.B2_MIN_GROUP)
distances, compared = {m: float("nan") for m in thresholds}, {m: float("nan") for m in thresholds}
if series:
    last = series[-1].records
    counts = np.bincount(last.gt)
    held = counts > 0
    p_e = counts[held] / len(last.gt)
    log_Q = np.bincount(last.gt, weights=last.logp.astype(np.float64))[held] / counts[held]
    q_e = np.exp(log_Q - log_Q.max())  # q_e up to a constant factor, which the renormalisation removes
    for m in thresholds:
        kept = counts[held] >= m
        if kept.any():
            distances[m] = 0.5 * np.sum(np.abs(p_e[kept] / p_e[kept].sum() - q_e[kept] / q_e[kept].sum()))
            compared[m] = p_e[kept].sum()
for i, m in enumerate(thresholds):
    glue(f"ex_b2_3_min_{i}", m, display=False)
    glue(f"ex_b2_3_tv_{i}", float(distances[m]), display=False)
    glue(f"ex_b2_3_share_{i}", float(compared[m]), display=False)
glue("ex_b2_3", float(distances[claims.B2_MIN_GROUP]), display=False)
teaching.check("b2.3", distances[claims.B2_MIN_GROUP], chapter) if series else None

# %% [markdown]
# Over the ranks held by at least {glue:text}`ex_b2_3_min_1` targets the distance is
# {glue:text}`ex_b2_3:.4f`, comparing a share {glue:text}`ex_b2_3_share_1:.3f` of the targets. With
# every rank that occurs (threshold {glue:text}`ex_b2_3_min_0`) it is {glue:text}`ex_b2_3_tv_0:.4f`
# over all of them; with a threshold of {glue:text}`ex_b2_3_min_2` it is {glue:text}`ex_b2_3_tv_2:.4f`
# over a share {glue:text}`ex_b2_3_share_2:.3f` (NaN where no rank is held that often). A rank seen
# once gets $p_e = 1/N$ whatever its true frequency, while its $q_e$ is that one target's probability
# over $C$, so over the tail the two differ by sampling alone; a higher threshold leaves those ranks
# out and compares the distributions where the counts measure them, at the price of comparing fewer
# targets.
#
# ```{solution-end}
# ```
