"""The snapshot guard for one pytest run: the check before anything runs, golden-set recording
and replay, and registering what the run wrote when it ends. Plain Python, no pytest import: the
session calls in."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..answers import golden
from ..config.settings import Settings
from ..core.identity import LIST_LIMIT, SnapshotError, file_sha256, id_list
from .file import INPUTS, Snapshot, artifact_problems, check, rebuild_hint, relative, update
from ..core.model import Case
from ..suites.loader import SuiteSet
from ..core.version import __version__


OK, TESTS_FAILED, INTERRUPTED, INTERNAL_ERROR, USAGE_ERROR, NO_TESTS_COLLECTED = 0, 1, 2, 3, 4, 5  # pytest.ExitCode


class SnapshotGuard:
    """The snapshot check, golden-set recording and replay for one pytest run.

    It reads the run's settings and its suites (``suites()`` loads them when first asked);
    ``controller`` is False on an xdist worker. Errors are SnapshotError; the session turns the
    ones raised before the run into usage errors. Only the controller checks and writes.
    """

    def __init__(self, settings: Settings, suites: Callable[[], SuiteSet], controller: bool = True) -> None:
        self.settings = settings
        self.suites = suites
        self.controller = controller
        self.lines: list[str] = []  # the terminal section "sprout snapshot"
        self.blocked = False  # nothing runs: the check failed, or --sprout-check-snapshot
        self.failed = False
        self.recorded: dict[str, dict[str, Any]] = {}  # case id -> golden entry, from the item rows
        self.golden_ref: dict[str, str] | None = None  # the golden set this run replayed or recorded
        self.golden_written = False
        self.written_paths: set[Path] = set()  # the report files this run wrote (set by the controller)
        self.inputs_written: set[Path] = set()  # a calibration --sprout-calibrate rewrote (set by the controller)
        self.incomplete = False  # the controller's reports are marked incomplete (-x stopped the run): never registered
        self.partial_selection: Any = None  # controller/selection.Selection of a partial run (set by the controller)
        self.diverged: list[str] = []  # cases two xdist workers answered differently
        self._replay: Any = None

    # --- paths and options --------------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.settings.rootpath

    @property
    def path(self) -> Path:
        return self.settings.snapshot

    @property
    def cases(self) -> list[Case]:
        return self.suites().cases

    def rel(self, path: Path) -> str:
        return relative(path, self.root)

    @property
    def collect_only(self) -> bool:
        """pytest --co: nothing runs, nothing is written (the snapshot's dataset may be updated)."""
        return self.settings.collect_only

    @property
    def check_only(self) -> bool:
        return self.settings.check_snapshot

    @property
    def updating(self) -> bool:
        return self.settings.update_snapshot

    def record_path(self) -> Path | None:
        return self.settings.record

    def labels_path(self) -> Path | None:
        return self.settings.labels

    def calibration_path(self) -> Path | None:
        """The calibration this run's judges use (--sprout-calibration, else the rootdir's default)."""
        from ..core.calibration import FILE_NAME

        option = self.settings.calibration_option
        path = Path(self.root, option or FILE_NAME)
        return path if option or path.is_file() else None

    def rebuilt(self) -> list[tuple[Path, str]]:
        """The frozen artifacts this run writes: the golden set it records, the JSON report."""
        record = self.record_path()
        out: list[tuple[Path, str]] = [(record, "golden")] if record else []
        out += [(path, "report") for path in self.settings.reports.json]
        return out

    # --- before the run -----------------------------------------------------------------------
    def start(self) -> None:
        """Refuse contradictory options and a golden set that cannot be replayed."""
        if self.settings.record and self.settings.golden_option:
            raise SnapshotError("--sprout-record and --sprout-golden cannot be combined: a replay records nothing new")
        if self.check_only and self.updating:
            raise SnapshotError("--sprout-check-snapshot and --sprout-update-snapshot cannot be combined: one checks "
                                "the snapshot, the other rewrites it")
        if self.settings.golden_option:
            self.replay()

    def replay(self) -> Any:
        """The golden set given with --sprout-golden (a golden.GoldenSet), or None."""
        path = self.settings.golden
        if self._replay is None and self.settings.golden_option and path is not None:
            self._replay = golden.load(path, self.rel(path), self.cases)
            self.golden_ref = {"path": self.rel(path), "sha256": self._replay.sha256}
        return self._replay

    def replayed_system(self) -> dict[str, Any] | None:
        """The system's declared name/version recorded in the replayed golden set."""
        return self._replay.system if self._replay is not None else None

    def check(self) -> bool:
        """Check the snapshot before anything is collected or run. True when the run must stop
        (``self.lines`` say why; ``self.failed`` unless it is a passing --sprout-check-snapshot)."""
        path = self.path
        if self.updating:
            if path.exists():
                try:
                    Snapshot.load(path, self.rel(path))
                except SnapshotError as exc:
                    return self._stop([f"{exc}; cannot update it without losing its artifact registry: "
                                       "fix it, or delete it and run pytest --sprout-update-snapshot"])
            return False
        if not self.check_only and not path.exists():
            return False
        exempt = [] if self.check_only else [self.rel(p) for p, _ in self.rebuilt()]
        result = check(path, self.rel(path), self.cases, self.root, exempt)
        errors = [str(e) for e in self.suites().errors]
        broken = [f"the suites have errors; their cases are not part of the dataset ({len(errors)}):",
                  *(f"  {e}" for e in errors[:LIST_LIMIT])] if errors else []
        if result.ok and not (self.check_only and errors):
            if self.check_only:
                self.lines = result.lines()
                self.blocked = True
            return self.blocked
        hint = [] if result.error or result.ok else rebuild_hint(result.snapshot, self.settings.markexpr)
        return self._stop((result.lines() if not result.ok else []) + broken + hint)

    def _stop(self, lines: list[str]) -> bool:
        self.lines = lines
        self.blocked = self.failed = True
        return True

    # --- during the run -----------------------------------------------------------------------
    def keep(self, row: dict[str, Any]) -> None:
        """Controller: take the golden entry off an item row (it is not part of the report)."""
        entry = row.pop("golden", None)
        if entry is not None:
            first = self.recorded.setdefault(row["case_id"], entry)
            if first != entry and row["case_id"] not in self.diverged:
                self.diverged.append(row["case_id"])

    # --- after the run ------------------------------------------------------------------------
    def write_golden(self, exitstatus: int) -> None:
        """Write the golden set of a --sprout-record run, before the reports (they name it)."""
        path = self.record_path()
        if path is None or self.blocked or not self.controller or self.collect_only or exitstatus == USAGE_ERROR:
            return
        if exitstatus in (INTERRUPTED, INTERNAL_ERROR):
            self.lines.append(f"{self.rel(path)}: not written, the run did not finish")
            return
        if not self.recorded:
            self.lines.append(f"{self.rel(path)}: not written, no sprout item ran")
            return
        from ..reports.safe_write import remove_stale, write_json

        try:
            write_json(path, golden.build(self.cases, self.recorded, __version__))
        except OSError as exc:
            self.lines.append(f"--sprout-record={self.rel(path)}: the golden set could not be written: "
                              f"{exc.strerror or exc}{remove_stale(path)}")
            self.failed = True
            return
        self.golden_written = True
        self.golden_ref = {"path": self.rel(path), "sha256": file_sha256(path)}
        missing = len(self.cases) - len(self.recorded)
        self.lines.append(f"{self.rel(path)}: recorded {len(self.recorded)} answers"
                          + (f" ({missing} cases not run here are not recorded)" if missing else ""))
        if self.diverged:
            self.lines.append(
                f"  {len(self.diverged)} cases were answered differently by two xdist workers "
                f"({id_list(self.diverged)}); the golden set keeps the first answer: record with -n 0 "
                "for a replay that matches this run's report exactly"
            )

    def registered(self) -> set[str]:
        """The artifact paths the snapshot registers (none when there is no readable snapshot)."""
        try:
            return set(Snapshot.load(self.path, self.rel(self.path)).artifacts) if self.path.is_file() else set()
        except SnapshotError:
            return set()

    def report_extra(self) -> dict[str, Any]:
        """What the JSON report says about the golden set its answers came from."""
        out: dict[str, Any] = {"golden": self.golden_ref} if self.golden_ref else {}
        labels = self.labels_path()
        if labels is not None and labels.is_file():
            out["labels"] = {"path": self.rel(labels), "sha256": file_sha256(labels)}
        return out

    def finish(self, exitstatus: int) -> int:
        """Register what this run wrote (all of it with --sprout-update-snapshot; else a recorded
        golden set and artifacts already registered), re-check the chain, return the exit status."""
        if not self.controller:
            return exitstatus
        if self.blocked:
            if self.failed:
                return failed(exitstatus)
            return OK if exitstatus == NO_TESTS_COLLECTED else exitstatus
        if exitstatus in (INTERRUPTED, INTERNAL_ERROR, USAGE_ERROR):
            return exitstatus  # nothing (or not everything) ran: nothing to register
        status = self._register(exitstatus)
        return failed(status) if self.failed else status  # e.g. the golden set could not be written

    def _register(self, exitstatus: int) -> int:
        path, label = self.path, self.rel(self.path)
        wrote = self.written_paths  # not an old file of that name
        written = [(p, kind) for p, kind in self.rebuilt()
                   if (self.golden_written if kind == "golden" else p in wrote)]
        selection = self.partial_selection
        if selection is not None:  # a part of the dataset never stands for all of it
            for p in [p for p, kind in written if kind == "report" and self.updating]:  # else kept as it was
                self.lines.append(f"{self.rel(p)}: not registered: this run judged {selection.selected} "
                                  f"of the dataset's {selection.total} items (a partial report)")
            written = [(p, kind) for p, kind in written if kind != "report"]
        elif self.incomplete:  # a run stopped early (-x, --maxfail) never stands for the whole dataset
            for p in [p for p, kind in written if kind == "report" and self.updating]:  # else kept as it was
                self.lines.append(f"{self.rel(p)}: not registered: not every selected item ran (an incomplete report)")
            written = [(p, kind) for p, kind in written if kind != "report"]
        labels = self.labels_path()
        if labels is not None and labels.is_file():  # an input of the run, registered like a golden set
            written.append((labels, "labels"))
        calibration = self.calibration_path()
        if calibration is not None and calibration.is_file():  # an input too; rewritten by --sprout-calibrate
            written.append((calibration, "calibration"))
        outside = [p for p, _ in written if not _inside(p, self.root)]
        for p in outside:  # the snapshot registers files under the rootdir only (a later run refuses others)
            self.lines.append(f"{p}: written, but not registered in the snapshot: it is outside the rootdir {self.root}")
        written = [(p, k) for p, k in written if p not in outside]
        try:
            registered = Snapshot.load(path, label).artifacts if path.exists() else {}
            if not self.updating:
                written = [(p, k) for p, k in written if k == "golden" or self.rel(p) in registered]
                if all(k in INPUTS and p not in self.inputs_written for p, k in written):
                    written = []  # labels already registered, nothing rebuilt: the chain stays as it is
                if not written:
                    return exitstatus
            snap, lines = update(path, label, self.cases, self.root, written, __version__, dataset=self.updating)
        except SnapshotError as exc:
            self.lines.append(str(exc))
            self.failed = True
            return failed(exitstatus)
        except OSError as exc:
            self.lines.append(f"{label}: the snapshot could not be written: {exc.strerror or exc}; it is as it was")
            self.failed = True
            return failed(exitstatus)
        self.lines.extend(lines)
        problems = artifact_problems(snap.artifacts.values(), self.root, snap.dataset_hash)
        if problems:
            self.failed = True
            self.lines.append(f"{label}: the registered artifacts do not form one chain:")
            self.lines.extend(f"  {p}" for p in problems)
            self.lines.extend(rebuild_hint(snap, self.settings.markexpr))
            return failed(exitstatus)
        return exitstatus


def _inside(path: Path, root: Path) -> bool:
    import os

    real, top = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    return real == top or top in real.parents


def failed(exitstatus: int) -> int:
    """The exit status of a run whose snapshot check failed: 1 unless it already says worse."""
    return TESTS_FAILED if exitstatus in (OK, NO_TESTS_COLLECTED) else exitstatus
