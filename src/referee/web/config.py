"""The settings of one web server (``WebConfig``) and its secret key, kept in its folder."""

from __future__ import annotations

import dataclasses
import errno
import os
import secrets
from pathlib import Path

from referee.core.errors import ConfigError

SECRET_FILE = "secret.key"
"""The secret key's file in the server's folder: random bytes, readable by its owner only."""

SECRET_BYTES = 32
"""The length of a new secret key."""

DATABASE_FILE = "web.sqlite"
"""The embedded database's file in the server's folder (when no ``--db`` is given)."""


@dataclasses.dataclass(frozen=True)
class WebConfig:
    """What ``referee web`` serves and how.

    ``data`` is the server's folder (its secret key, the SQLite database unless ``db_url``
    names another, the records of its games). ``forwarded_allow_ips`` lists the addresses
    of the reverse proxies whose ``X-Forwarded-For`` / ``X-Forwarded-Proto`` headers are
    believed (none: the headers are ignored)."""

    data: Path
    host: str = "127.0.0.1"
    port: int = 8000
    db_url: str | None = None
    guests: bool = False
    forwarded_allow_ips: tuple[str, ...] = ()
    max_body: int = 256 * 1024
    """The largest request body taken (bytes); a bigger one is refused with 413."""
    leave_grace: float = 30.0
    """Seconds a person's seat waits for them once all their pages are closed."""
    max_sockets: int = 10_000
    """The most WebSockets the server holds at once."""
    max_sockets_per_address: int = 1_000
    """The most WebSockets it holds from one client address."""
    request_timeout: float = 10.0
    """Seconds a new connection has to send its first request's head (then: 408, closed)."""
    table_workers: int = 2
    """Worker processes for the tables of programs only (0: every table is played in
    the server's own process)."""

    @property
    def proxy(self) -> bool:
        """Whether the server is behind a reverse proxy whose headers it trusts."""
        return bool(self.forwarded_allow_ips)

    @property
    def database_url(self) -> str:
        """The database's URL: ``db_url``, else the SQLite file in the folder."""
        if self.db_url is not None:
            return self.db_url
        return f"sqlite:///{(self.data / DATABASE_FILE).resolve()}"

    def secret_key(self) -> bytes:
        """The server's secret key (it signs the session cookies), made on first use."""
        return load_secret(self.data)


def prepare_folder(data: Path) -> Path:
    """Make the server's folder if it is missing; an ``OSError`` names it if it cannot
    be made or written."""
    data.mkdir(parents=True, exist_ok=True)
    if not data.is_dir():
        raise ConfigError(f"{data}: not a folder")
    if not os.access(data, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, "the server's folder cannot be written", str(data))
    return data


def load_secret(data: Path) -> bytes:
    """The secret key in ``data/secret.key``: read back when it exists, otherwise made
    from ``secrets.token_bytes`` and written with mode 0600 (created exclusively, so two
    servers starting at once agree on one key)."""
    path = data / SECRET_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_bytes()
        if len(key) < SECRET_BYTES:
            raise ConfigError(f"{path}: the secret key is shorter than {SECRET_BYTES} bytes; "
                              "remove the file to make a new one (every session ends)"
                              ) from None
        return key
    key = secrets.token_bytes(SECRET_BYTES)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
    return key
