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
ks = [1, 2, 5, 10, 100, 1000]  # k values for RBP_k
band_centres = [0.01, 0.03, 0.1, 0.28]  # target probabilities to look at; 0.28 is paper A's Fig. 1 example
band_half_width = 0.1  # each band is centre * (1 -/+ band_half_width)
min_band_tokens = 30  # bands holding fewer targets are left out of the verdict
discordance_margin = 0.1  # a pair of results disagrees if each metric favours a different one by this much
released_corpus = "wikipedia"  # the corpus of paper A's released GPT-2 values

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from scipy.stats import kendalltau

from rankscale import metrics, modelsets, rankdist, report, runs

model_set = modelsets.get(profile)
corpora = corpora or runs.corpora(profile)
family_runs = {corpus: runs.family_runs(profile, corpus) for corpus in corpora}
reference_runs = {corpus: runs.reference_runs(profile, corpus) for corpus in corpora}
checkpoint_runs = {corpus: runs.checkpoint_runs(profile, corpus) for corpus in corpora}
report.header(profile, {corpus: family_runs[corpus] + reference_runs[corpus] for corpus in corpora})
families = list(runs.by_family(family_runs[corpora[0]]))


def who(run):
    """A run's family (or "reference") and name, as the tables show it."""
    return run.family or "reference", run.name


def shown_runs(corpus):
    """The models the figures show: the largest model of each family, then every reference."""
    return [members[-1] for members in runs.by_family(family_runs[corpus]).values()] + reference_runs[corpus]


def panel_title(run, corpus):
    return f"{'reference' if run.family is None else run.family}: {run.name}\non {corpus}"


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
# every reference model, and shows how far RBP$_k$ moves between the two conventions. **Unless a
# figure says otherwise, this book uses paper A's eq. 3 (`ge`).**

# %%
tie_rows = []
for corpus in corpora:
    for run in family_runs[corpus] + reference_runs[corpus]:
        rec = run.records
        rbp_ge = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="ge"), ks)
        rbp_gt = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="gt"), ks)
        family, name = who(run)
        tie_rows.append({"corpus": corpus, "family": family, "model": name, "targets": len(rec),
                         "tied targets (ge != gt)": int(np.count_nonzero(rec.ge != rec.gt)),
                         "RBP_1 (ge)": rbp_ge[0], "RBP_1 (gt)": rbp_gt[0],
                         "largest |RBP_k(ge) - RBP_k(gt)| over k": float(np.max(np.abs(rbp_ge - rbp_gt)))})
ties = pd.DataFrame(tie_rows)
ties.style.hide(axis="index").format(precision=5)

# %% [markdown]
# ## One probability, several ranks (paper A, Fig. 1)
#
# Paper A's Figure 1 is a cartoon: the same probability 0.28 is the top prediction in one
# context and only the third in another. The figure below shows the same thing on real
# predictions: one panel for the largest model of each family and one for each reference model,
# on the first corpus. Each cell counts the targets with a given probability $p(t)$ (horizontal)
# and rank $R$ (vertical, `ge` convention). Along any vertical line the ranks spread out. The
# dashed line is a hard limit: if $R$ tokens (the target included) all have probability at
# least $p(t)$, then $R\,p(t) \le 1$, so no target can lie above $R = 1/p(t)$; for the same
# reason a target with $p(t) > 1/2$ is always ranked first. The shaded strips are the narrow
# probability bands that the next figure zooms into. Each panel's rank axis ends at its model's
# own vocabulary size.

# %%
bands = np.array([[c * (1 - band_half_width), c * (1 + band_half_width)] for c in band_centres])
panels = shown_runs(corpora[0])
n_cols = min(3, len(panels))
n_rows = -(-len(panels) // n_cols)
fig, axes = plt.subplots(n_rows, n_cols, figsize=(5.6 * n_cols, 4.2 * n_rows), squeeze=False)
bound_rows = []
for ax, run in zip(axes.flat, panels):
    rec = run.records
    rank_ge = metrics.rank_1based(rec.gt, rec.ge)
    prob = np.exp(rec.logp.astype(np.float64))
    x_edges = np.logspace(np.log10(max(prob.min(), 1e-7)), 0, 60)
    y_edges = np.logspace(0, np.log10(run.vocab_size + 1), 50)
    counts2d, _, _ = np.histogram2d(prob, rank_ge, bins=[x_edges, y_edges])
    mesh = ax.pcolormesh(x_edges, y_edges, np.ma.masked_equal(counts2d.T, 0), cmap="viridis",
                         norm=plt.matplotlib.colors.LogNorm())
    ax.plot(x_edges, np.minimum(1 / x_edges, run.vocab_size), "k--", lw=1, label=r"$R = 1/p(t)$ (no target above)")
    for i, (lo, hi) in enumerate(bands):
        ax.axvspan(lo, hi, color="tab:red", alpha=0.25, label="probability bands" if i == 0 else None)
    ax.set(xscale="log", yscale="log", xlabel="probability of the correct token $p(t)$",
           ylabel="rank $R$ of the correct token (ge)", title=panel_title(run, corpora[0]))
    ax.title.set_color(report.family_style(profile, run.family)["color"])
    fig.colorbar(mesh, ax=ax, label="targets")
    ax.legend(loc="upper right", fontsize=7)
    family, name = who(run)
    bound_rows.append(f"{family}/{name}: {np.count_nonzero(rank_ge * prob > 1 + 1e-4)} of {len(prob):,}")
for ax in axes.flat[len(panels):]:
    ax.set_visible(False)
fig.tight_layout()
plt.show()
display(Markdown("Targets above the bound $R\\,p(t) \\le 1$: " + "; ".join(bound_rows) + "."))

# %% [markdown]
# **Figure A1.1.** Joint distribution of the correct token's probability and its rank (`ge`)
# for the largest model of each family (title in the family's colour) and for each reference
# model (black title) on the first corpus. The spread along the vertical axis at a fixed
# probability is what paper A's Fig. 1 illustrates with two hand-made examples.
#
# Zooming into the bands: for every model and corpus, how the targets whose probability falls in
# a band (each only 20% wide, so the probability is nearly the same throughout) are spread over
# ranks. The table lists every model; the figure shows the largest model of each family and the
# reference models, one column per corpus.

# %%
rank_groups = {"rank 1": [0], "rank 2": [1], "rank 3": [2], "rank 4-10": list(range(3, 10)), "rank 11+": [10]}
band_rows = []
for corpus in corpora:
    for run in family_runs[corpus] + reference_runs[corpus]:
        rec = run.records
        rank = metrics.rank_1based(rec.gt, rec.ge)
        per_band = rankdist.rank_counts_by_probability(rec.logp, rank, bands.ravel(), max_rank=10)[::2]
        family, name = who(run)
        for centre, row in zip(band_centres, per_band):
            band_rows.append({"corpus": corpus, "family": family, "model": name, "p(t) near": centre,
                              "targets": int(row.sum()),
                              "commonest rank share": row.max() / row.sum() if row.sum() else np.nan,
                              **{group: row[cols].sum() for group, cols in rank_groups.items()}})
band = pd.DataFrame(band_rows)

shown = [who(run) for run in panels]
fig, axes = plt.subplots(len(shown), len(corpora), figsize=(3.6 * len(corpora), 2.9 * len(shown)),
                         sharey=True, squeeze=False)
colors = plt.cm.viridis(np.linspace(0, 0.9, len(rank_groups)))
for row_axes, (family, name) in zip(axes, shown):
    for ax, corpus in zip(row_axes, corpora):
        rows = band[(band["corpus"] == corpus) & (band["family"] == family) & (band["model"] == name)]
        shares = rows[list(rank_groups)].div(rows["targets"].where(rows["targets"] > 0), axis=0).fillna(0)
        bottom = np.zeros(len(rows))
        labels = [f"{c:g}" for c in rows["p(t) near"]]
        for group, color in zip(rank_groups, colors):
            ax.bar(labels, shares[group], bottom=bottom, color=color, label=group)
            bottom += shares[group].to_numpy()
        for i, n in enumerate(rows["targets"]):
            ax.text(i, 1.01, f"n={n}", ha="center", fontsize=7)
        ax.set(title=f"{family}: {name}\n{corpus}", xlabel="$p(t)$ within 10% of", ylim=(0, 1.12))
        ax.title.set(fontsize=9, color=report.family_style(profile, None if family == "reference" else family)["color"])
    row_axes[0].set_ylabel("share of the band's targets")
axes[0, -1].legend(fontsize=7, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A1.2.** Ranks (`ge` convention) of the targets whose probability lies within 10% of
# each band centre, one row per model (the largest of each family, then each reference model),
# one column per corpus; $n$ is how many targets fall in the band (an empty bar means none did).
# Within one band the probability hardly changes; wherever a bar has more than one colour,
# equally confident predictions were ranked differently, and a greedy decoder would get some of
# them right and miss the others.

# %%
band.style.hide(axis="index").format(precision=3)

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

shown_ks = [ks[0], ks[min(3, len(ks) - 1)]]
fig, axes = plt.subplots(len(shown_ks), len(corpora), figsize=(4.4 * len(corpora), 3.8 * len(shown_ks)),
                         squeeze=False)
for row_axes, k in zip(axes, shown_ks):
    for ax, corpus in zip(row_axes, corpora):
        here = points[points["corpus"] == corpus]
        for family in families:
            look = report.family_style(profile, family)
            mine = here[here["family"] == family]
            ck, final = mine[mine["kind"] == "checkpoint"], mine[mine["kind"] == "final"]
            ax.scatter(ck["p_A"], ck[f"RBP_{k}"], marker=look["marker"], facecolors="none",
                       edgecolors=look["color"], s=22)
            ax.scatter(final["p_A"], final[f"RBP_{k}"], marker=look["marker"], color=look["color"], s=30)
        ref = here[here["kind"] == "reference"]
        ax.scatter(ref["p_A"], ref[f"RBP_{k}"], s=120, **report.family_style(profile, None))
        ax.set(xscale="log", xlabel="$p_A$ (mean probability of the correct token)",
               ylabel=f"RBP$_{{{k}}}$ (ge)", title=f"RBP$_{{{k}}}$ against $p_A$, {corpus}")
handles = [Line2D([], [], ls="none", **report.family_style(profile, family), label=f"{family}, final models")
           for family in families]
handles += [Line2D([], [], ls="none", marker="o", markerfacecolor="none", markeredgecolor="grey",
                   color="grey", label="open: training checkpoints")]
if len(points[points["kind"] == "reference"]):
    handles += [Line2D([], [], ls="none", markersize=12, **report.family_style(profile, None),
                       label="reference model (outside the families)")]
axes[0, 0].legend(handles=handles, fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A1.3.** RBP$_k$ (`ge` convention) against $p_A$ for every final model (filled, in its
# family's colour and marker), training checkpoint (open) and reference model (black star), one
# column per corpus. Training tends to raise both, so within one run they move together; the
# question is whether results with similar $p_A$ can differ in RBP$_k$. Kendall's $\tau$ below
# measures how consistently the two metrics order a set of results ($\tau = 1$: ranking the
# results by $p_A$ always ranks them the same way by RBP$_1$), and the count after it gives the
# pairs of results on which the two metrics clearly disagree: one result has a $p_A$ at least
# `discordance_margin` (relative) higher, the other an RBP$_1$ at least that much higher
# (`metrics.discordant_pairs`). Both are computed within each family (its models and checkpoints
# on every corpus), and once over every result of the set, references included.

# %%
def agreement(rows):
    p_a, rbp_1 = rows["p_A"].to_numpy(), rows[f"RBP_{ks[0]}"].to_numpy()
    n_pairs = len(rows) * (len(rows) - 1) // 2
    varied = len(rows) >= 2 and np.ptp(p_a) > 0 and np.ptp(rbp_1) > 0
    return {"results": len(rows), "pairs": n_pairs,
            "Kendall tau": kendalltau(p_a, rbp_1).statistic if varied else np.nan,
            "pairs clearly disagreeing": metrics.discordant_pairs(p_a, rbp_1, discordance_margin)}


family_points = points[points["kind"] != "reference"]
agree = {family: agreement(family_points[family_points["family"] == family]) for family in families}
agree_table = pd.DataFrame([{"results of": family, **a} for family, a in agree.items()]
                           + [{"results of": "every family and reference together", **agreement(points)}])
display(agree_table.style.hide(axis="index").format({"Kendall tau": "{:.3f}"}))
points.sort_values(["corpus", "family", "model", "step"], na_position="last").style.hide(axis="index").format(
    precision=4)

# %% [markdown]
# ## RBP$_k$ against $p_A$ on real predictions: the reference models
#
# The families above are fitted against size in the other chapters. A *reference* model is
# different: a real pretrained model, outside every size family, with its own tokenizer, its own
# training data and, where it is quantised, weights stored at reduced precision. It is shown
# here, beside the families' models, as a check that the metrics behave on a model trained at a
# realistic scale the way they do on the families: its panel in Figure A1.1, its row in
# Figure A1.2 and its star in Figure A1.3. Its values are never compared with a family's trend,
# and it takes part in no verdict of a size law.

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
    display(side.style.hide(axis="index").format(precision=4))
else:
    display(Markdown(f"Model set `{model_set.name}` has no reference model, so there is nothing to show here; "
                     "a model set lists one under `[[references]]` (see `rankscale.modelsets`)."))

# %% [markdown]
# **Table A1.1.** (Where the set has reference models.) $p_A$, cross-entropy and RBP$_k$ (`ge`)
# of every final model of the families and of every reference model, per corpus. A reference
# model's numbers are not on the families' size scale and, with another tokenizer, not even on
# the same targets: its $k$ counts other tokens.
#
# ### Paper A's released values for GPT-2 on Wikipedia
#
# Paper A's code repository publishes CE and RBP$_k$ of GPT-2 (small and XL) on its Wikipedia
# sample. Where this set evaluates those models on the `wikipedia` corpus, the table puts our
# values beside them, computed with paper A's eq. 3 ranks (`ge`) and with the released code's
# ranks (`gt`); the released numbers are the paper's, not recomputed here.

# %%
released = report.reference_table("rbp_released_gpt2_wikipedia")
released_models = set(released["model"])


def evaluates_released(s):
    sources = {m.source for f in s.families for m in f.models if m.revision is None}
    sources |= {m.source for m in s.references if m.revision is None}
    return released_corpus in s.corpora and bool(sources & released_models)


mine = []
if released_corpus in corpora:
    for run in family_runs[released_corpus] + reference_runs[released_corpus]:
        identity = run.records.manifest["identity"]
        if identity["model"] in released_models and identity["revision"] is None:
            mine.append((identity["model"], run))
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
    display(pd.DataFrame(rows).astype({"targets": "Int64"}).style.hide(axis="index").format(precision=4, na_rep="-"))
else:
    would = [name for name, s in modelsets.BUILT_IN.items() if evaluates_released(s)]
    display(Markdown(
        f"This run does not evaluate {' or '.join(f'`{m}`' for m in sorted(released_models))} on the "
        f"`{released_corpus}` corpus, so paper A's released values are not shown; the model sets "
        f"{' and '.join(f'`{name}`' for name in would)} do."))

# %% [markdown]
# ## Verdicts
#
# Paper A's sections 1-3 define the metric rather than measure it; the checkable claims are that
# a probability does not determine a rank, that the absolute and relative metrics are distinct,
# and (implicitly) that the rank of eq. 3 and the rank of the released code give the same
# RBP$_k$. The rules: a band of a model on a corpus is tested if it holds at least
# `min_band_tokens` targets, and shows different ranks if its most common rank takes less than
# 95% of them. The paper claims only that this happens, so the first claim counts as reproduced
# if in every family on every corpus at least one tested band of its models shows it, partly if
# in some. (A model that never gives much more than 0.1 to any token ranks all its targets near
# that probability first, so not every band need spread.) The second claim is tested within
# each family: it holds for a family if at least one pair of its results clearly disagrees as
# defined above, and is reproduced if it holds for every family, partly if for some. The third
# holds if the two conventions' RBP$_k$ differ by less than 0.001 for every model, reference
# models included. Reference models are shown beside the families, but the first two verdicts
# are graded on the families alone.

# %%
tested = band[(band["targets"] >= min_band_tokens) & (band["family"] != "reference")]
pairs = [(c, f) for c in corpora for f in families]
if len(tested) == 0:
    same_p_verdict = report.NOT_TESTABLE
    same_p_ours = f"no band of any family's model holds {min_band_tokens} or more targets"
else:
    spread = tested["commonest rank share"] < 0.95
    spread_in = spread.groupby([tested["corpus"], tested["family"]]).any()
    shows = [bool(spread_in.get((c, f), False)) for c, f in pairs]
    same_p_verdict = report.grade(shows)
    missing = [f"{c}/{f}" for (c, f), ok in zip(pairs, shows) if not ok]
    same_p_ours = (f"{spread.sum()} of {len(tested)} tested bands (models x corpora x p(t) near "
                   f"{', '.join(f'{c:g}' for c in sorted(tested['p(t) near'].unique()))}) spread over ranks; "
                   f"commonest rank share {tested['commonest rank share'].min():.2f}-"
                   f"{tested['commonest rank share'].max():.2f}; {sum(shows)} of {len(pairs)} (corpus, family) "
                   "pairs show it" + (f" (not: {', '.join(missing)})" if missing else ""))
    ref_tested = band[(band["targets"] >= min_band_tokens) & (band["family"] == "reference")]
    if len(ref_tested):
        same_p_ours += (f"; reference models (not graded): {int((ref_tested['commonest rank share'] < 0.95).sum())} "
                        f"of {len(ref_tested)} tested bands spread")

testable = {family: a for family, a in agree.items() if a["pairs"] > 0}
left_out = [family for family in families if family not in testable]
if testable:
    disagree_verdict = report.grade(a["pairs clearly disagreeing"] > 0 for a in testable.values())
    disagree_ours = (f"pairs of results (models/checkpoints x corpora) ordered oppositely by p_A and RBP_{ks[0]} "
                     f"by over {discordance_margin:.0%}: " + "; ".join(
                         f"{family}: {a['pairs clearly disagreeing']} of {a['pairs']} "
                         f"(Kendall tau {a['Kendall tau']:.3f})"
                         for family, a in testable.items()))
    disagree_ours += f" (not tested on: {', '.join(left_out)}, one result only)" if left_out else ""
else:
    disagree_verdict = report.NOT_TESTABLE
    disagree_ours = "no family has two results to compare"
largest_tie_gap = ties["largest |RBP_k(ge) - RBP_k(gt)| over k"].max()

verdicts = report.verdict_table("A1", [
    report.Verdict("The same probability of the correct token comes with different ranks (§1, Fig. 1)",
                   "p = 0.28 at rank 1 or rank 3 (illustration)", same_p_ours, same_p_verdict),
    report.Verdict("p_A does not determine RBP_k: the two metrics order results differently (§3, Fig. 2)",
                   "conceptual (toy example in Fig. 2)", disagree_ours, disagree_verdict),
    report.Verdict("Eq. 3's rank (ties against the target) and the released code's (ties for it) give the same RBP_k",
                   "not discussed",
                   f"{int(ties['tied targets (ge != gt)'].sum())} tied targets of {int(ties['targets'].sum()):,} "
                   f"(families' final models and reference models); largest RBP_k gap {largest_tie_gap:.2g}",
                   "reproduced" if largest_tie_gap < 1e-3 else "not reproduced"),
])
