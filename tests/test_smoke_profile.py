"""The smoke profile end to end, as CI and the smoke book build use it: train the ladder (cached
under the repository's models/), extract every model on held-out pydocs, fit the scaling law."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale import fit, metrics
from rankscale.ladder import checkpoint_records, get_profile, ladder_records

N_TOKENS = 20_000


@pytest.fixture(scope="module")
def smoke():
    return ladder_records("smoke", "pydocs", N_TOKENS, progress=False)


def test_every_smoke_model_extracted(smoke):
    profile = get_profile("smoke")
    assert [meta["size"] for meta, _ in smoke] == [s.name for s in profile.sizes]
    for meta, rec in smoke:
        assert len(rec) == N_TOKENS and rec.manifest["identity"]["corpus"] == "pydocs:heldout"
        assert rec.manifest["params_non_embedding"] == meta["params_non_embedding"]
        assert rec.manifest["identity"]["window_len"] == profile.seq_len


def test_smoke_models_learned_and_scale(smoke):
    ce = [metrics.cross_entropy(rec.logp) for _, rec in smoke]
    assert max(ce) < np.log(4096) - 1.0  # well below a uniform guess over the vocabulary
    assert ce == sorted(ce, reverse=True)  # bigger model, lower held-out loss
    sizes = [meta["params_non_embedding"] for meta, _ in smoke]
    f = fit.fit_power_law(sizes, ce)
    assert f.slope < 0 and 0 <= f.r2 <= 1
    for _, rec in smoke:
        d = metrics.ce_decomposition(rec.logp, rec.gt)
        assert abs(d.ce - (d.error_entropy + d.self_alignment - d.confidence)) < 1e-9


def test_checkpoints_extracted_in_training_order(smoke):
    runs = checkpoint_records("smoke", "pydocs", N_TOKENS, progress=False)
    profile = get_profile("smoke")
    assert [(meta["size"], step) for meta, step, _ in runs] == [
        (size, step) for size in profile.checkpoint_sizes for step in profile.checkpoint_steps]
    by_size = {meta["size"]: rec for meta, rec in smoke}
    for meta, step, rec in runs:
        if step == 0:  # the initialisation predicts close to uniformly
            assert abs(metrics.cross_entropy(rec.logp) - np.log(4096)) < 0.5
        if step == profile.steps:  # the last checkpoint is the final model
            np.testing.assert_array_equal(rec.logp, by_size[meta["size"]].logp)
