"""Shared helpers for the engine tests: named deals and small drivers."""

from __future__ import annotations

from pathlib import Path

from widderkopf_env import Game, parse_card
from widderkopf_env.cards import NUM_CARDS

#: The repository root (README.md, pyproject.toml, src/widderkopf_env/agents/, src/widderkopf_env/train/, ...).
ROOT = Path(__file__).resolve().parent.parent


def ids(names: str) -> list[int]:
    """Sorted card ids of space-separated names: ``ids("AS 7S")``."""
    return sorted(parse_card(n) for n in names.split())


def deal(p0: tuple[str, str, str], p1: tuple[str, str, str]) -> dict:
    """A deal spec from three space-separated name strings per player: hand, up, down."""
    return {
        agent: dict(zip(("hand", "up", "down"), (part.split() for part in parts), strict=True))
        for agent, parts in (("player_0", p0), ("player_1", p1))
    }


def play(game: Game, *names: str) -> None:
    """Apply actions given by card name, or 'crack'/'pass'/'trump X'."""
    for name in names:
        if name in ("crack", "escalate"):
            game.apply(40)
        elif name == "pass":
            game.apply(41)
        elif name.startswith("trump "):
            game.apply(36 + "CSHD".index(name[-1]))
        else:
            game.apply(parse_card(name))


def card_locations(game: Game) -> list[int]:
    """Bit sets of every place a card can be; together they must partition the deck."""
    places = [game.hand[0], game.hand[1], game.upbits[0], game.upbits[1],
              game.played[0], game.played[1]]
    places.append(sum(1 << c for c in game.down if c >= 0))
    places.append(sum(1 << c for c in game.discard if c >= 0))
    return places


def assert_cards_conserved(game: Game) -> None:
    seen = 0
    for bits in card_locations(game):
        assert seen & bits == 0, "a card is in two places"
        seen |= bits
    assert seen == (1 << NUM_CARDS) - 1, "a card went missing"


def usage_error(main, argv: list, capsys) -> str:
    """Run a console script's ``main(argv)``, check it exits 2 (argparse's usage error);
    returns what it wrote to stderr."""
    import pytest

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    return capsys.readouterr().err


#: A deal where player_0 holds the top trumps (the engine and vector-engine tests).
S = deal(
    ("QC QS QH QD JC JS JH 8C", "AC 10C KC 9C JD", "7C 6C AS AH AD"),
    ("10S KS 9S 8S 7S 6S 10H KH", "9H 8H 7H 6H 10D", "KD 9D 8D 7D 6D"),
)

#: A deal for the text and picture tests.
DEAL = {
    "player_0": {"hand": "AC 10C KC 9C QS JD 8H 7H".split(),
                 "up": "AS 10S KH 9D 6C".split(), "down": "8C 7C AH 10H 6S".split()},
    "player_1": {"hand": "QC JC KS 9S 8S AD 10D KD".split(),
                 "up": "QH JS 7S 8D 9H".split(), "down": "QD JH 6H 7D 6D".split()},
}


def scripted() -> Game:
    """DEAL after trumps (D), both discards, the lead JS from a pile and a crack."""
    game = Game.from_deal(DEAL, dealer=0)
    for action in (39, parse_card("KS"), parse_card("9C"), parse_card("JS"), 40):
        game.apply(action)
    return game


def walk_matches(n_games: int, seed: int):
    """``(game, over)`` at every position of random matches of 1-3 hands (tie-break hands
    included), finished or not; ``over`` (5%) asks an encoder for an episode that ended
    early. The game is live: copy what you keep."""
    import random

    rng = random.Random(seed)
    for i in range(n_games):
        game = Game.new(seed=seed * 1000 + i, num_hands=rng.choice([1, 2, 3]),
                        scores=rng.choice([(0, 0), (0, 0), (3, 1), (200, 7)]))
        while True:
            yield game, rng.random() < 0.05
            if game.is_over:
                break
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])


def plays_legal_moves(agent, games: int) -> None:
    """``agent`` against the heuristic, seats alternating: every move legal."""
    from widderkopf_env.agents import HeuristicAgent

    h = HeuristicAgent()
    for seed in range(games):
        game = Game.new(seed=seed)
        while not game.is_over:
            p = game.current
            a = (agent if p == seed % 2 else h).act(game.view(p))
            assert a in game.legal_actions()
            game.apply(a)


def quiet(model):
    """``model`` (a Stable-Baselines3 algorithm) with a logger that writes nowhere: SB3's
    default makes an empty ``SB3-<date>`` folder in the temp directory at every
    ``learn()``."""
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))
    return model
