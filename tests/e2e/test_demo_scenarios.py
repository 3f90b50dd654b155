"""The demo is built from its scenario files the same, byte for byte, as it was built
when it was one Python function: ``tests/fixtures/demo/{zh,en}.json`` pin every file of
both stores (its hash), each commit, every record's id, status and title, the queue's
items and the events per action, recorded from that function.

Only what depends on where the demo is built is taken out: the target's path and the
ids made from it (the imported memory folder's ``memory-XXXXXXXX`` and its held note's
``held-YYYYMMDD-XXXXXXXX``). To record again after a change that means to alter the
demo: ``PYTHONPATH=.:tests/support .venv/bin/python tests/e2e/test_demo_scenarios.py``.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.demo import LANGS, build_demo
from core.demo.scenario import SCENARIOS, Scenario, read_scenarios
from core.demo.steps import STEPS
from core.domain.errors import StoreError
from core.store.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "demo"
#: ids made from the demo's path (the memory folder's, its held note's)
PATH_IDS = (
    (re.compile(r"memory-[0-9a-f]{8}"), "memory-<folder>"),
    (re.compile(r"held-\d{8}-[0-9a-f]{8}"), "held-<id>"),
)


def normal(text: str, target: Path) -> str:
    text = text.replace(str(target), "<demo>")
    for pattern, shown in PATH_IDS:
        text = pattern.sub(shown, text)
    return text


def commits(store: Path, target: Path) -> list[str]:
    log = subprocess.run(
        ["git", "log", "--reverse", "--format=%an <%ae> %aI %cI %s"],
        cwd=store,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [normal(line, target) for line in log.splitlines()]


def fingerprint(target: Path) -> dict[str, Any]:
    """What the demo in ``target`` is, with its path taken out."""
    files = {
        normal(path.relative_to(target).as_posix(), target): hashlib.sha256(
            normal(path.read_text("utf-8"), target).encode()
        ).hexdigest()
        for path in sorted(target.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(target).parts
    }
    stores: dict[str, Any] = {}
    for name in ("private", "team"):
        root = target / name
        events = [
            json.loads(line)
            for log in sorted((root / "events").glob("*.jsonl"))
            for line in log.read_text("utf-8").splitlines()
            if line.strip()
        ]
        stores[name] = {
            "records": sorted(
                [m.id, m.status, m.type, m.title] for m in Store(root).memories.values()
            ),
            "events": dict(sorted(Counter(e["action"] for e in events).items())),
            "commits": commits(root, target),
        }
    return {"files": dict(sorted(files.items())), "stores": stores, "queue": queue(target)}


def queue(target: Path) -> list[list[str]]:
    from support_desk import workspace

    from core.review.queue import build_queue

    return [[normal(item.id, target), str(item.kind)] for item in build_queue(workspace(target))]


def built(root: Path, lang: str) -> Path:
    """The demo in ``lang``, built with no global git config (as the demo fixture is)."""
    empty = root / ".gitconfig"
    empty.write_text("")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(root))
        mp.setenv("GIT_CONFIG_GLOBAL", str(empty))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        build_demo(root / "demo", lang=lang)
    return root / "demo"


@pytest.mark.parametrize("lang", LANGS)
def test_the_demo_is_built_as_recorded(tmp_path: Path, lang: str) -> None:
    recorded = json.loads((FIXTURES / f"{lang}.json").read_text("utf-8"))
    found = fingerprint(built(tmp_path, lang))
    assert found["queue"] == recorded["queue"]
    assert found["stores"] == recorded["stores"]
    assert found["files"] == recorded["files"]


def test_the_recording_is_whole() -> None:
    """The pinned demo is the one a reviewer meets: ten items, both stores' records."""
    zh = json.loads((FIXTURES / "zh.json").read_text("utf-8"))
    assert [kind for _id, kind in zh["queue"]] == [
        # the batch before the secret, which would discard it
        "conflict", "consolidation", "secret", "conflict", "promotion", "promotion",
        "deletion", "stale", "quarantine", "held",
    ]  # fmt: skip
    assert len(zh["stores"]["private"]["records"]) == 13
    assert len(zh["stores"]["team"]["records"]) == 3
    assert ".memgov-demo" in zh["files"]
    # the held note is the agent's team note: its internal address would leave the
    # machine with the team store (a private note keeps one)
    assert "claude-code/liyyro/memory/team/project_staging_db.md" in zh["files"]


if __name__ == "__main__":  # record the demo as it is built now
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for lang in LANGS:
        with tempfile.TemporaryDirectory() as tmp:
            path = FIXTURES / f"{lang}.json"
            data = fingerprint(built(Path(tmp), lang))
            path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"recorded {path}")


# ------------------------------------------------------------- the steps' vocabulary
def scenario_file(folder: Path, steps: str, texts: str = "") -> list[Scenario]:
    folder.mkdir(exist_ok=True)
    (folder / "01-one.yaml").write_text(
        f"title: one\nabout: a test\nsteps:\n{steps}{texts}", encoding="utf-8"
    )
    return read_scenarios(folder)


@pytest.mark.parametrize(
    ("steps", "refused"),
    [
        ("  - dance: {store: private}\n", "no step 'dance'"),
        ("  - replay: {store: private, at: {days: 1}}\n", "lacks ['actor']"),
        (
            "  - replay: {store: private, at: {days: 1}, actor: owner, shell: ls}\n",
            "unknown ['shell']",
        ),
        ("  - replay: {store: elsewhere, at: {days: 1}, actor: owner}\n", "no store"),
        ("  - replay: {store: private, at: {days: 1}, actor: root}\n", "no actor 'root'"),
        ("  - replay: {store: private, at: {weeks: 1}, actor: owner}\n", "at counts"),
        (
            "  - import_claude_code: {at: {days: 1}, actor: owner, folder: ../../away,"
            " files: {}}\n",
            "a path leads out",
        ),
        (
            "  - import_claude_code: {at: {days: 1}, actor: owner, folder: memory,"
            " files: {/etc/motd: hello}}\n",
            "a path leads out",
        ),
        ("  - replay: {store: private, at: {days: 1.5}, actor: owner}\n", "at counts whole"),
        (
            "  - request: {store: private, at: {days: 1}, kind: delete, actor: owner,"
            " record: {attribute: x}, reason: {text: unsaid}}\n",
            "no text ['unsaid']",
        ),
    ],
)
def test_a_step_outside_the_vocabulary_is_refused_before_anything_is_written(
    tmp_path: Path, steps: str, refused: str
) -> None:
    scenarios = scenario_file(tmp_path / "scenarios", steps)
    with pytest.raises(StoreError, match=re.escape(refused)):
        build_demo(tmp_path / "demo", scenarios=scenarios)
    assert not (tmp_path / "demo").exists()


def test_a_scenario_file_is_data_only(tmp_path: Path) -> None:
    """Read with ``yaml.safe_load``: a tag that would build a Python object is refused."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "01-one.yaml").write_text(
        "title: !!python/object/apply:os.system ['echo unsafe']\nsteps: []\n", encoding="utf-8"
    )
    with pytest.raises(yaml.constructor.ConstructorError):
        read_scenarios(folder)


def test_each_text_is_said_in_each_language(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"texts.hello needs words in each of zh, en"):
        scenario_file(tmp_path / "scenarios", "  []\n", "texts:\n  hello: {en: hello}\n")


def test_the_scenarios_run_in_the_order_of_their_files() -> None:
    names = [s.name for s in SCENARIOS]
    assert names == sorted(names) and names[0].startswith("01-") and len(names) == 16
    assert all(s.title and s.about and s.steps for s in SCENARIOS)
    assert {step.kind for s in SCENARIOS for step in s.steps} == set(STEPS)
