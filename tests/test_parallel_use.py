"""controller/parallel.py: the summary line that says when an xdist run gained nothing from its
workers, from the reports' durations against the run's wall-clock (a fake clock here)."""

from __future__ import annotations

from types import SimpleNamespace

from pytest_sprout.controller.parallel import NO_GAIN, ParallelUse


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def report(worker: str | None, duration: float, when: str = "call") -> SimpleNamespace:
    node = None if worker is None else SimpleNamespace(gateway=SimpleNamespace(id=worker))
    return SimpleNamespace(node=node, when=when, duration=duration)


def use_with(reports: list[SimpleNamespace], wall: float) -> ParallelUse:
    clock = Clock()
    use = ParallelUse(clock)
    for r in reports:
        use.add(r)
    clock.now += wall
    return use


def test_workers_that_overlapped_get_no_line() -> None:
    # Two workers busy 9 s each in a 10 s run: 1.8x overlap, a gain was possible.
    use = use_with([report("gw0", 4.5), report("gw0", 4.5, "setup"), report("gw1", 9.0)], wall=10.0)
    assert use.busy == {"gw0": 9.0, "gw1": 9.0}
    assert use.lines(cores=4) == []


def test_workers_that_did_not_overlap_are_named() -> None:
    # 0.4 s of tests in all over a 6 s run: the start-up of the workers was the run.
    use = use_with([report("gw0", 0.1), report("gw1", 0.2), report("gw1", 0.1, "teardown")], wall=6.0)
    (line,) = use.lines(cores=2)
    assert line.startswith("xdist: 2 workers spent 0.4 s in tests in all, in a 6.0 s run (0.07x one process's time, "
                           "2x at best): -n gained nothing here"), line


def test_the_threshold_is_an_overlap_of_one_point_one() -> None:
    just_under = use_with([report("gw0", 5.0), report("gw1", NO_GAIN * 10 - 5.0 - 0.01)], wall=10.0)
    just_over = use_with([report("gw0", 5.0), report("gw1", NO_GAIN * 10 - 5.0 + 0.01)], wall=10.0)
    assert len(just_under.lines(cores=8)) == 1
    assert just_over.lines(cores=8) == []


def test_more_workers_than_cores_is_said_even_when_they_overlapped() -> None:
    use = use_with([report(f"gw{i}", 9.0) for i in range(4)], wall=10.0)
    (line,) = use.lines(cores=2)
    assert line == ("xdist: 4 workers on 2 cores: the workers take turns on the cores (with the controller), so "
                    "more than -n 2 cannot make this run faster")
    assert use.lines(cores=4) == []


def test_no_line_without_xdist_or_with_one_worker() -> None:
    # Reports of this process carry no node; collect reports have no setup/call/teardown phase.
    assert use_with([report(None, 0.1), report(None, 0.2)], wall=60.0).lines(cores=2) == []
    assert use_with([report("gw0", 0.1), report("gw1", 0.1, "collect")], wall=60.0).lines(cores=2) == []
    assert use_with([report("gw0", 0.1)], wall=60.0).lines(cores=2) == []
