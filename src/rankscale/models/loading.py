"""Load causal language models, count their parameters, and name the papers' models.

A model is named by a local directory (anything written by ``save_pretrained``), by a GGUF file
(llama.cpp's single-file format, often quantised; model and tokenizer both come from the file) or
by a hub id such as ``EleutherAI/pythia-70m``. All go through ``AutoModelForCausalLM.from_pretrained``,
so a model trained by this project, a GGUF file and a hub model take the same path, with the same
load options (``rankscale.sets.schema.LOAD_OPTIONS``: remote code, an attention implementation, another tokenizer, a
PEFT adapter). GGUF files' metadata, and whether transformers can load one, are
``rankscale.models.gguf``'s. The device is chosen here once (``resolve_device``: ``auto`` is CUDA
where torch sees a GPU, else the CPU), and with it the body's dtype (``auto_dtype``).

torch and transformers are imported only where a function needs them, so the hub checks answer
at once.
"""

from __future__ import annotations

import contextlib
import json
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankscale import RankscaleError
from rankscale.hub import cached_file, hub_reachable, is_hub_id
from rankscale.models.gguf import GGUFInfo, check_gguf, gguf_config, gguf_info, is_gguf
from rankscale.sets.registry import REGISTRY
from rankscale.sets.schema import MODEL_OPTIONS, check_load_options

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
    """Parameter counts of one model (made by ``count_params`` and ``config_params``).

    Parameters
    ----------
    total : int
        Every parameter, a tied head counted once.
    embedding : int
        Input token embeddings, learned position embeddings and the output head.
    non_embedding : int
        ``total - embedding``, the size of Kaplan et al. that both papers fit against.
    """

    total: int
    embedding: int
    non_embedding: int


def resolve_dtype(dtype: str | torch.dtype) -> torch.dtype:
    """Map a dtype name to a torch dtype.

    Parameters
    ----------
    dtype : str or torch.dtype
        ``float32``, ``bfloat16`` or ``float16`` (``DTYPES``), by name or as a torch dtype.

    Returns
    -------
    torch.dtype

    Raises
    ------
    RankscaleError
        For any other name or dtype.

    Examples
    --------
    >>> resolve_dtype("bfloat16")
    torch.bfloat16
    >>> resolve_dtype("int8")
    Traceback (most recent call last):
    rankscale.RankscaleError: unknown dtype 'int8'; use one of float32, bfloat16, float16 or auto
    """
    import torch

    if isinstance(dtype, torch.dtype):
        if dtype not in {getattr(torch, name) for name in DTYPES}:
            raise RankscaleError(f"unsupported dtype {dtype}; use one of {', '.join(DTYPES)}")
        return dtype
    if dtype not in DTYPES:
        raise RankscaleError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)} or auto")
    return getattr(torch, dtype)


def resolve_device(device: str = "auto") -> str:
    """The torch device that ``device`` names on this machine, chosen once and passed down to every
    extraction (the CLI, ``make book``, the Python API, the chapters).

    Parameters
    ----------
    device : str
        ``auto`` (CUDA where torch sees a GPU, else the CPU), or a torch device such as ``cpu``,
        ``cuda`` or ``cuda:1``.

    Returns
    -------
    str
        ``cuda`` or ``cpu`` for ``auto``; any other name as given, once checked.

    Raises
    ------
    RankscaleError
        For a name that is not a device, or a CUDA device where torch sees none.

    Examples
    --------
    >>> resolve_device("cpu")
    'cpu'
    >>> resolve_device("gpu0")
    Traceback (most recent call last):
    rankscale.RankscaleError: unknown device 'gpu0'; use auto, cpu, cuda or cuda:N
    """
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError):
        raise RankscaleError(f"unknown device {device!r}; use auto, cpu, cuda or cuda:N") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise RankscaleError(f"device {device!r}: this torch ({torch.__version__}) sees no CUDA GPU; use --device "
                             "cpu (or auto), or install torch's CUDA build (README.md, Requirements)")
    return device


def device_name(device: str, device_map: str | None = None) -> str:
    """What ran an extraction, in words, for its manifest.

    Parameters
    ----------
    device : str
        A resolved device (``resolve_device``).
    device_map : str, optional
        ``"auto"``: the model was spread over every visible GPU.

    Returns
    -------
    str
        The GPU's name (every GPU's, with ``device_map="auto"``), or ``cpu`` and the machine's
        architecture.

    Examples
    --------
    >>> device_name("cpu").startswith("cpu (")
    True
    """
    import torch

    if device_map == "auto" and torch.cuda.is_available():
        return "auto over " + ", ".join(f"cuda:{i} {torch.cuda.get_device_name(i)}"
                                        for i in range(torch.cuda.device_count()))
    if torch.device(device).type == "cuda":
        return f"{device} {torch.cuda.get_device_name(device)}"
    return f"{device} ({platform.machine() or 'unknown architecture'})"


def auto_dtype(device: str) -> str:
    """The body dtype ``auto`` stands for on a device.

    Parameters
    ----------
    device : str
        A torch device (``cpu``, ``cuda``, ``cuda:1``...).

    Returns
    -------
    str
        ``bfloat16`` on GPUs (the head stays fp32, see ``rankscale.records.extract``), ``float32``
        elsewhere, where bf16 matmuls are slow and gain nothing.

    Examples
    --------
    >>> auto_dtype("cpu"), auto_dtype("cuda:0")
    ('float32', 'bfloat16')
    """
    import torch

    return "bfloat16" if torch.device(device).type == "cuda" else "float32"


_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc's mallopt parameters (malloc.h)


def keep_freed_memory() -> bool:
    """Make this process reuse the memory torch frees instead of returning it to the system.

    glibc serves every allocation above 32 MB (a ladder's logits: 8 x 257 x 4096 floats) with a
    fresh ``mmap`` and unmaps it when freed, so each training step faults in and zeroes those
    pages again; on the 2-core machines a third of the time went to the kernel. With ``mmap``
    off for large blocks and no trimming of the heap, freed blocks are reused: a d16-l1 training
    step fell from 63 to 25 ms, d40-l2 from 95 to 47 ms, d160-l4 from 295 to 243 ms, with bitwise
    the same weights (``benchmarks/ladder_step_bench.py --malloc``). The price is that the process
    keeps its peak memory until it exits, which suits the batch jobs that call this (training
    and extraction); a no-op where the C library is not glibc.

    Returns
    -------
    bool
        Whether the settings were applied.
    """
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_MMAP_MAX, 0)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1))
    except (OSError, AttributeError):  # not glibc (macOS, musl): keep the system's allocator as it is
        return False


@contextlib.contextmanager
def no_transformers_bars():
    """Switch off transformers' progress bars ("Loading weights") while reading or writing local
    files: repeated for every model, they bury the book's one display per stage. Not downloads'.

    A context manager; on leaving it, the bars are on again if they were on before.
    """
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


def _tokenizer(source: str, options: dict, **kwargs):
    """The tokenizer of ``source``, or of the ``tokenizer`` load option where one is given."""
    from transformers import AutoTokenizer

    trust = {k: v for k, v in options.items() if k == "trust_remote_code"}
    if "tokenizer" in options:
        return AutoTokenizer.from_pretrained(options["tokenizer"], **trust)
    return AutoTokenizer.from_pretrained(source, **kwargs, **trust)


def _model_options(options: dict) -> dict:
    """The load options ``from_pretrained`` of the model takes (all but rankscale's own)."""
    return {k: v for k, v in options.items() if k not in MODEL_OPTIONS}


def _from_gguf(info: GGUFInfo, dtype: torch.dtype, device_map: str | dict, options: dict):
    from transformers import AutoModelForCausalLM

    path = info.path
    with no_transformers_bars():
        tokenizer = _tokenizer(str(path.parent), options, gguf_file=path.name, local_files_only=True)
        # check_gguf's config is passed on, which spares transformers a second parse of the metadata.
        # Every tensor is de-quantised to ``dtype``: the model runs in full precision on the values
        # the quantised file holds.
        model = AutoModelForCausalLM.from_pretrained(
            path.parent, gguf_file=path.name, config=gguf_config(info), dtype=dtype,
            device_map=device_map, local_files_only=True, **_model_options(options),
        )
    return model, tokenizer


def _from_pretrained(name: str, revision: str | None, dtype: torch.dtype, device_map: str | dict, options: dict, *,
                     local_only: bool):
    from transformers import AutoModelForCausalLM

    with no_transformers_bars() if local_only else contextlib.nullcontext():
        tokenizer = _tokenizer(name, options, revision=revision, local_files_only=local_only)
        model = AutoModelForCausalLM.from_pretrained(
            name, revision=revision, dtype=dtype, local_files_only=local_only, device_map=device_map,
            **_model_options(options),
        )
    return model, tokenizer


def _with_adapter(model, adapter: str):
    """``model`` with the PEFT adapter merged into its weights: the records need a plain causal LM
    (its body and its output head), which a ``PeftModel`` wrapping it is not."""
    try:
        from peft import PeftModel
    except ImportError:
        raise RankscaleError(f"the load option adapter={adapter!r} needs the peft package: pip install peft") from None
    try:
        return PeftModel.from_pretrained(model, adapter).merge_and_unload()
    except (OSError, ValueError, AttributeError) as err:
        raise RankscaleError(f"cannot apply the adapter {adapter!r}: {err}") from err


def load_model(
    name: str,
    *,
    dtype: str | torch.dtype = "float32",
    device: str = "cpu",
    device_map: str | None = None,
    revision: str | None = None,
    load: Mapping | None = None,
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load a causal LM and its tokenizer from a local directory or a hub id.

    Parameters
    ----------
    name : str
        A ``save_pretrained`` directory, a ``.gguf`` file (model and tokenizer from the file,
        de-quantised; ``check_gguf`` first) or a hub id (``EleutherAI/pythia-70m``).
    dtype : str or torch.dtype
        Body dtype, checked after loading; ``rankscale.records.extract`` evaluates the head in fp32 anyway.
    device : str
        Torch device for the whole model; weights are loaded straight onto it.
    device_map : str, optional
        ``"auto"`` spreads the model over every visible GPU with accelerate (``device`` is then
        ignored); raises rather than offload part of it to CPU or disk: give the job more GPUs.
    revision : str, optional
        Hub revision (branch, tag or commit, e.g. ``"step1000"`` for Pythia); not for GGUF files.
    load : mapping, optional
        Load options (``rankscale.sets.schema.check_load_options``): ``tokenizer`` loads the tokenizer from another
        directory or hub id, ``adapter`` merges a PEFT adapter into the model, ``trust_remote_code``
        reaches the tokenizer and the model, any other option the model's ``from_pretrained``.

    Returns
    -------
    model, tokenizer : transformers.PreTrainedModel, transformers.PreTrainedTokenizerBase
        The model in eval mode.

    Raises
    ------
    RankscaleError
        Saying what to do, if the model cannot be had (a directory without ``config.json``, no
        such path, a GGUF file transformers cannot load, a hub model neither cached nor
        reachable), loads in another dtype, does not fit on the visible GPUs, or has an output
        head smaller than its tokenizer (``check_vocab``); for bad load options, and an adapter
        where peft is not installed.

    Examples
    --------
    >>> model, tok = load_model("models/tiny/neox-d64", dtype="float32")  # doctest: +SKIP
    """
    torch_dtype = resolve_dtype(dtype)
    placement = device_map or {"": device}
    options = check_load_options(load or {})
    path = Path(name).expanduser()
    try:
        if path.is_dir():
            if not (path / "config.json").exists():
                raise RankscaleError(
                    f"{path} is a directory but holds no config.json; point --model at a directory "
                    "written by save_pretrained (a trained ladder model, or a downloaded hub snapshot)."
                )
            model, tokenizer = _from_pretrained(str(path), revision, torch_dtype, placement, options, local_only=True)
        elif is_gguf(name):
            model, tokenizer = _from_gguf(check_gguf(path), torch_dtype, placement, options)
        elif not is_hub_id(name):
            raise RankscaleError(
                f"no model directory at {name!r}. Give a directory written by save_pretrained, a .gguf file "
                f"or a hub id such as EleutherAI/pythia-70m. {OFFLINE_HINT}"
            )
        else:
            model, tokenizer = _load_hub_model(name, revision, torch_dtype, placement, options)
    except TypeError as err:  # an argument the model's class does not take, passed on from the load options
        passed = sorted(_model_options(options))
        if not passed:
            raise
        raise RankscaleError(f"{name}: from_pretrained refused the load options {', '.join(passed)} ({err}); "
                             "remove the ones this model does not take from --model-args (or the set's load)") from None
    if "adapter" in options:
        model = _with_adapter(model, options["adapter"])
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


def _load_hub_model(name: str, revision: str | None, dtype: torch.dtype, placement: str | dict, options: dict):
    try:  # a model already in the local hub cache loads without any network
        return _from_pretrained(name, revision, dtype, placement, options, local_only=True)
    except OSError:
        pass
    if not hub_reachable():
        raise RankscaleError(
            f"cannot load {name!r}: there is no file or directory of that name here, and as a hub id it is "
            f"not in the local hub cache while the Hugging Face hub is unreachable from this machine. Check "
            f"the path (./{name} for one relative to here), or download the model where the hub is reachable. "
            f"{OFFLINE_HINT}"
        )
    try:
        return _from_pretrained(name, revision, dtype, placement, options, local_only=False)
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


POSITION_KEYS = ("max_position_embeddings", "n_positions")  # config.json's names for it (GPT-2's the second)


def max_positions(name: str, revision: str | None = None) -> int | None:
    """The longest input a model accepts, from its ``config.json`` alone: no weights, and not even
    transformers is read, so that listing a set's jobs stays light (a chapter's kernel lists them).

    Parameters
    ----------
    name : str
        A model as ``load_model`` takes it; a hub model's config must be in the local hub cache.
    revision : str, optional
        Hub revision.

    Returns
    -------
    int or None
        The config's ``max_position_embeddings`` (``n_positions`` for GPT-2), or a GGUF file's
        context length (``gguf_info``, which raises if it cannot read the file); None if the config
        does not say or cannot be read yet (loading reports why).

    Examples
    --------
    >>> import tempfile
    >>> from transformers import GPT2Config
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     GPT2Config(n_positions=128, bos_token_id=0, eos_token_id=0).save_pretrained(tmp)
    ...     max_positions(tmp)
    128
    """
    if is_gguf(name):
        return gguf_info(name).context_length
    path = cached_file(name, "config.json", revision) if is_hub_id(name) else Path(name).expanduser() / "config.json"
    try:
        config = json.loads(path.read_text())
    except (AttributeError, OSError, ValueError):  # no such file (path None: not cached), or not JSON
        return None
    return next((config[key] for key in POSITION_KEYS if isinstance(config.get(key), int)), None)


PAPER_WINDOW = 512  # paper A's window: the first 512 tokens of each document


def default_window(name: str, revision: str | None = None, window: int | None = None) -> int:
    """The window length an extraction uses: ``window`` where given, else ``PAPER_WINDOW`` or the
    model's maximum length if shorter (``max_positions``, from its config alone).

    Parameters
    ----------
    name : str
        A model as ``load_model`` takes it.
    revision : str, optional
        Hub revision (or commit).
    window : int, optional
        The window asked for.

    Returns
    -------
    int

    Examples
    --------
    >>> default_window("EleutherAI/no-such-model-here", window=128)
    128
    """
    if window is not None:
        return window
    return min(PAPER_WINDOW, max_positions(name, revision) or PAPER_WINDOW)


def real_vocab_size(tokenizer: PreTrainedTokenizerBase) -> int:
    """Number of token ids the tokenizer can produce; ranks are counted over these ids only.

    Output heads are often padded beyond it (Pythia: 50,304 rows for 50,277 tokens).

    Parameters
    ----------
    tokenizer : transformers.PreTrainedTokenizerBase

    Returns
    -------
    int
        ``len(tokenizer)``, added tokens included.
    """
    return len(tokenizer)


def check_vocab(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, name: str = "model") -> None:
    """Check that every token of the tokenizer has a row in the model's output head.

    Parameters
    ----------
    model : transformers.PreTrainedModel
    tokenizer : transformers.PreTrainedTokenizerBase
    name : str
        How the error names the model.

    Raises
    ------
    RankscaleError
        If the tokenizer encodes text as no tokens (transformers builds such an empty one from a
        directory without tokenizer files), or the output head has fewer rows than the tokenizer
        has tokens (``real_vocab_size``).
    """
    if not tokenizer("The quick brown fox", add_special_tokens=False)["input_ids"]:
        raise RankscaleError(
            f"{name}: its tokenizer encodes text as no tokens at all (its tokenizer files are missing or empty); "
            "save the tokenizer beside the model (tokenizer.save_pretrained), or name one with --model-args "
            "tokenizer=PATH_OR_HUB_ID"
        )
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

    Parameters
    ----------
    model : torch.nn.Module
        A causal LM with ``get_output_embeddings`` (any transformers model).

    Returns
    -------
    ParamCount

    Examples
    --------
    GPT-2 with 8-wide embeddings of 16 tokens and 4 positions (a tied head):

    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> config = GPT2Config(n_layer=1, n_embd=8, n_head=2, vocab_size=16, n_positions=4,
    ...                     bos_token_id=0, eos_token_id=0)
    >>> count_params(GPT2LMHeadModel(config))
    ParamCount(total=1048, embedding=160, non_embedding=888)
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
    (shapes only: no memory, no weights, well under a second even for 72B).

    Parameters
    ----------
    config : transformers.PretrainedConfig
        The config of a causal LM.

    Returns
    -------
    ParamCount
        As ``count_params`` counts the model.

    Examples
    --------
    >>> from transformers import GPT2Config
    >>> config_params(GPT2Config(n_layer=1, n_embd=8, n_head=2, vocab_size=16, n_positions=4,
    ...                          bos_token_id=0, eos_token_id=0))
    ParamCount(total=1048, embedding=160, non_embedding=888)
    """
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        return count_params(AutoModelForCausalLM.from_config(config))





BYTES_PER_PARAM = {"float32": 4, "bfloat16": 2, "float16": 2}


def weights_gb(source: str, revision: str | None = None, dtype: str = "auto") -> float | None:
    """Gigabytes (10^9 bytes) a model's weights take on a GPU, read without loading any weight:
    what decides whether a model fits one GPU (``rankscale.records.jobs.plan_commands``).

    Parameters
    ----------
    source : str
        A model as ``load_model`` takes it.
    revision : str, optional
        Hub revision.
    dtype : str
        Body dtype; ``auto`` is bfloat16, what ``auto_dtype`` gives on a GPU.

    Returns
    -------
    float or None
        Parameters x bytes per parameter. The papers' models are counted from the registry
        (``rankscale.sets.registry``: non-embedding parameters; the embeddings add a few percent),
        others from their config where it can be read without a download (a local directory,
        the local hub cache). None where neither says (a GGUF file, a hub model not cached).

    Examples
    --------
    >>> round(weights_gb("meta-llama/Llama-2-70b-hf"), 1), round(weights_gb("EleutherAI/pythia-70m", dtype="float32"), 3)
    (136.9, 0.076)
    """
    if source in REGISTRY:
        n_params = REGISTRY[source].non_embedding
    elif is_gguf(source) or (config := _read_config(source, revision)) is None:
        return None
    else:
        n_params = config_params(config).total
    return n_params * BYTES_PER_PARAM["bfloat16" if dtype == "auto" else dtype] / 1e9
