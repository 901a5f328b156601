"""pytest_sprout.strategies: what the strategies yield, used as a user would, and that the plugin
never imports them (nor hypothesis) at start-up."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.strategies import OPERATORS, facts, mutated_claims, supported_claims


@settings(max_examples=100, deadline=None)
@given(supported_claims())
def test_supported_claims_are_sentences_of_their_passage_and_the_lexical_judge_agrees(case: tuple[str, str]) -> None:
    passage, claim = case
    assert claim in passage
    assert LexicalJudge().judge(claim, [passage]).supported is True


@settings(max_examples=50, deadline=None)
@given(facts(count=4))
def test_facts_share_no_name_number_or_place(sentences: list[str]) -> None:
    assert len(sentences) == 4
    words = [set(s.rstrip(".").split()) for s in sentences]
    for i in range(4):
        for j in range(i + 1, 4):
            shared = words[i] & words[j]
            assert shared <= {"usually", "often", "sometimes", "rarely", "the", "near", "every", "days", "weeks", "months"}, shared


@settings(max_examples=100, deadline=None)
@given(mutated_claims())
def test_mutated_claims_are_never_sentences_of_the_passage_they_are_judged_against(case: tuple[str, str, str]) -> None:
    passage, claim, operator = case
    assert operator in OPERATORS
    if operator == "citation_move":
        assert claim not in passage  # the claim is true of another passage, not of this one
    else:
        assert claim not in [s.strip() + "." for s in passage.split(".")]


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_operators_can_be_chosen(data: st.DataObject) -> None:
    _, _, operator = data.draw(mutated_claims(operators=["number"]))
    assert operator == "number"


def test_unknown_operator_is_an_error() -> None:
    @given(mutated_claims(operators=["shuffle"]))
    def use(case: tuple[str, str, str]) -> None:
        raise AssertionError("drew a case for an unknown operator")

    with pytest.raises(ValueError, match="unknown operators"):
        use()


def test_the_plugin_does_not_import_hypothesis_or_the_strategies() -> None:
    code = (
        "import sys, pytest_sprout.plugin, pytest_sprout.session, pytest_sprout.checks.mutation, pytest_sprout.checks.agreement; "
        "print(sorted(m for m in ('hypothesis', 'pytest_sprout.strategies', 'pytest_sprout.cli.metaeval') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
