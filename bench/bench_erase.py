"""Time one erasure's history purge on a store with a long history, beside the floor.

    .venv/bin/python bench/bench_erase.py                    # 10,000 commits, 3 purges
    .venv/bin/python bench/bench_erase.py --runs 5
    .venv/bin/python bench/bench_erase.py --commits 100000
    .venv/bin/python bench/bench_erase.py --quoted           # an event reason quotes it
    .venv/bin/python bench/bench_erase.py --kills 30         # kill -9 loop, then rerun

It builds a private store (once, under bench/.stores/, reused by later runs)
whose history is what memgov writes: one commit a transaction, each appending an
event to the event log's last shard (``events/NNNNNN.jsonl``, a new one every
256 KiB) and writing ``MEMORY.md`` within its caps when its first lines change;
creations add a memory file (in its shard folder), an index line and a
daily-log message; uses rewrite a memory file; corrections rewrite the content
and write a decision file; some memories expire. One memory, created a fifth of
the way in and corrected a third of the way in, is then erased the way the store
does it (its file and index line go, the working tree is cleaned with
``scrub_file``, one commit) and its history purged. The purge is timed on a fresh
copy ``--runs`` times (median, min, max; the CPU seconds of this process and its git
children beside, which the machine's load changes less), beside two floors on
copies of the same repository: ``git repack -a -d`` and ``git fast-export --all |
git fast-import`` into a fresh repository.

With ``--kills N`` it then runs N rounds of: purge in a subprocess, SIGKILL at a
random moment, purge again; each round's store must end with the refs of an
unbroken purge and the erased bytes in no object.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.record import Memory, Source
from core.store.erase import history_needles, needles_for, purge_history, scrub_file
from core.store.events import FIRST_SHARD, SHARD_BYTES, shard_name
from core.store.index import fit_index, index_line
from core.store.layout import memory_path
from core.store.store import Store

WORDS = [
    "deploy",
    "build",
    "test",
    "review",
    "pnpm",
    "npm",
    "table",
    "docs",
    "staging",
    "production",
    "schema",
    "migration",
    "cache",
    "index",
    "token",
    "latency",
    "retry",
    "backoff",
    "queue",
    "worker",
    "release",
    "branch",
    "commit",
    "lint",
    "format",
    "type",
    "check",
    "feature",
    "flag",
    "rollout",
    "canary",
    "metric",
    "alert",
]
ATTRS = ("output_format", "package_manager", "deploy_command", "test_runner", "review_style")
TARGET = "home-address-00c0ffee"
TARGET_PATH = memory_path(TARGET)
WORDING_1 = (
    "Lives at 12 Quibble Lane, flat 4, near the old mill by the canal, where the blue gate "
    "sticks in winter and the parcel box hides behind the third bin on the left.\n"
    "Deliveries after six."
)
WORDING_2 = "Lives at 14 Quibble Lane, flat 2, by the river bend.\nRing twice, then wait."
EVIDENCE = "my address is 12 quibble lane flat four"
TZ = timezone(timedelta(hours=8))


def sh(root: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", *args], cwd=root, input=data, check=True, capture_output=True
    ).stdout


# ------------------------------------------------------------------ building
class History:
    """The simulated transactions: per commit, the files it writes."""

    def __init__(self, commits: int, quoted: bool) -> None:
        rng = random.Random(commits)
        base = datetime(2027, 1, 1, 9, 0, tzinfo=TZ)
        self.commits: list[dict[str, object]] = []
        self.events = bytearray()
        self.event_ends: list[int] = []
        self.index_ops: list[list[tuple[str, str]]] = []  # per commit: (add|del, line)
        active: dict[str, Memory] = {}
        logs: dict[str, bytes] = {}
        for i in range(commits):
            when = base + timedelta(minutes=37 * i)
            files: dict[str, bytes | None] = {}
            ops: list[tuple[str, str]] = []
            roll = rng.random()
            reason = "bench"
            if i == commits // 5:
                action, memory = "create", self._memory(TARGET, WORDING_1, when, rng, target=True)
            elif i == commits // 3 and TARGET in active:
                action = "correct"
                old = active[TARGET]
                memory = old.with_changes(content=WORDING_2, verified_at=when)
                reason = f"moved: {WORDING_2.splitlines()[0]}" if quoted else "moved house"
                files[f"decisions/dec-{i:06d}.json"] = _decision(i, old, memory, reason)
            elif roll < 0.5 or len(active) < 10:
                action = "create"
                memory = self._memory(f"m-{i:06x}", "", when, rng)
            elif roll < 0.85:
                action = "use"
                old = active[rng.choice(list(active))]
                memory = old.with_changes(usage_count=old.usage_count + 1, last_used_at=when)
            elif roll < 0.95:
                action = "correct"
                old = active[rng.choice(list(active))]
                body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
                memory = old.with_changes(content=body.capitalize() + ".", verified_at=when)
                files[f"decisions/dec-{i:06d}.json"] = _decision(i, old, memory, "corrected")
            else:
                action = "expire"
                candidates = [k for k in active if k != TARGET]
                old = active.pop(rng.choice(candidates))
                memory = old.with_changes(status="expired")
                ops.append(("del", index_line(old, 150)))
            if action != "expire":
                if memory.id in active:
                    previous, line = index_line(active[memory.id], 150), index_line(memory, 150)
                    if previous != line:
                        ops += [("del", previous), ("add", line)]
                else:
                    ops.append(("add", index_line(memory, 150)))
                active[memory.id] = memory
            files[memory.path] = memory.to_markdown().encode()
            if action == "create":
                day = f"logs/{when:%Y/%m/%Y-%m-%d}.md"
                text = logs.get(day, f"# {when:%Y-%m-%d}\n\n".encode())
                evidence = memory.source.evidence if memory.source else ""
                logs[day] = text + f"- {when:%H:%M} user: {evidence}\n".encode()
                files[day] = logs[day]
            self.events += _event(i, when, action, memory.id, reason)
            self.event_ends.append(len(self.events))
            self.index_ops.append(ops)
            self.commits.append({"files": files, "when": when, "message": f"{action} {memory.id}"})

    @staticmethod
    def _memory(
        memory_id: str, content: str, when: datetime, rng: random.Random, *, target: bool = False
    ) -> Memory:
        attr = "home_address" if target else f"{rng.choice(ATTRS)}_{memory_id}"
        body = content or " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 80)))
        evidence = EVIDENCE if target else " ".join(rng.choice(WORDS) for _ in range(8))
        return Memory(
            id=memory_id,
            type="semantic",
            scope="private",
            status="active",
            subject=f"user:u{rng.randint(0, 40)}",
            attribute=attr,
            content=body if target else body.capitalize() + ".",
            confidence=0.8,
            created_at=when,
            verified_at=when,
            title="A Zorbl home" if target else None,  # first in the index
            value="Elm St 9" if target else None,
            source=Source(task=f"tr_{memory_id}", message_index=3, evidence=evidence),
            path=memory_path(memory_id),
        )


def _decision(i: int, before: Memory, after: Memory, reason: str) -> bytes:
    def front(m: Memory) -> dict[str, object]:
        return {**m.front_matter(), "path": m.path}

    record = {
        "id": f"dec-{i:06d}",
        "action": "correct",
        "reason": reason,
        "before": {before.id: front(before)},
        "after": {after.id: front(after)},
    }
    return (json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def _event(i: int, when: datetime, action: str, memory_id: str, reason: str) -> bytes:
    line = {
        "id": f"ev-{when:%Y%m%dT%H%M%S}-{i:06x}",
        "ts": when.isoformat(),
        "actor": "bench@example.com",
        "action": action,
        "memory_ids": [memory_id],
        "from": None,
        "to": "active",
        "reason": reason,
    }
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def build(root: Path, commits: int, quoted: bool) -> None:
    """One fast-import: each file's versions in a row (so each is a delta of the one
    before, as git would pack it), then the commits."""
    Store.init(root, owner="bench@example.com", actor="bench@example.com")
    history = History(commits, quoted)
    tip = sh(root, "rev-parse", "HEAD").decode().strip()
    importer = subprocess.Popen(
        ["git", "fast-import", "--quiet"], cwd=root, stdin=subprocess.PIPE, bufsize=1 << 20
    )
    assert importer.stdin is not None
    out = importer.stdin
    mark = 0

    def blob(data: bytes | memoryview) -> int:
        nonlocal mark
        mark += 1
        out.write(b"blob\nmark :%d\ndata %d\n" % (mark, len(data)))
        out.write(data)
        out.write(b"\n")
        return mark

    # the event log in shards as the store writes it: a new shard once one reaches
    # SHARD_BYTES; each commit writes the version of its shard with its event
    first = (root / FIRST_SHARD).read_bytes()
    log = first + bytes(history.events)
    shard, start, before = 1, 0, len(first)
    event_marks: list[tuple[str, int]] = []
    for end in history.event_ends:
        if before - start >= SHARD_BYTES:  # the shard is full: the event opens the next
            shard, start = shard + 1, before
        event_marks.append((shard_name(shard), blob(log[start : len(first) + end])))
        before = len(first) + end
    # the index within its caps, as memgov writes it: a version only when it changes
    config = Store(root).config
    lines: list[str] = []
    index_marks: list[int | None] = []
    shown = ""
    for ops in history.index_ops:
        for op, line in ops:
            if op == "add":
                bisect.insort(lines, line)
            else:
                at = bisect.bisect_left(lines, line)
                if at < len(lines) and lines[at] == line:
                    del lines[at]
        head = lines[: config.index_max_lines + 1]
        text = fit_index(((n, x + "\n") for n, x in enumerate(head)), len(lines), config)
        index_marks.append(blob(text.encode()) if text != shown else None)
        shown = text
    file_marks: list[dict[str, int]] = []
    for item in history.commits:
        files = item["files"]
        assert isinstance(files, dict)
        file_marks.append({rel: blob(data) for rel, data in files.items()})
    for i, item in enumerate(history.commits):
        when = item["when"]
        assert isinstance(when, datetime)
        stamp = b"%d +0800" % int(when.timestamp())
        message = f"{item['message']}\n\nactor: bench@example.com\n".encode()
        out.write(b"commit refs/heads/main\nmark :%d\n" % (mark + 1 + i))
        out.write(b"author bench <bench@example.com> %s\n" % stamp)
        out.write(b"committer memgov <memgov@localhost> %s\n" % stamp)
        out.write(b"data %d\n%s\n" % (len(message), message))
        out.write(b"from %s\n" % (tip.encode() if i == 0 else b":%d" % (mark + i)))
        shard_rel, shard_mark = event_marks[i]
        out.write(b"M 100644 :%d %s\n" % (shard_mark, shard_rel.encode()))
        index_mark = index_marks[i]
        if index_mark is not None:
            out.write(b"M 100644 :%d MEMORY.md\n" % index_mark)
        for rel, blob_mark in file_marks[i].items():
            out.write(b"M 100644 :%d %s\n" % (blob_mark, rel.encode()))
        out.write(b"\n")
    out.close()
    if importer.wait() != 0:
        raise SystemExit("fast-import failed while building the bench store")
    sh(root, "reset", "-q", "--hard", "main")
    sh(root, "repack", "-a", "-d", "-q")
    sh(root, "prune", "--expire=now")


def erase(root: Path) -> dict[str, object]:
    """The store's erasing commit, done by hand: file and index line gone, the
    working tree cleaned by scrub_file. Returns the purge's arguments."""
    text = (root / TARGET_PATH).read_text(encoding="utf-8")
    keep = [p.read_bytes() for p in (root / "memories").rglob("*.md") if p.name != f"{TARGET}.md"]
    needles = needles_for(text.split("---\n", 2)[2], [EVIDENCE])
    needles += history_needles(root, [TARGET_PATH], keep=keep)
    needles = sorted(set(needles), key=len, reverse=True)
    (root / TARGET_PATH).unlink()
    touched = [TARGET_PATH]
    logs = sorted((root / "events").glob("*.jsonl"))
    for path in [root / "MEMORY.md", *logs, *(root / "decisions").glob("*.json")]:
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        new = scrub_file(rel, data, needles, [TARGET])
        if new != data:
            path.write_bytes(new)
            touched.append(rel)
    for path in (root / "logs").rglob("*.md"):
        data = path.read_bytes()
        new = scrub_file(path.relative_to(root).as_posix(), data, needles, [TARGET])
        if new != data:
            path.write_bytes(new)
            touched.append(path.relative_to(root).as_posix())
    sh(root, "add", "-A", "--", *touched)
    sh(
        root,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "-q",
        "-m",
        "erase home_address",
    )
    return {"drop_paths": [TARGET_PATH], "needles": needles, "erased_ids": [TARGET]}


# ---------------------------------------------------------------- measuring
def copy(src: Path, dst: Path) -> Path:
    """A real copy of ``src``, also when ``src`` is a symlink to a shared store
    (``cp -a`` would copy the link, and the bench would write through it)."""
    shutil.rmtree(dst, ignore_errors=True)
    subprocess.run(["cp", "-a", str(src.resolve()), str(dst)], check=True)
    return dst


def timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def floor_export(src: Path, work: Path, limit: float) -> float | None:
    fresh = work / "fresh"
    shutil.rmtree(fresh, ignore_errors=True)
    sh(work, "init", "-q", "--bare", str(fresh))
    start = time.perf_counter()
    export = subprocess.Popen(["git", "fast-export", "--all"], cwd=src, stdout=subprocess.PIPE)
    try:
        subprocess.run(
            ["git", "fast-import", "--quiet"],
            cwd=fresh,
            stdin=export.stdout,
            check=True,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        export.kill()
        return None
    finally:
        export.wait()
    return time.perf_counter() - start


def leaks(root: Path, strings: list[bytes]) -> bool:
    """Whether any object holds one of these bytes, read as a stream (a long
    history's objects are many gigabytes)."""
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch-all-objects", "--batch", "--unordered"],
        cwd=root,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    reach = max(len(s) for s in strings)
    tail = b""
    found = False
    while chunk := proc.stdout.read(1 << 24):
        window = tail + chunk
        if any(s in window for s in strings):
            found = True
            break
        tail = window[-reach:]
    proc.kill()
    proc.wait()
    return found


def kill_loop(erased: Path, args: dict[str, object], rounds: int, work: Path) -> None:
    reference = copy(erased, work / "reference")
    took = timed(lambda: purge_history(reference, **args))  # type: ignore[arg-type]
    expected = sh(reference, "for-each-ref", "--format=%(refname) %(objectname)")
    spec = work / "args.json"
    needles = args["needles"]
    assert isinstance(needles, list)
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from core.store.erase import purge_history\n"
        "a = json.load(open(sys.argv[1]))\n"
        "purge_history(a['root'], drop_paths=a['drop'], needles=[bytes.fromhex(n) for n in "
        "a['needles']], erased_ids=a['ids'])\n"
    )
    rng = random.Random(rounds)
    consistent = killed = 0
    for n in range(rounds):
        victim = copy(erased, work / "victim")
        spec.write_text(
            json.dumps(
                {
                    "root": str(victim),
                    "drop": args["drop_paths"],
                    "needles": [x.hex() for x in needles],
                    "ids": args["erased_ids"],
                }
            )
        )
        proc = subprocess.Popen([sys.executable, "-c", script, str(spec)], start_new_session=True)
        time.sleep(rng.uniform(0, took * 1.2 + 0.2))
        if proc.poll() is None:
            (os.killpg if n % 2 else os.kill)(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait()
        rerun = subprocess.run([sys.executable, "-c", script, str(spec)], capture_output=True)
        refs = sh(victim, "for-each-ref", "--format=%(refname) %(objectname)")
        clean = sh(victim, "status", "--porcelain") == b""
        ok = rerun.returncode == 0 and refs == expected and clean
        ok = ok and not leaks(victim, [n for n in needles if isinstance(n, bytes)])
        consistent += ok
        if not ok:
            print(f"# round {n}: NOT consistent: {rerun.stderr.decode()[-500:]}")
    print(f"kills: {killed} killed of {rounds} rounds; stores consistent after rerun: {consistent}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--quoted", action="store_true", help="an event reason quotes it")
    parser.add_argument("--kills", type=int, default=0)
    parser.add_argument("--runs", type=int, default=3, help="purges timed (the median is shown)")
    parser.add_argument("--floor-limit", type=float, default=1800.0)
    parser.add_argument("--no-export-floor", action="store_true")
    args = parser.parse_args()
    name = f"erase-{args.commits}{'-quoted' if args.quoted else ''}"
    stores = ROOT / "bench" / ".stores"
    built = stores / name
    if not (built / "memgov.yaml").exists():
        shutil.rmtree(built, ignore_errors=True)
        seconds = timed(lambda: build(built, args.commits, args.quoted))
        print(f"# built {args.commits:,} commits in {seconds:.1f}s at {built}")
    work = stores / f"{name}-work"
    work.mkdir(parents=True, exist_ok=True)
    erased = copy(built, work / "erased")
    purge_args = erase(erased)
    count = int(sh(erased, "rev-list", "--all", "--count"))
    size = sh(erased, "count-objects", "-vH").decode().split("size-pack: ")[1].split("\n")[0]
    print(f"# {count:,} commits, pack {size}, {len(purge_args['needles'])} needles", flush=True)  # type: ignore[arg-type]
    repack = timed(lambda: sh(copy(erased, work / "repack"), "repack", "-a", "-d", "-q"))
    print(f"# git repack -a -d: {repack:.2f}s", flush=True)
    seconds: list[float] = []
    cpu: list[float] = []
    for n in range(args.runs):
        victim = copy(erased, work / "purge")  # a fresh copy each run, not timed
        before = os.times()
        started = time.perf_counter()
        rewritten = purge_history(victim, **purge_args)  # type: ignore[arg-type]
        seconds.append(time.perf_counter() - started)
        after = os.times()
        # this process and its git children (fast-export, cat-file, fast-import, repack)
        cpu.append(sum(after[:4]) - sum(before[:4]))
        print(
            f"# purge_history run {n + 1}: {seconds[-1]:.2f}s, cpu {cpu[-1]:.2f}s, "
            f"{rewritten:,} commits rewritten, load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        assert not leaks(victim, list(purge_args["needles"]))  # type: ignore[call-overload]
    purge = statistics.median(seconds)
    print(
        f"# purge_history median {purge:.2f}s (min {min(seconds):.2f}, max {max(seconds):.2f}), "
        f"cpu median {statistics.median(cpu):.2f}s, over {len(seconds)} runs",
        flush=True,
    )
    export = None if args.no_export_floor else floor_export(erased, work, args.floor_limit)
    print(f"{'step':<36} {'seconds':>9} {'x repack':>9}")
    print(f"{'floor: git repack -a -d':<36} {repack:>9.2f} {1.0:>9.1f}")
    if export is not None:
        print(f"{'floor: fast-export | fast-import':<36} {export:>9.2f} {export / repack:>9.1f}")
    elif not args.no_export_floor:
        print(f"{'floor: fast-export | fast-import':<36} {'>' + str(args.floor_limit):>9}")
    print(f"{'purge_history':<36} {purge:>9.2f} {purge / repack:>9.1f}")
    print(f"# {rewritten:,} commits rewritten")
    if export is not None:
        print(f"# purge / export floor: {purge / export:.2f}")
    if args.kills:
        kill_loop(erased, purge_args, args.kills, work)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
