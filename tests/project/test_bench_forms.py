"""Every benchmark has a quick form (its defaults, what ``make bench`` runs) and a long
form behind ``--full`` (bench/bench_args.py)."""

from __future__ import annotations

import argparse
import re
import sys

import pytest
from helpers import ROOT

BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
from bench_args import parse  # noqa: E402


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 2])
    return p


def test_full_swaps_the_defaults_and_the_command_line_wins():
    assert vars(parse(_parser(), [], games=100, sizes=[1, 2, 4])) == \
        {"games": 10, "sizes": [1, 2], "full": False}
    assert vars(parse(_parser(), ["--full"], games=100, sizes=[1, 2, 4])) == \
        {"games": 100, "sizes": [1, 2, 4], "full": True}
    assert parse(_parser(), ["--full", "--games", "7"], games=100).games == 7


def test_full_help_names_the_long_form(capsys):
    with pytest.raises(SystemExit):
        parse(_parser(), ["--help"], games=100, sizes=[1, 2, 4])
    assert "the long form: --games 100, --sizes 1 2 4" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("path", sorted(p for p in BENCH.glob("*.py") if p.name != "bench_args.py"),
                         ids=lambda p: p.name)
def test_every_benchmark_has_a_full_form(path):
    assert re.search(r"= parse\(\w+, \w+, \w+=", path.read_text()), path


def test_the_pure_python_timing_runs_in_a_child_without_the_core():
    """``bench/env.py``'s pure-Python figure comes from a child process with
    ``WIDDERKOPF_PURE_PYTHON=1`` (which checks the core is off there); nothing of the
    package is swapped in the bench's own process."""
    import env as bench_env

    from widderkopf_env import Game, game_encoder

    before = (game_encoder.encode_game, dict(vars(Game)))
    assert bench_env.pure_python_us(games=2, repeats=1) > 0
    assert (game_encoder.encode_game, dict(vars(Game))) == before
