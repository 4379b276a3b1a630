"""kanachan's training data from Riichi games: features, annotation, offline RL, reading."""
