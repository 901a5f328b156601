"""Analysed sentences and the index of a passage's sentences by word."""

from __future__ import annotations

from itertools import count
from typing import NamedTuple, Sequence
from weakref import WeakValueDictionary, ref

from .dates import _MONTH_TOKENS, ORDINAL_SUFFIXES, Date, find_dates, has_iso_date, month_name
from .numbers import find_numbers

from .text import (
    _ALL_IDIOM_NEXT, _ALL_IDIOM_PREV, _BARE_PERIOD_AFTER, _COMPARATIVES, _EVERY_NTH, _FIRST, _LEXICON, _NAME,
    _NEGATION_EXEMPT_NEXT, _PERIOD_ADVERBS, _PERIOD_WORDS_BEFORE, _SENTENCE_OPENERS, _TRUTH_WORDS, _UNIT_TOKENS, _VAGUE,
    AND, BREAK, CONTENT, NEG, NEGATIVE_WORDS, NUMERAL, OTHER, PERIOD, QUANT, QUANTIFIERS, STOP, _TOKEN, _classify, _pieces_of, stem,
    words_of,
)

# Words before "may" that make it the month ("in May", "since May"), not the modal.
_MONTH_BEFORE = frozenset({"in", "of", "since", "until", "till", "by", "from", "early", "late", "mid", "during",
                           "last", "next", "this"})


# Words that open a clause of their own when a subject follows them ("before he won", "and that
# the fans may support him"); "and" also ends a clause once a cue has been followed by content.
_OPENERS = frozenset({"before", "after", "as", "once", "or", "whilst", "then"})
_SUBJECTS = frozenset({"he", "she", "it", "they", "we", "i", "you", "there", "that"})

# Verbs that negate what follows them, by the word they take: "failed to get the balance right"
# says what "did not get the balance right" says ("to"); "lacks a nucleus" what "has no nucleus"
# says (any word but "of": "a lack of sleep" names a cause); "prevents the lens from moving" what
# "the lens does not move" says ("from", within a few words). Each is a negation cue of its clause
# as well as a content word (``_negative_verb``).
_NEGATIVE_VERBS: dict[str, str] = {
    **dict.fromkeys(("fail", "fails", "failed", "failing", "refuse", "refuses", "refused", "refusing", "unable"), "to"),
    **dict.fromkeys(("lack", "lacks", "lacked", "lacking"), ""),
    **dict.fromkeys(("prevent", "prevents", "prevented", "preventing"), "from"),
}


class Clause(NamedTuple):
    """A clause with content: its keys, its polarity, its first negation cue, a word to name it,
    its quantifiers and modals as (class, family, word); ``denied``, its polarity with the
    negative verbs counted too ("failed to get the balance right" denies what "got the balance
    right" says); ``unread_no``, whether it has a negative verb in a use not read as a cue ("wheels
    that prevent tripping": it may say "no" all the same); ``says_no``, whether it says "no" in
    any way: a negation cue, a word of ``NEGATIVE_WORDS`` ("unless", "rather") or a "-free"/"-less"."""

    keys: frozenset[str]
    negated: bool
    cue: str
    word: str
    quants: tuple[tuple[str, str, str], ...]
    denied: bool
    unread_no: bool
    says_no: bool


_tuple_new = tuple.__new__  # _tuple_new(Clause, fields) is Clause(*fields) without a NamedTuple's Python-level __new__


class Sentence:
    """What the rules need to know about one sentence, computed once.

    ``words`` are its tokens, ``numbers`` its numbers; ``content`` lists (stem, token index) of
    the content tokens in order, ``keys`` their set; ``has_negation`` and ``has_quantifier`` say
    whether it has such cues at all (a cheap test before the clause rules); ``clauses()`` gives
    each clause's keys, polarity and quantifiers. A clause runs to punctuation, a dash or a
    conjunction such as "but", "which", "when"; "and" ends one once a cue has been followed by
    content ("do not overwater and keep it warm"); "and", "or", "before", "after", "as" end one
    when a subject pronoun or "that" follows ("before he won", "and that the fans may"); a clause
    without content words hands its cues to the next one.
    """

    __slots__ = ("text", "words", "content", "seq", "keys", "numbers", "has_date", "has_negation", "has_quantifier", "has_cue",
                 "_starts", "_cues", "_clauses", "_sites", "_names", "_once", "_first",
                 "__weakref__")

    def __init__(self, text: str, words: list[str] | None = None) -> None:
        self.text = text  # ``words``: ``words_of(text)``, when the caller has them already
        if words is None:
            words = words_of(text)
        dates = find_dates(words) if not _MONTH_TOKENS.isdisjoint(words) or (
            "-" in words and has_iso_date(text)) else ()
        content, starts, cues, numerals, periods, has_negation, has_quantifier = _scan(
            words, _date_tokens(words, dates) if dates else {})
        # Tuples, not lists: tuples of strings and ints drop out of the garbage collector's walks.
        self.words = tuple(words)
        self.numbers = tuple(find_numbers(words, numerals, periods, dates)) if numerals or periods or dates else ()
        self.has_date = bool(dates) and any(n.unit == "date" for n in self.numbers)  # only a date has that unit
        self.content = tuple(content)
        self.seq = seq = tuple(map(_FIRST, content))
        self.keys = frozenset(seq)
        self._starts = tuple(starts)
        self._cues = tuple(cues)
        self._clauses: tuple[Clause, ...] | None = None
        self._sites: tuple[tuple[int, frozenset[str]], ...] | None = None
        self._names: dict[str, str] | None = None
        self._once: frozenset[str] | None = None
        self._first: dict[str, str] | None = None
        self.has_negation = has_negation
        self.has_quantifier = has_quantifier
        self.has_cue = has_negation or has_quantifier

    def clauses(self) -> tuple[Clause, ...]:
        """The clauses that have content words (computed on first use).

        A clause is negated when it holds an odd number of negation cues ("never use a pot
        without drainage" is positive); "nor" counts only when it is a clause's sole cue.
        """
        if self._clauses is None:
            negs: dict[int, list[tuple[str, int]]] = {}
            quants: dict[int, list[tuple[str, str, str]]] = {}
            for kind, w, cl, at in self._cues:
                if kind == NEG:
                    negs.setdefault(cl, []).append((w, at))
                else:
                    quants.setdefault(cl, []).append((*QUANTIFIERS[w], w))
            out = []
            words, content, seq = self.words, self.content, self.seq
            starts = self._starts
            last = len(starts) - 1
            for cl, (start, end) in enumerate(zip(starts, starts[1:] + (len(content),))):
                keys = self.keys if len(starts) == 1 else frozenset(seq[start:end])  # one clause: the sentence's keys
                listed = quants.get(cl)
                q = tuple(listed) if listed else ()
                found = negs.get(cl) if negs else None
                # its tokens: from the one after the previous clause's last content word to its own last
                # (to the sentence's end, for the last clause)
                span = words[content[start - 1][1] + 1 if start else 0 : len(words) if cl == last else content[end - 1][1] + 1]
                negative = not _NEGATIVE_VERBS.keys().isdisjoint(span)  # in any use
                says = bool(found) or not NEGATIVE_WORDS.isdisjoint(span) or ("-" in span and _free_or_less(span))
                if not found:
                    out.append(_tuple_new(Clause, (keys, False, "", words[content[start][1]], q, False, negative, says)))
                    continue
                plain = [n for n in found if n[0] not in _NEGATIVE_VERBS]
                counted = [n for n in plain if n[0] != "nor"] or plain
                verbs = len(found) - len(plain)
                negative = negative and sum(w in _NEGATIVE_VERBS for w in span) > verbs  # one not read as a cue
                cue, at = (plain or found)[0]
                word = words[content[start][1]]  # the first word after the cue, else the clause's first
                for _, i in content[start:end]:
                    if i > at:
                        word = words[i]
                        break
                out.append(_tuple_new(Clause, (keys, len(counted) % 2 == 1, cue, word, q, (len(counted) + verbs) % 2 == 1,
                                               negative, True)))
            self._clauses = tuple(out)
        return self._clauses

    def sites(self) -> tuple[tuple[int, frozenset[str]], ...]:
        """Where the sentence negates, word by word: for each negation cue of a clause it denies
        (``Clause.denied``), that clause's position and three keys: of the content word just before
        the cue in its clause, if there is one, and of the first content words after it ("workers |
        do not | have a negligible impact on the wages": worker, negligible, impact). A clause of the
        other side that holds all three says the same words, and its polarity is what it says of them."""
        if self._sites is None:
            out = []
            clauses = self.clauses()
            starts, content = self._starts, self.content
            for kind, _, cl, at in self._cues:
                if kind != NEG or cl >= len(clauses) or not clauses[cl].denied:
                    continue
                start, end = starts[cl], starts[cl + 1] if cl + 1 < len(starts) else len(content)
                before = [k for k, i in content[start:end] if i < at]
                after = [k for k, i in content[start:end] if i > at][: 3 - len(before[-1:])]
                keys = frozenset(before[-1:] + after)
                if len(keys) >= 3 and after:
                    out.append((cl, keys))
            self._sites = tuple(out)
        return self._sites

    def names(self) -> dict[str, str]:
        """Content keys written with a capital inside the sentence ("Boston fern"), to the word."""
        if self._names is None:
            self._names = {}
            rest = self.text[1:]
            if rest.islower() or rest == rest.lower():  # no capital after the first character: no names
                return self._names
            text = self.text
            for m in _NAME.finditer(text):
                j = m.start() - 1  # the last character before the word that is not a space
                while j >= 0 and text[j].isspace():
                    j -= 1
                if j < 0 or text[j] in _SENTENCE_OPENERS:  # a capital that starts a sentence
                    continue
                word = m.group().lower()
                kind, key = _LEXICON.get(word) or _classify(word)
                if kind == CONTENT and key in self.keys:
                    self._names.setdefault(key, m.group())
        return self._names

    def once(self) -> frozenset[str]:
        """The content keys the sentence holds exactly once."""
        if self._once is None:
            if len(self.seq) == len(self.keys):
                self._once = self.keys
            else:
                seen: set[str] = set()
                twice: set[str] = set()
                for key in self.seq:
                    (twice if key in seen else seen).add(key)
                self._once = frozenset(seen - twice)
        return self._once

    def first_words(self) -> dict[str, str]:
        """Each content key, in order, to the first word that has it (computed on first use)."""
        if self._first is None:
            first: dict[str, str] = {}
            words = self.words
            for key, idx in self.content:
                if key not in first:
                    first[key] = words[idx]
            self._first = first
        return self._first

    def surface(self, key: str) -> str:
        """The word as written for a content key."""
        for k, idx in self.content:
            if k == key:
                return self.words[idx]
        return key

    def allkeys(self) -> frozenset[str]:
        """Every word and number of the sentence: what a claim without content words is matched on."""
        return frozenset(w for w in self.words if w[0].isalpha()) | {n.key for n in self.numbers}



def _date_tokens(words: list[str], dates: Sequence[tuple[int, int, int | None, Date]]) -> dict[int, str]:
    """The tokens of a sentence's dates: token index -> "" (the date rule's, not content), or the
    month's key for the month of an ISO date ("2011-03-03" says "March" too)."""
    in_date: dict[int, str] = {}
    for start, end, iso_month, date in dates:
        for k in range(start, end):
            if words[k] not in _MONTH_TOKENS:
                in_date[k] = ""
        if iso_month is not None:
            in_date[iso_month] = (_LEXICON.get(month_name(date.month)) or _classify(month_name(date.month)))[1]
    return in_date


def _scan(words: list[str], in_date: dict[int, str]) -> tuple[
        list[tuple[str, int]], list[int], list[tuple[int, str, int, int]], list[int], list[int], bool, bool]:
    """One pass over a sentence's tokens, the lexical judge's hot loop: its content (key, token index),
    where each clause's content begins, its cues (kind, word, clause, token index), its numerals and
    amount-stating period words, whether it has a negation, a quantifier (``in_date``: ``_date_tokens``)."""
    numerals: list[int] = []
    periods: list[int] = []
    content: list[tuple[str, int]] = []
    starts: list[int] = []  # where each clause's content begins in ``content``; clause k is starts[k]
    cues: list[tuple[int, str, int, int]] = []  # (kind, word, clause, token index)
    clause = 0
    filled = False  # the clause has content words
    cue_seen = cue_open = False  # "and" ends a clause once a cue has been followed by content
    has_negation = has_quantifier = after_number = False  # after a number, units are the number rule's
    special = dated = bool(in_date)  # after a number, or in a sentence with dates: the two checks below
    add = content.append
    carried: list[tuple[str, int, int]] = []  # negations that deny the next clause too: (cue, clause, index)
    for idx, w, (kind, key) in zip(count(), words, map(_LEXICON.__getitem__, words)):  # _LEXICON classifies a new word
        if special:
            if after_number:
                if w in _UNIT_TOKENS or w in ORDINAL_SUFFIXES:  # "10 cm", "3rd"
                    continue
                after_number = False
                special = dated
            if dated and idx in in_date:
                month_key = in_date[idx]
                if month_key:  # "2011-03-03" says "March" too
                    filled = _opened(starts, content, filled)
                    add((month_key, idx))
                continue
        if w in _EVERY_NTH and _ordinal_of_frequency(words, idx):
            continue  # "every second week": the ordinal of a frequency is the number rule's, not content
        if not kind:  # CONTENT (0), the commonest kind
            if cue_seen and not filled and w in _TRUTH_WORDS and words[idx + 1 : idx + 2] == ["that"]:
                continue  # "it is not true that X": the negation is X's
            if not filled:  # a clause ends only once it has content, so clause k starts starts[k]
                starts.append(len(content))
                filled = True
            if w in _NEGATIVE_VERBS and _negative_verb(words, idx, w):
                cues.append((NEG, w, clause, idx))  # "failed to get": a negation cue, and content
                has_negation = cue_seen = True
            add((key, idx))
            cue_open = cue_seen  # (cue_open implies cue_seen)
        elif kind in (STOP, OTHER):
            if w in _OPENERS and filled and _subject_follows(words, idx):
                clause += 1  # "... before he won the race": a clause of its own, with its own polarity
                filled = cue_seen = cue_open = False
            continue
        elif kind == NUMERAL:
            numerals.append(idx)
            after_number = special = True
        elif kind == PERIOD:  # content, and maybe an amount: "every week", "weekly"
            filled = _opened(starts, content, filled)
            content.append((key, idx))
            if _states_an_amount(words, idx, w):
                periods.append(idx)
        elif kind == BREAK or (kind == AND and (cue_open or _subject_follows(words, idx))):
            if filled:  # a clause without content words hands its cues to the next one
                clause += 1
                filled = cue_seen = cue_open = False
        elif kind == NEG:
            if w == "without" and filled:  # "without X" negates X, not the clause before it
                clause += 1
                filled = cue_seen = cue_open = False
            if w == "no" and words[idx + 1 : idx + 2] and words[idx + 1][:1].isdecimal():
                continue  # "the no 1 jersey", "No. 10": an abbreviated "number"
            if _negates(words, idx):
                cues.append((NEG, w, clause, idx))
                has_negation = True
                cue_seen = True
                if _denies_what_follows(words, idx, filled):
                    carried.append((w, clause, idx))
            if w in QUANTIFIERS:
                cues.append((QUANT, w, clause, idx))
                has_quantifier = True
        elif kind == QUANT:
            prev = words[idx - 1] if idx else ""
            if w == "may" and _may_is_the_month(words, idx, prev):
                filled = _opened(starts, content, filled)
                content.append((stem(w), idx))  # the month: "May 2021", "3 May"
            elif not _quantifies_nothing(words, idx, w, prev):
                cues.append((QUANT, "a few" if w == "few" and prev == "a" else w, clause, idx))
                has_quantifier = True
                cue_seen = True
    for w, cl, idx in carried:  # "is not that when X, Y": the negation is X's too
        if cl + 1 < len(starts):
            cues.append((NEG, w, cl + 1, idx))
    return content, starts, cues, numerals, periods, has_negation, has_quantifier


# Words after which a negation denies the clause that follows ("The reason is not that when a
# system is isolated, ..."; "It is not believed that this nasally, clipped pronunciation was ...").
_COMPLEMENTIZERS = frozenset({"that", "because", "why", "how", "whether", "what", "when", "where"})
_SAYING = frozenset({"believed", "thought", "said", "stated", "claimed", "suggested", "known", "assumed"})
_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "'s"})


def _denies_what_follows(words: list[str], idx: int, filled: bool) -> bool:
    """Whether the negation cue at ``idx`` after a copula denies the next clause as well as its
    own: a complementizer right after it in a clause that has content already ("the reason is not
    that when a system is isolated, ..."), or a participle of saying or believing and "that" ("it
    is not believed that this nasally, clipped pronunciation ..."): the clause the complementizer
    opens may be cut short by a comma or a "when". ("Pi bonds do not because ..." elides a verb:
    its "because" gives the reason, and the copula is what tells them apart.)"""
    if not idx or words[idx - 1] not in _COPULAS:
        return False
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    if nxt in _COMPLEMENTIZERS:
        return filled
    return nxt in _SAYING and words[idx + 2 : idx + 3] in (["that"], ["whether"])


def content_keys(words: list[str], text: str) -> list[str] | None:
    """The keys of the content words of a sentence (``text``, its tokens ``words``), with repeats:
    ``Sentence(text).keys`` without the analysis, for indexing a passage; None for a sentence
    whose keys only the analysis gives (the clause's cues decide "it is not true that").

    It makes ``_scan``'s decisions about which tokens are content: units and ordinal suffixes
    after a number are not, nor the ordinal of a frequency ("every second week"), nor the tokens
    of a date but its month (an ISO date says its month too); "may" is content only as the month.
    ``tests/test_lexical_index.py`` checks it against ``Sentence``; a change to what ``_scan``
    counts as content must be made here too.
    """
    dates = find_dates(words) if not _MONTH_TOKENS.isdisjoint(words) or (
        "-" in words and has_iso_date(text)) else ()
    in_date = _date_tokens(words, dates) if dates else {}
    keys: list[str] = []
    add = keys.append
    after_number = False
    for idx, w, (kind, key) in zip(count(), words, map(_LEXICON.__getitem__, words)):
        if after_number:
            if w in _UNIT_TOKENS or w in ORDINAL_SUFFIXES:  # "10 cm", "3rd"
                continue
            after_number = False
        if in_date and idx in in_date:  # a date's token: its month's key, for an ISO date's month
            if in_date[idx]:
                add(in_date[idx])
            continue
        if w in _EVERY_NTH and _ordinal_of_frequency(words, idx):
            continue
        if not kind:
            if w in _TRUTH_WORDS and words[idx + 1 : idx + 2] == ["that"]:
                return None  # content or not by the clause's cues
            add(key)
        elif kind == PERIOD:
            add(key)
        elif kind == NUMERAL:
            after_number = True
        elif kind == QUANT and w == "may" and _may_is_the_month(words, idx, words[idx - 1] if idx else ""):
            add(stem(w))  # the month: "May 2021", "3 May"
    return keys


class _TokenKeys(dict):
    """A whitespace-separated, lower-cased token -> the keys of its content tokens (the tokens
    ``words_of`` makes of it) and whether a number's units may follow it, both after a token that
    does not end in a number and after one that does (``_after_number``); None when
    ``content_keys`` would look further (an ordinal of a frequency but "other", a month, a truth word) or
    ``words_of`` would (a detached "n't": "ca n't"). Computed on first sight, bounded like
    ``text._PIECES``."""

    __slots__ = ()

    def __missing__(self, tok: str) -> tuple[tuple[str, ...], bool, tuple[str, ...], bool] | None:
        pieces = _pieces_of(tok) if "'" not in tok else (
            None if "n't" in _TOKEN.findall(tok) else words_of(tok))  # alone, as in its sentence
        found = None
        if pieces is not None and _ORDINALS.isdisjoint(pieces) and _MONTH_TOKENS.isdisjoint(pieces) and (
                _TRUTH_WORDS.isdisjoint(pieces)):
            found = (*_after_number(pieces, False), *_after_number(pieces, True))
        if len(self) > 1 << 18:
            self.clear()
        self[tok] = found
        return found


def _after_number(pieces: Sequence[str], after_number: bool) -> tuple[tuple[str, ...], bool]:
    """``content_keys``'s loop over some tokens (none an ordinal of a frequency, a month or a truth
    word), ``after_number`` when the token before them was a number or a unit after one: their
    keys, and whether the last is such."""
    found: list[str] = []
    for piece in pieces:
        kind, key = _LEXICON[piece]
        if after_number:
            if piece in _UNIT_TOKENS or piece in ORDINAL_SUFFIXES:
                continue
            after_number = False
        if kind in (CONTENT, PERIOD):
            found.append(key)
        elif kind == NUMERAL:
            after_number = True
    return tuple(found), after_number


_TOKEN_KEYS = _TokenKeys()
# The ordinals of a frequency ("every second week") whose keys depend on the words around them:
# "other" is a stopword, a key of no sentence whether it counts a frequency or not.
_ORDINALS = frozenset(_EVERY_NTH) - {"other"}


def sentence_keys(text: str, plain: bool = False) -> tuple[list[str] | None, list[str] | None]:
    """(``words_of(text)``, or None where it was not needed; ``content_keys`` of them): a sentence
    without a citation marker, a date or a month... (most) is read token by token from
    ``_TOKEN_KEYS`` without ``words_of``; ``tests/test_lexical_index.py`` checks that both ways agree.
    ``plain``: a text holding this one has no "[", ISO date or curly apostrophe (``passage._Prepared``
    looks once in the whole passage), so the sentence is not searched for them."""
    if plain or ("[" not in text and not ("-" in text and has_iso_date(text))):
        lowered = (text[:-1] if text.endswith(".") else text).lower()
        if not plain and ("\u2019" in lowered or "\u2018" in lowered):
            lowered = lowered.replace("\u2019", "'").replace("\u2018", "'")
        keys: list[str] = []
        add = keys.extend
        after = False
        for found in map(_TOKEN_KEYS.__getitem__, lowered.split()):
            if found is None:
                break
            if after:
                add(found[2])
                after = found[3]
            else:
                add(found[0])
                after = found[1]
        else:
            return None, keys
    words = words_of(text)
    return words, content_keys(words, text)


def _opened(starts: list[int], content: list[tuple[str, int]], filled: bool) -> bool:
    """A clause is about to get a content word: if it had none, it starts here. Returns True (the
    clause is filled). The commonest kind of content inlines this test in ``_scan``."""
    if not filled:
        starts.append(len(content))
    return True


def _subject_follows(words: list[str], idx: int) -> bool:
    """Whether a subject pronoun or "that" follows ``idx`` ("and he", "before they", "and that")."""
    return idx + 1 < len(words) and words[idx + 1] in _SUBJECTS


def _free_or_less(words: Sequence[str]) -> bool:
    """Whether the tokens hold a hyphenated "-free" or "-less" ("mold-free", "wire-less")."""
    return any(w == "-" and words[i + 1] in ("free", "less") for i, w in enumerate(words[:-1]))


def _negative_verb(words: list[str], idx: int, w: str) -> bool:
    """Whether the word ``w`` of ``_NEGATIVE_VERBS`` at ``idx`` negates what follows it: "failed to",
    "lacks a" (not "a lack of", nor "lack" as a noun after an article), "prevents ... from"."""
    takes = _NEGATIVE_VERBS[w]
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    if takes == "to":
        return nxt == "to"
    if takes == "from":
        return "from" in words[idx + 1 : idx + 7]
    return bool(nxt) and nxt != "of" and not (idx and words[idx - 1] in ("a", "the", "of"))


def _ordinal_of_frequency(words: list[str], idx: int) -> bool:
    """Whether the ordinal at ``idx`` counts a frequency: "every second week", "each third day"."""
    return bool(idx) and words[idx - 1] in ("every", "each") and idx + 1 < len(words) and (
        _LEXICON.get(words[idx + 1]) or _classify(words[idx + 1]))[0] == PERIOD


def _states_an_amount(words: list[str], idx: int, w: str) -> bool:
    """Whether the period word ``w`` at ``idx`` states an amount without a numeral: "weekly",
    "every week", "a day", "a few days", "for years", "every other day"."""
    prev = words[idx - 1] if idx else ""
    if prev == "-" and idx >= 2:  # a tokenised "per - year"
        prev = words[idx - 2]
    return w in _PERIOD_ADVERBS or prev in _PERIOD_WORDS_BEFORE or prev in _VAGUE or (
        prev in _BARE_PERIOD_AFTER and w[-1] == "s") or (
        prev in _EVERY_NTH and words[idx - 2 : idx - 1] in (["every"], ["each"]))


def _negates(words: list[str], idx: int) -> bool:
    """Whether the negation word at ``idx`` is a cue: not before an exempt word, an "un-"/"non-"
    word, or a bound ("no more than 3"), nor in "were it not for" / "if not for"."""
    nxt = words[idx + 1] if idx + 1 < len(words) else ""
    return not (nxt in _NEGATION_EXEMPT_NEXT or (nxt.startswith(("un", "non")) and len(nxt) > 5) or (
        nxt in _COMPARATIVES and words[idx + 2 : idx + 3] == ["than"]) or (
        nxt == "for" and idx and words[idx - 1] in ("it", "if")))  # "were it not for X", "if not for X": a condition


def _may_is_the_month(words: list[str], idx: int, prev: str) -> bool:
    """Whether "may" at ``idx`` is the month: "May 2021", "3 May", "in May"."""
    return prev[:1].isdecimal() or prev in _MONTH_BEFORE or (idx + 1 < len(words) and words[idx + 1][:1].isdecimal())


def _quantifies_nothing(words: list[str], idx: int, w: str, prev: str) -> bool:
    """Whether the quantifier ``w`` at ``idx`` is no quantifier here: a superlative or a bound
    ("the most", "at most"), or "all" in an idiom."""
    return (w == "most" and prev in ("the", "at")) or (w == "all" and (prev in _ALL_IDIOM_PREV or (
        idx + 1 < len(words) and words[idx + 1] in _ALL_IDIOM_NEXT)))

# Every sentence of a passage still analysed (held by a passage in the cache, or by a caller), by
# text: a claim that is a sentence of a passage it does not cite (a miscited sentence) reuses that
# analysis, which is a pure function of the text. Weak values: the passage cache bounds it.
_KNOWN: WeakValueDictionary[str, Sentence] = WeakValueDictionary()


# The sentences of every passage analysed since (``passage._Prepared``), analysed or not yet: text
# -> a weak reference to the passage's sentences (``passage._Sentences``), which analyse one when it
# is read. A passage registers its texts in one ``dict.update``; bounded (emptied when full).
_IN_PASSAGE: dict[str, ref] = {}


def analyse(text: str) -> Sentence:
    """The analysis of a sentence: the one of a passage sentence with this text, else a new one."""
    known = _KNOWN.get(text)
    if known is not None:
        return known
    where = _IN_PASSAGE.get(text)
    sentences = where() if where is not None else None
    if sentences is not None:  # a sentence of a live passage, not read yet
        return sentences[sentences.texts.index(text)]
    return Sentence(text)


def keys_of(text: str) -> frozenset[str]:
    """``analyse(text).keys``, read from the tokens where they give them (``sentence_keys``): the
    keys of a part of a sentence, without analysing it."""
    known = _KNOWN.get(text)
    if known is not None:
        return known.keys
    keys = sentence_keys(text)[1]
    return analyse(text).keys if keys is None else frozenset(keys)


def _text(window: tuple[Sentence, ...]) -> str:
    return window[0].text if len(window) == 1 else " ".join(s.text for s in window)


class _Positions(dict):
    """A bit mask -> the positions of its bits (``_bits``), as a tuple, memoised: a passage's masks
    of a word recur across the claims that cite it. Bounded like ``text._PIECES``."""

    __slots__ = ()

    def __missing__(self, mask: int) -> tuple[int, ...]:
        found = tuple(_bits(mask))
        if len(self) > 1 << 16:
            self.clear()
        self[mask] = found
        return found


positions = _Positions().__getitem__


def _bits(mask: int) -> list[int]:
    """The positions of the bits set in ``mask``, lowest first (read from its binary text: a mask of
    a long passage has thousands of bits, and shifting such an int costs its length each time)."""
    if not mask & (mask - 1):  # none, or one
        return [mask.bit_length() - 1] if mask else []
    text = bin(mask)[:1:-1]  # bit i is text[i]
    out = []
    i = text.find("1")
    while i >= 0:
        out.append(i)
        i = text.find("1", i + 1)
    return out

