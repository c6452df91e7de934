"""Paper B's reading of its training-dynamics figures (§3.2-3.3, Figs. 3, 4 and 6) as rules over
one model's series of checkpoints, with the sampling noise of a finite evaluation text.

Each checkpoint contributes CE's decomposition (``rankscale.metrics.ce_decomposition``): its
Error-Entropy, Self-Alignment and Confidence, and the distance between its two distributions
p_e and q_e (``alignment_distance``). ``resampled_terms`` recomputes them on bootstrap resamples
of the evaluation tokens, *paired* across the checkpoints of a series when they predict the same
targets (replicate b of every checkpoint uses the same resample), so that the spread of a
difference between two checkpoints is the spread of that difference, not of two independent
values. Intervals are the measured value plus or minus z standard errors of the replicates
(``se_interval``), not percentiles of the replicates: these plug-in quantities depend on how many
distinct ranks a sample holds, a resample repeats some targets and loses others, and so the
replicates sit systematically off the measured value (for a near-uniform step-0 checkpoint, by
more than their own spread), while their spread still measures the noise. ``series_checks`` says, for one series, whether each of paper B's statements holds there
(a ``Check``: the outcome, the number measured and its interval), or cannot be tested (too few
checkpoints, no step-0 checkpoint); ``REQUIRES`` says what each needs. ``uniform_entropy`` is the
Error-Entropy that ranking at random gives on a finite sample. Only numpy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from rankscale.metrics import ce_decomposition, ce_shares

TERMS = ("CE", "EE", "SA", "Conf", "TV")
RULES = ("ee_falls", "sa_ends_down", "conf_rises", "ee_first", "uniform_at_init")
# What a series needs for each rule to be tested on it, in words.
REQUIRES = {
    "ee_falls": "two checkpoints",
    "sa_ends_down": "two checkpoints",
    "conf_rises": "two checkpoints",
    "ee_first": "three checkpoints",
    "uniform_at_init": "a step-0 checkpoint",
}


def alignment_distance(decomposition, min_count: int = 1) -> float:
    """Total-variation distance between the RBE distribution p_e and the score distribution q_e of
    one decomposition (``metrics.Decomposition``): half the sum of |p_e - q_e|, in [0, 1], the
    largest difference between the probabilities the two give to any set of RBE values (Pinsker's
    inequality bounds it by sqrt(SA / 2) when every RBE value is kept).

    min_count : keep only the RBE values that at least this many targets hold, both distributions
        renormalised over them (NaN if none is held that often). A finite sample sees most ranks of
        the tail once or not at all: there p_e is 1/N wherever a rank occurs, far above its true
        value, while q_e follows the one target's score, so the tail keeps the two apart however
        well the model is aligned; ``min_count`` compares them where the sample measures both.

    >>> from rankscale.metrics import ce_decomposition
    >>> dec = ce_decomposition(np.log([0.5, 0.5, 0.25, 0.25, 0.1]), np.array([0, 0, 1, 1, 2]))
    >>> round(alignment_distance(dec), 4), round(alignment_distance(dec, min_count=2), 4)
    (0.1882, 0.1667)
    """
    kept = decomposition.n_e >= min_count
    if not kept.any():
        return float("nan")
    p, q = decomposition.p_e[kept], decomposition.q_e[kept]
    return float(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())


def head_share(decomposition, min_count: int) -> float:
    """The share of targets whose RBE value at least ``min_count`` targets hold: how much of the
    sample ``alignment_distance(decomposition, min_count)`` compares."""
    return float(decomposition.p_e[decomposition.n_e >= min_count].sum())


def aligned_distance(decomposition, n_tokens: int, min_count: int = 1, n_sim: int = 50, seed: int = 0) -> float:
    """The ``alignment_distance`` that a perfectly self-aligned model would show on ``n_tokens``
    targets: one whose RBE distribution is this decomposition's p_e and which scores every target
    of rank e at exactly p_e, so that q_e = p_e and every distance left is the sampling noise of
    the counts. Mean over ``n_sim`` multinomial samples (seeded). A floor under the measured
    distance (real scores also scatter within each rank, which adds to it), not an estimate of it.

    >>> from rankscale.metrics import ce_decomposition
    >>> dec = ce_decomposition(np.zeros(1000), np.repeat(np.arange(5), 200))
    >>> 0 < aligned_distance(dec, 1000) < aligned_distance(dec, 100) < 0.2
    True
    """
    rng = np.random.default_rng(seed)
    p = np.asarray(decomposition.p_e, np.float64)
    out = []
    for _ in range(n_sim):
        counts = rng.multinomial(int(n_tokens), p)
        kept = counts >= min_count
        if kept.any():
            out.append(0.5 * np.abs(counts[kept] / counts[kept].sum() - p[kept] / p[kept].sum()).sum())
    return float(np.mean(out)) if out else float("nan")


def terms_of(logp, rbe, min_count: int = 1) -> dict[str, float]:
    """CE, EE, SA, Conf (``metrics.ce_decomposition``) and TV (``alignment_distance`` over the RBE
    values held by at least ``min_count`` targets) of one sample."""
    dec = ce_decomposition(logp, rbe)
    return {**dec.terms(), "TV": alignment_distance(dec, min_count)}


def resampled_terms(samples: Sequence[Mapping[str, np.ndarray]], n_boot: int, seed: int = 0,
                    paired: bool = False, min_count: int = 1) -> dict[str, np.ndarray]:
    """``terms_of`` every sample on ``n_boot`` resamples of its tokens (drawn with replacement).

    samples : m mappings with per-token ``logp`` and ``gt``; paired : draw one resample per
    replicate and use it for every sample (the samples must be the same targets, e.g. the
    checkpoints of one model on one text), so that differences between samples keep their
    pairing; otherwise each sample is resampled on its own; min_count : for TV (``terms_of``).
    Returns ``{term: (n_boot, m) array}`` for ``TERMS``.
    """
    lengths = [len(s["logp"]) for s in samples]
    if paired and len(set(lengths)) > 1:
        raise ValueError(f"paired resampling needs samples of one length, got {lengths}")
    rng = np.random.default_rng(seed)
    out = {name: np.empty((n_boot, len(samples))) for name in TERMS}
    for b in range(n_boot):
        shared = rng.integers(0, lengths[0], lengths[0]) if paired and samples else None
        for i, (sample, n) in enumerate(zip(samples, lengths)):
            idx = shared if paired else rng.integers(0, n, n)
            logp, gt = np.asarray(sample["logp"])[idx], np.asarray(sample["gt"])[idx]
            for name, value in terms_of(logp, gt, min_count).items():
                out[name][b, i] = value
    return out


def uniform_entropy(n_tokens: int, vocab_size: int) -> float:
    """The expected plug-in Error-Entropy of ``n_tokens`` targets ranked uniformly at random among
    ``vocab_size`` tokens: the EE of a model that knows nothing, measured on a sample of that
    size. It lies below log V (by about (V - 1) / 2n when n >> V) because a finite sample leaves
    some ranks unseen and others seen more than their share.

    With counts n_e ~ Binomial(n, 1/V): E[H] = log n - (V / n) sum_j P(n_e = j) j log j, exactly.

    >>> round(uniform_entropy(10**6, 2), 6) == round(math.log(2) - 1 / (2 * 10**6), 6)
    True
    """
    n, v = int(n_tokens), int(vocab_size)
    if n < 1 or v < 1:
        raise ValueError(f"need at least one token and one rank, got {n_tokens} and {vocab_size}")
    if v == 1:
        return 0.0
    mean, sd = n / v, math.sqrt(n / v * (1 - 1 / v))
    # counts beyond 40 standard deviations of the mean carry no weight in double precision
    j = np.arange(max(1, int(mean - 40 * sd) - 10), min(n, int(mean + 40 * sd) + 10) + 1)
    lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
    log_pmf = (math.lgamma(n + 1) - lgamma(j + 1.0) - lgamma(n - j + 1.0) - j * math.log(v)
               + (n - j) * math.log1p(-1 / v))
    return float(math.log(n) - v / n * np.sum(np.exp(log_pmf) * j * np.log(j)))


def se_interval(point: float, replicates, level: float = 0.95) -> tuple[float, float]:
    """The two-sided ``level`` interval ``point`` -+ z * (standard deviation of the bootstrap
    ``replicates``), z the normal quantile (1.96 at 95%): centred on the measured value, as wide
    as the resampling noise.

    >>> [round(end, 4) for end in se_interval(1.0, [0.9, 1.1], level=0.6827)]
    [0.9, 1.1]
    """
    z = NormalDist().inv_cdf((1 + level) / 2)
    half = z * float(np.std(np.asarray(replicates, np.float64)))
    return float(point) - half, float(point) + half


@dataclass(frozen=True)
class Check:
    """The outcome of one rule on one unit: ``holds`` (True, False, or None where the unit cannot
    test it), the number measured (``value``), its bootstrap interval (``low``, ``high``; NaN where
    the rule uses none) and a ``note`` in words."""

    holds: bool | None
    value: float = float("nan")
    low: float = float("nan")
    high: float = float("nan")
    note: str = ""


def below(point: float, replicates, threshold: float, level: float = 0.95) -> Check:
    """Whether a quantity is shown to lie below ``threshold``: holds if the upper end of its
    ``level`` interval (``se_interval`` of the measured ``point`` and its bootstrap ``replicates``)
    does; a note says when the interval straddles the threshold (not shown either way), which
    counts as not holding."""
    replicates = np.asarray(replicates, np.float64)
    if not np.isfinite(point) or not np.isfinite(replicates).all():
        return Check(False, float(point), note="not defined in every resample: not shown")
    low, high = se_interval(point, replicates, level)
    if high < threshold:
        note = f"below {threshold:g}"
    elif low > threshold:
        note = f"above {threshold:g}"
    else:
        note = f"interval straddles {threshold:g}: not shown"
    return Check(bool(high < threshold), float(point), low, high, note)


def _diff(values: Mapping[str, np.ndarray], boot: Mapping[str, np.ndarray], term: str, a: int, b: int, level: float):
    """term[b] - term[a]: the full-sample difference and its paired interval."""
    point = float(values[term][b] - values[term][a])
    return (point, *se_interval(point, boot[term][:, b] - boot[term][:, a], level))


def _other_part(values, a: int, b: int) -> np.ndarray:
    """(SA drop + Confidence rise) / CE drop over checkpoints a -> b, one value per row of
    ``values`` ({term: (r, m)}); NaN where CE does not drop (CE = EE + SA - Conf, so its drop is
    EE's drop + SA's drop + Confidence's rise)."""
    ee_drop, sa_drop = (values[t][:, a] - values[t][:, b] for t in ("EE", "SA"))
    conf_rise = values["Conf"][:, b] - values["Conf"][:, a]
    ce_drop = ee_drop + sa_drop + conf_rise
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ce_drop > 0, (sa_drop + conf_rise) / ce_drop, np.nan)


def series_checks(steps, values: Mapping[str, Sequence[float]], boot: Mapping[str, np.ndarray], vocab_size: int,
                  n_tokens: int, level: float = 0.95, uniform_ratio: float = 0.9) -> dict[str, Check]:
    """Paper B's training-dynamics statements on one checkpoint series, with bootstrap intervals.

    steps : (m,) training steps in increasing order; values : {term: (m,)} full-sample ``terms_of``
    each checkpoint; boot : {term: (n_boot, m)} the same on paired resamples (``resampled_terms``);
    vocab_size : the model's vocabulary V; n_tokens : targets per checkpoint; level : of every
    interval; uniform_ratio : the "nearly uniform" threshold below.

    - ``ee_falls`` (Fig. 3, "EE steadily decreases"): EE at the last checkpoint is below EE at the
      first (the interval of the difference lies below 0), and no interval between consecutive
      checkpoints shows a rise (no interval of the difference lies wholly above 0).
    - ``sa_ends_down`` (Fig. 3, "SA declines in the end"): SA at the last checkpoint is below the
      highest SA of the earlier checkpoints (interval of the difference below 0).
    - ``conf_rises`` (Fig. 3): Confidence at the last checkpoint is above the first (interval above 0).
    - ``ee_first`` (§3.2): over the first interval EE's drop exceeds both SA's drop and
      Confidence's rise (interval of EE drop - the larger of the two above 0), and SA and
      Confidence together carry a larger part of CE's drop from the second checkpoint to the last
      than over the first interval (interval of the difference of parts above 0; a resample in
      which CE does not drop leaves the part undefined and the rule not shown).
    - ``uniform_at_init`` (Fig. 4, "nearly uniform" at step 0): exp(EE(0) - ``uniform_entropy``)
      is at least ``uniform_ratio``: the untrained model spreads the targets over at least that
      share of the effective number of ranks that random ranking reaches on the same sample.

    Returns ``{rule: Check}`` keyed by ``RULES``; ``holds`` is None where the series lacks what
    the rule needs (``REQUIRES``).
    """
    steps = np.asarray(steps)
    values = {t: np.asarray(values[t], np.float64) for t in TERMS if t in values}
    m = len(steps)
    if m < 1 or np.any(np.diff(steps) <= 0) or any(len(v) != m for v in values.values()) \
            or any(boot[t].shape[1] != m for t in ("CE", "EE", "SA", "Conf")):
        raise ValueError(f"need one value per checkpoint, at increasing steps; got steps {steps.tolist()}")
    checks = {rule: Check(None, note=f"needs {REQUIRES[rule]}") for rule in RULES}
    if m >= 2:
        value, low, high = _diff(values, boot, "EE", 0, m - 1, level)
        rises = [f"{steps[j]:,}→{steps[j + 1]:,}" for j in range(m - 1)
                 if _diff(values, boot, "EE", j, j + 1, level)[1] > 0]
        checks["ee_falls"] = Check(bool(high < 0 and not rises), value, low, high,
                                   "significant rise " + ", ".join(rises) if rises else "no significant rise")
        peak = int(np.argmax(values["SA"][:-1]))
        value, low, high = _diff(values, boot, "SA", peak, m - 1, level)
        checks["sa_ends_down"] = Check(bool(high < 0), value, low, high, f"against the peak at step {steps[peak]:,}")
        value, low, high = _diff(values, boot, "Conf", 0, m - 1, level)
        checks["conf_rises"] = Check(bool(low > 0), value, low, high)
    if m >= 3:
        def lead(v):  # EE's drop over the first interval minus the larger of SA's drop and Confidence's rise
            return (v["EE"][:, 0] - v["EE"][:, 1]) - np.maximum(v["SA"][:, 0] - v["SA"][:, 1],
                                                                v["Conf"][:, 1] - v["Conf"][:, 0])

        point = {t: values[t][None, :] for t in ("EE", "SA", "Conf")}
        lead_low, lead_high = se_interval(float(lead(point)[0]), lead(boot), level)
        later = _other_part(boot, 1, m - 1) - _other_part(boot, 0, 1)
        value = float((_other_part(point, 1, m - 1) - _other_part(point, 0, 1))[0])
        if np.isnan(later).any() or not np.isfinite(value):
            low = high = float("nan")
            note = "CE does not drop in every resample of both stretches: parts not defined"
            later_shown = False
        else:
            low, high = se_interval(value, later, level)
            later_shown = low > 0
            note = ""
        note = "; ".join(filter(None, [f"first-interval lead of EE [{lead_low:.3g}, {lead_high:.3g}] nats", note]))
        checks["ee_first"] = Check(bool(lead_low > 0 and later_shown), value, low, high, note)
    if steps[0] == 0:
        ratio = math.exp(values["EE"][0] - uniform_entropy(n_tokens, vocab_size))
        checks["uniform_at_init"] = Check(bool(ratio >= uniform_ratio), ratio,
                                          note=f"EE(0) s.d. over resamples {np.std(boot['EE'][:, 0]):.3f} nats")
    return checks


def interval_parts(error_entropy, self_alignment, confidence) -> dict[str, np.ndarray]:
    """Each component's part of the drop of CE over each interval between consecutive checkpoints.

    CE = EE + SA - Conf at every checkpoint, so CE's drop over an interval is EE's drop plus SA's
    drop plus Confidence's rise, and the three parts (``ce_shares`` of those changes) sum to 1;
    a negative part worked against the drop. Where CE does not move at all the parts are not
    defined (NaN or infinite), without a warning.

    error_entropy, self_alignment, confidence : (m,) values at m checkpoints in training order.
    Returns (m - 1,) arrays keyed by ``COMPONENTS``.
    """
    ee, sa, conf = (np.asarray(x, np.float64) for x in (error_entropy, self_alignment, confidence))
    if not (ee.ndim == 1 and ee.shape == sa.shape == conf.shape and len(ee) >= 2):
        raise ValueError("need three 1-d series of one length, with at least two checkpoints")
    with np.errstate(divide="ignore", invalid="ignore"):
        return ce_shares(-np.diff(ee), -np.diff(sa), -np.diff(conf))
