"""The model shapes of issues 24 and 34, randomly initialised: pythia-160m, pythia-1.4b,
Qwen2.5-0.5B, pythia-6.9b and Llama-3-8B with their published configurations, and shrunken versions of the same architectures that run
on a CPU in seconds. ``gpu_bench.py`` measures them and ``scripts/gpu_check.py`` checks them.

Each configuration is written out in full rather than read from the hub, so that nothing needs a
network; the values are those of the models' ``config.json`` files, less the special-token ids,
which do not change a forward pass (and would fall outside the shrunken vocabularies). The padded head (Pythia's
50304 rows for 50277 tokenizer entries, Qwen's 151936 for 151665) is kept, since extraction must
rank over the real rows only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from transformers import AutoModelForCausalLM, GPTNeoXConfig, LlamaConfig, PretrainedConfig, Qwen2Config


@dataclass(frozen=True)
class ModelShape:
    """One model configuration and its tokenizer's size.

    Parameters
    ----------
    name : str
        The published model it copies (the shrunken versions keep the name).
    config : transformers.PretrainedConfig
    n_real : int
        The tokenizer's real entries; the head has ``config.vocab_size`` rows, at least this.
    gpu_batch : int
        Windows of 512 per forward pass on a GPU: 32 (one 16384-token shard), 16 for the 7-8B models.
    """

    name: str
    config: PretrainedConfig
    n_real: int
    gpu_batch: int = 32


def _neox(hidden: int, layers: int, heads: int, intermediate: int, head_rows: int) -> GPTNeoXConfig:
    """A Pythia configuration: rotary embeddings on a quarter of each head, parallel residual,
    untied head with attention biases, as in every Pythia ``config.json``."""
    return GPTNeoXConfig(
        vocab_size=head_rows, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        intermediate_size=intermediate, hidden_act="gelu", max_position_embeddings=2048, layer_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        use_parallel_residual=True, attention_bias=True, tie_word_embeddings=False,
    )


def _qwen2(hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int, head_rows: int) -> Qwen2Config:
    """A Qwen2.5 configuration: grouped-query attention, SwiGLU, RMSNorm, rope base 1e6 and the
    head tied to the input embeddings, as in Qwen2.5-0.5B's ``config.json``."""
    return Qwen2Config(
        vocab_size=head_rows, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv_heads, intermediate_size=intermediate, hidden_act="silu",
        max_position_embeddings=32768, rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1e6},
        tie_word_embeddings=True, use_sliding_window=False,
    )


def _llama3(hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int, head_rows: int) -> LlamaConfig:
    """A Llama 3 configuration: grouped-query attention, SwiGLU, RMSNorm, rope base 5e5 and an
    untied head, as in Meta-Llama-3-8B's ``config.json``."""
    return LlamaConfig(
        vocab_size=head_rows, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv_heads, intermediate_size=intermediate, hidden_act="silu",
        max_position_embeddings=8192, rms_norm_eps=1e-5, rope_parameters={"rope_type": "default", "rope_theta": 5e5},
        tie_word_embeddings=False,
    )


FULL = (
    ModelShape("pythia-160m", _neox(hidden=768, layers=12, heads=12, intermediate=3072, head_rows=50304), 50277),
    ModelShape("pythia-1.4b", _neox(hidden=2048, layers=24, heads=16, intermediate=8192, head_rows=50304), 50277),
    ModelShape("Qwen2.5-0.5B", _qwen2(hidden=896, layers=24, heads=14, kv_heads=2, intermediate=4864,
                                      head_rows=151936), 151665),
    ModelShape("pythia-6.9b", _neox(hidden=4096, layers=32, heads=32, intermediate=16384, head_rows=50432), 50277,
               gpu_batch=16),
    ModelShape("Llama-3-8B", _llama3(hidden=4096, layers=32, heads=32, kv_heads=8, intermediate=14336,
                                     head_rows=128256), 128256, gpu_batch=16),
)
# Same classes, same ratios of vocabulary to width as far as a tiny model allows (Qwen's head
# several times wider than Pythia's relative to the width), and a padded head.
SMALL = (
    ModelShape("pythia-160m", _neox(hidden=64, layers=2, heads=4, intermediate=256, head_rows=5056), 5000),
    ModelShape("pythia-1.4b", _neox(hidden=128, layers=3, heads=4, intermediate=512, head_rows=5056), 5000),
    ModelShape("Qwen2.5-0.5B", _qwen2(hidden=64, layers=2, heads=4, kv_heads=2, intermediate=320,
                                      head_rows=7104), 7000),
    ModelShape("pythia-6.9b", _neox(hidden=128, layers=2, heads=4, intermediate=512, head_rows=5120), 5000, 16),
    ModelShape("Llama-3-8B", _llama3(hidden=128, layers=2, heads=4, kv_heads=2, intermediate=448, head_rows=6000),
               6000, 16),
)
NAMES = tuple(shape.name for shape in FULL)


def shapes(small: bool, names: list[str] | None = None) -> list[ModelShape]:
    """The full-size or shrunken shapes, all or those named, in ``NAMES`` order.

    Parameters
    ----------
    small : bool
        The shrunken versions.
    names : list of str, optional
        A subset of ``NAMES``; None: all of them.

    Returns
    -------
    list of ModelShape

    Raises
    ------
    ValueError
        For a name not in ``NAMES``.
    """
    unknown = sorted(set(names or ()) - set(NAMES))
    if unknown:
        raise ValueError(f"unknown model {', '.join(unknown)}; choose from {', '.join(NAMES)}")
    return [shape for shape in (SMALL if small else FULL) if names is None or shape.name in names]


def resolve_device(name: str) -> str:
    """``name`` checked, with a CUDA device's index made explicit (``cuda`` -> ``cuda:0``):
    ``torch.cuda.set_per_process_memory_fraction`` refuses a device without one.

    Raises
    ------
    ValueError
        For a device other than the CPU or a CUDA GPU, or a GPU where torch sees none.

    Examples
    --------
    >>> resolve_device("cpu")
    'cpu'
    """
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"device {name}: not a device name; use cpu, cuda or cuda:N") from None
    if device.type == "cpu":
        return "cpu"
    if device.type != "cuda":
        raise ValueError(f"device {name}: only cuda and cpu are supported (peak memory is read from CUDA's allocator)")
    if not torch.cuda.is_available():
        raise ValueError(f"device {name}: this torch ({torch.__version__}) sees no CUDA device; use --device cpu")
    index = torch.cuda.current_device() if device.index is None else device.index
    if index >= torch.cuda.device_count():
        raise ValueError(f"device {name}: torch sees {torch.cuda.device_count()} CUDA device(s), numbered from 0")
    return f"cuda:{index}"


def build_model(shape: ModelShape, device: str, dtype: torch.dtype = torch.bfloat16, seed: int = 0):
    """A randomly initialised model of ``shape`` in ``dtype``, in eval mode, created directly on
    ``device`` (initialising 1.4B parameters on a CPU first would take longer than the benchmark).

    Parameters
    ----------
    shape : ModelShape
    device : str
        ``cpu``, ``cuda`` or ``cuda:N``.
    dtype : torch.dtype
        The body's and the head's dtype.
    seed : int
        Seeds the initialisation.

    Returns
    -------
    transformers.PreTrainedModel
    """
    torch.manual_seed(seed)
    with torch.device(device):
        return AutoModelForCausalLM.from_config(shape.config, dtype=dtype).eval()


def random_windows(n: int, length: int, n_real: int, seed: int = 0) -> list[np.ndarray]:
    """``n`` windows of ``length`` token ids drawn uniformly from the real tokens.

    Examples
    --------
    >>> [w.tolist() for w in random_windows(2, 3, 10)]
    [[8, 6, 5], [2, 3, 0]]
    """
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n_real, length) for _ in range(n)]
