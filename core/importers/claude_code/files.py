"""The files of a Claude Code memory folder, parsed: the ``MEMORY.md`` index and topic files.

The folder holds ``MEMORY.md``, an index of lines ``- [Title](file.md) — hook``
(possibly under headings), and one topic file per memory, with front matter
(:func:`split_front_matter`; fields at the top level or under ``metadata:``,
see :func:`front_field`). ``team/`` holds the team's topic files (and possibly
its own ``MEMORY.md``). Files without front matter are read too.

:func:`read_index` reads an index and warns about what Claude Code would not
load (past :data:`INDEX_MAX_LINES` lines or :data:`INDEX_MAX_BYTES` bytes);
:func:`topic_files` reads every topic file, a file it cannot use becoming a
skipped item. What a topic file means as a memgov record is
:mod:`core.importers.claude_code.entries`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from core.domain.words import counted
from core.importers.entries import Reading
from core.importers.folders import FolderError, read_text

INDEX_FILE = "MEMORY.md"
TEAM_DIR = "team"
INDEX_MAX_LINES = 200  # Claude Code loads the first 200 lines of MEMORY.md
INDEX_MAX_BYTES = 25_000  # ... and at most 25,000 bytes; the byte cap fires first
INDEX_LINE_CHARS = 150
#: libyaml's safe loader where PyYAML has it (the same documents, several times faster:
#: a sync reads every topic file's front matter)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

INDEX_LINE = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)"
    r".*$"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")


_NOTE = re.compile(r"^\s*[-*+]\s+(?P<text>\S.*?)\s*$")


@dataclass(frozen=True)
class IndexNote:
    """A note written straight into MEMORY.md: a bullet that links to no file."""

    index: str
    line: int
    text: str  # the bullet's text, without its marker
    evidence: str  # the line, stripped
    heading: str | None
    raw: str = ""  # the line as it stands


@dataclass(frozen=True)
class IndexEntry:
    index: str  # MEMORY.md or team/MEMORY.md
    line: int
    title: str
    target: str  # relative to the folder
    heading: str | None
    loaded: bool  # within what Claude Code loads at start (200 lines / 25,000 bytes)
    text: str = ""  # the line as it stands


def index_text(folder: Path, rel: str, reading: Reading) -> str | None:
    """The text of one MEMORY.md (None: there is none, or it cannot be read, which
    ``reading`` is told), read once for its index lines and its notes."""
    path = folder / rel
    if not path.is_file() or path.is_symlink():
        return None
    try:
        return read_text(path, rel, reading.warnings)
    except FolderError as exc:
        reading.warnings.append(f"{exc}; the index was not read")
        return None


def read_index(lines: list[str], rel: str, reading: Reading) -> list[IndexEntry]:
    """The index lines of one MEMORY.md, with warnings for its limits."""
    _check_limits(rel, lines, reading)
    base = posixpath.dirname(rel)
    heading: str | None = None
    used = 0
    entries = []
    for number, line in enumerate(lines, start=1):
        used += len(line.encode("utf-8")) + 1
        if match := _HEADING.match(line):
            heading = match["text"]
            continue
        match = INDEX_LINE.match(line)
        if match is None:
            continue
        target = _target(match["target"], base)
        if target is None:
            continue
        if target == ".." or target.startswith(("../", "/")):
            reading.warnings.append(
                f"{rel}:{number}: points outside the folder ({match['target']}); not read"
            )
            continue
        loaded = number <= INDEX_MAX_LINES and used <= INDEX_MAX_BYTES
        entries.append(
            IndexEntry(rel, number, match["title"].strip(), target, heading, loaded, line)
        )
    return entries


def index_notes(lines: list[str], rel: str, reading: Reading) -> list[IndexNote]:
    """The bullets of one MEMORY.md that are notes rather than links to topic files;
    other prose (a paragraph, a line of text) is reported, not imported."""
    heading: str | None = None
    notes: list[IndexNote] = []
    prose: list[int] = []
    fenced = False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            prose.append(number)
            continue
        if fenced or not line.strip():
            if fenced:
                prose.append(number)
            continue
        if match := _HEADING.match(line):
            heading = match["text"]
            continue
        if INDEX_LINE.match(line):
            continue
        found = _NOTE.match(line)
        if found is None:
            prose.append(number)
            continue
        notes.append(IndexNote(rel, number, found["text"], line.strip(), heading, line))
    if prose:
        shown = ", ".join(str(n) for n in prose[:5]) + (" ..." if len(prose) > 5 else "")
        reading.warnings.append(
            f"{rel}: {counted(len(prose), 'line')} of prose (line {shown}) neither links to "
            "a memory file nor is a note (a bullet); not imported"
        )
    return notes


_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")


def outside_link(text: str, rel: str) -> str | None:
    """The first link of a line of ``rel`` (an index) that points outside the folder
    (``../../CLAUDE.md``, an absolute path), as written; None when none does."""
    base = posixpath.dirname(rel)
    for match in _LINK.finditer(text):
        raw = match["target"]
        if raw.startswith("~"):
            return raw
        target = _target(raw, base)
        if target is not None and (target == ".." or target.startswith(("../", "/"))):
            return raw
    return None


def _target(raw: str, base: str) -> str | None:
    """A link target as a path relative to the folder; None for a web link."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", raw, re.IGNORECASE):
        return None
    target = unquote(raw.split("#", 1)[0]).strip()
    if not target:
        return None
    return posixpath.normpath(posixpath.join(base, target.removeprefix("./")))


def _check_limits(rel: str, lines: list[str], reading: Reading) -> None:
    size = sum(len(line.encode("utf-8")) + 1 for line in lines)
    if len(lines) > INDEX_MAX_LINES or size > INDEX_MAX_BYTES:
        reading.warnings.append(
            f"{rel}: {len(lines)} lines, {size:,} bytes; Claude Code loads only the first "
            f"{INDEX_MAX_LINES} lines and {INDEX_MAX_BYTES:,} bytes, so the agent never "
            "saw the index lines past that at start (their files are imported; each "
            "such item has a note)"
        )
    long = [n for n, line in enumerate(lines, start=1) if len(line) > INDEX_LINE_CHARS]
    if long:
        shown = ", ".join(map(str, long[:5])) + (" ..." if len(long) > 5 else "")
        reading.warnings.append(
            f"{rel}: {counted(len(long), 'line')} over {INDEX_LINE_CHARS} characters "
            f"(line {shown}): "
            "an index line is a pointer, not content"
        )


def index_by_file(
    entries: list[IndexEntry], folder: Path, reading: Reading
) -> dict[str, IndexEntry]:
    listed: dict[str, IndexEntry] = {}
    for entry in entries:
        first = listed.setdefault(entry.target, entry)
        if first is not entry:
            reading.warnings.append(
                f"{entry.index}:{entry.line}: lists {entry.target} again "
                f"(first at {first.index}:{first.line})"
            )
        elif not (folder / entry.target).is_file():
            reading.warnings.append(
                f"{entry.index}:{entry.line}: [{entry.title}] points at {entry.target}, "
                "which does not exist; nothing imported for it"
            )
    return listed


# ------------------------------------------------------------------ topic files
@dataclass(frozen=True)
class Topic:
    rel: str
    path: Path
    lines: list[str]
    meta: dict[str, Any]
    body_start: int  # index into lines of the first line after the front matter
    text: str = ""  # the file as read (core.importers.folders.read_text)

    @property
    def stem(self) -> str:
        return Path(self.rel).stem


def topic_files(folder: Path, reading: Reading) -> list[Topic]:
    """Every *.md but MEMORY.md, in the folder and in team/; problems become skipped items."""
    topics = []
    for rel in _topic_paths(folder, reading):
        scope = "team" if rel.startswith(f"{TEAM_DIR}/") else "private"
        path = folder / rel
        if path.is_symlink():
            reading.skip_file(rel, scope, "a symbolic link: not followed; copy the file in")
            continue
        try:
            text = read_text(path, rel, reading.warnings)
            lines = text.splitlines()
            meta, body_start = split_front_matter(lines, rel)
        except FolderError as exc:
            reading.skip_file(rel, scope, str(exc))
            continue
        topics.append(Topic(rel, path, lines, meta, body_start, text))
    return topics


def _topic_paths(folder: Path, reading: Reading) -> list[str]:
    found = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_dir() and not path.is_symlink():
            if path.name == TEAM_DIR:
                found += [
                    f"{TEAM_DIR}/{p.name}"
                    for p in sorted(path.iterdir())
                    if p.suffix == ".md" and p.name != INDEX_FILE and not p.name.startswith(".")
                ]
            else:
                reading.warnings.append(
                    f"{path.name}/: not part of a Claude Code memory folder (only {TEAM_DIR}/ "
                    "is); not read"
                )
        elif path.suffix == ".md" and path.name != INDEX_FILE:
            found.append(path.name)
    return found


def split_front_matter(lines: list[str], rel: str) -> tuple[dict[str, Any], int]:
    """(front matter, index of the first body line); a file without front matter is all body."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FolderError(
            f"{rel}:1: the front matter has no closing '---' line; add one after the fields"
        )
    text = "\n".join(lines[1:end])
    try:
        meta = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        # Claude Code writes its fields unquoted, a ": " in a value included
        # ("name: Project Context: SS Traveling"): read as it writes them, line by line,
        # before PyYAML's own parser (ten times libyaml's time, a millisecond a file),
        # which then only names the line a person looks at. A field a line is YAML both
        # parsers read alike: what one refuses, the other does (tests/importers)
        fields = line_fields(lines[1:end])
        if fields is not None:
            return fields, end + 1
        try:
            meta = yaml.load(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 2 if mark is not None else 1
            problem = getattr(exc, "problem", None) or "cannot be parsed"
            raise FolderError(
                f"{rel}:{line}: the front matter is not valid YAML ({problem}); fix it, or "
                "quote the value"
            ) from None
    if meta is None:
        return {}, end + 1
    if not isinstance(meta, dict):
        raise FolderError(f"{rel}:2: the front matter is not a mapping of fields (name: ...)")
    return meta, end + 1


#: how a YAML value other than plain text begins; such a value is not read line by line
_YAML_STARTS = frozenset("[{&*!|>%@`")
_FIELD = re.compile(r"([A-Za-z_][\w.-]*):(?:[ \t]+(.*))?$")


def line_fields(lines: list[str]) -> dict[str, Any] | None:
    """Front matter as Claude Code writes it, a field a line: ``name: value``, the value
    everything after the first ``: `` (unquoted, colons and all), and one level of
    indented fields under a field with no value (``metadata:``). None when a line is
    anything else: then the YAML error stands."""
    meta: dict[str, Any] = {}
    under: dict[str, Any] | None = None
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[:1].isspace()
        found = _FIELD.match(line.strip())
        if found is None or (indented and under is None):
            return None
        raw = (found.group(2) or "").strip()
        if raw[:1] in _YAML_STARTS:
            return None  # written as YAML (a list, a mapping, a block): not a plain value
        key, value = found.group(1), _unquoted(raw)
        if indented:
            assert under is not None
            under[key] = value or None
        elif value:
            meta[key], under = value, None
        else:
            meta[key] = under = {}
    return {k: (v or None) if isinstance(v, dict) else v for k, v in meta.items()}


def _unquoted(value: str) -> str:
    """A value whole in matching quotes, without them."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def front_field(meta: Mapping[str, Any], name: str) -> Any:
    """A front matter field at the top level, else under ``metadata:``."""
    if meta.get(name) is not None:
        return meta[name]
    nested = meta.get("metadata")
    return nested.get(name) if isinstance(nested, Mapping) else None


def front_text(meta: Mapping[str, Any], name: str) -> str | None:
    value = front_field(meta, name)
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip() or None
    return None
