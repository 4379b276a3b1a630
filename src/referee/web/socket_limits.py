"""How many WebSockets the server holds: at most ``per_address`` from one client address
and ``total`` in all (``--max-sockets``, ``--max-sockets-per-address``). A page or program
past a limit is accepted and closed at once with code 1013 and the reason, and it is
logged; the connections already held go on. Counted on the event loop's thread only."""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import Iterator

log = logging.getLogger(__name__)

__all__ = ["SocketLimits"]


class SocketLimits:
    """The counts of the WebSockets held, by client address."""

    def __init__(self, total: int = 10_000, per_address: int = 500) -> None:
        self.total = total
        self.per_address = per_address
        self.held: Counter[str] = Counter()
        self.count = 0

    def take(self, address: str) -> str | None:
        """Count a new socket of ``address``; the reason it is refused, if it is."""
        if self.count >= self.total:
            log.warning("a WebSocket of %s refused: the server holds %d", address, self.count)
            return f"the server holds {self.count} connections, its most"
        if self.held[address] >= self.per_address:
            log.warning("a WebSocket of %s refused: it holds %d", address, self.held[address])
            return f"your address holds {self.held[address]} connections, the most it may"
        self.held[address] += 1
        self.count += 1
        return None

    def give_back(self, address: str) -> None:
        """A socket of ``address`` closed."""
        self.count -= 1
        self.held[address] -= 1
        if self.held[address] <= 0:
            del self.held[address]

    @contextlib.contextmanager
    def holding(self, address: str) -> Iterator[str | None]:
        """A socket of ``address`` counted for the block: the reason it is refused (it is
        then not counted), else ``None``, and given back at the block's end."""
        refused = self.take(address)
        try:
            yield refused
        finally:
            if refused is None:
                self.give_back(address)
