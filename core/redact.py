"""Redaction: a text with every secret the scanner finds replaced by its rule id.

What the desk and the CLI print of a memory goes through :func:`redact`, so a
credential that reached a store (pasted by hand, imported) is never shown.
"""

from __future__ import annotations

from core import secrets


def redact(text: str) -> str:
    data, lowered, hits = secrets._prepare(text, "redact")
    if not hits:
        return text
    out = bytearray()
    taken_until = 0
    for start, order, stop in sorted(secrets._found(data, lowered, hits)):
        if start < taken_until:
            continue
        out += data[taken_until:start]
        out += f"[secret: {secrets.RULES[order].id}]".encode()
        taken_until = stop
    if not taken_until:
        return text
    out += data[taken_until:]
    return out.decode("utf-8", "surrogatepass")
