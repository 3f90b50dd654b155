"""The store: a git repository of Markdown records, and everything kept beside them.

Transactions and their journal, the git wrapper, erasure, the event log, the
index, daily logs, config, requests and the workspace of stores. Imports only
the domain.
"""
