"""Writing memories: the candidate pipeline (gate, duplicates, conflicts) and decay."""
