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
# # B4 · Shares of the components and the slowing of the CE law
#
# Cross-entropy falls as a clean power law of model size for small models but more slowly for
# very large ones. Paper B (§5, Fig. 8) offers an explanation built on its decomposition: if only
# Error-Entropy scales and Self-Alignment and Confidence stay roughly constant, then CE behaves
# like a power law only as long as EE makes up most of it. The paper reports that EE is about
# 80-90% of CE for small models and that its share shrinks as models grow, so the non-scaling
# terms take over and the CE law bends.
#
# This chapter measures the shares on the offline ladder and checks what they imply for the
# local exponent of the CE law. Components use paper B's 0-based strict rank-based error
# $e$ = `gt`.

# %% tags=["parameters"]
profile = "tiny"
corpora = ["pydocs", "stdlib", "humaneval"]
n_boot = 200  # bootstrap resamples for the trend of the shares
seed = 0

# %%
import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

import rankscale
from rankscale import fit, metrics, report

runs = {corpus: report.profile_runs(profile, corpus) for corpus in corpora}
report.header(profile, runs)
sizes = report.sizes(runs[corpora[0]])
names = [meta["size"] for meta, _ in runs[corpora[0]]]
terms = {corpus: pd.DataFrame([metrics.ce_decomposition(rec.logp, rec.gt).terms() for _, rec in runs[corpus]],
                              index=names) for corpus in corpora}
signed = {c: metrics.ce_shares(t.EE.values, t.SA.values, t.Conf.values) for c, t in terms.items()}
magnitude = {c: metrics.ce_shares(t.EE.values, t.SA.values, t.Conf.values, signed=False) for c, t in terms.items()}
print(f"rankscale {rankscale.__version__}; {n_boot} bootstrap resamples per trend")

# %% [markdown]
# ## Two ways to count a share
#
# Since CE = EE + SA − Conf, the three *signed contributions* $\mathrm{EE}/\mathrm{CE}$,
# $\mathrm{SA}/\mathrm{CE}$ and $-\mathrm{Conf}/\mathrm{CE}$ add up to exactly 1. When Confidence
# is positive its contribution is negative and EE's exceeds 1. A stacked percentage chart like
# paper B's Fig. 8 needs non-negative parts; the natural choice is the *magnitude shares*
# $|M| / (|\mathrm{EE}| + |\mathrm{SA}| + |\mathrm{Conf}|)$. The paper does not say which it
# plots; for its large models, where Confidence is small, the two nearly agree. They can
# disagree on the ladder, so both are shown. The signed contribution is the one that governs
# the CE law (next section).

# %%
rows = []
for corpus in corpora:
    for i, name in enumerate(names):
        rows.append({"corpus": corpus, "model": name, "params": int(sizes[i]), **terms[corpus].iloc[i].to_dict(),
                     **{f"{k}/CE (signed)": signed[corpus][k][i] for k in metrics.COMPONENTS},
                     **{f"{k} share of |terms|": magnitude[corpus][k][i] for k in metrics.COMPONENTS}})
shares_table = pd.DataFrame(rows)
display(shares_table.style.format({c: "{:.4f}" for c in shares_table.columns[3:]} | {"params": "{:,}"})
        .hide(axis="index"))

# %% [markdown]
# ## Shares against size (paper B, §5, Fig. 8)
#
# Top row: the magnitude shares stacked to 100% for each model, the form of the paper's Fig. 8
# (there with 16 hub models from 14M to 70B parameters). Bottom row: the signed contributions
# against size; the dotted line marks 1.

# %%
colors = {"EE": "C0", "SA": "C2", "Conf": "C3"}
fig, axes = plt.subplots(2, len(corpora), figsize=(4.4 * len(corpora), 6.4), squeeze=False)
for j, corpus in enumerate(corpora):
    ax = axes[0, j]
    bottom = np.zeros(len(names))
    for k in metrics.COMPONENTS:
        ax.bar(range(len(names)), 100 * magnitude[corpus][k], bottom=bottom, color=colors[k], label=k)
        bottom += 100 * magnitude[corpus][k]
    ax.set_xticks(range(len(names)), names, rotation=45, fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_title(f"{corpus}: share of |EE| + |SA| + |Conf| (%)", fontsize=10)
    ax = axes[1, j]
    for k, label in (("EE", "EE / CE"), ("SA", "SA / CE"), ("Conf", "−Conf / CE")):
        ax.semilogx(sizes, signed[corpus][k], "o-", color=colors[k], label=label)
    ax.axhline(1, color="grey", ls=":", lw=1)
    ax.axhline(0, color="k", lw=0.5)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("non-embedding parameters")
    ax.set_title(f"{corpus}: signed contributions to CE", fontsize=10)
axes[0, 0].legend(fontsize=8, loc="lower left")
axes[1, 0].legend(fontsize=8)
fig.suptitle("Paper B, Fig. 8 analogue: how much of CE each component carries", y=1.0)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Is EE's share falling?
#
# The trend of a share with size is the slope of $\log(\text{share})$ against $\log N$, fitted
# like the power laws of chapter B3, with a 95% bootstrap interval from resampling each model's
# tokens. A negative slope means EE's share shrinks as models grow, as the paper reports. The
# shares are ratios of plug-in estimates, so the caveat of chapter B3 applies: the bootstrap
# distribution can be shifted and an interval can miss its own point estimate. The trend column
# reads the interval only.

# %%
def ee_share(signed_share: bool):
    def metric(sample) -> float:
        t = metrics.ce_decomposition(sample["logp"], sample["gt"]).terms()
        return float(metrics.ce_shares(t["EE"], t["SA"], t["Conf"], signed=signed_share)["EE"])
    return metric


trends = {}
for corpus in corpora:
    samples = [{"logp": rec.logp, "gt": rec.gt} for _, rec in runs[corpus]]
    for label, signed_share in (("EE / CE (signed)", True), ("EE share of |terms|", False)):
        trends[corpus, label] = fit.fit_with_bootstrap(sizes, samples, ee_share(signed_share), n_boot=n_boot, seed=seed)
trend_table = pd.DataFrame([{"corpus": c, "share": label, "slope of log share vs log N": f.slope,
                             "95% interval": f"[{f.ci[0]:+.4f}, {f.ci[1]:+.4f}]",
                             "trend": "falls" if f.ci[1] < 0 else "rises" if f.ci[0] > 0 else "flat within noise"}
                            for (c, label), f in trends.items()])
display(trend_table.style.format({"slope of log share vs log N": "{:+.4f}"}).hide(axis="index"))

# %% [markdown]
# ## What the shares imply for the CE law
#
# Differentiating CE = EE + SA − Conf with respect to $\log N$ gives an exact relation between
# the local exponent of CE and those of its components (paper B's $\alpha_M$ of eq. 9, fitted
# to $|M|$):
#
# $$\frac{d \log \mathrm{CE}}{d \log N} = \frac{\mathrm{EE}}{\mathrm{CE}}\,\alpha_{\mathrm{EE}}
#   + \frac{\mathrm{SA}}{\mathrm{CE}}\,\alpha_{\mathrm{SA}}
#   - \frac{\mathrm{Conf}}{\mathrm{CE}}\,\alpha_{\mathrm{Conf}} .$$
#
# Under the paper's hypothesis only EE scales ($\alpha_{\mathrm{SA}} = \alpha_{\mathrm{Conf}} = 0$),
# so CE's local exponent is $\alpha_{\mathrm{EE}} \cdot \mathrm{EE}/\mathrm{CE}$: it shrinks in
# magnitude exactly as fast as EE's signed contribution shrinks, and the CE law slows. The figure
# compares that prediction (with EE's fitted exponent) with CE's measured local slope between
# neighbouring models. If EE's contribution *grows* with size instead, the same relation
# predicts a CE law that steepens. A third line uses the fitted exponents of all three
# components: where it departs from the EE-only line, SA or Confidence are scaling too and
# carry part of CE's improvement.

# %%
fig, axes = plt.subplots(1, len(corpora), figsize=(4.4 * len(corpora), 3.4), squeeze=False, sharey=True)
slowdown = []
for ax, corpus in zip(axes[0], corpora):
    alpha_ee = fit.fit_power_law(sizes, terms[corpus].EE.values).slope
    predicted = metrics.ce_exponent_from_components(signed[corpus], {"EE": alpha_ee, "SA": 0.0, "Conf": 0.0})
    all_alphas = {k: fit.fit_power_law(sizes, np.abs(terms[corpus][k].values)).slope for k in metrics.COMPONENTS}
    mids, measured = metrics.local_log_slopes(sizes, terms[corpus].CE.values)
    ax.semilogx(sizes, predicted, "o-", color="C0", label="α_EE · EE/CE (only EE scales)")
    ax.semilogx(sizes, metrics.ce_exponent_from_components(signed[corpus], all_alphas), "^-", color="C1",
                label="Σ_M share_M · α_M (all fitted)")
    ax.semilogx(mids, measured, "s--", color="k", label="CE, local slope between neighbours")
    ax.axhline(fit.fit_power_law(sizes, terms[corpus].CE.values).slope, color="grey", ls=":", lw=1,
               label="CE, one power law over all sizes")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("non-embedding parameters")
    ax.set_title(corpus, fontsize=10)
    slowdown.append({"corpus": corpus, "α_EE": alpha_ee,
                     "predicted exponent, smallest model": predicted[0],
                     "predicted exponent, largest model": predicted[-1],
                     "measured local slope, smallest pair": measured[0],
                     "measured local slope, largest pair": measured[-1]})
axes[0, 0].set_ylabel("d log CE / d log N")
axes[0, 0].legend(fontsize=7)
fig.suptitle("Local exponent of the CE law: predicted from EE's contribution vs measured")
fig.tight_layout()
plt.show()
slowdown = pd.DataFrame(slowdown)
display(slowdown.style.format({c: "{:+.4f}" for c in slowdown.columns[1:]}).hide(axis="index"))

# %% [markdown]
# The measured local slopes between neighbouring ladder models scatter far more than the
# prediction: one training run per size, and size steps of less than a decade, leave
# noise of the order of the effect. The prediction's change across the ladder is small
# because the shares change little over the ladder's few decades of size.

# %%
share_labels = ("EE / CE (signed)", "EE share of |terms|")
ee_falls = {c: all(trends[c, label].ci[1] < 0 for label in share_labels) for c in corpora}
summary = []
for c in corpora:
    trend = trends[c, "EE / CE (signed)"]
    direction = "falls" if trend.ci[1] < 0 else "rises" if trend.ci[0] > 0 else "shows no clear trend"
    conf = ("positive for every model" if np.all(terms[c].Conf.values > 0) else
            "negative for every model" if np.all(terms[c].Conf.values < 0) else "of changing sign")
    summary.append(f"- `{c}`: EE's signed contribution {direction} with size; Confidence is {conf}.")
display(Markdown("**On this profile:**\n" + "\n".join(summary)))

# %% [markdown]
# ## Why the paper's trend need not appear on the ladder
#
# Paper B's argument has two parts: EE keeps falling as a power law, and SA and Confidence stay
# roughly where they are, so EE's share must eventually fall. On the ladder neither premise is
# guaranteed, and the outcome printed above should be read with that in mind:
#
# - The ladder's models are tiny (thousands to about a million non-embedding parameters) and
#   trained for minutes. Their EE is still a large fraction of $\log V$, i.e. they are far from
#   the regime where EE becomes small enough for the other terms to matter; the paper sees EE's
#   share fall over models from 14M to 70B parameters.
# - Self-Alignment is not constant on the ladder: it falls with size (chapter B3), which by
#   itself raises EE's share.
# - Confidence can be positive ($C > 1$). A growing positive Confidence *subtracts* more from CE
#   as models grow, which pushes EE's signed contribution above 1 and upwards, while the
#   magnitude share, which counts Confidence as a positive part, can move the other way. The
#   paper's claim is stated for a share; which share matters for the slowdown is the signed one.
# - Confidence also depends on the evaluation sample: $C$ sums $Q_e$ over the ranks that occur,
#   so it grows as more tokens reveal more ranks, and its sign can flip with the number of
#   tokens alone (chapter B5). Shares involving Confidence are comparable between models only
#   because every model here is evaluated on the same tokens.
#
# If EE's signed contribution rises with size, the decomposition predicts a CE law that steepens
# over this range, the opposite of a slowdown; the verdicts then record the paper's trend as not
# reproduced *at this scale*, which does not test it at the paper's scale.
#
# ## Verdicts
#
# Rules, per corpus; *reproduced* if a rule holds on every corpus, *partly* on some, *not
# reproduced* on none, unless stated otherwise.
#
# - EE dominates small models: EE's magnitude share for the smallest model is at least 80%.
# - EE's share falls with size: the 95% interval of the slope of $\log(\text{share})$ lies below
#   zero for both the signed and the magnitude share. *Partly* if that holds for at least one
#   of the two shares on at least one corpus.
# - The CE law slows: both the predicted exponent $\alpha_{\mathrm{EE}}\,\mathrm{EE}/\mathrm{CE}$
#   and the measured local slope are smaller in magnitude at the large end than at the small
#   end. *Partly* if one of the two is, on at least one corpus.

# %%
def share_rule(hits: int, total: int) -> str:
    return "reproduced" if hits == total else "partly" if hits else "not reproduced"


n = len(corpora)
smallest_share = np.array([magnitude[c]["EE"][0] for c in corpora])
any_share_falls = sum(trends[c, label].ci[1] < 0 for c in corpora for label in share_labels)
size_of = slowdown.set_index("corpus").abs()
pred_slows = (size_of["predicted exponent, largest model"] < size_of["predicted exponent, smallest model"]).values
meas_slows = (size_of["measured local slope, largest pair"] < size_of["measured local slope, smallest pair"]).values
both_slow = int(np.sum(pred_slows & meas_slows))

verdicts = report.verdict_table("B4", [
    report.Verdict("Error-Entropy dominates CE for small models (§5, Fig. 8)", "about 80-90% of CE",
                   "EE share of |terms|, smallest model: "
                   + ", ".join(f"{c} {100 * s:.1f}%" for c, s in zip(corpora, smallest_share)),
                   share_rule(int(np.sum(smallest_share >= 0.8)), n)),
    report.Verdict("EE's share of CE falls as models grow (§5, Fig. 8)", "falls (qualitative)",
                   "slope of log share vs log N, signed / magnitude: "
                   + "; ".join(f"{c} {trends[c, 'EE / CE (signed)'].slope:+.4f} / "
                               f"{trends[c, 'EE share of |terms|'].slope:+.4f}" for c in corpora),
                   "reproduced" if all(ee_falls.values()) else "partly" if any_share_falls else "not reproduced"),
    report.Verdict("Hence the CE power law slows down with size (§5)", "slows (qualitative)",
                   "|exponent| small → large end, predicted / measured: "
                   + "; ".join(f"{r.corpus} {abs(r['predicted exponent, smallest model']):.4f}→"
                               f"{abs(r['predicted exponent, largest model']):.4f} / "
                               f"{abs(r['measured local slope, smallest pair']):.4f}→"
                               f"{abs(r['measured local slope, largest pair']):.4f}" for _, r in slowdown.iterrows()),
                   share_rule(both_slow, n) if both_slow else
                   "partly" if (pred_slows | meas_slows).any() else "not reproduced"),
])
