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

#
# Paper A draws Fig. 7 for one family at a time; here every family of the model set is measured
# and fitted on its own, in its own colour, on every held-out corpus. Claims about how a quantity
# changes with size are tested only on families with at least `min_sizes` model sizes.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
ks = [1, 10, 100]
window_lengths = [1, 2, 4, 8, 16]  # N: consecutive targets that must all be in the top k
min_r2 = 0.9
same_exponent_tolerance = 0.25  # |slope_N / slope_1 - 1| up to this counts as the same exponent
independence_band = [0.9, 1.1]  # measured -log p_{N,k} / (N * -log RBP_k) counted as independent
transition_levels = [0.1, 0.9]  # the emergence "transition" runs between these success rates
min_sizes = 3  # a family needs this many sizes for a size claim to be tested on it

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D

from rankscale import fit, metrics, report, runs

corpora = corpora or runs.corpora(profile)
family_runs = {corpus: runs.family_runs(profile, corpus) for corpus in corpora}
report.header(profile, family_runs)
families = list(runs.by_family(family_runs[corpora[0]]))
usable, unusable = report.fittable(family_runs[corpora[0]], min_sizes)
rows = []
for corpus, corpus_runs in family_runs.items():
    for run in corpus_runs:
        rank = metrics.rank_1based(run.records.gt, run.records.ge)
        rbp = metrics.rbp(rank, ks)
        longest = np.bincount(np.unique(run.records.window, return_inverse=True)[1]).max()
        for n in window_lengths:
            # a run longer than every evaluation window cannot be measured on this set
            measured = (metrics.window_success(rank, run.records.window, n, ks) if n <= longest
                        else np.full(len(ks), np.nan))
            for k, p_meas, r in zip(ks, measured, rbp):
                rows.append({"corpus": corpus, "family": run.family, "model": run.name, "S": run.non_embedding,
                             "k": k, "N": n, "RBP_k": r, "predicted (RBP_k)^N": r**n, "measured p_Nk": p_meas})
success = pd.DataFrame(rows)
success["-log measured"] = -np.log(success["measured p_Nk"].where(success["measured p_Nk"] > 0))  # NaN where 0
success["-log measured / (N * -log RBP_k)"] = success["-log measured"] / (success["N"] * -np.log(success["RBP_k"]))
n_windows = {c: len(np.unique(family_runs[c][0].records.window)) for c in corpora}
display(Markdown(
    "A measured $p_{N,k}$ of 0 means no run of that length succeeded; with about "
    + ", ".join(f"{len(family_runs[c][0].records):,} targets in {n_windows[c]} windows ({c})" for c in corpora)
    + " per model the smallest nonzero value measurable is about one over the number of targets. "
    + (f"Size claims are tested on {', '.join(usable)}; not on {'; '.join(unusable)}." if usable and unusable
       else f"No family has {min_sizes} or more sizes, so no size claim is testable on this set." if unusable
       else f"Every family has at least {min_sizes} sizes, so size claims are tested on all of them.")))


# %% [markdown]
# ## Sequence-level error against size (paper A, Fig. 7)
#
# One panel per corpus and $k$; one colour per family, and within a family one shade per $N$
# (darker = shorter runs). Points are the measured $-\log p_{N,k}$ (zeros, which have no
# logarithm, are left out). Solid lines are power-law fits to the measured points of one family.
# Dashed lines are what eq. 7 predicts from the token level alone: $N$ times the family's fitted
# $-\log \mathrm{RBP}_k$ line (its $N = 1$ fit).

# %%
def fit_if_positive(sizes, values):
    """A log-log fit of one family's values, or None where it cannot be made (a value that is zero
    or unmeasured, or fewer than two distinct sizes)."""
    values = np.asarray(values, float)
    if len(np.unique(sizes)) < 2 or not np.all(np.isfinite(values) & (values > 0)):
        return None
    return fit.fit_power_law(sizes, values)


token_laws, sequence_fits, sizes_of = {}, {}, {}
for (corpus, family), sel in success.groupby(["corpus", "family"], sort=False):
    for k in ks:
        at_k = sel[sel["k"] == k]
        first = at_k[at_k["N"] == 1]
        sizes_of[corpus, family] = first["S"].to_numpy(float)
        token_laws[corpus, family, k] = fit_if_positive(first["S"], -np.log(first["RBP_k"]))
        for n in window_lengths:
            pts = at_k[at_k["N"] == n]
            sequence_fits[corpus, family, k, n] = fit_if_positive(pts["S"], pts["-log measured"])

shade = {n: 1.0 - 0.65 * i / max(1, len(window_lengths) - 1) for i, n in enumerate(window_lengths)}
fig, axes = plt.subplots(len(corpora), len(ks), figsize=(4.2 * len(ks), 3.3 * len(corpora)), squeeze=False)
for row, corpus in zip(axes, corpora):
    for ax, k in zip(row, ks):
        for family in families:
            sel = success[(success["corpus"] == corpus) & (success["family"] == family) & (success["k"] == k)]
            law = token_laws[corpus, family, k]
            for n in window_lengths:
                pts = sel[sel["N"] == n]
                report.size_plot(ax, profile, family, pts["S"], pts["-log measured"],
                                 sequence_fits[corpus, family, k, n], alpha=shade[n])
                if law:
                    grid = np.geomspace(pts["S"].min(), pts["S"].max(), 50)
                    ax.plot(grid, n * law.predict(grid), "--", lw=1, alpha=0.6 * shade[n],
                            color=report.family_style(profile, family)["color"])
        ax.set(title=f"{corpus}, k = {k}")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
for ax in axes[-1]:
    ax.set_xlabel("non-embedding parameters $S$")
for ax in axes[:, 0]:
    ax.set_ylabel(r"$-\log p_{N,k}$ (ge)")
legend = ([Line2D([], [], linestyle="none", label=family, **report.family_style(profile, family))
           for family in families]
          + [Line2D([], [], color="grey", alpha=shade[n], label=f"N = {n}") for n in window_lengths]
          + [Line2D([], [], color="grey", ls="--", label="eq. 7: N × token-level fit")])
axes[0, -1].legend(handles=legend, fontsize=6, bbox_to_anchor=(1.02, 1), loc="upper left")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A4.1.** Measured sequence-level error $-\log p_{N,k}$ against size (points, solid
# fitted lines, one per family and $N$) and eq. 7's prediction $N \cdot (-\log \mathrm{RBP}_k)$
# (dashed). Where the solid line of an $N$ lies below its dashed line, runs of $N$ correct tokens
# are more common than independent positions would allow. The fits, with each slope against its
# family's $N = 1$ slope:

# %%
fit_rows = [{"corpus": c, "family": fam, "k": k, "N": n, "models": len(sizes_of[c, fam]),
             "slope": f.slope if f else np.nan, "R^2": f.r2 if f else np.nan,
             "slope_N / slope_1": f.slope / token_laws[c, fam, k].slope if f and token_laws[c, fam, k] else np.nan,
             "note": "" if f else "one size, or p = 0 for some model: no log-log fit"}
            for (c, fam, k, n), f in sequence_fits.items()]
pd.DataFrame(fit_rows).style.hide(axis="index").format(precision=3)

# %% [markdown]
# ## Does independence hold? (paper A, eq. 6)
#
# The ratio of measured to predicted $-\log p_{N,k}$ is 1 if the $N$ positions behave as
# independent draws with success rate RBP$_k$. Below 1, successes cluster: once a model is on
# track in a stretch of text (boilerplate, a repeated identifier, a predictable idiom) the next
# token is also likely to be right, so whole runs succeed more often than the product predicts.
# This is a property of each model, not of a size trend, so every model of every family counts.

# %%
fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.4), sharey=True, squeeze=False)
markers = dict(zip(corpora, "os^DvPXh"))
for ax, k in zip(axes[0], ks):
    longer_runs = success[(success["k"] == k) & (success["N"] > 1)]
    for (corpus, family, model), sel in longer_runs.groupby(["corpus", "family", "model"], sort=False):
        members = [run.name for run in runs.by_family(family_runs[corpus])[family]]
        i = members.index(model)
        ax.plot(sel["N"], sel["-log measured / (N * -log RBP_k)"], marker=markers[corpus], ms=4, lw=1,
                color=report.family_style(profile, family)["color"], alpha=0.35 + 0.65 * (i + 1) / len(members))
    ax.axhspan(*independence_band, color="grey", alpha=0.2)
    ax.axhline(1, color="k", lw=0.8)
    ax.set(xscale="log", xlim=(window_lengths[1] / 1.3, window_lengths[-1] * 1.3), xlabel="run length $N$",
           title=f"k = {k}")
    ax.set_xticks(window_lengths[1:], [str(n) for n in window_lengths[1:]])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
axes[0, 0].set_ylabel(r"$-\log p_{N,k}$ measured / $N(-\log \mathrm{RBP}_k)$")
legend = ([Line2D([], [], color=report.family_style(profile, family)["color"], label=family) for family in families]
          + [Line2D([], [], color="grey", marker=markers[c], linestyle="none", label=c) for c in corpora])
axes[0, -1].legend(handles=legend, fontsize=6, bbox_to_anchor=(1.02, 1), loc="upper left")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A4.2.** Measured over predicted sequence-level error for every model (colour: family,
# darker: larger model), corpus (marker), $k$ (panel) and $N \ge 2$; the grey band is the
# tolerance used in the verdict. Runs that never succeeded are left out.
#
# ## The S-shaped curve (paper A, eq. 8)
#
# On a linear probability axis, eq. 8 with a family's fitted token-level law gives the curves
# below for the first corpus: the success rate of an $N$-token task against size, extrapolated
# far beyond the measured models (the shaded strip, in the family's colour, is the range of
# sizes actually measured; points are the measured $p_{N,k}$). Written in $u = \ln S$, eq. 8
# reads $p = \exp(-e^{\ln(CN) - \alpha u})$, a Gumbel curve whose width in $\ln S$ is set by
# $\alpha$ alone; $N$ moves it to larger sizes by $\ln N / \alpha$ without changing its shape.
# The table after the figure gives, per family, the width in decades of model size between the
# success rates in `transition_levels`.

# %%
corpus = corpora[0]
fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.4), sharey=True, squeeze=False)
widths = []
for ax, k in zip(axes[0], ks):
    falling = [fam for fam in families
               if token_laws[corpus, fam, k] is not None and token_laws[corpus, fam, k].slope < 0]
    ax.set(title=f"{corpus}, k = {k}" + ("" if falling else ": no falling token-level law"))
    for family in falling:
        law, sizes = token_laws[corpus, family, k], sizes_of[corpus, family]
        color = report.family_style(profile, family)["color"]
        ax.axvspan(sizes.min(), sizes.max(), color=color, alpha=0.12)
        lo = fit.size_for_window_success(law, window_lengths[0], 0.01)
        hi = fit.size_for_window_success(law, window_lengths[-1], 0.99)
        curve_sizes = np.geomspace(max(1.0, min(lo, sizes.min())), max(hi, sizes.max()), 400)
        for n in window_lengths:
            ax.plot(curve_sizes, fit.predicted_window_success(law, curve_sizes, n), color=color, alpha=shade[n], lw=1.2)
            pts = success[(success["corpus"] == corpus) & (success["family"] == family) & (success["k"] == k)
                          & (success["N"] == n)]
            ax.plot(pts["S"], pts["measured p_Nk"], linestyle="none", ms=3, alpha=shade[n],
                    **report.family_style(profile, family))
            s_lo, s_hi = (fit.size_for_window_success(law, n, p) for p in transition_levels)
            widths.append({"corpus": corpus, "family": family, "k": k, "N": n, "alpha": -law.slope,
                           f"S at p={transition_levels[0]}": s_lo, f"S at p={transition_levels[1]}": s_hi,
                           "width (decades of S)": np.log10(s_hi / s_lo)})
    ax.set(xlabel="non-embedding parameters $S$ (extrapolated)")
    if falling:  # an empty panel keeps its linear axis: a log axis needs data
        ax.set_xscale("log")
axes[0, 0].set_ylabel("$p_{N,k}$ (linear axis)")
legend = ([Line2D([], [], label=family, **report.family_style(profile, family)) for family in families]
          + [Line2D([], [], color="grey", alpha=shade[n], label=f"N = {n}") for n in window_lengths])
axes[0, -1].legend(handles=legend, fontsize=6, bbox_to_anchor=(1.02, 1), loc="upper left")
fig.tight_layout()
plt.show()
widths = pd.DataFrame(widths, columns=["corpus", "family", "k", "N", "alpha", f"S at p={transition_levels[0]}",
                                      f"S at p={transition_levels[1]}", "width (decades of S)"])
widths.style.hide(axis="index").format({"alpha": "{:.3f}", "width (decades of S)": "{:.2f}",
                                        f"S at p={transition_levels[0]}": "{:.3g}",
                                        f"S at p={transition_levels[1]}": "{:.3g}"})

# %% [markdown]
# **Figure A4.3.** Eq. 8 with each family's token-level power law, for several $N$ (lighter =
# longer runs), on a linear success axis (lines), with the measured $p_{N,k}$ (points) inside the
# measured size range (shaded). The curves are S-shaped, as the paper says, but they are the same
# S shifted along the size axis. How many orders of magnitude of model size the rise from 10% to
# 90% takes depends only on the exponent (table above): the smaller $\alpha$, the wider the span,
# and whether the rise looks sudden depends on how compressed the size axis is.
#
# ## Verdicts
#
# With small models the long runs are rare: for small models and small $k$ a run of many correct
# tokens may never occur in the evaluation text, and such cases drop out of the fits. The
# sharpening claim is decided from the fitted curves of eq. 8 themselves, so it tests the
# paper's reasoning rather than the models.
#
# Rules. The size claims (power law, same exponent, sharpening) are tested on every family with
# at least `min_sizes` sizes; the independence claim on every model. *Power law*: every
# (corpus, family, $k$, $N$) whose measured $p_{N,k}$ is nonzero for all of the family's models
# has a fit with $R^2 \ge$ `min_r2` and a negative slope (partly: at least half do). *Same
# exponent*: the fitted slope for each $N$ is within `same_exponent_tolerance` (relative) of the
# family's $N = 1$ slope (partly: at least half are). *Independence*: the ratio of measured to
# predicted $-\log p_{N,k}$ lies in `independence_band` for every measurable case with $N \ge 2$
# (partly: the median does). *Sharper with $N$*: the width of the transition for the largest $N$
# is below 90% of that for $N = 1$ for every (family, $k$) with a falling law.

# %%
def graded(flags, some=lambda f: np.mean(f) >= 0.5):
    return "reproduced" if all(flags) else "partly" if some(flags) else "not reproduced"


def per_family(counts):
    """'family: a of b' for each tested family, from {family: [flags]}."""
    return "; ".join(f"{fam}: {sum(flags)} of {len(flags)}" for fam, flags in counts.items())


skipped = f" (not tested on: {'; '.join(unusable)})" if unusable else ""
no_family = f"no family has {min_sizes} or more sizes ({'; '.join(unusable)})"
seq = {key: f for key, f in sequence_fits.items() if f is not None and key[1] in usable}
n_unmeasurable = sum(1 for key, f in sequence_fits.items() if f is None and key[1] in usable)
power = {fam: [f.r2 >= min_r2 and f.slope < 0 for (c, fm, k, n), f in seq.items() if fm == fam] for fam in usable}
same = {fam: [abs(f.slope / token_laws[c, fm, k].slope - 1) <= same_exponent_tolerance
              for (c, fm, k, n), f in seq.items() if fm == fam and n > 1 and token_laws[c, fm, k] is not None]
        for fam in usable}
slope_ratios = [f.slope / token_laws[c, fam, k].slope for (c, fam, k, n), f in seq.items()
                if n > 1 and token_laws[c, fam, k] is not None]
power_flags, same_flags = sum(power.values(), []), sum(same.values(), [])
ratios = success.loc[success["N"] > 1, ["family", "-log measured / (N * -log RBP_k)"]].dropna()
ratio_values = ratios["-log measured / (N * -log RBP_k)"]
independent = [independence_band[0] <= r <= independence_band[1] for r in ratio_values]
median_ok = len(ratio_values) > 0 and independence_band[0] <= ratio_values.median() <= independence_band[1]
tested_widths = widths[widths["family"].isin(list(usable))]
sharpen = {(fam, k): g["width (decades of S)"].iloc[-1] < 0.9 * g["width (decades of S)"].iloc[0]
           for (fam, k), g in tested_widths.groupby(["family", "k"], sort=False)}

if usable and power_flags:
    power_verdict = graded(power_flags)
    power_ours = (f"measurable fits with R^2 ≥ {min_r2} and falling: {per_family(power)}; {n_unmeasurable} not "
                  f"measurable (some p = 0)" + skipped)
else:
    power_verdict = report.NOT_TESTABLE
    power_ours = no_family if not usable else "no measurable fit (some p = 0 in every case)" + skipped
if usable and same_flags:
    same_verdict = graded(same_flags)
    same_ours = (f"slope_N / slope_1 from {min(slope_ratios):.2f} to {max(slope_ratios):.2f}; within "
                 f"{same_exponent_tolerance:.0%}: {per_family(same)}" + skipped)
else:
    same_verdict = report.NOT_TESTABLE
    same_ours = no_family if not usable else "no measurable N ≥ 2 fit" + skipped
if len(ratio_values):
    independence_verdict = graded(independent, some=lambda f: median_ok)
    independence_ours = (f"measured/predicted -log p: median {ratio_values.median():.2f}, range "
                         f"{ratio_values.min():.2f}-{ratio_values.max():.2f} over {len(ratio_values)} cases; "
                         f"{sum(independent)} within {independence_band}; median per family: "
                         + ", ".join(f"{fam} {g.median():.2f}" for fam, g in
                                     ratios.groupby("family", sort=False)["-log measured / (N * -log RBP_k)"]))
else:
    independence_verdict, independence_ours = report.NOT_TESTABLE, "no measurable case with N ≥ 2"
if sharpen:
    sharpen_verdict = graded(list(sharpen.values()))
    sharpen_ours = "; ".join(f"{fam}, k={k}: {g['width (decades of S)'].iloc[0]:.1f} decades at N={g['N'].iloc[0]}, "
                             f"{g['width (decades of S)'].iloc[-1]:.1f} at N={g['N'].iloc[-1]}"
                             for (fam, k), g in tested_widths.groupby(["family", "k"], sort=False)) + skipped
else:
    sharpen_verdict = report.NOT_TESTABLE
    sharpen_ours = no_family if not usable else f"no falling token-level law on {corpus}" + skipped

verdicts = report.verdict_table("A4", [
    report.Verdict("Measured -log p_{N,k} follows a power law in size (§5.1, Fig. 7)",
                   "fits align closely (no R^2 given)", power_ours, power_verdict),
    report.Verdict("The exponent is the token-level one for every N: -log p_{N,k} ∝ N S^-alpha (eq. 7)",
                   "same alpha for all N", same_ours, same_verdict),
    report.Verdict("Positions are independent: p_{N,k} = (RBP_k)^N (eq. 6)", "assumed; Fig. 7 shows agreement",
                   independence_ours, independence_verdict),
    report.Verdict("A larger N sharpens the transition (§5.1, eq. 8)", "larger N gives a sharper knee",
                   sharpen_ours, sharpen_verdict),
])
