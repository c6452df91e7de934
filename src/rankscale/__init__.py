"""rankscale: per-token rank records, metrics and power-law fits for two scaling-law papers.

The package follows the pipeline, one subpackage per stage: ``sets`` (which models, on which
corpora) -> ``corpora`` (token windows) -> ``models`` (loading, the offline ladders) -> ``records``
(extraction: each target's log-probability and rank counts, on disk) -> ``analysis`` (metrics, fits,
bootstrap) -> ``claims`` (the papers' claims and the functions that grade them) -> ``teaching`` (each
chapter's exercises and the checker of a student's answer) -> ``book`` (executing the chapters, building the
site). ``hub`` and ``paths`` say what this machine can reach
and where things live; ``cli`` is the command line.
"""

__version__ = "0.1.0"


class RankscaleError(Exception):
    """A problem with the user's input or files; the message says what to do next."""
