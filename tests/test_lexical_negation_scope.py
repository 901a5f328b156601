"""The lexical judge's negation on LLM-written answers (issue 26): negative verbs, polarity in the
clause it is about, the words around a negation, "It is not true that X" and litotes. Each reading
with a claim it must reject and one it must not."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence


def judge(claim: str, *passages: str):
    return LexicalJudge().judge(claim, list(passages))


# --- negative verbs: "failed to", "lacks", "refused to", "prevented from" negate what follows ------


@pytest.mark.parametrize(("claim", "passage"), [
    ("The director did not get the balance right.", "The director failed to get the balance right."),
    ("The director did not get the balance right in the film.",
     "Critics said the director failed to get the balance right, and the film flopped."),
    ("The cell does not have a nucleus.", "The cell lacks a nucleus."),
    ("He did not sign the treaty.", "He refused to sign the treaty."),
    ("The guards could not enter the building.", "The guards were prevented from entering the building."),
    ("She did not finish the race.", "She never managed to finish the race."),
    ("The contact lens does not move during sleep.", "The tear film prevents the contact lens from moving."),
    ("The director failed to get the balance right.", "The director did not get the balance right."),
])
def test_a_negation_the_evidence_says_with_a_negative_verb_agrees(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage", "cue"), [
    ("The director got the balance right.", "The director failed to get the balance right.", "failed"),
    ("The director got the balance right in the film.",
     "Critics said the director failed to get the balance right, and the film flopped.", "failed"),
    ("The cell has a nucleus.", "The cell lacks a nucleus.", "lacks"),
    ("He signed the treaty.", "He refused to sign the treaty.", "refused"),
    ("The guards entered the building.", "The guards were prevented from entering the building.", "prevented"),
    ("She finished the race.", "She never managed to finish the race.", "never"),
])
def test_a_claim_that_drops_the_negative_verb_of_its_evidence_is_rejected(claim: str, passage: str, cue: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason
    assert f"('{cue}')" in verdict.reason


def test_a_negative_verb_is_a_cue_only_where_it_takes_what_it_negates() -> None:
    assert Sentence("He failed to win.").clauses()[0].denied
    assert not Sentence("The engine failed.").clauses()[0].denied  # no "to": it broke down
    assert not Sentence("A lack of sleep causes fatigue.").clauses()[0].denied  # a cause named, nothing denied
    # "prevent" without "from" is no cue, and a claim that uses it so may still say "no"
    wheels = judge("Thick wheels prevent tripping over the board.",
                   "Thick wheels prevent the rider from tripping over the board.")
    assert wheels.supported is True, wheels.reason
    # a negation and a negative verb cancel: "not to prevent X" is not what "to prevent X" says
    assert judge("The law is not meant to prevent a dictator from seizing power.",
                 "The law is meant to prevent a dictator from seizing power.").rule == "negation"


# --- polarity in scope: a "no" elsewhere in the evidence sentence is no paraphrase of the claim's ---


def test_a_no_in_another_clause_of_the_evidence_does_not_excuse_a_negation() -> None:
    evidence = ("Not every party can get into parliament: only those that overcome the 5-percent threshold are"
                " allowed to take seats. The rule gives the Bundestag stability.")
    negated = judge("Parties that overcome the 5-percent threshold are not allowed to take seats in the Bundestag.",
                    evidence)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason
    kept = judge("Parties that overcome the 5-percent threshold are allowed to take seats in the Bundestag.", evidence)
    assert kept.supported is True, kept.reason
    # the "no" in the clause about those words is a paraphrase, and only weighed
    hedged = judge("The old lamp does not give light in the evening.", "The old lamp barely gives light.")
    assert hedged.supported is True and "weighed" in hedged.reason, hedged.reason


def test_an_unless_qualifies_the_clause_it_is_attached_to() -> None:
    evidence = "The estate is administered by the mother unless a will says otherwise."
    paraphrase = judge("The estate is not administered by the mother if a will says otherwise, as it turns out.",
                       evidence)
    assert paraphrase.supported is True, paraphrase.reason


def test_a_negated_clause_whose_words_the_evidence_spreads_over_sentences_is_rejected() -> None:
    evidence = ("In any quantity of water, molecules move at different speeds. Even at room temperature, some break"
                " free from the surface. This is the process we know as evaporation.")
    negated = judge("Water cannot evaporate at room temperature because some molecules break free.", evidence)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason


# --- the words around a negation: an evidence clause that says them without it ---------------------


def test_a_negation_of_the_words_an_evidence_clause_states_is_rejected() -> None:
    evidence = ("Undocumented workers have a negligible impact on the wages of documented workers, according to a"
                " paper by the Federal Reserve Bank of Atlanta. Workers at a firm that does not employ undocumented"
                " workers earn slightly more.")
    negated = judge("A study by the Federal Reserve Bank of Atlanta found that undocumented workers do not have a"
                    " negligible impact on the wages of documented workers.", evidence)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason
    kept = judge("A study by the Federal Reserve Bank of Atlanta found that undocumented workers have a"
                 " negligible impact on the wages of documented workers.", evidence)
    assert kept.supported is True, kept.reason
    assert [sorted(site) for _, site in Sentence("Undocumented workers do not have a negligible impact on wages.")
            .sites()] == [["impact", "negligibl", "worker"]]


# --- "It is not true that X": false where the evidence states X --------------------------------------


def test_it_is_not_true_that_denies_all_of_what_follows() -> None:
    evidence = ("Since his breakthrough, a famous Nineties photo-shoot for the British designer Katharine Hamnett,"
                " Richardson has become the go-to guy for brands.")
    denied = judge("It is not true that Richardson has become the go-to guy for brands since his breakthrough.",
                   evidence)
    assert (denied.supported, denied.rule) == (False, "negation"), denied.reason
    after_a_connective = judge("As a result, it is not true that Richardson has become the go-to guy for brands.",
                               evidence)
    assert (after_a_connective.supported, after_a_connective.rule) == (False, "negation"), after_a_connective.reason


# --- a negation that denies the clause after it: "is not that when X, Y", "is not believed that" ---


def test_a_denial_after_a_copula_reaches_the_next_clause() -> None:
    clauses = Sentence("The reason is not that when a system is isolated, its momentum is conserved.").clauses()
    assert [c.negated for c in clauses] == [True, True, False]
    evidence = "In an isolated system, the total angular momentum has to be conserved."
    denied = judge("The reason for this is not that when a system is isolated, the total angular momentum has to be"
                   " conserved.", evidence)
    assert (denied.supported, denied.rule) == (False, "negation"), denied.reason
    said = judge("The reason for this is that when a system is isolated, the total angular momentum has to be"
                 " conserved.", evidence)
    assert said.supported is True, said.reason
    # after a verb, "not because" gives the reason of an elided verb: no denial of what follows
    assert [c.negated for c in Sentence("Pi bonds do not rotate, and sigma bonds do not because they are"
                                        " single bonds.").clauses()][-1] is False


# --- a "not" that asks or raises, and "zero" as "no" (rules_version 13) ------------------------------


@pytest.mark.parametrize("text", [
    "Agnostics are unsure whether God exists or not.",
    "Agnostics are unsure if there is a God or not, and say so.",
    "They asked whether or not the drug has side effects.",
])
def test_an_or_not_that_only_asks_negates_nothing(text: str) -> None:
    assert not any(c.negated for c in Sentence(text).clauses())


def test_an_or_not_before_a_word_of_its_clause_still_negates() -> None:
    # "or not water it": a choice stated, not asked; the cue stays
    assert any(c.negated for c in Sentence("You can water it daily or not water it at all.").clauses())


@pytest.mark.parametrize(("text", "negated"), [
    ("Much if not most of their value benefits the native population.", False),
    ("It takes weeks if not months to heal.", False),
    ("It is one of the best, if not the best, of the lamps.", False),
    ("The wound spreads if not treated.", True),  # a condition: "if it is not treated"
    ("If not treated, the wound spreads.", True),
])
def test_an_if_not_that_raises_is_no_negation(text: str, negated: bool) -> None:
    assert any(c.negated for c in Sentence(text).clauses()) is negated


def test_an_evidence_sentence_that_says_no_with_zero_is_no_plain_statement() -> None:
    # (an LFQA answer sentence people called supported) the evidence sentence that holds all of the
    # claim clause's words says "no" with "zero": it does not state them without negation
    claim = "Furthermore, they were aware of the case of England's King George I, who was a Hanoverian who spoke no English."
    evidence = ("Keep in mind, too, that dynasties occasionally shuffled around Europe regardless of national origin;"
                " England's King George I, for example, was a Hanoverian who spoke {} English.")
    said = judge(claim, evidence.format("zero"))
    assert said.supported is True, said.reason
    # the same sentence without "zero" states the words plainly: the "no" the claim adds is rejected
    added = judge(claim, evidence.format("fluent"))
    assert (added.supported, added.rule) == (False, "negation"), added.reason


def test_a_negation_that_stands_for_the_object_ends_its_clause_before_and() -> None:
    clauses = Sentence("The accent favoured neither and was consciously learned by actors.").clauses()
    assert [(sorted(c.keys), c.negated) for c in clauses] == [(["accent", "favour"], True),
                                                              (["actor", "consciousli", "learn"], False)]
    evidence = "This consciously learned accent was a blend of two accents which favoured neither."
    said = judge("The accent was a blend of two accents which favoured neither and was consciously learned.", evidence)
    assert said.supported is True, said.reason


def test_a_without_clause_of_the_aligned_sentence_says_the_claims_negation() -> None:
    evidence = "Moreover, saccharin passes through the body without being metabolized and thus has no caloric content."
    said = judge("Saccharin is not metabolized by the body.", evidence)
    assert said.supported is True, said.reason
    # a negation in another clause that is not opened by "without" is about something else
    passage = "A yellow leaf never turns green again, so remove it once more than half of it has yellowed."
    added = judge("A yellow leaf never turns green again, so remove it once more than half of it has not yellowed.",
                  passage)
    assert (added.supported, added.rule) == (False, "negation"), added.reason
