"""The NLIJudge's premises, in plain Python (no tokenizer, no model): a premise from the cited
passages as ALCE formats it, its sentence spans, the verbatim short-circuit, and the packing of
sentence units into overlapping chunks of a token budget. The judge (nli.py) tokenizes; this
module only counts and cuts."""

from __future__ import annotations

import re
from typing import Sequence

from ..core.model import Passage, split_sentences


def format_source(source: Passage | str) -> str:
    """A passage as ALCE formats it for its NLI judge: ``"Title: t\\ntext"`` (plain text when the
    passage has no title; ALCE's data always has one)."""
    if isinstance(source, Passage):
        return f"Title: {source.title}\n{source.text}" if source.title else source.text
    return str(source)


def premise_of(sources: Sequence[Passage | str]) -> str:
    """The premise for a set of cited passages: each formatted, joined with newlines (ALCE)."""
    return "\n".join(format_source(s) for s in sources)


def normalise(text: str) -> str:
    """Lower-case words only, single-spaced: the form the verbatim short-circuit compares."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the premise's units: each line, split into sentences."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        cursor = pos
        for sentence in split_sentences(line):
            start = text.find(sentence, cursor)
            if start < 0:  # split_sentences only strips; cannot happen, but never lose text
                start, sentence = cursor, text[cursor:pos + len(line)]
            spans.append((start, start + len(sentence)))
            cursor = start + len(sentence)
        pos += len(line) + 1
    return spans


def is_verbatim(claim: str, premise: str, spans: list[tuple[int, int]] | None = None) -> bool:
    """Whether the claim, normalised, is one or more consecutive whole sentences of the premise.

    Whole sentences only: "snake plants need water" inside "it is false that snake plants need
    water" is not a match, so negations and conditionals around a copied clause still go to the
    model.
    """
    target = normalise(claim)
    if not target:
        return False
    units = [normalise(premise[a:b]) for a, b in (spans if spans is not None else sentence_spans(premise))]
    units = [u for u in units if u]
    for i in range(len(units)):
        joined = units[i]
        j = i
        while len(joined) < len(target) and j + 1 < len(units):
            j += 1
            joined = f"{joined} {units[j]}"
        if joined == target:
            return True
    return False


def token_units(spans: list[tuple[int, int]], offsets: list[tuple[int, int]], room: int) -> list[tuple[int, int, int]]:
    """Sentence spans as (start, end, tokens), given the premise's token offsets; a sentence longer
    than ``room`` tokens is cut into token windows so that no text is lost."""
    units = []
    t = 0
    for a, b in spans:
        first = t
        while t < len(offsets) and offsets[t][0] < b:
            t += 1
        count = t - first
        if count <= room:
            if count:
                units.append((a, b, count))
            continue
        for s in range(first, t, room):
            e = min(s + room, t)
            units.append((offsets[s][0], offsets[e - 1][1], e - s))
    return units


def pack_chunks(units: list[tuple[int, int, int]], room: int, fixed: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Units packed greedily into chunks of at most ``room`` tokens, consecutive chunks sharing one
    unit: (the chunks' character spans, each chunk's model input length, ``fixed`` included)."""
    chunks, tokens = [], []
    i = 0
    while i < len(units):
        j, used = i, 0
        while j < len(units) and used + units[j][2] <= room:
            used += units[j][2]
            j += 1
        chunks.append((units[i][0], units[j - 1][1]))
        tokens.append(used + fixed)
        if j >= len(units):
            break
        i = j - 1 if j - 1 > i else j  # the next chunk repeats this chunk's last sentence
    return chunks, tokens
