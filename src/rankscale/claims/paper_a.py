"""What every chapter of paper A (``rankscale.claims.a1`` ... ``a5``) grades with: how a fitted line is read as a
falling power law (``law_reading``), the one band for every ratio the paper calls close and how an interval is read
against it (``close``), and paper A's k, chosen for a vocabulary of about 50,000 tokens, scaled to another
vocabulary (``scaled_k``).
"""

from __future__ import annotations

from rankscale.claims.base import ONE_READING, UNDETERMINED, Reading, every, read, read_band

# How every power-law rule of paper A's chapters reads a fitted line

def law_rule(bar: float) -> str:
    """How a rule reads a fitted line as a falling power law with R^2 of at least ``bar`` (``law_reading``), in the
    rules' words: every power-law rule of paper A's chapters says it so (A2.1-A2.3, A3.1, A4.1, A5.8-A5.10).

    >>> law_rule(0.9).startswith("R^2's interval is read against 0.9 and the slope's against 0")
    True
    """
    return (f"R^2's interval is read against {bar} and the slope's against 0, the claim's side below "
            f"({ONE_READING}); the law holds where both hold, fails where either fails, and is undetermined otherwise")


# Why a power-law rule (``law_reading``) is undetermined where no unit decides it
ACROSS_LAW = ("in every unit an interval of R^2 or of the slope crosses its threshold, or a replicate could not be "
              "fitted")


def law_reading(r2: tuple[float, float] | None, slope: tuple[float, float] | None, bar: float) -> Reading:
    """Whether a fitted line is a falling power law with R^2 of at least ``bar``, read on its bootstrap intervals
    (``law_rule``): R^2's against ``bar`` and the slope's against 0, below (``read``), both of which must hold
    (``every``).

    Parameters
    ----------
    r2, slope : tuple of (float, float) or None
        The intervals of the fit's R^2 and slope (``rankscale.analysis.bootstrap.interval``), from the same
        replicates; None where some replicate could not be fitted: the line was fitted, but nothing can be said of
        its noise, so the reading is ``UNDETERMINED``.
    bar : float
        The least R^2 of a power law.

    Returns
    -------
    Reading

    Examples
    --------
    >>> law_reading((0.93, 0.97), (-0.3, -0.1), 0.9), law_reading((0.87, 0.95), (-0.3, -0.1), 0.9).outcome
    (Reading(outcome=True, fragile=False), 'undetermined')
    >>> law_reading((0.87, 0.95), (0.1, 0.3), 0.9).outcome, law_reading(None, (-0.3, -0.1), 0.9).outcome
    (False, 'undetermined')
    """
    return every(read(r2, bar, missing=UNDETERMINED), read(slope, 0.0, -1, missing=UNDETERMINED))



# "Very close", "nearly identical", "comparable", "similar", "amplified by N": one band for every ratio that paper A
# calls close to 1, whatever the word. It is the range of slope(-log RBP_1) / slope(CE) over the 22 data-set/family
# pairs of paper A's Table 1 whose two fits both have R^2 >= 0.9 (a5.A5_MIN_R2): the pairs appendix B calls "very
# close" and §5.2 "nearly identical", the only place the paper shows what its closeness allows
# (tests/test_claims_a5.py recomputes it from the reference table, a5.table1_ratios).
A_CLOSE = (0.74, 1.32)
# How every closeness claim reads an interval of its ratio against A_CLOSE (``close``), said once in their rules
A_CLOSE_READING = (f"inside [{A_CLOSE[0]}, {A_CLOSE[1]}] (the range of slope(-log RBP_1) / slope(CE) over the pairs "
                   f"of paper A's Table 1 that its appendix B calls very close, the one band of this book for "
                   f"every ratio the paper calls close) the unit holds, wholly outside it fails, and across an edge "
                   f"the data do not decide (undetermined, named apart)")


ACROSS_EDGE = f"every interval crosses an edge of the closeness band [{A_CLOSE[0]}, {A_CLOSE[1]}]"


def close(*bounds: tuple[float, float] | None) -> Reading:
    """The one reading of ratio intervals against ``A_CLOSE``, used by every claim that two quantities are close
    (``read_band`` of each, all of which must hold: ``every``): True if every interval lies inside the band, False
    if some lies wholly outside it, ``UNDETERMINED`` if some crosses an edge (and none lies outside), None if one is
    missing; fragile where an end lies at an edge.

    Examples
    --------
    >>> [close(*b).outcome for b in [[(0.9, 1.1)], [(0.9, 1.1), (1.5, 2.0)], [(0.7, 0.9)], [(0.9, 1.1), None]]]
    [True, False, 'undetermined', None]
    >>> close((0.74, 1.32)).outcome, close((0.5, 0.7399)).outcome  # the edges belong to the band
    (True, False)
    """
    return every(*(read_band(b, A_CLOSE) for b in bounds))


# ---------------------------------------------------------------------------------------------
# Paper A's k, chosen for its vocabulary of about 50,000 tokens

PAPER_A_VOCAB = 50_257  # the vocabulary paper A's k were chosen for (GPT-2; Pythia and OPT are within 20 tokens)


def scaled_k(k: int, vocab_size: int) -> int:
    """Paper A's ``k`` at the same fraction of a vocabulary of ``vocab_size`` tokens as of its own
    (``PAPER_A_VOCAB``), at least 1.

    >>> scaled_k(20_000, 4096), scaled_k(100, 4096), scaled_k(10, 4096)
    (1630, 8, 1)
    """
    return max(1, round(k * vocab_size / PAPER_A_VOCAB))
