"""Training-data plumbing whatever the game: shuffling, parallel runs, corpora, data files."""
