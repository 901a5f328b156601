"""`pytest_sprout.model`: the public import path of the data model, which lives in `core.model`."""

from .core.model import *  # noqa: F403
