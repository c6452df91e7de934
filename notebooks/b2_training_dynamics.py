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
# # B2 · The three components during training
#
# Chapter B1 showed that cross-entropy splits exactly into Error-Entropy (EE), Self-Alignment
# (SA) and Confidence (Conf). Paper B then argues that this split is not just algebra: training
# lowers EE first, because it is by far the largest term, and only later works on SA and Conf
# (paper B, §3.2, Fig. 3). It illustrates what each term does to the model's outputs with the
# RBE distribution becoming concentrated (§3.3, Fig. 4), with the shape of the output
# distribution around the target (Fig. 5) and with the score distribution $q_e$ converging to
# the RBE distribution $p_e$ (Fig. 6).
#
# The paper follows Pythia models through their public training checkpoints. Here the same
# analysis runs on the offline ladder, whose training saves checkpoints at steps 0 (the random
# initialisation), 16, 128 and the final step for a few sizes. Everything uses paper B's 0-based
# strict rank-based error $e$ = `gt` (log axes show $e + 1$, the 1-based rank with strict ties).

# %% tags=["parameters"]
profile = "tiny"
corpora = ["pydocs", "stdlib", "humaneval"]
revisions = None  # hub checkpoints, e.g. ["step0", "step16", "step128", "step1000", "step10000", "step100000"]

# %% [markdown]
# **Hub checkpoints.** `revisions` is meant for the hub profiles: Pythia publishes its training
# checkpoints as git revisions of each model repository (`revision="step1000"` and so on), and a
# run on the paper's own models would set, for example,
# `revisions = ["step0", "step16", "step128", "step1000", "step10000", "step100000"]` together
# with `profile = "reduced"` and read one extraction per revision. This version of the companion
# evaluates checkpoints of the offline ladder only, so setting `revisions` stops the chapter with
# an explanation instead of silently showing ladder checkpoints.

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

import rankscale
from rankscale import RankscaleError, metrics, report

if revisions is not None:
    raise RankscaleError(
        f"revisions={revisions!r} asks for hub checkpoints, which this version of the chapter cannot "
        "load; leave revisions = None to use the offline ladder's saved checkpoints"
    )

checkpoints = {corpus: report.profile_checkpoints(profile, corpus) for corpus in corpora}
finals = {corpus: report.profile_runs(profile, corpus) for corpus in corpora}
report.header(profile, finals)
checkpoint_sizes = list(dict.fromkeys(meta["size"] for meta, _, _ in checkpoints[corpora[0]]))
steps = sorted({step for _, step, _ in checkpoints[corpora[0]]})
display(Markdown(
    f"**Checkpoints** of {', '.join(checkpoint_sizes)} at steps {', '.join(map(str, steps))}, "
    f"{len(checkpoints[corpora[0]][0][2]):,} held-out tokens each per corpus."
))

rows = []
for corpus in corpora:
    for meta, step, rec in checkpoints[corpus]:
        dec = metrics.ce_decomposition(rec.logp, rec.gt)
        rows.append({"corpus": corpus, "model": meta["size"], "params": meta["params_non_embedding"],
                     "step": step, "CE": dec.ce, "EE": dec.error_entropy, "SA": dec.self_alignment,
                     "Conf": dec.confidence, "decomposition": dec,
                     "vocab_size": rec.manifest["vocab_size"]})
dynamics = pd.DataFrame(rows)
print(f"rankscale {rankscale.__version__}")

# %% [markdown]
# ## Setup (paper B, Table 3)
#
# Paper B's Table 3 lists which data and checkpoints each training-dynamics figure uses: Pythia
# 160M, 410M and 1B at steps 0, 16, 128, 1k, 10k and 100k on Wikipedia, C4 and Pile-GitHub for
# Fig. 3; Pythia-160M at steps 0, 128 and 10k for Fig. 4; a trained Pythia-70M for Fig. 5; and
# Pythia-410M at steps 0, 16, 128 and 10k for Fig. 6. This chapter's counterpart:

# %%
fig4_model, fig6_model = checkpoint_sizes[0], checkpoint_sizes[len(checkpoint_sizes) // 2]
fig5_model = finals[corpora[0]][-1][0]["size"]
fig4_steps = [steps[0], steps[-2], steps[-1]]
display(pd.DataFrame({
    "figure": ["Fig. 3", "Fig. 4", "Fig. 5", "Fig. 6"],
    "data (ours)": [", ".join(corpora), corpora[0], ", ".join(corpora), corpora[0]],
    "models and checkpoints (ours)": [
        f"{', '.join(checkpoint_sizes)} @ steps {', '.join(map(str, steps))}",
        f"{fig4_model} @ steps {', '.join(map(str, fig4_steps))}",
        f"{fig5_model}, final model",
        f"{fig6_model} @ steps {', '.join(map(str, steps))}",
    ],
}).style.hide(axis="index"))

# %% [markdown]
# ## The four quantities across training (paper B, §3.2, Fig. 3)
#
# Each row is a corpus, each column one quantity; the lines are model sizes. The step axis is
# linear up to 1 and logarithmic beyond, so that the initialisation (step 0) has a place.
# Paper B's reading of its Fig. 3: EE falls steadily, SA comes down at the end, and Confidence
# rises (it enters CE with a minus sign, so a rising Confidence lowers CE).

# %%
quantities = ["CE", "EE", "SA", "Conf"]
fig, axes = plt.subplots(len(corpora), 4, figsize=(14, 2.8 * len(corpora)), squeeze=False, sharex=True)
for row, corpus in zip(axes, corpora):
    for ax, quantity in zip(row, quantities):
        for i, size in enumerate(checkpoint_sizes):
            series = dynamics[(dynamics.corpus == corpus) & (dynamics.model == size)]
            ax.plot(series.step, series[quantity], "o-", ms=4, color=f"C{i}", label=size)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_title(f"{corpus} · {quantity}", fontsize=10)
    row[0].set_ylabel("nats")
for ax in axes[-1]:
    ax.set_xlabel("training step")
axes[0, 0].legend(fontsize=8)
fig.suptitle("Paper B, Fig. 3 analogue: CE and its components over training checkpoints", y=1.0)
fig.tight_layout()
plt.show()
display(dynamics.drop(columns=["decomposition", "vocab_size"]).style
        .format({q: "{:.4f}" for q in quantities} | {"params": "{:,}"}).hide(axis="index"))

# %% [markdown]
# ### Who moves CE between two checkpoints?
#
# Because CE = EE + SA − Conf holds at every checkpoint, the drop of CE between two checkpoints
# splits exactly into the drop of EE, the drop of SA and the *rise* of Confidence. The bars show
# each component's part of CE's drop over each interval, as a fraction of that drop (the three
# parts add up to 1; a negative part means that component worked against the drop). The paper's
# account predicts EE's part to dominate the first interval and SA and Confidence to matter
# only later.

# %%
intervals = [f"{a}→{b}" for a, b in zip(steps[:-1], steps[1:])]
fig, axes = plt.subplots(len(corpora), len(checkpoint_sizes), figsize=(4 * len(checkpoint_sizes), 2.8 * len(corpora)),
                         squeeze=False, sharey=True)
interval_shares = {}
for row, corpus in zip(axes, corpora):
    for ax, size in zip(row, checkpoint_sizes):
        series = dynamics[(dynamics.corpus == corpus) & (dynamics.model == size)].sort_values("step")
        shares = metrics.ce_shares(-np.diff(series.EE), -np.diff(series.SA), -np.diff(series.Conf))
        interval_shares[corpus, size] = shares
        x = np.arange(len(intervals))
        for j, (name, color) in enumerate(zip(metrics.COMPONENTS, ["C0", "C2", "C3"])):
            label = {"EE": "EE drop", "SA": "SA drop", "Conf": "Conf rise"}[name]
            ax.bar(x + (j - 1) * 0.27, shares[name], width=0.27, color=color, label=label)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xticks(x, intervals, fontsize=8)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_yticks([-10, -1, 0, 1, 10], ["−10", "−1", "0", "1", "10"])
        ax.set_title(f"{corpus} · {size}", fontsize=10)
    row[0].set_ylabel("part of the CE drop")
axes[0, 0].legend(fontsize=8)
fig.suptitle("Each component's part of the CE drop between checkpoints (parts sum to 1)", y=1.0)
fig.tight_layout()
plt.show()

# %% [markdown]
# The vertical axis is linear between −1 and 1 and logarithmic outside: over an interval where
# CE barely moves, components that cancel each other can have parts far from $[0, 1]$.
#
# ## The RBE distribution concentrates (paper B, §3.3, Fig. 4)
#
# At initialisation the model ranks the target essentially at random, so $p_e$ is close to the
# uniform $1/V$ (grey line) and Error-Entropy is close to its maximum $\log V$. Training moves
# the mass towards small RBE values, which is what lowering EE requires.

# %%
fig, axes = plt.subplots(1, len(fig4_steps), figsize=(4.2 * len(fig4_steps), 3.4), sharey=True, squeeze=False)
for ax, step in zip(axes[0], fig4_steps):
    entry = dynamics[(dynamics.corpus == corpora[0]) & (dynamics.model == fig4_model) & (dynamics.step == step)].iloc[0]
    dec = entry.decomposition
    ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color="C0")
    ax.axhline(1 / entry.vocab_size, color="grey", ls="--", lw=1)
    ax.set_title(f"step {step}: EE = {dec.error_entropy:.2f}, log V = {np.log(entry.vocab_size):.2f}", fontsize=10)
    ax.set_xlabel("RBE $e$ + 1 (1-based, strict ties)")
axes[0, 0].set_ylabel("$p_e$")
fig.suptitle(f"Paper B, Fig. 4 analogue: RBE distribution of {fig4_model} on {corpora[0]} during training")
fig.tight_layout()
plt.show()

# %% [markdown]
# With a finite evaluation sample the step-0 distribution is not flat: each rank is hit a
# handful of times, so the points scatter around $1/V$, and its plug-in entropy sits a little
# below $\log V$ (chapter B5 quantifies this bias).
#
# ## What the output distribution looks like around the target (paper B, §3.3, Fig. 5)
#
# Confidence, $\log C$ with $C = \sum_e Q_e$, grows when the model gives high probability to its
# targets at every rank, which it can afford only by taking probability away from tokens it
# ranks *below* the target. Paper B shows this with the average output probability of the best,
# second-best, ... token over predictions whose target has RBE 1 (rank 2) and RBE 3 (rank 4),
# and reports that the probability breaks off a little after the target's position. The
# records keep the highest few log-probabilities of every prediction, enough for that picture.
# Shown for the largest final model; the vertical line marks the target's own position.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
drops = []
for ax, e in zip(axes, [1, 3]):
    for i, corpus in enumerate(corpora):
        meta, rec = finals[corpus][-1]
        probs = metrics.top_rank_probs(rec.top_logp, rec.gt, e)
        drops.append({"corpus": corpus, "target RBE e": e, "target position (1-based)": e + 1,
                      "predictions": int(np.sum(rec.gt == e)),
                      "sharpest drop after position": metrics.sharpest_drop(probs)})
        ax.plot(np.arange(1, len(probs) + 1), probs, "o-", ms=4, color=f"C{i}", label=corpus)
    ax.axvline(e + 1, color="grey", ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_title(f"target at RBE {e} (rank {e + 1}) · {fig5_model}", fontsize=10)
    ax.set_xlabel("position in the model's ranking (1-based)")
axes[0].set_ylabel("mean output probability")
axes[0].legend(fontsize=8)
fig.suptitle("Paper B, Fig. 5 analogue: output probabilities of the top-ranked tokens")
fig.tight_layout()
plt.show()
drops = pd.DataFrame(drops)
display(drops.style.hide(axis="index"))

# %% [markdown]
# "Sharpest drop after position $j$" is the $j$ at which the mean probability falls by the
# largest factor from position $j$ to $j+1$. Paper B places that break just after the token
# below the target: after position 3 for a target at rank 2 and after position 5 for a target at
# rank 4 (the paper's text labels the second case "RBE = 1"; a target at rank 4 has RBE 3).
#
# ## The score distribution aligns with the RBE distribution (paper B, §3.3, Fig. 6)
#
# Self-Alignment is the Kullback-Leibler divergence from $q_e$ to $p_e$. If a model's
# normalised scores tracked its own error frequencies exactly, the two clouds below would lie on
# top of each other and SA would be zero. Paper B's Fig. 6 shows them far apart early and nearly
# identical after training.
#
# One thing to keep in mind when reading the first panel: at initialisation *both* distributions
# are close to uniform (random ranks, near-uniform scores), so SA starts small; what is left of
# it there comes mostly from the scatter of $p_e$ over a finite sample. The divergence appears
# once training has begun to concentrate $p_e$ and the scores have not yet followed.

# %%
fig, axes = plt.subplots(1, len(steps), figsize=(3.6 * len(steps), 3.4), sharey=True, squeeze=False)
for ax, step in zip(axes[0], steps):
    dec = dynamics[(dynamics.corpus == corpora[0]) & (dynamics.model == fig6_model)
                   & (dynamics.step == step)].iloc[0].decomposition
    ax.loglog(dec.e + 1, dec.p_e, ".", ms=3, color="C0", label="$p_e$")
    ax.loglog(dec.e + 1, dec.q_e, ".", ms=3, color="C1", alpha=0.6, label="$q_e$")
    ax.set_title(f"step {step}: SA = {dec.self_alignment:.3f}", fontsize=10)
    ax.set_xlabel("RBE $e$ + 1 (1-based, strict ties)")
axes[0, 0].set_ylabel("probability")
axes[0, 0].legend(fontsize=8)
fig.suptitle(f"Paper B, Fig. 6 analogue: $p_e$ and $q_e$ of {fig6_model} on {corpora[0]} during training")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Verdicts
#
# Each rule is applied to every (model size, corpus) series of checkpoints; *reproduced* if it
# holds for all of them, *partly* if for some, *not reproduced* if for none.
#
# - EE falls steadily: EE decreases from each checkpoint to the next.
# - SA comes down at the end: SA at the final checkpoint is below SA at the one before.
# - Confidence rises: Conf at the final checkpoint is above Conf at step 0.
# - EE first, SA and Confidence later: in the first interval EE has the largest part of the CE
#   drop, and SA and Confidence together have a larger part in the last interval than in the
#   first.
# - Nearly uniform at initialisation: EE at step 0 is at least 95% of $\log V$ (a threshold of
#   ours; the paper gives no number).
# - $q_e$ aligns with $p_e$: SA at the final checkpoint is below its value at every earlier
#   checkpoint.
# - Probability breaks off below the target (Fig. 5): *reproduced* if the sharpest drop comes
#   right after position $e+2$ as in the paper for both targets on every corpus, *partly* if it
#   comes at or after the target's own position $e+1$ in every case, *not reproduced* otherwise.

# %%
def share_rule(hits: int, total: int) -> str:
    return "reproduced" if hits == total else "partly" if hits else "not reproduced"


series = [group.sort_values("step") for _, group in dynamics.groupby(["corpus", "model"], sort=False)]
n = len(series)
ee_falls = sum(bool(np.all(np.diff(s.EE) < 0)) for s in series)
sa_ends_down = sum(bool(s.SA.iloc[-1] < s.SA.iloc[-2]) for s in series)
conf_rises = sum(bool(s.Conf.iloc[-1] > s.Conf.iloc[0]) for s in series)
ee_first = sum(bool(sh["EE"][0] == max(sh[k][0] for k in metrics.COMPONENTS)
                    and sh["SA"][-1] + sh["Conf"][-1] > sh["SA"][0] + sh["Conf"][0])
               for sh in interval_shares.values())
uniform_ratio = [s.EE.iloc[0] / np.log(s.vocab_size.iloc[0]) for s in series]
sa_best_at_end = sum(bool(s.SA.iloc[-1] < s.SA.iloc[:-1].min()) for s in series)
drop_at_paper = bool(np.all(drops["sharpest drop after position"] == drops["target RBE e"] + 2))
drop_below_target = bool(np.all(drops["sharpest drop after position"] >= drops["target RBE e"] + 1))
ours_drops = "; ".join(f"{r['corpus']} rank {r['target position (1-based)']}: after {r['sharpest drop after position']}"
                       for _, r in drops.iterrows())

verdicts = report.verdict_table("B2", [
    report.Verdict("Error-Entropy decreases steadily during training (§3.2, Fig. 3)", "qualitative",
                   f"EE falls at every checkpoint in {ee_falls}/{n} series", share_rule(ee_falls, n)),
    report.Verdict("Self-Alignment declines at the end of training (§3.2, Fig. 3)", "qualitative",
                   f"SA falls over the last interval in {sa_ends_down}/{n} series", share_rule(sa_ends_down, n)),
    report.Verdict("Confidence increases during training (§3.2, Fig. 3)", "qualitative",
                   f"final Conf above step-0 Conf in {conf_rises}/{n} series", share_rule(conf_rises, n)),
    report.Verdict("EE is optimised first, SA and Confidence later (§3.2)", "qualitative",
                   f"rule holds in {ee_first}/{n} series", share_rule(ee_first, n)),
    report.Verdict("The RBE distribution is nearly uniform at initialisation (§3.3, Fig. 4)", "qualitative",
                   f"EE(step 0) / log V from {min(uniform_ratio):.3f} to {max(uniform_ratio):.3f}",
                   share_rule(sum(r >= 0.95 for r in uniform_ratio), n)),
    report.Verdict("q_e becomes nearly identical to p_e after training (§3.3, Fig. 6)", "qualitative",
                   f"final SA the lowest of all checkpoints in {sa_best_at_end}/{n} series",
                   share_rule(sa_best_at_end, n)),
    report.Verdict("Output probability breaks off just below the target (§3.3, Fig. 5)",
                   "sharpest drop after position 3 (target rank 2) and 5 (target rank 4)", ours_drops,
                   "reproduced" if drop_at_paper else "partly" if drop_below_target else "not reproduced"),
])
