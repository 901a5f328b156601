"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3838-473419b9'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3454
COEFFICIENTS = (-1.9505, 3.7531, 0.1391, 0.9471, 0.3686, -1.5028, -0.3517, -0.4226, -1.1824, 2.5125, -0.0883, 1.8784, 1.0588)
THRESHOLD = 0.50
