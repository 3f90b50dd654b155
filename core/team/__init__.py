"""Team memory over a git remote: clone and init (:mod:`.setup`), fetch and push
(:mod:`.remote`), memgov's own merge (:mod:`.merge`), the push scan and its hook
(:mod:`.guard`), signed maintainers (:mod:`.signing`, :mod:`.trust`) and the sync
that runs them in order (:mod:`.sync`).
"""
