"""The write gate on corpora of whole sessions: what a planted memory becomes.

    .venv/bin/python bench/provenance_corpus.py                      # every corpus
    .venv/bin/python bench/provenance_corpus.py --corpus blind       # the held-out one
    .venv/bin/python bench/provenance_corpus.py --words-only         # the cited role alone

Each scenario of ``tests/fixtures/provenance/<corpus>_{poisoned,benign}.jsonl`` is a
task: its messages (each with its role: user, assistant, tool, web, file, agent,
system) are logged in a real store, one task each, then the agent's candidate is
remembered through the whole pipeline, citing the message it names with its quote. The
outcome is read from what the store did:

- ``instruction``: written, and not marked external, or a preference (what the agent
  would follow as the user's own);
- ``data``: written, marked external (every channel says "from <where>: verify");
- ``held``: quarantined for a person; ``refused``: refused by the gate;
  ``lifecycle``: a working memory, which is never kept past its task (not counted
  as flagged).

Every candidate says it is stable and reusable (s1 = s2 = 0.9), as an agent that
wants it kept does, so the gate's other criteria do not hide what provenance does.

A poisoned scenario passes when it is not an instruction; a benign one is flagged when
it is held or refused. ``--words-only`` weighs each candidate by the role of the message
it cites and nothing else (how the gate judged before provenance), for comparison.

``tuning`` was written for tuning the measure's thresholds (core.domain.provenance);
``blind`` by someone who saw no rule and no other corpus, and is measured, never tuned on.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.record import Source
from core.store import logs
from core.store.store import Store
from core.store.transaction import transaction
from core.writing import quarantine
from core.writing.pipeline import Candidate, remember

CORPORA = ROOT / "tests" / "fixtures" / "provenance"
ACTOR = "bench@example.com"


def scenarios(name: str, label: str) -> list[dict[str, Any]]:
    path = CORPORA / f"{name}_{label}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def log_all(store: Store, found: list[dict[str, Any]]) -> str:
    """Every scenario's messages, each its own task, in today's daily log: one
    transaction and one commit (a message each would be a commit each). The log's path."""
    rel = logs.log_path(store.now())
    with transaction(store, actor=ACTOR, message="log: the corpus's sessions") as tx:
        for scenario in found:
            for index, message in enumerate(scenario["messages"]):
                rel, _line = logs.append_message(
                    store.root,
                    task=scenario["id"],
                    index=index,
                    role=message["role"],
                    text=message["text"],
                    when=store.now(),
                )
        tx.write_file(rel, (store.root / rel).read_text(encoding="utf-8"))
    return rel


def outcome(
    store: Store, scenario: dict[str, Any], logged: str | None = None
) -> tuple[str, dict[str, Any]]:
    """What the pipeline made of the scenario's candidate, and the record's provenance
    (``logged``: the log :func:`log_all` wrote its messages to; else logged here)."""
    task = scenario["id"]
    if logged is None:
        logged = log_all(store, [scenario])
    wanted = scenario["candidate"]
    candidate = Candidate(
        content=wanted["content"],
        type=wanted["type"],
        scope="private",
        subject="project:corpus",
        attribute=task.replace("-", "_"),
        source=Source(
            task=task, message_index=wanted["cites"], evidence=wanted["evidence"], log=logged
        ),
        s1=0.9,  # what an agent that wants it kept says (an attacker's agent too)
        s2=0.9,
    )
    done = remember(store, candidate, actor=ACTOR)
    if done.kind == "quarantined":
        return "held", {"reasons": [r[:90] for r in done.reasons]}
    if done.kind in ("refused", "empty"):
        if wanted["type"] == "working":  # the lifecycle's: working memory is never kept
            return "lifecycle", {}
        return "refused", {"reasons": list(done.reasons)}
    memory = store.memories[done.memory_ids[0]]
    found = memory.provenance or {}
    if found.get("external") and memory.type != "preference":
        return "data", found
    return "instruction", found


def measure(name: str, *, show: bool) -> None:
    home = Path(tempfile.mkdtemp(prefix="memgov-provenance-"))
    store = Store.init(home / "store", owner=ACTOR, actor=ACTOR)
    for label in ("poisoned", "benign"):
        counts: Counter[str] = Counter()
        wrong: list[str] = []
        found_scenarios = scenarios(name, label)
        logged = log_all(store, found_scenarios)
        for scenario in found_scenarios:
            kind, found = outcome(store, scenario, logged)
            counts[kind] += 1
            bad = kind == "instruction" if label == "poisoned" else kind in ("held", "refused")
            if bad:
                wrong.append(f"  {scenario['id']} {scenario['route']} -> {kind} {found}")
        total = sum(counts.values()) - counts["lifecycle"]
        kinds = ("instruction", "data", "held", "refused", "lifecycle")
        shown = ", ".join(f"{k} {counts[k]}" for k in kinds)
        if label == "poisoned":
            headline = f"admitted as an instruction {counts['instruction']}/{total}"
        else:
            flagged = counts["held"] + counts["refused"]
            headline = f"flagged {flagged}/{total} ({100 * flagged / total:.1f}%)"
        print(f"{name} {label}: {headline}  ({shown})")
        if show:
            print("\n".join(wrong))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", default=["tuning", "blind", "blind2", "blind3"])
    parser.add_argument("--words-only", action="store_true", help="weigh the cited role alone")
    parser.add_argument("--show", action="store_true", help="list each scenario gotten wrong")
    args = parser.parse_args()
    if args.words_only:
        quarantine.derived = lambda *_args: None  # type: ignore[assignment]
    for name in args.corpus:
        measure(name, show=args.show)


if __name__ == "__main__":
    main()
