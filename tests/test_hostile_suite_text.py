"""Suite text and answers written to fool a reader: control characters (as JSON escapes, raw CSV
bytes, YAML double-quoted escapes), lone surrogates, Markdown links, images and @mentions, numbers
longer than Python reads and nesting too deep. Each stays in its own case: a clear collection error
naming file, line, case and field, or text escaped wherever it is shown; never a crash at session
end (issue 23, defects 07, 09, 10, 12)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from helpers import make_project
from pytest_sprout.core.util import md_cell, safe_text
from pytest_sprout.suites.loader import load_suite

ESC_JSONL = ('{"id": "j1", "question": "Why \\u001b[8mHIDDEN\\u001b[0m \\u001b]0;pwned\\u0007 leaf?", "tiers": ["groundedness"]}\n'
             '{"id": "j2", "question": "q2", "tiers": ["groundedness"]}\n')
ESC_CSV = "id,question,expected_facts,tiers\nc1,q1,fact \x1b[8m,groundedness\nc2,q2,,groundedness\n"
ESC_YAML = ('cases:\n  - {id: y1, question: q1, tags: ["\\x9b31m"], tiers: [groundedness]}\n'
            '  - {id: y2, question: q2, tiers: [groundedness]}\n')
SURROGATE_JSONL = ('{"id": "j1", "question": "broken emoji \\ud83c here", "tiers": ["groundedness"]}\n'
                   '{"id": "j2", "question": "q2", "tiers": ["groundedness"]}\n')
SURROGATE_YAML = ('cases:\n  - {id: y1, question: "broken emoji \\ud83c here", tiers: [groundedness]}\n'
                  '  - {id: y2, question: q2, tiers: [groundedness]}\n')

BIG = "1" + "0" * 5000
DEEP = "[" * 100000 + "]" * 100000
GOOD = '{"id": "j2", "question": "q2", "tiers": ["groundedness"]}\n'
TOO_MUCH = {
    "bigint.jsonl": ('{"id": "j1", "question": "q1", "thresholds": {"groundedness.coverage": ' + BIG + '}}\n' + GOOD,
                     "a number in it is too long to read"),
    "deep.jsonl": ('{"id": "j1", "question": "q1", "tags": ' + DEEP + '}\n' + GOOD, "nested too deeply"),
    "bigint.csv": ('id,question,tiers,thresholds\nj1,q1,groundedness,"{""groundedness.coverage"": ' + BIG + '}"\n'
                   'j2,q2,groundedness,\n', "a number in it is too long to read"),
    "deep.csv": ('id,question,tiers,tags\nj1,q1,groundedness,"' + "[" * 5000 + "]" * 5000 + '"\nj2,q2,groundedness,\n',
                 "nested too deeply"),
}

ANSWER_CONFTEST = '''
def pytest_sprout_make_system(config):
    def system(question):
        return {"text": "Snake plants need \\x1b]0;pwned\\x07 full \\x1b[8mhidden\\x1b[0m sun [1].",
                "passages": ["Snake plants tolerate low light."]}
    system.name = "t"
    return system
'''

INJECTION = ("![pixel](https://evil.example/p.png?run=1) [CI is broken: log in](https://evil.example/login) "
             "@octocat")


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


@pytest.mark.parametrize("name, text, where", [
    ("s.jsonl", ESC_JSONL, "s.jsonl:1: case 'j1': field 'question': control character \\x1b is not allowed"),
    ("s.csv", ESC_CSV, "s.csv:2: case 'c1': field 'expected_facts': control character \\x1b is not allowed"),
    ("s.yaml", ESC_YAML, "s.yaml:2: case 'y1': field 'tags': control character \\x9b is not allowed"),
    ("s.jsonl", SURROGATE_JSONL, "s.jsonl:1: case 'j1': field 'question': a lone surrogate \\ud83c is not text"),
    ("s.yaml", SURROGATE_YAML, "s.yaml:2: case 'y1': field 'question': a lone surrogate \\ud83c is not text"),
])
def test_escaped_control_characters_and_surrogates_are_the_cases_error(tmp_path: Path, name: str, text: str,
                                                                        where: str) -> None:
    """Regression: repro 07 (07-surrogate-in-suite-crashes-session).
    Regression: repro 09 (09-control-chars-via-jsonl-csv-escapes)."""
    suite = load_suite(write(tmp_path, name, text), name)
    assert len(suite.cases) == 1  # the other case still loads
    assert [str(e) for e in suite.errors][0].startswith(where)


@pytest.mark.parametrize("name", sorted(TOO_MUCH))
def test_an_overlong_number_or_deep_nesting_is_that_lines_error(tmp_path: Path, name: str) -> None:
    """Regression: repro 12 (12-jsonl-csv-bigint-deep-internalerror)."""
    text, message = TOO_MUCH[name]
    suite = load_suite(write(tmp_path, name, text), f"suites/{name}")
    assert [c.id for c in suite.cases] == ["j2"]
    (error,) = suite.errors
    assert str(error).startswith(f"suites/{name}:") and message in str(error)
    assert error.line == (1 if name.endswith(".jsonl") else 2)


@pytest.mark.parametrize("name", sorted(TOO_MUCH))
def test_an_unreadable_line_never_crashes_the_run_or_the_check(pytester: pytest.Pytester, name: str) -> None:
    """Regression: repro 12 (12-jsonl-csv-bigint-deep-internalerror)."""
    make_project(pytester)
    (pytester.path / "suites" / "care.yaml").unlink()
    write(pytester.path / "suites", name, TOO_MUCH[name][0])
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider", "--sprout-report=r.json")
    assert result.ret == 2  # a collection error, not a traceback at session end
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines([f"suites/{name}:*: case *{TOO_MUCH[name][1]}*"])
    assert (pytester.path / "r.json").exists()
    check = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider", "--sprout-check-snapshot")
    assert check.ret == 1 and "INTERNALERROR" not in check.stdout.str() + check.stderr.str()


@pytest.mark.parametrize("name, text", [("s.jsonl", SURROGATE_JSONL), ("s.yaml", SURROGATE_YAML)])
def test_a_lone_surrogate_in_a_suite_leaves_every_report_written(pytester: pytest.Pytester, name: str,
                                                                 text: str) -> None:
    """Regression: repro 07 (07-surrogate-in-suite-crashes-session)."""
    make_project(pytester)
    (pytester.path / "suites" / "care.yaml").unlink()
    write(pytester.path / "suites", name, text)
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider", "--continue-on-collection-errors",
                                           "--sprout-report=r.json", "--sprout-html=r.html")
    assert "UnicodeEncodeError" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*: field 'question': a lone surrogate \\ud83c is not text*"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert [row["case_id"] for row in report["items"]] == ["j2" if name.endswith(".jsonl") else "y2"]
    assert (pytester.path / "r.html").exists()
    snapshot = pytester.runpytest_subprocess("-p", "no:deepeval", "-p", "no:cacheprovider",
                                             "--sprout-update-snapshot", "--co")
    assert "UnicodeEncodeError" not in snapshot.stdout.str() + snapshot.stderr.str()


def test_control_characters_in_an_answer_are_escaped_in_the_terminal_and_the_markdown(
        pytester: pytest.Pytester) -> None:
    """Regression: repro 09 (09-control-chars-via-jsonl-csv-escapes)."""
    make_project(pytester, suite="""
        suite: care
        cases:
          - id: snake
            question: How much light does a snake plant need?
            expected_facts: ["full sun"]
        """, conftest=ANSWER_CONFTEST)
    result = pytester.runpytest("-p", "no:deepeval", "-p", "no:cacheprovider", "--sprout-md=s.md")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "\x1b" not in out and "\x07" not in out
    result.stdout.fnmatch_lines(["*answer: Snake plants need \\x1b]0;pwned\\x07 full \\x1b[[]8mhidden*"])
    assert "\x1b" not in (pytester.path / "s.md").read_text(encoding="utf-8")


def test_links_images_and_mentions_from_suite_text_are_inert_in_the_markdown(pytester: pytest.Pytester) -> None:
    """Regression: repro 10 (10-markdown-link-image-injection)."""
    make_project(pytester, suite=f"""
        suite: care
        cases:
          - id: m1
            question: "{INJECTION}"
            expected_facts: ["[see the fix](https://evil.example/fix)"]
        """, conftest=ANSWER_CONFTEST)
    pytester.runpytest("-p", "no:deepeval", "-p", "no:cacheprovider", "--sprout-md=s.md")
    text = (pytester.path / "s.md").read_text(encoding="utf-8")
    assert "Failing cases" in text
    assert not re.search(r"(?<!\\)[\[\]()!]", text.split("- **m1** [groundedness] ", 1)[1])  # every mark escaped
    assert "@octocat" not in text
    assert "\\!\\[pixel\\]\\(https://evil.example/p.png?run=1\\)" in text and "@\u200boctocat" in text


@given(st.text())
def test_a_markdown_cell_opens_no_link_image_mention_or_escape(text: str) -> None:
    """Regression: repro 10 (10-markdown-link-image-injection)."""
    cell = md_cell(text)
    for i, ch in enumerate(cell):
        if ch in "[]()!|":  # each is escaped by an odd run of backslashes
            run = len(cell[:i]) - len(cell[:i].rstrip("\\"))
            assert run % 2 == 1
        if ch == "@":
            assert cell[i + 1:i + 2] in ("\u200b", "")
    assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f or 0xd800 <= ord(c) <= 0xdfff for c in cell)


@given(st.text())
def test_safe_text_leaves_no_control_character_but_newline_and_tab(text: str) -> None:
    """Regression: repro 09 (09-control-chars-via-jsonl-csv-escapes)."""
    shown = safe_text(text)
    assert all(c in "\n\t" or not (ord(c) < 32 or 0x7f <= ord(c) <= 0x9f or 0xd800 <= ord(c) <= 0xdfff) for c in shown)
    shown.encode("utf-8")
    assert safe_text("plain é\n\tok") == "plain é\n\tok"


BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
BIDI_CONFTEST = '''
class System:
    name, version = "bidi", "1"

    def __call__(self, q):  # U+202E RIGHT-TO-LEFT OVERRIDE ... U+202C: a terminal shows "NUS LLUF" as "FULL SUN"
        return {"text": "Snake plants need \\u202eNUS LLUF\\u202c full sun [1].",
                "passages": ["Snake plants tolerate \\u2067low\\u2069 light."]}

def pytest_sprout_make_system(config):
    return System()
'''


def test_bidi_controls_are_escaped_in_the_terminal_markdown_and_html(pytester: pytest.Pytester) -> None:
    """Regression: repro 41 (41-bidi-override-raw-in-terminal-answer): the `answer:` line, the
    evidence and the reasons show U+202E and friends as escapes, in every report a person reads."""
    make_project(pytester, suite="""
        suite: care
        cases:
          - id: snake
            question: "How much \\u202elight\\u202c does a snake plant need?"
            expected_facts: ["full sun in \\u2066summer\\u2069"]
        """, conftest=BIDI_CONFTEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--sprout-md=s.md", "--sprout-html=s.html",
                                "--sprout-report=r.json")
    result.assert_outcomes(failed=1)
    out = result.stdout.str() + result.stderr.str()
    assert not any(c in out for c in BIDI_CONTROLS)
    result.stdout.fnmatch_lines(["*question: How much \\u202elight\\u202c does a snake plant need?*",
                                 "*answer: Snake plants need \\u202eNUS LLUF\\u202c full sun*"])
    for name in ("s.md", "s.html"):
        shown = (pytester.path / name).read_text(encoding="utf-8")
        assert not any(c in shown for c in BIDI_CONTROLS), name
    # ...yet the labelling mode names a sentence by its exact text, so an exported label matches it
    page = (pytester.path / "s.html").read_text(encoding="utf-8")
    sentences = {html.unescape(s) for s in re.findall(r'data-sentence="([^"]*)"', page)}
    assert "Snake plants need \u202eNUS LLUF\u202c full sun." in sentences
    # the JSON report is data, not display: the answer is kept as the system gave it
    [row] = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["items"]
    assert "\u202e" in row["answer"]["text"]


def test_a_warning_about_the_system_shows_its_message_escaped() -> None:
    """Regression: repro 41: the system's own exception text reaches the terminal in a warning."""
    from pytest_sprout.answers.wiring import describe_system

    class System:
        version = "1"

        @property
        def name(self) -> str:
            raise RuntimeError("no \u202eeman\u202c")

    with pytest.warns(pytest.PytestWarning) as caught:
        info = describe_system(System(), "mod.System")
    assert info["name"] == "mod.System"
    [warning] = [str(w.message) for w in caught if "name raised" in str(w.message)]
    assert "no \\u202eeman\\u202c" in warning and "\u202e" not in warning


@given(st.text())
def test_safe_text_and_a_markdown_cell_leave_no_bidi_control(text: str) -> None:
    """Regression: repro 41 (41-bidi-override-raw-in-terminal-answer)."""
    for shown in (safe_text(text), safe_text(text, lines=False), md_cell(text)):
        assert not any(c in shown for c in BIDI_CONTROLS)
    assert safe_text("\u202e") == "\\u202e"
