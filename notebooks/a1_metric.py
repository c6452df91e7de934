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

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import LogLocator

from rankscale.analysis import bootstrap, metrics, rank_models
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import paper_a
from rankscale.records import runs
from rankscale.sets import builtin
from rankscale.claims import A1_BAND_CENTRES, A1_BAND_HALF_WIDTH, A_LEVEL

chapter = open_chapter(profile, corpora, references=True, checkpoints=True)
model_set, corpora, families = chapter.model_set, chapter.corpora, chapter.families
family_runs, reference_runs, checkpoint_runs = chapter.family_runs, chapter.reference_runs, chapter.checkpoint_runs


def who(run):
    """A run's family (or "reference") and name, as the tables show it."""
    return run.family or "reference", run.name


def unit_of(run):
    """The unit of evidence a run belongs to in the verdicts: its family, or the reference model itself."""
    return run.family or f"{run.name} (reference)"


def shown_runs(corpus):
    """The models the figures show: the largest model of each family, then every reference."""
    return [members[-1] for members in runs.by_family(family_runs[corpus]).values()] + reference_runs[corpus]


def panel_title(run):
    """A panel's title: the model's name, after its family's (a reference model's black title says what it is)."""
    return run.name if run.family is None else f"{run.family}: {run.name}"


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
tie_rows = []
for corpus in corpora:
    for run in family_runs[corpus] + reference_runs[corpus]:
        rec = run.records
        rbp_ge = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="ge"), ks)
        rbp_gt = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="gt"), ks)
        gap, gap_in_se = metrics.convention_gap(rec.gt, rec.ge)
        family, name = who(run)
        tie_rows.append({"corpus": corpus, "family": family, "model": name, "unit": unit_of(run), "targets": len(rec),
                         "tied targets (ge != gt)": int(np.count_nonzero(rec.ge != rec.gt)),
                         "RBP_1 (ge)": rbp_ge[0], "RBP_1 (gt)": rbp_gt[0],
                         "largest |RBP_k(ge) - RBP_k(gt)| over k": gap,
                         "... in standard errors of RBP_k": gap_in_se})
ties = pd.DataFrame(tie_rows)
ties.drop(columns="unit").style.hide(axis="index").format(precision=5).set_caption(
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
bands = np.array([[c * (1 - A1_BAND_HALF_WIDTH), c * (1 + A1_BAND_HALF_WIDTH)] for c in A1_BAND_CENTRES])
panels = shown_runs(corpora[0])
n_cols = min(2, len(panels))  # two across: each panel has its own colour bar
n_rows = -(-len(panels) // n_cols)
fig, axes = plots.panels(n_rows, n_cols, 3.0)
for ax, run in zip(axes.flat, panels):
    rec = run.records
    rank_ge = metrics.rank_1based(rec.gt, rec.ge)
    prob = np.exp(rec.logp.astype(np.float64))
    x_edges = np.logspace(np.log10(max(prob.min(), 1e-7)), 0, 60)
    y_edges = np.logspace(0, np.log10(run.vocab_size + 1), 50)
    counts2d, _, _ = np.histogram2d(prob, rank_ge, bins=[x_edges, y_edges])
    mesh = ax.pcolormesh(x_edges, y_edges, np.ma.masked_equal(counts2d.T, 0), cmap="viridis",
                         norm=plt.matplotlib.colors.LogNorm())
    ax.plot(x_edges, np.minimum(1 / x_edges, run.vocab_size), "k--", lw=1)
    for lo, hi in bands:
        ax.axvspan(lo, hi, color="tab:red", alpha=0.25)
    ax.set(xscale="log", yscale="log", xlabel="probability $p(t)$", title=panel_title(run))
    ax.xaxis.set_major_locator(LogLocator(numticks=4))
    ax.title.set_color(plots.family_style(model_set, run.family)["color"])
    fig.colorbar(mesh, ax=ax, label="targets")
for ax in axes[:, 0]:  # only the left column: further right, the label would run into a colour bar's
    ax.set_ylabel("rank $R$ (ge)")
bound_and_bands = [Line2D([], [], ls="--", color="k", lw=1, label=r"$R = 1/p(t)$: no target above"),
                   Patch(color="tab:red", alpha=0.25, label="probability bands")]
spare = axes.flat[len(panels):]
for ax in spare:
    ax.axis("off")
if len(spare):  # the legend takes an empty panel's place, else it goes under the panels
    spare[0].legend(handles=bound_and_bands, loc="center", frameon=False)
else:
    plots.legend_below(fig, bound_and_bands)
plots.show(fig)


# %%
display(Markdown("Targets above the bound $R\\,p(t) \\le 1$: " + "; ".join(
    f"{'/'.join(who(run))}: {metrics.above_rank_bound(metrics.rank_1based(run.records.gt, run.records.ge), run.records.logp)}"
    f" of {len(run.records):,}" for run in panels) + "."))

# %% [markdown]
# Zooming into the bands: for every model and corpus, how the targets whose probability falls in
# a band (each only 20% wide, so the probability is nearly the same throughout) are spread over
# ranks. The table lists every model; {numref}`fig-a1-bands` shows the largest model of each
# family and the reference models, one column per corpus.

# %%
rank_groups = {"rank 1": [0], "rank 2": [1], "rank 3": [2], "rank 4-10": list(range(3, 10)), "rank 11+": [10]}
band_rows = []
for corpus in corpora:
    for run in family_runs[corpus] + reference_runs[corpus]:
        rec = run.records
        rank = metrics.rank_1based(rec.gt, rec.ge)
        per_band = rank_models.rank_counts_by_probability(rec.logp, rank, bands.ravel(), max_rank=10)[::2]
        family, name = who(run)
        for centre, row in zip(A1_BAND_CENTRES, per_band):
            band_rows.append({"corpus": corpus, "family": family, "model": name, "unit": unit_of(run),
                              "p(t) near": centre, "targets": int(row.sum()),
                              "rank 1 share": row[0] / row.sum() if row.sum() else np.nan,
                              "commonest rank share": row.max() / row.sum() if row.sum() else np.nan,
                              **{group: row[cols].sum() for group, cols in rank_groups.items()}})
band = pd.DataFrame(band_rows)

# %% mystnb={"figure": {"caption": "Ranks (`ge` convention) of the targets whose probability lies in a narrow band around each centre (the axis says how narrow), one row per model (the largest of each family, then each reference model; the model is named over its row, in its family's colour), one column per corpus; the number over each bar is how many targets fall in the band (an empty bar means none did). Within one band the probability hardly changes: wherever a bar has more than one colour, equally confident predictions were ranked differently, and a greedy decoder gets some of them right and misses the others.", "name": "fig-a1-bands"}}
shown = [who(run) for run in panels]
# one subfigure per model, so that its name, too long for a panel, can head its row; the top row is taller by
# the corpus titles and the bottom row by the axis label, so that every row's panels are as tall
row_heights = np.full(len(shown), 2.2)
row_heights[0] += 0.25
row_heights[-1] += 0.3
fig = plt.figure(figsize=(plots.WIDTH, row_heights.sum()))
model_rows = fig.subfigures(len(shown), 1, squeeze=False, height_ratios=row_heights)[:, 0]
colors = plt.cm.viridis(np.linspace(0, 0.9, len(rank_groups)))
for row_number, (subfig, (family, name)) in enumerate(zip(model_rows, shown)):
    subfig.suptitle(f"{family}: {name}", color=plots.family_style(model_set, None if family == "reference"
                                                                   else family)["color"])
    row_axes = subfig.subplots(1, len(corpora), sharey=True, squeeze=False)[0]
    for ax, corpus in zip(row_axes, corpora):
        rows = band[(band["corpus"] == corpus) & (band["family"] == family) & (band["model"] == name)]
        shares = rows[list(rank_groups)].div(rows["targets"].where(rows["targets"] > 0), axis=0).fillna(0)
        bottom = np.zeros(len(rows))
        labels = [f"{c:g}" for c in rows["p(t) near"]]
        for group, color in zip(rank_groups, colors):
            ax.bar(labels, shares[group], bottom=bottom, color=color, label=group)
            bottom += shares[group].to_numpy()
        for i, n in enumerate(rows["targets"]):
            ax.text(i, 1.01, f"{n}", ha="center")
        ax.set(ylim=(0, 1.17), yticks=[0, 0.5, 1])
        if row_number == 0:
            ax.set_title(corpus)
        if row_number == len(shown) - 1:
            ax.set_xlabel(f"$p(t)$ within {A1_BAND_HALF_WIDTH:.0%} of")
    row_axes[0].set_ylabel("share of targets")
plots.legend_below(fig, row_axes[0].get_legend_handles_labels()[0])
plots.show(fig)

# %% [markdown]
# Every model's bands, with the share of each rank group:

# %%
band.drop(columns="unit").style.hide(axis="index").format(precision=3).set_caption(
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
def metric_row(run, corpus, kind):
    rec = run.records
    rank = metrics.rank_1based(rec.gt, rec.ge)
    family, name = who(run)
    return {"corpus": corpus, "family": family, "model": name, "step": run.step, "kind": kind,
            "targets": len(rec), "vocabulary": run.vocab_size,
            "p_A": metrics.mean_target_probability(rec.logp),  # paper A, Fig. 2a
            "CE": metrics.cross_entropy(rec.logp), **{f"RBP_{k}": v for k, v in zip(ks, metrics.rbp(rank, ks))}}


def same_predictions(checkpoint, corpus):
    """Whether a checkpoint's predictions are exactly its final model's on the same tokens."""
    final = [run for run in family_runs[corpus] if who(run) == who(checkpoint)]
    return bool(final) and len(final[0].records) == len(checkpoint.records) and np.array_equal(
        final[0].records.logp, checkpoint.records.logp)


points = pd.DataFrame([metric_row(run, corpus, kind) for corpus in corpora
                       for kind, corpus_runs in (("checkpoint", [ck for ck in checkpoint_runs[corpus]
                                                                 if not same_predictions(ck, corpus)]),
                                                 ("final", family_runs[corpus]),
                                                 ("reference", reference_runs[corpus]))
                       for run in corpus_runs])
points["step"] = points["step"].astype("Int64")
n_checkpoints = int((points["kind"] == "checkpoint").sum())
display(Markdown(
    f"{len(points)} results: {int((points['kind'] == 'final').sum())} final models, {n_checkpoints} checkpoints"
    + ("" if n_checkpoints else " (this set keeps no training checkpoints, so only final models take part)")
    + f" and {int((points['kind'] == 'reference').sum())} reference results, over {len(corpora)} corpora."))

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
    {corpus: family_runs[corpus] + reference_runs[corpus] for corpus in corpora},
    "Tokens per point of the figure above, final and reference models")))
if any(checkpoint_runs.values()):
    display(Markdown(pages.token_requirement({corpus: checkpoint_runs[corpus] for corpus in corpora
                                               if checkpoint_runs[corpus]},
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
# both exclude zero, with opposite signs. Each model's tokens are resampled the set's `n_boot`
# times (`bootstrap.resample`), and an interval is the measured difference $\pm z$ standard
# deviations of its replicates, $z$ the normal quantile of the 95% level (`bootstrap.interval`,
# used by `bootstrap.discordant_pairs`), so a disagreement must stand out of the token-sampling
# noise, with no margin to choose.

# %%
def kendall(rows):
    return metrics.order_agreement(rows["p_A"], rows[f"RBP_{ks[0]}"])


family_points = points[points["kind"] != "reference"]
trend = pd.DataFrame([{"results of": family, "results": int((family_points["family"] == family).sum()),
                       "Kendall tau": kendall(family_points[family_points["family"] == family])}
                      for family in families]
                     + [{"results of": "every family and reference together", "results": len(points),
                         "Kendall tau": kendall(points)}])
display(trend.style.hide(axis="index").format({"Kendall tau": "{:.3f}"}).set_caption(
    f"Kendall's tau between p_A and RBP_{ks[0]} over each family's results (final models and checkpoints, every "
    "corpus), and over every result of the set, references included."))


def p_a_and_top1(sample):
    return [sample["p"].mean(), sample["top1"].mean()]


final_pairs, pair_rows = {}, []
for corpus in corpora:
    finals = family_runs[corpus] + reference_runs[corpus]
    samples = [{"p": np.exp(run.records.logp.astype(np.float64)),
                "top1": metrics.rank_1based(run.records.gt, run.records.ge) == 1} for run in finals]
    values = np.array([p_a_and_top1(sample) for sample in samples])
    found = bootstrap.discordant_pairs(values, bootstrap.resample(samples, p_a_and_top1, model_set.n_boot), A_LEVEL)
    final_pairs[corpus] = paper_a.FinalPairs(len(finals), found, metrics.order_agreement(values[:, 0], values[:, 1]))
    for i, j in found:
        hi, lo = (i, j) if values[i, 0] > values[j, 0] else (j, i)
        pair_rows.append({"corpus": corpus, "higher p_A": "/".join(who(finals[hi])),
                          "higher RBP_1": "/".join(who(finals[lo])),
                          "p_A": f"{values[hi, 0]:.4f} vs {values[lo, 0]:.4f}",
                          "RBP_1": f"{values[hi, 1]:.4f} vs {values[lo, 1]:.4f}"})
display(pd.DataFrame([{"corpus": corpus, "final models": r.models, "pairs": r.pairs,
                       "Kendall tau": r.tau, "pairs disagreeing beyond noise": len(r.found)}
                      for corpus, r in final_pairs.items()]).style.hide(axis="index").format({"Kendall tau": "{:.3f}"})
        .set_caption(f"Pairs of final models (families' and references') on each corpus: Kendall's tau between p_A "
                     f"and RBP_1, and the pairs whose {A_LEVEL:.0%} bootstrap intervals of the two differences "
                     "exclude zero with opposite signs."))
if pair_rows:
    display(pd.DataFrame(pair_rows).style.hide(axis="index").set_caption(
        "The pairs of final models that p_A and RBP_1 order oppositely beyond token-sampling noise: the model "
        "ahead on each metric, and both models' values."))
points.sort_values(["corpus", "family", "model", "step"], na_position="last").style.hide(axis="index").format(
    precision=4).set_caption("Every result of the figure above, per corpus: final models, training checkpoints "
                             "(with their step) and reference models, with targets, vocabulary, p_A, CE (nats) "
                             "and RBP_k (ge ranks).")

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
def describe_reference(run):
    return (f"- **{run.name}** ({run.non_embedding:,} non-embedding parameters, vocabulary {run.vocab_size:,} "
            f"tokens): {run.note or 'no description given in the model set'}.")


first_refs = reference_runs[corpora[0]]
if first_refs:
    display(Markdown(
        "Reference models of this set (real pretrained models, outside the size families; their tokenizer, "
        "training data and quantisation differ from the families'):\n\n"
        + "\n".join(map(describe_reference, first_refs))))
    finals = points[points["kind"].isin(["final", "reference"])]
    side = finals[["corpus", "family", "model", "vocabulary", "targets", "p_A", "CE",
                   *[f"RBP_{k}" for k in ks]]].copy()
    side["family"] = side["family"].replace({"reference": "reference (real pretrained model, outside the families)"})
    display(side.style.hide(axis="index").format(precision=4).set_caption(
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


def evaluates_released(s):
    sources = {m.source for f in s.families for m in f.models if m.revision is None}
    sources |= {m.source for m in s.references if m.revision is None}
    return released_corpus in s.corpora and bool(sources & released_models)


mine = []
if released_corpus in corpora:
    for run in family_runs[released_corpus] + reference_runs[released_corpus]:
        source = run.records.manifest.source
        if source["model"] in released_models and source["revision"] is None:
            mine.append((source["model"], run))
if mine:
    rows = []
    for hub_id, run in mine:
        rec = run.records
        paper_row = released[released["model"] == hub_id].iloc[0]
        rows.append({"model": hub_id, "values": "paper A, released (code repository)", "targets": np.nan,
                     "CE": paper_row["ce"], **{f"RBP_{k}": paper_row[f"rbp_{k}"] for k in (1, 10, 100, 1000)}})
        for ties_rule, what in (("ge", "ours, eq. 3 ranks (ge)"), ("gt", "ours, released code's ranks (gt)")):
            rbp_here = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties=ties_rule), [1, 10, 100, 1000])
            rows.append({"model": hub_id, "values": what, "targets": len(rec), "CE": metrics.cross_entropy(rec.logp),
                         **{f"RBP_{k}": v for k, v in zip((1, 10, 100, 1000), rbp_here)}})
    display(pd.DataFrame(rows).astype({"targets": "Int64"}).style.hide(axis="index").format(precision=4, na_rep="-")
            .set_caption(f"CE (nats) and RBP_k of GPT-2 on {released_corpus}: paper A's released values (its code "
                         "repository) beside ours, with eq. 3's ranks (ge) and with the released code's (gt)."))
else:
    would = [name for name, s in builtin.BUILT_IN.items() if evaluates_released(s)]
    display(Markdown(
        f"This run does not evaluate {' or '.join(f'`{m}`' for m in sorted(released_models))} on the "
        f"`{released_corpus}` corpus, so paper A's released values are not shown; the model sets "
        f"{' and '.join(f'`{name}`' for name in would)} do."))

# %% [markdown]
# ## Verdicts
#
# Paper A's sections 1-3 define the metric rather than measure it. Two of their statements can
# be checked on data: a probability does not fix a rank (Fig. 1), and the absolute metric $p_A$
# does not determine the relative one (Fig. 2). A third is this companion's own question: whether
# the rank of eq. 3 and the rank of the released code give the same RBP$_k$. Each row's rule,
# fixed in `rankscale.claims` before any data were seen, stands beside its verdict; in short:
#
# - A1.1 looks at the bands of {numref}`fig-a1-bands`: a band with enough targets shows the claim when both
#   greedy outcomes of Fig. 1 (the target first, the target below first) each take a visible
#   share of it. A unit is a family on a corpus (any of its models may show it) or a reference
#   model on a corpus. A model that never gives much more than 0.1 to any token ranks its targets
#   near that probability first, so not every band need show both outcomes.
# - A1.2 is graded per corpus on the final models only, with the bootstrap test above.
# - A1.3 asks that the two conventions move no RBP$_k$ by more than its own standard error.

# %%
measured = [f"Ties between the target and another token move RBP_1 by at most "
            f"{ties['largest |RBP_k(ge) - RBP_k(gt)| over k'].max():.1e} on any model; within one narrow "
            f"probability band, the target is ranked first in {band['rank 1 share'].min():.0%} to "
            f"{band['rank 1 share'].max():.0%} of the predictions."]
verdicts = pages.verdict_table("A1", [paper_a.a1_same_probability(band), paper_a.a1_disagree(final_pairs),
                                      paper_a.a1_conventions(ties)], model_set.name, measured)

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("A1", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed
