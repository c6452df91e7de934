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
# # B5 · How many evaluation tokens do the components need? (beyond paper B)
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# Cross-entropy is a plain average over tokens: with fewer tokens it gets noisier but not
# biased. Its three components are not averages. Error-Entropy is the entropy of an *estimated*
# distribution $p_e$ over thousands of possible ranks, Self-Alignment a divergence between two
# estimated distributions, and Confidence the logarithm of a sum of per-rank geometric means.
# With a finite sample, many RBE values are seen only once or twice; their $p_e$ and $Q_e$ are
# then dominated by chance, and such plug-in estimators are biased. The plug-in entropy is
# biased downwards, so EE is underestimated; Self-Alignment is biased upwards. Because CE itself
# is unbiased and CE = EE + SA − Conf holds on every sample, the biases of the three terms
# cancel in sum.
#
# Paper B evaluates on 1,000 instances (documents, cut to their first 512 tokens) per dataset
# and reports that selected experiments gave identical trends with 10,000 (its App. A.1). This
# chapter measures on the model set's families how EE, SA and Confidence, and their scaling
# exponents, change with the number of evaluation tokens, and from that how many tokens each
# figure of chapters B1-B4 needs; it then repeats the paper's own check, counted in instances,
# where the set holds enough of them. The same measurement decides which exponents [chapter B3](b3_component_scaling)
# may grade (`rankscale.analysis.sample_size.convergence_by_group`, with the settings of
# `rankscale.claims`). Components use paper B's 0-based strict RBE $e$ = `gt`.

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set
model_index = -1  # the model of each family shown in detail (-1: the family's largest)
seed = 0

# %%
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from rankscale import claims
from rankscale.analysis import components, fit, metrics, sample_size
from rankscale.book import pages, plots
from rankscale.book.chapter import open_chapter
from rankscale.claims import paper_b
from rankscale.records import runs
from rankscale.corpora import get_corpus

chapter = open_chapter(profile, corpora)
model_set, corpora, family_runs, families = chapter.model_set, chapter.corpora, chapter.family_runs, chapter.families
usable, unusable, pooled_reason = chapter.usable, chapter.unusable, chapter.pooled_reason
models = family_runs[corpora[0]]  # the same models, in the same order, on every corpus
sizes = runs.sizes(models)
family_of = np.array([run.family for run in models])
# the fits whose exponents are graded: each family with enough sizes, and all models pooled
groups = {family: np.flatnonzero(family_of == family) for family in usable}
if pooled_reason is None:
    groups[fit.POOLED] = np.arange(len(models))
quantities = list(components.QUANTITIES)
n_repeats = claims.B5_N_REPEATS
grids, subsamples, full, available = {}, {}, {}, {}
for corpus in corpora:
    records = [run.records for run in family_runs[corpus]]
    available[corpus] = [len(r) for r in records]
    # families with other tokenizers have other token counts: the grid goes up to the fewest
    grids[corpus] = sample_size.token_grid(min(available[corpus]), claims.B5_MIN_TOKENS, claims.B5_N_GRID)
    for m, sub in enumerate(sample_size.subsample_models(records, grids[corpus], n_repeats, seed)):
        subsamples[corpus, m] = sub
        full[corpus, m] = metrics.ce_decomposition(records[m].logp, records[m].gt).terms()
shown = {}
for family in families:
    idx = np.flatnonzero(family_of == family)
    shown[family] = idx[model_index % len(idx)]
uneven = [c for c in corpora if len(set(available[c])) > 1]
display(Markdown(
    f"{n_repeats} subsamples of whole windows per size, {len(grids[corpora[0]])} sizes from "
    f"{grids[corpora[0]][0]:,} tokens up to every token; the model shown in detail for each family: "
    + ", ".join(f"{family} {models[m].name}" for family, m in shown.items()) + "."
    + (f" On {', '.join(uneven)} the models have different numbers of tokens (their tokenizers differ); "
       "the subsample sizes there go up to the smallest of them." if uneven else "")))

# %% [markdown]
# ## Subsampling
#
# For each corpus the held-out windows are shuffled (fixed seed) and the shortest run of whole
# windows holding at least $n$ tokens is taken, for a grid of $n$ from a thousand tokens up to
# every held-out token (`rankscale.analysis.sample_size.subsampled_decompositions`); this is repeated with
# different shuffles. Whole windows are kept
# together because neighbouring tokens are correlated, as they would be in a smaller evaluation
# set. Every model of a family sees the same subsamples, so differences between those models
# are not sampling noise of the text. At the largest $n$ every repeat holds the full set and
# the spread is zero.
#
# ## The components against the number of tokens
#
# {numref}`fig-b5-components-tokens` has one column per family, showing the model selected by
# `model_index` (by default the family's largest), and one row per quantity.

# %% mystnb={"figure": {"caption": "CE, EE, SA and Conf (rows) of one model per family (columns) against the number of evaluation tokens in subsamples of whole windows: mean over the repeats (line), one standard deviation (band) and the value on all tokens (dotted). Colours are corpora here, not families.", "name": "fig-b5-components-tokens"}}
fig, axes = plots.panels(len(quantities), len(families), 2.4, sharex=True, sharey="row")
for column, (family, i) in zip(axes.T, shown.items()):
    for ax, quantity in zip(column, quantities):
        for j, corpus in enumerate(corpora):
            values = subsamples[corpus, i][quantity]
            n = subsamples[corpus, i]["n_tokens"].mean(axis=1)
            ax.semilogx(n, values.mean(axis=1), "o-", ms=3, color=f"C{j}", label=corpus)
            ax.fill_between(n, values.mean(axis=1) - values.std(axis=1), values.mean(axis=1) + values.std(axis=1),
                            color=f"C{j}", alpha=0.2)
            ax.axhline(full[corpus, i][quantity], color=f"C{j}", ls=":", lw=1)
    column[0].set_title(f"{family} {models[i].name}")
    column[-1].set_xlabel("evaluation tokens")
for ax, quantity in zip(axes[:, 0], quantities):
    ax.set_ylabel(f"{quantity} (nats)")
plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
plots.show(fig)

# %% [markdown]
# CE should wander around its full-set value, with a spread that shrinks as tokens are added,
# but without systematic drift. The components are expected to drift: the plug-in entropy EE
# upwards as more ranks get sampled, SA downwards. Confidence moves with them, since the drifts
# of EE, SA and Conf cancel in CE. Where a curve is still moving at the right edge, the value on
# all tokens, and with it the figures of chapters B1-B4, has not converged either.
#
# ## Why: ranks seen only once
#
# The number of distinct RBE values in a sample keeps growing with the sample, and a large part
# of them are seen exactly once. For such a rank $p_e = 1/N$ and $Q_e$ is one prediction's
# probability, so its term in SA, $p_e \log(p_e / q_e)$, is set by chance. Confidence has a
# second, simpler reason to depend on the sample: $C = \sum_e Q_e$ sums over the RBE values that
# *occur*, so every newly seen rank adds a term and $C$ grows with the sample until all $V$ ranks
# have been seen. The sign of Confidence can therefore change with nothing but the number of
# evaluation tokens. {numref}`fig-b5-ranks-seen` shows how many distinct RBE values a sample
# holds, and what fraction of them it holds once, for the models above.

# %% mystnb={"figure": {"caption": "Distinct RBE values in a subsample (left) and the fraction of them seen exactly once (right) against the number of evaluation tokens, for the models of the previous figure (one row per family; colours are corpora). The dashed line is the family's vocabulary size $V$, the number of RBE values there are.", "name": "fig-b5-ranks-seen"}}
fig, axes = plots.panels(len(families), 2, 2.8, sharex=True, sharey="col")
for row, (family, i) in zip(axes, shown.items()):
    for j, corpus in enumerate(corpora):
        sub = subsamples[corpus, i]
        n = sub["n_tokens"].mean(axis=1)
        row[0].semilogx(n, sub["ranks_seen"].mean(axis=1), "o-", ms=3, color=f"C{j}", label=corpus)
        row[1].semilogx(n, (sub["ranks_seen_once"] / sub["ranks_seen"]).mean(axis=1), "o-", ms=3, color=f"C{j}")
    row[0].axhline(models[i].vocab_size, color="grey", ls="--", lw=1, label="vocabulary V")
    row[0].set_ylabel("distinct RBE values")
    row[1].set_ylabel("fraction seen exactly once")
    for ax in row:
        ax.set_title(f"{family} {models[i].name}")
for ax in axes[-1]:
    ax.set_xlabel("evaluation tokens")
plots.legend_below(fig, axes[0, 0].get_legend_handles_labels()[0])
plots.show(fig)

# %% [markdown]
# ## Every model, and the scaling exponents
#
# The figures of chapters B3 and B4 compare models. A bias that were the same for every model
# would not matter for them; it is not, because weaker models spread their targets over more
# ranks. {numref}`fig-b5-exponents-tokens` shows, on the first corpus, SA of every model and
# the size exponents of every fit whose exponents the verdicts grade (each family with at least
# three sizes, and all models pooled as in [chapter B3](b3_component_scaling)), against the number of tokens.

# %%
convergence = {}
for corpus in corpora:
    for group, idx in groups.items():
        convergence[corpus, group] = sample_size.exponent_convergence(
            sizes[idx], [subsamples[corpus, m] for m in idx],
            [[full[corpus, m][q] for q in quantities] for m in idx], claims.B5_EXPONENT_TOLERANCE)
if not groups:
    display(Markdown(f"No exponent is graded on this set: no family has {claims.MIN_SIZES} or more sizes "
                     f"({'; '.join(unusable)}); the figure shows SA of every model only."))

# %% mystnb={"figure": {"caption": "First panel (top left): SA of every model against the number of evaluation tokens on the first corpus, in its family's colour and marker (lighter for smaller models). Then one panel per graded fit, on the same corpus: the size exponent $\\alpha_M$ of each quantity (paper B, eq. 9, colours in the legend) against the number of tokens, the mean over repeats of the exponents fitted on each repeat's subsample, with the exponent on all tokens dotted.", "name": "fig-b5-exponents-tokens"}}
corpus = corpora[0]
n_cols = min(2, 1 + len(groups))  # two across, so that the text stays at body size (plots.show)
n_rows = -(-(1 + len(groups)) // n_cols)
fig, axes = plots.panels(n_rows, n_cols, 3.0)
for ax in axes.flat[1 + len(groups):]:
    ax.set_visible(False)
axes = axes.flat[:1 + len(groups)]
for family in families:
    idx = np.flatnonzero(family_of == family)
    style = plots.family_style(model_set, family)
    for rank, m in enumerate(idx):
        sub = subsamples[corpus, m]
        axes[0].semilogx(sub["n_tokens"].mean(axis=1), sub["SA"].mean(axis=1), "-", marker=style["marker"], ms=3,
                         color=style["color"], alpha=0.35 + 0.65 * (rank + 1) / len(idx))
axes[0].set_title(f"SA of every model · {corpus}")
axes[0].set_ylabel("SA (nats)")
# the families' legend where SA has fallen away, top right; the exponents' colours (the same C0, C1, ...) below
axes[0].legend(handles=plots.family_handles(model_set, families, ms=3), loc="upper right")
for ax, group in zip(axes[1:], groups):
    for k, quantity in enumerate(quantities):
        conv = convergence[corpus, group][quantity]
        ax.semilogx(grids[corpus], np.nanmean(conv.exponents, axis=1), "o-", ms=3, color=f"C{k}")
        ax.axhline(conv.full, color=f"C{k}", ls=":", lw=1)
    ax.axhline(0, color="k", lw=0.5)
    ax.set(title=f"{group} ({len(groups[group])} models)", ylabel="size exponent of |M|")
for ax in axes:
    ax.set_xlabel("evaluation tokens")
if groups:
    plots.legend_below(fig, [Line2D([], [], marker="o", ms=3, color=f"C{k}", label=f"α_{quantity}")
                             for k, quantity in enumerate(quantities)])
plots.show(fig)

# %% [markdown]
# ## How many tokens each figure needs
#
# The value on all tokens cannot serve as the truth when it is itself still drifting, so the
# error of an estimate from $n$ tokens is estimated from the data at hand: the spread of the
# repeats at $n$, combined with how much their mean still moved over the last doubling, from
# $n/2$ to $n$ tokens (for a bias that shrinks like $1/n$, that change equals the bias left at
# $n$; `rankscale.analysis.sample_size.sample_size_error`). A figure needs $n$ tokens if this error is within
# the tolerance at $n$ and at every larger size of the grid. The tolerances are fixed in
# `rankscale.claims` (stated under the table): for a component's value a fraction of CE, for an
# exponent a fraction of $|\alpha_{\mathrm{CE}}|$ of the same fit. The exponents' tolerance is
# relative to CE's exponent rather than to their own because paper B compares every exponent
# with CE's (its Table 2), and a component that does not scale has an exponent near zero,
# relative to which no error would count as small. For the values the table gives, per family,
# the largest requirement over the family's models; exponents are those of the graded fits above.
# "more than available" means that the estimate was still moving over the last doubling up to
# the full held-out set: the page's figure for it is not converged. [Chapter B3](b3_component_scaling) grades its claim
# that SA rises only where SA's exponent reads converged here, and widens its comparisons of
# exponents by their drift.

# %%
rows = []
for corpus in corpora:
    n_full = grids[corpus][-1]
    for family in families:
        idx = np.flatnonzero(family_of == family)
        for quantity in quantities:
            per_model = [sample_size.tokens_needed(grids[corpus], subsamples[corpus, m][quantity],
                                               claims.B5_VALUE_TOLERANCE * full[corpus, m]["CE"]) for m in idx]
            rows.append({"corpus": corpus, "fit": family, "figure": f"{quantity} value",
                         "tokens needed": np.max(per_model), "available": n_full})
    for group in groups:
        for quantity in quantities:
            rows.append({"corpus": corpus, "fit": group, "figure": f"α_{quantity} exponent",
                         "tokens needed": convergence[corpus, group][quantity].needed, "available": n_full})
needs = pd.DataFrame(rows)
needs["converged"] = needs["tokens needed"].notna()
needs["reading"] = [f"{int(t):,}" if ok else "more than available"
                    for t, ok in zip(needs["tokens needed"], needs.converged)]
order = ([(family, f"{q} value") for family in families for q in quantities]
         + [(group, f"α_{q} exponent") for group in groups for q in quantities])
display(needs.pivot(index=["fit", "figure"], columns="corpus", values="reading").loc[order, corpora].style.set_caption(
    "Evaluation tokens each figure needs before its estimate settles within the tolerance, per fit and quantity "
    "(rows) and corpus (columns); a value's need is the largest over the family's models."))
display(Markdown(f"Tolerances: values within {claims.B5_VALUE_TOLERANCE:.0%} of CE; exponents within "
                 f"{claims.B5_EXPONENT_TOLERANCE} × $|\\alpha_{{\\mathrm{{CE}}}}|$."))

has_checkpoints = any(f.ladder.checkpoint_sizes if f.ladder else any(m.checkpoints for m in f.models)
                      for f in model_set.families)
values_needed = needs[needs.figure.str.endswith("value")]
converged_text = (f"Component values are converged within the tolerance on the available tokens in "
                  f"{int(values_needed.converged.sum())} of {len(values_needed)} (quantity, family, corpus) cases")
if has_checkpoints:
    budget = {c: min(model_set.checkpoint_tokens or grids[c][-1], grids[c][-1]) for c in corpora}
    meets = sum(int(row["tokens needed"] <= budget[row.corpus]) for _, row in values_needed.iterrows())
    checkpoint_text = (" training checkpoints (chapter B2) on "
                       + (f"{model_set.checkpoint_tokens:,} tokens per corpus" if model_set.checkpoint_tokens
                          else "the same tokens")
                       + f". {converged_text}; the checkpoint budget meets the requirement in {meets} of "
                       f"{len(values_needed)}.")
else:
    checkpoint_text = f" no training checkpoints (chapter B2 has none to show). {converged_text}."
display(Markdown(
    f"Set `{model_set.name}` evaluates final models on "
    + ", ".join(f"{'/'.join(f'{n:,}' for n in sorted(set(available[c])))} ({c})" for c in corpora)
    + " tokens and" + checkpoint_text
))

# %% [markdown]
# ## Paper B's own check: 1,000 against 10,000 instances (App. A.1)
#
# Paper B counts its evaluation sample in *instances*: it shuffles each dataset, keeps the first
# 1,000 documents and evaluates each one's first 512 tokens, and it reports that selected
# experiments repeated with 10,000 instances showed identical trends. An instance is therefore
# one evaluation window, and the paper's check compares the trends on 1,000 windows with those
# on 10,000. The trends of its §4 are the signs of the size exponents: CE and EE fall with size,
# SA rises; Confidence has no consistent trend (§4.1), so it is not compared. The check is
# repeated here literally where every model of a fit has at least 10,000 windows, and, as this
# companion's own question, at this set's scale: a tenth of the set's windows against all of
# them, the same ratio. Subsamples of windows are drawn as above (`unit="windows"`), and the
# exponent at each count is the mean over the repeats.

# %%
n_windows = {c: [sample_size.n_windows(run.records.window) for run in family_runs[c]] for c in corpora}
window_len = {c: family_runs[c][0].records.manifest.identity["window_len"] for c in corpora}
one_per_document = {c: get_corpus(c).sampling.windows_per_document == 1 for c in corpora}
small_paper, large_paper = claims.B5_PAPER_INSTANCES
instance_trends, tenth_trends = {}, {}
for c in corpora:
    records = [run.records for run in family_runs[c]]
    for group, idx in groups.items():
        fewest = min(n_windows[c][m] for m in idx)
        if fewest >= large_paper:
            instance_trends[c, group] = sample_size.instance_exponents(
                sizes[idx], [records[m] for m in idx], [small_paper, large_paper], n_repeats, seed)
        tenth = max(1, round(fewest / claims.B5_SET_FRACTION))
        tenth_trends[c, group] = (tenth, fewest, sample_size.instance_exponents(
            sizes[idx], [records[m] for m in idx], [tenth, fewest], n_repeats, seed))
display(Markdown("\n".join(
    f"- `{c}`: an instance is a window of at most {window_len[c]} tokens, "
    + ("one per document (the papers' sampling)" if one_per_document[c]
       else "cut from the documents in order, several per document where a document is longer")
    + f"; the set holds {'/'.join(f'{n:,}' for n in sorted(set(n_windows[c])))} per model"
    + (f", at least the {large_paper:,} the paper's check needs." if min(n_windows[c]) >= large_paper
       else f", fewer than the {large_paper:,} the paper's check needs.")
    for c in corpora)))
trend_rows = []
for (c, group), (tenth, fewest, exps) in tenth_trends.items():
    for k, q in enumerate(quantities):
        row = {"corpus": c, "fit": group, "quantity": f"α_{q}", f"1/{claims.B5_SET_FRACTION} of the windows": exps[0, k],
               "all windows": exps[1, k]}
        if (c, group) in instance_trends:
            row[f"{small_paper:,} windows"], row[f"{large_paper:,} windows"] = instance_trends[c, group][:, k]
        trend_rows.append(row)
if trend_rows:
    trend_table = pd.DataFrame(trend_rows)
    fraction, every = f"1/{claims.B5_SET_FRACTION} of the windows", "all windows"
    change = (trend_table[every] - trend_table[fraction]).abs().groupby(trend_table["quantity"], sort=False).max()
    both = trend_table[[fraction, every]].dropna()
    flips = int((np.sign(both[every]) != np.sign(both[fraction])).sum())
    display(Markdown(
        f"Headline numbers of the table below: from {fraction} to {every}, the largest change of each exponent is "
        + ", ".join(f"{q} {d:.4f}" for q, d in change.items())
        + f"; the exponent changes sign in {flips} of the {len(both)} rows."))

# %% tags=["hide-output"]
if trend_rows:
    display(trend_table.style.format({col: "{:+.4f}" for col in trend_table.columns[3:]}, na_rep="—")
            .hide(axis="index").set_caption(
                f"Size exponents per corpus, fit and quantity on {fraction} and on {every} (each the mean over "
                f"{n_repeats} draws of windows), and on {small_paper:,} and {large_paper:,} windows where every model "
                "has that many."))

# %% [markdown]
# ## Verdicts
#
# Each rule is fixed in `rankscale.claims` (shown in the table) and decided by a function of
# `rankscale.claims.paper_b`: *reproduced* if it holds on every unit tested, *partly* on some,
# *not reproduced* on none. Only the App. A.1 row is a claim of paper B; the bias rows are this
# companion's measurements (the one on EE holds by construction, so it is marked analytic), and
# so is the last row, which asks whether this set's held-out data are enough for everything the
# chapters B1-B4 report. The bias rules read the mean over repeats at the smallest subsample
# with its 95% interval ($\pm 1.96$ standard errors over the repeats), and claim a direction, so
# the whole interval must lie on the claimed side of the value on all tokens.

# %%
smallest = {q: {f"{c}/{fam}": (np.stack([subsamples[c, m][q][0] for m in np.flatnonzero(family_of == fam)]),
                               np.array([full[c, m][q] for m in np.flatnonzero(family_of == fam)]))
               for c in corpora for fam in families} for q in ("SA", "EE")}
no_trend = unusable + ([f"pooled fit ({pooled_reason})"] if pooled_reason is not None and len(families) > 1 else [])
no_fit = f"no fit to test: {'; '.join(unusable + ([pooled_reason] if pooled_reason else []))}"
short = {c: max(n_windows[c]) for c in corpora if min(n_windows[c]) < large_paper}
why_not_paper = (f"an instance is an evaluation window; every corpus holds fewer than {large_paper:,} per model ("
                 + ", ".join(f"{c} {'/'.join(f'{n:,}' for n in sorted(set(n_windows[c])))}" for c in corpora) + ")"
                 if groups else no_fit)
sa_shift = np.concatenate([sub.mean(axis=1) - on_all for sub, on_all in smallest["SA"].values()])
measured = [f"On about {grids[corpora[0]][0]:,} tokens, Self-Alignment reads {plots.span(sa_shift, '+.3f')} nats off its "
            "value on all tokens."]
verdicts = pages.verdict_table("B5", [
    paper_b.subsample_bias("B5.1", "SA", 1, smallest["SA"], grids[corpora[0]][0]),
    paper_b.subsample_bias("B5.2", "EE", -1, smallest["EE"], grids[corpora[0]][0]),
    paper_b.same_trends("B5.3", {f"{c}/{g}": exps for (c, g), exps in instance_trends.items()},
                        label=f"{small_paper:,}→{large_paper:,} windows",
                        untested=no_trend + [f"{c} (at most {most:,} windows per model)" for c, most in short.items()],
                        paper="identical trends with 1k and 10k instances", why_not=why_not_paper),
    paper_b.same_trends("B5.4", {f"{c}/{g}": exps for (c, g), (_, _, exps) in tenth_trends.items()},
                        label="a tenth of the windows → all",
                        notes={f"{c}/{g}": f"({tenth:,}→{fewest:,})" for (c, g), (tenth, fewest, _) in tenth_trends.items()},
                        untested=no_trend, why_not=no_fit),
    paper_b.data_suffice({c: needs[needs.corpus == c].converged.tolist() for c in corpora}),
], model_set.name, measured)

# %% [markdown]
# ## Run it on your models
#
# The same chapter runs on any families of models described in a TOML file ([Reproduce it](../reproduce)
# gives the layout); what each of its claims needs beyond two models per family is listed below.

# %%
pages.run_it_yourself("B5", verdicts);  # the semicolon: the Markdown is displayed, not its text echoed
