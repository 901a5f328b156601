"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-8a9714be'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing')
INTERCEPT = -2.2001
COEFFICIENTS = (-0.8887, 6.4508, 0.0733, 1.1464, -0.0633, -1.6188, -0.4052, -0.5162, -0.7743)
THRESHOLD = 0.50
