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
# # The offline ladder: what these models can and cannot show
#
# ````{admonition} What this set shows
# :class: tip
# ```{glue:md} findings
# :format: myst
# ```
# ````
#
# The offline model sets train their own families, a *ladder* of GPT-NeoX models and one of
# Llama-style models, on text the setup installs. Both papers fit laws such as
# $-\log \mathrm{RBP}_k \propto S^{-\alpha}$ to models trained by others on hundreds of billions
# of tokens. A ladder is cheaper in every respect that can bend such a law: data per parameter,
# vocabulary, seeds. This page states that regime in numbers, computed from each model's
# `ladder.json` and its results, and lists which verdicts it can limit, so that a claim that
# fails here can be told apart from evidence against a paper. For a set without ladders (the
# papers' hub models, a user's TOML set) it says so and shows the families' sizes.
#
# ```{admonition} A rule not fixed before the data
# :class: warning
# The GPT-NeoX ladder's shapes (width and depth at each size) were chosen while looking at a graded
# quantity: among the candidate ladders tried, the one kept put fewer kinks in $-\log \mathrm{RBP}_1$
# against size, and so had the higher $R^2$ on `pydocs`, than one that adds depth in bigger steps
# (the reasons are in `rankscale/sets/builtin.py`). The Llama-style ladder reuses four of those shapes.
# Claims about how well a power law fits these ladders (chapters A2 and A3) may therefore look
# better here than on a ladder fixed in advance, such as Pythia's aspect ratios. The extra seeds
# (below) were fixed before any of them was trained: each family's three cheapest sizes.
# ```

# %% tags=["parameters"]
profile = "tiny"
corpora = None  # None: every corpus of the model set

# %%
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from matplotlib.ticker import LogLocator
from myst_nb import glue

from rankscale import claims, paths
from rankscale.claims.base import claims_needing
from rankscale.analysis import metrics, seed_spread
from rankscale.analysis.bootstrap import span
from rankscale.book import pages, plots, regime as set_regime
from rankscale.book.chapter import open_chapter
from rankscale.claims.context import sample
from rankscale.models import ladder
from rankscale.records import runs
from rankscale.sets.registry import REGISTRY

chapter = open_chapter(profile, corpora, seeds=True)
model_set, corpora, family_runs = chapter.model_set, chapter.corpora, chapter.family_runs
metadata = ladder.ladder_models(model_set, paths.home()) if model_set.ladder_families else []
regime = ladder.regime(metadata) if metadata else pd.DataFrame()
KEYS = ["logp", "gt", "rank"]
resampling = chapter.context().resampling  # how every interval of the book draws the text: whole documents
seed_models, seed_exponents = [], []  # the scatter between training runs, where the set has extra seeds
for corpus in corpora:
    for family, members in runs.by_family(family_runs[corpus]).items():
        extra = chapter.seed_samples(corpus, members, KEYS)
        if not any(extra):
            continue
        found, slopes = seed_spread.seed_report(runs.sizes(members), [sample(run, KEYS) for run in members], extra,
                                                chapter.n_boot, **resampling(members))
        seed_models += [{"corpus": corpus, "family": family, "model": members[row.pop("index")].name, **row}
                        for row in found]
        seed_exponents += [{"corpus": corpus, "family": family, **row} for row in slopes]
seed_models, seed_exponents = pd.DataFrame(seed_models), pd.DataFrame(seed_exponents)
final = pd.DataFrame([{"family": run.family, "model": run.name, "non-embedding parameters": run.non_embedding,
                       "total parameters": run.total, "embedding share": 1 - run.non_embedding / run.total,
                       "corpus": corpus, "CE": metrics.cross_entropy(run.records.logp),
                       "RBP_1": float(metrics.rbp(metrics.rank_1based(run.records.gt, run.records.ge), [1])[0])}
                      for corpus in corpora for run in family_runs[corpus]])
papers = pages.papers_regime()
glue(pages.FINDINGS_KEY, Markdown(pages.ladder_findings(model_set.name, regime, final[final.corpus == corpora[0]],
                                                        papers, seed_exponents)), display=False)

# %% [markdown]
# ## The ladders, size by size
#
# One table per family: each model's non-embedding parameters $S$, its total parameters $M$ and
# the share of $M$ that the embeddings take (the input embeddings and the output head), the tokens
# it was trained on, tokens per parameter (training tokens over $S$), and its cross-entropy (CE, nats) and
# $\mathrm{RBP}_1$ on each held-out corpus. Each caption names the device the family's models
# trained on (`cpu`, or the GPU's name, from `ladder.json`): a GPU's kernels round otherwise, so
# its ladder is other weights than the CPU's. For a set without ladders, the training columns are
# absent.

# %%
scores = final.pivot_table(index=["family", "model"], columns="corpus", values=["CE", "RBP_1"], sort=False)
scores.columns = [f"{metric} {corpus}" for metric, corpus in scores.columns]
shown = final[final.corpus == corpora[0]][["family", "model", "non-embedding parameters", "total parameters",
                                            "embedding share"]]
if not regime.empty:  # a size's first row in the regime is its own run, the one every fit uses
    shown = shown.merge(regime.drop_duplicates(["family", "model"])[
        ["family", "model", "training tokens", "tokens per parameter", "runs at this size"]], on=["family", "model"])
shown = shown.merge(scores.reset_index(), on=["family", "model"])
if regime.empty:
    display(Markdown(f"Model set `{model_set.name}` has no ladder: its families were trained elsewhere, and this "
                     "page cannot know on how many tokens. Their sizes and scores:"))
for family, part in shown.groupby("family", sort=False):
    trained_on = "" if regime.empty else ", ".join(regime[regime.family == family]["trained on"].unique())
    display(part.drop(columns="family").style.hide(axis="index").format(
        {"non-embedding parameters": "{:,}", "total parameters": "{:,}", "embedding share": "{:.1%}",
         "training tokens": "{:,}", "tokens per parameter": "{:,.2f}"}
        | {c: "{:.3f}" for c in scores.columns}).set_caption(
        f"The {family} family, one model a row: its non-embedding parameters S, total parameters M and the "
        "embedding share 1 - S/M (input embeddings and output head)"
        + ("" if regime.empty else ", training tokens, tokens per parameter and runs at its size")
        + ", and its CE (nats) and RBP_1 on each held-out corpus."
        + (f" Trained on {trained_on}." if trained_on else "")))

# %% mystnb={"figure": {"caption": "Left: training tokens per non-embedding parameter against size, one line per ladder family (every size sees the same tokens, so the line falls as $1/S$). Right: CE on the first corpus against size; paper A's released CE of GPT-2 small and XL on Wikipedia (the paper's values, black stars) is drawn at their sizes for scale.", "name": "fig-ladder-regime"}}
released = pages.reference_table("rbp_released_gpt2_wikipedia")  # drawn at the papers' sizes (REGISTRY)
fig, ((left, right),) = plots.panels(1, 2, 3.4)
for family, part in shown.groupby("family", sort=False):
    style = plots.family_style(model_set, family)
    if not regime.empty:
        left.plot(part["non-embedding parameters"], part["tokens per parameter"], "-", marker=style["marker"],
                  color=style["color"], label=family)
    right.plot(part["non-embedding parameters"], part[f"CE {corpora[0]}"], "-", marker=style["marker"],
               color=style["color"], label=family)
right.plot([REGISTRY[m].non_embedding for m in released.model], released.ce, "*", color="black", ms=9,
           label="paper A: GPT-2 on Wikipedia")
left.set(yscale="log", ylabel="tokens per parameter", title="data per parameter")
if regime.empty:
    left.text(0.5, 0.5, "no ladder in this set", ha="center", va="center", transform=left.transAxes)
right.set(ylabel="CE (nats)", title=f"CE on {corpora[0]}")
plots.size_axes([left, right])
right.xaxis.set_major_locator(LogLocator(numticks=4))  # its six decades, all labelled, would touch
plots.legend_below(fig, right.get_legend_handles_labels()[0])  # the right panel has every family and the stars
plots.show(fig)

# %% [markdown]
# ## What a pass here means
#
# A failure on these models does not refute a paper; a pass does not confirm one either. A law
# read over a family whose CE barely moves says little about its form, and the tables below put
# in numbers how far it moves here. The first sets each corpus's CE range against what
# counting tokens alone reaches on the same held-out targets: add-$\alpha$ unigram and bigram
# models counted on one half of the documents and scored on the other, and the other way round
# (`rankscale.analysis.baselines.count_baselines`, each at the best of a few smoothings, so the
# baseline is as strong as counting can be). The second fits each family's main laws three ways:
# the papers' power law in the non-embedding size $S$, a logarithmic law in $S$ (the quantity
# linear in $\log S$), and a power law in the total size $M$, the measure of paper A's review
# version (its final version and paper B use $S$, as every chapter here does). Over a range this
# narrow, a power law and a logarithmic law are nearly the same curve, so a high $R^2$ tells them
# apart poorly; and with embeddings taking most of the parameters of the small models, $M$ moves
# far less than $S$ across a family, which steepens every exponent and changes every $R^2$. It
# also bends the laws: $M$ adds the embeddings, which grow with the width alone while $S$ grows
# with its square and the depth, so at the small end of a family, where the embeddings are most
# of $M$, $\log M$ moves far less than $\log S$, and a law straight in $S$ looks steep there and
# slower above. Measured in $M$, the slowing of the CE law that B4.3 reads (and B4.4 ties to EE's
# share) would appear from the size measure alone; every chapter fits against $S$.

# %%
set_models = set_regime.model_rows(family_runs)
set_laws = set_regime.law_rows(set_models)
baselines = set_regime.baseline_rows(family_runs)
display(baselines.style.hide(axis="index").format(
    {"targets": "{:,}", "unigram CE": "{:.3f}", "bigram CE": "{:.3f}", "unigram alpha": "{:g}", "bigram alpha": "{:g}",
     "smallest model CE": "{:.3f}", "largest model CE": "{:.3f}"}).set_caption(
    "What counting tokens reaches on each corpus's held-out targets (one row per tokenizer): add-alpha unigram and "
    "bigram CE (nats) counted on one half of the documents and scored on the other, with the smoothing that scored "
    "best, beside the CE of the families' smallest "
    "models (the highest) and largest models (the lowest) on the same targets."))
if set_laws.empty:
    display(Markdown(f"No family of model set `{model_set.name}` has {claims.MIN_SIZES} sizes: there is no law to fit."))
else:
    display(set_laws.style.hide(axis="index").format(
        {"change": "{:+.1%}", "R² power law (S)": "{:.4f}", "R² log law (S)": "{:.4f}", "slope (S)": "{:+.4f}",
         "R² power law (M)": "{:.4f}", "slope (M)": "{:+.4f}"}).set_caption(
        "The main laws of every family, per corpus: the change of the quantity from the smallest model to the "
        "largest, the R² of a power law in S (the papers' fit) beside that of a logarithmic law in S, and the "
        "log-log slope against S beside the R² and slope of the power law in total parameters M."))
    ce_laws = set_laws[set_laws["quantity"] == "CE"]
    display(Markdown(
        f"Over this set, the logarithmic law's $R^2$ for CE lies within "
        f"{(ce_laws['R² power law (S)'] - ce_laws['R² log law (S)']).abs().max():.3f} of the power law's on every "
        f"corpus and family; the embeddings take {span(set_models['embedding share'], '.1%')} of the parameters, "
        f"and measured in $M$ "
        f"the CE exponent is {(ce_laws['slope (M)'] / ce_laws['slope (S)']).min():.1f} to "
        f"{(ce_laws['slope (M)'] / ce_laws['slope (S)']).max():.1f} times its value in $S$."))

# %% [markdown]
# ## Seeds: how far a training run's luck moves the numbers
#
# Every interval in this book resamples the evaluation text (whole documents). A second source of scatter is
# the training run itself: the same recipe with another seed (another initialisation; the same
# sequences in the same order) gives a somewhat different model. Where a ladder trains
# some sizes more than once, the first table sets the two side by side for each such model:
# its CE and $\mathrm{RBP}_1$ from the run every fit uses, the standard deviation over its runs
# (*seed sd*) and over resamples of its evaluation documents, drawn as the book's intervals draw
# them (*text sd*). The second does the
# same for the log-log slope of each family's CE, Error-Entropy and $-\log \mathrm{RBP}_1$
# against size: its seed sd is the spread of the slope over every choice of one run per seeded
# size (tokens held fixed), its text sd the spread over resamples of the documents (runs held fixed).
# Every interval that reads a family's models (the size fits of chapters A2, A3, B3 and B4, and
# A1.4's comparisons of two models) carries both at every size. A seeded size draws one of its runs
# at random in each bootstrap replicate; a size trained once is moved in each replicate by one of
# the seeded sizes' runs' relative deviations from their size's mean (widened by $\sqrt{R/(R-1)}$ for
# $R$ runs, as deviations from a mean of $R$ runs are narrower than the runs' own scatter). The
# scatter is thus modelled, not measured, at the sizes trained once: taken to be the same share of a
# quantity at every size of the family as at its seeded sizes (`rankscale.analysis.bootstrap.resample`).

# %%
if seed_models.empty:
    display(Markdown(f"Model set `{model_set.name}` trains each size once: the scatter between training runs cannot "
                     "be measured here, and every interval in this book covers the evaluation text only."))
else:
    per_model = pd.DataFrame({
        "corpus": seed_models["corpus"], "family": seed_models["family"], "model": seed_models["model"],
        "runs": seed_models["runs"],
        **{f"{q} {what}": seed_models[q, what] for q in ("CE", "RBP_1") for what in ("value", "seed sd", "text sd")},
    })
    per_model["CE seed sd / text sd"] = per_model["CE seed sd"] / per_model["CE text sd"]
    display(per_model.style.hide(axis="index").format(
        {c: "{:.4f}" for c in per_model.columns if c.startswith(("CE", "RBP_1"))} | {"CE seed sd / text sd": "{:.1f}"})
        .set_caption("Seeded sizes: each model's CE and RBP_1 (its own run), with their spread over training runs "
                     "(seed sd) and over resamples of the documents of its own run (text sd)."))
    slopes = seed_exponents.rename(columns={"slope": "log-log slope", "choices": "run choices"})
    slopes["seed sd / text sd"] = slopes["seed sd"] / slopes["text sd"]
    display(slopes.style.hide(axis="index").format(
        {"log-log slope": "{:+.4f}", "text sd": "{:.4f}", "seed sd": "{:.4f}", "seed sd / text sd": "{:.1f}"})
        .set_caption("Each family's log-log slope against size (its own runs), with its spread over every choice of "
                     "one run per seeded size (seed sd) and over resamples of the documents (text sd)."))

# %% [markdown]
# ## Against the papers' models
#
# The papers' models, as the repository's reference tables give them (the papers' values, not
# results of this book): how many each paper evaluates, the span of their non-embedding sizes
# and their vocabularies; below, paper A's released CE and $\mathrm{RBP}_1$ of GPT-2 on
# Wikipedia, against this set's range on its corpora.

# %%
this_set = pd.DataFrame([{"models of": f"this set ({model_set.name})", "models": len(shown),
                          "smallest": shown["non-embedding parameters"].min(),
                          "largest": shown["non-embedding parameters"].max(),
                          "decades of size": np.log10(shown["non-embedding parameters"].max()
                                                      / shown["non-embedding parameters"].min()),
                          "vocabulary from": min(run.vocab_size for run in family_runs[corpora[0]]),
                          "vocabulary to": max(run.vocab_size for run in family_runs[corpora[0]])}])
display(pd.concat([papers, this_set]).style.hide(axis="index").format(
    {"smallest": "{:,}", "largest": "{:,}", "decades of size": "{:.2f}", "vocabulary from": "{:,}",
     "vocabulary to": "{:,}"}).set_caption(
    "The papers' models (the papers' values) beside this set's: how many, their smallest and largest non-embedding "
    "sizes, the decades between them, and their range of vocabularies."))
levels = pd.concat([released.assign(source="paper A's released results (Wikipedia)")[["source", "model", "ce", "rbp_1"]],
                    final.groupby("corpus", sort=False).agg(ce=("CE", "min"), rbp_1=("RBP_1", "max"))
                    .reset_index().assign(source="this set, best model per corpus",
                                          model=lambda t: t.corpus)[["source", "model", "ce", "rbp_1"]]])
display(levels.rename(columns={"ce": "CE (nats)", "rbp_1": "RBP_1"}).style.hide(axis="index")
        .format({"CE (nats)": "{:.3f}", "RBP_1": "{:.3f}"}).set_caption(
            "Paper A's released CE and RBP_1 of GPT-2 on Wikipedia beside this set's lowest CE and highest RBP_1 on "
            "each of its corpora (which may come from different models)."))

# %% [markdown]
# CE is measured in nats per token of each model's own tokenizer, so a CE of a 4,096-token
# vocabulary and one of a 50,000-token vocabulary are not the same unit of text; the comparison
# places the ladders' level, it does not rank them against GPT-2.
#
# ## Which verdicts this regime can limit
#
# A verdict of this book says whether a claim held *on this set's models*. Where the regime
# below is far from the papers', a claim that fails here is a statement about the regime before
# it is one about the paper.

# %%
vocab = min(run.vocab_size for run in family_runs[corpora[0]])
limits = []
if not regime.empty:
    limits.append(
        f"- **Size claims are data-limited.** Every size claim ({', '.join(claims_needing('three sizes'))}, and those needing four "
        f"sizes: {', '.join(claims_needing('four sizes'))}) reads a law along a size axis on which data per parameter falls from "
        f"{regime['tokens per parameter'].max():,.3g} to {regime['tokens per parameter'].min():.3g} tokens: the "
        "large models are stopped far earlier in their training than the small ones, which can flatten the law at "
        "the top. An exponent or $R^2$ that misses the paper's may be this, not the law.")
    sizes_runs = regime.drop_duplicates(["family", "model"])["runs at this size"]
    seeded = int((sizes_runs >= claims.B4_MIN_SEEDS).sum())
    limits.append(
        f"- **Curvature needs seeds.** {', '.join(claims_needing('two seeds'))} read a bend of the CE law, which one "
        f"training run per size cannot tell from one run's luck; this set has "
        + (f"{int(sizes_runs.max())} runs at {seeded} of its {len(sizes_runs)} sizes and one at the others, so "
           "the scatter between runs measured at the seeded sizes is carried, declared, to the others (the same "
           "share of CE taken to hold there too): a bend is read against it, not against a measured scatter at "
           "every size" if seeded else "one run per size, so these verdicts are undetermined here")
        + ". Every other interval carries the seed scatter in the same way (above).")
limits.append(
    f"- **The large-$k$ regime needs a large vocabulary.** Paper A's $k$ = {claims.A2_LARGE_KS[0]:,} and "
    f"{claims.A2_LARGE_KS[1]:,} are fractions of a {claims.PAPER_A_VOCAB:,}-token vocabulary; on this set's "
    f"{vocab:,} tokens they become $k$ = {claims.scaled_k(claims.A2_LARGE_KS[0], vocab):,} and "
    f"{claims.scaled_k(claims.A2_LARGE_KS[1], vocab):,} (A2.3, A2.5, A2.6, A3.2). Whether the breakdown near the "
    f"vocabulary looks the same with {vocab / claims.PAPER_A_VOCAB:.0%} of the candidates is itself untested.")
if not regime.empty:
    limits.append(
    "- **In-distribution text.** The held-out documents come from the corpora the models trained on; the papers' "
    "models are evaluated on text from elsewhere. Absolute levels (EE's share of CE in B4.1, the exponents' sizes "
    "in A3.4) are those of in-distribution text.")
display(Markdown("\n".join(limits)))
