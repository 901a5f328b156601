"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-a1a67c0b'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -2.4348
COEFFICIENTS = (-2.8377, 4.0408, 0.1386, 0.8757, 0.2909, -1.3862, -0.3719, -0.4583, -1.1332, 2.6310, -0.1128, 2.5429)
THRESHOLD = 0.50
