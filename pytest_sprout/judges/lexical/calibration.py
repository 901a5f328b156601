"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707-1d362484'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing')
INTERCEPT = -1.5691
COEFFICIENTS = (-0.4711, 3.9579, -0.0791, 0.0411, -0.0567, -1.0141, -0.4980)
THRESHOLD = 0.25
