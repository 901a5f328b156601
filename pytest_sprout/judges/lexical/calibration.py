"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3838-c648668f'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3683
COEFFICIENTS = (-1.3043, 3.1168, 0.1538, 0.9346, 0.3582, -1.5296, -0.2992, -0.4138, -1.2043, 2.5735, -0.0974, 1.8539, 1.0783)
THRESHOLD = 0.50
