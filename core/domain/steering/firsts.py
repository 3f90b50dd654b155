"""A finder's first span, found without running every alternative to its end."""

from __future__ import annotations

from core.domain.steering.engine import _PLAIN, Finder, _Gated, _seen


def _first(finder: Finder, text: str) -> tuple[int, int] | None:
    """The first span ``finder`` yields on ``text`` (what ``next(finder(text))`` gives).
    For a plain gated regex (:func:`.engine._regex`): each alternative that runs gives its
    first match, tried no further than the earliest start found so far, and the earliest
    (by start, then end, then the alternative's order) is the one its merged run yields
    first."""
    gated = _PLAIN.get(finder)
    if gated is None:
        return next(iter(finder(text)), None)
    return _gated_first(gated, text)


def _gated_first(gated: _Gated, text: str) -> tuple[int, int] | None:
    live = gated.live(text)
    if not live:
        return None
    _seen(text)  # the alternatives read the folded text (another text may have come between)
    best: tuple[int, int] | None = None
    for branch in live:
        spots = branch.spots(text)
        if spots is None:
            match = branch.compiled.search(text)
            span = match.span() if match else None
        else:
            span = None
            for i in spots:
                if best is not None and i > best[0]:
                    break  # a match from here starts after the earliest one
                found = branch.compiled.match(text, i)
                if found:
                    span = found.span()
                    break
        if span is not None and (best is None or span < best):
            best = span
    return best
