"""Chapters A2 and A3 grade every claim through ``claims.judge`` with rules fixed in ``rankscale.claims``; A2's
decisions (A1's are in test_claims_a1.py, A3's in test_claims_a3.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rankscale import claims
from rankscale.analysis.fit import PowerLawFit
from rankscale.claims import a3, paper_a

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = {"A2": "a2_scaling_regimes.py", "A3": "a3_k_dependence.py"}
SECTIONS = {"A2": claims.CLAIMS_A2, "A3": claims.CLAIMS_A3}


# The claims the claims stage decides (rankscale.claims.paper_a, rankscale.claims.a3): every key they name outside
# the claims' definitions
DECIDED_IN_CLAIMS = {key for module in (paper_a, a3)
                     for key in re.findall(r'(?<!Claim\()"([A-Z]\d\.\d+)"', Path(module.__file__).read_text())}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_of_the_chapter_is_judged_and_nothing_else_grades(chapter):
    source = (NOTEBOOKS / CHAPTERS[chapter]).read_text()
    judged = set(re.findall(r'claims\.judge\(\s*"([A-Z]\d\.\d+)"', source))
    decided = DECIDED_IN_CLAIMS & set(SECTIONS[chapter])
    assert not judged & decided, "a claim is decided in one place: its chapter or the claims stage"
    assert judged | decided == set(SECTIONS[chapter]), "each claim of the section is judged"
    for bypass in ("report.Verdict(", "report.grade(", "min_sizes", "min_r2"):
        assert bypass not in source, f"{CHAPTERS[chapter]} grades or sets thresholds outside rankscale.claims"
    parameters = source.split('# %% tags=["parameters"]')[1].split("# %%")[0]
    assert not re.search(r"r2|band|margin|ratio|n_boot|level|k_grid|n_k\b", parameters), \
        "no threshold, band or bootstrap setting is a notebook parameter"


@pytest.mark.parametrize("key", [*claims.CLAIMS_A2, *claims.CLAIMS_A3])
def test_claims_cite_the_paper_and_state_why(key):
    claim = claims.CLAIMS[key]
    assert claim.kind in claims.KINDS
    assert "Why:" in claim.rule, "a rule says why its threshold is what it is"
    if claim.kind == "empirical":
        assert "§" in claim.text or "App." in claim.text, "an empirical claim says where the paper makes it"


@pytest.mark.parametrize("key", [*claims.CLAIMS_A2, *claims.CLAIMS_A3])
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


# ---------------------------------------------------------------------------------------------
# A2's decisions (rankscale.claims.paper_a), on constructed fits

LARGE = (1630, 2445)  # the paper's k = 20,000 and 30,000 in a 4,096-token vocabulary
UNITS = [("pydocs", "NeoX"), ("stdlib", "NeoX")]


def regime(fits, spread=None):
    """RegimeFits with two replicates per k, value -+ spread: fits {k: (slope, R^2) or None}, spread
    {k: (slope spread, R^2 spread)}."""
    spread = spread or {}
    slopes, r2 = {}, {}
    for k, v in fits.items():
        d = spread.get(k, (0.0, 0.0))
        slopes[k], r2[k] = (np.array([v[i] - d[i], v[i] + d[i]]) if v else np.full(2, np.nan) for i in (0, 1))
    return paper_a.RegimeFits({k: v and PowerLawFit(v[0], 0.0, v[1], 3) for k, v in fits.items()}, slopes, r2,
                              (1, 4, 8), LARGE)


def k_fits(r2=0.99, slope=-0.1, **changes):
    """Fits at every k of A2 (1, 10, 50, 100, the scaled 4 and 8, and LARGE); ``changes`` as k<k>=(slope, R^2)."""
    fits = {k: (slope, r2) for k in (1, 4, 8, 10, 50, 100, *LARGE)}
    return {**fits, **{int(name[1:]): v for name, v in changes.items()}}


def table1_k(r2s=(0.99, 0.97, 0.97, 0.97)):
    return pd.DataFrame([{"dataset": "Wikipedia", "family": "Pythia", "k": k, "slope": -0.1, "r2": r}
                         for k, r in zip((1.0, 10.0, 50.0, 100.0), r2s)])


def test_a2_k1_law_at_its_bar():
    at_bar, below = regime(k_fits(k1=(-0.1, claims.A2_MIN_R2))), regime(k_fits(k1=(-0.1, claims.A2_MIN_R2 - 1e-9)))
    v = paper_a.a2_k1_law({UNITS[0]: at_bar, UNITS[1]: below}, ["Llama: 2 sizes, fewer than 3"], table1_k())
    assert (v.key, v.verdict) == ("A2.1", "partly")
    assert v.ours.startswith("pydocs/NeoX: k=1 R^2 0.900 [0.900, 0.900] slope -0.100; stdlib/NeoX: k=1 R^2 0.900")
    assert v.ours.endswith("; left out: Llama: 2 sizes, fewer than 3")
    assert v.paper == "Table 1, k = 1: R^2 0.990-0.990; 1 of 1 (dataset, family) pass this rule"
    assert paper_a.a2_k1_law({UNITS[0]: regime(k_fits(k1=(0.1, 0.99)))}, [], table1_k()).verdict == "not reproduced"
    v = paper_a.a2_k1_law({UNITS[0]: regime(k_fits(k1=None))}, [], table1_k())
    assert v.verdict == "not testable on this set" and "k=1 not fittable" in v.ours


def test_moderate_law_needs_every_moderate_k():
    bar = claims.A2_MODERATE_R2
    assert paper_a.moderate_law(regime(k_fits(r2=bar)))
    assert not paper_a.moderate_law(regime(k_fits(r2=bar, k50=(-0.1, bar - 1e-9))))
    assert paper_a.moderate_law(regime(k_fits(k4=(-0.1, 0.5)))), "the scaled k are not graded"
    assert paper_a.moderate_law(regime(k_fits(k100=None))) is None
    v = paper_a.a2_moderate({UNITS[0]: regime(k_fits()), UNITS[1]: regime(k_fits(k10=(-0.1, 0.9)))}, [],
                            table1_k(r2s=(0.99, 0.97, 0.96, 0.97)))
    assert (v.key, v.verdict) == ("A2.2", "partly")
    assert "(at the paper's fractions, not graded: k=1 R^2 0.990 slope -0.100, k=4" in v.ours
    assert v.paper == "R^2 ≥ 0.97; Table 1, k = 10 and 50 and 100: R^2 0.960-0.970; 0 of 1 (dataset, family) pass this rule"


def test_law_breaks_at_either_large_k():
    bar = claims.A2_MIN_R2
    assert not paper_a.law_breaks(regime(k_fits(r2=bar))), "a falling law at the bar holds"
    assert paper_a.law_breaks(regime(k_fits(k2445=(-0.1, bar - 1e-9))))
    assert paper_a.law_breaks(regime(k_fits(k1630=(0.05, 0.99)))), "a rising line is no falling law"
    assert not paper_a.law_breaks(regime(k_fits(k2445=None))), "a k with nothing to fit is left out"
    assert paper_a.law_breaks(regime(k_fits(k1630=None, k2445=None))) is None
    v = paper_a.a2_breakdown({UNITS[0]: regime(k_fits()), UNITS[1]: regime(k_fits(k1630=(-0.1, 0.5)))}, [])
    assert (v.key, v.verdict) == ("A2.3", "partly")
    assert v.ours.startswith("pydocs/NeoX: k=1,630 R^2 0.990 slope -0.100, k=2,445 R^2 0.990 slope -0.100")
    assert paper_a.a2_breakdown({}, ["NeoX: 2 sizes, fewer than 3"]).verdict == "not testable on this set"


def test_slope_rises_and_a2_gpt2_grows():
    assert paper_a.slope_rises(regime(k_fits(k2445=(1e-9, 0.5))))
    assert not paper_a.slope_rises(regime(k_fits(k2445=(0.0, 0.5)))), "a flat line does not grow"
    assert paper_a.slope_rises(regime(k_fits(k1630=None, k2445=None))) is None
    rising = regime(k_fits(k1630=(0.02, 0.5)), spread={1630: (0.01, 0.0)})
    v = paper_a.a2_gpt2_grows({UNITS[0]: rising, UNITS[1]: regime(k_fits())}, has_gpt2=True)
    assert (v.key, v.verdict) == ("A2.4", "partly")
    assert v.ours.startswith("pydocs/NeoX: k=1,630 slope 0.020 [0.000, 0.040], k=2,445 slope -0.100 [-0.100, -0.100]")
    assert paper_a.a2_gpt2_grows({}, has_gpt2=False).ours == "the set has no family of the paper's GPT-2 models"
    assert paper_a.a2_gpt2_grows({}, has_gpt2=True).ours == "the GPT-2 family has fewer than 3 sizes"


def test_scatter_interval_below_zero():
    worse = regime(k_fits(k2445=(-0.1, 0.5)))
    assert paper_a.scatter_interval(worse) == pytest.approx((-0.49, -0.49))
    noisy = regime(k_fits(k2445=(-0.1, 0.5)), spread={2445: (0.0, 0.3)})  # -0.49 -+ 0.59
    v = paper_a.a2_scatter({UNITS[0]: worse, UNITS[1]: noisy}, [])
    assert (v.key, v.verdict) == ("A2.5", "partly")
    assert v.ours.startswith("pydocs/NeoX: R^2 0.990 at k=1,630, 0.500 at k=2,445; difference [-0.490, -0.490]")
    assert paper_a.a2_scatter({UNITS[0]: regime(k_fits())}, []).verdict == "not reproduced", "equal fits"
    untestable = regime(k_fits(), spread={2445: (0.0, np.nan)})
    v = paper_a.a2_scatter({UNITS[0]: untestable}, [])
    assert v.verdict == "not testable on this set" and "or a resample of it has every target" in v.ours


def test_a2_noise_at_the_ratio_and_with_unfitted_k():
    bar = claims.A2_NOISE_RATIO
    assert abs(bar - 8 ** -0.25) < 1e-12, "the geometric midpoint of no change and 1/sqrt(8)"

    def scatter(*columns):  # one column per large k: (scatter on the fewest tokens, on all of them)
        return np.array([[c[0] for c in columns], [c[0] for c in columns], [c[0] for c in columns],
                         [c[1] for c in columns]])

    units = {("pydocs", "NeoX"): scatter((1.0, bar), (1.0, 0.3)), ("stdlib", "NeoX"): scatter((1.0, bar + 1e-9))}
    large = {("pydocs", "NeoX"): LARGE, ("stdlib", "NeoX"): LARGE[:1]}
    v = paper_a.a2_noise(units, large, ["Llama: 2 sizes, fewer than 3"])
    assert (v.key, v.verdict, v.units_text) == ("A2.6", "partly", "1 of 2")
    assert "pydocs/NeoX: k=1,630 1.000 -> 0.595 (x0.59), k=2,445 1.000 -> 0.300 (x0.30)" in v.ours
    unfitted = {("pydocs", "NeoX"): scatter((np.nan, 0.1), (1.0, 0.3))}
    v = paper_a.a2_noise(unfitted, {("pydocs", "NeoX"): LARGE}, [])
    assert v.verdict == "reproduced" and "k=1,630 not fittable on every subsample" in v.ours
    v = paper_a.a2_noise({("pydocs", "NeoX"): scatter((np.nan, 0.1))}, {("pydocs", "NeoX"): LARGE[:1]}, [])
    assert v.verdict == "not testable on this set"
    assert paper_a.a2_noise({}, {}, ["NeoX: 2 sizes, fewer than 3"]).ours.startswith("no family has 3 or more sizes")
