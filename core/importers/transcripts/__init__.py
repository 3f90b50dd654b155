"""Agent session transcripts into the daily logs: a Claude Code session
(``~/.claude/projects/<project>/<session>.jsonl``, its subagents' sidechains) or a
Codex rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``), each read by its
format's reader (:mod:`.claude_code`, :mod:`.codex`, behind
:class:`.model.TranscriptFormat`; detected from the content), every message logged
with the role of who said it (:mod:`.ingest`). See docs/transcripts.md.
"""

from core.importers.transcripts.ingest import FORMATS, TranscriptReport, ingest_transcript

__all__ = ["FORMATS", "TranscriptReport", "ingest_transcript"]
