"""Every code block of README.md runs as a reader would run it: the Python blocks in order, in one
session, in a folder holding the model and the corpus they name; each shell command on one line of
a ``bash`` block, where it runs offline within seconds, in the same folder (in this process, as
``rankscale.cli.main``), and otherwise only where ``NOT_RUN`` says why not; the TOML block as a
model set. A name of the API that moves, or a command line that changes, fails here rather than in
a reader's hands (the README once called ``metrics.window_success``, gone by then)."""

from __future__ import annotations

import csv
import glob
import re
import shlex
import shutil
from pathlib import Path

import pytest

from rankscale import sets
from rankscale.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"

# The shell commands the tests leave out, by how they start, each with why.
NOT_RUN = {
    "make book": "builds the tiny book: 35 to 65 minutes (tests/test_book.py builds the smoke book)",
    "make test": "the whole test suite, this file included",
    "pip install": "installs packages from an index",
    ".venv/bin/python -m rankscale ladder": "trains a ladder: minutes (tests/test_smoke_profile.py, the smoke one)",
    ".venv/bin/python scripts/scaling_tables.py": "needs the tiny ladder trained and extracted",
    "rankscale verdicts": "measures and decides every chapter of a set: minutes (tests/test_book.py runs it on smoke)",
    ".venv/bin/rankscale plan reduced": "asks the Hugging Face hub which commit each model of the reduced set is at",
    "sbatch": "submits to a Slurm cluster",
    "rsync": "copies a cluster's results, then builds the reduced book",
}
# What the commands' capitals stand for: the model and corpus of the Python blocks
PLACEHOLDERS = {"PATH_OR_HUB_ID": "my-model-dir", "NAME_OR_FILE": "notes.jsonl"}
# The ways the README starts rankscale, each run here as rankscale.cli.main
RANKSCALE = ("rankscale", ".venv/bin/rankscale", "python -m rankscale", ".venv/bin/python -m rankscale")


def starts(words: list[str], start: str) -> bool:
    return words[:len(start.split())] == start.split()


def blocks(language: str) -> list[str]:
    """The README's fenced blocks of ``language``, in order.

    Examples
    --------
    >>> any("rankscale --help" in block for block in blocks("bash"))
    True
    """
    return [body for lang, body in re.findall(r"^```(\w+)\n(.*?)^```", README.read_text(), re.M | re.S)
              if lang == language]


def commands() -> list[list[str]]:
    """The words of every command of the ``bash`` blocks, one a line, without its comment."""
    return [words for block in blocks("bash") for line in block.splitlines()
            if (words := shlex.split(line, comments=True))]


@pytest.fixture(scope="module")
def reader(tmp_path_factory, model_dir, corpus_file) -> Path:
    """A reader's folder: the model and the corpus the README names, nothing else."""
    folder = tmp_path_factory.mktemp("reader")
    shutil.copytree(model_dir, folder / PLACEHOLDERS["PATH_OR_HUB_ID"])
    shutil.copy(corpus_file, folder / PLACEHOLDERS["NAME_OR_FILE"])
    return folder


def test_the_python_blocks_run(reader, monkeypatch):
    monkeypatch.chdir(reader)
    session: dict = {}
    for block in blocks("python"):
        exec(compile(block, "README.md", "exec"), session)
    assert len(session["rec"]) == 20_000 and len(session["worst"]) == 10


def test_every_shell_command_runs_or_is_left_out_for_a_reason(reader, monkeypatch):
    monkeypatch.chdir(reader)
    ran, left_out = [], set()
    for words in commands():
        skipped = next((start for start in NOT_RUN if starts(words, start)), None)
        if skipped:
            left_out.add(skipped)
            continue
        program = next((p for p in RANKSCALE if starts(words, p)), None)
        assert program, f"README runs {shlex.join(words)!r}: run it here, or add it to NOT_RUN with the reason"
        words = [PLACEHOLDERS.get(word, word) for word in words[len(program.split()):]]
        argv = [found for word in words for found in (sorted(glob.glob(word)) if glob.has_magic(word) else [word])]
        try:
            status = main(argv)
        except SystemExit as stop:  # --help
            status = stop.code
        assert status == 0, shlex.join(words)
        ran.append(argv[0])
    assert left_out == set(NOT_RUN)  # every reason still stands for a command of the README
    assert ran == ["--help", "extract", "metrics"]
    with open(reader / "metrics.csv", newline="") as fh:
        (row,) = csv.DictReader(fh)
    assert Path(row["model"]).name == PLACEHOLDERS["PATH_OR_HUB_ID"] and int(row["n_tokens"]) == 20_000


def test_the_model_set_is_a_model_set(tmp_path, corpus_file):
    (block,) = blocks("toml")
    (tmp_path / "data" / "2024").mkdir(parents=True)
    shutil.copy(corpus_file, tmp_path / "data" / "2024" / "held-out.jsonl")
    (tmp_path / "my-models.toml").write_text(block)
    model_set = sets.get(str(tmp_path / "my-models.toml"))
    assert [family.name for family in model_set.families] == ["mine", "Pythia"]
    assert model_set.corpora == {"pydocs": 150_000, "held-out": 50_000}
