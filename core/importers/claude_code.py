"""Import a Claude Code memory folder: ``memgov import claude-code PATH``.

The folder (``~/.claude/projects/<project>/memory/``) holds ``MEMORY.md``, an
index of lines ``- [Title](file.md) — hook`` (possibly under headings), and one
topic file per memory. A topic file has front matter with ``name``,
``description`` and ``type`` (user, feedback, project, reference), at the top
level or under ``metadata:``, and an optional ``modified``; its body is the
statement, often followed by ``**Why:**`` and ``**How to apply:**`` lines and
``[[name]]`` links to other memories. ``team/`` holds the team's topic files
(and possibly its own ``MEMORY.md``). Files without front matter are read too.

Every topic file becomes one record; the index only supplies titles, type
hints (its headings) and warnings (lines pointing at no file, files it does not
list, lines past what Claude Code loads).

Mapping rules (each can be corrected in ``memgov-import.yaml``, see
:mod:`core.importers.common`):

==========  ==================================================  ===========================
Claude      memgov type                                         subject
==========  ==================================================  ===========================
user        preference when it states a wish (prefers, wants,   ``user:<owner>``
            always, never, don't, 希望, 喜欢, 不要...), else
            semantic (a fact about the user: role, expertise)
feedback    preference                                          ``user:<owner>/project:<p>``
                                                                (in team/: ``project:<p>``)
project     semantic                                            ``project:<p>``
reference   semantic                                            ``project:<p>``
==========  ==================================================  ===========================

- attribute: the front matter ``name`` (else the file name) without a leading
  ``user_``/``feedback_``/``project_``/``reference_``, as a slug (lower case,
  words joined by ``_``, e.g. ``feedback_testing`` -> ``testing``);
- scope: ``team`` for files under ``team/``, else ``private``;
- type when the front matter has none: the index heading the file is listed
  under (``## Feedback``), else the file-name prefix (``feedback_x.md``), else
  project, with a warning;
- owner: the private store's ``owner``, else the actor's name; project: the
  folder's name (``<project>/memory`` gives ``<project>``; Claude Code's
  encoded ``-home-alice-src-liyyro`` gives ``liyyro`` when that folder exists
  on this machine);
- title: ``name``; content: the body (or the description when the body is
  empty); the source points at the body's first statement line:
  ``Source(task="claude-code:<p>/<file>", file=<absolute path>, line=N,
  evidence=<that line>)``;
- a ``memgov:`` block in the front matter (written by ``memgov export
  claude-code``) sets type, subject, attribute, condition and value exactly,
  so an export imports back to the same records.

Gate inputs (the importer is the write gate's caller; Claude Code already chose
to keep these memories, so they start above the default theta 0.6):

==========  ====  ====  ==========
kind        s1    s2    confidence
==========  ====  ====  ==========
user        0.8   0.8   0.7
feedback    0.8   0.9   0.8   (the user corrected the agent: explicit evidence)
project     0.7   0.8   0.7   (project facts change sooner)
reference   0.8   0.8   0.7
==========  ====  ====  ==========

Entries are imported oldest ``modified`` first (undated first), so a newer
feedback file for the same key supersedes an older one, as newer preferences do.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from core.domain.record import TYPES, Source
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
    slug,
)
from core.store.workspace import Workspace

FORMAT = "claude-code"
INDEX_FILE = "MEMORY.md"
TEAM_DIR = "team"
CLAUDE_TYPES = ("user", "feedback", "project", "reference")
INDEX_MAX_LINES = 200  # Claude Code loads the first 200 lines of MEMORY.md
INDEX_MAX_BYTES = 25_000  # ... and at most 25,000 bytes; the byte cap fires first
INDEX_LINE_CHARS = 150
GATE = {
    "user": GateDefaults(s1=0.8, s2=0.8, confidence=0.7),
    "feedback": GateDefaults(s1=0.8, s2=0.9, confidence=0.8),
    "project": GateDefaults(s1=0.7, s2=0.8, confidence=0.7),
    "reference": GateDefaults(s1=0.8, s2=0.8, confidence=0.7),
}
EXAMPLE = "~/.claude/projects/<project>/memory"

_INDEX_LINE = re.compile(
    r"^\s*[-*+]\s+\[(?P<title>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)"
    r".*$"
)
_ENCODE = re.compile(r"[^A-Za-z0-9]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_LINK = re.compile(r"\[\[([^\[\]|]+)(?:\|[^\]]*)?\]\]")
_WISH = re.compile(
    r"\b(?:prefers?|preferred|preference|likes?|dislikes?|wants?|hates?|always|never|"
    r"don'?t|do not|avoid|please)\b|偏好|喜欢|希望|不要|别用|总是|讨厌|更愿意|习惯",
    re.IGNORECASE,
)


def import_claude_code(
    workspace: Workspace,
    path: Path,
    *,
    actor: str,
    dry_run: bool = False,
    mapping: Mapping[str, Any] | Path | None = None,
) -> ImportReport:
    """Import a Claude Code memory folder into the workspace's stores (team/ into the
    team store). ``mapping`` replaces the folder's memgov-import.yaml."""
    folder = check_folder(path, what="Claude Code memory folder", example=EXAMPLE)
    _check_layout(folder)
    rules = load_mapping(folder, mapping)
    reading = read_claude_code(
        folder,
        owner=rules.owner or default_owner(workspace, actor),
        project=rules.project or project_name(folder),
        mapping=rules,
    )
    return run_entries(workspace, reading, fmt=FORMAT, folder=folder, actor=actor, dry_run=dry_run)


def project_name(folder: Path) -> str:
    """``<project>/memory`` -> ``<project>``. Claude Code names a project's folder after
    its path, with '-' for '/' (and for other characters than letters and digits:
    ``/home/alice/src/my-app`` -> ``-home-alice-src-my-app``). When a folder with
    that encoding exists on this machine, its name; else the name without the
    leading '-'."""
    base = folder.parent if folder.name == "memory" else folder
    name = base.name
    if not name.startswith("-"):
        return name or "project"
    found = _decode(Path("/"), name[1:].split("-"))
    return found.name if found is not None and found.name else name.strip("-") or "project"


def _decode(base: Path, parts: list[str]) -> Path | None:
    """The existing folder under base whose encoded relative path is '-'.join(parts)."""
    if not parts:
        return base
    try:
        children = {_ENCODE.sub("-", c.name): c for c in base.iterdir() if c.is_dir()}
    except OSError:
        return None
    for size in range(1, len(parts) + 1):
        child = children.get("-".join(parts[:size]))
        found = _decode(child, parts[size:]) if child is not None else None
        if found is not None:
            return found
    return None


def _check_layout(folder: Path) -> None:
    if (folder / INDEX_FILE).is_file() or any(folder.glob("*.md")):
        return
    hint = (
        f"; did you mean {folder / 'memory'}?"
        if (folder / "memory" / INDEX_FILE).is_file()
        else f"; pass the folder that holds {INDEX_FILE}, e.g. {EXAMPLE}"
    )
    raise FolderError(f"{folder}: no {INDEX_FILE} and no memory files{hint}")


# ------------------------------------------------------------------------- index
@dataclass(frozen=True)
class IndexEntry:
    index: str  # MEMORY.md or team/MEMORY.md
    line: int
    title: str
    target: str  # relative to the folder
    heading: str | None
    loaded: bool  # within what Claude Code loads at start (200 lines / 25,000 bytes)


def read_index(folder: Path, rel: str, reading: Reading) -> list[IndexEntry]:
    """The index lines of one MEMORY.md, with warnings for its limits."""
    path = folder / rel
    if not path.is_file():
        return []
    try:
        lines = read_lines(path, rel)
    except FolderError as exc:
        reading.warnings.append(f"{exc}; the index was not read")
        return []
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
        match = _INDEX_LINE.match(line)
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
        entries.append(IndexEntry(rel, number, match["title"].strip(), target, heading, loaded))
    return entries


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
            f"{rel}: {len(long)} line(s) over {INDEX_LINE_CHARS} characters (line {shown}): "
            "an index line is a pointer, not content"
        )


def _index_by_file(
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
            lines = read_lines(path, rel)
            meta, body_start = split_front_matter(lines, rel)
        except FolderError as exc:
            reading.skip_file(rel, scope, str(exc))
            continue
        topics.append(Topic(rel, path, lines, meta, body_start))
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
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
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


def _field(meta: Mapping[str, Any], name: str) -> Any:
    """A front matter field at the top level, else under ``metadata:``."""
    if meta.get(name) is not None:
        return meta[name]
    nested = meta.get("metadata")
    return nested.get(name) if isinstance(nested, Mapping) else None


def _text(meta: Mapping[str, Any], name: str) -> str | None:
    value = _field(meta, name)
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip() or None
    return None


def _stamp(value: Any) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value).strip() if value is not None else ""


# ----------------------------------------------------------------------- reading
def read_claude_code(
    folder: Path, *, owner: str, project: str, mapping: ImportMapping | None = None
) -> Reading:
    """Parse the folder into entries, skipped files and warnings (nothing is written)."""
    reading = Reading()
    index = read_index(folder, INDEX_FILE, reading)
    index += read_index(folder, f"{TEAM_DIR}/{INDEX_FILE}", reading)
    listed = _index_by_file(index, folder, reading)
    topics = topic_files(folder, reading)
    names = {n.casefold() for t in topics for n in (t.stem, _text(t.meta, "name") or t.stem)}
    entries = []
    for topic in topics:
        entries.append(_entry(topic, listed.get(topic.rel), owner, project, reading))
        _check_links(topic, names, reading)
    unlisted = [t.rel for t in topics if t.rel not in listed]
    if index and unlisted:
        reading.warnings.append(
            f"{len(unlisted)} file(s) not listed in {INDEX_FILE} ({', '.join(unlisted[:8])}"
            f"{' ...' if len(unlisted) > 8 else ''}): imported anyway; Claude Code finds "
            "them only by searching"
        )
    reading.entries = (mapping or ImportMapping()).apply(entries, reading.warnings)
    return reading


def _entry(
    topic: Topic, listed: IndexEntry | None, owner: str, project: str, reading: Reading
) -> Entry:
    meta = topic.meta
    block = _memgov_block(topic, reading)
    name = _text(meta, "name")
    description = _text(meta, "description")
    kind, why = _claude_type(topic, listed, reading)
    line, content = _statement(topic, description)
    scope = "team" if topic.rel.startswith(f"{TEAM_DIR}/") else "private"
    notes = [why] if why else []
    if listed is None:
        notes.append(f"not listed in {INDEX_FILE}")
    elif not listed.loaded:
        notes.append(
            f"listed at {listed.index}:{listed.line}, past what Claude Code loads "
            f"({INDEX_MAX_LINES} lines / {INDEX_MAX_BYTES:,} bytes)"
        )
    return Entry(
        origin=f"{topic.rel}:{line}",
        kind=kind,
        scope=scope,
        type=block.get("type") or _memgov_type(kind, description, content),
        subject=block.get("subject") or _subject(kind, scope, owner, project),
        attribute=block.get("attribute") or slug(without_type_prefix(name or topic.stem)),
        content=content,
        sources=(
            Source(
                task=f"claude-code:{project}/{topic.rel}",
                file=str(topic.path),
                line=line,
                evidence=topic.lines[line - 1].strip() if topic.lines else "",
            ),
        ),
        gate=GATE[kind],
        title=name or (listed.title if listed and listed.title else None) or _human(topic.stem),
        condition=block.get("condition"),
        value=block.get("value"),
        order=_stamp(_field(meta, "modified")),
        exported_id=block.get("id"),
        notes=tuple(notes),
    )


def _claude_type(topic: Topic, listed: IndexEntry | None, reading: Reading) -> tuple[str, str]:
    """(Claude type, how it was found when not from the front matter)."""
    raw = _field(topic.meta, "type")
    value = str(raw).strip().casefold() if raw is not None else ""
    if value in CLAUDE_TYPES:
        return value, ""
    if raw is not None:
        reading.warnings.append(
            f"{topic.rel}: unknown type {str(raw)[:40]!r} (Claude Code uses "
            f"{', '.join(CLAUDE_TYPES)}); guessed from the index and the file name"
        )
    heading = listed.heading if listed else None
    for word in re.findall(r"\w+", (heading or "").casefold()):
        if word.removesuffix("s") in CLAUDE_TYPES:
            return word.removesuffix("s"), f"type {word.removesuffix('s')} from the index heading"
    prefix = re.split(r"[_\-]", topic.stem.casefold(), maxsplit=1)[0]
    if prefix in CLAUDE_TYPES:
        return prefix, f"type {prefix} from the file name"
    reading.warnings.append(
        f"{topic.rel}: no type (front matter, index heading or file-name prefix); read as "
        f"project; set its type in memgov-import.yaml if that is wrong"
    )
    return "project", "no type found: read as project"


def _statement(topic: Topic, description: str | None) -> tuple[int, str]:
    """(1-based line of the first statement, the content): the body, else the description."""
    body = topic.lines[topic.body_start :]
    content = "\n".join(body).strip()
    filled = [i for i, line in enumerate(body) if line.strip()]
    plain = [i for i in filled if not body[i].lstrip().startswith("#")]
    if filled:
        return topic.body_start + (plain or filled)[0] + 1, content
    if description:
        where = next(
            (
                i
                for i in range(topic.body_start)
                if re.match(r"^\s*description\s*:", topic.lines[i])
            ),
            0,
        )
        return where + 1, description
    return 1, ""


def _memgov_type(kind: str, description: str | None, content: str) -> str:
    if kind == "feedback":
        return "preference"
    if kind == "user":
        first = (content.strip().splitlines() or [""])[0]
        return "preference" if _WISH.search(f"{description or ''} {first}") else "semantic"
    return "semantic"


def _subject(kind: str, scope: str, owner: str, project: str) -> str:
    if kind == "user":
        return f"user:{owner}"
    if kind == "feedback" and scope == "private":
        return f"user:{owner}/project:{project}"
    return f"project:{project}"


def without_type_prefix(name: str) -> str:
    for kind in CLAUDE_TYPES:
        for sep in ("_", "-", " "):
            if name.casefold().startswith(kind + sep) and len(name) > len(kind) + 1:
                return name[len(kind) + 1 :]
    return name


def _human(stem: str) -> str:
    return re.sub(r"[_\-]+", " ", without_type_prefix(stem)).strip().capitalize() or stem


def _memgov_block(topic: Topic, reading: Reading) -> dict[str, str]:
    """The ``memgov:`` block of a memgov export: exact type, key and value."""
    block = topic.meta.get("memgov")
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        reading.warnings.append(
            f"{topic.rel}: 'memgov' in the front matter is not a mapping; ignored"
        )
        return {}
    out = {}
    for name in ("id", "type", "subject", "attribute", "condition", "value"):
        value = block.get(name)
        if value is None:
            continue
        if (
            not isinstance(value, str)
            or not value.strip()
            or (name == "type" and value not in TYPES[1:])
        ):
            reading.warnings.append(
                f"{topic.rel}: memgov.{name} {str(value)[:40]!r} is not valid; ignored"
            )
            continue
        out[name] = value.strip()
    return out


def _check_links(topic: Topic, names: set[str], reading: Reading) -> None:
    for number in range(topic.body_start, len(topic.lines)):
        for name in _LINK.findall(topic.lines[number]):
            key = name.strip().removesuffix(".md").casefold()
            if key not in names:
                reading.warnings.append(
                    f"{topic.rel}:{number + 1}: links to [[{name.strip()}]], which names no "
                    "memory file in this folder"
                )
