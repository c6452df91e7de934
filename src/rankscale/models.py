"""Load causal language models and count their parameters.

A model is named by a local directory (anything written by ``save_pretrained``) or by a hub id
such as ``EleutherAI/pythia-70m``. Both go through ``AutoModelForCausalLM.from_pretrained``, so
a model trained by this project and a hub model take exactly the same path.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import torch
from torch import nn
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from rankscale import RankscaleError

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

OFFLINE_HINT = (
    "The offline `tiny` profile needs no hub: it uses models this project trains itself "
    "(`python -m rankscale ladder --profile tiny`), or pass a local model directory."
)


@dataclass(frozen=True)
class ParamCount:
    """Parameter counts of one model. ``non_embedding`` follows Kaplan et al.: total minus input
    token embeddings, learned position embeddings and the output head."""

    total: int
    embedding: int
    non_embedding: int


def resolve_dtype(dtype: str | torch.dtype) -> torch.dtype:
    """Map a dtype name (``float32``, ``bfloat16``, ``float16``) to a torch dtype."""
    if isinstance(dtype, torch.dtype):
        if dtype not in DTYPES.values():
            raise RankscaleError(f"unsupported dtype {dtype}; use one of {', '.join(DTYPES)}")
        return dtype
    if dtype not in DTYPES:
        raise RankscaleError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    return DTYPES[dtype]


def hub_reachable(timeout: float = 3.0) -> bool:
    """True if a TCP connection to the hub endpoint (``HF_ENDPOINT``, default huggingface.co) opens.

    Checked before any network load because the hub client retries for about 20 s before
    giving up, which is a long wait for a message we can give at once.
    """
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes"}:
        return False
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def _looks_like_path(name: str) -> bool:
    # Hub ids are "name" or "namespace/name"; anything else is meant as a file system path.
    return name.startswith((".", "/", "~")) or name.count("/") > 1 or Path(name).exists()


def _from_pretrained(name: str, revision: str | None, dtype: torch.dtype, local_only: bool):
    tokenizer = AutoTokenizer.from_pretrained(name, revision=revision, local_files_only=local_only)
    model = AutoModelForCausalLM.from_pretrained(
        name, revision=revision, dtype=dtype, local_files_only=local_only
    )
    return model, tokenizer


def load_model(
    name: str,
    *,
    dtype: str | torch.dtype = "float32",
    device: str = "cpu",
    revision: str | None = None,
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load a causal LM and its tokenizer from a local directory or a hub id.

    Parameters
    ----------
    name : a directory written by ``save_pretrained`` or a hub id (``EleutherAI/pythia-70m``).
    dtype : dtype of the model body; checked after loading. The output head is always evaluated
        in fp32 by ``rankscale.extract`` whatever this is.
    device : torch device for the model.
    revision : hub revision (branch, tag or commit, e.g. ``"step1000"`` for Pythia checkpoints).

    Returns
    -------
    (model, tokenizer), the model in eval mode on ``device``.

    Example
    -------
    >>> model, tok = load_model("models/tiny/neox-d64", dtype="float32")  # doctest: +SKIP
    """
    torch_dtype = resolve_dtype(dtype)
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").exists():
            raise RankscaleError(
                f"{path} is a directory but holds no config.json; point --model at a directory "
                "written by save_pretrained (a trained ladder model, or a downloaded hub snapshot)."
            )
        model, tokenizer = _from_pretrained(str(path), revision, torch_dtype, local_only=True)
    elif _looks_like_path(name):
        raise RankscaleError(
            f"no model directory at {name!r}. Give a directory written by save_pretrained or a hub "
            f"id such as EleutherAI/pythia-70m. {OFFLINE_HINT}"
        )
    else:
        model, tokenizer = _load_hub_model(name, revision, torch_dtype)
    if model.dtype != torch_dtype:
        raise RankscaleError(f"{name} loaded as {model.dtype}, not the requested {torch_dtype}")
    check_vocab(model, tokenizer, name)
    return model.to(device).eval(), tokenizer


def _load_hub_model(name: str, revision: str | None, dtype: torch.dtype):
    try:  # a model already in the local hub cache loads without any network
        return _from_pretrained(name, revision, dtype, local_only=True)
    except OSError:
        pass
    if not hub_reachable():
        raise RankscaleError(
            f"cannot load {name!r}: the Hugging Face hub is unreachable from this machine and the "
            f"model is not in the local cache. {OFFLINE_HINT}"
        )
    try:
        return _from_pretrained(name, revision, dtype, local_only=False)
    except OSError as err:
        raise RankscaleError(
            f"unknown model {name!r}: the hub has no such repository or revision ({err}). "
            "Check the spelling, or give a local directory."
        ) from err


def max_positions(name: str, revision: str | None = None) -> int | None:
    """The longest input a model accepts (``max_position_embeddings``), read from its config
    alone; None if the config does not say or cannot be read yet (loading reports why)."""
    try:
        config = AutoConfig.from_pretrained(name, revision=revision, local_files_only=True)
    except (OSError, ValueError):
        return None
    return getattr(config, "max_position_embeddings", None)


def real_vocab_size(tokenizer: PreTrainedTokenizerBase) -> int:
    """Number of token ids the tokenizer can produce. Output heads are often padded beyond it
    (Pythia: 50,304 rows for 50,277 tokens); ranks are counted over these ids only."""
    return len(tokenizer)


def check_vocab(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, name: str = "model") -> None:
    """Raise if the output head has fewer rows than the tokenizer has tokens."""
    head_rows = model.get_output_embeddings().weight.shape[0]
    n_tokens = real_vocab_size(tokenizer)
    if head_rows < n_tokens:
        raise RankscaleError(
            f"{name}: the output head has {head_rows} rows but the tokenizer has {n_tokens} tokens, "
            "so some token ids have no score. The model and tokenizer do not belong together; "
            "save them from the same training run."
        )


def count_params(model: nn.Module) -> ParamCount:
    """Count total and non-embedding parameters of a causal LM.

    Embeddings are every ``nn.Embedding`` (token and learned position tables) plus the output
    head; a head tied to the input table is counted once. Works on meta-device models, since
    only shapes matter.
    """
    unique = {id(p): p for p in model.parameters()}
    embedding_ids = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    head = model.get_output_embeddings()
    if head is not None:
        embedding_ids |= {id(p) for p in head.parameters()}
    total = sum(p.numel() for p in unique.values())
    embedding = sum(unique[i].numel() for i in embedding_ids)
    return ParamCount(total=total, embedding=embedding, non_embedding=total - embedding)
