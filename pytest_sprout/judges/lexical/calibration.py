"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-ccd47e44'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -2.4295
COEFFICIENTS = (-2.6920, 4.0389, 0.1359, 0.9027, 0.2897, -1.4238, -0.3724, -0.4797, -1.1280, 2.5621, -0.1056, 2.4570, 0.0000)
THRESHOLD = 0.50
