"""What a team clone knows about its own history, kept as local state (in ``.git``).

Two records, written by the sync (:mod:`core.team`) and read by ``doctor`` and the
desk's problems screen, which sit below it:

- ``untrusted.json``: the commits of the team's main branch that no listed
  maintainer signed, with who made them, why they failed and the files they
  changed, until a maintainer re-decides them;
- ``history-holds.json``: the erasures that arrived by sync: the files are gone
  from this clone, but its git history still holds their content.

Both are JSON lists of flat rows, read leniently: a row that is not what memgov
writes is skipped (local state is the user's own, but never trusted to be whole).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.store.fsutil import atomic_write_bytes

UNTRUSTED_FILE = "untrusted.json"
#: the blob id of the last config a verification trusted (core.team.signing)
TRUSTED_CONFIG = "trusted-config"
HISTORY_FILE = "history-holds.json"


def read_rows(state_dir: Path, name: str) -> list[dict[str, Any]]:
    try:
        raw = json.loads((state_dir / name).read_bytes())
    except (OSError, ValueError):
        return []
    return [row for row in raw if isinstance(row, dict)] if isinstance(raw, list) else []


def write_rows(state_dir: Path, name: str, rows: list[dict[str, Any]]) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(state_dir / name, (json.dumps(rows, indent=1) + "\n").encode())


def untrusted_rows(state_dir: Path) -> list[dict[str, Any]]:
    return [
        row
        for row in read_rows(state_dir, UNTRUSTED_FILE)
        if isinstance(row.get("commit"), str) and isinstance(row.get("why"), str)
    ]


def history_rows(state_dir: Path) -> list[dict[str, Any]]:
    return [
        row
        for row in read_rows(state_dir, HISTORY_FILE)
        if isinstance(row.get("erased"), list) and all(isinstance(e, str) for e in row["erased"])
    ]


def trusted_config_blob(state_dir: Path) -> str | None:
    try:
        text = (state_dir / TRUSTED_CONFIG).read_text().strip()
    except OSError:
        return None
    return text if len(text) == 40 and all(c in "0123456789abcdef" for c in text) else None


def trust_config_blob(state_dir: Path, blob: str) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(state_dir / TRUSTED_CONFIG, (blob + "\n").encode())
