"""Reports: doctor, metrics and a memory's history, read-only views of the stores."""
