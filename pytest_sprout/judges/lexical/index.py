"""Analysed sentences and the index of a passage's sentences by word."""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain
from typing import Any, Callable, NamedTuple, TypeVar
from weakref import WeakValueDictionary, ref

from . import lexicon
from .numbers import find_numbers
from .scan import _free_or_less, scan_sentence, sentence_keys
from .text import (
    _FIRST, _LEXICON, _NEGATIVE_VERBS, _SENTENCE_OPENERS, CONTENT, NEG, NEGATIVE_WORDS, QUANTIFIERS, _Memo, words_of,
)

T = TypeVar("T")


class Clause(NamedTuple):
    """A clause with content: its keys, polarity, first negation cue, a word to name it, quantifiers
    and modals as (class, family, word); ``denied``: its polarity with negative verbs counted ("failed
    to get"); ``unread_no``: a negative verb not read as a cue ("prevent tripping"); ``says_no``: a
    cue, a word of ``NEGATIVE_WORDS`` ("unless") or a "-free"/"-less"."""

    keys: frozenset[str]
    negated: bool
    cue: str
    word: str
    quants: tuple[tuple[str, str, str], ...]
    denied: bool
    unread_no: bool
    says_no: bool


_SAYS_NO = NEGATIVE_WORDS | frozenset(_NEGATIVE_VERBS)  # what a clause says "no" with but cues and "-free"
_WRITTEN = re.compile(r"\w+(?:['\u2019.-]\w+)*|[^\w\s]")


_written_of = _Memo(lambda piece: tuple(_WRITTEN.findall(piece))).__getitem__  # a piece without spaces -> its tokens
_chain = chain.from_iterable
_tuple_new = tuple.__new__  # _tuple_new(Clause, fields) is Clause(*fields) without a NamedTuple's Python-level __new__


# A capitalised word: r"\b[A-Z][^\W\d_]+", with the capital found first (a regex searches faster from a class).
_NAME = re.compile(r"[A-Z](?<!\w[A-Z])[^\W\d_]+")
_RUN_ON = re.compile(r"[ \t]+[A-Z]")  # a capitalised word after: the opening one is part of a name ("Getty Images")


def _opening_capital(text: str, m: re.Match[str]) -> bool:
    """Whether the capitalised word ``m`` of ``text`` has its capital only because it opens a
    sentence or a phrase (not "Mid-Atlantic"), and is no name wherever it stands: no capital inside
    ("CRISPR"), no capitalised word next ("Getty Images") unless it is an imperative ("Visit Paris")."""
    j = m.start() - 1  # the last character before the word that is not a space
    while j >= 0 and text[j].isspace():
        j -= 1
    if j >= 0 and (text[j] not in _SENTENCE_OPENERS or (
            text[j] == "-" and j + 1 == m.start() and j and text[j - 1].isalnum())):
        return False
    if not m.group()[1:].islower() or not _RUN_ON.match(text, m.end()):
        return m.group()[1:].islower()
    word = m.group().lower()  # an imperative: a verb in its base form
    kinds = lexicon.word_classes(word)
    return kinds is not None and "VERB" in kinds and lexicon.lemma(word) == word


class Sentence:
    """What the rules need to know about one sentence, computed once: ``words`` (its tokens),
    ``numbers``, ``content`` ((key, token index) of its content tokens), ``seq`` and ``keys`` (their
    keys, in order and as a set), whether it has cues at all, and its clauses (``clauses()``, split
    by ``scan.scan_sentence``) and names, computed on first use."""

    __slots__ = ("text", "words", "content", "seq", "keys", "numbers", "has_date", "has_negation", "has_quantifier", "has_cue",
                 "_starts", "_cues", "_clauses", "_sites", "_names", "_once", "_first",
                 "_written", "_where", "_memo", "__weakref__")

    def __init__(self, text: str, words: list[str] | None = None) -> None:
        self.text = text  # ``words``: ``words_of(text)``, when the caller has them already
        if words is None:
            words = words_of(text)
        dates, (content, starts, cues, numerals, periods, has_negation, has_quantifier) = scan_sentence(words, text)
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
        self._written: tuple[list[str], list[str]] | None = None
        self._where: dict[str, list[int]] | None = None
        self._memo: dict[Callable[[Sentence], Any], Any] | None = None
        self.has_negation = has_negation
        self.has_quantifier = has_quantifier
        self.has_cue = has_negation or has_quantifier

    def clauses(self) -> tuple[Clause, ...]:
        """The clauses that have content words; one is negated when it holds an odd number of cues
        ("never use a pot without drainage" is positive), "nor" counting only as its sole cue."""
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
            quiet = not negs and _SAYS_NO.isdisjoint(words) and not ("-" in words and _free_or_less(words))  # no "no"
            for cl, (start, end) in enumerate(zip(starts, starts[1:] + (len(content),))):
                keys = self.keys if not last else frozenset(seq[start:end])  # one clause: the sentence's keys
                listed = quants.get(cl) if quants else None
                q = tuple(listed) if listed else ()
                if quiet:
                    out.append(_tuple_new(Clause, (keys, False, "", words[content[start][1]], q, False, False, False)))
                    continue
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
        """For each negation cue of a clause it denies (``Clause.denied``), the clause's position and
        three keys: the content word before the cue in its clause, if any, and the first ones after
        it ("workers | do not | have a negligible impact": worker, negligible, impact)."""
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
            found: dict[str, str] = {}
            self._names = found
            text = self.text
            rest = text[1:]
            if rest == rest.lower():  # no capital after the first character: no names
                return found
            keys = self.keys
            for m in _NAME.finditer(text):
                kind, key, _ = _LEXICON[m.group().lower()]
                if kind == CONTENT and key in keys and key not in found and not _opening_capital(text, m):
                    found[key] = m.group()
        return self._names

    def written(self) -> tuple[list[str], list[str]]:
        """Its tokens as written (words with inner points, hyphens and apostrophes; marks), and the
        same lower-cased, with one apostrophe."""
        if self._written is None:
            toks = list(_chain(map(_written_of, self.text.split())))  # no token spans a space
            low = list(map(str.lower, toks))
            if "\u2019" in self.text:
                low = [t.replace("\u2019", "'") for t in low]
            self._written = (toks, low)
        return self._written

    def where(self) -> dict[str, list[int]]:
        """Where each lower-cased token of ``written`` stands."""
        if self._where is None:
            where: dict[str, list[int]] = {}
            for i, t in enumerate(self.written()[1]):
                where.setdefault(t, []).append(i)
            self._where = where
        return self._where

    def once(self) -> frozenset[str]:
        """The content keys the sentence holds exactly once."""
        if self._once is None:
            self._once = self.keys if len(self.seq) == len(self.keys) else frozenset(
                key for key, n in Counter(self.seq).items() if n == 1)
        return self._once

    def first_words(self) -> dict[str, str]:
        """Each content key, in order, to the first word that has it."""
        if self._first is None:
            first: dict[str, str] = {}
            words = self.words
            for key, idx in self.content:
                first.setdefault(key, words[idx])
            self._first = first
        return self._first

    def derived(self, make: Callable[[Sentence], T]) -> T:
        """``make(self)``, computed on first use: what a rule derives from one sentence alone (a
        claim tried against several windows, a passage's sentence read by every claim citing it)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        elif make in memo:
            return memo[make]
        value = memo[make] = make(self)
        return value

    def surface(self, key: str) -> str:
        """The word as written for a content key."""
        return self.first_words().get(key, key)

    def allkeys(self) -> frozenset[str]:
        """Every word and number of the sentence: what a claim without content words is matched on."""
        return frozenset(w for w in self.words if w[0].isalpha()) | {n.key for n in self.numbers}


# Every sentence analysed and still held (by a passage in the cache or a caller), by text: a claim
# that is a sentence of a passage reuses its analysis, a pure function of the text.
_KNOWN: WeakValueDictionary[str, Sentence] = WeakValueDictionary()


# Text -> a weak reference to the sentences of the passage that has it (``passage._Sentences``,
# which analyse one when it is read); bounded (emptied when full).
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
    """``analyse(text).keys``, read from the tokens without analysing it where they give them."""
    known = _KNOWN.get(text)
    if known is not None:
        return known.keys
    keys = sentence_keys(text)[1]
    return analyse(text).keys if keys is None else frozenset(keys)


def _text(window: tuple[Sentence, ...]) -> str:
    return window[0].text if len(window) == 1 else " ".join(s.text for s in window)


positions = _Memo(lambda mask: tuple(_bits(mask))).__getitem__  # a bit mask -> its bits (a passage's masks recur)


def _bits(mask: int) -> list[int]:
    """The positions of the bits set in ``mask``, lowest first (read from its binary text: shifting a
    mask of thousands of bits costs its length each time)."""
    if not mask & (mask - 1):  # none, or one
        return [mask.bit_length() - 1] if mask else []
    text = bin(mask)[:1:-1]  # bit i is text[i]
    out = []
    i = text.find("1")
    while i >= 0:
        out.append(i)
        i = text.find("1", i + 1)
    return out

