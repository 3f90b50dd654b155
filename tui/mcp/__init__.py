"""memgov for agents: the MCP server of ``memgov mcp``.

:mod:`tui.mcp.answers` is what each tool does, in plain Python over a
workspace (no MCP in it); :mod:`tui.mcp.server` puts those answers behind the
official MCP SDK over stdio. Only ``memgov mcp`` imports either, so no other
command pays for the SDK.

An agent writes and reads through the same pipeline as the CLI, and decides
nothing: there is no tool to approve, reject, erase, revert or roll back. What an
agent asks for (a deletion, a promotion, a correction) is a request a person
decides in the desk.
"""
