"""Checks on the judges: how far a judge's verdicts can be trusted.

- ``operators``, ``numbers``, ``negation``, ``splice``, ``words``: the mutation operators, which turn a supported sentence
  into one its sources do not support;
- ``mutation``: judging those mutants with a tier's own judge during a run, and the kill rates;
- ``agreement``: how two tiers' verdicts on the same sentences compare (Cohen's kappa);
- ``metaeval``: a judge scored against human labels (``python -m pytest_sprout.metaeval``).

Layer 4: these modules import the model, stats, the small base helpers and the judges, nothing
above them. Importing this package imports nothing else.
"""
