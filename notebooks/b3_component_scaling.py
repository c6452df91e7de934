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
# # B3 · Which component scales?
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Paper B's central claim (§4) is that of the three components of cross-entropy only
# Error-Entropy follows a power law in model size, and that it does so even more cleanly than
# CE itself; Self-Alignment and Confidence do not scale. The paper shows it as log-log plots
# (Fig. 7) and with two tables: the $R^2$ of a power-law fit for each quantity (Table 1) and the
# distance of each component's exponent from CE's (Table 2), for the Qwen, Pythia and GPT-2
# families and for all 32 models pooled ("All").
#
# This chapter fits the same laws on the model set's families, each on its own and, where the
# set has more than one family, pooled as the paper pools them. Two statements of the paper
# outside its tables are tested too: that Self-Alignment trends upwards with size (§4.1), and
# that Self-Alignment and Confidence stay largely invariant (abstract), measured by how much of
# CE's change across a family each component carries. Components come from paper B's
# decomposition with the 0-based strict rank-based error $e$ = `gt`.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
n_boot = None  # bootstrap resamples (None: the model set's)
seed = 0

# %%
from matplotlib.lines import Line2D
from matplotlib.ticker import FormatStrFormatter, LogFormatter
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from rankscale import claims
from rankscale.analysis import bootstrap, components, fit, metrics, sample_size
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims.context import sample
from rankscale.claims import paper_b
from rankscale.records import runs

chapter = open_chapter(profile, corpora, seeds=True, n_boot=n_boot)
corpora, family_runs, n_boot = chapter.corpora, chapter.family_runs, chapter.n_boot
model_set, families, usable, unusable = chapter.model_set, chapter.families, chapter.usable, chapter.unusable
pooled_reason = chapter.pooled_reason
groups = families + ([fit.POOLED] if len(families) > 1 else [])
members_of = {**runs.by_family(family_runs[corpora[0]]), fit.POOLED: family_runs[corpora[0]]}
n_sizes = {g: len({r.non_embedding for r in members_of[g]}) for g in groups}
quantities = list(components.QUANTITIES)
display(Markdown(f"{n_boot} bootstrap resamples; size claims are tested on the families with at least "
                 f"{claims.MIN_SIZES} sizes: {', '.join(usable) or 'none'}"
                 + (f" (left out: {'; '.join(unusable)})" if unusable else "") + "."))

# %% [markdown]
# ## The fit (paper B, §4.2, eq. 9)
#
# For each quantity $M \in \{\mathrm{CE}, \mathrm{EE}, \mathrm{SA}, \mathrm{Conf}\}$ paper B
# fits $\log |M| = c_M + \alpha_M \log N$ by least squares across models, with $N$ the
# non-embedding parameter count, and reports the $R^2$ of that line and
# $|\Delta_M| = |\alpha_M - \alpha_{\mathrm{CE}}|$. The absolute value matters for Confidence,
# which can be negative; where it changes sign between models, $\log|\mathrm{Conf}|$ is not a
# smooth function of size and no power law can fit it.
#
# The paper fits each of its three families (Qwen, Pythia, GPT-2) on its own and all of them
# together ("All": one line through every model of every family). So does this chapter: one
# fit per family of the set and, where the set has more than one family, one pooled fit over
# every model. The pooled fit asks more than the per-family ones: a single line can only fit
# well if the families share not just the exponent but also the level, i.e. if models of equal
# size from different families have about the same value.
#
# Every model's evaluation tokens are resampled with replacement (`rankscale.analysis.bootstrap.resample`,
# with `rankscale.analysis.components.terms_vector` as the metric) and all four quantities are recomputed
# on each resample, so each replicate gives every fit's exponent and $R^2$ for every quantity at
# once (`rankscale.analysis.components.group_bootstrap`). Differences between quantities (an $R^2$ of EE
# minus that of CE, the gap of SA minus the gap of EE) are then computed replicate by replicate,
# so their spread is the spread of the differences themselves. Every interval of this chapter is
# the value measured on all tokens plus or minus 1.96 standard deviations of its replicates
# (`rankscale.analysis.bootstrap.interval`); why it is centred on the measured value is explained below
# the table of exponents.

# %%
full, replicates, boots, fits, values = {}, {}, {}, {}, {}
for corpus in corpora:
    members = family_runs[corpus]
    sizes = runs.sizes(members)
    samples = [sample(run, ["logp", "gt"]) for run in members]
    full[corpus] = np.array([components.terms_vector(s) for s in samples])  # (models, 4)
    replicates[corpus] = bootstrap.resample(  # (n_boot, models, 4), each seeded size's runs drawn in turn
        samples, components.terms_vector, n_boot, seed,
        seeds=chapter.seed_samples(corpus, members, ["logp", "gt"]))
    index = {g: [i for i, run in enumerate(members) if g == fit.POOLED or run.family == g] for g in groups}
    boots[corpus] = {g: components.group_bootstrap(sizes[idx], full[corpus][idx], replicates[corpus][:, idx])
                     for g, idx in index.items() if len(np.unique(sizes[idx])) > 1}
    fits[corpus] = {g: {q: p for q, p in zip(quantities, b.points) if p is not None} for g, b in boots[corpus].items()}
    values[corpus] = pd.DataFrame([{"family": run.family, "model": run.name, "size": float(run.non_embedding),
                                    **dict(zip(quantities, full[corpus][i]))}
                                   for i, run in enumerate(members)])


class MinorLabels(LogFormatter):
    """Matplotlib's choice of which minor ticks of a log axis to label (all on a narrow panel,
    a few on a wider one, none over decades), written as plain numbers."""

    def __call__(self, x, pos=None):
        return f"{x:.3g}" if super().__call__(x, pos) else ""


def fitted(corpus, group, quantity):
    """The fit of one group (family or "All"), or None where the group has too few sizes."""
    return fits[corpus].get(group, {}).get(quantity)


# %% [markdown]
# ## Component against size (paper B, §4.1, Fig. 7)
#
# {numref}`fig-b3-components` has one row per quantity and one column per corpus, on log-log
# axes of $|M|$ against non-embedding parameters, the panels of the paper's Fig. 7 with its rows
# and columns swapped. The legends give each fit's exponent $\alpha_M$ and $R^2$; a family with
# fewer than three sizes shows its exponent only, since the $R^2$ of a line through two points is
# 1 by construction.

# %% mystnb={"figure": {"caption": "Paper B, Fig. 7 analogue: $|M|$ against non-embedding parameters, one row per quantity ($M$ = CE, EE, SA and Conf) and one column per corpus. Each family has its colour and marker (as in every chapter) and its fitted power law (solid); the dashed black line is the pooled fit over every model (“All”). Each panel's legend gives every fit's exponent α, then its R². Open markers are models whose value is negative, drawn at its absolute value.", "name": "fig-b3-components"}}
def fit_label(group, f):
    """A fit's entry in its panel's legend: exponent α and R², or why it has no R² (short, to fit in the panel)."""
    if f is None:
        return "one size, no fit"
    if n_sizes[group] < claims.MIN_SIZES:
        return f"{f.slope:+.3f} ({n_sizes[group]} sizes)"
    return f"{f.slope:+.3f}, R² {f.r2:.2f}"


def legend_above_data(ax, share):
    """Raise the top of a log y axis so that the data fill its lower part only, and put the panel's
    legend in the room left above them, where it covers none."""
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * (high / low) ** (share / (1 - share)))
    ax.legend(loc="upper center", borderaxespad=0.2, borderpad=0.3, labelspacing=0.2, handlelength=1.0,
              handletextpad=0.4)


fig, axes = plots.corpus_panels(corpora, 2.5, rows=len(quantities), sharex=True)
for column, corpus in zip(axes.T, corpora):
    table = values[corpus]
    for ax, quantity in zip(column, quantities):
        for family in families:
            part = table[table.family == family]
            f = fitted(corpus, family, quantity)
            plots.size_plot(ax, model_set, family, part["size"], part[quantity].abs(), f, label=fit_label(family, f))
            negative = part[part[quantity] < 0]
            style = plots.family_style(model_set, family)
            ax.plot(negative["size"], negative[quantity].abs(), linestyle="none", marker=style["marker"],
                    color=style["color"], markerfacecolor="white")
        pooled = fitted(corpus, fit.POOLED, quantity)
        if pooled:
            grid = np.geomspace(table["size"].min(), table["size"].max(), 50)
            ax.plot(grid, pooled.predict(grid), "--", color="black", lw=1, label=fit_label(fit.POOLED, pooled))
        ax.yaxis.set_major_formatter(FormatStrFormatter("%.3g"))
        ax.yaxis.set_minor_formatter(MinorLabels(labelOnlyBase=False, minor_thresholds=(1, 0.5)))
        legend_above_data(ax, 0.35)
for ax, quantity in zip(axes[:, 0], quantities):
    ax.set_ylabel(f"|{quantity}| (nats)")
plots.size_axes(axes)
pooled_handle = [Line2D([], [], color="black", ls="--", lw=1, label="All (pooled fit)")] if len(families) > 1 else []
plots.legend_below(fig, plots.family_handles(model_set, families, ls="none") + pooled_handle)
plots.show(fig)

# %% [markdown]
# In paper B's Fig. 7 the CE and EE panels of its 16 models (from several families, drawn
# together) fall on nearly straight lines, SA drifts upwards and Confidence scatters. Here
# every model is measured on the same held-out tokens of a corpus, so differences between
# models of one tokenizer are not sampling noise of the text, but SA and Confidence are small
# numbers and, as [chapter B5](b5_sample_size) shows, their estimates carry a bias that depends on the model.

# %%
display(Markdown(
    f"Paper B evaluates each model on {claims.B5_PAPER_INSTANCES[0]:,} instances (documents cut to their first "
    "512 tokens) per dataset (its App. A.2); this set evaluates every model on "
    + ", ".join(f"{'/'.join(f'{n:,}' for n in sorted({sample_size.n_windows(r.records.window) for r in family_runs[c]}))} "
                f"windows ({'/'.join(f'{n:,}' for n in sorted({len(r.records) for r in family_runs[c]}))} tokens) "
                f"of {c}" for c in corpora)
    + ". Chapter B5 shows what that number means for each quantity."))

# %% [markdown]
# ## Fit quality (paper B, Table 1)
#
# Our $R^2$ in the layout of the paper's Table 1, a row per family and the pooled row "All",
# then the paper's own Table 1 (its values, read from the reference tables). A family with
# fewer than three sizes has no $R^2$ here ("—"): a line through two points fits them
# exactly. The corpora differ: the paper uses Wikipedia, C4 and the GitHub part of the Pile; the
# offline sets use Python documentation (`pydocs`, prose with code), standard-library sources
# (`stdlib`, code) and HumanEval (`humaneval`, code); the header names this set's. With few
# models a high $R^2$ is easy to get and a low one is informative.
#
# A note for readers of the paper: its §4.2 quotes Confidence values for the pooled fits
# (0.1002, 0.0625, 0.2116) as $R^2$; those numbers are the "All" row of its Table 2 (exponent
# gaps). The pooled $R^2$ of Confidence in its Table 1 are the ones shown below.

# %%
row_label = {g: f"{g} ({len(members_of[g])} models{', pooled' if g == fit.POOLED else ''})" for g in groups}
table1 = pd.DataFrame({(c, q): [fitted(c, g, q).r2 if fitted(c, g, q) and n_sizes[g] >= claims.MIN_SIZES
                                else np.nan for g in groups] for c in corpora for q in quantities},
                      index=pd.Index([row_label[g] for g in groups], name="R²"))
display(table1.style.format("{:.4f}", na_rep="—").set_caption(
    "Ours: R² of the log-log fit of |M| against size, per family and pooled (rows) and per corpus and quantity "
    f"(columns); a dash where a family has fewer than {claims.MIN_SIZES} sizes."))
paper_r2 = pages.reference_table("ce_paper_table1_r2")
paper_table1 = paper_r2.pivot(index="family", columns=["dataset", "component"], values="r2")
paper_families = ["Qwen", "Pythia", "GPT2"]
paper_table1 = paper_table1.loc[[*paper_families, "All"], [(d, q) for d in ["Wikipedia", "C4", "GitHub"]
                                                           for q in quantities]]
display(paper_table1.style.format("{:.4f}").set_caption(
    "Paper B's Table 1 (the paper's values, 32 hub models): R² of the log-log fit of |M| against size, per family "
    "and pooled (rows) and per dataset and quantity (columns)."))

# %% [markdown]
# ## Exponent gaps (paper B, Table 2)
#
# $|\Delta_M| = |\alpha_M - \alpha_{\mathrm{CE}}|$: how far each component's exponent is from
# CE's. A component that carries CE's scaling has a small gap. Exponents of a family with two
# sizes are shown but, like their $R^2$, not graded.

# %%
table2 = pd.DataFrame({(c, q): [components.exponent_gaps(fits[c][g]).get(q, np.nan) if g in fits[c] else np.nan
                                for g in groups] for c in corpora for q in metrics.COMPONENTS},
                      index=pd.Index([row_label[g] for g in groups], name="|Δ|"))
display(table2.style.format("{:.4f}", na_rep="—").set_caption(
    "Ours: the exponent gap |α_M − α_CE| of each component, per family and pooled (rows) and per corpus and "
    "component (columns); a dash where there is no fit."))
paper_delta = pages.reference_table("ce_paper_table2_delta")
paper_table2 = paper_delta.pivot(index="family", columns=["dataset", "component"], values="abs_delta_exponent")
paper_table2 = paper_table2.loc[[*paper_families, "All"], [(d, q) for d in ["Wikipedia", "C4", "GitHub"]
                                                           for q in metrics.COMPONENTS]]
display(paper_table2.style.format("{:.4f}").set_caption(
    "Paper B's Table 2 (the paper's values): the exponent gap |α_M − α_CE| per family and pooled (rows) and per "
    "dataset and component (columns)."))

# %% [markdown]
# ## Have the exponents converged? ([chapter B5](b5_sample_size)'s check)
#
# A plug-in estimate of SA or Confidence depends on how many evaluation tokens it is computed
# from, and by a different amount for each model ([chapter B5](b5_sample_size)). An exponent fitted to such
# estimates can then describe the sample rather than the models: a weak model's SA is
# inflated more than a strong model's on the same tokens, which tilts the line. [Chapter B5](b5_sample_size)
# measures this by subsampling whole windows; this chapter runs the same check
# (`rankscale.analysis.sample_size.convergence_by_group`, with the settings of `rankscale.claims`):
# every model's quantities are recomputed on nested subsamples of whole windows, from a few
# windows up to all of them, each group's exponent is refitted on every subsample, and the
# exponent counts as converged at the evaluated token count if its mean moved by at most a
# fixed fraction of $|\alpha_{\mathrm{CE}}|$ over the last doubling of the tokens (stated below).
# A verdict that reads SA's exponent uses only the groups where it has converged; the verdicts
# that compare exponents widen their intervals by this drift instead.

# %%
display(Markdown(f"Subsamples: {claims.B5_N_REPEATS} random orders of the windows, {claims.B5_N_GRID} token counts "
                 f"from {claims.B5_MIN_TOKENS:,} to every token; allowed drift over the last doubling: "
                 f"{claims.B5_EXPONENT_TOLERANCE} × $|\\alpha_{{\\mathrm{{CE}}}}|$ of the same fit."))
convergence = {}
for corpus in corpora:
    members = family_runs[corpus]
    index = {g: [i for i, run in enumerate(members) if g == fit.POOLED or run.family == g]
             for g in boots[corpus]}
    convergence[corpus] = sample_size.convergence_by_group(
        runs.sizes(members), [run.records for run in members], index, min_tokens=claims.B5_MIN_TOKENS,
        n_grid=claims.B5_N_GRID, n_repeats=claims.B5_N_REPEATS, tolerance=claims.B5_EXPONENT_TOLERANCE, seed=seed)
conv_table = pd.DataFrame([{"corpus": c, "fit": g, "quantity": f"α_{q}", "exponent": v.full,
                            "drift over the last doubling": v.error, "allowed": v.tolerance,
                            "converged": "yes" if v.converged else "no"}
                           for c in corpora for g, by_q in convergence[c].items() for q, v in by_q.items()])
if len(conv_table):
    converged_of = conv_table.groupby("quantity", sort=False)["converged"].agg(
        lambda c: f"{(c == 'yes').sum()} of {len(c)}")
    display(Markdown(
        f"Headline numbers of the table below: {int((conv_table['converged'] == 'yes').sum())} of its "
        f"{len(conv_table)} exponents have converged at the evaluated token count ("
        + ", ".join(f"{q}: {text}" for q, text in converged_of.items()) + ")."))

# %% tags=["hide-output"]
display(conv_table.style.format({"exponent": "{:+.4f}", "drift over the last doubling": "{:.4f}",
                                 "allowed": "{:.4f}"}).hide(axis="index").set_caption(
    "Whether each exponent has converged, per corpus, fit and quantity: the exponent on every token, how far its mean "
    "moved over the last doubling of the tokens, and the drift allowed."))

# %% [markdown]
# ## Exponents with bootstrap intervals
#
# The paper gives no uncertainty for its exponents. Ours come with 95% intervals from
# resampling each model's evaluation tokens: the exponent on all tokens plus or minus 1.96
# standard deviations of its replicates. Tokens of one text are correlated, so these intervals
# understate the uncertainty due to the choice of text; they do show which slopes are
# distinguishable from zero on this sample. The last column but one is the mean of the
# replicates, for the reason given under the table.

# %%
rows = []
for corpus in corpora:
    for group in groups:
        for quantity in quantities:
            f = fitted(corpus, group, quantity)
            if f is None:
                continue
            rows.append({"corpus": corpus, "fit": group, "sizes": n_sizes[group], "quantity": f"|{quantity}|",
                         "exponent α": f.slope,
                         "95% interval": f"[{f.ci[0]:+.4f}, {f.ci[1]:+.4f}]" if f.ci else "—",
                         "R²": f.r2 if n_sizes[group] >= claims.MIN_SIZES else np.nan,
                         "mean of the replicates": np.mean(boots[corpus][group].slopes[quantities.index(quantity)]),
                         "converged": "yes" if convergence[corpus][group][quantity].converged else "no"})
exponents = pd.DataFrame(rows)
if len(exponents):
    by_quantity = exponents.groupby("quantity", sort=False)["exponent α"]
    display(Markdown(
        "Headline numbers of the table below, the exponent α over its "
        f"{exponents[['corpus', 'fit']].drop_duplicates().shape[0]} corpus and fit pairs: "
        + "; ".join(f"{q} {plots.span(a, '+.3f')}" for q, a in by_quantity) + "."))

# %% tags=["hide-output"]
display(exponents.style.format({"exponent α": "{:+.4f}", "R²": "{:.3f}", "mean of the replicates": "{:+.4f}"},
                               na_rep="—").hide(axis="index").set_caption(
    f"Each fit's exponent α of |M| against size, per corpus, fit and quantity, with its {bootstrap.LEVEL:.0%} "
    f"interval, R² (where {claims.MIN_SIZES} or more sizes), the mean of the replicates, and whether it converged."))

# %% [markdown]
# **Why the intervals are centred on the measured value (Self-Alignment especially).** A
# percentile interval, read off the sorted replicates, assumes that a statistic computed on a
# resample scatters around the statistic of the original sample. For CE, a plain mean, it does.
# Self-Alignment is a plug-in Kullback-Leibler divergence over hundreds or thousands of RBE
# groups, many of them holding one or two targets; such estimators are biased upwards, and their
# bias depends on how many rarely seen groups there are. A resample with replacement keeps only
# about 63% of the distinct tokens, so the group counts change systematically: the resampled SA
# values are not centred on the original SA, and because weaker models spread their targets
# over more ranks, the shift differs between models and moves the fitted slope as well (compare
# the exponent with the mean of its replicates above). Percentiles of the replicates would then
# describe the slope of the *resampled* estimator and can miss the measured one entirely.
# Confidence is affected in the same way through the per-group geometric means, and near zero
# the logarithm of its absolute value magnifies any shift. So the book takes from the
# replicates only their spread, the noise of the resampling, and centres every interval on the
# value measured on all tokens. The bias itself is not noise that more resamples would average
# away: it shrinks only with more evaluation tokens, which is what the convergence check
# measures, and the verdicts below allow for it.
#
# ## How much of CE's change each component carries
#
# $R^2$ and exponents of $\log|M|$ say whether a component follows a power law, not how much
# it moves: SA can fit a line perfectly while changing by a hundredth of a nat. Because
# CE = EE + SA − Conf, the change of CE from a family's smallest to its largest model splits
# exactly into the changes of EE, SA and −Conf; their shares $\Delta\mathrm{EE}/\Delta\mathrm{CE}$,
# $\Delta\mathrm{SA}/\Delta\mathrm{CE}$ and $-\Delta\mathrm{Conf}/\Delta\mathrm{CE}$ add up to 1
# (`rankscale.analysis.components.change_shares`). If only EE scales, its share is close to 1 and the
# others close to 0; a negative share is a component moving against CE (SA rising while CE
# falls, as paper B's Fig. 7 shows). Intervals are from the same resamples as above, centred on
# the shares measured on all tokens.

# %%
shares, share_intervals, delta_ce = {}, {}, {}
for corpus in corpora:
    members = family_runs[corpus]
    for family in families:
        idx = [i for i, run in enumerate(members) if run.family == family]
        if len({members[i].non_embedding for i in idx}) < 2:
            continue
        first, last = min(idx, key=lambda i: members[i].non_embedding), max(idx, key=lambda i: members[i].non_embedding)
        shares[corpus, family] = components.change_shares(full[corpus][first], full[corpus][last])
        share_boot = components.change_shares(replicates[corpus][:, first], replicates[corpus][:, last])
        share_intervals[corpus, family] = {q: bootstrap.interval(shares[corpus, family][q], share_boot[q])
                                           for q in metrics.COMPONENTS}
        delta_ce[corpus, family] = full[corpus][last, 0] - full[corpus][first, 0]
change_table = pd.DataFrame([{"corpus": c, "family": fam, "ΔCE (nats)": delta_ce[c, fam],
                              **{f"{q} share":
                                 f"{shares[c, fam][q]:+.3f} {bootstrap.interval_text(share_intervals[c, fam][q])}"
                                 for q in metrics.COMPONENTS}}
                             for c, fam in shares])
display(change_table.style.format({"ΔCE (nats)": "{:+.4f}"}).hide(axis="index").set_caption(
    "How CE's change from each family's smallest to its largest model splits, per corpus: ΔCE (nats) and the share of "
    f"it each component carries, with its {bootstrap.LEVEL:.0%} interval; the shares sum to 1."))

# %% [markdown]
# ## Verdicts
#
# Each rule is fixed in `rankscale.claims` (shown in the table) and decided by a function of
# `rankscale.claims.paper_b` from the fits above: *reproduced* if it holds on every unit tested,
# *partly* on some, *not reproduced* on none. Units are (corpus, family) pairs of families with at
# least three sizes and, where a rule says so, the pooled fit of each corpus.
#
# - *Intervals.* Every interval is the value on all tokens plus or minus 1.96 standard
#   deviations of its replicates over the paired token resamples above
#   (`rankscale.analysis.bootstrap.interval`): the replicates give the resampling noise, not the centre,
#   since the plug-in components are biased and the resamples sit to one side of the value. An
#   interval of an $R^2$ can reach above 1, the most an $R^2$ can be; only its lower end enters
#   the rules that use it.
# - *How an interval decides* (`rankscale.analysis.bootstrap.side`, `rankscale.analysis.bootstrap.within`). A
#   claim that a difference or a direction exists (EE fits *better* than CE, EE's exponent is the
#   closest, SA rises, an $R^2$ reaches the threshold) needs the whole interval on its side. A
#   claim of parity (SA and Confidence stay *largely invariant*) fails only when the whole
#   interval lies on the other side, since it claims that no difference shows.
# - *Convergence.* A rule waits for convergence only where it reads a converged quantity: the
#   rule that SA rises reads SA's exponent, so it is tested only where that exponent has stopped
#   drifting as tokens are added (above). The rules that compare exponents (EE's the closest to
#   CE's, SA's the farthest) widen each interval by the two exponents' drift over the last
#   doubling of the tokens instead, so the comparison has to hold beyond both the resampling
#   noise and what more tokens could still change. Rules on an $R^2$ or on shares of CE's change
#   read no exponent and are applied everywhere.
#
# The paper's column counts the same conditions on the cells of its own tables (its point
# values: the paper gives no intervals).

# %%
def paper_cells(condition, rows=paper_families) -> str:
    r2 = paper_table1.loc[rows].stack(level=0, future_stack=True)
    gap = paper_table2.loc[rows].stack(level=0, future_stack=True)
    hits = int(condition(r2, gap).sum())
    what = ("family-dataset cells" if "All" not in rows else "cells, All row included") if len(rows) > 1 \
        else f"datasets ({rows[0]} row)"
    return f"{hits}/{len(r2)} {what}"


family_units = [(c, fam) for c in corpora for fam in usable]
pooled_units = [(c, fit.POOLED) for c in corpora] if pooled_reason is None else []
unit = {(c, g): paper_b.ComponentUnit(f"{c}/{g}", boots[c][g], convergence[c][g], shares.get((c, g)),
                                      share_intervals.get((c, g)))
        for c, g in family_units + pooled_units}
by_family = [unit[u] for u in family_units]
every = [unit[u] for u in family_units + pooled_units]
pooled = [unit[u] for u in pooled_units]
pooled_paper = ", ".join(f"{d} {paper_table1.loc['All', (d, 'EE')]:.2f}" for d in ["Wikipedia", "C4", "GitHub"])
all_rows = [*paper_families, "All"]
verdicts = [
    paper_b.ee_law("B3.1", by_family, untested=unusable,
                   paper=f"R² ≥ {claims.B3_LAW_R2} in {paper_cells(lambda r, g: r['EE'] >= claims.B3_LAW_R2)}"),
    paper_b.ee_fits_better(every, untested=unusable,
                           paper=f"R²_EE > R²_CE in {paper_cells(lambda r, g: r['EE'] > r['CE'], all_rows)}"),
    paper_b.no_law("B3.3", "SA", by_family, untested=unusable,
                   paper=f"R² below {claims.B3_NO_LAW_R2} in "
                         f"{paper_cells(lambda r, g: r['SA'] < claims.B3_NO_LAW_R2)}"),
    paper_b.no_law("B3.4", "Conf", pooled, why_not=pooled_reason or "",
                   paper=f"R² below {claims.B3_NO_LAW_R2} in "
                         f"{paper_cells(lambda r, g: r['Conf'] < claims.B3_NO_LAW_R2, ['All'])}"),
    paper_b.ee_closest(every, untested=unusable,
                       paper=f"smallest |Δ| in "
                             f"{paper_cells(lambda r, g: (g['EE'] < g['SA']) & (g['EE'] < g['Conf']), all_rows)}"),
    paper_b.sa_farthest(every, untested=unusable,
                        paper=f"largest |Δ| in "
                              f"{paper_cells(lambda r, g: (g['SA'] > g['EE']) & (g['SA'] > g['Conf']), all_rows)}"),
    paper_b.ee_law("B3.7", pooled, why_not=pooled_reason or "",
                   paper=f"R²_EE ≥ {claims.B3_LAW_R2} in "
                         f"{paper_cells(lambda r, g: r['EE'] >= claims.B3_LAW_R2, ['All'])}: " + pooled_paper),
    paper_b.sa_rises(every, untested=unusable, paper="upward trend (Fig. 7, 16 models of several families; qualitative)"),
    paper_b.sa_conf_invariant(by_family, untested=unusable, paper="“remain largely invariant” (qualitative)"),
    paper_b.conf_unstable(by_family, untested=unusable,
                          paper="R² " + plots.span(paper_table1.loc[paper_families].xs("Conf", axis=1, level=1)
                                                   .to_numpy().ravel(), ".2f")
                                + f" across {len(paper_families) * 3} family-dataset cells"),
]
first = corpora[0]
measured = [f"On {first}, " + "; ".join(
    f"{g}: α_CE {fitted(first, g, 'CE').slope:+.3f} and α_EE {fitted(first, g, 'EE').slope:+.3f}, R² of EE "
    f"{fitted(first, g, 'EE').r2:.2f} against CE's {fitted(first, g, 'CE').r2:.2f}" for g in usable) + "."] if usable else []
table = pages.verdict_table("B3", verdicts, model_set.name, measured)

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B3", table);  # the semicolon: the Markdown is displayed, not its text echoed
