"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``.

score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
"""

VERSION = 'wice707+lfqa3857-361a9f23'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'cited_sentences')
INTERCEPT = -1.8998
COEFFICIENTS = (-0.6054, 6.0242, 0.0403, 1.1411, 0.0139, -1.6431, -0.4490, -0.4247, -0.7100, -0.1427)
THRESHOLD = 0.43
