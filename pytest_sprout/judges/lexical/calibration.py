"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707-d9ce8e17'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing')
INTERCEPT = -1.6641
COEFFICIENTS = (-0.4361, 4.1391, -0.0562, 0.6713, -0.0646, -1.2480, -0.4922)
THRESHOLD = 0.27
