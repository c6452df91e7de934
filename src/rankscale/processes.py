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

Every process a long-running command starts ends with it. ``run_in_processes`` (the ladder's
training, the set's extractions, the book's pages) puts each worker in a process group of its own
with whatever it starts; a parent interrupted (Ctrl-C, SIGTERM, SIGHUP: ``interruptible``) ends
those groups before it leaves, and a worker whose parent is gone however it went (SIGKILL, a crash)
ends its own. Without this a terminated ``rankscale ladder`` left both workers and
multiprocessing's resource tracker running, re-parented, training the rest of the set and then
idle for ever, and Ctrl-C waited for the models in training to finish. ``interruptible`` alone
serves a command that runs one program (``subprocess.run``, which kills its child on the way out).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager, suppress

_QUEUE = None  # in a worker: where its WorkerBar sends the updates
_BUSY = False  # in a worker: a task or the set-up is running, which SIGTERM unwinds rather than cuts short
_UNWINDING = False  # in a worker: a SIGTERM is unwinding it, which a later one must not cut short
GRACE = 5.0  # seconds an ended process has to run its clean-up before it is killed
PARENT_POLL = 0.5  # seconds between a worker's checks that its parent is still there


class Terminated(SystemExit):
    """SIGTERM or SIGHUP, raised where the process was (``interruptible``), so that it unwinds as
    after Ctrl-C; its code, 128 plus the signal's number (143, 129), is the exit status a shell
    shows for a process the signal killed.

    Examples
    --------
    >>> Terminated(signal.SIGTERM).code
    143
    """

    def __init__(self, signum: int):
        super().__init__(128 + signum)


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


@contextmanager
def interruptible():
    """While inside, SIGTERM and SIGHUP raise ``Terminated`` as Ctrl-C raises KeyboardInterrupt.

    By default either signal kills Python on the spot: no ``finally`` block or ``with`` exit runs,
    so the processes it started run on alone. Raised instead, the way out ends them
    (``run_in_processes``'s workers; a ``subprocess.run`` child, which it kills on any exception).
    A signal whose handler the program set itself is left alone, and so is every signal outside
    the main thread, where Python runs no handler.

    Examples
    --------
    >>> with interruptible():
    ...     try:
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ...         time.sleep(5)
    ...     except Terminated as stop:
    ...         print("unwound with status", stop.code)
    unwound with status 143
    >>> signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # as it was
    True
    """
    main = threading.current_thread() is threading.main_thread()
    ours = [s for s in (signal.SIGTERM, signal.SIGHUP) if main and signal.getsignal(s) == signal.SIG_DFL]
    for signum in ours:
        signal.signal(signum, _raise_terminated)
    try:
        yield
    finally:
        for signum in ours:
            signal.signal(signum, signal.SIG_DFL)


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


def _start_worker(queue, parent: int, threads: int | None, setup: Callable | None, setup_args: tuple) -> None:
    global _QUEUE
    # a process group of its own, which what it starts joins: the parent ends them as one, and the terminal's
    # Ctrl-C, the parent's to act on, does not reach them
    os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, _end_worker)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if threads is not None:
        import torch

        from rankscale.models.loading import keep_freed_memory

        keep_freed_memory()
        torch.set_num_threads(threads)
    _QUEUE = queue
    if setup is not None:
        _unwound_on_sigterm(setup, *setup_args)


def _end_worker(signum, frame) -> None:
    """SIGTERM in a worker: unwind the task running, so that its clean-up runs (a page's Jupyter
    kernel shut down, a temporary folder removed); between tasks there is none to run.

    Only the first SIGTERM counts: the pool sends another once a sibling has ended, which would cut
    the clean-up short (the parent's SIGKILL after ``GRACE`` stays the bound).
    """
    global _UNWINDING
    if _UNWINDING:
        return
    if not _BUSY:
        os._exit(128 + signum)
    _UNWINDING = True
    raise Terminated(signum)


def _unwound_on_sigterm(call: Callable, *args) -> None:
    global _BUSY
    try:
        _BUSY = True
        call(*args)
    except Terminated as stop:
        # unwound; now leave at once: the pool would send the stop back as the task's error and start the next
        # task, and a normal exit waits for the queue's writer thread, which a killed sibling can leave stuck
        os._exit(stop.code)
    finally:
        _BUSY = False


def _watch_parent(parent: int) -> None:
    """In a worker: end its group once its parent is gone, however it went (SIGKILL, a crash),
    rather than train or wait on alone; killed if its clean-up outlasts ``GRACE``."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os.killpg(0, signal.SIGTERM)
    time.sleep(GRACE)
    os.killpg(0, signal.SIGKILL)


def _run(work: Callable, task) -> None:
    _unwound_on_sigterm(work, task, WorkerBar(_QUEUE))


def _end(processes) -> None:
    """SIGTERM to each process's group, SIGKILL to those still there after ``GRACE`` seconds."""
    for process in processes:
        _signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            _signal_group(process, signal.SIGKILL)
            process.join()


def _signal_group(process, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:  # not in a group of its own yet (still starting): the process alone
        with suppress(ProcessLookupError):
            os.kill(process.pid, signum)


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
    KeyboardInterrupt, Terminated
        Ctrl-C, SIGTERM or SIGHUP (``interruptible``), once the workers and every process they
        started have ended: each gets SIGTERM, which unwinds its task, and SIGKILL after ``GRACE``
        seconds.
    """
    import multiprocessing
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    threads = max(1, (os.cpu_count() or 1) // workers) if torch_threads else None
    context = multiprocessing.get_context("spawn")  # torch does not survive a fork with its threads
    queue = context.Queue()
    others = set(multiprocessing.active_children())  # processes started before, not this call's to end
    with interruptible():
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                   initargs=(queue, os.getpid(), threads, setup, setup_args))
        try:
            pending, failed = {pool.submit(_run, work, task) for task in tasks}, None
            while pending and failed is None:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
                failed = next((future for future in done if future.exception() is not None), None)
                _forward(queue, bar)
            # after a failure the running tasks end, and those not handed to a worker yet are dropped
            pool.shutdown(cancel_futures=True)
        except BaseException:  # interrupted, or this process failed: nothing of the work is wanted any more
            _end(set(multiprocessing.active_children()) - others)
            pool.shutdown(cancel_futures=True)
            raise
    _forward(queue, bar)  # what the workers sent as they ended
    if failed is not None:
        failed.result()
