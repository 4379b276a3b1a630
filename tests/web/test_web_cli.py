"""``referee web`` as a command: accounts added from the command line (the password on
standard input), bad options refused with one line and exit status 2, the default bind
to 127.0.0.1, and the secret key made once (0600) and kept across restarts."""

from __future__ import annotations

import re
import socket
import stat
import subprocess
from pathlib import Path

import psutil
import pytest
from web_servers import REFEREE, WebServer, free_port

PASSWORD = "a-long-enough-secret"


def referee(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` with ``stdin`` on its standard input."""
    return subprocess.run([*REFEREE, *args], input=stdin, capture_output=True, text=True,
                          timeout=60, check=False)


def one_error(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a command that failed with status 2."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_admin_and_user_added_from_the_command_line_log_in(
        tmp_path: Path, db_url: str | None) -> None:
    data = tmp_path / "data"
    db = ["--db", db_url] if db_url else []
    added = referee("web", "admin", "add", "Root", "--data", str(data), *db,
                    stdin=PASSWORD + "\nignored second line\n")
    assert added.returncode == 0, added.stderr
    assert "admin Root added" in added.stdout and PASSWORD not in added.stdout + added.stderr
    user = referee("web", "user", "add", "pat", "--data", str(data), *db, stdin=PASSWORD)
    assert user.returncode == 0, user.stderr
    taken = one_error(referee("web", "user", "add", "ROOT", "--data", str(data), *db,
                              stdin=PASSWORD + "\n"))
    assert "'ROOT' is taken" in taken
    short = one_error(referee("web", "user", "add", "quinn", "--data", str(data), *db,
                              stdin="short\n"))
    assert "at least 8 characters" in short
    empty = one_error(referee("web", "user", "add", "quinn", "--data", str(data), *db))
    assert "no password on standard input" in empty
    bad = one_error(referee("web", "user", "add", "no spaces", "--data", str(data), *db,
                            stdin=PASSWORD))
    assert "2 to 40" in bad
    server = WebServer(data, db_url).start()
    try:
        admin = server.logged_in("root", PASSWORD)
        assert "Root (admin)" in admin.get("/").text
        assert "pat</span>" in server.logged_in("pat", PASSWORD).get("/").text
    finally:
        server.stop()


@pytest.mark.parametrize(("url", "words"), [
    ("nonsense", "is not a database URL"),
    ("mysql://user@localhost/db", "is not a database this server can use"),
    ("sqlite://", "names no database file"),
    ("postgresql://nobody:hidden-pw@127.0.0.1:{closed}/web", "cannot use the database"),
])
def test_a_bad_db_url_is_one_line_and_exit_2(tmp_path: Path, url: str, words: str) -> None:
    url = url.replace("{closed}", str(free_port()))
    for command in (["web", "--port", "0"], ["web", "user", "add", "sam"]):
        done = referee(*command, "--data", str(tmp_path / "data"), "--db", url,
                       stdin=PASSWORD)
        line = one_error(done)
        assert words in line and "--db" in line
        assert "hidden-pw" not in line  # a password in the URL is not said


def test_a_data_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    line = one_error(referee("web", "--data", str(tmp_path / "file" / "data"),
                             "--port", "0"))
    assert "file" in line
    assert referee("web", "--port", "0").returncode == 2  # no --data: a usage error


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error(referee("web", "--data", str(tmp_path / "data"),
                                 "--port", str(port)))
    assert f"cannot listen on 127.0.0.1:{port}" in line


def test_the_server_listens_on_127_0_0_1_by_default(tmp_path: Path) -> None:
    server = WebServer(tmp_path / "data", None).start()
    try:
        assert server.process is not None
        listening = [c.laddr for c in psutil.Process(server.process.pid).net_connections()
                     if c.status == psutil.CONN_LISTEN]
        port = int(server.url.rsplit(":", 1)[1])
        assert [(a.ip, a.port) for a in listening] == [("127.0.0.1", port)]
        said = (tmp_path / "data.stdout").read_text()
        assert re.search(rf"serving on http://127\.0\.0\.1:{port}/", said)
    finally:
        server.stop()


def test_the_secret_key_is_made_once_and_a_session_survives_a_restart(
        tmp_path: Path) -> None:
    server = WebServer(tmp_path / "data", None).start()
    try:
        key_file = server.data / "secret.key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key = key_file.read_bytes()
        assert len(key) >= 32
        client = server.signed_up("rita")
        server.restart()
        assert key_file.read_bytes() == key
        client.base_url = server.url  # the same browser, cookies and all
        assert "rita</span>" in client.get("/").text
    finally:
        server.stop()
