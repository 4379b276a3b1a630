"""Reference Planowanie players (random, heuristic), runnable as protocol programs."""
