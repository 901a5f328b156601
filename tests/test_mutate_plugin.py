"""--sprout-mutate end to end through pytester: the kill-rate summary, the report rows and the
survivors, and that mutants never touch the main metrics."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from helpers import SUITE, SYSTEM_CONFTEST, make_project
from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.core.model import Passage

# The stand-in system's answers and the suite's questions, read from the helpers' own text.
_NS: dict[str, Any] = {}
exec(SYSTEM_CONFTEST, _NS)
ANSWERS: dict[str, tuple[str, list[str]]] = _NS["ANSWERS"]
QUESTION_OF = dict(re.findall(r"- id: (\S+)\n\s+question: (.+)", SUITE))


# Third-party plugins that only slow the inner runs down (deepeval's is covered in test_llm_tier).
QUIET = ("-p", "no:randomly", "-p", "no:deepeval", "-p", "no:langsmith_plugin")


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=out.json", *QUIET, *args)
    return result, json.loads((pytester.path / "out.json").read_text(encoding="utf-8"))


def test_mutate_prints_kill_rates_and_reports_every_mutant(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result, report = run(pytester, "--sprout-mutate")
    result.assert_outcomes(passed=3, failed=1)  # the same outcomes as without mutants
    items = {row["case_id"]: row for row in report["items"]}
    # Only sentences the judge supported are mutated: the pothos sentence failed, so it has none.
    assert items["pothos-water"]["mutants"] == [] and items["taxes"]["mutants"] == []
    snake = items["snake-light"]["mutants"]
    assert {m["index"] for m in snake} == {0, 1}
    negation = next(m for m in snake if m["operator"] == "negation" and m["index"] == 0)
    assert {k: negation[k] for k in ("sentence", "mutant", "citations", "change", "killed", "evidence")} == {
        "sentence": "Snake plants tolerate low light.", "mutant": "It is not true that Snake plants tolerate low light.",
        "citations": ["1"], "change": "prefixed 'It is not true that'", "killed": True,
        "evidence": "Snake plants tolerate low light.",
    }
    # Every outcome is the groundedness judge's own verdict on the mutant and the passages it cites.
    judge = LexicalJudge()
    passages = {
        case: [Passage(str(i + 1), text) for i, text in enumerate(ANSWERS[question][1])]
        for case, question in QUESTION_OF.items()
    }
    mutants = [(case, m) for case, row in items.items() for m in row.get("mutants", [])]
    assert len(mutants) >= 12
    for case, m in mutants:
        cited = [p for p in passages[case] if p.id in m["citations"]]
        assert m["killed"] is (judge.judge(m["mutant"], cited).supported is False), m
    # The summary: a headline, then one row per operator with the counts of the report.
    rates = {r["operator"]: r for r in report["mutation"]["kill_rates"]}
    assert rates["negation"]["k"] == rates["negation"]["n"] == 3 and rates["citation_drop"]["k"] == 3
    lines = [
        "*= sprout =*",
        "groundedness*grounded *2/3*",
        "mutation testing (mutants of supported sentences; never counted in the metrics above):",
        "groundedness: grounded 0.667 (2/3) [[]0.208, 0.939[]]; its weakest text operator kills * of * [[]*%, *%[]]*",
        "tier*operator*killed/n*kill rate*95% CI*flags",
    ]
    lines += [f"groundedness  {op}*{r['k']}/{r['n']}*{r['rate']:.3f}*" for op, r in rates.items()]
    survivors = report["mutation"]["survivors"]
    if survivors:
        lines.append(f"{len(survivors)} surviving mutant{'' if len(survivors) == 1 else 's'}, each with its evidence, "
                     f"{'is' if len(survivors) == 1 else 'are'} listed in --sprout-report")
    result.stdout.fnmatch_lines(lines)
    assert [s["mutant"] for s in survivors] == [m["mutant"] for _, m in sorted(mutants, key=lambda cm: items[cm[0]]["nodeid"]) if m["killed"] is False]
    assert all(s["evidence"] and s["reason"] for s in survivors)
    assert report["mutation"]["not_mutated"] == {}


# Written by hand from the lexical judge's documented rules, not recomputed from the judge: every
# mutant the stand-in system's supported sentences give, and whether the judge must kill it.
# Negations: the negation rule. Dropped citations: an uncited sentence is unsupported. The clause
# with a name: the entity rule. Antonyms: the antonym rule kills the pairs WordNet lists (high/low,
# slower/faster) and their indirect antonyms ("harmless" for "toxic": harmless is the antonym of
# harmful, which WordNet says to see also with toxic). The appended clauses: each holds every word
# the evidence lacks, and at most one covered word of its own (", which also doubles the growth rate":
# 'growth' is the first clause's 'grow'), so the clause rule kills both (rules_version 12; before it,
# "doubles the growth rate", 5 of 8 keys covered, survived).
EXPECTED_KILLS = {
    ("snake-light", 0, "negation", "It is not true that Snake plants tolerate low light."): True,
    ("snake-light", 0, "antonym", "Snake plants tolerate high light."): True,
    ("snake-light", 0, "unsupported_clause", "Snake plants tolerate low light, according to researchers at the University of Oslo."): True,
    ("snake-light", 0, "citation_drop", "Snake plants tolerate low light."): True,
    ("snake-light", 1, "negation", "They do not grow faster in bright indirect light."): True,
    ("snake-light", 1, "antonym", "They grow slower in bright indirect light."): True,
    ("snake-light", 1, "unsupported_clause", "They grow faster in bright indirect light, which also doubles the growth rate."): True,
    ("snake-light", 1, "citation_drop", "They grow faster in bright indirect light."): True,
    ("lily-cats", 0, "negation", "Peace lilies are not toxic to cats."): True,
    ("lily-cats", 0, "antonym", "Peace lilies are harmless to cats."): True,
    ("lily-cats", 0, "unsupported_clause", "Peace lilies are toxic to cats, and this also keeps slugs away."): True,
    ("lily-cats", 0, "citation_drop", "Peace lilies are toxic to cats."): True,
}


def test_mutate_kills_exactly_the_hand_written_set(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result, report = run(pytester, "--sprout-mutate")
    got = {
        (row["case_id"], m["index"], m["operator"], m["mutant"]): m["killed"]
        for row in report["items"] for m in row.get("mutants") or ()
    }
    assert got == EXPECTED_KILLS
    rates = {r["operator"]: (r["k"], r["n"]) for r in report["mutation"]["kill_rates"]}
    assert rates == {"negation": (3, 3), "antonym": (3, 3), "unsupported_clause": (3, 3), "citation_drop": (3, 3)}
    result.stdout.fnmatch_lines([
        # Every text operator kills all its mutants, so the weakest is the strongest: one rate, no survivor line.
        "groundedness: grounded 0.667 (2/3) [[]0.208, 0.939[]]; its weakest text operator kills 100% of 3 negations"
        " [[]44%, 100%[]]",
    ])
    assert "surviving mutant" not in result.stdout.str() and report["mutation"]["survivors"] == []


def test_mutants_never_count_in_the_main_metrics_and_xdist_gives_the_same_report(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    plain_result, plain = run(pytester)
    assert "mutation testing" not in plain_result.stdout.str()
    assert "mutation" not in plain and all("mutants" not in row for row in plain["items"])
    _, serial = run(pytester, "--sprout-mutate")
    assert serial["metrics"] == plain["metrics"]
    for a, b in zip(plain["items"], serial["items"]):
        assert {k: v for k, v in b.items() if k != "mutants"} == a
    result, parallel = run(pytester, "--sprout-mutate", "-n", "2")
    result.stdout.fnmatch_lines(["groundedness: grounded 0.667 (2/3)*kills 100% of 3 negations*"])
    assert parallel["mutation"] == serial["mutation"]
    assert [row["mutants"] for row in parallel["items"]] == [row["mutants"] for row in serial["items"]]
