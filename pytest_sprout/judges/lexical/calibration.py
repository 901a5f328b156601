"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-527d9471'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.1732
COEFFICIENTS = (-1.9774, 3.7738, 0.1111, 0.8933, 0.3742, -1.4512, -0.3820, -0.4327, -1.1375, 2.3531, -0.0875, 1.9150, 1.0003)
THRESHOLD = 0.50
