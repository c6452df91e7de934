"""Model sets, the first stage: takes a built-in set's name or a TOML file's path, gives the
``ModelSet`` (families, corpora, budgets) that every later stage receives, resolved once.

Only the standard library is imported, so ``make book`` can check a set (and a hub set's access to
the hub) before installing anything.
"""

from __future__ import annotations

from pathlib import Path

from rankscale import RankscaleError
from rankscale.sets.builtin import BUILT_IN, OFFLINE_SETS
from rankscale.sets.schema import ModelSet
from rankscale.sets.toml_sets import load_toml


def get(profile: str) -> ModelSet:
    """The model set ``profile`` names: a built-in set, or a TOML file.

    Parameters
    ----------
    profile : str
        A key of ``BUILT_IN`` (``smoke``, ``tiny``, ``reduced``, ``full``), or the path of a
        ``.toml`` file (``load_toml``).

    Returns
    -------
    ModelSet

    Raises
    ------
    RankscaleError
        For any other name, and where ``load_toml`` raises.

    Examples
    --------
    >>> get("tiny").name, list(get("tiny").corpora), [family.name for family in get("tiny").families]
    ('tiny', ['pydocs', 'stdlib', 'humaneval'], ['NeoX ladder', 'Llama ladder'])
    """
    if profile in BUILT_IN:
        return BUILT_IN[profile]
    if profile.endswith(".toml"):
        return load_toml(Path(profile))
    raise RankscaleError(f"unknown model set {profile!r}; use one of {', '.join(BUILT_IN)} or the path of "
                         "a .toml file describing your own (see `python -m rankscale check-profile --help`)")


def require_available(model_set: ModelSet) -> None:
    """Fail at once, naming what is missing and what to do, if the set's models or corpora
    cannot be had on this machine; pass silently otherwise.

    Hub models (and revisions) pass when the hub answers (a TCP probe of at most 3 s; honours
    ``HF_ENDPOINT`` and ``HF_HUB_OFFLINE``) or when they are in the local hub cache (downloaded on a
    login node before an offline job, say). The papers' corpora pass when the hub answers, when
    ``RANKSCALE_<NAME>_FILES`` names local files, or when ``HF_HUB_OFFLINE=1`` points the datasets
    library at its cache; ``hf:`` corpora likewise, without the local files. Corpora are checked only where the corpus code can be imported (not
    by ``make book``'s first check, which runs before anything is installed).

    Parameters
    ----------
    model_set : ModelSet

    Raises
    ------
    RankscaleError
        If the hub cannot be reached and some hub model, revision or corpus has no local copy.

    Examples
    --------
    >>> require_available(get("tiny"))  # an offline set: nothing to fetch
    """
    import os

    from rankscale.hub import hub_cache_dir, hub_offline, hub_reachable, in_hub_cache

    wanted = model_set.hub_models()
    try:
        from rankscale.corpora import HUB_DATASETS, files_variable
    except ImportError:  # numpy is not installed yet: models only
        HUB_DATASETS, files_variable = {}, None
    read = [model_set.corpus_source(c) for c in model_set.corpora]
    hub_corpora = [c for c in read if c in HUB_DATASETS]
    hf_corpora = [c for c in read if c.startswith("hf:")]  # any hub dataset
    if not wanted and not hub_corpora and not hf_corpora:
        return
    offline = hub_offline()
    if not offline and hub_reachable():
        return
    missing = [f"{hub_id}" + (f"@{revision}" if revision else "") for hub_id, revision in wanted
               if not in_hub_cache(hub_id, revision)]
    no_corpus = [f"{c} (set {files_variable(c)})" for c in hub_corpora
                 if not os.environ.get(files_variable(c)) and not offline]
    no_corpus += [f"{c} (or HF_HUB_OFFLINE=1 with the datasets cache of an earlier download)" for c in hf_corpora
                  if not offline]
    if not missing and not no_corpus:
        return
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parts = []
    if missing:
        named = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        parts.append(f"{len(missing)} of the {len(wanted)} hub models and checkpoints it reads are not in the local hub cache "
                     f"({hub_cache_dir()}): {named}")
    if no_corpus:
        parts.append(f"corpora without local files: {', '.join(no_corpus)}")
    raise RankscaleError(
        f"model set {model_set.name!r} reads from the Hugging Face hub, which this machine cannot reach "
        f"({endpoint}), and {'; '.join(parts)}. Run it where the hub is reachable (or set HF_ENDPOINT to "
        "a mirror, or download into the cache first), or use an offline set, "
        f"{' or '.join(OFFLINE_SETS)}, which needs no network (make book PROFILE=tiny)."
    )
