"""Time one transaction's git commit on a large store, the way memgov commits it.

    .venv/bin/python bench/bench_commit.py --files 10000
    .venv/bin/python bench/bench_commit.py --files 100000 --events one-file
    .venv/bin/python bench/bench_commit.py --files 100000 --memories sharded

It builds a repository (once, under /tmp/memgov-bench-commit/, with fast-import):
FILES memory files of ~600 bytes (``memories/<id>.md``, or with ``--memories
sharded`` ``memories/<2 chars>/<id>.md``), an index line each in ``MEMORY.md``, and
one event each: in one ``events.jsonl`` (``--events one-file``, the layout before
shards) or in 256 KiB shards ``events/NNNNNN.jsonl``. Then it times ROUNDS commits
of what one transaction writes (one memory changed, the index, one event appended
to the last shard) through :func:`core.store.gitstore.commit`, beside the floor of
one git process; wall time and CPU time (this process and git's: what the commit
costs whatever else the machine runs). Run it with PYTHONPATH at another checkout
to time its commit.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from core.store import gitstore

SHARD = 256 * 1024


def memory_path(i: int, sharded: bool) -> str:
    mid = f"mem-{i:07d}"
    return f"memories/{mid[-2:]}/{mid}.md" if sharded else f"memories/{mid}.md"


def event_line(i: int) -> bytes:
    return (
        b'{"id":"ev-%08d","ts":"2027-01-01T00:00:00+00:00","actor":"a@example.com",'
        b'"action":"create","memory_ids":["mem-%07d"],"from":null,"to":"active",'
        b'"reason":"new"}\n' % (i, i)
    )


def build(root: Path, files: int, sharded: bool, one_file: bool) -> None:
    if (root / ".git").exists():
        return
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    feed = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=root, stdin=subprocess.PIPE)
    out = feed.stdin
    assert out is not None
    out.write(b"commit refs/heads/main\ncommitter m <m@x> 1700000000 +0000\ndata 4\nbulk\n")
    index = []
    for i in range(files):
        body = f"---\nid: mem-{i:07d}\nstatus: active\n---\n{'some memory text ' * 30}{i}\n"
        data = body.encode()
        path = memory_path(i, sharded).encode()
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path, len(data), data))
        index.append(f"- [mem-{i:07d}]({memory_path(i, sharded)}) some memory text\n")
    text = "".join(index).encode()
    out.write(b"M 100644 inline MEMORY.md\ndata %d\n%s\n" % (len(text), text))
    log = b"".join(event_line(i) for i in range(files))
    shards = [log] if one_file else [log[i : i + SHARD] for i in range(0, len(log), SHARD)]
    for n, part in enumerate(shards, start=1):
        name = b"events.jsonl" if one_file else b"events/%06d.jsonl" % n
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (name, len(part), part))
    out.close()
    feed.wait()
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    subprocess.run(["git", "gc", "-q"], cwd=root, check=True)


def last_log(root: Path, one_file: bool) -> str:
    if one_file:
        return "events.jsonl"
    return "events/" + sorted(p.name for p in (root / "events").iterdir())[-1]


def cpu() -> float:
    """CPU seconds of this process and its finished children (git): what a commit
    costs, whatever else the machine is running."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--memories", choices=["flat", "sharded"], default="flat")
    parser.add_argument("--events", choices=["one-file", "shards"], default="shards")
    parser.add_argument("--where", type=Path, default=Path("/tmp/memgov-bench-commit"))
    args = parser.parse_args()
    sharded, one_file = args.memories == "sharded", args.events == "one-file"
    root = args.where / f"{args.files}-{args.memories}-{args.events}"
    started = time.perf_counter()
    build(root, args.files, sharded, one_file)
    built = time.perf_counter() - started
    repo = gitstore.open_repo(root)
    times, floors, cpus = [], [], []
    for r in range(args.rounds):
        rel = memory_path((r * 7919) % args.files, sharded)
        with (root / rel).open("a") as handle:
            handle.write(f"edit {time.time()}\n")
        with (root / "MEMORY.md").open("a") as handle:
            handle.write(f"- round {r}\n")
        log = last_log(root, one_file)
        with (root / log).open("ab") as handle:
            handle.write(event_line(10**7 + r))
        t, c = time.perf_counter(), cpu()
        gitstore.commit(repo, [rel, "MEMORY.md", log], actor="a@example.com", message="bench")
        times.append(time.perf_counter() - t)
        cpus.append(cpu() - c)
        t = time.perf_counter()
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, check=True)
        floors.append(time.perf_counter() - t)
    index = (root / ".git" / "index").stat().st_size
    tree = subprocess.run(
        ["git", "cat-file", "-s", "HEAD:memories"], cwd=root, capture_output=True, check=True
    ).stdout.strip()
    print(
        f"{args.files:>7,} files, memories {args.memories}, events {args.events}: commit "
        f"median {statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, "
        f"{args.rounds} rounds), CPU {statistics.median(cpus) * 1000:.0f} ms; "
        f"one git process {statistics.median(floors) * 1000:.0f} ms; "
        f"index {index / 1e6:.1f} MB, memories/ tree {int(tree) / 1e6:.2f} MB, "
        f"last log {(root / log).stat().st_size / 1e6:.2f} MB (built in {built:.0f} s)"
    )


if __name__ == "__main__":
    main()
