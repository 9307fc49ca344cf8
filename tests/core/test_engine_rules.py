"""Scripted deals with hand-worked results, one or more per rule (R6-R20)."""

import pytest
from helpers import S, assert_cards_conserved, deal, ids, play

from widderkopf_env import Game, IllegalActionError, Phase, parse_card

# D1: player_1 deals, so player_0 names trumps (tie, R9), discards first and leads.
D1 = deal(
    ("QC JH AH 10H AS 6S 9D 8C", "KH AC 7S 10D QH", "9H KC 8S JD 6D"),
    ("QS JC 7H 6H 10S KS AD KD", "QD JS 10C 9S 8D", "8H 9C 7C 6C 7D"),
)
# S: player_0 holds every trump for clubs and the three other aces: it wins every trick.
def d1_after_discards() -> Game:
    g = Game.from_deal(D1, dealer=1)
    play(g, "trump H", "6S", "KS")
    return g


def test_r7_layout_and_r9_tie_non_dealer_chooses():
    g = Game.from_deal(D1, dealer="player_1")
    assert (g.dealer, g.chooser, g.current_player, g.phase) == (1, 0, 0, Phase.TRUMP)
    assert g.hand[0].bit_count() == 8 and g.upbits[1].bit_count() == 5
    assert g.up[0] == parse_card("KH") and g.down[0] == parse_card("9H")  # up[i] on down[i]
    assert g.legal_actions() == [36, 37, 38, 39]
    assert_cards_conserved(g)


def test_r9_lower_match_score_chooses():
    assert Game.from_deal(D1, dealer=1, scores=(3, 1)).current_player == 1
    assert Game.from_deal(D1, dealer=0, scores=(0, 2)).current_player == 0
    assert Game.from_deal(D1, dealer=0).current_player == 1  # tie: non-dealer


def test_r10_discard_from_hand_non_dealer_first_into_opponents_pile():
    g = Game.from_deal(D1, dealer=1)
    play(g, "trump H")
    assert (g.phase, g.current_player, g.trump) == (Phase.DISCARD, 0, 2)
    assert g.legal_actions() == ids("QC JH AH 10H AS 6S 9D 8C")  # not the face-up cards
    with pytest.raises(IllegalActionError):
        play(g, "AC")  # a face-up card may not be discarded
    play(g, "6S")
    assert g.current_player == 1 and g.legal_actions() == ids("QS JC 7H 6H 10S KS AD KD")
    play(g, "KS")
    assert (g.phase, g.current_player) == (Phase.PLAY, 0)
    assert g.card_points() == (4, 0)  # KS lies in player_0's pile
    assert g.view(0).my_discard == parse_card("6S") and g.view(1).opp_discarded


def test_r11_crack_pass_then_recrack_after_the_lead():
    g = d1_after_discards()
    assert 40 in g.legal_actions()  # the due non-dealer may crack before leading
    play(g, "crack")
    assert (g.level, g.cracker, g.phase, g.current_player) == (1, 0, Phase.ANSWER, 1)
    assert g.legal_actions() == [40, 41]
    play(g, "pass")
    assert (g.phase, g.current_player, g.level) == (Phase.PLAY, 0, 1)
    assert 40 not in g.legal_actions()  # a recrack is the other player's
    play(g, "QH")  # lead from the face-up pile lying on 6D
    # R15 over all playable cards, and R11.3: the pass kept player_1's right to recrack
    assert g.legal_actions() == ids("QS JC 7H 6H QD JS") + [40]
    play(g, "crack")  # Recrack; player_0 has played, so nobody answers
    assert (g.level, g.recracker, g.phase, g.current_player) == (2, 1, Phase.PLAY, 1)
    assert g.legal_actions() == ids("QS JC 7H 6H QD JS")


def test_r11_full_chain_before_the_lead_and_level_cap():
    g = d1_after_discards()
    play(g, "crack", "crack")  # Crack by player_0, Recrack answered by player_1
    assert (g.level, g.phase, g.current_player) == (2, Phase.PLAY, 0)
    assert 40 in g.legal_actions()  # Crackback is the cracker's
    play(g, "crack")
    assert (g.level, g.phase, g.current_player) == (3, Phase.ANSWER, 1)
    play(g, "crack")  # Crack Around the Corner by the recracker
    assert (g.level, g.phase, g.current_player) == (4, Phase.PLAY, 0)
    assert 40 not in g.legal_actions() and 41 not in g.legal_actions()


def test_r11_dealer_cracks_after_the_lead_without_answer():
    g = d1_after_discards()
    play(g, "AS")
    assert 40 in g.legal_actions()
    play(g, "crack")
    assert (g.level, g.cracker, g.phase, g.current_player) == (1, 1, Phase.PLAY, 1)
    assert 40 not in g.legal_actions()  # Recrack would be player_0's, who has played
    play(g, "10S")
    assert not g.may_escalate(0) and not g.may_escalate(1)


def test_r11_answer_pass_then_due_player_may_not_escalate_twice():
    g = d1_after_discards()
    play(g, "crack", "crack", "crack", "pass")  # chain stops at Crackback
    assert (g.level, g.phase, g.current_player) == (3, Phase.PLAY, 0)
    assert 40 not in g.legal_actions()
    play(g, "QC")
    assert 40 in g.legal_actions()  # the recracker may still go Around the Corner
    play(g, "crack")
    assert g.level == 4 and g.current_player == 1


def test_r12_to_r16_first_tricks_of_d1():
    g = d1_after_discards()
    play(g, "QH")  # R13: from the face-up pile 4 (on 6D)
    v0 = g.view(0)
    assert v0.my_piles[4] == (-1, True)  # R14: 6D stays face down until the trick ends
    assert parse_card("6D") not in g.legal_actions()
    play(g, "QS")  # R16: QS beats QH
    assert g.tricks[-1] == (0, parse_card("QH"), parse_card("QS"), 1)
    assert g.trick_points == [0, 6] and g.current_player == 1  # R12: the winner leads
    assert g.view(0).my_piles[4] == (parse_card("6D"), False)  # turned over (R14)
    play(g, "10S")
    assert g.legal_actions() == ids("AS 7S")  # R15: follow spades (6S was discarded)
    play(g, "AS")
    assert g.trick_points == [21, 6] and g.current_player == 0
    play(g, "AC")  # from pile 1, on KC
    # R15: JC is a trump, not a club: the only club player_1 can play is 10C
    assert g.legal_actions() == ids("10C")
    play(g, "10C")  # from player_1's pile 2, on 7C
    assert g.trick_points == [42, 6]
    assert g.view(0).my_piles[1] == (parse_card("KC"), False)
    assert g.view(0).opp_piles[2] == (parse_card("7C"), False)
    play(g, "9D")
    assert g.legal_actions() == ids("AD KD 8D")  # QD is a trump, not a diamond
    play(g, "AD")
    assert g.trick_points == [42, 17] and g.current_player == 1
    play(g, "7C")
    assert g.legal_actions() == ids("KC 8C")
    play(g, "8C")  # 8C beats 7C
    play(g, "7S")  # from pile 2: reveals 8S after the trick
    assert g.legal_actions() == ids("9S")
    play(g, "9S")
    assert g.current_player == 1 and g.trick_points == [42, 17]
    play(g, "8D")
    play(g, "10D")  # 10D wins: 10 points to player_0
    assert g.trick_points == [52, 17]
    play(g, "8S")  # player_1 has no spade left: any playable card (R15)
    # 8H and 9C still lie face down under QD and JS
    assert g.legal_actions() == ids("JC 7H 6H KD QD JS 6C 7D")
    assert_cards_conserved(g)


@pytest.mark.parametrize("level", [0, 2, 4])
@pytest.mark.parametrize("seat", [0, 1])
def test_r17_r19_schwarz_with_spitzer_and_cracks(level, seat):
    spec = S if seat == 0 else {"player_0": S["player_1"], "player_1": S["player_0"]}
    g = Game.from_deal(spec, dealer=1 - seat)
    play(g, "trump C")
    play(g, "8C", "6S")  # the strong seat is the non-dealer: it discards first
    # seat is due to lead: Crack, Recrack (answer), Crackback, Around the Corner (answer)
    for _ in range(level):
        play(g, "crack")
    assert g.level == level
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    r = g.results[-1]
    assert all(t[3] == seat for t in g.tricks) and len(g.tricks) == 17
    assert r.card_points[seat] == 121 and r.card_points[1 - seat] == 0
    assert r.spitzer == seat and r.winner == seat and r.schwarz and not r.schneider
    assert r.value == 4 * 2 ** level
    assert g.returns()[seat] == r.value and g.returns()[1 - seat] == -r.value


def test_r17_r19_schneider_when_the_discard_gives_points_away():
    g = Game.from_deal(S, dealer=1)
    play(g, "trump C", "QC", "6S")  # QC (3 points) goes to player_1's pile
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    r = g.results[-1]
    assert r.card_points == (118, 3) and r.schneider and not r.schwarz and r.value == 2


def test_r5_discarded_spitzer_scores_for_the_opponent():
    g = Game.from_deal(D1, dealer=1)
    play(g, "trump H", "6S", "7H")  # 7H is the Spitzer under hearts
    while not g.is_over:
        g.apply(g.legal_actions()[-1] if g.legal_actions()[-1] < 36 else g.legal_actions()[0])
    r = g.results[-1]
    assert r.spitzer == 0 and sum(r.card_points) == 121
    assert r.card_points[0] == r.trick_points[0] + 0 + 1  # 7H is worth 0 card points + 1


def test_r18_r19_winner_and_plain_value():
    g = Game.from_deal(D1, dealer=1)
    play(g, "trump H", "6S", "KS")
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    r = g.results[-1]
    assert r.card_points[r.winner] >= 61 and sum(r.card_points) == 121
    expected = 1 if r.card_points[r.winner] < 91 else 2 if r.card_points[r.winner] < 121 else 4
    assert r.value == expected and g.scores[r.winner] == r.value and g.scores[1 - r.winner] == 0


def test_r20_tied_match_plays_on():
    g = Game.from_deal(S, dealer=1, num_hands=1, seed=11, scores=(0, 4))
    assert g.current_player == 0  # lower score names trumps
    play(g, "trump C", "8C", "6S")
    while g.hand_no == 0:
        g.apply(g.legal_actions()[0])
    assert g.scores == [4, 4] and not g.is_over  # tied after the last hand: play on
    assert (g.hand_no, g.dealer, g.current_player, g.phase) == (1, 0, 1, Phase.TRUMP)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    assert len(g.results) == 2 and g.scores[0] != g.scores[1]


def test_r6_r20_match_dealer_alternates_scores_carry():
    g = Game.new(seed=5, num_hands=4)
    first = g.dealer
    while not g.is_over:
        g.apply(g.legal_actions()[-1])
    rs = g.results
    assert len(rs) >= 4 and [r.dealer for r in rs] == [first ^ (i & 1) for i in range(len(rs))]
    scores = [0, 0]
    for r in rs:
        scores[r.winner] += r.value
        assert list(r.scores) == scores
    assert g.scores == scores and g.current_player is None


def test_r6_first_dealer_drawn_from_the_seed():
    dealers = {Game.new(seed=s).dealer for s in range(40)}
    assert dealers == {0, 1}
    assert all(Game.new(seed=s).dealer == Game.new(seed=s).dealer for s in range(10))
