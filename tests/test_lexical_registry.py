"""The registry of the lexical judge's rules (``RULES``): every rule's hand examples, and rules
switched off with ``LexicalJudge(disabled=...)``."""

from __future__ import annotations

import json

import pytest

from pytest_sprout.judges.lexical import RULES, LexicalJudge, Rule

FAILING = [pytest.param(rule, claim, evidence, id=f"{rule.name}-{i}")
           for rule in RULES for i, (claim, evidence) in enumerate(rule.must_fail)]
PASSING = [pytest.param(rule, claim, evidence, id=f"{rule.name}-{i}")
           for rule in RULES for i, (claim, evidence) in enumerate(rule.must_pass)]


def _key(verdict):  # type: ignore[no-untyped-def]
    return verdict.supported, verdict.rule, verdict.reason


# Rules that only act on another's failure: they are tried alone with it.
NEEDS = {"quantifier_whole": {"quantifiers"}, "negated_clause_stated": {"negation"}}


@pytest.mark.parametrize(("rule", "claim", "evidence"), FAILING)
def test_a_rule_rejects_its_examples_and_decides_them(rule: Rule, claim: str, evidence: str) -> None:
    """The judge rejects the claim; so does the rule alone (every other rule off), with its family,
    and with it off too the verdict changes: it is this rule that catches the phenomenon."""
    assert LexicalJudge().judge(claim, [evidence]).supported is False
    others = {r.name for r in RULES} - {rule.name} - NEEDS.get(rule.name, set())
    alone = LexicalJudge(disabled=others).judge(claim, [evidence])
    assert (alone.supported, alone.rule) == (False, rule.family), alone.reason
    assert _key(LexicalJudge(disabled=others | {rule.name}).judge(claim, [evidence])) != _key(alone)


@pytest.mark.parametrize(("rule", "claim", "evidence"), PASSING)
def test_a_rule_accepts_what_it_must_pass(rule: Rule, claim: str, evidence: str) -> None:
    verdict = LexicalJudge().judge(claim, [evidence])
    assert verdict.supported is True, verdict.reason


def test_every_rule_has_hand_examples() -> None:
    assert [r.name for r in RULES if not (r.must_fail and r.must_pass)] == []


def test_every_rule_says_what_it_catches() -> None:
    assert [r.name for r in RULES if not r.doc] == []


def test_a_rule_is_made_as_the_issue_names_its_fields() -> None:
    # The public shape: Rule(name, family, soft, check, must_fail, must_pass), the rest by keyword.
    fail, ok = (("claim", "evidence"),), (("claim", "claim"),)
    rule = Rule("x", "entity", False, lambda c: None, fail, ok)
    assert (rule.must_fail, rule.must_pass, rule.stage, rule.doc) == (fail, ok, "evidence", "")


def test_disabled_rules_are_named_in_the_settings_and_checked() -> None:
    plain, off = LexicalJudge().settings(), LexicalJudge(disabled={"swap", "numbers"}).settings()
    assert plain["disabled"] == [] and off["disabled"] == ["numbers", "swap"] and plain != off
    assert json.loads(json.dumps(off)) == off
    with pytest.raises(ValueError, match="no rule named 'nope'"):
        LexicalJudge(disabled={"nope"})
    with pytest.raises(ValueError, match="collection of rule names"):
        LexicalJudge(disabled="swap")


def test_a_disabled_rule_decides_nothing() -> None:
    claim, evidence = "Water the fern every 3 days.", "Water the fern every 5 days."
    assert LexicalJudge().judge(claim, [evidence]).rule == "number"
    assert LexicalJudge(disabled={"numbers"}).judge(claim, [evidence]).rule != "number"
