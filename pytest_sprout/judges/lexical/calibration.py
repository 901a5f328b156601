"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3857-00c94076'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -2.4515
COEFFICIENTS = (-2.7076, 4.0228, 0.1450, 0.9957, 0.2915, -1.4345, -0.3667, -0.4666, -1.1618, 2.5967, -0.1253, 2.5258)
THRESHOLD = 0.50
