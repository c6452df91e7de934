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
# # A1 · The metric: how often the right token is in the top k
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Paper A (sections 1-3, Figures 1-2) starts from a simple observation. Cross-entropy, the
# metric behind almost every scaling law, looks only at the probability $p(t)$ that a model gives
# to the correct next token $t$. What a decoder does with a prediction depends on something else:
# where $t$ stands among all the candidates. Greedy decoding emits the top token; top-$k$ sampling
# draws from the $k$ best. A probability of 0.28 can be the largest in the distribution or only
# the third largest (paper A, §1, Fig. 1), and the two cases decode differently.
#
# The paper therefore measures the *relative-based probability*
#
# $$\mathrm{RBP}_k = \Pr(R \le k), \qquad R = \sum_{v \in \mathcal V} \mathbf 1\{p(v) \ge p(t)\},$$
#
# the chance that the correct token is among the $k$ highest-scoring tokens (paper A, §3.2,
# eqs. 3-4), next to the *absolute* measures: the average probability of the correct token
# $p_A = \mathbb E[p(t)]$ (§3.1, Fig. 2a) and the cross-entropy $\mathbb E[-\log p(t)]$ (eq. 2).
#
# This chapter computes both kinds of metric on the predictions of every family of the model set
# (each family in its own colour, as in every chapter) and of the set's *reference* models, real
# pretrained models shown beside the families but never put into a size fit, and shows on real
# tokens that a probability does not fix a rank.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
ks = [1, 2, 5, 10, 100, 1000]  # k values for RBP_k in the tables
released_corpus = "wikipedia"  # the corpus of paper A's released GPT-2 values

# %%
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from myst_nb import glue

from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import A1_BAND_HALF_WIDTH, a1
from rankscale.sets import builtin

chapter = open_chapter(profile, corpora, spec=a1.SPEC)
model_set, corpora, families, context = chapter.model_set, chapter.corpora, chapter.families, chapter.context(*a1.SPEC.tables)
evidence = a1.measure(chapter, context, ks)  # every table of the chapter, and what its claims read
points = evidence.points

# %% [markdown]
# ## Rank conventions and ties
#
# The extraction stores, for every target, two counts over the tokenizer's vocabulary: `gt`, the
# number of tokens scoring strictly higher than the target, and `ge`, the number scoring higher
# *or equal* (the target itself not counted). From them come the two 1-based ranks that paper A
# uses (`metrics.rank_1based`):
#
# - `ties="ge"`: $R = \mathrm{ge} + 1$, paper A's eq. 3, where a token tied with the target
#   counts as ranked above it (the pessimistic reading);
# - `ties="gt"`: $R = \mathrm{gt} + 1$, what paper A's released code computes, where ties are
#   resolved in the target's favour.
#
# The two differ only for targets whose score is exactly tied with another token's. Because the
# output head is computed in fp32 (low-precision logits tie far more often and would corrupt the
# ranks), such ties should be rare; the table counts them for every model of every family and
# every reference model, and shows how far RBP$_k$ moves between the two conventions: the largest
# change over every $k$ from 1 to the vocabulary size, in absolute terms and in units of RBP$_k$'s
# own binomial standard error $\sqrt{\mathrm{RBP}_k(1-\mathrm{RBP}_k)/n}$ on the model's $n$
# tokens (`metrics.convention_gap`); below one standard error, the choice moves no result by more
# than its sampling noise. **Unless a figure says otherwise, this book uses paper A's eq. 3 (`ge`).**

# %%
evidence.ties.drop(columns="unit").style.hide(axis="index").format(precision=5).set_caption(
    "Ties between the target and another token, per model and corpus: the targets, how many are tied, RBP_1 under "
    "each rank convention, and the largest RBP_k gap over k, absolute and in standard errors of RBP_k.")

# %% [markdown]
# ## One probability, several ranks (paper A, Fig. 1)
#
# Paper A's Figure 1 is a cartoon: the same probability 0.28 is the top prediction in one
# context and only the third in another. The figure below shows the same thing on real
# predictions: one panel for the largest model of each family and one for each reference model,
# on the first corpus. Each cell counts the targets with a given probability $p(t)$ (horizontal)
# and rank $R$ (vertical, `ge` convention) in {numref}`fig-a1-ranks`. Along any vertical line
# the ranks spread out. The dashed line is a hard limit: if $R$ tokens (the target included) all
# have probability at least $p(t)$, then $R\,p(t) \le 1$, so no target can lie above
# $R = 1/p(t)$; for the same reason a target with $p(t) > 1/2$ is always ranked first. The
# shaded strips are the narrow probability bands that {numref}`fig-a1-bands` zooms into. Each
# panel's rank axis ends at its model's own vocabulary size.

# %% mystnb={"figure": {"caption": "Joint distribution of the correct token's probability $p(t)$ and its rank $R$ (`ge` convention) for the largest model of each family (title in the family's colour) and each reference model (black title), on the first corpus; each panel's colour bar counts its targets. The dashed line is the bound $R = 1/p(t)$, above which no target can lie; the shaded strips are the probability bands of the next figure. The spread of ranks at a fixed probability is what paper A's Fig. 1 illustrates with two hand-made examples.", "name": "fig-a1-ranks"}}
shown = a1.shown_runs(chapter, corpora[0])
plots.show(plots.rank_probability_panels(model_set, shown, a1.probability_bands()))
glue("a1_above_bound", Markdown(a1.above_bound_text(shown)), display=False)

# %% [markdown]
# Targets above the bound $R\,p(t) \le 1$, which none can cross: {glue:md}`a1_above_bound:myst`.

# %% [markdown]
# Zooming into the bands: for every model and corpus, how the targets whose probability falls in
# a band (each only 20% wide, so the probability is nearly the same throughout) are spread over
# ranks. The table lists every model; {numref}`fig-a1-bands` shows the largest model of each
# family and the reference models, one column per corpus.

# %% mystnb={"figure": {"caption": "Ranks (`ge` convention) of the targets whose probability lies in a narrow band around each centre (the axis says how narrow), one row per model (the largest of each family, then each reference model; the model is named over its row, in its family's colour), one column per corpus; the number over each bar is how many targets fall in the band (an empty bar means none did). Within one band the probability hardly changes: wherever a bar has more than one colour, equally confident predictions were ranked differently, and a greedy decoder gets some of them right and misses the others.", "name": "fig-a1-bands"}}
plots.show(plots.rank_share_bars(model_set, evidence.bands, [a1.family_and_name(run) for run in shown], corpora,
                                 list(a1.RANK_GROUPS), A1_BAND_HALF_WIDTH))

# %% [markdown]
# Every model's bands, with the share of each rank group:

# %%
evidence.bands.drop(columns="unit").style.hide(axis="index").format(precision=3).set_caption(
    f"Targets whose p(t) lies within {A1_BAND_HALF_WIDTH:.0%} of each band centre, per model and corpus: how many, "
    "the share ranked first and the share at the commonest rank, and the count in each rank group (ge ranks).")

# %% [markdown]
# ## Absolute and relative metrics side by side (paper A, Fig. 2)
#
# Paper A's Figure 2 computes $p_A$ and RBP$_2$ on three toy predictions. Here both are computed
# for every final model, every saved training checkpoint the set has (ladder checkpoints,
# including the untrained initialisation, or hub revisions), every reference model and every
# corpus. If one metric determined the other, the points would fall on a single curve, whatever
# the model or corpus. Checkpoints are evaluated on a smaller sample than the final models
# (the set's `checkpoint_tokens`); a ladder's last checkpoint is its final model, so it appears
# once on each sample, except where the two samples are the same tokens (then it is listed once,
# as the final model).

# %%
n_checkpoints = int((points["kind"] == "checkpoint").sum())
for kind in ("final", "checkpoint", "reference"):
    glue(f"a1_n_{kind}", int((points["kind"] == kind).sum()), display=False)
glue("a1_n_results", len(points), display=False)
glue("a1_n_corpora", len(corpora), display=False)

# %% [markdown]
# There are {glue:text}`a1_n_results` results: {glue:text}`a1_n_final` final models,
# {glue:text}`a1_n_checkpoint` checkpoints (a set that keeps no training checkpoints has
# only its final models here) and {glue:text}`a1_n_reference` reference results, over
# {glue:text}`a1_n_corpora` corpora.

# %% mystnb={"figure": {"caption": "RBP$_k$ (`ge` convention) against $p_A$, the mean probability of the correct token, for every final model (filled, in its family's colour and marker), training checkpoint (open) and reference model (black star), one column per corpus, at the smallest $k$ of the chapter's list (top) and a larger one (bottom).", "name": "fig-a1-rbp-pa"}}
shown_ks = [ks[0], ks[min(3, len(ks) - 1)]]
fig, axes = plots.corpus_panels(corpora, 2.7, rows=len(shown_ks), sharex="col", sharey="row")
for row_axes, k in zip(axes, shown_ks):
    for ax, corpus in zip(row_axes, corpora):
        here = points[points["corpus"] == corpus]
        for family in families:
            look = plots.family_style(model_set, family)
            mine = here[here["family"] == family]
            ck, final = mine[mine["kind"] == "checkpoint"], mine[mine["kind"] == "final"]
            ax.scatter(ck["p_A"], ck[f"RBP_{k}"], marker=look["marker"], facecolors="none",
                       edgecolors=look["color"], s=22)
            ax.scatter(final["p_A"], final[f"RBP_{k}"], marker=look["marker"], color=look["color"], s=30)
        ref = here[here["kind"] == "reference"]
        ax.scatter(ref["p_A"], ref[f"RBP_{k}"], s=120, **plots.family_style(model_set, None))
        ax.set(xscale="log", xlabel="$p_A$", ylabel=f"RBP$_{{{k}}}$ (ge)")
        ax.label_outer()
handles = plots.family_handles(model_set, families, [f"{family}, final models" for family in families], ls="none")
if n_checkpoints:
    handles += [Line2D([], [], ls="none", marker="o", markerfacecolor="none", markeredgecolor="grey",
                       color="grey", label="open: training checkpoints")]
if len(points[points["kind"] == "reference"]):
    handles += plots.family_handles(model_set, [None], ["reference model (outside the families)"], ls="none",
                                    markersize=12)
plots.legend_below(fig, handles, ncol=2)
plots.show(fig)

# %%
display(Markdown(pages.token_requirement(
    {corpus: chapter.family_runs[corpus] + chapter.reference_runs[corpus] for corpus in corpora},
    "Tokens per point of the figure above, final and reference models")))
if n_checkpoints:
    display(Markdown(pages.token_requirement({corpus: chapter.checkpoint_runs[corpus] for corpus in corpora
                                               if chapter.checkpoint_runs[corpus]},
                                              "Tokens per point of the figure above, checkpoints")))

# %% [markdown]
# In {numref}`fig-a1-rbp-pa`, training tends to raise both metrics, so within one run they
# move together; the question is whether results with similar $p_A$ can differ in RBP$_k$.
# Kendall's $\tau$ below measures how consistently the two metrics order a set of results
# ($\tau = 1$: ranking the results by $p_A$ always ranks them the same way by RBP$_1$), within
# each family (its models and checkpoints on every corpus) and once over every result of the
# set, references included.
#
# A disagreement between results of different corpora, or with a checkpoint taken early in
# training, says little about the metrics: another text changes both, and a barely trained
# model's probabilities are not yet what training makes of them. The test of the claim (A1.2 in
# the verdicts) therefore compares only *finished* models on *one* corpus: every pair of final
# models (the families' and the reference models) on each corpus. The two metrics disagree on a
# pair when the bootstrap interval of its $p_A$ difference and that of its RBP$_1$ difference
# both exclude zero, with opposite signs. Each model's evaluation documents are resampled whole the
# set's `n_boot` times (`bootstrap.resample`), the same documents for the models of one family (they
# share a tokenizer, so a difference between them is paired) and on their own for each reference
# model, and an interval is the measured difference $\pm z$ standard deviations of its replicates,
# $z$ the normal quantile of the 95% level (`bootstrap.interval`, used by
# `bootstrap.discordant_pairs`), so a disagreement must stand out of the noise of the text's
# sampling, with no margin to choose.
#
# That the two metrics *can* disagree is shown on constructed predictions (A1.2). Whether they
# *do* on real models is paper A's practical point, that RBP tells what cross-entropy cannot,
# and A1.4 grades it with CE itself in place of $p_A$: among the families' final models that
# predict the same targets, a pair that CE ranks one way and RBP$_1$ the other, both beyond the
# noise of resampling whole documents (the same documents for both models), is what the claim
# predicts can be seen. Where every pair that both metrics tell apart is ordered alike, CE's
# order gave RBP$_1$'s on these models, and the row fails on that corpus.

# %%
display(a1.agreement_table(evidence, families).style.hide(axis="index").format({"Kendall tau": "{:.3f}"})
        .set_caption(f"Kendall's tau between p_A and RBP_{ks[0]} over each family's results (final models and "
                     "checkpoints, every corpus), and over every result of the set, references included."))
display(a1.pairs_table(evidence).style.hide(axis="index").format({"Kendall tau": "{:.3f}"}).set_caption(
    f"Pairs of final models (families' and references') on each corpus: Kendall's tau between p_A and RBP_1, and "
    f"the pairs whose {context.level:.0%} bootstrap intervals of the two differences exclude zero with opposite "
    "signs."))
if len(evidence.discordant):
    display(evidence.discordant.style.hide(axis="index").set_caption(
        "The pairs of final models that p_A and RBP_1 order oppositely beyond token-sampling noise: the model "
        "ahead on each metric, and both models' values."))
display(a1.orders_table(evidence).style.hide(axis="index").format({"Kendall tau (-CE, RBP_1)": "{:.3f}"})
        .set_caption(f"A1.4's data: per corpus, the pairs of the families' final models that predict the same "
                     f"targets, by how CE and RBP_1 order them beyond the {context.level:.0%} intervals of the two "
                     "differences (whole documents resampled, the same for both models)."))
a1.points_table(evidence).style.hide(axis="index").format(precision=4).set_caption(
    "Every result of the figure above, per corpus: final models, training checkpoints (with their step) and "
    "reference models, with targets, vocabulary, p_A, CE (nats) and RBP_k (ge ranks).")

# %% [markdown]
# ## RBP$_k$ against $p_A$ on real predictions: the reference models
#
# The families above are fitted against size in the other chapters. A *reference* model is
# different: a real pretrained model, outside every size family, with its own tokenizer, its own
# training data and, where it is quantised, weights stored at reduced precision. It is shown
# here, beside the families' models, as a check that the metrics behave on a model trained at a
# realistic scale the way they do on the families: its panel in {numref}`fig-a1-ranks`, its
# row in {numref}`fig-a1-bands` and its star in {numref}`fig-a1-rbp-pa`. Its values are never
# compared with a family's trend, and it takes part in no verdict of a size law.

# %%
first_references = chapter.reference_runs[corpora[0]]
if first_references:
    display(Markdown("Reference models of this set (real pretrained models, outside the size families; their "
                     "tokenizer, training data and quantisation differ from the families'):\n\n"
                     + a1.describe_references(first_references)))
    display(a1.finals_table(evidence).style.hide(axis="index").format(precision=4).set_caption(
        "Every final model of the families and every reference model, per corpus: vocabulary, targets, p_A, CE "
        "(nats) and RBP_k (ge ranks), each model on its own tokenizer's tokens."))
else:
    display(Markdown(f"Model set `{model_set.name}` has no reference model, so there is nothing to show here; "
                     "a model set lists one under `[[references]]` (see `rankscale.sets.builtin`)."))

# %% [markdown]
# A reference model's numbers in the table above are not on the families' size scale and, with
# another tokenizer, not even on the same targets: its $k$ counts other tokens.
#
# ### Paper A's released values for GPT-2 on Wikipedia
#
# Paper A's code repository publishes CE and RBP$_k$ of GPT-2 (small and XL) on its Wikipedia
# sample. Where this set evaluates those models on the `wikipedia` corpus, the table puts our
# values beside them, computed with paper A's eq. 3 ranks (`ge`) and with the released code's
# ranks (`gt`); the released numbers are the paper's, not recomputed here.

# %%
released = pages.reference_table("rbp_released_gpt2_wikipedia")
released_models = set(released["model"])
beside = a1.released_table(chapter, released, released_corpus)
if len(beside):
    display(beside.style.hide(axis="index").format(precision=4, na_rep="-").set_caption(
        f"CE (nats) and RBP_k of GPT-2 on {released_corpus}: paper A's released values (its code repository) "
        "beside ours, with eq. 3's ranks (ge) and with the released code's (gt)."))
else:
    would = [name for name, s in builtin.BUILT_IN.items() if a1.evaluates_released(s, released_models, released_corpus)]
    display(Markdown(
        f"This run does not evaluate {' or '.join(f'`{m}`' for m in sorted(released_models))} on the "
        f"`{released_corpus}` corpus, so paper A's released values are not shown; the model sets "
        f"{' and '.join(f'`{name}`' for name in would)} do."))

# %% [markdown]
# ## Verdicts
#
# Paper A's sections 1-3 define the metric rather than measure it. Three of their statements can
# be checked: a probability does not fix a rank (Fig. 1), the absolute metric $p_A$ does not
# determine the relative one (Fig. 2), and, in practice, RBP tells what CE cannot (§3.2). A fourth is this companion's own question: whether
# the rank of eq. 3 and the rank of the released code give the same RBP$_k$. Each row's rule,
# fixed in `rankscale.claims.a1` before any data were seen, stands beside its verdict; in short:
#
# - A1.1 looks at the bands of {numref}`fig-a1-bands`: a band with enough targets shows the claim when both
#   greedy outcomes of Fig. 1 (the target first, the target below first) each take a visible
#   share of it. A unit is a family on a corpus (any of its models may show it) or a reference
#   model on a corpus. A model that never gives much more than 0.1 to any token ranks its targets
#   near that probability first, so not every band need show both outcomes.
# - A1.2 is checked on two constructed predictions; the final models' pairs above are shown beside it.
# - A1.4 is graded per corpus on the pairs of final models on the same targets, by CE and RBP$_1$.
# - A1.3 asks that the two conventions move no RBP$_k$ by more than its own standard error.

# %%
verdicts = pages.verdict_table("A1", a1.SPEC.decide(evidence, context), model_set.name, a1.headline(evidence, context))

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("A1", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them.
#
# ```{exercise} a1.1 · RBP$_k$ by hand
# :label: ex-a1-1
# :nonumber:
# Take the largest model of the first family on the first corpus,
# `run = teaching.largest_run(chapter)`. Its records hold, for each target, `ge`: how many tokens
# scored at or above the target. Compute RBP$_5$ with paper A's eq. 3 ranks, $R = \mathrm{ge} + 1$,
# using numpy only, and check it with `teaching.check("a1.1", answer, chapter)`. Then compare it
# with `rankscale.analysis.metrics.rbp`.
# ```
#
# ```{exercise} a1.2 · What the tie convention moves
# :label: ex-a1-2
# :nonumber:
# For the same model, compute RBP$_1$ once with the released code's ranks ($R = \mathrm{gt} + 1$) and
# once with eq. 3's ($R = \mathrm{ge} + 1$), and give the first minus the second. Is the gap larger or
# smaller than RBP$_1$'s binomial standard error $\sqrt{\mathrm{RBP}_1(1-\mathrm{RBP}_1)/n}$? Say why
# a head computed in fp32 keeps it small, and what bf16 logits would do.
# ```
#
# ```{exercise} a1.3 · A probability does not fix a rank
# :label: ex-a1-3
# :nonumber:
# Among the same model's targets whose probability $p = e^{\mathrm{logp}}$ lies in $[0.1, 0.5)$,
# what share is ranked first? Then change the band to $[0.5, 1)$ and to $[0.01, 0.1)$: what moves,
# and why can a target with $p = 0.3$ still be the top token while one with $p = 0.45$ is not?
# ```

# %% [markdown]
# ```{solution-start} ex-a1-1
# :class: dropdown
# ```
#
# A target is within the top 5 when at most four other tokens score at or above it:

# %%
import numpy as np

from rankscale import teaching
from rankscale.analysis import metrics

run = teaching.largest_run(chapter)
answer = np.mean(run.records.ge + 1 <= 5)
glue("ex_a1_1", float(answer), display=False)
glue("ex_a1_1_package", float(metrics.rbp(metrics.rank_1based(run.records.gt, run.records.ge), 5)[0]), display=False)
teaching.check("a1.1", answer, chapter)

# %% [markdown]
# By hand, RBP$_5$ = {glue:text}`ex_a1_1:.4f`; `metrics.rbp` gives {glue:text}`ex_a1_1_package:.4f`, the
# same count sorted and searched.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-a1-2
# :class: dropdown
# ```

# %%
gap = np.mean(run.records.gt + 1 <= 1) - np.mean(run.records.ge + 1 <= 1)
rbp1 = np.mean(run.records.ge + 1 <= 1)
glue("ex_a1_2", float(gap), display=False)
glue("ex_a1_2_se", float(np.sqrt(rbp1 * (1 - rbp1) / len(run.records))), display=False)
teaching.check("a1.2", gap, chapter)

# %% [markdown]
# The gap is {glue:text}`ex_a1_2:.5f`, against a standard error of {glue:text}`ex_a1_2_se:.5f`. The
# `gt` rank can only be smaller than or equal to the `ge` rank, so the gap is never negative; it is
# non-zero only for a target tied with another token. In fp32 exact ties between distinct tokens are
# rare; bf16 keeps 8 bits of mantissa, so about a third of targets tie with some other token (the
# extraction ranks in fp32 for that reason) and the gap would grow to many standard errors.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-a1-3
# :class: dropdown
# ```

# %%
p = np.exp(run.records.logp.astype(np.float64))
first = run.records.ge == 0
inside = (p >= 0.1) & (p < 0.5)
share = np.mean(first[inside])
glue("ex_a1_3", float(share), display=False)
glue("ex_a1_3_n", int(inside.sum()), display=False)
glue("ex_a1_3_high", float(np.mean(first[p >= 0.5])) if (p >= 0.5).any() else float("nan"), display=False)
glue("ex_a1_3_low", float(np.mean(first[(p >= 0.01) & (p < 0.1)])), display=False)
teaching.check("a1.3", share, chapter)

# %% [markdown]
# Of the {glue:text}`ex_a1_3_n` targets in the band, a share of {glue:text}`ex_a1_3:.3f` is ranked
# first; in $[0.5, 1)$ the share is {glue:text}`ex_a1_3_high:.3f` (nan where no target is that sure), and
# in $[0.01, 0.1)$ it is {glue:text}`ex_a1_3_low:.3f`. Above 0.5 no other token can score higher than the
# target (the others share less than 0.5), so only an exact tie at 0.5 keeps it from first place. Below,
# the rank depends on how the rest of the probability is spread: a target with $p = 0.3$ is first when
# no other token gets more than 0.3, and one with $p = 0.45$ is second when another token gets 0.5. A
# model that seldom gives any token much probability ranks many targets of small $p$ first, which is
# why the shares depend on the model as much as on the band: paper A's Fig. 1 on real predictions.
#
# ```{solution-end}
# ```
