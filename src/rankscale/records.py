"""Per-token records on disk: a directory of ``shard-*.npz`` files and ``manifest.json``.

Each shard holds, for a contiguous range of windows, the arrays ``logp`` (float32), ``gt``,
``ge``, ``target`` and ``window`` (int32), one entry per target, and ``top_logp`` (float32,
shape (n, TOP_K)): the log-probabilities of the TOP_K highest-scoring tokens, best first. Files are written to a temporary name and renamed, so
a shard is either absent or whole; the manifest says whether the run finished and carries each
shard's SHA-256. Only numpy and json here, so reading results needs no torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from rankscale import RankscaleError

FORMAT = 2  # 2 added top_logp
TOP_K = 8  # enough of the head of each output distribution for paper B's Figure 5
RECORD_FIELDS = ("logp", "gt", "ge", "target", "window", "top_logp")
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Records:
    """Per-target arrays of one finished (model, corpus) extraction, plus its manifest."""

    logp: np.ndarray
    gt: np.ndarray
    ge: np.ndarray
    target: np.ndarray
    window: np.ndarray
    top_logp: np.ndarray
    manifest: Manifest = field(repr=False)

    def __len__(self) -> int:
        return len(self.logp)

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-target arrays by name (the form ``rankscale.fit`` resamples)."""
        return {name: getattr(self, name) for name in RECORD_FIELDS}


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_atomic(path: Path, write) -> None:
    """Write through ``write(tmp_path)`` then rename, so ``path`` is either absent or whole."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, data: dict) -> None:
    write_atomic(path, lambda tmp: tmp.write_text(json.dumps(data, indent=2) + "\n"))


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    def write(tmp: Path) -> None:
        with tmp.open("wb") as fh:
            np.savez(fh, **arrays)
            fh.flush()
            os.fsync(fh.fileno())
    write_atomic(path, write)


def read_shard(path: Path, n_tokens: int) -> dict[str, np.ndarray] | None:
    """The shard's arrays, or None if the file is missing, unreadable or of the wrong size."""
    try:
        with np.load(path) as data:
            arrays = {k: data[k] for k in RECORD_FIELDS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if any(a.shape[0] != n_tokens for a in arrays.values()) or arrays["top_logp"].shape != (n_tokens, TOP_K):
        return None
    return arrays


def plan_shards(windows: list[np.ndarray], shard_tokens: int) -> list[tuple[int, int, int]]:
    """Split windows into consecutive shards of about ``shard_tokens`` targets each.

    Returns (first window, end window, number of targets) per shard; depends only on the windows.
    """
    shards, first, count = [], 0, 0
    for i, w in enumerate(windows):
        count += len(w) - 1
        if count >= shard_tokens or i == len(windows) - 1:
            shards.append((first, i + 1, count))
            first, count = i + 1, 0
    return shards


@dataclass(frozen=True)
class Shard:
    """One shard file: the windows ``windows[0]`` to ``windows[1] - 1`` and their ``n_tokens``
    targets; ``sha256`` is recorded once the extraction has finished."""

    file: str
    windows: tuple[int, int]
    n_tokens: int
    sha256: str | None = None


class OutdatedRecords(RankscaleError):
    """A results folder written by a version of rankscale whose records this one cannot read."""


@dataclass(frozen=True)
class Manifest:
    """What a results folder holds: the settings that define the result (``identity``, compared
    as a whole; see ``rankscale.extract``), the model's vocabulary and parameter counts, the corpus,
    the shards, and whether the extraction finished (``complete``). ``model_file`` describes a GGUF
    file where the model is one. Stored as ``manifest.json``, tagged with ``FORMAT``."""

    identity: dict
    corpus_description: str
    code_version: str
    vocab_size: int
    head_rows: int
    params_total: int
    params_non_embedding: int
    n_windows: int
    shards: tuple[Shard, ...]
    complete: bool = False
    model_file: dict | None = None

    @classmethod
    def read(cls, out_dir: Path) -> Manifest | None:
        """The manifest in ``out_dir``; None if there is none. Raises ``OutdatedRecords`` for
        records of another format and ``RankscaleError`` for a file that is not valid JSON."""
        path = out_dir / MANIFEST
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise RankscaleError(f"{path} is not valid JSON ({err.msg}); delete {out_dir} and extract again") from err
        if data.get("format") != FORMAT:
            raise OutdatedRecords(f"{out_dir} holds records of format {data.get('format')}, this version reads "
                                  f"format {FORMAT}; extract again with --force")
        shards = tuple(Shard(s["file"], tuple(s["windows"]), s["n_tokens"], s.get("sha256")) for s in data["shards"])
        return cls(**{**{k: v for k, v in data.items() if k != "format"}, "shards": shards})

    def write(self, out_dir: Path) -> None:
        """Write ``manifest.json`` atomically."""
        data = {"format": FORMAT, **asdict(self)}
        if self.model_file is None:
            del data["model_file"]
        write_json(out_dir / MANIFEST, data)

    def finished(self, out_dir: Path) -> Manifest:
        """This manifest, complete, with every shard's hash."""
        return replace(self, complete=True,
                       shards=tuple(replace(s, sha256=file_sha256(out_dir / s.file)) for s in self.shards))

    def verified(self, out_dir: Path) -> bool:
        """True if the extraction finished and every shard is present with its recorded hash."""
        return self.complete and all((out_dir / s.file).exists() and file_sha256(out_dir / s.file) == s.sha256
                                     for s in self.shards)


def load_records(out_dir: str | Path) -> Records:
    """Load a finished extraction, checking that every shard is whole and matches the manifest."""
    out_dir = Path(out_dir)
    manifest = Manifest.read(out_dir)
    if manifest is None:
        raise RankscaleError(f"{out_dir} holds no {MANIFEST}; run `python -m rankscale extract ... "
                             f"--out {out_dir}` first")
    rerun = "re-run the same `python -m rankscale extract` command to finish or repair it"
    if not manifest.complete:
        missing = sum(not (out_dir / s.file).exists() for s in manifest.shards)
        raise RankscaleError(f"the extraction in {out_dir} is incomplete ({missing} of "
                             f"{len(manifest.shards)} shards missing); {rerun}")
    parts = []
    for shard in manifest.shards:
        path = out_dir / shard.file
        if not path.exists():
            raise RankscaleError(f"shard {path} is missing; {rerun}")
        if file_sha256(path) != shard.sha256:
            raise RankscaleError(f"shard {path} is corrupt (its checksum does not match the manifest); {rerun}")
        arrays = read_shard(path, shard.n_tokens)
        if arrays is None:
            raise RankscaleError(f"shard {path} is unreadable or has the wrong size; {rerun}")
        parts.append(arrays)
    merged = {k: np.concatenate([p[k] for p in parts]) for k in RECORD_FIELDS}
    return Records(**merged, manifest=manifest)
