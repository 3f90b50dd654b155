"""A link from outside that the user saw and kept in its task is data, not held.

The write gate holds a fact from outside that carries a link to a host the store does
not know: a person decides whether the agent may follow it later. When the agent has
shown that host to the user in a reply and the user then answered to keep it ("ok,
remember the URLs", "对，记下来", "そうそう、それ"), the person has seen it: the fact is
written as external data, its provenance names the host (``seen``), and the queue does
not hold the record later. Real stores, the whole pipeline, as in test_provenance_gate.
"""

from __future__ import annotations

import pytest
from conftest import ACTOR

from core.domain.provenance import Said, derive, seen_hosts
from core.domain.record import Source
from core.store.store import Store
from core.writing.decay import recall
from core.writing.pipeline import Candidate, Outcome, remember
from core.writing.quarantine import flagged_records

DOC = (
    "docs/platform/flags.md\n\nThe flag service is at https://flags.northwind-corp.io "
    "(staging: https://flags.stg.northwind-corp.io). Auth: mTLS; timeouts 200 ms."
)
FACT = (
    "Feature-flag service: https://flags.northwind-corp.io (staging "
    "https://flags.stg.northwind-corp.io), mTLS, 200 ms client timeout."
)


def _session(store: Store, task: str, said: list[tuple[str, str]], content: str) -> Outcome:
    rel = ""
    for index, (role, text) in enumerate(said):
        rel, _line = store.log_message(task=task, index=index, role=role, text=text, actor=ACTOR)
    candidate = Candidate(
        content=content,
        type="semantic",
        scope="private",
        subject="project:flags",
        attribute=task,
        source=Source(task=task, message_index=1, evidence="The flag service is at", log=rel),
        s1=0.9,
        s2=0.9,
    )
    return remember(store, candidate, actor=ACTOR)


def _shown(reply: str, answer: str | None) -> list[tuple[str, str]]:
    said = [("user", "what's the flag service's base URL? check the platform docs"), ("file", DOC)]
    said.append(("assistant", reply))
    if answer is not None:
        said.append(("user", answer))
    return said


SHOWN = "Base URL https://flags.northwind-corp.io, staging flags.stg.northwind-corp.io, mTLS."


@pytest.mark.parametrize(
    "answer", ["ok wire it and remember the URLs", "对，记下来", "そうそう、それ"]
)
def test_a_link_the_user_saw_and_kept_is_written_as_external_data(
    store: Store, answer: str
) -> None:
    done = _session(store, "t1", _shown(SHOWN, answer), FACT)
    assert done.kind == "written", done.reasons
    memory = Store(store.root).memories[done.memory_ids[0]]
    assert memory.provenance is not None
    assert memory.provenance["external"] is True
    assert memory.provenance["seen"] == ["flags.northwind-corp.io", "flags.stg.northwind-corp.io"]
    # the queue does not hold it later, and the agent is still told where it came from
    fresh = Store(store.root)
    assert flagged_records(fresh) == []
    (found,) = recall(fresh, subject_prefix="project:flags", attribute=None, actor=ACTOR,
                      record_usage=False)  # fmt: skip
    assert found.to_dict()["provenance"]["from"] == "file"


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        (SHOWN, None),  # shown, and the user never answered
        (SHOWN, "hmm, what about the timeouts?"),  # answered, but not to keep it
        ("The docs name the flag service and its staging twin.", "ok remember them"),  # not shown
    ],
)
def test_a_link_no_person_saw_and_kept_is_held(
    store: Store, reply: str, answer: str | None
) -> None:
    done = _session(store, "t2", _shown(reply, answer), FACT)
    assert done.kind == "quarantined"
    assert any("external-link" in r for r in done.reasons)


def test_only_the_hosts_shown_before_the_users_answer_are_seen() -> None:
    said = [
        Said("user", "ok, read the docs"),  # an answer before anything was shown
        Said("file", DOC + " Mirror: https://mirror.example.net/flags"),
        Said("assistant", SHOWN),
        Said("user", "yes, keep that"),
        Said("assistant", "Also a mirror at https://mirror.example.net/flags."),
    ]
    content = FACT + " Mirror: https://mirror.example.net/flags."
    assert seen_hosts(content, said) == ("flags.northwind-corp.io", "flags.stg.northwind-corp.io")
    found = derive(content, said, cited="file", memory_type="semantic")
    assert found.external
    assert found.to_dict()["seen"] == ["flags.northwind-corp.io", "flags.stg.northwind-corp.io"]
    # a host is shown by its whole name, not inside another's
    inside = [Said("file", DOC), Said("assistant", "see flags.northwind-corp.io.evil.example"),
              Said("user", "ok remember")]  # fmt: skip
    assert seen_hosts(FACT, inside) == ()
    # the user's own words are not external, and say nothing of seen hosts
    own = derive("remember https://flags.northwind-corp.io", said[:1], cited="user")
    assert "seen" not in own.to_dict()


def test_a_link_the_user_kept_beside_one_they_did_not_see_is_held(store: Store) -> None:
    content = FACT + " Fallback: https://flags-mirror.example.net/v1."
    done = _session(store, "t3", _shown(SHOWN, "great, remember that"), content)
    assert done.kind == "quarantined"
    assert any("flags-mirror.example.net" in r for r in done.reasons)
