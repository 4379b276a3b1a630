"""One vertical slice per game: rules engine, wire protocol, reference bots."""
