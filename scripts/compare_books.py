"""Compare two folders of executed chapters: their verdict rows and their printed tables.

Used to check that a change of code leaves the book's numbers alone (or to list what moved):

    .venv/bin/python scripts/compare_books.py OLD_DIR NEW_DIR

where each folder holds executed notebooks (``_build/executed/<profile>/*.ipynb``). For each
chapter it prints how many verdict rows and how many table outputs (HTML, Markdown or text
outputs that are not figures, progress bars or streams) are identical, and how many hold the
same numbers once bracketed intervals are left out, then every verdict row
whose verdict or "ours" text differs, matched by claim key (and unit of the row's text order).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

import nbformat

from rankscale.book.pages import VERDICT_KEY

TABLE_TYPES = ("text/html", "text/markdown", "text/plain")
STYLER_ID = re.compile(r"T_[0-9a-f]{5}")  # pandas Styler names each table at random


def verdict_rows(nb) -> list[dict]:
    return [row for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
            for row in out.get("metadata", {}).get(VERDICT_KEY, [])]


def table_outputs(nb) -> list[str]:
    """The text of every non-figure rich output, in order (verdict tables included)."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else ():
            data = out.get("data", {})
            if out.get("output_type") not in ("display_data", "execute_result") or "image/png" in data:
                continue
            kind = next((t for t in TABLE_TYPES if t in data), None)
            if kind:
                found.append(STYLER_ID.sub("T_", data[kind]))
    return found


INTERVAL = re.compile(r"\[\s*[-+\u2212]?[\d.,e+\u2212 -]+\]")  # "[0.12, 0.34]" and the like
NUMBER = re.compile(r"[-\u2212]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")


def point_numbers(text: str) -> Counter:
    """The numbers of a table output with its intervals left out: what a change of interval
    method may not move."""
    return Counter(NUMBER.findall(INTERVAL.sub(" ", re.sub(r"<[^>]+>", " ", text))))


def compare(old_dir: Path, new_dir: Path) -> int:
    changed = 0
    for new_path in sorted(new_dir.glob("*.ipynb")):
        if ".failed" in new_path.name or ".running" in new_path.name:
            continue
        old_path = old_dir / new_path.name
        if not old_path.exists():
            print(f"{new_path.stem}: not in {old_dir}")
            continue
        old, new = (nbformat.read(p, as_version=4) for p in (old_path, new_path))
        old_rows = {row.get("key") or row["claim"]: row for row in verdict_rows(old)}
        new_rows = {row.get("key") or row["claim"]: row for row in verdict_rows(new)}
        old_tables, new_tables = table_outputs(old), table_outputs(new)
        same_tables = sum(a == b for a, b in zip(old_tables, new_tables))
        same_points = sum(point_numbers(a) == point_numbers(b) for a, b in zip(old_tables, new_tables))
        same_rows = sum(old_rows.get(k) is not None and (old_rows[k]["verdict"], old_rows[k]["ours"])
                        == (row["verdict"], row["ours"]) for k, row in new_rows.items())
        print(f"{new_path.stem}: verdict rows {same_rows}/{len(new_rows)} identical (old {len(old_rows)}); "
              f"table outputs {same_tables}/{len(new_tables)} identical, {same_points} with the same numbers outside "
              f"intervals (old {len(old_tables)})")
        for key, row in new_rows.items():
            before = old_rows.get(key)
            if before is None:
                print(f"  {key}: new row, {row['verdict']}")
                changed += 1
            elif before["verdict"] != row["verdict"]:
                print(f"  {key}: {before['verdict']} -> {row['verdict']}\n    old: {before['ours']}\n"
                      f"    new: {row['ours']}")
                changed += 1
            elif point_numbers(before["ours"]) != point_numbers(row["ours"]):
                print(f"  {key}: {row['verdict']} both, numbers outside intervals moved\n    old: {before['ours']}\n"
                      f"    new: {row['ours']}")
        for key in old_rows.keys() - new_rows.keys():
            print(f"  {key}: row gone (was {old_rows[key]['verdict']})")
            changed += 1
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="folder of executed chapters before the change")
    parser.add_argument("new", type=Path, help="folder of executed chapters after it")
    args = parser.parse_args()
    print(f"{compare(args.old, args.new)} verdicts changed")


if __name__ == "__main__":
    main()
