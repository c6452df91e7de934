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
# This chapter computes both kinds of metric on the predictions of the offline ladder, small
# GPT-NeoX models trained by this project (see the introduction), and shows on real tokens that
# a probability does not fix a rank.

# %% tags=["parameters"]
profile = "tiny"
corpora = ["pydocs", "stdlib", "humaneval"]
ks = [1, 2, 5, 10, 100, 1000]  # k values for RBP_k
band_centres = [0.01, 0.03, 0.1, 0.28]  # target probabilities to look at; 0.28 is paper A's Fig. 1 example
band_half_width = 0.1  # each band is centre * (1 -/+ band_half_width)
min_band_tokens = 30  # bands holding fewer targets are left out of the verdict
discordance_margin = 0.1  # a pair of results disagrees if each metric favours a different one by this much

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from scipy.stats import kendalltau

from rankscale import metrics, rankdist, report

runs = {corpus: report.profile_runs(profile, corpus) for corpus in corpora}
checkpoints = {corpus: report.profile_checkpoints(profile, corpus) for corpus in corpora}
report.header(profile, runs)
vocab_size = runs[corpora[0]][0][1].manifest["vocab_size"]
largest_meta, largest = runs[corpora[0]][-1]

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
# ranks), such ties should be rare; the table counts them and shows how far RBP$_k$ moves between
# the two conventions. **Unless a figure says otherwise, this book uses paper A's eq. 3 (`ge`).**

# %%
tie_rows = []
for corpus, corpus_runs in runs.items():
    for meta, rec in corpus_runs:
        rbp_ge = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="ge"), ks)
        rbp_gt = metrics.rbp(metrics.rank_1based(rec.gt, rec.ge, ties="gt"), ks)
        tie_rows.append({"corpus": corpus, "model": meta["size"], "targets": len(rec),
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
# predictions of the largest ladder model. Each cell counts the targets with a given probability
# $p(t)$ (horizontal) and rank $R$ (vertical, `ge` convention). Along any vertical line the
# ranks spread out. The dashed line is a hard limit: if $R$ tokens (the target included) all
# have probability at least $p(t)$, then $R\,p(t) \le 1$, so no target can lie above
# $R = 1/p(t)$; for the same reason a target with $p(t) > 1/2$ is always ranked first. The
# shaded strips are the narrow probability bands that the next figure zooms into.

# %%
bands = np.array([[c * (1 - band_half_width), c * (1 + band_half_width)] for c in band_centres])
rank_ge = metrics.rank_1based(largest.gt, largest.ge)
prob = np.exp(largest.logp.astype(np.float64))
fig, ax = plt.subplots(figsize=(7, 4.5))
x_edges = np.logspace(np.log10(max(prob.min(), 1e-7)), 0, 60)
y_edges = np.logspace(0, np.log10(vocab_size + 1), 50)
counts2d, _, _ = np.histogram2d(prob, rank_ge, bins=[x_edges, y_edges])
mesh = ax.pcolormesh(x_edges, y_edges, np.ma.masked_equal(counts2d.T, 0), cmap="viridis",
                     norm=plt.matplotlib.colors.LogNorm())
ax.plot(x_edges, np.minimum(1 / x_edges, vocab_size), "k--", lw=1, label=r"$R = 1/p(t)$ (no target above)")
for i, (lo, hi) in enumerate(bands):
    ax.axvspan(lo, hi, color="tab:red", alpha=0.25, label="probability bands" if i == 0 else None)
ax.set(xscale="log", yscale="log", xlabel="probability of the correct token $p(t)$",
       ylabel="rank $R$ of the correct token (ge)",
       title=f"{largest_meta['size']} on {corpora[0]}: probability and rank of each target")
fig.colorbar(mesh, ax=ax, label="targets")
ax.legend(loc="upper right", fontsize=8)
plt.show()
over_bound = np.count_nonzero(rank_ge * prob > 1 + 1e-4)
print(f"targets above the bound R * p(t) <= 1: {over_bound} of {len(prob):,}")

# %% [markdown]
# **Figure A1.1.** Joint distribution of the correct token's probability and its rank (`ge`)
# for the largest model of this profile on the first corpus. The spread along the vertical axis
# at a fixed probability is what paper A's Fig. 1 illustrates with two hand-made examples.
#
# Zooming into the bands: for every model and corpus, how the targets whose probability falls in
# a band (each only 20% wide, so the probability is nearly the same throughout) are spread over
# ranks. The table lists every model; the figure shows the largest model per corpus.

# %%
rank_groups = {"rank 1": [0], "rank 2": [1], "rank 3": [2], "rank 4-10": list(range(3, 10)), "rank 11+": [10]}
band_rows = []
for corpus, corpus_runs in runs.items():
    for meta, rec in corpus_runs:
        rank = metrics.rank_1based(rec.gt, rec.ge)
        per_band = rankdist.rank_counts_by_probability(rec.logp, rank, bands.ravel(), max_rank=10)[::2]
        for centre, row in zip(band_centres, per_band):
            band_rows.append({"corpus": corpus, "model": meta["size"], "p(t) near": centre, "targets": int(row.sum()),
                              "commonest rank share": row.max() / row.sum() if row.sum() else np.nan,
                              **{name: row[cols].sum() for name, cols in rank_groups.items()}})
band = pd.DataFrame(band_rows)

fig, axes = plt.subplots(1, len(corpora), figsize=(4 * len(corpora), 3.6), sharey=True, squeeze=False)
colors = plt.cm.viridis(np.linspace(0, 0.9, len(rank_groups)))
for ax, corpus in zip(axes[0], corpora):
    rows = band[(band["corpus"] == corpus) & (band["model"] == runs[corpus][-1][0]["size"])]
    shares = rows[list(rank_groups)].div(rows["targets"].where(rows["targets"] > 0), axis=0).fillna(0)
    bottom = np.zeros(len(rows))
    labels = [f"{c:g}" for c in rows["p(t) near"]]
    for name, color in zip(rank_groups, colors):
        ax.bar(labels, shares[name], bottom=bottom, color=color, label=name)
        bottom += shares[name].to_numpy()
    for i, n in enumerate(rows["targets"]):
        ax.text(i, 1.01, f"n={n}", ha="center", fontsize=7)
    ax.set(title=f"{corpus}, {runs[corpus][-1][0]['size']}", xlabel="$p(t)$ within 10% of", ylim=(0, 1.1))
axes[0, 0].set_ylabel("share of the band's targets")
axes[0, -1].legend(fontsize=7, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A1.2.** Ranks (`ge` convention) of the targets whose probability lies within 10% of
# each band centre, for the largest model on each corpus; $n$ is how many targets fall in the
# band (an empty bar means none did). Within one band the probability hardly changes; wherever a
# bar has more than one colour, equally confident predictions were ranked differently, and a
# greedy decoder would get some of them right and miss the others.

# %%
band.style.hide(axis="index").format(precision=3)

# %% [markdown]
# ## Absolute and relative metrics side by side (paper A, Fig. 2)
#
# Paper A's Figure 2 computes $p_A$ and RBP$_2$ on three toy predictions. Here both are computed
# for every model, every saved training checkpoint (including the untrained initialisation) and
# every corpus of this profile. If one metric determined the other, the points would fall on a
# single curve, whatever the model or corpus.

# %%
points = []
for corpus in corpora:
    for meta, step, rec in checkpoints[corpus]:
        if step == meta["steps"]:
            continue  # the final model, shown below on the full held-out sample
        rank = metrics.rank_1based(rec.gt, rec.ge)
        points.append({"corpus": corpus, "model": meta["size"], "step": step, "final": False,
                       "p_A": metrics.mean_target_probability(rec.logp),  # paper A, Fig. 2a
                       **{f"RBP_{k}": v for k, v in zip(ks, metrics.rbp(rank, ks))}})
    for meta, rec in runs[corpus]:
        rank = metrics.rank_1based(rec.gt, rec.ge)
        points.append({"corpus": corpus, "model": meta["size"], "step": meta["steps"], "final": True,
                       "p_A": metrics.mean_target_probability(rec.logp),
                       **{f"RBP_{k}": v for k, v in zip(ks, metrics.rbp(rank, ks))}})
points = pd.DataFrame(points)

shown_ks = [ks[0], ks[min(3, len(ks) - 1)]]
fig, axes = plt.subplots(1, len(shown_ks), figsize=(5.2 * len(shown_ks), 4), squeeze=False)
for ax, k in zip(axes[0], shown_ks):
    for corpus, color in zip(corpora, plt.cm.tab10.colors):
        sel = points["corpus"] == corpus
        ax.scatter(points.loc[sel & ~points["final"], "p_A"], points.loc[sel & ~points["final"], f"RBP_{k}"],
                   facecolors="none", edgecolors=color, label=f"{corpus}, checkpoints")
        ax.scatter(points.loc[sel & points["final"], "p_A"], points.loc[sel & points["final"], f"RBP_{k}"],
                   color=color, label=f"{corpus}, final models")
    ax.set(xscale="log", xlabel="$p_A$ (mean probability of the correct token)", ylabel=f"RBP$_{{{k}}}$ (ge)",
           title=f"RBP$_{{{k}}}$ against $p_A$")
axes[0, 0].legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A1.3.** RBP$_k$ (`ge` convention) against $p_A$ for every final model (filled) and
# training checkpoint (open) on each corpus. Training tends to raise both, so within one run they
# move together; the question is whether results with similar $p_A$ can differ in RBP$_k$.
# Kendall's $\tau$ below measures how consistently the two metrics order the same set of
# results ($\tau = 1$: ranking the results by $p_A$ always ranks them the same way by RBP$_1$),
# and the count after it gives the pairs of results on which the two metrics clearly disagree:
# one result has a $p_A$ at least `discordance_margin` (relative) higher, the other an RBP$_1$ at
# least that much higher.

# %%
tau = kendalltau(points["p_A"], points[f"RBP_{ks[0]}"]).statistic
p_a, rbp_1 = points["p_A"].to_numpy(), points[f"RBP_{ks[0]}"].to_numpy()
i, j = np.triu_indices(len(points), 1)
a_wins = (p_a[i] > (1 + discordance_margin) * p_a[j]) & (rbp_1[j] > (1 + discordance_margin) * rbp_1[i])
b_wins = (p_a[j] > (1 + discordance_margin) * p_a[i]) & (rbp_1[i] > (1 + discordance_margin) * rbp_1[j])
disagreeing = int(np.count_nonzero(a_wins | b_wins))
display(Markdown(f"Kendall's $\\tau$ between $p_A$ and RBP$_{{{ks[0]}}}$ over {len(points)} results: "
                 f"**{tau:.3f}**; pairs on which they clearly disagree: **{disagreeing}** of {len(i)}."))
points.sort_values(["corpus", "model", "step"]).style.hide(axis="index").format(precision=4)

# %% [markdown]
# ## Verdicts
#
# Paper A's sections 1-3 define the metric rather than measure it; the checkable claims are that
# a probability does not determine a rank, that the absolute and relative metrics are distinct,
# and (implicitly) that the rank of eq. 3 and the rank of the released code give the same
# RBP$_k$. The rules: a band of a model on a corpus is tested if it holds at least
# `min_band_tokens` targets, and shows different ranks if its most common rank takes less than
# 95% of them. The paper claims only that this happens, so the claim counts as reproduced if on
# every corpus at least one tested band shows it, partly if on some corpora. (A model that never
# gives much more than 0.1 to any token ranks all its targets near that probability first, so
# not every band need spread.) The second claim holds if at least one pair of results clearly
# disagrees as defined above; the third if the two conventions' RBP$_k$ differ by less than
# 0.001 everywhere.

# %%
tested = band[band["targets"] >= min_band_tokens]
spread = tested["commonest rank share"] < 0.95
if len(tested) == 0:
    same_p_verdict = "not testable on this profile"
    same_p_ours = f"no band of any model holds {min_band_tokens} or more targets"
else:
    spread_in_corpus = spread.groupby(tested["corpus"]).any().reindex(corpora, fill_value=False)
    same_p_verdict = ("reproduced" if spread_in_corpus.all() else "partly" if spread_in_corpus.any()
                      else "not reproduced")
    same_p_ours = (f"{spread.sum()} of {len(tested)} tested bands (models x corpora x p(t) near "
                   f"{', '.join(f'{c:g}' for c in sorted(tested['p(t) near'].unique()))}) spread over ranks; "
                   f"commonest rank share {tested['commonest rank share'].min():.2f}-"
                   f"{tested['commonest rank share'].max():.2f}")
largest_tie_gap = ties["largest |RBP_k(ge) - RBP_k(gt)| over k"].max()

verdicts = report.verdict_table("A1", [
    report.Verdict("The same probability of the correct token comes with different ranks (§1, Fig. 1)",
                   "p = 0.28 at rank 1 or rank 3 (illustration)", same_p_ours, same_p_verdict),
    report.Verdict("p_A does not determine RBP_k: the two metrics order results differently (§3, Fig. 2)",
                   "conceptual (toy example in Fig. 2)",
                   f"{disagreeing} of {len(i)} pairs of results (models/checkpoints x corpora) ordered oppositely "
                   f"by p_A and RBP_{ks[0]} by over {discordance_margin:.0%}; Kendall tau {tau:.3f}",
                   "reproduced" if disagreeing > 0 else "not reproduced"),
    report.Verdict("Eq. 3's rank (ties against the target) and the released code's (ties for it) give the same RBP_k",
                   "not discussed",
                   f"{int(ties['tied targets (ge != gt)'].sum())} tied targets of {int(ties['targets'].sum()):,}; "
                   f"largest RBP_k gap {largest_tie_gap:.2g}",
                   "reproduced" if largest_tie_gap < 1e-3 else "not reproduced"),
])
