"""The Claude Code memory folder (``~/.claude/projects/<project>/memory``): reading
it (:mod:`.reader`, :mod:`.files`, :mod:`.entries`), what a record keeps of its file
(:mod:`.origin`), the export back into such a folder (:mod:`.export`,
:mod:`.export_folder`) and the two-way sync (:mod:`.sync`); :mod:`.format` is the
whole of it as one :class:`core.importers.formats.Format`."""
