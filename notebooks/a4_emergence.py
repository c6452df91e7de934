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
# # A4 · Emergence from a smooth token-level law
#
# Abilities of large language models sometimes seem to appear suddenly once models pass some
# size. Paper A (section 5.1, Fig. 7) offers a reading of this through its token-level law. Call
# a task of $N$ tokens solved when every one of the $N$ correct tokens is among the model's top
# $k$ candidates, which is what greedy decoding ($k = 1$) or top-$k$ sampling needs to reproduce
# the text exactly. If the positions were independent and alike, the chance of success would be
#
# $$p_{N,k} = (\mathrm{RBP}_k)^N \quad\text{(eq. 6)}, \qquad
#   -\log p_{N,k} = N\,(-\log \mathrm{RBP}_k) \propto N\,S^{-\alpha} \quad\text{(eq. 7)},$$
#
# so that $p_{N,k} \approx \exp(-C\,N\,S^{-\alpha})$ (eq. 8): close to 0 for small models, rising
# towards 1 for large ones, an S-shaped curve on a linear probability axis even though nothing
# abrupt happens per token. The paper adds that a larger $N$ sharpens the transition.
#
# This chapter measures $p_{N,k}$ directly: the fraction of all runs of $N$ consecutive targets
# (inside one evaluation window, sliding by one token) whose targets are all in the top $k$
# (`rankscale.metrics.window_success`). That tests the law and, separately, the independence
# assumption behind eq. 6. Ranks follow paper A's eq. 3 (`ge` convention).

# %% tags=["parameters"]
profile = "tiny"
corpora = ["pydocs", "stdlib", "humaneval"]
ks = [1, 10, 100]
window_lengths = [1, 2, 4, 8, 16]  # N: consecutive targets that must all be in the top k
min_r2 = 0.9
same_exponent_tolerance = 0.25  # |slope_N / slope_1 - 1| up to this counts as the same exponent
independence_band = [0.9, 1.1]  # measured -log p_{N,k} / (N * -log RBP_k) counted as independent
transition_levels = [0.1, 0.9]  # the emergence "transition" runs between these success rates

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from rankscale import fit, metrics, report

runs = {corpus: report.profile_runs(profile, corpus) for corpus in corpora}
report.header(profile, runs)
sizes = report.sizes(runs[corpora[0]])
rows = []
for corpus, corpus_runs in runs.items():
    for (meta, rec), size in zip(corpus_runs, sizes):
        rank = metrics.rank_1based(rec.gt, rec.ge)
        rbp = metrics.rbp(rank, ks)
        for n in window_lengths:
            measured = metrics.window_success(rank, rec.window, n, ks)
            for k, p_meas, r in zip(ks, measured, rbp):
                rows.append({"corpus": corpus, "model": meta["size"], "S": size, "k": k, "N": n,
                             "RBP_k": r, "predicted (RBP_k)^N": r**n, "measured p_Nk": p_meas})
success = pd.DataFrame(rows)
success["-log measured"] = -np.log(success["measured p_Nk"].where(success["measured p_Nk"] > 0))  # NaN where 0
success["-log measured / (N * -log RBP_k)"] = success["-log measured"] / (success["N"] * -np.log(success["RBP_k"]))
n_windows = {c: len(np.unique(runs[c][0][1].window)) for c in corpora}
display(Markdown(
    "A measured $p_{N,k}$ of 0 means no run of that length succeeded; with about "
    + ", ".join(f"{len(runs[c][0][1]):,} targets in {n_windows[c]} windows ({c})" for c in corpora)
    + " the smallest nonzero value measurable is about one over the number of targets."))


# %% [markdown]
# ## Sequence-level error against size (paper A, Fig. 7)
#
# One panel per corpus and $k$; one colour per $N$. Points are the measured $-\log p_{N,k}$
# (zeros, which have no logarithm, are left out). Solid lines are power-law fits to the measured
# points. Dashed lines are what eq. 7 predicts from the token level alone: $N$ times the fitted
# $-\log \mathrm{RBP}_k$ line (the $N = 1$ fit).

# %%
def fit_if_positive(values):
    values = np.asarray(values, float)
    return fit.fit_power_law(sizes, values) if np.all(np.isfinite(values) & (values > 0)) else None


token_laws, sequence_fits = {}, {}
for corpus in corpora:
    for k in ks:
        sel = success[(success["corpus"] == corpus) & (success["k"] == k)]
        token_laws[corpus, k] = fit_if_positive(-np.log(sel[sel["N"] == 1]["RBP_k"]))
        for n in window_lengths:
            sequence_fits[corpus, k, n] = fit_if_positive(sel[sel["N"] == n]["-log measured"])

grid = np.geomspace(sizes.min() / 1.5, sizes.max() * 1.5, 50)
colors = dict(zip(window_lengths, plt.cm.viridis(np.linspace(0, 0.85, len(window_lengths)))))
fig, axes = plt.subplots(len(corpora), len(ks), figsize=(4.2 * len(ks), 3.3 * len(corpora)), squeeze=False)
for row, corpus in zip(axes, corpora):
    for ax, k in zip(row, ks):
        sel = success[(success["corpus"] == corpus) & (success["k"] == k)]
        for n in window_lengths:
            pts = sel[(sel["N"] == n) & (sel["measured p_Nk"] > 0)]
            f = sequence_fits[corpus, k, n]
            label = f"N={n}" + (f": slope {f.slope:.3f}" if f else "")
            ax.plot(pts["S"], pts["-log measured"], "o", ms=4, color=colors[n], label=label)
            if f:
                ax.plot(grid, f.predict(grid), "-", color=colors[n], lw=1)
            if token_laws[corpus, k]:
                ax.plot(grid, n * token_laws[corpus, k].predict(grid), "--", color=colors[n], lw=1, alpha=0.6)
        ax.set(xscale="log", yscale="log", title=f"{corpus}, k = {k}")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.legend(fontsize=6)
for ax in axes[-1]:
    ax.set_xlabel("non-embedding parameters $S$")
for ax in axes[:, 0]:
    ax.set_ylabel(r"$-\log p_{N,k}$ (ge)")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A4.1.** Measured sequence-level error $-\log p_{N,k}$ against size (points, solid
# fitted lines) and eq. 7's prediction $N \cdot (-\log \mathrm{RBP}_k)$ (dashed). Where the solid
# line of an $N$ lies below its dashed line, runs of $N$ correct tokens are more common than
# independent positions would allow.
#
# ## Does independence hold? (paper A, eq. 6)
#
# The ratio of measured to predicted $-\log p_{N,k}$ is 1 if the $N$ positions behave as
# independent draws with success rate RBP$_k$. Below 1, successes cluster: once a model is on
# track in a stretch of text (boilerplate, a repeated identifier, a predictable idiom) the next
# token is also likely to be right, so whole runs succeed more often than the product predicts.

# %%
fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.4), sharey=True, squeeze=False)
markers = dict(zip(corpora, "os^DvP"))
model_colors = dict(zip(success["model"].unique(), plt.cm.plasma(np.linspace(0, 0.85, success["model"].nunique()))))
for ax, k in zip(axes[0], ks):
    longer_runs = success[(success["k"] == k) & (success["N"] > 1)]
    for (corpus, model), sel in longer_runs.groupby(["corpus", "model"], sort=False):
        ax.plot(sel["N"], sel["-log measured / (N * -log RBP_k)"], marker=markers[corpus], ms=4,
                color=model_colors[model], label=f"{corpus}, {model}")
    ax.axhspan(*independence_band, color="grey", alpha=0.2)
    ax.axhline(1, color="k", lw=0.8)
    ax.set(xscale="log", xlabel="run length $N$", title=f"k = {k}")
    ax.set_xticks(window_lengths[1:], [str(n) for n in window_lengths[1:]])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
axes[0, 0].set_ylabel(r"$-\log p_{N,k}$ measured / $N(-\log \mathrm{RBP}_k)$")
axes[0, -1].legend(fontsize=6, ncol=1, bbox_to_anchor=(1.02, 1), loc="upper left")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A4.2.** Measured over predicted sequence-level error for every model (colour), corpus
# (marker), $k$ (panel) and $N \ge 2$; the grey band is the tolerance used in the verdict. Runs
# that never succeeded are left out.
#
# ## The S-shaped curve (paper A, eq. 8)
#
# On a linear probability axis, eq. 8 with the fitted token-level law gives the curves below for
# the first corpus: the success rate of an $N$-token task against size, extrapolated far beyond
# the ladder (the shaded strip is the range of sizes actually measured; points are the measured
# $p_{N,k}$). Written in $u = \ln S$, eq. 8 reads $p = \exp(-e^{\ln(CN) - \alpha u})$, a Gumbel
# curve whose width in $\ln S$ is set by $\alpha$ alone; $N$ moves it to larger sizes by
# $\ln N / \alpha$ without changing its shape. The table after the figure gives the width, in
# decades of model size, between the success rates in `transition_levels`.

# %%
corpus = corpora[0]
fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.4), sharey=True, squeeze=False)
widths = []
for ax, k in zip(axes[0], ks):
    law = token_laws[corpus, k]
    ax.axvspan(sizes.min(), sizes.max(), color="grey", alpha=0.2)
    if law is None or law.slope >= 0:
        ax.set_title(f"{corpus}, k = {k}: token-level law not falling")
        continue
    lo = fit.size_for_window_success(law, window_lengths[0], 0.01)
    hi = fit.size_for_window_success(law, window_lengths[-1], 0.99)
    curve_sizes = np.geomspace(max(1.0, min(lo, sizes.min())), max(hi, sizes.max()), 400)
    for n in window_lengths:
        ax.plot(curve_sizes, fit.predicted_window_success(law, curve_sizes, n), color=colors[n], label=f"N={n}")
        pts = success[(success["corpus"] == corpus) & (success["k"] == k) & (success["N"] == n)]
        ax.plot(pts["S"], pts["measured p_Nk"], "o", ms=3, color=colors[n])
        s_lo, s_hi = (fit.size_for_window_success(law, n, p) for p in transition_levels)
        widths.append({"corpus": corpus, "k": k, "N": n, "alpha": -law.slope,
                       f"S at p={transition_levels[0]}": s_lo, f"S at p={transition_levels[1]}": s_hi,
                       "width (decades of S)": np.log10(s_hi / s_lo)})
    ax.set(xscale="log", xlabel="non-embedding parameters $S$ (extrapolated)", title=f"{corpus}, k = {k}")
axes[0, 0].set_ylabel("$p_{N,k}$ (linear axis)")
axes[0, 0].legend(fontsize=7)
fig.tight_layout()
plt.show()
widths = pd.DataFrame(widths, columns=["corpus", "k", "N", "alpha", f"S at p={transition_levels[0]}",
                                      f"S at p={transition_levels[1]}", "width (decades of S)"])
widths.style.hide(axis="index").format({"alpha": "{:.3f}", "width (decades of S)": "{:.2f}",
                                        f"S at p={transition_levels[0]}": "{:.3g}",
                                        f"S at p={transition_levels[1]}": "{:.3g}"})

# %% [markdown]
# **Figure A4.3.** Eq. 8 with the token-level power law fitted on the ladder, for several $N$,
# on a linear success axis (lines), with the measured $p_{N,k}$ (points) inside the measured size
# range (grey). The curves are S-shaped, as the paper says, but they are the same S shifted
# along the size axis. How many orders of magnitude of model size the rise from 10% to 90% takes
# depends only on the exponent (table above): the smaller $\alpha$, the wider the span, and
# whether the rise looks sudden depends on how compressed the size axis is.
#
# ## Verdicts
#
# On a small ladder the long runs are rare: for small models and small $k$ a run of many correct
# tokens may never occur in the evaluation text, and such cases drop out of the fits. The
# sharpening claim is decided from the fitted curves of eq. 8 themselves, so it tests the
# paper's reasoning rather than the ladder.
#
# Rules. *Power law*: every (corpus, $k$, $N$) whose measured $p_{N,k}$ is nonzero for all models
# has a fit with $R^2 \ge$ `min_r2` and a negative slope (partly: at least half do). *Same
# exponent*: the fitted slope for each $N$ is within `same_exponent_tolerance` (relative) of the
# $N = 1$ slope (partly: at least half are). *Independence*: the ratio of measured to predicted
# $-\log p_{N,k}$ lies in `independence_band` for every measurable case with $N \ge 2$ (partly:
# the median does). *Sharper with $N$*: the width of the transition for the largest $N$ is below
# 90% of that for $N = 1$ for every $k$ with a falling law.

# %%
def graded(flags, some=lambda f: np.mean(f) >= 0.5):
    if len(flags) == 0:
        return "not testable on this profile"
    return "reproduced" if all(flags) else "partly" if some(flags) else "not reproduced"


testable = len(np.unique(sizes)) >= 3
seq = {key: f for key, f in sequence_fits.items() if f is not None}
power_flags = [f.r2 >= min_r2 and f.slope < 0 for f in seq.values()]
same_flags = [abs(f.slope / token_laws[c, k].slope - 1) <= same_exponent_tolerance
              for (c, k, n), f in seq.items() if n > 1 and token_laws[c, k] is not None]
ratios = success.loc[success["N"] > 1, "-log measured / (N * -log RBP_k)"].dropna()
independent = [independence_band[0] <= r <= independence_band[1] for r in ratios]
median_ok = len(ratios) > 0 and independence_band[0] <= ratios.median() <= independence_band[1]
sharpen = [g["width (decades of S)"].iloc[-1] < 0.9 * g["width (decades of S)"].iloc[0] for _, g in widths.groupby("k")]
untestable = "not testable on this profile"
slope_pairs = [f.slope / token_laws[c, k].slope for (c, k, n), f in seq.items()
               if n > 1 and token_laws[c, k] is not None]

verdicts = report.verdict_table("A4", [
    report.Verdict("Measured -log p_{N,k} follows a power law in size (§5.1, Fig. 7)",
                   "fits align closely (no R^2 given)",
                   f"{sum(power_flags)} of {len(power_flags)} measurable (corpus, k, N) fits with R^2 ≥ {min_r2} "
                   f"and falling; {len(sequence_fits) - len(seq)} not measurable (some p = 0)",
                   graded(power_flags) if testable else untestable),
    report.Verdict("The exponent is the token-level one for every N: -log p_{N,k} ∝ N S^-alpha (eq. 7)",
                   "same alpha for all N",
                   f"slope_N / slope_1 from {min(slope_pairs):.2f} to {max(slope_pairs):.2f} "
                   f"over {len(slope_pairs)} fits"
                   if slope_pairs else "no measurable N ≥ 2 fit", graded(same_flags) if testable else untestable),
    report.Verdict("Positions are independent: p_{N,k} = (RBP_k)^N (eq. 6)", "assumed; Fig. 7 shows agreement",
                   f"measured/predicted -log p: median {ratios.median():.2f}, "
                   f"range {ratios.min():.2f}-{ratios.max():.2f} "
                   f"over {len(ratios)} cases; {sum(independent)} within {independence_band}" if len(ratios) else
                   "no measurable case", graded(independent, some=lambda f: median_ok)),
    report.Verdict("A larger N sharpens the transition (§5.1, eq. 8)", "larger N gives a sharper knee",
                   "; ".join(f"k={k}: {g['width (decades of S)'].iloc[0]:.1f} decades at N={g['N'].iloc[0]}, "
                             f"{g['width (decades of S)'].iloc[-1]:.1f} at N={g['N'].iloc[-1]}"
                             for k, g in widths.groupby("k"))
                   or "no falling token-level law", graded(sharpen) if testable else untestable),
])
