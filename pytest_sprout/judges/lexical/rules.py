"""The rules a claim must pass against its evidence: their order, the clause alignment, and the
rules of numbers, quantifiers, swapped entities and stitched subjects (the rules of polarity are in
``polarity``, those of names in ``names``)."""

from __future__ import annotations

from functools import lru_cache
from itertools import chain
from typing import Iterable, Iterator, Sequence

from .index import Clause, Sentence, keys_of
from .numbers import CONVERTIBLE_UNITS, FREQUENCY_UNITS, Number, dimension_of
from .subjects import split_clause
from .text import (
    _ARTICLES, _LIST_JOINERS, _PUNCT_BREAKS, _RELATIONS, CLAIM_ONLY_FLAGGED, CLAUSE_BREAKS,
    NEGATIONS, QUANTIFIERS, STOPWORDS, STRENGTH, UNITS,
)

Failure = tuple[str, str]  # (rule, reason)

# How many content words either side of a word make its place (its context), for the antonym rule
# (``polarity.check_antonyms``) and the name rule (``names.check_name_in_place``).
_PLACE = 2


def check_numbers_in(claim: Sentence, evidence: Sequence[Number], exact: frozenset | set = frozenset(),
                     values: frozenset | None = None, units: dict[str, frozenset[str]] | None = None) -> Failure | None:
    """Every number of the claim must match one of ``evidence`` by value, range, unit and bound.

    ``exact``: the ``Number.exact`` keys of ``evidence`` (or a subset), a shortcut: a number with
    the same value, range, unit and bound as one of the evidence matches it. ``values``: the
    (lo, hi) of every number of ``evidence`` where none is rounded ("3.5 million") nor a date,
    a shortcut the other way: a plain number whose value is not there matches none. ``units``
    (``_Prepared.number_units`` of ``evidence``, with ``values``): the same shortcut for a number
    in a convertible unit or a frequency, when no number of the evidence is in another unit of its
    dimension (another frequency of its dimension, for a frequency)."""
    if not claim.numbers:
        return None
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
        near = _near(num, evidence)
        if what == "date":
            return "number", (f"date '{num.text}' of the claim is not in the evidence by day, month and year "
                              f"(evidence has '{near.text}')")
        return "number", f"number '{num.text}' of the claim is not in the evidence (evidence has '{near.text}')"
    return None


def _may_convert(num: Number, units: dict[str, frozenset[str]]) -> bool:
    """Whether a number in a convertible unit, or a frequency, may match an evidence number of another
    value: one is in another unit of its dimension ("/time" for frequencies). (A frequency and a
    number match otherwise only as "once a day" and "a day", both of value 1.)"""
    dimension = dimension_of(num.unit)
    same = units.get(dimension) if dimension is not None else None
    if not same:
        return False
    return len(same) > 1 or num.unit not in same


def _near(num: Number, evidence: Sequence[Number]) -> Number:
    """The number of the evidence to name beside a claim number it lacks: the first of its
    dimension that overlaps it, else the first of its dimension ("every 3 weeks" and "a week"
    are near "2 weeks"), else the first that overlaps it, else the first."""
    dimension = _dimension(num.unit)
    lo, hi = num.lo, num.hi
    same = overlapping = None
    for e in evidence:  # one pass for the three searches
        unit = e.unit  # its dimension is dimension: the same unit, or a frequency of it (dimension has no "/")
        if unit == dimension or (unit and unit[0] == "/" and unit[1:] == dimension):
            if e.lo <= hi and lo <= e.hi:
                return e
            if same is None:
                same = e
        elif overlapping is None and e.lo <= hi and lo <= e.hi:
            overlapping = e
    return same or overlapping or evidence[0]


def _dimension(unit: str | None) -> str | None:
    """A frequency's period ("/week" -> "week"); any other unit as it is."""
    return unit[1:] if unit and unit[0] == "/" else unit


Alignment = list[tuple[Clause, list[Clause], list[Clause]]]


def align(claim: Sentence, window: Sequence[Sentence]) -> Alignment:
    """Each clause of the claim with the evidence clauses closest to it, and those of them to
    which it is also (one of) the closest: (clause, closest, mutual).

    Closeness is the Jaccard similarity of the clauses' keys; ties are kept. A claim clause that
    carries a cue (negation, quantifier) is compared with its closest evidence clauses; one that
    carries none only with mutual ones, so a fronted phrase ("In winter, ...") is not compared
    with the whole negated clause it was cut from.
    """
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
        need = min(2, len(keys))  # a clause sharing one word of several is about something else
        closest = [j for j, x in enumerate(row) if x == best and len(keys & theirs[j].keys) >= need] if best else []
        out.append((a, [theirs[j] for j in closest], [theirs[j] for j in closest if tops[j] == best]))
    return out



def check_quantifiers(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None,
                      claim_side: bool = False) -> Failure | None:
    """Quantifiers and modals of each claim clause must agree with its closest evidence clause;
    a claim may say less than the evidence ("some" for "most"), not add a universal ("always")
    nor put a stronger word ("must" for "may"). Where several evidence clauses are equally close,
    one is enough. ``claim_side``: only what the claim says counts (evidence gathered from several
    sentences holds hedges about other things)."""
    if not claim.has_quantifier and not (not claim_side and any(s.has_quantifier for s in window)):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        if claim_side and not ours.quants:
            continue
        problems = [_quantifier_conflict(ours.quants, c.quants, claim_side)
                    for c in (closest if ours.quants else mutual)]
        if problems and all(problems) and not (ours.quants and _said_whole(ours, window, claim_side)):
            return "quantifier", next(filter(None, problems))  # all of them are reasons: the first
    return None


def check_quantifier_whole(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A quantifier or modal of a claim clause (of two words or more) that disagrees with an
    evidence clause holding every word of it, no evidence clause that does agreeing ("The heat
    must heighten the flavors" against "heat can heighten the flavors"): decisive, though the
    evidence lacks words of the claim's other clauses."""
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
    """Whether an evidence clause that holds every word of the claim clause ``ours`` agrees with its
    quantifiers: "The Earth and all planets are round" says "all planets are round", though the
    clause most like it is another sentence's "Planets are round"."""
    return any(ours.keys <= c.keys and _quantifier_conflict(ours.quants, c.quants, claim_side) is None
               for s in window if s.has_quantifier for c in s.clauses())


@lru_cache(maxsize=4096)  # a pure function of two small tuples, and few distinct pairs occur
def _quantifier_conflict(
    mine: tuple[tuple[str, str, str], ...], theirs: tuple[tuple[str, str, str], ...], claim_side: bool = False,
) -> str | None:
    """Why the claim clause's quantifiers and modals disagree with the evidence clause's, or None.
    ``claim_side``: only the classes the claim uses count (a "some" of the evidence is no sign
    against a claim that says "can")."""
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
    """Catch a claim that swaps two entities of the evidence, where word order shows it."""
    if len(claim.content) < 3:
        return None
    found = _transposition(claim, window)
    return found if found is not None else _then_reversal(claim, window)


def _transposition(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Same words, two entities trading places: "cats are more sensitive than dogs" -> "dogs ...
    than cats"; an entity may be several words ("the aloe vera ... than the ZZ plant")."""
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


def _swap_failure(
    claim: Sentence, window: Sequence[Sentence], first: list[tuple[str, int, int]], second: list[tuple[str, int, int]],
    neighbours: bool,
) -> Failure | None:
    """The entity-swap failure for two runs of evidence words that trade places in the claim
    with the words between them unchanged ("cats are more sensitive than dogs" -> "dogs are more
    sensitive than cats"), unless their order says nothing: they are not in one clause (clauses
    may be reordered freely; steps around "then" are checked apart), they are neighbours with no
    relation word ("to", "than") between them, they are items of a list, or one side is in the
    passive voice."""
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
        return None  # the words between changed too: a rephrasing, not a swap
    if neighbours and not _RELATIONS.intersection(between):
        return None  # "the soil is dry" -> "dry soil"
    if any(w in (",", "and", "or", "&") for w in between) and all(
        w in _LIST_JOINERS or not (w in STOPWORDS or w in NEGATIONS or w in QUANTIFIERS) for w in between
    ):
        return None  # "cats, dogs and rabbits"
    if ("by" in claim.words) != any("by" in s.words for s in window):
        return None  # "mice are chased by cats"
    a = " ".join(claim.surface(k) for k, _, _ in second)
    b = " ".join(claim.surface(k) for k, _, _ in first)
    return "entity-swap", f"claim swaps '{a}' and '{b}' relative to the evidence"


def _sides_of_then(sentences: Sequence[Sentence]) -> tuple[set[str], set[str]] | None:
    """Content keys before and after the one 'then' of the text (None unless exactly one)."""
    hits = [(si, i) for si, s in enumerate(sentences) if "then" in s.words for i, w in enumerate(s.words) if w == "then"]
    if len(hits) != 1:
        return None
    at = hits[0]
    before: set[str] = set()
    after: set[str] = set()
    for si, s in enumerate(sentences):
        for key, idx in s.content:
            (before if (si, idx) < at else after).add(key)
    return before - after, after - before


def _then_reversal(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Steps reversed around 'then' ("water the soil, then mist the leaves" -> the other way)."""
    if "then" not in claim.words:
        return None
    mine = _sides_of_then((claim,))
    other = _sides_of_then(window) if mine else None
    if mine is None or other is None:
        return None
    moved_back = [k for k, _ in claim.content if k in mine[0] and k in other[1]]
    moved_forward = [k for k, _ in claim.content if k in mine[1] and k in other[0]]
    if moved_back and moved_forward:
        first, second = claim.surface(moved_back[0]), claim.surface(moved_forward[0])
        return "entity-swap", f"claim puts '{first}' before 'then' and '{second}' after it; the evidence has the reverse"
    return None


def check_stitched(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Evidence of several sentences, one of which says the claim's predicate of another subject:
    at least four fifths of the predicate's words are in it, its subject (``subjects.split_clause``)
    shares no word with the claim, and it holds no word of the claim's subject ("Police patrol
    officers typically wear a vest" does not make "Body armor typically wears a vest" true,
    whatever another sentence says of body armor). A subject that is a pronoun or "the" with one
    noun ("It", "The company") may be the claim's own, referred to: such a sentence is not split,
    so sentences linked that way are never stitched."""
    if len(window) < 2:
        return None
    ours = split_clause(claim.text)
    if ours is None:
        return None
    subject = keys_of(ours[0])
    others = [s for s in window if subject.isdisjoint(s.keys)] if subject else None
    if not others:
        return None
    predicate = keys_of(ours[1])
    if len(predicate) < 2:
        return None
    for s in others:
        if 5 * len(predicate & s.keys) < 4 * len(predicate):
            continue
        theirs = split_clause(s.text)
        if theirs is None:
            continue
        other = keys_of(theirs[0])
        if not other or other & claim.keys:
            continue
        source = next((t for t in window if t is not s and subject & t.keys), None)
        where = (f"from another sentence ('{_short(source.text)}')" if source is not None
                 else "from no sentence of the evidence")
        return "stitched", (f"claim gives '{ours[0]}' the predicate that '{_short(s.text)}' says of '{theirs[0]}'; "
                            f"its subject comes {where}")
    return None


def substitutions(claim: Sentence, window: Sequence[Sentence]) -> Iterator[tuple[int, Sentence, int]]:
    """Each content word ``p`` of the claim and content word ``q`` of an evidence sentence ``s``
    that stand between the same two content words (or the same one and an end of both), the
    claim lacking the evidence word and the sentence the claim's (and, for a word at an end, every
    evidence sentence the claim's: evidence that says both, "A higher setting ... A lower
    setting", may say either): one word put in the place of another ("create cold that" against
    "create heat that"), as (p, s, q)."""
    seq, keys = claim.seq, claim.keys
    if len(seq) < 2 or all(keys <= s.keys for s in window):  # (a sentence that holds every word is skipped below)
        return
    for s in window:
        if keys <= s.keys:  # it holds every word of the claim: none put in another's place
            continue
        for q, (left, key, right) in enumerate(s.derived(_triples)):
            if key in keys or not (left in keys or left is None and right in keys) or not (
                    right in keys or right is None):
                continue  # no word of the claim's on either side (an end, on one side at most)
            for p in _between(seq, left, right):
                ours = seq[p]
                if ours not in s.keys and (left is not None and right is not None or not any(ours in t.keys for t in window)):
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
    theirs = s.seq
    return tuple(zip((None, *theirs[:-1]), theirs, (*theirs[1:], None)))


def check_unit_swapped(claim: Sentence, window: Sequence[Sentence],
                       subs: Iterable[tuple[int, Sentence, int]] | None = None) -> Failure | None:
    """A unit of the claim where an evidence sentence has another unit of the same dimension
    between the same words (``substitutions``): "spend years in detention" against "spend months
    in detention", "larger yards" against "larger feet", with a number or without one. ``subs``:
    the substitutions, when the caller has them already."""
    if not has_unit(claim):
        return None
    for p, s, q in substitutions(claim, window) if subs is None else subs:
        ours, theirs = claim.words[claim.content[p][1]], s.words[s.content[q][1]]
        if ours in _UNIT_WORDS and theirs in _UNIT_WORDS and UNITS[ours] != UNITS[theirs] and (
                _duration(dimension_of(UNITS[ours])) == _duration(dimension_of(UNITS[theirs]))):
            return "number", f"claim says '{ours}' where the evidence says '{theirs}' ('{_short(s.text)}')"
    return None


# Unit words of three letters or more that name a unit of a dimension, "second" aside (an ordinal too).
_UNIT_WORDS = frozenset(w for w, u in UNITS.items() if len(w) > 2 and w != "second" and dimension_of(u) is not None)


def has_unit(claim: Sentence) -> bool:
    """Whether the claim has a word of ``_UNIT_WORDS``."""
    return not _UNIT_WORDS.isdisjoint(claim.words)


def _duration(dimension: str | None) -> str | None:
    """A dimension, with durations in months and in seconds as one."""
    return "time" if dimension == "months" else dimension


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 3].rstrip() + "..."
