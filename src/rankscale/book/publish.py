"""Publish the last whole site to the ``gh-pages`` branch of a git remote, where GitHub Pages (or
any static host reading that branch) serves it: ``make publish``, ``rankscale publish``.

Only a whole, current site is published: one that ``rankscale book`` finished (its ``profile.txt``
is written last) and whose stamp (``build.site_stamp``, recorded in ``build.SITE_RECORD``) is still
what the book's sources, the package's code and the set's results give now. Anything else is
refused in one line before the remote is touched. The commit is made by ``ghp-import`` (with a
``.nojekyll`` file, so that Pages serves ``_static/`` and ``_sources/`` as they are), on top of the
remote's branch; a site identical to the one published makes no commit.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from rankscale import RankscaleError

_log = logging.getLogger(__name__)

BRANCH = "gh-pages"


@dataclass(frozen=True)
class Published:
    """What ``publish`` did: the commit the remote's branch holds, whether it is new, and the
    address Pages serves it at (None for a remote that is not GitHub's)."""

    commit: str
    new: bool
    address: str | None


def pages_address(url: str) -> str | None:
    """The address GitHub Pages serves a repository's site at, from the remote's URL.

    Examples
    --------
    >>> pages_address("git@github.com:someone/rankscale.git"), pages_address("https://github.com/Org/Book")
    ('https://someone.github.io/rankscale/', 'https://org.github.io/Book/')
    >>> pages_address("https://github.com/someone/someone.github.io.git"), pages_address("/srv/git/book.git")
    ('https://someone.github.io/', None)
    """
    found = re.search(r"github\.com[:/]([^/]+)/([^/]+?)(?:\.git)?/?$", url)
    if found is None:
        return None
    owner, name = found[1].lower(), found[2]
    return f"https://{owner}.github.io/" if name.lower() == f"{owner}.github.io" else f"https://{owner}.github.io/{name}/"


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)


def site_state(html: Path, current_stamp) -> str:
    """Check that ``html`` holds a whole site that is current, and return the model set it shows.

    Parameters
    ----------
    html : pathlib.Path
        The built site (``_build/html``).
    current_stamp : callable
        The profile the site shows to the ``site_stamp`` its sources and results give now.

    Raises
    ------
    RankscaleError
        No whole site there, or one built before a change of the code, the sources or the results.
    """
    from rankscale.book.build import SITE_RECORD

    if not (html / "profile.txt").is_file():
        raise RankscaleError(f"no whole site at {html} to publish: build it first (make book), then publish")
    record = html / SITE_RECORD
    built = json.loads(record.read_text()) if record.is_file() else {}
    profile = (html / "profile.txt").read_text().strip()
    if built.get("profile") != profile or built.get("stamp") != current_stamp(profile):
        raise RankscaleError(f"the site at {html} is stale: the code, the book's sources or the results of model set "
                             f"{profile!r} changed since it was built; run make book PROFILE={profile} again, then "
                             "publish")
    return profile


def publish(html: Path, repo: Path, remote: str = "origin", branch: str = BRANCH, current_stamp=None,
            log=_log.info) -> Published:
    """Push the whole, current site ``html`` to ``branch`` of ``remote`` (a remote of the git
    repository ``repo``), as one commit on top of what the remote's branch holds.

    Parameters
    ----------
    html : pathlib.Path
        The built site (``_build/html``).
    repo : pathlib.Path
        A git repository that knows ``remote`` (the checkout).
    remote : str
        The name of a git remote of ``repo`` (``git remote -v``).
    branch : str
        The branch the site goes to.
    current_stamp : callable, optional
        The profile to its current ``site_stamp``; default ``current_site_stamp``.
    log : callable
        Takes one line of progress text.

    Returns
    -------
    Published

    Raises
    ------
    RankscaleError
        Before anything is pushed: no whole site, a stale one (``site_state``), no such remote, or a
        remote that cannot be read; after: a push the remote refused.
    """
    profile = site_state(html, current_stamp or current_site_stamp)
    where = _git(repo, "remote", "get-url", remote, check=False)
    if where.returncode != 0:
        raise RankscaleError(f"{repo} has no git remote {remote!r} to publish to: name one of `git remote -v` with "
                             "REMOTE=... (make publish) or --remote, or add it with git remote add")
    url = where.stdout.strip()
    heads = _git(repo, "ls-remote", "--heads", remote, branch, check=False)
    if heads.returncode != 0:
        raise RankscaleError(f"cannot read the git remote {remote!r} ({url}): {heads.stderr.strip()[-300:]}")
    before = heads.stdout.split()[0] if heads.stdout.strip() else None
    if before:  # ghp-import commits on top of the remote-tracking branch
        _git(repo, "fetch", "--quiet", remote, f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}")
    else:  # a branch left from elsewhere, or from before the remote lost it, is not the remote's history
        for ref in (f"refs/heads/{branch}", f"refs/remotes/{remote}/{branch}"):
            _git(repo, "update-ref", "-d", ref, check=False)
    source = _git(repo, "rev-parse", "--short", "HEAD", check=False).stdout.strip() or "no commit"
    env = dict(os.environ)
    for key, setting, fallback in (("GIT_COMMITTER_NAME", "user.name", "rankscale"),
                                   ("GIT_COMMITTER_EMAIL", "user.email", "rankscale@localhost")):
        env.setdefault(key, _git(repo, "config", setting, check=False).stdout.strip() or fallback)
    # ghp-import commits the folder with git fast-import in the repository of its working directory
    imported = subprocess.run([sys.executable, "-m", "ghp_import", "--no-jekyll", "--remote", remote, "--branch",
                               branch, "--message", f"Site of model set {profile}, built from {source}",
                               str(html.resolve())], cwd=repo, env=env, capture_output=True, text=True)
    if imported.returncode != 0 or "Failed" in imported.stdout:
        raise RankscaleError("ghp-import could not commit the site: "
                             f"{(imported.stderr or imported.stdout).strip()[-300:]}")
    made = _git(repo, "rev-parse", f"refs/heads/{branch}").stdout.strip()
    if before and made != before and _tree(repo, made) == _tree(repo, before):
        _git(repo, "update-ref", f"refs/heads/{branch}", before)  # the same site: no new commit
        log(f"publish: the site of {profile!r} is already on {remote}/{branch} ({before[:10]}); nothing to push")
        return Published(before, False, pages_address(url))
    pushed = _git(repo, "push", "--quiet", remote, f"refs/heads/{branch}:refs/heads/{branch}", check=False)
    if pushed.returncode != 0:
        raise RankscaleError(f"the remote {remote!r} refused the push of {branch}: {pushed.stderr.strip()[-300:]}")
    log(f"publish: the site of {profile!r} is on {remote}/{branch} ({made[:10]})")
    return Published(made, True, pages_address(url))


def _tree(repo: Path, commit: str) -> str:
    return _git(repo, "rev-parse", f"{commit}^{{tree}}").stdout.strip()


def current_site_stamp(profile: str) -> str:
    """The ``site_stamp`` that the book's sources, the package's code and the set's results give
    now to the site of ``profile`` (a set's name or a TOML file's path)."""
    from rankscale import sets
    from rankscale.book.build import page_stamps, site_stamp

    return site_stamp(page_stamps(sets.get(profile)).values())
