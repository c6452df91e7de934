"""`rankscale publish` on made-up sites, into a local bare repository standing for GitHub: a whole,
current site lands on gh-pages with .nojekyll; the same site again makes no commit; a stale site,
a site that is not whole or an unknown remote leave the remote as it was."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rankscale import RankscaleError
from rankscale.book.build import SITE_RECORD
from rankscale.book.publish import publish


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path) -> tuple[Path, Path]:
    """A repository with one commit and a bare remote ``pages`` (GitHub's stand-in)."""
    remote, repo = tmp_path / "remote.git", tmp_path / "repo"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
    (repo / "README.md").write_text("a book\n")
    git(repo, "add", "README.md")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "start")
    git(repo, "remote", "add", "pages", str(remote))
    return repo, remote


def make_site(html: Path, stamp: str = "s1", pages: dict | None = None) -> Path:
    for name, text in (pages or {"index.html": "<p>home</p>", "book/chapters/a1.html": "<p>A1</p>",
                                  "_sources/book/chapters/a1.ipynb": "{}"}).items():
        (html / name).parent.mkdir(parents=True, exist_ok=True)
        (html / name).write_text(text)
    (html / SITE_RECORD).write_text(json.dumps({"profile": "smoke", "stamp": stamp}))
    (html / "profile.txt").write_text("smoke\n")
    return html


def branch_log(remote: Path) -> list[str]:
    found = subprocess.run(["git", "rev-list", "gh-pages"], cwd=remote, capture_output=True, text=True)
    return found.stdout.split() if found.returncode == 0 else []


def test_a_whole_current_site_is_published_once(checkout, tmp_path):
    repo, remote = checkout
    html = make_site(tmp_path / "html")
    done = publish(html, repo, remote="pages", current_stamp=lambda profile: "s1", log=lambda *_: None)
    assert done.new and done.address is None  # a remote that is not GitHub's has no Pages address
    assert branch_log(remote) == [done.commit]
    files = git(remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert set(files) == {".nojekyll", "index.html", "book/chapters/a1.html", "_sources/book/chapters/a1.ipynb",
                          SITE_RECORD, "profile.txt"}
    again = publish(html, repo, remote="pages", current_stamp=lambda profile: "s1", log=lambda *_: None)
    assert not again.new and again.commit == done.commit and branch_log(remote) == [done.commit]
    (html / "index.html").write_text("<p>home, rebuilt</p>")
    changed = publish(html, repo, remote="pages", current_stamp=lambda profile: "s1", log=lambda *_: None)
    assert changed.new and branch_log(remote) == [changed.commit, done.commit]  # on top of the remote's history
    assert git(remote, "show", "gh-pages:index.html") == "<p>home, rebuilt</p>"


def test_a_stale_site_leaves_the_remote_as_it_was(checkout, tmp_path):
    repo, remote = checkout
    html = make_site(tmp_path / "html")
    first = publish(html, repo, remote="pages", current_stamp=lambda profile: "s1", log=lambda *_: None)
    (html / "index.html").write_text("<p>a site built before the code changed</p>")
    with pytest.raises(RankscaleError, match=r"is stale: .* run make book PROFILE=smoke again, then publish$"):
        publish(html, repo, remote="pages", current_stamp=lambda profile: "s2", log=lambda *_: None)
    assert branch_log(remote) == [first.commit]
    (html / SITE_RECORD).unlink()  # a site of an older rankscale records no stamp
    with pytest.raises(RankscaleError, match="is stale"):
        publish(html, repo, remote="pages", current_stamp=lambda profile: "s1", log=lambda *_: None)
    assert branch_log(remote) == [first.commit]


def test_no_whole_site_and_no_such_remote_are_refused_before_the_remote(checkout, tmp_path):
    repo, remote = checkout
    html = make_site(tmp_path / "html")
    (html / "profile.txt").unlink()  # a build that failed or stopped: profile.txt is written last
    with pytest.raises(RankscaleError, match=r"^no whole site at .* build it first \(make book\), then publish$"):
        publish(html, repo, remote="pages", current_stamp=lambda profile: "s1")
    with pytest.raises(RankscaleError, match="no whole site"):
        publish(tmp_path / "nothing", repo, remote="pages", current_stamp=lambda profile: "s1")
    assert branch_log(remote) == []
    make_site(html)
    with pytest.raises(RankscaleError, match="has no git remote 'origin' to publish to"):
        publish(html, repo, remote="origin", current_stamp=lambda profile: "s1")
