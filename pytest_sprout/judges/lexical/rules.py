"""The rules a claim must pass against its evidence."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

from .index import Clause, Sentence, keys_of
from .numbers import CONVERTIBLE_UNITS, FREQUENCY_UNITS, Number, dimension_of
from .subjects import split_clause
from .text import antonym_keys
from .text import (
    _ARTICLES, _LIST_JOINERS, _PUNCT_BREAKS, _RELATIONS, CLAIM_ONLY_FLAGGED, CLAUSE_BREAKS, EVIDENCE_ONLY_FLAGGED,
    MONTHS, NEGATIONS, NEGATIVE_WORDS, QUANTIFIERS, STOPWORDS, STRENGTH,
)

Failure = tuple[str, str]  # (rule, reason)
# The rules in the order the judge applies them (``LexicalJudge._rules``, then the clause rule on
# the evidence it chose); among sentences that each hold the whole claim and fail, the failure of
# the latest rule is reported (``_RULE_RANK``).
RULE_ORDER = ("entity", "number", "quantifier", "negation", "antonym", "entity-swap", "stitched", "clause")
_RULE_RANK = {rule: rank for rank, rule in enumerate(RULE_ORDER)}


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


# How many content words either side of a word make its place (its context) for the antonym rule.
_PLACE = 2


def check_antonyms(claim: Sentence, window: Sequence[Sentence], uncovered: Iterable[str]) -> Failure | None:
    """A content word of the claim that the evidence lacks, whose WordNet antonym the evidence has
    in its place and the claim does not ("high water" where the evidence says "low water").

    In its place: a content word next to the antonym (up to ``_PLACE`` content words away) is one
    of the words next to the claim's word. An antonym elsewhere in the evidence ("a cold drink"
    and, two sentences on, "hot weather") says nothing about the claim's word. An antonym the
    evidence negates ("not unusual") says the claim's word, and is left to the negation rule; a
    claim word the claim negates ("do not have strong gravity", "less comfortable", "non-steroidal")
    says the antonym itself: the evidence's "weak gravity" agrees with it, unless that evidence
    sentence negates something too ("no internal torques" against "no external torques")."""
    for key in uncovered:
        negated = _negated_in_claim(claim, key)
        word = claim.surface(key)
        for other in antonym_keys(word):
            if other in claim.keys:
                continue
            for s in window:
                if other in s.keys and not (negated and not says_no(s)):  # "not strong" is "weak"
                    for q, (k, idx) in enumerate(s.content):
                        if (k == other and not NEGATIONS.intersection(s.words[max(idx - 2, 0) : idx])
                                and _in_place(claim, key, s, q)):
                            return "antonym", f"claim says '{word}' where the evidence says its antonym '{s.words[idx]}'"
    return None


def _negated_in_claim(claim: Sentence, key: str) -> bool:
    """Whether the claim negates its own word ``key`` where it says it: a negation cue or "less"
    at most three words before it with no content word between ("do not have a strong pull",
    "less comfortable"), or a "non-" prefix ("non-steroidal"). Such a claim states the antonym,
    in other words. (A cue before another content word, "not round, strong", negates that one.)"""
    words = claim.words
    previous = -1  # the token index of the content word before
    for k, idx in claim.content:
        if k == key:
            if words[max(idx - 2, 0) : idx] == ("non", "-"):
                return True
            for at in range(idx - 1, max(idx - 4, previous, -1), -1):
                if words[at] in NEGATIONS or words[at] == "less":
                    return True
        previous = idx
    return False


def _in_place(claim: Sentence, key: str, s: Sentence, q: int) -> bool:
    """Whether the content word ``q`` of ``s`` shares a neighbour with the claim's word ``key``."""
    around = {k for k, _ in s.content[max(q - _PLACE, 0) : q + _PLACE + 1]}
    content = claim.content
    for p, (k, _) in enumerate(content):
        if k == key and any(c != key and c in around for c, _ in content[max(p - _PLACE, 0) : p + _PLACE + 1]):
            return True
    return False


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


def align(claim: Sentence, window: Sequence[Sentence]) -> list[tuple[Clause, list[Clause], list[Clause]]]:
    """Each clause of the claim with the evidence clauses closest to it, and those of them to
    which it is also (one of) the closest: (clause, closest, mutual).

    Closeness is the Jaccard similarity of the clauses' keys; ties are kept. A claim clause that
    carries a cue (negation, quantifier) is compared with its closest evidence clauses; one that
    carries none only with mutual ones, so a fronted phrase ("In winter, ...") is not compared
    with the whole negated clause it was cut from.
    """
    ours = claim.clauses()
    theirs = window[0].clauses() if len(window) == 1 else [c for s in window for c in s.clauses()]
    table: list[list[float]] | None = None
    best_theirs: list[float] = []
    out = []
    lone = theirs[0] if len(theirs) == 1 else None  # one evidence clause (the usual case): no list to build
    for k, a in enumerate(ours):
        same = ([lone] if lone.keys == a.keys else []) if lone is not None else [b for b in theirs if b.keys == a.keys]
        if same:  # the same words: as close as clauses get, so the pairing is mutual
            out.append((a, same, same))
            continue
        if table is None:
            # The Jaccard similarity of each pair of clauses' keys (shared / all), written inline.
            table = [[shared / (len(c.keys) + len(b.keys) - shared) if (shared := len(c.keys & b.keys)) else 0.0
                      for b in theirs] for c in ours]
            best_theirs = list(map(max, zip(*table)))  # per evidence clause, its best similarity to a claim clause
        row = table[k]
        best = max(row, default=0.0)
        need = min(2, len(a.keys))  # a clause sharing one word of several is about something else
        closest = [(b, x == top) for b, x, top in zip(theirs, row, best_theirs)
                   if x and x == best and len(a.keys & b.keys) >= need]
        out.append((a, [b for b, _ in closest], [b for b, mutual in closest if mutual]))
    return out


Alignment = list[tuple[Clause, list[Clause], list[Clause]]]


def check_quantifiers(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None,
                      claim_side: bool = False) -> Failure | None:
    """Quantifiers and modals of each claim clause must agree with its closest evidence clause;
    a claim may say less than the evidence ("some" for "most"), not add a universal ("always")
    nor drop a hedge ("may"). Where several evidence clauses are equally close, one is enough.
    ``claim_side``: only what the claim says counts (evidence gathered from several sentences
    holds hedges about other things; a dropped hedge is then no sign)."""
    if not claim.has_quantifier and not (not claim_side and any(s.has_quantifier for s in window)):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        if claim_side and not ours.quants:
            continue
        problems = [_quantifier_conflict(ours.quants, c.quants, claim_side) for c in (closest if ours.quants else mutual)]
        if problems and all(problems):
            return "quantifier", next(filter(None, problems))  # all of them are reasons: the first
    return None


@lru_cache(maxsize=4096)  # a pure function of two small tuples, and few distinct pairs occur
def _quantifier_conflict(
    mine: tuple[tuple[str, str, str], ...], theirs: tuple[tuple[str, str, str], ...], claim_side: bool = False
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
        if not ours:
            for w in other.values():
                if w in EVIDENCE_ONLY_FLAGGED:
                    return f"evidence says '{w}' but the claim does not"
    return None


def check_negation(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None,
                   claim_side: bool = False) -> Failure | None:
    """Each clause of the claim must have the polarity of the evidence clause most like it (one
    of them, on a tie); and the claim may not state, without negation, a whole clause that the
    evidence negates ("Pothos is not fussy about humidity and does well" -> "Pothos is fussy
    about humidity and does well"). ``claim_side``: only the claim's own negations count."""
    if not claim.has_negation and not (not claim_side and any(s.has_negation for s in window)):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        if ours.negated and ours.denied and closest and not any(c.denied for c in closest):
            return "negation", f"claim negates '{ours.word}' ('{ours.cue}') but the evidence does not"
        if claim_side:
            continue
        if not ours.denied and not ours.unread_no and mutual and all(c.denied for c in mutual):
            other = mutual[0]
            return "negation", f"evidence negates '{other.word}' ('{other.cue}') but the claim does not"
    if claim_side:
        return None
    return check_negated_clause_stated(claim, window)


def says_no(s: Sentence) -> bool:
    """Whether a sentence negates anything: a negation cue, a word of ``NEGATIVE_WORDS``, or a
    hyphenated "-free" or "-less" ("mold-free", "wire-less")."""
    if s.has_negation or not NEGATIVE_WORDS.isdisjoint(s.words):
        return True
    words = s.words
    return "-" in words and any(w == "-" and words[i + 1] in ("free", "less") for i, w in enumerate(words[:-1]))


_LITOTES_CUES = frozenset({"not", "never"})


def _negative_prefixed(s: Sentence) -> dict[str, bool]:
    """The sentence's "un-"/"non-" words (and "impossible", "infrequent"), the words a negation
    cue does not negate ("not unusual" is no cue: ``index._negates``), by key: whether "not" or
    "never" is right before it ("not uncomfortable": True) or not ("uncomfortable": False); a key
    written both ways is left out."""
    out: dict[str, bool] = {}
    words = s.words
    for key, idx in s.content:
        w = words[idx]
        if (w.startswith(("un", "non")) and len(w) > 5) or w in ("impossible", "infrequent"):
            negated = bool(idx) and words[idx - 1] in _LITOTES_CUES
            out[key] = negated if out.get(key, negated) == negated else None  # type: ignore[assignment]
    return {k: v for k, v in out.items() if v is not None}


def check_litotes(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """Litotes the other side lacks: "not uncomfortable" where the evidence says "uncomfortable",
    or "unusual" where it says "not unusual" (the negation of such a word is no cue of its clause,
    so the clause rules do not see it)."""
    ours = _negative_prefixed(claim)
    if not ours:
        return None
    theirs: dict[str, bool | None] = {}
    for s in window:
        for k, v in _negative_prefixed(s).items():
            theirs[k] = v if theirs.get(k, v) == v else None
    for k, negated in ours.items():
        other = theirs.get(k)
        if other is not None and other != negated:
            word = claim.surface(k)
            return "negation", (f"claim says 'not {word}' where the evidence says '{word}'" if negated
                                else f"claim says '{word}' where the evidence says 'not {word}'")
    return None


def check_negation_unsaid(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None
                          ) -> Failure | None:
    """A claim clause that negates (a negation cue, not cancelled by a negative verb), whose closest
    evidence clauses do not deny (or that has none, the evidence splitting its words), where no
    evidence sentence about that clause (holding two of its words; every evidence sentence when
    none does and it has closest clauses or the evidence holds two of its words between its
    sentences) says "no" in a clause that holds one of its words (``_says_no_about``; for a clause
    of one word, anywhere in the sentence: ``says_no``); or where one evidence sentence holds all of
    its two or more words and no denied clause of that sentence holds any of them; or where an
    evidence clause holds the words around its negation cue (``Sentence.sites``) and says no "no"
    (``_states``): decisive even when the evidence lacks some of the claim's words. A negation that
    the claim adds to what its evidence says is the most common way to reverse a sentence, and
    evidence that says "no" nowhere near it cannot be its paraphrase (a paraphrase says it with
    "unless", "lacks", "barely" or a cue of its own, in the clause about those words: a "no" in
    another clause of the sentence is about something else)."""
    if not claim.has_negation or _contrast_class(claim.words):
        return None
    clauses = claim.clauses()
    for ours, closest, _ in pairs if pairs is not None else align(claim, window):
        if not (ours.negated and ours.denied) or any(c.denied for c in closest):
            continue
        about = [s for s in window if len(ours.keys & s.keys) >= 2]
        if not about and (closest or sum(any(k in s.keys for s in window) for k in ours.keys) >= 2):
            about = list(window)  # the evidence splits the clause's words among its sentences
        if about and not any(_says_no_about(s, ours.keys) if len(ours.keys) > 1 else says_no(s) for s in about):
            return "negation", (f"claim negates '{ours.word}' ('{ours.cue}') but the evidence does not, and no "
                                "evidence clause about it negates anything")
        if len(ours.keys) >= 2 and any(ours.keys <= s.keys and "unless" not in s.words and not any(
                c.denied and c.keys & ours.keys for c in s.clauses()) for s in about):
            return "negation", (f"claim negates '{ours.word}' ('{ours.cue}') but an evidence sentence says all of "
                                "it without negation")
        stated = next((site for cl, site in claim.sites() if clauses[cl] is ours and _states(window, site)), None)
        if stated is not None:
            shown = ", ".join(claim.surface(k) for k in dict.fromkeys(claim.seq) if k in stated)
            return "negation", (f"claim negates '{ours.word}' ('{ours.cue}') but an evidence clause says its words "
                                f"({shown}) without negation")
    return None


# A sentence that denies the whole of what follows it: "It is not true that X", "It's not the case
# that X" (after a connective: "However, it is not true that X").
_DENIAL = re.compile(r"^(?:[A-Za-z ]{1,20},\s+)?it(?:\s+is|'s|\u2019s)\s+not\s+(?:true|the\s+case|correct)\s+that\s+(\S.*)$",
                     re.IGNORECASE | re.DOTALL)


def denial(text: str) -> str | None:
    """What a sentence of the form "It is not true that X" denies (X, capitalised), else None."""
    m = _DENIAL.match(text.strip())
    if m is None:
        return None
    rest = m.group(1)
    return rest[:1].upper() + rest[1:]


def _states(sentences: Sequence[Sentence], site: frozenset[str]) -> bool:
    """Whether a clause of ``sentences`` holds every key of a negation site (``Sentence.sites``)
    and says no "no" of any kind (``Clause.says_no``; nor does its sentence say "unless", which
    qualifies the clause it is attached to): it states those words without negation."""
    return any(site <= c.keys and not c.denied and not c.says_no
               for s in sentences if "unless" not in s.words for c in s.clauses())


def _says_no_about(s: Sentence, keys: frozenset[str]) -> bool:
    """Whether a clause of ``s`` that holds one of ``keys`` says "no" in any way (``Clause.says_no``),
    or ``s`` has an "unless" (a clause of its own, which qualifies the one it is attached to): a
    "no" in another clause of the sentence is about something else ("Not every party can get in:
    only those over the threshold are allowed to take seats")."""
    if "unless" in s.words:  # a condition of its own clause, on the clause it qualifies
        return True
    return any(c.says_no and not keys.isdisjoint(c.keys) for c in s.clauses())


def _contrast_class(words: Sequence[str]) -> bool:
    """Whether the claim's negation names the other side of a comparison: "than" and, within four
    words, "that", "who" or "which" with a negation within three more ("more colorful than fish
    that don't live on reefs", "than those who do not exercise"). It restates what the comparison
    implies of the claim's subject; the evidence need not say it."""
    for i, w in enumerate(words):
        if w == "than":
            for j in range(i + 1, min(i + 5, len(words))):
                if words[j] in ("that", "who", "which") and NEGATIONS.intersection(words[j + 1 : j + 4]):
                    return True
    return False


def check_negated_clause_stated(claim: Sentence, window: Sequence[Sentence], least: int = 1) -> Failure | None:
    """The claim states, without negation, every word of a clause that the evidence negates: the
    evidence says the opposite of the claim whatever else the claim adds. ``least``: the fewest
    words such an evidence clause must have."""
    ours_negated = [c.keys for c in claim.clauses() if c.negated or c.denied]
    for other in (c for s in window if s.has_negation for c in s.clauses()):
        if other.denied and len(other.keys) >= least and not any(keys & other.keys for keys in ours_negated) and any(
                not c.denied and not c.says_no and other.keys <= c.keys for c in claim.clauses()):
            return "negation", f"evidence negates '{other.word}' ('{other.cue}') but the claim does not"
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
    evidence_keys = window[0].keys if len(window) == 1 else frozenset().union(*(s.keys for s in window))
    evidence_seq = window[0].seq if len(window) == 1 else [k for s in window for k in s.seq]
    mine_in_order = claim.seq if claim.keys <= evidence_keys else tuple(filter(evidence_keys.__contains__, claim.seq))
    if mine_in_order == tuple(filter(claim.keys.__contains__, evidence_seq)):
        return None  # the shared words come in the same order
    # The words that the claim and the evidence each hold exactly once.
    if len(window) == 1:
        theirs = window[0].once()
    else:
        theirs = frozenset().union(*(
            s.once().difference(*(t.keys for t in window if t is not s)) for s in window))
    shared = claim.once() & theirs
    if len(shared) < 3 or len(shared) < 0.6 * len(claim.keys):  # (each shared word is once in the claim)
        return None  # too few shared words for word order to say anything
    mine = [k for k in claim.seq if k in shared]
    other = [(key, si, idx) for si, s in enumerate(window) for key, idx in s.content if key in shared]
    diffs = [i for i, k in enumerate(mine) if k != other[i][0]]
    if not diffs:
        return None
    start, end = diffs[0], diffs[-1] + 1
    span = [k for k, _, _ in other[start:end]]
    # The evidence span is X + middle + Y, the claim's Y + middle + X. The shared words occur once
    # on each side, so the claim's first word fixes where Y starts, and its last where X ends.
    if mine[start] not in span or mine[end - 1] not in span:
        return None
    size = len(span)
    y = size - span.index(mine[start])
    x = span.index(mine[end - 1]) + 1
    if x + y <= size and mine[start:end] == span[size - y :] + span[x : size - y] + span[:x]:
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
    subject, predicate = keys_of(ours[0]), keys_of(ours[1])
    if not subject or len(predicate) < 2:
        return None
    for s in window:
        if subject & s.keys or 5 * len(predicate & s.keys) < 4 * len(predicate):
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


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 3].rstrip() + "..."





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
    best, most = window[0], -1
    for s in window:
        held = len(counted & s.keys)
        if held > most:
            best, most = s, held
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
