"""Splitting an answer or a passage into sentences, and reading a sentence's ALCE-style citation
markers. Plain Python, no pytest.

Kept apart from the rest of the data model (model.py) because it shapes what the reference system
answers (its passages are windows of sentences, its answers parsed from text): the reference
system's version fingerprints this file, so the data model can change without changing the demo
answers' identity, and an edit here changes it.
"""

from __future__ import annotations

import re
from typing import Sequence

_MARKER = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")
# Where split_sentences looks: an end mark with the closing marks, quotes, brackets and citation
# markers after it, or a paragraph break.
_BREAK_AT = re.compile(r"[.!?][.!?\"')\u201d\u2019]*(?:\s*\[\s*\d+(?:\s*,\s*\d+)*\s*\])*|\n(?=\n)")
# Seven characters before a point, none a space, bracket, quote or point: the word they end is
# longer than any abbreviation and its last part longer than two characters.
_LONG_TAIL = re.compile(r"[^\s(\[\"'.]{7}")
_WORD_OPENER = re.compile(r"[\s(\[\"'][^\s(\[\"']*\Z")  # the last space, bracket or quote before a point
# Words that end with a full stop without ending a sentence. Not "fig" (a plant, in this domain),
# "no" or "min": they end sentences far more often than they abbreviate.
ABBREVIATIONS = frozenset(
    """e.g i.e etc vs dr mr mrs ms prof st approx ca cf al jr sr inc ltd co mt ft
    jan feb mar apr jun jul aug sep sept oct nov dec esp resp""".split()
)


def _is_boundary(text: str, dot: int) -> bool:
    """Whether the punctuation at ``dot`` ends a sentence (next char is space/end already checked)."""
    if text[dot] in "!?":
        return True
    if dot >= 7 and _LONG_TAIL.match(text, dot - 7):  # most: no abbreviation, initial or "u.s" ends so
        return True
    # The word before the dot starts after the last space or opening bracket or quote: found by one
    # search of the few characters before it (the whole text before it, for a long word).
    lo = dot - 32 if dot > 32 else 0
    last = _WORD_OPENER.search(text, lo, dot)
    if last is None and lo:
        last = _WORD_OPENER.search(text, 0, dot)
    word = text[last.start() + 1 if last is not None else 0 : dot].lower().rstrip(".")
    if word in ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha():  # an initial: "J. Smith"
        return False
    return not ("." in word and all(len(part) <= 2 for part in word.split(".")))  # "u.s", "a.m" go on


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, keeping citation markers with the sentence they follow.

    A full stop ends a sentence only when whitespace (or the end) follows it, optionally after
    closing quotes/brackets and citation markers, so decimals ("2.5 cm") and abbreviations
    ("e.g.", "Dr.") do not split. A marker written after the full stop belongs to the sentence
    before it.
    """
    sentences: list[str] = []
    start = 0
    n = len(text)
    # Each match is an end mark with what closes it, or a newline followed by another: the
    # punctuation inside a match is not looked at again.
    for at in _BREAK_AT.finditer(text):
        k = at.start()
        if text[k] == "\n":  # paragraph break
            piece = text[start:k].strip()
            if piece:
                sentences.append(piece)
            start = k
            continue
        j = at.end()
        if (j >= n or text[j].isspace()) and _is_boundary(text, k):
            piece = text[start:j].strip()
            if piece:
                sentences.append(piece)
            start = j
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def strip_markers(raw: str, passage_ids: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """One sentence's text without its markers, and what they cite: marker k names the k-th of
    ``passage_ids`` (1-based), a marker past them the citation "[k]" (which names no passage)."""
    citations: list[str] = []
    for match in _MARKER.finditer(raw):
        for number in match.group(1).split(","):
            k = int(number)
            cid = passage_ids[k - 1] if 1 <= k <= len(passage_ids) else f"[{k}]"
            if cid not in citations:
                citations.append(cid)
    text = _MARKER.sub("", raw)
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text, tuple(citations)
