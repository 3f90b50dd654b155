"""Steps 1, 2 and 4 of consolidation: orient, gather, prune (seed 6.4).

Orient lists the store and reads the index and every record. Gather picks the
input (active records used within ``unused_days``: the others are excluded,
never deleted for it) and the new signal: daily-log messages added since the
last baseline, read from git (lines in the logs at HEAD that were not there at
the baseline). Prune works on the index: pointers to records that are not
active go, lines over ~200 characters go back into their files, and the caps
are measured before and after the batch.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from core.consolidation.engine import record_summary
from core.consolidation.model import Edit, Gathered, Proposal, Signal
from core.domain.record import Memory
from core.domain.values import normalise
from core.store import gitstore, logs
from core.store.fsutil import HostileEntry, read_entry
from core.store.index import INDEX_FILE, check_index, parse_index
from core.store.store import Store
from core.writing.decay import unused

LONG_INDEX_LINE = 200  # seed 6.4: "超过约 200 字的索引行"
MESSAGE_RE = re.compile(
    r"^\s*-\s+\[(?P<index>\d+)\]\s+(?:(?P<time>\d{1,2}:\d{2})\s+)?"
    r"(?:(?P<role>[\w.@:-]{1,40}?):\s)?(?P<text>.*)$"
)
DAY_RE = re.compile(r"(\d{4}-\d{2}-\d{2})")


#: the most of one log or index file a gather reads
MAX_LOG_READ = 64 * 1024 * 1024


def _messages(rel: str, text: str, existed: Counter[str] | None) -> list[Signal]:
    """The messages of one daily log, except lines it already had at the baseline
    (``existed`` counts them; None: all lines are new)."""
    found = DAY_RE.search(rel.rsplit("/", 1)[-1]) or DAY_RE.search(text[:40])
    try:
        day = date.fromisoformat(found[1]) if found else None
    except ValueError:
        day = None
    if day is None:  # a log that does not say its day cannot date its messages
        return []
    task = ""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        header = logs.TASK_RE.match(line)
        if header:
            task = header["task"]
            continue
        if existed is not None and existed[line] > 0:
            existed[line] -= 1
            continue
        m = MESSAGE_RE.match(line)
        if m and task:
            out.append(
                Signal(
                    log=rel,
                    line=number,
                    day=day,
                    time=m["time"] or "",
                    task=task,
                    message_index=int(m["index"]),
                    role=m["role"] or "",
                    text=m["text"].strip(),
                )
            )
    return out


def signals_since(root: Path, since: str | None) -> list[Signal]:
    """Messages added to the daily logs since commit ``since`` (all of them if None)."""
    base = root / logs.LOG_DIR
    if not base.is_dir():
        return []
    if since is None:
        paths = sorted(p.relative_to(root).as_posix() for p in base.rglob("*.md"))
        was: dict[str, str] = {}
    else:
        changed = [
            (path, sha)
            for path, sha, _now in gitstore.changed_blobs(root, since, "HEAD", logs.LOG_DIR)
            if path.endswith(".md") and (root / path).is_file()
        ]
        paths = [path for path, _sha in changed]
        was = {path: sha for path, sha in changed if sha}
    old = gitstore.read_blobs(root, was.values())
    out = []
    for rel in paths:
        try:  # the one reader: a log turned into a pipe is never opened
            raw = read_entry(root / rel, limit=MAX_LOG_READ, shown=rel)
        except HostileEntry:
            continue  # doctor names it
        text = (raw or b"").decode("utf-8", "replace")
        before = old.get(was[rel]) if rel in was else None
        existed = (
            Counter(before.decode("utf-8", "replace").splitlines()) if before is not None else None
        )
        out += _messages(rel, text, existed)
    return out


def gather(store: Store, *, since: str | None, since_name: str | None) -> Gathered:
    """Orient (list, read index and records) and gather (input, signals)."""
    now = store.now()
    records = dict(store.load().memories)
    index_path = store.root / INDEX_FILE
    try:
        index_raw = read_entry(index_path, limit=MAX_LOG_READ, shown=INDEX_FILE)
    except HostileEntry:
        index_raw = None  # doctor names it; the batch is planned from the records
    index_text = (index_raw or b"").decode("utf-8", "replace")
    active = sorted(m.id for m in records.values() if m.status == "active")
    idle = tuple(i for i in active if unused(records[i], now, store.config))
    idle_set = set(idle)
    return Gathered(
        now=now,
        config=store.config,
        records=records,
        inputs=tuple(i for i in active if i not in idle_set),
        unused=idle,
        signals=tuple(signals_since(store.root, since)),
        task_logs=logs.task_index(store.root),
        index_text=index_text,
        since=since_name,
    )


# ---------------------------------------------------------------------- prune
def prune(g: Gathered, proposed: Mapping[str, Memory]) -> list[Proposal]:
    """Index pointers to records no longer active, and lines too long to be pointers.

    Pointers to records this batch retires are not listed: they go with the
    record's own change. Every index change takes effect when the index is
    regenerated from the approved records.
    """
    limit = int(g.config.extra.get("consolidation_index_line_max", LONG_INDEX_LINE))
    raw_lines = g.index_text.splitlines()
    by_path = {m.path: m for m in g.records.values()}
    out = []
    for line in parse_index(g.index_text):
        text = raw_lines[line.number - 1]
        where = {"kind": "index-line", "line": line.number, "text": text, "chars": len(text)}
        name = line.target.rsplit("/", 1)[-1].removesuffix(".md")
        memory = by_path.get(line.target) or g.records.get(name)
        if memory is None or memory.status != "active":
            status = memory.status if memory else "missing"
            out.append(
                Proposal(
                    action="index-pointer",
                    automatic=True,
                    reason=f"{INDEX_FILE} line {line.number} points at {line.target}, which is "
                    f"{status}: the pointer goes (the model would read a record that no "
                    f"longer holds)",
                    evidence=(where, *((record_summary(memory),) if memory else ())),
                )
            )
            continue
        if len(text) <= limit or proposed.get(memory.id, memory).status != "active":
            continue
        hook = line.hook.rstrip("…").strip()
        if normalise(hook) in normalise(memory.content):
            out.append(
                Proposal(
                    action="index-line",
                    automatic=True,
                    reason=f"{INDEX_FILE} line {line.number} is {len(text)} characters, over "
                    f"~{limit}: an index line is a pointer; its text is already in "
                    f"{memory.path}, so the line is shortened",
                    evidence=(where, record_summary(memory)),
                )
            )
        else:
            out.append(
                Proposal(
                    action="index-move",
                    automatic=False,
                    reason=f"{INDEX_FILE} line {line.number} is {len(text)} characters and "
                    f"carries text that is not in {memory.path}: the text moves into the "
                    f"file, the line becomes a pointer",
                    edits=(
                        Edit(
                            memory.id, "move-index-text", transform="append", params={"text": hook}
                        ),
                    ),
                    evidence=(where, record_summary(memory)),
                )
            )
    return out


def index_stats(g: Gathered, after: str) -> dict[str, Any]:
    """The index before and ``after`` the batch, against its caps (seed 5.1)."""
    before_bytes = len(g.index_text.encode("utf-8"))
    after_bytes = len(after.encode("utf-8"))
    warnings = check_index(after, g.config)
    return {
        "before": {"lines": len(g.index_text.splitlines()), "bytes": before_bytes},
        "after": {"lines": len(after.splitlines()), "bytes": after_bytes},
        "caps": {
            "lines": g.config.index_max_lines,
            "bytes": g.config.index_max_bytes,
            "line_chars": g.config.index_line_chars,
        },
        "over_caps_after": bool(warnings),
        "warnings": warnings,
        "unused_with_lines": len(g.unused),
    }
