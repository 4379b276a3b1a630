"""Self-play and annotation on Ray: `referee selfplay riichi --ray local` writes what a
local run writes. Skipped without the ``ray`` extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_selfplay_on_a_local_ray_cluster_matches_a_local_run(tmp_path: Path) -> None:
    common = ("selfplay", "riichi", "--games", "3", "--seed", "21", "--game", "east",
              "--players", "tsumogiri,greedy,tsumogiri,greedy")
    on_ray = referee(*common, "-o", str(tmp_path / "ray.txt"), "--ray", "local", "-j", "2",
                     "--records", str(tmp_path / "recs"))
    assert on_ray.returncode == 0, on_ray.stderr
    local = referee(*common, "-o", str(tmp_path / "local.txt"))
    assert local.returncode == 0, local.stderr
    lines = (tmp_path / "ray.txt").read_text().splitlines()
    assert len(lines) > 100
    assert lines == (tmp_path / "local.txt").read_text().splitlines()
    annotated = referee("annotate", "riichi", str(tmp_path / "recs"), "-o",
                        str(tmp_path / "again.txt"), "--ray", "local", "-j", "2")
    assert annotated.returncode == 0, annotated.stderr
    assert (tmp_path / "again.txt").read_text().splitlines() == lines


def test_an_unreachable_cluster_is_one_clear_error(tmp_path: Path) -> None:
    log = Path(__file__).resolve().parents[1] / "data" / "riichi" / "nm.mjlog"
    done = referee("annotate", "riichi", str(log), "-o", str(tmp_path / "x.txt"),
                   "--ray", "127.0.0.1:9")
    assert done.returncode == 2
    assert "cannot reach the Ray cluster" in done.stderr
    assert not (tmp_path / "x.txt").exists()
