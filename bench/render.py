"""Picture speed: milliseconds per rgb_array frame, per SVG picture and per replay page.

    python bench/render.py [--games N] [--repeat R] [--full]

Positions come from heuristic-vs-heuristic games (every decision). Timed: the spectator's
``rgb_array`` frame (``picture.game_rgb``: views, layout, Pillow), a player's frame, the
SVG text of a spectator's picture, and ``replay.replay_html`` of a whole game (three
pictures per decision). Best of ``--repeat`` runs, as wall-clock and as CPU time of
this process.
"""

from __future__ import annotations

import argparse
import time

from bench_args import parse

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.agents.arena import play_game
from widderkopf_env.picture import game_rgb, svg_of, table_of_game
from widderkopf_env.replay import replay_html


def best(fn, items, repeat: int) -> tuple[float, float]:
    """Best mean seconds per item over ``repeat`` runs: wall-clock time and this process's
    CPU time (the latter is disturbed less by other processes)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        for item in items:
            fn(item)
        wall.append((time.perf_counter() - t0) / len(items))
        cpu.append((time.process_time() - c0) / len(items))
    return min(wall), min(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parse(parser, None, games=4, repeat=3)
    bots = (HeuristicAgent(), HeuristicAgent())
    games = [play_game(Game.new(seed=s), bots) for s in range(args.games)]
    positions = []
    for game in games:
        replay = Game.new(seed=game.seed)
        for action in game.history:
            positions.append(replay.clone())
            replay.apply(action)
    game_rgb(positions[0])  # fonts and card images are made once per process
    rows = [
        ("rgb_array frame, spectator", best(game_rgb, positions, args.repeat)),
        ("rgb_array frame, player_0", best(lambda g: game_rgb(g, 0), positions, args.repeat)),
        ("SVG picture, spectator", best(lambda g: svg_of(table_of_game(g)), positions,
                                        args.repeat)),
    ]
    rows.append(("replay page of one hand", best(replay_html, games, 1)))
    print(f"{'':40s} {'wall ms':>9s} {'CPU ms':>9s}")
    for name, (wall, cpu) in rows:
        print(f"{name:40s} {wall * 1e3:9.3f} {cpu * 1e3:9.3f}")
    decisions = sum(len(g.history) for g in games) / len(games)
    print(f"replay pages: {decisions:.0f} decisions per hand, "
          f"{len(replay_html(games[0])) / 1e6:.2f} MB for the first")


if __name__ == "__main__":
    main()
