"""Chapters A1-A3 grade every claim through ``claims.judge`` with rules fixed in ``rankscale.claims``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rankscale import claims

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = {"A1": "a1_metric.py", "A2": "a2_scaling_regimes.py", "A3": "a3_k_dependence.py"}
SECTIONS = {"A1": claims.CLAIMS_A1, "A2": claims.CLAIMS_A2, "A3": claims.CLAIMS_A3}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_of_the_chapter_is_judged_and_nothing_else_grades(chapter):
    source = (NOTEBOOKS / CHAPTERS[chapter]).read_text()
    judged = set(re.findall(r'claims\.judge\(\s*"([A-Z]\d\.\d+)"', source))
    assert judged == set(SECTIONS[chapter]), "each claim of the section is judged exactly by its chapter"
    for bypass in ("report.Verdict(", "report.grade(", "min_sizes", "min_r2"):
        assert bypass not in source, f"{CHAPTERS[chapter]} grades or sets thresholds outside rankscale.claims"
    parameters = source.split('# %% tags=["parameters"]')[1].split("# %%")[0]
    assert not re.search(r"r2|band|margin|ratio|n_boot|level|k_grid|n_k\b", parameters), \
        "no threshold, band or bootstrap setting is a notebook parameter"


@pytest.mark.parametrize("key", [*claims.CLAIMS_A1, *claims.CLAIMS_A2, *claims.CLAIMS_A3])
def test_claims_cite_the_paper_and_state_why(key):
    claim = claims.CLAIMS[key]
    assert claim.kind in claims.KINDS
    assert "Why:" in claim.rule, "a rule says why its threshold is what it is"
    if claim.kind == "empirical":
        assert "§" in claim.text or "App." in claim.text, "an empirical claim says where the paper makes it"


@pytest.mark.parametrize("key", [*claims.CLAIMS_A1, *claims.CLAIMS_A2, *claims.CLAIMS_A3])
def test_rules_describe_the_interval_that_is_computed(key):
    """Every interval of chapters A1-A3 is rankscale.analysis.bootstrap.interval: value -+ z SD, not a percentile range."""
    rule = claims.CLAIMS[key].rule
    assert "percentile" not in rule and "stretched" not in rule and "central" not in rule
    if re.search(r"interval of .*(lies|exclude|does not lie)", rule):
        assert "standard deviations of its bootstrap replicates" in rule, "a graded interval says what it is"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapters_read_intervals_only_from_rankscale_bootstrap(chapter):
    source = (NOTEBOOKS / CHAPTERS[chapter]).read_text()
    for own in ("percentile", "quantile("):
        assert own not in source, f"{CHAPTERS[chapter]} builds an interval of its own ({own})"
    labels = re.findall(r'"name": "(fig-[a-z0-9-]+)"', source)
    assert labels and all(label.startswith(f"fig-{chapter.lower()}-") for label in labels)
    assert len(set(labels)) == len(labels)
    assert set(re.findall(r"\{numref\}`(fig-[a-z0-9-]+)`", source)) <= set(labels), "prose refers to figures that exist"
    assert not re.search(r"\*\*Figure A\d", source), "figures are captioned through cell metadata, not by hand"


def test_scaled_k_and_judge_with_undecided_units():
    assert claims.scaled_k(20_000, claims.PAPER_A_VOCAB) == 20_000
    assert claims.scaled_k(100, 4096) == 8 and claims.scaled_k(1, 4096) == 1
    v = claims.judge("A3.5", {"pydocs/NeoX": True, "stdlib/NeoX": None}, "ratio 1.0; ratio 1.2 (undecided)")
    assert v.verdict == "reproduced" and "not tested on: stdlib/NeoX" in v.ours
    assert v.kind == "empirical" and v.rule == claims.CLAIMS["A3.5"].rule
    v = claims.judge("A2.4", {}, "", why_not="the set has no family of the paper's GPT-2 models")
    assert v.verdict == "not testable on this set" and "GPT-2" in v.ours
