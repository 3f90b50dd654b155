"""Import a Codex memories folder: ``memgov import codex PATH``.

The folder (``~/.codex/memories/``, itself a git baseline workspace) holds:

- ``memory_summary.md``: first line ``v1``, then ``## User Profile`` (prose),
  ``## User preferences`` and ``## General Tips`` (bullets) and ``## What's in
  Memory`` (an index);
- ``MEMORY.md``: blocks ``# Task Group: <name>`` with ``scope:`` and
  ``applies_to: cwd=<path>; ...``, then ``## Task N: ...`` each with
  ``### rollout_summary_files`` (``- rollout_summaries/<file>.md (cwd=...,
  updated_at=..., thread_id=...)``) and ``### keywords``, then the group's
  ``## User preferences``, ``## Reusable knowledge`` and ``## Failures and how
  to do differently`` bullets, each citing its tasks (``[Task 1]``);
- ``rollout_summaries/*.md``: one per thread, with ``thread_id:``,
  ``updated_at:``, ``rollout_path:`` and ``cwd:`` header lines: the evidence;
- ``raw_memories.md``: phase-1 notes per thread (``## Thread `<id>```), input to
  Codex's own consolidation.

What becomes a record: each bullet (or prose paragraph) of the summary's
profile, preferences and tips, and of MEMORY.md's preferences, knowledge and
failures. Rollout summaries and raw memories are evidence, not memory: sources
point into them, and raw memories fill in a summary's missing header lines (as
Codex's consolidation does). Threads in raw_memories.md that MEMORY.md does not
cite yet are reported, not imported: Codex has not consolidated them.

Mapping rules (each can be corrected in ``memgov-import.yaml``):

==============================  ==========  ==================  ===========  ====  ====  ====
section                         type        subject             attribute    s1    s2    conf
==============================  ==========  ==================  ===========  ====  ====  ====
summary: User Profile           semantic    ``user:<owner>``    profile.*    0.8   0.8   0.7
User preferences (both files)   preference  ``user:<owner>``    *            0.8   0.9   0.7
summary: General Tips           reflection  ``user:<owner>``    tip.*        0.7   0.8   0.6
MEMORY.md: Reusable knowledge   semantic    ``project:<p>``     knowledge.*  0.7   0.8   0.7
MEMORY.md: Failures and how...  reflection  ``project:<p>``     failure.*    0.7   0.8   0.6
==============================  ==========  ==================  ===========  ====  ====  ====

- ``*`` is the bullet's own words as a slug (``use_pnpm_not_npm``; long ones are
  cut and end in a short hash). Codex bullets have no key of their own, so only
  identical statements merge and the import never puts two different statements
  in conflict: give two bullets the same attribute in the mapping file when one
  replaces the other.
- ``<p>``: the last folder of the group's ``applies_to: cwd=``, else of the
  cited rollout's ``cwd``, else ``codex``.
- content: the bullet without its ``[Task N]`` citations; title: its first words.
- sources: for each cited task (or the group's only task), each of its rollout
  summaries, at the line that best matches the bullet (a quoted phrase, else the
  most shared words, else the summary's title line);
  ``Source(task=<thread_id>, file=<absolute path>, line=N, evidence=<line>)``.
  A missing summary falls back to its thread in raw_memories.md, then to the
  bullet's own line. Summary bullets cite nothing: they point at their own line.
- s1/s2/confidence per section as above (the importer is the gate's caller; Codex
  already chose to keep them): preferences and profile are stable user facts;
  tips and failure shields are advisory (reflection: low trust).

Entries are imported oldest cited ``updated_at`` first, so newer evidence
comes later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from core.domain.record import Source
from core.importers.common import (
    Entry,
    FolderError,
    GateDefaults,
    ImportMapping,
    ImportReport,
    Reading,
    check_folder,
    default_owner,
    load_mapping,
    read_lines,
    run_entries,
    short,
    slug,
)
from core.store.workspace import Workspace

FORMAT = "codex"
SUMMARY_FILE = "memory_summary.md"
MEMORY_FILE = "MEMORY.md"
RAW_FILE = "raw_memories.md"
ROLLOUT_DIR = "rollout_summaries"
EXAMPLE = "~/.codex/memories"


@dataclass(frozen=True)
class Kind:
    type: str
    gate: GateDefaults
    prefix: str  # of the attribute
    about: str  # user or project: which subject


KINDS = {
    "profile": Kind("semantic", GateDefaults(0.8, 0.8, 0.7), "profile.", "user"),
    "preference": Kind("preference", GateDefaults(0.8, 0.9, 0.7), "", "user"),
    "tip": Kind("reflection", GateDefaults(0.7, 0.8, 0.6), "tip.", "user"),
    "knowledge": Kind("semantic", GateDefaults(0.7, 0.8, 0.7), "knowledge.", "project"),
    "failure": Kind("reflection", GateDefaults(0.7, 0.8, 0.6), "failure.", "project"),
}
SUMMARY_SECTIONS: dict[str, str | None] = {
    "user profile": "profile",
    "user preferences": "preference",
    "general tips": "tip",
    "what's in memory": None,  # an index of the other files: not memory
}
GROUP_SECTIONS = {
    "user preferences": "preference",
    "reusable knowledge": "knowledge",
    "failures and how to do differently": "failure",
}

_HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
_HEADER = re.compile(r"^(?P<key>[a-z_]+):\s*(?P<value>.*?)\s*$")
_BULLET = re.compile(r"^ ?[-*+]\s+(?P<text>.*)$")
_CITATION = re.compile(
    r"\s*\[(?P<tasks>tasks?\s*\d+(?:\s*(?:,|and|&|/)\s*(?:tasks?\s*)?\d+)*)\]", re.IGNORECASE
)
_TASK = re.compile(r"^task\s+(?P<number>\d+)\b", re.IGNORECASE)
_GROUP = re.compile(r"^task group:\s*(?P<name>.*)$", re.IGNORECASE)
_FILE_BULLET = re.compile(r"^\s*[-*+]\s+`?(?P<path>[^\s`()]+\.md)`?\s*(?:\((?P<notes>.*)\))?")
_NOTE = re.compile(r"(?P<key>\w+)=(?P<value>[^,;)]*)")
_QUOTE = re.compile(r"[\"“「『]([^\"”」』]{4,})[\"”」』]")
_ASCII_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]{2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_STOP = {"the", "and", "for", "with", "that", "this", "user", "task", "when", "from", "are"}


def import_codex(
    workspace: Workspace,
    path: Path,
    *,
    actor: str,
    dry_run: bool = False,
    mapping: Mapping[str, Any] | Path | None = None,
) -> ImportReport:
    """Import a Codex memories folder into the workspace's private store."""
    folder = check_folder(path, what="Codex memories folder", example=EXAMPLE)
    _check_layout(folder)
    rules = load_mapping(folder, mapping)
    reading = read_codex(
        folder,
        owner=rules.owner or default_owner(workspace, actor),
        project=rules.project,
        mapping=rules,
    )
    return run_entries(workspace, reading, fmt=FORMAT, folder=folder, actor=actor, dry_run=dry_run)


def _check_layout(folder: Path) -> None:
    if any((folder / name).exists() for name in (SUMMARY_FILE, MEMORY_FILE, ROLLOUT_DIR)):
        return
    hint = (
        f"; did you mean {folder / 'memories'}?"
        if (folder / "memories" / MEMORY_FILE).is_file()
        else f"; pass the folder that holds them, e.g. {EXAMPLE}"
    )
    raise FolderError(
        f"{folder}: not a Codex memories folder (no {SUMMARY_FILE}, {MEMORY_FILE} or "
        f"{ROLLOUT_DIR}/){hint}"
    )


# ------------------------------------------------------------------- the pieces
@dataclass(frozen=True)
class Block:
    """A bullet with its continuation lines, or a prose paragraph."""

    line: int  # 1-based
    text: str


@dataclass
class Rollout:
    """One rollout summary: header lines, then the evidence."""

    rel: str
    path: Path
    lines: list[str]
    header: dict[str, str]
    body_start: int  # index of the first line after the header


@dataclass
class Thread:
    """One ``## Thread `id``` section of raw_memories.md."""

    thread_id: str
    start: int  # index of the heading line
    end: int  # index after the section
    meta: dict[str, str]


@dataclass
class Task:
    number: int
    files: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # (path, notes)


@dataclass
class Group:
    name: str
    cwd: str | None = None
    tasks: dict[int, Task] = field(default_factory=dict)
    items: list[tuple[str, Block]] = field(default_factory=list)  # (kind, block)


@dataclass(frozen=True)
class Cites:
    """What a bullet's citations lead to."""

    sources: tuple[Source, ...] = ()
    updated_at: str = ""  # the newest cited rollout's
    cwd: str | None = None


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(index, level, text) of each Markdown heading, outside fenced code."""
    found = []
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append((index, len(match["level"]), match["text"]))
    return found


def sections(lines: list[str]) -> list[tuple[int, str, int, int]]:
    """(level, heading text, first index, end index) of each heading's own lines."""
    marks = headings(lines)
    ends = [i for i, _, _ in marks[1:]] + [len(lines)]
    return [
        (level, text, index + 1, end) for (index, level, text), end in zip(marks, ends, strict=True)
    ]


def blocks(lines: list[str], start: int, end: int) -> list[Block]:
    """Bullets (with indented or lazy continuation lines) and prose paragraphs."""
    found: list[Block] = []
    current: list[str] = []
    first = 0

    def close() -> None:
        text = "\n".join(current).strip()
        if re.search(r"\w", text):  # not a rule line (---) or stray punctuation
            found.append(Block(first + 1, text))
        current.clear()

    for index in range(start, end):
        line = lines[index]
        if not line.strip():
            close()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            close()
            first = index
            current.append(bullet["text"])
        else:
            if not current:
                first = index
            current.append(line.strip())
    close()
    return found


def cited_tasks(text: str) -> tuple[str, list[int]]:
    """(the text without its [Task N] citations, the task numbers it cites)."""
    numbers = [
        int(n) for match in _CITATION.finditer(text) for n in re.findall(r"\d+", match["tasks"])
    ]
    return _CITATION.sub("", text).strip(), list(dict.fromkeys(numbers))


def project_of(cwd: str | None) -> str | None:
    if not cwd:
        return None
    parts = [p for p in re.split(r"[\\/]+", cwd.strip()) if p and p not in ("?", ".")]
    return parts[-1] if parts else None


# --------------------------------------------------------------------- evidence
def _tokens(text: str) -> set[str]:
    lowered = text.casefold()
    words = {w.strip("._-") for w in _ASCII_WORD.findall(lowered)} - _STOP
    for run in _CJK.findall(lowered):
        words.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
    return {w for w in words if w}


def best_line(lines: list[str], text: str, start: int, end: int) -> int | None:
    """1-based line in lines[start:end] that best supports text: one holding a phrase
    the text quotes, else the one sharing the most words (at least 2, and at least a
    fifth of the text's words); the first such line on a tie."""
    for quote in _QUOTE.findall(text):
        for index in range(start, end):
            if quote.strip() in lines[index]:
                return index + 1
    wanted = _tokens(text)
    best, best_shared = None, max(2, -(-len(wanted) // 5)) - 1
    for index in range(start, end):
        shared = len(wanted & _tokens(lines[index]))
        if shared > best_shared:
            best, best_shared = index + 1, shared
    return best


def _title_line(lines: list[str], start: int) -> int:
    for index in range(start, len(lines)):
        if lines[index].startswith("# "):
            return index + 1
    return next((i + 1 for i in range(start, len(lines)) if lines[i].strip()), 1)


def _source(task: str, path: Path, lines: list[str], line: int) -> Source:
    return Source(task=task, file=str(path), line=line, evidence=lines[line - 1].strip())


# ----------------------------------------------------------------------- reading
class _Reader:
    def __init__(self, folder: Path, owner: str, project: str | None) -> None:
        self.folder = folder
        self.owner = owner
        self.project = project
        self.reading = Reading()
        self.rollouts: dict[str, Rollout] = {}
        self.threads: dict[str, Thread] = {}  # by rollout summary file name
        self.raw_lines: list[str] = []
        self.cited: set[str] = set()  # rollout summary file names cited by MEMORY.md

    def lines(self, rel: str) -> list[str] | None:
        path = self.folder / rel
        if not path.is_file():
            return None
        try:
            return read_lines(path, rel)
        except FolderError as exc:
            self.reading.skip_file(rel, "private", str(exc))
            return None

    # -- evidence files
    def read_rollouts(self) -> None:
        base = self.folder / ROLLOUT_DIR
        for path in sorted(base.glob("*.md")) if base.is_dir() else ():
            rel = f"{ROLLOUT_DIR}/{path.name}"
            lines = self.lines(rel)
            if lines is None:
                continue
            header: dict[str, str] = {}
            start = 0
            while start < len(lines) and (match := _HEADER.match(lines[start])):
                header[match["key"]] = match["value"]
                start += 1
            self.rollouts[path.name] = Rollout(rel, path, lines, header, start)

    def read_raw(self) -> None:
        lines = self.lines(RAW_FILE) or []
        self.raw_lines = lines
        marks = [(i, text) for i, level, text in headings(lines) if level == 2]
        for number, (index, text) in enumerate(marks):
            match = re.match(r"^thread\s+`?(?P<id>[^`\s]+)`?", text, re.IGNORECASE)
            if match is None:
                continue
            end = marks[number + 1][0] if number + 1 < len(marks) else len(lines)
            meta = {}
            for line in lines[index + 1 : end]:
                if not line.strip() or line.strip() == "---":
                    break
                if header := _HEADER.match(line):
                    meta[header["key"]] = header["value"]
            thread = Thread(match["id"], index, end, meta)
            name = PurePosixPath(meta.get("rollout_summary_file", "").replace("\\", "/")).name
            self.threads[name or f"thread:{thread.thread_id}"] = thread

    def meta(self, name: str, notes: Mapping[str, str]) -> dict[str, str]:
        """A rollout's thread_id, cwd, updated_at: its header, else MEMORY.md's note,
        else raw_memories.md."""
        rollout = self.rollouts.get(name)
        thread = self.threads.get(name)
        merged = dict(thread.meta) if thread else {}
        if thread:
            merged.setdefault("thread_id", thread.thread_id)
        merged.update({k: v for k, v in notes.items() if v})
        if rollout:
            merged.update({k: v for k, v in rollout.header.items() if v})
        return merged

    def cites(self, text: str, files: list[tuple[str, dict[str, str]]], origin: str) -> Cites:
        """Sources in the rollout summaries a bullet cites, and their cwd and date."""
        sources: dict[object, Source] = {}
        dates, cwds = [], []
        for path, notes in files:
            name = PurePosixPath(path.replace("\\", "/")).name
            self.cited.add(name)
            meta = self.meta(name, notes)
            dates.append(meta.get("updated_at", ""))
            cwds.append(meta.get("cwd", ""))
            source = self.evidence(text, name, meta.get("thread_id"), f"{origin}: cites {path}")
            if source is not None:
                sources.setdefault(source.key, source)
        return Cites(
            tuple(sources.values()), max(dates, default=""), next((c for c in cwds if c), None)
        )

    def evidence(self, text: str, name: str, thread_id: str | None, cite: str) -> Source | None:
        task = thread_id or f"codex:{PurePosixPath(name).stem}"
        rollout = self.rollouts.get(name)
        if rollout is not None:
            line = best_line(rollout.lines, text, rollout.body_start, len(rollout.lines))
            line = line or _title_line(rollout.lines, rollout.body_start)
            return _source(task, rollout.path, rollout.lines, line)
        thread = self.threads.get(name)
        if thread is not None:
            self.reading.warnings.append(
                f"{cite}, which is missing; the source points at its thread in {RAW_FILE}"
            )
            line = best_line(self.raw_lines, text, thread.start, thread.end) or thread.start + 1
            return _source(task, self.folder / RAW_FILE, self.raw_lines, line)
        self.reading.warnings.append(
            f"{cite}, which is missing here and in {RAW_FILE}; the source points at the "
            "bullet itself"
        )
        return None

    # -- entries
    def entry(self, kind: str, rel: str, lines: list[str], block: Block, cites: Cites) -> Entry:
        text, _ = cited_tasks(block.text)
        spec = KINDS[kind]
        own = _source(f"codex:{rel}", self.folder / rel, lines, block.line)
        project = self.project or project_of(cites.cwd) or "codex"
        return Entry(
            origin=f"{rel}:{block.line}",
            kind=kind,
            scope="private",
            type=spec.type,
            subject=f"user:{self.owner}" if spec.about == "user" else f"project:{project}",
            attribute=spec.prefix + slug(text),
            content=text,
            sources=cites.sources or (own,),
            gate=spec.gate,
            title=short(text),
            order=cites.updated_at,
        )

    def read_summary(self) -> list[Entry]:
        lines = self.lines(SUMMARY_FILE)
        if lines is None:
            return []
        first = next((line.strip() for line in lines if line.strip()), "")
        if first != "v1":
            self.reading.warnings.append(
                f"{SUMMARY_FILE}:1: does not start with 'v1' (the version this importer "
                "reads); read anyway"
            )
        entries = []
        kind: str | None = None
        for level, text, start, end in sections(lines):
            if level <= 2:  # deeper headings stay in their section
                kind = self.summary_kind(text) if level == 2 else None
            if kind is not None:
                entries += [
                    self.entry(kind, SUMMARY_FILE, lines, block, Cites())
                    for block in blocks(lines, start, end)
                ]
        return entries

    def summary_kind(self, heading: str) -> str | None:
        name = heading.strip().casefold()
        if name not in SUMMARY_SECTIONS:
            self.reading.warnings.append(
                f"{SUMMARY_FILE}: section '{heading}' is not one this importer reads; skipped"
            )
        return SUMMARY_SECTIONS.get(name)

    def read_groups(self) -> list[Entry]:
        lines = self.lines(MEMORY_FILE)
        if lines is None:
            return []
        entries = []
        for group in self.groups(lines):
            entries += self.group_entries(group, lines)
        return entries

    def groups(self, lines: list[str]) -> list[Group]:
        groups: list[Group] = []
        group: Group | None = None
        task: Task | None = None
        for level, text, start, end in sections(lines):  # start: the heading's line number
            name = text.strip()
            if level == 1:
                match = _GROUP.match(name)
                group = Group(match["name"].strip()) if match else None
                if group is None:
                    self.reading.warnings.append(
                        f"{MEMORY_FILE}:{start}: '# {name}' is not a '# Task Group:' block; "
                        "its sections are not read"
                    )
                    continue
                groups.append(group)
                group.cwd = _applies_to_cwd(lines, start, end)
                continue
            if group is None:
                continue
            if level == 2 and (match := _TASK.match(name)):
                task = group.tasks.setdefault(int(match["number"]), Task(int(match["number"])))
            elif level == 2 and name.casefold() in GROUP_SECTIONS:
                task = None
                kind = GROUP_SECTIONS[name.casefold()]
                group.items += [(kind, b) for b in blocks(lines, start, end)]
            elif level == 3 and name.casefold() == "rollout_summary_files" and task:
                task.files += _files(lines, start, end)
            elif level == 2:
                task = None
                self.reading.warnings.append(
                    f"{MEMORY_FILE}:{start}: section '{name}' is not one this importer "
                    "reads; skipped"
                )
        return groups

    def group_entries(self, group: Group, lines: list[str]) -> list[Entry]:
        entries = []
        for kind, block in group.items:
            text, numbers = cited_tasks(block.text)
            origin = f"{MEMORY_FILE}:{block.line}"
            unknown = [n for n in numbers if n not in group.tasks]
            if unknown:
                self.reading.warnings.append(
                    f"{origin}: cites Task {', '.join(map(str, unknown))}, which group "
                    f"'{group.name}' does not have"
                )
            tasks = [group.tasks[n] for n in numbers if n in group.tasks]
            if not numbers and len(group.tasks) == 1:
                tasks = list(group.tasks.values())
            cites = self.cites(text, [f for t in tasks for f in t.files], origin)
            if group.cwd:
                cites = replace(cites, cwd=group.cwd)
            entries.append(self.entry(kind, MEMORY_FILE, lines, block, cites))
        return entries

    def report_unused(self) -> None:
        pending = sorted(t.thread_id for name, t in self.threads.items() if name not in self.cited)
        if pending and (self.folder / MEMORY_FILE).is_file():
            self.reading.warnings.append(
                f"{RAW_FILE}: {len(pending)} thread(s) not consolidated into {MEMORY_FILE} yet "
                f"({', '.join(pending[:5])}{' ...' if len(pending) > 5 else ''}): not imported; "
                "import again after Codex consolidates them"
            )
        uncited = sorted(n for n in self.rollouts if n not in self.cited)
        if uncited:
            self.reading.warnings.append(
                f"{ROLLOUT_DIR}/: {len(uncited)} summary file(s) cited by no memory "
                f"({', '.join(uncited[:5])}{' ...' if len(uncited) > 5 else ''}): they are "
                "evidence, not memory; nothing imported from them"
            )


def _applies_to_cwd(lines: list[str], start: int, end: int) -> str | None:
    for line in lines[start:end]:
        match = re.match(r"^\s*applies_to:.*?\bcwd=(?P<cwd>[^;]+)", line)
        if match:
            return match["cwd"].strip()
    return None


def _files(lines: list[str], start: int, end: int) -> list[tuple[str, dict[str, str]]]:
    found = []
    for line in lines[start:end]:
        match = _FILE_BULLET.match(line)
        if match:
            notes = {m["key"]: m["value"].strip() for m in _NOTE.finditer(match["notes"] or "")}
            found.append((match["path"], notes))
    return found


def read_codex(
    folder: Path, *, owner: str, project: str | None = None, mapping: ImportMapping | None = None
) -> Reading:
    """Parse the folder into entries, skipped files and warnings (nothing is written)."""
    reader = _Reader(folder, owner, project)
    reader.read_rollouts()
    reader.read_raw()
    entries = reader.read_summary() + reader.read_groups()
    reader.report_unused()
    reading = reader.reading
    reading.entries = (mapping or ImportMapping()).apply(entries, reading.warnings)
    return reading
