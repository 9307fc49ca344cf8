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


def test_the_pure_python_timing_runs_the_python_definitions_and_restores_the_core():
    """``bench/env.py``'s pure-Python figure swaps out every piece of the compiled core a
    game uses (the encoder and Game's methods) for the run, and puts them back after."""
    import env as bench_env

    from widderkopf_env import Game, game_encoder, rules

    before = (game_encoder.encode_game, dict(vars(Game)), rules._core_apply)

    def inside():
        assert game_encoder.encode_game is game_encoder._encode_py
        assert (Game.apply, Game.legal_actions, Game.is_over) == rules.PYTHON_METHODS
        assert rules._core_apply is rules._core_legal is rules._core_start is None
        return play()

    def play():
        g = Game.new(seed=3)
        while not g.is_over:
            g.apply(g.legal_actions()[-1])
        return g.history

    assert bench_env.pure_python(inside) == play()  # the same game either way
    after = (game_encoder.encode_game, dict(vars(Game)), rules._core_apply)
    assert after == before
