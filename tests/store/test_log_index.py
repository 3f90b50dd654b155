"""The daily-log index a source resolves through (``core.store.logs._parse``): where
each task's header and messages are, equal to a plain scan of the lines for every
task and index, on random logs; and a log changed on disk is parsed again."""

from __future__ import annotations

import random
from pathlib import Path

from core.domain.record import Source
from core.store import logs


def _scan(lines: list[str], task: str, index: int | None) -> int | None:
    """The reference: the first section of ``task``, its first message ``index``."""
    in_task = False
    for number, line in enumerate(lines, start=1):
        header = logs.TASK_RE.match(line)
        if header:
            if in_task:
                return None
            in_task = header["task"] == task
            if in_task and index is None:
                return number
            continue
        if in_task and (m := logs.MESSAGE_RE.match(line)) and int(m["index"]) == index:
            return number
    return None


def test_the_index_equals_a_scan_of_the_lines() -> None:
    rng = random.Random(1)
    for _ in range(2000):
        lines = []
        for _ in range(rng.randint(0, 30)):
            roll = rng.random()
            if roll < 0.2:
                lines.append(f"## task t{rng.randint(0, 3)}")
            elif roll < 0.8:
                lines.append(f"- [{rng.randint(0, 5)}] 09:30 user: x")
            else:
                lines.append(
                    rng.choice(["", "text", "  - [2] indented", "##task t1", "## task  t2  "])
                )
        parsed = logs._parse(lines)
        for task in ("t0", "t1", "t2", "t3", "t9"):
            for index in (None, 0, 1, 2, 3, 4, 5):
                assert parsed.at.get((task, index)) == _scan(lines, task, index), (lines, task)


def test_a_log_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "2026" / "11" / "2026-11-14.md"
    path.parent.mkdir(parents=True)
    path.write_text("# 2026-11-14\n\n## task tr_1\n\n- [1] 09:30 user: use pnpm\n")
    source = Source(
        task="tr_1", message_index=1, evidence="pnpm", log=str(path.relative_to(tmp_path))
    )
    first = logs.resolve(tmp_path, source)
    assert first is not None and first.line == 5
    # the message moves down a line (a rename, as every writer does): found where it is now
    replaced = path.with_suffix(".tmp")
    replaced.write_text(
        "# 2026-11-14\n\n## task tr_1\n\n- [0] 09:29 user: hi\n- [1] 09:30 user: use pnpm\n"
    )
    replaced.replace(path)
    again = logs.resolve(tmp_path, source)
    assert again is not None and again.line == 6
    assert (
        logs.resolve(tmp_path, Source(task="tr_1", message_index=7, evidence="x", log=source.log))
        is None
    )


def test_many_sources_resolve_as_each_alone(tmp_path: Path) -> None:
    """``resolving`` (health's source completeness, one check of each log) says for
    every source what ``resolve`` says of it alone: a named log, a task looked up, a
    message that is not there, a ``..`` path, a log behind a link, a file."""
    root = tmp_path / "store"
    (root / "logs" / "2026" / "11").mkdir(parents=True)
    day = root / "logs" / "2026" / "11" / "2026-11-14.md"
    day.write_text("# 2026-11-14\n\n## task t1\n- [1] 09:30 user: use pnpm\n", "utf-8")
    (root / "logs" / "2026" / "12").symlink_to(root / "logs" / "2026" / "11")
    (root / "notes.md").write_text("a note\n", "utf-8")
    rel = "logs/2026/11/2026-11-14.md"
    linked = "logs/2026/12/2026-11-14.md"
    sources = [
        Source(task="t1", message_index=1, log=rel),
        Source(task="t1", message_index=2, log=rel),
        Source(task="t1", message_index=1),
        Source(task="t1"),
        Source(task="t9", message_index=1),
        Source(task="t1", message_index=1, log="logs/../logs/2026/11/2026-11-14.md"),
        Source(task="t1", message_index=1, log=linked),
        Source(task="t1", message_index=1, log="logs/2026/11/missing.md"),
        Source(task="t1", file="notes.md", line=1),
        Source(task="t1", file="notes.md", line=5),
    ]
    tasks = logs.task_index(root)
    alone = [logs.resolve(root, s, context=0, task_logs=tasks) is not None for s in sources]
    assert list(logs.resolving(root, ([s] for s in sources), task_logs=tasks)) == alone
    assert alone == [True, False, True, True, False, False, False, False, True, False]
