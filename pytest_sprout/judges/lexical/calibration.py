"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3838-361abc5f'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3281
COEFFICIENTS = (-1.9851, 3.8019, 0.1358, 0.8905, 0.3635, -1.4493, -0.3211, -0.4142, -1.1998, 2.5215, -0.0845, 1.8062, 1.0693)
THRESHOLD = 0.50
