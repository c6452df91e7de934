"""The A4 and A5 claims: their thresholds where they are taken from the paper's own numbers."""

from __future__ import annotations

import numpy as np

from rankscale import claims, report


def test_nearly_identical_band_is_the_range_of_paper_a_table_1():
    table = report.reference_table("rbp_paper_table1")
    pairs = table[table["metric"] == "CE"].merge(table[table["metric"] == "-log RBP_1"], on=["dataset", "family"],
                                                 suffixes=(" CE", " RBP_1"))
    pairs = pairs[(pairs["r2 CE"] >= claims.A5_MIN_R2) & (pairs["r2 RBP_1"] >= claims.A5_MIN_R2)]
    ratio = pairs["slope RBP_1"] / pairs["slope CE"]
    assert len(ratio) == 22
    lo, hi = claims.A5_NEARLY_IDENTICAL
    assert np.floor(ratio.min() * 100) / 100 == lo and np.ceil(ratio.max() * 100) / 100 == hi


def test_chapters_a4_a5_claims_are_indexed_with_rules_and_kinds():
    for prefix, section in (("A4.", claims.CLAIMS_A4), ("A5.", claims.CLAIMS_A5)):
        assert section and all(key.startswith(prefix) and claim.key == key for key, claim in section.items())
        assert all(claim.kind in claims.KINDS and claim.rule for claim in section.values())
    kinds = {key: claim.kind for key, claim in {**claims.CLAIMS_A4, **claims.CLAIMS_A5}.items()}
    assert kinds["A4.4"] == kinds["A5.14"] == kinds["A5.16"] == "analytic"
    assert kinds["A5.1"] == kinds["A5.8"] == kinds["A5.11"] == "empirical"
    assert all(kinds[k] == "beyond the paper" for k in ("A5.3", "A5.4", "A5.9", "A5.10", "A5.12", "A5.13", "A5.15"))


def test_authors_pythia_fits_are_well_formed():
    pythia = report.reference_table("rbp_authors_pythia_lognormal")
    assert len(pythia) == 10 and (np.diff(pythia["non_embedding_params"]) > 0).all()
    assert (pythia["sigma"] > 0).all() and (np.diff(pythia["mu"]) < 0).all()
