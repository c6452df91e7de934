"""The offline ladder: small GPT-NeoX models this project trains itself, so the companion's main
job needs no hub.

One byte-level BPE tokenizer per profile is trained on the training parts of the offline corpora;
every model of the profile then trains on the same token stream (sequences drawn in turn from
each corpus) for the same number of steps, with AdamW, linear warmup and cosine decay. A model is
written with ``save_pretrained`` (plus its tokenizer and ``ladder.json``) into a temporary
directory that is renamed into place only when training has finished, so a model directory that
exists is complete. Checkpoints, where kept, live inside it as ``checkpoints/step<N>/``.

Run ``python -m rankscale ladder --profile tiny`` (or ``smoke``); existing models are skipped.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM, PreTrainedTokenizerFast

from rankscale import RankscaleError, __version__
from rankscale.corpora import get_corpus
from rankscale.extract import extract, model_key
from rankscale.models import count_params
from rankscale.records import FORMAT, Records, load_records, read_manifest

EOS = "<|endoftext|>"
METADATA = "ladder.json"


@dataclass(frozen=True)
class Size:
    """Shape of one ladder model; the feed-forward width is 4 * d_model, as in Pythia."""

    d_model: int
    n_layers: int
    n_heads: int

    @property
    def name(self) -> str:
        return f"d{self.d_model}-l{self.n_layers}"

    def config(self, vocab_size: int, seq_len: int) -> GPTNeoXConfig:
        return GPTNeoXConfig(
            vocab_size=vocab_size, hidden_size=self.d_model, num_hidden_layers=self.n_layers,
            num_attention_heads=self.n_heads, intermediate_size=4 * self.d_model,
            max_position_embeddings=seq_len, rotary_pct=0.25, tie_word_embeddings=False,
            bos_token_id=0, eos_token_id=0,
        )


@dataclass(frozen=True)
class Profile:
    """A set of ladder models trained alike. ``checkpoint_steps`` are kept for the sizes named
    in ``checkpoint_sizes`` (step 0 is the initialisation, the last is the final model)."""

    name: str
    sizes: tuple[Size, ...]
    train_corpora: tuple[str, ...]
    steps: int
    batch_size: int
    seq_len: int
    checkpoint_steps: tuple[int, ...]
    checkpoint_sizes: tuple[str, ...]
    vocab_size: int = 4096
    lr: float = 2e-3
    lr_width: int = 256  # models wider than this get lr * lr_width / d_model
    warmup: int = 100
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    seed: int = 1234
    tokenizer_chars: int = 4_000_000  # per corpus, enough text for a 4096-token BPE

    @property
    def tokens(self) -> int:
        return self.steps * self.batch_size * self.seq_len


OFFLINE_TRAIN = ("pydocs:train", "stdlib:train", "humaneval:train")
# From 3.3e3 to 1.24e6 non-embedding parameters (2.57 decades), chosen so the tiny profile trains
# in about 18 minutes on 2 cores. Width leads: at 2M tokens a wider model gains much more top-1
# accuracy than a deeper one of the same size (d24 x 1 layer reached RBP_1 0.169 on pydocs, d24 x 2
# layers 0.171 with twice the parameters; a deep, narrow d16 x 3 was worse than d16 x 1), so a
# ladder that adds depth in big steps puts kinks in -log RBP_1 (R^2 0.970 with d24 x 2 instead of
# 0.984). Below d_model 64 a single head (narrow heads cost up to 45% more time per step on CPU:
# benchmarks/ladder_step_bench.py), above it heads 40 to 56 wide.
TINY_SIZES = (Size(16, 1, 1), Size(24, 1, 1), Size(40, 2, 1), Size(56, 3, 1), Size(80, 3, 2),
              Size(112, 4, 2), Size(160, 4, 4))

PROFILES = {
    "tiny": Profile("tiny", TINY_SIZES, OFFLINE_TRAIN, steps=1000, batch_size=8, seq_len=256,
                    checkpoint_steps=(0, 16, 128, 1000), checkpoint_sizes=("d24-l1", "d80-l3", "d160-l4")),
    "smoke": Profile("smoke", TINY_SIZES[:3], OFFLINE_TRAIN, steps=150, batch_size=8, seq_len=128,
                     checkpoint_steps=(0, 16, 128, 150), checkpoint_sizes=tuple(s.name for s in TINY_SIZES[:3]),
                     warmup=30, tokenizer_chars=1_000_000),
}


def default_home() -> Path:
    """Where ladder models (``models/``) and extraction results (``results/``) live:
    ``$RANKSCALE_HOME`` if set, else the root of the repository holding the working directory
    (the nearest parent with a ``pyproject.toml``), else the working directory."""
    if "RANKSCALE_HOME" in os.environ:
        return Path(os.environ["RANKSCALE_HOME"])
    here = Path.cwd().resolve()
    for parent in (here, *here.parents):
        if (parent / "pyproject.toml").exists():
            return parent
    return here


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise RankscaleError(f"unknown ladder profile {name!r}; choose one of {', '.join(PROFILES)}")
    return PROFILES[name]


def profile_dir(profile: Profile, home: Path | None = None) -> Path:
    """``models/<profile>`` under ``home``: the tokenizer and every model of the profile."""
    return (home or default_home()) / "models" / profile.name


def model_dir(profile: Profile, size: Size, home: Path | None = None) -> Path:
    return profile_dir(profile, home) / size.name


# ---------------------------------------------------------------- tokenizer and data


def train_tokenizer(texts: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer (GPT-2 style pre-tokenisation, no prefix space) with one
    special token, ``<|endoftext|>``, which separates documents."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

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


def ensure_tokenizer(profile: Profile, home: Path | None = None) -> PreTrainedTokenizerFast:
    """Load the profile's tokenizer, training and saving it first if it is missing."""
    path = profile_dir(profile, home) / "tokenizer"
    if not (path / "tokenizer.json").exists():
        texts = [doc for name in profile.train_corpora
                 for doc in _head_of(get_corpus(name).load(), profile.tokenizer_chars)]
        tokenizer = train_tokenizer(texts, profile.vocab_size)
        _save_atomically(path, tokenizer.save_pretrained)
    return PreTrainedTokenizerFast.from_pretrained(path)


def training_sequences(profile: Profile, tokenizer) -> np.ndarray:
    """The token stream every model of ``profile`` trains on: (steps * batch, seq_len + 1) ids.

    Each training corpus becomes one stream (documents in their fixed order, each followed by
    ``<|endoftext|>``) cut into sequences; sequences are then taken from the corpora in turn, a
    corpus dropping out when it runs dry.
    """
    n_seq, width = profile.steps * profile.batch_size, profile.seq_len + 1
    per_corpus = []
    for name in profile.train_corpora:
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
                             f"the {n_seq} that profile {profile.name!r} needs")
    return np.stack(rows[:n_seq])


# ---------------------------------------------------------------- training


def peak_lr(size: Size, profile: Profile) -> float:
    """Peak learning rate of one size: ``lr``, scaled down as 1 / width beyond ``lr_width``.

    Adam's best rate falls roughly as 1 / width. On the tiny ladder's 1000 steps, though, wide
    models are short of steps rather than unstable: scaling their rate down from width 64 was
    measured to make d96 and d160 worse, so no tiny model is scaled (``lr_width`` 256).
    """
    return profile.lr * min(1.0, profile.lr_width / size.d_model)


def learning_rate(step: int, profile: Profile, peak: float) -> float:
    """Linear warmup to ``peak`` over ``warmup`` steps, then cosine decay to ``min_lr_ratio * peak``."""
    if step < profile.warmup:
        return peak * (step + 1) / profile.warmup
    progress = (step - profile.warmup) / max(1, profile.steps - profile.warmup)
    return peak * (profile.min_lr_ratio + (1 - profile.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


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


def train_model(size: Size, profile: Profile, sequences: np.ndarray, tokenizer, out: Path,
                progress: bool = True) -> dict:
    """Train one ladder model on ``sequences`` and save it (atomically) to ``out``.

    Returns the metadata written to ``ladder.json``.
    """
    torch.manual_seed(profile.seed)
    model = GPTNeoXForCausalLM(size.config(len(tokenizer), profile.seq_len))
    peak = peak_lr(size, profile)
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": profile.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=peak, betas=(0.9, 0.95), eps=1e-8)
    keep = profile.checkpoint_steps if size.name in profile.checkpoint_sizes else ()
    losses: list[float] = []
    start = time.perf_counter()

    def train_into(tmp: Path) -> None:
        model.train()
        bar = tqdm(range(profile.steps), desc=f"train {profile.name}/{size.name}", unit="step",
                   disable=not progress)
        for step in bar:
            if step in keep:
                _save_checkpoint(model, tokenizer, tmp / "checkpoints" / f"step{step}")
            lr = learning_rate(step, profile, peak)
            for group in optimizer.param_groups:
                group["lr"] = lr
            batch = torch.from_numpy(sequences[step * profile.batch_size:(step + 1) * profile.batch_size])
            loss = model(input_ids=batch, labels=batch).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
            if step % 10 == 0 or step == profile.steps - 1:
                bar.set_postfix(loss=f"{losses[-1]:.3f}")
        model.eval()
        if profile.steps in keep:
            _save_checkpoint(model, tokenizer, tmp / "checkpoints" / f"step{profile.steps}")
        _save_checkpoint(model, tokenizer, tmp)
        (tmp / METADATA).write_text(json.dumps(meta(), indent=2) + "\n")

    def meta() -> dict:
        params = count_params(model)
        return {
            "profile": profile.name, "size": size.name, **_training_settings(size, profile),
            "params_non_embedding": params.non_embedding, "params_total": params.total,
            "tokens_seen": profile.tokens, "checkpoint_steps": list(keep),
            "train_seconds": round(time.perf_counter() - start, 1), "code_version": __version__,
            "torch_version": torch.__version__, "config": model.config.to_dict(), "loss_curve": losses,
        }

    out.parent.mkdir(parents=True, exist_ok=True)
    _save_atomically(out, train_into)
    return json.loads((out / METADATA).read_text())


def _save_checkpoint(model, tokenizer, path: Path) -> None:
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def build_ladder(profile: str | Profile, home: Path | None = None, progress: bool = True) -> list[Path]:
    """Train every model of ``profile`` that does not exist yet under ``home``.

    Returns the model directories, smallest first. With nothing to train it reads no corpus.
    """
    profile = get_profile(profile) if isinstance(profile, str) else profile
    home = home or default_home()
    root = profile_dir(profile, home)
    root.mkdir(parents=True, exist_ok=True)
    for debris in root.glob("*.tmp-*"):  # left by a run that was killed
        shutil.rmtree(debris, ignore_errors=True)
    dirs = [model_dir(profile, size, home) for size in profile.sizes]
    for size, path in zip(profile.sizes, dirs):
        _check_trained_as(size, profile, path)
    missing = [(size, d) for size, d in zip(profile.sizes, dirs) if not (d / METADATA).exists()]
    if missing:
        tokenizer = ensure_tokenizer(profile, home)
        sequences = training_sequences(profile, tokenizer)
        for size, path in missing:
            train_model(size, profile, sequences, tokenizer, path, progress)
    return dirs


def _training_settings(size: Size, profile: Profile) -> dict:
    """What defines a trained ladder model, as recorded in its ``ladder.json``."""
    return {**asdict(size), "steps": profile.steps, "batch_size": profile.batch_size,
            "seq_len": profile.seq_len, "seed": profile.seed, "peak_lr": peak_lr(size, profile),
            "warmup": profile.warmup, "weight_decay": profile.weight_decay,
            "train_corpora": list(profile.train_corpora)}


def _check_trained_as(size: Size, profile: Profile, path: Path) -> None:
    """Refuse a saved model whose settings differ from the profile's (the code changed since)."""
    if not (path / METADATA).exists():
        return
    saved = json.loads((path / METADATA).read_text())
    differ = {k: (saved.get(k), v) for k, v in _training_settings(size, profile).items() if saved.get(k) != v}
    if differ:
        detail = ", ".join(f"{k}: saved {a!r}, profile {b!r}" for k, (a, b) in differ.items())
        raise RankscaleError(f"{path} was trained with other settings than profile {profile.name!r} now "
                             f"defines ({detail}); delete {path.parent} and run the ladder again")


def ladder_models(profile: str | Profile, home: Path | None = None) -> list[dict]:
    """Metadata (``ladder.json`` plus ``path``) of every model of a trained profile, smallest first."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    out = []
    for size in profile.sizes:
        path = model_dir(profile, size, home)
        if not (path / METADATA).exists():
            raise RankscaleError(f"ladder model {path} is missing; run `python -m rankscale ladder "
                                 f"--profile {profile.name}` to train it")
        out.append({**json.loads((path / METADATA).read_text()), "path": str(path)})
    return out


def _records(home: Path, profile: Profile, label: str, model_path: str, corpus: str, n_tokens: int,
             progress: bool) -> Records:
    """Extract (or reuse) ``model_path`` on ``corpus`` into ``results/<profile>/<label>/``; labels
    carry a hash of the model's ladder.json, so a retrained model never reuses old results."""
    corpus_label = re.sub(r"[^\w.-]+", "-", corpus).strip("-")  # "pydocs:train", or a file's path
    run = home / "results" / profile.name / label / f"{corpus_label}-{n_tokens}"
    manifest = read_manifest(run)
    # The label pins the model's ladder.json, so a result naming another model path holds the
    # same model moved (a moved clone or RANKSCALE_HOME), and one of another format was written
    # by an older version: extract again rather than refuse.
    outdated = manifest is not None and (manifest["identity"]["model"] != model_key(model_path)
                                         or manifest.get("format") != FORMAT)
    extract(model_path, corpus, n_tokens, run, force=outdated, progress=progress)
    return load_records(run)


def _run_label(meta: dict) -> str:
    digest = hashlib.sha256((Path(meta["path"]) / METADATA).read_bytes()).hexdigest()[:10]
    return f"{meta['size']}-{digest}"


def ladder_records(profile: str | Profile, corpus: str, n_tokens: int, home: Path | None = None,
                   progress: bool = True) -> list[tuple[dict, Records]]:
    """Records of every model of ``profile`` on ``corpus``, smallest model first.

    Trains missing models and extracts missing results (under ``home/results/<profile>/``),
    reusing everything already there. Returns (ladder metadata, records) pairs.
    """
    profile = get_profile(profile) if isinstance(profile, str) else profile
    home = home or default_home()
    build_ladder(profile, home, progress)
    return [(meta, _records(home, profile, _run_label(meta), meta["path"], corpus, n_tokens, progress))
            for meta in ladder_models(profile, home)]


def checkpoint_records(profile: str | Profile, corpus: str, n_tokens: int, home: Path | None = None,
                       progress: bool = True) -> list[tuple[dict, int, Records]]:
    """Records of every saved training checkpoint of ``profile`` on ``corpus``.

    Returns (ladder metadata of the model, step, records) triples, smallest model first and steps
    in training order; step 0 is the initialisation and the last step equals the final model.
    """
    profile = get_profile(profile) if isinstance(profile, str) else profile
    home = home or default_home()
    build_ladder(profile, home, progress)
    out = []
    for meta in ladder_models(profile, home):
        for step in meta["checkpoint_steps"]:
            path = str(Path(meta["path"]) / "checkpoints" / f"step{step}")
            out.append((meta, step, _records(home, profile, f"{_run_label(meta)}/step{step}", path, corpus,
                                             n_tokens, progress)))
    return out
