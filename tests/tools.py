"""What the tests of the scripts and of the built site share, without importing torch: a script
loaded as a module, and whether Debian's Chromium is here to read a site in."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium")
# skipped where Chromium is missing, except in CI, where a missing browser is a failure
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                    reason="Debian chromium is not installed (make installs it where apt is available)")


def load_script(path: Path):
    """A script as a module, its ``main`` not run (scripts/ is no package). It is registered in
    ``sys.modules`` first, where its dataclasses look their module up."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
