"""Paper B's reading of its training-dynamics figures (§3.2-3.3, Figs. 3, 4 and 6) as rules over
one model's series of checkpoints.

Each checkpoint contributes CE's decomposition (``rankscale.metrics.ce_decomposition``): its
Error-Entropy, Self-Alignment and Confidence. ``series_checks`` says, for one series, whether
each of paper B's qualitative statements holds there, or None where the series cannot test it
(too few checkpoints, no step-0 checkpoint); ``REQUIRES`` says what each rule needs. Only numpy.
"""

from __future__ import annotations

import numpy as np

from rankscale.metrics import COMPONENTS, ce_shares

RULES = ("ee_falls", "sa_ends_down", "conf_rises", "ee_first", "uniform_at_init", "sa_lowest_at_end")
# What a series needs for each rule to be tested on it, in words.
REQUIRES = {
    "ee_falls": "two checkpoints",
    "sa_ends_down": "two checkpoints",
    "conf_rises": "two checkpoints",
    "ee_first": "three checkpoints",
    "uniform_at_init": "a step-0 checkpoint",
    "sa_lowest_at_end": "two checkpoints",
}


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


def series_checks(steps, error_entropy, self_alignment, confidence, vocab_size: int,
                  uniform_share: float = 0.95) -> dict[str, bool | None]:
    """Whether each of paper B's training-dynamics statements holds on one checkpoint series.

    - ``ee_falls``: Error-Entropy decreases from every checkpoint to the next (§3.2, Fig. 3).
    - ``sa_ends_down``: Self-Alignment at the last checkpoint is below the one before (Fig. 3).
    - ``conf_rises``: Confidence at the last checkpoint is above the first (Fig. 3).
    - ``ee_first``: in the first interval EE has the largest part of CE's drop, and SA and
      Confidence together have a larger part in the last interval than in the first (§3.2).
    - ``uniform_at_init``: EE at step 0 is at least ``uniform_share`` of its maximum log V, i.e.
      the untrained model ranks targets nearly at random (§3.3, Fig. 4).
    - ``sa_lowest_at_end``: SA at the last checkpoint is below its value at every earlier one,
      q_e having come closest to p_e (§3.3, Fig. 6).

    steps : (m,) training steps (any order; the series is sorted by step); error_entropy,
    self_alignment, confidence : (m,) values; vocab_size : the model's vocabulary.
    Returns a dict keyed by ``RULES``: True or False, or None where the series lacks what the
    rule needs (``REQUIRES``).
    """
    steps = np.asarray(steps)
    order = np.argsort(steps, kind="stable")
    steps = steps[order]
    ee, sa, conf = (np.asarray(x, np.float64)[order] for x in (error_entropy, self_alignment, confidence))
    if not (steps.ndim == 1 and ee.shape == sa.shape == conf.shape == steps.shape and len(steps) >= 1):
        raise ValueError("steps and the three components must be non-empty 1-d arrays of one length")
    if len(np.unique(steps)) < len(steps):
        raise ValueError(f"a series holds one checkpoint per step, got steps {steps.tolist()}")
    n = len(steps)
    checks: dict[str, bool | None] = dict.fromkeys(RULES)
    if n >= 2:
        checks["ee_falls"] = bool(np.all(np.diff(ee) < 0))
        checks["sa_ends_down"] = bool(sa[-1] < sa[-2])
        checks["conf_rises"] = bool(conf[-1] > conf[0])
        checks["sa_lowest_at_end"] = bool(sa[-1] < sa[:-1].min())
    if n >= 3:
        parts = interval_parts(ee, sa, conf)
        checks["ee_first"] = bool(parts["EE"][0] == max(parts[name][0] for name in COMPONENTS)
                                  and parts["SA"][-1] + parts["Conf"][-1] > parts["SA"][0] + parts["Conf"][0])
    if steps[0] == 0:
        checks["uniform_at_init"] = bool(ee[0] >= uniform_share * np.log(vocab_size))
    return checks
