"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3838-f18c9125'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3786
COEFFICIENTS = (-1.2423, 3.0754, 0.1559, 0.9428, 0.3638, -1.5295, -0.3349, -0.4215, -1.1896, 2.5449, -0.1020, 1.8627, 1.0874)
THRESHOLD = 0.52
