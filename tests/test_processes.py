"""Work spread over spawned processes: the bar a worker reports through, and the first failure."""

from __future__ import annotations

import queue

import pytest

from rankscale.processes import WorkerBar, run_in_processes


def _drain(q: queue.Queue) -> list:
    return [q.get_nowait() for _ in range(q.qsize())]


def test_a_worker_bar_sends_what_it_is_told():
    q = queue.Queue()
    bar = WorkerBar(q)
    bar.update(5)
    bar.update()
    bar.set_postfix_str("d16 on pydocs")
    assert bar.n == 6
    bar.n = 2  # as a retry sets it back: the parent's bar moves by the difference
    bar.refresh()
    assert _drain(q) == [("update", 5), ("update", 1), ("text", "d16 on pydocs"), ("update", -4)]


class _Bar:
    def __init__(self):
        self.n, self.texts = 0, []

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, text):
        self.texts.append(text)


def _count(task, bar):
    if task == "fail":
        raise ValueError("task fail failed")
    bar.set_postfix_str(task)
    bar.update(len(task))


@pytest.mark.slow  # spawns worker processes
def test_the_workers_report_to_one_bar_and_the_first_failure_is_raised():
    bar = _Bar()
    run_in_processes(_count, ["ab", "cde", "f"], 2, bar)
    assert bar.n == 6 and sorted(bar.texts) == ["ab", "cde", "f"]
    with pytest.raises(ValueError, match="task fail failed"):
        run_in_processes(_count, ["fail"] + ["x"] * 50, 1, _Bar())
