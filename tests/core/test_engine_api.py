"""The engine's public contract: bad input gets clear errors and leaves the game usable."""

import numpy as np
import pytest
from helpers import deal, play

from widderkopf_env import Game, IllegalActionError, Phase, parse_deal
from widderkopf_env.worlds import from_view

GOOD = deal(
    ("QC JH AH 10H AS 6S 9D 8C", "KH AC 7S 10D QH", "9H KC 8S JD 6D"),
    ("QS JC 7H 6H 10S KS AD KD", "QD JS 10C 9S 8D", "8H 9C 7C 6C 7D"),
)


@pytest.mark.parametrize("bad", [3, "QC", 40, 41, -1, 42, 10**9, 10**4400, -(10**5000)],
                         ids=["3", "QC", "40", "41", "-1", "42", "10**9", "10**4400",
                              "-10**5000"])
def test_illegal_action_names_action_phase_and_legal_set_and_changes_nothing(bad):
    g = Game.from_deal(GOOD, dealer=1)
    before = g.state_dict()
    with pytest.raises(IllegalActionError) as err:
        g.apply(bad)
    msg = str(err.value)
    assert "TRUMP" in msg and "36 (trump C)" in msg and "39 (trump D)" in msg
    assert err.value.legal == [36, 37, 38, 39] and err.value.phase == Phase.TRUMP
    assert isinstance(err.value, ValueError)
    assert g.state_dict() == before
    g.apply(38)  # still usable
    assert g.phase == Phase.DISCARD


@pytest.mark.parametrize("bad", [True, 36.0, None, [36], np.float32(36)])
def test_wrong_action_types_are_rejected_clearly(bad):
    g = Game.from_deal(GOOD, dealer=1)
    with pytest.raises(IllegalActionError, match="integer action id"):
        g.apply(bad)
    assert g.phase == Phase.TRUMP and g.history == []


def test_numpy_integers_are_accepted():
    g = Game.from_deal(GOOD, dealer=1)
    g.apply(np.int64(38))
    g.apply(np.array(17))  # 6S
    assert g.history == [38, 17] and type(g.history[0]) is int


def test_stepping_a_finished_game_is_an_error():
    g = Game.new(seed=3)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    with pytest.raises(IllegalActionError, match="match is over"):
        g.apply(0)


def test_deal_hand_plays_the_given_cards_in_a_hand_not_yet_begun():
    """``Game.deal_hand``: a later hand of a match played with the deal given instead of
    the seed's, the same game as ``from_deal`` would start; refused once the hand has
    begun or the match is over, and the game stays usable."""
    g = Game.new(seed=5, num_hands=2)
    while g.hand_no == 0:
        g.apply(g.legal_actions()[0])
    other = Game.new(seed=11).deals[0]
    from widderkopf_env.rules import deal_to_spec

    g.deal_hand(deal_to_spec(other))
    assert g.deals[1] == other and g.hand[0] == sum(1 << c for c in other[0][0])
    fresh = Game.from_deal(deal_to_spec(other), dealer=g.dealer)
    assert g.up == fresh.up and g.down == fresh.down and g.hand == fresh.hand
    assert g.legal_actions() == fresh.legal_actions()
    g.apply(g.legal_actions()[0])
    with pytest.raises(ValueError, match="not yet begun"):
        g.deal_hand(deal_to_spec(other))
    assert g.deals[1] == other
    g.apply(g.legal_actions()[0])  # still usable
    with pytest.raises(ValueError, match="deal must be a dict"):
        Game.new(seed=1).deal_hand([1, 2])


def _with(path, value):
    spec = {a: {k: list(v) for k, v in part.items()} for a, part in GOOD.items()}
    agent, key = path
    spec[agent][key] = value
    return spec


@pytest.mark.parametrize(
    "spec, message",
    [
        (_with(("player_0", "hand"), ["QC", "JH"]), "must list 8 card names"),
        (_with(("player_1", "up"), ["QD", "JS", "10C", "9S", "XX"]), "unknown card name 'XX'"),
        (_with(("player_1", "up"), ["QD", "JS", "10C", "9S", "QC"]), "QC is dealt twice"),
        ({"player_0": GOOD["player_0"]}, "keys 'player_0' and 'player_1'"),
        ({**GOOD, "player_0": {"hand": []}}, "must have keys 'hand', 'up', 'down'"),
        ("not a deal", "must be a dict"),
    ],
)
def test_malformed_deals_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_deal(spec)
    with pytest.raises(ValueError, match=message):
        Game.from_deal(spec)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"num_hands": 0}, ValueError, "num_hands"), ({"num_hands": 2.5}, ValueError, "num_hands"),
    ({"dealer": 2}, ValueError, "dealer must be"),
    ({"dealer": "player_2"}, ValueError, "dealer must be 0, 1, 'player_0' or 'player_1'"),
    ({"seed": "x"}, TypeError, "seed must be an int"), ({"scores": (1,)}, ValueError, "scores"),
    ({"seed": 10**5000}, ValueError, "seed must be an int of at most 4096 bits"),
])
def test_bad_game_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        Game.new(**kwargs)


def test_view_hides_opponent_hand_face_down_cards_and_discard():
    """R8: the view carries no hidden card, only counts and pile flags."""
    g = Game.from_deal(GOOD, dealer=1)
    play(g, "trump H", "6S", "KS")
    v = g.view("player_0")
    assert v.hand == g.hand[0] and v.hand_size_opp == 7
    assert v.opp_up == g.upbits[1] and v.my_discard == 17 and v.opp_discarded
    hidden = g.hand[1] | sum(1 << c for c in g.down if c >= 0) | (1 << g.discard[1])
    assert v.unseen == hidden
    card_sets = [v.hand, v.my_up, v.opp_up, v.my_covered, v.opp_covered, *v.played, *v.won]
    assert all(bits & hidden == 0 for bits in card_sets)
    assert all(c not in g.down and c != g.discard[1] for c, _ in v.my_piles + v.opp_piles)
    assert v.legal_actions() == g.legal_actions() and g.view(1).legal_actions() == []


def test_a_huge_action_is_named_by_its_size():
    g = Game.from_deal(GOOD, dealer=1)
    with pytest.raises(IllegalActionError, match="an int of 14,617 bits"):
        g.apply(10**4400)


# --- worlds.from_view with wrong types ------------------------------------------------------------

def _world_args(g: Game):
    view = g.view(0)
    hand = [c for c in range(36) if (g.hand[1] >> c) & 1]
    face_down = {i: c for i, c in enumerate(g.down) if c >= 0}
    return view, hand, face_down


def test_from_view_with_the_right_cards_is_the_game():
    g = Game.from_deal(GOOD, dealer=1)
    view, hand, face_down = _world_args(g)
    world = from_view(view, hand, face_down)
    assert world.legal_actions() == g.legal_actions() and world.hand == g.hand
    assert from_view(view, set(hand), face_down).hand == g.hand
    assert from_view(view, g.hand[1], face_down).hand == g.hand


def _from_view_with(which: str, bad) -> Game:
    """``worlds.from_view`` on a good world with the argument ``which`` replaced by ``bad``."""
    view, hand, face_down = _world_args(Game.from_deal(GOOD, dealer=1))
    args = {"view": view, "opponent_hand": hand, "face_down": face_down,
            "opponent_discard": -1, which: bad}
    return from_view(**args)


@pytest.mark.parametrize("which, bad, message", [
    ("view", "not a view", "view must be a PlayerView, got str"),
    ("view", None, "view must be a PlayerView, got NoneType"),
    ("opponent_hand", None, "opponent_hand must be card ids"),
    ("opponent_hand", "QC JC", "opponent_hand must be card ids"),
    ("opponent_hand", [1.5], "opponent_hand must be a card id"),
    ("opponent_hand", ["QC"], "opponent_hand must be a card id"),
    ("opponent_hand", True, "opponent_hand must be card ids"),
    ("face_down", [1, 2], "face_down must be a dict"),
    ("face_down", None, "face_down must be a dict"),
    ("face_down", {"a": 3}, "face_down: piles must be ints"),
    ("face_down", {0: "QC"}, r"face_down\[0\] must be a card id"),
    ("opponent_discard", "QC", "opponent_discard must be a card id or -1"),
    ("opponent_discard", None, "opponent_discard must be a card id or -1"),
])
def test_from_view_wrong_types_raise_type_error_naming_the_argument(which, bad, message):
    with pytest.raises(TypeError, match=message):
        _from_view_with(which, bad)


@pytest.mark.parametrize("which, bad, message", [
    ("opponent_hand", [36], "opponent_hand must be a card id in 0..35"),
    ("opponent_hand", [-1], "opponent_hand must be a card id in 0..35"),
    ("opponent_hand", 1 << 40, "opponent_hand as a bit set"),
    ("face_down", {0: 99}, r"face_down\[0\] must be a card id in 0..35"),
    ("opponent_discard", 40, "opponent_discard must be a card id in 0..35"),
])
def test_from_view_ids_out_of_range_raise_value_error(which, bad, message):
    with pytest.raises(ValueError, match=message):
        _from_view_with(which, bad)


def test_match_scores_are_checked_whatever_their_form():
    for good, kept in (((3, 1), (3, 1)), ([0, 2], (0, 2)), ((np.int64(4), 0), (4, 0))):
        assert Game.new(seed=1, scores=good).initial_scores == kept
    for bad in ((True, 0), (-1, 0), (0, 10 ** 9 + 1), (1.0, 0), (0, 0, 0), (0,), "00", None):
        with pytest.raises(ValueError, match="scores must be a tuple of two ints"):
            Game.new(seed=1, scores=bad)
