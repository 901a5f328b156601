"""The mutation operators and kill rates (checks/) without pytester: each operator on hand-picked sentences, the reviewed fixture, property
tests over generated passages, and the kill-rate accounting."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.core.model import Answer, Passage, Sentence, Verdict
from pytest_sprout.checks.mutation import (
    NO_JUDGE, STRUCTURAL_NOTE, headline, kill_rows, kill_tally, mutant_rows, mutation_report, summary_lines,
)
from pytest_sprout.checks.numbers import change_number
from pytest_sprout.checks.operators import (
    ANTONYMS, CLAUSES, OPERATORS, QUANTIFIER_CHANGES, TEXT_OPERATORS, append_clause, change_quantifier, entities,
    move_citation, mutate_sentence, mutate_text, overlap, swap_entities,
)
from pytest_sprout.checks.splice import split_clause
from pytest_sprout.core.stats import MetricRow, wilson_interval
from pytest_sprout.strategies import mutated_claims

REVIEWED = Path(__file__).parent / "data" / "mutants_reviewed.jsonl"


def reviewed() -> list[dict[str, Any]]:
    return [json.loads(line) for line in REVIEWED.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- the reviewed fixture ------------------------------------------------------------------------


def test_reviewed_fixture_covers_every_operator_with_a_rationale() -> None:
    rows = reviewed()
    for op in OPERATORS:
        assert sum(r["operator"] == op for r in rows) >= 2, op
    clauses = [r["mutant"][len(r["sentence"]) - 1:] for r in rows if r["operator"] == "unsupported_clause"]
    assert sum(bool(re.search(r"\b[A-Z]", c)) for c in clauses) >= 2  # with a proper name
    assert sum(not re.search(r"\b[A-Z]", c) for c in clauses) >= 2  # lowercase words only
    for r in rows:
        assert r["rationale"].strip() and r["sentence"] in r["passage"]
        assert r["mutant"] != r["sentence"] or r["citations"] != [r["passage_id"]]


@pytest.mark.parametrize("row", reviewed(), ids=lambda r: f"{r['operator']}:{r['sentence'][:30]}")
def test_operators_still_make_the_reviewed_mutants(row: dict[str, Any]) -> None:
    """Each mutant here was read by a person and judged unsupported (see its rationale); an operator
    change that alters one of them needs a new review, not a new expected value."""
    answer = Answer(
        sentences=(Sentence(row["sentence"], (row["passage_id"],)),),
        passages=(Passage(row["passage_id"], row["passage"]), Passage(row["other_passage_id"], row["other_passage"])),
    )
    mutants = mutate_sentence(answer, 0, [row["operator"]])
    assert [(m.sentence.text, list(m.sentence.citations)) for m in mutants] == [(row["mutant"], row["citations"])]


# --- operators on hand-picked sentences ------------------------------------------------------------

PASSAGE = "Snake plants tolerate low light. Water them every 2 to 3 weeks. Keep them above 10°C."


@pytest.mark.parametrize("text, expected", [
    ("Snake plants are hardy.", "Snake plants are not hardy."),
    ("Snake plants aren't fussy.", "Snake plants are fussy."),
    ("Snake plants do not need much water.", "Snake plants do need much water."),
    ("Snake plants can survive drought.", "Snake plants cannot survive drought."),
    ("Snake plants have thick leaves.", "Snake plants do not have thick leaves."),
    ("Snake plants have grown in offices.", "Snake plants have not grown in offices."),
    ("It tolerates low light.", "It does not tolerate low light."),
    ("They grow slowly.", "They do not grow slowly."),
    ("Keep the soil dry.", "Do not keep the soil dry."),
    ("Some plants can grow from a leaf.", "It is not true that some plants can grow from a leaf."),
    ("The plant will not only survive but thrive.", "It is not true that the plant will not only survive but thrive."),
    # a capitalised first word that is no verb is no imperative: "Do not only the gas giants ..." is no sentence
    ("Only the gas giants have rings.", "Only the gas giants do not have rings."),
    ("Through their patterns, fish can identify their species.", "Through their patterns, fish cannot identify their species."),
    ("Over the centuries, tribes have had contact with Germany.", "Over the centuries, tribes have not had contact with Germany."),
])
def test_negation(text: str, expected: str) -> None:
    assert mutate_text("negation", text, [PASSAGE]) == expected


@pytest.mark.parametrize("text, expected", [
    ("Water them every 2 to 3 weeks.", "Water them every 20 to 30 weeks."),
    ("Keep them above 10°C.", "Keep them above 100°C."),
    ("It opened in 1889.", "It opened in 1882."),
    ("About 40% of them flower.", "About 60% of them flower."),
    ("Water them every few weeks.", "Water them every few months."),
    ("It needs two hours of sun.", "It needs twenty hours of sun."),
    ("It came 2nd in the show.", None),
    ("Snake plants tolerate low light.", None),
])
def test_number_or_unit(text: str, expected: str | None) -> None:
    assert mutate_text("number", text, [PASSAGE]) == expected


def test_number_never_picks_a_value_the_passage_has() -> None:
    assert change_number("Water every 2 weeks.", ["Water every 2 or 20 weeks."])[0] == "Water every 7 weeks."


def test_entities_skip_sentence_starts_and_function_words() -> None:
    text = "From November to February the Royal Society meets in Paris. Paris is cold. Water the plant."
    assert entities(text) == ["November", "February", "Royal Society", "Paris"]
    assert entities("The University of the Ryukyus opened.") == ["University of the Ryukyus"]


def test_entity_swap_exchanges_two_names_or_replaces_one_of_the_same_kind() -> None:
    passage = "From November to February the cacti rest. The Boston fern is safe. So is the African violet."
    assert swap_entities("From November to February the cacti rest.", [passage])[0] == "From February to November the cacti rest."
    assert swap_entities("The Boston fern is safe.", [passage])[0] == "The African fern is safe."
    # Names in a list ("A, B and C") are never exchanged: in many lists the order carries no
    # meaning. Nor is one replaced by another of its list: what the passage says of one it says of
    # the other ("The African violet is safe" would be true).
    listed = "From November to February the cacti rest. The Boston fern and the African violet are safe."
    assert swap_entities("The Boston fern and the African violet are safe.", [listed]) is None
    assert swap_entities("The Boston fern is safe.", [listed]) is None


def test_entity_swap_uses_names_not_capitalised_words_and_keeps_kinds_and_whole_names() -> None:
    """What real answers' documents gave: a title's "Image" or "Follow" taken for a name, a weekday
    put in place of an organisation, one part of a product's name put in place of another."""
    passage = "Image credit: Reuters. Follow the news on Thursday. The European Union met Japan."
    assert swap_entities("The European Union has made it clear.", [passage])[0] == "The Japan has made it clear."
    assert swap_entities("The European Union met on Thursday.", ["The European Union met on Thursday. Image."]) is None
    assert swap_entities("It opened on Monday.", ["It opened on Monday. The European Union met on Friday."])[0] == "It opened on Friday."
    product = "Drano Max Gel Clog Remover clears clogs. Max Gel Clog Remover is a thick gel."
    assert swap_entities("Max Gel Clog Remover is a thick gel.", [product]) is None
    assert swap_entities("It is a sequence of DNA.", ["It is a sequence of DNA. Cells copy RNA too."])[0] == "It is a sequence of RNA."


def test_entity_swap_never_makes_a_mutant_that_says_the_same() -> None:
    """What real answers' documents gave: a sentence's opening word taken into a name ("Though
    Afeni"), a title taken for a name ("Dr"), a short form put for the name ("Pac" for "Tupac"),
    a modifier and the name it modifies exchanged ("Alfred Russel Wallace naturalist British"),
    a campus and its university exchanged, one part of a product's name put for another when
    another cited passage writes them as one name."""
    assert entities("Though Afeni left, Entertainment One paid. One of Br'er Fox's plans failed. "
                    "How CRISPR Works: Dr. Sujay Kansagra said so.") == [
        "Afeni", "Entertainment One", "Br'er Fox's", "CRISPR Works", "Sujay Kansagra"]
    text = "Dr. Sujay Kansagra suggests that dreams fade."
    assert swap_entities(text, [text]) is None
    assert swap_entities("The estate was run by Tupac's mother.",
                         ["The estate was run by Tupac's mother. Where Pac would have gone is unknown."]) is None
    for text in ("It was developed by British naturalist Alfred Russel Wallace.",
                 "Sam Parnia, of the State University of New York at Stony Brook, studied it."):
        assert swap_entities(text, [text]) is None, text
    assert swap_entities("Max Gel Clog Remover is a thick gel.", [
        "Drano Max Gel Clog Remover clears clogs.", "Drano\u00ae works. Max Gel Clog Remover is a thick gel."]) is None
    # a verb between two names: their exchange is false
    text = "Dr Dre took Eminem under his wing."
    assert swap_entities(text, [text]) == ("Eminem took Dr Dre under his wing.", "swapped 'Dr Dre' and 'Eminem'")


def test_entity_swap_leaves_aliases_alone() -> None:
    passage = "Pothos (Epipremnum aureum) trails. The Marble Queen variety fades in low light."
    assert swap_entities("The Marble Queen variety fades in low light.", [passage]) is None


@pytest.mark.parametrize("text, passage, expected", [
    ("Snake plants tolerate low light.", PASSAGE, "Snake plants tolerate high light."),
    ("Wash your hands after pruning.", "Wash your hands after pruning.", "Wash your hands before pruning."),
    ("It grows in low and high light.", "It grows in low and high light.", None),  # both words in the passage
    ("Leave the cut to dry.", "Leave the cut to dry.", None),  # a verb: "to wet" would not parse
])
def test_antonym(text: str, passage: str, expected: str | None) -> None:
    assert mutate_text("antonym", text, [passage]) == expected


@pytest.mark.parametrize("text, expected", [
    ("Most ferns like humidity.", "All ferns like humidity."),
    ("Ferns usually like humidity.", "Ferns always like humidity."),
    ("Dogs may chew leaves.", "Dogs must chew leaves."),
    ("Treat for at least 3 weeks.", "Treat for at most 3 weeks."),
    ("Never reuse old soil.", "Always reuse old soil."),
    ("This is the most common pest.", None),  # a superlative
    ("Water every 2 weeks.", None),  # a frequency
])
def test_quantifier(text: str, expected: str | None) -> None:
    assert mutate_text("quantifier", text, ["Ferns like humidity."]) == expected


def test_quantifier_skips_a_change_the_passage_would_support() -> None:
    assert change_quantifier("Ferns usually like humidity.", ["Ferns always like humidity."]) is None


def test_unsupported_clause_rotates_named_and_plain_clauses_the_passages_never_mention() -> None:
    """Half the clauses carry a proper name, half only lowercase words, so the kill rate is not
    decided by a judge's name rule alone; a clause whose key stem a passage uses is skipped."""
    named = [c for c, _ in CLAUSES if re.search(r"\b[A-Z]", c)]
    assert len(named) >= 2 and len(CLAUSES) - len(named) >= 2
    words = ("high", "steady", "warm", "some", "moist", "constant", "even", "extra")
    texts = [f"Ferns like {w} humidity." for w in words]
    made = {append_clause(t, [])[0].split(", ", 1)[1] for t in texts}
    assert any(re.search(r"\b[A-Z]", c) for c in made) and any(not re.search(r"\b[A-Z]", c) for c in made)
    text = "Ferns like humidity."
    plain, change = append_clause(text, [])
    i = next(i for i, (c, _) in enumerate(CLAUSES) if plain == f"Ferns like humidity, {c}.")
    clause, keys = CLAUSES[i]
    assert change == f"appended {clause!r}"
    # A passage using a key stem (in any case or inflection) rules that clause out: the next one is used.
    other, _ = append_clause(text, [f"{keys[0].capitalize()}s here."])
    assert other == f"Ferns like humidity, {CLAUSES[(i + 1) % len(CLAUSES)][0]}."
    every_key = " ".join(k for _, ks in CLAUSES for k in ks)
    assert append_clause(text, [every_key]) is None


# --- splice: the subject of one sentence with the predicate of another ------------------------------

STITCHED = ("Kevin Sinfield announced his retirement from rugby league. "
            "Joel Moon scored his first try of the season against Leeds.")


@pytest.mark.parametrize("text, expected", [
    ("Kevin Sinfield announced his retirement from rugby league.", ("Kevin Sinfield", "announced his retirement from rugby league.")),
    ("Snake plants tolerate low light.", ("Snake plants", "tolerate low light.")),
    ("Brown tips usually mean dry air.", ("Brown tips", "usually mean dry air.")),
    ("A single leaf laid on dry soil will root within weeks.", ("A single leaf laid on dry soil", "will root within weeks.")),
    ("They grow faster in bright light.", None),  # a pronoun: which thing is not said here
    ("Remove the leaves from the cutting.", None),  # an imperative
    ("Cacti, succulents and ZZ plants need little water.", None),  # a list in the subject
    ("Drooping leaves mean the plant is thirsty.", None),  # "mean" may be a noun: the verb is unclear
])
def test_split_clause_finds_the_subject_before_the_main_verb_or_gives_up(text: str, expected: tuple[str, str] | None) -> None:
    assert split_clause(text) == expected


def test_splice_gives_one_sentences_subject_the_predicate_of_another() -> None:
    made = mutate_text("splice", "Kevin Sinfield announced his retirement from rugby league.", [STITCHED])
    assert made == "Kevin Sinfield scored his first try of the season against Leeds."
    # the verb agrees with its new subject
    lilies = "Peace lilies are toxic to cats. Pothos tolerates low light."
    assert mutate_text("splice", "Peace lilies are toxic to cats.", [lilies]) == "Peace lilies tolerate low light."
    assert mutate_text("splice", "Pothos tolerates low light.", [lilies]) == "Pothos is toxic to cats."


@pytest.mark.parametrize("passage", [
    "Kevin Sinfield announced his retirement from rugby league.",  # one sentence: nothing to splice
    # the passage pairs them itself, by name or by a pronoun after the name
    "Kevin Sinfield announced his retirement from rugby league. Joel Moon scored his first try. Kevin Sinfield scored his first try too.",
    "Kevin Sinfield announced his retirement from rugby league. He scored his first try of the season.",
    # a donor whose subject may be the same thing, a part of it, or all things of its kind
    "Kevin Sinfield announced his retirement from rugby league. The captain scored his first try of the season.",
    "Kevin Sinfield announced his retirement from rugby league. All players scored a try this season.",
    "Kevin Sinfield announced his retirement from rugby league. A player scored his first try of the season.",
    "Kevin Sinfield announced his retirement from rugby league. Sinfield scored his first try of the season.",
])
def test_splice_skips_when_no_safe_donor_exists(passage: str) -> None:
    assert mutate_text("splice", "Kevin Sinfield announced his retirement from rugby league.", [passage]) is None


def test_splice_needs_the_subject_in_the_cited_passage_and_is_deterministic() -> None:
    assert mutate_text("splice", "Ramsey announced his retirement from rugby league.", [STITCHED]) is None
    answer = Answer((Sentence("Kevin Sinfield announced his retirement from rugby league.", ("a",)),),
                    (Passage("a", STITCHED), Passage("b", "The museum opens at noon.")))
    first = mutate_sentence(answer, 0, ["splice"])
    assert first == mutate_sentence(answer, 0, ["splice"]) and first[0].sentence.citations == ("a",)
    assert first[0].change == "'Kevin Sinfield' given the predicate of 'Joel Moon'"


def answer_of(*passages: str, cites: str = "a") -> Answer:
    plist = tuple(Passage(pid, text) for pid, text in zip("abc", passages))
    return Answer(sentences=(Sentence("Snake plants tolerate low light.", (cites,)),), passages=plist)


def test_citation_move_picks_an_unrelated_passage_or_nothing() -> None:
    answer = answer_of(PASSAGE, "Snake plants tolerate low light well.", "The museum opens at noon.")
    moved, _ = move_citation(answer.sentences[0], answer)
    assert moved.citations == ("c",) and moved.text == answer.sentences[0].text
    assert move_citation(answer_of(PASSAGE).sentences[0], answer_of(PASSAGE)) is None  # nothing else retrieved
    close = answer_of(PASSAGE, "Low light suits snake plants.")
    assert move_citation(close.sentences[0], close) is None  # the only other passage could support it


def test_citation_drop_and_mutate_sentence_order() -> None:
    answer = answer_of(PASSAGE, "The museum opens at noon.")
    mutants = mutate_sentence(answer, 0)
    assert [m.operator for m in mutants] == [op for op in OPERATORS if op in {m.operator for m in mutants}]
    drop = next(m for m in mutants if m.operator == "citation_drop")
    assert drop.sentence == Sentence("Snake plants tolerate low light.", ())
    assert mutate_sentence(answer, 0) == mutants  # deterministic
    with pytest.raises(ValueError, match="unknown operator 'shuffle'"):
        mutate_sentence(answer, 0, ["shuffle"])
    with pytest.raises(ValueError, match="unknown text operator"):
        mutate_text("citation_drop", "x", [])


# --- properties over generated passages ----------------------------------------------------------

_NEG = re.compile(r"\b(not|cannot|never|no)\b|n't\b", re.IGNORECASE)


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+", text)


@settings(max_examples=150, deadline=None)
@given(mutated_claims(operators=TEXT_OPERATORS))
def test_every_text_mutant_adds_something_the_passage_lacks(case: tuple[str, str, str]) -> None:
    passage, claim, operator = case
    sentences = [s.strip() + "." for s in passage.split(".") if s.strip()]
    assert claim not in sentences
    if operator == "negation":
        assert len(_NEG.findall(claim)) != len(_NEG.findall(passage)) or claim.startswith("It is not true that")
    elif operator == "number":
        assert set(_numbers(claim)) - set(_numbers(passage))
    elif operator == "antonym":
        added = {w.strip(".").lower() for w in claim.split()} - {w.strip(".").lower() for w in passage.split()}
        assert added and all(w in ANTONYMS for w in added)
    elif operator == "quantifier":
        added = {w.strip(".").lower() for w in claim.split()} - {w.strip(".").lower() for w in passage.split()}
        assert added and added <= set(QUANTIFIER_CHANGES.values())
    elif operator == "entity_swap":
        # the claim now pairs its fact with a place that belongs to another fact of the passage
        named = [n for n in entities(passage) if n in claim]
        assert len(named) == 1 and not any(claim.split(" near ")[0] in s and named[0] in s for s in sentences)
    elif operator == "splice":
        # one fact's name with another fact's predicate: no sentence of the passage pairs them
        name, predicate = claim.split(" ", 1)
        donors = [s for s in sentences if s.endswith(" " + predicate)]
        assert donors and not donors[0].startswith(name + " ")
        assert any(s.startswith(name + " ") for s in sentences)
    elif operator == "unsupported_clause":
        body, clause = claim.split(", ", 1)
        assert body + "." in sentences
        keys = dict(CLAUSES)[clause.rstrip(".")]
        assert not any(re.search(rf"\b{k}", passage, re.IGNORECASE) for k in keys)


@settings(max_examples=50, deadline=None)
@given(mutated_claims(operators=["citation_move"]))
def test_a_moved_citation_points_at_a_passage_without_the_claims_words(case: tuple[str, str, str]) -> None:
    passage, claim, _ = case
    assert overlap(claim, passage) == 0.0


@settings(max_examples=60, deadline=None)
@given(mutated_claims(operators=["negation", "number", "quantifier", "citation_move"]))
def test_the_lexical_judge_kills_generated_negation_number_quantifier_and_move_mutants(case: tuple[str, str, str]) -> None:
    """What the lexical judge is built to see. Antonyms, entity swaps and appended clauses without a name are
    what it cannot (the kill rates in docs/judging-the-judges.md)."""
    passage, claim, operator = case
    assert LexicalJudge().judge(claim, [passage]).supported is False, operator


# --- judging mutants and the kill-rate accounting --------------------------------------------------


class ScriptedJudge:
    """Stands in for a judge whose verdicts a test must control (e.g. an LLM that cannot decide)."""

    def __init__(self, supported: bool | None) -> None:
        self.supported = supported
        self.calls: list[tuple[str, list[Any]]] = []

    def judge_many(self, pairs: Any) -> list[Verdict]:
        pairs = list(pairs)
        self.calls += pairs
        return [Verdict(self.supported, 0.5, None, "scripted") for _ in pairs]


class Tier:
    def __init__(self, judge: Any) -> None:
        self.judge = judge


def test_mutant_rows_judge_only_supported_sentences_with_the_tiers_judge() -> None:
    passages = (Passage("a", PASSAGE), Passage("b", "The museum opens at noon."))
    answer = Answer(
        sentences=(Sentence("Snake plants tolerate low light.", ("a",)), Sentence("Cacti need shade.", ("a",))),
        passages=passages,
    )
    rows = [{"text": s.text, "supported": ok} for s, ok in zip(answer.sentences, (True, False))]
    mutants = mutant_rows(Tier(LexicalJudge()), answer, rows)
    assert mutants and {m["index"] for m in mutants} == {0}
    judge = LexicalJudge()
    for m in mutants:
        cited = [p for p in passages if p.id in m["citations"]]
        assert m["killed"] is (judge.judge(m["mutant"], cited).supported is False)
        assert m["sentence"] == "Snake plants tolerate low light." and m["operator"] in OPERATORS
    by_op = {m["operator"]: m["killed"] for m in mutants}
    assert by_op["negation"] is True and by_op["citation_drop"] is True
    scripted = ScriptedJudge(None)
    assert {m["killed"] for m in mutant_rows(Tier(scripted), answer, rows)} == {None}  # unscored, not survived
    assert len(scripted.calls) == len(mutants)  # one batch, one pair per mutant
    assert mutant_rows(object(), answer, rows) is None


def item(tier: str, outcomes: list[tuple[str, bool | None]], case: str = "c1") -> dict[str, Any]:
    return {
        "case_id": case, "tier": tier, "nodeid": f"s.yaml::{case}[{tier}]", "metrics": {},
        "mutants": [
            # one mutant per sentence (index i), as independent as real mutants of distinct sentences;
            # mutants that share a sentence are one cluster of the kill rate's interval
            {"operator": op, "killed": k, "index": i, "sentence": f"s{i}", "mutant": f"m{i}", "evidence": "e",
             "reason": "r", "score": 0.9}
            for i, (op, k) in enumerate(outcomes)
        ],
    }


def test_kill_tally_counts_per_tier_and_operator_and_keeps_unscored_apart() -> None:
    items = [
        item("groundedness", [("negation", True)] * 29 + [("negation", False), ("entity_swap", False), ("entity_swap", None)]),
        item("groundedness", [("entity_swap", True)], case="c2"),
        item("alce", [("negation", False)]),
        {"case_id": "c3", "tier": "groundedness", "metrics": {}},
    ]
    tally = kill_tally(items)
    assert tally.values("groundedness", "negation") == [True] * 29 + [False]
    rows = {(r.tier, r.metric): r for r in kill_rows(tally)}
    neg = rows[("groundedness", "negation")]
    assert (neg.k, neg.n, neg.unscored) == (29, 30, 0)
    assert (neg.ci_low, neg.ci_high) == wilson_interval(29, 30)
    swap = rows[("groundedness", "entity_swap")]
    assert (swap.k, swap.n, swap.unscored, swap.rate) == (1, 2, 1, 0.5)
    assert [(r.tier, r.metric) for r in kill_rows(tally)] == [
        ("groundedness", "negation"), ("groundedness", "entity_swap"), ("alce", "negation"),
    ]


def _metric(k: int, n: int) -> MetricRow:
    low, high = wilson_interval(k, n)
    return MetricRow("groundedness", "grounded", "rate", n, k, k / n, low, high, n < 30, k in (0, n))


def test_headline_leads_with_the_weakest_text_operator() -> None:
    kills = kill_rows(kill_tally([item("groundedness", [("negation", True)] * 97 + [("negation", False)] * 3
                                        + [("entity_swap", True)] * 6 + [("entity_swap", False)] * 44)]))
    line = headline("groundedness", kills, [_metric(98, 98)])
    assert line == (
        "groundedness: grounded saturated (all passed) 1.000 (98/98), but its weakest text operator kills 12% of 50 "
        "entity swaps [6%, 24%]; its strongest, 97% of 100 negations [92%, 99%]"
    )
    line = headline("groundedness", kills, [_metric(40, 50)])
    assert line.startswith("groundedness: grounded 0.800 (40/50) [0.670, 0.888]; its weakest text operator kills 12% of 50")


def test_headline_leaves_out_the_structural_operators_whatever_they_score() -> None:
    """A dropped or moved citation is killed by any judge that reads citations (the lexical judge
    rejects an uncited sentence before judging it): a 100% there must never be the headline."""
    outcomes = [("citation_drop", True)] * 465 + [("citation_move", True)] * 412 + [("citation_move", False)]
    outcomes += [("antonym", True)] * 5 + [("antonym", False)] * 278 + [("quantifier", True)] * 197 + [("quantifier", False)]
    kills = kill_rows(kill_tally([item("groundedness", outcomes)]))
    line = headline("groundedness", kills, [_metric(270, 270)])
    assert "citation" not in line
    assert line == (
        "groundedness: grounded saturated (all passed) 1.000 (270/270), but its weakest text operator kills 2% of 283 "
        "antonym swaps [1%, 4%]; its strongest, 99% of 198 quantifier/modal changes [97%, 99.9%]"
    )
    # 463 of 465 is not "100%", nor is a bound of 0.9999: a rate short of 1 never reads as 100%.
    near = kill_rows(kill_tally([item("groundedness", [("negation", True)] * 463 + [("negation", False)] * 2)]))
    assert headline("groundedness", near, []) == "groundedness: its weakest text operator kills 99.6% of 465 negations [98%, 99.9%]"
    only = kill_rows(kill_tally([item("alce", [("citation_drop", True)] * 4)]))
    assert headline("alce", only, []) == "alce: no text mutant could be scored; only structural ones (100% of 4 dropped citations [51%, 100%])"
    lines = summary_lines([item("groundedness", outcomes)], [_metric(270, 270)])
    assert lines[1] == line and STRUCTURAL_NOTE in lines
    report = mutation_report([item("groundedness", outcomes)])["mutation"]
    assert {r["operator"]: r["structural"] for r in report["kill_rates"]} == {
        "antonym": False, "quantifier": False, "citation_move": True, "citation_drop": True,
    }


def test_summary_and_report_list_survivors_and_tiers_that_were_not_mutated() -> None:
    items = [item("groundedness", [("negation", True), ("antonym", False)]),
             {"case_id": "c1", "tier": "ragas", "nodeid": "s.yaml::c1[ragas]", "metrics": {}, "mutants_skipped": NO_JUDGE}]
    lines = summary_lines(items, [_metric(1, 1)])
    assert lines[0].startswith("mutation testing")
    assert lines[1] == (
        "groundedness: grounded saturated (all passed) 1.000 (1/1), but its weakest text operator kills 0% of 1 antonym swaps "
        "[0%, 79%]; its strongest, 100% of 1 negations [21%, 100%]"
    )
    assert any(line.startswith("groundedness  negation") for line in lines)
    assert f"ragas: {NO_JUDGE}" in lines
    assert lines[-1] == "1 surviving mutant, each with its evidence, is listed in --sprout-report"
    report = mutation_report(items)["mutation"]
    assert [s["mutant"] for s in report["survivors"]] == ["m1"]
    assert report["survivors"][0]["evidence"] == "e" and report["survivors"][0]["tier"] == "groundedness"
    assert report["not_mutated"] == {"ragas": NO_JUDGE}
    assert [r["operator"] for r in report["kill_rates"]] == ["negation", "antonym"]
    assert summary_lines([{"case_id": "c", "tier": "groundedness", "metrics": {}}], []) == []
    assert mutation_report([]) == {}


@given(st.lists(st.sampled_from([True, False, None]), max_size=60))
def test_kill_rate_arithmetic_matches_counting(outcomes: list[bool | None]) -> None:
    rows = kill_rows(kill_tally([item("groundedness", [("number", k) for k in outcomes])]))
    if not outcomes:
        assert rows == []
        return
    (row,) = rows
    assert row.k == outcomes.count(True) and row.n == outcomes.count(True) + outcomes.count(False)
    assert row.unscored == outcomes.count(None)
