"""A clause added to a sentence of the evidence (issue 26, item 1): what the evidence holds only
through the rest of the claim does not support the claim."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, analyse
from pytest_sprout.judges.lexical.evidence import _added_clause

judge = LexicalJudge().judge

# --- an added clause: its only covered word is a word of the rest of the claim ----------------------


@pytest.mark.parametrize(("claim", "passage", "shown"), [
    # 'roots' is the first clause's 'rooted': the added clause has no word of its own in the evidence
    ("Snake plant leaves can be rooted in soil or water, because the roots store extra sugar at night.",
     "Snake plant leaves can be rooted in soil or water. Keep them warm.", "store extra sugar night"),
    # one word of its own ('keeps', from the next sentence) is no sign the evidence says it
    ("Pothos does well in normal household air, and this also keeps slugs away.",
     "Pothos does well in normal household air. Trim long vines to keep the plant bushy.", "slugs away"),
])
def test_a_clause_the_evidence_holds_only_through_the_rest_of_the_claim_is_caught(
        claim: str, passage: str, shown: str) -> None:
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "clause"), verdict.reason
    assert verdict.reason.startswith(f"the clause '{shown}' is not in the evidence")


@pytest.mark.parametrize(("claim", "passage"), [
    # the last clause has two words of its own in the evidence: a paraphrase, not an addition
    ("Peace lilies like shade, and their leaves droop when the soil gets dry.",
     "Peace lilies like shade. Their leaves droop when they are thirsty."),
    # the evidence lacks words of the other clauses too: left to the coverage and the score
    ("Peace lilies love deep shade, and they bloom during the summer months.",
     "Peace lilies like shade. They bloom in summer."),
])
def test_a_last_clause_with_words_of_its_own_or_other_gaps_is_no_added_clause(claim: str, passage: str) -> None:
    verdict = judge(claim, [passage])
    assert verdict.rule != "clause" or not verdict.reason.startswith("the clause"), verdict.reason


def test_added_clause_reads_the_last_clause_only() -> None:
    ours = analyse("The roots store extra sugar at night, and snake plant leaves can be rooted in water.")
    uncovered = {k for k in ours.keys if k not in analyse("Snake plant leaves can be rooted in water.").keys}
    assert _added_clause(ours, uncovered) is None  # the uncovered clause comes first
    one = analyse("Snake plants store extra sugar at night.")
    assert _added_clause(one, set(one.keys)) is None  # one clause: the rest of the claim is nothing
