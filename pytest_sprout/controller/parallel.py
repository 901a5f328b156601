"""Whether an xdist run (``-n N``) ran its tests in parallel at all (layer 8, controller).

The controller sees every test report its workers send, each with the worker it came from and how
long its phase took. Summed over the workers, that is the time the workers spent in tests; against
the run's wall-clock (from the controller's session start, which includes starting the workers
and their collection), it says how much the workers overlapped: N workers busy all the time give
N, one worker at a time gives 1. What that cannot see is how much slower each worker ran than one
process would (two workers and the controller on two cores): an overlap near N does not prove a
gain, but an overlap under ``NO_GAIN`` proves there was none to speak of, whatever the cores. That
is the line the terminal summary prints; otherwise it says so when the workers outnumber the
cores. Plain Python: reports are read for ``node`` (xdist's WorkerController, set only on
a report a worker sent), ``when`` and ``duration``.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from typing import Any

NO_GAIN = 1.1  # summed test time / wall-clock under this: the workers did not overlap enough to gain


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    getaffinity = getattr(os, "sched_getaffinity", None)
    return len(getaffinity(0)) if getaffinity is not None else (os.cpu_count() or 1)


class ParallelUse:
    def __init__(self, clock: Any = time.perf_counter) -> None:
        self.clock = clock
        self.started = clock()
        self.busy: dict[str, float] = defaultdict(float)  # worker id -> seconds in setup, call and teardown

    def add(self, report: Any) -> None:
        node = getattr(report, "node", None)
        if node is None or getattr(report, "when", None) not in ("setup", "call", "teardown"):
            return  # a report of this process (no xdist), or a collect report
        gateway = getattr(node, "gateway", None)
        worker = str(getattr(gateway, "id", None) or getattr(node, "workerinput", {}).get("workerid") or id(node))
        duration = getattr(report, "duration", 0.0)
        self.busy[worker] += float(duration) if isinstance(duration, (int, float)) else 0.0

    def lines(self, cores: int | None = None, now: float | None = None) -> list[str]:
        """The summary's line about the run's parallelism, or none when it ran on fewer than two
        workers or its workers overlapped (a gain is possible, not shown)."""
        workers = len(self.busy)
        if workers < 2:
            return []
        wall = (self.clock() if now is None else now) - self.started
        total = sum(self.busy.values())
        if wall <= 0:
            return []
        overlap = total / wall
        cores = available_cores() if cores is None else cores
        if overlap < NO_GAIN:
            return [f"xdist: {workers} workers spent {total:.1f} s in tests in all, in a {wall:.1f} s run "
                    f"({overlap:.2f}x one process's time, {workers}x at best): -n gained nothing here and most "
                    "likely made the run slower than -n 0 (every worker starts pytest, collects and loads its "
                    "judges); -n pays off when the items take long against that start (docs/reports.md, xdist)"]
        if workers > cores:
            return [f"xdist: {workers} workers on {cores} core{'s' * (cores != 1)}: the workers take turns on the "
                    f"cores (with the controller), so more than -n {cores} cannot make this run faster"]
        return []
