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
# This chapter tests each step on every family of the model set, each fitted on its own: the
# lognormal shape of the rank distribution against a power law, how $\mu$ and $\sigma$ move with
# size, the CE and $-\log p_1$ the fitted lognormals predict against the measured ones, and the
# appendix's approximations against the exact sums. The paper's Fig. 8c shows the rank
# distribution of real pretrained models (Pythia); where the model set has a *reference* model, a
# real pretrained model outside every family, its rank distribution and fits are shown beside the
# families' as the closest analogue. Ranks follow paper A's eq. 3 (`ge` convention); the
# authors' code counts ties in the target's favour instead, which changes almost nothing
# (chapter A1).

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
n_bins = 30  # logarithmic bins for drawing rank histograms
max_ks_distance = 0.05  # a fitted model whose CDF is within this of the data counts as fitting well
min_r2 = 0.9
ratio_band = [0.8, 1.25]  # two exponents within this ratio count as nearly identical
approx_tolerance = 0.05  # relative error up to which an approximation counts as accurate
mu_range = [-16.0, 8.0]  # (mu, sigma) grid for the appendix-C check, widened to cover the fits
sigma_range = [0.5, 7.0]
grid_points = 25
dominance_mus = [-5.0, -10.0, -20.0, -40.0]  # mu path for the dominance argument of appendix C
min_sizes = 3  # a family needs this many sizes for a size claim to be tested on it

# %%

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.lines import Line2D

from rankscale import fit, metrics, rankdist, report, runs

corpora = corpora or runs.corpora(profile)
family_runs = {corpus: runs.family_runs(profile, corpus) for corpus in corpora}
reference_runs = {corpus: runs.reference_runs(profile, corpus) for corpus in corpora}
report.header(profile, {corpus: family_runs[corpus] + reference_runs[corpus] for corpus in corpora})
families = list(runs.by_family(family_runs[corpora[0]]))
usable, unusable = report.fittable(family_runs[corpora[0]], min_sizes)
rank_models, rows, reference_rows = {}, [], []
for corpus in corpora:
    for run in family_runs[corpus] + reference_runs[corpus]:
        rank = metrics.rank_1based(run.records.gt, run.records.ge)
        m = rankdist.fit_rank_models(rank, run.vocab_size)  # each model over its own vocabulary
        rank_models[corpus, run.family, run.name] = m
        (rows if run.family is not None else reference_rows).append({
            "corpus": corpus, "family": run.family or "reference", "model": run.name, "S": run.non_embedding,
            "V": run.vocab_size, "mu": m.lognormal.mu, "sigma": m.lognormal.sigma,
            "mu/sigma": m.lognormal.mu / m.lognormal.sigma, "alpha (power law)": m.zipf.alpha,
            "log-likelihood ratio per token": m.vuong.log_likelihood_ratio / m.lognormal.n_tokens,
            "Vuong z": m.vuong.z, "Vuong p": m.vuong.p_value,
            "KS lognormal": m.ks_lognormal, "KS power law": m.ks_power_law,
            "CE measured": metrics.cross_entropy(run.records.logp),
            "rank entropy measured": metrics.ce_decomposition(run.records.logp, run.records.gt).error_entropy,
            "-log RBP_1 measured": -np.log(metrics.rbp(rank, 1)[0]),
            "CE predicted (ranks 1..V)": m.ce_exact, "-log p_1 predicted (ranks 1..V)": m.neg_log_p1_exact,
            "CE predicted (eq. 21)": m.closed_form.ce, "-log p_1 predicted (eqs. 16, 20)": m.closed_form.neg_log_p1,
        })
ranks_table = pd.DataFrame(rows)  # the families' models: the only rows that enter size fits
reference_table = pd.DataFrame(reference_rows, columns=ranks_table.columns)
all_table = pd.concat([ranks_table, reference_table], ignore_index=True) if reference_rows else ranks_table
display(Markdown(
    (f"Claims about size are tested on {', '.join(usable)}; not on {'; '.join(unusable)}. " if usable and unusable
     else f"No family has {min_sizes} or more sizes, so no claim about size is testable on this set. " if unusable
     else f"Every family has at least {min_sizes} sizes, so claims about size are tested on all of them. ")
    + (f"Reference models, shown beside the families and outside every size fit: "
       f"{', '.join(run.name for run in reference_runs[corpora[0]])}." if reference_rows
       else "This set has no reference model.")))


def draw_ranks(ax, corpus, run):
    """One model's rank histogram (log bins, in its family's look) with both fitted models."""
    m = rank_models[corpus, run.family, run.name]
    r = np.arange(1, run.vocab_size + 1)
    centres, freq = rankdist.log_binned_frequency(m.counts, n_bins)
    ax.plot(centres, freq, linestyle="none", ms=4, label="measured (log bins)",
            **report.family_style(profile, run.family))
    ax.plot(r, np.exp(m.lognormal.log_pmf()), color="0.15",
            label=f"lognormal $\\mu$={m.lognormal.mu:.2f}, $\\sigma$={m.lognormal.sigma:.2f}")
    ax.plot(r, np.exp(m.zipf.log_pmf()), color="0.55", ls="--", label=f"power law $\\alpha$={m.zipf.alpha:.2f}")
    ax.set(xscale="log", yscale="log", xlabel="rank $r$ (ge)")
    ax.set_title(f"{run.family or 'reference'}: {run.name}\n{corpus}, Vuong z = {m.vuong.z:.1f}", fontsize=8)
    ax.legend(fontsize=6, loc="lower left")


# %% [markdown]
# ## Are the ranks lognormal? (paper A, Fig. 8c)
#
# For every model and corpus the rank histogram (ranks 1 to the model's vocabulary size) is
# fitted by maximum likelihood twice: with the discrete lognormal above, normalised over the
# vocabulary, and with a power law $p_r \propto r^{-\alpha}$ (`rankscale.rankdist`). Paper A's
# code does the same with the `powerlaw` package, whose discrete lognormal differs in detail (it
# integrates the continuous density over each unit interval and does not stop at the vocabulary
# size). The power law is the limit of the lognormal as $\sigma \to \infty$, so the lognormal
# never fits worse; Vuong's statistic $z$ says whether its advantage stands out from
# token-to-token noise (positive $z$ favours the lognormal), and the Kolmogorov-Smirnov distance
# (largest gap between the fitted and empirical cumulative distributions) says how close each
# model comes in absolute terms. The figure shows every family's models on the first corpus, one
# row per family.

# %%
corpus = corpora[0]
by_family = runs.by_family(family_runs[corpus])
n_cols = min(4, max(len(members) for members in by_family.values()))
panel_rows = [members[i:i + n_cols] for members in by_family.values() for i in range(0, len(members), n_cols)]
fig, axes = plt.subplots(len(panel_rows), n_cols, figsize=(3.6 * n_cols, 3.3 * len(panel_rows)), squeeze=False,
                         sharey=True)
for ax_row, members in zip(axes, panel_rows):
    for ax, run in zip(ax_row, members):
        draw_ranks(ax, corpus, run)
    for ax in ax_row[len(members):]:
        ax.set_visible(False)
for ax in axes[:, 0]:
    ax.set_ylabel("fraction of targets per rank")
fig.suptitle(f"rank distributions on {corpus}")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A5.1.** Rank distribution of the correct token (`ge` ranks) for each model of each
# family on the first corpus: measured frequencies averaged over logarithmic bins (points, in the
# family's colour), the fitted discrete lognormal (solid) and power law (dashed). A power law is
# a straight line on these axes; the lognormal can bend. Every fit, reference models included
# (family "reference"):

# %%
all_table[["corpus", "family", "model", "V", "mu", "sigma", "mu/sigma", "alpha (power law)",
           "log-likelihood ratio per token", "Vuong z", "Vuong p", "KS lognormal", "KS power law"]
          ].style.hide(axis="index").format(
    precision=3, subset=["mu", "sigma", "mu/sigma", "alpha (power law)", "log-likelihood ratio per token", "Vuong z",
                         "KS lognormal", "KS power law"]).format("{:.2g}", subset=["Vuong p"]).format(
    "{:,}", subset=["V"])

# %% [markdown]
# ## A real pretrained model beside the families
#
# Paper A's Fig. 8c fits the rank distributions of Pythia models, trained on hundreds of billions
# of tokens; small families trained briefly may rank targets differently. A model set can name
# *reference* models: real pretrained models that belong to no family. They are fitted here
# exactly like the families' models, each over its own vocabulary, and kept out of every fit
# against size: a reference model was trained elsewhere, with its own tokenizer and training
# data, and may be stored at another precision (quantised), so its parameter count does not
# place it on any family's line.

# %%
references = reference_runs[corpus]
if references:
    family_vocab = ", ".join(f"{family} {members[0].vocab_size:,}" for family, members in by_family.items())
    display(Markdown("\n\n".join(
        f"**Reference model: {run.name}** ({run.non_embedding:,} non-embedding parameters; vocabulary "
        f"{run.vocab_size:,} tokens, against {family_vocab} for the families; weights read as "
        f"{run.records.manifest['identity']['dtype']}): {run.note or 'the model set gives no description'}."
        for run in references)))
    fig, axes = plt.subplots(len(references), len(corpora) + 1,
                             figsize=(3.6 * (len(corpora) + 1), 3.3 * len(references)), squeeze=False)
    for ax_row, run in zip(axes, references):
        for ax, c in zip(ax_row, corpora):
            draw_ranks(ax, c, next(r for r in reference_runs[c] if r.name == run.name))
        ax = ax_row[-1]
        for family, members in by_family.items():
            largest = members[-1]
            centres, freq = rankdist.log_binned_frequency(rank_models[corpus, family, largest.name].counts, n_bins)
            ax.plot(centres, freq, "-", lw=0.8, ms=3, label=f"{family}: {largest.name}",
                    **report.family_style(profile, family))
        centres, freq = rankdist.log_binned_frequency(rank_models[corpus, None, run.name].counts, n_bins)
        ax.plot(centres, freq, "-", lw=0.8, ms=5, label=f"reference: {run.name}", **report.family_style(profile, None))
        ax.set(xscale="log", yscale="log", xlabel="rank $r$ (ge)")
        ax.set_title(f"measured, {corpus}: reference and each family's largest model", fontsize=8)
        ax.legend(fontsize=6, loc="lower left")
    axes[0, 0].set_ylabel("fraction of targets per rank")
    fig.tight_layout()
    plt.show()
    sel = reference_table
    display(Markdown(
        f"Over the corpora, the reference models' lognormals have $\\mu$ from {sel['mu'].min():.2f} to "
        f"{sel['mu'].max():.2f} and $\\sigma$ from {sel['sigma'].min():.2f} to {sel['sigma'].max():.2f}, against "
        f"$\\mu$ {ranks_table['mu'].min():.2f} to {ranks_table['mu'].max():.2f} and $\\sigma$ "
        f"{ranks_table['sigma'].min():.2f} to {ranks_table['sigma'].max():.2f} for the families' models; Vuong $z$ "
        f"{sel['Vuong z'].min():.1f} to {sel['Vuong z'].max():.1f}, KS distance of the lognormal "
        f"{sel['KS lognormal'].min():.3f} to {sel['KS lognormal'].max():.3f} (power law "
        f"{sel['KS power law'].min():.3f} to {sel['KS power law'].max():.3f})."))
else:
    display(Markdown(
        "This model set has no reference model, so no real pretrained model's rank distribution is shown "
        "beside the families, and the claim about it is not testable on this set. A set with a "
        "`[[references]]` entry (the built-in `tiny` set has one) shows it here."))

# %% [markdown]
# **Figure A5.2** (where the set has a reference model). The reference model's rank
# distribution on each corpus with its fitted lognormal (solid) and power law (dashed), in the
# layout of Fig. A5.1; right, its measured distribution on the first corpus (black stars) beside
# that of each family's largest model, on absolute ranks (the vocabularies may differ).
#
# ## How $\mu$ and $\sigma$ move with size (review version, Fig. 8d)
#
# The conjecture needs $\mu$ and $\sigma$ to change smoothly with size. Appendix C says $\sigma$
# grows only mildly while $|\mu|$ grows, and the review version states that $\mu/\sigma$ changes
# roughly linearly; since $\mu/\sigma$ can change sign, it is fitted here against $\ln S$
# (`rankscale.fit.fit_semilog`), one line per family. Reference models have no place on these
# size axes and are left out.

# %%
def family_rows(table, c, family):
    return table[(table["corpus"] == c) & (table["family"] == family)]


def n_sizes(sel):
    return len(np.unique(sel["S"]))


mu_sigma_fits = {}
fig, axes = plt.subplots(len(corpora), 3, figsize=(13, 3.3 * len(corpora)), squeeze=False)
for row, c in zip(axes, corpora):
    for family in families:
        sel, look = family_rows(ranks_table, c, family), report.family_style(profile, family)
        row[0].plot(sel["S"], sel["mu"], "-", lw=1, label=family, **look)
        row[1].plot(sel["S"], sel["sigma"], "-", lw=1, label=family, **look)
        label = family
        if n_sizes(sel) >= 2:
            f = mu_sigma_fits[c, family] = fit.fit_semilog(sel["S"], sel["mu/sigma"])
            label = f"{family}: slope {f.slope:.3f}/ln S, $R^2$={f.r2:.3f}"
            grid = np.geomspace(sel["S"].min(), sel["S"].max(), 50)
            row[2].plot(grid, f.predict(grid), "-", color=look["color"], lw=1)
        row[2].plot(sel["S"], sel["mu/sigma"], linestyle="none", label=label, **look)
    for ax, name in zip(row, [r"$\mu$", r"$\sigma$", r"$\mu/\sigma$"]):
        ax.set(xscale="log", ylabel=name, title=f"{c}: fitted {name} (ge ranks)")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.legend(fontsize=7)
for ax in axes[-1]:
    ax.set_xlabel("non-embedding parameters $S$")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A5.3.** Parameters of the fitted lognormal rank distributions against model size, one
# row per corpus and one colour per family; right, $\mu/\sigma$ with a straight-line fit in
# $\ln S$ for each family of at least two sizes. A falling $\mu$ moves the bulk of the
# distribution towards rank 1.
#
# ## Predicted against measured CE and $-\log p_1$
#
# Each fitted lognormal gives a prediction of CE and of $-\log p_1 = -\log \mathrm{RBP}_1$ in two
# ways: exactly, from the fitted distribution on ranks 1 to the vocabulary size, and with
# appendix C's closed forms (eq. 21 for CE, eq. 16 with the approximate $c$ of eq. 20 for
# $-\log p_1$), which assume ranks run to infinity, as the authors' code does. The predicted CE is
# the entropy of the rank distribution, so it is compared both with the measured CE and with the
# measured entropy of the rank histogram (paper B's error entropy, strict `gt` ranks), which is
# what it predicts if the lognormal fits; the gap between the measured rank entropy and the
# measured CE is the part of CE that the rank distribution alone does not explain. These are
# comparisons model by model, so reference models are shown too (black stars).

# %%
comparisons = [("CE measured", "CE predicted (ranks 1..V)", "CE predicted (eq. 21)"),
               ("rank entropy measured", "CE predicted (ranks 1..V)", "CE predicted (eq. 21)"),
               ("-log RBP_1 measured", "-log p_1 predicted (ranks 1..V)", "-log p_1 predicted (eqs. 16, 20)")]
groups = [(family, ranks_table[ranks_table["family"] == family]) for family in families]
if len(reference_table):
    groups.append((None, reference_table))
fig, axes = plt.subplots(1, 3, figsize=(13, 4))
for ax, (measured, exact_v, closed_form) in zip(axes, comparisons):
    for family, sel in groups:
        look = report.family_style(profile, family)
        ax.plot(sel[measured], sel[exact_v], linestyle="none", ms=5, **look)
        ax.plot(sel[measured], sel[closed_form], linestyle="none", ms=5, mfc="none", **look)
    values = all_table[[measured, exact_v, closed_form]].to_numpy()
    lims = [values.min() * 0.95, values.max() * 1.05]
    ax.plot(lims, lims, "k-", lw=0.7)
    ax.set(xlim=lims, ylim=lims, xlabel=f"{measured} (nats)", ylabel="predicted from the lognormal fit (nats)",
           title=f"{measured.replace(' measured', '')}")
legend = ([Line2D([], [], linestyle="none", label=family or "reference", **report.family_style(profile, family))
           for family, _ in groups]
          + [Line2D([], [], color="grey", marker="o", linestyle="none", label="filled: ranks 1..V"),
             Line2D([], [], color="grey", marker="o", mfc="none", linestyle="none", label="open: appendix C formulas")])
axes[0].legend(handles=legend, fontsize=6)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A5.4.** Predictions of the fitted lognormals (filled: exact on ranks 1 to the
# vocabulary size; open: appendix C's closed forms) against the measured values, one point per
# model and corpus, in the family's colour and marker; the diagonal is perfect agreement. Where
# $\mu$ is large the lognormal puts much of its mass beyond the vocabulary, and the closed forms,
# which sum to infinity, part from the exact values.
#
# ## The two scaling laws, measured and predicted (paper A, Figs. 8a-8b)
#
# Paper A's Fig. 8a fits CE and $-\log \mathrm{RBP}_1$ against size for Pythia; Fig. 8b does the
# same for the values predicted from the lognormal fits with the closed forms. Each row below is a
# corpus; the columns are the measured values, the closed-form predictions and the exact
# predictions on ranks 1 to the vocabulary size. Each family is fitted on its own (families of at
# least two sizes); the legend gives each fitted slope.

# %%
columns = [  # panel title, CE column, -log p_1 column, label of the latter
    ("measured", "CE measured", "-log RBP_1 measured", "$-\\log \\mathrm{RBP}_1$"),
    ("predicted, appendix C formulas", "CE predicted (eq. 21)", "-log p_1 predicted (eqs. 16, 20)", "$-\\log p_1$"),
    ("predicted, ranks 1..V", "CE predicted (ranks 1..V)", "-log p_1 predicted (ranks 1..V)", "$-\\log p_1$"),
]


def power_fit(sizes, values):
    """A log-log fit of one family's values, or None where it cannot be made."""
    values = np.asarray(values, float)
    if len(np.unique(sizes)) < 2 or not np.all(np.isfinite(values) & (values > 0)):
        return None
    return fit.fit_power_law(sizes, values)


law_fits = {}
fig, axes = plt.subplots(len(corpora), 3, figsize=(13, 3.3 * len(corpora)), squeeze=False)
for row, c in zip(axes, corpora):
    for ax, (title, ce_col, p1_col, p1_label) in zip(row, columns):
        for family in families:
            sel = family_rows(ranks_table, c, family)
            for col, label, alpha in ((ce_col, "CE", 1.0), (p1_col, p1_label, 0.45)):
                f = law_fits[c, family, col] = power_fit(sel["S"], sel[col])
                report.size_plot(ax, profile, family, sel["S"], sel[col], f, alpha=alpha,
                                 label=f"{family}, {label}" + (f": slope {f.slope:.3f}, $R^2$={f.r2:.3f}" if f else ""))
        ax.set(title=f"{c}: {title}")
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.legend(fontsize=6)
for ax in axes[-1]:
    ax.set_xlabel("non-embedding parameters $S$")
for ax in axes[:, 0]:
    ax.set_ylabel("nats")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure A5.5.** CE (solid colour) and $-\log \mathrm{RBP}_1$ or $-\log p_1$ (pale) against
# size, one colour per family: measured (left), predicted by appendix C's formulas from the
# fitted lognormals (middle), and predicted exactly from the same fits on ranks 1 to the
# vocabulary size (right).

# %%
slopes = pd.DataFrame([{"corpus": c, "family": family, "quantity": col, "slope": f.slope, "R^2": f.r2}
                       for (c, family, col), f in law_fits.items() if f is not None],
                      columns=["corpus", "family", "quantity", "slope", "R^2"])
slopes.style.hide(axis="index").format(precision=3)

# %% [markdown]
# ## Appendix C, checked numerically
#
# Appendix C replaces three sums over ranks by integrals from 1 to infinity: $c \approx
# \psi(1)/2 + P$ with $P = \Phi(\mu/\sigma)$ (eq. 20), $\sum_k \psi(k)\ln k \approx I_1$ and
# $\sum_k \psi(k)\ln^2 k \approx I_2$ (eqs. 14-15), then substitutes them into the exact
# expressions for $-\log p_1$ (eq. 16) and CE (eq. 17) to reach eq. 21. These are the trapezoid
# rule for the sums; they are accurate when $\psi$ changes little from one rank to the next and
# poor when it falls steeply from rank 1 (small $\sigma$). The exact sums are computed term by
# term up to rank $2^{15}$ and by the closed-form integral beyond (`rankdist.appendix_c_exact`,
# tested against direct summation and quadrature). The maps show the error of each
# approximation over a grid of $(\mu, \sigma)$; points are the fitted parameters of the
# families' models (white, edged in the family's colour) and of reference models (black stars).
# Along the way the notebook checks that eq. 18 simplifies to eq. 21 exactly.

# %%
mu_lo = min(mu_range[0], all_table["mu"].min() - 1)
mu_hi = max(mu_range[1], all_table["mu"].max() + 1)
sigma_lo = min(sigma_range[0], all_table["sigma"].min() * 0.9)
sigma_hi = max(sigma_range[1], all_table["sigma"].max() * 1.1)
mus, sigmas = np.linspace(mu_lo, mu_hi, grid_points), np.linspace(sigma_lo, sigma_hi, grid_points)
exact = [[rankdist.appendix_c_exact(m, s) for m in mus] for s in sigmas]
approx = [[rankdist.appendix_c_approx(m, s) for m in mus] for s in sigmas]
errors = {
    "c (eq. 20), relative": lambda e, a: np.expm1(a.log_c - e.log_c),
    "sum psi ln k ~ I_1 (eq. 14), relative": lambda e, a: np.expm1(a.log_s1 - e.log_s1),
    "sum psi ln^2 k ~ I_2 (eq. 15), relative": lambda e, a: np.expm1(a.log_s2 - e.log_s2),
    "-log p_1 (eqs. 16, 20), relative": lambda e, a: a.neg_log_p1 / e.neg_log_p1 - 1 if e.neg_log_p1 > 1e-9 else np.nan,
    "CE (eq. 21), relative": lambda e, a: a.ce / e.ce - 1 if e.ce > 1e-9 else np.nan,
}
eq18_gap = max(abs(rankdist.ce_from_sums(a.mu, a.sigma, a.log_c, a.log_s1, a.log_s2) - a.ce)
               for row in approx for a in row)
fig, axes = plt.subplots(1, len(errors), figsize=(3.4 * len(errors), 3.4), sharey=True)
for ax, (name, err) in zip(axes, errors.items()):
    values = np.array([[err(e, a) for e, a in zip(erow, arow)] for erow, arow in zip(exact, approx)])
    log_error = np.ma.masked_invalid(np.log10(np.abs(values) + 1e-16))
    mesh = ax.pcolormesh(mus, sigmas, log_error, cmap="magma_r", vmin=-6, vmax=0, shading="nearest")
    ax.contour(mus, sigmas, np.ma.masked_invalid(np.abs(values)), levels=[approx_tolerance], colors="tab:cyan",
               linewidths=1)
    for family in families:
        sel, look = ranks_table[ranks_table["family"] == family], report.family_style(profile, family)
        ax.plot(sel["mu"], sel["sigma"], linestyle="none", marker=look["marker"], mfc="white", mec=look["color"], ms=4)
    ax.plot(reference_table["mu"], reference_table["sigma"], linestyle="none", mfc="black", mec="white", ms=9,
            marker=report.family_style(profile, None)["marker"])
    ax.set(title=name, xlabel=r"$\mu$")
    ax.title.set_fontsize(8)
axes[0].set_ylabel(r"$\sigma$")
fig.colorbar(mesh, ax=axes, label="log10 |error|", shrink=0.8)
plt.show()
display(Markdown(f"Largest difference between eq. 18 (with the integrals) and eq. 21 over the grid: "
                 f"{eq18_gap:.1e} nats."))

# %% [markdown]
# **Figure A5.6.** $\log_{10}$ of the absolute relative error of each appendix-C approximation
# against the exact sum over ranks 1 to infinity; the cyan contour marks an error of
# `approx_tolerance`. Light regions are accurate. Blank cells are where the exact value is zero
# to machine precision (almost every target at rank 1), so a relative error is undefined.
#
# ## Which term dominates?
#
# Appendix C splits CE as $\log(\sqrt{2\pi}\sigma) + \log c + \mu^2/(2\sigma^2) + $ a remainder
# (eq. 26), and $-\log p_1$ as the first three of these. It argues that as $|\mu|$ grows, $\log c$
# becomes the dominant part of CE (the review version says the same of $\mu^2/(2\sigma^2)$), which
# would make CE and $-\log p_1$ behave alike. Following $\mu$ to large negative values at the
# median $\sigma$ fitted to the families' models, with the exact sums:

# %%
sigma_path = float(ranks_table["sigma"].median())
path = [rankdist.appendix_c_exact(m, sigma_path) for m in dominance_mus]
terms = pd.DataFrame([{"mu": p.mu, "sigma": p.sigma, **p.ce_terms(), "CE": p.ce, "-log p_1": p.neg_log_p1}
                      for p in path])
terms.style.hide(axis="index").format(precision=3)

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
# token far down more often; their fitted $\mu$ can be large, and then a sizeable share of the
# fitted lognormal lies beyond the vocabulary, where appendix C's infinite sums still count it.
# The appendix-C checks on the $(\mu, \sigma)$ grid do not depend on the models at all.
#
# Rules. Claims about size are tested on every (corpus, family) pair of a family with at least
# `min_sizes` sizes: reproduced if they hold on every pair, partly if on some. Claims about single
# models are tested on every model of every family (and the reference claim on the set's
# reference models).
# - *Lognormal ranks* (families' models; separately, reference models): the lognormal beats the
#   power law (Vuong $z > 0$, $p < 0.05$) for every model and corpus, and its KS distance is at
#   most `max_ks_distance` (partly: it wins for some).
# - *$\mu/\sigma$ steady in size*: the straight-line fit of $\mu/\sigma$ against $\ln S$ has
#   $R^2 \ge$ `min_r2`.
# - *$\mu$ falls, $\sigma$ grows mildly*: the fitted lines of $\mu$ and $\sigma$ against $\ln S$
#   fall and rise respectively.
# - *Shared exponent, measured (Fig. 8a) and predicted (Fig. 8b)*: the slope ratio of
#   $-\log \mathrm{RBP}_1$ (or $-\log p_1$) to CE lies within `ratio_band`, both fits with
#   $R^2 \ge$ `min_r2`.
# - *Prediction matches measurement*: the predicted slopes (appendix C formulas) are within
#   `ratio_band` of the measured ones, for CE and for $-\log \mathrm{RBP}_1$.
# - *Approximations accurate*: at every fitted $(\mu,\sigma)$, reference models included, the
#   closed forms of CE and $-\log p_1$ are within `approx_tolerance` of the exact infinite sums
#   (all models; partly: some).
# - *Ranks may run to infinity*: at every fitted $(\mu,\sigma)$ eq. 21 is within
#   `approx_tolerance` of the exact entropy on ranks 1 to the model's vocabulary size (partly:
#   some).
# - *$\log c$ dominates CE*: at the end of the $\mu$ path, $|\mathrm{CE} - \log c| \le |\mathrm{CE}|/2$.

# %%
def exponent_ratio(c, family, ce_col, p1_col):
    """Slope ratio and whether both fits are good enough to compare exponents."""
    ce, p1 = law_fits[c, family, ce_col], law_fits[c, family, p1_col]
    if ce is None or p1 is None:
        return np.nan, False
    return p1.slope / ce.slope, min(ce.r2, p1.r2) >= min_r2


def in_band(x):
    return bool(ratio_band[0] <= x <= ratio_band[1])


def shared_exponent(ratio_and_fit):
    ratio, good_fits = ratio_and_fit
    return good_fits and in_band(ratio)


def fmt_ratios(ratios):
    return "; ".join(f"{c}/{family}: {r:.2f}" + ("" if good else f" (a fit has R^2 below {min_r2})")
                     for (c, family), (r, good) in ratios.items())


def lognormal_evidence(table, by):
    """Verdict and summary of the lognormal-against-power-law comparison over ``table``'s rows,
    counted per value of the column ``by``."""
    wins = (table["Vuong z"] > 0) & (table["Vuong p"] < 0.05)
    close = table["KS lognormal"] <= max_ks_distance
    verdict = "reproduced" if (wins & close).all() else "partly" if wins.any() else "not reproduced"
    per_group = "; ".join(f"{name}: {w.sum()} of {len(w)}" for name, w in wins.groupby(table[by], sort=False))
    return verdict, (f"lognormal preferred in {wins.sum()} of {len(wins)} model/corpus pairs ({per_group}; Vuong z "
                     f"{table['Vuong z'].min():.1f} to {table['Vuong z'].max():.1f}); KS distance "
                     f"{table['KS lognormal'].min():.3f}-{table['KS lognormal'].max():.3f} (power law "
                     f"{table['KS power law'].min():.3f}-{table['KS power law'].max():.3f})")


pairs = [(c, family) for c in corpora for family in usable]
skipped = f" (not tested on: {'; '.join(unusable)})" if unusable else ""
no_family = f"no family has {min_sizes} or more sizes ({'; '.join(unusable)})"
lognormal_verdict, lognormal_ours = lognormal_evidence(ranks_table, "family")
if len(reference_table):
    reference_verdict, reference_ours = lognormal_evidence(reference_table, "model")
else:
    reference_verdict, reference_ours = report.NOT_TESTABLE, "this set has no reference model"
semilog = {pair: tuple(fit.fit_semilog(family_rows(ranks_table, *pair)["S"], family_rows(ranks_table, *pair)[col])
                       for col in ("mu", "sigma")) for pair in pairs}
measured_ratio = {(c, fam): exponent_ratio(c, fam, "CE measured", "-log RBP_1 measured") for c, fam in pairs}
predicted_ratio = {(c, fam): exponent_ratio(c, fam, "CE predicted (eq. 21)", "-log p_1 predicted (eqs. 16, 20)")
                   for c, fam in pairs}
match = {(c, fam): [law_fits[c, fam, p].slope / law_fits[c, fam, m].slope
                    if law_fits[c, fam, p] and law_fits[c, fam, m] else np.nan
                    for m, p in (("CE measured", "CE predicted (eq. 21)"),
                                 ("-log RBP_1 measured", "-log p_1 predicted (eqs. 16, 20)"))]
         for c, fam in pairs}
fitted_errors = [(rankdist.appendix_c_approx(m, s), rankdist.appendix_c_exact(m, s))
                 for m, s in zip(all_table["mu"], all_table["sigma"])]
worst_ce = max(abs(a.ce / e.ce - 1) for a, e in fitted_errors)
worst_p1 = max(abs(a.neg_log_p1 / e.neg_log_p1 - 1) for a, e in fitted_errors)
accurate = [abs(a.ce / e.ce - 1) <= approx_tolerance and abs(a.neg_log_p1 / e.neg_log_p1 - 1) <= approx_tolerance
            for a, e in fitted_errors]
truncation_gap = (all_table["CE predicted (eq. 21)"] / all_table["CE predicted (ranks 1..V)"] - 1).abs()
vocabularies = ", ".join(f"{v:,}" for v in sorted(all_table["V"].unique()))
end = path[-1]
dominates = abs(end.ce - end.log_c) <= abs(end.ce) / 2


def size_verdict(flags, ours):
    """A claim about size, graded on the testable (corpus, family) pairs or not testable."""
    if not pairs:
        return no_family, report.NOT_TESTABLE
    return ours + skipped, report.grade(flags)


verdicts = report.verdict_table("A5", [
    report.Verdict("Ranks of the correct token follow a lognormal (§5.2, Fig. 8c)", "good fit (no statistic given)",
                   lognormal_ours, lognormal_verdict),
    report.Verdict("The rank distribution of a real pretrained model (the set's reference) is lognormal (Fig. 8c)",
                   "good fit on Pythia (no statistic given)",
                   ("outside every size fit; " + reference_ours) if len(reference_table) else reference_ours,
                   reference_verdict),
    report.Verdict("mu/sigma changes steadily (roughly linearly) with size (review version, Fig. 8d)",
                   "approximately linear", *size_verdict(
                       [mu_sigma_fits[p].r2 >= min_r2 for p in pairs],
                       "; ".join(f"{c}/{fam}: R^2 {mu_sigma_fits[c, fam].r2:.3f} vs ln S" for c, fam in pairs))),
    report.Verdict("mu falls and sigma grows mildly with size (App. C)", "Pythia: mu falls, sigma grows mildly",
                   *size_verdict([m.slope < 0 < s.slope for m, s in semilog.values()],
                                 "; ".join(f"{c}/{fam}: d mu/d ln S {m.slope:.3f}, d sigma/d ln S {s.slope:.3f}"
                                           for (c, fam), (m, s) in semilog.items()))),
    report.Verdict("Measured CE and -log RBP_1 share nearly the same exponent (§5.2, Fig. 8a)", "nearly identical",
                   *size_verdict([shared_exponent(r) for r in measured_ratio.values()],
                                 "slope ratio RBP_1/CE " + fmt_ratios(measured_ratio))),
    report.Verdict("The lognormal fits predict CE and -log p_1 with nearly the same exponent (§5.2, Fig. 8b)",
                   "nearly identical", *size_verdict([shared_exponent(r) for r in predicted_ratio.values()],
                                                     "slope ratio -log p_1/CE " + fmt_ratios(predicted_ratio))),
    report.Verdict("The predicted scaling resembles the measured one (Figs. 8a-8b)", "similar",
                   *size_verdict([in_band(a) and in_band(b) for a, b in match.values()],
                                 "predicted/measured slope (CE, -log RBP_1) "
                                 + "; ".join(f"{c}/{fam}: {a:.2f}, {b:.2f}" for (c, fam), (a, b) in match.items()))),
    report.Verdict("Appendix C's integral approximations (eqs. 14-21) are accurate", "stated as approximations",
                   f"at the fitted (mu, sigma){', reference models included' if len(reference_table) else ''}: "
                   f"worst relative error CE {worst_ce:.1%}, "
                   f"-log p_1 {worst_p1:.1%}; {sum(accurate)} of {len(accurate)} within {approx_tolerance:.0%}",
                   report.grade(accurate)),
    report.Verdict("Ranks may be summed to infinity: the vocabulary bound does not matter (implicit in App. C)",
                   "not discussed", f"eq. 21 vs the exact entropy on ranks 1..V (V = {vocabularies}): relative gap "
                   f"{truncation_gap.min():.1%}-{truncation_gap.max():.1%}",
                   report.grade(list(truncation_gap <= approx_tolerance))),
    report.Verdict("As |mu| grows, log c becomes the dominant part of CE (App. C, eqs. 24-26)", "log c dominates",
                   f"at mu = {end.mu:g}, sigma = {end.sigma:.2f}: log c = {end.log_c:.1f}, mu^2/(2 sigma^2) = "
                   f"{end.mu**2 / (2 * end.sigma**2):.1f}, CE = {end.ce:.2f}",
                   "reproduced" if dominates else "not reproduced"),
])
