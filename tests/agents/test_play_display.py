"""What widderkopf-play shows a player: the hand sorted as a player sorts it (trumps
first, by rank, R2), and wording that matches what may be done now (R11)."""

from __future__ import annotations

import re

import pytest

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.agents.play_cli import parse_move
from widderkopf_env.cards import TRUMP_ACTION
from widderkopf_env.render import render_game, render_view
from widderkopf_env.rules import Phase

DEAL = {
    "player_0": {"hand": ["QC", "JH", "AH", "10H", "AS", "6S", "9D", "8C"],
                 "up": ["KH", "AC", "7S", "10D", "QH"],
                 "down": ["9H", "KC", "8S", "JD", "6D"]},
    "player_1": {"hand": ["QS", "JC", "7H", "6H", "10S", "KS", "AD", "KD"],
                 "up": ["QD", "JS", "10C", "9S", "8D"],
                 "down": ["8H", "9C", "7C", "6C", "7D"]},
}


def hand_line(text: str, prefix: str = "          hand") -> str:
    return next(line for line in text.splitlines() if line.startswith(prefix)).split(": ", 1)[1]


def test_hand_before_trumps_puts_queens_and_jacks_first():
    game = Game.from_deal(DEAL, dealer="player_1")  # player_0 names trumps (R9)
    text = render_view(game.view(0))
    assert hand_line(text) == "Q♣ J♥  8♣  A♠ 6♠  A♥ 10♥  9♦"
    assert "not named yet (you name it)" in text
    assert "you may escalate (Crack) once the card play starts" in text
    assert "not named yet (opponent names it)" in render_view(game.view(1))


@pytest.mark.parametrize("suit,expected", [
    ("H", "Q♣ J♥ A♥ 10♥  8♣  A♠ 6♠  9♦"),  # QC JH, then A 10 of hearts (R2)
    ("C", "Q♣ J♥ 8♣  A♠ 6♠  A♥ 10♥  9♦"),
    ("D", "Q♣ J♥ 9♦  8♣  A♠ 6♠  A♥ 10♥"),
])
def test_hand_after_trumps_groups_the_trumps_by_rank(suit, expected):
    game = Game.from_deal(DEAL, dealer="player_1")
    game.apply(TRUMP_ACTION + "CSHD".index(suit))
    assert hand_line(render_view(game.view(0))) == expected
    # player_1 holds QS JC: queens above jacks whatever the suits (R2)
    assert hand_line(render_view(game.view(1))).startswith("Q♠ J♣ ")
    assert hand_line(render_game(game), "player_0  hand") == expected


def test_crack_before_the_card_play_is_explained():
    game = Game.from_deal(DEAL, dealer="player_1")
    with pytest.raises(ValueError, match="escalating starts with the card play"):
        parse_move("crack", game.view(0))
    game.apply(TRUMP_ACTION + 2)
    assert game.phase == Phase.DISCARD
    with pytest.raises(ValueError, match="escalating starts with the card play"):
        parse_move("crack", game.view(game.current))


def test_one_card_is_singular():
    game, bot = Game.new(seed=4), HeuristicAgent()
    seen = set()
    while not game.is_over:
        view = game.view(game.current)
        text = render_view(view)
        size = view.hand_size_opp
        seen.add(size)
        assert re.search(rf"Opponent  hand: {size} cards?\n", text)
        assert ("1 cards" not in text) and (size != 1 or "hand: 1 card\n" in text)
        game.apply(bot.act(view))
    assert 1 in seen
