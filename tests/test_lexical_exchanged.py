"""Names that trade places, and a name put where an evidence sentence has another (issue 26, the
entity swaps of real answers): what each name stands next to in the claim must be what it stands
next to in the evidence, not what the other name does."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, analyse
from pytest_sprout.judges.lexical.names import check_name_in_place, check_names_exchanged

judge = LexicalJudge().judge

HERO = "At the time, Lafayette, a hero of the Revolutionary War, was popular in the New World."


def test_two_names_that_trade_places_across_clauses_are_caught() -> None:
    # the commas set the clauses apart, so word order alone (the transposition rule) says nothing
    claim = "At the time, Lafayette, a hero of the New World, was popular in the Revolutionary War."
    verdict = judge(claim, [HERO])
    assert (verdict.supported, verdict.rule) == (False, "entity-swap"), verdict.reason
    assert "claim swaps 'New World' and 'Revolutionary War' relative to the evidence sentence" in verdict.reason
    assert judge(HERO, [HERO]).supported is True


def test_a_hyphenated_name_is_a_name_and_can_trade_places() -> None:
    assert "atlantic" in analyse("The accent is called the Mid-Atlantic accent.").names()
    said = "Linguist William Labov notes that Mid-Atlantic speech fell out of favor after the war."
    failure = check_names_exchanged(analyse("Mid-Atlantic notes that the William Labov accent fell out of favor."),
                                    analyse(said))
    assert failure is not None and failure[0] == "entity-swap"
    assert check_names_exchanged(analyse("Labov notes that Mid-Atlantic speech fell out of favor."), analyse(said)) is None


@pytest.mark.parametrize(("claim", "passage"), [
    # the passive voice puts the agent after "by": no exchange
    ("At the time, Newton was replaced by Tate Taylor as director of the film.",
     "Tate Taylor has replaced Matthew Newton as director of the film."),
    # names of a list keep their neighbours in any order
    ("Brands such as Thermaltake and Silverstone make large cases.",
     "Brands such as Silverstone and Thermaltake make large cases."),
])
def test_names_in_the_passive_or_in_a_list_are_not_exchanged(claim: str, passage: str) -> None:
    assert check_names_exchanged(analyse(claim), analyse(passage)) is None
    assert judge(claim, [passage]).supported is True


# --- a name where an evidence sentence that holds its neighbours has another name ------------------

SERVER = ("On some days, the server of Reddit can become much more crowded. More users mean more traffic and lag. "
          "Overloaded servers give slow responses and crashes. One user blamed the subreddit Imgur for the load.")


def test_a_name_where_another_sentence_has_a_rival_is_caught_though_that_sentence_says_little_else() -> None:
    # the sentence with "Reddit" holds few of the claim's words, but those around the name
    claim = "Additionally, the server of Imgur can become more crowded on certain days, causing users lag and crashes."
    verdict = judge(claim, [SERVER])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason
    assert "claim has 'Imgur' where an evidence sentence has 'Reddit'" in verdict.reason
    assert judge(claim.replace("Imgur", "Reddit"), [SERVER]).rule != "entity"


def test_a_sentence_opening_with_a_name_another_sentence_writes_has_that_name() -> None:
    passage = ("Even in the epidemic in West Africa, where the virus is out of control, each sick person has spread "
               "Ebola to about two others. Ebola isn't spread through the air, like the measles. It requires close "
               "contact with bodily fluid.")
    claim = "At first, West Africa is not spread through the air, like the measles, but requires close contact."
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason
    assert "'Ebola'" in verdict.reason
    assert judge(claim.replace("West Africa", "Ebola"), [passage]).supported is True


def test_words_around_the_name_that_are_parts_of_the_rival_sentence_names_do_not_count() -> None:
    # "north" of the claim is part of "North America" there: that sentence holds one of the words
    # around "Southern", not two
    passage = ("Every summer, seabirds that breed in the Southern Hemisphere are on the move. "
               "Most Ospreys that breed in North America migrate to Central America for the winter.")
    claim = "Yes, there are birds from the Southern Hemisphere that migrate north for the summer."
    sentences = [analyse(s) for s in ("Every summer, seabirds that breed in the Southern Hemisphere are on the move.",
                                      "Most Ospreys that breed in North America migrate to Central America for the winter.")]
    assert check_name_in_place(analyse(claim), sentences) is None
    assert judge(claim, [passage]).rule != "entity"
