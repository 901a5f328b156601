"""Builders for pytester projects: a suite and a small deterministic system in a conftest."""

from __future__ import annotations

import textwrap

import pytest

# What every pytest run inside a test gets through PYTEST_ADDOPTS (tests/conftest.py): the plugins
# pyproject's addopts keeps out of this repository's own runs, and pytest-asyncio's loop scope.
KEEP_OUT = "-p no:deepeval -p no:langsmith_plugin"
ASYNCIO_SCOPE = "-o asyncio_default_fixture_loop_scope=function"

# A stand-in RAG system: a lookup table from question to (answer text with markers, passages).
SYSTEM_CONFTEST = '''
ANSWERS = {
    "How much light does a snake plant need?": (
        "Snake plants tolerate low light [1]. They grow faster in bright indirect light [1].",
        ["Snake plants tolerate low light. They grow faster in bright indirect light."],
    ),
    "How often should I water a pothos?": (
        "Water a pothos every 3 weeks [1].",
        ["Water a pothos when the top 5 cm of soil is dry, about every 1 to 2 weeks."],
    ),
    "Is a peace lily toxic to cats?": (
        "Peace lilies are toxic to cats [1].",
        ["Peace lilies contain calcium oxalate crystals and are toxic to cats and dogs."],
    ),
    "How do I file my taxes?": ("I don't know based on the available documents.", []),
}
CALLS = []

def pytest_sprout_make_system(config):
    def system(question):
        CALLS.append(question)
        if question == "What breaks?":
            raise RuntimeError("retriever index is missing")
        return ANSWERS[question]
    system.name = "lookup"
    system.version = "1"
    return system
'''

SUITE = """
suite: care
cases:
  - id: snake-light
    question: How much light does a snake plant need?
    expected_facts: ["low light"]
    tags: [light]
  - id: pothos-water
    question: How often should I water a pothos?
    expected_facts: ["every"]
    tags: [water]
  - id: lily-cats
    question: Is a peace lily toxic to cats?
    expected_facts: ["toxic to cats"]
  - id: taxes
    question: How do I file my taxes?
    expect: refuse
"""

# A suite on which every case passes with the lookup system above.
PASSING_SUITE = """
suite: care
cases:
  - id: snake-light
    question: How much light does a snake plant need?
    expected_facts: ["low light"]
  - id: lily-cats
    question: Is a peace lily toxic to cats?
    expected_facts: ["toxic to cats"]
  - id: taxes
    question: How do I file my taxes?
    expect: refuse
"""


def make_project(pytester: pytest.Pytester, suite: str = SUITE, conftest: str = SYSTEM_CONFTEST,
                 name: str = "care", tiers: str = "[groundedness]") -> None:
    """A project with one suite (all cases on the given tiers) and the lookup system."""
    suite = textwrap.dedent(suite)
    if "defaults:" not in suite and tiers:
        suite = suite.replace("cases:", f"defaults: {{tiers: {tiers}}}\ncases:", 1)
    pytester.makeconftest(conftest)
    if not any((pytester.path / name).exists() for name in ("pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")):
        # as the repository's own config does: pytest-asyncio (deepeval's dependency) warns without it
        pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "suites").mkdir(exist_ok=True)
    (pytester.path / "suites" / f"{name}.yaml").write_text(suite, encoding="utf-8")


# A stand-in for a RAG system whose answers a test flips between runs: case N answers "Fact N is
# green [1]." from a passage that says so; the cases listed in the environment variable
# SPROUT_TEST_BROKEN answer "is not green" instead, which the lexical judge rejects (negation), so
# the item fails. SPROUT_TEST_VERSION names the system's version. Real runs, nothing patched.
FACTS_CONFTEST = '''
import os

def pytest_sprout_make_system(config):
    broken = {int(x) for x in os.environ.get("SPROUT_TEST_BROKEN", "").split(",") if x}
    def system(question):
        n = int(question.split()[-1].rstrip("?"))
        claim = f"Fact {n} is not green [1]." if n in broken else f"Fact {n} is green [1]."
        return claim, [f"Fact {n} is green and small."]
    system.name = "facts"
    system.version = os.environ.get("SPROUT_TEST_VERSION", "1")
    return system
'''


def facts_project(pytester: pytest.Pytester, count: int, tiers: str = "groundedness") -> None:
    """FACTS_CONFTEST and one suite, suites/facts.yaml, of ``count`` cases fact-0 ... fact-N."""
    cases = "\n".join(f"  - id: fact-{i}\n    question: What colour is fact {i}?" for i in range(count))
    pytester.makeconftest(FACTS_CONFTEST)
    (pytester.path / "suites").mkdir(exist_ok=True)
    (pytester.path / "suites" / "facts.yaml").write_text(
        f"defaults: {{tiers: [{tiers}]}}\ncases:\n{cases}\n", encoding="utf-8")
