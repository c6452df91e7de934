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
# code and its records, not the paper. The fourth is about data (how a trained model's errors
# are distributed), but any trained model meets it, so it is *definitional*: the scorecard lists
# it apart, and no row of this chapter counts in its totals.
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
import numpy as np
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from myst_nb import glue

from rankscale.analysis import metrics
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import b1
from rankscale.records import runs

chapter = open_chapter(profile, corpora, spec=b1.SPEC)
model_set, corpora, families = chapter.model_set, chapter.corpora, chapter.families
context = chapter.context(*b1.SPEC.tables)
evidence = b1.measure(chapter, context)  # every model decomposed, the control, the tempered predictions
glue("b1_references", Markdown(b1.references_note(chapter.reference_runs[corpora[0]], profile)), display=False)

# %% [markdown]
# {glue:md}`b1_references:myst`
#
# Everything the verdicts below read is computed in one step, `rankscale.claims.b1.measure`: the
# decomposition of every final model (and reference model) on every corpus, the check of each
# model's RBE distribution against random ranking, the same check on the untrained step-0
# checkpoints where the set has them, and one model's predictions at three temperatures. The
# figures and tables of this page lay that evidence out.

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
example_run = runs.by_family(chapter.family_runs[corpora[0]])[families[0]][-1]
predictions, decoded = b1.first_predictions(example_run, 16)
glue("b1_example_model", Markdown(f"{runs.label(example_run)} on {corpora[0]}"), display=False)
glue("b1_example_ids", Markdown("Its targets are shown as text." if decoded else "Its tokenizer is not available "
                                "here, so targets are shown as token ids."), display=False)
display(predictions.style.format({"s = p(target)": "{:.4f}", "-log s": "{:.3f}"}).hide(axis="index").set_caption(
    "The example's first predictions, one per row: the target token, its probability s, −log s (nats) and its RBE e, "
    "the number of tokens scored strictly above it."))
example = metrics.ce_decomposition(example_run.records.logp[:16], example_run.records.gt[:16])
display(b1.groups_table(example).style.format({"p_e": "{:.4f}", "Q_e": "{:.4g}", "q_e": "{:.4f}"}).hide(axis="index")
        .set_caption("The same predictions grouped by RBE e: each group's count n_e and share p_e, the geometric mean "
                     "Q_e of its probabilities, and the normalised score q_e."))
for name, value in {"groups": len(example.p_e), "targets": int(example.n_e.sum()), "C": float(np.exp(example.log_C)),
                    **example.terms(), "residual": example.residual}.items():
    glue(f"b1_example_{name}", value, display=False)

# %% [markdown]
# The model of the two tables above is {glue:md}`b1_example_model:myst`. {glue:md}`b1_example_ids:myst`
# Its {glue:text}`b1_example_groups` RBE groups from {glue:text}`b1_example_targets` targets give
# $C$ = {glue:text}`b1_example_C:.4g` and CE = {glue:text}`b1_example_CE:.4f` = EE
# {glue:text}`b1_example_EE:.4f` + SA {glue:text}`b1_example_SA:.4f` − Conf
# ({glue:text}`b1_example_Conf:.4f`), with residual {glue:text}`b1_example_residual:.1e`.

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
featured = {corpus: evidence.featured(corpus) for corpus in corpora}  # each family's largest, then the references
names = [(m.group, m.name) for m in featured[corpora[0]]]


# %% mystnb={"figure": {"caption": "Paper B, Fig. 1 analogue: the RBE distribution $p_e$ (blue) and the score distribution $q_e$ (orange) of each family's largest model and of each reference model (rows), on each corpus (columns), against RBE $e$ + 1 (the 1-based rank with strict ties) on log-log axes shared along each row. Dashed grey: $1/V$, random ranking.", "name": "fig-b1-distributions"}}
fig, drawn = plots.model_blocks(names, [corpora] * len(names), 2.5, "probability", RBE_LABEL, sharex="row", sharey="row")
for ax, i, corpus in drawn:
    dec = featured[corpus][i].terms
    ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color="C0")
    ax.loglog(dec.e + 1, dec.q_e, ".", ms=3, color="C1", alpha=0.6)
    ax.axhline(1 / featured[corpus][i].vocab, color="grey", ls="--", lw=1)
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
glance = b1.glance_table(evidence)
display(glance.style.format({"V": "{:,}", "p_0": "{:.3f}", "P(e < 10)": "{:.3f}", "EE": "{:.3f}",
                             "log V": "{:.3f}", "EE / log V": "{:.3f}"}).hide(axis="index").set_caption(
    "Each family's largest model and each reference model, per corpus: vocabulary V, the share of targets at RBE 0 "
    "(p_0) and below 10, and Error-Entropy (nats) against its ceiling log V."))
glue("b1_beside", Markdown(b1.references_beside(glance)), display=False)

# %% [markdown]
# {glue:md}`b1_beside:myst`

# %% [markdown]
# ## The identity, term by term (paper B, §3.2, eq. 8)
#
# For every final model (and reference model) and corpus: the cross-entropy computed directly as
# the mean of $-\log s$, the three components, their combination EE + SA − Conf, and the
# residual CE − (EE + SA − Conf).

# %%
identity = b1.identity_table(evidence)
display(identity.style.format({c: "{:.4f}" for c in ["CE = mean(-log s)", "EE", "SA", "Conf", "EE + SA - Conf"]}
                              | {"residual": "{:.1e}", "params (non-emb.)": "{:,}", "tokens": "{:,}"})
        .hide(axis="index").set_caption(
            "CE = EE + SA − Conf for every final and reference model per corpus: CE as the mean of −log s, the three "
            "components and their combination (nats), and the residual CE − (EE + SA − Conf)."))
glue("b1_pairs", len(identity), display=False)
glue("b1_max_residual", float(identity["residual"].abs().max()), display=False)
for name, share in zip(("low", "high"), b1.ee_share(evidence)):
    glue(f"b1_ee_share_{name}", float(share), display=False)

# %% [markdown]
# The largest |residual| over the {glue:text}`b1_pairs` (model, corpus) pairs is
# {glue:text}`b1_max_residual:.1e` nats. Error-Entropy is {glue:text}`b1_ee_share_low:.0%` to
# {glue:text}`b1_ee_share_high:.0%` of CE across them.
#
# The residual is at the level of floating-point rounding: the decomposition is an identity,
# not an approximation. The waterfalls of {numref}`fig-b1-waterfall` show how the three terms
# build CE for each family's largest model (and each reference model) on each corpus:
# Error-Entropy carries most of it, Self-Alignment adds a little, and Confidence is subtracted (a
# negative Confidence, $C < 1$, *adds* to CE). The vertical axis starts well above zero so that
# the small terms are visible.

# %% mystnb={"figure": {"caption": "CE = EE + SA − Conf, built term by term for each family's largest model and each reference model (rows) on each corpus (columns): the bars, left to right, are Error-Entropy (blue), plus Self-Alignment (green), minus Confidence (red), equals CE (black). Each panel's vertical axis is zoomed so that the small terms show.", "name": "fig-b1-waterfall"}}
# the waterfall's bars, left to right, and their colours; a legend names them (four names under a panel collide)
WATERFALL = {"EE": "C0", "+ SA": "C2", "− Conf": "C3", "= CE": "k"}
fig, drawn = plots.model_blocks(names, [corpora] * len(names), 2.4, "nats")
for ax, i, corpus in drawn:
    dec = featured[corpus][i].terms
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
display(b1.conventions_table(b1.featured_runs(chapter)).style.format(
    {"EE": "{:.4f}", "SA": "{:.4f}", "Conf": "{:.4f}", "residual": "{:.1e}"}).hide(axis="index").set_caption(
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
fig, drawn = plots.model_blocks(names, [corpora] * len(names), 2.5, "probability", RBE_LABEL, sharex="row", sharey="row")
for ax, i, corpus in drawn:
    dec = featured[corpus][i].terms
    ax.loglog(dec.e + 1, np.exp(dec.log_Q_e), ".", ms=3, color="C1")
    ax.loglog(dec.e + 1, 1 / (dec.e + 1), "k-", lw=1)
plots.legend_below(fig, [Line2D([], [], color="C1", label="$Q_e$ (geometric mean of $s$)", **DOT),
                         Line2D([], [], color="k", lw=1, label="ceiling $1/(e+1)$")])
plots.show(fig)

# %%
display(b1.bounds_table(evidence).style.format(
    {"Conf": "{:.4f}", "bound log sum 1/(e+1)": "{:.3f}", "max log Q_e + log(e+1)": "{:.3f}"}).hide(axis="index")
        .set_caption("Confidence against its ceiling for every final and reference model per corpus: the largest "
                     "log Q_e + log(e+1) (at most zero under the ceiling), Confidence, and its bound log Σ 1/(e+1), in "
                     "nats."))

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
# at all. The model extracted here is {glue:md}`b1_tempered:myst` at each temperature.

# %%
temperatures = evidence.temperatures  # None where the set extracts no tempered predictions
glue("b1_tempered", Markdown(f"{evidence.tempered.label}, {evidence.tempered_tokens:,} tokens"), display=False)
for quantity, moved in b1.temperature_moves(temperatures).items():
    glue(f"b1_moved_{quantity}", moved, display=False)
same_p0 = temperatures is None or temperatures["p_0 (top-1)"].nunique() == 1
glue("b1_p0", Markdown("is the same at every temperature" if same_p0 else "differs between temperatures"),
     display=False)
if temperatures is not None:
    display(temperatures.style.format({q: "{:.4f}" for q in ["CE", "EE", "SA", "Conf"]}
                                      | {"p_0 (top-1)": "{:.4f}", "T": "{:g}"}).hide(axis="index").set_caption(
        "One model's predictions on the same tokens at each temperature T: CE and its components (nats), the "
        "top-1 share p_0, how many targets change RBE from T = 1, and whether the targets are the same."))

# %% mystnb={"figure": {"caption": "CE and its components for one model on the same tokens at temperatures $T$ = 0.5, 1 and 2 (logits divided by $T$ before the softmax): Error-Entropy, a function of the ranks alone, stays put while the terms made of probabilities move.", "name": "fig-b1-temperature"}}
if temperatures is not None:
    fig, axes = plots.panels(2, 2, 2.3, sharex=True)
    for ax, quantity, color in zip(axes.flat, ["CE", "EE", "SA", "Conf"], ["k", "C0", "C2", "C3"]):
        ax.plot(temperatures["T"], temperatures[quantity], "o-", color=color)
        ax.set_xscale("log", base=2)
        ax.set_xticks(temperatures["T"], [f"{t:g}" for t in temperatures["T"]])
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

# %% [markdown]
# Across the three temperatures Error-Entropy moves by {glue:text}`b1_moved_EE:.1e` nats, while CE
# moves by {glue:text}`b1_moved_CE:.3f`, Self-Alignment by {glue:text}`b1_moved_SA:.3f` and
# Confidence by {glue:text}`b1_moved_Conf:.3f` nats; the share of targets ranked first, $p_0$,
# {glue:md}`b1_p0:myst`.
#
# At $T = 0.5$ every output distribution sharpens: the best token of each prediction gains
# probability and the tail loses it. At $T = 2$ it flattens towards uniform. Which of the two
# raises CE more, and how Self-Alignment and Confidence share the change, depends on the model
# (the table and {numref}`fig-b1-temperature` say, for this one); the ranks, and with them
# Error-Entropy and every RBP$_k$ of paper A, are the same at every temperature.

# %% [markdown]
# ## Verdicts
#
# Each verdict is decided by a function of `rankscale.claims.b1` under a rule fixed there
# before the data are seen (shown in the table's "rule" column). The units of evidence are every
# final model of every family and every reference model, on every corpus (the "ours" column
# breaks the count down by family, references counted separately), and, for the temperature
# argument, each temperature against $T = 1$. None of these claims is about size, so a family of
# any number of models counts, and a reference model counts like any other trained model. As a
# control, the concentration rule is also applied to the untrained step-0 checkpoints, where the
# set has them: a rule that a model ranking at random also passed would not test anything.

# %%
verdicts = pages.verdict_table("B1", b1.SPEC.decide(evidence, context), model_set.name, b1.headline(evidence))

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B1", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them.
#
# ```{exercise} b1.1 · The identity to the last digit
# :label: ex-b1-1
# :nonumber:
# Take the largest model of the first family on the first corpus, `run = teaching.largest_run(chapter)`.
# Group its targets by paper B's RBE $e$ = `run.records.gt` and, with numpy only (`np.bincount` helps),
# compute $p_e$, $\log Q_e$ (the mean of `run.records.logp` over the targets of group $e$), $C = \sum_e Q_e$,
# and from them Error-Entropy, Self-Alignment and Confidence, in nats. Give Self-Alignment to
# `teaching.check("b1.1", answer, chapter)`. Then compute CE as the mean of `-run.records.logp` and the
# residual CE $-$ (EE + SA $-$ Conf): how many digits agree, and what limits the rest?
# ```
#
# ```{exercise} b1.2 · How far below its ceiling
# :label: ex-b1-2
# :nonumber:
# A target at RBE $e$ has $e$ tokens at least as probable as itself, so its probability, and the
# geometric mean $Q_e$ of its group, is at most $1/(e+1)$; hence Conf $\le \log \sum_e 1/(e+1)$, the sum
# running over the RBE values that occur. For the same model, give that bound minus its Confidence
# (nats) to `teaching.check("b1.2", answer, chapter)`. Then change the model to the family's smallest,
# `teaching.family_models(chapter)[0]`: how do the bound, Confidence and the number of distinct RBE values
# move, and why would the bound grow if the same model were evaluated on more tokens?
# ```
#
# ```{exercise} b1.3 · What a temperature moves
# :label: ex-b1-3
# :nonumber:
# `chapter.temperature_runs` maps a temperature $T$ to one model's predictions on the same tokens with
# its logits divided by $T$ before the softmax (it is empty where the set extracts none). Give
# Self-Alignment at $T = 2$ minus Self-Alignment at $T = 1$ (nats, each run grouped by its own `gt`) to
# `teaching.check("b1.3", answer, chapter)`. Then change the temperature to $T = 0.5$: which of CE, EE,
# SA and Conf move, in which direction, and which one stays put to the last digit, and why?
# ```

# %% [markdown]
# ```{solution-start} ex-b1-1
# :class: dropdown
# ```
#
# `np.bincount` counts the targets of each RBE value and, with the log-probabilities as weights, sums
# them; the groups that occur are the non-zero counts:

# %%
from rankscale import teaching

run = teaching.largest_run(chapter)
rbe, logp = run.records.gt, run.records.logp.astype(np.float64)
counts = np.bincount(rbe)
held = counts > 0
p_e = counts[held] / len(rbe)
log_Q = np.bincount(rbe, weights=logp)[held] / counts[held]
log_C = np.log(np.sum(np.exp(log_Q)))
ee = -np.sum(p_e * np.log(p_e))
sa = np.sum(p_e * (np.log(p_e) - (log_Q - log_C)))
ce = -np.mean(logp)
for name, value in {"sa": sa, "ee": ee, "conf": log_C, "ce": ce, "residual": ce - (ee + sa - log_C)}.items():
    glue(f"ex_b1_1_{name}", float(value), display=False)
teaching.check("b1.1", sa, chapter)

# %% [markdown]
# By hand, EE = {glue:text}`ex_b1_1_ee:.6f`, SA = {glue:text}`ex_b1_1_sa:.6f` and Conf =
# {glue:text}`ex_b1_1_conf:.6f` nats, against CE = {glue:text}`ex_b1_1_ce:.6f`; the residual is
# {glue:text}`ex_b1_1_residual:.1e`. The identity is exact in real numbers, so whatever is left comes
# from rounding in double precision: sums over many targets and the logarithms each carry errors of
# about $10^{-16}$ relative to the numbers involved, which is why the agreement stops around the 15th
# or 16th digit (a zero residual only means those errors happened to cancel).
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b1-2
# :class: dropdown
# ```
#
# The distinct RBE values are where the counts are non-zero; the smallest model is decomposed with the
# package to compare:

# %%
e_values = np.flatnonzero(counts)
room = np.log(np.sum(1 / (e_values + 1))) - log_C
smallest = teaching.family_models(chapter)[0]
small = metrics.ce_decomposition(smallest.records.logp, smallest.records.gt)
glue("ex_b1_2", float(room), display=False)
glue("ex_b1_2_bound", float(np.log(np.sum(1 / (e_values + 1)))), display=False)
glue("ex_b1_2_distinct", len(e_values), display=False)
glue("ex_b1_2_small_bound", float(np.log(np.sum(1 / (small.e + 1)))), display=False)
glue("ex_b1_2_small_conf", float(small.confidence), display=False)
glue("ex_b1_2_small_distinct", len(small.e), display=False)
teaching.check("b1.2", room, chapter)

# %% [markdown]
# The largest model's {glue:text}`ex_b1_2_distinct` distinct RBE values give a bound of
# {glue:text}`ex_b1_2_bound:.4f` nats, {glue:text}`ex_b1_2:.4f` above its Confidence. The smallest
# model has {glue:text}`ex_b1_2_small_distinct` distinct values, a bound of
# {glue:text}`ex_b1_2_small_bound:.4f` and a Confidence of {glue:text}`ex_b1_2_small_conf:.4f` nats.
# The bound depends only on which ranks occur: every new RBE value adds $1/(e+1)$ to the sum and none
# removes anything, so more tokens can only raise it, towards $\log H_V$ with
# $H_V = \sum_{j=1}^{V} 1/j \approx \ln V + 0.577$, reached once every rank has occurred. Confidence
# depends on the probabilities: a rank seen once contributes just that one target's probability, at
# most its ceiling. The gap between the two says how far the targets' probabilities are from the most
# that their ranks allow.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-b1-3
# :class: dropdown
# ```
#
# The same computation as in the first exercise, once per temperature, with `dynamics.terms_of` (which
# returns CE, EE, SA and Conf of one sample) as the tool:

# %%
from rankscale.analysis import dynamics

tempered_terms = {t: dynamics.terms_of(r.records.logp, r.records.gt) for t, r in chapter.temperature_runs.items()}
has_both = {1.0, 2.0} <= set(tempered_terms)
sa_change = tempered_terms[2.0]["SA"] - tempered_terms[1.0]["SA"] if has_both else float("nan")
glue("ex_b1_3", float(sa_change), display=False)
for t in (0.5, 1.0, 2.0):
    for quantity in ("CE", "EE", "SA", "Conf"):
        glue(f"ex_b1_3_{quantity}_{t:g}".replace(".", ""), float(tempered_terms.get(t, {}).get(quantity, np.nan)),
             display=False)
(teaching.check("b1.3", sa_change, chapter) if has_both else
 display(Markdown("This set extracts no tempered predictions, so the exercise has no data here.")))

# %% [markdown]
# From $T = 1$ to $T = 2$ Self-Alignment changes by {glue:text}`ex_b1_3:.4f` nats. In nats, at $T$ = 0.5,
# 1 and 2:
#
# | | $T = 0.5$ | $T = 1$ | $T = 2$ |
# |---|---|---|---|
# | CE | {glue:text}`ex_b1_3_CE_05:.4f` | {glue:text}`ex_b1_3_CE_1:.4f` | {glue:text}`ex_b1_3_CE_2:.4f` |
# | EE | {glue:text}`ex_b1_3_EE_05:.6f` | {glue:text}`ex_b1_3_EE_1:.6f` | {glue:text}`ex_b1_3_EE_2:.6f` |
# | SA | {glue:text}`ex_b1_3_SA_05:.4f` | {glue:text}`ex_b1_3_SA_1:.4f` | {glue:text}`ex_b1_3_SA_2:.4f` |
# | Conf | {glue:text}`ex_b1_3_Conf_05:.4f` | {glue:text}`ex_b1_3_Conf_1:.4f` | {glue:text}`ex_b1_3_Conf_2:.4f` |
#
# Dividing the logits by a positive $T$ keeps their order, so every target keeps its RBE: the groups,
# $p_e$ and Error-Entropy are the same at every temperature, to the last digit. The target's
# probability changes, so $\log Q_e$, $C$, $q_e$, and with them Self-Alignment, Confidence and CE,
# move; which way each moves depends on the model, and the table says it for this one. A target
# ranked first never loses probability when the distribution sharpens ($T < 1$) and never gains any
# when it flattens ($T > 1$); a target ranked lower can go either way, depending on how far its logit lies
# from the ones above it, so the normalised scores $q_e$ can move towards $p_e$ or away from it.
#
# ```{solution-end}
# ```
