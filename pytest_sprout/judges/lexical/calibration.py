"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-40f82a8d'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.1637
COEFFICIENTS = (-2.1057, 3.9101, 0.1081, 0.9032, 0.3650, -1.4661, -0.3554, -0.4269, -1.1408, 2.3569, -0.0819, 1.8884, 0.9851)
THRESHOLD = 0.51
