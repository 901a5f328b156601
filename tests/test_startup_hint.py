"""The summary says when DeepEval's or LangSmith's pytest plugin was loaded, and how to keep it out."""

from __future__ import annotations

import os

import pytest

from helpers import make_project

# Stands for DeepEval's pytest plugin where the llm extra is not installed: an object registered
# under its entry-point name, as pytest registers deepeval.plugins.plugin. Where DeepEval is
# installed, pytest has already loaded the real one under that name.
STAND_IN = '''
def pytest_configure(config):
    if config.pluginmanager.get_plugin("deepeval") is None:
        config.pluginmanager.register(object(), "deepeval")
'''


def test_a_loaded_deepeval_plugin_is_named_with_the_fix(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # tests/conftest.py keeps DeepEval's plugin out of inner runs; this one is about it
    monkeypatch.setenv("PYTEST_ADDOPTS", os.environ.get("PYTEST_ADDOPTS", "").replace("-p no:deepeval", ""))
    make_project(pytester)
    pytester.makepyfile(deepeval_stand_in=STAND_IN)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "deepeval_stand_in", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest",
                                "-m", "groundedness")
    result.stdout.fnmatch_lines([
        "start-up: DeepEval's pytest plugin loaded, which this run does not use*"
        "`addopts = -p no:deepeval` in your ini file*",
    ])


def test_no_hint_when_the_plugins_are_kept_out(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest("-p", "no:deepeval", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest",
                                "-m", "groundedness")
    result.stdout.fnmatch_lines(["*= sprout =*"])
    assert "start-up:" not in result.stdout.str()


def test_hypothesis_plugin_is_named_only_when_no_collected_test_used_it() -> None:
    from pytest_sprout.startup import hint, loaded_unused

    manager = pytest.PytestPluginManager()
    manager.register(object(), "hypothesispytest")
    manager.register(object(), "langsmith_plugin")
    assert loaded_unused(manager, hypothesis_used=False) == ["langsmith_plugin", "hypothesispytest"]
    assert loaded_unused(manager, hypothesis_used=True) == ["langsmith_plugin"]
    assert loaded_unused(manager, hypothesis_used=None) == ["langsmith_plugin"]  # xdist controller: cannot tell
    (line,) = hint(manager, hypothesis_used=False)
    assert "`addopts = -p no:langsmith_plugin -p no:hypothesispytest`" in line
    assert hint(pytest.PytestPluginManager()) == []
