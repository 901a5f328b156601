"""The errors of the base layer. Pure code raises them; the layers above turn them into pytest's
(a usage error, an item that fails with one line), with the same message. No pytest import."""

from __future__ import annotations


class SettingsError(ValueError):
    """An option or threshold value that cannot be used; the message names the flag. The options
    layer turns it into a pytest usage error with the same message."""


class TierUnusable(Exception):
    """A tier cannot be built with these settings (its model is not found, has no entailment
    label). A usage error before anything runs; on an xdist worker, each of its items fails with it."""


class JudgeFailure(Exception):
    """A tier's own brief failure while judging (a model whose weights fail to load at first use):
    the item fails with this message alone, not a traceback."""
