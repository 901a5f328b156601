"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3841-c3d33145'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3700
COEFFICIENTS = (-1.9359, 3.8173, 0.1424, 0.9478, 0.3686, -1.5008, -0.3535, -0.4201, -1.1686, 2.4540, -0.0890, 1.8565, 1.0595)
THRESHOLD = 0.50
