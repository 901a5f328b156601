"""Command lines for users: `convert` (Ragas and DeepEval datasets into suites) and `metaeval` (a judge
scored against human labels). Each is also reachable as `python -m pytest_sprout.convert` and
`python -m pytest_sprout.metaeval`."""
