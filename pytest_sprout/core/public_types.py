"""The types the public API accepts and returns, as a user's type checker sees them
(``pytest_sprout.assert_grounded``): kept apart from model.py, whose bytes the reference system
fingerprints."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Protocol, Sequence, TypeAlias

from .model import Answer, Passage, Verdict


PassageLike: TypeAlias = Passage | str | Mapping[str, Any]
"""A passage as a system may give it: a Passage, its text, or a mapping with text/id/title."""
AnswerLike: TypeAlias = Answer | str | tuple[str, Sequence[PassageLike]] | Mapping[str, Any]
"""An answer as a system may give it: an Answer, text with ALCE markers, a (text, passages) pair,
or a mapping with text (or sentences) and passages (``Answer.coerce``)."""


class ClaimJudge(Protocol):
    """Judges claims against the passages they cite: LexicalJudge, NLIJudge, or a judge of your own."""

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """One Verdict per (claim, cited passages) pair."""
        ...
