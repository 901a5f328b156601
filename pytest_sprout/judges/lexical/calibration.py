"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707-a942857e'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing')
INTERCEPT = -1.5478
COEFFICIENTS = (0.9619, 2.7744, -0.1087, 0.7372, 0.0063, -1.3257, -0.4878)
THRESHOLD = 0.28
