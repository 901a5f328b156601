"""A system may take the case as a second parameter: ``system(question, case)`` gets the Case
(its id, suite, tags, expected facts), detected by its signature; a one-argument system is called
as before, and so is one whose second parameter has a default under another name. Real runs
through pytester; nothing patched."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from helpers import make_project
from pytest_sprout.answers.jobs import takes_case
from pytest_sprout.core.model import Case

SUITE = """
cases:
  - {id: snake, question: "  How much light does a snake plant need?  ", tags: [light]}
  - {id: lily, question: "Is a peace lily toxic to cats?"}
"""

# Recorded answers keyed by case id: replaying them by question text breaks when the suite's
# question differs from the recorded one in its spacing.
RECORDED = '''
RECORDED = {"snake": ("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."]),
            "lily": ("Peace lilies are toxic to cats [1].", ["Peace lilies are toxic to cats."])}
SEEN = []
'''

SHAPES = {
    "function": RECORDED + '''
def pytest_sprout_make_system(config):
    def system(question, case):
        SEEN.append((question, case.id, case.suite, case.tags))
        return RECORDED[case.id]
    return system
''',
    "async method": RECORDED + '''
class System:
    async def __call__(self, question, case=None):
        SEEN.append((question, case.id, case.suite, case.tags))
        return RECORDED[case.id]

def pytest_sprout_make_system(config):
    return System()
''',
    "keyword case": RECORDED + '''
def pytest_sprout_make_system(config):
    def system(question, case=None, *, top_k=3):
        SEEN.append((question, case.id, case.suite, case.tags))
        return RECORDED[case.id]
    return system
''',
}

REPORT_SEEN = '''
def pytest_sessionfinish(session):
    import json, pathlib
    pathlib.Path("seen.json").write_text(json.dumps(SEEN))
'''


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_system_that_takes_the_case_gets_it(pytester: pytest.Pytester, shape: str) -> None:
    make_project(pytester, suite=SUITE, conftest=SHAPES[shape] + REPORT_SEEN, name="care")
    result = pytester.runpytest("-m", "groundedness", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    seen = sorted(json.loads((pytester.path / "seen.json").read_text(encoding="utf-8")))
    assert seen == [["How much light does a snake plant need?", "snake", "care", ["light"]],
                    ["Is a peace lily toxic to cats?", "lily", "care", []]]


def test_a_one_argument_system_is_called_with_the_question_alone(pytester: pytest.Pytester) -> None:
    conftest = RECORDED + '''
BY_QUESTION = {"How much light does a snake plant need?": "snake", "Is a peace lily toxic to cats?": "lily"}

def pytest_sprout_make_system(config):
    def system(question, top_k=3):  # a default under another name: the old one-argument call
        assert top_k == 3
        return RECORDED[BY_QUESTION[question]]
    return system
'''
    make_project(pytester, suite=SUITE, conftest=conftest, name="care")
    pytester.runpytest("-m", "groundedness", "-p", "no:cacheprovider").assert_outcomes(passed=2)


def _one(question: str) -> str:
    return question


def _two(question: str, case: Case) -> str:
    return question


class _Callable:
    def __call__(self, question: str, case: Any) -> str:
        return question


@pytest.mark.parametrize(("system", "expected"), [
    (_one, False),
    (_two, True),
    (lambda q, c: q, True),
    (lambda q, case=None: q, True),
    (lambda q, k=5: q, False),
    (lambda *args: args, False),
    (lambda q, *args, **kwargs: q, False),
    (_Callable(), True),
    (functools.partial(_two), True),
    (functools.partial(_two, case=None), False),  # bound already: keyword-only now
    (len, False),
])
def test_takes_case_reads_the_signature(system: Any, expected: bool) -> None:
    assert takes_case(system) is expected
