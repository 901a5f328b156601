"""Answer parsing: ALCE markers, sentence boundaries, coercion of what systems return."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_sprout.core.model import ABBREVIATIONS, Answer, Passage, Sentence, split_sentences

PASSAGES = ["Snake plants tolerate low light.", "Water every 2.5 weeks in winter.", "Pothos trails."]


def parse(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.text, s.citations) for s in Answer.from_text(text, PASSAGES).sentences]


def test_marker_before_full_stop() -> None:
    assert parse("Snake plants tolerate low light [1]. Pothos trails [3].") == [
        ("Snake plants tolerate low light.", ("1",)),
        ("Pothos trails.", ("3",)),
    ]


def test_marker_after_full_stop_belongs_to_the_sentence_before() -> None:
    assert parse("Snake plants tolerate low light.[1] Pothos trails. [3] Done.") == [
        ("Snake plants tolerate low light.", ("1",)),
        ("Pothos trails.", ("3",)),
        ("Done.", ()),
    ]


def test_adjacent_and_comma_markers() -> None:
    assert parse("Both hold [1][2]. Also this [1, 3].") == [
        ("Both hold.", ("1", "2")),
        ("Also this.", ("1", "3")),
    ]


def test_abbreviations_and_decimals_do_not_split() -> None:
    text = "Dr. Green waters e.g. ferns every 2.5 days, i.e. often [2]. Mr. Smith agrees [1]."
    assert [t for t, _ in parse(text)] == [
        "Dr. Green waters e.g. ferns every 2.5 days, i.e. often.",
        "Mr. Smith agrees.",
    ]


def test_question_and_exclamation_marks_split() -> None:
    assert split_sentences("Is it dry? Water it! Then wait.") == ["Is it dry?", "Water it!", "Then wait."]


def test_citation_to_a_missing_passage_is_kept_and_reported() -> None:
    answer = Answer.from_text("Cacti need sun [7].", PASSAGES)
    sentence = answer.sentences[0]
    assert sentence.citations == ("[7]",)
    found, missing = answer.cited(sentence)
    assert found == [] and missing == ["[7]"]


def test_passage_ids_are_kept_from_dicts() -> None:
    answer = Answer.from_text("Low light is fine [1].", [{"id": "doc-9", "text": "Low light is fine.", "title": "T"}])
    assert answer.sentences[0].citations == ("doc-9",)
    assert answer.passages[0] == Passage("doc-9", "Low light is fine.", "T")


def test_refusals_are_recognised() -> None:
    assert Answer.from_text("I don't know based on these documents.", PASSAGES).refused
    assert Answer.from_text("", PASSAGES).refused
    assert not Answer.from_text("Snake plants tolerate low light [1].", PASSAGES).refused


@pytest.mark.parametrize(
    "value",
    [
        ("Pothos trails [3].", PASSAGES),
        {"text": "Pothos trails [3].", "passages": PASSAGES},
        {"answer": "Pothos trails [3].", "passages": PASSAGES},
        {"sentences": [{"text": "Pothos trails.", "citations": ["3"]}], "passages": PASSAGES},
    ],
)
def test_coerce_accepts_what_systems_return(value: object) -> None:
    answer = Answer.coerce(value)
    assert answer.sentences == (Sentence("Pothos trails.", ("3",)),)


def test_coerce_rejects_other_types_with_a_clear_message() -> None:
    with pytest.raises(TypeError, match="expected an Answer"):
        Answer.coerce(42)


def test_json_round_trip() -> None:
    answer = Answer.from_text("Both hold [1][2]. Pothos trails [3].", PASSAGES)
    again = Answer.from_json(answer.to_json())
    assert again.sentences == answer.sentences and again.passages == answer.passages


words = st.sampled_from("water light soil leaf root pot plant fern moss sun shade".split())
sentence_st = st.lists(words, min_size=2, max_size=8).map(lambda ws: " ".join(ws).capitalize() + ".")


@given(st.lists(st.tuples(sentence_st, st.lists(st.integers(1, 3), max_size=2, unique=True)), min_size=1, max_size=5))
def test_rendered_markers_parse_back(parts: list[tuple[str, list[int]]]) -> None:
    """Any sentence list with markers before the full stop parses back to the same sentences."""
    text = " ".join(s[:-1] + "".join(f" [{k}]" for k in ks) + "." for s, ks in parts)
    parsed = parse(text)
    assert [t for t, _ in parsed] == [s for s, _ in parts]
    assert [c for _, c in parsed] == [tuple(str(k) for k in ks) for _, ks in parts]


def test_words_that_end_sentences_more_often_than_they_abbreviate() -> None:
    assert split_sentences("Prune the fiddle-leaf fig. The cuts heal fast.") == [
        "Prune the fiddle-leaf fig.", "The cuts heal fast."
    ]
    assert split_sentences("Is it toxic? No. Water for 10 min. Then drain.") == [
        "Is it toxic?", "No.", "Water for 10 min.", "Then drain."
    ]


@pytest.mark.parametrize("refused", ["false", "no", "0", 0, 1, "true"])
def test_refused_is_a_boolean_never_a_truthy_string(refused: object) -> None:
    """bool("false") is True: a JSON service that sends booleans as strings would have every
    answer thrown away as a refusal. Only True, False or no key at all is accepted.
    Regression: repro 24 (24-answer-coercion-refused-string-bytes)."""
    with pytest.raises(TypeError, match=r"'refused' must be true or false, got " + repr(refused).replace("'", "'")):
        Answer.coerce({"text": "Snake plants tolerate low light [1].", "passages": PASSAGES, "refused": refused})
    assert not Answer.coerce({"text": "Snake plants tolerate low light [1].", "passages": PASSAGES, "refused": False}).refused
    assert Answer.coerce({"text": "Snake plants tolerate low light [1].", "passages": PASSAGES, "refused": True}).refused


def test_bytes_answers_and_passages_are_decoded_not_judged_as_their_repr() -> None:
    """Regression: repro 24 (24-answer-coercion-refused-string-bytes)."""
    answer = Answer.coerce({"text": b"Snake plants tolerate low light [1].",
                            "passages": [{"id": b"doc-1", "text": b"Snake plants tolerate low light."}]})
    assert answer.passages == (Passage("doc-1", "Snake plants tolerate low light."),)
    assert answer.sentences == (Sentence("Snake plants tolerate low light.", ("doc-1",)),)
    pair = Answer.coerce((b"Pothos trails [1].", [b"Pothos trails."]))
    assert pair.passages[0].text == "Pothos trails." and pair.sentences[0].text == "Pothos trails."
    with pytest.raises(TypeError, match=r"passage 1's 'text' is bytes that are not UTF-8 \(byte 0xff at offset 0\)"):
        Answer.coerce({"text": "x [1].", "passages": [{"text": b"\xffoops"}]})


def _split_by_characters(text: str) -> list[str]:
    """split_sentences as it was written first, one character at a time: the oracle for the
    version that jumps from one end mark or paragraph break to the next."""
    from pytest_sprout.core.sentences import _is_boundary

    markers_run = re.compile(r"(?:\s*\[\s*\d+(?:\s*,\s*\d+)*\s*\])+")  # citation markers after an end mark
    sentences: list[str] = []
    start = i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in ".!?":
            j = i + 1
            while j < n and text[j] in ".!?\"')\u201d\u2019":
                j += 1
            run = markers_run.match(text, j)
            if run:
                j = run.end()
            if (j >= n or text[j].isspace()) and _is_boundary(text, i):
                piece = text[start:j].strip()
                if piece:
                    sentences.append(piece)
                start = i = j
                continue
            i = j
            continue
        if ch == "\n" and i + 1 < n and text[i + 1] == "\n":
            piece = text[start:i].strip()
            if piece:
                sentences.append(piece)
            start = i
        i += 1
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


_PIECES = st.sampled_from(["Snake plants", " ", "  ", "\n", "\n\n", "\n\n\n", ".", "..", "!", "?", "?!", '"', "'",
                           ")", "\u201d", "\u2019", "[1]", " [2, 3]", "[ 4 ]", "e.g.", "Dr.", "U.S.", "J.", "2.5",
                           "a.m.", "cm.", "(", "etc.", "Water it", "x", "x" * 40, "b.c"])


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_split_sentences_is_the_character_scan(text: str) -> None:
    assert split_sentences(text) == _split_by_characters(text)


def test_no_abbreviation_is_as_long_as_the_tail_that_ends_a_sentence() -> None:
    """``_is_boundary`` ends a sentence at once after seven characters of a word without a point."""
    assert max(map(len, ABBREVIATIONS)) < 7


def test_a_word_longer_than_the_lookback_before_a_point_is_read_whole() -> None:
    """``_is_boundary`` looks for the word before a point in the few characters before it, then in
    the whole text before it."""
    text = "(" + "z" * 50 + ".b.c. end. " + "y" * 45 + ". Then (Dr. Who) left!? Yes [1]. [2] No."
    assert split_sentences(text) == ["(" + "z" * 50 + ".b.c.", "end.", "y" * 45 + ".", "Then (Dr. Who) left!?",
                                     "Yes [1]. [2]", "No."]
    assert split_sentences(text) == _split_by_characters(text)
