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
# checkpoints is made with a bootstrap interval (`rankscale.analysis.bootstrap`): the evaluation tokens are
# resampled, the same resample for every checkpoint of a model (they predict the same targets),
# the interval is the measured change plus or minus 1.96 standard deviations of its replicates
# (95%), and a change counts only when its interval excludes zero.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set

# %%
from itertools import pairwise
from statistics import NormalDist

import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D

from rankscale import claims
from rankscale.analysis import bootstrap, dynamics, metrics
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import base, training_dynamics
from rankscale.records import runs

PAPER_FIG4_STEPS = [0, 128, 10_000]  # paper B, Table 3: the steps of its Fig. 4 ...
PAPER_FIG6_STEPS = [0, 16, 128, 10_000]  # ... and Fig. 6, used where a model has all of them
chapter = open_chapter(profile, corpora, checkpoints=True)  # the page's header: the final models
model_set, corpora, families, n_boot = chapter.model_set, chapter.corpora, chapter.families, chapter.n_boot
finals, checkpoints = chapter.family_runs, chapter.checkpoint_runs
# checkpointed models of each family (smallest first) and the steps each was saved at
ck_groups = runs.by_family(checkpoints[corpora[0]])
checkpointed = {family: list(dict.fromkeys(run.name for run in ck_groups.get(family, []))) for family in families}
steps_of = {(run.family, run.name): [] for run in checkpoints[corpora[0]]}
for run in checkpoints[corpora[0]]:
    steps_of[run.family, run.name].append(run.step)
with_checkpoints = [family for family in families if checkpointed[family]]
no_checkpoints = [f"{family}: no training checkpoints in this model set" for family in families
                  if not checkpointed[family]]


def steps_text(steps):
    return ", ".join(f"{s:,}" for s in steps)


lines = []
for family in families:
    if not checkpointed[family]:
        lines.append(f"{family}: none, so its training dynamics are not testable on this set")
        continue
    described = {}
    for name in checkpointed[family]:
        described.setdefault(tuple(steps_of[family, name]), []).append(name)
    tokens = sorted({len(run.records) for run in ck_groups[family]})
    lines.append(f"{family}: " + "; ".join(f"{', '.join(names)} at steps {steps_text(steps)}"
                                            for steps, names in described.items())
                 + f" ({'/'.join(f'{t:,}' for t in tokens)} held-out tokens each on {corpora[0]})")
display(Markdown("**Checkpoints** · " + " · ".join(lines)
                 + ("" if with_checkpoints else
                    ". **No family of this set has training checkpoints**: every training-dynamics claim of this "
                    "chapter is not testable on it, and only Fig. 5, which needs a final model, is drawn.")))

rows = []
for corpus in corpora:
    for run in checkpoints[corpus]:
        dec = metrics.ce_decomposition(run.records.logp, run.records.gt)
        rows.append({"corpus": corpus, "family": run.family, "model": run.name, "params": run.non_embedding,
                     "step": run.step, "CE": dec.ce, "EE": dec.error_entropy, "SA": dec.self_alignment,
                     "Conf": dec.confidence, "TV": dynamics.alignment_distance(dec, claims.B2_MIN_GROUP),
                     "compared": dynamics.head_share(dec, claims.B2_MIN_GROUP),
                     "decomposition": dec, "vocab_size": run.vocab_size, "run": run})
dynamics_table = pd.DataFrame(rows, columns=["corpus", "family", "model", "params", "step", "CE", "EE", "SA", "Conf",
                                             "TV", "compared", "decomposition", "vocab_size", "run"])


def series_of(corpus, family, model):
    """One model's checkpoints on one corpus, in training order."""
    return dynamics_table[(dynamics_table.corpus == corpus) & (dynamics_table.family == family)
                          & (dynamics_table.model == model)].sort_values("step")


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
def pick_steps(steps, paper_steps, fallback):
    return list(paper_steps) if set(paper_steps) <= set(steps) else fallback(steps)


fig4, fig6, fig5_model = {}, {}, {}
table3 = []
for family in families:
    fig5_model[family] = runs.by_family(finals[corpora[0]])[family][-1].name
    names = checkpointed[family]
    if names:
        small, middle = names[0], names[len(names) // 2]
        fig4[family] = (small, pick_steps(steps_of[family, small], PAPER_FIG4_STEPS,
                                          lambda s: list(dict.fromkeys([s[0], s[-2], s[-1]] if len(s) > 2 else s))))
        fig6[family] = (middle, pick_steps(steps_of[family, middle], PAPER_FIG6_STEPS, list))
        fig3_text = "; ".join(f"{name} @ steps {steps_text(steps_of[family, name])}" for name in names)
        fig4_text = f"{small} (smallest checkpointed) @ steps {steps_text(fig4[family][1])}"
        fig6_text = f"{middle} (middle checkpointed) @ steps {steps_text(fig6[family][1])}"
    else:
        fig3_text = fig4_text = fig6_text = f"no checkpoints: {base.NOT_TESTABLE}"
    table3 += [{"figure": "Fig. 3", "family": family, "data (ours)": ", ".join(corpora),
                "models and checkpoints": fig3_text},
               {"figure": "Fig. 4", "family": family, "data (ours)": corpora[0], "models and checkpoints": fig4_text},
               {"figure": "Fig. 5", "family": family, "data (ours)": ", ".join(corpora),
                "models and checkpoints": f"{fig5_model[family]} (largest), final model"},
               {"figure": "Fig. 6", "family": family, "data (ours)": corpora[0], "models and checkpoints": fig6_text},
               {"figure": "Fig. 6 (verdict)", "family": family, "data (ours)": ", ".join(corpora),
                "models and checkpoints": "every final model"}]
display(pd.DataFrame(table3).sort_values("figure", kind="stable").style.hide(axis="index")
        .set_table_attributes(f'class="{pages.PROSE_TABLE}"').set_caption(
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
LINE_STYLES = ["-", "--", ":", "-."]


def model_lines(ax, corpus, column):
    """Every checkpointed model's ``column`` over its checkpoints on ``corpus``, against a step axis that is
    linear up to 1 and logarithmic beyond: colour and marker by family, line style by model."""
    for family in with_checkpoints:
        style = plots.family_style(model_set, family)
        for i, name in enumerate(checkpointed[family]):
            series = series_of(corpus, family, name)
            ax.plot(series.step, series[column], ls=LINE_STYLES[i % len(LINE_STYLES)], ms=4,
                    label=f"{family}: {name}", **style)
    ax.set_xscale("symlog", linthresh=1)


def model_legend(fig, ax):
    """The lines of ``model_lines`` named under the figure; a legend fills its columns first, so with as
    many columns as families (up to three) each family's models stand in a column of their own."""
    plots.legend_below(fig, ax.get_legend_handles_labels()[0], ncol=min(plots.MOST_ACROSS, len(with_checkpoints)))


def no_checkpoints_note(figure):
    """What stands in for a figure that needs checkpoints, on a set without any."""
    display(Markdown(f"No checkpoints, so no {figure} on this set ({'; '.join(no_checkpoints)})."))


# %% mystnb={"figure": {"caption": "Paper B, Fig. 3 analogue: CE, Error-Entropy, Self-Alignment and Confidence (rows, in nats, each on one vertical scale across its row) over the training checkpoints of every checkpointed model, on each corpus (columns). Colour and marker: family; line style: model within the family.", "name": "fig-b2-components"}}
if with_checkpoints:
    fig, axes = plots.corpus_panels(corpora, 2.2, rows=len(quantities), sharex=True, sharey="row")
    for row, quantity in zip(axes, quantities):
        for ax, corpus in zip(row, corpora):
            model_lines(ax, corpus, quantity)
        row[0].set_ylabel(f"{quantity} (nats)")
    for ax in axes[-1]:
        ax.set_xlabel("training step")
    model_legend(fig, axes[0, 0])
    plots.show(fig)
else:
    no_checkpoints_note("Fig. 3")

# %%
if with_checkpoints:
    display(dynamics_table.drop(columns=["TV", "compared", "decomposition", "vocab_size", "run"]).style
            .format({q: "{:.4f}" for q in quantities} | {"params": "{:,}", "step": "{:,}"}).hide(axis="index")
            .set_caption("Every checkpoint of every checkpointed model, per corpus: its non-embedding parameters, "
                         "training step, and CE, Error-Entropy, Self-Alignment and Confidence in nats."))

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
def short(step):
    return f"{step // 1000}k" if step >= 1000 and step % 1000 == 0 else str(step)


series_keys = [(family, name) for family in with_checkpoints for name in checkpointed[family]
               if len(steps_of[family, name]) >= 2]

# %% mystnb={"figure": {"caption": "Each component's part of the drop of CE between consecutive checkpoints, for every checkpointed model (rows) on each corpus (columns): EE's drop (blue), SA's drop (green) and Confidence's rise (red), as fractions of CE's drop; the three parts sum to 1. Under the panels: each interval, from one checkpoint's step to the next's. Linear axis between −1 and 1, logarithmic beyond.", "name": "fig-b2-parts"}}
if series_keys:
    # where every model has the same checkpoints, its intervals are named under the bottom row only
    same_steps = len({tuple(steps_of[key]) for key in series_keys}) == 1
    fig, axes = plots.corpus_panels(corpora, 1.75, rows=len(series_keys), sharex=same_steps, sharey=True)
    for column, corpus in zip(axes.T, corpora):
        for ax, (family, name) in zip(column, series_keys):
            series = series_of(corpus, family, name)
            parts = dynamics.interval_parts(series.EE, series.SA, series.Conf)
            x = np.arange(len(series) - 1)
            for j, (component, color) in enumerate(zip(metrics.COMPONENTS, ["C0", "C2", "C3"])):
                label = {"EE": "EE drop", "SA": "SA drop", "Conf": "Conf rise"}[component]
                ax.bar(x + (j - 1) * 0.27, np.nan_to_num(parts[component], posinf=0, neginf=0), width=0.27,
                       color=color, label=label)
            ax.axhline(0, color="k", lw=0.5)
            steps = list(series.step)
            # an interval's two steps on two lines: on one, neighbouring intervals' names collide
            ax.set_xticks(x, [f"{short(a)}→\n{short(b)}" for a, b in pairwise(steps)])
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


# %%
def family_rows(picks, height, quantity, handles=(), **subplots):
    """The panels of Figs. 4 and 6: one per step of each family's pick, in rows of up to three (two rows of
    two rather than four across), each row named on the left by its model.

    The panels' axes are RBE e + 1 and ``quantity``; ``handles``, if any, are named in a legend under them;
    ``subplots`` goes to ``plots.panels``. Yields (family, model, (axes, step) pairs), and shows the figure
    once they are drawn."""
    fig, axes, blocks = plots.panel_blocks([len(steps) for _, steps in picks.values()], height, **subplots)
    for block, (family, (name, steps)) in zip(blocks, picks.items()):  # one family's rows
        for ax in block[:, 0]:
            ax.set_ylabel(f"{family}\n{name}")
        yield family, name, zip(block.flat, steps)
    for ax in axes[-1]:  # short enough for a narrow panel; the captions say "1-based, strict ties"
        ax.set_xlabel("RBE $e$ + 1")
    fig.supylabel(quantity)
    if handles:
        plots.legend_below(fig, handles)
    plots.show(fig)

# %% mystnb={"figure": {"caption": "Paper B, Fig. 4 analogue: the RBE distribution $p_e$ of each family's smallest checkpointed model (rows) at up to three training steps (paper B's where the model has them; each title gives the step, EE and its ceiling log V), on the set's first corpus, against RBE $e$ + 1 (the 1-based rank with strict ties) on log-log axes shared along each row. Dashed grey: $1/V$, random ranking.", "name": "fig-b2-rbe"}}
if fig4:
    for family, name, panels in family_rows(fig4, 2.6, "$p_e$", sharex="row", sharey="row"):
        for ax, step in panels:
            entry = series_of(corpora[0], family, name).set_index("step").loc[step]
            dec = entry.decomposition
            ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color=plots.family_style(model_set, family)["color"])
            ax.axhline(1 / entry.vocab_size, color="grey", ls="--", lw=1)
            ax.set_title(f"step {step:,}\nEE = {dec.error_entropy:.2f}, log V = {np.log(entry.vocab_size):.2f}")
else:
    no_checkpoints_note("Fig. 4")

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
drops = []
for row, family in zip(axes, families):
    for ax, e in zip(row, claims.B2_FIG5_RBES):
        for i, corpus in enumerate(corpora):
            run = runs.by_family(finals[corpus])[family][-1]
            n_e = int(np.sum(run.records.gt == e))
            if n_e == 0:  # no target at this rank: nothing to average
                continue
            probs = metrics.top_rank_probs(run.records.top_logp, run.records.gt, e)
            drops.append({"family": family, "model": run.name, "corpus": corpus, "target RBE e": e,
                          "target position (1-based)": e + 1, "predictions": n_e,
                          "sharpest drop after position": metrics.sharpest_drop(probs)})
            ax.plot(np.arange(1, len(probs) + 1), probs, "o-", ms=4, color=f"C{i}", label=corpus)
        ax.axvline(e + 1, color="grey", ls=":", lw=1)
        ax.set_yscale("log")
    row[0].set_ylabel(f"{family}\n{fig5_model[family]}")
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
drops = pd.DataFrame(drops, columns=["family", "model", "corpus", "target RBE e", "target position (1-based)",
                                     "predictions", "sharpest drop after position"])
display(drops.style.hide(axis="index").set_caption(
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
    p_and_q = [Line2D([], [], color="C0", label="$p_e$", **dot),
               Line2D([], [], color="C1", alpha=0.6, label="$q_e$", **dot)]
    for family, name, panels in family_rows(fig6, 2.5, "probability", p_and_q):
        for ax, step in panels:
            entry = series_of(corpora[0], family, name).set_index("step").loc[step]
            dec = entry.decomposition
            ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color="C0")
            ax.loglog(dec.e + 1, dec.q_e, ".", ms=3, color="C1", alpha=0.6)
            tv = f"{entry.TV:.3f} ({entry.compared:.0%} of targets)" if np.isfinite(entry.TV) else "— (no rank held that often)"
            ax.set_title(f"step {step:,}: SA = {dec.self_alignment:.3f}\nTV = {tv}")
            plots.plain_log_ticks(ax)
else:
    no_checkpoints_note("Fig. 6")

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
# all, and that model cannot test the claim. The verdict grades TV, with its bootstrap interval,
# on every final model of every family ("after sufficient training", as the paper puts it;
# `rankscale.claims.training_dynamics.closeness`), in the table below.

# %% [markdown]
# {numref}`fig-b2-distance` follows TV over training for every checkpointed model (one column per
# corpus). At initialisation hardly any rank is held that often (the targets are spread over the
# whole vocabulary), so there TV compares a sliver of the sample, or nothing at all; the lower
# row of the figure shows how much of the sample each point rests on.

# %% mystnb={"figure": {"caption": "Top: the total-variation distance between $p_e$ and $q_e$, over the ranks that enough targets hold, across the training checkpoints of every checkpointed model, on each corpus (columns); dashed: the verdict's threshold. Bottom: the share of the targets those ranks hold.", "name": "fig-b2-distance"}}
if with_checkpoints:
    fig, axes = plots.corpus_panels(corpora, 2.9, rows=2, sharex=True, sharey="row")
    for col, corpus in enumerate(corpora):
        for ax, column in zip(axes[:, col], ["TV", "compared"]):
            model_lines(ax, corpus, column)
        axes[0, col].axhline(claims.B2_MAX_TV, color="grey", ls="--", lw=1)
        axes[1, col].set_xlim(left=0)
        axes[1, col].set_xlabel("training step")
    axes[0, 0].set_ylabel("TV($p_e$, $q_e$)")
    axes[1, 0].set_ylabel(f"share of targets at ranks\nheld by ≥ {claims.B2_MIN_GROUP} targets")
    model_legend(fig, axes[0, 0])
    plots.show(fig)
else:
    no_checkpoints_note("curve of TV over training")

# %%
display(Markdown(
    f"Threshold: TV below {claims.B2_MAX_TV} (one observation tells the two distributions apart with probability "
    f"at most {(1 + claims.B2_MAX_TV) / 2:.0%}), over the ranks held by at least {claims.B2_MIN_GROUP} targets; "
    f"{bootstrap.LEVEL:.0%} intervals (TV ± {NormalDist().inv_cdf((1 + bootstrap.LEVEL) / 2):.2f} standard "
    f"deviations of its replicates) from {n_boot} resamples of each model's tokens."))
closeness_rows = []
for corpus in corpora:
    for run in finals[corpus]:
        dec = metrics.ce_decomposition(run.records.logp, run.records.gt)
        check, floor = training_dynamics.closeness(run.records.logp, run.records.gt, claims.B2_MAX_TV, n_boot,
                                          claims.B2_MIN_GROUP)
        closeness_rows.append({"corpus": corpus, "family": run.family, "model": run.name,
                               "SA": dec.self_alignment, "TV": check.value, "TV low": check.low, "TV high": check.high,
                               "targets in the ranks compared": dynamics.head_share(dec, claims.B2_MIN_GROUP),
                               "TV if aligned": floor,
                               "TV, all ranks": dynamics.alignment_distance(dec), "below threshold": check.holds,
                               "note": check.note})
closeness = pd.DataFrame(closeness_rows)
display(closeness.drop(columns=["below threshold"]).style.format(
    {c: "{:.3f}" for c in ["SA", "TV", "TV low", "TV high", "targets in the ranks compared", "TV if aligned",
                           "TV, all ranks"]})
    .hide(axis="index").set_caption(
        f"Every final model per corpus: SA (nats), TV between p_e and q_e over the ranks held by {claims.B2_MIN_GROUP} "
        f"or more targets with its {bootstrap.LEVEL:.0%} interval, those ranks' share of targets, an aligned model's TV, "
        "and TV over all ranks."))

# %% [markdown]
# ## Verdicts
#
# Each verdict is graded by `rankscale.claims.judge` under the rule shown in its row, fixed in
# `rankscale.claims` before the data are seen. The training-dynamics rules are applied to every
# series of checkpoints, one per (family, checkpointed model, corpus), with
# `rankscale.claims.training_dynamics.check_series`; Fig. 6's closeness to every final model of every family on
# every corpus; Fig. 5's break to each family's largest final model on every corpus
# (`rankscale.claims.training_dynamics.break_follows_target`). A claim is
# *reproduced* if it holds on every unit that can test it, *partly* if on some, *not reproduced*
# if on none; units that cannot test it (a family without checkpoints, a series without a step-0
# checkpoint or with fewer than three checkpoints) are named in the "ours" column, and a claim no
# unit can test is *not testable on this set*. On a set with checkpoints, the table below gives
# every series' numbers: the measured change with its paired bootstrap interval (in nats; for
# B2.4, the gain in the part of CE's drop that SA and Confidence carry), or for "uniform at init"
# the ratio of effective ranks to random ranking's. The bootstrap resamples tokens only, so these intervals are a lower bound
# on the uncertainty: another text, another seed or another training run would add to it.

# %%
series_results = {}  # (corpus, family, model) -> {rule: training_dynamics.Check}
for corpus in corpora:
    for family in with_checkpoints:
        for name in checkpointed[family]:
            s = series_of(corpus, family, name)
            series_results[corpus, family, name] = training_dynamics.check_series(
                s.step.to_numpy(), [r.records.arrays() for r in s.run], int(s.vocab_size.iloc[0]), n_boot,
                claims.B2_UNIFORM_RATIO, claims.B2_MIN_GROUP)


def shown_check(check, ratio=False):
    if check.holds is None:
        return "—"
    verdict = "yes" if check.holds else "no"
    if ratio:
        return f"{verdict}: {check.value:.3f}"
    interval = f" [{check.low:+.3f}, {check.high:+.3f}]" if np.isfinite(check.low) else ""
    return f"{verdict}: {check.value:+.3f}{interval}"


if series_results:
    display(pd.DataFrame([{"corpus": corpus, "family": family, "model": name,
                           **{f"{training_dynamics.RULE_CLAIMS[rule]} {rule}": shown_check(check, rule == "uniform_at_init")
                              for rule, check in checks.items()}}
                          for (corpus, family, name), checks in series_results.items()]).style.hide(axis="index")
            .set_caption("Every checkpoint series (corpus, family, model) under each training-dynamics rule, headed by "
                         f"its claim: whether it holds, with the change (nats) and its {bootstrap.LEVEL:.0%} interval, "
                         f"or for {training_dynamics.RULE_CLAIMS['uniform_at_init']} the ratio of effective ranks."))


breaks = {}
for (corpus, family, model), part in drops.groupby(["corpus", "family", "model"], sort=False):
    breaks[f"{corpus}/{family}: {model}"] = dict(zip(part["target RBE e"], part["sharpest drop after position"]))
for corpus in corpora:
    for family in families:
        breaks.setdefault(f"{corpus}/{family}: {fig5_model[family]}", {})
without_checkpoints = [family for family in families if not checkpointed[family]]


closeness["unit"] = closeness["corpus"] + "/" + closeness["family"] + ": " + closeness["model"]

ee_changes = [c["ee_falls"].value for c in series_results.values() if c["ee_falls"].holds is not None]
measured = [f"Across {len(ee_changes)} checkpoint series, Error-Entropy changes by "
            f"{plots.span(ee_changes, '+.2f')} nats from the first checkpoint to the last."] if ee_changes else []
verdicts = pages.verdict_table("B2", [
    training_dynamics.series_verdict("ee_falls", series_results, without_checkpoints, lambda c: f"EE change first → last checkpoint "
                                         f"{plots.span([x.value for x in c], '+.3f')} nats; series with a "
                                         f"significant rise between neighbours: "
                                         f"{sum('significant rise ' in x.note for x in c)}"),
    training_dynamics.series_verdict("sa_ends_down", series_results, without_checkpoints, lambda c: "SA change from its peak to the last checkpoint "
                                             f"{plots.span([x.value for x in c], '+.3f')} nats"),
    training_dynamics.series_verdict("conf_rises", series_results, without_checkpoints, lambda c: "Confidence change first → last checkpoint "
                                           f"{plots.span([x.value for x in c], '+.3f')} nats"),
    training_dynamics.series_verdict("ee_first", series_results, without_checkpoints, lambda c: "gain of the SA + Conf part of CE's drop, later stretch over first "
                                         "interval: " + plots.span([x.value for x in c if np.isfinite(x.value)]
                                                                   or [x.value for x in c], "+.2f")),
    training_dynamics.series_verdict("uniform_at_init", series_results, without_checkpoints, lambda c: "effective ranks at step 0 as a share of random ranking's: "
                                                f"{min(x.value for x in c):.3f} to {max(x.value for x in c):.3f} "
                                                f"(threshold {claims.B2_UNIFORM_RATIO})"),
    claims.judge("B2.6", dict(zip(closeness["unit"], closeness["below threshold"])),
                 f"TV over the ranks held by ≥ {claims.B2_MIN_GROUP} targets from {closeness.TV.min():.3f} to "
                 f"{closeness.TV.max():.3f} (threshold {claims.B2_MAX_TV}); below it with the whole interval: "
                 + ", ".join(f"{family} {sum(v is not None and bool(v) for v in part['below threshold'])}/"
                             f"{sum(v is not None for v in part['below threshold'])}"
                             for family, part in closeness.groupby("family", sort=False))
                 + f"; those ranks hold {closeness['targets in the ranks compared'].min():.0%} to "
                   f"{closeness['targets in the ranks compared'].max():.0%} of the targets; a perfectly aligned model "
                   f"would measure {closeness['TV if aligned'].min():.3f} to {closeness['TV if aligned'].max():.3f} "
                   "on the same samples",
                 why_not="no final model"),
    training_dynamics.break_follows_target(breaks),
    training_dynamics.series_verdict("ee_largest_at_init", series_results, without_checkpoints, lambda c: (
        "EE(0) − max(SA(0), |Conf(0)|) " + plots.span([x.value for x in c], "+.3f") + " nats")),
], model_set.name, measured)

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B2", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed
