"""The passage index is built from each sentence's tokens (``scan.content_keys``) and a sentence
is analysed only when read (``passage._Prepared``): both must give what analysing every sentence
gives."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.core.model import split_sentences
from pytest_sprout.judges.lexical import Sentence, _Prepared, words_of
from pytest_sprout.judges.lexical.dates import has_iso_date
from pytest_sprout.judges.lexical.index import keys_of
from pytest_sprout.judges.lexical.scan import content_keys, sentence_keys
from pytest_sprout.judges.lexical.text import _has_split_number, rejoin_numbers, stem

# Words that make _scan's decisions about content: numbers and units, ordinals of frequencies,
# months and "may", the truth words of "it is not true that", negations and quantifiers, dashes.
_WORDS = ["fern", "ferns", "water", "watered", "the", "a", "every", "each", "other", "second", "third", "week",
          "weeks", "weekly", "day", "10", "3", "2011", "2011-03-03", "cm", "m", "st", "rd", "th", "-", "May", "may",
          "March", "in", "it", "is", "not", "true", "that", "case", "correct", "no", "never", "all", "most", "some",
          "and", "he", "before", "but", ",", "don't", "John's", "[1]", "7.", "8", "per", "cent", "%", "°C",
          "half", "one", "times", "second.", "years", "for", "it\u2019s", "ca", "n't", "10-15", "15°c", "1,500", "(50°f)",
          "3rd", "Jan.", "2nd", "four"]

def _numbers(numbers) -> list[tuple]:
    return [(n.exact, n.bare, n.per, n.scaled, n.text) for n in numbers]


_SENTENCE = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(lambda ws: " ".join(ws) + ".")


@settings(max_examples=1500, deadline=None)
@given(_SENTENCE)
def test_content_keys_are_the_keys_of_the_analysis(text: str) -> None:
    keys = content_keys(words_of(text), text)
    assert keys is None or frozenset(keys) == Sentence(text).keys
    words, read = sentence_keys(text)  # token by token where it can, else as content_keys
    assert words is None or words == words_of(text)
    assert read == keys
    if "[" not in text and "\u2019" not in text and not has_iso_date(text):
        assert sentence_keys(text, plain=True) == (words, read)  # as _Prepared reads a passage without them
    assert keys_of(text) == Sentence(text).keys


def test_content_keys_leave_truth_words_to_the_analysis_and_read_dates() -> None:
    assert content_keys(words_of("It is not true that ferns bloom."), "It is not true that ferns bloom.") is None
    for text in ("It opened in May 2011.", "It may rain.", "On 2011-03-03 it shut.", "On 3rd March 2011, 5 h."):
        assert content_keys(words_of(text), text) == list(Sentence(text).seq)
    assert content_keys(words_of("It opened in May 2011."), "") == ["open", stem("may")]
    assert content_keys(words_of("It may rain."), "") == ["rain"]
    assert content_keys(words_of("Water it every second week, 10 cm deep."), "") == ["water", "week", "deep"]


@settings(max_examples=300, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=8), st.data())
def test_a_passage_read_in_any_order_is_the_passage_analysed_in_full(sentences: list[str], data) -> None:
    text = " ".join(sentences)
    texts = split_sentences(rejoin_numbers(text))
    eager = [Sentence(t) for t in texts]
    lazy = _Prepared(text)
    order = data.draw(st.permutations(range(len(texts))))
    read = {i: lazy.sentences[i] for i in order}
    assert len(lazy.sentences) == len(texts)
    for i, s in enumerate(eager):
        assert (read[i].text, read[i].words, read[i].seq, _numbers(read[i].numbers), read[i].clauses()) == (
            s.text, s.words, s.seq, _numbers(s.numbers), s.clauses())
        assert lazy.sentences[i] is read[i] and lazy.sentences[i - len(texts)] is read[i]
    assert lazy.sentences[1:3] == tuple(read[i] for i in range(1, min(3, len(texts))))
    assert list(lazy.sentences) == [read[i] for i in range(len(texts))]
    for t in texts:
        assert lazy.by_text.get(t) is lazy.by_text[t] and lazy.by_text[t].text == t and t in lazy.by_text
    assert _numbers(lazy.numbers) == _numbers(n for s in eager for n in s.numbers)
    assert lazy.number_facts()[1] == frozenset(n.exact for n in lazy.numbers)
    assert _numbers(lazy.loose(0)) == _numbers(n for n in eager[0].numbers if n.bare or n.unit is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=8))
def test_the_loose_numbers_of_a_sentence_not_read_yet_are_those_of_its_analysis(sentences: list[str]) -> None:
    """``_Prepared.loose`` tells a sentence without numbers from its tokens, without analysing it."""
    text = " ".join(sentences)
    lazy = _Prepared(text)
    for i, t in enumerate(split_sentences(rejoin_numbers(text))):
        assert _numbers(lazy.loose(i)) == _numbers(n for n in Sentence(t).numbers if n.bare or n.unit is not None)
    assert [s.text for s in lazy.sentences] == split_sentences(rejoin_numbers(text))  # (read after)


_DIGITS_AND_SEPARATORS = st.lists(st.sampled_from(list("0123456789.., a") + [" and ", "x"]), max_size=30).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_DIGITS_AND_SEPARATORS)
def test_rejoining_numbers_is_the_lookbehind_first_substitution(text: str) -> None:
    """``rejoin_numbers``'s patterns look behind their first digit rather than before it: the same
    substitutions as the patterns written with the lookbehind first (after a bare point's "0")."""
    import re

    decimal = re.compile(r"(?<![\d.,])(\d{1,3})\. (\d{1,2})(?![\d,.]?\d)")
    thousands = re.compile(r"(?<![\d.,])(?<!\d, )(\d{1,3}), (\d{3})(?![\d,.]?\d| and \d|, \d)")
    bare = re.compile(r"(?<![\w.,])\.(\d)")  # a decimal without its whole part: "$.99"
    assert rejoin_numbers(text) == thousands.sub(r"\1,\2", decimal.sub(r"\1.\2", bare.sub(r"0.\1", text)))


def test_a_sentence_of_a_live_passage_not_read_yet_is_analysed_as_that_passage_s() -> None:
    """A claim copied from a passage it does not cite (a miscited sentence) is the analysis of that
    passage's sentence, read then; once the passage is gone, a fresh one."""
    import gc

    from pytest_sprout.judges.lexical import index

    text = "Hatiora blooms in spring. Its stems root in damp bark within 3 weeks."
    passage = _Prepared(text)
    claim = "Its stems root in damp bark within 3 weeks."
    assert claim not in index._KNOWN  # not read yet
    ours = index.analyse(claim)
    assert ours is passage.sentences[1] is index.analyse(claim)
    del ours, passage
    gc.collect()
    fresh = index.analyse(claim)
    assert fresh.text == claim and fresh.keys == Sentence(claim).keys


_DIGITS_AND_DASHES = st.lists(st.sampled_from(["0", "1", "2", "3", "2011", "03", "-", " - ", " ", "\n", ".", ",",
                                               ", ", ". ", "a", "\u0663"]), max_size=14).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_DIGITS_AND_DASHES)
def test_the_fast_searches_find_what_their_regular_expressions_find(text: str) -> None:
    """``has_iso_date`` and ``text._has_split_number`` search from a dash, a point or a comma, and
    look at the digits around it: they must say what the plain regular expressions say."""
    assert has_iso_date(text) == bool(re.search(r"\d{4}\s*-\s*\d\d\s*-\s*\d\d", text))
    assert _has_split_number(text) == bool(re.search(r"\d[.,] \d", text))
    assert _has_split_number(" " * 256 + text) == _has_split_number(text)  # a long text (a passage) too
