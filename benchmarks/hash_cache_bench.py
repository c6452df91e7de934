"""What identifying a model by its content costs: hashing a large weights file the first time, and
finding its hash again (rankscale.hashing.file_sha256, remembered by the file's identity on disk).

Each lookup after the first runs in a fresh process, as a second `rankscale extract` or `plan` would:

    .venv/bin/python benchmarks/hash_cache_bench.py [--gib 1]

Prints one line per step: the first hash (reads every byte), a lookup from another process (reads
nothing but the cache), and the hash after the file was rewritten in place (reads it again).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOKUP = "import sys, time; from rankscale.hashing import file_sha256; t = time.perf_counter(); " \
         "file_sha256(sys.argv[1]); print(time.perf_counter() - t)"


def in_fresh_process(path: Path, cache: Path) -> float:
    """Seconds that ``file_sha256(path)`` takes in a new Python process (import time left out)."""
    done = subprocess.run([sys.executable, "-c", LOOKUP, str(path)], capture_output=True, text=True, check=True,
                          env={**os.environ, "RANKSCALE_CACHE": str(cache)})
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="size of the stand-in weights file, in GiB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        weights, cache = Path(folder) / "model.safetensors", Path(folder) / "cache"
        block = os.urandom(1 << 20)
        with weights.open("wb") as fh:
            for _ in range(int(args.gib * 1024)):
                fh.write(block)
        print(f"file: {weights.stat().st_size / 2**30:.2f} GiB")
        print(f"first hash (reads the file):        {in_fresh_process(weights, cache):8.3f} s")
        lookups = [in_fresh_process(weights, cache) for _ in range(3)]
        print(f"lookup in another process (x3):     {min(lookups):8.4f} s best, {max(lookups):.4f} s worst")
        with weights.open("r+b") as fh:  # retrained in place: one byte changes, the size does not
            fh.write(b"\0")
        time.sleep(0.01)
        print(f"after a write in place (reads it):  {in_fresh_process(weights, cache):8.3f} s")


if __name__ == "__main__":
    main()
