"""Scaling tables of a model set, as Markdown: per-model metrics on each corpus of the set, and
per-family power-law fits (plus the pooled "All" where the set has several families) of CE,
-log RBP_k, Error-Entropy, Self-Alignment and Confidence against non-embedding size, with the
exponent differences of paper B's Table 2.

Run: ``.venv/bin/python scripts/scaling_tables.py --profile tiny`` (trains and extracts what is
missing, reuses the rest).
"""

from __future__ import annotations

import argparse
import logging

import numpy as np

from rankscale.analysis import fit, metrics
from rankscale.records import jobs, runs
from rankscale.sets import get


def neg_log_rbp(k: int):
    return lambda s: -np.log(metrics.rbp(metrics.rank_1based(s["gt"], s["ge"]), k)[0])


METRICS = {
    "CE": lambda s: metrics.cross_entropy(s["logp"]),
    **{f"-log RBP_{k}": neg_log_rbp(k) for k in (1, 10, 100)},
    "EE": lambda s: metrics.ce_decomposition(s["logp"], s["gt"]).error_entropy,
    "SA": lambda s: metrics.ce_decomposition(s["logp"], s["gt"]).self_alignment,
    "Conf": lambda s: metrics.ce_decomposition(s["logp"], s["gt"]).confidence,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="tiny", help="a built-in model set or a .toml file")
    parser.add_argument("--n-boot", type=int, default=None, help="bootstrap resamples (default: the set's)")
    parser.add_argument("--train-device", default="cpu", help="where missing ladder models train, and where the "
                                                              "ladder was trained: cpu (default) or cuda")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # what prepare trains and extracts, on stderr
    model_set = get(args.profile)
    n_boot = args.n_boot or model_set.n_boot
    jobs.prepare(model_set, train_device=args.train_device)
    for corpus in model_set.corpora:
        family_runs = runs.family_runs(model_set, corpus)
        print(f"\n### {corpus}, {len(family_runs[0].records):,} tokens per model, model set {model_set.name}\n")
        print("| family | model | non-emb | CE | RBP_1 | RBP_10 | RBP_100 | EE | SA | Conf |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for run in [*family_runs, *runs.reference_runs(model_set, corpus)]:
            r = run.records
            s = metrics.summary(r.arrays(), ks=(1, 10, 100))
            print(f"| {run.family or 'reference'} | {run.name} | {run.non_embedding:,} | {s['ce_nats']:.4f} "
                  f"| {s['rbp_1']:.4f} | {s['rbp_10']:.4f} | {s['rbp_100']:.4f} | {s['ee_nats']:.4f} "
                  f"| {s['sa_nats']:.4f} | {s['conf_nats']:.4f} |")
        samples = [run.records.arrays() for run in family_runs]
        families = [run.family for run in family_runs]
        sizes = runs.sizes(family_runs)
        print(f"\n| metric | family | R^2 | slope | 95% interval ({n_boot} resamples) | abs(slope - CE slope) |")
        print("|---|---|---|---|---|---|")
        ce = fit.fit_by_family(sizes, samples, families, METRICS["CE"], n_boot)
        for name, fn in METRICS.items():
            if min(abs(fn(s)) for s in samples) <= 0:
                print(f"| {name} | all | not fitted: a value is 0 | | | |")
                continue
            for family, f in fit.fit_by_family(sizes, samples, families, lambda s, fn=fn: abs(fn(s)), n_boot).items():
                interval = "(a replicate <= 0)" if f.ci is None else f"[{f.ci[0]:.4f}, {f.ci[1]:.4f}]"
                delta = "" if name == "CE" else f"{abs(f.slope - ce[family].slope):.4f}"
                print(f"| {name} | {family} | {f.r2:.4f} | {f.slope:.4f} | {interval} | {delta} |")


if __name__ == "__main__":
    main()
