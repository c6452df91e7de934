"""Work spread over spawned processes on the CPU, reported on one progress bar in the parent.

Training the ladder and extracting its results use the cores badly one model at a time: a small
model's matrices are too small to split across threads (a d16 model extracts 1.6x faster on two
threads than on one, not 2x). Both therefore run one model per process, each process with an equal
share of the cores' threads, and each process sends its progress to the parent's bar through a
queue. The thread count moves numbers in the last bits of float rounding, as another machine's
number of cores would: the tiny book's records made on one thread against two have the same ranks
at all 9.5M targets and the same log-probabilities at all but 630 of them, which differ by a unit
or two of the last place (at most 1.5e-5); training's weights move likewise
(``models.ladder.build_ladder``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

_QUEUE = None  # in a worker: where its WorkerBar sends the updates


def default_workers() -> int:
    """Processes at once: two where the machine has two cores or more, else one."""
    return 2 if (os.cpu_count() or 1) >= 2 else 1


class WorkerBar:
    """Stands in for the parent's tqdm bar inside a worker: sends what it is told to the parent.

    It has what the training and extraction loops use of a bar: ``update``, ``set_postfix_str``
    and the count ``n`` (setting it moves the parent's bar by the difference).
    """

    def __init__(self, queue):
        self._queue = queue
        self._n = 0

    @property
    def n(self) -> int:
        return self._n

    @n.setter
    def n(self, value: int) -> None:
        self.update(value - self._n)

    def update(self, n: int = 1) -> None:
        self._n += n
        self._queue.put(("update", n))

    def set_postfix_str(self, text: str) -> None:
        self._queue.put(("text", text))

    def refresh(self) -> None:
        """The parent's bar refreshes itself."""


def _start_worker(queue, threads: int | None, setup: Callable | None, setup_args: tuple) -> None:
    global _QUEUE
    if threads is not None:
        import torch

        from rankscale.models.loading import keep_freed_memory

        keep_freed_memory()
        torch.set_num_threads(threads)
    _QUEUE = queue
    if setup is not None:
        setup(*setup_args)


def _run(work: Callable, task) -> None:
    work(task, WorkerBar(_QUEUE))


def _forward(queue, bar) -> None:
    """Pass what the workers have sent so far to ``bar``."""
    import queue as queues

    while True:
        try:
            kind, value = queue.get_nowait()
        except queues.Empty:
            return
        if kind == "update":
            bar.update(value)
        else:
            bar.set_postfix_str(value)


def run_in_processes(work: Callable, tasks: Iterable, workers: int, bar, setup: Callable | None = None,
                     setup_args: tuple = (), torch_threads: bool = True) -> None:
    """``work(task, worker_bar)`` for every task, in ``workers`` spawned processes, in order.

    Parameters
    ----------
    work : callable
        A module-level function (it is pickled to the workers) taking a task and a ``WorkerBar``.
    tasks : iterable
        Picklable tasks, started in this order as workers come free: put the longest first, so
        that the last to finish are short.
    workers : int
        Processes, each with ``os.cpu_count() // workers`` torch threads (at least one) and the
        allocator of ``rankscale.models.loading.keep_freed_memory``.
    bar : tqdm.tqdm
        Advanced by what the workers report.
    setup : callable, optional
        Called once in each worker with ``setup_args`` before its first task (to load what every
        task shares).
    torch_threads : bool
        Give each worker its share of torch's threads and the allocator (above); False for work
        that runs no torch in the worker (executing a page: its kernel is a process of its own),
        which then never imports torch.

    Raises
    ------
    Exception
        The first task's error, once the tasks already running have ended; the tasks not started
        yet are cancelled.
    """
    import multiprocessing
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    threads = max(1, (os.cpu_count() or 1) // workers) if torch_threads else None
    context = multiprocessing.get_context("spawn")  # torch does not survive a fork with its threads
    queue = context.Queue()
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                             initargs=(queue, threads, setup, setup_args)) as pool:
        pending = {pool.submit(_run, work, task) for task in tasks}
        try:
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
                for future in done:
                    future.result()  # raises a worker's error here
                _forward(queue, bar)
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    _forward(queue, bar)  # what the workers sent as they ended
