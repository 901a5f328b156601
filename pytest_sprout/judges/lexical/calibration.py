"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wicedev349+lfqa3844-4afb5644'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.1614
COEFFICIENTS = (-2.0668, 3.8744, 0.1071, 0.9136, 0.3653, -1.4784, -0.3549, -0.4266, -1.1375, 2.3595, -0.0842, 1.8784, 0.9886)
THRESHOLD = 0.51
