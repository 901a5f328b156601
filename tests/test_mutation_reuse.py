"""--sprout-mutate reads a case's passages once, not once per mutant (issue 23, defect 30): a long
passage cited by many sentences made the operators and the judge redo the same work for every
sentence and operator (200 sentences against a 640 KB passage: 77 s, against 1 s unmutated).

The work is counted, not timed: how many verdicts the judge computes, how many times it runs its
rules, and how many times the operators search the long passage's text."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_sprout.checks import operators, words
from pytest_sprout.checks.mutation import mutant_rows
from pytest_sprout.core.model import Answer
from pytest_sprout.judges.lexical import LexicalJudge

SENTENCE = "Snake plants tolerate low light"


class _Tier:
    def __init__(self) -> None:
        self.judge = LexicalJudge()


def _case(sentences: int, passage_sentences: int) -> tuple[Answer, list[dict[str, Any]]]:
    answer = Answer.from_text(f"{SENTENCE} [1]. " * sentences, [f"{SENTENCE}. " * passage_sentences])
    return answer, [{"text": s.text, "supported": True} for s in answer.sentences]


def _count_rules(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"assess": 0, "rules": 0}
    assess, rules = LexicalJudge.assess, LexicalJudge._rules

    def counted_assess(self, claim, sources):  # type: ignore[no-untyped-def]
        counts["assess"] += 1
        return assess(self, claim, sources)

    def counted_rules(*args, **kwargs):  # type: ignore[no-untyped-def]
        counts["rules"] += 1
        return rules(*args, **kwargs)

    monkeypatch.setattr(LexicalJudge, "assess", counted_assess)
    monkeypatch.setattr(LexicalJudge, "_rules", counted_rules)
    return counts


def test_repeated_mutants_are_judged_once_and_repeated_passage_sentences_ruled_once(monkeypatch) -> None:
    """Regression: repro 30 (30-mutate-reanalyses-passage-per-mutant)."""
    answer, rows = _case(40, 3000)
    counts = _count_rules(monkeypatch)
    found = mutant_rows(_Tier(), answer, rows)
    assert found is not None and len(found) >= 40 * 4  # every sentence's mutants are rows
    distinct = {r["mutant"] for r in found}
    assert counts["assess"] == len(distinct)  # 40 copies of one sentence: its mutants once each
    # Each of the 3,000 passage sentences holds every word of a negated copy; they are one text.
    assert counts["rules"] <= 4 * len(distinct)
    killed = {r["operator"]: r["killed"] for r in found}
    assert killed["negation"] is True


def test_the_verdicts_are_those_of_judging_each_mutant_alone() -> None:
    """Regression: repro 30 (30-mutate-reanalyses-passage-per-mutant)."""
    answer, rows = _case(3, 50)
    together = mutant_rows(_Tier(), answer, rows)
    assert together is not None
    for row in together:
        cited = [p for p in (answer.passage(c) for c in row["citations"]) if p is not None]
        alone = LexicalJudge().judge(row["mutant"], cited)
        assert (not alone.supported, alone.reason, alone.evidence) == (row["killed"], row["reason"], row["evidence"])


class _CountingRe:
    """The ``re`` module as the operators see it, counting searches of long texts."""

    def __init__(self, long: int) -> None:
        self.long, self.calls = long, 0

    def __getattr__(self, name: str) -> Any:
        found = getattr(re, name)
        if name == "compile":
            return lambda *args, **kwargs: _CountingPattern(self, found(*args, **kwargs))
        if name not in ("search", "finditer", "findall", "match"):
            return found

        def counted(pattern, string, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.saw(string)
            return found(pattern, string, *args, **kwargs)
        return counted

    def saw(self, string: object) -> None:
        if isinstance(string, str) and len(string) >= self.long:
            self.calls += 1


class _CountingPattern:
    def __init__(self, counter: _CountingRe, pattern: re.Pattern[str]) -> None:
        self.counter, self.pattern = counter, pattern

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.pattern, name)
        if name not in ("search", "finditer", "findall", "match"):
            return found

        def counted(string, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.counter.saw(string)
            return found(string, *args, **kwargs)
        return counted


def _passage_searches(monkeypatch: pytest.MonkeyPatch, sentences: int) -> int:
    """How many times the operators search a long passage while mutating every sentence of an
    answer of ``sentences`` distinct sentences that cite it."""
    from pytest_sprout.checks import numbers

    passage = "Marta grows snake plants in Lisbon. " + f"{SENTENCE} in the hall. " * 2000
    text = " ".join(f"{SENTENCE} for {k + 2} weeks in Lisbon [1]." for k in range(sentences))
    answer = Answer.from_text(text, [passage])
    counter = _CountingRe(len(passage))
    for module in (operators, words, numbers):
        monkeypatch.setattr(module, "re", counter)
    for cache in (words._has_word, operators._mentions_in, operators._entities, operators._occurrences,
                  operators._aliases, operators._listed_together, numbers._numbers_of):
        cache.cache_clear()
    for i in range(len(answer.sentences)):
        assert operators.mutate_sentence(answer, i)
    monkeypatch.undo()
    return counter.calls


def test_the_operators_search_a_long_passage_once_per_word_not_per_sentence(monkeypatch) -> None:
    # The operators ask a passage about each word once, whichever sentence asks: the count grows
    # with the words the sentences bring (here a new number each), not with their number times
    # the operators (four times the sentences read the passage four times as often before).
    """Regression: repro 30 (30-mutate-reanalyses-passage-per-mutant)."""
    few, many = _passage_searches(monkeypatch, 10), _passage_searches(monkeypatch, 40)
    assert 0 < few <= many < 2 * few, (few, many)
