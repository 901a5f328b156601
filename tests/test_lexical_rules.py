"""The lexical judge's rules are one registry (``RULES``), applied in its order: ``RULE_ORDER`` is
the order of their families, the clause rule last, and the failure reported among sentences that
each hold the whole claim is the one of the latest family."""

from __future__ import annotations

from pytest_sprout.judges.lexical import RULE_ORDER, RULES, LexicalJudge


def test_rule_order_is_the_order_of_the_families_in_the_registry() -> None:
    families = [r.family for r in RULES if r.stage == "evidence"]
    assert list(RULE_ORDER[:-1]) == list(dict.fromkeys(families)) and RULE_ORDER[-1] == "clause"
    # a family's rules are next to each other: the order of the families is the order of the rules
    runs = [f for i, f in enumerate(families) if i == 0 or families[i - 1] != f]
    assert len(runs) == len(set(runs)), runs
    assert len({r.name for r in RULES}) == len(RULES)


def test_every_family_reports_its_own_name() -> None:
    """A claim that fails exactly one rule against one sentence, per family: the verdict names it."""
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
