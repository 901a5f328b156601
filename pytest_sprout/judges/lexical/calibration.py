"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-145532c8'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -1.6618
COEFFICIENTS = (-2.5131, 3.5475, 0.0322, 1.3064, 0.3368, -1.8358, -0.4285, -0.4379, -1.0395, 2.3734, -0.2317, 2.3590)
THRESHOLD = 0.50
