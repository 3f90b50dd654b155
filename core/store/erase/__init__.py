"""Erasure (SPEC section 3): deleted means the content is gone for good.

What the store uses: :func:`needles_for` and :func:`history_needles` (what must
not survive), :func:`scrub` and :func:`scrub_file` (a current text or file
cleaned), :func:`purge_history` (every commit of a private store rewritten
without it). The modules: :mod:`~core.store.erase.scrub` (the rules for one
file's bytes), :mod:`~core.store.erase.needles`, :mod:`~core.store.erase.purge`
(the one-pass history rewrite), :mod:`~core.store.erase.export` (the fast-export
stream), :mod:`~core.store.erase.tidy` (index, working tree and what killed git
leaves). Every git command goes through :mod:`core.store.gitstore`.
"""

from core.store.erase.needles import history_needles, needles_for
from core.store.erase.purge import purge_history
from core.store.erase.scrub import ERASED, ERASED_KEEP, scrub, scrub_file

__all__ = [
    "ERASED",
    "ERASED_KEEP",
    "history_needles",
    "needles_for",
    "purge_history",
    "scrub",
    "scrub_file",
]
