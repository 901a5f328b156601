"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-c8aaea05'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing')
INTERCEPT = -2.1418
COEFFICIENTS = (-0.5944, 6.1006, 0.0857, 1.1880, -0.0448, -1.6148, -0.4139, -0.5079, -0.8661)
THRESHOLD = 0.53
