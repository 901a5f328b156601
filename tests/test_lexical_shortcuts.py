"""The lexical judge's shortcuts give what the full computation gives.

The number rule first looks a claim's number up by (value, range, unit, bound) among the numbers
its passages hold (``_Prepared.number_facts``: their exact keys) before comparing it with each of
them, and settles a number whose value is in none of them and whose unit no other unit there
converts to (their values and units) without comparing it either; the synonym
search is skipped when every word of the claim is in a cited sentence; a claim's first word per
key (``Sentence.first_words``) is computed only when a verdict needs it; a verdict is built without
the dataclass's ``__init__`` and the score's features without ``min``/``max`` calls.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.judges.lexical import LexicalJudge, Sentence, _Prepared, words_of
from pytest_sprout.judges.lexical.rules import check_numbers_in

_AMOUNTS = ["3", "10", "15", "2.5", "3,500", "three", "a dozen", "10-15", "10 to 15", "20%", "3.5 million",
            "3,512,000", "6"]
_UNITS = ["", " cm", " hours", " days", " °C", " percent", " feet", " inches"]
_BOUNDS = ["", "at least ", "up to ", "about ", "more than ", "no more than ", "under "]


@st.composite
def number_phrases(draw) -> str:
    return draw(st.sampled_from(_BOUNDS)) + draw(st.sampled_from(_AMOUNTS)) + draw(st.sampled_from(_UNITS))


@st.composite
def sentences_with_numbers(draw) -> str:
    phrases = draw(st.lists(number_phrases(), min_size=1, max_size=3))
    return "Water the fern " + " and then ".join(f"for {p} of growth" for p in phrases) + "."


@settings(max_examples=300, deadline=None)
@given(sentences_with_numbers(), st.lists(sentences_with_numbers(), min_size=0, max_size=4))
def test_number_rule_shortcut_equals_full_comparison(claim_text: str, passage_sentences: list[str]) -> None:
    claim = Sentence(claim_text)
    passage = _Prepared(" ".join(passage_sentences))
    numbers, exact, _, _ = passage.number_facts()
    with_shortcut = check_numbers_in(claim, numbers, exact)
    full = check_numbers_in(claim, passage.numbers)
    assert with_shortcut == full
    for num in claim.numbers:  # the shortcut only ever says "matches" where the full test does
        if num.exact in exact:
            assert any(num.matches(e) for e in passage.numbers)


# Amounts that are the same once converted ("30 cm" and "12 inches"), frequencies, durations, dates.
_CONVERTIBLE = ["30 cm", "12 inches", "1 foot", "3 m", "10 feet", "136.6 m", "448 feet", "1 year", "12 months",
                "2 weeks", "14 days", "1 day", "24 hours", "15 °C", "59 °F", "10 kg", "22 lb", "2.5 cm", "1 inch",
                "3", "12", "30", "20%", "3.5 million"]
_RATES = ["every 2 weeks", "every 14 days", "daily", "once a day", "twice a week", "every 18 months",
          "every 1.5 years", "a day", "a week", "in 2011", "on 3 March 2011"]


@st.composite
def sentences_with_amounts(draw) -> str:
    phrases = draw(st.lists(st.one_of(st.sampled_from(_RATES), st.builds(
        str.__add__, st.sampled_from(_BOUNDS), st.sampled_from(_CONVERTIBLE))), min_size=1, max_size=3))
    return "Water the fern " + " and then ".join(f"for {p} of growth" for p in phrases) + "."


@settings(max_examples=400, deadline=None)
@given(sentences_with_amounts(), st.lists(sentences_with_amounts(), min_size=0, max_size=4))
def test_number_rule_value_and_unit_shortcuts_equal_full_comparison(claim_text: str,
                                                                   passage_sentences: list[str]) -> None:
    """The values and units of ``_Prepared.number_facts`` (a claim number whose value no number of
    the passage has, in a unit no other unit of the passage converts to, matches none) give what
    comparing the number with every number of the passage gives, reason included."""
    claim = Sentence(claim_text)
    passage = _Prepared(" ".join(passage_sentences))
    with_shortcuts = check_numbers_in(claim, *passage.number_facts())
    assert with_shortcuts == check_numbers_in(claim, passage.numbers)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(list("ab Z9 0,.;:!?\")]([-–—%°$€£_\t\n²¹١٢é\u0301İ") + [
    "cm", "1,000", "3.5", " 000", ", ", "[1]", "don"]), max_size=30).map("".join))
def test_tokens_of_a_text_without_apostrophe_are_those_of_the_token_loop(text: str) -> None:
    """``words_of`` reads a text without an apostrophe from its memo of each token's tokens
    (``_PIECES``); with an apostrophe in it, each token goes through the loop. Both agree."""
    assert words_of(text + " don't") == words_of(text) + ["do", "not"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefg hijk Rome Milan 10 cm.", min_size=1, max_size=60))
def test_first_words_is_the_first_surface_word_of_each_key(text: str) -> None:
    s = Sentence(text)
    expected: dict[str, str] = {}
    for key, idx in s.content:
        expected.setdefault(key, s.words[idx])
    assert s.first_words() == expected
    assert list(s.first_words()) == list(dict.fromkeys(s.seq))


_WORDS = ["fern", "ferns", "water", "watered", "soil", "dry", "wet", "large", "big", "small", "light", "Boston",
          "grows", "bright", "indirect", "every", "week", "not", "always", "some", "10", "cm", "plant"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=9), min_size=1, max_size=5),
       st.lists(st.sampled_from(_WORDS), min_size=1, max_size=9), st.integers(0, 1))
def test_verdicts_do_not_depend_on_passage_cache_or_number_keys(sentences, claim_words, cited_twice) -> None:
    """The cached path (precomputed passage data, shortcuts) and a judge that analyses every
    passage afresh give the same verdict; citing a passage twice only repeats evidence."""
    passage = " ".join(" ".join(ws).capitalize() + "." for ws in sentences)
    claim = " ".join(claim_words).capitalize() + "."
    sources = [passage] * (1 + cited_twice)
    cached = LexicalJudge()
    fresh = LexicalJudge()
    fresh._prepare = _Prepared
    a, b = cached.judge(claim, sources), fresh.judge(claim, sources)
    assert (a.supported, a.score, a.evidence, a.reason, a.rule) == (b.supported, b.score, b.evidence, b.reason, b.rule)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=9), min_size=2, max_size=5),
       st.lists(st.sampled_from(_WORDS), min_size=2, max_size=9))
def test_a_sentence_of_an_uncited_passage_reuses_its_analysis(sentences, cited_words) -> None:
    """A claim copied from a passage it does not cite is judged with that passage's analysis of
    the sentence (shared by text), with the verdict a fresh analysis gives."""
    from pytest_sprout.judges.lexical import index

    other = " ".join(" ".join(ws).capitalize() + "." for ws in sentences)
    cited = " ".join(cited_words).capitalize() + "."
    judge = LexicalJudge()
    analysed = _Prepared(other)  # held here, so its sentences stay known
    claim = analysed.sentences[0].text
    known = index.analyse(claim)  # this passage's analysis, or an earlier live one of the same text
    assert known is index.analyse(claim) and known.text == claim
    assert (known.seq, known.words, known.clauses()) == (analysed.by_text[claim].seq, analysed.by_text[claim].words,
                                                         analysed.by_text[claim].clauses())
    shared = judge.judge(claim, [cited])
    saved = dict(index._KNOWN)
    index._KNOWN.clear()
    try:
        fresh = judge.judge(claim, [cited])
    finally:
        index._KNOWN.update(saved)
    assert (shared.supported, shared.score, shared.evidence, shared.reason, shared.rule) == (
        fresh.supported, fresh.score, fresh.evidence, fresh.reason, fresh.rule)


def test_known_sentences_are_released_with_their_passage() -> None:
    import gc

    from pytest_sprout.judges.lexical import index

    text = "Zygocactus blooms once the nights grow long in the autumn months."
    passage = _Prepared(text)  # a sentence no other test analyses
    read = passage.sentences[0]  # analysed when first read, and known from then on
    assert index.analyse(text) is read
    del read
    del passage
    gc.collect()
    assert text not in index._KNOWN


def test_a_passage_analysed_again_keeps_the_known_analysis() -> None:
    """Analysing a passage again (a judge without the passage cache) does not replace the known
    analyses of its sentences by ones that are dropped at once."""
    import gc

    from pytest_sprout.judges.lexical import index

    text = "Schlumbergera flowers after long nights. It needs cool autumn weeks."
    kept = _Prepared(text)
    read = kept.sentences[1]  # a sentence is analysed when first read
    again = _Prepared(text)  # analysed again and dropped
    assert again.sentences[1] is not read
    del again
    gc.collect()
    assert index.analyse("It needs cool autumn weeks.") is read is kept.sentences[1]


@settings(max_examples=200, deadline=None)
@given(uncovered=st.floats(0.0, 10.0), window=st.integers(0, 4), names=st.integers(0, 5),
       sentences=st.integers(0, 300), passages=st.integers(0, 3), failed=st.booleans())
def test_the_feature_vector_is_its_formula(uncovered, window, names, sentences, passages, failed) -> None:
    import math

    from pytest_sprout.judges.lexical.judge import Evidence

    found = Evidence()
    found.uncovered_weight, found.window, found.names_missing = uncovered, (None,) * window, names
    found.sentences, found.passages, found.failure = sentences, passages, ("number", "x") if failed else None
    expected = (0.0, 0.0, min(uncovered, 3.0), 0.0, max(window - 1, 0), 1.0 if failed else 0.0, min(names, 2),
                1.0 if passages > 1 else 0.0, 0.0, 0.0, math.log1p(min(sentences, 100)), 0.0, 0.0)
    got = found.features()
    assert got == expected and list(map(type, got)) == list(map(type, expected))
