"""Word helpers the mutation operators share: finding a word, keeping a word's case, and a
sentence's closing punctuation.

What the operators read of a passage is memoised by the passage's text (here and in operators.py and
numbers.py): every sentence of an answer that cites a passage, and every operator, asks the same
questions of it, so a case's passages are read once, not once per sentence and operator."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


def has_word(word: str, texts: Iterable[str]) -> bool:
    """Whether one of the texts has ``word`` as a whole word, in any case."""
    return any(_has_word(word, t) for t in texts)


@lru_cache(maxsize=8192)
def _has_word(word: str, text: str) -> bool:
    """``has_word`` for one text, memoised: the operators ask the same passage about the same few
    words for every sentence that cites it (a long passage is searched once per word, not once per
    sentence and operator)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE) is not None


def match_case(new: str, old: str) -> str:
    if old.isupper() and len(old) > 1:
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def split_end(text: str) -> tuple[str, str]:
    """The sentence body and its closing punctuation."""
    m = re.search(r"[.!?]+[\"'\u201d\u2019)]*\s*$", text)
    return (text[: m.start()], text[m.start():].strip()) if m else (text.rstrip(), ".")
