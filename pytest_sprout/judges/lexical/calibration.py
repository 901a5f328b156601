"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-ee030b53'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -1.6567
COEFFICIENTS = (-2.0840, 3.1186, 0.0358, 1.2993, 0.3448, -1.8166, -0.4351, -0.4348, -1.0534, 2.3513, -0.2366, 2.3653)
THRESHOLD = 0.50
