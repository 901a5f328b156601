"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707-74fbec43'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing')
INTERCEPT = -1.4883
COEFFICIENTS = (0.9064, 2.7641, -0.1176, 0.7274, 0.0114, -1.3200, -0.4900)
THRESHOLD = 0.28
