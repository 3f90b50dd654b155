"""The demo's steps: the closed vocabulary its scenario files are written in.

Each step kind is one function here, given the :class:`Stage` (the two stores, the
clock, the language's words) and the step's arguments; :data:`STEPS` names them with
the arguments each takes. A step goes through the same functions an agent, a person
or a scheduled job would call; only ``write_by_hand`` writes a record behind the
pipeline's back, as a person who pasted it into a file before scanning existed did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.consolidation.consolidate import consolidate
from core.demo.cast import ACTORS, START, DemoClock, made_token
from core.demo.scenario import Step, text_keys
from core.domain.errors import StoreError
from core.domain.record import Memory, Source
from core.importers import CLAUDE_CODE, import_folder
from core.store.requests import file_request
from core.store.store import Store, new_memory_id
from core.store.transaction import transaction
from core.store.workspace import Workspace
from core.writing.citing import cite_in
from core.writing.decay import recall, sweep
from core.writing.pipeline import candidate_from_dict, remember
from core.writing.redteam import replay

#: what a scenario's ``at`` may count from the demo's start
TIME_UNITS = frozenset({"days", "hours", "minutes"})
#: what an agent's candidate carries unless its step says otherwise
CANDIDATE_DEFAULTS = {"s1": 0.9, "s2": 0.85, "confidence": 0.8}


@dataclass
class Stage:
    """What the steps act on: the demo's folder, its stores by name, its clock and
    the words of its language."""

    target: Path
    stores: Mapping[str, Store]
    clock: DemoClock
    texts: Mapping[str, str]

    def store(self, args: Mapping[str, Any]) -> Store:
        return self.stores[args["store"]]

    def at(self, args: Mapping[str, Any]) -> datetime:
        """Set the clock to the step's ``at`` (counted from the demo's start); its time."""
        when = START + timedelta(**args["at"])
        self.clock.at(when)
        return when

    def words(self, value: Any) -> Any:
        """``value`` with each ``{text: KEY}`` replaced by the language's words (and a
        ``token`` in them by the credential it describes)."""
        if isinstance(value, dict):
            if "text" in value:
                if not set(value) <= {"text", "token"}:
                    raise StoreError(f"{value}: a text names its key and at most a token")
                words = self.texts[value["text"]]
                return words.format(token=made_token(value["token"])) if "token" in value else words
            return {key: self.words(inner) for key, inner in value.items()}
        if isinstance(value, list):
            return [self.words(inner) for inner in value]
        return value


def actor(args: Mapping[str, Any], default: str | None = None) -> str:
    """The name of the step's actor, given by role (:data:`core.demo.cast.ACTORS`)."""
    return ACTORS[args.get("actor", default)]


def leads_out(relative: Any) -> bool:
    """Whether a path a step names would lead out of the folder it is written in."""
    path = Path(str(relative))
    return path.is_absolute() or ".." in path.parts


def remember_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """Someone says something (a log line), and the agent remembers it, citing it."""
    store, when, said = stage.store(args), stage.at(args), stage.words(args["said"])
    log, _line = store.log_message(
        task=args["task"],
        index=args["index"],
        role=args.get("role", "user"),
        text=said,
        actor=actor(args, "agent"),
    )
    data = {
        **CANDIDATE_DEFAULTS,
        **stage.words(args["record"]),
        "source": {
            "task": args["task"],
            "message_index": args["index"],
            "evidence": said,
            "log": log,
        },
    }
    stage.clock.at(when + timedelta(minutes=2))
    remember(store, candidate_from_dict(data), actor=actor(args, "agent"))


def offer_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """The agent offers a candidate that no log line backs (the gate judges it)."""
    store = stage.store(args)
    stage.at(args)
    remember(store, candidate_from_dict(stage.words(args["candidate"])), actor=actor(args, "agent"))


def write_by_hand_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """A person writes a file and a record straight into the store, in one commit."""
    store = stage.store(args)
    now = stage.at(args)
    fields = dict(stage.words(args["record"]))
    name, note = fields.pop("id")
    source = Source(**fields.pop("source"))
    record = Memory(
        id=new_memory_id(name, note), created_at=now, verified_at=now, source=source, **fields
    )
    with transaction(store, actor=actor(args), message=args["message"]) as tx:
        for path, text in args.get("files", {}).items():
            tx.write_file(path, text)
        tx.create(record, action=args["action"], reason=args["reason"])


def sweep_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """The scheduled sweep, in an environment that may have outgrown a record."""
    stage.at(args)
    sweep(stage.store(args), actor=actor(args), environment=args.get("environment"))


def recall_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """An agent recalls what it knows for a task and, if told, cites the first it used."""
    store = stage.store(args)
    stage.at(args)
    found = recall(
        store,
        subject_prefix=args["subject_prefix"],
        attribute=None,
        actor=actor(args, "agent"),
        limit=args["limit"],
        task=args["task"],
    )
    if args.get("cite_first") and found:
        ids = [found[0].memory.id]
        cite_in(Workspace([store]), ids, actor=actor(args, "agent"), task=args["task"])


def request_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """A request on the first record of the given key (``attribute``) for a person."""
    store = stage.store(args)
    stage.at(args)
    attribute = args["record"]["attribute"]
    record = next((m for m in store.memories.values() if m.attribute == attribute), None)
    if record is None:
        raise StoreError(f"demo: no record of {attribute!r} to file a {args['kind']} request on")
    reason = stage.words(args["reason"])
    file_request(store, kind=args["kind"], memory_id=record.id, actor=actor(args), reason=reason)


def replay_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """The red team's synthetic credentials and poisoned texts, through the gate."""
    stage.at(args)
    replay(stage.store(args), actor=actor(args))


def consolidate_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """The nightly consolidation, which leaves a batch for review."""
    stage.at(args)
    consolidate(stage.store(args), actor=actor(args))


def import_claude_code_step(stage: Stage, args: Mapping[str, Any]) -> None:
    """Claude Code's own memory folder, written as the agent wrote it, and imported."""
    stage.at(args)
    folder = stage.target / args["folder"]
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in args["files"].items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)  # team/ notes
        (folder / name).write_text(text, encoding="utf-8")
    workspace = Workspace(stores=list(stage.stores.values()))
    import_folder(CLAUDE_CODE, workspace, folder, actor=actor(args))


@dataclass(frozen=True)
class StepKind:
    """A step kind: what runs it, and the arguments it requires and allows."""

    run: Callable[[Stage, Mapping[str, Any]], None]
    required: frozenset[str]
    optional: frozenset[str] = frozenset()


def _kind(
    run: Callable[[Stage, Mapping[str, Any]], None], required: str, optional: str = ""
) -> StepKind:
    return StepKind(run, frozenset(required.split()), frozenset(optional.split()))


#: the step kinds a scenario may use, with the arguments each requires and allows
STEPS: dict[str, StepKind] = {
    "remember": _kind(remember_step, "store at task index said record", "role actor"),
    "offer": _kind(offer_step, "store at candidate", "actor"),
    "write_by_hand": _kind(
        write_by_hand_step, "store at actor message record action reason", "files"
    ),
    "sweep": _kind(sweep_step, "store at actor", "environment"),
    "recall": _kind(recall_step, "store at task subject_prefix limit", "actor cite_first"),
    "request": _kind(request_step, "store at kind record actor reason"),
    "replay": _kind(replay_step, "store at actor"),
    "consolidate": _kind(consolidate_step, "store at actor"),
    "import_claude_code": _kind(import_claude_code_step, "at folder files actor"),
}


def check(step: Step, stores: set[str], texts: Mapping[str, str]) -> None:
    """Refuse a step the vocabulary does not have, before anything is written."""
    kind = STEPS.get(step.kind)
    if kind is None:
        raise StoreError(f"{step.where}: no step {step.kind!r} (one of {', '.join(STEPS)})")
    given = set(step.args)
    missing, unknown = kind.required - given, given - kind.required - kind.optional
    if missing or unknown:
        raise StoreError(
            f"{step.where}: {step.kind} lacks {sorted(missing)} or has unknown {sorted(unknown)}"
        )
    if "store" in given and step.args["store"] not in stores:
        raise StoreError(f"{step.where}: no store {step.args['store']!r}")
    if "actor" in given and step.args["actor"] not in ACTORS:
        raise StoreError(f"{step.where}: no actor {step.args['actor']!r}")
    at = step.args.get("at", {})
    if not isinstance(at, dict) or not set(at) <= TIME_UNITS:
        raise StoreError(f"{step.where}: at counts {', '.join(sorted(TIME_UNITS))}")
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in at.values()):
        raise StoreError(f"{step.where}: at counts whole {', '.join(sorted(TIME_UNITS))}")
    paths = [step.args.get("folder", ""), *step.args.get("files", {})]
    if any(leads_out(path) for path in paths):
        raise StoreError(f"{step.where}: a path leads out of the demo's folder: {paths}")
    unsaid = [key for key in text_keys(step.args) if key not in texts]
    if unsaid:
        raise StoreError(f"{step.where}: no text {unsaid}")


def run(stage: Stage, step: Step) -> None:
    STEPS[step.kind].run(stage, step.args)
