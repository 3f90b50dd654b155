"""The files of a Codex memories folder, parsed (nothing here decides what a record is).

:class:`CodexFolder` reads the folder's files as
:mod:`core.importers.codex.reader` describes them: the rollout summaries (their
header lines, then the evidence), the threads of ``raw_memories.md``, the
memory blocks of ``memory_summary.md`` per section, and ``MEMORY.md``'s task
groups (their ``applies_to`` cwd, tasks with their rollout summary files, and
the bullets of their preference, knowledge and failure sections). A file it
cannot read becomes a skipped item of its :class:`Reading`; a section it does
not know, a warning. :func:`blocks` splits a section into bullets and prose
paragraphs, :func:`cited_tasks` strips a bullet's ``[Task N]`` citations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from core.importers.entries import Reading
from core.importers.folders import FolderError, read_lines

SUMMARY_FILE = "memory_summary.md"
MEMORY_FILE = "MEMORY.md"
RAW_FILE = "raw_memories.md"
ROLLOUT_DIR = "rollout_summaries"
#: what Codex itself writes in its memories folder (the importer reads these)
CODEX_FILES = frozenset({SUMMARY_FILE, MEMORY_FILE, RAW_FILE, ROLLOUT_DIR})

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


@dataclass(frozen=True)
class Block:
    """A bullet with its continuation lines, or a prose paragraph."""

    line: int  # 1-based
    text: str
    last: int = 0  # 1-based, the block's last line (0: its first)


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

    def close(last: int) -> None:
        text = "\n".join(current).strip()
        if re.search(r"\w", text):  # not a rule line (---) or stray punctuation
            found.append(Block(first + 1, text, last))
        current.clear()

    for index in range(start, end):
        line = lines[index]
        if not line.strip():
            close(index)
            continue
        bullet = _BULLET.match(line)
        if bullet:
            close(index)
            first = index
            current.append(bullet["text"])
        else:
            if not current:
                first = index
            current.append(line.strip())
    close(end)
    return found


def cited_tasks(text: str) -> tuple[str, list[int]]:
    """(the text without its [Task N] citations, the task numbers it cites)."""
    numbers = [
        int(n) for match in _CITATION.finditer(text) for n in re.findall(r"\d+", match["tasks"])
    ]
    return _CITATION.sub("", text).strip(), list(dict.fromkeys(numbers))


class CodexFolder:
    """The parsed files of one Codex memories folder; problems go to :attr:`reading`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.reading = Reading()
        self.rollouts: dict[str, Rollout] = {}
        self.threads: dict[str, Thread] = {}  # by rollout summary file name
        self.raw_lines: list[str] = []

    def lines(self, rel: str) -> list[str] | None:
        path = self.folder / rel
        if path.is_symlink() or path.parent.is_symlink():
            self.reading.skip_file(
                rel, "private", "a symbolic link: not followed; copy the file in"
            )
            return None
        if not path.is_file():
            return None
        try:
            return read_lines(path, rel, self.reading.warnings)
        except FolderError as exc:
            self.reading.skip_file(rel, "private", str(exc))
            return None

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

    def summary(self) -> tuple[list[str], list[tuple[str, Block]]]:
        """memory_summary.md's lines, and its memory blocks with the kind of each."""
        lines = self.lines(SUMMARY_FILE)
        if lines is None:
            return [], []
        first = next((line.strip() for line in lines if line.strip()), "")
        if first != "v1":
            self.reading.warnings.append(
                f"{SUMMARY_FILE}:1: does not start with 'v1' (the version this importer "
                "reads); read anyway"
            )
        items: list[tuple[str, Block]] = []
        kind: str | None = None
        for level, text, start, end in sections(lines):
            if level <= 2:  # deeper headings stay in their section
                kind = self.summary_kind(text) if level == 2 else None
            if kind is not None:
                items += [(kind, block) for block in blocks(lines, start, end)]
        return lines, items

    def summary_kind(self, heading: str) -> str | None:
        name = heading.strip().casefold()
        if name not in SUMMARY_SECTIONS:
            self.reading.warnings.append(
                f"{SUMMARY_FILE}: section '{heading}' is not one this importer reads; skipped"
            )
        return SUMMARY_SECTIONS.get(name)

    def memory(self) -> tuple[list[str], list[Group]]:
        """MEMORY.md's lines and its task groups."""
        lines = self.lines(MEMORY_FILE)
        if lines is None:
            return [], []
        return lines, self.groups(lines)

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
