"""The regime of a set (``rankscale.book.regime``): each model's sizes and quantities, the main laws three ways, the
count baselines once per tokenizer, and the clause the headline carries, checked on synthetic runs against fits and
counts done directly."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rankscale.analysis import components, fit
from rankscale.analysis.baselines import count_baselines
from rankscale.analysis.bootstrap import span
from rankscale.book import regime
from rankscale.claims.base import MIN_SIZES
from rankscale.records.runs import Run
from rankscale.records.store import Records

VOCAB, TOKENS = 64, 800


def run(family, size, seed, targets):
    """A model of ``size`` non-embedding parameters (and ``size`` + 10,000 in all) whose targets rank better the
    larger it is, on the token ids ``targets``."""
    rng = np.random.default_rng(seed)
    gt = np.minimum(rng.lognormal(2.0 - 0.3 * np.log10(size), 1.0, TOKENS).astype(np.int32), VOCAB - 1)
    logp = (-rng.gamma(2.0, 0.5, TOKENS) - 0.2 * np.log1p(gt)).astype(np.float32)
    records = Records(logp=logp, gt=gt, ge=gt, target=targets, window=(np.arange(TOKENS) // 40).astype(np.int32),
                      document=(np.arange(TOKENS) // 40).astype(np.int64), top_logp=np.zeros((TOKENS, 1), np.float32),
                      manifest=SimpleNamespace(vocab_size=VOCAB))
    return Run(family, f"{family}-{size:g}", None, int(size), int(size) + 10_000, records)


TEXT = np.random.default_rng(9).integers(0, VOCAB, TOKENS).astype(np.int32)
OTHER = (TEXT + 1) % VOCAB  # another tokenizer's targets
FAMILY_RUNS = {"pydocs": [run("NeoX", s, i, TEXT) for i, s in enumerate((1e3, 1e4, 1e5))]
               + [run("Llama", s, 10 + i, OTHER) for i, s in enumerate((2e3, 2e5))]}


@pytest.fixture(scope="module")
def models():
    return regime.model_rows(FAMILY_RUNS)


def test_model_rows_give_each_models_sizes_and_quantities(models):
    first = FAMILY_RUNS["pydocs"][0]
    row = models.iloc[0]
    assert (row["S"], row["M"]) == (1000, 11_000) and row["embedding share"] == pytest.approx(1 - 1000 / 11_000)
    ce, ee = components.terms_vector({"logp": first.records.logp, "gt": first.records.gt})[:2]
    assert (row["CE"], row["EE"], row["EE / CE"]) == pytest.approx((ce, ee, ee / ce))
    assert row["-log RBP_1"] == pytest.approx(-np.log((first.records.gt == 0).mean()))


def test_law_rows_fit_each_family_of_enough_sizes_three_ways(models):
    laws = regime.law_rows(models)
    assert set(laws["family"]) == {"NeoX"}, f"Llama has 2 sizes, fewer than {MIN_SIZES}"
    assert list(laws["quantity"]) == list(regime.LAW_QUANTITIES)
    neox = models[models["family"] == "NeoX"]
    row = laws.iloc[0]
    assert row["R² power law (S)"] == pytest.approx(fit.fit_power_law(neox["S"], neox["CE"]).r2)
    assert row["R² log law (S)"] == pytest.approx(fit.fit_semilog(neox["S"], neox["CE"]).r2)
    assert (row["slope (M)"], row["R² power law (M)"]) == pytest.approx(
        (fit.fit_power_law(neox["M"], neox["CE"]).slope, fit.fit_power_law(neox["M"], neox["CE"]).r2))
    assert row["change"] == pytest.approx(neox["CE"].iloc[-1] / neox["CE"].iloc[0] - 1)


def test_baseline_rows_count_once_per_tokenizer(models):
    rows = regime.baseline_rows(FAMILY_RUNS)
    assert list(rows["families"]) == ["NeoX", "Llama"], "the two families predict other targets"
    records = FAMILY_RUNS["pydocs"][0].records
    assert rows.iloc[0]["bigram CE"] == pytest.approx(
        count_baselines(TEXT, records.window, records.document, VOCAB)["bigram"].ce)
    neox = models[models["family"] == "NeoX"]
    assert (rows.iloc[0]["smallest model CE"], rows.iloc[0]["largest model CE"]) == pytest.approx(
        (neox["CE"].iloc[0], neox["CE"].iloc[-1]))


def test_regime_clause_quotes_the_computed_numbers_and_is_empty_without_a_law(models):
    laws, baselines = regime.law_rows(models), regime.baseline_rows(FAMILY_RUNS)
    clause = regime.regime_clause(models, laws, baselines, "pydocs")
    ce = laws[laws["quantity"] == "CE"].iloc[0]
    assert f"R² {ce['R² log law (S)']:.3f} against the power law's {ce['R² power law (S)']:.3f}" in clause
    assert f"scores {span(baselines['bigram CE'], '.2f')})" in clause
    assert regime.regime_clause(models, laws.iloc[:0], baselines, "pydocs") == ""


def test_regime_clause_words_a_rise_as_a_rise(models):
    laws, baselines = regime.law_rows(models), regime.baseline_rows(FAMILY_RUNS)
    falling = regime.regime_clause(models, laws, baselines, "pydocs")
    assert "CE on `pydocs` falls only from" in falling and "-log RBP_1 falls by" in falling
    worse = laws.assign(change=laws["change"].abs())  # every quantity of the family rises with size
    higher = baselines.assign(**{"largest model CE": baselines["smallest model CE"] + 1})
    rising = regime.regime_clause(models, worse, higher, "pydocs")
    change = worse[worse["quantity"] == "-log RBP_1"]["change"].iloc[0]
    assert "CE on `pydocs` goes from" in rising and f"-log RBP_1 changes by {change:+.0%} across" in rising
    assert "falls" not in rising
