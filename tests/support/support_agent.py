"""A small Claude Code memory folder shared by the held tests: a note naming an
internal address (held) and one that is not (written)."""

from __future__ import annotations

from pathlib import Path

ACTOR = "alice@example.com"
ADDRESS = "10.20.30.40"


def write_ops_folder(memory: Path) -> Path:
    """``memory``: MEMORY.md, project_redis.md (line 7 names :data:`ADDRESS`) and
    feedback_style.md."""
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(
        "- [Redis](project_redis.md) — the cache host\n- [Style](feedback_style.md) — terse\n"
    )
    (memory / "project_redis.md").write_text(
        "---\nname: Redis\ndescription: the cache host\ntype: project\n---\n\n"
        f"The cache runs on {ADDRESS}, port 6379; restart it with systemctl.\n"
    )
    (memory / "feedback_style.md").write_text(
        "---\nname: Style\ndescription: terse\ntype: feedback\n---\n\nAnswer tersely.\n"
    )
    return memory
