"""A real agent folder through memgov, step by step, checked on disk on both sides.

:func:`run_claude_code` takes a Claude Code memory folder (a copy of it: the original
is never touched), imports it into a new private store, exports it, and runs the four
sync steps:

1. the agent edits a file (appends a line, as agents do to "current status" files);
2. a deletion is decided in memgov (a record whose title stands in its id, when the
   folder has one: the case that broke);
3. the agent writes the deleted memory again (the file and its index line), which
   must be held, never let in;
4. the re-learn is decided ``forget``.

After each step: the agent's folder is what the decision says (files and
``MEMORY.md``), nothing else in it changed, the store is whole (doctor finds no
error) and a second sync of the unchanged folder is idle. A step that goes wrong
says why in :attr:`Conformance.steps`; the test asserts every step, and
``bench/real_folders.py`` prints the same numbers.
"""

from __future__ import annotations

import collections
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.importers import CLAUDE_CODE, export_claude_code, import_folder, sync_folder
from core.importers.claude_code.files import INDEX_LINE
from core.importers.held import load_held
from core.importers.report import ImportReport, SyncReport
from core.reports.doctor import diagnose
from core.review.decide import decide
from core.review.queue import build_queue
from core.store.requests import file_request
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "alice@example.com"
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-memory"
IMPORTED = ("written", "merged", "conflict")
ID = re.compile(r"^\S+-[0-9a-f]{6,}\W*$")
STEPS = ("first sync", "agent edits", "deletion", "re-learned held", "forget")


@dataclass
class Conformance:
    name: str
    files: int = 0
    imported: int = 0
    held: collections.Counter[str] = field(default_factory=collections.Counter)
    refused: collections.Counter[str] = field(default_factory=collections.Counter)
    skipped: collections.Counter[str] = field(default_factory=collections.Counter)
    export_identical: bool = False
    export_note: str = ""
    steps: dict[str, str] = field(default_factory=dict)  # step -> "" (right) or why not
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def right(self) -> bool:
        return all(not why for why in self.steps.values())


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def fresh(stores: Path) -> Workspace:
    return open_workspace([stores])


def why_short(reasons: tuple[str, ...]) -> str:
    """The reason's kind, without the ids in it: "internal address", "steering"..."""
    if reasons and reasons[0].startswith("held for review as quarantine"):
        return "steering: " + (reasons[1].split(" ", 1)[0] if len(reasons) > 1 else "?")
    for reason in reasons:
        words = [w for w in re.split(r"[:(;,]", reason, maxsplit=1)[0].split() if not ID.match(w)]
        return " ".join(words)[:60]
    return "(no reason given)"


def count(report: ImportReport, into: Conformance) -> None:
    for item in report.items:
        if item.outcome in IMPORTED:
            into.imported += 1
        elif item.outcome == "held":
            into.held[why_short(item.reasons)] += 1
        elif item.outcome == "refused":
            into.refused[why_short(item.reasons)] += 1
        elif item.outcome == "skipped":
            into.skipped[why_short(item.reasons)] += 1


def store_problems(root: Path) -> list[str]:
    return [f.render() for f in diagnose(Store(root)) if f.severity == "error"]


def idle(root: Path, folder: Path) -> str:
    """Why a sync of the unchanged folder was not idle ("" when it was)."""
    before = files_of(folder)
    report = sync_folder(CLAUDE_CODE, fresh(root.parent), folder, actor=ACTOR)
    moved = [i.origin for i in report.imported.items if i.outcome != "already-imported"]
    if report.written or report.deleted or report.held or report.asked or moved:
        return f"a second sync was not idle: {report.render()}"
    if files_of(folder) != before:
        return "a second sync changed the folder"
    return ""


def index_targets(folder: Path) -> list[str]:
    index = folder / "MEMORY.md"
    if not index.exists():
        return []
    out = []
    for line in index.read_text(encoding="utf-8", errors="replace").splitlines():
        match = INDEX_LINE.match(line)
        if match:
            out.append(match["target"].removeprefix("./"))
    return out


def timed(result: Conformance, step: str, root: Path, folder: Path) -> SyncReport:
    start = time.perf_counter()
    report = sync_folder(CLAUDE_CODE, fresh(root.parent), folder, actor=ACTOR)
    result.seconds[step] = time.perf_counter() - start
    return report


def records_of(root: Path, rel: str) -> list[tuple[str, str]]:
    return [
        (m.id, m.status)
        for m in Store(root).memories.values()
        if (m.origin or {}).get("file") == rel
    ]


def run_claude_code(source: Path, work: Path) -> Conformance:
    result = Conformance(source.name)
    folder = Path(shutil.copytree(source, work / "agent" / "memory"))
    stores = work / "stores"
    root = stores / "private"
    Store.init(root, scope="private", owner=ACTOR, team_store="../team", actor=ACTOR)
    Store.init(stores / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    result.files = sum(1 for rel in files_of(folder) if rel.endswith(".md"))
    report = import_folder(CLAUDE_CODE, fresh(stores), folder, actor=ACTOR)
    count(report, result)

    out = work / "export"
    export_claude_code(fresh(stores), out)
    original, exported = files_of(folder), files_of(out)
    missing = sorted(set(original) - set(exported))
    expected = dict(original)
    for rel in [r for r in expected if r.endswith("MEMORY.md")]:  # less the lines of files
        base = rel.removesuffix("MEMORY.md")  # that were not imported (held, refused)
        lines = expected[rel].decode("utf-8", "replace").splitlines(keepends=True)
        expected[rel] = "".join(
            line
            for line in lines
            if not (m := INDEX_LINE.match(line.rstrip("\r\n")))
            or base + m["target"].removeprefix("./") not in missing
        ).encode("utf-8")
    differ = sorted(rel for rel in exported if expected.get(rel) != exported[rel])
    result.export_identical = not differ
    result.export_note = (
        f"{len(differ)} differ, {len(missing)} not exported (held, refused, skipped)"
    )

    result.steps = dict.fromkeys(STEPS, "not reached")
    checks = _Steps(result, root, folder)
    for step, check in zip(STEPS, checks.all(), strict=True):
        why = check()
        result.steps[step] = why
        if why:
            break
    return result


@dataclass
class _Steps:
    result: Conformance
    root: Path
    folder: Path
    edited: str = ""
    erased: str = ""
    erased_bytes: bytes = b""
    erased_line: str = ""

    def all(self) -> list[object]:
        return [self.first, self.agent_edits, self.deletion, self.relearned, self.forget]

    def whole(self) -> str:
        problems = store_problems(self.root)
        return f"doctor: {problems[:3]}" if problems else ""

    def first(self) -> str:
        before = files_of(self.folder)
        report = timed(self.result, "first sync", self.root, self.folder)
        if files_of(self.folder) != before:
            return f"the first sync changed the folder: {report.render()}"
        return self.whole() or idle(self.root, self.folder)

    def topic_files(self) -> list[str]:
        """Files with an active record, listed in the index, best first: a record whose
        title stands in its id (the case the old scrub broke)."""
        listed = set(index_targets(self.folder))
        memories = list(Store(self.root).memories.values())
        per_file = collections.Counter((m.origin or {}).get("file") for m in memories)
        found: list[tuple[bool, str]] = []
        for memory in memories:
            origin = memory.origin or {}
            rel = origin.get("file")
            if memory.status != "active" or rel not in listed or "note" in origin:
                continue
            if per_file[rel] == 1:  # one record: its erasure takes the whole file
                found.append((not (memory.title and memory.title in memory.id), rel))
        return [rel for _k, rel in sorted(set(found))]

    def agent_edits(self) -> str:
        candidates = self.topic_files()
        if not candidates:
            return "no listed topic file with an active record of its own"
        # the deletion takes another file when there is one (the edit may open a
        # conflict, and a record in conflict is decided before it is erased)
        self.edited = candidates[-1]
        self.erased = candidates[0]
        path = self.folder / self.edited
        text = path.read_bytes()
        added = text + b"\n- Update 2026-12-06: the staging run moved to Thursdays.\n"
        path.write_bytes(added)
        before = files_of(self.folder)
        report = timed(self.result, "agent edits", self.root, self.folder)
        after = files_of(self.folder)
        if after.get(self.edited) != added:
            return f"the agent's edit did not stay as written: {report.render()}"
        if {k: v for k, v in after.items() if k != "MEMORY.md"} != {
            k: v for k, v in before.items() if k != "MEMORY.md"
        }:
            return f"the sync changed other files: {report.render()}"
        if self.edited not in index_targets(self.folder):
            return f"the edited file left the agent's MEMORY.md: {report.render()}"
        if not records_of(self.root, self.edited):
            return "no record of the edited file"
        return self.whole() or idle(self.root, self.folder)

    def deletion(self) -> str:
        self.erased_bytes = (self.folder / self.erased).read_bytes()
        index = (self.folder / "MEMORY.md").read_text(encoding="utf-8")
        self.erased_line = next(
            line
            for line in index.splitlines()
            if (m := INDEX_LINE.match(line)) and m["target"].removeprefix("./") == self.erased
        )
        if not any(s == "active" for _i, s in records_of(self.root, self.erased)):
            self.decide_conflicts(self.erased)  # the edit opened one: a person decides first
        (memory_id,) = [i for i, s in records_of(self.root, self.erased) if s == "active"][:1]
        request = file_request(
            Store(self.root), kind="delete", memory_id=memory_id, reason="gone", actor=ACTOR
        )
        decide(fresh(self.root.parent), request.id, approve=True, actor=ACTOR, reason="erase")
        before = files_of(self.folder)
        report = timed(self.result, "deletion", self.root, self.folder)
        after = files_of(self.folder)
        if self.erased in after:
            return f"the erased memory's file is still in the folder: {report.render()}"
        if self.erased in index_targets(self.folder):
            return "the erased memory's line is still in MEMORY.md"
        others = {k: v for k, v in before.items() if k not in (self.erased, "MEMORY.md")}
        if {k: v for k, v in after.items() if k != "MEMORY.md"} != others:
            return f"the sync changed other files: {report.render()}"
        lines_before = [
            x for x in before["MEMORY.md"].decode().splitlines() if x != self.erased_line
        ]
        if after["MEMORY.md"].decode().splitlines() != lines_before:
            return "MEMORY.md changed beyond the erased memory's line"
        back = [i for i, s in records_of(self.root, self.erased) if s != "superseded"]
        if report.imported.counts.get("written") or back:
            return f"the erased memory came back: {report.render()}"
        return self.whole() or idle(self.root, self.folder)

    def decide_conflicts(self, rel: str) -> None:
        """A person decides the conflicts of a file's records: the newer wins."""
        ids = {i for i, _s in records_of(self.root, rel)}
        for item in build_queue(fresh(self.root.parent), kinds=["conflict"]):
            if ids & {r.memory.id for r in item.records}:
                decide(
                    fresh(self.root.parent),
                    item.id,
                    approve=True,
                    option="newer",
                    actor=ACTOR,
                    reason="the agent's edit is right",
                )

    def relearned(self) -> str:
        (self.folder / self.erased).write_bytes(self.erased_bytes)
        index = self.folder / "MEMORY.md"
        index.write_text(index.read_text(encoding="utf-8") + self.erased_line + "\n", "utf-8")
        report = timed(self.result, "re-learned held", self.root, self.folder)
        held = [h for h in load_held(Store(self.root))[0] if h.file == self.erased]
        if not held or held[-1].reason != "relearned" or held[-1].status != "open":
            return f"the re-learned memory was not held: {report.render()}"
        if any(s == "active" for _i, s in records_of(self.root, self.erased)):
            return "the re-learned memory is active again"
        if (self.folder / self.erased).read_bytes() != self.erased_bytes:
            return "the agent's file was changed before a person decided"
        return self.whole() or idle(self.root, self.folder)

    def forget(self) -> str:
        held = [
            h
            for h in load_held(Store(self.root))[0]
            if h.file == self.erased and h.status == "open"
        ]
        for item in held:
            decide(fresh(self.root.parent), item.id, approve=False, actor=ACTOR, reason="stay gone")
        report = timed(self.result, "forget", self.root, self.folder)
        if (self.folder / self.erased).exists():
            return f"the forgotten file is still in the folder: {report.render()}"
        if self.erased in index_targets(self.folder):
            return "the forgotten memory's line is still in MEMORY.md"
        return self.whole() or idle(self.root, self.folder)
