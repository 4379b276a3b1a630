"""referee: run game-playing programs, enforce rules and clocks, record and rate games."""

__version__ = "0.1.0"
