"""Card features of a view (src/widderkopf_env/agents/features.py): hand-worked values, and no leak (R8)."""

from __future__ import annotations

import numpy as np
from helpers import deal, play
from indistinguishable import run_check

from widderkopf_env import Game, parse_card
from widderkopf_env.agents.canonical import ROLES
from widderkopf_env.agents.features import SIZE, card_features

# Player 0 (non-dealer) names trumps; player 1 holds no heart in hand or face up
DEAL = deal(("QC JH AH 10H 7H 6H AS 9D", "KH AC 7S 10D QH", "9H KC 8S JD 6D"),
            ("QS JC 6S 8C 10S KS AD KD", "QD JS 10C 9S 8D", "8H 9C 7C 6C 7D"))
HEARTS = 216 + 2  # opp_void by class under club trumps: trumps, spades, hearts, diamonds


def feature(f: np.ndarray, name: str, card: str, trump: int = 0) -> float:
    at = {"out_above": 0, "unseen_above": 36, "opp_up_above": 72, "boss": 108,
          "beats_lead": 144, "my_boss": 180}[name]
    return float(f[at + ROLES[trump][parse_card(card)]])


def test_features_are_zero_before_trumps_are_named():
    game = Game.from_deal(DEAL, dealer=1)
    f = card_features(game.view(0))
    assert f.shape == (SIZE,) and f.dtype == np.float32 and not f.any()


def test_hand_worked_features_after_the_discards():
    game = Game.from_deal(DEAL, dealer=1)
    play(game, "trump C", "9D", "KD")  # clubs; player 0 discards 9D, player 1 KD
    f = card_features(game.view(0))
    # QC is the highest trump: nothing above it, so it is boss and mine
    assert feature(f, "out_above", "QC") == 0 and feature(f, "my_boss", "QC") == 1
    # JH: above it QC QH (mine), QS JC (the opponent's hand: unseen), QD JS (face up
    # in front of the opponent)
    assert feature(f, "out_above", "JH") == np.float32(4 / 7)
    assert feature(f, "unseen_above", "JH") == np.float32(2 / 7)
    assert feature(f, "opp_up_above", "JH") == 1 and feature(f, "boss", "JH") == 0
    # AH: the highest heart, mine
    assert feature(f, "boss", "AH") == 1 and feature(f, "my_boss", "AH") == 1
    # 10S: the ace of spades is mine, so the 10 is boss but not mine
    assert feature(f, "boss", "10S") == 1 and feature(f, "my_boss", "10S") == 0
    assert not f[144:180].any() and f[236] == 0  # nothing led yet
    assert not f[216:220].any()  # no void shown
    assert f[237] == np.float32(7 / 8)  # the opponent has 7 cards left in hand


def test_the_lead_and_a_shown_void():
    game = Game.from_deal(DEAL, dealer=1)
    play(game, "trump C", "9D", "KD", "AH")  # player 0 leads the ace of hearts
    f = card_features(game.view(1))
    assert feature(f, "beats_lead", "QS") == 1  # a trump beats a plain lead
    assert feature(f, "beats_lead", "6S") == 0  # another plain suit does not
    assert f[236] == 1.0  # the ace's 11 points / 11
    assert not card_features(game.view(0))[216:220].any()
    play(game, "6S")  # player 1 cannot follow hearts (R15)
    f = card_features(game.view(0))
    assert f[HEARTS] == 1 and f[216:220].sum() == 1
    assert not card_features(game.view(1))[216:220].any()  # player 0 showed no void


def test_card_features_leak_nothing():
    """Indistinguishable games give the same features (R8); a leaky twin is caught."""
    def features_of(game, p):
        return card_features(game.view(p)), np.zeros(1)

    def leaky(game, p):
        f, m = features_of(game, p)
        return np.append(f, game.hand[1 - p] & 0xFFFF), m

    stats = run_check(features_of, n=300, seed=4)
    assert stats["leaks"] == 0 and stats["nontrivial"] >= 200, stats
    assert run_check(leaky, n=150, seed=4)["leaks"] >= 10
