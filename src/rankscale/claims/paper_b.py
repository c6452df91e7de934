"""What the rules of paper B's chapters B3-B5 (``rankscale.claims.b3``, ``.b4``, ``.b5``) say of their intervals."""

from __future__ import annotations

from statistics import NormalDist

from rankscale.analysis.bootstrap import LEVEL

# Intervals (rankscale.analysis.bootstrap.interval): the value on all tokens -+ z standard deviations of
# its replicates, each replicate resampling every model's tokens once for all four quantities, so that
# differences between quantities and between models are paired (rankscale.claims.b3 says why not percentiles).
_B_LEVEL = LEVEL
_B_Z = NormalDist().inv_cdf((1 + _B_LEVEL) / 2)
_B_INTERVAL = (f"{_B_LEVEL:.0%} interval (the value on all tokens ± {_B_Z:.2f} standard deviations of its "
               "replicates over resamples of every model's tokens; in a size fit, a size trained with several seeds "
               "first draws one of its runs)")
_B_PAIRED = (f"{_B_LEVEL:.0%} paired interval (the value on all tokens ± {_B_Z:.2f} standard deviations of its "
             "replicates, every quantity it is computed from taken on the same resamples of every model's tokens; "
             "in a size fit, a size trained with several seeds first draws one of its runs)")
