"""scripts/invariants.py: the long invariant run, here with a small budget; and proof that
each of its checks can fail."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest
import reference
from helpers import ROOT

SCRIPT = ROOT / "scripts" / "invariants.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_invariants", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # so that worker processes can find run_chunk
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def run(bench, capsys, *args) -> tuple[int, dict, str]:
    rc = bench.main(["--workers", "1", "--no-progress", *args])
    out, err = capsys.readouterr()
    return rc, json.loads(out.strip().splitlines()[-1]), err


def test_cli_small_budget_in_two_processes(bench, capsys):
    """The script as CI runs it; the same counts as one in-process worker (seeded)."""
    args = ["--hands", "400", "--chunk", "100", "--no-progress"]
    proc = subprocess.run([sys.executable, str(SCRIPT), "--workers", "2", *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["violations"] == 0
    hands = summary["hands"]  # at least 400: a chunk ends with a whole match
    assert 400 <= hands < 400 + 4 * 3 and summary["matches"] < 400  # 2+ hands in some
    assert summary["decisions"] > hands * 30 and summary["tricks"] == hands * 17
    assert summary["leak_checks"] >= 10
    alone = run(bench, capsys, *args)[1]
    assert {k: alone[k] for k in bench.Counts.KEYS} == {k: summary[k] for k in bench.Counts.KEYS}


def test_max_seconds_stops_early_and_reports_what_was_done(bench, capsys):
    rc, summary, _ = run(bench, capsys, "--hands", "1000000", "--chunk", "20",
                         "--max-seconds", "0.3")
    assert rc == 0 and summary["complete"] is False
    assert 20 <= summary["hands"] < 100_000 and summary["violations"] == 0


def test_a_wrong_legal_set_is_caught(bench, capsys, monkeypatch):
    real = reference.RefHand.legal_actions
    monkeypatch.setattr(reference.RefHand, "legal_actions",
                        lambda self: [a for a in real(self) if a != 41])  # never 'pass'
    rc, summary, err = run(bench, capsys, "--hands", "60")
    assert rc == 1 and summary["violations"] > 0 and "VIOLATION" in err and "to act with" in err


def test_a_wrong_player_to_act_is_caught(bench, capsys, monkeypatch):
    real = reference.RefHand.current_player
    monkeypatch.setattr(reference.RefHand, "current_player",
                        lambda self: real(self) if self.phase != "discard" else 1 - real(self))
    rc, summary, err = run(bench, capsys, "--hands", "20")
    assert rc == 1 and summary["violations"] == summary["matches"]
    assert "player" in err


def test_a_wrong_hand_value_is_caught(bench, capsys, monkeypatch):
    real = reference.RefHand.game_value
    monkeypatch.setattr(reference.RefHand, "game_value",
                        lambda self: real(self) * (2 if self.level == 3 else 1))
    rc, summary, err = run(bench, capsys, "--hands", "300")
    assert rc == 1 and 0 < summary["violations"] < summary["matches"] and "end" in err


def test_a_wrong_trick_winner_is_caught(bench, capsys, monkeypatch):
    real = reference.trick_winner_index
    monkeypatch.setattr(reference, "trick_winner_index",
                        lambda first, second, trump: real(second, first, trump)
                        if first % 9 == 0 and second % 9 == 1 else real(first, second, trump))
    rc, summary, err = run(bench, capsys, "--hands", "100")
    assert rc == 1 and summary["violations"] > 0


def test_a_leaky_observation_is_caught(bench, capsys, monkeypatch):
    real = bench.observe

    def leaky(game, p):
        obs, mask = real(game, p)
        return np.append(obs, game.hand[1 - p]), mask

    monkeypatch.setattr(bench, "observe", leaky)
    rc, summary, err = run(bench, capsys, "--hands", "200", "--leak-every", "2")
    assert rc == 1 and summary["violations"] >= summary["leak_checks"] // 2 > 10
    assert "R8" in err


def test_the_core_twin_agrees_and_a_wrong_core_is_caught(bench, capsys, monkeypatch):
    """--core plays every match on the compiled core too; a core whose state drifts
    (a trick point too many) is caught at the next decision."""
    from widderkopf_env.vector.engine import ACCELERATED

    if not ACCELERATED:
        pytest.skip("the compiled core is not built or is disabled")
    rc, summary, err = run(bench, capsys, "--hands", "60", "--core")
    assert rc == 0 and summary["violations"] == 0 and summary["core"] is True, err
    real = bench.CoreTwin.apply

    def drifting(self, action):
        real(self, action)
        self.batch.trick_points[0, 0] += 1

    monkeypatch.setattr(bench.CoreTwin, "apply", drifting)
    rc, summary, err = run(bench, capsys, "--hands", "20", "--core")
    assert rc == 1 and summary["violations"] == summary["matches"]
    assert "core's observation" in err
