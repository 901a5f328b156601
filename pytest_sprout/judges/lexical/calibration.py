"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3838-df161123'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3704
COEFFICIENTS = (-1.2449, 3.0802, 0.1583, 0.9405, 0.3643, -1.5297, -0.3345, -0.4196, -1.1964, 2.5324, -0.1033, 1.8703, 1.0836)
THRESHOLD = 0.52
