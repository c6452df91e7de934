"""Paper B's decision functions (``rankscale.claims.paper_b``) on constructed fits: each rule holds
where it must, fails where it must, and sits on the stated side of its threshold."""

from __future__ import annotations

import numpy as np
import pytest

from rankscale import claims
from rankscale.claims import paper_b, training_dynamics


@pytest.mark.parametrize("breaks, expected", [
    ({1: 2, 3: 4}, "reproduced"),  # right after the target (the caption's reading), moving with it
    ({1: 3, 3: 5}, "reproduced"),  # one lower (the text's reading)
    ({1: 2, 3: 5}, "not reproduced"),  # each in its accepted set, but the break moved by 3 for a shift of 2
    ({1: 3, 3: 3}, "not reproduced"),  # a break that stays put
    ({1: 1, 3: 3}, "not reproduced"),  # moves with the target, but at the target itself, not below it
    ({1: 4, 3: 6}, "not reproduced"),  # moves with the target, two positions too low
])
def test_the_break_must_sit_just_below_the_target_and_move_with_it(breaks, expected):
    assert training_dynamics.break_follows_target({"pydocs/NeoX: d160": breaks}).verdict == expected


def test_a_model_without_targets_at_a_rank_cannot_test_the_break():
    v = training_dynamics.break_follows_target({"pydocs/NeoX: d160": {1: 2}, "stdlib/NeoX: d160": {1: 2, 3: 4}})
    assert v.verdict == "reproduced" and "no target at RBE 3" in v.ours and v.units_text == "1 of 1"
    assert training_dynamics.break_follows_target({"u": {}}).verdict == claims.base.NOT_TESTABLE


def test_series_verdict_counts_series_and_names_families_without_checkpoints():
    Check = training_dynamics.Check
    results = {("pydocs", "NeoX", "d16"): {"conf_rises": Check(True, 0.2)},
               ("pydocs", "NeoX", "d40"): {"conf_rises": Check(True, 0.1)},
               ("pydocs", "Llama", "d16"): {"conf_rises": Check(None)}}
    v = training_dynamics.series_verdict("conf_rises", results, ["GPT"], lambda checks: f"{len(checks)} measured")
    assert (v.key, v.verdict, v.units_text) == ("B2.3", "reproduced", "2 of 2")
    assert "holds in 2/2 series (NeoX 2/2); 2 measured" in v.ours and "GPT (no checkpoints)" in v.ours
    none = training_dynamics.series_verdict("ee_first", {("pydocs", "NeoX", "d16"): {"ee_first": Check(None)}}, [],
                                            str)
    assert none.verdict == claims.base.NOT_TESTABLE and "no checkpoint series has three checkpoints" in none.ours


def test_identity_and_bound_rules_sit_on_their_thresholds():
    import pandas as pd

    at = claims.B1_MAX_RESIDUAL
    table = pd.DataFrame({"unit": ["a", "b", "c"], "group": ["NeoX", "NeoX", "reference"],
                          "residual": [at * 0.99, -at * 0.99, 1e-13]})
    v = paper_b.identity_exact(table)
    assert v.verdict == "reproduced" and "NeoX 2/2, reference 1/1" in v.ours
    table.loc[1, "residual"] = -at  # the threshold itself is not below it
    assert paper_b.identity_exact(table).verdict == "partly"
    slack = claims.B1_BOUND_SLACK
    assert paper_b.bound_holds([slack, slack * 1.01, -3.0]).tolist() == [True, False, True]
    bounds = pd.DataFrame({"unit": ["a", "b"], "group": ["NeoX", "NeoX"], "max log Q_e + log(e+1)": [-0.1, 0.2],
                           "Conf": [0.1, 0.2], "bound log sum 1/(e+1)": [2.0, 2.0]})
    assert paper_b.confidence_bounded(bounds).verdict == "partly"


def test_temperature_rule_needs_identical_ranks_and_ee_at_every_temperature():
    import pandas as pd

    def table(differing, same=True, ee_shift=0.0):
        return pd.DataFrame({"T": [0.5, 1.0, 2.0], "same targets as T = 1": [same, True, True],
                             "targets whose RBE differs from T = 1": [differing, 0, 0],
                             "CE": [3.0, 2.5, 2.8], "EE": [2.0 + ee_shift, 2.0, 2.0], "SA": [0.3, 0.4, 0.5],
                             "Conf": [0.1, 0.2, 0.3]}).set_index("T")
    assert paper_b.temperature_invariant(table(0), "m").verdict == "reproduced"
    v = paper_b.temperature_invariant(table(3), "m")
    assert v.verdict == "partly" and "3 at T = 0.5" in v.ours
    assert paper_b.temperature_invariant(table(0, same=False), "m").verdict == "partly"
    assert paper_b.temperature_invariant(table(0, ee_shift=1e-12), "m").verdict == "partly"
    assert paper_b.temperature_invariant(None, "").verdict == claims.base.NOT_TESTABLE
