"""Content hashes: of files, remembered by the files' identity on disk, and of settings.

A result is identified by what it is made of (``rankscale.records.identity``), and a model's
weights can be many gigabytes: ``file_sha256`` reads a file once and remembers its hash in a small
SQLite table under ``rankscale.paths.cache_dir()``, keyed by the file's path, size, modification
and change times, inode and device. Any write to the file, a replacement or a rename onto its path
changes one of them, and the file is read again; a file merely read keeps its hash. Where the cache
cannot be written (a read-only home), hashes are computed every time instead.

``digest`` hashes settings (a JSON-like value) the way ``datasets`` hashes a builder's config: the
same settings give the same digest on every machine and in every process.

Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

from rankscale import paths

CACHE_FILE = "file-hashes.sqlite3"
_SEEN: dict[tuple, str] = {}  # this process's lookups, spared a query per call


def _stat_key(path: Path) -> tuple:
    stat = path.stat()
    return (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)


def _read_sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _connect() -> sqlite3.Connection | None:
    """The cache table, created on first use; None where it cannot be opened or written."""
    try:
        folder = paths.cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(folder / CACHE_FILE, timeout=30)
        db.execute("CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, "
                   "ctime_ns INTEGER, inode INTEGER, device INTEGER, sha256 TEXT)")
        return db
    except (OSError, sqlite3.Error):
        return None


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, read only when the file changed since it was last hashed here.

    Parameters
    ----------
    path : str or os.PathLike
        A file; symbolic links are followed (a hub snapshot's files are links to its blobs).

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    OSError
        Where the file cannot be read.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     f = Path(folder) / "weights.bin"
    ...     _ = f.write_bytes(b"abc")
    ...     first = file_sha256(f)
    ...     _ = f.write_bytes(b"abd")  # rewritten in place: read again
    ...     first == hashlib.sha256(b"abc").hexdigest(), file_sha256(f) == hashlib.sha256(b"abd").hexdigest()
    (True, True)
    """
    path = Path(path).resolve()
    key = _stat_key(path)
    if key in _SEEN:
        return _SEEN[key]
    db = _connect()
    sha = None
    if db is not None:
        try:
            row = db.execute("SELECT size, mtime_ns, ctime_ns, inode, device, sha256 FROM files WHERE path = ?",
                             (key[0],)).fetchone()
            if row is not None and tuple(row[:5]) == key[1:]:
                sha = row[5]
        except sqlite3.Error:
            pass
    if sha is None:
        sha = _read_sha256(path)
        if _stat_key(path) != key:  # written to while being read: hashed, but not remembered
            return sha
        if db is not None:
            try:
                with db:
                    db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)", (*key, sha))
            except sqlite3.Error:
                pass
    if db is not None:
        db.close()
    _SEEN[key] = sha
    return sha


def digest(value) -> str:
    """SHA-256 of a JSON-like value written canonically (keys sorted, no spaces), as hex.

    Parameters
    ----------
    value : dict, list, str, int, float, bool or None
        Nested as deep as needed; tuples count as lists.

    Returns
    -------
    str
        64 hexadecimal digits; equal values (whatever their key order) give equal digests.

    Examples
    --------
    >>> digest({"b": 1, "a": [1, 2]}) == digest({"a": (1, 2), "b": 1})
    True
    >>> digest({"lr": 2e-3}) == digest({"lr": 0.002}), digest({"lr": 2e-3}) == digest({"lr": 1e-3})
    (True, False)
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()
