"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-cb8d44d3'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -2.3957
COEFFICIENTS = (-2.6900, 3.9381, 0.1431, 0.9207, 0.2921, -1.4300, -0.3685, -0.4684, -1.1586, 2.6081, -0.1272, 2.5165)
THRESHOLD = 0.50
