"""Extraction: run a model over token windows and record, per target token, its log-probability
and how many vocabulary entries score above it.

For each target t with fp32 logits z over the tokenizer's real tokens:
    logp = z[t] - logsumexp(z)
    gt   = #{v : z[v] >  z[t]}            (strictly higher)
    ge   = #{v != t : z[v] >= z[t]}       (higher or tied, target excluded)
Paper A's 1-based rank is ``ge + 1`` (its eq. 3) and paper B's 0-based RBE is ``gt`` (its eq. 1);
beside them, each target's document and character span of that document's text, with the UTF-8
bytes and words of the span (``rankscale.corpora.windows.target_spans``), so that a record can be
traced back to the text and counted per byte or word;
``rankscale.analysis.metrics`` derives both. It also keeps the log-probabilities of the ``TOP_K`` best
tokens, the head of each output distribution. With a ``temperature`` T other than 1 the logits
are divided by T first (z / T in place of z above): the distribution a sampler at temperature T
draws from, whose ranks are those of T = 1 (paper B, section 3.3; chapter B1 shows it).

The body runs in the model's dtype (bf16 on GPUs with ``dtype="auto"``), spread over several
GPUs by accelerate when ``device_map="auto"``, with no KV cache. A bf16 or fp16 body on a GPU gets
the fused head of ``rankscale.records.fused_head``: tensor-core logits that never reach memory,
with every rank certified equal to fp64's. Elsewhere the output head runs in fp32 on chunks of
at most ``chunk_tokens`` hidden states, so memory is bounded by chunk x vocabulary, not batch x
window x vocabulary. The batch size halves on out-of-memory until it fits. Results go to a
directory of shards and a manifest (format in ``rankscale.records.store``); an interrupted run resumes
shard by shard, and a finished one is reused. A GGUF model file is checked before anything is
written, and its manifest records the file (``model_file``: path, SHA-256, quantisation,
architecture; see ``rankscale.models.gguf.GGUFInfo``).

A hub model is loaded at the commit its revision names now (``rankscale.hub.resolve_commit``),
and that commit is part of the result's identity: a branch that has since changed gives a new result, never
the old records. The manifest's ``provenance`` says how the records were made (date, device,
versions of rankscale, torch, transformers and Python), as information that is never compared.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import platform
import shutil
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from rankscale import RankscaleError, __version__
from rankscale.corpora import get_corpus, target_spans, token_windows
from rankscale.hashing import file_sha256
from rankscale.models.gguf import check_gguf
from rankscale.models.loading import (
    auto_dtype,
    check_load_options,
    count_params,
    device_name,
    load_model,
    real_vocab_size,
    resolve_device,
    resolve_dtype,
)
from rankscale.models.source import locate
from rankscale.records import fused_head
from rankscale.records.identity import AUTO, differences, result_identity, same_result
from rankscale.records.store import (
    MANIFEST,
    TOP_K,
    Manifest,
    Shard,
    plan_shards,
    read_shard,
    write_shard,
)

CPU_BATCH = 8  # default windows per forward pass on CPU, where larger batches gain nothing
# The temperatures extract takes: the head divides the float32 logits by T, so that below 0.01 a target a few nats
# below the best token is hundreds of nats below it (its probability underflows, the perplexities, exp of the mean,
# overflow: the argmax, whose ranks T = 1 gives already), and above 100 every probability is within a few percent
# of 1/V (logits some nats apart, divided by T); chapter B1 uses 0.5 to 2
TEMPERATURE_RANGE = (0.01, 100.0)


@contextlib.contextmanager
def _full_fp32_matmul():
    """Keep TF32 off while the head runs: it rounds fp32 matmul inputs to 10 mantissa bits."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved[0]
        torch.set_float32_matmul_precision(saved[1])


def fp32_head(model, n_real: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The output head's weight (and bias) restricted to the first ``n_real`` rows, in fp32.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        A causal language model (``get_output_embeddings``).
    n_real : int
        The tokenizer's real tokens (``rankscale.models.loading.real_vocab_size``); padding rows are dropped.

    Returns
    -------
    weight : torch.Tensor of float32, shape (n_real, d)
    bias : torch.Tensor of float32, shape (n_real,), or None
    """
    head = model.get_output_embeddings()
    weight = head.weight[:n_real].detach().float()
    bias = getattr(head, "bias", None)
    return weight, (bias[:n_real].detach().float() if bias is not None else None)


def head_rank_counts(
    hidden: torch.Tensor, targets: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
    temperature: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Log-probability, ``gt``, ``ge`` and the top log-probabilities for one chunk of hidden states.

    Parameters
    ----------
    hidden : torch.Tensor, shape (c, d)
        Final hidden states, any dtype (computed in fp32).
    targets : torch.Tensor of int64, shape (c,)
        The token each hidden state predicts.
    weight : torch.Tensor of float32, shape (V, d)
    bias : torch.Tensor of float32, shape (V,), or None
        The output head (``fp32_head``).
    temperature : float
        The logits are divided by it before the softmax and the rank counts (1: as they are).

    Returns
    -------
    logp : torch.Tensor of float32, shape (c,)
    gt, ge : torch.Tensor of int64, shape (c,)
        Tokens scoring strictly above the target, and at or above it (target excluded).
    top : torch.Tensor of float32, shape (c, min(TOP_K, V))
        Log-probabilities of the best tokens, best first.

    Examples
    --------
    A target tied with one token and below another:

    >>> logp, gt, ge, top = head_rank_counts(torch.tensor([[2.0, 1.0, 1.0]]), torch.tensor([1]), torch.eye(3), None)
    >>> gt.tolist(), ge.tolist(), round(logp.item(), 4), tuple(top.shape)
    ([1], [2], -1.5514, (1, 3))
    """
    logits = hidden.float() @ weight.T
    if bias is not None:
        logits += bias
    if temperature != 1.0:
        logits /= temperature
    target_logit = logits.gather(1, targets[:, None])
    gt = (logits > target_logit).sum(1)
    ge = (logits >= target_logit).sum(1) - 1
    log_z = torch.logsumexp(logits, 1)
    top = logits.topk(min(TOP_K, logits.shape[1]), dim=1).values - log_z[:, None]
    return target_logit[:, 0] - log_z, gt, ge, top


def default_chunk_tokens(n_real: int, device: torch.device) -> int:
    """Hidden states per head chunk: about 8 MiB of fp32 logits on CPU, where a chunk that stays
    in cache makes the comparisons cheap (measured in benchmarks/extract_bench.py), and 1 GiB on
    accelerators, where larger matmuls win.

    Parameters
    ----------
    n_real : int
        Vocabulary entries per row of logits.
    device : torch.device or str
        Where the head runs.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> default_chunk_tokens(50_000, "cpu"), default_chunk_tokens(50_000, "cuda")
    (41, 5368)
    """
    budget = (8 << 20) if torch.device(device).type == "cpu" else (1 << 30)
    return max(1, budget // (4 * n_real))


@torch.no_grad()
def rank_records(
    model,
    windows: list[np.ndarray],
    n_real: int,
    *,
    context: list[int] | None = None,
    batch_size: int = 8,
    chunk_tokens: int | None = None,
    progress: tqdm | None = None,
    temperature: float = 1.0,
    head: str = "auto",
) -> dict[str, np.ndarray]:
    """Per-target records for ``windows``, in window order, at ``temperature``.

    A window's targets are its tokens after its first ``context`` ones, each predicted from all
    the tokens before it in the window. Windows of equal length are batched together (up to
    ``batch_size``), longest first, so no padding or attention mask is ever needed and a
    window's numbers do not depend on its batch-mates.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        A causal language model, already loaded (``rankscale.models.loading.load_model``).
    windows : list of ndarray of int, each of shape (length,)
        Token ids, every one below ``n_real`` (``rankscale.corpora.windows.Window.ids``).
    n_real : int
        The tokenizer's real tokens; the head is cut to them (``fp32_head``).
    context : list of int, optional
        Leading tokens of each window that are context only (``Window.context``), each at least
        1 and below the window's length; default 1 for every window.
    batch_size : int
        Windows per forward pass, at least 1.
    chunk_tokens : int, optional
        Hidden states per head chunk; default ``default_chunk_tokens``.
    progress : tqdm.tqdm, optional
        Advanced by the targets of each batch.
    temperature : float
        Divides the logits (``head_rank_counts``).
    head : {"auto", "fused", "fp32"}
        How the head is computed: ``"fused"``, the certified fused head of
        ``rankscale.records.fused_head`` (a CUDA model in bf16 or fp16, with Triton): ranks equal
        to fp64's, no logits in memory; ``"fp32"``, ``head_rank_counts`` over chunks of fp32
        logits; ``"auto"``, the fused head wherever it applies (``fused_head.applies``), else fp32.

    Returns
    -------
    dict of str to ndarray
        Arrays of length n = sum(len(w) - context): ``logp`` float32, ``gt``/``ge``/``target`` int32,
        ``window`` int32 (index into ``windows``), and ``top_logp`` float32 of shape (n, TOP_K)
        (padded with -inf if the vocabulary has fewer than TOP_K tokens).
    """
    if batch_size < 1:
        raise RankscaleError(f"batch size must be at least 1, got {batch_size}")
    # the first and the last layers sit on different GPUs when accelerate spreads the model
    input_device = model.get_input_embeddings().weight.device
    head_rows = model.get_output_embeddings().weight[:n_real].detach()
    if fused_head.which(head_rows, head) == "fused":
        bias = getattr(model.get_output_embeddings(), "bias", None)
        rank_counts = fused_head.FusedHead(head_rows, None if bias is None else bias[:n_real], temperature)
        chunk_tokens = chunk_tokens or batch_size * max(len(w) for w in windows)  # it holds no logits
    else:
        weight, bias = fp32_head(model, n_real)
        rank_counts = functools.partial(head_rank_counts, weight=weight, bias=bias, temperature=temperature)
        chunk_tokens = chunk_tokens or default_chunk_tokens(n_real, weight.device)
    context = [1] * len(windows) if context is None else list(context)
    offsets = np.concatenate([[0], np.cumsum([len(w) - c for w, c in zip(windows, context)])])
    out = {
        "logp": np.empty(offsets[-1], np.float32),
        "gt": np.empty(offsets[-1], np.int32),
        "ge": np.empty(offsets[-1], np.int32),
        "target": np.empty(offsets[-1], np.int32),
        "window": np.repeat(np.arange(len(windows), dtype=np.int32), np.diff(offsets)),
        "top_logp": np.full((offsets[-1], TOP_K), -np.inf, np.float32),
    }
    by_length: dict[int, list[int]] = {}
    for i, w in enumerate(windows):
        if not 1 <= context[i] < len(w):
            raise RankscaleError(f"window {i} of {len(w)} tokens cannot have {context[i]} tokens of context: it "
                                 "needs at least one and must keep a target")
        if w.max() >= n_real:
            raise RankscaleError(
                f"token id {int(w.max())} is outside the tokenizer's {n_real} tokens; the windows "
                "were made with a different tokenizer than this model's"
            )
        by_length.setdefault(len(w), []).append(i)
    body = model.base_model
    with _full_fp32_matmul():
        # longest windows first, as lm-evaluation-harness orders its requests: the largest batch
        # comes first, so an out-of-memory halving happens at once rather than at the end
        for length in sorted(by_length, reverse=True):
            group = by_length[length]
            for start in range(0, len(group), batch_size):
                idx = group[start:start + batch_size]
                ids = torch.from_numpy(np.stack([windows[i] for i in idx])).to(input_device)
                # position p predicts token p + 1: a target at p + 1 >= context of its window
                scored = torch.from_numpy(np.arange(1, length)[None, :] >= np.array([context[i] for i in idx])[:, None])
                # use_cache=False: the body would otherwise build a KV cache that nothing reads
                hidden = body(input_ids=ids, use_cache=False).last_hidden_state[:, :-1]
                hidden = hidden[scored.to(hidden.device)].to(head_rows.device)
                targets = ids[:, 1:][scored.to(ids.device)].to(head_rows.device)
                parts = [rank_counts(hidden[c:c + chunk_tokens], targets[c:c + chunk_tokens])
                         for c in range(0, len(targets), chunk_tokens)]
                logp, gt, ge, top = (torch.cat(p).cpu().numpy() for p in zip(*parts))
                if not np.isfinite(logp).all():
                    raise RankscaleError(
                        "the model produced non-finite log-probabilities; its body overflows in this "
                        "dtype. Extract with --dtype float32." if model.dtype != torch.float32 else
                        "the model produced non-finite log-probabilities in float32: its weights or its activations "
                        "are not finite (a damaged checkpoint, or a model that overflows even in float32); check the "
                        "model's files, or load another checkpoint"
                    )
                src = 0
                for i in idx:
                    dst, n = slice(offsets[i], offsets[i + 1]), offsets[i + 1] - offsets[i]
                    out["logp"][dst] = logp[src:src + n]
                    out["gt"][dst] = gt[src:src + n]
                    out["ge"][dst] = ge[src:src + n]
                    out["target"][dst] = windows[i][context[i]:]
                    out["top_logp"][dst, :top.shape[1]] = top[src:src + n]
                    src += n
                if progress is not None:
                    progress.update(len(targets))
    return out


def _rank_shard(model, windows: list[np.ndarray], n_real: int, batch_size: int,
                progress: tqdm, temperature: float = 1.0,
                context: list[int] | None = None) -> tuple[dict[str, np.ndarray], int]:
    """``rank_records`` for one shard, halving the batch size on out-of-memory until it fits.

    Returns the records and the batch size that fitted, for the next shard to start from. The
    records do not depend on the batch size (``rank_records`` never pads), so a retry only costs
    time.
    """
    done = progress.n
    while True:
        try:
            return rank_records(model, windows, n_real, context=context, batch_size=batch_size, progress=progress,
                                temperature=temperature), batch_size
        except torch.OutOfMemoryError:
            if batch_size == 1:
                raise RankscaleError(
                    "out of memory with one window per forward pass; spread the model over more GPUs "
                    "(--device-map auto), use a shorter --window or a lower-precision --dtype"
                ) from None
        # outside the handler, so that the failed attempt's tensors are already freed
        batch_size //= 2
        torch.cuda.empty_cache()
        progress.n = done
        progress.refresh()


@functools.lru_cache(maxsize=1)
def _load_gguf(path: str, sha256: str, dtype: str, device: str, device_map: str | None,
               load: tuple[tuple[str, object], ...]):
    """A GGUF model, loaded once for all the corpora one process extracts it on; ``sha256`` keys
    the cache, so a replaced file is loaded again (``load``: the load options, as hashable pairs)."""
    return load_model(path, dtype=dtype, device=device, device_map=device_map, load=dict(load))


def provenance(device: str, device_map: str | None = None, head: str = "fp32") -> dict:
    """How records are being made, for the manifest: the date (UTC), the device, the output head
    and the versions of the code that computes them.

    Parameters
    ----------
    device : str
        The resolved device (``rankscale.models.loading.resolve_device``).
    device_map : str, optional
        ``"auto"`` where accelerate spreads the model over the GPUs.
    head : {"fp32", "fused"}
        The output head that computes the records (``fused_head.which``).

    Returns
    -------
    dict
        ``date``, ``device`` (``rankscale.models.loading.device_name``), ``threads`` (torch's CPU
        threads: their number moves log-probabilities in the last bits, ``rankscale.processes``),
        ``head`` and ``versions`` of rankscale, torch, transformers and Python.

    Examples
    --------
    >>> sorted(provenance("cpu")["versions"]), provenance("cpu")["head"]
    (['python', 'rankscale', 'torch', 'transformers'], 'fp32')
    """
    import transformers

    return {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "device": device_name(device, device_map),
            "threads": torch.get_num_threads(), "head": head,
            "versions": {"rankscale": __version__, "torch": torch.__version__, "transformers": transformers.__version__,
                         "python": platform.python_version()}}


def extract(
    model: str | Path,
    corpus: str | Path,
    n_tokens: int | None,
    out_dir: str | Path,
    *,
    dtype: str = "auto",
    device: str = "auto",
    device_map: str | None = None,
    revision: str | None = None,
    load: Mapping | None = None,
    batch_size: int | None = None,
    window_len: int | None = None,
    seed: int = 42,
    shard_tokens: int = 16384,
    text_field: str = "text",
    force: bool = False,
    replace: bool = False,
    progress: bool = True,
    bar: tqdm | None = None,
    label: str | None = None,
    temperature: float = 1.0,
) -> Path:
    """Extract records for one (model, corpus) pair into ``out_dir``, resuming or reusing it.

    A finished extraction of the same identity (``rankscale.records.identity``: the model's and
    the corpus's content, every setting that changes a number) is reused without loading the
    model; an unfinished one is resumed from its last whole shard. One process at a time writes
    into ``out_dir`` (a lock file there, ``.lock``); a second one is refused at once. Every
    mistake in the arguments is found before ``out_dir`` is touched, and a failure leaves no
    ``out_dir`` that looks like a result: a folder this call created is removed unless a shard
    to resume from was written.

    Parameters
    ----------
    model : str or pathlib.Path
        Local directory, ``.gguf`` file or hub id (``rankscale.models.source.locate``). A GGUF
        file is checked (``rankscale.models.gguf.check_gguf``) before ``out_dir`` is touched.
    corpus : str or pathlib.Path
        A named corpus or a local file (``rankscale.corpora.get_corpus``).
    n_tokens : int or None
        Number of target tokens to record; None: every window the corpus's sampling gives (for
        the papers' corpora, the first 512 tokens of 1000 documents).
    out_dir : str or pathlib.Path
        Directory that will hold ``manifest.json`` and ``shard-*.npz``.
    dtype : str
        Body dtype, ``float32``, ``bfloat16``, ``float16`` or ``auto`` (default: bfloat16 on GPUs,
        float32 on CPU); the resolved name is part of the result's identity, and with ``auto`` a
        finished result in any dtype is reused as it is.
    device, device_map : str
        Where the whole model goes (``auto``, the default: CUDA where torch sees a GPU, else the
        CPU; ``rankscale.models.loading.resolve_device``); with ``device_map="auto"`` accelerate
        spreads it over every visible GPU instead (for models larger than one GPU).
    revision : str, optional
        Hub revision (branch, tag or commit) of a hub model; the commit it names now is loaded
        and is part of the identity (``rankscale.hub.resolve_commit``). Refused for local models.
    load : mapping, optional
        Load options (``rankscale.sets.schema.check_load_options``: ``trust_remote_code``,
        ``attn_implementation``, ``tokenizer``, ``adapter``...); part of the identity, a tokenizer
        or adapter by its content.
    batch_size : int, optional
        Windows per forward pass; None: as many as a shard holds on GPUs, ``CPU_BATCH`` on CPU.
        Halved on out-of-memory until it fits; results do not depend on it.
    window_len : int, optional
        Tokens per window; default min(512, the model's maximum positions), 512 being paper A's
        window (``rankscale.models.loading.default_window``; reads no weights).
    seed, shard_tokens, text_field
        Window sampling seed; about how many targets a shard holds; the field holding the text of
        a data-file corpus.
    force : bool
        Recompute even if ``out_dir`` holds a finished or different extraction.
    replace : bool
        Replace an extraction of another identity in ``out_dir`` instead of refusing it (a finished
        one of the same identity is still reused, an unfinished one resumed).
    progress, bar, label
        Show a progress bar of the tokens; ``bar`` is an open bar to advance instead of a new one
        (one bar over many extractions), ``label`` what it shows as running.
    temperature : float
        Divide the logits by this T before the softmax and the rank counts (default 1: the
        model's own distribution), within ``TEMPERATURE_RANGE``.

    Returns
    -------
    pathlib.Path
        ``out_dir``.

    Raises
    ------
    RankscaleError
        One line naming the cause and the fix: bad arguments, a model or corpus that cannot be
        had, another identity in ``out_dir`` (without ``force`` or ``replace``), another process
        writing there, a full disk or a folder that cannot be written.

    Examples
    --------
    >>> extract("models/tiny/neox-d64", "notes.txt", 20_000, "results/d64-notes")  # doctest: +SKIP
    >>> extract("EleutherAI/pythia-1b", "wikipedia", None, "results/pythia-1b-wikipedia")  # doctest: +SKIP
    """
    model, corpus, out_dir = str(model), str(corpus), Path(out_dir)
    low, high = TEMPERATURE_RANGE
    if not low <= temperature <= high:  # NaN too
        raise RankscaleError(f"temperature must be a positive number from {low:g} to {high:g}, where it gives finite "
                             f"and telling numbers, got {temperature:g}: the head divides float32 logits by it, so "
                             f"that below {low:g} a target a few nats below the best token is hundreds of nats below "
                             f"it (the perplexities overflow) and above {high:g} every probability is within a few "
                             "percent of 1/V; give --temperature in that range (chapter B1 uses 0.5 to 2)")
    if n_tokens is not None and n_tokens < 1:
        raise RankscaleError(f"--tokens must be a positive number of target tokens, got {n_tokens}")
    if window_len is not None and window_len < 2:
        raise RankscaleError(f"--window must be at least 2 tokens, got {window_len}")
    if seed < 0:
        raise RankscaleError(f"--seed must be a whole number of at least 0, got {seed}")
    if dtype != AUTO:
        resolve_dtype(dtype)  # an unknown name fails here, not once the model loads
    if out_dir.exists() and not out_dir.is_dir():
        raise RankscaleError(f"--out {out_dir} is a file; give the path of a directory for the records")
    device = resolve_device(device)
    options = check_load_options(load or {})
    source = locate(model, revision, tokenizer_given="tokenizer" in options)
    model_file = check_gguf(source.name) if source.kind == "gguf" else None  # a damaged file fails here
    text = get_corpus(corpus, text_field)
    wanted = result_identity(source, text, n_tokens, load=options, window_len=window_len, seed=seed, dtype=dtype,
                             temperature=temperature)
    resolved = {**wanted, "dtype": auto_dtype(device) if dtype == AUTO else dtype}
    if _finished(out_dir, wanted, force):
        return out_dir
    with _writing(out_dir) as writing:
        if _finished(out_dir, wanted, force):  # finished by the process that held the lock before
            return out_dir
        known_hashes, start_over = _settle_out_dir(out_dir, resolved, force, replace)
        documents = text.load()  # before the model: a corpus that cannot be had fails at once
        if model_file is not None:  # reused across corpora: de-quantising a GGUF file takes many seconds
            net, tokenizer = _load_gguf(source.name, model_file.sha256, resolved["dtype"], device, device_map,
                                        tuple(options.items()))
        else:  # a hub model at the commit of its identity, even if the branch moves while it loads
            net, tokenizer = load_model(source.name, dtype=resolved["dtype"], device=device, device_map=device_map,
                                        revision=source.load_revision, load=options)
        window = resolved["window_len"]
        max_len = getattr(net.config, "max_position_embeddings", None)
        if max_len is not None and window > max_len:
            raise RankscaleError(f"window length {window} exceeds the model's {max_len} positions; "
                                 f"pass --window {max_len} or less")
        n_real = real_vocab_size(tokenizer)
        windows = token_windows(documents, tokenizer, n_tokens, window, seed, text.name, text.sampling)
        params = count_params(net)
        plan = plan_shards([len(w.targets) for w in windows], shard_tokens)
        manifest = Manifest(
            identity=resolved, source={"model": source.name, "revision": revision, "corpus": text.name},
            corpus_description=text.description, code_version=__version__, vocab_size=n_real,
            head_rows=int(net.get_output_embeddings().weight.shape[0]), params_total=params.total,
            params_non_embedding=params.non_embedding, n_windows=len(windows),
            shards=tuple(Shard(f"shard-{k:05d}.npz", (a, b), n) for k, (a, b, n) in enumerate(plan)),
            model_file=None if model_file is None else model_file.record(),
            provenance=provenance(device, device_map, fused_head.which(net.get_output_embeddings().weight)),
        )
        _clear(out_dir, start_over, {s.file for s in manifest.shards})
        manifest.write(out_dir)
        writing.wrote_manifest = True
        identity = manifest.digest

        def reusable(shard: Shard) -> bool:
            path = out_dir / shard.file
            if read_shard(path, shard.n_tokens, identity, manifest.format) is None:
                return False
            return shard.file not in known_hashes or known_hashes[shard.file] == file_sha256(path)

        done = [reusable(s) for s in manifest.shards]
        if batch_size is None:
            on_cpu = net.get_input_embeddings().weight.device.type == "cpu"
            batch_size = CPU_BATCH if on_cpu else len(windows)
        name = label or Path(source.name).name
        if bar is None:
            own = tqdm(total=sum(s.n_tokens for s in manifest.shards), unit="tok", unit_scale=True,
                       desc=f"extract {name}", disable=not progress)
        else:
            own = contextlib.nullcontext(bar)
            bar.set_postfix_str(name)
        with own as bar:
            bar.update(sum(s.n_tokens for s, d in zip(manifest.shards, done) if d))
            for shard, is_done in zip(manifest.shards, done):
                if is_done:
                    continue
                a, b = shard.windows
                arrays, batch_size = _rank_shard(net, [w.ids for w in windows[a:b]], n_real, batch_size, bar,
                                                 temperature, [w.context for w in windows[a:b]])
                arrays["window"] += a
                arrays.update(target_spans(windows[a:b]))  # where each target lies in its document
                write_shard(out_dir / shard.file, arrays, identity)
        manifest.finished(out_dir).write(out_dir)
    return out_dir


def _finished(out_dir: Path, wanted: dict, force: bool) -> bool:
    """Whether ``out_dir`` holds the finished, intact result ``wanted`` asks for (and ``force`` does
    not ask to compute it again)."""
    if force or not (out_dir / MANIFEST).is_file():
        return False
    try:
        manifest = Manifest.read(out_dir)
    except RankscaleError:  # another format, or not a manifest: settled under the lock
        return False
    return manifest.complete and same_result(manifest.identity, wanted) and manifest.verified(out_dir)


LOCK = ".lock"


class _Writing:
    """What one process does to a results folder while it holds it (``_writing``)."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.created = not out_dir.exists()
        self.wrote_manifest = False


@contextlib.contextmanager
def _writing(out_dir: Path):
    """Hold ``out_dir`` for this process alone while it writes records there.

    Creates ``out_dir`` where needed and takes its lock (``filelock``), or refuses at once if
    another process holds it. On a failure before any shard is written, what this call made is
    removed: the folder where it created it, else the manifest it wrote; a full disk or a folder
    that cannot be written becomes one line naming the cause and the fix.

    Yields
    ------
    _Writing
        Where the caller records that it wrote the manifest.
    """
    from filelock import FileLock, Timeout

    state = _Writing(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(out_dir / LOCK, timeout=0)
        lock.acquire()
    except Timeout:
        raise RankscaleError(f"another process is writing records into {out_dir} now; wait for it to finish "
                             "(then the same command reuses its result), or choose another --out") from None
    except OSError as err:
        if state.created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise _storage_error(err, out_dir) from None
    try:
        yield state
    except BaseException as err:
        if not any(out_dir.glob("shard-*.npz")):  # nothing to resume from: nothing left behind
            if state.created:
                shutil.rmtree(out_dir, ignore_errors=True)
            else:
                (out_dir / LOCK).unlink(missing_ok=True)
                if state.wrote_manifest:
                    (out_dir / MANIFEST).unlink(missing_ok=True)
        if isinstance(err, OSError) and _is_storage_error(err, out_dir):
            raise _storage_error(err, out_dir) from None
        raise
    finally:
        lock.release()


def _is_storage_error(err: OSError, out_dir: Path) -> bool:
    """Whether an error came from writing the records (and not from reading a model, say)."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
        return True
    return err.filename is not None and Path(err.filename).resolve().is_relative_to(out_dir.resolve())


def _storage_error(err: OSError, out_dir: Path) -> RankscaleError:
    """A failure to write ``out_dir`` as one line naming the cause and the fix."""
    where = err.filename or out_dir
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        fix = ("free some space, then run the same command again (finished shards are kept and it resumes), "
               "or choose an --out on another disk")
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        fix = "choose an --out in a folder you can write to"
    elif err.errno in (errno.ENOTDIR, errno.EEXIST):
        fix = "a part of the --out path is a file; choose the path of a directory"
    else:
        fix = "check that the --out folder can be written, or choose another"
    return RankscaleError(f"cannot write the records into {out_dir}: {err.strerror or err} ({where}); {fix}")


def _settle_out_dir(out_dir: Path, identity: dict, force: bool, replace: bool) -> tuple[dict[str, str], bool]:
    """What ``out_dir`` holds of an extraction of ``identity``, once ``_finished`` said it is not
    that finished result; called with the folder's lock held, before anything is removed.

    Returns
    -------
    known_hashes : dict of str to str
        The shard hashes of a finished run of the same identity whose shards are partly corrupt
        (the others are kept); empty otherwise. An unfinished run's shards are checked one by
        one (``read_shard``: the identity they carry, their size).
    start_over : bool
        Whether every record there is to be removed: ``force``, or ``replace`` of another identity
        or of a manifest this version cannot read.

    Raises
    ------
    RankscaleError
        For another identity, or a manifest this version cannot read, without ``force`` or
        ``replace``, naming how the identities differ.
    """
    try:
        manifest = Manifest.read(out_dir)
    except RankscaleError as err:  # another format, or a manifest cut short
        if force or replace:
            return {}, True
        fix = "" if "--force" in str(err) else f"; or pass --force to replace what {out_dir} holds"
        raise RankscaleError(f"{err}{fix}") from None
    if manifest is None or force:
        return {}, force
    if manifest.identity != identity:
        if replace:
            return {}, True
        differ = ", ".join(differences(manifest.identity, identity))
        raise RankscaleError(
            f"{out_dir} already holds an extraction of another result (it differs in: {differ}); choose another "
            "--out directory, or pass --force to replace it"
        )
    return {s.file: s.sha256 for s in manifest.shards if s.sha256}, False


def _clear(out_dir: Path, start_over: bool, planned: set[str]) -> None:
    """Remove from ``out_dir`` every shard (``start_over``) or those the new plan does not list,
    and the debris of a run killed mid-write."""
    for shard in out_dir.glob("shard-*.npz"):
        if start_over or shard.name not in planned:
            shard.unlink()
    for leftover in out_dir.glob("*.tmp"):
        leftover.unlink()
