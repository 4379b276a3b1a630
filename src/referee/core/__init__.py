"""Game-independent core: bot processes, clocks, limits, records and the match loop."""
