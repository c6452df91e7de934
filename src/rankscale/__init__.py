"""rankscale: per-token rank records, metrics and power-law fits for two scaling-law papers.

Pipeline (one module per stage, see DESIGN.md): ``corpora`` -> ``extract`` -> ``metrics`` -> ``fit``,
with ``models`` loading the networks that ``extract`` runs.
"""

__version__ = "0.1.0"


class RankscaleError(Exception):
    """A problem with the user's input or files; the message says what to do next."""
