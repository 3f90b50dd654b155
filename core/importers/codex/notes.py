"""The user's own files in a Codex memories folder: their notes as entries, the rest named.

Codex writes ``memory_summary.md``, ``MEMORY.md``, ``raw_memories.md`` and
``rollout_summaries/`` (:mod:`core.importers.codex.reader`). Users keep their own
files beside them: notes (the self-improvement convention's ``PROFILE.md``,
``ACTIVE.md``, ``LEARNINGS.md``, ``ERRORS.md``, ``FEATURE_REQUESTS.md``, or any
other ``*.md``), prompts for the agent (``README.md``, ``AGENTS_SNIPPET.md``,
``NIGHTLY_REVIEW_PROMPT.md``), ``skills/``, and ``extensions/ad_hoc/``: notes
the user asked Codex to remember, which Codex consolidates as authoritative.
:class:`UserFiles` makes entries of the notes and a skipped item, with its
reason, of everything else; nothing goes unsaid.

=========================  ==========  ===============  =================  ===  ===  ====
file (unit)                type        subject          attribute          s1   s2   conf
=========================  ==========  ===============  =================  ===  ===  ====
PROFILE.md (bullet)        pref. [1]   ``user:<o>``     profile.<h>.*      0.8  0.8  0.7
ACTIVE.md (bullet)         semantic    ``project:<p>``  active.<h>.*       0.8  0.9  0.7
LEARNINGS.md (``##``)      reflection  ``user:<o>``     learning.<id>      0.7  0.8  0.6
ERRORS.md (``##``)         reflection  ``user:<o>``     error.<id>         0.7  0.8  0.6
FEATURE_REQUESTS.md (##)   semantic    ``project:<p>``  feature_request.*  0.7  0.8  0.6
other ``*.md`` (either)    semantic    ``project:<p>``  <file>.<h>.*       0.7  0.8  0.7
ad-hoc notes (bullet)      pref. [1]   [2]              note.<h>.*         0.9  0.9  0.9
=========================  ==========  ===============  =================  ===  ===  ====

[1] a preference when the heading or the text states a wish ("prefers", "always",
"never", 偏好, 希望, 不要... as for Claude Code's user files), else semantic.
[2] ``user:<o>`` for a wish or a note about the user ("The user ...", "I ...",
"My ...", 用户..., 我...), else ``project:<p>``: a fact about the work.
``<o>``: the owner; ad-hoc notes: ``extensions/ad_hoc/**/*.md`` but memgov's own
(first line :data:`MEMGOV_NOTE`), which are skipped.

- The unit: in PROFILE.md, ACTIVE.md, ad-hoc notes and other notes each bullet
  (with its indented lines, e.g. ACTIVE.md's ``Source:``) or prose paragraph is
  one entry; in LEARNINGS.md, ERRORS.md and FEATURE_REQUESTS.md (logs of entries,
  ``## [LRN-20260504-001] name`` with ``**Logged**:`` and ``### Summary``...)
  each ``##`` section is one, its body the content. Another file is read the
  second way when one of its ``##`` sections has ``###`` subsections or
  ``**Field**:`` lines. A bullet that is only a date (``## Last Updated`` /
  ``- 2026-05-02``) is the file's date, not a memory; a fenced code block in a
  bulleted file is named in a warning, not imported.
- ``<h>``: the bullet's ``##`` (or deeper) heading as a slug; ``*``: the text as
  a slug (:func:`~core.importers.text.slug`, cut with a hash), so only identical
  statements share a key, in one folder or across folders. ``<id>``: the
  section's heading (``lrn_20260504_001_recurring_collection...``) when it carries
  an ``[ID]``: the user's own key, so an edited section meets its old version;
  else the heading and body together.
- ``<p>``: the mapping file's ``project``, else ``codex`` (these files are the
  user's global Codex memory, not one repository's).
- Order: a section's ``**Logged**:`` date, else the date its heading starts with.
- Each source points at the entry's own line (a section's heading line):
  ``Source(task="codex:<file>", file=<absolute path>, line=N)``.
- Ad-hoc notes are the user's explicit word: higher gate inputs and a note saying
  so. ``extensions/ad_hoc/instructions.md`` is the extension's instructions to
  Codex, not a note: skipped with that reason.

Skipped, each with its reason: the prompt files (instructions for the agent,
not memories; also ``AGENTS.md`` and any ``*PROMPT*.md`` / ``*SNIPPET*.md``),
each file under ``skills/`` (a skill is instructions, not memory; the first
:data:`MAX_LISTED` one by one, then a count), other extensions and other
folders (one item each), files that are not Markdown. A file is read with
:func:`~core.importers.folders.read_lines` (binary, over 1 MiB: skipped with
why). Nothing here runs code or follows a symbolic link: a link, to a file or a
folder, inside the folder or out of it, is a skipped item, and so is what is
no regular file (a pipe, a device); folders are walked without following links.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.importers.codex.evidence import source_at
from core.importers.codex.files import CODEX_FILES, Block, blocks, headings
from core.importers.entries import Entry, GateDefaults, Reading
from core.importers.folders import FolderError, read_lines
from core.importers.mapping import MAPPING_FILE
from core.importers.text import WISH, short, slug

SKILLS_DIR = "skills"
EXTENSIONS_DIR = "extensions"
AD_HOC_DIR = f"{EXTENSIONS_DIR}/ad_hoc"
AD_HOC_INSTRUCTIONS = f"{AD_HOC_DIR}/instructions.md"
PROMPT_FILES = frozenset(
    name.casefold()
    for name in ("README.md", "AGENTS.md", "AGENTS_SNIPPET.md", "NIGHTLY_REVIEW_PROMPT.md")
)
MAX_LISTED = 200  # the files of one skipped folder named one by one; the rest counted

LINK = "a symbolic link: not followed (it may point outside the folder); copy the file in"
NOT_REGULAR = "not a regular file (a pipe, a device?); not read"
UNREADABLE = "a folder that cannot be read; check its permissions"
PROMPT = (
    "instructions for the agent (a prompt or a README), not a memory; not imported: "
    "remember what holds in it with 'memgov remember'"
)
SKILL = (
    "a skill: instructions for the agent, not a memory; not imported (Codex loads "
    "skills from skills/ itself)"
)
INSTRUCTIONS = (
    "the ad-hoc extension's instructions to Codex (how to consolidate the notes), "
    "not a note; not imported"
)
AD_HOC_NOTE = (
    "an ad-hoc note (extensions/ad_hoc/): the user's own explicit edit, which Codex "
    "treats as authoritative; imported with confidence 0.9"
)
#: the first line of a note memgov writes for Codex (core.importers.codex.sync)
MEMGOV_NOTE = "<!-- memgov: a note memgov wrote for Codex's consolidation; not a memory -->"
OWN_NOTE = (
    "memgov's own note to Codex (what a person decided in memgov: an erased memory "
    "to keep out), not a memory; not imported"
)
#: a note about the user rather than the work: "The user ...", "I am ...", "My ...",
#: 用户..., 我... (a wish is the user's too); any other fact is the project's
_ABOUT_USER = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:the\s+user\b|user\b|users?'s?\b|i\b|i'm\b|i\s+am\b|my\b"
    r"|me\b|用户|我|사용자|저는|제가)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class NoteKind:
    """What one kind of the user's file becomes."""

    kind: str
    type: str | None  # None: a preference when it states a wish, else semantic
    about: str  # "user" or "project": which subject
    sections: bool | None  # each ## section is one entry; None: decided by the file
    gate: GateDefaults
    prefix: str  # of the attribute
    note: str | None = None


NOTE_FILES = {
    name.casefold(): kind
    for name, kind in (
        (
            "PROFILE.md",
            NoteKind("profile", None, "user", False, GateDefaults(0.8, 0.8, 0.7), "profile."),
        ),
        (
            "ACTIVE.md",
            NoteKind(
                "active", "semantic", "project", False, GateDefaults(0.8, 0.9, 0.7), "active."
            ),
        ),
        (
            "LEARNINGS.md",
            NoteKind(
                "learning", "reflection", "user", True, GateDefaults(0.7, 0.8, 0.6), "learning."
            ),
        ),
        (
            "ERRORS.md",
            NoteKind("error", "reflection", "user", True, GateDefaults(0.7, 0.8, 0.6), "error."),
        ),
        (
            "FEATURE_REQUESTS.md",
            NoteKind(
                "feature_request",
                "semantic",
                "project",
                True,
                GateDefaults(0.7, 0.8, 0.6),
                "feature_request.",
            ),
        ),
    )
}
AD_HOC = NoteKind("ad_hoc", None, "user", False, GateDefaults(0.9, 0.9, 0.9), "note.", AD_HOC_NOTE)

_ID = re.compile(r"^\[(?P<id>[^\]\s]+)\]\s*(?P<rest>.*)$")
_DATE = r"\d{4}-\d{2}-\d{2}(?:[T ][\d:.+-]*(?:Z)?)?"
_DATE_ONLY = re.compile(rf"^{_DATE}$")
_LEADING_DATE = re.compile(rf"^(?P<date>{_DATE})\s*(?:[·:：|/—–-]+\s*)?(?P<rest>.*)$")
_FIELD = re.compile(r"^\*\*(?P<key>[\w ]+)\*\*\s*[:：]\s*(?P<value>.*?)\s*$")


def note_kind(name: str) -> NoteKind:
    """The kind of a top-level Markdown file the user keeps."""
    known = NOTE_FILES.get(name.casefold())
    if known is not None:
        return known
    stem = slug(Path(name).stem, limit=24)
    return NoteKind("note", "semantic", "project", None, GateDefaults(0.7, 0.8, 0.7), f"{stem}.")


def is_prompt(name: str) -> bool:
    stem = Path(name).stem.casefold()
    return name.casefold() in PROMPT_FILES or "prompt" in stem or "snippet" in stem


def walk(path: Path, rel: str) -> Iterator[tuple[str, Path, str]]:
    """(relative path, path, "file" | "link" | "other" | "unreadable") of everything
    under ``path``, sorted, depth first; a link is never followed, hidden names are
    passed over."""
    try:
        found = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        yield rel + "/", path, "unreadable"
        return
    for item in found:
        if item.name.startswith("."):
            continue
        child = f"{rel}/{item.name}"
        if item.is_symlink():
            yield child, Path(item.path), "link"
        elif item.is_dir(follow_symlinks=False):
            yield from walk(Path(item.path), child)
        elif item.is_file(follow_symlinks=False):
            yield child, Path(item.path), "file"
        else:
            yield child, Path(item.path), "other"


class UserFiles:
    """The user's own files of one Codex folder: entries, and skipped items in ``reading``."""

    def __init__(self, folder: Path, reading: Reading, owner: str, project: str | None) -> None:
        self.folder = folder
        self.reading = reading
        self.owner = owner
        self.project = project or "codex"

    def skip(self, rel: str, reason: str) -> None:
        self.reading.skip_file(rel, "private", reason)

    def entries(self) -> list[Entry]:
        found: list[Entry] = []
        for path in sorted(self.folder.iterdir()):
            name = path.name
            if name.startswith(".") or name in CODEX_FILES or name == MAPPING_FILE:
                continue
            if path.is_symlink():
                self.skip(name, LINK)
            elif path.is_dir():
                if name == SKILLS_DIR:
                    self.skip_tree(path, name, SKILL)
                elif name == EXTENSIONS_DIR:
                    found += self.extensions(path)
                else:
                    self.skip(
                        f"{name}/",
                        "a folder Codex does not write (only skills/ and extensions/ are "
                        "known); not read: move what holds into a Markdown note",
                    )
            elif not path.is_file():
                self.skip(name, NOT_REGULAR)
            elif path.suffix.casefold() != ".md":
                self.skip(name, "not Markdown; not read: only the folder's *.md notes are")
            elif is_prompt(name):
                self.skip(name, PROMPT)
            else:
                found += self.note(name, note_kind(name))
        return found

    def skip_tree(self, path: Path, rel: str, reason: str) -> None:
        listed = 0
        more = 0
        for child, _path, what in walk(path, rel):
            if listed >= MAX_LISTED:
                more += 1
                continue
            listed += 1
            self.skip(child, {"link": LINK, "unreadable": UNREADABLE}.get(what, reason))
        if more:
            self.skip(f"{rel}/", f"and {more:,} more files there, not listed one by one: {reason}")

    def extensions(self, path: Path) -> list[Entry]:
        found: list[Entry] = []
        for child in sorted(path.iterdir()):
            rel = f"{EXTENSIONS_DIR}/{child.name}"
            if child.name.startswith("."):
                continue
            if child.is_symlink():
                self.skip(rel, LINK)
            elif child.is_dir() and rel == AD_HOC_DIR:
                found += self.ad_hoc(child)
            elif child.is_dir():
                self.skip(
                    f"{rel}/",
                    "a Codex extension this importer does not read (only extensions/ad_hoc/ "
                    "holds the user's notes); not read",
                )
            else:
                self.skip(rel, "not part of a Codex extension; not read")
        return found

    def ad_hoc(self, path: Path) -> list[Entry]:
        found: list[Entry] = []
        for rel, _path, what in walk(path, AD_HOC_DIR):
            if what == "link":
                self.skip(rel, LINK)
            elif what == "unreadable":
                self.skip(rel, UNREADABLE)
            elif what != "file":
                self.skip(rel, NOT_REGULAR)
            elif rel == AD_HOC_INSTRUCTIONS:
                self.skip(rel, INSTRUCTIONS)
            elif _memgov_note(_path):
                self.skip(rel, OWN_NOTE)
            elif not rel.casefold().endswith(".md"):
                self.skip(rel, "not Markdown; not read: an ad-hoc note is a *.md file")
            else:
                found += self.note(rel, AD_HOC)
        return found

    # ------------------------------------------------------------------ one note file
    def note(self, rel: str, kind: NoteKind) -> list[Entry]:
        path = self.folder / rel
        try:
            lines = read_lines(path, rel, self.reading.warnings)
        except FolderError as exc:
            self.skip(rel, str(exc))
            return []
        by_section = kind.sections if kind.sections is not None else structured(lines)
        if by_section:
            return self.section_entries(rel, lines, kind)
        return self.block_entries(rel, lines, kind, 0, len(lines))

    def block_entries(
        self, rel: str, lines: list[str], kind: NoteKind, start: int, end: int
    ) -> list[Entry]:
        """Each bullet or paragraph of lines[start:end], with its nearest ## (or deeper)
        heading; fenced code is named in a warning instead."""
        plain = self.unfenced(rel, lines, start, end)
        marks = [(i, level, text) for i, level, text in headings(lines) if start <= i < end]
        segments = [(start, marks[0][0] if marks else end, "")]
        for number, (index, level, text) in enumerate(marks):
            last = marks[number + 1][0] if number + 1 < len(marks) else end
            segments.append((index + 1, last, text if level >= 2 else ""))
        found = []
        for first, last, heading in segments:
            for block in blocks(plain, first, last):
                if not _DATE_ONLY.match(block.text.strip("*_ ")):
                    found.append(self.block_entry(rel, lines, kind, heading, block))
        return found

    def unfenced(self, rel: str, lines: list[str], start: int, end: int) -> list[str]:
        """The lines with fenced code blanked (a warning names each block)."""
        plain = list(lines)
        opened: int | None = None
        for index in range(start, end):
            if lines[index].lstrip().startswith(("```", "~~~")):
                if opened is None:
                    opened = index
                else:
                    self.reading.warnings.append(
                        f"{rel}:{opened + 1}-{index + 1}: a code block, not a memory by "
                        "itself; not imported (write what it shows as a bullet)"
                    )
                    opened = None
                plain[index] = ""
            elif opened is not None:
                plain[index] = ""
        if opened is not None:
            self.reading.warnings.append(
                f"{rel}:{opened + 1}: a code block that is never closed; the rest of the "
                "file is not read: close it with ```"
            )
        return plain

    def block_entry(
        self, rel: str, lines: list[str], kind: NoteKind, heading: str, block: Block
    ) -> Entry:
        text = block.text
        attribute = kind.prefix + (f"{slug(heading, limit=32)}." if heading else "") + slug(text)
        return self.entry(
            rel, lines, kind, block.line, text, attribute, short(text), heading, last=block.last
        )

    def section_entries(self, rel: str, lines: list[str], kind: NoteKind) -> list[Entry]:
        """Each ## section as one entry; what is under the file's # title, bullets."""
        tops = [(i, level, text) for i, level, text in headings(lines) if level <= 2]
        bounds = [i for i, _, _ in tops] + [len(lines)]
        if not tops:
            return self.block_entries(rel, lines, kind, 0, len(lines))
        found = self.block_entries(rel, lines, kind, 0, bounds[0])
        for (index, level, heading), end in zip(tops, bounds[1:], strict=True):
            if level == 1:
                found += self.block_entries(rel, lines, kind, index, end)
                continue
            body = "\n".join(lines[index + 1 : end]).strip()
            if not re.search(r"\w", body):
                continue
            last = end
            while last > index + 1 and not lines[last - 1].strip():
                last -= 1
            found.append(self.section_entry(rel, lines, kind, index, heading, body, last))
        return found

    def section_entry(
        self,
        rel: str,
        lines: list[str],
        kind: NoteKind,
        index: int,
        heading: str,
        body: str,
        last: int = 0,
    ) -> Entry:
        tag = _ID.match(heading)
        name = tag["rest"] if tag and tag["rest"] else heading
        dated = _LEADING_DATE.match(name)
        order = dated["date"] if dated else ""
        name = dated["rest"] if dated else name
        for line in body.splitlines():
            field = _FIELD.match(line.strip())
            if field and field["key"].strip().casefold() in ("logged", "date", "updated"):
                order = field["value"]
                break
        title = short(name) if re.search(r"\w", name) else short(_first_statement(body))
        attribute = kind.prefix + slug(heading if tag else f"{heading} {body}")
        return self.entry(
            rel, lines, kind, index + 1, body, attribute, title, heading, order, last=last
        )

    def entry(
        self,
        rel: str,
        lines: list[str],
        kind: NoteKind,
        line: int,
        content: str,
        attribute: str,
        title: str,
        heading: str,
        order: str = "",
        *,
        last: int = 0,
    ) -> Entry:
        wish = WISH.search(f"{heading} {content}")
        about = kind.about
        if kind.kind == AD_HOC.kind and not wish and not _ABOUT_USER.match(content):
            about = "project"  # a fact about the work, not the user
        return Entry(
            origin=f"{rel}:{line}",
            kind=kind.kind,
            scope="private",
            type=kind.type or ("preference" if wish else "semantic"),
            subject=f"user:{self.owner}" if about == "user" else f"project:{self.project}",
            attribute=attribute,
            content=content,
            sources=(source_at(f"codex:{rel}", self.folder / rel, lines, line),),
            gate=kind.gate,
            title=title or None,
            order=order,
            notes=(kind.note,) if kind.note else (),
            last_line=last,
        )


def _memgov_note(path: Path) -> bool:
    """Whether the file is a note memgov wrote (its first line is the mark)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(len(MEMGOV_NOTE) + 8)
    except OSError:
        return False
    return first.decode("utf-8", "replace").strip() == MEMGOV_NOTE


def structured(lines: list[str]) -> bool:
    """Whether a file is a log of ## entries: a ## section with ### subsections or
    ``**Field**:`` lines."""
    marks = headings(lines)
    if any(level == 3 for _, level, _ in marks) and any(level == 2 for _, level, _ in marks):
        return True
    return any(level == 2 for _, level, _ in marks) and any(
        _FIELD.match(line.strip()) for line in lines
    )


def _first_statement(body: str) -> str:
    for line in body.splitlines():
        text = line.strip().lstrip("-*+ ").strip()
        if re.search(r"\w", text) and not text.startswith("#"):
            return text
    return body
