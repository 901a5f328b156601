"""The lexical judge's rules are named and applied in one order (the "how to add a rule" checklist
in the package docstring): ``RULE_ORDER`` is the order of the calls in ``LexicalJudge._rules``, with
the clause rule last, and the failure reported among sentences that each hold the whole claim is
the one of the latest rule."""

from __future__ import annotations

import ast
import inspect
import textwrap

from pytest_sprout.judges.lexical import RULE_ORDER, LexicalJudge, names, polarity, rules

# Each rule function and the rule name it reports.
RULE_OF = {"check_displaced_name": "entity", "check_numbers_in": "number", "check_quantifiers": "quantifier",
           "check_negation": "negation", "check_antonyms": "antonym", "check_swap": "entity-swap",
           "check_stitched": "stitched"}


def test_rule_order_is_the_order_of_the_calls_in_rules() -> None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(LexicalJudge._rules)))
    calls = sorted((node.lineno, node.col_offset, node.func.id) for node in ast.walk(tree)
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in RULE_OF)
    assert [RULE_OF[name] for _, _, name in calls] == list(RULE_ORDER[:-1])
    assert RULE_ORDER[-1] == "clause"


def test_every_rule_function_reports_its_own_name() -> None:
    """A claim that fails exactly one rule against one sentence, per rule: the verdict names it."""
    judge = LexicalJudge()
    cases = {
        "number": ("Water the fern every 3 days.", "Water the fern every 5 days."),
        "quantifier": ("All ferns like humid air.", "Some ferns like humid air."),
        "negation": ("Ferns do not like humid air.", "Ferns like humid air."),
        "entity-swap": ("Dogs are more sensitive to lilies than cats.", "Cats are more sensitive to lilies than dogs."),
        "stitched": ("Body armor typically wears a vest rated at level three.",
                     "Police patrol officers typically wear a vest rated at level three. Body armor is heavy."),
        "clause": ("Peace lilies are toxic to cats.", "Peace lilies like shade."),
    }
    for rule, (claim, passage) in cases.items():
        verdict = judge.judge(claim, [passage])
        assert (verdict.supported, verdict.rule) == (False, rule), (claim, verdict.reason)
    for name in RULE_OF:  # each in the module of its phenomenon
        assert sum(callable(getattr(module, name, None)) for module in (rules, polarity, names)) == 1, name


def test_among_whole_sentences_that_fail_the_latest_rule_is_reported() -> None:
    """Two sentences hold every word of the claim; the first fails the entity-swap rule, the second
    the quantifier rule, which comes earlier: the verdict reports the swap, whichever comes first
    in the passage."""
    claim = "Dogs are more sensitive than cats to all lilies."
    swapped, hedged = "Cats are more sensitive than dogs to all lilies.", "Dogs are more sensitive than cats to some lilies."
    assert RULE_ORDER.index("quantifier") < RULE_ORDER.index("entity-swap")
    for passage in (f"{swapped} {hedged}", f"{hedged} {swapped}"):
        verdict = LexicalJudge().judge(claim, [passage])
        assert (verdict.supported, verdict.rule, verdict.evidence) == (False, "entity-swap", swapped), verdict.reason
