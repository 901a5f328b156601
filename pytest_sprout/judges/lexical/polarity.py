"""The rules of polarity: negation (of a clause, unsaid, a negated clause stated) and antonyms."""

from __future__ import annotations

from functools import cache
from typing import Iterable, Sequence

from .index import Clause, Sentence
from .rules import _PLACE, Alignment, Failure, _short, align, substitutions
from .lexicon import lemma, word_classes
from .text import NEGATIONS, NEGATIVE_WORDS, QUANTIFIERS, STOPWORDS, antonym_keys, stem


def check_antonyms(claim: Sentence, window: Sequence[Sentence], uncovered: Iterable[str]) -> Failure | None:
    """A content word of the claim that the evidence lacks, whose WordNet antonym the evidence has
    in its place and the claim does not ("high water" where the evidence says "low water").

    In its place: a content word next to the antonym (up to ``_PLACE`` content words away) is one
    of the words next to the claim's word. An antonym elsewhere in the evidence ("a cold drink"
    and, two sentences on, "hot weather") says nothing about the claim's word. An antonym the
    evidence negates ("not unusual") says the claim's word, and is left to the negation rule; a
    claim word the claim negates ("do not have strong gravity", "less comfortable", "non-steroidal")
    says the antonym itself: the evidence's "weak gravity" agrees with it, unless the evidence
    clause that holds the antonym negates something too ("no internal torques" against "no
    external torques"; ``_says_no_in``). An antonym the evidence uses as no content word, a hedge
    ("unlikely utilize" against "likely utilize"), counts between the same two content words."""
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
                    if (k == other and not NEGATIONS.intersection(s.words[max(idx - 2, 0) : idx])
                            and _in_place(claim, key, s, q)):
                        return "antonym", f"claim says '{word}' where the evidence says its antonym '{s.words[idx]}'"
        hedges = () if _function_words().keys().isdisjoint(opposite) else frozenset(
            w for o in opposite for w in _function_words().get(o, ()) if w not in claim.words)
        if not hedges or (negated if negated is not None else _negated_in_claim(claim, key)):
            continue
        for s in window:  # an antonym the evidence uses as no content word ("likely")
            found = _antonym_in_place(claim, key, s, hedges) if not hedges.isdisjoint(s.words) else None
            if found is not None:
                return "antonym", f"claim says '{word}' where the evidence says its antonym '{found}'"
    return None


@cache
def _function_words() -> dict[str, tuple[str, ...]]:
    """The words of four letters or more that are no content word (a stop word, a quantifier or a
    modal: "likely", "before"), by their key (computed on first use)."""
    out: dict[str, list[str]] = {}
    for w in sorted(STOPWORDS | QUANTIFIERS.keys()):
        if len(w) > 3 and w.isalpha():
            out.setdefault(stem(w), []).append(w)
    return {k: tuple(v) for k, v in out.items()}


def _antonym_in_place(claim: Sentence, key: str, s: Sentence, hedges: frozenset[str]) -> str | None:
    """A word of ``hedges`` (antonyms of the claim's word ``key`` that are no content word: "likely"
    as a hedge, against the claim's "unlikely") in ``s``, not negated, between the content words
    the claim's word stands between."""
    content = s.content
    q = 0
    for i, w in enumerate(s.words):
        while q < len(content) and content[q][1] < i:
            q += 1
        if w in hedges and (q == len(content) or content[q][1] != i) and not (
                NEGATIONS.intersection(s.words[max(i - 2, 0) : i])) and _between(claim, key, s, q - 1, q):
            return w
    return None


def check_antonym_swapped(claim: Sentence, window: Sequence[Sentence],
                          subs: Iterable[tuple[int, Sentence, int]] | None = None) -> Failure | None:
    """A word of the claim where an evidence sentence has its antonym between the same two content
    words (``substitutions``: "create cold that helps" against "create heat that helps"; "gradually
    decreases as" against "gradually increases as"), either word the antonym of the other
    (WordNet's indirect antonyms go one way: "different" -> "similar"), both negated or neither
    ("not impossible" against "not possible"): one word put in the place of its opposite. A claim
    that holds both words ("the lower ... and the higher ...") or a sentence that holds both says
    both, and a claim that negates one of the two ("not possible" against "impossible") says the
    same: they pass. ``subs``: the substitutions, when the caller has them already."""
    for p, s, q in substitutions(claim, window) if subs is None else subs:
        at, there = claim.content[p][1], s.content[q][1]
        word, other = claim.words[at], s.words[there]
        if _negated_at(claim.words, at) == _negated_at(s.words, there) and (
                s.content[q][0] in antonym_keys(word) or claim.content[p][0] in antonym_keys(other)):
            return "antonym", f"claim says '{word}' where the evidence says its antonym '{other}' ('{_short(s.text)}')"
    return None


# Relation words (no content words of their own) and their opposites: "after a shower" is not
# "before a shower", "above the spot" not "below it".
_OPPOSITE_RELATIONS = {"before": "after", "after": "before", "above": "below", "below": "above"}


def check_opposite_relation(claim: Sentence, window: Sequence[Sentence]) -> Failure | None:
    """A relation word of the claim ("before", "above") where an evidence sentence has its opposite
    between the same two content words ("warm the body before a shower" against "warm the body
    after a shower"), and not the claim's word there too. Word order aside: "A before B" for
    "B after A" has other neighbours, and passes."""
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
    """The keys of the content words just before and just after token ``i`` of ``s``."""
    left = right = None
    for key, idx in s.content:
        if idx < i:
            left = key
        elif idx > i:
            right = key
            break
    return left, right


def _negated_at(words: Sequence[str], idx: int) -> bool:
    """Whether token ``idx`` is negated where it stands: a negation cue or "less" at most two tokens
    before it ("not possible", "less comfortable"), or a "non-" prefix ("non-steroidal")."""
    before = words[max(idx - 2, 0) : idx]
    return not NEGATIONS.isdisjoint(before) or "less" in before or before == ("non", "-")


def _says_no_in(s: Sentence, key: str, antonyms: Sequence[str] = ()) -> bool:
    """Whether a clause of ``s`` that holds ``key`` says "no" in any way (``Clause.says_no``): a "no" in
    another clause of the sentence ("have very weak pulls, | meaning they cannot pull ...") is
    about something else. A negative word whose key is one of ``antonyms`` is the antonym itself,
    not a "no" besides it ("impossible" for a claim's "not possible")."""
    if not (says_no(s) and any(c.says_no and key in c.keys for c in s.clauses())):
        return False
    if not antonyms or any(c.negated and key in c.keys for c in s.clauses()):
        return True
    return _negative_besides(s, antonyms)


def _negative_besides(s: Sentence, antonyms: Sequence[str]) -> bool:
    """Whether ``s`` says "no" with a word other than one whose key is in ``antonyms``: a negative
    word of another key, or a "-free"/"-less"."""
    return _free_or_less(s.words) or any(stem(w) not in antonyms for w in NEGATIVE_WORDS.intersection(s.words))


def _negated_in_claim(claim: Sentence, key: str) -> bool:
    """Whether the claim negates its own word ``key`` where it says it: a negation cue or "less"
    at most three words before it with no content word between ("do not have a strong pull",
    "less comfortable"), or a "non-" prefix ("non-steroidal"). Such a claim states the antonym,
    in other words. (A cue before another content word, "not round, strong", negates that one; but
    one joined to it by "or" shares its cue: "not square or rectangular".)"""
    content = claim.content
    return any(_negated_word(claim.words, content, p) for p, (k, _) in enumerate(content) if k == key)


def _negated_word(words: Sequence[str], content: Sequence[tuple[str, int]], p: int) -> bool:
    """``_negated_in_claim`` for the claim's content word ``p``."""
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
    for p, (k, _) in enumerate(content):
        if k == key and any(c != key and c in around for c, _ in content[max(p - _PLACE, 0) : p + _PLACE + 1]):
            return True
    return False


def _between(claim: Sentence, key: str, s: Sentence, before: int, after: int) -> bool:
    """Whether the content words ``before`` and ``after`` of ``s`` (either may be past an end) are
    the content words that the claim's word ``key`` stands between."""
    theirs = (s.content[before][0] if before >= 0 else None, s.content[after][0] if after < len(s.content) else None)
    content = claim.content
    return any(k == key and theirs == (content[p - 1][0] if p else None, content[p + 1][0] if p + 1 < len(content) else None)
               for p, (k, _) in enumerate(content))


def check_negation(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None,
                   claim_side: bool = False) -> Failure | None:
    """Each clause of the claim must have the polarity of the evidence clause most like it (one
    of them, on a tie); and the claim may not state, without negation, a whole clause that the
    evidence negates ("Pothos is not fussy about humidity and does well" -> "Pothos is fussy
    about humidity and does well"). ``claim_side``: only the claim's own negations count."""
    if not claim.has_negation and not (not claim_side and any(s.has_negation for s in window)):
        return None
    for ours, closest, mutual in pairs if pairs is not None else align(claim, window):
        if ours.negated and ours.denied and closest and not any(c.denied for c in closest) and not (
                _denied_beside(claim, ours, closest, window)) and not _says_antonym(ours, closest, claim.words):
            return "negation", f"claim negates '{ours.word}' ('{ours.cue}') but the evidence does not"
        if claim_side:
            continue
        if not ours.denied and not ours.unread_no and mutual and all(c.denied for c in mutual):
            other = mutual[0]
            return "negation", f"evidence negates '{other.word}' ('{other.cue}') but the claim does not"
    if claim_side:
        return None
    return check_negated_clause_stated(claim, window)


def _denied_beside(claim: Sentence, ours: Clause, closest: Sequence[Clause], window: Sequence[Sentence]) -> bool:
    """Whether the sentence of one of the claim clause's ``closest`` evidence clauses denies, in a
    clause that "without" opens, the word the claim's cue negates: "saccharin passes through the
    body | without being metabolized" says what "saccharin is not metabolized by the body" says,
    the "without" clause holding fewer of the claim's words than the one before it. (Only
    "without": a negation in another clause of the sentence is about something else, "A yellow
    leaf never turns green | once half of it has yellowed".)"""
    key = next((k for k, i in claim.content if claim.words[i] == ours.word), None)
    if key is None:
        return False
    for s in window:
        if s.has_negation:
            clauses = s.clauses()
            if any(c is b for c in clauses for b in closest) and any(
                    c.denied and c.cue == "without" and key in c.keys for c in clauses):
                return True
    return False


def _says_antonym(ours: Clause, clauses: Sequence[Clause], words: Sequence[str]) -> bool:
    """Whether one of ``clauses`` that shares a word with the claim clause ``ours`` holds an antonym
    of the adjective its cue negates, without a negation of its own nor the adjective itself: "the
    pull is too weak to overcome" says what "the pull is not strong enough to overcome" says. Only
    an adjective that is no verb, "not sell" is not "buy", nor "not lower" "higher" (a clause that
    says "lower" and "higher" compares two things); or one in its base form that the claim's
    ``words`` put after "is not" ("the drug is not safe" against "unsafe", "the door was not open"
    against "closed"): there it is an adjective, whatever else it may be."""
    classes = word_classes(ours.word)
    if not classes or "ADJ" not in classes or ("VERB" in classes and not _predicative(words, ours)):
        return False
    own = stem(ours.word)
    others = [c for c in clauses if not c.denied and own not in c.keys and not ours.keys.isdisjoint(c.keys)]
    return bool(others) and any(key in c.keys for key in antonym_keys(ours.word) for c in others)


_BE = frozenset("is are was were be been being am".split())


def _predicative(words: Sequence[str], ours: Clause) -> bool:
    """Whether the claim clause's negated word, in its base form, follows a form of "be" and its cue
    (at most one word between: "was not always open")."""
    word = ours.word
    if lemma(word) != word:
        return False
    return any(w == ours.cue and i and words[i - 1] in _BE and word in words[i + 1 : i + 3] for i, w in enumerate(words))


def says_no(s: Sentence) -> bool:
    """Whether a sentence negates anything: a negation cue, a word of ``NEGATIVE_WORDS``, or a
    hyphenated "-free" or "-less" ("mold-free", "wire-less")."""
    return s.has_negation or not NEGATIVE_WORDS.isdisjoint(s.words) or _free_or_less(s.words)


def _free_or_less(words: Sequence[str]) -> bool:
    """Whether the words hold a hyphenated "-free" or "-less" ("mold-free", "wire-less")."""
    return "-" in words and any(w == "-" and words[i + 1] in ("free", "less") for i, w in enumerate(words[:-1]))


def check_negation_unsaid(claim: Sentence, window: Sequence[Sentence], pairs: Alignment | None = None
                          ) -> Failure | None:
    """A claim clause that negates (a negation cue, not cancelled by a negative verb), whose closest
    evidence clauses do not deny (or that has none, the evidence splitting its words), where no
    evidence sentence about that clause (holding two of its words; every evidence sentence when
    none does and it has closest clauses or the evidence holds two of its words between its
    sentences) says "no" in a clause that holds one of its words (``_says_no_about``; for a clause
    of one word, anywhere in the sentence: ``says_no``); or where one evidence sentence holds all of
    its two or more words and no clause of that sentence that holds any of them says "no" in any way
    (a cue, "zero English", "lacks": ``Clause.says_no``); or where an
    evidence clause holds the words around its negation cue (``Sentence.sites``) and says no "no"
    (``_states``): decisive even when the evidence lacks some of the claim's words. A negation that
    the claim adds to what its evidence says is the most common way to reverse a sentence, and
    evidence that says "no" nowhere near it cannot be its paraphrase (a paraphrase says it with
    "unless", "lacks", "barely" or a cue of its own, in the clause about those words: a "no" in
    another clause of the sentence is about something else)."""
    if not claim.has_negation or _contrast_class(claim.words) or _rather(claim.words):
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


def _rather(words: Sequence[str]) -> bool:
    """Whether the claim's negation sets aside an alternative for what it states: "pants were not a
    single item but rather two separate pieces", "has not shown X, but instead Y". What the claim
    says is the second half; the evidence need not deny the first in so many words."""
    return any(w == "but" and words[i + 1] in ("rather", "instead") and not NEGATIONS.isdisjoint(words[:i])
               for i, w in enumerate(words[:-1]))


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
