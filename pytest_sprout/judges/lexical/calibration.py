"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-72521501'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -2.4319
COEFFICIENTS = (-2.8326, 4.0376, 0.1388, 0.8785, 0.2906, -1.3898, -0.3718, -0.4598, -1.1343, 2.6353, -0.1136, 2.5350)
THRESHOLD = 0.51
