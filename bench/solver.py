"""Endgame solver speed: milliseconds per ``solve_actions`` call, C search and pure Python.

    python bench/solver.py [--positions N] [--seed S] [--full]

For each number of tricks left (6, 8, 10, 12), N positions at the start of a trick, each
reached from its own seeded deal by the heuristic bot playing both seats. Every position
is solved with a fresh table (``solve_actions(game, {})``, as PIMC calls it per world),
by the C search (``agents/_solver.c``, when built) and by the pure-Python
one (up to 10 tricks left only: about a second a call at 12); the two must agree. Prints
the mean milliseconds per call of each and the speedup; a row that takes less than half a
second is timed again (up to 20 passes) and its fastest pass counts.
"""

from __future__ import annotations

import argparse
import time

from bench_args import parse

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, solver
from widderkopf_env.rules import PLAY

TRICKS_LEFT = (6, 8, 10, 12)
PYTHON_UP_TO = 10
MIN_SECONDS, MAX_PASSES = 0.5, 20


def positions(tricks_left: int, count: int, seed: int) -> list[Game]:
    """``count`` games at the start of a trick with ``tricks_left`` tricks to play."""
    out, heuristic, i = [], HeuristicAgent(seed=seed), 0
    while len(out) < count:
        game = Game.new(seed=seed * 100_003 + tricks_left * 1_000 + i)
        i += 1
        while not game.is_over:
            if game.phase == PLAY and game.lead < 0 and 17 - len(game.tricks) == tricks_left:
                out.append(game)
                break
            game.apply(heuristic.act(game.view(game.current)))
    return out


def timed(games: list[Game], accelerated: bool) -> tuple[float, list[dict]]:
    """Mean milliseconds per ``solve_actions`` call, and the results. Short passes over
    ``games`` are repeated (for MIN_SECONDS, at most MAX_PASSES) and the fastest counts,
    the one least disturbed by other processes."""
    saved = solver._accel
    if not accelerated:
        solver._accel = None  # the pure-Python search, as without the extension
    try:
        passes, spent = [], 0.0
        while spent < MIN_SECONDS and len(passes) < MAX_PASSES:
            t0 = time.perf_counter()
            results = [solver.solve_actions(game, {}) for game in games]
            passes.append(time.perf_counter() - t0)
            spent += passes[-1]
    finally:
        solver._accel = saved
    return 1000 * min(passes) / len(games), results


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=5, help="positions per tricks-left count")
    p.add_argument("--seed", type=int, default=0)
    args = parse(p, argv, positions=20)
    if args.positions < 1:
        p.error("--positions must be at least 1")
    if not solver.ACCELERATED:
        print("the C search is not built (or WIDDERKOPF_PURE_PYTHON is set): "
              "pure Python only")
    print(f"solve_actions(game, {{}}), mean ms over {args.positions} positions per row")
    print(f"  {'tricks left':>11s} {'C ms':>9s} {'Python ms':>10s} {'speedup':>8s}")
    for left in TRICKS_LEFT:
        games = positions(left, args.positions, args.seed)
        c_ms = py_ms = None
        if solver.ACCELERATED:
            c_ms, c_results = timed(games, accelerated=True)
        if left <= PYTHON_UP_TO:
            py_ms, py_results = timed(games, accelerated=False)
            if c_ms is not None and c_results != py_results:
                raise SystemExit(f"C and Python disagree at {left} tricks left")
        ratio = f"{py_ms / c_ms:7.1f}x" if c_ms and py_ms else f"{'-':>8s}"
        print(f"  {left:11d} {'-' if c_ms is None else f'{c_ms:.3f}':>9s} "
              f"{'-' if py_ms is None else f'{py_ms:.2f}':>10s} {ratio}")


if __name__ == "__main__":
    main()
