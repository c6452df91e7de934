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
# # A3 · How k shapes the law
#
# Chapter A2 looked at a few values of $k$. Paper A's summary (section 4.4, Fig. 6) sweeps $k$
# over its whole range and follows two numbers of the power-law fit of $-\log \mathrm{RBP}_k$
# against non-embedding size $S$: the fit quality $R^2$ (Fig. 6a) and the exponent
# $\alpha = -\text{slope}$ (Fig. 6b). The paper finds $R^2$ high (above 0.9) for $k$ below about
# 1,000 and dropping only as $k$ nears the vocabulary size, and an exponent that grows with $k$:
# below 0.1 for $k = 1$, near 0.2 for $k = 100$. A larger exponent means the metric improves
# faster with scale. Its appendix B (Table 1) lists $R^2$ and slopes per corpus and model family
# for $k$ = 1, 10, 100, 500, 2,500 and 10,000, next to the same fit for cross-entropy (CE), and
# notes that CE and $-\log \mathrm{RBP}_1$ usually have very similar slopes.
#
# Here the sweep runs over a log-spaced grid of $k$ from 1 to the vocabulary size of the ladder's
# tokenizer, for each corpus, with ranks by paper A's eq. 3 (`ge` convention). The exponent gets
# a bootstrap interval: the evaluation tokens of each model are resampled with replacement, the
# fit is repeated, and the interval spans the middle 95% of the refitted slopes
# (`rankscale.fit.fit_grid_with_bootstrap`). Resampling single tokens ignores that neighbouring
# tokens are correlated, so the intervals are if anything too narrow.

# %% tags=["parameters"]
profile = "tiny"
corpora = ["pydocs", "stdlib", "humaneval"]
n_k = 25  # points of the log-spaced k grid from 1 to the vocabulary size
table_ks = [1, 10, 100, 500, 2500, 10000]  # paper A, Table 1 (values above the vocabulary are skipped)
n_boot = None  # bootstrap replicates; None: 50 for the smoke profile, 200 otherwise
level = 0.95  # bootstrap interval
paper_vocab_size = 50_257  # vocabulary of the paper's GPT-2/Pythia/OPT models
paper_r2_k = 1000  # paper A, §4.4: R^2 above 0.9 "when k < 1000"
min_r2 = 0.9
exponent_ks = [1, 100]  # §4.4 contrasts the exponents of these two
ce_ratio_band = [0.8, 1.25]  # slope ratio -log RBP_1 / CE counted as "very close"

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from rankscale import fit, metrics, report

n_boot = n_boot or (50 if profile == "smoke" else 200)
runs = {corpus: report.profile_runs(profile, corpus) for corpus in corpora}
report.header(profile, runs)
vocab_size = runs[corpora[0]][0][1].manifest["vocab_size"]
sizes = report.sizes(runs[corpora[0]])
k_grid = np.unique(np.round(np.geomspace(1, vocab_size, n_k)).astype(int))
table_ks_here = [k for k in table_ks if k < vocab_size]
all_ks = np.union1d(np.union1d(k_grid, table_ks_here), exponent_ks)
scaled_r2_k = paper_r2_k * vocab_size / paper_vocab_size
paper = report.reference_table("rbp_paper_table1")


def neg_log_rbp(sample):
    return -np.log(metrics.rbp(sample["rank"], all_ks))


fits, ce_fits = {}, {}
for corpus, corpus_runs in runs.items():
    samples = [{"rank": metrics.rank_1based(rec.gt, rec.ge)} for _, rec in corpus_runs]
    fits[corpus] = dict(zip(all_ks, fit.fit_grid_with_bootstrap(sizes, samples, neg_log_rbp, n_boot, level)))
    ce_fits[corpus] = fit.fit_with_bootstrap(sizes, [{"logp": rec.logp} for _, rec in corpus_runs],
                                             lambda s: metrics.cross_entropy(s["logp"]), n_boot, level)
display(Markdown(f"{len(k_grid)} values of $k$ from 1 to {vocab_size:,}; {n_boot} bootstrap replicates; "
                 f"{len(sizes)} model sizes."))

# %% [markdown]
# ## Fit quality and exponent against $k$ (paper A, Fig. 6)
#
# The horizontal axis is $k$ as a fraction of the vocabulary, so that the ladder's much smaller
# vocabulary and the paper's 50k-token vocabularies can share it. The grey points are paper A's
# Table 1 values for the Pythia family (the same GPT-NeoX architecture as the ladder), one per
# corpus and $k$; they are the paper's numbers, not recomputed here. The dotted vertical line
# marks paper A's $k = 1000$ at the same fraction of the vocabulary.

# %%
pythia = paper[(paper["family"] == "Pythia") & paper["k"].notna()]
fig, (ax_r2, ax_alpha) = plt.subplots(1, 2, figsize=(12, 4.3))
for corpus, color in zip(corpora, plt.cm.tab10.colors):
    ks_fit = [k for k in k_grid if fits[corpus][k] is not None]
    frac = np.array(ks_fit) / vocab_size
    ax_r2.plot(frac, [fits[corpus][k].r2 for k in ks_fit], "o-", ms=3, color=color, label=f"{corpus} (ladder)")
    alpha = np.array([-fits[corpus][k].slope for k in ks_fit])
    lo = np.array([-fits[corpus][k].ci[1] if fits[corpus][k].ci else np.nan for k in ks_fit])
    hi = np.array([-fits[corpus][k].ci[0] if fits[corpus][k].ci else np.nan for k in ks_fit])
    ax_alpha.plot(frac, alpha, "o-", ms=3, color=color, label=f"{corpus} (ladder)")
    ax_alpha.fill_between(frac, lo, hi, color=color, alpha=0.2)
for ax, column in ((ax_r2, "r2"), (ax_alpha, "slope")):
    sign = -1 if column == "slope" else 1
    ax.scatter(pythia["k"] / paper_vocab_size, sign * pythia[column], color="grey", marker="x", s=18,
               label="paper A, Table 1 (Pythia)")
    ax.axvline(paper_r2_k / paper_vocab_size, color="k", ls=":", lw=1)
    ax.set(xscale="log", xlabel="$k$ / vocabulary size")
ax_r2.axhline(min_r2, color="k", lw=0.5)
ax_r2.set(ylabel="$R^2$ of the log-log fit", title="fit quality (paper A, Fig. 6a)")
ax_alpha.set(ylabel=r"exponent $\alpha$ = -slope", title=f"exponent with {level:.0%} bootstrap band (Fig. 6b)")
ax_r2.legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A3.1.** Left: $R^2$ of the power-law fit of $-\log \mathrm{RBP}_k$ (`ge` ranks)
# against size, for each $k$ of the grid. Right: the fitted exponent, with its bootstrap band
# (absent where some resample had every target of a model inside the top $k$, so that the
# refit was impossible; points are missing altogether where that happened on the full sample).
# Crosses: paper A's Table 1 (Pythia family).
#
# ## Table 1 in the paper's layout
#
# Our fits for the $k$ of paper A's Table 1 that are smaller than this vocabulary, and for CE,
# with the slope's bootstrap interval. The ladder is the only family.

# %%
rows = []
for corpus in corpora:
    for label, f in [("CE", ce_fits[corpus]), *[(str(k), fits[corpus][k]) for k in table_ks_here]]:
        rows.append({"Dataset": corpus, "Top-k": label,
                     ("R²", "ladder"): f.r2 if f else np.nan, ("Slope", "ladder"): f.slope if f else np.nan,
                     (f"Slope {level:.0%} CI", "ladder"): f"[{f.ci[0]:.3f}, {f.ci[1]:.3f}]" if f and f.ci else "-"})
ours_table = pd.DataFrame(rows).set_index(["Dataset", "Top-k"])
ours_table.columns = pd.MultiIndex.from_tuples(ours_table.columns)
ours_table.style.format(precision=3)

# %% [markdown]
# **Table A3.1 (ours).** $R^2$ and slope of the power-law fit of CE and of $-\log \mathrm{RBP}_k$
# against non-embedding size, per held-out corpus.
#
# **Table A3.2 (paper A's values, appendix B, Table 1)**, from `rbp_paper_table1.csv`, for
# comparison. The paper's models span about five orders of magnitude in size and its corpora are
# natural-language and code benchmarks; the ladder spans far less and is evaluated on its own
# held-out corpora, so the numbers are not expected to agree one for one.

# %%
paper_table = paper.assign(**{"Top-k": paper["k"].map(lambda k: "CE" if pd.isna(k) else str(int(k)))})
paper_table = paper_table.pivot_table(index=["dataset", "Top-k"], columns="family", values=["r2", "slope"], sort=False)
paper_table = paper_table.rename(columns={"r2": "R²", "slope": "Slope"}, level=0)
paper_table.index.names = ["Dataset", "Top-k"]
paper_table.style.format(precision=3)

# %% [markdown]
# ## Cross-entropy and $k = 1$
#
# Appendix B observes that the slopes of CE and of $-\log \mathrm{RBP}_1$ are usually very close.
# The ratio of the two slopes per corpus, ours and (from Table 1) the paper's:

# %%
ratio_rows = [{"source": "ours (ladder)", "dataset": c, "slope CE": ce_fits[c].slope,
               "slope -log RBP_1": fits[c][1].slope, "ratio": fits[c][1].slope / ce_fits[c].slope} for c in corpora]
paper_slopes = paper.assign(kind=paper["k"].map(lambda k: "CE" if pd.isna(k) else int(k)))
paper_ce = paper_slopes[paper_slopes["kind"] == "CE"].set_index(["dataset", "family"])["slope"]
paper_k1 = paper_slopes[paper_slopes["kind"] == 1].set_index(["dataset", "family"])["slope"]
paper_ratio = (paper_k1 / paper_ce).rename("ratio")
ratio_rows += [{"source": f"paper A ({fam})", "dataset": ds, "slope CE": paper_ce[ds, fam],
                "slope -log RBP_1": paper_k1[ds, fam], "ratio": r} for (ds, fam), r in paper_ratio.items()]
ratios = pd.DataFrame(ratio_rows)
ratios.style.hide(axis="index").format(precision=3)

# %% [markdown]
# ## Verdicts
#
# What differs from the paper's setting: its exponents come from models of 14 million to 14
# billion parameters, trained far longer; the ladder's models are tiny and trained for minutes.
# A power law without an offset describes a loss well only while its irreducible part is small
# next to the part that scaling removes, so exponents fitted on a short ladder of small models
# describe another regime, and the CE and $k = 1$ exponents need not stay close there. The
# verdicts test the claims on this profile as stated, without adjusting anything towards the
# paper's numbers.
#
# Rules, applied per corpus (reproduced if on every corpus, partly if on some, else not
# reproduced):
# - *High $R^2$ for $k \ll |\mathcal V|$*: every fit up to paper A's $k = 1000$, scaled to this
#   vocabulary, has $R^2 \ge$ `min_r2` and a negative slope.
# - *$R^2$ drops near the vocabulary*: the median $R^2$ for $k \ge 0.4\,|\mathcal V|$ (unfittable
#   points counted as 0) is below the median $R^2$ for $k$ up to the scaled bound.
# - *The exponent grows with $k$*: the exponent at $k = 100$ exceeds the one at $k = 1$ and their
#   bootstrap intervals do not overlap.
# - *CE and $k = 1$ slopes are close*: their ratio lies within `ce_ratio_band`, both fits with
#   $R^2 \ge$ `min_r2`.

# %%
def share_verdict(flags):
    return "reproduced" if all(flags) else "partly" if any(flags) else "not reproduced"


small = [k for k in k_grid if k <= scaled_r2_k]
large = [k for k in k_grid if k >= 0.4 * vocab_size]


def r2_or_zero(corpus, k):
    return fits[corpus][k].r2 if fits[corpus][k] is not None else 0.0


high = [all(fits[c][k] is not None and fits[c][k].r2 >= min_r2 and fits[c][k].slope < 0 for k in small)
        for c in corpora]
drops = [np.median([r2_or_zero(c, k) for k in large]) < np.median([r2_or_zero(c, k) for k in small]) for c in corpora]
k_lo, k_hi = exponent_ks
grows = [fits[c][k_hi].ci is not None and fits[c][k_lo].ci is not None and fits[c][k_hi].ci[1] < fits[c][k_lo].ci[0]
         for c in corpora]  # slopes are negative: a larger exponent is a lower slope
ce_close = [ce_ratio_band[0] <= fits[c][1].slope / ce_fits[c].slope <= ce_ratio_band[1]
            and min(fits[c][1].r2, ce_fits[c].r2) >= min_r2 for c in corpora]
testable = len(np.unique(sizes)) >= 3
untestable = "not testable on this profile"
paper_within = paper_ratio.between(*ce_ratio_band)

verdicts = report.verdict_table("A3", [
    report.Verdict("R^2 stays high (above 0.9) for k well below the vocabulary (§4.4, Fig. 6a)",
                   f"R^2 above 0.9 for k below {paper_r2_k} (of ~50k)",
                   "; ".join(f"{c}: min R^2 {min(r2_or_zero(c, k) for k in small):.3f} for k ≤ {scaled_r2_k:.0f}"
                             for c in corpora), share_verdict(high) if testable else untestable),
    report.Verdict("R^2 drops as k approaches the vocabulary size (§4.4, Fig. 6a)", "drops after k ~ 1000",
                   "; ".join(f"{c}: median R^2 {np.median([r2_or_zero(c, k) for k in large]):.3f} (k ≥ "
                             f"{min(large)}) vs {np.median([r2_or_zero(c, k) for k in small]):.3f}" for c in corpora),
                   share_verdict(drops) if testable else untestable),
    report.Verdict("The exponent grows with k (§4.4, Fig. 6b)", "alpha below 0.1 at k = 1, ~0.2 at k = 100",
                   "; ".join(f"{c}: alpha {-fits[c][k_lo].slope:.3f} at k={k_lo}, "
                             f"{-fits[c][k_hi].slope:.3f} at k={k_hi}" for c in corpora),
                   share_verdict(grows) if testable else untestable),
    report.Verdict("CE and -log RBP_1 have very close slopes (App. B, Table 1)",
                   f"slope ratio RBP_1/CE {paper_ratio.min():.2f}-{paper_ratio.max():.2f} (median "
                   f"{paper_ratio.median():.2f}); {paper_within.sum()} of {len(paper_ratio)} within {ce_ratio_band}",
                   "; ".join(f"{c}: ratio {fits[c][1].slope / ce_fits[c].slope:.2f}"
                             + ("" if min(fits[c][1].r2, ce_fits[c].r2) >= min_r2
                                else f" (a fit has R^2 below {min_r2})") for c in corpora),
                   share_verdict(ce_close) if testable else untestable),
])
