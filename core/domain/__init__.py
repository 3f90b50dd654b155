"""The domain: what a memory is and the rules about it, with no store and no I/O.

Records and their lifecycle, the value rules (normalise, same value, merging
sources and confidence), who may decide, the write gate, the secret scanner
and relative dates. Everything above imports these; they import nothing above.
"""
