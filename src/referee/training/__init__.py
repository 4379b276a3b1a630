"""Training data from games: kanachan annotations, the offline-RL format, shuffling."""
