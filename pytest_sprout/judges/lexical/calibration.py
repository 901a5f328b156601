"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-2a887533'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences')
INTERCEPT = -1.6103
COEFFICIENTS = (-0.0571, 3.2179, 0.0337, 1.2816, 0.0142, -1.7258, -0.4349, -0.4006, -0.9493, 2.3379, -0.2277)
THRESHOLD = 0.59
