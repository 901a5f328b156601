"""The rules of numbers, quantifiers, swapped entities and stitched subjects, the clause alignment
and the substitutions they read (the rules of polarity are in ``polarity``, of names in ``names``).
What each rule catches is said by its ``registry.Rule``."""

from __future__ import annotations

from functools import lru_cache
from itertools import chain
from typing import Iterable, Iterator, Sequence

from .index import Clause, Sentence, keys_of
from .numbers import CONVERTIBLE_UNITS, FREQUENCY_UNITS, Number, dimension_of
from .subjects import split_clause
from .text import (
    _ARTICLES, _LIST_JOINERS, _PUNCT_BREAKS, _RELATIONS, CLAIM_ONLY_FLAGGED, CLAUSE_BREAKS, NEGATIONS, QUANTIFIERS,
    STOPWORDS, STRENGTH, UNITS,
)

Failure = tuple[str, str]  # (rule, reason)
Alignment = list[tuple[Clause, list[Clause], list[Clause]]]

# How many content words either side of a word make its place, for ``polarity.check_antonyms`` and
# ``names.check_name_in_place``.
_PLACE = 2


def check_numbers_in(claim: Sentence, evidence: Sequence[Number], exact: frozenset | set = frozenset(),
                     values: frozenset | None = None, units: dict[str, frozenset[str]] | None = None) -> Failure | None:
    """Every number of the claim must match one of ``evidence`` by value, range, unit and bound.

    Shortcuts, all optional: ``exact``, the ``Number.exact`` keys of ``evidence`` (a number with one
    matches it); ``values``, the (lo, hi) of its numbers where none is rounded nor a date (a plain
    number whose value is not there matches none); ``units`` (from ``_Prepared.number_facts()``), the same
    for a number in a convertible unit or a frequency, when no evidence number is in another unit of
    its dimension."""
    for num in claim.numbers:
        if num.exact in exact:
            continue
        what = "date" if num.unit == "date" else "number"
        if (values is not None and what == "number" and not num.scaled and (num.lo, num.hi) not in values and (
                (num.unit not in CONVERTIBLE_UNITS and num.unit not in FREQUENCY_UNITS)
                or (units is not None and not _may_convert(num, units)))):
            bounded = None  # no number of the evidence has its value: none matches, none is the same amount
        elif any(num.matches(e) for e in evidence):
            continue
        else:
            bounded = None if what == "date" else next((e for e in evidence if e.same_amount(num)), None)
        if bounded is not None:
            return "number", f"claim says '{num.text}' but evidence says '{bounded.text}'"
        if not evidence:
            return "number", f"{what} '{num.text}' of the claim is not in the evidence (it has no numbers)"
        how = " by day, month and year" if what == "date" else ""
        near = _near(num, evidence)
        return "number", f"{what} '{num.text}' of the claim is not in the evidence{how} (evidence has '{near}')"
    return None


def number_keys(s: Sentence) -> frozenset[tuple]:
    """The ``Number.exact`` keys of a sentence's numbers: a number with one of them matches it."""
    return frozenset(n.exact for n in s.numbers)


def _may_convert(num: Number, units: dict[str, frozenset[str]]) -> bool:
    """Whether an evidence number in another unit of the number's dimension ("/time" for a
    frequency) may match it at another value."""
    same = units.get(dimension_of(num.unit) or "", ())
    return bool(same) and (len(same) > 1 or num.unit not in same)


def _near(num: Number, evidence: Sequence[Number]) -> str:
    """The evidence number to name beside a claim number it lacks: the first of its dimension (a
    frequency's period counts: "a week" is near "2 weeks") that overlaps it, else the first of its
    dimension, else the first that overlaps it, else the first."""
    dimension = num.unit[1:] if num.unit and num.unit[0] == "/" else num.unit

    def rank(e: Number) -> int:
        same = e.unit == dimension or bool(e.unit and e.unit[0] == "/" and e.unit[1:] == dimension)
        return (0 if same else 2) + (0 if e.lo <= num.hi and num.lo <= e.hi else 1)
    return min(evidence, key=rank).text


def align(claim: Sentence, window: Sequence[Sentence]) -> Alignment:
    """Each clause of the claim with the evidence clauses closest to it by the Jaccard similarity of
    their keys (ties kept, sharing two words at least, or its one), and those of them to which it is
    also closest: (clause, closest, mutual). A claim clause without a cue is compared only with
    mutual ones, so a fronted phrase ("In winter, ...") is not read against the clause it was cut from."""
    ours = claim.clauses()
    theirs = window[0].clauses() if len(window) == 1 else [c for s in window for c in s.clauses()]
    out: Alignment = []
    table: list[list[float]] | None = None
    for k, a in enumerate(ours):
        keys = a.keys
        same = [b for b in theirs if b.keys == keys]
        if same:  # the same words: as close as clauses get, so the pairing is mutual
            out.append((a, same, same))
            continue
        if table is None:  # the Jaccard similarity of each pair of clauses' keys (shared / all)
            table = [[0.0 if ck.isdisjoint(b.keys) else (shared := len(ck & b.keys)) / (len(ck) + len(b.keys) - shared)
                      for b in theirs] for ck in [c.keys for c in ours]]
            tops = list(map(max, zip(*table))) if len(table) > 1 else table[0]  # each evidence clause's best
        row = table[k]
        best = max(row, default=0.0)
        need = min(2, len(keys))
        closest = [j for j, x in enumerate(row) if x == best and len(keys & theirs[j].keys) >= need] if best else []
        out.append((a, [theirs[j] for j in closest], [theirs[j] for j in closest if tops[j] == best]))
    return out


def check_quantifiers(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None,
                      claim_side: bool = False) -> Failure | None:
    """The quantifiers and modals of each claim clause must agree with one of its closest evidence
    clauses: it may say less ("some" for "most", nothing for "always"), not add a universal nor a
    stronger word. ``claim_side``: only the classes the claim uses count (gathered evidence hedges
    other things)."""
    if not claim.has_quantifier:  # a claim clause without quantifiers says less than any evidence
        return None
    for ours, closest, _ in pairs if pairs is not None else align(claim, window):
        if not ours.quants:
            continue
        problems = [_quantifier_conflict(ours.quants, c.quants, claim_side) for c in closest]
        if problems and all(problems) and not _said_whole(ours, window, claim_side):
            return "quantifier", next(filter(None, problems))
    return None


def check_quantifier_whole(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A quantifier or modal of a claim clause of two words or more against an evidence clause that
    holds all of it ("must heighten" against "can heighten"), no such clause agreeing."""
    for ours in claim.clauses():
        if not ours.quants or len(ours.keys) < 2:
            continue
        for s in window:
            for c in s.clauses() if ours.keys <= s.keys else ():
                problem = _quantifier_conflict(ours.quants, c.quants) if ours.keys <= c.keys else None
                if problem and not _said_whole(ours, window, False):
                    return "quantifier", problem
    return None


def _said_whole(ours: Clause, window: Sequence[Sentence], claim_side: bool) -> bool:
    """Whether an evidence clause holding every word of ``ours`` agrees with its quantifiers ("The
    Earth and all planets are round" says "all planets are round")."""
    return any(ours.keys <= c.keys and _quantifier_conflict(ours.quants, c.quants, claim_side) is None
               for s in window if s.has_quantifier for c in s.clauses())


@lru_cache(maxsize=4096)  # a pure function of two small tuples, and few distinct pairs occur
def _quantifier_conflict(mine: tuple[tuple[str, str, str], ...], theirs: tuple[tuple[str, str, str], ...],
                         claim_side: bool = False) -> str | None:
    """Why the claim clause's quantifiers and modals disagree with the evidence clause's, or None.
    ``claim_side``: only the classes the claim uses count."""
    if mine == theirs:
        return None
    for cls in ("quantity", "frequency", "degree", "modality"):
        ours = {family: w for c, family, w in reversed(mine) if c == cls}
        if claim_side and not ours:
            continue
        other = {family: w for c, family, w in reversed(theirs) if c == cls}
        for family, w in ours.items():
            if family in other or any(STRENGTH.get(f, 0) >= STRENGTH.get(family, 9) for f in other):
                continue
            if other:
                return f"claim says '{w}' but evidence says '{next(iter(other.values()))}'"
            if w in CLAIM_ONLY_FLAGGED:
                return f"claim says '{w}' but the evidence does not"
    return None


def check_swap(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Two entities of the evidence that trade places in the claim, where word order shows it."""
    return None if len(claim.content) < 3 else _transposition(claim, window) or _then_reversal(claim, window)


def _transposition(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """The words the claim and the evidence each hold once, in the same order but for two runs that
    trade places ("the aloe vera ... than the ZZ plant" -> the reverse)."""
    mine = claim.once()
    shared: set[str] | frozenset[str]
    if len(window) == 1:
        s = window[0]
        if (claim.seq if claim.keys <= s.keys else tuple(filter(s.keys.__contains__, claim.seq))) == tuple(
                filter(claim.keys.__contains__, s.seq)):
            return None  # the shared words come in the same order
        shared = mine & s.once()
    else:  # the claim's words that one sentence holds, once, and no other
        seen: set[str] = set()
        twice: set[str] = set()
        once: set[str] = set()
        for s in window:
            part = mine & s.keys
            twice |= seen & part
            seen |= part
            once |= part & s.once()
        shared = once - twice
    if len(shared) < 3 or len(shared) < 0.6 * len(claim.keys):
        return None  # too few shared words for word order to say anything
    ours = list(filter(shared.__contains__, claim.seq))
    theirs = list(filter(shared.__contains__, window[0].seq if len(window) == 1 else chain.from_iterable(
        s.seq for s in window)))
    diffs = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    if not diffs:
        return None
    start, end = diffs[0], diffs[-1] + 1
    span = theirs[start:end]
    # The evidence span is X + middle + Y, the claim's Y + middle + X. The shared words occur once
    # on each side, so the claim's first word fixes where Y starts, and its last where X ends.
    if ours[start] not in span or ours[end - 1] not in span:
        return None
    size = len(span)
    y = size - span.index(ours[start])
    x = span.index(ours[end - 1]) + 1
    if x + y <= size and ours[start:end] == span[size - y :] + span[x : size - y] + span[:x]:
        other = [(key, si, idx) for si, s in enumerate(window) for key, idx in s.content if key in shared]
        return _swap_failure(claim, window, other[start : start + x], other[end - y : end], x + y == size)
    return None


def _swap_failure(claim: Sentence, window: Sequence[Sentence], first: list[tuple[str, int, int]],
                  second: list[tuple[str, int, int]], neighbours: bool) -> Failure | None:
    """The failure for two runs of evidence words (key, sentence, token) that trade places, unless
    their order says nothing: they are in different clauses (or either side of "then"), the words
    between them changed, they are neighbours with no relation word ("to", "than") between, items
    of a list, or one side is in the passive voice."""
    sentence = first[0][1]
    if any(si != sentence for _, si, _ in first + second):
        return None
    words = window[sentence].words
    if any(w in _PUNCT_BREAKS or w in CLAUSE_BREAKS or w == "then" for w in words[first[0][2] : second[-1][2]]):
        return None
    between = words[first[-1][2] + 1 : second[0][2]]
    positions = dict(claim.content)
    theirs_first, ours_second = positions[first[0][0]], positions[second[-1][0]]
    if [w for w in claim.words[ours_second + 1 : theirs_first] if w not in _ARTICLES] != [
            w for w in between if w not in _ARTICLES]:
        return None  # a rephrasing, not a swap
    if neighbours and not _RELATIONS.intersection(between):
        return None  # "the soil is dry" -> "dry soil"
    if any(w in (",", "and", "or", "&") for w in between) and all(
            w in _LIST_JOINERS or not (w in STOPWORDS or w in NEGATIONS or w in QUANTIFIERS) for w in between):
        return None  # "cats, dogs and rabbits"
    if ("by" in claim.words) != any("by" in s.words for s in window):
        return None  # "mice are chased by cats"
    a, b = (" ".join(claim.surface(k) for k, _, _ in run) for run in (second, first))
    return "entity-swap", f"claim swaps '{a}' and '{b}' relative to the evidence"


def _sides_of_then(sentences: Sequence[Sentence]) -> tuple[set[str], set[str]] | None:
    """Content keys only before and only after the one "then" of the text (None unless exactly one)."""
    hits = [(si, i) for si, s in enumerate(sentences) if "then" in s.words
            for i, w in enumerate(s.words) if w == "then"]
    if len(hits) != 1:
        return None
    before: set[str] = set()
    after: set[str] = set()
    for si, s in enumerate(sentences):
        for key, idx in s.content:
            (before if (si, idx) < hits[0] else after).add(key)
    return before - after, after - before


def _then_reversal(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Steps reversed around "then" ("water the soil, then mist the leaves" -> the other way)."""
    mine = _sides_of_then((claim,)) if "then" in claim.words else None
    other = _sides_of_then(window) if mine else None
    if mine is None or other is None:
        return None
    back = [k for k, _ in claim.content if k in mine[0] and k in other[1]]
    forward = [k for k, _ in claim.content if k in mine[1] and k in other[0]]
    if back and forward:
        first, second = claim.surface(back[0]), claim.surface(forward[0])
        return "entity-swap", (f"claim puts '{first}' before 'then' and '{second}' after it; "
                               "the evidence has the reverse")
    return None


def check_stitched(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A sentence of the window that holds four fifths of the claim's predicate and none of its
    subject, with a subject of its own sharing no word with the claim (``subjects.split_clause``;
    a pronoun or "the" and one noun may be the claim's subject referred to: not split)."""
    ours = split_clause(claim.text) if len(window) > 1 else None
    if ours is None:
        return None
    subject = keys_of(ours[0])
    others = [s for s in window if subject.isdisjoint(s.keys) and (other := s.derived(_subject)[0]) and (
        other.isdisjoint(claim.keys))] if subject else []
    predicate = keys_of(ours[1]) if others else frozenset()
    for s in others if len(predicate) >= 2 else ():
        if 5 * len(predicate & s.keys) >= 4 * len(predicate):
            source = next((t for t in window if t is not s and subject & t.keys), None)
            where = "no sentence of the evidence" if source is None else f"another sentence ('{_short(source.text)}')"
            return "stitched", (f"claim gives '{ours[0]}' the predicate that '{_short(s.text)}' says of "
                                f"'{s.derived(_subject)[1]}'; its subject comes from {where}")
    return None


def _subject(s: Sentence) -> tuple[frozenset[str], str]:
    """The keys and the text of the sentence's subject (``subjects.split_clause``; none if not split)."""
    split = split_clause(s.text)
    return (keys_of(split[0]), split[0]) if split is not None else (frozenset(), "")


def substitutions(claim: Sentence, window: Sequence[Sentence]) -> Iterator[tuple[int, Sentence, int]]:
    """Each content word ``p`` of the claim and ``q`` of an evidence sentence ``s`` that stand between
    the same two content words (or one and an end), the claim lacking the evidence word and ``s`` the
    claim's (every sentence, for a word at an end: "A higher setting ... A lower setting" may say
    either): one word put in the place of another ("create cold that" for "create heat that")."""
    seq, keys = claim.seq, claim.keys
    if len(seq) < 2 or all(keys <= s.keys for s in window):
        return
    for s in window:
        for q, (left, key, right) in enumerate(s.derived(_triples)):
            if key in keys or not (left in keys or left is None and right in keys) or not (
                    right in keys or right is None):
                continue  # not between two words of the claim (or one and an end)
            for p in _between(seq, left, right):
                ours = seq[p]
                if ours not in s.keys and (left is not None and right is not None or not any(
                        ours in t.keys for t in window)):
                    yield p, s, q


def _between(seq: tuple[str, ...], left: str | None, right: str | None) -> list[int]:
    """The positions of ``seq`` between ``left`` and ``right`` (None: an end; not both)."""
    if left is None:
        return [0] if seq[1] == right else []
    out = []
    i, n = -1, len(seq)
    for _ in range(seq.count(left)):
        i = seq.index(left, i + 1)
        if i + 1 < n and (seq[i + 2] if i + 2 < n else None) == right:
            out.append(i + 1)
    return out


def _triples(s: Sentence) -> tuple[tuple[str | None, str, str | None], ...]:
    """Each content key of ``s`` with the keys either side of it (None at an end)."""
    seq = s.seq
    return tuple(zip((None, *seq[:-1]), seq, (*seq[1:], None)))


# Unit words of three letters or more that name a unit of a dimension ("second" aside: an ordinal
# too) -> the dimension, durations in months and in seconds as one.
_UNIT_WORDS = {w: "time" if d == "months" else d for w, u in UNITS.items()
               if len(w) > 2 and w != "second" and (d := dimension_of(u)) is not None}


def has_unit(claim: Sentence) -> bool:
    """Whether the claim has a unit word (``_UNIT_WORDS``)."""
    return not _UNIT_WORDS.keys().isdisjoint(claim.words)


def check_unit_swapped(claim: Sentence, subs: Iterable[tuple[int, Sentence, int]]) -> Failure | None:
    """A unit word of the claim substituted (``subs``, from ``substitutions``) for another unit of its
    dimension, months and seconds being one ("larger yards" for "larger feet")."""
    for p, s, q in subs:
        ours, theirs = claim.words[claim.content[p][1]], s.words[s.content[q][1]]
        if ours in _UNIT_WORDS and theirs in _UNIT_WORDS and UNITS[ours] != UNITS[theirs] and (
                _UNIT_WORDS[ours] == _UNIT_WORDS[theirs]):
            return "number", f"claim says '{ours}' where the evidence says '{theirs}' ('{_short(s.text)}')"
    return None


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 3].rstrip() + "..."
