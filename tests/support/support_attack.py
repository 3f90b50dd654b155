"""The attack harness: kill -9 at random moments, and two racing deciders.

Everything here runs the real ``memgov`` command line in subprocesses on real
git repositories; nothing is mocked and nothing of ``core`` is imported, so the
checks stay the same whatever the code under test does. Used by
``bench/crash_loop.py``, ``bench/race_loop.py`` and ``tests/store/test_crash_race.py``.

Layout of a work folder (``Harness(work)``)::

    work/round/          the store pair a round runs on (always this path)
    work/variants/NAME/  each starting state, built at work/round and moved here
    work/import/...      a small Claude Code memory folder for ``memgov import``
    work/home/           HOME of every subprocess (an empty git config)

Every variant is built at ``work/round`` and moved away, and every round copies
one back to ``work/round`` (``cp -a``): decision files hold absolute store paths,
so a copy elsewhere could not be reverted.

Every command runs in a child forked from a *zygote* (:data:`ZYGOTE`): one
Python process of the venv that imported ``tui.cli`` and the modules the
commands load lazily, then forks a child per command that calls
``tui.cli.main(argv)``, exactly what the ``memgov`` entry point does, in a
fresh process (its own process group, so a kill takes its git children with
it). A command under attack waits at a FIFO after the fork; the kill delay and
the race start are measured from the release, so they land in the command's
work rather than in interpreter start. ``Harness(cold=True)`` runs every
command that is not attacked (the checks, the setup) through the ``memgov``
entry point itself instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.store.events import event_logs

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv" / "bin"
PYTHON = VENV / "python"
MEMGOV = VENV / "memgov"

#: the demo's own "today" (core.demo.START + 92 days); each phase runs later than it
DEMO_NOW = datetime.fromisoformat("2026-11-18T09:30:00+08:00")
SETUP_NOW = DEMO_NOW + timedelta(minutes=10)  # the decisions a variant starts from
ATTACK_NOW = DEMO_NOW + timedelta(minutes=30)  # the killed command, the first racer
AFTER_NOW = DEMO_NOW + timedelta(minutes=40)  # the writes and checks after a round

TRACEBACK = "Traceback (most recent call last)"

ZYGOTE = r"""
import importlib, json, os, sys, traceback
for name in ("tui.cli", "core.review.decide", "core.review.queue",
             "core.consolidation.consolidate", "core.consolidation.apply",
             "core.consolidation.rollback", "core.writing.decay", "core.writing.pipeline",
             "core.store.requests", "core.reports.doctor", "core.importers", "core.store.erase",
             "core.domain.secrets", "core.store.workspace", "core.demo", "core.reports.history"):
    try:
        importlib.import_module(name)
    except Exception:
        traceback.print_exc()
try:
    from core.domain import secrets
    secrets.scan("warm up the compiled rules")
except Exception:
    traceback.print_exc()
from tui.cli import main


def child(req):
    os.setpgid(0, 0)
    for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                            (1, req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, req["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    os.environ["MEMGOV_NOW"] = req["now"]
    if req.get("gate"):
        gate = os.open(req["gate"], os.O_RDONLY)  # the harness holds it open: no wait here
        with open(req["ready"], "w"):
            pass
        os.read(gate, 1)  # until the harness writes one byte per waiting command
        os.close(gate)
    argv = req["argv"]
    sys.argv = ["memgov", *argv]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(int(code or 0) & 0xFF)


reaped = {}


def status_of(pid, block):
    if pid in reaped:
        return reaped[pid]
    got, status = os.waitpid(pid, 0 if block else os.WNOHANG)
    if got == 0:
        return None
    reaped[pid] = os.waitstatus_to_exitcode(status)
    return reaped[pid]


while True:
    line = sys.stdin.readline()
    if not line:
        break
    req = json.loads(line)
    if req["op"] == "spawn":
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            child(req)
        answer = {"pid": pid}
    else:
        answer = {"status": status_of(req["pid"], req["op"] == "wait")}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


# ----------------------------------------------------------------- subprocesses
def base_env(home: Path, code: Path | None = None) -> dict[str, str]:
    """The environment of every memgov subprocess: nothing of the machine leaks in.
    ``code``: a folder holding ``core/`` and ``tui/`` to run instead of the repo's
    (e.g. a ``git archive`` of a commit); it goes first on PYTHONPATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "MEMGOV_")) and k not in ("PYTHONPATH",)
    }
    home.mkdir(parents=True, exist_ok=True)
    empty = home / ".gitconfig-empty"
    if not empty.exists():
        empty.write_text("")
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(empty),
        GIT_CONFIG_NOSYSTEM="1",
        XDG_CONFIG_HOME=str(home / ".config"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    if code is not None:
        env["PYTHONPATH"] = str(Path(code).resolve())
    return env


@dataclass
class Run:
    argv: list[str]
    code: int | None  # None: killed
    out: str
    err: str
    seconds: float

    @property
    def traceback(self) -> bool:
        return TRACEBACK in self.err

    def tail(self, lines: int = 4) -> str:
        """The last lines of stderr; of a traceback, its last frame and the exception."""
        text = self.err.strip() or self.out.strip()
        if self.traceback:
            return traceback_summary(self.err)
        return " | ".join(text.splitlines()[-lines:])

    def json(self) -> Any:
        try:
            return json.loads(self.out)
        except ValueError:
            return None


def run_memgov(env: dict[str, str], *argv: str, now: datetime, timeout: float = 120) -> Run:
    """The ``memgov`` entry point itself, in a new interpreter, to completion."""
    start = time.monotonic()
    proc = subprocess.run(
        [str(MEMGOV), *argv],
        env={**env, "MEMGOV_NOW": now.isoformat()},
        capture_output=True,
        text=True,
        timeout=timeout,
        errors="replace",
    )
    return Run(list(argv), proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def traceback_summary(err: str) -> str:
    """``file:line in function: ExceptionType: first line of its message`` of the last
    traceback in ``err`` (the message is cut: it may be long, never a value we show)."""
    text = err[err.rfind(TRACEBACK) :]
    lines = text.splitlines()
    frames = [i for i, ln in enumerate(lines) if ln.startswith("  File ")]
    if not frames:
        return " | ".join(lines[-3:])

    def where(i: int) -> str:
        found = re.match(r'^\s*File "([^"]+)", line (\d+), in (.*)$', lines[i])
        if not found:
            return lines[i].strip()
        path = found.group(1).replace(str(ROOT) + "/", "")
        path = re.sub(r"^.*/site-packages/", "", path)
        path = re.sub(r"^.*/(?=(core|tui)/)", "", path)
        return f"{path}:{found.group(2)} in {found.group(3)}"

    last = frames[-1]
    ours = [i for i in frames if re.search(r'File "[^"]*/(core|tui)/', lines[i])]
    chain = [where(ours[-1])] if ours and ours[-1] != last else []
    chain.append(where(last))
    rest = [ln for ln in lines[last + 1 :] if ln.strip() and not ln.startswith("    ")]
    rest = [ln for ln in rest if not set(ln.strip()) <= set("^~ ")]
    exc = rest[0].strip() if rest else "?"
    return f"{' -> '.join(chain)}: {exc[:220]}"


class Zygote:
    """The process every command is forked from (see the module's docstring)."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.folder = folder
        self.log = (folder / "zygote.log").open("wb")
        self.proc = subprocess.Popen(
            [str(PYTHON), "-c", ZYGOTE],
            env=env,
            cwd=folder,  # "-c" puts the working folder first on sys.path: not the repo's
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
            start_new_session=True,
        )
        self.count = 0

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the zygote died; see {self.folder / 'zygote.log'}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def spawn(self, argv: Sequence[str], *, now: datetime, slot: Path, gated: bool) -> Proc:
        self.count += 1
        out, err = slot.with_suffix(".out"), slot.with_suffix(".err")
        ready = slot.with_suffix(".ready")
        ready.unlink(missing_ok=True)
        request = {
            "op": "spawn",
            "argv": list(argv),
            "now": now.isoformat(),
            "out": str(out),
            "err": str(err),
            "gate": str(slot.parent / GATE) if gated else None,
            "ready": str(ready),
        }
        return Proc(self, int(self._ask(request)["pid"]), list(argv), out, err, ready)

    def status(self, pid: int, *, block: bool) -> int | None:
        value = self._ask({"op": "wait" if block else "poll", "pid": pid})["status"]
        return None if value is None else int(value)

    def run(self, *argv: str, now: datetime, slot: Path) -> Run:
        proc = self.spawn(argv, now=now, slot=slot, gated=False)
        proc.released_at = time.monotonic()
        return proc.finish()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Proc:
    """One command forked from the zygote."""

    def __init__(
        self, zygote: Zygote, pid: int, argv: list[str], out: Path, err: Path, ready: Path
    ) -> None:
        self.zygote, self.pid, self.argv = zygote, pid, argv
        self.out_path, self.err_path, self.ready = out, err, ready
        self.released_at = 0.0
        self.exit: int | None = None
        self.killed = False

    def poll(self) -> int | None:
        if self.exit is None:
            self.exit = self.zygote.status(self.pid, block=False)
        return self.exit

    def wait_ready(self, timeout: float = 60) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.ready.exists():
                return True
            if self.poll() is not None:
                return False  # it ended before the gate: its stderr says why
            time.sleep(0.002)
        raise RuntimeError(f"memgov {' '.join(self.argv)} never reached the gate")

    def kill(self) -> bool:
        """SIGKILL its process group (it and its git children); True if that killed it."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
        self.exit = self.zygote.status(self.pid, block=True)
        for _ in range(1000):  # children (git) die with the group: wait until none is left
            try:
                os.killpg(self.pid, 0)
            except ProcessLookupError:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            time.sleep(0.002)
        self.killed = self.exit == -signal.SIGKILL
        return self.killed

    def finish(self, timeout: float = 300) -> Run:
        end = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < end:
            time.sleep(0.003)
        if self.exit is None:
            self.kill()
        seconds = time.monotonic() - self.released_at if self.released_at else 0.0
        out = self.out_path.read_text(encoding="utf-8", errors="replace")
        err = self.err_path.read_text(encoding="utf-8", errors="replace")
        code = None if self.killed else self.exit
        return Run(self.argv, code, out, err, seconds)


GATE = "gate"


class Gate:
    """A FIFO the harness holds open (read-write, so commands open it at once) and
    writes one byte per waiting command into: they all leave ``os.read`` together."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / GATE
        self.path.unlink(missing_ok=True)
        os.mkfifo(self.path)
        self.fd = os.open(self.path, os.O_RDWR)

    def release(self, started: Sequence[Proc]) -> None:
        try:
            waiting = [s for s in started if s.wait_ready()]
            now = time.monotonic()
            if waiting:
                os.write(self.fd, b"g" * len(waiting))
            for s in started:
                s.released_at = now
        finally:
            os.close(self.fd)


# ------------------------------------------------------------------ store facts
def parse_memory_file(path: Path) -> tuple[str | None, str]:
    """(id, content) of a memory file, read as plain text (no memgov code)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    ident = None
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            front, body = text[4:end], text[end + 5 :]
            found = re.search(r"^id:\s*['\"]?([^'\"\s]+)", front, re.M)
            ident = found.group(1) if found else None
    return ident, body.strip()


def memory_files(store: Path) -> dict[str, tuple[str, str]]:
    """id -> (relative path, content) of every memory file of a store."""
    out: dict[str, tuple[str, str]] = {}
    folder = store / "memories"
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else ():
        if path.is_symlink() or not path.is_file():
            continue
        ident, content = parse_memory_file(path)
        out[ident or path.stem] = (path.relative_to(store).as_posix(), content)
    return out


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not path.is_file():
        return out
    for raw in path.read_bytes().split(b"\n"):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def rolled_back(events: Iterable[dict[str, Any]]) -> set[str]:
    gone: set[str] = set()
    for ev in events:
        if ev.get("action") == "recover":
            gone.update((ev.get("details") or {}).get("rolled_back_events") or ())
    return gone


def needles_of(content: str) -> list[bytes]:
    """What of an erased content must not survive: the whole text and every line
    long enough to identify it (12 bytes, four CJK characters)."""
    found = {content.strip(), *(line.strip() for line in content.splitlines())}
    return sorted((n.encode() for n in found if len(n.encode()) >= 12), key=len, reverse=True)


def git(store: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    return subprocess.run(
        ["git", *args], cwd=store, capture_output=True, check=False, env=env
    ).stdout


def all_objects(store: Path, env: dict[str, str]) -> bytes:
    return git(store, "cat-file", "--batch-all-objects", "--batch", env=env)


def reachable_objects(store: Path, env: dict[str, str]) -> bytes:
    listed = git(store, "rev-list", "--objects", "--all", "--reflog", env=env)
    shas = b"\n".join(line.split(b" ", 1)[0] for line in listed.splitlines() if line)
    return subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=store,
        input=shas + b"\n",
        capture_output=True,
        check=False,
        env=env,
    ).stdout


def plain_files_holding(store: Path, needles: Sequence[bytes]) -> list[str]:
    """Files of the store folder (outside git's object database) holding a needle."""
    found = []
    objects = store / ".git" / "objects"
    for path in store.rglob("*"):
        if objects in path.parents or path.is_symlink() or not path.is_file():
            continue
        try:
            if path.stat().st_size > 20_000_000:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if any(n in data for n in needles):
            found.append(path.relative_to(store).as_posix())
    return sorted(found)


def baseline_tags(store: Path, env: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    out = git(
        store,
        "for-each-ref",
        "--format=%(refname:short)%00%(contents)%00%00",
        "refs/tags/baseline/",
        env=env,
    ).decode("utf-8", "replace")
    tags = []
    for chunk in out.split("\0\0"):
        chunk = chunk.strip("\n")
        if not chunk:
            continue
        name, _, message = chunk.partition("\0")
        fields = dict(
            (k.strip(), v.strip())
            for k, sep, v in (line.partition(":") for line in message.splitlines())
            if sep and k.strip() in ("decision", "batch", "actor")
        )
        tags.append((name, fields))
    return tags


def load_yaml_simple(path: Path) -> dict[str, Any]:
    import yaml  # PyYAML is one of memgov's own dependencies: the venv has it

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except Exception:
        return {}
    return data if isinstance(data, dict) else {}


# ------------------------------------------------------------------------ checks
STORES = ("private", "team")


@dataclass
class Failure:
    kind: str  # a short class: "traceback", "write refused", "decided twice", ...
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def doctor_errors(run: Run, root: Path) -> set[tuple[str, str, str, str]] | None:
    data = run.json()
    if not isinstance(data, dict):
        return None
    found = set()
    for entry in data.get("stores") or ():
        name = Path(str(entry.get("store", ""))).name
        for f in entry.get("findings") or ():
            if f.get("severity") == "error":
                reason = str(f.get("reason", "")).replace(str(root), "<root>")
                found.add((name, str(f.get("path")), str(f.get("field")), reason))
    return found


def check_command(step: str, run: Run, out: list[Failure], *, must_succeed: bool = False) -> None:
    if run.traceback:
        out.append(Failure("traceback", f"{step}: {run.tail(3)}"))
    elif run.code is None or not 0 <= run.code <= 3:
        out.append(Failure("bad exit", f"{step}: exit {run.code}: {run.tail(2)}"))
    elif must_succeed and run.code != 0:
        out.append(Failure("write refused", f"{step}: exit {run.code}: {run.tail(2)}"))


Memgov = Callable[..., Run]  # memgov(*argv, now=...) -> Run


def check_stores(
    root: Path,
    template: Path,
    env: dict[str, str],
    memgov: Memgov,
    *,
    baseline_errors: set[tuple[str, str, str, str]],
) -> list[Failure]:
    """(a) the next commands work and the stores are consistent, (b) erased content is
    in no object, (c) no decision applied twice, (d) cross-store work is whole."""
    out: list[Failure] = []
    first = memgov("doctor", "--json", "--store", str(root), now=AFTER_NOW)
    check_command("doctor right after", first, out)
    for i, name in enumerate(STORES):
        write = memgov(
            "log",
            "--store",
            str(root / name),
            "--as",
            owner_of(root),
            "--task",
            "tr_after_crash",
            "--index",
            str(i),
            f"after the round, in the {name} store",
            now=AFTER_NOW,
        )
        check_command(f"log in {name}", write, out, must_succeed=True)
    second = memgov("doctor", "--json", "--store", str(root), now=AFTER_NOW)
    check_command("doctor after a write", second, out)
    errors = doctor_errors(second, root)
    if errors is None:
        if not second.traceback:
            out.append(Failure("doctor unreadable", second.tail(2)))
    else:
        for name, path, fld, reason in sorted(errors - baseline_errors):
            where = f"{name}/{path}" + (f" field {fld}" if fld != "None" else "")
            out.append(Failure("doctor error", f"{where}: {reason[:200]}"))
    for name in STORES:
        out += check_one_store(root / name, template / name, env)
    out += check_cross_store(root)
    return out


def owner_of(root: Path) -> str:
    return str(load_yaml_simple(root / "private" / "memgov.yaml").get("owner") or "liys05")


def check_one_store(store: Path, template: Path, env: dict[str, str]) -> list[Failure]:
    out: list[Failure] = []
    name = store.name
    if not store.is_dir():
        return [Failure("store missing", name)]
    # -- (a) git: nothing left outside .memgov/, no lock, no journal
    status = git(store, "status", "--porcelain", "--untracked-files=all", env=env).decode(
        "utf-8", "replace"
    )
    stray = [ln for ln in status.splitlines() if ln.strip() and ".memgov/" not in ln[3:]]
    if stray:
        out.append(Failure("git status", f"{name}: " + "; ".join(stray[:6])))
    if (store / ".git" / "index.lock").exists():
        out.append(Failure("index.lock left", name))
    locks = sorted(  # HEAD.lock, refs/heads/main.lock, next-index-*.lock, packed-refs.lock...
        p.relative_to(store / ".git").as_posix()
        for p in (store / ".git").rglob("*.lock")
        if p.name != "index.lock" and "objects" not in p.relative_to(store / ".git").parts
    )
    if locks:
        out.append(Failure("git lock left", f"{name}: .git/" + ", .git/".join(locks[:5])))
    if (store / ".memgov" / "txn.json").exists():
        out.append(Failure("journal left", f"{name}: .memgov/txn.json after two writes"))
    # -- events
    events = [e for rel in event_logs(store) for e in read_jsonl(store / rel)]
    gone = rolled_back(events)
    live = [e for e in events if e.get("id") not in gone]
    ids = Counter(str(e.get("id")) for e in events)
    dup = [i for i, n in ids.items() if n > 1]
    if dup:
        out.append(Failure("event id twice", f"{name}: {', '.join(sorted(dup)[:5])}"))
    # -- (b) erasure: what the events say is deleted is gone, from files and objects
    before = memory_files(template)
    now_files = memory_files(store)
    erased = {
        mid
        for e in live
        if e.get("to", e.get("to_status")) == "deleted"
        for mid in e.get("memory_ids") or ()
    }
    needles: dict[str, list[bytes]] = {}
    for mid in sorted(erased):
        if mid in now_files:
            out.append(Failure("erased but present", f"{name}: {mid} has a deleted event"))
        if mid in before:
            needles[mid] = needles_of(before[mid][1])
    if erased:  # even a team store, whose history keeps it, has it out of its last commit
        tree = set(git(store, "ls-tree", "-r", "--name-only", "HEAD", env=env).decode().split("\n"))
        for mid in sorted(erased & set(before)):
            if before[mid][0] in tree:
                out.append(Failure("erased file in HEAD", f"{name}: {before[mid][0]}"))
    for mid in sorted(set(before) - set(now_files) - erased):
        out.append(Failure("memory vanished", f"{name}: {mid} is gone with no erase event"))
    if needles:
        flat = [n for ns in needles.values() for n in ns]
        files = plain_files_holding(store, flat)
        if files:
            out.append(Failure("erased content on disk", f"{name}: in {', '.join(files[:6])}"))
        if name == "private" or _scope(store) == "private":  # a team store is never rewritten
            blob = all_objects(store, env)
            for mid, ns in needles.items():
                if any(n in blob for n in ns):
                    reach = reachable_objects(store, env)
                    where = (
                        "a reachable object"
                        if any(n in reach for n in ns)
                        else "unreachable objects"
                    )
                    out.append(Failure("erased content in git", f"{name}: {mid} in {where}"))
    # -- (c) decisions: each item decided once, each decision reverted once, records whole
    decisions: dict[str, dict[str, Any]] = {}
    folder = store / "decisions"
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            out.append(Failure("decision unreadable", f"{name}: {path.name}"))
            continue
        if isinstance(data, dict):
            decisions[path.stem] = data
    effective: dict[str, list[str]] = {}
    reverts: dict[str, list[str]] = {}
    for did, data in decisions.items():
        option = data.get("option")
        if option == "revert":
            target = str(data.get("note") or "").removeprefix("reverts ").strip()
            reverts.setdefault(target, []).append(did)
        elif option not in ("defer", "auto", "rollback") and not data.get("reverted_by"):
            effective.setdefault(str(data.get("item")), []).append(did)
        by = data.get("reverted_by")
        if by and by not in decisions:
            out.append(Failure("decision half-reverted", f"{name}: {did} reverted by missing {by}"))
    for item, dids in sorted(effective.items()):
        if len(dids) > 1:
            out.append(Failure("decided twice", f"{name}: {item} by {', '.join(sorted(dids))}"))
    for target, dids in sorted(reverts.items()):
        if len(dids) > 1:
            out.append(Failure("reverted twice", f"{name}: {target} by {', '.join(sorted(dids))}"))
    named = {str(e.get("decision")) for e in live if e.get("decision")}
    for e in live:
        if e.get("action") == "decide" and str(e.get("decision")) not in decisions:
            out.append(
                Failure(
                    "decide event without its record",
                    f"{name}: event {e.get('id')} names decisions/{e.get('decision')}.json",
                )
            )
    for did in sorted(set(decisions) - named):
        out.append(Failure("decision record without events", f"{name}: decisions/{did}.json"))
    tags = baseline_tags(store, env)
    for key in ("decision", "batch"):
        per = Counter(f[key] for _t, f in tags if f.get(key))
        for value, n in per.items():
            if n > 1:
                out.append(Failure("two baselines", f"{name}: {n} baseline tags for {key} {value}"))
    # -- requests: one open request per memory and kind; a closed one names its decision
    requests = [load_yaml_simple(p) for p in sorted((store / "requests").glob("*.yaml"))]
    open_per = Counter(
        (str(r.get("kind")), str(r.get("memory_id"))) for r in requests if r.get("status") == "open"
    )
    for (kind, mid), n in open_per.items():
        if n > 1:
            out.append(Failure("two open requests", f"{name}: {n} open {kind} requests for {mid}"))
    for r in requests:
        if r.get("status") in ("approved", "rejected"):
            closed_by = r.get("decision")
            if not closed_by or str(closed_by) not in decisions:
                out.append(
                    Failure(
                        "request closed without decision", f"{name}: {r.get('id')} -> {closed_by}"
                    )
                )
    for did, data in decisions.items():
        rid = data.get("request")
        if (
            rid
            and data.get("kind") in ("promotion", "deletion")
            and data.get("option") in ("approve", "reject")
            and not data.get("reverted_by")
        ):
            match = [r for r in requests if r.get("id") == rid]
            if match and match[0].get("status") == "open":
                out.append(Failure("decision left its request open", f"{name}: {did} ({rid})"))
    return out


def _scope(store: Path) -> str:
    return str(load_yaml_simple(store / "memgov.yaml").get("scope") or "")


def check_cross_store(root: Path) -> list[Failure]:
    """(d) a promotion is both stores or neither."""
    out: list[Failure] = []
    private, team = root / "private", root / "team"
    pdecisions = {}
    for path in sorted((private / "decisions").glob("*.json")):
        try:
            pdecisions[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            continue
    tdecisions = {p.stem for p in (team / "decisions").glob("*.json")}
    team_files = memory_files(team)
    for did, data in pdecisions.items():
        if data.get("kind") != "promotion" or data.get("option") != "approve":
            continue
        for entry in data.get("created") or ():
            if Path(str(entry.get("store"))).name != "team":
                continue
            present = entry.get("id") in team_files
            if data.get("reverted_by") and present:
                out.append(Failure("revert left the team copy", f"{did}: {entry.get('id')}"))
            elif not data.get("reverted_by") and not present:
                out.append(Failure("promotion without team copy", f"{did}: {entry.get('id')}"))
    events = [e for rel in event_logs(team) for e in read_jsonl(team / rel)]
    gone = rolled_back(events)
    for ev in events:
        named = ev.get("decision")
        if (
            named
            and ev.get("id") not in gone
            and ev.get("action") in ("promote", "merge", "reconfirm", "conflict")
            and named not in pdecisions
            and named not in tdecisions
        ):
            out.append(
                Failure(
                    "team copy without private decision",
                    f"team event {ev.get('id')} ({ev.get('action')}) names {named}",
                )
            )
    return out


# -------------------------------------------------------------------- commands
@dataclass(frozen=True)
class Command:
    """One writing command of the attack: the variant it starts from, its argv
    (``{root}``, ``{private}``, ``{team}``, ``{owner}``, ``{import}``, ``{decision}``
    and the ids of the demo's items are filled in per round)."""

    name: str
    variant: str
    argv: tuple[str, ...]


#: every writing command, each kind and option
COMMANDS: tuple[Command, ...] = (
    Command("remember-new", "ready", ("remember", "{work}/cand-new.json", "--store", "{private}")),
    Command(
        "remember-conflict",
        "ready",
        ("remember", "{work}/cand-conflict.json", "--store", "{private}"),
    ),
    Command(
        "remember-merge", "ready", ("remember", "{work}/cand-merge.json", "--store", "{private}")
    ),
    Command(
        "log",
        "base",
        ("log", "--task", "tr_crash", "--index", "7", "a message", "--store", "{private}"),
    ),
    *(
        Command(
            f"decide-conflict-{opt}",
            "base",
            ("decide", "{conflict}", "--approve", "--option", opt, *extra, "--store", "{root}"),
        )
        for opt, extra in (
            ("newer", ()),
            ("older", ()),
            (
                "parallel",
                ("--condition", "{conflict_a}=when=a", "--condition", "{conflict_b}=when=b"),
            ),
            ("neither", ()),
            ("defer", ()),
        )
    ),
    *(
        Command(
            f"decide-team-conflict-{opt}",
            "base",
            (
                "decide",
                "{team_conflict}",
                "--approve",
                "--option",
                opt,
                *extra,
                "--store",
                "{root}",
            ),
        )
        for opt, extra in (
            ("newer", ()),
            ("older", ()),
            (
                "parallel",
                (
                    "--condition",
                    "{team_conflict_a}=env=test",
                    "--condition",
                    "{team_conflict_b}=env=prod",
                ),
            ),
            ("neither", ()),
            ("defer", ()),
        )
    ),
    Command(
        "decide-promotion-approve",
        "base",
        ("decide", "{promotion}", "--approve", "--store", "{root}"),
    ),
    Command(
        "decide-promotion-reject",
        "base",
        ("decide", "{promotion}", "--reject", "--store", "{root}"),
    ),
    Command(
        "decide-deletion-approve",
        "base",
        ("decide", "{deletion}", "--approve", "--store", "{root}"),
    ),
    Command(
        "decide-deletion-reject", "base", ("decide", "{deletion}", "--reject", "--store", "{root}")
    ),
    Command(
        "decide-batch-approve", "base", ("decide", "{batch}", "--approve", "--store", "{root}")
    ),
    Command("decide-batch-reject", "base", ("decide", "{batch}", "--reject", "--store", "{root}")),
    Command(
        "decide-batch-file-approve",
        "base",
        ("decide", "{batch}", "--approve", "--file", "{batch_file}", "--store", "{root}"),
    ),
    Command(
        "decide-batch-file-reject",
        "base",
        ("decide", "{batch}", "--reject", "--file", "{batch_file}", "--store", "{root}"),
    ),
    Command("revert-conflict", "decided-conflict", ("revert", "{decision}", "--store", "{root}")),
    Command("revert-team-conflict", "decided-team", ("revert", "{decision}", "--store", "{root}")),
    Command("revert-promotion", "decided-promotion", ("revert", "{decision}", "--store", "{root}")),
    Command(
        "revert-deletion-reject", "decided-deletion", ("revert", "{decision}", "--store", "{root}")
    ),
    Command("revert-batch", "approved-batch", ("revert", "{decision}", "--store", "{root}")),
    Command(
        "request-delete",
        "base",
        ("request-delete", "{active}", "--reason", "no longer true", "--store", "{root}"),
    ),
    Command(
        "request-promote",
        "base",
        ("request-promote", "{promotable}", "--reason", "the team needs it", "--store", "{root}"),
    ),
    Command("sweep", "ready", ("sweep", "--env", "node=20", "--store", "{root}")),
    Command("consolidate", "rejected-batch", ("consolidate", "--store", "{private}")),
    Command("consolidate-team", "base", ("consolidate", "--store", "{team}")),
    Command("rollback", "approved-batch", ("rollback", "baseline/0000", "--store", "{private}")),
    Command(
        "import-claude-code", "base", ("import", "claude-code", "{import}", "--store", "{root}")
    ),
    Command("recall", "base", ("recall", "user:{owner}", "--store", "{root}")),
    Command(
        "log-transcript",
        "base",
        ("log", "--transcript", "{work}/session-crash.jsonl", "--store", "{private}"),
    ),
)


def session_transcript(turns: int = 150) -> str:
    """A Claude Code session of ``turns`` prompts, each with a tool's call, its output
    and a reply, over three days (three daily logs): for ``memgov log --transcript``."""
    lines: list[dict[str, Any]] = []
    for n in range(turns):
        stamp = f"2026-11-{16 + n * 3 // turns:02d}T0{n % 10}:{n % 60:02d}:00.000Z"
        base = {"sessionId": "crash-session", "isSidechain": False, "timestamp": stamp}
        call = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": "ls"}}
        output = "\n".join(f"file-{n}-{i}.txt" for i in range(n % 40 * 10))
        said = [
            ("user", f"Prompt {n}: list the files"),
            ("assistant", [call]),
            ("user", [{"type": "tool_result", "tool_use_id": f"t{n}", "content": output}]),
            ("assistant", [{"type": "text", "text": f"Reply {n}: done."}]),
        ]
        lines += [
            {**base, "type": role, "uuid": f"u{n}-{i}", "message": {"role": role, "content": c}}
            for i, (role, c) in enumerate(said)
        ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def command_names() -> list[str]:
    return [c.name for c in COMMANDS]


@dataclass(frozen=True)
class Race:
    """Two deciders on one item, started at the same moment."""

    name: str
    variant: str
    first: tuple[str, ...]
    second: tuple[str, ...]
    request: bool = False  # two requests for one memory, not two decisions


RACES: tuple[Race, ...] = (
    Race(
        "conflict newer vs neither",
        "base",
        ("decide", "{conflict}", "--approve", "--option", "newer", "--store", "{root}"),
        ("decide", "{conflict}", "--approve", "--option", "neither", "--store", "{root}"),
    ),
    Race(
        "conflict older vs parallel",
        "base",
        ("decide", "{conflict}", "--approve", "--option", "older", "--store", "{root}"),
        (
            "decide",
            "{conflict}",
            "--approve",
            "--option",
            "parallel",
            "--condition",
            "{conflict_a}=when=a",
            "--condition",
            "{conflict_b}=when=b",
            "--store",
            "{root}",
        ),
    ),
    Race(
        "team conflict newer vs neither",
        "base",
        ("decide", "{team_conflict}", "--approve", "--option", "newer", "--store", "{root}"),
        ("decide", "{team_conflict}", "--approve", "--option", "neither", "--store", "{root}"),
    ),
    Race(
        "team conflict older vs newer",
        "base",
        ("decide", "{team_conflict}", "--approve", "--option", "older", "--store", "{root}"),
        ("decide", "{team_conflict}", "--approve", "--option", "newer", "--store", "{root}"),
    ),
    Race(
        "deletion approve vs reject",
        "base",
        ("decide", "{deletion}", "--approve", "--store", "{root}"),
        ("decide", "{deletion}", "--reject", "--store", "{root}"),
    ),
    Race(
        "promotion approve vs reject",
        "base",
        ("decide", "{promotion}", "--approve", "--store", "{root}"),
        ("decide", "{promotion}", "--reject", "--store", "{root}"),
    ),
    Race(
        "batch approve vs reject",
        "base",
        ("decide", "{batch}", "--approve", "--store", "{root}"),
        ("decide", "{batch}", "--reject", "--store", "{root}"),
    ),
    Race(
        "batch approve vs approve one file",
        "base",
        ("decide", "{batch}", "--approve", "--store", "{root}"),
        ("decide", "{batch}", "--approve", "--file", "{batch_file}", "--store", "{root}"),
    ),
    Race(
        "two reverts of a conflict decision",
        "decided-conflict",
        ("revert", "{decision}", "--store", "{root}"),
        ("revert", "{decision}", "--store", "{root}"),
    ),
    Race(
        "two reverts of a promotion",
        "decided-promotion",
        ("revert", "{decision}", "--store", "{root}"),
        ("revert", "{decision}", "--store", "{root}"),
    ),
    Race(
        "two request-delete of one memory",
        "base",
        ("request-delete", "{active}", "--reason", "wrong since March", "--store", "{root}"),
        ("request-delete", "{active}", "--reason", "I never said that", "--store", "{root}"),
        request=True,
    ),
)


# ------------------------------------------------------------------- the harness
IMPORT_FILES = {
    "MEMORY.md": "- [Editor](user_editor.md) — the editor the user prefers\n"
    "- [Review style](feedback_review.md) — how reviews should read\n"
    "- [Release day](project_release.md) — when releases go out\n",
    "user_editor.md": "---\nname: user_editor\ndescription: editor\ntype: user\n---\n"
    "The user prefers Helix over Vim for quick edits.\n",
    "feedback_review.md": "---\nname: feedback_review\ndescription: reviews\ntype: feedback\n---\n"
    "Review comments should quote the line they are about.\n\n"
    "**Why:** the user lost track of a comment last week.\n",
    "project_release.md": "---\nname: project_release\ndescription: releases\ntype: project\n---\n"
    "Releases of this project go out on Tuesdays after the standup.\n",
}


@dataclass
class Round:
    number: int
    command: str
    delay: float | None  # the kill delay; None for a race
    killed: bool
    run: Run | None
    failures: list[Failure]
    kept: Path | None = None
    note: str = ""

    @property
    def consistent(self) -> bool:
        return not self.failures


class Harness:
    """Builds the demo once, the variants from it, and runs rounds at ``work/round``."""

    def __init__(
        self,
        work: Path,
        *,
        keep: Path | None = None,
        code: Path | None = None,
        cold: bool = False,
        log: Callable[[str], None] = print,
    ):
        self.work = Path(work).resolve()
        self.work.mkdir(parents=True, exist_ok=True)
        self.env = base_env(self.work / "home", code)
        self.round = self.work / "round"
        self.variants = self.work / "variants"
        self.keep = Path(keep).resolve() if keep else self.work / "kept"
        self.transcript: list[str] = []  # every line logged, for a test's failure message
        self._print = log
        self.values: dict[str, str] = {}
        self.decisions: dict[str, str] = {}  # variant -> the decision a revert targets
        self.baseline_errors: dict[str, set[tuple[str, str, str, str]]] = {}
        self.broken_variants: dict[str, str] = {}
        self.slots = self.work / "slots"
        self.slots.mkdir(exist_ok=True)
        self.cold = cold
        self.zygote = Zygote(self.env, self.slots)

    def log(self, line: str) -> None:
        self.transcript.append(line)
        self._print(line)

    def close(self) -> None:
        self.zygote.close()

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def memgov(self, *argv: str, now: datetime) -> Run:
        """A command that is not attacked, to completion."""
        if self.cold:
            return run_memgov(self.env, *argv, now=now)
        return self.zygote.run(*argv, now=now, slot=self.slots / "plain")

    # -- building
    def _fresh_round(self) -> None:
        if self.round.exists():
            shutil.rmtree(self.round)

    def _memgov(self, *argv: str, now: datetime = SETUP_NOW) -> Run:
        return self.memgov(*argv, now=now)

    def build(self, variants: Iterable[str] | None = None) -> None:
        """The demo, then each variant it needs (all of them by default)."""
        wanted = (
            set(variants)
            if variants is not None
            else {c.variant for c in COMMANDS} | {r.variant for r in RACES}
        )
        if self.variants.exists():
            shutil.rmtree(self.variants)
        self.variants.mkdir()
        self._fresh_round()
        made = self._memgov("demo", "--store", str(self.round), "--no-open")
        if made.code != 0:
            raise RuntimeError(f"memgov demo failed: {made.tail()}")
        self._discover()
        self._write_inputs()
        base = self.variants / "base"
        shutil.move(str(self.round), base)
        setups: dict[str, list[tuple[str, ...]]] = {
            "ready": [
                (
                    "log",
                    "--task",
                    "tr_crash",
                    "--index",
                    "1",
                    "这个项目的 CLI 用 Rust 写",
                    "--store",
                    "{private}",
                ),
                (
                    "log",
                    "--task",
                    "tr_crash",
                    "--index",
                    "2",
                    "单测其实用 pnpm jest",
                    "--store",
                    "{private}",
                ),
                (
                    "log",
                    "--task",
                    "tr_crash",
                    "--index",
                    "3",
                    "还是 pnpm,没换",
                    "--store",
                    "{private}",
                ),
                (
                    "log",
                    "--task",
                    "tr_crash",
                    "--index",
                    "4",
                    "node 18 构建要加 legacy provider",
                    "--store",
                    "{private}",
                ),
                ("remember", "{work}/cand-reflection.json", "--store", "{private}"),
            ],
            "decided-conflict": [
                ("decide", "{conflict}", "--approve", "--option", "newer", "--store", "{root}")
            ],
            "decided-team": [
                ("decide", "{team_conflict}", "--approve", "--option", "older", "--store", "{root}")
            ],
            "decided-promotion": [("decide", "{promotion}", "--approve", "--store", "{root}")],
            "decided-deletion": [("decide", "{deletion}", "--reject", "--store", "{root}")],
            "approved-batch": [("decide", "{batch}", "--approve", "--store", "{root}")],
            "rejected-batch": [("decide", "{batch}", "--reject", "--store", "{root}")],
        }
        for name, steps in setups.items():
            if name not in wanted:
                continue
            self._copy_to_round("base")
            problem = ""
            for step in steps:
                result = self._memgov(*self.fill(step), "--as", self.values["owner"])
                if result.code not in (0, 3) or result.traceback:
                    problem = (
                        f"setup '{' '.join(step[:3])}' failed: exit {result.code}: {result.tail(2)}"
                    )
                    break
            if problem:
                self.broken_variants[name] = problem
                self.log(f"variant {name}: {problem}")
                self._fresh_round()
                continue
            if name.startswith(("decided-", "approved-")):
                found = sorted((self.round / "private" / "decisions").glob("*.json"))
                found += sorted((self.round / "team" / "decisions").glob("*.json"))
                if found:
                    self.decisions[name] = found[-1].stem
            shutil.move(str(self.round), self.variants / name)
        for name in [*(v.name for v in self.variants.iterdir())]:
            self.baseline_errors[name] = self._template_errors(name)

    def _template_errors(self, variant: str) -> set[tuple[str, str, str, str]]:
        self._copy_to_round(variant)
        result = self._memgov("doctor", "--json", "--store", str(self.round), now=AFTER_NOW)
        errors = doctor_errors(result, self.round) or set()
        self._fresh_round()
        return errors

    def _discover(self) -> None:
        """The demo's item ids and a few memory ids, from its own queue."""
        root = self.round
        owner = owner_of(root)
        queue = self._memgov("queue", "--json", "--store", str(root)).json() or []
        v: dict[str, str] = {
            "root": str(root),
            "private": str(root / "private"),
            "team": str(root / "team"),
            "owner": owner,
            "work": str(self.work),
            "import": str(self.work / "import" / "liyyro" / "memory"),
        }
        for item in queue:
            kind, scope, ident = item.get("kind"), item.get("scope"), item.get("id")
            if kind == "conflict":
                key = "team_conflict" if scope == "team" else "conflict"
                v.setdefault(key, ident)
                shown = self._memgov("show", ident, "--json", "--store", str(root)).json() or {}
                ids = [str(r["id"]) for r in shown.get("records") or () if r.get("id")]
                if len(ids) >= 2:
                    v.setdefault(f"{key}_a", ids[0])
                    v.setdefault(f"{key}_b", ids[1])
            elif kind == "promotion":
                shown = self._memgov("show", ident, "--json", "--store", str(root)).json() or {}
                if not shown.get(
                    "secret_scan", shown.get("scan")
                ):  # the clean one: the other is blocked by a token
                    v.setdefault("promotion", ident)
            elif kind == "deletion":
                v.setdefault("deletion", ident)
            elif kind == "consolidation":
                v.setdefault("batch", ident)
                shown = self._memgov("show", ident, "--json", "--store", str(root)).json() or {}
                files = [
                    f.get("path")
                    for f in (shown.get("analysis") or {}).get("files") or ()
                    if str(f.get("path", "")).startswith("memories/")
                ]
                if files:
                    v.setdefault("batch_file", str(files[0]))
        listed = self._memgov("list", "--json", "--store", str(root / "private")).json() or []
        requested = set()
        for r in (root / "private" / "requests").glob("*.yaml"):
            requested.add(str(load_yaml_simple(r).get("memory_id")))
        for m in listed:
            if m.get("status") == "active" and m.get("id") not in requested:
                if m.get("type") == "preference":
                    v.setdefault("active", m["id"])
                elif m.get("type") == "semantic":
                    v.setdefault("promotable", m["id"])
        missing = [
            k
            for k in ("conflict", "team_conflict", "promotion", "deletion", "batch", "active")
            if k not in v
        ]
        if missing:
            raise RuntimeError(f"the demo lacks what the attack needs: {', '.join(missing)}")
        self.values = v

    def _write_inputs(self) -> None:
        folder = self.work / "import" / "liyyro" / "memory"
        folder.mkdir(parents=True, exist_ok=True)
        for rel, text in IMPORT_FILES.items():
            (folder / rel).write_text(text, encoding="utf-8")
        day = "logs/2026/11/2026-11-18.md"
        common = {"s1": 0.9, "s2": 0.85, "confidence": 0.8}

        def source(index: int, said: str) -> dict[str, Any]:
            return {"task": "tr_crash", "message_index": index, "evidence": said, "log": day}

        candidates = {
            "cand-new.json": {
                **common,
                "type": "semantic",
                "scope": "private",
                "subject": "project:liyyro",
                "attribute": "cli_language",
                "value": "Rust",
                "content": "这个项目的 CLI 用 Rust 写。",
                "source": source(1, "这个项目的 CLI 用 Rust 写"),
            },
            "cand-conflict.json": {
                **common,
                "type": "semantic",
                "scope": "private",
                "subject": "project:liyyro",
                "attribute": "test_command",
                "value": "pnpm jest",
                "content": "跑单测用 `pnpm jest`。",
                "source": source(2, "单测其实用 pnpm jest"),
            },
            "cand-merge.json": {
                **common,
                "type": "semantic",
                "scope": "private",
                "subject": "project:liyyro",
                "attribute": "package_manager",
                "value": "pnpm",
                "content": "用 pnpm,不用 npm。",
                "source": source(3, "还是 pnpm,没换"),
            },
            "cand-reflection.json": {
                **common,
                "type": "reflection",
                "scope": "private",
                "subject": "project:liyyro",
                "attribute": "node_build_flags",
                "content": "Node 18 下构建要加 `--openssl-legacy-provider`。",
                "environment": {"node": "18"},
                "source": source(4, "node 18 构建要加 legacy provider"),
            },
        }
        for name, data in candidates.items():
            (self.work / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        (self.work / "session-crash.jsonl").write_text(session_transcript(), encoding="utf-8")

    def fill(self, argv: Iterable[str], variant: str = "") -> list[str]:
        values = {**self.values, "decision": self.decisions.get(variant, "NO-DECISION")}
        return [re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), a) for a in argv]

    def _copy_to_round(self, variant: str) -> None:
        self._fresh_round()
        subprocess.run(["cp", "-a", str(self.variants / variant), str(self.round)], check=True)

    def usable(self, command: Command | Race) -> bool:
        if command.variant in self.broken_variants:
            return False
        needs_decision = any("{decision}" in a for a in getattr(command, "argv", ()))
        needs_decision |= any("{decision}" in a for a in getattr(command, "first", ()))
        return not needs_decision or command.variant in self.decisions

    # -- one command, started at the gate
    def start(self, argv: Sequence[str], *, now: datetime, slot: str) -> Proc:
        """Fork the command; it waits at the gate (create the :class:`Gate` first)."""
        return self.zygote.spawn(
            [*argv, "--as", self.values["owner"]], now=now, slot=self.slots / slot, gated=True
        )

    def measure(
        self, command: Command, repeat: int = 1, *, check: bool = True
    ) -> tuple[float, list[Failure], Run]:
        """Its normal duration (median of ``repeat`` runs from the release), and the
        checks after a run that was not killed (a control: failures here are not crashes;
        ``check=False``: only its exit and stderr are checked)."""
        times: list[float] = []
        failures: list[Failure] = []
        last: Run | None = None
        for _ in range(repeat):
            self._copy_to_round(command.variant)
            gate = Gate(self.slots)
            started = self.start(self.fill(command.argv, command.variant), now=ATTACK_NOW, slot="a")
            gate.release([started])
            last = started.finish()
            times.append(last.seconds)
            failures = []
            check_command(command.name, last, failures)
            if not failures and last.code not in (0, 3):  # it did nothing: the attack is void
                failures.append(
                    Failure("refused without a kill", f"exit {last.code}: {last.tail(1)[:240]}")
                )
            if not check:
                continue
            failures += check_stores(
                self.round,
                self.variants / command.variant,
                self.env,
                self.memgov,
                baseline_errors=self.baseline_errors.get(command.variant, set()),
            )
        assert last is not None
        return statistics.median(times), failures, last

    def crash_round(self, number: int, command: Command, delay: float) -> Round:
        self._copy_to_round(command.variant)
        gate = Gate(self.slots)
        started = self.start(self.fill(command.argv, command.variant), now=ATTACK_NOW, slot="a")
        gate.release([started])
        end = started.released_at + delay
        while time.monotonic() < end and started.poll() is None:
            time.sleep(min(0.002, max(0.0, end - time.monotonic())))
        killed = started.kill() if started.poll() is None else False
        run = started.finish()
        failures: list[Failure] = []
        if not killed:
            check_command(command.name, run, failures)
        failures += check_stores(
            self.round,
            self.variants / command.variant,
            self.env,
            self.memgov,
            baseline_errors=self.baseline_errors.get(command.variant, set()),
        )
        result = Round(number, command.name, delay, killed, run, failures)
        if failures:
            result.kept = self._keep(f"crash-{number:03d}-{command.name}")
        return result

    def race_round(self, number: int, race: Race, *, same_second: bool = False) -> Round:
        self._copy_to_round(race.variant)
        gate = Gate(self.slots)
        second_now = ATTACK_NOW if same_second else ATTACK_NOW + timedelta(seconds=1)
        a = self.start([*self.fill(race.first, race.variant), "--json"], now=ATTACK_NOW, slot="a")
        b = self.start([*self.fill(race.second, race.variant), "--json"], now=second_now, slot="b")
        gate.release([a, b])
        ra, rb = a.finish(), b.finish()
        failures = judge_race(race, ra, rb, self.round)
        failures += [
            f
            for f in check_stores(
                self.round,
                self.variants / race.variant,
                self.env,
                self.memgov,
                baseline_errors=self.baseline_errors.get(race.variant, set()),
            )
        ]
        result = Round(number, race.name, None, False, None, failures)
        result.note = f"exits {ra.code} and {rb.code}"
        if failures:
            result.kept = self._keep(f"race-{number:03d}-{re.sub(r'[^a-z0-9]+', '-', race.name)}")
            (result.kept / "racers.txt").write_text(
                "\n\n".join(
                    f"$ memgov {' '.join(r.argv)}\nexit {r.code}\n"
                    f"--- stdout\n{r.out}\n--- stderr\n{r.err}"
                    for r in (ra, rb)
                ),
                encoding="utf-8",
            )
        return result

    def _keep(self, name: str) -> Path:
        self.keep.mkdir(parents=True, exist_ok=True)
        target = self.keep / name
        if target.exists():
            shutil.rmtree(target)
        shutil.move(str(self.round), target)
        return target


# ------------------------------------------------------------------- judging
DOUBLE = {
    "both exited 0",
    "decided twice",
    "reverted twice",
    "two open requests",
    "two baselines",
    "two requests returned",
}


def judge_race(race: Race, ra: Run, rb: Run, root: Path) -> list[Failure]:
    out: list[Failure] = []
    for r in (ra, rb):
        if r.traceback:
            out.append(Failure("traceback", f"memgov {' '.join(r.argv[:3])}: {r.tail(3)}"))
    codes = (ra.code, rb.code)
    if race.request:
        if codes == (0, 0):
            ids = {str((r.json() or {}).get("id")) for r in (ra, rb)}
            if len(ids) > 1:
                out.append(Failure("two requests returned", ", ".join(sorted(ids))))
        return out
    if codes == (0, 0):
        out.append(Failure("both exited 0", f"{race.name}"))
        return out
    winners = [r for r in (ra, rb) if r.code == 0]
    losers = [r for r in (ra, rb) if r.code != 0]
    if not winners:
        out.append(
            Failure("no winner", " / ".join(f"exit {r.code}: {r.tail(1)}" for r in (ra, rb)))
        )
    for loser in losers:
        if loser.code != 1 or "already decided by" not in loser.err:
            out.append(
                Failure(
                    "loser without 'already decided by'",
                    f"exit {loser.code}: {loser.tail(1)[:240]}",
                )
            )
    return out


def is_double(failure: Failure) -> bool:
    return failure.kind in DOUBLE


# ------------------------------------------------------------------- the loops
def crash_loop(
    harness: Harness,
    *,
    kills: int,
    seed: int,
    commands: Sequence[str] | None = None,
    spread: bool = False,
    repeat: int = 1,
    check_controls: bool = True,
) -> dict[str, Any]:
    """Kill ``kills`` commands at random moments; returns the counts and every round."""
    rng = random.Random(seed)
    chosen = [c for c in COMMANDS if commands is None or c.name in commands]
    chosen = [c for c in chosen if harness.usable(c)]
    skipped = sorted(
        {c.name for c in COMMANDS if commands is None or c.name in commands}
        - {c.name for c in chosen}
    )
    durations: dict[str, float] = {}
    controls: dict[str, list[Failure]] = {}
    for command in chosen:
        seconds, failures, run = harness.measure(command, repeat=repeat, check=check_controls)
        durations[command.name] = seconds
        controls[command.name] = failures
        state = "ok" if not failures else "; ".join(map(str, failures))
        harness.log(f"measured {command.name:<28} {seconds:6.3f}s exit {run.code}: {state}")
        if failures:
            harness._keep(f"control-{command.name}")
    rounds: list[Round] = []
    landed = 0
    number = 0
    order: list[Command] = []
    while landed < kills and number < kills * 3:
        if not order:
            order = list(chosen)
            if not spread:
                order = [rng.choice(chosen) for _ in chosen]
            else:
                rng.shuffle(order)
        command = order.pop()
        number += 1
        delay = rng.uniform(0.0, durations[command.name])
        result = harness.crash_round(number, command, delay)
        landed += result.killed
        rounds.append(result)
        what = "killed" if result.killed else "finished first"
        state = "consistent" if result.consistent else "INCONSISTENT"
        harness.log(
            f"[{number:3d}] {command.name:<28} kill at {delay:6.3f}s of "
            f"{durations[command.name]:.3f}s ({what}): {state}"
        )
        for failure in result.failures:
            harness.log(f"        {failure}")
        if result.kept:
            harness.log(f"        store kept in {result.kept}")
    killed = [r for r in rounds if r.killed]
    return {
        "kills": len(killed),
        "consistent": sum(r.consistent for r in killed),
        "rounds": rounds,
        "finished_first": len(rounds) - len(killed),
        "durations": durations,
        "controls": controls,
        "skipped": skipped,
    }


def race_loop(
    harness: Harness,
    *,
    rounds: int,
    seed: int,
    races: Sequence[str] | None = None,
    same_second: bool = False,
) -> dict[str, Any]:
    rng = random.Random(seed)
    chosen = [r for r in RACES if (races is None or r.name in races) and harness.usable(r)]
    results: list[Round] = []
    order: list[Race] = []
    for number in range(1, rounds + 1):
        if not order:
            order = list(chosen)
            rng.shuffle(order)
        race = order.pop()
        result = harness.race_round(number, race, same_second=same_second)
        results.append(result)
        doubles = [f for f in result.failures if is_double(f)]
        state = "DOUBLE APPLICATION" if doubles else "ok" if result.consistent else "PROBLEM"
        harness.log(f"[{number:3d}] {race.name:<36} {result.note}: {state}")
        for failure in result.failures:
            harness.log(f"        {failure}")
        if result.kept:
            harness.log(f"        store kept in {result.kept}")
    return {
        "races": len(results),
        "double": sum(any(is_double(f) for f in r.failures) for r in results),
        "rounds": results,
    }


def failure_classes(rounds: Iterable[Round]) -> dict[str, Counter[str]]:
    """kind of failure -> how many rounds of each command showed it."""
    classes: dict[str, Counter[str]] = {}
    for r in rounds:
        for kind in {f.kind for f in r.failures}:
            classes.setdefault(kind, Counter())[r.command] += 1
    return classes


def print_classes(rounds: Sequence[Round], log: Callable[[str], None] = print) -> None:
    classes = failure_classes(rounds)
    if not classes:
        return
    log("failure classes (rounds per command):")
    for kind, per in sorted(classes.items(), key=lambda kv: -sum(kv[1].values())):
        log(
            f"  {kind}: {sum(per.values())} round(s): "
            + ", ".join(f"{c} x{n}" for c, n in per.most_common())
        )
        example = next(f for r in rounds for f in r.failures if f.kind == kind)
        log(f"    e.g. {example.detail[:300]}")


def main_setup(argv_work: str | None) -> Path:
    import tempfile

    if argv_work:
        return Path(argv_work)
    return Path(tempfile.mkdtemp(prefix="memgov-attack-", dir=os.environ.get("TMPDIR", "/tmp")))


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use bench/crash_loop.py or bench/race_loop.py")
