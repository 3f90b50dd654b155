"""Redaction: a text with every secret, plain or hidden, replaced by its rule's id.

What the desk and the CLI print of a memory goes through :func:`redact`.
"""

from __future__ import annotations

from core.domain.secrets.rules import RULES
from core.domain.secrets.scanner import text_spans


def redact(text: str) -> str:
    """The text with every secret replaced by ``[secret: rule-id]``.

    What the desk and the CLI print of a memory goes through this, so a credential
    that reached a store (pasted by hand, imported) is never shown. A hidden one
    is replaced where it stands in ``text``, its disguise included (for base64,
    the characters that encode it); where a raw and a hidden span overlap, both
    go under one replacement.
    """
    data, raw, hidden = text_spans(text, "redact")
    if not raw and not hidden:
        return text
    out = bytearray()
    taken_until = 0
    for start, order, stop, _via in sorted(raw + hidden):
        if start < taken_until:
            if stop > taken_until:
                taken_until = stop  # the same secret seen twice: hide the union
            continue
        out += data[taken_until:start]
        out += f"[secret: {RULES[order].id}]".encode()
        taken_until = stop
    out += data[taken_until:]
    return out.decode("utf-8", "surrogatepass")
