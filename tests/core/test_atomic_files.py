"""Files written whole or not at all (core.files, and the data files of core.compressed)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.compressed import DataFileError, open_text
from referee.core.files import write_text_atomic


def test_text_that_utf8_cannot_encode_is_escaped_and_reads_back(tmp_path: Path) -> None:
    name = b"bad\xff".decode("utf-8", "surrogateescape")  # a file name that is not UTF-8
    path = write_text_atomic(tmp_path / "r.json", json.dumps({"name": name},
                                                             ensure_ascii=False))
    assert json.loads(path.read_text(encoding="utf-8")) == {"name": name}
    assert list(tmp_path.iterdir()) == [path]


def test_an_error_in_the_block_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt.gz"
    with pytest.raises(RuntimeError), open_text(target, "w") as out:
        out.write("line\n" * 1000)
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


def test_an_earlier_file_stays_whole_until_the_new_one_is_complete(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with open_text(target, "w") as out:
        out.write("new\n")
        assert target.read_text() == "old\n"  # not yet replaced
    assert target.read_text() == "new\n"
    assert list(tmp_path.iterdir()) == [target]


WRITE = """
import sys
from referee.core.compressed import open_text
from referee.core.files import write_text_atomic
target = sys.argv[1]
try:
    if target.endswith(".gz"):
        with open_text(target, "w") as out:
            for i in range(200_000):
                out.write(f"{i} some text that does not compress to nothing {i * 7919}\\n")
    else:
        write_text_atomic(target, "x" * 100_000)
except Exception as exc:
    print(type(exc).__name__, exc, file=sys.stderr)
    sys.exit(3)
"""


@pytest.mark.parametrize("name", ["big.txt", "big.txt.gz"])
def test_a_full_disk_leaves_no_partial_file(tmp_path: Path, name: str) -> None:
    def limit() -> None:  # a file size limit of 16 KB: as a full disk would
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 10, 16 << 10))

    run = subprocess.run([sys.executable, "-c", WRITE, str(tmp_path / name)],
                         capture_output=True, text=True, timeout=60, preexec_fn=limit)
    assert run.returncode == 3, run.stderr
    assert "big.txt" in run.stderr and ("File too large" in run.stderr), run.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_writer_names_the_file_it_cannot_create(tmp_path: Path) -> None:
    with pytest.raises(DataFileError) as error, open_text(tmp_path / "no" / "x.txt", "w"):
        pass
    assert "x.txt" in str(error.value) and "cannot create" in str(error.value)
