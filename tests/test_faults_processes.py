"""Faults of issue 48 ("trust, second round"): nothing stalls in silence and nothing is left running.
Each test says in its docstring what happened before; the process tests start a command or a small
script as a user would, signal it once its workers are busy, and look for every process it had
started."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path

import pytest

from rankscale import hashing, processes

psutil = pytest.importorskip("psutil")

# ---------------------------------------------------------------------------------------------
# A busy hash cache


@pytest.fixture
def held_cache(tmp_path, monkeypatch) -> sqlite3.Connection:
    """The hash cache of this test alone, created, and a connection of another holder open on it."""
    monkeypatch.setenv("RANKSCALE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(hashing, "_SEEN", {})
    monkeypatch.setattr(hashing, "_GIVEN_UP", False)
    monkeypatch.setattr(hashing, "BUSY_NOTICE", 0.2)
    monkeypatch.setattr(hashing, "BUSY_LIMIT", 1.0)
    (tmp_path / "first").write_bytes(b"made the cache")
    hashing.file_sha256(tmp_path / "first")
    holder = sqlite3.connect(tmp_path / "cache" / hashing.CACHE_FILE, check_same_thread=False)
    yield holder
    holder.close()


def weights(folder: Path, n: int) -> list[Path]:
    folder.mkdir()
    files = [folder / f"model-{i}.safetensors" for i in range(n)]
    for i, f in enumerate(files):
        f.write_bytes(bytes([i]) * 100_000)
    return files


def test_a_held_hash_cache_is_waited_on_once_with_word_then_passed_by(held_cache, tmp_path, caplog):
    """Before: every file waited 30 s on a cache another process held, in silence (a reuse-only
    extract took 214 s instead of 4); now the wait is one, named after BUSY_NOTICE, and bounded."""
    files = weights(tmp_path / "model", 8)
    held_cache.execute("BEGIN EXCLUSIVE")
    start = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="rankscale.hashing"):
        digests = [hashing.file_sha256(f) for f in files]
    took = time.monotonic() - start
    assert digests == [hashlib.sha256(f.read_bytes()).hexdigest() for f in files]
    assert hashing.BUSY_LIMIT <= took < 3 * hashing.BUSY_LIMIT  # one wait, not one per file (8 s)
    waiting, given_up = (r.getMessage() for r in caplog.records)  # two messages, for all the files
    database = tmp_path / "cache" / hashing.CACHE_FILE
    assert waiting.startswith(f"waiting for the hash cache {database}, which another process holds")
    assert f"fuser -v {database}" in waiting and "hashing without it after 1 s" in waiting
    assert "still held by another process" in given_up and "without it" in given_up
    held_cache.rollback()
    (tmp_path / "model" / "later.bin").write_bytes(b"x")
    hashing.file_sha256(tmp_path / "model" / "later.bin")  # the process does not ask the cache again
    assert held_cache.execute("SELECT count(*) FROM files").fetchone() == (1,)


def test_a_hash_cache_let_go_of_is_used(held_cache, tmp_path, caplog):
    """A holder that lets go within BUSY_LIMIT is waited for, and the hashes are remembered."""
    files = weights(tmp_path / "model", 3)
    held_cache.execute("BEGIN EXCLUSIVE")
    threading.Timer(0.5, held_cache.rollback).start()
    with caplog.at_level(logging.WARNING, logger="rankscale.hashing"):
        digests = [hashing.file_sha256(f) for f in files]
    assert digests == [hashlib.sha256(f.read_bytes()).hexdigest() for f in files]
    assert [r.getMessage().split(",")[0] for r in caplog.records] == [f"waiting for the hash cache "
                                                                      f"{tmp_path / 'cache' / hashing.CACHE_FILE}"]
    assert held_cache.execute("SELECT count(*) FROM files").fetchone() == (1 + len(files),)


# ---------------------------------------------------------------------------------------------
# A command ended by a signal


def alive(procs: list) -> list:
    """Those of ``procs`` still running (a zombie has ended: it waits only for its parent to read its status)."""
    running = []
    for proc in procs:
        with suppress(psutil.NoSuchProcess):
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                running.append(proc)
    return running


def command_line(proc) -> str:
    with suppress(psutil.NoSuchProcess):
        return " ".join(proc.cmdline())
    return ""


def workers(lines: list[str]) -> list[str]:
    return [line for line in lines if "multiprocessing.spawn" in line]


def default_signals() -> None:
    """The signals' default handling in a child, as in a shell's command: a pytest-xdist worker ignores SIGINT
    (and may ignore SIGHUP), and an ignored signal stays ignored across exec, so that a command started from it
    would never see the signal sent."""
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def signal_when_ready(argv: list, signum: int, ready, **popen) -> tuple[int, float, list[str], list[str], str]:
    """Start ``argv``; once ``ready(command lines of its descendants, stderr)`` holds, send it ``signum``.

    Returns its exit status, the seconds it took to exit, the command lines of every process it
    had started by then and of those still running 5 s after it exited, and its stderr. Whatever
    is left is killed.
    """
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_signals, **popen)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(iter(lambda: proc.stderr.read(200), "")), daemon=True)
    reader.start()
    tree, descendants = psutil.Process(proc.pid), []
    try:
        deadline = time.monotonic() + 600
        while not ready([command_line(p) for p in tree.children(recursive=True)], "".join(err)):
            assert proc.poll() is None, "".join(err)[-3000:]
            assert time.monotonic() < deadline, "never ready"
            time.sleep(0.2)
        descendants = tree.children(recursive=True)
        lines = [command_line(p) for p in descendants]
        sent = time.monotonic()
        proc.send_signal(signum)
        status = proc.wait(timeout=60)
        exited = time.monotonic() - sent
        deadline = time.monotonic() + 5
        while alive(descendants) and time.monotonic() < deadline:
            time.sleep(0.1)
        remaining = [command_line(p) for p in alive(descendants)]
        # the pipe's last bytes (the command's closing line) may still be on their way to the reader, more so on a
        # busy machine: it ends at the pipe's end, once no process holds it
        reader.join(timeout=5)
        return status, exited, lines, remaining, "".join(err)
    finally:
        for left in alive([tree, *descendants]):
            left.kill()


NO_BAR = """
class Bar:  # the progress bar run_in_processes updates, drawing nothing
    def update(self, n=1):
        pass

    def set_postfix_str(self, text):
        pass
"""

TASKS = """
import subprocess, sys, time
from pathlib import Path

from rankscale.processes import run_in_processes


def task(n, bar):
    folder = Path(sys.argv[1])
    (folder / f"started-{n}").touch()
    subprocess.Popen(["sleep", "600"])  # a program of its own, as a page starts its Jupyter kernel
    try:
        for _ in range(600):
            time.sleep(0.1)
            bar.update(1)
        (folder / f"finished-{n}").touch()
    finally:  # a clean-up that takes a while in one task: the other's worker has ended by then
        time.sleep(n)
        (folder / f"cleaned-{n}").touch()

""" + NO_BAR + """

if __name__ == "__main__":
    try:
        run_in_processes(task, range(6), 2, Bar(), torch_threads=False)
    except KeyboardInterrupt:
        sys.exit(130)
"""


@pytest.mark.slow  # subprocesses
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129),
                                            (signal.SIGKILL, -signal.SIGKILL)])
def test_an_ended_run_in_processes_leaves_no_process(tmp_path, signum, status):
    """Before: after SIGTERM (or SIGHUP) both workers, the programs they had started and
    multiprocessing's resource tracker ran on, re-parented, through the rest of the tasks and
    then idle for ever; after SIGINT to the parent alone it waited for the running tasks to end
    (here 60 s), and then the workers took the queued ones. Now the parent ends every one of them
    within seconds; killed outright (SIGKILL), its workers notice and end themselves."""
    script = tmp_path / "tasks.py"
    script.write_text(TASKS)

    def sleeping(lines, err):
        return lines.count("sleep 600") == 2

    code, exited, descendants, left, err = signal_when_ready([sys.executable, script, tmp_path], signum, sleeping)
    assert code == status, err
    assert exited < 2 * processes.GRACE
    assert len(workers(descendants)) == 2 and any("resource_tracker" in line for line in descendants)
    assert left == []
    assert sorted(p.name for p in tmp_path.glob("started-*")) == ["started-0", "started-1"]  # none taken after
    assert not list(tmp_path.glob("finished-*"))
    assert sorted(p.name for p in tmp_path.glob("cleaned-*")) == ["cleaned-0", "cleaned-1"]  # each task unwound


PAGES = """
import pathlib, sys, tempfile

import nbformat, papermill

from rankscale.book import build


def page(folder, i):
    cell = f"import pathlib, time; pathlib.Path('kernel-{i}').touch(); time.sleep(600)"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    with tempfile.TemporaryDirectory(prefix="sockets-", dir=folder) as sockets:
        papermill.execute_notebook(nb, str(folder / f"{i}.ipynb"), kernel_name="python3", cwd=str(folder),
                                   progress_bar=False, config=build.kernel_config(pathlib.Path(sockets)))

""" + NO_BAR + """

if __name__ == "__main__":
    folder = pathlib.Path(sys.argv[1])
    build.execute_in_processes({"a1_metric": (folder, 0), "a2_scaling_regimes": (folder, 1)}, 2, Bar(), run=page)
"""


@pytest.mark.slow  # two Jupyter kernels
def test_an_ended_book_leaves_no_jupyter_kernel(tmp_path):
    """Before: a terminated book left its page workers and their kernels running. Now the workers
    unwind (a page's temporary folder is removed) and each kernel ends with its worker."""
    script = tmp_path / "pages.py"
    script.write_text(PAGES)

    def running(lines, err):
        return len(list(tmp_path.glob("kernel-*"))) == 2

    code, exited, descendants, left, err = signal_when_ready([sys.executable, script, tmp_path], signal.SIGTERM,
                                                             running)
    assert code == 143 and exited < 2 * processes.GRACE, err
    assert sum("ipykernel" in line for line in descendants) == 2
    assert left == []
    assert not list(tmp_path.glob("sockets-*"))  # the workers ran their clean-up


@pytest.fixture(scope="module")
def ladder_home(tmp_path_factory) -> Path:
    """RANKSCALE_HOME of the ladder tests: the tokenizer trained by the first is reused by the next."""
    return tmp_path_factory.mktemp("ladder-home")


@pytest.mark.slow  # rankscale ladder in a subprocess, until its workers train
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_an_ended_ladder_leaves_no_process(ladder_home, signum, status):
    """Before: `rankscale ladder` after SIGTERM left both workers (630 MB each on the tiny set) and
    the resource tracker training the rest of the set, then idle for ever. Now they end with it, and
    the models in training leave no partial folder."""

    def training(lines, err):
        return len(workers(lines)) == 2 and re.search(r"train:.*\| *[1-9]\d*/", err)

    code, exited, descendants, left, err = signal_when_ready(
        [sys.executable, "-m", "rankscale", "ladder", "--profile", "smoke"], signum, training,
        env={**os.environ, "RANKSCALE_HOME": str(ladder_home)})
    assert code == status, err[-3000:]
    assert exited < 2 * processes.GRACE
    assert left == []
    debris = [str(p.relative_to(ladder_home)) for p in ladder_home.glob("models/**/*.tmp-*")]
    assert debris == [], (debris, [sorted(q.name for q in (ladder_home / d).rglob("*")) for d in debris], err[-2000:])
    # one line says so, whichever the signal, and no traceback
    assert {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}[signum] in err.splitlines()[-1]
    assert "Traceback" not in err
