"""Tournament games as Ray tasks: ``referee tournament FILE --ray ADDRESS``.

``RayPlayer`` is a drop-in ``play`` function for ``TournamentRunner``: each call plays one
game as a Ray remote task (one CPU by default) and waits for its record. The runner still
decides how many games run at once (its thread pool) and commits every result itself, so
the schedule, the seeds and the results are the same as without Ray.

Only plain, picklable data crosses to the worker: the game's name, its parsed settings,
the ``GameTask`` and the work folder. The worker looks the adapter up with
``game_adapters()``, plays the game with fresh bot processes and sends back
``GameRecord.to_dict()``. A failure inside the worker comes back as a ``RemoteFailure``
(never as a half-played game) and is raised again here as ``RefereeError``; whatever
happens, the worker kills every bot process it started before the task ends.

Addresses:

``local``
    Start a Ray cluster inside this process, reachable on 127.0.0.1 only (no dashboard,
    no usage statistics), with one CPU per concurrent game; it is shut down by
    ``close()``.
``HOST:PORT``, ``ray://HOST:PORT``, ``auto``
    Connect to a running cluster (``ray start --head`` ...). The address is checked
    before anything else, so an unreachable one is a ``ConfigError`` before any game
    starts. A cluster protected by a token gets this machine's token, found as Ray's CLI
    finds it (``ray_auth``).

If this process is already connected to Ray (``ray.init`` was called before), that
connection is used as it is and left open by ``close()``.

Files: games run in the tournament's ``output / "work"`` folder and bots are started by
the paths in the tournament file. A local cluster shares this machine's filesystem; the
nodes of a remote cluster need the same paths (the bots' programs, the output folder and
the referee itself, installed in the same Python environment) for games to run there.
Bot process ids are not noted in the store (they live on the workers), so a ``kill -9``
of the referee cannot clean up bots on remote nodes on resume; ``ray stop`` on the nodes
does.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import socket
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.adapter import GameTask
from referee.core.errors import ConfigError, RefereeError
from referee.core.record import GameRecord
from referee.tournament.config import Tournament
from referee.tournament.ray_auth import (
    auth_failure_text,
    check_token,
    is_auth_failure,
    use_token_if_any,
)
from referee.tournament.runner import play_task, slot_folder

log = logging.getLogger(__name__)

LOCAL = "local"
"""The address that starts a private local cluster instead of connecting to one."""

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the cluster's address to accept a connection."""

POLL = 0.5
"""Seconds between checks, while waiting for a game, whether the player was closed."""

_MISSING = "--ray needs the ray extra: pip install 'referee[ray]'"
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class RemoteFailure:
    """An exception raised inside a Ray worker, sent back as plain data."""

    kind: str
    message: str
    details: str = ""

    def describe(self) -> str:
        """``Kind: message`` as a person reads it."""
        return f"{self.kind}: {self.message}" if self.message else self.kind


def play_remote(game: str, settings: Any, task: GameTask,
                work_dir: str) -> dict[str, Any] | RemoteFailure:
    """Play one game in a Ray worker: the record as a dict, or what went wrong.

    Runs in the worker process (Ray ships it by reference, so the worker imports this
    module). Every bot process the worker still has when the game ends is killed, even
    if the game failed or the task was cancelled.
    """
    from referee.core.live_bots import kill_all_processes
    from referee.games.registry import game_adapters

    try:
        adapter = game_adapters().get(game)
        if adapter is None:
            return RemoteFailure("ConfigError", f"unknown game {game!r}")
        return play_task(adapter, settings, task, Path(work_dir)).to_dict()
    except Exception as exc:
        return RemoteFailure(type(exc).__name__, str(exc), traceback.format_exc())
    finally:
        kill_all_processes()


def import_ray() -> Any:
    """The ``ray`` module (typed ``Any``: mypy passes with or without the extra);
    ``ConfigError`` naming the extra when it is not installed."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ConfigError(_MISSING) from None


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``HOST:PORT`` or ``ray://HOST:PORT`` address (None: other)."""
    text = address.removeprefix("ray://")
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def _check_reachable(address: str) -> None:
    """Raise ``ConfigError`` unless the address accepts a TCP connection (quickly).

    Ray itself retries an unreachable address for minutes; this fails in seconds.
    """
    target = _host_port(address)
    if target is None:
        if address != "auto":
            raise ConfigError(f"--ray {address}: not a Ray address "
                              "(use local, auto, HOST:PORT or ray://HOST:PORT)")
        return
    try:
        with socket.create_connection(target, timeout=CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise ConfigError(f"--ray {address}: cannot reach the Ray cluster: "
                          f"{exc.strerror or exc}") from None


@contextlib.contextmanager
def _loopback_node(ray: Any) -> Iterator[None]:
    """Make Ray take 127.0.0.1 as this node's address while ``ray.init`` runs.

    On Linux Ray otherwise picks the address of the default route's interface for every
    server it starts (and rewrites ``127.0.0.1`` in an address to it). The node keeps the
    address it was started with, so the setting is restored right after.
    """
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    if constants is None or not hasattr(constants, "ENABLE_RAY_CLUSTER"):
        yield
        return
    previous = constants.ENABLE_RAY_CLUSTER
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = previous


def init_local_ray(num_cpus: int | None = None) -> None:
    """Start a private Ray cluster in this process, on 127.0.0.1 only and quiet.

    No dashboard, no usage statistics, no worker output mixed into the referee's; the
    workers' logs stay in Ray's session folder (``/tmp/ray/session_latest/logs``). This
    always starts a new cluster, whatever ``RAY_ADDRESS`` or an earlier ``ray start`` say.
    """
    ray = import_ray()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    with _loopback_node(ray):
        # "local", not None: None would join a cluster named by RAY_ADDRESS or left by
        # ``ray start`` (/tmp/ray/ray_current_cluster) instead of starting a new one.
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False,
                 logging_level=logging.ERROR, log_to_driver=False)


def _explain(exc: BaseException) -> str:
    """The error and its first cause, one line each at most (Ray's are long)."""
    parts = [str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__]
    cause = exc.__cause__
    if cause is not None and str(cause).strip():
        parts.append(str(cause).strip().splitlines()[-1][:400])
    return ": ".join(parts)


def _connect(ray: Any, address: str) -> None:
    target = _host_port(address)
    local = target is not None and target[0] in _LOOPBACK
    with _loopback_node(ray) if local else contextlib.nullcontext():
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)


def start_ray(address: str, cpus: int) -> bool:
    """Connect this process to Ray at ``address`` (``local``: start a private cluster of
    ``cpus`` CPUs); True if it did (the caller shuts Ray down at the end), False if Ray was
    already initialised here (that connection is used). ``ConfigError`` when the extra is
    missing, the address is unreachable or the cluster refuses."""
    ray = import_ray()
    if ray.is_initialized():
        if address != LOCAL:
            _check_reachable(address)
            log.info("Ray is already initialised in this process: using that connection")
        return False
    if address == LOCAL:
        try:
            init_local_ray(cpus)
        except Exception as exc:
            raise ConfigError(f"--ray local: cannot start a local Ray cluster: "
                              f"{exc}") from None
        return True
    _check_reachable(address)
    use_token_if_any()  # as Ray's CLI does: a cluster started with a token asks for it
    if not address.startswith("ray://") and _host_port(address) is not None:
        check_token(address, address)
    try:
        _connect(ray, address)
    except Exception as exc:
        with contextlib.suppress(Exception):
            ray.shutdown()
        if is_auth_failure(exc):
            raise ConfigError(auth_failure_text(address)) from None
        raise ConfigError(f"--ray {address}: cannot connect to the Ray "
                          f"cluster: {_explain(exc)}") from None
    return True


class RayPlayer:
    """Plays tournament games as Ray tasks (a ``play`` function for ``TournamentRunner``).

    Thread-safe: the runner calls it from several threads at once, each call waits for
    its own game. ``cancel()`` stops the games still running: Ray interrupts each task
    once its current wait on a bot ends (at most one move's time limit), and the worker
    kills that game's bots. ``close()`` cancels, releases the waiting calls (they raise
    ``RefereeError``) and shuts Ray down if this object started or connected it.
    """

    def __init__(self, tournament: Tournament, address: str, workers: int,
                 num_cpus: float = 1.0) -> None:
        ray = import_ray()
        self.address = address
        self.workers = max(1, workers)
        self.output = tournament.output
        self._game = tournament.spec.game
        self._idle = threading.Condition()
        self._running: set[Any] = set()  # ray.ObjectRef of the games being played
        self._closed = False
        self.owns_ray = start_ray(address, max(1, round(self.workers * num_cpus)))
        self._ray = ray
        self._remote: Any = ray.remote(num_cpus=num_cpus, max_retries=0)(play_remote)
        self._settings = ray.put(tournament.settings)  # sent to the cluster once

    def __call__(self, task: GameTask) -> GameRecord:
        """Play one game on the cluster and return its finished record."""
        with self._idle:
            if self._closed:
                raise RefereeError(f"game {task.key}: the Ray player is closed")
            work = slot_folder(self.output, task.slot)
            ref = self._remote.remote(self._game, self._settings, task, str(work))
            self._running.add(ref)
        try:
            result = self._wait(ref, task.key)
        finally:
            with self._idle:
                self._running.discard(ref)
                self._idle.notify_all()
        if isinstance(result, RemoteFailure):
            if result.details:
                log.debug("game %s failed on a Ray worker:\n%s", task.key, result.details)
            raise RefereeError(f"game {task.key}: {result.describe()}")
        return GameRecord.from_dict(result, f"game {task.key} from Ray")

    def _wait(self, ref: Any, key: str) -> Any:
        """The task's result; gives up (``RefereeError``) once the player is closed."""
        ray = self._ray
        while True:
            try:
                return ray.get(ref, timeout=POLL)
            except ray.exceptions.GetTimeoutError:
                if self._closed:
                    raise RefereeError(f"game {key}: cancelled (the Ray player was closed)"
                                       ) from None
            except ray.exceptions.RayError as exc:
                raise RefereeError(f"game {key}: the Ray task failed: {exc}") from None

    def cancel(self) -> int:
        """Cancel every game still running (their bots are killed); returns how many."""
        with self._idle:
            running = list(self._running)
        for ref in running:
            with contextlib.suppress(Exception):
                self._ray.cancel(ref, force=False)
        return len(running)

    def close(self) -> None:
        """Cancel what still runs; shut Ray down if this object started it. Idempotent."""
        with self._idle:
            if self._closed:
                return
            self._closed = True
        self.cancel()
        with self._idle:  # the waiting calls notice ``_closed`` within POLL seconds
            self._idle.wait_for(lambda: not self._running, timeout=4 * POLL)
        if self.owns_ray:
            self.owns_ray = False
            self._ray.shutdown()  # the workers kill their bots as they stop

    def __enter__(self) -> RayPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
