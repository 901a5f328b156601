"""Start-up cost of other packages' pytest plugins. The ``llm`` and ``ragas`` extras bring
DeepEval and LangSmith, whose pytest plugins pytest loads in every run (entry points in the
``pytest11`` group), although pytest-sprout never uses them: they import their whole libraries
and cost seconds per process, per xdist worker too. Hypothesis' plugin imports all of Hypothesis
at the end of every run (its ``pytest_terminal_summary``), whether or not a test used it.
bench/bench_startup.py measures all three.

pytest loads entry-point plugins before any conftest or plugin hook runs, and in the order the
installed distributions are listed, so a plugin cannot reliably keep another from loading. What
works is the user's own ini file: pytest reads ``addopts`` before it loads entry points, so
``addopts = -p no:deepeval -p no:langsmith_plugin`` keeps them out (docs/guide.md, "Start-up
time"). This module notices when they were loaded anyway and says so, once, in the summary."""

from __future__ import annotations

import sys
from typing import Any

# entry-point name -> whose plugin it is; no pytest-sprout tier needs any of them
UNUSED_PLUGINS = {"deepeval": "DeepEval", "langsmith_plugin": "LangSmith", "hypothesispytest": "Hypothesis"}


def collected(sprout: Any) -> None:
    """After collection: whether any collected test module imported Hypothesis. Under xdist the
    controller collects nothing, so it cannot tell (None)."""
    dist = getattr(sprout.config.option, "dist", "no")
    sprout.hypothesis_used = None if dist not in (None, "no") else "hypothesis" in sys.modules


def loaded_unused(pluginmanager: Any, hypothesis_used: bool | None = None) -> list[str]:
    """The entry-point names of UNUSED_PLUGINS that this pytest process loaded; Hypothesis' only
    when we know that no collected test imported Hypothesis."""
    names = [name for name in UNUSED_PLUGINS if pluginmanager.get_plugin(name) is not None]
    return [n for n in names if n != "hypothesispytest" or hypothesis_used is False]


def hint(pluginmanager: Any, hypothesis_used: bool | None = None) -> list[str]:
    names = loaded_unused(pluginmanager, hypothesis_used)
    if not names:
        return []
    owners = " and ".join(f"{UNUSED_PLUGINS[n]}'s" for n in names)
    flags = " ".join(f"-p no:{n}" for n in names)
    return [f"start-up: {owners} pytest plugin{'s' * (len(names) > 1)} loaded, which this run does not use "
            f"(seconds per process and per xdist worker); keep {'them' if len(names) > 1 else 'it'} out with "
            f"`addopts = {flags}` in your ini file (docs/guide.md, Start-up time)"]
