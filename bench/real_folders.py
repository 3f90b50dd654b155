"""The real folders' numbers: every real folder through import, export and the four sync
steps, then the sync time of a folder of 1,000 files against reading its bytes.

    .venv/bin/python bench/real_folders.py [--files 1000] [--runs 3]

For each folder of ``../shared/real-memory/claude-code`` (skipped when absent): files,
imported, held and refused (and why), whether the export is byte-identical, and each
sync step right or what went wrong (the run of ``tests/support/support_conformance.py``,
which ``tests/importers/test_real_conformance.py`` asserts). Then a synthetic folder of
``--files`` topic files: the first sync after the import, an idle sync, and a sync
after one deletion, each against the floor of the same run (reading and hashing
every file of the folder, what any sync must do).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))

from support_conformance import (
    ACTOR,
    REAL,
    STEPS,
    fresh,
    run_claude_code,
)

from core.importers import CLAUDE_CODE, import_folder, sync_folder
from core.review.decide import decide
from core.store.requests import file_request
from core.store.store import Store


def real_folders() -> None:
    folders = sorted((REAL / "claude-code").iterdir()) if REAL.is_dir() else []
    if not folders:
        print("../shared/real-memory is not here: no real folders")
        return
    print("| folder | files | imported | held (why) | refused (why) | export identical |")
    print("|---|---|---|---|---|---|")
    results = []
    for source in folders:
        with tempfile.TemporaryDirectory(prefix="memgov-real-") as work:
            result = run_claude_code(source, Path(work))
        results.append(result)
        held = ", ".join(f"{n} {why}" for why, n in result.held.items()) or "0"
        refused = ", ".join(f"{n} {why}" for why, n in result.refused.items()) or "0"
        export = "yes" if result.export_identical else f"no ({result.export_note})"
        print(
            f"| {result.name.split('__')[0]} | {result.files} | {result.imported} | {held} "
            f"| {refused} | {export} |"
        )
    print()
    print("| folder | " + " | ".join(STEPS) + " |")
    print("|---|" + "---|" * len(STEPS))
    for result in results:
        cells = ["yes" if not result.steps[s] else "no" for s in STEPS]
        print(f"| {result.name.split('__')[0]} | " + " | ".join(cells) + " |")
    for result in results:
        for step, why in result.steps.items():
            if why and why != "not reached":
                print(f"  {result.name}: {step}: {why.splitlines()[0]}")


def synthetic(folder: Path, files: int) -> None:
    folder.mkdir(parents=True)
    index = ["# Memory index", ""]
    for n in range(files):
        name = f"project_area-{n:04d}.md"
        title = f"area-{n:04d}-conventions"
        body = (
            f"Module area {n} keeps its fixtures under tests/area{n}/ and runs them with "
            f"the integration profile; owner rotates every {n % 7 + 2} weeks."
        )
        (folder / name).write_text(
            f"---\nname: {title}\ndescription: conventions of area {n}\ntype: project\n---\n\n"
            f"{body}\n",
            encoding="utf-8",
        )
        index.append(f"- [{title}]({name}) — conventions of area {n}")
    (folder / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def floor(folder: Path) -> float:
    start = time.perf_counter()
    for path in sorted(folder.iterdir()):
        hashlib.sha256(path.read_bytes()).hexdigest()
    return time.perf_counter() - start


def timed_sync(stores: Path, folder: Path) -> float:
    start = time.perf_counter()
    sync_folder(CLAUDE_CODE, fresh(stores), folder, actor=ACTOR)
    return time.perf_counter() - start


def at_scale(files: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="memgov-sync-bench-") as work:
        folder = Path(work) / "agent" / "memory"
        synthetic(folder, files)
        stores = Path(work) / "stores"
        Store.init(stores / "private", scope="private", owner=ACTOR, actor=ACTOR)
        start = time.perf_counter()
        import_folder(CLAUDE_CODE, fresh(stores), folder, actor=ACTOR)
        imported = time.perf_counter() - start
        first = timed_sync(stores, folder)
        idle = [timed_sync(stores, folder) for _ in range(runs)]
        after = []
        for n in range(runs):
            store = Store(stores / "private")
            target = next(
                m
                for m in store.memories.values()
                if (m.origin or {}).get("file") == f"project_area-{n:04d}.md"
            )
            request = file_request(
                store, kind="delete", memory_id=target.id, reason="bench", actor=ACTOR
            )
            decide(fresh(stores), request.id, approve=True, actor=ACTOR, reason="bench")
            after.append(timed_sync(stores, folder))
        floors = [floor(folder) for _ in range(runs)]
    base = statistics.median(floors)
    print()
    print(f"sync of a Claude Code folder of {files} files (median of {runs}; floor: reading")
    print(f"and hashing every file of the folder, {base * 1000:.1f} ms)")
    print(f"  import of the folder:        {imported:7.2f} s")
    print(f"  first sync after the import: {first:7.2f} s  ({first / base:6.0f}x the floor)")
    for label, values in (("idle sync", idle), ("sync after a deletion", after)):
        mid = statistics.median(values)
        print(f"  {label + ':':28} {mid:7.2f} s  ({mid / base:6.0f}x the floor)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    real_folders()
    at_scale(args.files, args.runs)


if __name__ == "__main__":
    main()
