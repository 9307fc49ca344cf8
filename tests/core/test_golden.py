"""A golden playthrough: a seeded two-hand match printed decision by decision and diffed
against tests/golden/playthrough_seed2026.txt. Any change to deals, rules or views shows
up as a diff. Regenerate deliberately with ``WIDDERKOPF_UPDATE_GOLDEN=1 pytest``."""

import os
import random
from pathlib import Path

from widderkopf_env import Game, Phase, action_name
from widderkopf_env.cards import names

GOLDEN = Path(__file__).parent / "golden" / "playthrough_seed2026.txt"


def _layout(g: Game, p: int) -> str:
    piles = [f"{names([g.up[i]])[0] if g.up[i] >= 0 else '--'}/{names([g.down[i]])[0]}"
             for i in range(5 * p, 5 * p + 5)]
    return f"   player_{p} hand {' '.join(names(g.hand[p]))} | piles {' '.join(piles)}"


def playthrough(seed: int = 2026, hands: int = 2) -> str:
    g = Game.new(seed=seed, num_hands=hands)
    rng = random.Random(seed)
    lines = [f"seed {seed}, {hands} hands, first dealer player_{g.dealer}"]
    results = tricks = 0
    while not g.is_over:
        if not g.history or len(g.results) > results:
            results = len(g.results)
            lines.append(f"== hand {g.hand_no}: dealer player_{g.dealer}, scores {g.scores}")
            lines += [_layout(g, 0), _layout(g, 1)]
        view = g.view(g.current_player)
        acts = g.legal_actions()
        a = 40 if 40 in acts and rng.random() < 0.3 else rng.choice(acts)
        lines.append(
            f"{Phase(g.phase).name:7s} p{g.current_player} level {g.level} "
            f"| up {' '.join(names(view.my_up)) or '-'} "
            f"| legal {' '.join(map(action_name, acts))} -> {action_name(a)}")
        g.apply(a)
        if len(g.results) > results:
            lines.append(f"   result {g.results[-1]}")
            tricks = 0
        elif len(g.tricks) > tricks:
            tricks = len(g.tricks)
            lines.append(f"   trick {tricks} to player_{g.tricks[-1][3]}, points {g.trick_points}")
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    text = playthrough()
    if os.environ.get("WIDDERKOPF_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert GOLDEN.exists(), "run with WIDDERKOPF_UPDATE_GOLDEN=1 to create the golden file"
    assert text == GOLDEN.read_text()
