"""Review: the queue of items a person decides, and the decisions themselves."""
