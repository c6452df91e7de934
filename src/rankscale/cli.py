"""Command line: ``rankscale extract|metrics|ladder|book|verdicts|check-profile|plan`` (also ``python -m
rankscale``), one subcommand per task, each resolving its model set once."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rankscale import RankscaleError, __version__, sets


def _extract(args: argparse.Namespace) -> None:
    from rankscale.records.extract import extract
    from rankscale.sets.schema import parse_load_options

    out = extract(args.model, args.corpus, args.tokens, args.out, dtype=args.dtype, device=args.device,
                  device_map=args.device_map, revision=args.revision, load=parse_load_options(args.model_args),
                  batch_size=args.batch_size,
                  window_len=args.window, seed=args.seed, text_field=args.text_field,
                  force=args.force, progress=not args.quiet, temperature=args.temperature)
    print(f"records in {out}")


def _batch_size(value: str) -> int | None:
    """``auto`` (None) or a positive number of windows."""
    if value == "auto":
        return None
    return _positive(value)


def _positive(value: str) -> int:
    """A whole number of at least 1 (a k of RBP_k, a number of windows)."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value!r}")
    return int(value)


def _metrics(args: argparse.Namespace) -> None:
    from rankscale.analysis.metrics import rank_1based, summary
    from rankscale.records.store import load_records

    records = load_records(args.dir)
    values = summary(records.logp, records.gt, records.ge, ks=args.k)
    if args.json:
        from rankscale.analysis.rank_models import rank_fits_record

        rank = rank_1based(records.gt, records.ge)
        print(json.dumps({
            "model": records.manifest.source["model"], "corpus": records.manifest.source["corpus"],
            "n_tokens": values["n_tokens"], "ce": values["CE"],
            "rbp": {str(k): values[f"RBP_{k}"] for k in args.k},
            "decomposition": {"ee": values["EE"], "sa": values["SA"], "conf": values["Conf"]},
            "rank_fits": rank_fits_record(rank, records.manifest.vocab_size),
        }, indent=2))
        return
    source, identity = records.manifest.source, records.manifest.identity
    print(f"model  {source['model']}  ({records.manifest.params_non_embedding:,} non-embedding parameters)")
    print(f"corpus {source['corpus']}  ({values['n_tokens']:,} tokens, dtype {identity['dtype']})")
    for name, value in values.items():
        if name != "n_tokens":
            print(f"{name:>10} {value:.6f}")


def _ladder(args: argparse.Namespace) -> None:
    from rankscale import paths
    from rankscale.models.ladder import build_ladder, ladder_models

    start = time.perf_counter()
    home = Path(args.home) if args.home else paths.home()
    model_set = args.model_set
    if not model_set.ladder_families:
        raise RankscaleError(f"model set {model_set.name!r} has no ladder family; nothing to train")
    build_ladder(model_set, home, progress=not args.quiet, workers=args.workers, device=args.train_device)
    print(f"{'family':<14}{'model':<10}{'seed':>6}{'non-embedding':>15}{'final loss':>12}{'train s':>9}  path")
    for m in ladder_models(model_set, home):
        print(f"{m['family']:<14}{m['size']:<10}{m['seed']:>6}{m['params_non_embedding']:>15,}"
              f"{m['loss_curve'][-1]:>12.3f}{m['train_seconds']:>9.0f}  {m['path']}")
    print(f"ladder of {model_set.name!r} ready in {time.perf_counter() - start:.1f} s")


def _book(args: argparse.Namespace) -> None:
    from rankscale.book.build import build_book

    start = time.perf_counter()
    html = build_book(args.model_set, args.out, device=args.device, train_device=args.train_device)
    print(f"book ({args.profile}) built in {time.perf_counter() - start:.0f} s: open {html / 'index.html'}")


def _verdicts(args: argparse.Namespace) -> None:
    from tqdm.auto import tqdm

    from rankscale.claims.chapters import CHAPTERS, chapter_verdicts, label

    pages = args.chapter or list(CHAPTERS)
    found = tqdm(chapter_verdicts(args.model_set, pages, device=args.device), total=len(pages), unit="chapter",
                 desc="verdicts", disable=args.quiet or None, file=sys.stderr)
    rows = [verdict.row(label(page)) for page, verdicts in found for verdict in verdicts]
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    for row in rows:
        held = f"{row['held']} of {row['tested']}" if row["tested"] else ""
        print(f"{row['key']:<6} {row['verdict']:<25} {held:>8}  {row['claim']}")
    print(f"{len(rows)} verdicts of model set {args.model_set.name!r} from {len(pages)} chapters", file=sys.stderr)


def _check_profile(args: argparse.Namespace) -> None:
    from rankscale.sets import require_available

    require_available(args.model_set)
    print(f"model set {args.model_set.name!r}: the book can be computed here")


def _plan(args: argparse.Namespace) -> None:
    from rankscale.records.jobs import plan_commands

    commands = plan_commands(args.model_set, results=Path(args.results).resolve() if args.results else None,
                             gpu_memory_gb=args.gpu_memory_gb, train_device=args.train_device)
    print("\n".join(commands))
    print(f"{len(commands)} extraction{'s' * (len(commands) != 1)} to run", file=sys.stderr)


SETS_HELP = "a built-in model set (smoke, tiny, reduced, full) or a .toml file of your own"
DEVICE_HELP = "where models run: cpu, cuda, cuda:1, ... or auto (default: CUDA where torch sees a GPU, else the CPU)"
TRAIN_DEVICE_HELP = ("where missing ladder models train: cpu (default) or a GPU, cuda, cuda:1, ... (one model after "
                     "another); part of each model's recipe, so a ladder trained on one is refused for the other")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rankscale``: one subcommand per task, each naming its function in ``run``.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["extract", "--model", "EleutherAI/pythia-70m", "--corpus", "pydocs",
    ...                                   "--out", "results/pythia-70m"])
    >>> args.command, args.batch_size, args.dtype, args.run.__name__
    ('extract', None, 'auto', '_extract')
    """
    parser = argparse.ArgumentParser(prog="rankscale", description=__doc__)
    parser.add_argument("--version", action="version", version=f"rankscale {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    ex = commands.add_parser("extract", help="record log-probabilities and ranks of a model on a corpus")
    ex.add_argument("--model", required=True, help="local model directory, .gguf file or hub id")
    ex.add_argument("--corpus", required=True,
                    help="a corpus name; a local .parquet, .json or .jsonl file (optionally .gz, .bz2, .xz, .zst: "
                         "one document per row) or any other text file (one document); or hf:org/name[:config]:split "
                         "for a hub dataset")
    ex.add_argument("--tokens", type=int, default=None,
                    help="number of target tokens to record (default: all that the corpus's sampling "
                         "gives; for the papers' corpora, the first 512 tokens of 1000 documents)")
    ex.add_argument("--out", required=True, help="directory for the shards and manifest")
    ex.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"],
                    help="dtype of the model body; the head is always fp32 "
                         "(default auto: bfloat16 on GPUs, float32 on CPU)")
    ex.add_argument("--device", default="auto", help=DEVICE_HELP)
    ex.add_argument("--device-map", default=None, choices=["auto"],
                    help="auto: spread the model over every visible GPU with accelerate, for models "
                         "larger than one GPU (default: the whole model on --device)")
    ex.add_argument("--revision", default=None, help="hub revision, e.g. step1000 (the commit it names is "
                                                     "loaded and recorded)")
    ex.add_argument("--model-args", default="", metavar="KEY=VALUE,...",
                    help="load options passed to from_pretrained: trust_remote_code=true, attn_implementation=eager, "
                         "tokenizer=PATH_OR_ID, adapter=PATH_OR_ID (a PEFT adapter, needs peft), or any other "
                         "from_pretrained argument")
    ex.add_argument("--batch-size", type=_batch_size, default="auto",
                    help="windows per forward pass, or auto (default: a whole shard on GPUs, 8 on "
                         "CPU); halved on out-of-memory either way, results do not depend on it")
    ex.add_argument("--window", type=int, default=None,
                    help="tokens per window (default: 512, or the model's maximum length if shorter)")
    ex.add_argument("--seed", type=int, default=42, help="seed for the document order (default 42)")
    ex.add_argument("--text-field", default="text",
                    help="field holding the text of a .parquet, .json(l) or hf: corpus (default text)")
    ex.add_argument("--temperature", type=float, default=1.0,
                    help="divide the logits by this T > 0 before the softmax and the rank counts "
                         "(default 1: the model's own distribution)")
    ex.add_argument("--force", action="store_true", help="recompute even if --out holds results")
    ex.add_argument("--quiet", action="store_true", help="no progress bar")
    ex.set_defaults(run=_extract)

    la = commands.add_parser("ladder", help="train the offline model ladder (skips models that exist)")
    la.add_argument("--profile", default="tiny", help="a model set with ladder families: smoke or tiny (default)")
    la.add_argument("--home", default=None, help="folder for models/ and results/ (default: $RANKSCALE_HOME, else "
                                                 "the repository root of a checkout, else the working directory)")
    la.add_argument("--quiet", action="store_true", help="no progress bars")
    la.add_argument("--workers", type=int, help="models trained at once on the CPU, each with its share of the cores "
                    "(default: 2 on a machine of 2 cores or more)")
    la.add_argument("--train-device", default="cpu", help=TRAIN_DEVICE_HELP)
    la.set_defaults(run=_ladder)

    bo = commands.add_parser("book", help="execute the chapters under a profile and build the HTML book")
    bo.add_argument("--profile", default="tiny", help=SETS_HELP + " (default tiny)")
    bo.add_argument("--out", default=None, help="folder that receives _build/ (default: the repository root of a "
                                                "checkout, else the working directory)")
    bo.add_argument("--device", default="auto", help=DEVICE_HELP + " for extraction; the ladders train on "
                                                                  "--train-device")
    bo.add_argument("--train-device", default="cpu", help=TRAIN_DEVICE_HELP)
    bo.set_defaults(run=_book)

    ve = commands.add_parser("verdicts", help="print every verdict of a model set, measured and decided by the "
                                              "library alone (no notebook)",
                             description="Measure and decide every chapter's claims on a model set's results "
                                         "(extracting what is missing first), as the book's verdict tables show "
                                         "them: one line per claim, or JSON rows with each unit's outcome.")
    ve.add_argument("--profile", default="tiny", help=SETS_HELP + " (default tiny)")
    # the chapters are checked where they are listed (rankscale.claims.chapters): the parser imports no numpy
    ve.add_argument("--chapter", nargs="+", metavar="PAGE",
                    help="only these chapters, by the name of their page (a1_metric, a3_k_dependence, ...)")
    ve.add_argument("--json", action="store_true", help="print JSON rows: chapter, key, claim, rule, paper, ours, "
                                                       "verdict, held, tested, finding and every unit's outcome")
    ve.add_argument("--device", default="auto", help=DEVICE_HELP)
    ve.add_argument("--quiet", action="store_true", help="no progress bar")
    ve.set_defaults(run=_verdicts)

    ch = commands.add_parser("check-profile", help="say at once whether a model set can be computed on this "
                                                   "machine (hub sets need the hub or its cache)",
                             description="Check a model set: a TOML file is read and validated, and a set of hub "
                                         "models needs the hub or its local cache. The TOML layout is in "
                                         "README.md ('Your own models').")
    ch.add_argument("profile", help=SETS_HELP)
    ch.set_defaults(run=_check_profile)

    pl = commands.add_parser("plan", help="print one extract command per result a model set still needs "
                                          "(the tasks of a cluster job array)")
    pl.add_argument("profile", help=SETS_HELP)
    pl.add_argument("--results", default=None, help="write the results under this folder instead of "
                                                    "$RANKSCALE_HOME/results (copy it there afterwards)")
    pl.add_argument("--gpu-memory-gb", type=float, default=80.0,
                    help="memory of one GPU of the cluster, in GB (default 80): a model whose weights take more "
                         "gets --device-map auto, spread over the node's GPUs")
    pl.add_argument("--train-device", default="cpu", help="the kind of device the ladder was trained on: cpu "
                                                          "(default) or cuda, as given to `rankscale ladder`")
    pl.set_defaults(run=_plan)

    me = commands.add_parser("metrics", help="print CE, RBP_k, EE, SA and Conf of an extraction")
    me.add_argument("dir", help="directory written by `extract`")
    me.add_argument("--k", type=_positive, nargs="+", default=[1, 10, 100, 1000],
                    help="k values for RBP_k, each at least 1 (the rank is 1-based)")
    me.add_argument("--json", action="store_true", help="print JSON instead of a table")
    me.set_defaults(run=_metrics)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; a RankscaleError is printed as one line on stderr, not as a traceback.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``python -m rankscale``; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0, 2 after a RankscaleError or an OSError, 130 when interrupted.

    Examples
    --------
    >>> main(["check-profile", "tiny"])
    model set 'tiny': the book can be computed here
    0
    >>> main(["check-profile", "no-such-set"])  # the reason goes to stderr
    2
    """
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "profile", None) is not None:  # the one place a command's model set is resolved
            args.model_set = sets.get(args.profile)
        args.run(args)
    except RankscaleError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # what no step foresaw (a disk failing mid-read, say): one line, not a traceback
        print(f"error: {err.strerror or err}" + (f": {err.filename}" if err.filename else "")
              + "; check that the file can be read and its disk has space, then run the same command again",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; finished shards are kept and the same command resumes", file=sys.stderr)
        return 130
    return 0
