"""The reference encoder on a scripted deal (helpers.DEAL), every piece of both players'
observations checked by hand through trumps, both discards, a lead from a pile, a Crack
and the first trick (RULES R7-R14)."""

from __future__ import annotations

import numpy as np
from helpers import DEAL

from widderkopf_env import Game, parse_card
from widderkopf_env.observation import OBS_SIZE, OFFSETS, action_mask, encode, piece


def cards(names: str) -> list[int]:
    """A 36-entry 0/1 list with the named cards set."""
    out = [0] * 36
    for name in names.split():
        out[parse_card(name)] = 1
    return out


def unseen(seen: str) -> list[int]:
    return [1 - x for x in cards(seen)]


def onehot(i: int, n: int) -> list[int]:
    return [int(j == i) for j in range(n)]


def check(obs: np.ndarray, expected: dict) -> None:
    """Every piece of ``obs`` equals ``expected[name]`` (all pieces must be given)."""
    assert set(expected) == set(OFFSETS), set(OFFSETS) ^ set(expected)
    assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
    for name, want in expected.items():
        got = piece(obs, name)
        np.testing.assert_array_equal(got, np.asarray(want, np.float32), err_msg=name)


def start_expected() -> tuple[dict, dict]:
    """Both players' pieces in the trump phase of DEAL (dealer player_0)."""
    p1 = dict(
        hand=cards("QC JC KS 9S 8S AD 10D KD"), my_up=cards("QH JS 7S 8D 9H"),
        my_covered=cards("QH JS 7S 8D 9H"), opp_up=cards("AS 10S KH 9D 6C"),
        opp_covered=cards("AS 10S KH 9D 6C"), my_discard=cards(""), lead=cards(""),
        my_played=cards(""), opp_played=cards(""), my_won=cards(""), opp_won=cards(""),
        unseen=unseen("QC JC KS 9S 8S AD 10D KD QH JS 7S 8D 9H AS 10S KH 9D 6C"),
        trumps=cards(""), legal_cards=cards(""), pending=[0, 0], phase=onehot(0, 5), my_turn=[1], trump_suit=onehot(4, 5),
        crack_level=onehot(0, 5), cracker=[0, 0], roles=[0, 1, 1], opp_discarded=[0],
        tiebreak=[0], trick_points=[0, 0], tricks_done=[0], opp_hand_size=[1],
        face_down=[1, 1], match_scores=[0, 0], hands_left=[1 / 8])
    p0 = dict(p1)
    p0.update(
        hand=cards("AC 10C KC 9C QS JD 8H 7H"), my_up=p1["opp_up"], my_covered=p1["opp_up"],
        opp_up=p1["my_up"], opp_covered=p1["my_up"],
        unseen=unseen("AC 10C KC 9C QS JD 8H 7H QH JS 7S 8D 9H AS 10S KH 9D 6C"),
        my_turn=[0], roles=[1, 0, 0])
    return p0, p1


def observe(game: Game, player: int) -> np.ndarray:
    return encode(game.view(player))


def test_scripted_deal_every_piece():
    game = Game.from_deal(DEAL, dealer=0)
    p0, p1 = start_expected()
    # Trump phase: player_1 (non-dealer, scores tied) names trumps (R9).
    for p, exp in ((0, p0), (1, p1)):
        view = game.view(p)
        exp["may_escalate"] = [int(view.may_escalate[p]), int(view.may_escalate[1 - p])]
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)
    np.testing.assert_array_equal(action_mask(game.view(1)), [0] * 36 + [1, 1, 1, 1, 0, 0])
    assert not action_mask(game.view(0)).any()

    game.apply(39)  # trump D
    trumps = cards("QC QS QH QD JC JS JH JD AD 10D KD 9D 8D 7D 6D")
    # Discard phase: player_1 discards first (R10), from the hand only.
    for exp in (p0, p1):
        exp.update(trumps=trumps, trump_suit=onehot(3, 5), phase=onehot(1, 5),
                   may_escalate=[1, 1])
    p1["legal_cards"] = p1["hand"]
    check(observe(game, 1), p1)
    check(observe(game, 0), p0)

    game.apply(parse_card("KS"))
    p1.update(hand=cards("QC JC 9S 8S AD 10D KD"), my_discard=cards("KS"), my_turn=[0],
              legal_cards=cards(""))
    p0.update(my_turn=[1], opp_discarded=[1], opp_hand_size=[7 / 8],
              legal_cards=p0["hand"])
    check(observe(game, 1), p1)
    check(observe(game, 0), p0)  # KS stays in player_0's unseen (R8)

    game.apply(parse_card("9C"))
    p0.update(hand=cards("AC 10C KC QS JD 8H 7H"), my_discard=cards("9C"), my_turn=[0],
              legal_cards=cards(""), phase=onehot(2, 5))
    p0["unseen"][parse_card("9C")] = 0
    p1.update(my_turn=[1], opp_discarded=[1], opp_hand_size=[7 / 8], phase=onehot(2, 5),
              legal_cards=cards("QC JC 9S 8S AD 10D KD QH JS 7S 8D 9H"))
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)

    # player_1 leads JS from its pile 1; JH under it stays face down until the trick ends.
    game.apply(parse_card("JS"))
    p1.update(my_up=cards("QH 7S 8D 9H"), my_covered=cards("QH 7S 8D 9H"), lead=cards("JS"),
              my_played=cards("JS"), my_turn=[0], legal_cards=cards(""),
              may_escalate=[0, 1], pending=[1, 0])
    p0.update(opp_up=cards("QH 7S 8D 9H"), opp_covered=cards("QH 7S 8D 9H"),
              lead=cards("JS"), opp_played=cards("JS"), my_turn=[1],
              legal_cards=cards("QS JD 9D"), may_escalate=[1, 0],  # must follow trumps
              pending=[0, 1])
    assert p0["unseen"][parse_card("JH")] == 1
    check(observe(game, 0), p0)  # JH is pending: face_down still counts 5
    check(observe(game, 1), p1)
    np.testing.assert_array_equal(np.flatnonzero(action_mask(game.view(0))),
                                  sorted(parse_card(c) for c in "QS JD 9D".split()) + [40])

    # player_0 cracks; player_1 has played a card, so cannot answer (R11).
    game.apply(40)
    for exp in (p0, p1):
        exp.update(crack_level=onehot(1, 5), may_escalate=[0, 0])
    p0["cracker"], p1["cracker"] = [1, 0], [0, 1]
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)

    # player_0 follows with 9D from its pile 3 (10H under it); JS wins (jacks rank higher).
    game.apply(parse_card("9D"))
    p0.update(my_up=cards("AS 10S KH 6C 10H"), my_covered=cards("AS 10S KH 6C"),
              pending=[0, 0], face_down=[4 / 5, 4 / 5], opp_up=cards("QH JH 7S 8D 9H"),
              lead=cards(""), my_played=cards("9D"),
              opp_won=cards("JS 9D"), trick_points=[0, 2 / 121], tricks_done=[1 / 17],
              my_turn=[0], legal_cards=cards(""))
    for c in ("JH", "10H"):
        p0["unseen"][parse_card(c)] = 0
    p1.update(my_up=cards("QH JH 7S 8D 9H"), pending=[0, 0], face_down=[4 / 5, 4 / 5],
              opp_up=cards("AS 10S KH 6C 10H"), opp_covered=cards("AS 10S KH 6C"),
              lead=cards(""), opp_played=cards("9D"),
              my_won=cards("JS 9D"), trick_points=[2 / 121, 0], tricks_done=[1 / 17],
              my_turn=[1], roles=[0, 1, 1],
              legal_cards=cards("QC JC 9S 8S AD 10D KD QH JH 7S 8D 9H"))
    for c in ("JH", "10H", "9D"):
        p1["unseen"][parse_card(c)] = 0
    check(observe(game, 0), p0)
    check(observe(game, 1), p1)
