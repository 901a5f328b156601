"""`pytest_sprout.stats`: the public import path of the pure statistics, which live in `core.stats`."""

from .core.stats import *  # noqa: F403
