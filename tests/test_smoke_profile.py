"""The smoke set end to end, as CI and the smoke book use it: train both ladder families (in the
tests' temporary home), extract every model on held-out pydocs, fit the scaling law per family."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale.analysis import fit, metrics
from rankscale.records import jobs, runs
from rankscale.sets import get
from rankscale.sets.builtin import BUILT_IN

pytestmark = pytest.mark.slow  # trains and extracts the smoke ladder


SMOKE = BUILT_IN["smoke"]


@pytest.fixture(scope="module")
def smoke(smoke_home):
    jobs.prepare(get("smoke"), smoke_home, log=lambda *_: None, progress=False)
    return runs.family_runs(get("smoke"), "pydocs", smoke_home)


def test_every_smoke_model_extracted(smoke):
    expected = [(f.name, s.name) for f in SMOKE.ladder_families for s in f.ladder.sizes]
    assert [(run.family, run.name) for run in smoke] == expected
    for run in smoke:
        identity = run.records.manifest.identity
        assert len(run.records) == SMOKE.corpora["pydocs"] and identity["corpus"]["text"]["name"] == "pydocs:heldout"
        assert identity["window_len"] == SMOKE.training.seq_len and run.step is None


def test_the_two_families_are_different_models(smoke):
    by_family = runs.by_family(smoke)
    neox, llama = by_family["NeoX ladder"], by_family["Llama ladder"]
    assert neox[0].name == llama[0].name == "d16-l1"  # the same shape ...
    assert neox[0].non_embedding != llama[0].non_embedding  # ... but other layers and other weights
    assert not np.array_equal(neox[0].records.logp, llama[0].records.logp)
    np.testing.assert_array_equal(neox[0].records.target, llama[0].records.target)  # one tokenizer, one stream


def test_smoke_models_learned_and_scale_in_each_family(smoke):
    for family, members in runs.by_family(smoke).items():
        ce = [metrics.cross_entropy(run.records.logp) for run in members]
        assert max(ce) < np.log(4096) - 1.0, family  # well below a uniform guess over the vocabulary
        assert ce == sorted(ce, reverse=True), family  # bigger model, lower held-out loss
        f = fit.fit_power_law(runs.sizes(members), ce)
        assert f.slope < 0


def test_checkpoints_extracted_in_training_order(smoke, smoke_home):
    checkpoints = runs.checkpoint_runs(get("smoke"), "pydocs", smoke_home)
    steps = SMOKE.training.checkpoint_steps
    assert [(run.family, run.name, run.step) for run in checkpoints] == [
        (f.name, size, step) for f in SMOKE.ladder_families for size in f.ladder.checkpoint_sizes for step in steps]
    final = {(run.family, run.name): run.records for run in smoke}
    for run in checkpoints:
        if run.step == 0:  # the initialisation predicts close to uniformly
            assert abs(metrics.cross_entropy(run.records.logp) - np.log(4096)) < 0.5
        if run.step == SMOKE.training.steps:  # the last checkpoint is the final model (on fewer tokens,
            # so its last window is cut shorter: equal up to the order of the attention's sums)
            np.testing.assert_allclose(run.records.logp, final[run.family, run.name].logp[:len(run.records)],
                                       atol=1e-5)
