"""The demo: two stores built from the seed's own scenarios, through the real pipeline.

``build_demo(PATH)`` makes ``PATH/private`` (liys05's store) and ``PATH/team``
(the liyyro project's team store), and fills them the way agents would: daily
logs first, then candidates through :func:`core.writing.pipeline.remember`, a sweep,
requests. Nothing is written behind the pipeline's back except the one record
that a person pasted into a file by hand before scanning existed (it carries a
fake token, made up at run time, so that the promotion desk has a hit to block).
"""

from __future__ import annotations

import random
import shutil
import string
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from core.consolidation.consolidate import consolidate
from core.domain.errors import StoreError
from core.domain.record import Memory, Source
from core.store.requests import file_request
from core.store.store import Store, new_memory_id
from core.writing.decay import recall, sweep
from core.writing.pipeline import candidate_from_dict, remember

TZ = timezone(timedelta(hours=8))
OWNER = "liys05"
MAINTAINERS = ("liys05", "wang.lead@example.com")
AGENT = "agent:claude-code"
START = datetime(2026, 8, 18, 9, 30, tzinfo=TZ)


class DemoClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def at(self, when: datetime) -> None:
        self.now = when


def fake_token(prefix: str, length: int, seed: int) -> str:
    """A made-up credential, built at run time so none sits in our sources."""
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))


def _remember(
    store: Store,
    clock: DemoClock,
    when: datetime,
    *,
    task: str,
    index: int,
    said: str,
    **fields: Any,
) -> list[str]:
    clock.at(when)
    log, _line = store.log_message(task=task, index=index, role="user", text=said, actor=AGENT)
    data = {
        "s1": 0.9,
        "s2": 0.85,
        "confidence": 0.8,
        **fields,
        "source": {"task": task, "message_index": index, "evidence": said, "log": log},
    }
    clock.at(when + timedelta(minutes=2))
    return list(remember(store, candidate_from_dict(data), actor=AGENT).memory_ids)


def build_demo(target: Path | str, *, force: bool = False) -> list[Store]:
    target = Path(target)
    if target.exists() and any(target.iterdir()):
        if not force:
            if (target / "private" / "memgov.yaml").exists():
                return [Store(target / "private"), Store(target / "team")]
            raise StoreError(
                f"{target}: exists and is not a demo store; choose another "
                f"path or pass --force to replace it"
            )
        shutil.rmtree(target)
    clock = DemoClock(START)
    team = Store.init(
        target / "team",
        scope="team",
        maintainers=MAINTAINERS,
        actor="wang.lead@example.com",
        clock=clock,
    )
    private = Store.init(
        target / "private",
        scope="private",
        owner=OWNER,
        team_store="../team",
        actor=f"{OWNER}@example.com",
        clock=clock,
    )
    day = timedelta(days=1)
    me = f"user:{OWNER}"
    project = "project:liyyro"

    # team: the deploy command (seed 6.3): npm run deploy three months ago ...
    _remember(
        team,
        clock,
        START,
        task="tr_20260818_03",
        index=12,
        said="部署直接跑 npm run deploy 就行",
        type="semantic",
        scope="team",
        subject=project,
        attribute="deploy_command",
        value="npm run deploy",
        content="部署命令是 `npm run deploy`。",
        confidence=0.9,
    )
    _remember(
        team,
        clock,
        START + 2 * day,
        task="tr_20260820_01",
        index=3,
        said="单测用 pnpm test,别用 jest 直接跑",
        type="semantic",
        scope="team",
        subject=project,
        attribute="test_command",
        value="pnpm test",
        content="跑测试用 `pnpm test`。",
    )
    # ... and bash deploy.sh last week, with a condition only its source states
    _remember(
        team,
        clock,
        START + 88 * day,
        task="tr_20261114_01",
        index=4,
        said="生产环境部署改用 bash deploy.sh,测试环境还是 npm run deploy",
        type="semantic",
        scope="team",
        subject=project,
        attribute="deploy_command",
        value="bash deploy.sh",
        content="部署命令是 `bash deploy.sh`。",
        confidence=0.95,
    )

    # private: pnpm, three times from three tasks (seed 6.1): one record, three sources
    for offset, task, index, said, content in (
        (1, "tr_001", 5, "这个项目用 pnpm 不用 npm", "用 pnpm,不用 npm。"),
        (15, "tr_014", 9, "装依赖记得用 pnpm", "包管理器是 pnpm。"),
        (40, "tr_019", 2, "又用成 npm 了,我们是 pnpm", "使用 pnpm。"),
    ):
        _remember(
            private,
            clock,
            START + offset * day,
            task=task,
            index=index,
            said=said,
            type="semantic",
            scope="private",
            subject=project,
            attribute="package_manager",
            value="pnpm",
            content=content,
            title="Package manager",
        )

    # preferences: tables and Chinese docs (seed 5.3), one of them overriding an older one
    _remember(
        private,
        clock,
        START + 3 * day,
        task="tr_20260821_02",
        index=6,
        said="文档先用英文写吧",
        type="preference",
        scope="private",
        subject=me,
        attribute="doc_language",
        value="English",
        content="文档用英文写。",
        title="Documentation language",
    )
    _remember(
        private,
        clock,
        START + 60 * day,
        task="tr_20261017_02",
        index=7,
        said="以后文档都用中文,对比直接上表",
        type="preference",
        scope="private",
        subject=me,
        attribute="doc_language",
        value="中文",
        content="技术文档用中文写。\n\n**Why:** 用户原话:以后文档都用中文。",
        title="Documentation language",
        confidence=0.92,
    )
    _remember(
        private,
        clock,
        START + 60 * day + timedelta(minutes=5),
        task="tr_20261017_02",
        index=7,
        said="以后文档都用中文,对比直接上表",
        type="preference",
        scope="private",
        subject=me,
        attribute="output_format",
        value="tables for comparisons",
        content="多方案对比用表格。\n\n**How to apply:** 两个以上方案时先给对比表。",
        title="Comparisons as tables",
        confidence=0.92,
    )

    # Dr. Zhang (seed 5.2): the same name, two relations; one key, two readings
    _remember(
        private,
        clock,
        START + 20 * day,
        task="tr_20260907_05",
        index=11,
        said="周三要去看张医生,洗牙",
        type="episodic",
        scope="private",
        subject=me,
        attribute="doctor",
        value="张医生 (dentist)",
        content="张医生是用户的牙医。",
    )
    _remember(
        private,
        clock,
        START + 70 * day,
        task="tr_20261027_02",
        index=4,
        said="帮我约一下张医生,我爸的复查",
        type="episodic",
        scope="private",
        subject=me,
        attribute="doctor",
        value="张医生 (father's doctor)",
        content="张医生是用户父亲的主治医生。",
    )

    # a reflection learnt with pnpm 8 that expires when the tool is upgraded
    _remember(
        private,
        clock,
        START + 10 * day,
        task="tr_20260828_04",
        index=20,
        said="CI 又挂了,pnpm 8 要加 --frozen-lockfile 才行",
        type="reflection",
        scope="private",
        subject=project,
        attribute="ci_install_flags",
        content="CI 安装依赖失败时,先确认加了 `--frozen-lockfile`(pnpm 8 的行为)。",
        environment={"pnpm": "8.15"},
        confidence=0.6,
    )
    clock.at(START + 80 * day)
    sweep(private, actor="memgov-sweep", environment={"pnpm": "9.12"})

    # a test runner preference the user wants shared with the team
    _remember(
        private,
        clock,
        START + 85 * day,
        task="tr_20261111_03",
        index=2,
        said="跑单测用 pnpm vitest run,watch 模式会卡住 CI",
        type="semantic",
        scope="private",
        subject=project,
        attribute="test_command",
        value="pnpm vitest run",
        content="跑测试用 `pnpm vitest run`(不要 watch 模式)。",
    )
    # something the user does not want remembered
    _remember(
        private,
        clock,
        START + 30 * day,
        task="tr_20260917_01",
        index=8,
        said="我最近搬到杭州了",
        type="semantic",
        scope="private",
        subject=me,
        attribute="home_city",
        value="杭州",
        content="用户住在杭州。",
    )

    # a note pasted into a file by hand, before scanning existed: it carries a fake token
    clock.at(START + 86 * day)
    token = fake_token("ghp_", 36, seed=20261112)
    with private.transaction(
        actor=f"{OWNER}@example.com", message="import: hand-written note"
    ) as tx:
        note = Memory(
            id=new_memory_id("ci_token", "demo hand-written note"),
            type="semantic",
            scope="private",
            status="active",
            subject=project,
            attribute="ci_registry_auth",
            title="CI registry auth",
            content=f"CI 拉私有包要设置 GITHUB_TOKEN={token}。",
            confidence=0.7,
            created_at=clock.now,
            verified_at=clock.now,
            source=Source(
                task="hand-note", evidence="pasted from the team chat", file="notes/ci.md", line=1
            ),
        )
        tx.write_file("notes/ci.md", "# CI notes\n\nGITHUB_TOKEN: see the chat\n")
        tx.create(note, action="import", reason="hand-written note, before scanning existed")

    # an agent tries to remember a credential: the gate refuses it (s4), the log keeps
    # only the key and the rule, never the value
    clock.at(START + 87 * day)
    digits = random.Random(20261113)
    team_id = "".join(digits.choice(string.digits) for _ in range(11))
    bot_id = "".join(digits.choice(string.digits) for _ in range(12))
    slack = fake_token(f"xoxb-{team_id}-{bot_id}-", 24, seed=20261113)
    remember(
        private,
        candidate_from_dict(
            {
                "content": f"部署通知用的 Slack bot token 是 {slack}",
                "type": "semantic",
                "scope": "private",
                "subject": project,
                "attribute": "deploy_notify_token",
                "s1": 0.9,
                "s2": 0.8,
                "source": {
                    "task": "tr_20261113_02",
                    "message_index": 6,
                    "evidence": "token 发你了,记一下",
                },
            }
        ),
        actor=AGENT,
    )
    # agents recall what they know about the project (usage feeds decay and health)
    for offset in (87, 88, 89):
        clock.at(START + offset * day + timedelta(hours=2))
        recall(private, subject_prefix=project, attribute=None, actor=AGENT, limit=3)

    # a statement with a relative date, which consolidation makes absolute
    _remember(
        private,
        clock,
        START + 84 * day,
        task="tr_20261110_04",
        index=3,
        said="下周三开始代码冻结,只合修复",
        type="semantic",
        scope="private",
        subject=project,
        attribute="merge_freeze",
        value="code freeze",
        content="下周三开始代码冻结,只合修复。",
        title="Merge freeze",
    )

    clock.at(START + 90 * day)
    pnpm = next(m for m in private.memories.values() if m.attribute == "package_manager")
    file_request(
        private,
        kind="promote",
        memory_id=pnpm.id,
        actor=AGENT,
        reason="every contributor should use pnpm; three tasks confirm it",
    )
    file_request(
        private,
        kind="promote",
        memory_id=note.id,
        actor=f"{OWNER}@example.com",
        reason="the team needs the CI auth note",
    )
    city = next(m for m in private.memories.values() if m.attribute == "home_city")
    clock.at(START + 91 * day)
    file_request(
        private,
        kind="delete",
        memory_id=city.id,
        actor=f"{OWNER}@example.com",
        reason="I do not want my location remembered",
    )
    # the nightly consolidation leaves a batch for review
    clock.at(START + 91 * day + timedelta(hours=3))
    consolidate(private, actor="memgov-consolidate")
    return [private, team]
