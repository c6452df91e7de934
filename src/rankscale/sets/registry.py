"""The papers' models: every hub model the two papers evaluate, with its family and the papers'
non-embedding parameter count. The hub model sets of ``rankscale.sets.builtin`` are built from it, and
the tests recompute every count from the model's public config. Standard library only, so that the hub checks of ``make book`` answer before anything is installed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HubModel:
    """One model of the papers.

    Parameters
    ----------
    hub_id : str
        Repository on the Hugging Face hub.
    family : str
        Series for per-family fits, named as in the papers' result tables (Pythia, GPT2, OPT,
        Qwen) and otherwise as paper B's Table 4 groups them (GPT2 holds openai-gpt, its
        "gpt-1/2"; distilgpt2 is in "Others").
    non_embedding : int
        The papers' non-embedding parameter count (``REFERENCE_SOURCE``).
    papers : tuple of str
        Which papers evaluate it, ``"A"`` (relative-based scaling law) and/or ``"B"``
        (cross-entropy decomposition).

    Examples
    --------
    >>> REGISTRY["EleutherAI/pythia-70m"]
    HubModel(hub_id='EleutherAI/pythia-70m', family='Pythia', non_embedding=18915328, papers=('A', 'B'))
    >>> sorted({m.family for m in REGISTRY.values()})
    ['GPT2', 'Llama', 'Mistral', 'OPT', 'Others', 'Pythia', 'Qwen']
    """

    hub_id: str
    family: str
    non_embedding: int
    papers: tuple[str, ...]


REFERENCE_SOURCE = ("assets/param_count.json of paper A's code (paper B's Table 4 gives the same "
                    "numbers for its 32 models)")

_AB, _A, _B = ("A", "B"), ("A",), ("B",)
REGISTRY: dict[str, HubModel] = {m.hub_id: m for m in (
    HubModel("EleutherAI/pythia-14m", "Pythia", 1_189_888, _AB),
    HubModel("EleutherAI/pythia-31m", "Pythia", 4_739_072, _AB),
    HubModel("EleutherAI/pythia-70m", "Pythia", 18_915_328, _AB),
    HubModel("EleutherAI/pythia-160m", "Pythia", 85_056_000, _AB),
    HubModel("EleutherAI/pythia-410m", "Pythia", 302_311_424, _AB),
    HubModel("EleutherAI/pythia-1b", "Pythia", 805_736_448, _A),
    HubModel("EleutherAI/pythia-1.4b", "Pythia", 1_208_602_624, _AB),
    HubModel("EleutherAI/pythia-2.8b", "Pythia", 2_517_652_480, _AB),
    HubModel("EleutherAI/pythia-6.9b", "Pythia", 6_444_163_072, _AB),
    HubModel("EleutherAI/pythia-12b", "Pythia", 11_327_027_200, _A),
    HubModel("openai-community/openai-gpt", "GPT2", 85_054_464, _B),
    HubModel("openai-community/gpt2", "GPT2", 85_056_000, _AB),
    HubModel("openai-community/gpt2-medium", "GPT2", 302_311_424, _AB),
    HubModel("openai-community/gpt2-large", "GPT2", 708_390_400, _AB),
    HubModel("openai-community/gpt2-xl", "GPT2", 1_475_561_600, _AB),
    HubModel("distilbert/distilgpt2", "Others", 42_528_768, _B),
    HubModel("facebook/opt-125m", "OPT", 85_056_000, _AB),
    HubModel("facebook/opt-350m", "OPT", 303_357_952, _AB),
    HubModel("facebook/opt-1.3b", "OPT", 1_208_602_624, _AB),
    HubModel("facebook/opt-2.7b", "OPT", 2_517_652_480, _AB),
    HubModel("facebook/opt-6.7b", "OPT", 6_444_163_072, _AB),
    HubModel("Qwen/Qwen2.5-0.5B", "Qwen", 357_898_112, _AB),
    HubModel("Qwen/Qwen2.5-1.5B", "Qwen", 1_310_340_608, _AB),
    HubModel("Qwen/Qwen2.5-3B", "Qwen", 2_774_773_760, _AB),
    HubModel("Qwen/Qwen2.5-7B", "Qwen", 6_525_621_760, _AB),
    HubModel("Qwen/Qwen2.5-14B", "Qwen", 13_212_898_304, _AB),
    HubModel("Qwen/Qwen2.5-72B", "Qwen", 70_214_787_072, _B),
    HubModel("meta-llama/Llama-3.2-1B", "Llama", 973_146_112, _B),
    HubModel("meta-llama/Llama-3.2-3B", "Llama", 2_818_747_392, _B),
    HubModel("huggyllama/llama-7b", "Llama", 6_476_271_616, _B),
    HubModel("meta-llama/Meta-Llama-3-8B", "Llama", 6_979_588_096, _B),
    HubModel("meta-llama/Llama-2-13b-hf", "Llama", 12_688_184_320, _B),
    HubModel("meta-llama/Llama-2-70b-hf", "Llama", 68_452_360_192, _B),
    HubModel("mistralai/Mistral-7B-v0.1", "Mistral", 6_979_588_096, _B),
)}
