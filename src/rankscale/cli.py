"""Command line: ``rankscale extract|metrics|ladder|book|publish|verdicts|check-profile|plan`` (also ``python -m
rankscale``), one subcommand per task, each resolving its model set once.

A command's output (tables, JSON, paths) goes to stdout; progress bars and messages go to stderr, the
messages through ``logging`` (``--quiet``: warnings only, no progress bars; ``--verbose``: debug messages
too, and transformers' and datasets' informational ones), and so does an error, as one line.

Exit status: 0 done; 1 a runtime error (bad input found while running, a file that cannot be read or
written: one line on stderr, ``error: ...``, naming the cause and the fix); 2 a usage error (an unknown
option or a malformed value, reported by argparse with the usage line); 130 interrupted (Ctrl-C); 141,
silently, when the reader of stdout closed it first (``rankscale verdicts ... | head -1``).

Every path argument has ``~`` expanded, as a shell does where it is not quoted; ``--json`` output is
strict JSON, a number that is not finite (an infinite perplexity) written as null.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import math
import os
import sys
import time
from pathlib import Path

from rankscale import RankscaleError, __version__, processes, sets

_log = logging.getLogger(__name__)

RUNTIME_ERROR, INTERRUPTED = 1, 130  # exit statuses besides 0; a usage error exits 2, from argparse itself
BROKEN_PIPE = 141  # 128 + SIGPIPE: a program whose reader closed its output (| head -1), as a shell reports it
# --quiet, neither, --verbose: the level of rankscale's loggers, then of transformers' and datasets', which
# are one step quieter (their INFO is a flood of loading details)
LOG_LEVELS = {"quiet": (logging.WARNING, logging.ERROR), "default": (logging.INFO, logging.WARNING),
              "verbose": (logging.DEBUG, logging.INFO)}


def _extract(args: argparse.Namespace) -> None:
    from rankscale.records.extract import extract
    from rankscale.sets.schema import parse_load_options

    out = extract(args.model, args.corpus, args.tokens, args.out, dtype=args.dtype, device=args.device,
                  device_map=args.device_map, revision=args.revision, load=parse_load_options(args.model_args),
                  batch_size=args.batch_size,
                  window_len=args.window, seed=args.seed, text_field=_text_field(args.corpus, args.text_field),
                  force=args.force, progress=_progress(args), temperature=args.temperature)
    print(f"records in {out}")


def _text_field(corpus: str, text_field: str | None) -> str:
    """The field ``--text-field`` names (``text`` where it is not given), refused for a corpus whose rows have no
    fields: a text file is one document, and a named corpus is read by rankscale's own recipe, so that the field
    would otherwise be ignored, and a result reused for another field."""
    from rankscale.corpora import get_corpus
    from rankscale.corpora.files import file_format

    if text_field is None:
        return "text"
    name = get_corpus(corpus).name  # a file's resolved path, an hf: dataset, or a named corpus's own name
    if name.startswith("hf:") or (Path(name).is_file() and file_format(Path(name)) is not None):
        return text_field
    what = "a text file, read as one document" if Path(name).is_file() else "a named corpus, read by its own recipe"
    raise RankscaleError(f"--text-field {text_field} names a field of the rows of a data file (.parquet, .json, "
                         f".jsonl) or an hf: dataset, but corpus {corpus} is {what}, which has none: leave "
                         "--text-field out")


def _path(value: str) -> str:
    """A path argument, ``~`` expanded as a shell expands it where it is not quoted (``--out=~/x`` and
    ``--out "~/x"`` reach rankscale as they are)."""
    return os.path.expanduser(value)


def _tokens(value: str) -> int | None:
    """A number of target tokens: a whole number, 0 (None) for every token the corpus's sampling gives, as 0 means
    in a model set's ``[corpora]``."""
    return _whole(value) or None


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


def _whole(value: str) -> int:
    """A whole number of at least 0 (a number of bootstrap replicates)."""
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got {value!r}")
    return int(value)


def _metrics(args: argparse.Namespace) -> None:
    from tqdm.auto import tqdm

    from rankscale.records.store import load_records

    form = args.format or ("jsonl" if args.json else None)
    if args.output and form is None:
        form = OUTPUT_FORMATS.get(Path(args.output).suffix.lower())
        if form is None:
            args.usage(f"--output {args.output}: name a .csv or .jsonl file, or give --format csv or jsonl")
    rows = [_metrics_row(folder, load_records(folder), args)
            for folder in tqdm(args.dir, unit="result", desc="metrics", disable=True if not _progress(args) else None,
                               file=sys.stderr)]
    if args.output:
        Path(args.output).write_text(WRITERS[form](rows))
        _log.info("%d row%s written to %s (%s)", len(rows), "s" * (len(rows) != 1), args.output, form)
        form = "table"  # and the table on stdout, for the eye
    print(WRITERS[form or "table"](rows), end="")


def _metrics_row(folder: str, records, args: argparse.Namespace) -> dict:
    """One result's row of ``rankscale metrics``: what it is, then each metric and its standard error."""
    from rankscale.analysis.metrics import summary_with_errors
    from rankscale.claims.context import unit_counts

    manifest = records.manifest
    sample = {"logp": records.logp, "gt": records.gt, "ge": records.ge, "document": records.document,
              "n_bytes": records.n_bytes, "n_words": records.n_words}
    row = {"result": folder, "model": manifest.source["model"], "revision": manifest.source.get("revision"),
           "corpus": manifest.source["corpus"], "dtype": manifest.identity["dtype"],
           "params_non_embedding": manifest.params_non_embedding, "n_windows": manifest.n_windows,
           "n_documents": None if records.document is None else unit_counts(records.document)[0],
           "n_tokens": len(records)}
    n_boot = args.n_boot
    if records.document is None and n_boot:
        # the errors resample whole documents, which these records do not name: none rather than errors too small
        _log.warning("%s: made before rankscale recorded each target's document (format 3), so no standard errors; "
                     "extract it again (--force) to have them", folder)
        n_boot = 0
    _log.debug("%s: %d targets in %d windows of %s documents, %d bootstrap replicates", folder, len(records),
               manifest.n_windows, row["n_documents"], n_boot)
    row |= summary_with_errors(sample, ks=args.k, n_boot=n_boot, seed=args.seed)
    if args.rank_fits:
        from rankscale.analysis.metrics import rank_1based
        from rankscale.analysis.rank_models import rank_fits_record

        fits = rank_fits_record(rank_1based(records.gt, records.ge), manifest.vocab_size)
        for fit, values in fits.items():
            if values.get("degenerate"):
                _log.info("%s: %s fit left out (%s)", folder, fit, values["reason"])
        row |= {f"{fit}_{key}": fits[fit].get(key) for fit, key in RANK_FIT_COLUMNS}
    return row


RANK_FIT_COLUMNS = (("lognormal_authors", "mu"), ("lognormal_authors", "sigma"), ("lognormal_eq10", "mu"),
                    ("lognormal_eq10", "sigma"), ("power_law", "alpha"))
# the table leaves out what names a result at length (the JSON and the CSV have it): its folder says which it is
TABLE_LEAVES_OUT = ("model", "revision", "corpus", "dtype", "params_non_embedding", "n_windows", "n_documents")
OUTPUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}


def metrics_table(rows: list[dict]) -> str:
    """Rows of ``rankscale metrics`` as an aligned text table: a header of the rows' own keys (less
    ``TABLE_LEAVES_OUT``), then a line per row; a missing value (None) reads ``-``.

    Examples
    --------
    >>> print(metrics_table([{"result": "runs/a", "model": "m", "n_tokens": 1500, "ce_nats": 3.14159, "ce_nats_se": None}]),
    ...       end="")
    result  n_tokens  ce_nats  ce_nats_se
    runs/a      1500   3.1416           -
    """
    names = [name for name in rows[0] if name not in TABLE_LEAVES_OUT] if rows else []
    cells = [names] + [["-" if row[n] is None else f"{row[n]:.5g}" if isinstance(row[n], float) else str(row[n])
                        for n in names] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(names))]
    return "".join("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                             enumerate(zip(line, widths))).rstrip() + "\n" for line in cells)


def metrics_csv(rows: list[dict]) -> str:
    """Rows as CSV, a header of their keys; a missing value is an empty field."""
    import csv
    import io

    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue()


def metrics_jsonl(rows: list[dict]) -> str:
    """Rows as JSON lines, one object per row; a missing value is null, and so is a number that is not finite.

    Examples
    --------
    >>> print(metrics_jsonl([{"result": "runs/a", "ce_nats": 3.5, "word_perplexity": float("inf")}]), end="")
    {"result": "runs/a", "ce_nats": 3.5, "word_perplexity": null}
    """
    return "".join(to_json(row) + "\n" for row in rows)


def to_json(value, **kwargs) -> str:
    """``json.dumps(value, **kwargs)`` as strict JSON: a float that is not finite (an infinite perplexity, a NaN)
    is null, where Python would write ``Infinity`` or ``NaN``, which JSON has not and its readers refuse.

    Examples
    --------
    >>> to_json({"a": [1.5, float("nan")], "b": float("-inf")})
    '{"a": [1.5, null], "b": null}'
    """
    def finite(item):
        if isinstance(item, float):
            return item if math.isfinite(item) else None
        if isinstance(item, dict):
            return {key: finite(v) for key, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [finite(v) for v in item]
        return item

    return json.dumps(finite(value), allow_nan=False, **kwargs)


WRITERS = {"table": metrics_table, "csv": metrics_csv, "jsonl": metrics_jsonl}


def _ladder(args: argparse.Namespace) -> None:
    from rankscale import paths
    from rankscale.models.ladder import build_ladder, ladder_models

    start = time.perf_counter()
    home = Path(args.home) if args.home else paths.home()
    model_set = args.model_set
    if not model_set.ladder_families:
        raise RankscaleError(f"model set {model_set.name!r} has no ladder family; nothing to train")
    build_ladder(model_set, home, progress=_progress(args), workers=args.workers, device=args.train_device)
    print(f"{'family':<14}{'model':<10}{'seed':>6}{'non-embedding':>15}{'final loss':>12}{'train s':>9}  path")
    for m in ladder_models(model_set, home):
        print(f"{m['family']:<14}{m['size']:<10}{m['seed']:>6}{m['params_non_embedding']:>15,}"
              f"{m['loss_curve'][-1]:>12.3f}{m['train_seconds']:>9.0f}  {m['path']}")
    print(f"ladder of {model_set.name!r} ready in {time.perf_counter() - start:.1f} s")


def _book(args: argparse.Namespace) -> None:
    from rankscale.book.build import build_book

    start = time.perf_counter()
    html = build_book(args.model_set, args.out, progress=_progress(args), device=args.device,
                      train_device=args.train_device, jobs=args.jobs)
    print(f"book ({args.profile}) built in {time.perf_counter() - start:.0f} s: open {html / 'index.html'}")


def _publish(args: argparse.Namespace) -> None:
    from rankscale.book.build import ROOT
    from rankscale.book.publish import publish

    out = Path(args.out) if args.out else ROOT
    done = publish(out / "_build" / "html", out, remote=args.remote, branch=args.branch)
    where = f"served at {done.address}" if done.address else f"on branch {args.branch} of remote {args.remote!r}"
    print(f"{'published' if done.new else 'already published, unchanged'}: commit {done.commit[:10]}, {where}")


def _verdicts(args: argparse.Namespace) -> None:
    from tqdm.auto import tqdm

    from rankscale.claims.chapters import CHAPTERS, chapter_verdicts, label

    pages = args.chapter or list(CHAPTERS)
    found = tqdm(chapter_verdicts(args.model_set, pages, device=args.device), total=len(pages), unit="chapter",
                 desc="verdicts", disable=True if not _progress(args) else None, file=sys.stderr)
    rows = [verdict.row(label(page)) for page, verdicts in found for verdict in verdicts]
    if args.json:
        print(to_json(rows, indent=1, ensure_ascii=False))
        return
    for row in rows:
        held = f"{row['held']} of {row['tested']}" if row["tested"] else ""
        print(f"{row['key']:<6} {row['verdict']:<25} {held:>8}  {row['claim']}")
    _log.info("%d verdicts of model set %r from %d chapters", len(rows), args.model_set.name, len(pages))


def _check_profile(args: argparse.Namespace) -> None:
    from rankscale.sets import require_available

    require_available(args.model_set)
    print(f"model set {args.model_set.name!r}: the book can be computed here")


def _plan(args: argparse.Namespace) -> None:
    from rankscale.records.jobs import plan_commands

    commands = plan_commands(args.model_set, results=Path(args.results).resolve() if args.results else None,
                             gpu_memory_gb=args.gpu_memory_gb, train_device=args.train_device)
    print("\n".join(commands))
    _log.info("%d extraction%s to run", len(commands), "s" * (len(commands) != 1))


def _progress(args: argparse.Namespace) -> bool:
    """Whether the command shows progress bars: not under --quiet."""
    return args.verbosity != "quiet"


def _verbosity(default) -> argparse.ArgumentParser:
    """The parent parser of --quiet and --verbose, which set ``verbosity`` (a key of ``LOG_LEVELS``)."""
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const="quiet", default=default,
                       help="warnings and errors only: no progress bars, no messages")
    group.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const="verbose", default=default,
                       help="debug messages too, and transformers' and datasets' informational ones")
    return parser


class _Stderr(logging.StreamHandler):
    """A handler that writes to whatever ``sys.stderr`` is when a record comes (a test's capture, say), not
    to the stream of the moment it was made."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _):
        pass


def configure_logging(verbosity: str) -> None:
    """Set the levels of rankscale's loggers and of transformers' and datasets' (``LOG_LEVELS``), and send
    rankscale's records to stderr as bare lines (once per process, however often it is called).

    Parameters
    ----------
    verbosity : str
        ``quiet``, ``default`` or ``verbose``.
    """
    ours, theirs = LOG_LEVELS[verbosity]
    root = logging.getLogger("rankscale")
    root.setLevel(ours)
    if not any(isinstance(h, _Stderr) for h in root.handlers):
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        root.addHandler(handler)
    name = logging.getLevelName(theirs).lower()
    for library in ("transformers", "datasets"):
        # read when the library is first imported (it sets its own level then); the logger itself where it is
        os.environ[f"{library.upper()}_VERBOSITY"] = name
        if library in sys.modules:
            logging.getLogger(library).setLevel(theirs)


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
    parser = argparse.ArgumentParser(prog="rankscale", description=__doc__, parents=[_verbosity(argparse.SUPPRESS)],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(verbosity="default")
    parser.add_argument("--version", action="version", version=f"rankscale {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    # --quiet and --verbose are also understood after the subcommand (rankscale extract ... --quiet), where
    # SUPPRESS keeps a subcommand that was not given them from resetting what came before it
    common = [_verbosity(argparse.SUPPRESS)]

    ex = commands.add_parser("extract", parents=common,
                             help="record log-probabilities and ranks of a model on a corpus")
    ex.add_argument("--model", required=True, type=_path, help="local model directory, .gguf file or hub id")
    ex.add_argument("--corpus", required=True, type=_path,
                    help="a corpus name; a local .parquet, .json or .jsonl file (optionally .gz, .bz2, .xz, .zst: "
                         "one document per row; suffixes in any case, checked against the content) or any other "
                         "UTF-8 text file (one document); or hf:org/name[:config]:split for a hub dataset")
    ex.add_argument("--tokens", type=_tokens, default=None,
                    help="number of target tokens to record (0 or left out: all that the corpus's sampling "
                         "gives, as 0 in a model set's [corpora]; for the papers' corpora, the first 512 tokens of "
                         "1000 documents)")
    ex.add_argument("--out", required=True, type=_path, help="directory for the shards and manifest")
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
    ex.add_argument("--text-field", default=None,
                    help="field holding the text of a .parquet, .json(l) or hf: corpus (default text); refused for "
                         "a corpus without fields (a text file, a named corpus)")
    ex.add_argument("--temperature", type=float, default=1.0,
                    help="divide the logits by this T, from 0.01 to 100, before the softmax and the rank counts "
                         "(default 1: the model's own distribution)")
    ex.add_argument("--force", action="store_true", help="recompute even if --out holds results")
    ex.set_defaults(run=_extract)

    la = commands.add_parser("ladder", parents=common, help="train the offline model ladder (skips models that exist)")
    la.add_argument("--profile", default="tiny", type=_path,
                    help="a model set with ladder families: smoke or tiny (default)")
    la.add_argument("--home", default=None, type=_path,
                    help="folder for models/ and results/ (default: $RANKSCALE_HOME, else the repository root of "
                         "a checkout, else the working directory)")
    la.add_argument("--workers", type=int, help="models trained at once on the CPU, each with its share of the cores "
                    "(default: 2 on a machine of 2 cores or more)")
    la.add_argument("--train-device", default="cpu", help=TRAIN_DEVICE_HELP)
    la.set_defaults(run=_ladder)

    bo = commands.add_parser("book", parents=common,
                             help="execute the chapters under a profile and build the HTML book")
    bo.add_argument("--profile", default="tiny", type=_path, help=SETS_HELP + " (default tiny)")
    bo.add_argument("--out", default=None, type=_path,
                    help="folder that receives _build/ (default: the repository root of a checkout, else the "
                         "working directory)")
    bo.add_argument("--device", default="auto", help=DEVICE_HELP + " for extraction; the ladders train on "
                                                                  "--train-device")
    bo.add_argument("--train-device", default="cpu", help=TRAIN_DEVICE_HELP)
    bo.add_argument("--jobs", type=_positive, default=min(2, os.cpu_count() or 1), metavar="N",
                    help="models extracted at a time on the CPU, then chapters executed at a time, each in a process "
                         "of its own (default: 2, or 1 on one core; each holds a model or the runs its chapter reads, "
                         "so more only where cores and memory allow)")
    bo.set_defaults(run=_book)

    pu = commands.add_parser("publish", parents=common,
                             help="push the last whole site (_build/html) to the gh-pages branch of a git remote",
                             description="Publish the site that `rankscale book` built last, whole and current "
                                         "(refused, before the remote is touched, when there is none or the code, "
                                         "sources or results changed since), as one commit on the remote's "
                                         "gh-pages branch made by ghp-import (with .nojekyll); the same site "
                                         "again makes no commit. Prints the address GitHub Pages serves it at.")
    pu.add_argument("--remote", default="origin", help="a git remote of the repository (default origin)")
    pu.add_argument("--branch", default="gh-pages", help="the branch the site goes to (default gh-pages)")
    pu.add_argument("--out", default=None, type=_path,
                    help="the folder whose _build/html is published and whose git repository knows the remote "
                         "(default: as rankscale book)")
    pu.set_defaults(run=_publish)

    ve = commands.add_parser("verdicts", parents=common,
                             help="print every verdict of a model set, measured and decided by the library alone "
                                  "(no notebook)",
                             description="Measure and decide every chapter's claims on a model set's results "
                                         "(extracting what is missing first), as the book's verdict tables show "
                                         "them: one line per claim, or JSON rows with each unit's outcome.")
    ve.add_argument("--profile", default="tiny", type=_path, help=SETS_HELP + " (default tiny)")
    # the chapters are checked where they are listed (rankscale.claims.chapters): the parser imports no numpy
    ve.add_argument("--chapter", nargs="+", metavar="PAGE",
                    help="only these chapters, by the name of their page (a1_metric, a3_k_dependence, ...)")
    ve.add_argument("--json", action="store_true", help="print JSON rows: chapter, key, claim, rule, paper, ours, "
                                                       "verdict, held, tested, finding and every unit's outcome "
                                                       "(a number that is not finite is null)")
    ve.add_argument("--device", default="auto", help=DEVICE_HELP)
    ve.set_defaults(run=_verdicts)

    ch = commands.add_parser("check-profile", parents=common,
                             help="say at once whether a model set can be computed on this machine (hub sets need "
                                  "the hub or its cache)",
                             description="Check a model set: a TOML file is read and validated, and a set of hub "
                                         "models needs the hub or its local cache. The TOML layout is in "
                                         "README.md ('Your own models').")
    ch.add_argument("profile", type=_path, help=SETS_HELP)
    ch.set_defaults(run=_check_profile)

    pl = commands.add_parser("plan", parents=common,
                             help="print one extract command per result a model set still needs (the tasks of a "
                                  "cluster job array)")
    pl.add_argument("profile", type=_path, help=SETS_HELP)
    pl.add_argument("--results", default=None, type=_path,
                    help="write the results under this folder instead of $RANKSCALE_HOME/results (copy it there "
                         "afterwards)")
    pl.add_argument("--gpu-memory-gb", type=float, default=80.0,
                    help="memory of one GPU of the cluster, in GB (default 80): a model whose weights take more "
                         "gets --device-map auto, spread over the node's GPUs")
    pl.add_argument("--train-device", default="cpu", help="the kind of device the ladder was trained on: cpu "
                                                          "(default) or cuda, as given to `rankscale ladder`")
    pl.set_defaults(run=_plan)

    me = commands.add_parser("metrics", parents=common,
                             help="a table of CE, bits per byte, byte and word perplexity, RBP_k, EE, SA and Conf of "
                                  "one or more extractions, each with its standard error",
                             description="One row per results folder: what it is, then each metric and its standard "
                                         "error (<name>_se), under the same names in the table, the CSV and the "
                                         "JSON, each name saying its unit. ce_nats: cross-entropy, nats per token; "
                                         "bits_per_byte, byte_perplexity, word_perplexity: as lm-evaluation-harness "
                                         "defines them over the scored tokens (- or null for results made before "
                                         "rankscale recorded each token's bytes and words); rbp_<k>: the share of "
                                         "tokens ranked k or better (paper A); ee_nats, sa_nats, conf_nats: paper B's "
                                         "Error-Entropy, Self-Alignment and Confidence (CE = EE + SA - Conf). A "
                                         "standard error is the standard deviation over --n-boot bootstrap replicates "
                                         "that resample whole documents (the tokens of a document are not "
                                         "independent; for the papers' corpora a window is a document, as "
                                         "lm-evaluation-harness resamples). The table leaves out model, revision, "
                                         "corpus, dtype, params_non_embedding, n_windows and n_documents, which the "
                                         "CSV and JSON give.")
    me.add_argument("dir", nargs="+", type=_path,
                    help="results folders written by `extract` (a shell glob such as results/*)")
    me.add_argument("--k", type=_positive, nargs="+", default=[1, 10, 100, 1000],
                    help="k values for RBP_k, each at least 1 (the rank is 1-based)")
    me.add_argument("--n-boot", type=_whole, default=100,
                    help="bootstrap replicates of each standard error (default 100; 0: none, each _se empty)")
    me.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    me.add_argument("--rank-fits", action="store_true",
                    help="add paper A's fits of the rank distribution: lognormal_authors_mu and _sigma (its "
                         "authors' fit), lognormal_eq10_mu and _sigma (its eq. 10), power_law_alpha; empty where a "
                         "fit is degenerate")
    me.add_argument("--format", choices=list(WRITERS), default=None,
                    help="table, csv or jsonl (JSON lines): the form of --output, else of stdout (default: a "
                         "table on stdout; for --output, by its name: .csv, or .jsonl, .ndjson, .json)")
    me.add_argument("--json", action="store_true", help="the same as --format jsonl (a number that is not finite, "
                                                       "an infinite perplexity, is null)")
    me.add_argument("--output", metavar="FILE", default=None, type=_path,
                    help="write the rows to FILE (CSV or JSON lines), and the table to stdout")
    me.set_defaults(run=_metrics, usage=me.error)
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
        The exit status: 0; ``RUNTIME_ERROR`` (1) after a RankscaleError or an OSError (``os_error``);
        ``INTERRUPTED`` (130) after Ctrl-C; 143 after SIGTERM and 129 after SIGHUP
        (``rankscale.processes.Terminated``), the command's workers ended first; ``BROKEN_PIPE``
        (141), with no message, where the reader of stdout closed it first. A usage error returns nothing: argparse prints the usage and
        raises ``SystemExit(2)`` before anything runs.

    Examples
    --------
    >>> main(["check-profile", "tiny"])
    model set 'tiny': the book can be computed here
    0
    >>> main(["check-profile", "no-such-set"])  # the reason goes to stderr
    1
    """
    args = build_parser().parse_args(argv)
    configure_logging(args.verbosity)
    try:
        if getattr(args, "profile", None) is not None:  # the one place a command's model set is resolved
            args.model_set = sets.get(args.profile)
        with processes.interruptible():  # SIGTERM unwinds as Ctrl-C does: clean-up runs, workers end
            args.run(args)
        sys.stdout.flush()  # here, where a closed pipe is seen, not at the interpreter's exit
    except RankscaleError as err:
        print(f"error: {err}", file=sys.stderr)
        return RUNTIME_ERROR
    except BrokenPipeError:  # the reader of stdout has what it wanted (| head -1) and closed it: nothing to say
        _stdout_to_devnull()
        return BROKEN_PIPE
    except OSError as err:  # what no step foresaw (a missing folder, a disk failing mid-read): one line
        print(f"error: {os_error(err)}", file=sys.stderr)
        return RUNTIME_ERROR
    except KeyboardInterrupt:
        print("interrupted; what was finished is kept and the same command resumes", file=sys.stderr)
        return INTERRUPTED
    except processes.Terminated as stop:
        print("terminated; what was finished is kept and the same command resumes", file=sys.stderr)
        return stop.code
    return 0


# the fix for an OSError, by its errno; ENOENT is told apart in os_error (a missing folder, or file)
OS_ERROR_FIXES = {
    errno.ENOENT: "check the path",
    errno.ENOTDIR: "a part of the path is a file, not a folder: correct the path",
    errno.EISDIR: "it is a folder: name a file",
    errno.EACCES: "check its permissions, or choose a path you can read or write",
    errno.EPERM: "check its permissions, or choose a path you can read or write",
    errno.EROFS: "choose a path on a file system you can write to",
    errno.ENOSPC: "free some space, then run the same command again",
    errno.EDQUOT: "free some space within your quota, then run the same command again",
    errno.EIO: "the disk or the network file system failed: check it, then run the same command again",
}


def os_error(err: OSError) -> str:
    """The one line of an OSError that no step turned into a RankscaleError: its cause, by its errno, the path,
    and the fix (``OS_ERROR_FIXES``).

    Parameters
    ----------
    err : OSError

    Returns
    -------
    str

    Examples
    --------
    >>> os_error(FileNotFoundError(errno.ENOENT, "No such file or directory", "/no/such/folder/rows.csv"))
    'the folder /no/such/folder does not exist: create it, or give a path in a folder that does'
    >>> os_error(OSError(errno.ENOSPC, "No space left on device", "rows.csv"))
    'No space left on device: rows.csv; free some space, then run the same command again'
    """
    path = Path(err.filename) if err.filename else None
    if err.errno == errno.ENOENT and path is not None and not path.parent.is_dir():
        return f"the folder {path.parent} does not exist: create it, or give a path in a folder that does"
    fix = OS_ERROR_FIXES.get(err.errno, "check that the file can be read and its disk has space, then run the "
                                        "same command again")
    return f"{err.strerror or err}" + (f": {err.filename}" if err.filename else "") + f"; {fix}"


def _stdout_to_devnull() -> None:
    """Point stdout's file descriptor at /dev/null, so that the interpreter's last flush of what is still
    buffered for a closed pipe does not fail again, as Python's documentation of SIGPIPE advises."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a stream with no descriptor (a test's capture): nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
