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
# # A5 · Lognormal ranks and the link to cross-entropy
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Paper A closes (section 5.2, Fig. 8, appendix C) with a puzzle and a conjecture. The puzzle:
# CE looks only at the probability of the correct token and RBP$_1$ only at whether it ranks
# first, yet in the paper's fits $-\log \mathrm{RBP}_1$ and CE fall with model size at nearly the
# same rate (Fig. 8a). The conjecture: both follow from the distribution of the correct token's
# rank $R$. If $R$ is lognormally distributed,
#
# $$\Pr(R = r) = p_r = \frac{\psi(r)}{c(\mu,\sigma)}, \qquad
#   \psi(x) = \frac{1}{\sqrt{2\pi}\,\sigma x}\exp\!\Big(-\frac{(\ln x-\mu)^2}{2\sigma^2}\Big),
#   \qquad c = \sum_{r\ge1}\psi(r)$$
#
# (eqs. 9-11), with $\mu$ and $\sigma$ drifting with model size, and if a model's probability for
# a target at rank $r$ equals $p_r$, then $-\log p_1$ and the cross-entropy
# $\mathrm{CE} = -\sum_r p_r \log p_r$ (the entropy of the rank distribution) are both functions
# of $(\mu, \sigma)$ (eqs. 16-17). Appendix C approximates the sums by integrals to get closed
# forms (eqs. 18-21) and argues that one term dominates both quantities as models grow, which
# would explain the shared exponent. The review version of the paper adds that $\mu/\sigma$
# changes steadily with size (its Fig. 8d).
#
# The lognormal can be fitted in three ways, and they are not the same model:
#
# - **the authors' fit**: paper A's released code fits the ranks with the `powerlaw` package
#   (`powerlaw.Fit(ranks, discrete=True, xmin=1)`), whose discrete lognormal gives rank $r$ the
#   continuous density's mass on $[r - \tfrac12, r + \tfrac12)$, and puts the fitted
#   $(\mu, \sigma)$ into eq. 21 (`rank_models.fit_authors`);
# - **eq. 10 as written**: probability proportional to $\psi(r)$ at each integer rank, normalised
#   by the sum over ranks 1 to infinity (eq. 11), the model appendix C derives its closed forms
#   for (`rank_models.fit_lognormal_eq10`);
# - **eq. 10 over 1..V**: the same point form normalised over the vocabulary's ranks 1 to $V$,
#   the only ranks that can occur (`rank_models.fit_lognormal_ranks`); its predictions are exact
#   sums over those ranks, since appendix C's integrals run to infinity.
#
# This chapter fits all three on every model of every family of the model set, each family on its
# own, and tests each step of the argument with each fit: the lognormal shape of the rank
# distribution against a power law fitted on the same support, how $\mu$ and $\sigma$ move with
# size, the CE and $-\log p_1$ the fitted lognormals predict against the measured ones, and the
# appendix's approximations against the exact sums. The paper's Fig. 8c shows the rank
# distribution of real pretrained models (Pythia); where the model set has a *reference* model, a
# real pretrained model outside every family, its rank distribution and fits are shown beside the
# families' as the closest analogue. Ranks follow paper A's eq. 3 (`ge` convention); the
# authors' code counts ties in the target's favour instead, which changes almost nothing
# ([chapter A1](a1_metric)). Every threshold of the verdicts is fixed in `rankscale.claims.a5`.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
n_bins = 30  # logarithmic bins for drawing rank histograms
mu_range = [-16.0, 8.0]  # (mu, sigma) grid of the appendix-C map (a figure only), widened to cover the fits
sigma_range = [0.5, 7.0]
grid_points = 25

# %%

import numpy as np
from IPython.display import Markdown, display
from matplotlib.lines import Line2D
from myst_nb import glue

from rankscale.analysis import bootstrap, fit, rank_models
from rankscale.analysis.rank_models import FORMS
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import A5_APPROX_TOLERANCE, a5
from rankscale.records import runs

LABEL, SHORT = a5.A5_FORM_LABELS, a5.FORM_SHORT

chapter = open_chapter(profile, corpora, spec=a5.SPEC)
model_set, corpora, context = chapter.model_set, chapter.corpora, chapter.context(*a5.SPEC.tables)
evidence = a5.measure(chapter, context)  # every fit and bootstrap of the chapter
fits, reference_fits = evidence.fits, evidence.reference_fits
families, references = chapter.families, chapter.reference_runs[corpora[0]]
glue("a5_left_out", Markdown("; ".join(context.unusable()) or "none"), display=False)
glue("a5_references", Markdown(", ".join(run.name for run in references) or "none on this set"), display=False)
glue("a5_n_boot", context.n_boot, display=False)

# %% [markdown]
# Size claims are tested only on families with at least three sizes; left out:
# {glue:md}`a5_left_out:myst`. Reference models, shown beside the families and outside every size
# fit: {glue:md}`a5_references:myst`. Every bootstrap interval rests on {glue:text}`a5_n_boot`
# resamples of the evaluation documents, the same documents for every model of a family.

# %% [markdown]
# ## Are the ranks lognormal? (paper A, Fig. 8c)
#
# For every model and corpus the rank histogram (ranks 1 to the model's vocabulary size) is
# fitted by maximum likelihood in the three ways above, and each fit is compared with a power law
# $p_r \propto r^{-\alpha}$ fitted on the same support: the authors' fit with the `powerlaw`
# package's own power law and comparison (as their code does), eq. 10 as written with the same
# unbounded power law, and the 1..V fit with the power law over 1..V. Vuong's statistic $z$ says
# whether the lognormal's advantage stands out from token-to-token noise (positive $z$ favours
# the lognormal), and the Kolmogorov-Smirnov distance (largest gap between the fitted and
# empirical cumulative distributions over ranks 1..V) says how close each model comes in
# absolute terms; an unbounded fit that puts mass beyond the vocabulary pays for it there. A fit
# whose median runs far below rank 1 (almost all targets at rank 1 with a heavy tail) is
# degenerate: its $(\mu, \sigma)$ are set by the far tail alone (`rank_models.degeneracy`) and are
# reported as such, not as numbers. Nor is its Vuong $z$: such a lognormal is a power law in all but
# name, so the test weighs two nearly equal curves and its sign is numerical noise; a degenerate fit
# counts for neither form. {numref}`fig-a5-ranks` shows every family's models on the first corpus,
# family by family.

# %%
corpus = corpora[0]
by_family = runs.by_family(chapter.family_runs[corpus])
family_models = [run for members in by_family.values() for run in members]  # family by family, smallest first

# %% mystnb={"figure": {"caption": "Rank distribution of the correct token (`ge` ranks) for each model of each family on the first corpus, family by family: measured frequencies averaged over logarithmic bins (points, in the family's colour), the three fitted lognormals (solid: the authors' fit; dashed: eq. 10 as written; dotted: eq. 10 over 1..V) and the power law over 1..V (grey), whose exponent $\\alpha$ each panel gives; the fitted $\\mu$ and $\\sigma$ are in the table below. A power law is a straight line on these axes; the lognormal can bend.", "name": "fig-a5-ranks"}}
rows = -(-len(family_models) // plots.MOST_ACROSS)
fig, axes = plots.panels(rows, plots.MOST_ACROSS, 2.2, sharex=True, sharey=True)
for ax, run in zip(axes.flat, family_models):
    plots.rank_distribution(ax, evidence.rank_fits[corpus, run.family, run.name], n_bins,
                            plots.family_style(model_set, run.family), f"{run.family}: {run.name}")
plots.label_bottom(axes, len(family_models), "rank $r$ (ge)")
fig.supylabel("fraction of targets per rank")
fig.suptitle(f"rank distributions on {corpus}")
plots.legend_below(fig, plots.family_handles(model_set, families, ls="none") + plots.rank_fit_handles(LABEL), ncol=2)
plots.show(fig)

# %% [markdown]
# Every fit, reference models included (family "reference"); "mass beyond V" is the share of the
# fitted distribution on ranks the vocabulary does not have:

# %%
display(Markdown(pages.token_requirement({corpus: chapter.family_runs[corpus]}, "{numref}`fig-a5-ranks`")))
authors_fits = fits[(fits["fit"] == "powerlaw") & (fits["degenerate"] == "")]
glue("a5_n_fits", len(fits), display=False)
glue("a5_n_forms", len(FORMS), display=False)
glue("a5_n_degenerate", int((fits["degenerate"] != "").sum()), display=False)
for name, column, fmt in (("ks_lognormal", "KS lognormal", ".3f"), ("ks_power_law", "KS power law", ".3f"),
                          ("mu_sigma", "mu/sigma", ".2f")):
    glue(f"a5_authors_{name}", Markdown(bootstrap.span_or_dash(authors_fits[column], fmt)), display=False)

# %% [markdown]
# Headline numbers of the table below: {glue:text}`a5_n_fits` fits, {glue:text}`a5_n_forms` per
# model and corpus, {glue:text}`a5_n_degenerate` of them degenerate. With the authors' fit
# (powerlaw package), the lognormal's KS distance is {glue:md}`a5_authors_ks_lognormal:myst` against
# {glue:md}`a5_authors_ks_power_law:myst` for the power law, and $\mu/\sigma$ is {glue:md}`a5_authors_mu_sigma:myst`.

# %% tags=["hide-output"]
fits[["corpus", "family", "model", "V", "fit", "mu", "sigma", "mu/sigma", "mass beyond V", "Vuong z",
            "Vuong p", "KS lognormal", "KS power law", "degenerate"]].style.hide(axis="index").format(
    precision=3, subset=["mu", "sigma", "mu/sigma", "mass beyond V", "Vuong z", "KS lognormal", "KS power law"]
).format("{:.2g}", subset=["Vuong p"]).format("{:,}", subset=["V"]).set_caption(
    "Every lognormal fit of the rank distribution, per model, corpus and form: μ, σ, their ratio, the mass beyond "
    "rank V, the Vuong test against a power law (z, p), both KS distances, and why a fit is degenerate.")

# %% [markdown]
# ## A real pretrained model beside the families
#
# Paper A's Fig. 8c fits the rank distributions of Pythia models, trained on hundreds of billions
# of tokens; small families trained briefly may rank targets differently. A model set can name
# *reference* models: real pretrained models that belong to no family. They are fitted here
# exactly like the families' models, in the same three ways, each over its own vocabulary, and
# kept out of every fit against size: a reference model was trained elsewhere, with its own
# tokenizer and training data, and may be stored at another precision (quantised), so its
# parameter count does not place it on any family's line.

# %%
display(Markdown(a5.reference_text(chapter)))

# %% mystnb={"figure": {"caption": "The reference model's rank distribution on each corpus with its three fitted lognormals and the power law, in the layout of {numref}`fig-a5-ranks`; last, its measured distribution on the first corpus (black stars) beside that of each family's largest model, on absolute ranks (the vocabularies may differ).", "name": "fig-a5-reference"}}
if references:
    per_reference = len(corpora) + 1  # a panel per corpus, then the comparison with the families
    fig, axes = plots.panels(-(-per_reference * len(references) // 2), 2, 2.8, sharex=True, sharey=True)
    for i, run in enumerate(references):
        ref_axes = axes.flat[i * per_reference:(i + 1) * per_reference]
        for ax, c in zip(ref_axes, corpora):
            plots.rank_distribution(ax, evidence.rank_fits[c, None, run.name], n_bins,
                                    plots.family_style(model_set, None), f"{run.name}\n{c}")
        ax = ref_axes[-1]
        for family, members in by_family.items():
            centres, freq = rank_models.log_binned_frequency(evidence.rank_fits[corpus, family, members[-1].name].counts,
                                                             n_bins)
            ax.plot(centres, freq, "-", lw=0.8, ms=3, **plots.family_style(model_set, family))
        centres, freq = rank_models.log_binned_frequency(evidence.rank_fits[corpus, None, run.name].counts, n_bins)
        ax.plot(centres, freq, "-", lw=0.8, ms=5, **plots.family_style(model_set, None))
        ax.set_title(f"largest models\n{corpus}")
    plots.label_bottom(axes, per_reference * len(references), "rank $r$ (ge)")
    fig.supylabel("fraction of targets per rank")
    compared = plots.family_handles(model_set, [*by_family, None], lw=0.8,
                                    labels=[f"{family}: {members[-1].name}" for family, members in by_family.items()]
                                    + ["reference: " + ", ".join(run.name for run in references)])
    plots.legend_below(fig, compared + plots.rank_fit_handles(LABEL), ncol=2)
    plots.show(fig)
else:
    display(Markdown(
        "This model set has no reference model, so no real pretrained model's rank distribution is shown "
        "beside the families, and the claim about it is not testable on this set. A set with a "
        "`[[references]]` entry (the built-in `tiny` set has one) shows it here."))

# %%
if references:
    display(Markdown(pages.token_requirement(chapter.reference_runs, "{numref}`fig-a5-reference`")))
    display(Markdown(a5.reference_summary(evidence)))

# %% [markdown]
# ## How $\mu$ and $\sigma$ move with size (appendix C; review version, Fig. 8d)
#
# The conjecture needs $\mu$ and $\sigma$ to change smoothly with size. Appendix C says $\sigma$
# grows only mildly while $|\mu|$ grows, and the review version states that $\mu/\sigma$ changes
# roughly linearly; since $\mu/\sigma$ can change sign, it is fitted here against $\ln S$
# (`rankscale.analysis.fit.fit_semilog`), one line per family. {numref}`fig-a5-parameters` shows the
# first corpus, one row per fit; the verdicts use the authors' fit, the one behind the paper's
# figure. Reference models have no place on these size axes and are left out. For comparison,
# the authors' own fits to Pythia on Wikipedia (their code's `simulate.py`,
# `rankscale/reference`), the paper's values:

# %%
for name, value in a5.pythia_summary(context.table(a5.PYTHIA)).items():
    glue(f"a5_pythia_{name}", value, display=False)

# %% [markdown]
# Pythia 14M to 12B (the authors' fits, paper's values): $\mu$ from
# {glue:text}`a5_pythia_mu_first:.2f` to {glue:text}`a5_pythia_mu_last:.2f`
# ({glue:text}`a5_pythia_mu_slope:.3f` per unit of $\ln S$), $\sigma$ from
# {glue:text}`a5_pythia_sigma_first:.2f` to {glue:text}`a5_pythia_sigma_last:.2f`
# ({glue:text}`a5_pythia_sigma_slope:.3f` per unit of $\ln S$), $\mu/\sigma$ linear in $\ln S$
# with $R^2$ = {glue:text}`a5_pythia_ratio_r2:.3f` (slope {glue:text}`a5_pythia_ratio_slope:.3f`).

# %% mystnb={"figure": {"caption": "Parameters of the fitted lognormal rank distributions against model size on the first corpus, one row per fit (columns: $\\mu$, $\\sigma$, $\\mu/\\sigma$) and one colour per family; right, $\\mu/\\sigma$ with a straight-line fit in $\\ln S$ for each family of at least two sizes, whose slope per unit of $\\ln S$ and $R^2$ the legend gives. A falling $\\mu$ moves the bulk of the distribution towards rank 1. Degenerate fits are left out.", "name": "fig-a5-parameters"}}
fig, axes = plots.panels(len(FORMS), 3, 2.4, sharex=True)
ratio_labels = {}  # (family, form): the legend's entry of the family's mu/sigma line
for row, form in zip(axes, FORMS):
    for family in families:
        sel, look = evidence.family_rows(form, corpus, family), plots.family_style(model_set, family)
        row[0].plot(sel["S"], sel["mu"], "-", lw=1, **look)
        row[1].plot(sel["S"], sel["sigma"], "-", lw=1, **look)
        ratio_labels[family, form] = f"{SHORT[form]}: no line"
        fine = sel.dropna(subset=["mu/sigma"])
        if len(np.unique(fine["S"])) >= 2:
            f = fit.fit_semilog(fine["S"], fine["mu/sigma"])
            ratio_labels[family, form] = f"{SHORT[form]}: slope {f.slope:.3f}, $R^2$ {f.r2:.3f}"
            grid = np.geomspace(fine["S"].min(), fine["S"].max(), 50)
            row[2].plot(grid, f.predict(grid), "-", color=look["color"], lw=1)
        row[2].plot(sel["S"], sel["mu/sigma"], linestyle="none", **look)
    for ax, name in zip(row, [r"$\mu$", r"$\sigma$", r"$\mu/\sigma$"]):
        ax.set(ylabel=name, title=f"{SHORT[form]}: {name}")
plots.size_axes(axes, "S")
# a column per family (legends fill column by column): its name, then its mu/sigma line of each fit
plots.legend_below(fig, [handle for family in families for handle in plots.family_handles(
    model_set, [family] * (1 + len(FORMS)), [family] + [ratio_labels[family, form] for form in FORMS], lw=1)],
                   ncol=2)
plots.show(fig)

# %% [markdown]
# Per corpus and family, the slopes against $\ln S$ of the authors' fits, with bootstrap
# intervals (windows resampled and every fit redone on each resample; each interval is the slope
# plus or minus 1.96 standard deviations of its replicates):

# %%
display(Markdown(pages.token_requirement({corpus: chapter.family_runs[corpus]}, "{numref}`fig-a5-parameters`")))
trends = evidence.trends
glue("a5_trend_pairs", len(trends), display=False)
for name, column, fmt in (("ratio", "d mu/sigma / d ln S", "+.3f"), ("ratio_r2", "R^2 of mu/sigma", ".3f"),
                          ("mu", "d mu / d ln S", "+.3f"), ("sigma", "d sigma / d ln S", "+.3f")):
    glue(f"a5_trend_{name}", Markdown(bootstrap.span_or_dash(trends.get(column, []), fmt)), display=False)

# %% [markdown]
# Headline numbers of the table below, over its {glue:text}`a5_trend_pairs` corpus and family
# pairs: $\mu/\sigma$ moves by {glue:md}`a5_trend_ratio:myst` per unit of $\ln S$, along lines with
# $R^2$ {glue:md}`a5_trend_ratio_r2:myst`; $\mu$ by {glue:md}`a5_trend_mu:myst` and $\sigma$ by
# {glue:md}`a5_trend_sigma:myst`.

# %% tags=["hide-output"]
trends.style.hide(axis="index").format(precision=3).set_caption(
    "Slopes against ln S of the authors' fitted μ, σ, μ/σ and μ + σ, per corpus and family, each with its "
    f"{context.level:.0%} bootstrap interval (low, high), and the R² of the μ/σ line.")

# %% [markdown]
# ## Predicted against measured CE and $-\log p_1$
#
# Each fitted lognormal predicts CE and $-\log p_1 = -\log \mathrm{RBP}_1$, each form the way it
# is used: the authors' fit and eq. 10 as written through appendix C's closed forms (eq. 21 for
# CE, eq. 16 with the approximate $c$ of eq. 20 for $-\log p_1$, as the authors' code does), the
# 1..V fit through exact sums over its ranks. The predicted CE is the entropy of the rank
# distribution, so it is compared both with the measured CE and with the measured entropy of the
# rank histogram (paper B's error entropy, strict `gt` ranks), which is what it predicts if the
# lognormal fits; the gap between the measured rank entropy and the measured CE is the part of CE
# that the rank distribution alone does not explain. A5.17 grades the authors' fit against the
# measured rank entropy, the quantity eq. 21 actually computes. These are comparisons model by model, so
# reference models are shown too (black stars), where their fits are not degenerate
# ({numref}`fig-a5-predictions`).

# %%
comparisons = [("CE measured", "CE predicted"), ("rank entropy measured", "CE predicted"),
               ("-log RBP_1 measured", "-log p_1 predicted")]
joined = evidence.joined

# %% mystnb={"figure": {"caption": "Predictions of the fitted lognormals against the measured values, one point per model and corpus, in the family's colour and marker (reference models: black stars), one row per fit and one column per measured quantity (CE, the rank histogram's entropy and $-\\log \\mathrm{RBP}_1$, against the predicted CE, CE and $-\\log p_1$); the diagonal is perfect agreement. Where an unbounded fit puts much of its mass beyond the vocabulary, its predicted entropy counts ranks that cannot occur.", "name": "fig-a5-predictions"}}
fig, axes = plots.panels(len(FORMS), len(comparisons), 2.4, sharex="col")
for row, form in zip(axes, FORMS):
    sel_form = joined[joined["fit"] == form]
    for ax, (measured, predicted) in zip(row, comparisons):
        for family in families + ([a5.REFERENCE] if len(reference_fits) else []):
            sel = sel_form[sel_form["family"] == family]
            ax.plot(sel[measured], sel[predicted], linestyle="none", ms=5,
                    **plots.family_style(model_set, None if family == a5.REFERENCE else family))
        plots.identity_line(ax, joined[[measured, predicted]])
    row[0].set_ylabel(f"predicted, {SHORT[form]}")
for ax, (measured, _) in zip(axes[0], comparisons):
    ax.set_title(measured.replace(" measured", " (nats)"))
for ax in axes[-1]:
    ax.set_xlabel("measured")
legend = plots.family_handles(model_set, families + ([None] if len(reference_fits) else []), linestyle="none")
plots.legend_below(fig, legend)
plots.show(fig)

# %% [markdown]
# ## The two scaling laws, measured and predicted (paper A, Figs. 8a-8b)
#
# Paper A's Fig. 8a fits CE and $-\log \mathrm{RBP}_1$ against size for Pythia; Fig. 8b does the
# same for the values predicted from the lognormal fits with the closed forms. In
# {numref}`fig-a5-laws` each column is a corpus; the rows are the measured values and the
# predictions of the three fits. Each family is fitted on its own (families of at least two
# sizes); the table below gives each slope.

# %% mystnb={"figure": {"caption": "CE (solid colour) and $-\\log \\mathrm{RBP}_1$ or $-\\log p_1$ (pale) against size, one colour per family, with each family's fitted power law (slopes in the table below), one column per corpus: measured (top row) and predicted from each of the three lognormal fits (rows: the authors' fit, eq. 10 as written, eq. 10 over 1..V). For Pythia on Wikipedia, the authors' fitted parameters give, through the same closed forms, the paper's Fig. 8b.", "name": "fig-a5-laws"}}
PALE = 0.45  # the look of -log p_1 (or -log RBP_1) beside CE
fig, axes = plots.corpus_panels(corpora, 2.2, rows=len(a5.VERSIONS), title=None, sharex=True, sharey=True)
for row, version in zip(axes, a5.VERSIONS):
    for ax, c in zip(row, corpora):
        for family in families:
            sizes, values = evidence.version_values(c, family, version)
            for i, alpha in enumerate((1.0, PALE)):
                plots.size_plot(ax, model_set, family, sizes, values[:, i], evidence.laws[c, family, version, i],
                                alpha=alpha)
        ax.set(title=f"{c}, " + ("measured" if version == "measured" else SHORT[version]))
        plots.plain_log_ticks(ax)
plots.size_axes(axes, "S")
for ax in axes[:, 0]:
    ax.set_ylabel("nats")
quantities = [Line2D([], [], color="grey", marker="o", ls="none", alpha=alpha, label=label) for alpha, label in
              ((1.0, "CE"), (PALE, r"$-\log \mathrm{RBP}_1$ (measured) or $-\log p_1$"))]
plots.legend_below(fig, plots.family_handles(model_set, families, ls="none") + quantities, ncol=2)
plots.show(fig)

# %% [markdown]
# The slopes, with the ratio of the two slopes and the ratio of each predicted slope to the
# measured one (`rank_models.exponent_ratio`), each with its bootstrap interval: the ratio plus or
# minus 1.96 standard deviations of its replicates, the same resample for measured and predicted
# values, so the ratios are paired.

# %%
display(Markdown(pages.token_requirement(chapter.family_runs, "{numref}`fig-a5-laws`")))
slopes = evidence.slopes
for i, version in enumerate(a5.VERSIONS):
    ratios = slopes.loc[slopes["version"] == version, "ratio p_1/CE"] if len(slopes) else []
    glue(f"a5_ratio_{i}", Markdown(bootstrap.span_or_dash(ratios, ".2f")), display=False)

# %% [markdown]
# Headline numbers of the table below, the ratio of the $-\log p_1$ slope to CE's: measured,
# {glue:md}`a5_ratio_0:myst`; authors' fit (powerlaw package), {glue:md}`a5_ratio_1:myst`; eq. 10 as
# written (1..∞), {glue:md}`a5_ratio_2:myst`; eq. 10 over 1..V, {glue:md}`a5_ratio_3:myst`.

# %% tags=["hide-output"]
slopes.style.hide(axis="index").format(precision=3).set_caption(
    "Power-law slopes and R² of CE and −log p_1 against size, per corpus, family and version (measured or "
    f"predicted by a fit), their ratio, and each predicted slope over the measured one, with {context.level:.0%} intervals.")

# %% [markdown]
# ## Appendix C, checked numerically
#
# Appendix C replaces three sums over ranks by integrals from 1 to infinity: $c \approx
# \psi(1)/2 + P$ with $P = \Phi(\mu/\sigma)$ (eq. 20), $\sum_k \psi(k)\ln k \approx I_1$ and
# $\sum_k \psi(k)\ln^2 k \approx I_2$ (eqs. 14-15), then substitutes them into the exact
# expressions for $-\log p_1$ (eq. 16) and CE (eq. 17) to reach eq. 21. These are the trapezoid
# rule for the sums; they are accurate when $\psi$ changes little from one rank to the next and
# poor when it falls steeply from rank 1 (small $\sigma$). The exact sums are computed term by
# term up to rank $2^{15}$ and by the closed-form integral beyond (`appendix_c.exact`,
# tested against direct summation and quadrature). The maps show the error of each
# approximation over a grid of $(\mu, \sigma)$; points are the parameters of the unbounded fits
# (the authors' and eq. 10 as written, the two that feed these formulas) of the families' models
# (white, edged in the family's colour) and of reference models (black stars), degenerate fits
# left out ({numref}`fig-a5-appendix-c`). Along the way the notebook checks that eq. 18
# simplifies to eq. 21 exactly.

# %%
mus, sigmas = a5.map_grid(fits, mu_range, sigma_range, grid_points)
errors, eq18_gap = a5.approximation_grid(mus, sigmas)  # each approximation's relative error over the grid
unbounded = a5.unbounded(fits)
glue("a5_eq18_gap", eq18_gap, display=False)

# %% mystnb={"figure": {"caption": "$\\log_{10}$ of the absolute relative error of each appendix-C approximation against the exact sum over ranks 1 to infinity, over a grid of $(\\mu, \\sigma)$; the cyan contour marks an error of `claims.A5_APPROX_TOLERANCE`. Light regions are accurate. Blank cells are where the exact value is zero to machine precision (almost every target at rank 1), so a relative error is undefined. Points: the unbounded fits of the families' models (white, edged in the family's colour) and of reference models (black stars). One panel per approximation, titled with the quantity and its equation; the last panel holds the legend and the colour scale.", "name": "fig-a5-appendix-c"}}
fig, axes = plots.panels(2, 3, 2.6, sharex=True, sharey=True)
for ax, (name, values) in zip(axes.flat, errors.items()):
    mesh = plots.error_map(ax, mus, sigmas, values, A5_APPROX_TOLERANCE)
    plots.fitted_points(ax, model_set, unbounded, families)
    ax.set_title(name)
plots.label_bottom(axes, len(errors), r"$\mu$")
for ax in axes[:, 0]:
    ax.set_ylabel(r"$\sigma$")
key = axes.flat[len(errors)]  # the spare panel: what the points and the contour are, and the colour scale
points = plots.family_handles(model_set, families, ls="none", mfc="white") + (
    plots.family_handles(model_set, [None], ls="none", mec="white", ms=9) if (unbounded["family"] == a5.REFERENCE).any()
    else [])
key.legend(handles=points + [Line2D([], [], color="tab:cyan", lw=1, label=f"|error| = {A5_APPROX_TOLERANCE:g}")],
           loc="upper center", frameon=False)
fig.colorbar(mesh, cax=key.inset_axes([0.05, 0.12, 0.9, 0.1]), orientation="horizontal", label="log10 |error|")
plots.show(fig)

# %% [markdown]
# Largest difference between eq. 18 (with the integrals) and eq. 21 over the grid:
# {glue:text}`a5_eq18_gap:.1e` nats.

# %% [markdown]
# ## Which term dominates?
#
# Appendix C splits CE as $\log(\sqrt{2\pi}\sigma) + \log c + \mu^2/(2\sigma^2) + $ a remainder
# (eq. 26), and $-\log p_1$ as the first three of these. It argues that as $|\mu|$ grows, $\log c$
# becomes the dominant part of CE (the review version says the same of $\mu^2/(2\sigma^2)$), which
# would make CE and $-\log p_1$ behave alike. Following $\mu$ to large negative values at the
# median $\sigma$ of the families' eq. 10 fits, with the exact sums:

# %%
a5.dominance_table(evidence).style.hide(axis="index").format(precision=3).set_caption(
    "Appendix C's split of CE (eq. 26) along a path of falling μ at the median σ of the families' eq. 10 fits: "
    "each term, CE and −log p_1 in nats, from the exact sums.")

# %% [markdown]
# $\log c$ and $\mu^2/(2\sigma^2)$ grow large with opposite signs and cancel: $c$ is of the order
# of $\varphi(\mu/\sigma)$ (eq. 24), so $\log c \approx -\mu^2/(2\sigma^2)$ up to terms that grow
# only logarithmically. What is left, CE and $-\log p_1$, is small and shrinks. Neither large
# term alone tracks CE; their sum does.
#
# ## Verdicts
#
# What differs with small models: appendix C's argument is about $\mu \to -\infty$, models whose
# rank distribution sits mostly at low ranks. Small, briefly trained models rank the correct
# token far down more often; their fitted $\mu$ can be large, and then a sizeable share of an
# unbounded lognormal lies beyond the vocabulary, where appendix C's infinite sums still count it.
# The rules are fixed in `rankscale.claims.a5` and shown in the table. Each claim of Fig. 8 is graded
# with the authors' fit (kind "empirical": the paper's claim as the paper tested it) and, as this
# companion's own question ("beyond the paper"), with eq. 10 fitted as written and over 1..V.
# Claims that exponents are "nearly identical" or "similar" are read as every closeness claim of
# this book is (`claims.A_CLOSE`, the range of exponent ratios that the paper's own Table 1 calls
# very close): the bootstrap interval of the ratio (the ratio plus or minus 1.96 standard
# deviations of its replicates) inside the band holds, wholly outside fails, and across an edge
# the unit is undetermined; the bootstrap resamples this corpus's windows, so its intervals say
# nothing of another corpus. Fig. 8a's measured claim, that CE and
# $-\log \mathrm{RBP}_1$ fall with nearly identical exponents, is the ratio of slopes that chapter
# A3 grades as A3.5 on the same models and tokens; it is shown here, not graded a second time.
# Claims of a direction (A5.6: $\mu$ falls, $\sigma$ grows by less) read each slope's interval
# against 0 the same three ways: wholly on the claimed side holds, wholly on the other fails, and
# across 0 the unit is undetermined; A5.5 claims a change of $\mu/\sigma$ in either direction, so
# its interval holds on either side of 0 and is undetermined across it (the interval of its line's
# $R^2$ is also read against the bar: wholly below it fails, across it undetermined). The shared
# exponent (A5.8 to A5.10) also asks both predicted series to be falling power laws, the interval
# of each $R^2$ read against the same bar and that of each slope against 0. The approximation
# and dominance rows check the mathematics of appendix C (kind "analytic") and are not counted as
# replications.

# %%
display(Markdown(a5.fig8a_text(evidence, context)))
verdicts = a5.SPEC.decide(evidence, context)

# %% [markdown]
# ## Which fit reproduces the paper's Fig. 8?
#
# The same claims of Fig. 8, graded with each of the three fits (from the table below):

# %%
a5.verdicts_by_fit(verdicts).style.hide(axis="index").set_table_attributes(f'class="{pages.PROSE_TABLE}"').set_caption(
    "The claims of Fig. 8 that depend on the fit (rows), with the verdict each of the three fits gets (columns).")

# %%
for name, value in a5.form_contrast(evidence).items():
    glue(f"a5_contrast_{name}", value, display=False)

# %% [markdown]
# Why they differ. The authors' fit and eq. 10 fitted as written land close together on the
# families' models ($|\Delta\mu|$ up to {glue:text}`a5_contrast_d_mu:.3f`, $|\Delta\sigma|$ up to
# {glue:text}`a5_contrast_d_sigma:.3f`): both spread the distribution over ranks 1 to infinity and differ
# only in how they discretise the density (the mass of each unit interval against the density at
# each integer rank), which matters mostly at rank 1. Both put part of their mass beyond the
# vocabulary, on ranks that cannot occur (median {glue:text}`a5_contrast_beyond_authors:.1%` and
# {glue:text}`a5_contrast_beyond_eq10:.1%`, up to {glue:text}`a5_contrast_beyond_max:.1%`). The 1..V fit cannot do
# that; to match the same ranks it takes another lognormal ($\sigma$ median
# {glue:text}`a5_contrast_sigma_1V:.2f` against {glue:text}`a5_contrast_sigma_eq10:.2f` for eq. 10 as written; $\mu$
# median {glue:text}`a5_contrast_mu_1V:.2f` against {glue:text}`a5_contrast_mu_eq10:.2f`), whose tail, cut at rank
# V, is shaped to fit the ranks near V as well. Appendix C's closed forms are derived for the
# unbounded model, so the authors' procedure and eq. 10 as written are the faithful renderings of
# the paper's argument; the 1..V fit asks whether the argument survives the vocabulary's bound.
# The paper's Fig. 8 used the authors' fit. (Where every fit of some form is degenerate, the
# numbers above are missing: nan.)

# %%
table = pages.verdict_table("A5", verdicts, model_set.name, a5.headline(evidence))

# %% [markdown]
# ## What the verdicts say together
#
# The rows follow the paper's argument link by link, and a link can hold while the next one
# breaks. A5.1 to A5.4 ask whether the rank distribution is lognormal at all: Vuong's test
# compares it with a power law, while the KS bound asks how close it comes in absolute terms, so
# a lognormal can beat the power law on every model and still miss the KS bound on some. A5.5
# and A5.6 ask whether the fitted parameters move with size as the conjecture needs. A5.8 to
# A5.10 then ask whether the predicted CE and $-\log p_1$ share one exponent, and A5.11 to A5.13
# whether the predicted exponents match the measured ones: the two can part, since a fit can
# predict each exponent well while the two measured exponents differ (A3.5), and then the
# predicted ones differ too. The analytic rows check the mathematics on the way: the closed
# forms against exact sums (A5.14), the sum to infinity against the vocabulary's bound (A5.15),
# the dominance argument (A5.16), and what eq. 21 computes, the rank entropy rather than the
# cross-entropy (A5.17).

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("A5", table);  # the semicolon: the Markdown is displayed, not its text echoed

# %% [markdown]
# ## Exercises
#
# Each exercise works on this chapter's runs with the package; `chapter` is the chapter opened at the
# top of the page. Where the answer is a number, `rankscale.teaching.check` says whether yours is right
# on the set you run, and why not. The solutions are folded under the exercises and were computed by
# this build; the chapter's exercise notebook (under Downloads) holds the set-up and the exercises
# without them.
#
# ```{exercise} a5.1 · Predict CE with appendix C
# :label: ex-a5-1
# :nonumber:
# Take the largest model of the first family on the first corpus, `run = teaching.largest_run(chapter)`,
# and its rank histogram with eq. 3's ranks,
# `counts = np.bincount(run.records.ge + 1, minlength=run.vocab_size + 1)`. Fit eq. 10 as written
# (normalised over ranks 1 to infinity) with `rank_models.fit_lognormal_eq10(counts)`
# (`from rankscale.analysis import rank_models`), which gives `.mu` and `.sigma`. From these two numbers
# alone compute, with numpy and `scipy.stats.norm`: $P = \Phi(\mu/\sigma)$ (eq. 13), eq. 20's
# $c \approx \varphi(\mu/\sigma)/(2\sigma) + P$, eq. 16's $-\ln p_1$, and eq. 21's CE,
# $-\ln p_1 + \frac{1}{c}\big[P\big(\frac{\sigma^2-\mu^2}{2\sigma^2} + \mu\big) + \varphi(\mu/\sigma)\big(\sigma - \frac{\mu}{2\sigma}\big)\big]$.
# Check the CE with `teaching.check("a5.1", answer, chapter)` and compare it with the model's measured CE,
# the mean of `-run.records.logp`. What does eq. 21 compute, if not the model's CE?
# ```
#
# ```{exercise} a5.2 · Keep the ranks inside the vocabulary
# :label: ex-a5-2
# :nonumber:
# Change the support of the fit: for the same model, fit $p_r = \psi(r) / \sum_{j=1}^{V} \psi(j)$ over
# the vocabulary's ranks $1..V$ only, by maximum likelihood on `counts`. (In $\theta_1 = \mu/\sigma^2$ and
# $\theta_2 = -1/(2\sigma^2)$, $\ln p_r = \theta_1 \ln r + \theta_2 \ln^2 r - \ln r - \ln Z$: the fit
# makes the model's means of $\ln r$ and $\ln^2 r$ equal to the data's, which a few Newton steps
# solve.) Give the exact entropy $-\sum_{r=1}^{V} p_r \ln p_r$ of the fitted distribution and check it
# with `teaching.check("a5.2", answer, chapter)`. How far does it move from the previous exercise's
# answer, and how much of the move is eq. 21's approximation and how much the support? How much of the
# eq. 10 fit's mass lay beyond rank $V$?
# ```
#
# ```{exercise} a5.3 · One exponent for two quantities?
# :label: ex-a5-3
# :nonumber:
# For every final model of the first family on the first corpus, `teaching.family_models(chapter)`,
# fit eq. 10 as in the first exercise and predict $-\ln p_1$ and CE with eqs. 16 and 21
# (`rankscale.analysis.appendix_c.approx(mu, sigma)` gives both as `.neg_log_p1` and `.ce`). Fit each
# against size as a power law (`numpy.polyfit` of the log of the value on $\ln S$, with
# `run.non_embedding` as $S$) and give the slope of $-\ln p_1$ divided by the slope of CE; check it
# with `teaching.check("a5.3", answer, chapter)`. Then replace the predictions by the measured CE and
# $-\ln \mathrm{RBP}_1$ (paper A's Fig. 8a against its Fig. 8b): does the lognormal reproduce the
# measured ratio?
# ```

# %% [markdown]
# ```{solution-start} ex-a5-1
# :class: dropdown
# ```
#
# Eq. 21 needs only $\mu$, $\sigma$ and the standard normal's density and distribution function:

# %%
import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm

from rankscale import teaching
from rankscale.analysis import appendix_c, rank_models

run = teaching.largest_run(chapter)
counts = np.bincount(run.records.ge + 1, minlength=run.vocab_size + 1)
eq10 = rank_models.fit_lognormal_eq10(counts)
mu, sigma = eq10.mu, eq10.sigma
big_p, phi = norm.cdf(mu / sigma), norm.pdf(mu / sigma)  # eq. 13's P, and phi(a) (the density is even)
c = phi / (2 * sigma) + big_p  # eq. 20
neg_log_p1 = np.log(c) + np.log(np.sqrt(2 * np.pi) * sigma) + mu**2 / (2 * sigma**2)  # eq. 16
ce_21 = neg_log_p1 + (big_p * ((sigma**2 - mu**2) / (2 * sigma**2) + mu) + phi * (sigma - mu / (2 * sigma))) / c
glue("ex_a5_1", float(ce_21), display=False)
glue("ex_a5_1_mu", float(mu), display=False)
glue("ex_a5_1_sigma", float(sigma), display=False)
glue("ex_a5_1_p1", float(neg_log_p1), display=False)
glue("ex_a5_1_measured", float(-np.mean(run.records.logp.astype(np.float64))), display=False)
glue("ex_a5_1_rbp1", float(-np.log(np.mean(run.records.ge == 0))), display=False)
teaching.check("a5.1", ce_21, chapter)

# %% [markdown]
# The fit gives $\mu$ = {glue:text}`ex_a5_1_mu:.3f` and $\sigma$ = {glue:text}`ex_a5_1_sigma:.3f`; eq. 16
# gives $-\ln p_1$ = {glue:text}`ex_a5_1_p1:.4f` (measured $-\ln \mathrm{RBP}_1$:
# {glue:text}`ex_a5_1_rbp1:.4f`) and eq. 21 a CE of {glue:text}`ex_a5_1:.4f` nats, against a measured
# CE of {glue:text}`ex_a5_1_measured:.4f`. Eq. 21 is the entropy of the fitted rank distribution,
# $-\sum_r p_r \ln p_r$: it equals the model's CE only if the model gave every target of rank $r$ the
# probability $p_r$, the share of targets at that rank. A real model spreads its probabilities
# differently from target to target, so the two need not agree, and their gap is not an error of the
# fit.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-a5-2
# :class: dropdown
# ```
#
# The likelihood is convex in $(\theta_1, \theta_2)$, with gradient the model's means of $(\ln r,
# \ln^2 r)$ minus the data's and Hessian their covariance under the model, so Newton's method from the
# data's own moments converges in a few steps:

# %%
log_r = np.log(np.arange(1, run.vocab_size + 1))
stats = np.stack([log_r, log_r**2])  # the sufficient statistics of each rank
target = stats @ counts[1:] / counts.sum()  # the data's means of ln r and ln^2 r
theta = np.array([target[0], -0.5]) / (target[1] - target[0] ** 2)  # start: a lognormal with the data's moments
for _ in range(30):
    log_p = theta @ stats - log_r
    log_p -= logsumexp(log_p)
    p = np.exp(log_p)
    mean = stats @ p
    theta -= np.linalg.solve((stats * p) @ stats.T - np.outer(mean, mean), mean - target)
log_p = theta @ stats - log_r
log_p -= logsumexp(log_p)
entropy = -np.exp(log_p) @ log_p
glue("ex_a5_2", float(entropy), display=False)
glue("ex_a5_2_nll", float(-(counts[1:] @ log_p) / counts.sum()), display=False)
glue("ex_a5_2_sigma", float(np.sqrt(-0.5 / theta[1])), display=False)
glue("ex_a5_2_mu", float(theta[0] * -0.5 / theta[1]), display=False)
glue("ex_a5_2_exact", float(appendix_c.exact(mu, sigma).ce), display=False)
glue("ex_a5_2_beyond", float(-np.expm1(logsumexp(eq10.log_pmf()))), display=False)
teaching.check("a5.2", entropy, chapter)

# %% [markdown]
# Over ranks $1..V$ the fit lands at $\mu$ = {glue:text}`ex_a5_2_mu:.3f` and $\sigma$ =
# {glue:text}`ex_a5_2_sigma:.3f`, and its entropy is {glue:text}`ex_a5_2:.4f` nats. At the maximum the
# entropy equals the mean negative log-likelihood per target, {glue:text}`ex_a5_2_nll:.4f`, because the
# fit matches the means of $\ln r$ and $\ln^2 r$ on which $\ln p_r$ depends. The unbounded eq. 10 fit
# of the first exercise put a share {glue:text}`ex_a5_2_beyond:.4f` of its mass beyond rank $V$. Its
# exact entropy, summed over ranks 1 to infinity, is {glue:text}`ex_a5_2_exact:.4f`: the difference
# from eq. 21's {glue:text}`ex_a5_1:.4f` is the approximation of appendix C, and the difference from
# {glue:text}`ex_a5_2:.4f` is what changing the support did, through both the ranks that can no longer
# be counted and the other lognormal the bounded fit chooses.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{solution-start} ex-a5-3
# :class: dropdown
# ```

# %%
members = teaching.family_models(chapter)
log_sizes = np.log([member.non_embedding for member in members])
closed = [appendix_c.approx(f.mu, f.sigma) for f in
          (rank_models.fit_lognormal_eq10(np.bincount(m.records.ge + 1, minlength=m.vocab_size + 1)) for m in members)]
predicted_slopes = {name: np.polyfit(log_sizes, np.log(values), 1)[0] for name, values in
                    (("-ln p_1", [a.neg_log_p1 for a in closed]), ("CE", [a.ce for a in closed]))}
measured_slopes = {name: np.polyfit(log_sizes, np.log(values), 1)[0] for name, values in
                   (("-ln RBP_1", [-np.log(np.mean(m.records.ge == 0)) for m in members]),
                    ("CE", [-np.mean(m.records.logp.astype(np.float64)) for m in members]))}
ratio = predicted_slopes["-ln p_1"] / predicted_slopes["CE"]
glue("ex_a5_3", float(ratio), display=False)
glue("ex_a5_3_p1", float(predicted_slopes["-ln p_1"]), display=False)
glue("ex_a5_3_ce", float(predicted_slopes["CE"]), display=False)
glue("ex_a5_3_measured", float(measured_slopes["-ln RBP_1"] / measured_slopes["CE"]), display=False)
glue("ex_a5_3_models", len(members), display=False)
teaching.check("a5.3", ratio, chapter)

# %% [markdown]
# Over the family's {glue:text}`ex_a5_3_models` models, the predicted $-\ln p_1$ has a log-log slope of
# {glue:text}`ex_a5_3_p1:.4f` and the predicted CE one of {glue:text}`ex_a5_3_ce:.4f`: a ratio of
# {glue:text}`ex_a5_3:.3f`, where a shared exponent would give 1. The measured $-\ln \mathrm{RBP}_1$
# and CE give a ratio of {glue:text}`ex_a5_3_measured:.3f`. The lognormal reproduces the measured
# exponents only as far as these two ratios agree. Where the models span a narrow range of sizes, or
# a quantity hardly changes with size, its slope is small and the ratio moves a lot with a small change
# of either slope, which is why the chapter reads such ratios with bootstrap intervals.
#
# ```{solution-end}
# ```
