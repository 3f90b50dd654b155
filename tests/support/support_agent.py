"""A small Claude Code memory folder shared by the held tests: a team note naming an
internal address (held: the team store would take it off the machine), a private note
naming one (written: a private store never leaves the machine) and one that names none
(written)."""

from __future__ import annotations

from pathlib import Path

from core.store.store import Store

ACTOR = "alice@example.com"
ADDRESS = "10.20.30.40"
#: the private note's internal host: imported as it is
HOST = "grafana.ops.internal"
#: the held note, relative to the folder
HELD_FILE = "team/project_redis.md"


def init_stores(root: Path) -> Path:
    """``root``/private and ``root``/team, :data:`ACTOR` owning one and maintaining the
    other (a team note is imported only for a maintainer)."""
    Store.init(root / "private", scope="private", owner=ACTOR, actor=ACTOR)
    Store.init(root / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    return root


def write_ops_folder(memory: Path) -> Path:
    """``memory``: MEMORY.md, feedback_style.md, project_grafana.md (names :data:`HOST`)
    and team/MEMORY.md, team/project_redis.md (line 7 names :data:`ADDRESS`)."""
    (memory / "team").mkdir(parents=True)
    (memory / "MEMORY.md").write_text(
        "- [Style](feedback_style.md) — terse\n- [Grafana](project_grafana.md) — dashboards\n"
    )
    (memory / "feedback_style.md").write_text(
        "---\nname: Style\ndescription: terse\ntype: feedback\n---\n\nAnswer tersely.\n"
    )
    (memory / "project_grafana.md").write_text(
        "---\nname: Grafana\ndescription: dashboards\ntype: project\n---\n\n"
        f"The dashboards are on {HOST}; the on-call board is the first one.\n"
    )
    (memory / "team" / "MEMORY.md").write_text("- [Redis](project_redis.md) — the cache host\n")
    (memory / HELD_FILE).write_text(
        "---\nname: Redis\ndescription: the cache host\ntype: project\n---\n\n"
        f"The cache runs on {ADDRESS}, port 6379; restart it with systemctl.\n"
    )
    return memory
