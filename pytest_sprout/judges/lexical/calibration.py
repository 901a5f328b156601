"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-b7a35180'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences')
INTERCEPT = -1.6141
COEFFICIENTS = (-0.0002, 3.1613, 0.0642, 1.2974, 0.0234, -1.8151, -0.4270, -0.4224, -1.0811, 2.3759, -0.2354)
THRESHOLD = 0.54
