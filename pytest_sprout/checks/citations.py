"""The citation operators: they keep a sentence's text and change what it cites (moved to the
retrieved passage that shares the fewest of its words, or dropped). Structural checks: a judge that
reads citations kills them by construction (operators.STRUCTURAL)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..core.model import Answer, Sentence

_STOP = frozenset(
    """the and for with that this from are was were has have had its their they them than then
    which who what when where also into onto about over under more most some such only other been
    being can could may might must should will would not all any each every very""".split()
)
MOVE_MAX_OVERLAP = 0.34  # a passage sharing at most this share of the sentence's words cannot support it


@lru_cache(maxsize=256)
def content_words(text: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _STOP)


def overlap(sentence: str, passage: str) -> float:
    """The share of the sentence's content words that the passage contains."""
    mine = content_words(sentence)
    return len(mine & content_words(passage)) / len(mine) if mine else 1.0


def move_citation(sentence: Sentence, answer: Answer) -> tuple[Sentence, str] | None:
    """Cite, instead, the retrieved passage with the least word overlap, if it shares at most a
    third of the sentence's content words (so it cannot support the sentence)."""
    if not sentence.citations:
        return None
    candidates = [
        (overlap(sentence.text, p.text), rank, p) for rank, p in enumerate(answer.passages)
        if p.id not in sentence.citations
    ]
    if not candidates:
        return None
    share, _, best = min(candidates, key=lambda c: (c[0], c[1]))
    if share > MOVE_MAX_OVERLAP:
        return None
    return Sentence(sentence.text, (best.id,)), f"cites {best.id!r} (shares {share:.0%} of its words) instead of {', '.join(sentence.citations)}"


def drop_citation(sentence: Sentence, answer: Answer) -> tuple[Sentence, str] | None:
    """Drop the sentence's citations: a claim with no source is not supported by one."""
    if not sentence.citations:
        return None
    return Sentence(sentence.text, ()), f"dropped the citation{'s' if len(sentence.citations) > 1 else ''} {', '.join(sentence.citations)}"


__all__ = ["MOVE_MAX_OVERLAP", "content_words", "drop_citation", "move_citation", "overlap"]
