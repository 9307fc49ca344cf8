"""Draw the table picture of README.md and docs/pictures.md:
``python scripts/make_table_png.py`` -> docs/table.png.

Two heuristic bots play the deal of seed 2026 (the game ``widderkopf-eval`` and the tests
use); the picture is the spectator's table after 16 decisions, drawn by
``render_mode="rgb_array"``'s code (needs the ``[render]`` extra).
"""

from pathlib import Path

from PIL import Image

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.picture import game_rgb

game, bots = Game.new(seed=2026), (HeuristicAgent(), HeuristicAgent())
for _ in range(16):
    game.apply(bots[game.current].act(game.view(game.current)))
out = Path(__file__).resolve().parents[1] / "docs" / "table.png"
Image.fromarray(game_rgb(game)).save(out, optimize=True)
print(f"wrote {out}")
