"""The per-run state of pytest-sprout, composed for the hooks: the options and the suites, the
snapshot guard, the worker half (run.py: the system, the answers, the tiers, running an item) and,
on the process that aggregates, the controller half (controller.py: the tally, the gates, the
reports).

One `SproutSession` per pytest config, kept in ``config.stash``. The pytest hooks in plugin.py
only call into it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .config import options
from .config.settings import SETTINGS_KEY, Settings
from .suites.loader import SuiteFile, SuiteSet, load_suites
from .core.model import Case, GoldenItem
from .controller.controller import CONTROLLER_KEY, Controller
from .snapshot.guard import SnapshotGuard
from .core.fail_on import FailOn
from .core.identity import SnapshotError
from .run.worker import RUN_STASH_KEY, Run, load_factory
from .core.util import is_xdist_worker

SESSION_KEY = pytest.StashKey["SproutSession"]()


def get_session(config: pytest.Config) -> SproutSession:
    return config.stash[SESSION_KEY]


def is_controller(config: pytest.Config) -> bool:
    """True in a plain run and on the xdist controller; False on xdist workers."""
    return not is_xdist_worker(config)


class SproutSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings = settings = config.stash[SETTINGS_KEY] = Settings.from_config(config)  # the options, read once
        self._suites: SuiteSet | None = None
        self.thresholds = options.parse_thresholds(options.get(config, "sprout_threshold"))
        # snapshot check, golden-set record/replay
        self.guard = SnapshotGuard(settings, self.suites, controller=is_controller(config))
        # The worker half (run.py): the system, the answers, the tiers, running an item.
        self.run = config.stash[RUN_STASH_KEY] = Run(config, settings, self.thresholds, host=self)
        self.hypothesis_used: bool | None = None  # whether collected test modules imported Hypothesis
        self.merging = settings.merging  # python -m pytest_sprout.merge: the rows come from shard reports
        # False: this run cannot select a sprout item (a merge is about the suites whatever the testpaths)
        self.engaged = settings.merging or engaged(config, settings)
        # The tally, the gates and the reports: on the controller only (None on an xdist worker)
        self.controller = Controller(settings, self, self.guard, self.engaged) if is_controller(config) else None
        if self.controller is not None:  # a merge (cli/merge.py) replays the shards' rows into it
            config.stash[CONTROLLER_KEY] = self.controller
        self._factory_checked = False
        self._fail_on: FailOn | None = None  # an xdist worker's copy of the controller's --sprout-fail-on policy

    # --- options ------------------------------------------------------------------------------
    def option(self, dest: str) -> Any:
        return options.get(self.config, dest)

    # --- suites -------------------------------------------------------------------------------
    @property
    def suites_root(self) -> Path:
        return self.settings.suites_root

    def suites(self) -> SuiteSet:
        if self._suites is None:
            self._suites = load_suites(self.suites_root, self.config.rootpath)
        return self._suites

    def suite_file(self, path: Path) -> SuiteFile | None:
        """The parsed suite for a collected path, or None when the path is not a suite file."""
        root = self.suites_root
        if not (path == root or root in path.parents):
            return None
        return self.suites().files.get(path)

    @property
    def cases(self) -> list[Case]:
        return self.suites().cases

    def dataset_hash(self) -> str:
        from .core.identity import dataset_hash

        return dataset_hash(self.cases)

    # --- shards (--sprout-shard) ---------------------------------------------------------------
    def shard(self) -> tuple[int, int] | None:
        return self.settings.shard()

    def shard_record(self) -> dict[str, Any] | None:
        """What a shard's report says about it: which shard, and the settings every shard of one
        run must share (the merge refuses shards judged differently)."""
        shard = self.shard()
        if shard is None:
            return None
        from .core.judges import scrubbed

        return {"index": shard[0], "count": shard[1], "judging": scrubbed(self.judge_settings())}

    def judge_settings(self) -> dict[str, Any]:
        """The settings that decide a verdict: thresholds, each tier's judging options (not the
        API key, nor how a judge runs: device, batch size, timeouts), --sprout-mutate."""
        from .core.model import TIERS
        from .judges import tier_module

        how_it_runs = {"llm_api_key", "llm_timeout", "llm_concurrency", "nli_device", "nli_batch_size", "nli_no_cache",
                       "nli_endpoint"}  # where the model runs: the served model's identity is in the tier's settings
        judging: dict[str, Any] = {"thresholds": {f"{t}.{n}": v for (t, n), v in sorted(self.thresholds.items())},
                                   "sprout_mutate": self.settings.mutate}
        for tier in TIERS:
            for dest in getattr(tier_module(tier), "OPTIONS", ()):
                if dest not in how_it_runs:
                    value = self.option(dest)
                    judging[dest] = value if value is None or isinstance(value, (str, int, float, bool)) else str(value)
        return judging

    def shard_items(self, items: list[Any]) -> list[Any]:
        """With --sprout-shard=K/N: the items of shard K (every tier of a case together; any
        other test by its node id) are kept in ``items``; returns the others (deselected)."""
        shard = self.shard()
        if shard is None:
            return []
        from .core.shard import assign

        def unit(item: Any) -> str:
            case = getattr(item, "case", None)
            return f"case:{case.id}" if isinstance(case, Case) else f"test:{item.nodeid}"

        where = assign((unit(item) for item in items), shard[1])
        kept = [item for item in items if where[unit(item)] == shard[0]]
        dropped = [item for item in items if where[unit(item)] != shard[0]]
        items[:] = kept
        return dropped

    # --- the worker half (run.py) -----------------------------------------------------------
    def replay(self) -> Any:
        """The golden set being replayed (--sprout-golden), or None."""
        return self.guard.replay()

    def other_system(self) -> dict[str, Any] | None:
        """The system that answered when this process built none: the one that recorded the
        replayed golden set, else (the xdist controller) the one a worker sent back."""
        replayed = self.guard.replayed_system()
        if replayed is not None:
            return replayed
        return self.controller.worker_system if self.controller is not None else None

    def system_info(self) -> dict[str, Any] | None:
        return self.run.system_info()

    def judges_record(self) -> dict[str, Any]:
        return self.run.judges_record()

    def item_starting(self, item: Any) -> None:
        self.run.item_starting(item)

    def item_finished(self, item: Any) -> None:
        """After an item ran: drop answers no item still to run needs (asking.py)."""
        from .answers.wiring import item_finished
        from .run.upcoming import get_upcoming

        item_finished(self.run, item, get_upcoming(self.config).items)

    def fail_on(self) -> FailOn:
        """The run's --sprout-fail-on policy: the controller's (decided by start(), with the
        baseline's failing items), or on an xdist worker the copy the controller sent it."""
        if self.controller is not None:
            return self.controller.fail_on
        if self._fail_on is None:
            sent = getattr(self.config, "workerinput", {}).get("sprout_fail_on")
            self._fail_on = FailOn.from_json(sent) if sent else FailOn(self.settings.fail_on)
        return self._fail_on

    def item_report(self, item: Any, report: pytest.TestReport) -> None:
        """--sprout-fail-on new or gates: the call report of a sprout item that failed with its row
        and must not fail the run becomes xfailed, with the reason ("failed in BASE.json") and a
        property that tells the controller (and the JUnit XML) why; the row stays a failure."""
        if report.when != "call" or not report.failed or not hasattr(item, "case"):
            return
        if not any(name == "sprout" for name, _ in report.user_properties):
            return  # it raised before its row was made: a real error, never let pass
        policy = self.fail_on()
        if policy.mode == "any":
            return
        from .core.identity import case_hash

        mark = policy.mark(report.nodeid, case_hash(item.case))
        if mark is not None:
            report.outcome = "skipped"
            report.wasxfail = mark[1]
            report.user_properties.append(mark)
            item.user_properties.append(mark)  # the teardown report carries it to --junitxml

    def close_answers(self) -> None:
        if self.engaged:  # a run that reaches no suite opened no cache and asked nothing
            self.run.close_answers()

    def golden(self) -> dict[str, GoldenItem]:
        return self.run.golden()

    def tier_unavailable(self, name: str) -> str | None:
        return self.run.tier_unavailable(name)

    def tier(self, name: str) -> Any:
        return self.run.tier(name)

    # --- the controller half (controller.py) -------------------------------------------------
    def start(self) -> None:
        """Controller only, before anything runs: options and gates, the system factory, the baseline."""
        assert self.controller is not None
        self.controller.start()
        from .controller.startcheck import check_roles, check_suites_root, check_tier_options

        if self.settings.suites_explicit:
            check_suites_root(self)  # outside the rootdir: never reached by collection, say so
        if not self.engaged:  # the run cannot reach the suites: no system, no snapshot guard
            return
        check_tier_options(self)
        check_roles(self)
        if getattr(self.config.option, "dist", "no") not in (None, "no"):
            self.check_factory()  # the xdist controller collects nothing: check it before any worker starts
        try:
            self.guard.start()
        except SnapshotError as exc:
            raise pytest.UsageError(str(exc)) from None

    def check_factory(self) -> None:
        """Import the ini's system factory once, so that an import error stops the run (exit 4)
        rather than erroring every item. Called before the first sprout item, never in a run
        that selects none."""
        if self._factory_checked:
            return
        self._factory_checked = True
        spec = self.settings.system_cli
        if not spec and not self.config.hook.pytest_sprout_make_system.get_hookimpls():
            spec = self.settings.system  # the ini value, used when no conftest defines the hook
        if spec and not self.settings.golden_option and not self.merging:
            load_factory(spec, self.config.rootpath)

    def collected(self, items: list[Any]) -> None:
        """After collection (a plain run, or an xdist worker): check the system factory when a
        sprout item was selected."""
        selected = any(hasattr(item, "case") and hasattr(item, "tier") for item in items)
        if self.engaged and selected and is_controller(self.config) and not self.config.option.collectonly:
            self.check_factory()

    def finish(self, exitstatus: int = 0) -> None:
        if self.controller is None:  # an xdist worker: its system's name goes back to the controller
            self.config.workeroutput["sprout_system"] = self.system_info()  # type: ignore[attr-defined]
            self.config.workeroutput["sprout_judges"] = self.run.judges_record()  # type: ignore[attr-defined]
            return
        self.controller.finish(exitstatus)

    def header_line(self) -> str | None:
        """pytest's header line for this run (``pytest_report_header``): the plugin's version, the
        tiers that can run here (and those that cannot), and the judging settings of those tiers, as
        the reports record them (``judge_settings``: what is set, not the None of an unset option).
        None when the run reaches no suite (the plugin stays silent there)."""
        if not self.engaged:
            return None
        from .core.judges import scrubbed
        from .core.model import TIERS
        from .core.version import __version__

        usable = [tier for tier in TIERS if not self.tier_unavailable(tier)]
        tiers = ", ".join(usable) or "none"
        if len(usable) < len(TIERS):
            tiers += f" (not available: {', '.join(t for t in TIERS if t not in usable)})"
        judging = scrubbed(self.judge_settings())
        thresholds = judging.pop("thresholds")
        mutate = judging.pop("sprout_mutate")
        from .judges import tier_module

        in_use = {dest for tier in usable for dest in getattr(tier_module(tier), "OPTIONS", ())}
        shown = [f"{dest}={value}" for dest, value in sorted(judging.items()) if value is not None and dest in in_use]
        shown += [f"threshold {name}={value}" for name, value in sorted(thresholds.items())]
        shown.append("mutate on" if mutate else "mutate off")
        return f"sprout: pytest-sprout {__version__}; tiers {tiers}; judging {', '.join(shown)}"

    def summary_lines(self) -> list[str]:
        """The controller's closing lines, then the start-up hint (plugins loaded for nothing)."""
        lines = self.controller.summary_lines() if self.controller is not None else []
        if not lines:
            return []
        from .startup import hint

        return lines + hint(self.config.pluginmanager, self.hypothesis_used)


def engaged(config: pytest.Config, settings: Settings) -> bool:
    """Whether this run may select a sprout item: --sprout-check-snapshot or
    --sprout-update-snapshot, or one of the run's paths holds the suites, lies in them, or is not
    a path at all (``--pyargs``). ``pytest tests/unit`` reaches no suite: the plugin stays inert
    (no system factory, no snapshot guard, no cache, no answer source)."""
    if settings.check_snapshot or settings.update_snapshot:
        return True
    root = settings.suites_root.resolve()
    base = Path(config.invocation_params.dir)
    for arg in config.args or ["."]:
        path = Path(base, str(arg).split("::")[0]).resolve()
        if not path.exists() or path == root or root in path.parents or path in root.parents:
            return True
    return False
