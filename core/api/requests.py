"""Requests: an agent or a person asks to delete a memory, promote it to the team,
or reports it stale; a person decides each in the review queue."""

# core.store
from core.store.requests import KINDS, Request, filed_request, get_request

__all__ = ["KINDS", "Request", "filed_request", "get_request"]
