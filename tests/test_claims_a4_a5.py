"""The A4 and A5 claims: their thresholds where they are taken from the paper's own numbers."""

from __future__ import annotations

import numpy as np

from rankscale import claims
from rankscale.analysis import bootstrap
from rankscale.book import pages


def test_nearly_identical_band_is_the_range_of_paper_a_table_1():
    table = pages.reference_table("rbp_paper_table1")
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


def test_rules_describe_the_interval_the_bootstrap_computes():
    """Every A4-A5 rule that reads an interval states its half-width in standard deviations of the
    replicates, and that number is the one ``bootstrap.interval`` uses at the section's level."""
    for level, section in ((claims.A4_LEVEL, claims.CLAIMS_A4), (claims.A5_LEVEL, claims.CLAIMS_A5)):
        lo, hi = bootstrap.interval(0.0, [-1.0, 1.0], level)  # replicates with a standard deviation of 1
        for claim in section.values():
            assert "percentile" not in claim.rule
            if "interval" in claim.rule and "bootstrap" in claim.rule.lower():
                assert f"-+ {hi:.2f} standard deviations of its replicates" in claim.rule, claim.key


def test_authors_pythia_fits_are_well_formed():
    pythia = pages.reference_table("rbp_authors_pythia_lognormal")
    assert len(pythia) == 10 and (np.diff(pythia["non_embedding_params"]) > 0).all()
    assert (pythia["sigma"] > 0).all() and (np.diff(pythia["mu"]) < 0).all()
