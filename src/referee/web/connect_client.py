"""``referee connect GAME URL --seat N -- COMMAND``: a local program plays a seat of a
web table, over the network, in its game's own protocol.

The table's page gives the URL (with the seat's join secret, ``?join=``). The client
starts the program here, opens the table's program socket and relays lines both ways
until the server ends the seat's game (the program is then ended as a referee ends its
bots: END where the protocol has one comes from the server, then its pipes close). The
server referees it as any program: its clock runs while the server waits for its line.
"""

from __future__ import annotations

import logging
import os
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import connect

from referee.core.errors import BotFault, ConfigError
from referee.core.line_link import MAX_LINE
from referee.core.process import BotProcess

log = logging.getLogger(__name__)

__all__ = ["connect_program", "program_url"]


def program_url(url: str, seat: int, name: str) -> str:
    """The program socket's address of a table's URL (``http://HOST/tables/ID?join=S``)
    for seat ``seat`` (from 1); ``ConfigError`` if it is not a table's URL."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{url}: not a web table's address (http://HOST/tables/ID?join=...)")
    path = parts.path.rstrip("/")
    pieces = path.split("/")
    if len(pieces) < 3 or pieces[-2] != "tables" or not pieces[-1]:
        raise ConfigError(f"{url}: not a table's address (its path is /tables/ID)")
    query = urllib.parse.parse_qs(parts.query)
    join = query.get("join", [""])[0]
    if not join:
        raise ConfigError(f"{url}: the address has no join secret (?join=...); copy it from "
                          "the table's page")
    scheme = "wss" if parts.scheme == "https" else "ws"
    fields = urllib.parse.urlencode({"seat": seat, "join": join, "name": name})
    return urllib.parse.urlunsplit((scheme, parts.netloc, f"{path}/program", fields, ""))


def connect_program(url: str, seat: int, command: Sequence[str], name: str,
                    say: Callable[[str], None]) -> str:
    """Play seat ``seat`` of the table at ``url`` with ``command``, run here; returns how
    the seat's game ended for the server (its closing words). ``ConfigError`` if the
    server refuses the seat or cannot be reached; ``BotFault`` if the program cannot
    start."""
    address = program_url(url, seat, name)
    try:
        socket = connect(address, max_size=MAX_LINE * 4, open_timeout=20,
                         user_agent_header="referee connect")
    except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
        raise ConfigError(f"{url}: cannot connect: {exc}") from None
    process = BotProcess(list(command), name=name, cwd=Path.cwd(), env=dict(os.environ))
    try:
        process.start()
    except BotFault:
        socket.close(1011, "the program cannot start")
        raise
    say(f"{name} plays seat {seat} of {url.split('?', 1)[0]}")
    ended: list[str] = []
    relay = threading.Thread(target=_to_program, args=(socket, process, ended), daemon=True)
    relay.start()
    try:
        while True:
            try:
                line = process.read_line(None, keep_empty=True)
            except BotFault as fault:
                if not ended:
                    log.info("%s: %s", name, fault.reason)
                break
            try:
                socket.send(line)
            except ConnectionClosed:
                break
    finally:
        socket.close()
        relay.join(timeout=5)
        process.stop(1.0)
    return ended[0] if ended else "the connection closed"


def _to_program(socket: object, process: BotProcess, ended: list[str]) -> None:
    """The server's lines to the program, until the server closes the seat."""
    from websockets.sync.client import ClientConnection

    assert isinstance(socket, ClientConnection)
    try:
        for message in socket:
            text = message if isinstance(message, str) else message.decode("utf-8", "replace")
            try:
                process.send(text + "\n")
            except BotFault:
                break
    except ConnectionClosed:
        pass
    close = socket.close_reason or ""
    code = socket.close_code
    ended.append(close if close else f"closed ({code})")
    if code == 1008:
        ended[0] = f"refused: {close}"
    process.close_input()
