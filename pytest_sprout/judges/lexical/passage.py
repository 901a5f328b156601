"""A cited passage as the judge reads it: its sentences, analysed when first read, and the index of
its sentences by word, built from their tokens alone."""

from __future__ import annotations

from functools import lru_cache
from itertools import repeat
from typing import Any, Iterator, Sequence, cast, overload
from weakref import ref

from pytest_sprout.core.model import split_sentences

from .dates import _MONTH_TOKENS, has_iso_date
from .index import _IN_PASSAGE, _KNOWN, Sentence
from .numbers import Number, dimension_of
from .scan import sentence_keys
from .text import _FIRST as _KIND
from .text import _LEXICON, NUMERAL, PERIOD, rejoin_numbers, words_of

_NUMBER_KINDS = frozenset({NUMERAL, PERIOD})  # the kinds of token a sentence's numbers are read from
_Facts = tuple[tuple[Number, ...], frozenset[tuple], frozenset[tuple[float, float]] | None, dict[str, frozenset[str]]]


class _Sentences(Sequence[Sentence]):
    """A passage's sentences, each analysed the first time it is read (a claim reads only its few
    candidate sentences and their neighbours); an analysis is shared by text (``index._KNOWN``)."""

    __slots__ = ("texts", "_words", "_done", "__weakref__")

    def __init__(self, texts: list[str], words: list[list[str] | None], done: list[Sentence | None]) -> None:
        self.texts = texts
        self._words = words  # each sentence's tokens, until it is analysed
        self._done = done

    def __len__(self) -> int:
        return len(self.texts)

    def _analyse(self, i: int) -> Sentence:
        s = Sentence(self.texts[i], self._words[i])
        self._words[i] = None
        self._done[i] = s
        _KNOWN.setdefault(s.text, s)  # a live analysis of the same text stays: it may be a cached passage's
        return s

    @overload
    def __getitem__(self, i: int) -> Sentence: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Sentence, ...]: ...

    def __getitem__(self, i: int | slice) -> Sentence | tuple[Sentence, ...]:
        found: Any = self._done[i]  # a sentence (or None) for an index, a list for a slice
        if found.__class__ is Sentence:  # read before: the common case
            return found
        if found is None:
            return self._analyse(cast(int, i) % len(self.texts))
        if None in found:
            done = self._done
            return tuple(done[k] or self._analyse(k) for k in range(len(done))[cast(slice, i)])
        return tuple(found)

    def __iter__(self) -> Iterator[Sentence]:
        done = self._done
        for k in range(len(done)):
            yield done[k] or self._analyse(k)

    def analysed(self) -> list[Sentence]:
        """The sentences analysed so far."""
        return [s for s in self._done if s is not None]


class _ByText:
    """A sentence's text -> its analysis (of the last sentence with that text), analysed on lookup:
    a claim copied from its passage is judged with the passage's analysis of it."""

    __slots__ = ("_at", "_sentences")

    def __init__(self, sentences: _Sentences) -> None:
        self._at = dict(zip(sentences.texts, range(len(sentences.texts))))
        self._sentences = sentences

    def get(self, text: str) -> Sentence | None:
        i = self._at.get(text)
        return None if i is None else self._sentences[i]

    def __getitem__(self, text: str) -> Sentence:
        return self._sentences[self._at[text]]

    def __contains__(self, text: object) -> bool:
        return text in self._at


def _kind(n: Number) -> str | None:
    """What a number measures: the dimension its unit converts in, else the unit; None for a bare one."""
    return dimension_of(n.unit) or n.unit


class _Prepared:
    """A passage split into sentences (``sentences``, each analysed when first read), indexed by word.

    ``masks`` maps a content key to the sentences holding it as a bit mask (bit i: sentence i), built
    from each sentence's tokens (``sentence_keys``); ``by_text`` maps each sentence's text to its
    analysis; ``numbers``: every number of the passage, computed on first use.
    """

    __slots__ = ("sentences", "masks", "by_text", "_facts", "_loose")

    def __init__(self, text: str) -> None:
        text = rejoin_numbers(text)
        texts = split_sentences(text)
        # No sentence of a passage without these needs looking for them (``sentence_keys``).
        plain = "[" not in text and "\u2019" not in text and "\u2018" not in text and not (
            "-" in text and has_iso_date(text))
        words: list[list[str] | None] = []
        self.sentences = sentences = _Sentences(texts, words, [None] * len(texts))
        if len(_IN_PASSAGE) > 1 << 17:
            _IN_PASSAGE.clear()
        _IN_PASSAGE.update(zip(texts, repeat(ref(sentences))))  # a miscited sentence: analysed when read
        masks: dict[str, int] = {}
        get = masks.get
        for i, t in enumerate(texts):
            tokens, keys = sentence_keys(t, plain)
            words.append(tokens)
            bit = 1 << i
            for key in sentences._analyse(i).keys if keys is None else keys:
                masks[key] = get(key, 0) | bit
        self.masks = masks
        self.by_text = _ByText(sentences)
        self._facts: _Facts | None = None
        self._loose: list[tuple[Number, ...] | None] = [None] * len(texts)

    def loose(self, i: int) -> tuple[Number, ...]:
        """The numbers of sentence ``i`` that count nothing (a year, an amount in a unit), which a
        claim may take from beside its evidence; a sentence is analysed only if it may have numbers."""
        found = self._loose[i]
        if found is None:
            found = self._loose[i] = tuple(n for n in self.sentences[i].numbers if n.bare or n.unit is not None) if (
                self._may_count(i)) else ()
        return found

    def _may_count(self, i: int) -> bool:
        """False when sentence ``i``'s tokens hold no number or period word, month or ISO date."""
        sentences = self.sentences
        if sentences._done[i] is not None:
            return True
        text = sentences.texts[i]
        words = sentences._words[i]
        if words is None:
            words = sentences._words[i] = words_of(text)  # kept for the analysis, if it comes
        return not _NUMBER_KINDS.isdisjoint(map(_KIND, map(_LEXICON.__getitem__, words))) or (
            not _MONTH_TOKENS.isdisjoint(words)) or ("-" in words and has_iso_date(text))

    def number_facts(self) -> _Facts:
        """``number_facts`` of this passage alone, computed once."""
        if self._facts is None:
            numbers = tuple(n for s in self.sentences for n in s.numbers)
            # Without a rounded number ("3.5 million") or a date, a claim number whose value is not
            # among these values matches none.
            values = None if any(n.scaled or n.unit == "date" for n in numbers) else frozenset(
                (n.lo, n.hi) for n in numbers)
            units: dict[str, set[str]] = {}
            for n in numbers:
                dimension = dimension_of(n.unit)
                if dimension is not None and n.unit is not None:
                    units.setdefault(dimension, set()).add(n.unit)
            self._facts = (numbers, frozenset(n.exact for n in numbers), values,
                           {dimension: frozenset(found) for dimension, found in units.items()})
        return self._facts

    @property
    def numbers(self) -> tuple[Number, ...]:
        return self.number_facts()[0]


def number_facts(prepared: list[_Prepared]) -> _Facts:
    """What the number rule reads of the cited passages, as if they were one: their numbers, the
    numbers' exact keys, their values (None where one is rounded or a date) and, per dimension, the
    units they are written in ("length": {"cm", "inch"}; see ``rules.check_numbers_in``)."""
    facts = [p.number_facts() for p in prepared]
    if len(facts) == 1:
        return facts[0]
    values = None if any(f[2] is None for f in facts) else frozenset().union(*(f[2] or () for f in facts))
    units: dict[str, frozenset[str]] = {}
    for f in facts:
        for dimension, found in f[3].items():
            units[dimension] = units.get(dimension, frozenset()) | found
    return tuple(n for f in facts for n in f[0]), frozenset().union(*(f[1] for f in facts)), values, units


def numbers_near(prepared: list[_Prepared], places: Sequence[tuple[int, int]]) -> tuple[
        tuple[Number, ...], frozenset[tuple]]:
    """The numbers a claim's numbers may come from, when its evidence is the sentences at ``places``
    ((passage, sentence)): every number of those sentences, and the numbers that count nothing of
    the sentences next to them ("That was in 2015."). A count beside the evidence ("Leeds have won
    7 games" after "Moon scored 3 tries") and any number further off are about something else."""
    if len(places) == 1:  # one sentence of evidence, as for most claims: no sets to build
        pi, i = places[0]
        p = prepared[pi]
        own = p.sentences[i].numbers
        near = (p.loose(i - 1) if i else ()) + (p.loose(i + 1) if i + 1 < len(p.sentences) else ())
    else:
        inside = sorted(set(places))
        beside = sorted({(pi, k) for pi, i in inside for k in (i - 1, i + 1) if 0 <= k < len(prepared[pi].sentences)}
                        - set(inside))
        own = tuple(n for pi, i in inside for n in prepared[pi].sentences[i].numbers)
        near = tuple(n for pi, i in beside for n in prepared[pi].loose(i))
    if near and own:
        # The evidence states its own amount of a kind ("every 7 days"): an amount of that kind
        # next to it ("... every 10 weeks") is another thing's, not the claim's.
        kinds = {_kind(n) for n in own}
        near = tuple(n for n in near if _kind(n) not in kinds)
    return own + near, frozenset()  # few numbers: each is compared by value, no exact-key shortcut needed


_prepare_passage = lru_cache(maxsize=4096)(_Prepared)
