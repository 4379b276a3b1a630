"""Token authentication when joining a running Ray cluster, as Ray's own CLI does it.

Ray 2.60 protects a cluster with a token once one exists on its head node (``ray start
--head`` turns token authentication on when ``~/.ray/auth_token`` or ``RAY_AUTH_TOKEN``
holds one, and ``ray.init()`` of a local cluster writes one there). Its command-line tools
then send that token, but ``ray.init(address=...)`` with an explicit address does not look
for it unless ``RAY_AUTH_MODE=token`` is set. The referee looks for it the way the CLI does
(``RAY_AUTH_TOKEN``, the file named by ``RAY_AUTH_TOKEN_PATH``, ``~/.ray/auth_token``),
and when the cluster still refuses, says where the token comes from and what to do.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from referee.core.errors import ConfigError

__all__ = ["auth_failure_text", "check_token", "is_auth_failure", "token_source",
           "use_token_if_any"]

MODE = "RAY_AUTH_MODE"
TOKEN = "RAY_AUTH_TOKEN"
TOKEN_PATH = "RAY_AUTH_TOKEN_PATH"


def token_source() -> str | None:
    """Where this machine holds a Ray token, as Ray looks for it (``None``: nowhere)."""
    if os.environ.get(TOKEN, "").strip():
        return TOKEN
    named = os.environ.get(TOKEN_PATH)
    if named:
        return named if Path(named).expanduser().is_file() else None
    default = Path.home() / ".ray" / "auth_token"
    return str(default) if default.is_file() else None


def use_token_if_any() -> bool:
    """Turn token authentication on for this process (``RAY_AUTH_MODE=token``) when a token
    is there and the user has not chosen a mode; True if it is on."""
    mode = os.environ.get(MODE)
    if mode is not None:
        return mode.strip().lower() == "token"
    if token_source() is None:
        return False
    os.environ[MODE] = "token"
    with contextlib.suppress(ImportError, AttributeError):  # Ray caches its settings
        importlib.import_module("ray._raylet").Config.initialize("")
    return True


def is_auth_failure(exc: BaseException) -> bool:
    """Whether connecting failed because the cluster refused this process's token (or the
    lack of one)."""
    while True:
        text = f"{type(exc).__name__}: {exc}"
        if "InvalidAuthToken" in text or "AuthenticationError" in text:
            return True
        if exc.__cause__ is None:
            return False
        exc = exc.__cause__


def auth_failure_text(address: str) -> str:
    """What to tell the user when the cluster at ``address`` refuses the connection for
    its token."""
    source = token_source()
    mode = os.environ.get(MODE, "")
    if source is None:
        found = "and this machine has none (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or " \
                "~/.ray/auth_token)"
    elif mode.strip().lower() not in ("", "token"):
        found = f"and {MODE}={mode} turns it off here"
    else:
        found = f"and the one in {source} is not the cluster's"
    return (f"--ray {address}: the Ray cluster asks for its authentication token {found}; "
            "run `ray get-auth-token` on the head node and put what it prints in "
            "~/.ray/auth_token here (or in RAY_AUTH_TOKEN), then run the same command again")


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Ray's C++ client logs each refused attempt on file descriptor 2; the referee says
    it in one line instead."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def check_token(address: str, gcs_address: str) -> None:
    """Ask the cluster's control store at ``gcs_address`` (``HOST:PORT``) whether it takes
    this process's token: ``ConfigError`` at once if it refuses (``ray.init`` would retry
    for about 20 seconds first). Anything else is left to ``ray.init`` to report."""
    try:
        client_class = importlib.import_module("ray._raylet").GcsClient
    except (ImportError, AttributeError):
        return
    try:
        with _quiet_stderr():
            client_class(address=gcs_address)
    except Exception as exc:  # Ray's own errors: only the token's is reported here
        if is_auth_failure(exc):
            raise ConfigError(auth_failure_text(address)) from None
