"""Shared fixtures: a small corpus from the standard library, a byte-level BPE tokenizer trained
on it, a randomly initialised causal LM saved with ``save_pretrained`` (``helpers``), and the
temporary home of the smoke ladder."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

# OpenBLAS (numpy's and scipy's) takes its number of threads from here once, when numpy loads it, so this comes
# before any import of numpy; subprocesses (the CLI, the book's kernels) inherit it, and compute as this process
# does. The tests' arrays are small: a second thread only waits for a core, and on two busy cores the appendix-C
# sums (a dot product over 32,768 ranks, thousands of times in the fits) ran 15 times slower with it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

# The machine's cache of file hashes (rankscale.hashing) goes to a folder of this test session's, set before any
# test runs so that subprocesses (the CLI, the book's kernels) inherit it, and removed at the end. In memory where
# the machine has a shared-memory file system: each hash written is a SQLite commit, which waits for the disk
# (12 ms each on this project's machine, some 200 of them in the fast tests).
_SHM = Path("/dev/shm")
os.environ["RANKSCALE_CACHE"] = tempfile.mkdtemp(prefix="rankscale-cache-", dir=_SHM if _SHM.is_dir() else None)
atexit.register(shutil.rmtree, os.environ["RANKSCALE_CACHE"], ignore_errors=True)

# torch's default number of threads, read where the tests run (pytest_configure)
TORCH_THREADS: int | None = None


def pytest_configure(config):
    """Where the tests run, before any is collected: Triton's kernels (rankscale.records.fused_head) run in its
    interpreter where there is no GPU, chosen when a kernel is defined, so before any test imports the package.
    pytest-xdist's controller runs no test: it leaves torch unimported (some 5 s of every run's start)."""
    if getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput"):
        return
    import torch

    global TORCH_THREADS
    TORCH_THREADS = torch.get_num_threads()
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """A fast test computes on one of torch's threads, its fixtures included: its models are small, so more
    threads gain little and contend for the cores (with each other and with whatever else the machine runs: on
    two busy cores the tests of extraction took twice as long). End-to-end tests keep torch's default."""
    import torch

    threads = TORCH_THREADS if item.get_closest_marker("slow") else 1
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


# The files whose tests train or read the session's smoke ladder (``smoke_home``). pytest-xdist (``-n auto``,
# pyproject.toml) runs them on one worker, in order, so that the ladder is trained once; every other test goes
# to whichever worker is free.
SMOKE_LADDER_FILES = frozenset(f"tests/{name}.py" for name in (
    "test_book", "test_faults_book", "test_installed_book", "test_sets_book", "test_smoke_profile"))


def pytest_collection_modifyitems(items):
    """A test of the smoke ladder outside SMOKE_LADDER_FILES would train the ladder again on another worker."""
    for item in items:
        if "smoke_home" in getattr(item, "fixturenames", ()) and item.nodeid.split("::")[0] not in SMOKE_LADDER_FILES:
            raise pytest.UsageError(f"{item.nodeid} uses smoke_home: add its file to SMOKE_LADDER_FILES "
                                    "(tests/conftest.py) so that it runs on the smoke ladder's worker")


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class SmokeLadderOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "smoke ladder" if nodeid.split("::")[0] in SMOKE_LADDER_FILES else nodeid

    return SmokeLadderOnOneWorker(config, log)


@pytest.fixture(scope="session")
def smoke_home(tmp_path_factory) -> Path:
    """RANKSCALE_HOME of every test that trains or reads the smoke ladder: a temporary folder, so
    that no test writes into the working tree's models/ or results/."""
    return tmp_path_factory.mktemp("rankscale-home")


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory) -> Path:
    """The documents in reverse order, so that the shuffle of extraction (seed 42) puts json's 14 kB of source
    first and inspect's 124 kB last: an extraction of a few hundred tokens tokenizes the small document only."""
    from helpers import corpus_documents

    path = tmp_path_factory.mktemp("corpus") / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in reversed(corpus_documents())))
    return path


@pytest.fixture(scope="session")
def tokenizer():
    from helpers import corpus_documents

    from rankscale.models.ladder import train_tokenizer

    return train_tokenizer(corpus_documents(), vocab_size=320)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory, tokenizer) -> Path:
    from helpers import N_PAD, corpus_documents, save_random_model

    ids = np.concatenate([tokenizer(d)["input_ids"] for d in corpus_documents()])
    common = np.argsort(np.bincount(ids, minlength=len(tokenizer)))[::-1]
    tie_rows = [int(i) for i in common[:6]] + list(range(100, 130))  # frequent targets tie with 35 others
    return save_random_model(tmp_path_factory.mktemp("model") / "neox", tokenizer, head_rows=len(tokenizer) + N_PAD,
                             tie_rows=tie_rows)
