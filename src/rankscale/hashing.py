"""Content hashes: of files, remembered by the files' identity on disk, and of settings.

A result is identified by what it is made of (``rankscale.records.identity``), and a model's
weights can be many gigabytes: ``file_sha256`` reads a file once and remembers its hash in a small
SQLite table under ``rankscale.paths.cache_dir()``, keyed by the file's path, size, modification
and change times, inode and device. Any write to the file, a replacement or a rename onto its path
changes one of them, and the file is read again; a file merely read keeps its hash. Where the cache
cannot be written (a read-only home), hashes are computed every time instead. Where another process
holds the cache's database (an open transaction in a database browser, a stuck process), this
process waits for it once, says after ``BUSY_NOTICE`` seconds what it waits on, and after
``BUSY_LIMIT`` seconds hashes its files without the cache: a held database once cost every file
30 s in silence (a reuse-only ``extract`` took 214 s instead of 4).

``digest`` hashes settings (a JSON-like value) the way ``datasets`` hashes a builder's config: the
same settings give the same digest on every machine and in every process.

Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from rankscale import paths

_log = logging.getLogger(__name__)

CACHE_FILE = "file-hashes.sqlite3"
BUSY_NOTICE = 1.0  # seconds the cache may be busy before this process says what it waits on
BUSY_LIMIT = 10.0  # seconds after which it hashes without the cache rather than wait on a holder that may never let go
_SEEN: dict[tuple, str] = {}  # this process's lookups, spared a query per call
_GIVEN_UP = False  # the cache stayed busy past BUSY_LIMIT: this process hashes without it from then on


def _stat_key(path: Path) -> tuple:
    stat = path.stat()
    return (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)


def _read_sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _cache(statement: str, parameters: tuple) -> list | None:
    """Rows of one statement on the cache table (created on first use); None where the cache
    cannot be opened or written, or stayed busy past ``BUSY_LIMIT`` (then never asked again)."""
    global _GIVEN_UP
    if _GIVEN_UP:
        return None
    try:
        folder = paths.cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    database, start, timeout, said = folder / CACHE_FILE, time.monotonic(), BUSY_NOTICE, False
    while True:
        try:
            with closing(sqlite3.connect(database, timeout=timeout)) as db:
                with db:  # one transaction, committed
                    db.execute("CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, "
                               "mtime_ns INTEGER, ctime_ns INTEGER, inode INTEGER, device INTEGER, sha256 TEXT)")
                    return db.execute(statement, parameters).fetchall()
        except sqlite3.OperationalError as err:
            if err.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):  # extended codes too
                return None
        except sqlite3.Error:
            return None
        waited = time.monotonic() - start
        if waited >= BUSY_LIMIT:
            _log.warning(f"the hash cache {database} is still held by another process after {waited:.0f} s: this "
                         f"process hashes its files without it (slower for large files, the same hashes)")
            _GIVEN_UP = True
            return None
        if not said:
            _log.warning(f"waiting for the hash cache {database}, which another process holds (`fuser -v "
                         f"{database}` names it); hashing without it after {BUSY_LIMIT:.0f} s")
            said = True
        timeout = BUSY_LIMIT - waited


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
    rows = _cache("SELECT size, mtime_ns, ctime_ns, inode, device, sha256 FROM files WHERE path = ?", (key[0],))
    if rows and tuple(rows[0][:5]) == key[1:]:
        sha = rows[0][5]
    else:
        sha = _read_sha256(path)
        if _stat_key(path) != key:  # written to while being read: hashed, but not remembered
            return sha
        _cache("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)", (*key, sha))
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
