"""The rules of names: a name of the claim in the place of another name of its evidence."""

from __future__ import annotations

from typing import Sequence

from .index import Sentence
from .rules import _PLACE, Failure, _short
from .text import MONTHS


def check_displaced_name(claim: Sentence, best: Sentence, uncovered: Sequence[str] = ()) -> Failure | None:
    """A claim that is one evidence sentence with one of its names replaced by another name of the
    passages: every other content word is in that sentence, the claim's name is not, and the
    sentence has a name the claim lacks ("Rome" where the sentence says "Milan")."""
    names = claim.names()
    if not names:
        return None
    missing = [key for key in dict.fromkeys(claim.seq) if key not in best.keys]
    if not missing or any(key not in names for key in missing):
        return None
    theirs = [word for key, word in best.names().items() if key not in claim.keys]
    if theirs:
        ours = names[missing[0]]
        return "entity", f"claim has '{ours}' where its evidence sentence has '{theirs[0]}'"
    return None


def check_name_in_place(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A name of the claim taken from one evidence sentence into the place of a name of the
    sentence that says the rest ("the physical holding pressure of a VGA connector" where that
    sentence says "a USB connector", and "VGA" is in another sentence of the evidence): the
    claim's words that are not names are concentrated in one evidence sentence (at least half of
    them); that sentence holds no part of the claim's name (a name of several words, "Terry
    Richardson", counts as one), another evidence sentence does, but none holds it next to a word
    that is next to it in the claim (up to ``_PLACE`` content words away, names aside); and that
    sentence has another name with the same nearest word on the same side as the claim's name.
    A name the evidence states in its place, or that no other name stands in for, passes: answers
    join a name stated in one sentence to what another says of it ("In the case of Germany, ...")."""
    names = claim.names()
    if not names or len(window) < 2:
        return None
    content = claim.content
    counted = frozenset(k for k, _ in content if k not in names)
    if len(counted) < 2:
        return None
    best = max(window, key=lambda s: len(counted & s.keys))  # the first of the most
    most = len(counted & best.keys)
    theirs = best.names()
    if not theirs or 2 * most < len(counted):
        return None
    for p, (key, _) in enumerate(content):
        if key not in names or names[key].lower() in MONTHS:  # a month is part of a date: the date rule's
            continue
        around = _around(content, p, names)
        run = _name_run(content, p, names)
        if not around & best.keys or run & best.keys:
            continue
        if not any(key in s.keys for s in window if s is not best) or any(
                key in s.keys and _placed(s, key, around, names) for s in window):
            continue
        sides = _sides(content, p, names)
        for q, (other, _) in enumerate(best.content):
            if other in theirs and other not in run and any(
                    a is not None and a == b for a, b in zip(sides, _sides(best.content, q, theirs))):
                return "entity", (f"claim has '{names[key]}' where the evidence sentence that says the rest "
                                  f"has '{theirs[other]}' ('{_short(best.text)}'); '{names[key]}' is in "
                                  "another sentence, not next to these words")
    return None


def _placed(s: Sentence, key: str, around: set[str], names: dict[str, str]) -> bool:
    """Whether ``s`` holds ``key`` next to one of the keys ``around`` (up to ``_PLACE`` content words away)."""
    content = s.content
    return any(k == key and _around(content, q, names) & around for q, (k, _) in enumerate(content))


def _around(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> set[str]:
    """The keys of up to ``_PLACE`` content words that are not names either side of content word ``p``."""
    out: set[str] = set()
    for step in (-1, 1):
        q, found = p + step, 0
        while 0 <= q < len(content) and found < _PLACE:
            k = content[q][0]
            if k not in names:
                out.add(k)
                found += 1
            q += step
    return out


def _sides(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> tuple[str | None, str | None]:
    """The keys of the nearest content word that is not a name before and after content word ``p``."""
    left = next((content[q][0] for q in range(p - 1, -1, -1) if content[q][0] not in names), None)
    right = next((content[q][0] for q in range(p + 1, len(content)) if content[q][0] not in names), None)
    return left, right


def _name_run(content: Sequence[tuple[str, int]], p: int, names: dict[str, str]) -> set[str]:
    """The keys of the names next to content word ``p`` without a word between ("Terry Richardson")."""
    run = {content[p][0]}
    for step in (-1, 1):
        q = p + step
        while 0 <= q < len(content) and content[q][0] in names:
            run.add(content[q][0])
            q += step
    return run
