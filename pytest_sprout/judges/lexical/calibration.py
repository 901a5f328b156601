"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-acf6f21f'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing')
INTERCEPT = -2.3262
COEFFICIENTS = (-2.0296, 7.3264, -0.1434, 0.7131, -0.1578, -1.1768, -0.4548)
THRESHOLD = 0.53
