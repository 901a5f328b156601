"""The public API as a user's type checker sees it: a small user file, checked by mypy against the
package (found on the path, read through its py.typed), must reveal real types, never ``Any``, and
must be refused where a user's code is wrong (a Verdict assigned to an int, a judge without
``judge_many``). Each line of the user file says what mypy must say about it: ``# reveals: T``
(a ``reveal_type`` note) or ``# error: code`` (an error with that code); every other line must
pass, so a type that falls back to ``Any`` fails the test twice over (the reveal differs, and the
wrong assignment is accepted)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_sprout

USER_FILE = '''\
from pytest_sprout import Answer, LexicalJudge, NLIJudge, Passage, Sentence, Verdict, assert_grounded

judge = LexicalJudge()
passages = [Passage("1", "Snake plants need water every two weeks.")]
verdict: Verdict = judge.judge("Snake plants need water.", passages)
reveal_type(judge)  # reveals: pytest_sprout.judges.lexical.judge.LexicalJudge
reveal_type(judge.judge("Snake plants need water.", passages))  # reveals: pytest_sprout.core.model.Verdict
reveal_type(judge.judge_many([("a claim", ["a passage"])]))  # reveals: list[pytest_sprout.core.model.Verdict]
reveal_type(verdict.supported)  # reveals: bool | None
reveal_type(verdict.score)  # reveals: float
reveal_type(verdict.evidence)  # reveals: str | None
count: int = judge.judge("Snake plants need water.", passages)  # error: assignment
label: str = verdict.score  # error: assignment

nli = NLIJudge("a/model", window="chunk")
reveal_type(nli)  # reveals: pytest_sprout.judges.nli.NLIJudge
reveal_type(nli.judge("Snake plants need water.", passages))  # reveals: pytest_sprout.core.model.Verdict
wrong: int = nli.judge_many([("a claim", passages)])  # error: assignment
NLIJudge(42)  # error: arg-type

answer = Answer.from_text("Snake plants need water [1].", passages)
reveal_type(answer.sentences)  # reveals: tuple[pytest_sprout.core.model.Sentence, ...]
reveal_type(Sentence("a", ("1",)).citations)  # reveals: tuple[str, ...]
reveal_type(assert_grounded(answer))  # reveals: None
assert_grounded("Snake plants need water [1].", ["Snake plants need water."])
assert_grounded({"text": "Snake plants need water [1].", "passages": passages}, judge=judge)
assert_grounded(("Snake plants need water [1].", passages), judge=nli)
assert_grounded(42)  # error: arg-type
assert_grounded("Snake plants need water [1].", judge=object())  # error: arg-type
assert_grounded("Snake plants need water [1].", [3.5])  # error: list-item
'''

MARK = re.compile(r"#\s*(reveals|error):\s*(.+?)\s*$")
REPORTED = re.compile(r"^user_code\.py:(\d+): (note|error): (.*?)(?:\s+\[([\w-]+)\])?$")


def plain(type_name: str) -> str:
    """A revealed type without the ``builtins.`` prefix, which some mypy versions write and some do not."""
    return type_name.replace("builtins.", "")


def expected(source: str) -> dict[int, tuple[str, str]]:
    """{line: ("reveals", type) or ("error", code)} from the user file's markers."""
    found = {}
    for number, line in enumerate(source.splitlines(), 1):
        match = MARK.search(line)
        if match:
            found[number] = (match.group(1), plain(match.group(2)))
    return found


def reported(output: str) -> dict[int, list[tuple[str, str]]]:
    """{line: [("reveals", type) | ("error", code) | ("other", text)]} from mypy's output."""
    found: dict[int, list[tuple[str, str]]] = {}
    for text in output.splitlines():
        match = REPORTED.match(text)
        if match is None:
            continue
        line, kind, message, code = int(match.group(1)), match.group(2), match.group(3), match.group(4)
        if kind == "note" and message.startswith("Revealed type is "):
            entry = ("reveals", plain(message.removeprefix("Revealed type is ").strip('"')))
        elif kind == "error":
            entry = ("error", code or message)
        else:  # a note that explains an error (mypy adds some): belongs to the error on its line
            continue
        found.setdefault(line, []).append(entry)
    return found


def test_the_markers_are_read_and_matched() -> None:
    # the checker itself, on a made-up mypy output: a reveal, an error, and a line that should pass
    source = "x = 1  # reveals: builtins.int\ny: str = 1  # error: assignment\nz = 2\n"
    assert expected(source) == {1: ("reveals", "int"), 2: ("error", "assignment")}
    output = ('user_code.py:1: note: Revealed type is "builtins.int"\n'
              'user_code.py:2: error: Incompatible types in assignment  [assignment]\n'
              'user_code.py:3: error: Name "q" is not defined  [name-defined]\nFound 2 errors in 1 file\n')
    assert reported(output) == {1: [("reveals", "int")], 2: [("error", "assignment")],
                                3: [("error", "name-defined")]}


@pytest.mark.slow
def test_a_users_type_checker_sees_the_public_api_typed(tmp_path: Path) -> None:
    (tmp_path / "user_code.py").write_text(USER_FILE, encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\n", encoding="utf-8")  # a strict user; not the project's config
    package_root = Path(pytest_sprout.__file__).resolve().parent.parent
    assert (package_root / "pytest_sprout" / "py.typed").is_file()
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    env.pop("MYPYPATH", None)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
         "--hide-error-context", "--no-pretty", "--show-error-codes", "--no-color-output", "user_code.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )
    assert "Cannot find implementation or library stub" not in result.stdout, result.stdout
    assert "missing library stubs or py.typed" not in result.stdout, result.stdout
    want = expected(USER_FILE)
    got = reported(result.stdout)
    problems = []
    for line, text in enumerate(USER_FILE.splitlines(), 1):
        if got.get(line, []) != ([want[line]] if line in want else []):
            problems.append(f"line {line}: {text.strip()}\n    mypy: {got.get(line, [])}, expected: {want.get(line)}")
    assert problems == [], "\n".join(problems) + "\n\nmypy said:\n" + result.stdout + result.stderr
