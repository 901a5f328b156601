"""What a person needs to label a judged sentence right: the full text of the passages it was
judged against (those it cites, or every retrieved passage when an uncited sentence was judged in
``retrieved`` mode), with the claim's words marked in them. The labelling page and
``sprout-label-sample.jsonl`` both show this; plain Python, no pytest.

The marks are a reading aid, not a verdict: every word of the passage that shares a stem with a
content word of the claim (stop words left out) is marked, as ``[start, end)`` offsets into the
passage text counted in characters (code points, as Python indexes a ``str``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..core.citations import citing_kind
from ..core.row import Row

WORD = re.compile(r"\w+", re.UNICODE)

# Words too common to help a reader find the claim in a passage.
STOP = frozenset("""
a an the and or but nor if then than that this these those there here of to in on at by for from with
without into onto over under about as is are was were be been being am do does did done has have had
having it its it's he she they them their his her we our you your i me my mine not no so such very
can could may might must shall should will would also just only more most less many much some any
each every all both either neither other another what which who whom whose when where why how
""".split())

_SUFFIXES = ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ed", "ly", "es", "s")


def stem(word: str) -> str:
    """A crude stem, enough to mark 'grows' where the claim says 'growing': the lower-cased word
    less one common English ending and a final 'e', keeping at least four letters."""
    word = word.lower()
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def claim_stems(claim: str) -> frozenset[str]:
    """The stems of the claim's content words (stop words left out; numbers kept)."""
    return frozenset(stem(w) for w in WORD.findall(claim) if w.lower() not in STOP)


@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, stem) of every word of a passage worth marking; a passage many sentences
    cite is read once."""
    out = []
    for match in WORD.finditer(text):
        word = match.group()
        if (len(word) >= 2 or word.isdigit()) and word.lower() not in STOP:
            out.append((match.start(), match.end(), stem(word)))
    return tuple(out)


def marks(stems: frozenset[str], text: str) -> list[list[int]]:
    """``[start, end)`` of every word of ``text`` whose stem is one of ``stems``, in order;
    neighbouring marked words separated only by spaces are joined into one mark."""
    out: list[list[int]] = []
    for start, end, word_stem in _words(text):
        if word_stem not in stems:
            continue
        if out and not text[out[-1][1]:start].strip():
            out[-1][1] = end
        else:
            out.append([start, end])
    return out


def passage_name(index: int, pid: str) -> str:
    """How the page names a passage: its [k] marker (its 1-based rank) and its id when that is not k."""
    return f"passage [{index + 1}]" if pid == str(index + 1) else f"passage [{index + 1}] {pid}"


def judged_against(row: Row, sentence: dict[str, Any]) -> tuple[str, list[tuple[int, str, str]]]:
    """How the sentence stands ("cited", "retrieved" or "uncited", core/citations.py) and the
    passages it was judged against, as (index among the retrieved, id, full text), in the answer's
    order. A citation that names no retrieved passage has no text to show (its reason says so)."""
    kind = citing_kind(sentence)
    passages = (row.answer or {}).get("passages") or []
    wanted = {str(c) for c in sentence.get("citations") or []}
    out = []
    for i, passage in enumerate(passages):
        if not isinstance(passage, dict):
            continue
        pid, text = str(passage.get("id", i + 1)), passage.get("text")
        if isinstance(text, str) and (kind == "retrieved" or (kind == "cited" and pid in wanted)):
            out.append((i, pid, text))
    return kind, out


def sample_context(row: Row, sentence: dict[str, Any]) -> dict[str, Any]:
    """What ``sprout-label-sample.jsonl`` adds to a sentence to label: the question, how the sentence
    cites, and each passage it was judged against with its full text and the claim's words marked."""
    kind, passages = judged_against(row, sentence)
    stems = claim_stems(str(sentence.get("text") or ""))
    out: dict[str, Any] = {"judged_against": kind}
    if row.question:
        out["question"] = row.question
    out["passages"] = [{"id": pid, "marker": f"[{i + 1}]", "text": text, "marks": marks(stems, text)}
                       for i, pid, text in passages]
    return out
