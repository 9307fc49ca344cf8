"""Evaluated games kept as JSON files (``widderkopf-eval --save-games DIR``).

Game ``k`` (1 or 2) of deal pair ``i`` of a duplicate run is written by the arena as
``DIR/pair{i:05d}_game{k}.json`` with :meth:`Game.to_json`; agent A is ``player_0`` in
both (game 2 deals game 1's cards the other way round, see
:mod:`widderkopf_env.agents.arena`). Any of them replays with ``widderkopf-replay FILE``.
:func:`biggest_losses` picks A's worst games for a quick look.
"""

from __future__ import annotations

from pathlib import Path

from widderkopf_env.rules import Game


def game_path(directory, index: int, k: int) -> Path:
    """The file of game ``k`` (0 or 1) of deal pair ``index``."""
    return Path(directory) / f"pair{index:05d}_game{k + 1}.json"


def save_game(game: Game, directory, index: int, k: int) -> None:
    game_path(directory, index, k).write_text(game.to_json(), encoding="utf-8")


def biggest_losses(directory, pairs: int, count: int = 5) -> list[dict]:
    """A's ``count`` biggest losses (most game points lost) among the saved games of
    pairs ``0 .. pairs-1``, worst first; ties in pair order."""
    games = []
    for index in range(pairs):
        for k in (0, 1):
            path = game_path(directory, index, k)
            game = Game.from_json(path.read_text(encoding="utf-8"))
            points = game.returns()[0]
            if points < 0:
                r = game.results[-1]
                games.append({"file": str(path), "pair": index, "game": k + 1,
                              "a_points": points, "crack_level": r.crack_level,
                              "card_points": list(r.card_points)})
    games.sort(key=lambda g: g["a_points"])
    return games[:count]


def losses_text(losses: list[dict], agent_a: str) -> str:
    """The lines the eval summary prints about :func:`biggest_losses`."""
    if not losses:
        return f"{agent_a} lost no game."
    lines = [f"Biggest losses of {agent_a} (replay one: widderkopf-replay FILE -o game.html):"]
    for g in losses:
        pts = g["card_points"]
        lines.append(f"  {g['a_points']:+g} game points, {pts[0]} to {pts[1]} card points, "
                     f"crack level {g['crack_level']}: {g['file']}")
    return "\n".join(lines)
