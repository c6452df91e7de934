"""Scaling table of a ladder profile: per-model metrics on each held-out offline corpus, and
power-law fits (R^2, slope, bootstrap interval) of each metric against non-embedding size.

Run: ``.venv/bin/python scripts/ladder_scaling.py --profile tiny`` (trains and extracts what is
missing, reuses the rest).
"""

from __future__ import annotations

import argparse

import numpy as np

from rankscale import fit, metrics
from rankscale.ladder import ladder_records

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
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--corpus", nargs="+", default=["pydocs:150000", "stdlib:150000", "humaneval:15000"],
                        help="corpus:tokens pairs (held-out parts)")
    parser.add_argument("--n-boot", type=int, default=100)
    args = parser.parse_args()
    for spec in args.corpus:
        corpus, n_tokens = spec.rsplit(":", 1)
        runs = ladder_records(args.profile, corpus, int(n_tokens))
        sizes = [meta["params_non_embedding"] for meta, _ in runs]
        print(f"\n## {corpus} held-out, {n_tokens} tokens, profile {args.profile}")
        print(f"{'model':<10}{'non-emb':>10}{'CE':>8}{'RBP_1':>8}{'RBP_10':>8}{'RBP_100':>8}{'EE':>8}{'SA':>8}{'Conf':>8}")
        for (meta, rec), size in zip(runs, sizes):
            s = metrics.summary(rec.logp, rec.gt, rec.ge, ks=(1, 10, 100))
            print(f"{meta['size']:<10}{size:>10,}{s['CE']:>8.4f}{s['RBP_1']:>8.4f}{s['RBP_10']:>8.4f}"
                  f"{s['RBP_100']:>8.4f}{s['EE']:>8.4f}{s['SA']:>8.4f}{s['Conf']:>8.4f}")
        print(f"{'metric':<14}{'R^2':>8}{'slope':>9}  95% bootstrap interval of the slope")
        samples = [rec.arrays() for _, rec in runs]
        for name, fn in METRICS.items():
            values = [fn(s) for s in samples]
            if min(values) <= 0:
                print(f"{name:<14}  (not fitted: a value is <= 0)")
                continue
            f = fit.fit_with_bootstrap(sizes, samples, fn, n_boot=args.n_boot)
            interval = "(a replicate <= 0)" if f.ci is None else f"[{f.ci[0]:.4f}, {f.ci[1]:.4f}]"
            print(f"{name:<14}{f.r2:>8.4f}{f.slope:>9.4f}  {interval}")


if __name__ == "__main__":
    main()
