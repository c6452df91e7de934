"""Where results live: one folder per model, corpus and token count under ``<home>/results/``.

A result is found by its folder: ``<kind>/<model key>/<corpus>-<tokens>[-w<window>]``, the key
naming the model's weights (a ladder model by the hash of its ``ladder.json``, a hub model by id
and revision, a GGUF file by its content, a local directory by its path, size and modification
time), so retrained or replaced weights never reuse an old result. Which results a model set
needs, and computing them, is ``rankscale.results``'s.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from rankscale.modelsets import ModelSet, is_hub_id


def _slug(text: str) -> str:
    return re.sub(r"[^\w.@-]+", "-", text).strip("-")


def _fingerprint(path: Path) -> str:
    """A local model's identity for result folders: its path and every file's name, size and
    modification time (a retrained or replaced model gets a new one, a re-read does not)."""
    files = sorted(p for p in ([path] if path.is_file() else path.rglob("*")) if p.is_file())
    parts = [str(path.resolve())] + [f"{p.relative_to(path.parent)}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
                                     for p in files]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]


@functools.lru_cache(maxsize=16)
def _content_hash(path: Path, size: int, mtime_ns: int) -> str:
    """SHA-256 of a file; ``size`` and ``mtime_ns`` only key the cache."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def model_key(source: str, revision: str | None) -> str:
    """Folder under ``results/`` for a model's results (ladder models use ``ladder_key``).

    Parameters
    ----------
    source : str
        A hub id, a GGUF file or a local directory.
    revision : str or None
        Hub revision.

    Returns
    -------
    str
        ``hub/<id>[@<revision>]``; ``gguf/<stem>-<hash>``, named by the file's content (the same
        file installed elsewhere, in another clone's environment say, finds its results);
        ``local/<name>-<hash>`` for anything else, by the path and every file's name, size and
        modification time (a retrained or replaced model gets a new folder, a re-read does not).

    Examples
    --------
    >>> model_key("EleutherAI/pythia-70m", "step1000"), model_key("EleutherAI/pythia-70m", None)
    ('hub/EleutherAI--pythia-70m@step1000', 'hub/EleutherAI--pythia-70m')
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (Path(tmp) / "d16").mkdir()
    ...     _ = (Path(tmp) / "d16" / "config.json").write_text("{}")
    ...     model_key(f"{tmp}/d16", None)
    'local/d16-...'
    """
    if is_hub_id(source):
        return f"hub/{source.replace('/', '--')}" + (f"@{_slug(revision)}" if revision else "")
    path = Path(source)
    if path.suffix == ".gguf" and path.is_file():
        stat = path.stat()
        return f"gguf/{_slug(path.stem)}-{_content_hash(path.resolve(), stat.st_size, stat.st_mtime_ns)[:10]}"
    return f"local/{_slug(path.name)}-{_fingerprint(path)}"


def ladder_key(model_set: ModelSet, meta: dict, step: int | None = None) -> str:
    """Folder of a ladder model's results: named by the hash of its ``ladder.json``, so a
    retrained model never reuses old results, while a moved home still finds them.

    Parameters
    ----------
    model_set : ModelSet
    meta : dict
        A ladder model's metadata (``rankscale.ladder.ladder_models``): ``path``, ``arch``, ``size``.
    step : int, optional
        A training checkpoint's step; None for the final model.

    Returns
    -------
    str
        ``ladder/<set>/<arch>/<size>-<hash>[/step<step>]``.

    Examples
    --------
    >>> import tempfile
    >>> from rankscale.modelsets import get
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "ladder.json").write_text("{}")
    ...     ladder_key(get("tiny"), {"path": tmp, "arch": "neox", "size": "d16-l1"}, step=16)
    'ladder/tiny/neox/d16-l1-44136fa355/step16'
    """
    digest = hashlib.sha256((Path(meta["path"]) / "ladder.json").read_bytes()).hexdigest()[:10]
    key = f"ladder/{_slug(model_set.name)}/{meta['arch']}/{meta['size']}-{digest}"
    return key + (f"/step{step}" if step is not None else "")


def result_dir(home: Path, key: str, model_set: ModelSet, corpus: str, n_tokens: int | None) -> Path:
    """Folder of one result: ``<home>/results/<key>/<corpus>-<tokens>[-w<window>]``.

    Parameters
    ----------
    home : pathlib.Path
        Where models and results live (``rankscale.paths.home()``).
    key : str
        The model's folder (``model_key``, ``ladder_key``).
    model_set : ModelSet
        The set, for its window.
    corpus : str
        A corpus name, or a corpus file (named by its file name and a hash of its path).
    n_tokens : int or None
        Target tokens (None: ``all``).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from rankscale.modelsets import get
    >>> result_dir(Path("/home/me"), "hub/EleutherAI--pythia-70m", get("tiny"), "pydocs", 150_000)
    PosixPath('/home/me/results/hub/EleutherAI--pythia-70m/pydocs-150000')
    >>> result_dir(Path("/home/me"), "hub/EleutherAI--pythia-70m", get("tiny"), "/notes/held-out.jsonl", None).name
    'held-out.jsonl-099037a9-all'
    """
    if "/" in corpus:
        corpus = f"{Path(corpus).name}-{hashlib.sha256(corpus.encode()).hexdigest()[:8]}"
    label = f"{_slug(corpus)}-{n_tokens or 'all'}" + (f"-w{model_set.window}" if model_set.window else "")
    return home / "results" / key / label
