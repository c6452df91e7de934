"""Analysis: takes per-token records as numpy arrays, gives the papers' metrics, power-law fits,
bootstrap intervals and rank-distribution models; pure functions, no I/O.
"""
