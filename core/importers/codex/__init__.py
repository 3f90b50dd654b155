"""The Codex memories folder (``~/.codex/memories``): reading it (:mod:`.reader`,
:mod:`.files`, :mod:`.entries`, :mod:`.evidence` for the rollout summaries a
memory cites, :mod:`.notes` for the user's own notes), what the store remembers of
it (:mod:`.state`) and the sync (:mod:`.sync`); :mod:`.format` is the whole of it
as one :class:`core.importers.formats.Format`."""
