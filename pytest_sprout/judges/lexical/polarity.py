"""The rules of polarity: negation (of a clause, unsaid, a negated clause stated) and antonyms. What
each catches is said by its ``registry.Rule``."""

from __future__ import annotations

from functools import cache
from typing import Iterable, Sequence

from .index import Clause, Sentence
from .lexicon import lemma, word_classes
from .rules import _PLACE, Alignment, Failure, _short, align
from .scan import _free_or_less
from .text import NEGATIONS, NEGATIVE_WORDS, QUANTIFIERS, STOPWORDS, antonym_keys, stem


def check_antonyms(claim: Sentence, window: Sequence[Sentence], uncovered: Iterable[str]) -> Failure | None:
    """A claim word of ``uncovered`` whose antonym the evidence has, not negated, in its place (a
    neighbour within ``_PLACE`` content words shared, ``_in_place``); an antonym that is no content
    word (a hedge) between the same two content words. A word the claim negates says its antonym:
    evidence holding that passes, unless its clause negates something else too (``_says_no_in``)."""
    words = claim.first_words()
    for key in uncovered:
        word = words.get(key, key)
        opposite = antonym_keys(word)
        if not opposite:  # no antonym, and no hedge of one: nothing to find
            continue
        negated = None
        for other in opposite:
            if other in claim.keys:
                continue
            for s in window:
                if other not in s.keys:
                    continue
                if negated is None:
                    negated = _negated_in_claim(claim, key)
                if negated and not _says_no_in(s, other, opposite):  # "not strong" is "weak"
                    continue
                for q, (k, idx) in enumerate(s.content):
                    if k == other and not NEGATIONS.intersection(s.words[max(idx - 2, 0) : idx]) and _in_place(
                            claim, key, s, q):
                        return "antonym", f"claim says '{word}' where the evidence says its antonym '{s.words[idx]}'"
        hedges = frozenset() if _function_words().keys().isdisjoint(opposite) else frozenset(
            w for o in opposite for w in _function_words().get(o, ()) if w not in claim.words)
        if not hedges or (negated if negated is not None else _negated_in_claim(claim, key)):
            continue
        places = {_neighbours(claim, i) for k, i in claim.content if k == key}
        for s in window:  # an antonym the evidence uses as no content word ("likely")
            if hedges.isdisjoint(s.words):
                continue
            at = {i for _, i in s.content}
            for i, w in enumerate(s.words):
                if w in hedges and i not in at and not NEGATIONS.intersection(s.words[max(i - 2, 0) : i]) and (
                        _neighbours(s, i) in places):
                    return "antonym", f"claim says '{word}' where the evidence says its antonym '{w}'"
    return None


@cache
def _function_words() -> dict[str, tuple[str, ...]]:
    """The stop words, quantifiers and modals of four letters or more ("likely", "before"), by key."""
    out: dict[str, list[str]] = {}
    for w in sorted(STOPWORDS | QUANTIFIERS.keys()):
        if len(w) > 3 and w.isalpha():
            out.setdefault(stem(w), []).append(w)
    return {k: tuple(v) for k, v in out.items()}


def check_antonym_swapped(claim: Sentence, subs: Iterable[tuple[int, Sentence, int]]) -> Failure | None:
    """A claim word substituted (``subs``, from ``rules.substitutions``) for its antonym, either word the
    other's (WordNet's indirect antonyms go one way), both negated or neither: "not possible" for
    "impossible" says the same."""
    for p, s, q in subs:
        at, there = claim.content[p][1], s.content[q][1]
        word, other = claim.words[at], s.words[there]
        if _negated_at(claim.words, at) == _negated_at(s.words, there) and (
                s.content[q][0] in antonym_keys(word) or claim.content[p][0] in antonym_keys(other)):
            return "antonym", f"claim says '{word}' where the evidence says its antonym '{other}' ('{_short(s.text)}')"
    return None


_OPPOSITE_RELATIONS = {"before": "after", "after": "before", "above": "below", "below": "above"}


def check_opposite_relation(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A relation word of the claim whose opposite an evidence sentence has between the same two content
    words, and not the claim's word there too ("A before B" for "B after A" has other neighbours)."""
    if _OPPOSITE_RELATIONS.keys().isdisjoint(claim.words):
        return None
    for i, w in enumerate(claim.words):
        other = _OPPOSITE_RELATIONS.get(w)
        if other is None:
            continue
        place = _neighbours(claim, i)
        for s in window:
            if other in s.words and place in {_neighbours(s, j) for j, x in enumerate(s.words) if x == other} and (
                    place not in {_neighbours(s, j) for j, x in enumerate(s.words) if x == w}):
                return "antonym", f"claim says '{w}' where the evidence says '{other}' ('{_short(s.text)}')"
    return None


def _neighbours(s: Sentence, i: int) -> tuple[str | None, str | None]:
    """The keys of the content words just before and just after token ``i`` of ``s`` (None: an end)."""
    left = right = None
    for key, idx in s.content:
        if idx < i:
            left = key
        elif idx > i:
            right = key
            break
    return left, right


def _negated_at(words: Sequence[str], idx: int) -> bool:
    """Whether token ``idx`` is negated: a cue or "less" at most two tokens before it, or "non-"."""
    before = words[max(idx - 2, 0) : idx]
    return not NEGATIONS.isdisjoint(before) or "less" in before or before == ("non", "-")


def _says_no_in(s: Sentence, key: str, antonyms: Sequence[str]) -> bool:
    """Whether a clause of ``s`` holding ``key`` says "no" in any way (``Clause.says_no``) besides a
    negative word that is one of ``antonyms`` ("impossible" for the claim's "not possible")."""
    if not (says_no(s) and any(c.says_no and key in c.keys for c in s.clauses())):
        return False
    if any(c.negated and key in c.keys for c in s.clauses()):
        return True
    return ("-" in s.words and _free_or_less(s.words)) or any(
        stem(w) not in antonyms for w in NEGATIVE_WORDS.intersection(s.words))


def _negated_in_claim(claim: Sentence, key: str) -> bool:
    """Whether the claim negates its word ``key`` where it says it (``_negated_word``): it states the
    antonym in other words ("do not have a strong pull", "less comfortable", "non-steroidal")."""
    content = claim.content
    return any(_negated_word(claim.words, content, p) for p, (k, _) in enumerate(content) if k == key)


def _negated_word(words: Sequence[str], content: Sequence[tuple[str, int]], p: int) -> bool:
    """A cue or "less" at most three tokens before the content word ``p``, no content word between,
    or "non-"; or it is joined by "or"/"nor" to a word so negated ("not square or rectangular")."""
    idx = content[p][1]
    previous = content[p - 1][1] if p else -1
    if words[max(idx - 2, 0) : idx] == ("non", "-"):
        return True
    for at in range(idx - 1, max(idx - 4, previous, -1), -1):
        if words[at] in NEGATIONS or words[at] == "less":
            return True
    return previous == idx - 2 and words[idx - 1] in ("or", "nor") and _negated_word(words, content, p - 1)


def _in_place(claim: Sentence, key: str, s: Sentence, q: int) -> bool:
    """Whether the content word ``q`` of ``s`` shares a neighbour with the claim's word ``key``."""
    around = {k for k, _ in s.content[max(q - _PLACE, 0) : q + _PLACE + 1]}
    content = claim.content
    return any(k == key and any(c != key and c in around for c, _ in content[max(p - _PLACE, 0) : p + _PLACE + 1])
               for p, (k, _) in enumerate(content))


def check_negation(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None,
                   claim_side: bool = False) -> Failure | None:
    """Each clause of the claim must have the polarity of its closest evidence clause (one of them),
    and the claim may not state plainly a clause the evidence negates (``check_negated_clause_stated``).
    ``claim_side``: only the claim's own negations count."""
    if not claim.has_negation and not (not claim_side and any(s.has_negation for s in window)):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        if ours.negated and ours.denied and closest and not any(c.denied for c in closest) and not (
                _denied_beside(claim, ours, closest, window)) and not _says_antonym(ours, closest, claim.words):
            return "negation", f"claim negates '{ours.word}' ('{ours.cue}') but the evidence does not"
        if not claim_side and not ours.denied and not ours.unread_no and mutual and all(c.denied for c in mutual):
            return "negation", f"evidence negates '{mutual[0].word}' ('{mutual[0].cue}') but the claim does not"
    return None if claim_side else check_negated_clause_stated(claim, window)


def _denied_beside(claim: Sentence, ours: Clause, closest: Sequence[Clause], window: Sequence[Sentence]) -> bool:
    """Whether the sentence of a ``closest`` clause denies the claim's negated word in a clause that
    "without" opens ("passes through the body | without being metabolized"); only "without": a
    negation in another clause is about something else."""
    key = next((k for k, i in claim.content if claim.words[i] == ours.word), None)
    return any(any(c is b for c in clauses for b in closest) and any(
        c.denied and c.cue == "without" and key in c.keys for c in clauses)
        for clauses in (s.clauses() for s in window if s.has_negation))


_BE = frozenset("is are was were be been being am".split())


def _says_antonym(ours: Clause, clauses: Sequence[Clause], words: Sequence[str]) -> bool:
    """Whether one of ``clauses`` sharing a word with ``ours`` holds, not denied and without it, an
    antonym of the adjective the claim negates ("too weak" for "not strong"). Only an adjective that
    is no verb ("not sell" is not "buy"), or one in its base form after a form of "be" and the cue,
    one word between at most ("was not always open")."""
    word = ours.word
    classes = word_classes(word)
    if not classes or "ADJ" not in classes or ("VERB" in classes and not (lemma(word) == word and any(
            w == ours.cue and i and words[i - 1] in _BE and word in words[i + 1 : i + 3]
            for i, w in enumerate(words)))):
        return False
    own = stem(word)
    others = [c for c in clauses if not c.denied and own not in c.keys and not ours.keys.isdisjoint(c.keys)]
    return bool(others) and any(key in c.keys for key in antonym_keys(word) for c in others)


def says_no(s: Sentence) -> bool:
    """Whether a sentence negates anything: a cue, a word of ``NEGATIVE_WORDS``, or a "-free"/"-less"."""
    return s.has_negation or not NEGATIVE_WORDS.isdisjoint(s.words) or ("-" in s.words and _free_or_less(s.words))


def check_negation_unsaid(claim: Sentence, window: Sequence[Sentence],
                          pairs: Alignment | None = None) -> Failure | None:
    """A claim clause that negates, whose closest evidence clauses do not deny, where (1) no evidence
    sentence about it (holding two of its words; else all, when they split its words) says "no" in a
    clause holding one of them (``_says_no_about``; for a clause of one word, anywhere: ``says_no``)
    nor holds an antonym (``_says_antonym``); or (2) one sentence holds all its two or more words and
    no clause of it holding any says "no"; or (3) an evidence clause holds the words around its cue
    (``Sentence.sites``) and says no "no" (``_states``). Not a negation set aside (``_aside``)."""
    if not claim.has_negation or _aside(claim.words):
        return None
    clauses = claim.clauses()
    for ours, closest, _ in pairs if pairs is not None else align(claim, window):
        if not (ours.negated and ours.denied) or any(c.denied for c in closest):
            continue
        about = [s for s in window if len(ours.keys & s.keys) >= 2]
        if not about and (closest or sum(any(k in s.keys for s in window) for k in ours.keys) >= 2):
            about = list(window)  # the evidence splits the clause's words among its sentences
        if about and not any(_says_no_about(s, ours.keys) if len(ours.keys) > 1 else says_no(s) for s in about) and (
                not any(_says_antonym(ours, s.clauses(), claim.words) for s in about)):
            return "negation", (f"claim negates '{ours.word}' ('{ours.cue}') but the evidence does not, and no "
                                "evidence clause about it negates anything")
        if len(ours.keys) >= 2 and any(ours.keys <= s.keys and "unless" not in s.words and not any(
                (c.denied or c.says_no) and c.keys & ours.keys for c in s.clauses()) for s in about):
            return "negation", (f"claim negates '{ours.word}' ('{ours.cue}') but an evidence sentence says all of "
                                "it without negation")
        stated = next((site for cl, site in claim.sites() if clauses[cl] is ours and _states(window, site)), None)
        if stated is not None:
            shown = ", ".join(claim.surface(k) for k in dict.fromkeys(claim.seq) if k in stated)
            return "negation", (f"claim negates '{ours.word}' ('{ours.cue}') but an evidence clause says its words "
                                f"({shown}) without negation")
    return None


def _states(sentences: Sequence[Sentence], site: frozenset[str]) -> bool:
    """Whether a clause holds every key of a negation site and says no "no" of any kind (nor does its
    sentence say "unless", which qualifies the clause it is attached to)."""
    return any(site <= c.keys and not c.denied and not c.says_no
               for s in sentences if "unless" not in s.words for c in s.clauses())


def _says_no_about(s: Sentence, keys: frozenset[str]) -> bool:
    """Whether ``s`` says "unless", or a clause of it holding one of ``keys`` says "no" in any way."""
    return "unless" in s.words or any(c.says_no and not keys.isdisjoint(c.keys) for c in s.clauses())


def _aside(words: Sequence[str]) -> bool:
    """Whether the claim's negation names the other side of a comparison ("than", then "that", "who"
    or "which" and the cue: "than fish that don't live on reefs"), or sets aside an alternative for
    what it states ("not a single item but rather two pieces"): the evidence need not say it."""
    return any(w == "than" and any(words[j] in ("that", "who", "which") and NEGATIONS.intersection(words[j + 1 : j + 4])
                                   for j in range(i + 1, min(i + 5, len(words))))
               or w == "but" and i + 1 < len(words) and words[i + 1] in ("rather", "instead")
               and not NEGATIONS.isdisjoint(words[:i]) for i, w in enumerate(words))


def check_negated_clause_stated(claim: Sentence, window: Sequence[Sentence], least: int = 1) -> Failure | None:
    """An evidence clause of ``least`` words or more that the evidence negates, and a claim clause
    holding all of it states without negation (sharing no word with a negated claim clause)."""
    ours_negated = [c.keys for c in claim.clauses() if c.negated or c.denied]
    for other in (c for s in window if s.has_negation for c in s.clauses()):
        if other.denied and len(other.keys) >= least and not any(keys & other.keys for keys in ours_negated) and any(
                not c.denied and not c.says_no and other.keys <= c.keys for c in claim.clauses()):
            return "negation", f"evidence negates '{other.word}' ('{other.cue}') but the claim does not"
    return None
