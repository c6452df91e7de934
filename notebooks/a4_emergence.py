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
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
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
# (`rankscale.analysis.emergence.window_runs`, which counts them window by window). That tests the law and,
# separately, the independence assumption behind eq. 6. Ranks follow paper A's eq. 3 (`ge`
# convention).
#
# Paper A draws Fig. 7 for one family at a time; here every family of the model set is measured
# and fitted on its own, in its own colour, on every held-out corpus. Claims about how a quantity
# changes with size are tested only on families with at least three model sizes. The grid of $k$
# and $N$ and every threshold of the verdicts are fixed in `rankscale.claims` (section A4), not
# here: the authors' code uses $N$ up to 100 and $k$ up to $10^4$, runs that small models almost
# never complete and thresholds at or above the small ladders' vocabularies, so the grid is
# smaller. Verdicts that compare slopes or ratios use bootstrap intervals that resample whole
# evaluation windows, because successes of neighbouring targets cluster; each interval is the
# measured value plus or minus 1.96 standard deviations of its replicates (`rankscale.analysis.bootstrap`).

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set

# %%

import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from matplotlib.ticker import NullFormatter

from rankscale.analysis import bootstrap, emergence, fit, metrics
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import paper_a
from rankscale.records import runs
from rankscale.claims import A4_KS as ks
from rankscale.claims import A4_LEVEL, A4_TRANSITION, MIN_SIZES
from rankscale.claims import A4_WINDOW_LENGTHS as window_lengths

chapter = open_chapter(profile, corpora)
model_set, corpora, family_runs, n_boot = chapter.model_set, chapter.corpora, chapter.family_runs, chapter.n_boot
families, usable, unusable = chapter.families, chapter.usable, chapter.unusable
rows, counted, boot = [], {}, {}  # boot[corpus, family]: (n_boot, models, N, k) p_{N,k} on resampled windows
for corpus, corpus_runs in family_runs.items():
    for run in corpus_runs:
        rank = metrics.rank_1based(run.records.gt, run.records.ge)
        key = (corpus, run.family, run.name)
        counted[key] = emergence.window_runs(rank, run.records.window, window_lengths, ks)
        measured = counted[key].success()  # (N, k); nan for an N longer than every window
        rbp = measured[0]  # N = 1: every target is a run of one
        for i, n in enumerate(window_lengths):
            for j, k in enumerate(ks):
                rows.append({"corpus": corpus, "family": run.family, "model": run.name, "S": run.non_embedding,
                             "k": k, "N": n, "RBP_k": rbp[j], "predicted (RBP_k)^N": rbp[j] ** n,
                             "measured p_Nk": measured[i, j]})
    for family, members in runs.by_family(corpus_runs).items():
        # one resample of the windows per corpus and family: its models see the same resampled text
        boot[corpus, family] = emergence.success_replicates([counted[corpus, family, run.name] for run in members],
                                                            n_boot)
success = pd.DataFrame(rows)
success["-log measured"] = -bootstrap.log_or_nan(success["measured p_Nk"])  # NaN where no run succeeded
success["-log measured / (N * -log RBP_k)"] = success["-log measured"] / (success["N"] * -np.log(success["RBP_k"]))
n_windows = {c: len(np.unique(family_runs[c][0].records.window)) for c in corpora}
display(Markdown(
    "A measured $p_{N,k}$ of 0 means no run of that length succeeded; with about "
    + ", ".join(f"{len(family_runs[c][0].records):,} targets in {n_windows[c]} windows ({c})" for c in corpora)
    + " per model the smallest nonzero value measurable is about one over the number of targets. "
    + (f"Size claims are tested on {', '.join(usable)}; not on {'; '.join(unusable)}." if usable and unusable
       else f"No family has {MIN_SIZES} or more sizes, so no size claim is testable on this set." if unusable
       else f"Every family has at least {MIN_SIZES} sizes, so size claims are tested on all of them.")
    + f" Bootstrap intervals use {n_boot} resamples of the evaluation windows."))


# %% [markdown]
# ## Sequence-level error against size (paper A, Fig. 7)
#
# {numref}`fig-a4-error` has one panel per corpus and $k$, one colour per family, and within a
# family one shade per $N$ (darker = shorter runs). Points are the measured $-\log p_{N,k}$
# (zeros, which have no logarithm, are left out). Solid lines are power-law fits to the measured
# points of one family. Dashed lines are what eq. 7 predicts from the token level alone: $N$
# times the family's fitted $-\log \mathrm{RBP}_k$ line (its $N = 1$ fit).

# %%
token_laws, sequence_fits, sizes_of = {}, {}, {}
for (corpus, family), sel in success.groupby(["corpus", "family"], sort=False):
    for k in ks:
        at_k = sel[sel["k"] == k]
        first = at_k[at_k["N"] == 1]
        sizes_of[corpus, family] = first["S"].to_numpy(float)
        token_laws[corpus, family, k] = fit.fit_if_positive(first["S"], -np.log(first["RBP_k"]))
        for n in window_lengths:
            pts = at_k[at_k["N"] == n]
            sequence_fits[corpus, family, k, n] = fit.fit_if_positive(pts["S"], pts["-log measured"])
shade = {n: 1.0 - 0.65 * i / max(1, len(window_lengths) - 1) for i, n in enumerate(window_lengths)}

# %% mystnb={"figure": {"caption": "Measured sequence-level error $-\\log p_{N,k}$ against model size (points, with solid fitted power laws, one per family and $N$; darker = shorter runs), and eq. 7's prediction $N \\cdot (-\\log \\mathrm{RBP}_k)$ from each family's token-level fit (dashed). One row of panels per corpus, one column per $k$.", "name": "fig-a4-error"}}
fig, axes = plots.panels(len(corpora), len(ks), 2.6, sharex=True)
for row, corpus in zip(axes, corpora):
    for ax, k in zip(row, ks):
        for family in families:
            sel = success[(success["corpus"] == corpus) & (success["family"] == family) & (success["k"] == k)]
            law = token_laws[corpus, family, k]
            for n in window_lengths:
                pts = sel[sel["N"] == n]
                plots.size_plot(ax, model_set, family, pts["S"], pts["-log measured"],
                                 sequence_fits[corpus, family, k, n], alpha=shade[n])
                if law:
                    grid = np.geomspace(pts["S"].min(), pts["S"].max(), 50)
                    ax.plot(grid, n * law.predict(grid), "--", lw=1, alpha=0.6 * shade[n],
                            color=plots.family_style(model_set, family)["color"])
        ax.set(title=f"{corpus}, k = {k}")
        plots.plain_log_ticks(ax)
plots.size_axes(axes, "S")
for ax in axes[:, 0]:
    ax.set_ylabel(r"$-\log p_{N,k}$ (ge)")
legend = (plots.family_handles(model_set, families, linestyle="none")
          + [Line2D([], [], color="grey", alpha=shade[n], label=f"N = {n}") for n in window_lengths]
          + [Line2D([], [], color="grey", ls="--", label="eq. 7: N × token-level fit")])
plots.legend_below(fig, legend, ncol=4)
plots.show(fig)

# %% [markdown]
# Where the solid line of an $N$ lies below its dashed line, runs of $N$ correct tokens are more
# common than independent positions would allow. The fits, with each slope against its family's
# $N = 1$ slope and the bootstrap interval of the difference (windows resampled, the same
# resample for every $N$, so the difference is paired; `emergence.slope_gaps`):

# %%
display(Markdown(pages.token_requirement(family_runs, "{numref}`fig-a4-error`")))
gaps = {}
for c in corpora:
    for fam, members in runs.by_family(family_runs[c]).items():
        if len(np.unique(runs.sizes(members))) >= 2:
            measured = np.stack([counted[c, fam, run.name].success() for run in members])  # (models, N, k)
            gaps[c, fam] = emergence.slope_gaps(runs.sizes(members), measured, boot[c, fam], A4_LEVEL)
fit_rows = []
for (c, fam, k, n), f in sequence_fits.items():
    base, g = token_laws[c, fam, k], gaps.get((c, fam))
    i, j = window_lengths.index(n), ks.index(k)
    lo, hi = g.intervals[i, j] if g is not None and n > 1 else (np.nan, np.nan)
    fit_rows.append({"corpus": c, "family": fam, "k": k, "N": n, "models": len(sizes_of[c, fam]),
                     "slope": f.slope if f else np.nan, "R^2": f.r2 if f else np.nan,
                     "slope_N / slope_1": f.slope / base.slope if f and base else np.nan,
                     "slope_N - slope_1": f.slope - base.slope if f and base else np.nan,
                     "interval low": lo, "interval high": hi,
                     "note": "" if f else "one size, or p = 0 for some model: no log-log fit"})
fit_table = pd.DataFrame(fit_rows)


if len(fit_table):
    longer = fit_table[fit_table["N"] > 1]
    tested = longer.dropna(subset=["interval low", "interval high"])
    apart = int(((tested["interval low"] > 0) | (tested["interval high"] < 0)).sum())
    display(Markdown(
        f"Headline numbers of the table below: {int(fit_table['slope'].notna().sum())} of its {len(fit_table)} "
        f"power laws could be fitted, with $R^2$ {plots.span_or_dash(fit_table['R^2'], '.3f')}; for runs of $N \\ge 2$ tokens "
        f"the ratio slope$_N$ / slope$_1$ is {plots.span_or_dash(longer['slope_N / slope_1'], '.2f')} (eq. 7: the same slope "
        f"for every $N$), and the {A4_LEVEL:.0%} interval of slope$_N$ − slope$_1$ excludes zero in {apart} of the "
        f"{len(tested)} rows that have one."))

# %% tags=["hide-output"]
fit_table.style.hide(axis="index").format(precision=3).set_caption(
    "Power laws of the sequence-level error −log p_{N,k} against size per corpus, family, k and run length N: slope "
    f"and R², the slope against the N = 1 slope (ratio, difference and its {A4_LEVEL:.0%} interval).")

# %% [markdown]
# ## Does independence hold? (paper A, eq. 6)
#
# The ratio of measured to predicted $-\log p_{N,k}$ is 1 if the $N$ positions behave as
# independent draws with success rate RBP$_k$. Below 1, successes cluster: once a model is on
# track in a stretch of text (boilerplate, a repeated identifier, a predictable idiom) the next
# token is also likely to be right, so whole runs succeed more often than the product predicts.
# This is a property of each model, not of a size trend, so every model of every family counts
# ({numref}`fig-a4-independence`).

# %% mystnb={"figure": {"caption": "Measured over predicted sequence-level error, $-\\log p_{N,k} / (N \\cdot -\\log \\mathrm{RBP}_k)$, for every model (colour: family; darker: larger model), corpus (marker), $k$ (panel) and $N \\ge 2$. The black line is independence (eq. 6); runs that never succeeded are left out.", "name": "fig-a4-independence"}}
fig, axes = plots.panels(1, len(ks), 3.0, sharey=True)
markers = dict(zip(corpora, "os^DvPXh"))
for ax, k in zip(axes[0], ks):
    longer_runs = success[(success["k"] == k) & (success["N"] > 1)]
    for (corpus, family, model), sel in longer_runs.groupby(["corpus", "family", "model"], sort=False):
        members = [run.name for run in runs.by_family(family_runs[corpus])[family]]
        i = members.index(model)
        ax.plot(sel["N"], sel["-log measured / (N * -log RBP_k)"], marker=markers[corpus], ms=4, lw=1,
                color=plots.family_style(model_set, family)["color"], alpha=0.35 + 0.65 * (i + 1) / len(members))
    ax.axhline(1, color="k", lw=0.8)
    ax.set(xscale="log", xlim=(window_lengths[1] / 1.3, window_lengths[-1] * 1.3), xlabel="run length $N$",
           title=f"k = {k}")
    ax.set_xticks(window_lengths[1:], [str(n) for n in window_lengths[1:]])
    ax.xaxis.set_minor_formatter(NullFormatter())
axes[0, 0].set_ylabel(r"measured / predicted $-\log p_{N,k}$")
legend = (plots.family_handles(model_set, families, marker=None)
          + [Line2D([], [], color="grey", marker=markers[c], linestyle="none", label=c) for c in corpora])
plots.legend_below(fig, legend)
plots.show(fig)

# %% [markdown]
# The verdict averages the logarithm of this ratio over each family's models, per corpus, $k$ and
# $N$, with a bootstrap interval over resampled windows (`emergence.amplification`). "Mean
# ratio" is the geometric mean of the ratio over the family's models; the interval is its
# bootstrap interval (empty where some model has no successful run, in the data or in some
# resample).

# %%
display(Markdown(pages.token_requirement(family_runs, "{numref}`fig-a4-independence`")))
amplification = []
for c in corpora:
    for fam, members in runs.by_family(family_runs[c]).items():
        measured = np.stack([counted[c, fam, run.name].success() for run in members])  # (models, N, k)
        ratio, bounds = emergence.amplification(measured, boot[c, fam], window_lengths, A4_LEVEL)
        for i, n in enumerate(window_lengths[1:], start=1):
            for j, k in enumerate(ks):
                amplification.append({"corpus": c, "family": fam, "k": k, "N": n, "models": len(members),
                                      "mean ratio": ratio[i, j], "interval low": bounds[i, j, 0],
                                      "interval high": bounds[i, j, 1]})
amplification = pd.DataFrame(amplification)
if len(amplification):
    ratios_seen = amplification["mean ratio"].dropna()
    display(Markdown(
        f"Headline numbers of the table below: the mean ratio of measured to predicted $-\\log p_{{N,k}}$ is "
        f"{plots.span_or_dash(ratios_seen, '.3f')} over the {len(ratios_seen)} of its {len(amplification)} rows that have one, "
        f"below 1 (successes clustering) in {int((ratios_seen < 1).sum())} of them."))

# %% tags=["hide-output"]
amplification.style.hide(axis="index").format(precision=3).set_caption(
    "Measured over predicted −log p_{N,k} per corpus, family, k and N ≥ 2: the geometric mean of the ratio over the "
    f"family's models, with its {A4_LEVEL:.0%} bootstrap interval (1 is independence, eq. 6).")

# %% [markdown]
# ## The S-shaped curve (paper A, eq. 8)
#
# On a linear probability axis, eq. 8 with a family's fitted token-level law gives the curves of
# {numref}`fig-a4-curves` for the first corpus: the success rate of an $N$-token task against
# size, extrapolated far beyond the measured models (the shaded strip, in the family's colour, is
# the range of sizes actually measured; points are the measured $p_{N,k}$). Written in
# $u = \ln S$, eq. 8 reads $p = \exp(-e^{\ln(CN) - \alpha u})$, a Gumbel curve whose width in
# $\ln S$ is set by $\alpha$ alone; $N$ moves it to larger sizes by $\ln N / \alpha$ without
# changing its shape. The size axis shows $\log_{10} S$, because a family with a shallow
# token-level law reaches these success rates only at sizes of hundreds of decades.

# %%
corpus = corpora[0]
widths = []
for c in corpora:
    for k in ks:
        for family in families:
            law = token_laws[c, family, k]
            if law is None or law.slope >= 0:
                continue
            for n in window_lengths:
                s_lo, s_hi = (fit.size_for_window_success(law, n, p) for p in A4_TRANSITION)
                widths.append({"corpus": c, "family": family, "k": k, "N": n, "alpha": -law.slope,
                               f"S at p={A4_TRANSITION[0]}": s_lo, f"S at p={A4_TRANSITION[1]}": s_hi,
                               "width (decades of S)": np.log10(s_hi / s_lo)})
widths = pd.DataFrame(widths, columns=["corpus", "family", "k", "N", "alpha", f"S at p={A4_TRANSITION[0]}",
                                      f"S at p={A4_TRANSITION[1]}", "width (decades of S)"])

# %% mystnb={"figure": {"caption": "Eq. 8 with each family's token-level power law on the first corpus, for several $N$ (lighter = longer runs), on a linear success axis (lines), with the measured $p_{N,k}$ (points) inside the measured size range (shaded). The size axis is $\\log_{10} S$, extrapolated far beyond the measured models.", "name": "fig-a4-curves"}}
fig, axes = plots.panels(1, len(ks), 3.0, sharey=True)
for ax, k in zip(axes[0], ks):
    falling = [fam for fam in families
               if token_laws[corpus, fam, k] is not None and token_laws[corpus, fam, k].slope < 0]
    ax.set(title=f"{corpus}, k = {k}")
    if not falling:
        ax.text(0.5, 0.5, "no falling\ntoken-level law", transform=ax.transAxes, ha="center", va="center")
    for family in falling:
        law, sizes = token_laws[corpus, family, k], sizes_of[corpus, family]
        color = plots.family_style(model_set, family)["color"]
        ax.axvspan(np.log10(sizes.min()), np.log10(sizes.max()), color=color, alpha=0.12)
        lo = fit.size_for_window_success(law, window_lengths[0], 0.01)
        hi = fit.size_for_window_success(law, window_lengths[-1], 0.99)
        with np.errstate(over="ignore"):  # a shallow law reaches these rates beyond floating point
            span = np.log10([max(1.0, min(lo, sizes.min())), min(max(hi, sizes.max()), 1e300)])
        log_sizes = np.linspace(*span, 400)
        for n in window_lengths:
            ax.plot(log_sizes, fit.predicted_window_success(law, 10.0**log_sizes, n), color=color, alpha=shade[n],
                    lw=1.2)
            pts = success[(success["corpus"] == corpus) & (success["family"] == family) & (success["k"] == k)
                          & (success["N"] == n)]
            ax.plot(np.log10(pts["S"]), pts["measured p_Nk"], linestyle="none", ms=3, alpha=shade[n],
                    **plots.family_style(model_set, family))
axes[0, len(ks) // 2].set_xlabel(r"$\log_{10}$ non-embedding parameters $S$ (extrapolated)")  # wider than one panel
axes[0, 0].set_ylabel("$p_{N,k}$ (linear axis)")
legend = (plots.family_handles(model_set, families)
          + [Line2D([], [], color="grey", alpha=shade[n], label=f"N = {n}") for n in window_lengths])
plots.legend_below(fig, legend, ncol=4)
plots.show(fig)

# %% [markdown]
# The curves are S-shaped, as the paper says, but they are the same S shifted along the size
# axis. How many orders of magnitude of model size the rise between the two success rates of
# `claims.A4_TRANSITION` takes depends only on the exponent (table below, first corpus): the
# smaller $\alpha$, the wider the span, and whether the rise looks sudden depends on how
# compressed the size axis is. On a linear size axis the span even widens with $N$, in
# proportion to $N^{1/\alpha}$, because the whole curve moves to larger sizes.

# %%
display(Markdown(pages.token_requirement({corpus: family_runs[corpus]}, "{numref}`fig-a4-curves`")))
here = widths[widths["corpus"] == corpus]
if len(here):
    display(Markdown(
        f"Headline numbers of the table below: on {corpus}, the rise from {A4_TRANSITION[0]:.0%} to "
        f"{A4_TRANSITION[1]:.0%} success spans {plots.span_or_dash(here['width (decades of S)'], '.2f')} decades of size, for "
        f"token-level exponents $\\alpha$ of {plots.span_or_dash(here['alpha'], '.3f')}."))

# %% tags=["hide-output"]
widths[widths["corpus"] == corpus].style.hide(axis="index").format(
    {"alpha": "{:.3f}", "width (decades of S)": "{:.2f}", f"S at p={A4_TRANSITION[0]}": "{:.3g}",
     f"S at p={A4_TRANSITION[1]}": "{:.3g}"}).set_caption(
    f"Where eq. 8 puts the rise of an N-token task on {corpus}, per family, k and N: the token-level exponent α, the "
    f"sizes S reaching {A4_TRANSITION[0]:.0%} and {A4_TRANSITION[1]:.0%} success, and the decades between them.")

# %% [markdown]
# ## Verdicts
#
# With small models the long runs are rare: for small models and small $k$ a run of many correct
# tokens may never occur in the evaluation text, and such cases cannot be fitted or bootstrapped;
# each verdict counts them apart. The rules are fixed in `rankscale.claims` and shown in the
# table. The power-law claim uses paper A's own $R^2$ bar. The same exponent for every $N$
# (eq. 7) is an equality, so it counts against the paper only where the bootstrap interval of the
# difference excludes zero. The $N$-fold amplification is read as the paper words it, "linearly
# amplified" and "align closely": a closeness, graded as every closeness claim of the book is
# (the ratio's interval inside `claims.A_CLOSE` holds, wholly outside fails, across an edge
# undetermined). The sharpening claim is a property of eq. 8 itself, checked with each family's
# fitted law but not counted as a replication (kind "analytic"); it fails whatever the data, and
# its row carries the derivation (a finding about the paper). Whether the measured points
# themselves trace an S (A4.5) is asked only of cases whose success rates cross eq. 8's
# inflection, $p = 1/e$: below it the curve is convex in $\ln S$ and above it concave, so points
# on one side show one arm of the S, not the S.

# %%
fitted_ratios = success.loc[success["N"] > 1, "-log measured / (N * -log RBP_k)"].dropna()
verdicts = [paper_a.a4_power_laws(sequence_fits, usable, unusable), paper_a.a4_same_exponent(fit_table, usable, unusable),
            paper_a.a4_amplified(amplification, fitted_ratios), paper_a.a4_sharpens(widths, corpus),
            paper_a.a4_sigmoid(success, sequence_fits, usable, unusable)]
measured = [f"Measured sequence success over N tokens is {fitted_ratios.min():.2f} to {fitted_ratios.max():.2f} times "
            "what N independent tokens would predict (−log p_{N,k} over N · −log RBP_k)."] if len(fitted_ratios) else []
table = pages.verdict_table("A4", verdicts, model_set.name, measured)

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("A4", table);  # the semicolon: the Markdown is displayed, not its text echoed
