"""Word helpers the mutation operators share: finding a word, keeping a word's case, and a
sentence's closing punctuation."""

from __future__ import annotations

import re
from typing import Iterable

WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


def has_word(word: str, texts: Iterable[str]) -> bool:
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)
    return any(pattern.search(t) for t in texts)


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
