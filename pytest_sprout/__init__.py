"""pytest-sprout: test whether a RAG system's answers are grounded in the passages they cite.

Public API. The judges are imported on first use: this package is imported by every pytest
session of every user, so it stays cheap. A type checker sees them at once (the ``TYPE_CHECKING``
imports below), so ``LexicalJudge().judge(...)`` is a ``Verdict`` to it, not ``Any``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from .core.model import Answer, AnswerLike, Case, ClaimJudge, GoldenItem, Passage, PassageLike, Sentence, Verdict
from .core.stats import Tally, is_underpowered, wilson_interval
from .core.version import __version__

if TYPE_CHECKING:  # imported lazily at run time (module __getattr__ below): torch stays unimported
    from .judges.lexical import LexicalJudge
    from .judges.nli import NLIJudge


__all__ = [
    "Answer", "Case", "GoldenItem", "LexicalJudge", "NLIJudge", "Passage", "Sentence", "Tally",
    "Verdict", "assert_grounded", "is_underpowered", "wilson_interval", "__version__",
]


def assert_grounded(answer: AnswerLike, passages: Iterable[PassageLike] | None = None,
                    judge: ClaimJudge | None = None, citations: str = "required") -> None:
    """Assert that every sentence of ``answer`` is supported by the passages it cites.

    ``citations="retrieved"`` judges a sentence without markers against every passage of the answer
    (the ``--sprout-citations`` modes).

    ``answer`` is an Answer, or text with ALCE markers (``[1]``) together with ``passages``.
    ``judge`` defaults to a LexicalJudge (any object with ``judge_many(pairs) -> list[Verdict]``
    will do: an NLIJudge, or your own). The AssertionError lists each unsupported sentence with
    its citation, the best evidence and the rule that failed.
    """
    from .judges import describe_sentences
    from .judges.groundedness import judge_sentences

    if not isinstance(answer, Answer):
        answer = Answer.from_text(answer, passages or ()) if isinstance(answer, str) else Answer.coerce(answer)
    if answer.refused:
        raise AssertionError(f"the answer is a refusal, nothing is grounded: {answer.text!r}")
    if not answer.sentences:
        raise AssertionError("the answer has no sentences")
    if judge is None:
        from .judges.lexical import LexicalJudge

        judge = LexicalJudge()
    from .core.citations import problem

    if problem(citations):
        raise ValueError(f"citations {problem(citations)}")
    rows = judge_sentences(judge, answer, citations)
    bad = [row for row in rows if row["supported"] is not True]
    if bad:
        against = "their citations" if citations == "required" else "their citations (or the retrieved passages)"
        lines = [f"{len(bad)} of {len(rows)} sentences are not grounded in {against}:"]
        lines += describe_sentences(rows, answer)
        raise AssertionError("\n".join(lines))


def __getattr__(name: str) -> Any:
    if name == "LexicalJudge":
        from .judges.lexical import LexicalJudge

        return LexicalJudge
    if name == "NLIJudge":
        from .judges.nli import NLIJudge

        return NLIJudge
    raise AttributeError(f"module 'pytest_sprout' has no attribute {name!r}")
