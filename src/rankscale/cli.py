"""Command line: ``python -m rankscale extract ...`` and ``python -m rankscale metrics DIR``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rankscale import RankscaleError, __version__


def _extract(args: argparse.Namespace) -> None:
    from rankscale.extract import extract

    device = args.device
    if device == "auto":
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
    out = extract(args.model, args.corpus, args.tokens, args.out, dtype=args.dtype, device=device,
                  revision=args.revision, batch_size=args.batch_size, window_len=args.window,
                  seed=args.seed, text_field=args.text_field, force=args.force,
                  progress=not args.quiet)
    print(f"records in {out}")


def _metrics(args: argparse.Namespace) -> None:
    from rankscale.records import load_records
    from rankscale.metrics import summary

    records = load_records(args.dir)
    values = summary(records.logp, records.gt, records.ge, ks=args.k)
    if args.json:
        print(json.dumps(values, indent=2))
        return
    identity = records.manifest["identity"]
    print(f"model  {identity['model']}  ({records.manifest['params_non_embedding']:,} non-embedding parameters)")
    print(f"corpus {identity['corpus']}  ({values['n_tokens']:,} tokens, dtype {identity['dtype']})")
    for name, value in values.items():
        if name != "n_tokens":
            print(f"{name:>10} {value:.6f}")


def _ladder(args: argparse.Namespace) -> None:
    from rankscale.ladder import build_ladder, ladder_models

    start = time.perf_counter()
    home = Path(args.home) if args.home else None
    build_ladder(args.profile, home, progress=not args.quiet)
    print(f"{'model':<10}{'non-embedding':>15}{'final loss':>12}{'train s':>9}  path")
    for m in ladder_models(args.profile, home):
        print(f"{m['size']:<10}{m['params_non_embedding']:>15,}{m['loss_curve'][-1]:>12.3f}"
              f"{m['train_seconds']:>9.0f}  {m['path']}")
    print(f"ladder {args.profile} ready in {time.perf_counter() - start:.1f} s")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rankscale", description=__doc__)
    parser.add_argument("--version", action="version", version=f"rankscale {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    ex = commands.add_parser("extract", help="record log-probabilities and ranks of a model on a corpus")
    ex.add_argument("--model", required=True, help="local model directory or hub id")
    ex.add_argument("--corpus", required=True, help="corpus name, or a local .txt / .jsonl file")
    ex.add_argument("--tokens", required=True, type=int, help="number of target tokens to record")
    ex.add_argument("--out", required=True, help="directory for the shards and manifest")
    ex.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"],
                    help="dtype of the model body; the head is always fp32 (default float32)")
    ex.add_argument("--device", default="auto", help="cpu, cuda, cuda:1, ... or auto (default)")
    ex.add_argument("--revision", default=None, help="hub revision, e.g. step1000")
    ex.add_argument("--batch-size", type=int, default=8, help="windows per forward pass (default 8)")
    ex.add_argument("--window", type=int, default=None,
                    help="tokens per window (default: 512, or the model's maximum length if shorter)")
    ex.add_argument("--seed", type=int, default=42, help="seed for the document order (default 42)")
    ex.add_argument("--text-field", default="text", help="JSON field holding the text of a .jsonl corpus")
    ex.add_argument("--force", action="store_true", help="recompute even if --out holds results")
    ex.add_argument("--quiet", action="store_true", help="no progress bar")
    ex.set_defaults(run=_extract)

    la = commands.add_parser("ladder", help="train the offline model ladder (skips models that exist)")
    la.add_argument("--profile", default="tiny", help="smoke or tiny (default tiny)")
    la.add_argument("--home", default=None, help="folder for models/ and results/ (default: $RANKSCALE_HOME, else the repository root)")
    la.add_argument("--quiet", action="store_true", help="no progress bars")
    la.set_defaults(run=_ladder)

    me = commands.add_parser("metrics", help="print CE, RBP_k, EE, SA and Conf of an extraction")
    me.add_argument("dir", help="directory written by `extract`")
    me.add_argument("--k", type=int, nargs="+", default=[1, 10, 100, 1000], help="k values for RBP_k")
    me.add_argument("--json", action="store_true", help="print JSON instead of a table")
    me.set_defaults(run=_metrics)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except RankscaleError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; finished shards are kept and the same command resumes", file=sys.stderr)
        return 130
    return 0
