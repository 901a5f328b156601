"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-ae3150b5'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -2.4281
COEFFICIENTS = (-2.7769, 3.9766, 0.1392, 0.8867, 0.2931, -1.3993, -0.3720, -0.4587, -1.1348, 2.6333, -0.1162, 2.5443)
THRESHOLD = 0.51
