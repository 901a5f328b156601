"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-d3ec6c67'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence')
INTERCEPT = -1.6221
COEFFICIENTS = (-2.4679, 3.3370, 0.0175, 1.2960, 0.3486, -1.8195, -0.4314, -0.4246, -1.0262, 2.5090, -0.2504, 2.3888)
THRESHOLD = 0.50
