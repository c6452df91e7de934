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
# # B1 · Cross-entropy as Error-Entropy + Self-Alignment − Confidence
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Paper B ("What Scales in Cross-Entropy Scaling Law?") starts from the observation that the
# cross-entropy (CE) of a language model mixes two things: *where* the model puts the correct
# token in its ranking of the vocabulary, and *how much probability* it gives to that position.
# It separates them with an exact rewriting of CE into three terms (paper B, §3.1-3.2,
# Figures 1-2). This chapter builds that decomposition step by step on the final models of every
# family of the model set, and on the set's reference models where it has any, and checks, term
# by term, that it adds up. It ends with the paper's argument for ranks over probabilities
# (§3.1, §3.3): a sampling temperature changes every probability but no rank, so Error-Entropy
# stays put while the other terms move, shown on one model extracted at three temperatures.
#
# Three of the chapter's four verdicts are *analytic*: the decomposition, the ceiling on
# Confidence and the temperature argument hold by construction, and checking them checks this
# code and its records, not the paper. One is a claim about data (how a trained model's errors
# are distributed), and only that one counts in the scorecard's totals.
#
# **Rank convention.** Everything in the paper B chapters uses paper B's *rank-based error*
# (RBE, its eq. 1): the number of vocabulary tokens whose probability is *strictly* higher than
# the target's. It is 0-based (RBE 0 means the target was the model's top choice) and equals the
# stored count `gt`. Paper A's rank is 1-based and counts ties above the target (`ge + 1`);
# where a log axis needs a positive number we plot RBE + 1, which is the 1-based rank with
# strict ties (`gt + 1`).

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set

# %%
import textwrap

import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from rankscale.analysis import dynamics, metrics
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import paper_b
from rankscale.records import runs

chapter = open_chapter(profile, corpora, references=True)
model_set, corpora, families = chapter.model_set, chapter.corpora, chapter.families
family_runs, reference_runs = chapter.family_runs, chapter.reference_runs
shown = {corpus: family_runs[corpus] + reference_runs[corpus] for corpus in corpora}  # every model, per corpus
decompositions = {corpus: [metrics.ce_decomposition(run.records.logp, run.records.gt) for run in shown[corpus]]
                  for corpus in corpora}
# the models whose predictions are drawn one by one: each family's largest model, then the references
featured = {corpus: [(run, dec) for run, dec in zip(shown[corpus], decompositions[corpus])
                     if run.family is None or run is runs.by_family(family_runs[corpus])[run.family][-1]]
            for corpus in corpora}
references = reference_runs[corpora[0]]
if references:
    display(Markdown(
        "**Reference model" + "s" * (len(references) > 1) + "**, shown beside the families' largest models "
        "wherever this chapter looks at one model's predictions: "
        + "; ".join(f"*{run.name}* ({run.non_embedding:,} non-embedding parameters, vocabulary "
                    f"{run.vocab_size:,}): {run.note or 'the model set gives no description'}" for run in references)
        + ". A reference model belongs to no family and is outside every size fit: it is shown for "
          "comparison, as one more trained model's predictions, never as a point on a family's line."))
else:
    display(Markdown(
        f"This model set (`{profile}`) has **no reference model**, so the chapter shows the families' own "
        "models only. A set with a `[[references]]` entry (the built-in `tiny` set has one, a real "
        "pretrained model) adds it beside the families' largest models in every figure and table below."))

# %% [markdown]
# ## The ingredients (paper B, §3.1)
#
# For every target token $v_i$ of a held-out text the model gives a probability $s_{v_i}$ and
# an RBE $e_i = \#\{v : s_v > s_{v_i}\}$. Paper B groups the $N$ targets by their RBE and
# defines, for each value $e$ that occurs,
#
# - the **RBE distribution** $p_e = n_e / N$: how often the target sits at RBE $e$ (its eq. 2);
# - the **geometric-mean score** $Q_e = \big(\prod_{i: e_i = e} s_{v_i}\big)^{1/n_e}$ of the
#   targets in that group (eq. 3);
# - the **norm** $C = \sum_e Q_e$ and the **score distribution** $q_e = Q_e / C$ (eq. 4).
#
# Because $\log Q_e$ is the *mean* log-probability of group $e$, CE $= -\sum_e p_e \log Q_e$
# (eq. 6). Writing $Q_e = C q_e$ and splitting $-\sum_e p_e \log q_e$ into an entropy and a
# Kullback-Leibler divergence gives paper B's eq. 8:
#
# $$\mathrm{CE} = \underbrace{-\sum_e p_e \log p_e}_{\text{Error-Entropy (EE)}}
#   + \underbrace{\sum_e p_e \log \frac{p_e}{q_e}}_{\text{Self-Alignment (SA)}}
#   - \underbrace{\log C}_{\text{Confidence (Conf)}} .$$
#
# EE depends on ranks only; SA measures how far the normalised scores $q_e$ are from the error
# frequencies $p_e$; Conf is large when the model gives its targets high probability at every
# rank. All logarithms are natural, so every term is in nats.
#
# ### A worked example (paper B, Fig. 2)
#
# Paper B's Figure 2 draws the grouping as a diagram. Here is the same computation on the first
# few targets of the held-out text, predicted by the largest model of the set's first family:
# each row is one prediction, with the target token, its probability $s$ and its RBE.

# %%
example_corpus = corpora[0]
example_run = runs.by_family(family_runs[example_corpus])[families[0]][-1]
rec = example_run.records
first = slice(0, 16)
texts = runs.token_texts(example_run, rec.target[first])
display(Markdown(f"Model: {runs.label(example_run)} on {example_corpus}."
                 + ("" if texts is not None else " Its tokenizer is not available here, so targets are "
                                                 "shown as token ids.")))
display(pd.DataFrame({
    "target token": [repr(t) for t in texts] if texts is not None else rec.target[first],
    "s = p(target)": np.exp(rec.logp[first].astype(float)),
    "-log s": -rec.logp[first].astype(float),
    "RBE e (gt)": rec.gt[first],
}).style.format({"s = p(target)": "{:.4f}", "-log s": "{:.3f}"}).hide(axis="index").set_caption(
    "The example's first predictions, one per row: the target token, its probability s, −log s (nats) and its RBE e, "
    "the number of tokens scored strictly above it."))

example = metrics.ce_decomposition(rec.logp[first], rec.gt[first])
display(pd.DataFrame({"e": example.e, "n_e": example.n_e, "p_e": example.p_e,
                      "Q_e": np.exp(example.log_Q_e), "q_e": example.q_e})
        .style.format({"p_e": "{:.4f}", "Q_e": "{:.4g}", "q_e": "{:.4f}"}).hide(axis="index").set_caption(
            "The same predictions grouped by RBE e: each group's count n_e and share p_e, the geometric mean Q_e of "
            "its probabilities, and the normalised score q_e."))
display(Markdown(
    f"{len(example.p_e)} RBE groups from {example.n_e.sum()} targets; $C$ = {np.exp(example.log_C):.4g}. "
    f"CE = {example.ce:.4f} = EE {example.error_entropy:.4f} + SA {example.self_alignment:.4f} "
    f"− Conf ({example.confidence:.4f}), with residual {example.residual:.1e}."))

# %% [markdown]
# With so few targets most groups hold a single prediction, so $Q_e$ is just that prediction's
# probability. On the full held-out text the groups at small $e$ hold thousands of targets,
# while the tail of large RBE values is still seen only once or twice each, which matters for
# Self-Alignment ([chapter B5](b5_sample_size) measures how much).
#
# ## The two distributions on real output (paper B, Fig. 1)
#
# Paper B's Figure 1 sketches $p_e$ (blue) and $q_e$ (orange) for a trained model.
# {numref}`fig-b1-distributions` shows the measured ones for the largest model of each family and
# for each reference model (rows) on each corpus (columns), on log-log axes against RBE + 1
# (1-based rank with strict ties). The dashed grey line is $1/V$, what $p_e$ would be if the model
# ranked the target at random among its own $V$ tokens (the families' vocabularies may differ).


# %%
RBE_LABEL = "RBE $e$ + 1"  # short enough for a narrow panel; the captions add "the 1-based rank with strict ties"
DOT = {"ls": "none", "marker": ".", "ms": 10}  # a legend's dot: larger than the panels' so that its colour reads


def model_grid(height, quantity, xlabel="", **subplots):
    """A panel per featured model (each family's largest, then the references) and corpus.

    Each model gets a block of ``plots.panel_blocks``: a row of up to three panels, one per corpus (more
    rows where there are more corpora), named on the left; the corpora are named above the first model's
    panels (above every panel where a model takes more than one row), ``xlabel`` under the bottom ones.
    ``subplots`` goes to ``plots.panels`` (``sharey="row"``, ...). Returns the figure and its (axes, run,
    decomposition) triples.
    """
    fig, axes, blocks = plots.panel_blocks([len(corpora)] * len(featured[corpora[0]]), height, **subplots)
    drawn = []
    for i, block in enumerate(blocks):  # one model's rows
        run = featured[corpora[0]][i][0]
        for ax in block[:, 0]:  # the family over the model's name, wrapped to stay within its row
            ax.set_ylabel(f"{run.family or 'reference'}\n" + textwrap.fill(run.name, 22))
        for ax, corpus in zip(block.flat, corpora):
            if i == 0 or len(block) > 1:
                ax.set_title(corpus)
            drawn.append((ax, *featured[corpus][i]))
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    fig.supylabel(quantity)
    return fig, drawn


# %% mystnb={"figure": {"caption": "Paper B, Fig. 1 analogue: the RBE distribution $p_e$ (blue) and the score distribution $q_e$ (orange) of each family's largest model and of each reference model (rows), on each corpus (columns), against RBE $e$ + 1 (the 1-based rank with strict ties) on log-log axes shared along each row. Dashed grey: $1/V$, random ranking.", "name": "fig-b1-distributions"}}
fig, drawn = model_grid(2.5, "probability", RBE_LABEL, sharex="row", sharey="row")
for ax, run, dec in drawn:
    ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color="C0")
    ax.loglog(dec.e + 1, dec.q_e, ".", ms=3, color="C1", alpha=0.6)
    ax.axhline(1 / run.vocab_size, color="grey", ls="--", lw=1)
plots.legend_below(fig, [Line2D([], [], color="C0", label="$p_e$ (RBE distribution)", **DOT),
                         Line2D([], [], color="C1", alpha=0.6, label="$q_e$ (score distribution)", **DOT),
                         Line2D([], [], color="grey", ls="--", lw=1, label="uniform $1/V$")])
plots.show(fig)

# %% [markdown]
# Both distributions fall steeply with the rank: the model usually puts the target near the
# top. At large $e$ the blue points form horizontal stripes at $1/N, 2/N, \dots$: those ranks
# were the target's rank once or twice. Where $q_e$ lies above $p_e$ the model gives targets at
# that rank more (normalised) probability than it gets such targets; Self-Alignment is the
# $p_e$-weighted mean of $\log(p_e/q_e)$ over these points. At large $e$ each group holds one or
# two targets, so the orange cloud there is the scatter of single predictions rather than a
# smooth curve.
#
# The same distributions in numbers: the share of targets at RBE 0 ($p_0$, the top-1
# accuracy), the share within the first ten ranks, and Error-Entropy against its ceiling
# $\log V$, the entropy of random ranking.

# %%
rows = []
for corpus in corpora:
    for run, dec in featured[corpus]:
        rows.append({"corpus": corpus, "family": run.family or "reference", "model": run.name,
                     "V": run.vocab_size, "p_0": float(dec.p_e[0]) if dec.e[0] == 0 else 0.0,
                     "P(e < 10)": float(dec.p_e[dec.e < 10].sum()), "EE": dec.error_entropy,
                     "log V": float(np.log(run.vocab_size)),
                     "EE / log V": dec.error_entropy / np.log(run.vocab_size)})
glance = pd.DataFrame(rows)
display(glance.style.format({"V": "{:,}", "p_0": "{:.3f}", "P(e < 10)": "{:.3f}", "EE": "{:.3f}",
                             "log V": "{:.3f}", "EE / log V": "{:.3f}"}).hide(axis="index").set_caption(
    "Each family's largest model and each reference model, per corpus: vocabulary V, the share of targets at RBE 0 "
    "(p_0) and below 10, and Error-Entropy (nats) against its ceiling log V."))
if references:
    ladders = glance[glance.family != "reference"]
    display(Markdown("Beside the families: " + "; ".join(
        f"the reference *{name}* has $p_0$ from {part.p_0.min():.3f} to {part.p_0.max():.3f} and EE / log V from "
        f"{part['EE / log V'].min():.3f} to {part['EE / log V'].max():.3f} over the corpora"
        for name, part in glance[glance.family == "reference"].groupby("model", sort=False))
        + f", against $p_0$ from {ladders.p_0.min():.3f} to {ladders.p_0.max():.3f} and EE / log V from "
          f"{ladders['EE / log V'].min():.3f} to {ladders['EE / log V'].max():.3f} for the families' largest models."))

# %% [markdown]
# ## The identity, term by term (paper B, §3.2, eq. 8)
#
# For every final model (and reference model) and corpus: the cross-entropy computed directly as
# the mean of $-\log s$, the three components, their combination EE + SA − Conf, and the
# residual CE − (EE + SA − Conf).

# %%
rows = []
for corpus in corpora:
    for run, dec in zip(shown[corpus], decompositions[corpus]):
        ce = metrics.cross_entropy(run.records.logp)
        rows.append({"corpus": corpus, "family": run.family or "reference", "model": run.name,
                     "params (non-emb.)": run.non_embedding, "tokens": len(run.records), "CE = mean(-log s)": ce,
                     "EE": dec.error_entropy, "SA": dec.self_alignment, "Conf": dec.confidence,
                     "EE + SA - Conf": dec.error_entropy + dec.self_alignment - dec.confidence,
                     "residual": ce - (dec.error_entropy + dec.self_alignment - dec.confidence)})
identity = pd.DataFrame(rows)
display(identity.style.format({c: "{:.4f}" for c in ["CE = mean(-log s)", "EE", "SA", "Conf", "EE + SA - Conf"]}
                              | {"residual": "{:.1e}", "params (non-emb.)": "{:,}", "tokens": "{:,}"})
        .hide(axis="index").set_caption(
            "CE = EE + SA − Conf for every final and reference model per corpus: CE as the mean of −log s, the three "
            "components and their combination (nats), and the residual CE − (EE + SA − Conf)."))
max_residual = float(identity["residual"].abs().max())
ee_share = identity["EE"] / identity["CE = mean(-log s)"]
display(Markdown(
    f"Largest |residual| over {len(identity)} (model, corpus) pairs: {max_residual:.1e} nats. "
    f"Error-Entropy is {ee_share.min():.0%} to {ee_share.max():.0%} of CE across them."))

# %% [markdown]
# The residual is at the level of floating-point rounding: the decomposition is an identity,
# not an approximation. The waterfalls of {numref}`fig-b1-waterfall` show how the three terms
# build CE for each family's largest model (and each reference model) on each corpus:
# Error-Entropy carries most of it, Self-Alignment adds a little, and Confidence is subtracted (a
# negative Confidence, $C < 1$, *adds* to CE). The vertical axis starts well above zero so that
# the small terms are visible.

# %% mystnb={"figure": {"caption": "CE = EE + SA − Conf, built term by term for each family's largest model and each reference model (rows) on each corpus (columns): the bars, left to right, are Error-Entropy (blue), plus Self-Alignment (green), minus Confidence (red), equals CE (black). Each panel's vertical axis is zoomed so that the small terms show.", "name": "fig-b1-waterfall"}}
# the waterfall's bars, left to right, and their colours; a legend names them (four names under a panel collide)
WATERFALL = {"EE": "C0", "+ SA": "C2", "− Conf": "C3", "= CE": "k"}
fig, drawn = model_grid(2.4, "nats")
for ax, _, dec in drawn:
    spans = [(0.0, dec.error_entropy), (dec.error_entropy, dec.error_entropy + dec.self_alignment),
             (dec.error_entropy + dec.self_alignment, dec.ce), (0.0, dec.ce)]
    for x, ((lo, hi), color) in enumerate(zip(spans, WATERFALL.values(), strict=True)):
        ax.bar(x, hi - lo, bottom=lo, color=color, width=0.6)
    ax.set_xticks([])
    top = max(dec.error_entropy + max(dec.self_alignment, 0), dec.ce)
    ax.set_ylim(max(0.0, top - 4 * (abs(dec.self_alignment) + abs(dec.confidence)) - 0.05), top + 0.1)
plots.legend_below(fig, [Patch(color=color, label=name) for name, color in WATERFALL.items()])
plots.show(fig)

# %% [markdown]
# ### The identity holds for any grouping; the meaning comes from grouping by rank
#
# Nothing in the algebra of eqs. 5-8 uses the fact that the groups are defined by the rank: any
# partition of the targets gives CE = entropy of the group frequencies + KL divergence − log C.
# What makes the terms interpretable is the choice of RBE as the grouping. The table groups the
# targets of each family's largest model (and each reference model) twice, by paper B's strict
# RBE (`gt`) and by the count that puts tied tokens above the target (`ge`, paper A's eq. 3
# convention minus one). The components move with the convention only as far as ties are
# common; the identity holds for both.

# %%
rows = []
for corpus in corpora:
    for run, _ in featured[corpus]:
        rec = run.records
        for convention, counts in (("gt (paper B)", rec.gt), ("ge (ties above)", rec.ge)):
            dec = metrics.ce_decomposition(rec.logp, counts)
            rows.append({"corpus": corpus, "model": runs.label(run), "grouping": convention,
                         "targets with ties": int(np.sum(rec.ge != rec.gt)),
                         "EE": dec.error_entropy, "SA": dec.self_alignment, "Conf": dec.confidence,
                         "residual": dec.residual})
display(pd.DataFrame(rows).style.format({"EE": "{:.4f}", "SA": "{:.4f}", "Conf": "{:.4f}", "residual": "{:.1e}"})
        .hide(axis="index").set_caption(
            "The components (nats) of each family's largest model and each reference model per corpus, grouped by "
            "paper B's strict RBE (gt) and with ties above the target (ge), beside the tied targets and the residual."))

# %% [markdown]
# ## How large can Confidence be? (paper B, §3.3)
#
# A target with RBE $e$ has $e$ tokens strictly above it, each at least as probable, so
# $(e+1)\,s \le 1$: every probability in group $e$, and hence their geometric mean $Q_e$, is at
# most $1/(e+1)$. Confidence is therefore bounded by $\log \sum_e 1/(e+1)$ over the RBE values
# that occur; paper B notes that this harmonic sum diverges, so the bound itself grows with the
# number of ranks seen. {numref}`fig-b1-ceiling` plots $Q_e$ of each family's largest model (and
# each reference model) against that ceiling; the table below it checks every model
# (`rankscale.analysis.dynamics.ceiling_excess` and `confidence_bound`).

# %% mystnb={"figure": {"caption": "The geometric-mean score $Q_e$ (orange) of each family's largest model and each reference model (rows) on each corpus (columns), against its ceiling $1/(e+1)$ (black), on log-log axes of RBE $e$ + 1 shared along each row.", "name": "fig-b1-ceiling"}}
fig, drawn = model_grid(2.5, "probability", RBE_LABEL, sharex="row", sharey="row")
for ax, _, dec in drawn:
    ax.loglog(dec.e + 1, np.exp(dec.log_Q_e), ".", ms=3, color="C1")
    ax.loglog(dec.e + 1, 1 / (dec.e + 1), "k-", lw=1)
plots.legend_below(fig, [Line2D([], [], color="C1", label="$Q_e$ (geometric mean of $s$)", **DOT),
                         Line2D([], [], color="k", lw=1, label="ceiling $1/(e+1)$")])
plots.show(fig)

# %%
bounds = pd.DataFrame([{"corpus": corpus, "family": run.family or "reference", "model": run.name,
                        "max log Q_e + log(e+1)": dynamics.ceiling_excess(dec), "Conf": dec.confidence,
                        "bound log sum 1/(e+1)": dynamics.confidence_bound(dec)}
                       for corpus in corpora for run, dec in zip(shown[corpus], decompositions[corpus])])
bounds["Q_e ≤ 1/(e+1) for all e"] = paper_b.bound_holds(bounds["max log Q_e + log(e+1)"])
display(bounds.style.format({"Conf": "{:.4f}", "bound log sum 1/(e+1)": "{:.3f}", "max log Q_e + log(e+1)": "{:.3f}"})
        .hide(axis="index").set_caption(
            "Confidence against its ceiling for every final and reference model per corpus: the largest "
            "log Q_e + log(e+1) (at most zero under the ceiling), Confidence, and its bound log Σ 1/(e+1), in nats."))

# %% [markdown]
# Real models stay far below the ceiling (the column "max log Q_e + log(e+1)" is the largest
# $\log Q_e + \log(e+1)$, which the ceiling keeps at or below 0): it would require the $e+1$ best
# tokens to share all the probability equally. Confidence is therefore a small number next to its
# bound, of either sign: $C < 1$ (negative Confidence) when the targets' geometric-mean
# probabilities, summed over the ranks that occur, stay below one.
#
# ## Temperature moves the probabilities, not the ranks (paper B, §3.1 and §3.3)
#
# Paper B argues for ranks over probabilities with the usual ways of post-processing an output
# distribution: a temperature $T$ divides the logits by $T$ before the softmax, top-$k$ and top-$p$
# (nucleus) sampling cut the distribution off below some rank and renormalise what is left. Each
# changes the probabilities, and so cross-entropy, but none changes the order of the tokens
# (top-$p$ keeps the order of the tokens it keeps), so the RBE of every target, and with it
# Error-Entropy, stays the same (§3.3). Self-Alignment and Confidence are made of the target's
# probabilities and move with them.

# %% [markdown]
# That much is an argument. To see it on real predictions, the model set extracts one model (the
# largest of its first family, on its first corpus, a few thousand tokens) three times: as it is
# ($T = 1$) and with the logits divided by $T = 0.5$ (sharper) and $T = 2$ (flatter) before the
# softmax and the rank counts (`rankscale.records.runs.temperature_runs`); the table and
# {numref}`fig-b1-temperature` below show the result. The records hold only the target's
# probability and the head of each distribution, not the full logits, so a tempered distribution
# cannot be computed from the $T = 1$ records afterwards; hence the extra extractions. Both
# temperatures are powers of two, which scale binary floating-point numbers exactly, so not even
# a tie between two logits can appear or vanish. Top-$p$ is not extracted: for the targets it
# keeps it only renormalises, and a target it cuts off gets probability 0, which CE cannot score
# at all.

# %%
tempered = runs.temperature_runs(model_set)
if tempered:
    base = tempered[1.0]
    rows = []
    for t, run in tempered.items():
        dec = metrics.ce_decomposition(run.records.logp, run.records.gt)
        rows.append({"T": t, "CE": dec.ce, "EE": dec.error_entropy, "SA": dec.self_alignment, "Conf": dec.confidence,
                     "p_0 (top-1)": float(np.mean(run.records.gt == 0)),
                     "targets whose RBE differs from T = 1": int(np.sum(run.records.gt != base.records.gt)),
                     "same targets as T = 1": bool(np.array_equal(run.records.target, base.records.target))})
    temperature_table = pd.DataFrame(rows)
    display(Markdown(f"Model: {runs.label(base)} on {next(iter(model_set.corpora))}, "
                     f"{len(base.records):,} tokens at each temperature."))
    display(temperature_table.style.format({q: "{:.4f}" for q in ["CE", "EE", "SA", "Conf"]}
                                           | {"p_0 (top-1)": "{:.4f}", "T": "{:g}"})
            .hide(axis="index").set_caption(
                "One model's predictions on the same tokens at each temperature T: CE and its components (nats), the "
                "top-1 share p_0, how many targets change RBE from T = 1, and whether the targets are the same."))

# %% mystnb={"figure": {"caption": "CE and its components for one model on the same tokens at temperatures $T$ = 0.5, 1 and 2 (logits divided by $T$ before the softmax): Error-Entropy, a function of the ranks alone, stays put while the terms made of probabilities move.", "name": "fig-b1-temperature"}}
if tempered:
    fig, axes = plots.panels(2, 2, 2.3, sharex=True)
    for ax, quantity, color in zip(axes.flat, ["CE", "EE", "SA", "Conf"], ["k", "C0", "C2", "C3"]):
        ax.plot(temperature_table["T"], temperature_table[quantity], "o-", color=color)
        ax.set_xscale("log", base=2)
        ax.set_xticks(temperature_table["T"], [f"{t:g}" for t in temperature_table["T"]])
        ax.set_title(quantity)
    for ax in axes[-1]:
        ax.set_xlabel("temperature $T$")
    for ax in axes[:, 0]:
        ax.set_ylabel("nats")
    plots.show(fig)
else:
    display(Markdown(
        f"This model set (`{model_set.name}`) extracts no tempered predictions (its `temperature_tokens` is 0), so "
        "the argument stands here without the demonstration, and the claim B1.4 is not testable on it. A set with "
        "`temperature_tokens = 4000` (the built-in sets have it) adds it."))

# %%
if tempered:
    moved = {q: float(temperature_table[q].max() - temperature_table[q].min()) for q in ["CE", "EE", "SA", "Conf"]}
    display(Markdown(
        "Across the three temperatures Error-Entropy moves by "
        f"{moved['EE']:.1e} nats, while CE moves by {moved['CE']:.3f}, Self-Alignment by {moved['SA']:.3f} and "
        f"Confidence by {moved['Conf']:.3f} nats; the share of targets ranked first, $p_0$, "
        + ("is the same at every temperature." if temperature_table["p_0 (top-1)"].nunique() == 1
           else "differs between temperatures.")))

# %% [markdown]
# At $T = 0.5$ every output distribution sharpens: the best token of each prediction gains
# probability and the tail loses it. At $T = 2$ it flattens towards uniform. Which of the two
# raises CE more, and how Self-Alignment and Confidence share the change, depends on the model
# (the table and {numref}`fig-b1-temperature` say, for this one); the ranks, and with them
# Error-Entropy and every RBP$_k$ of paper A, are the same at every temperature.

# %% [markdown]
# ## Verdicts
#
# Each verdict is decided by a function of `rankscale.claims.paper_b` under a rule fixed in `rankscale.claims`
# before the data are seen (shown in the table's "rule" column). The units of evidence are every
# final model of every family and every reference model, on every corpus (the "ours" column
# breaks the count down by family, references counted separately), and, for the temperature
# argument, each temperature against $T = 1$. None of these claims is about size, so a family of
# any number of models counts, and a reference model counts like any other trained model. As a
# control, the concentration rule is also applied to the untrained step-0 checkpoints, where the
# set has them: a rule that a model ranking at random also passed would not test anything.

# %%
checks = []
for corpus in corpora:
    for run, dec in zip(shown[corpus], decompositions[corpus]):
        checks.append({"unit": f"{corpus}/{runs.label(run)}", "group": run.family or "reference",
                       "concentrated": dynamics.concentrated(run.records.gt, run.vocab_size),
                       "mode at 0": bool(dec.e[np.argmax(dec.p_e)] == 0),
                       "p_0": float(dec.p_e[0]) if dec.e[0] == 0 else 0.0})
checks = pd.DataFrame(checks)
controls = [dynamics.concentrated(run.records.gt, run.vocab_size)
            for run in runs.checkpoint_runs(model_set, corpora[0]) if run.step == 0]
control_text = (f"control: the same rule holds for {sum(controls)} of the {len(controls)} untrained step-0 checkpoints "
                f"on {corpora[0]}" if controls else "no step-0 checkpoint in this set to run the control on")
identity["unit"] = identity["corpus"] + "/" + identity["family"] + ": " + identity["model"]
identity["group"] = identity["family"]
bounds["unit"] = bounds["corpus"] + "/" + bounds["family"] + ": " + bounds["model"]
bounds["group"] = bounds["family"]
measured = [f"On every model and corpus, CE equals EE + SA − Conf to within {max_residual:.0e} nats, and "
            f"Error-Entropy makes up {ee_share.min():.0%} to {ee_share.max():.0%} of CE."]
verdicts = pages.verdict_table("B1", [
    paper_b.identity_exact(identity),
    paper_b.concentrates(checks, control_text),
    paper_b.confidence_bounded(bounds),
    paper_b.temperature_invariant(temperature_table.set_index("T") if tempered else None,
                                  f"{runs.label(base)}, {len(base.records):,} tokens" if tempered else ""),
], model_set.name, measured)

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B1", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed
