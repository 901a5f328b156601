"""How a new project reaches its system: the ini value as users write it, import errors as usage
errors, the command line over the conftest hook, and the hook accepted when the plugin is off."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import make_project

REPO = Path(__file__).resolve().parent.parent
FACTORY = '''
def make_system():
    def system(question):
        return ("Snake plants tolerate low light [1].", ["Snake plants tolerate low light."])
    system.name = "from-ini"
    return system
'''


@pytest.mark.parametrize("value", ["myrag.eval:make_system", '"myrag.eval:make_system"', "'myrag.eval:make_system'"])
def test_ini_system_is_found_from_the_rootdir_quoted_or_not(pytester: pytest.Pytester, value: str) -> None:
    make_project(pytester, conftest="")
    pytester.mkpydir("myrag")
    (pytester.path / "myrag" / "eval.py").write_text(FACTORY, encoding="utf-8")
    pytester.makeini(f"[pytest]\nsprout_system = {value}\nasyncio_default_fixture_loop_scope = function\n")  # no `pythonpath = .`
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness", "-k", "snake")
    result.assert_outcomes(passed=1)


def test_a_system_that_cannot_be_imported_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_project(pytester, conftest="")
    pytester.makeini("[pytest]\nsprout_system = myrag.eval:make_system\n")
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*sprout_system = myrag.eval:make_system: cannot import 'myrag.eval'*No module named 'myrag'*"])
    assert "failed" not in result.stdout.str()


def test_the_command_line_system_wins_over_the_conftest_hook(pytester: pytest.Pytester) -> None:
    make_project(pytester)  # its conftest hook gives the lookup system
    pytester.makepyfile(other=FACTORY)
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness", "-k", "lily",
                                           "--sprout-system=other:make_system", "--sprout-report=r.json")
    result.assert_outcomes(failed=1)  # the ini system answers about snake plants, not lilies
    assert '"name": "from-ini"' in (pytester.path / "r.json").read_text()


def test_the_demo_conftest_runs_with_the_plugin_off(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((REPO / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile("def test_plain():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:sprout", "-p", "no:deepeval")
    result.assert_outcomes(passed=1)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_the_conftest_hook_wins_over_the_ini_value(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    pytester.makeini("[pytest]\nsprout_system = not_imported:make_system\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness", "-k", "lily")
    result.assert_outcomes(passed=1)  # the hook's lookup system; the ini module is never imported


@pytest.mark.parametrize("plugin", ["-p no:asyncio", ""], ids=["without-pytest-asyncio", "with-pytest-asyncio-if-installed"])
def test_the_repository_config_warns_about_nothing_with_or_without_pytest_asyncio(pytester: pytest.Pytester,
                                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                                  plugin: str) -> None:
    """Issue 24: `make demo` (a core install, no pytest-asyncio) ended with "Unknown config option:
    asyncio_default_fixture_loop_scope"; with pytest-asyncio the key must still reach it."""
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'asyncio_default_fixture_loop_scope = "function"' in pyproject  # what pytest-asyncio reads
    (pytester.path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    pytester.makeconftest((REPO / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_plain="def test_plain(pytestconfig):\n"
                                   "    print('loop scope:', pytestconfig.getini('asyncio_default_fixture_loop_scope'))\n")
    if not plugin:
        pytest.importorskip("pytest_asyncio", reason="the llm extra brings pytest-asyncio")
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)  # the repository's config alone, not the suite's inner-run setting
    result = pytester.runpytest_subprocess("-p", "no:sprout", *plugin.split(), "-s", "test_plain.py")
    result.assert_outcomes(passed=1)
    output = result.stdout.str() + result.stderr.str()
    assert "warning" not in output.lower(), output
    # the value is read either way: by pytest-asyncio when it is loaded, else from the conftest's declaration
    result.stdout.fnmatch_lines(["plugins: *" + ("" if plugin else "asyncio-*"), "*loop scope: function"])


NAMELESS_CONFTEST = '''
class System:
    version = "1"

    @property
    def name(self):
        raise RuntimeError("no \\u202eeman\\u202c here")

    def __call__(self, question):
        return "A snake plant needs low light [1].", ["Snake plants tolerate low light."]


def pytest_sprout_make_system(config):
    return System()
'''

ONE_CASE_SUITE = """
suite: care
cases:
  - id: snake-light
    question: How much light does a snake plant need?
    expected_facts: ["low light"]
"""


def test_a_warning_about_the_system_reaches_the_warnings_summary_once(pytester: pytest.Pytester) -> None:
    """Regression: the system is built and described (name, version, fingerprint) when the first
    item starts, before pytest's warnings capture: describe_system's warning went raw to stderr
    and never reached the warnings summary. Two tiers' items, one system: one warning."""
    make_project(pytester, suite=ONE_CASE_SUITE, conftest=NAMELESS_CONFTEST, tiers="[groundedness, ragas]")
    result = pytester.runpytest_subprocess("-p", "no:deepeval", "-m", "groundedness or ragas")
    out = result.stdout.str()
    summary = out.split("warnings summary", 1)[1] if "warnings summary" in out else ""
    said = "the system's name raised RuntimeError: no \\u202eeman\\u202c here; the reports name it 'conftest.System'"
    assert said in summary, out
    assert out.count("the system's name raised") == 1, out  # once, and only in the summary
    assert "\u202e" not in out + result.stderr.str()  # the system's text escaped (safe_text)
    assert "the system's name raised" not in result.stderr.str()
    result.assert_outcomes(passed=2, warnings=1)
