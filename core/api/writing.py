"""Write: remember candidates through the gate, log what the user said, cite what
was used, record and sweep the uses of recalled memories, replay the red team, read
a session transcript into the daily logs (loaded only when asked for).

Nothing here loads the review, the reports or the importers: ``memgov remember``
costs the write pipeline and the store (``tests/e2e/test_startup.py``).
"""

from typing import TYPE_CHECKING

# core.writing
from core.writing.candidate import (
    AskedField,
    Candidate,
    asked_fields,
    candidate_from_dict,
    candidates_from_data,
)
from core.writing.citing import cite_in
from core.writing.decay import Use, record_uses, records_usage, sweep_workspace
from core.writing.pipeline import Outcome
from core.writing.quarantine import provenance, vouched
from core.writing.redteam import replay
from core.writing.remember import log_in, remember_in, remember_many_in
from core.writing.target import home_store

if TYPE_CHECKING:
    from core.importers.transcripts import TranscriptReport, ingest_transcript
    from core.importers.transcripts.follow import follow_rollout


def __getattr__(name: str) -> object:
    """The transcript ingest, loaded when asked for: ``memgov remember`` never loads the
    importers."""
    if name in ("ingest_transcript", "TranscriptReport"):
        from core.importers import transcripts

        return getattr(transcripts, name)
    if name == "follow_rollout":  # a Codex rollout as it grows (Codex's Stop hook)
        from core.importers.transcripts.follow import follow_rollout

        return follow_rollout
    raise AttributeError(name)


__all__ = [
    "AskedField",
    "Candidate",
    "Outcome",
    "TranscriptReport",
    "Use",
    "asked_fields",
    "candidate_from_dict",
    "candidates_from_data",
    "cite_in",
    "follow_rollout",
    "home_store",
    "ingest_transcript",
    "log_in",
    "provenance",
    "record_uses",
    "records_usage",
    "remember_in",
    "remember_many_in",
    "replay",
    "sweep_workspace",
    "vouched",
]
