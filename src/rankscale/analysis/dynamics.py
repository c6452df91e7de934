"""Paper B's readings of one model's decomposition (chapter B1) and of its training (chapter B2,
§3.2-3.3, Figs. 3, 4 and 6), with the sampling noise of a finite evaluation text.

B1: ``concentrated`` (is p_e on the small-error side of random ranking?), ``ceiling_excess`` and
``confidence_bound`` (paper B's ceiling Q_e <= 1/(e+1) on the geometric-mean scores).

B2: each checkpoint contributes CE's decomposition (``rankscale.analysis.metrics.ce_decomposition``): its
Error-Entropy, Self-Alignment and Confidence (``terms_of``), and the distance between its two
distributions p_e and q_e (``alignment_distance``, over the ranks ``head_share`` says how much of
the sample holds; ``aligned_distance`` is the floor that sampling alone sets). ``resampled_terms``
recomputes them on bootstrap resamples of the evaluation text (``rankscale.analysis.bootstrap.resample``),
*paired* across the checkpoints of a series when they predict the same targets, so that the spread
of a difference between two checkpoints is the spread of that difference. ``interval_parts`` splits
CE's drop between checkpoints into the components' parts; ``uniform_entropy`` is the Error-Entropy
that ranking at random gives on a finite sample. The rules that judge a series or a model from
these numbers are in ``rankscale.claims.b2``. Only numpy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from rankscale.analysis import bootstrap
from rankscale.analysis.metrics import ce_decomposition, ce_shares

TERMS = ("CE", "EE", "SA", "Conf", "TV")


# ---------------------------------------------------------------------------------------------
# B1: one model's decomposition

def concentrated(rbe, vocab_size: int) -> bool:
    """Whether the RBE distribution lies wholly on the small-error side of random ranking:
    P(e < k) >= k / V at every k from 1 to V (paper B, §3.1, Fig. 1).

    Parameters
    ----------
    rbe : (n,) ints in [0, V)
        Rank-based errors of the targets (``gt``).
    vocab_size : int
        The model's vocabulary size V.

    Returns
    -------
    bool
        True if the share of targets with fewer than k tokens above them reaches k / V, the share
        that ranking at random gives, at every k.

    Examples
    --------
    >>> concentrated(np.array([0, 0, 1, 5]), 10), concentrated(np.array([9, 9, 0, 5]), 10)
    (True, False)
    """
    rbe = np.asarray(rbe)
    v = int(vocab_size)
    if rbe.ndim != 1 or len(rbe) == 0 or rbe.min() < 0 or rbe.max() >= v:
        raise ValueError(f"need a non-empty 1-d array of RBE values in [0, {v}), got shape {rbe.shape}")
    below = np.cumsum(np.bincount(rbe, minlength=v)) / len(rbe)  # below[k - 1] = P(e < k)
    return bool(np.all(below >= np.arange(1, v + 1) / v))


def ceiling_excess(decomposition) -> float:
    """How far the geometric-mean scores come to paper B's ceiling Q_e <= 1/(e+1) (§3.3): the
    largest log Q_e + log(e+1) over the RBE values of one decomposition, at most 0 wherever the
    probabilities are consistent with their ranks (the e tokens above a target are each at least
    as probable, so (e+1) s <= 1).

    Parameters
    ----------
    decomposition : metrics.Decomposition
        One model's decomposition (``metrics.ce_decomposition``).

    Returns
    -------
    float
        In nats; <= 0 where the ceiling holds.

    Examples
    --------
    >>> from rankscale.analysis.metrics import ce_decomposition
    >>> round(ceiling_excess(ce_decomposition(np.log([0.5, 0.2, 0.3]), np.array([0, 1, 1]))), 4)
    -0.6931
    """
    return float(np.max(decomposition.log_Q_e + np.log1p(decomposition.e)))


def confidence_bound(decomposition) -> float:
    """The bound on Confidence that the ceiling Q_e <= 1/(e+1) gives: log of the harmonic sum
    of 1/(e+1) over the RBE values that occur (paper B, §3.3), which grows without limit as more
    ranks are seen.

    Parameters
    ----------
    decomposition : metrics.Decomposition
        One model's decomposition.

    Returns
    -------
    float
        In nats.

    Examples
    --------
    >>> from rankscale.analysis.metrics import ce_decomposition
    >>> round(confidence_bound(ce_decomposition(np.log([0.5, 0.2, 0.3]), np.array([0, 1, 1]))), 4)
    0.4055
    """
    return float(np.log(np.sum(1.0 / (decomposition.e + 1))))


# ---------------------------------------------------------------------------------------------
# B2: the distance between p_e and q_e

def alignment_distance(decomposition, min_count: int = 1) -> float:
    """Total-variation distance between the RBE distribution p_e and the score distribution q_e.

    Half the sum of |p_e - q_e|, in [0, 1]: the largest difference between the probabilities the
    two give to any set of RBE values (Pinsker's inequality bounds it by sqrt(SA / 2) when every
    RBE value is kept).

    Parameters
    ----------
    decomposition : metrics.Decomposition
        One model's decomposition (``metrics.ce_decomposition``).
    min_count : int
        Keep only the RBE values that at least this many targets hold, both distributions
        renormalised over them. A finite sample sees most ranks of the tail once or not at all:
        there p_e is 1/N wherever a rank occurs, far above its true value, while q_e follows the
        one target's score, so the tail keeps the two apart however well the model is aligned;
        ``min_count`` compares them where the sample measures both.

    Returns
    -------
    float
        The distance; NaN if no RBE value is held ``min_count`` times.

    Examples
    --------
    >>> from rankscale.analysis.metrics import ce_decomposition
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
    sample ``alignment_distance(decomposition, min_count)`` compares.

    Parameters
    ----------
    decomposition : metrics.Decomposition
        One model's decomposition.
    min_count : int
        As in ``alignment_distance``.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> from rankscale.analysis.metrics import ce_decomposition
    >>> head_share(ce_decomposition(np.zeros(5), np.array([0, 0, 1, 1, 2])), 2)
    0.8
    """
    return float(decomposition.p_e[decomposition.n_e >= min_count].sum())


def aligned_distance(decomposition, n_tokens: int, min_count: int = 1, n_sim: int = 50, seed: int = 0) -> float:
    """The ``alignment_distance`` that a perfectly self-aligned model would show on ``n_tokens``
    targets: one whose RBE distribution is this decomposition's p_e and which scores every target
    of rank e at exactly p_e, so that q_e = p_e and every distance left is the sampling noise of
    the counts.

    A floor under the measured distance (real scores also scatter within each rank, which adds to
    it), not an estimate of it.

    Parameters
    ----------
    decomposition : metrics.Decomposition
        Gives p_e.
    n_tokens : int
        Targets per simulated sample (the measured model's).
    min_count : int
        As in ``alignment_distance``.
    n_sim, seed : int
        Number of multinomial samples averaged, and their seed.

    Returns
    -------
    float
        Mean distance over the samples; NaN if no sample holds a rank ``min_count`` times.

    Examples
    --------
    >>> from rankscale.analysis.metrics import ce_decomposition
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
    """CE, EE, SA, Conf and TV of one sample.

    Parameters
    ----------
    logp : (n,) floats
        Log-probabilities of the targets.
    rbe : (n,) ints
        Their rank-based errors (``gt``).
    min_count : int
        For TV (``alignment_distance``).

    Returns
    -------
    dict
        ``{term: float}`` for ``TERMS``.

    Examples
    --------
    >>> t = terms_of(np.log([0.5, 0.5, 0.25]), np.array([0, 0, 1]))
    >>> round(t["CE"], 4) == round(t["EE"] + t["SA"] - t["Conf"], 4), round(t["TV"], 4)
    (True, 0.0)
    """
    dec = ce_decomposition(logp, rbe)
    return {**dec.terms(), "TV": alignment_distance(dec, min_count)}


def resampled_terms(samples: Sequence[Mapping[str, np.ndarray]], n_boot: int, seed: int = 0,
                    paired: bool = False, min_count: int = 1, by: str | None = None) -> dict[str, np.ndarray]:
    """``terms_of`` every sample on ``n_boot`` resamples of its text (``bootstrap.resample``).

    Parameters
    ----------
    samples : sequence of m mappings
        Per-token ``logp`` and ``gt`` of each sample (other keys are resampled alongside).
    n_boot, seed : int
        Number of replicates and seed of the resampling.
    paired : bool
        Use one resample per replicate for every sample (they must be the same targets, e.g. the
        checkpoints of one model on one text), so that differences between samples keep their
        pairing; otherwise each sample is resampled on its own.
    min_count : int
        For TV (``terms_of``).
    by : str, optional
        Key of per-token group ids (``"document"``) drawn whole; None: single tokens.

    Returns
    -------
    dict
        ``{term: (n_boot, m) array}`` for ``TERMS``.

    Examples
    --------
    >>> s = {"logp": np.log([0.5, 0.25, 0.1, 0.4]), "gt": np.array([0, 1, 3, 0])}
    >>> boot = resampled_terms([s, s], n_boot=4, paired=True)
    >>> boot["EE"].shape, bool(np.all(boot["EE"][:, 0] == boot["EE"][:, 1]))
    ((4, 2), True)
    """
    def metric(sample):
        terms = terms_of(sample["logp"], sample["gt"], min_count)
        return [terms[name] for name in TERMS]

    replicates = bootstrap.resample(samples, metric, n_boot, seed, same_text=paired, by=by)
    return {name: replicates[:, :, j] for j, name in enumerate(TERMS)}


def uniform_entropy(n_tokens: int, vocab_size: int) -> float:
    """The expected plug-in Error-Entropy of ``n_tokens`` targets ranked uniformly at random among
    ``vocab_size`` tokens: the EE of a model that knows nothing, measured on a sample of that size.

    It lies below log V (by about (V - 1) / 2n when n >> V) because a finite sample leaves some
    ranks unseen and others seen more than their share. With counts n_e ~ Binomial(n, 1/V):
    E[H] = log n - (V / n) sum_j P(n_e = j) j log j, exactly.

    Parameters
    ----------
    n_tokens : int
        Sample size n >= 1.
    vocab_size : int
        Number of ranks V >= 1.

    Returns
    -------
    float
        In nats.

    Examples
    --------
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


# ---------------------------------------------------------------------------------------------
# B2: parts of CE's drop

def interval_parts(error_entropy, self_alignment, confidence) -> dict[str, np.ndarray]:
    """Each component's part of the drop of CE over each interval between consecutive checkpoints.

    CE = EE + SA - Conf at every checkpoint, so CE's drop over an interval is EE's drop plus SA's
    drop plus Confidence's rise, and the three parts (``metrics.ce_shares`` of those changes) sum
    to 1; a negative part worked against the drop. Where CE does not move at all the parts are not
    defined (NaN or infinite), without a warning.

    Parameters
    ----------
    error_entropy, self_alignment, confidence : (m,) floats
        Values at m >= 2 checkpoints in training order.

    Returns
    -------
    dict
        ``{component: (m - 1,) array}`` keyed by ``metrics.COMPONENTS``.

    Examples
    --------
    >>> parts = interval_parts([5.0, 3.0], [0.5, 0.3], [0.0, 1.0])  # CE drops by 2 + 0.2 + 1
    >>> {name: round(float(part[0]), 4) for name, part in parts.items()}
    {'EE': 0.625, 'SA': 0.0625, 'Conf': 0.3125}
    """
    ee, sa, conf = (np.asarray(x, np.float64) for x in (error_entropy, self_alignment, confidence))
    if not (ee.ndim == 1 and ee.shape == sa.shape == conf.shape and len(ee) >= 2):
        raise ValueError("need three 1-d series of one length, with at least two checkpoints")
    with np.errstate(divide="ignore", invalid="ignore"):
        return ce_shares(-np.diff(ee), -np.diff(sa), -np.diff(conf))
