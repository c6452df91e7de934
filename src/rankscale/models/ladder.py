"""The offline ladders: small models this project trains itself, so the book needs no hub.

A model set's ladder families (``rankscale.sets.schema.Ladder``) share one byte-level BPE tokenizer,
trained on the training parts of the offline corpora, and one token stream; every model, whatever
its architecture (GPT-NeoX or Llama), trains on the same sequences for the same number of steps
with AdamW, linear warmup and cosine decay. A model is written with ``save_pretrained`` (plus its
tokenizer and ``ladder.json``) into a temporary directory that is renamed into place only when
training has finished, so a model directory that exists is complete. Checkpoints, where kept,
live inside it as ``checkpoints/step<N>/``. The layout is ``<home>/models/<set>/tokenizer/`` and
``<home>/models/<set>/<arch>/<size>/``; a ladder's extra training runs of a size (``Ladder.seed_sizes``)
are ``<size>-s1/``, ``<size>-s2/``..., each initialised with its own seed and trained on the same
sequences in the same order. Models train two at a time where the machine has two cores or more
(``build_ladder``'s ``workers``): on 2 cores two single-threaded runs finish 1.17x (d16) to 1.34x
(d80) sooner than the same runs one after another on both cores (with ``keep_freed_memory``, as
training runs them). On a GPU (``build_ladder``'s ``device``) they train one after another in the
calling process, with the same seed, sequences and optimiser; the CPU stays the default, and its
weights are the canonical book's.

A trained model is identified by its whole recipe (``recipe``: its shape, every setting of
``LadderTraining``, the seed, the checkpoints kept, the training text by its identity, the
tokenizer's own recipe and, where it is not the CPU, the kind of device it trained on), written
into its ``ladder.json`` and compared as a whole, as ``datasets`` compares a builder's config; the
tokenizer likewise (``tokenizer_recipe``, in ``tokenizer/recipe.json``). A model or tokenizer of
another recipe is refused with what differs, never reused under the new settings. A set has one
ladder under a home, wherever it trained: the chapters find its models by set and home alone, so a
ladder trained on a GPU is refused where the CPU's is asked for (and the other way round) rather
than kept beside it, and its results, named by the weights' content (``rankscale.records.identity``),
are never taken for the CPU ladder's.

Run ``python -m rankscale ladder --profile tiny`` (or ``smoke``; ``--train-device cuda`` on a GPU);
existing models are skipped.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from rankscale import RankscaleError, __version__
from rankscale.corpora import get_corpus
from rankscale.models.loading import (
    count_params,
    keep_freed_memory,
    no_transformers_bars,
)
from rankscale.processes import default_workers, run_in_processes
from rankscale.sets.schema import Ladder, LadderSize, LadderTraining, ModelSet

if TYPE_CHECKING:  # torch and transformers are imported by the functions that train, so that
    # reading a trained ladder's metadata (what the chapters do) stays light
    from tqdm import tqdm
    from transformers import PreTrainedTokenizerFast

EOS = "<|endoftext|>"
METADATA = "ladder.json"
TOKENIZER_RECIPE = "recipe.json"
# Raise it whenever a change of the training code (the architectures' configs, the optimiser's
# grouping, the token stream) changes the weights a recipe gives: models trained before are then
# refused as of another recipe.
RECIPE_VERSION = 1


def swiglu_width(d_model: int) -> int:
    """Hidden width of a Llama MLP: 8/3 x d_model (the SwiGLU's three matrices then hold as many
    parameters as a 4 x d_model GELU MLP's two), rounded up to a multiple of 8.

    Examples
    --------
    >>> swiglu_width(64), swiglu_width(96)
    (176, 256)
    """
    return -(-8 * d_model // 3 // 8) * 8


def model_config(arch: str, size: LadderSize, vocab_size: int, seq_len: int):
    """The transformers config of one ladder model; both architectures keep an untied head.

    Parameters
    ----------
    arch : str
        ``"neox"`` or ``"llama"`` (``rankscale.sets.schema.ARCHITECTURES``); another raises RankscaleError.
    size : LadderSize
    vocab_size, seq_len : int
        Tokens of the tokenizer; maximum positions.

    Returns
    -------
    transformers.GPTNeoXConfig or transformers.LlamaConfig

    Examples
    --------
    >>> config = model_config("llama", LadderSize(d_model=16, n_layers=1, n_heads=1), 4096, 256)
    >>> type(config).__name__, config.intermediate_size, config.tie_word_embeddings
    ('LlamaConfig', 48, False)
    """
    from transformers import GPTNeoXConfig, LlamaConfig

    if arch == "neox":
        return GPTNeoXConfig(
            vocab_size=vocab_size, hidden_size=size.d_model, num_hidden_layers=size.n_layers,
            num_attention_heads=size.n_heads, intermediate_size=4 * size.d_model,
            max_position_embeddings=seq_len, rotary_pct=0.25, tie_word_embeddings=False,
            bos_token_id=0, eos_token_id=0,
        )
    if arch == "llama":
        return LlamaConfig(
            vocab_size=vocab_size, hidden_size=size.d_model, num_hidden_layers=size.n_layers,
            num_attention_heads=size.n_heads, num_key_value_heads=size.n_heads,
            intermediate_size=swiglu_width(size.d_model), max_position_embeddings=seq_len,
            rms_norm_eps=1e-5, tie_word_embeddings=False, bos_token_id=0, eos_token_id=0,
        )
    raise RankscaleError(f"unknown ladder architecture {arch!r}; use neox or llama")


def model_class(arch: str):
    """The transformers model class of a ladder architecture."""
    from transformers import GPTNeoXForCausalLM, LlamaForCausalLM

    return {"neox": GPTNeoXForCausalLM, "llama": LlamaForCausalLM}[arch]


def set_dir(model_set: ModelSet, home: Path) -> Path:
    """``models/<set>`` under ``home``: the tokenizer and every ladder family of the set.

    Examples
    --------
    >>> from rankscale.sets import get
    >>> set_dir(get("tiny"), Path("/home/me")).as_posix()
    '/home/me/models/tiny'
    """
    return home / "models" / model_set.name


def model_dir(model_set: ModelSet, ladder: Ladder, size: LadderSize, home: Path, replica: int = 0) -> Path:
    """``models/<set>/<arch>/<size>`` under ``home``: one ladder model's directory
    (``<size>-s<replica>`` for an extra training run of the size).

    Examples
    --------
    >>> from rankscale.sets import get
    >>> tiny = get("tiny")
    >>> model_dir(tiny, tiny.families[1].ladder, LadderSize(16, 1, 1), Path("/home/me")).as_posix()
    '/home/me/models/tiny/llama/d16-l1'
    >>> model_dir(tiny, tiny.families[1].ladder, LadderSize(16, 1, 1), Path("/home/me"), replica=2).name
    'd16-l1-s2'
    """
    return set_dir(model_set, home) / ladder.arch / (size.name if replica == 0 else f"{size.name}-s{replica}")


# ---------------------------------------------------------------- tokenizer and data


def train_tokenizer(texts: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer (GPT-2 style pre-tokenisation, no prefix space) with one
    special token, ``<|endoftext|>``, which separates documents.

    Parameters
    ----------
    texts : list of str
        The training text.
    vocab_size : int
        Tokens wanted, the 256 bytes and ``<|endoftext|>`` included.

    Returns
    -------
    transformers.PreTrainedTokenizerFast
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, bos_token=EOS, unk_token=EOS)


def _head_of(docs: list[str], n_chars: int) -> list[str]:
    """Leading documents holding about ``n_chars`` characters."""
    out, total = [], 0
    for doc in docs:
        if total >= n_chars:
            break
        out.append(doc)
        total += len(doc)
    return out


def tokenizer_recipe(training: LadderTraining) -> dict:
    """What defines a set's tokenizer: its kind, size, the characters per corpus it is trained on,
    and the training text by its identity (``rankscale.corpora.Corpus.identity``).

    Examples
    --------
    >>> from rankscale.sets import get
    >>> sorted(tokenizer_recipe(get("smoke").training))
    ['kind', 'text', 'tokenizer_chars', 'vocab_size']
    """
    return {"kind": f"byte-level BPE, special token {EOS}", "vocab_size": training.vocab_size,
            "tokenizer_chars": training.tokenizer_chars, "text": _training_text(training)}


def _training_text(training: LadderTraining) -> list[str]:
    """Each training corpus's identity, written as one readable line (for recipes and their errors)."""
    return [", ".join(f"{k} {v}" for k, v in sorted(get_corpus(name).identity()["text"].items()))
            for name in training.train_corpora]


def ensure_tokenizer(training: LadderTraining, root: Path) -> PreTrainedTokenizerFast:
    """Load the tokenizer in ``root/tokenizer``, training and saving it first if it is missing.

    Parameters
    ----------
    training : LadderTraining
        Its ``train_corpora``, ``tokenizer_chars`` and ``vocab_size`` define the tokenizer
        (``tokenizer_recipe``, saved beside it as ``recipe.json``).
    root : pathlib.Path
        The set's directory (``set_dir``).

    Returns
    -------
    transformers.PreTrainedTokenizerFast

    Raises
    ------
    RankscaleError
        For a saved tokenizer of another recipe (or of none, saved by an older version).
    """
    from transformers import PreTrainedTokenizerFast

    path = root / "tokenizer"
    recipe = tokenizer_recipe(training)
    if (path / "tokenizer.json").exists():
        _check_recipe(path, _saved(path / TOKENIZER_RECIPE), recipe, root)
    else:
        texts = [doc for name in training.train_corpora
                 for doc in _head_of(get_corpus(name).load(), training.tokenizer_chars)]
        tokenizer = train_tokenizer(texts, training.vocab_size)

        def save(tmp: Path) -> None:
            tokenizer.save_pretrained(tmp)
            (tmp / TOKENIZER_RECIPE).write_text(json.dumps(recipe, indent=2) + "\n")
        _save_atomically(path, save)
    return PreTrainedTokenizerFast.from_pretrained(path)


def training_sequences(training: LadderTraining, tokenizer) -> np.ndarray:
    """The token stream every ladder model trains on: (steps * batch, seq_len + 1) ids.

    Each training corpus becomes one stream (documents in their fixed order, each followed by
    ``<|endoftext|>``) cut into sequences; sequences are then taken from the corpora in turn, a
    corpus dropping out when it runs dry.

    Parameters
    ----------
    training : LadderTraining
    tokenizer : transformers.PreTrainedTokenizerFast
        The set's tokenizer (``ensure_tokenizer``).

    Returns
    -------
    ndarray of int64, shape (steps * batch_size, seq_len + 1)
        Fails (RankscaleError) if the corpora hold fewer sequences.
    """
    n_seq, width = training.steps * training.batch_size, training.seq_len + 1
    per_corpus = []
    for name in training.train_corpora:
        ids: list[int] = []
        for doc in get_corpus(name).load():
            ids.extend(tokenizer(doc, add_special_tokens=False, verbose=False)["input_ids"])
            ids.append(tokenizer.eos_token_id)
            if len(ids) >= n_seq * width:
                break
        per_corpus.append(np.asarray(ids[:len(ids) // width * width], np.int64).reshape(-1, width))
    rows = [seqs[i] for i in range(max(len(s) for s in per_corpus)) for seqs in per_corpus if i < len(seqs)]
    if len(rows) < n_seq:
        raise RankscaleError(f"the training corpora hold {len(rows)} sequences of {width} tokens, fewer than "
                             f"the {n_seq} the ladder needs")
    return np.stack(rows[:n_seq])


# ---------------------------------------------------------------- training


def peak_lr(size: LadderSize, training: LadderTraining) -> float:
    """Peak learning rate of one size: ``lr``, scaled down as 1 / width beyond ``lr_width``.

    Adam's best rate falls roughly as 1 / width. On the tiny ladder's 1000 steps, though, wide
    models are short of steps rather than unstable: scaling their rate down from width 64 was
    measured to make d96 and d160 worse, so no tiny model is scaled (``lr_width`` 256).

    Examples
    --------
    >>> from rankscale.sets import get
    >>> training = get("tiny").training
    >>> peak_lr(LadderSize(160, 4, 4), training), peak_lr(LadderSize(1024, 4, 4), training)
    (0.002, 0.0005)
    """
    return training.lr * min(1.0, training.lr_width / size.d_model)


def learning_rate(step: int, training: LadderTraining, peak: float) -> float:
    """Linear warmup to ``peak`` over ``warmup`` steps, then cosine decay to ``min_lr_ratio * peak``.

    Parameters
    ----------
    step : int
        0-based training step, below ``training.steps``.
    training : LadderTraining
    peak : float
        The size's peak rate (``peak_lr``).

    Returns
    -------
    float

    Examples
    --------
    >>> from rankscale.sets import get
    >>> training = get("tiny").training  # 100 warmup steps of 1000
    >>> [round(learning_rate(step, training, 1.0), 3) for step in (0, 99, 550, 999)]
    [0.01, 1.0, 0.55, 0.1]
    """
    if step < training.warmup:
        return peak * (step + 1) / training.warmup
    progress = (step - training.warmup) / max(1, training.steps - training.warmup)
    return peak * (training.min_lr_ratio + (1 - training.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def _save_atomically(path: Path, save) -> None:
    """Run ``save(tmp_dir)`` and rename the directory to ``path``; a crash leaves only a
    ``.tmp-*`` directory, which the next run removes."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        save(tmp)
        if path.exists():  # an incomplete directory from elsewhere; ours are never renamed half-done
            shutil.rmtree(path)
        os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _save_checkpoint(model, tokenizer, path: Path) -> None:
    with no_transformers_bars():
        model.save_pretrained(path)
        tokenizer.save_pretrained(path)


def check_train_device(device: str) -> None:
    """Refuse a device the ladders cannot train on here: anything but ``cpu``, ``cuda`` and
    ``cuda:N``, or a GPU that torch does not see.

    Raises
    ------
    RankscaleError
        Naming the device and what to ask for instead.

    Examples
    --------
    >>> check_train_device("cpu")
    >>> check_train_device("auto")
    Traceback (most recent call last):
    rankscale.RankscaleError: unknown training device 'auto'; use cpu (the default), cuda or cuda:N
    """
    if device == "cpu":
        return
    if not re.fullmatch(r"cuda(:\d+)?", device):
        raise RankscaleError(f"unknown training device {device!r}; use cpu (the default), cuda or cuda:N")
    import torch

    if not torch.cuda.is_available():
        raise RankscaleError(f"training device {device!r}: this torch ({torch.__version__}) sees no CUDA GPU; train on "
                             "the CPU (--train-device cpu, the default) or install torch's CUDA build (README.md, "
                             "Requirements)")
    index = torch.device(device).index
    if index is not None and index >= torch.cuda.device_count():
        raise RankscaleError(f"training device {device!r}: torch sees {torch.cuda.device_count()} GPU(s), cuda:0 to "
                             f"cuda:{torch.cuda.device_count() - 1}; name one of them")


def train_model(arch: str, size: LadderSize, training: LadderTraining, sequences: np.ndarray, tokenizer,
                out: Path, *, keep: tuple[int, ...] = (), label: dict | None = None,
                bar: tqdm | None = None, replica: int = 0, device: str = "cpu") -> dict:
    """Train one ladder model on ``sequences`` and save it (atomically) to ``out``.

    Parameters
    ----------
    arch : str
        ``"neox"`` or ``"llama"``.
    size : LadderSize
    training : LadderTraining
    sequences : ndarray of int64, shape (steps * batch_size, seq_len + 1)
        The token stream (``training_sequences``).
    tokenizer : transformers.PreTrainedTokenizerFast
        Saved beside the model.
    out : pathlib.Path
        The model directory (``model_dir``); it exists only once training has finished.
    keep : tuple of int
        Steps whose checkpoints are saved (``checkpoints/step<N>``).
    label : dict, optional
        Goes into ``ladder.json`` (set and family).
    bar : tqdm.tqdm, optional
        Advanced by one per step (anything with tqdm's ``update`` and ``set_postfix_str``).
    replica : int
        0 for the set's run of this size; k > 0 for its k-th extra run, initialised with seed
        ``training.seed + k``. Every run takes the same sequences in the same order: shuffling them
        was tried and moved held-out CE by 0.1 to 0.3 nats, far more than the initialisation
        does, because the set's stream ends on the corpus that runs dry last; that is a change of
        recipe, not a seed's luck.
    device : str
        Where it trains: ``cpu``, or a GPU (``cuda``, ``cuda:N``; ``check_train_device``). The
        model is initialised on the CPU either way (the same starting weights) and saved as the
        CPU's is (safetensors files hold no device); the device is part of its recipe (``recipe``)
        and ``ladder.json`` names it (``trained_on``: ``cpu`` or the GPU's name).

    Returns
    -------
    dict
        The metadata written to ``ladder.json``.
    """
    import torch

    torch.manual_seed(training.seed + replica)
    # initialised on the CPU, then moved: the CPU's generator gives every device the same starting weights
    model = model_class(arch)(model_config(arch, size, len(tokenizer), training.seq_len)).to(device)
    peak = peak_lr(size, training)
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": training.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=peak, betas=tuple(training.betas), eps=training.eps)
    losses: list[float] = []
    start = time.perf_counter()
    name = f"{(label or {}).get('family', arch)}/{size.name}" + (f" seed {training.seed + replica}" if replica else "")

    def train_into(tmp: Path) -> None:
        model.train()
        for step in range(training.steps):
            if step in keep:
                _save_checkpoint(model, tokenizer, tmp / "checkpoints" / f"step{step}")
            lr = learning_rate(step, training, peak)
            for group in optimizer.param_groups:
                group["lr"] = lr
            batch = torch.from_numpy(sequences[step * training.batch_size:(step + 1) * training.batch_size]).to(device)
            loss = model(input_ids=batch, labels=batch).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), training.clip)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
            if bar is not None:
                bar.update(1)
                if step % 10 == 0:
                    bar.set_postfix_str(f"{name} loss {losses[-1]:.3f}")
        model.eval()
        if training.steps in keep:
            _save_checkpoint(model, tokenizer, tmp / "checkpoints" / f"step{training.steps}")
        _save_checkpoint(model, tokenizer, tmp)
        (tmp / METADATA).write_text(json.dumps(meta(), indent=2) + "\n")

    def meta() -> dict:
        params = count_params(model)
        return {
            **(label or {}), "arch": arch, "size": size.name, "seed": training.seed + replica,
            "train_corpora": list(training.train_corpora),
            "recipe": recipe(arch, size, training, replica, keep, device),
            "params_non_embedding": params.non_embedding, "params_total": params.total,
            "tokens_seen": training.tokens, "checkpoint_steps": list(keep),
            "train_seconds": round(time.perf_counter() - start, 1),
            "trained_on": device if device == "cpu" else torch.cuda.get_device_name(device),
            "code_version": __version__, "torch_version": torch.__version__, "config": model.config.to_dict(),
            "loss_curve": losses,
        }

    out.parent.mkdir(parents=True, exist_ok=True)
    _save_atomically(out, train_into)
    return json.loads((out / METADATA).read_text())


class Planned(NamedTuple):
    """One ladder model of a set: its family, ladder, size, directory and training run."""

    family: str
    ladder: Ladder
    size: LadderSize
    path: Path
    replica: int  # 0: the run every size fit uses; k > 0: the size's k-th extra seed


def _ladder_plan(model_set: ModelSet, home: Path) -> list[Planned]:
    """Every ladder model of the set in set order, each size's extra seeds right after it."""
    return [Planned(family.name, family.ladder, size, model_dir(model_set, family.ladder, size, home, replica), replica)
            for family in model_set.ladder_families for size in family.ladder.sizes
            for replica in family.ladder.replicas(size)]


def missing_models(model_set: ModelSet, home: Path, device: str = "cpu") -> list[Planned]:
    """The ladder models of the set not trained yet under ``home``; refuses (RankscaleError)
    models trained with another recipe than the set now defines (``recipe``), or on another kind
    of device than ``device`` (``cpu``, ``cuda``, ``cuda:N``; the GPU's index is not part of it).

    Returns
    -------
    list of Planned
        Family name, ladder, size, model directory and training run of each, in set order.

    Examples
    --------
    >>> import tempfile
    >>> from rankscale.sets import get
    >>> with tempfile.TemporaryDirectory() as home:
    ...     missing = missing_models(get("tiny"), Path(home))
    >>> len(missing), missing[0].family, missing[0].size.name, [m.path.name for m in missing[:4]]
    (23, 'NeoX ladder', 'd16-l1', ['d16-l1', 'd16-l1-s1', 'd16-l1-s2', 'd24-l1'])
    """
    plan = _ladder_plan(model_set, home)
    root = set_dir(model_set, home)
    for entry in plan:
        if (entry.path / METADATA).exists():
            saved = _saved(entry.path / METADATA).get("recipe")
            wanted = recipe(entry.ladder.arch, entry.size, model_set.training, entry.replica, _kept(model_set, entry),
                            device)
            trained_on, asked = (r.get("device", "cpu") for r in (saved or {}, wanted))
            if saved and trained_on != asked:  # said apart from the recipe's other settings: the fix differs
                raise RankscaleError(f"{entry.path} was trained on {trained_on}, not on {asked}: train with "
                                     f"--train-device {trained_on} to use this ladder, or delete {root} to train it "
                                     f"on {asked}")
            _check_recipe(entry.path, saved, wanted, root)
    return [entry for entry in plan if not (entry.path / METADATA).exists()]


def build_ladder(model_set: ModelSet, home: Path, progress: bool = True, workers: int | None = None,
                 device: str = "cpu") -> list[Path]:
    """Train every ladder model of the set that does not exist yet under ``home``, with one
    progress bar over all of their steps; with nothing to train it reads no corpus.

    Parameters
    ----------
    model_set : ModelSet
    home : pathlib.Path
        Models go to ``set_dir(model_set, home)``.
    progress : bool
        Show the progress bar.
    workers : int, optional
        Models trained at once, each in a process of its own with an equal share of the cores'
        threads, largest first; default ``default_workers()``. 1 trains them one after another in
        this process with every thread. (A model's weights then differ from a parallel run's in
        the last bits of float rounding, as with any change of thread count.) The workers are
        spawned processes, so a script that calls this needs the usual
        ``if __name__ == "__main__":`` guard (``python -m rankscale`` has it). CPU training only.
    device : str
        Where the models train (``train_model``): ``cpu``, or a GPU (``cuda``, ``cuda:N``), on
        which they train one after another in this process. Checked first
        (``check_train_device``), even with nothing to train; a ladder trained on another kind of
        device is refused (``missing_models``).

    Returns
    -------
    list of pathlib.Path
        Every ladder model's directory, in set order (empty for a set without ladder).
    """
    check_train_device(device)
    if device != "cpu" and workers not in (None, 1):
        raise RankscaleError(f"{workers} workers: a GPU trains the models one after another in this process; leave "
                             f"--workers out with --train-device {device}")
    if not model_set.ladder_families:
        return []
    root = set_dir(model_set, home)
    root.mkdir(parents=True, exist_ok=True)
    for debris in root.glob("**/*.tmp-*"):  # left by a run that was killed
        shutil.rmtree(debris, ignore_errors=True)
    missing = missing_models(model_set, home, device)
    if missing:
        from tqdm import tqdm

        keep_freed_memory()  # 1.2x (d160) to 2.5x (d16) faster training steps here and in the workers
        training = model_set.training
        workers = 1 if device != "cpu" else max(1, min(workers or default_workers(), len(missing)))
        with tqdm(total=len(missing) * training.steps, desc="train", unit="step", disable=not progress) as bar:
            bar.set_postfix_str("tokenizer and token stream")
            tokenizer = ensure_tokenizer(training, root)
            sequences = training_sequences(training, tokenizer)
            tasks = [_task(model_set, entry, device) for entry in missing]
            if workers == 1:
                for task in tasks:
                    _train_task(task, training, sequences, tokenizer, bar)
            else:
                _train_in_parallel(tasks, training, sequences, root, workers, bar)
    return [entry.path for entry in _ladder_plan(model_set, home)]


def _kept(model_set: ModelSet, entry: Planned) -> tuple[int, ...]:
    """The checkpoint steps a planned model keeps: the set's, for a checkpointed size's own run."""
    checkpointed = entry.size.name in entry.ladder.checkpoint_sizes and not entry.replica
    return tuple(model_set.training.checkpoint_steps) if checkpointed else ()


def _task(model_set: ModelSet, entry: Planned, device: str) -> tuple:
    """(arch, size, directory, keyword arguments of ``train_model``) of one planned model: what
    ``_train_task`` trains, here or in a worker."""
    return (entry.ladder.arch, entry.size, entry.path,
            {"keep": _kept(model_set, entry), "label": {"set": model_set.name, "family": entry.family},
             "replica": entry.replica, "device": device})


def _train_in_parallel(tasks: list[tuple], training: LadderTraining, sequences: np.ndarray, root: Path,
                       workers: int, bar: tqdm) -> None:
    """Train ``tasks`` in ``workers`` processes (``rankscale.processes``), largest first, so that
    the last to finish are small. The first failure cancels the models not started yet and is
    raised once the models in training are saved."""
    order = sorted(tasks, key=lambda task: -_step_cost(task[1], training.vocab_size))
    run_in_processes(_train_in_worker, order, workers, bar, setup=_init_worker, setup_args=(training, sequences, root))


def _step_cost(size: LadderSize, vocab_size: int) -> int:
    """A size's relative cost per training step: its blocks' parameters plus its head's."""
    return size.n_layers * size.d_model**2 * 12 + size.d_model * vocab_size


_WORKER: dict = {}


def _init_worker(training: LadderTraining, sequences: np.ndarray, root: Path) -> None:
    from transformers import PreTrainedTokenizerFast

    _WORKER.update(training=training, sequences=sequences,
                   tokenizer=PreTrainedTokenizerFast.from_pretrained(root / "tokenizer"))


def _train_task(task: tuple, training: LadderTraining, sequences: np.ndarray, tokenizer, bar) -> None:
    arch, size, path, kwargs = task
    train_model(arch, size, training, sequences, tokenizer, path, bar=bar, **kwargs)


def _train_in_worker(task: tuple, bar) -> None:
    _train_task(task, _WORKER["training"], _WORKER["sequences"], _WORKER["tokenizer"], bar)


def recipe(arch: str, size: LadderSize, training: LadderTraining, replica: int = 0, keep: tuple[int, ...] = (),
           device: str = "cpu") -> dict:
    """What defines one trained ladder model: everything its weights depend on.

    Parameters
    ----------
    arch : str
        ``"neox"`` or ``"llama"``.
    size : LadderSize
    training : LadderTraining
        Every setting but ``checkpoint_steps`` (the model's own ``keep`` stands for them).
    replica : int
        0, or k > 0 for the size's k-th extra seed (``train_model``).
    keep : tuple of int
        The steps whose checkpoints the model keeps.
    device : str
        Where it trains (``train_model``). Another device's kernels round otherwise, so the kind of
        device (``cuda``) is part of the recipe; not the GPU's index, as two GPUs of a machine are one
        kind (nor the CPU's thread count, which moves the last bits too: ``build_ladder``). The CPU
        adds nothing: its recipes stay those of every ladder trained before a GPU could train one.

    Returns
    -------
    dict
        Flat but for the training text and tokenizer: the shape, the training settings, the
        seed, the peak rate, the checkpoints, the text (``tokenizer_recipe``'s identity of each
        corpus), the tokenizer's recipe and ``RECIPE_VERSION``; an extra seed also says that it
        varies the initialisation only (a replica trained on shuffled sequences, as one version of
        this code did, is refused); a model trained off the CPU says on what (``device``).

    Examples
    --------
    >>> from rankscale.sets import get
    >>> smoke = get("smoke").training
    >>> first, other = recipe("neox", LadderSize(16, 1, 1), smoke), recipe("neox", LadderSize(16, 1, 1), smoke, 1)
    >>> first["seed"], other["seed"], other["sequences"], first["min_lr_ratio"], first["betas"]
    (1234, 1235, "the set's order", 0.1, [0.9, 0.95])
    >>> recipe("neox", LadderSize(16, 1, 1), smoke, device="cuda:1") == {**first, "device": "cuda"}
    True
    """
    settings = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(training).items()
                if k != "checkpoint_steps"}
    return {"arch": arch, **asdict(size), **settings, "seed": training.seed + replica,
            "peak_lr": peak_lr(size, training), "checkpoints": list(keep), "text": _training_text(training),
            "tokenizer": tokenizer_recipe(training), "recipe_version": RECIPE_VERSION,
            **({"replica": replica, "sequences": "the set's order"} if replica else {}),
            **({} if device == "cpu" else {"device": device.partition(":")[0]})}


def _check_recipe(what: Path, saved: dict | None, wanted: dict, root: Path) -> None:
    """Refuse the model or tokenizer in ``what`` if its ``saved`` recipe is not ``wanted``."""
    if not saved:
        raise RankscaleError(f"{what} records no recipe (an older version of rankscale trained it), so it cannot "
                             f"be told from one of another recipe; delete {root} and train the ladder again")
    differ = [f"{k}: saved {saved.get(k)!r}, now {v!r}" for k, v in wanted.items() if saved.get(k) != v]
    differ += [f"{k}: saved {saved[k]!r}, now absent" for k in saved if k not in wanted]
    if differ:
        raise RankscaleError(f"{what} was trained with another recipe than its model set now defines "
                             f"({'; '.join(differ)}); delete {root} and train the ladder again")


def _saved(path: Path) -> dict:
    """The JSON object in ``path``; empty where there is none."""
    return json.loads(path.read_text()) if path.exists() else {}


def ladder_models(model_set: ModelSet, home: Path) -> list[dict]:
    """Metadata (``ladder.json`` plus ``path``) of every ladder model of a trained set, in set order.

    Returns
    -------
    list of dict
        Each size's extra seeds follow it, with ``replica`` k > 0 (0 for the others). Fails
        (RankscaleError) if a model is not trained yet (``build_ladder``).
    """
    out = []
    for entry in _ladder_plan(model_set, home):
        if not (entry.path / METADATA).exists():
            raise RankscaleError(f"ladder model {entry.path} is missing; run `python -m rankscale ladder "
                                 f"--profile {model_set.name}` to train it")
        out.append({**json.loads((entry.path / METADATA).read_text()), "path": str(entry.path), "replica": entry.replica})
    return out


def regime(models: list[dict]):
    """The training regime of every ladder model: how much data each size saw, read from the
    metadata ``ladder_models`` returns (``ladder.json``).

    Parameters
    ----------
    models : list of dict
        Each with ``family``, ``size``, ``params_non_embedding``, ``tokens_seen``, ``seed``,
        ``train_corpora`` and ``config.vocab_size``, and ``trained_on`` where the model's
        ``ladder.json`` has it (``cpu`` where not: a model trained before GPUs could train one).

    Returns
    -------
    pandas.DataFrame
        One row per model, in the order given: family, model, non-embedding parameters, training
        tokens, tokens per parameter (training tokens over non-embedding parameters), seed,
        runs at this size (the family's models of the same non-embedding count: its seeds),
        vocabulary, training corpora (``pydocs:train, ...``) and trained on (``cpu`` or the GPU's name).

    Examples
    --------
    >>> meta = [{"family": "NeoX", "size": size, "params_non_embedding": n, "tokens_seen": 2_000_000, "seed": 1,
    ...          "train_corpora": ["pydocs:train"], "config": {"vocab_size": 4096}} for size, n in (("d16-l1", 3_200), ("d160-l4", 1_250_000))]
    >>> regime(meta)[["model", "tokens per parameter", "runs at this size", "trained on"]].values.tolist()
    [['d16-l1', 625.0, 1, 'cpu'], ['d160-l4', 1.6, 1, 'cpu']]
    """
    import pandas as pd

    table = pd.DataFrame([{"family": m["family"], "model": m["size"], "non-embedding parameters": m["params_non_embedding"],
                           "training tokens": m["tokens_seen"],
                           "tokens per parameter": m["tokens_seen"] / m["params_non_embedding"], "seed": m["seed"],
                           "vocabulary": m["config"]["vocab_size"],
                           "training corpora": ", ".join(m["train_corpora"]),
                           "trained on": m.get("trained_on", "cpu")} for m in models])
    table.insert(6, "runs at this size", table.groupby(["family", "non-embedding parameters"])["model"].transform("size"))
    return table
