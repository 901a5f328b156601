"""pytest-sprout's hooks. Each is a thin call into the core (session.py and friends)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .config import options
from .answers.wiring import held_warnings, reissue_warnings, retry_on
from .core.tier import TIER_SPECS
from .controller.controller import Controller
from .session import SESSION_KEY, SproutSession, get_session, is_controller
from .core.util import safe_text


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspec

    pluginmanager.add_hookspecs(hookspec)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.register(parser)


def pytest_configure(config: pytest.Config) -> None:
    for spec in TIER_SPECS.values():
        config.addinivalue_line("markers", f"{spec.name}: {spec.marker}")
    config.stash[SESSION_KEY] = sprout = SproutSession(config)
    if is_controller(config):
        assert sprout.controller is not None  # the controller half exists wherever is_controller holds
        config.pluginmanager.register(Aggregator(sprout.controller, config), "sprout-aggregator")
        if sprout.engaged and sprout.guard.check():  # the snapshot check stops this run: start no xdist workers
            config.option.dist = "no"
    retry_on(sprout.settings.retry_on)  # a bad sprout_retry_on is a usage error now, not one per item
    for tier in sorted(sprout.settings.explicit_tiers):
        reason = sprout.tier_unavailable(tier)
        if reason:
            raise pytest.UsageError(f"-m {tier}: {reason}")


def pytest_report_header(config: pytest.Config) -> str | None:
    """One line: the plugin's version, the tiers that can run, the judging settings in use."""
    return get_session(config).header_line()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Any:
    if get_session(parent.config).suite_file(file_path) is not None:
        from .run.collect import SproutFile

        return SproutFile.from_parent(parent, path=file_path)
    return None


class Aggregator:
    """Registered on the controller only (like junitxml's LogXML): item rows arrive on the test
    reports, from this process or from xdist workers, and go to the controller (controller.py)."""

    def __init__(self, controller: Controller, config: pytest.Config) -> None:
        self.controller = controller
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.controller.record(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """xdist: the items a worker collected (all workers collect the same selection); a
        collect-only run (pytest --co) runs none, so none is waited for."""
        if not self.config.option.collectonly:
            self.controller.select(ids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist: a worker finished; keep what it sent back (the system's name and version)."""
        self.controller.worker_finished(getattr(node, "workeroutput", None) or {})

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist: give each worker this run's id (the cache keeps what the run used) and the
        --sprout-fail-on policy (the items reports are made on the workers)."""
        from .answers.wiring import run_id

        node.workerinput["sprout_run"] = run_id(self.config)
        node.workerinput["sprout_fail_on"] = self.controller.fail_on.to_json()  # the baseline's failures, read once


def pytest_sessionstart(session: pytest.Session) -> None:
    if is_controller(session.config):
        get_session(session.config).start()


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> bool | None:
    """Collect nothing when the snapshot check failed or is all this run does."""
    return True if get_session(session.config).guard.blocked else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """--sprout-shard=K/N: keep shard K of what -k/-m/--lf selected (they ran before: trylast)."""
    dropped = get_session(config).shard_items(items)
    if dropped:
        config.hook.pytest_deselected(items=dropped)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note the items this process may run; build the tiers that load a model (alce) before the
    first test, when their items were selected."""
    from .startup import collected
    from .run.upcoming import get_upcoming

    get_upcoming(session.config).collected(session.items)
    collected(get_session(session.config))
    get_session(session.config).collected(session.items)  # the system factory, when a sprout item was selected
    controller = get_session(session.config).controller
    if controller is not None and not session.config.option.collectonly:  # --co runs no item: none is lost
        controller.select([item.nodeid for item in session.items])
    get_session(session.config).run.collected(session.items)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Ask the system ahead about the cases coming up (--sprout-concurrency); after the item,
    drop the answers that no item still to run needs."""
    with held_warnings(item):  # outside pytest's warnings capture: raised again in the item's setup
        get_session(item.config).item_starting(item)
    yield
    get_session(item.config).item_finished(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    reissue_warnings(item)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """--sprout-fail-on new or gates: a sprout item's failure that must not fail the run is made
    xfailed here, where pytest's exit status, terminal and JUnit XML read it (on the process that
    ran the item: an xdist worker too). Outermost, so it sees the report as pytest made it."""
    outcome = yield
    get_session(item.config).item_report(item, outcome.get_result())


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    guard = get_session(session.config).guard
    if guard.failed:
        raise session.Failed("the sprout snapshot check failed")
    return True if guard.blocked else None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    from .controller.gates import exit_status

    sprout = get_session(session.config)
    sprout.close_answers()
    if not sprout.guard.blocked:  # a stopped run (snapshot check) judges and writes nothing
        sprout.guard.write_golden(session.exitstatus)  # first: the reports name the golden set
        sprout.finish(session.exitstatus)
        controller = get_session(session.config).controller
        session.exitstatus = exit_status(session.exitstatus, controller.gate_outcome if controller else None,
                                         write_failed=bool(controller and controller.write_failed))
    if sprout.engaged:
        session.exitstatus = sprout.guard.finish(session.exitstatus)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not is_controller(config):
        return
    if get_session(config).guard.lines:
        terminalreporter.write_sep("=", "sprout snapshot")
        for line in get_session(config).guard.lines:
            terminalreporter.write_line(safe_text(line))
    lines = get_session(config).summary_lines()
    if not lines:
        return
    terminalreporter.write_sep("=", "sprout")
    for line in lines:
        terminalreporter.write_line(safe_text(line))  # no control character from suite data or an answer


@pytest.fixture(scope="session")
def sprout_golden(request: pytest.FixtureRequest) -> Any:
    """Every case with the system's answer (a dict keyed by case id), shared with the items."""
    return get_session(request.config).golden()


@pytest.fixture(scope="session")
def lexical_judge(request: pytest.FixtureRequest) -> Any:
    """The LexicalJudge the groundedness items use, with this run's settings."""
    return get_session(request.config).tier("groundedness").judge


@pytest.fixture(scope="session")
def nli_judge(request: pytest.FixtureRequest) -> Any:
    """The NLIJudge the alce items use (loaded once per process; needs --nli-model)."""
    return get_session(request.config).tier("alce").judge
