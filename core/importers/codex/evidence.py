"""Where a Codex memory's sources point: the rollout summaries its bullet cites.

For each cited task (or the group's only task), each of its rollout summaries
gives a source at the line that best matches the bullet (:func:`best_line`: a
quoted phrase, else the most shared words, else the summary's title line),
with the thread id, cwd and date from the summary's header, else MEMORY.md's
note, else ``raw_memories.md``. A missing summary falls back to its thread in
``raw_memories.md``, then to the bullet's own line (a warning each time).
:meth:`Evidence.report_unused` warns about threads and summaries no memory cites.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.domain.record import Source
from core.domain.words import counted
from core.importers.codex.files import MEMORY_FILE, RAW_FILE, ROLLOUT_DIR, CodexFolder

_QUOTE = re.compile(r"[\"“「『]([^\"”」』]{4,})[\"”」』]")
_ASCII_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]{2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_STOP = {"the", "and", "for", "with", "that", "this", "user", "task", "when", "from", "are"}


@dataclass(frozen=True)
class Cites:
    """What a bullet's citations lead to."""

    sources: tuple[Source, ...] = ()
    updated_at: str = ""  # the newest cited rollout's
    cwd: str | None = None


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


def source_at(task: str, path: Path, lines: list[str], line: int) -> Source:
    return Source(task=task, file=str(path), line=line, evidence=lines[line - 1].strip())


class Evidence:
    """The sources of one folder's memories; remembers which summaries were cited."""

    def __init__(self, files: CodexFolder) -> None:
        self.files = files
        self.cited: set[str] = set()  # rollout summary file names cited by MEMORY.md

    def meta(self, name: str, notes: Mapping[str, str]) -> dict[str, str]:
        """A rollout's thread_id, cwd, updated_at: its header, else MEMORY.md's note,
        else raw_memories.md."""
        rollout = self.files.rollouts.get(name)
        thread = self.files.threads.get(name)
        merged = dict(thread.meta) if thread else {}
        if thread:
            merged.setdefault("thread_id", thread.thread_id)
        merged.update({k: v for k, v in notes.items() if v})
        if rollout:
            merged.update({k: v for k, v in rollout.header.items() if v})
        return merged

    def cites(self, text: str, summaries: list[tuple[str, dict[str, str]]], origin: str) -> Cites:
        """Sources in the rollout summaries a bullet cites, and their cwd and date."""
        sources: dict[object, Source] = {}
        dates, cwds = [], []
        for path, notes in summaries:
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
        rollout = self.files.rollouts.get(name)
        if rollout is not None:
            line = best_line(rollout.lines, text, rollout.body_start, len(rollout.lines))
            line = line or _title_line(rollout.lines, rollout.body_start)
            return source_at(task, rollout.path, rollout.lines, line)
        thread = self.files.threads.get(name)
        if thread is not None:
            self.files.reading.warnings.append(
                f"{cite}, which is missing; the source points at its thread in {RAW_FILE}"
            )
            line = (
                best_line(self.files.raw_lines, text, thread.start, thread.end) or thread.start + 1
            )
            return source_at(task, self.files.folder / RAW_FILE, self.files.raw_lines, line)
        self.files.reading.warnings.append(
            f"{cite}, which is missing here and in {RAW_FILE}; the source points at the "
            "bullet itself"
        )
        return None

    def report_unused(self) -> None:
        pending = sorted(
            t.thread_id for name, t in self.files.threads.items() if name not in self.cited
        )
        if pending and (self.files.folder / MEMORY_FILE).is_file():
            self.files.reading.warnings.append(
                f"{RAW_FILE}: {counted(len(pending), 'thread')} not consolidated into "
                f"{MEMORY_FILE} yet "
                f"({', '.join(pending[:5])}{' ...' if len(pending) > 5 else ''}): not imported; "
                "import again after Codex consolidates them"
            )
        uncited = sorted(n for n in self.files.rollouts if n not in self.cited)
        if uncited:
            self.files.reading.warnings.append(
                f"{ROLLOUT_DIR}/: {counted(len(uncited), 'summary file')} cited by no memory "
                f"({', '.join(uncited[:5])}{' ...' if len(uncited) > 5 else ''}): they are "
                "evidence, not memory; nothing imported from them"
            )
