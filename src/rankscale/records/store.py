"""Per-token records on disk: a directory of ``shard-*.npz`` files and ``manifest.json``.

Each shard holds, for a contiguous range of windows, the arrays ``logp`` (float32), ``gt``,
``ge``, ``target`` and ``window`` (int32), one entry per target, and ``top_logp`` (float32,
shape (n, TOP_K)): the log-probabilities of the TOP_K highest-scoring tokens, best first; where
each target lies in the corpus (``SPAN_FIELDS``: its document, its character span of that
document's text, the UTF-8 bytes and words of that span; since format 4); and ``identity``,
the digest of the result it was made for (``rankscale.records.identity``), so that a shard of
another result is never taken for one of this result, whatever its manifest says.
Files are written to a temporary name and renamed, so a shard is either absent or whole; the
manifest names the identity, says whether the run finished and carries each shard's SHA-256. Only
numpy and json here, so reading results needs no torch.
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from rankscale import RankscaleError
from rankscale.hashing import digest, file_sha256

FORMAT = 4  # 2 added top_logp; 3 the identity by content, carried by every shard; 4 the targets' spans
READABLE = (3, FORMAT)  # formats whose records load; those of format 3 have no spans
TOP_K = 8  # enough of the head of each output distribution for paper B's Figure 5
RECORD_FIELDS = ("logp", "gt", "ge", "target", "window", "top_logp")
# where each target lies in the corpus (``rankscale.corpora.windows.target_spans``), since format 4
SPAN_FIELDS = ("document", "char_start", "char_end", "n_bytes", "n_words")
MANIFEST = "manifest.json"
SHARD_IDENTITY = "identity"  # the npz entry holding the digest of the shard's result


@dataclass(frozen=True)
class Records:
    """Per-target arrays of one finished (model, corpus) extraction, plus its manifest.

    Made by ``load_records``; ``len(records)`` is the number of targets n.

    Parameters
    ----------
    logp : ndarray of float32, shape (n,)
        Log-probability of each target.
    gt, ge : ndarray of int32, shape (n,)
        Vocabulary entries scoring strictly above the target, and at or above it (target
        excluded); see ``rankscale.records.extract``.
    target : ndarray of int32, shape (n,)
        Token id of each target.
    window : ndarray of int32, shape (n,)
        Index of the window each target belongs to.
    top_logp : ndarray of float32, shape (n, TOP_K)
        Log-probabilities of the TOP_K best tokens, best first.
    manifest : Manifest
        What the results folder says about the extraction.
    document : ndarray of int64, shape (n,), or None
        Index of each target's document in the corpus's document order (before shuffling).
    char_start, char_end : ndarray of int64, shape (n,), or None
        Each target's span of its document's text, end exclusive
        (``rankscale.corpora.windows.token_spans``): ``documents[document[i]][char_start[i]:char_end[i]]``
        is target i's text.
    n_bytes : ndarray of int32, shape (n,), or None
        UTF-8 bytes of each target's span: bits per byte is sum(-logp) / (ln 2 * sum(n_bytes)).
    n_words : ndarray of int32, shape (n,), or None
        Whitespace-separated words whose first character lies in each target's span.

    The five span arrays (``SPAN_FIELDS``) are None for records of format 3, written before
    they were kept.

    Examples
    --------
    >>> n = 3
    >>> arrays = {"logp": np.full(n, -0.7, np.float32), "gt": np.zeros(n, np.int32), "ge": np.ones(n, np.int32),
    ...           "target": np.arange(n, dtype=np.int32), "window": np.zeros(n, np.int32),
    ...           "top_logp": np.full((n, TOP_K), -2.0, np.float32), **{k: np.ones(n, int) for k in SPAN_FIELDS}}
    >>> records = Records(**arrays, manifest=None)
    >>> len(records), sorted(records.arrays()) == sorted(RECORD_FIELDS), records.n_bytes.tolist()
    (3, True, [1, 1, 1])
    """

    logp: np.ndarray
    gt: np.ndarray
    ge: np.ndarray
    target: np.ndarray
    window: np.ndarray
    top_logp: np.ndarray
    manifest: Manifest = field(repr=False)
    document: np.ndarray | None = None
    char_start: np.ndarray | None = None
    char_end: np.ndarray | None = None
    n_bytes: np.ndarray | None = None
    n_words: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.logp)

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-target arrays by name (the form ``rankscale.analysis.fit`` resamples).

        Returns
        -------
        dict of str to ndarray
            One entry per name of ``RECORD_FIELDS``.
        """
        return {name: getattr(self, name) for name in RECORD_FIELDS}

    def to_pandas(self, top: bool = False):
        """The records as a table, one row per target in window order.

        Parameters
        ----------
        top : bool
            Add the log-probabilities of the ``TOP_K`` best tokens as columns ``top_logp_1``
            (the best) to ``top_logp_<TOP_K>``.

        Returns
        -------
        pandas.DataFrame
            Columns ``window``, ``target``, ``logp`` (nats), ``gt``, ``ge``, then the spans
            ``document``, ``char_start``, ``char_end``, ``n_bytes``, ``n_words`` (``SPAN_FIELDS``;
            pandas' nullable ``Int64``, all missing for records of format 3, which have none).

        Examples
        --------
        >>> n = 2
        >>> records = Records(logp=np.array([-0.5, -2.0], np.float32), gt=np.array([0, 3], np.int32),
        ...                   ge=np.array([0, 4], np.int32), target=np.array([7, 9], np.int32),
        ...                   window=np.zeros(n, np.int32), top_logp=np.full((n, TOP_K), -1.0, np.float32),
        ...                   manifest=None)
        >>> table = records.to_pandas()
        >>> list(table.columns)
        ['window', 'target', 'logp', 'gt', 'ge', 'document', 'char_start', 'char_end', 'n_bytes', 'n_words']
        >>> table[["target", "logp", "gt", "n_bytes"]]
           target  logp  gt  n_bytes
        0       7  -0.5   0     <NA>
        1       9  -2.0   3     <NA>
        >>> list(records.to_pandas(top=True).columns[-2:])
        ['top_logp_7', 'top_logp_8']
        """
        import pandas as pd

        columns = {name: getattr(self, name) for name in ("window", "target", "logp", "gt", "ge")}
        for name in SPAN_FIELDS:
            values = getattr(self, name)
            columns[name] = pd.array([pd.NA] * len(self) if values is None else values, dtype="Int64")
        if top:
            columns.update({f"top_logp_{k + 1}": self.top_logp[:, k] for k in range(TOP_K)})
        return pd.DataFrame(columns)


def write_atomic(path: Path, write) -> None:
    """Write through ``write(tmp_path)`` then rename, so ``path`` is either absent or whole.

    The temporary file sits beside ``path`` (``<name>.<pid>.tmp``) and is removed if ``write``
    fails.

    Parameters
    ----------
    path : pathlib.Path
        Final name of the file.
    write : callable
        Called with the temporary path; writes the whole file there.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_atomic(Path(folder) / "a.txt", lambda tmp: tmp.write_text("whole"))
    ...     (Path(folder) / "a.txt").read_text(), len(list(Path(folder).iterdir()))
    ('whole', 1)
    """
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` as indented JSON, atomically (``write_atomic``).

    Parameters
    ----------
    path : pathlib.Path
    data : dict
        JSON-serialisable.
    """
    write_atomic(path, lambda tmp: tmp.write_text(json.dumps(data, indent=2) + "\n"))


def write_shard(path: Path, arrays: dict[str, np.ndarray], identity_digest: str) -> None:
    """Write one shard's arrays and the digest of its result as an ``.npz`` file, synced to
    disk, atomically (``write_atomic``).

    Parameters
    ----------
    path : pathlib.Path
        The shard file, ``shard-<k>.npz``.
    arrays : dict of str to ndarray
        The ``RECORD_FIELDS`` and ``SPAN_FIELDS`` arrays of the shard's n targets (shapes as in
        ``Records``).
    identity_digest : str
        ``Manifest.digest`` of the result the shard belongs to.
    """
    def write(tmp: Path) -> None:
        with tmp.open("wb") as fh:
            np.savez(fh, **arrays, **{SHARD_IDENTITY: np.array(identity_digest)})
            fh.flush()
            os.fsync(fh.fileno())
    write_atomic(path, write)


def shard_fields(format: int = FORMAT) -> tuple[str, ...]:
    """The arrays a shard of records of ``format`` holds (one of ``READABLE``).

    Examples
    --------
    >>> shard_fields(3) == RECORD_FIELDS, shard_fields() == RECORD_FIELDS + SPAN_FIELDS
    (True, True)
    """
    return RECORD_FIELDS + (SPAN_FIELDS if format >= 4 else ())


def read_shard(path: Path, n_tokens: int, identity_digest: str, format: int = FORMAT) -> dict[str, np.ndarray] | None:
    """The shard's arrays, or None if the file is missing, unreadable, of the wrong size or of
    another result.

    Parameters
    ----------
    path : pathlib.Path
        The shard file.
    n_tokens : int
        Number of targets the manifest says the shard holds.
    identity_digest : str
        ``Manifest.digest`` of the result the shard must belong to.
    format : int
        The records' format (``Manifest.format``), which says what arrays the shard holds
        (``shard_fields``).

    Returns
    -------
    dict of str to ndarray or None
        The ``shard_fields(format)`` arrays, each of length ``n_tokens`` (``top_logp`` of shape
        (n_tokens, TOP_K)); None for a shard to compute again.

    Examples
    --------
    >>> import tempfile
    >>> n = 3
    >>> arrays = {"logp": np.full(n, -0.7, np.float32), "gt": np.zeros(n, np.int32), "ge": np.ones(n, np.int32),
    ...           "target": np.arange(n, dtype=np.int32), "window": np.zeros(n, np.int32),
    ...           "top_logp": np.full((n, TOP_K), -2.0, np.float32), **{k: np.ones(n, int) for k in SPAN_FIELDS}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     shard = Path(folder) / "shard-00000.npz"
    ...     write_shard(shard, arrays, "a" * 64)
    ...     read_shard(shard, n, "a" * 64)["target"], read_shard(shard, 4, "a" * 64), read_shard(shard, n, "b" * 64)
    (array([0, 1, 2], dtype=int32), None, None)
    """
    if shard_digest(path) != identity_digest:
        return None
    try:
        with np.load(path) as data:
            arrays = {k: data[k] for k in shard_fields(format)}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if any(a.shape[0] != n_tokens for a in arrays.values()) or arrays["top_logp"].shape != (n_tokens, TOP_K):
        return None
    return arrays


def shard_digest(path: Path) -> str | None:
    """The digest of the result a shard was made for (``write_shard``), reading nothing else of it.

    Parameters
    ----------
    path : pathlib.Path
        The shard file.

    Returns
    -------
    str or None
        None for a file that is missing, unreadable or carries no digest.
    """
    try:
        with np.load(path) as data:
            return str(data[SHARD_IDENTITY])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def plan_shards(n_targets: list[int], shard_tokens: int) -> list[tuple[int, int, int]]:
    """Split windows into consecutive shards of about ``shard_tokens`` targets each.

    A shard closes at the first window that brings it to ``shard_tokens`` targets or more; the
    last shard takes what is left. The plan depends only on the windows.

    Parameters
    ----------
    n_targets : list of int
        Targets of each window, in window order (``len(w.targets)``).
    shard_tokens : int
        Targets per shard wanted.

    Returns
    -------
    list of tuple of (int, int, int)
        (first window, end window, number of targets) per shard.

    Examples
    --------
    >>> plan_shards([4, 4, 2, 8], shard_tokens=6)
    [(0, 2, 8), (2, 4, 10)]
    """
    shards, first, count = [], 0, 0
    for i, n in enumerate(n_targets):
        count += n
        if count >= shard_tokens or i == len(n_targets) - 1:
            shards.append((first, i + 1, count))
            first, count = i + 1, 0
    return shards


@dataclass(frozen=True)
class Shard:
    """One shard file of a results folder, as its manifest lists it.

    Parameters
    ----------
    file : str
        File name inside the results folder, ``shard-<k>.npz``.
    windows : tuple of (int, int)
        The shard holds windows ``windows[0]`` to ``windows[1] - 1``.
    n_tokens : int
        Their number of targets.
    sha256 : str, optional
        The file's hash, recorded once the extraction has finished.

    Examples
    --------
    >>> Shard("shard-00000.npz", (0, 40), 20_440)
    Shard(file='shard-00000.npz', windows=(0, 40), n_tokens=20440, sha256=None)
    """

    file: str
    windows: tuple[int, int]
    n_tokens: int
    sha256: str | None = None


class OutdatedRecords(RankscaleError):
    """A results folder written by a version of rankscale whose records this one cannot read.

    Raised by ``Manifest.read``; a ``RankscaleError``, whose message says to extract again.
    ``rankscale.records.jobs`` treats such a folder as a result still to compute.
    """


@dataclass(frozen=True)
class Manifest:
    """What a results folder holds, stored as ``manifest.json`` and tagged with ``FORMAT``.

    Parameters
    ----------
    identity : dict
        What defines the result (``rankscale.records.identity.result_identity``), compared as a
        whole; its ``digest`` is carried by every shard.
    source : dict
        What the model and corpus were named by when the records were made: ``model`` (a
        directory's or file's path, or a hub id), ``revision`` (a hub revision asked for) and
        ``corpus`` (a corpus's name or a file's path). Information only, never compared: the
        same model or corpus elsewhere is the same result.
    corpus_description : str
        What the corpus is, in words.
    code_version : str
        rankscale's version that wrote the records.
    vocab_size : int
        Tokens of the tokenizer, over which ranks are counted.
    head_rows : int
        Rows of the model's output head (often padded beyond ``vocab_size``).
    params_total, params_non_embedding : int
        The model's parameter counts (``rankscale.models.loading.count_params``).
    n_windows : int
        Windows evaluated.
    shards : tuple of Shard
        The shards, in window order.
    complete : bool
        Whether the extraction finished.
    model_file : dict, optional
        The GGUF file, where the model is one (``rankscale.models.gguf.GGUFInfo.record``).
    provenance : dict, optional
        How the records were made, for a reader to trace them (``rankscale.records.extract``):
        the date, the device, and the versions of rankscale, torch, transformers and Python.
        Information only: unlike ``identity``, never compared, so the records of the same
        settings made on another machine or day are the same result.
    format : int
        The records' format: ``FORMAT`` for what this version writes, or an older one of
        ``READABLE`` read from disk.

    Examples
    --------
    >>> import tempfile
    >>> manifest = Manifest({"model": {"gguf": "ab"}, "seed": 42}, {"model": "m.gguf"}, "a corpus", "0.1.0",
    ...                     vocab_size=10, head_rows=16, params_total=900, params_non_embedding=500, n_windows=1,
    ...                     shards=(Shard("shard-00000.npz", (0, 1), 3),))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     manifest.write(Path(folder))
    ...     Manifest.read(Path(folder)) == manifest
    True
    """

    identity: dict
    source: dict
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
    provenance: dict | None = None
    format: int = FORMAT

    @classmethod
    def read(cls, out_dir: Path) -> Manifest | None:
        """The manifest in ``out_dir``; None if there is none.

        Parameters
        ----------
        out_dir : pathlib.Path
            A results folder.

        Returns
        -------
        Manifest or None

        Raises
        ------
        OutdatedRecords
            For records of a format outside ``READABLE``.
        RankscaleError
            For a ``manifest.json`` that is not valid JSON.
        """
        path = out_dir / MANIFEST
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise RankscaleError(f"{path} is not valid JSON ({err.msg}); delete {out_dir} and extract again") from err
        if data.get("format") not in READABLE:
            raise OutdatedRecords(f"{out_dir} holds records of format {data.get('format')}, this version reads "
                                  f"formats {' and '.join(map(str, READABLE))}; extract again with --force")
        try:
            shards = tuple(Shard(s["file"], tuple(s["windows"]), s["n_tokens"], s.get("sha256"))
                           for s in data["shards"])
            return cls(**{**data, "shards": shards})
        except (KeyError, TypeError) as err:
            raise RankscaleError(f"{path} is not a manifest of this format ({type(err).__name__}: {err}); delete "
                                 f"{out_dir} and extract again, or extract with --force") from err

    @property
    def digest(self) -> str:
        """The digest of ``identity`` (``rankscale.records.identity.identity_digest``), which
        every shard of the result carries."""
        return digest(self.identity)

    def write(self, out_dir: Path) -> None:
        """Write ``manifest.json`` atomically; ``model_file`` and ``provenance`` are left out where
        they are None.

        Parameters
        ----------
        out_dir : pathlib.Path
            The results folder, which must exist.
        """
        data = {"format": self.format, **asdict(self)}
        for optional in ("model_file", "provenance"):
            if data[optional] is None:
                del data[optional]
        write_json(out_dir / MANIFEST, data)

    def finished(self, out_dir: Path) -> Manifest:
        """This manifest, complete, with every shard's hash.

        Parameters
        ----------
        out_dir : pathlib.Path
            The results folder holding every shard.

        Returns
        -------
        Manifest
            A new manifest; this one is unchanged (it is frozen).
        """
        return replace(self, complete=True,
                       shards=tuple(replace(s, sha256=file_sha256(out_dir / s.file)) for s in self.shards))

    def verified(self, out_dir: Path) -> bool:
        """True if the extraction finished and every shard is present with its recorded hash.

        Parameters
        ----------
        out_dir : pathlib.Path
            The results folder.

        Returns
        -------
        bool
        """
        return self.complete and all((out_dir / s.file).exists() and file_sha256(out_dir / s.file) == s.sha256
                                     and shard_digest(out_dir / s.file) == self.digest for s in self.shards)


def load_records(out_dir: str | Path) -> Records:
    """Load a finished extraction, checking that every shard is whole and matches the manifest.

    Parameters
    ----------
    out_dir : str or pathlib.Path
        A results folder written by ``rankscale.records.extract.extract``.

    Returns
    -------
    Records
        The shards' arrays concatenated in window order; without spans (``SPAN_FIELDS`` None)
        for records of format 3.

    Raises
    ------
    RankscaleError
        If the folder holds no manifest, the extraction is unfinished, or a shard is missing,
        corrupt (its hash differs from the manifest's), of the wrong size or made for another
        result than the manifest names; ``OutdatedRecords`` for records of a format that is not
        ``READABLE``.

    Examples
    --------
    >>> import tempfile
    >>> n = 3
    >>> arrays = {"logp": np.full(n, -0.7, np.float32), "gt": np.zeros(n, np.int32), "ge": np.ones(n, np.int32),
    ...           "target": np.arange(n, dtype=np.int32), "window": np.zeros(n, np.int32),
    ...           "top_logp": np.full((n, TOP_K), -2.0, np.float32), **{k: np.ones(n, int) for k in SPAN_FIELDS}}
    >>> manifest = Manifest({"model": {"gguf": "ab"}}, {"model": "m.gguf"}, "a corpus", "0.1.0", vocab_size=10,
    ...                     head_rows=10, params_total=900, params_non_embedding=500, n_windows=1,
    ...                     shards=(Shard("shard-00000.npz", (0, 1), n),))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     manifest.write(Path(folder))
    ...     write_shard(Path(folder) / "shard-00000.npz", arrays, manifest.digest)
    ...     try:
    ...         load_records(folder)
    ...     except RankscaleError as err:
    ...         print(err)
    ...     manifest.finished(Path(folder)).write(Path(folder))
    ...     records = load_records(folder)
    ...     len(records), records.target
    the extraction in ... is incomplete (0 of 1 shards missing); re-run ...
    (3, array([0, 1, 2], dtype=int32))
    """
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
        arrays = read_shard(path, shard.n_tokens, manifest.digest, manifest.format)
        if arrays is None:
            raise RankscaleError(f"shard {path} is unreadable, has the wrong size or was made for another result "
                                 f"than {out_dir / MANIFEST} names; {rerun}")
        parts.append(arrays)
    merged = {k: np.concatenate([p[k] for p in parts]) for k in shard_fields(manifest.format)}
    return Records(**merged, manifest=manifest)
