"""What a model name points at, and what the model is made of.

A user names a model by a path or a hub id (``--model``, a model set's ``model =``);
``locate`` turns the name into a ``ModelSource``: a ``save_pretrained`` directory, a GGUF file, or
a hub repository at the commit its revision names now. Every mistake is found here, before
anything is loaded or written, and named for what it is: a path that does not exist, a revision
given to a local model, a directory without a config or a tokenizer.

``ModelSource.identity`` is the model's part of a result's identity (``rankscale.records.identity``):
a directory by the content of the files a loader reads at its top level (weights, config,
tokenizer; ``rankscale.sets.schema.directory_identity``), a GGUF file by its content, a hub model
by its id and commit. A path is never part of it: a model copied elsewhere is the same model, and a
model retrained in place is another. The files its load options name (a ``subfolder``, a
tokenizer, an adapter) are the identity's too, by their content
(``rankscale.sets.schema.load_identity``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rankscale import RankscaleError
from rankscale.hashing import file_sha256
from rankscale.hub import is_hub_id, resolve_commit
from rankscale.sets.schema import directory_identity, hub_identity

# a directory holding none of these has no tokenizer: transformers would then build an empty one,
# which encodes every text as no tokens at all
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "spiece.model",
                   "sentencepiece.bpe.model", "*.tiktoken")


def has_tokenizer(path: Path) -> bool:
    """Whether a model directory holds tokenizer files (``TOKENIZER_FILES``).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     before = has_tokenizer(Path(folder))
    ...     _ = (Path(folder) / "qwen.tiktoken").write_text("")
    ...     before, has_tokenizer(Path(folder))
    (False, True)
    """
    return any(any(path.glob(pattern)) for pattern in TOKENIZER_FILES)


@dataclass(frozen=True)
class ModelSource:
    """A model as ``locate`` found it.

    Parameters
    ----------
    name : str
        What to load: a directory's or GGUF file's absolute path, or a hub id.
    kind : str
        ``"directory"``, ``"gguf"`` or ``"hub"``.
    revision : str or None
        The hub revision asked for (information: ``commit`` is what is loaded).
    commit : str or None
        The commit a hub model's revision names now (``rankscale.hub.resolve_commit``); None for
        local models, or where neither the hub nor its cache can say (loading then reports why).
    """

    name: str
    kind: str
    revision: str | None = None
    commit: str | None = None

    def identity(self) -> dict:
        """What the model is made of, for a result's identity (this module's docstring).

        Returns
        -------
        dict
            ``{"directory": {"files": ...}}``, ``{"gguf": sha256}`` or ``{"hub": id, "commit": sha}``;
            where no commit can be had here, the revision asked for stands in for it (``"revision"``),
            so that two revisions are never one result.
        """
        if self.kind == "directory":
            return {"directory": directory_identity(Path(self.name))}
        if self.kind == "gguf":
            return {"gguf": file_sha256(self.name)}
        return hub_identity(self.name, self.revision, self.commit)

    @property
    def load_revision(self) -> str | None:
        """What ``from_pretrained`` is given: the commit where it is known, so that a branch
        moving while the model loads changes nothing."""
        return self.commit or self.revision


def locate(model: str, revision: str | None = None, tokenizer_given: bool = False) -> ModelSource:
    """Find what ``model`` names, checking it before anything is loaded.

    Parameters
    ----------
    model : str
        A ``save_pretrained`` directory, a ``.gguf`` file or a hub id (``rankscale.hub.is_hub_id``).
    revision : str, optional
        A hub revision (branch, tag or commit); a local model has one version only.
    tokenizer_given : bool
        Whether a ``tokenizer`` load option brings the tokenizer from elsewhere.

    Returns
    -------
    ModelSource

    Raises
    ------
    RankscaleError
        For a path that does not exist (named as a path even where it could be read as a hub id,
        when its first folder exists here), a revision given to a local model, a directory
        without ``config.json`` or without tokenizer files.

    Examples
    --------
    >>> locate("EleutherAI/pythia-70m", "ab" * 20)
    ModelSource(name='EleutherAI/pythia-70m', kind='hub', revision='abababababababababababababababababababab', commit='abababababababababababababababababababab')
    >>> locate("./runs/no-such-model")
    Traceback (most recent call last):
    rankscale.RankscaleError: no model at './runs/no-such-model' (looked for ...); give a directory written by save_pretrained, a .gguf file or a hub id such as EleutherAI/pythia-70m
    """
    if is_hub_id(model):
        return ModelSource(model, "hub", revision, resolve_commit(model, revision))
    path = Path(model).expanduser()
    if not path.exists():
        raise RankscaleError(f"no model at {model!r} (looked for {path.resolve()}); give a directory written by "
                             "save_pretrained, a .gguf file or a hub id such as EleutherAI/pythia-70m")
    if revision is not None:
        raise RankscaleError(f"--revision {revision} names a version of a hub model, but {model} is a local "
                             "model, which has one version: point --model at the directory or file of the version "
                             "you want, and leave out --revision")
    if path.is_file():
        if path.suffix != ".gguf":
            raise RankscaleError(f"{model} is a file but not a .gguf model file; give a directory written by "
                                 "save_pretrained or a .gguf file")
        return ModelSource(str(path.resolve()), "gguf")
    if not (path / "config.json").is_file():
        raise RankscaleError(f"{path} is a directory but holds no config.json; point --model at a directory "
                             "written by save_pretrained (a trained ladder model, or a downloaded hub snapshot)")
    if not tokenizer_given and not has_tokenizer(path):
        raise RankscaleError(f"{path} holds no tokenizer files ({', '.join(TOKENIZER_FILES[:4])}...); save the "
                             "tokenizer beside the model (tokenizer.save_pretrained on the same folder), or name "
                             "one with --model-args tokenizer=PATH_OR_HUB_ID")
    return ModelSource(str(path.resolve()), "directory")
