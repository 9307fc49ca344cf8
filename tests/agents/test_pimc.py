"""PIMC: resampled worlds are consistent and uniform, the solver is exact, the bot legal."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from types import SimpleNamespace

import pytest
from helpers import deal, play

from widderkopf_env import Game, parse_card
from widderkopf_env.agents import HeuristicAgent, PIMCAgent, RandomAgent, agent_names, load_agent
from widderkopf_env.agents.solver import game_points, solve_actions, solve_value
from widderkopf_env.cards import ESCALATE, PASS, card_name, from_bits, names
from widderkopf_env.rules import IllegalActionError, Phase, deal_to_spec
from widderkopf_env.worlds import Resampler, hidden_info, resample

STATE = ("phase", "current", "dealer", "trump", "hand", "up", "down", "upbits", "covered",
         "discard", "won", "trick_points", "played", "lead", "lead_pile", "leader", "tricks",
         "level", "cracker", "recracker")


def positions(n_games: int, seed: int, num_hands: int = 1, min_tricks: int = 0):
    """(game, player to act) at every decision of heuristic/random games (a copy each)."""
    rng = random.Random(seed)
    h, r = HeuristicAgent(), RandomAgent(seed)
    for i in range(n_games):
        game = Game.new(seed=seed * 1000 + i, num_hands=num_hands)
        while not game.is_over:
            if len(game.tricks) >= min_tricks:
                yield game.clone(), game.current
            agent = h if rng.random() < 0.6 else r
            game.apply(agent.act(game.view(game.current)))


def relabelled_replay(game: Game, world: Game, player: int) -> Game:
    """Replay ``game``'s history from its deal with each hidden card replaced by the card
    the world put in its place. Raises IllegalActionError if the world is inconsistent."""
    o = 1 - player
    sigma = dict(zip(from_bits(game.hand[o]), from_bits(world.hand[o]), strict=True))
    sigma |= {game.down[i]: world.down[i] for i in range(10) if game.down[i] >= 0}
    if game.discard[o] >= 0:
        sigma[game.discard[o]] = world.discard[o]
    spec = deal_to_spec(game.deals[0])
    for part in spec.values():
        for key, cards in part.items():
            part[key] = [card_name(sigma.get(parse_card(c), parse_card(c))) for c in cards]
    replay = Game.from_deal(spec, dealer=game.first_dealer)
    for a in game.history:
        replay.apply(sigma.get(a, a) if a < 36 else a)
    return replay


# --- resampling ------------------------------------------------------------------------------

def test_worlds_agree_with_the_view_and_replay_legally():
    rng, checked = random.Random(1), 0
    for game, p in positions(40, seed=1):
        view = game.view(p)
        info = hidden_info(view)
        sampler = Resampler(view)
        for _ in range(2):
            world = sampler.sample(rng)
            assert world.view(p) == view  # every visible part equals the view
            o = 1 - p
            hidden = world.hand[o] | sum(1 << c for c in world.down if c >= 0)
            if world.discard[o] >= 0:
                hidden |= 1 << world.discard[o]
            assert hidden == view.unseen  # the unseen cards, each in one hidden place
            assert world.hand[o].bit_count() == game.hand[o].bit_count()
            assert not world.hand[o] & info.void  # voids respected
            assert all((w >= 0) == (g >= 0) for w, g in zip(world.down, game.down, strict=True))
            replay = relabelled_replay(game, world, p)  # raises if a past play is illegal
            assert all(getattr(replay, f) == getattr(world, f) for f in STATE)
            checked += 1
    assert checked > 2000


def test_worlds_in_multi_hand_matches_play_on_to_the_end():
    rng, h = random.Random(2), HeuristicAgent()
    for game, p in itertools.islice(positions(6, seed=2, num_hands=3), 0, None, 7):
        view = game.view(p)
        world = resample(view, rng)
        assert world.view(p) == view
        while not world.is_over:
            world.apply(h.act(world.view(world.current)))


def test_void_inference_reads_only_the_opponents_failures_to_follow():
    d = deal(("AS 10S KS 9S 8S 7S 6S 6C", "AH 10H KH 9H 8H", "AD 10D KD 9D 8D"),
             ("QC QS QH QD JC JS JH JD", "AC 10C KC 9C 8C", "7H 6H 7D 6D 7C"))
    game = Game.from_deal(d, dealer=1)  # player 0 names trumps, discards first and leads
    play(game, "trump D", "6S", "JD", "AS", "QC")  # player 1 shows a spade void
    assert game.current == 1 and len(game.tricks) == 1
    view0, view1 = game.view(0), game.view(1)
    spades = sum(1 << parse_card(n) for n in "AS 10S KS 9S 8S 7S 6S".split())
    assert view0.opponent_voids == spades
    assert view1.opponent_voids == 0  # player 0 led, and nobody failed to follow them
    info = hidden_info(view0)
    assert info.allowed == info.unseen & ~spades
    assert info.hand_size == 6 and len(info.down_slots) == 10 and info.discard


def small_positions(seed: int, max_hidden: int, want: int):
    """Late positions with few hidden cards where a void shown by the opponent rules out
    some unseen cards for their hand."""
    found, sizes = [], set()
    for game, p in positions(400, seed=seed, min_tricks=8):
        view = game.view(p)
        if game.phase != Phase.PLAY or not view.opponent_voids:
            continue
        info = hidden_info(view)
        if (info.unseen & info.void and info.unseen.bit_count() <= max_hidden
                and 30 <= info.count_worlds() <= 1200 and info.count_worlds() not in sizes):
            sizes.add(info.count_worlds())
            found.append((game, p))
            if len(found) == want:
                break
    return found


def enumerate_consistent(game: Game, p: int) -> set:
    """Every assignment of the unseen cards to the hidden places whose relabelled replay of
    the real history is legal (the engine is the judge), as (hand, downs, discard)."""
    view = game.view(p)
    info = hidden_info(view)
    cards, o = from_bits(info.unseen), 1 - p
    consistent = set()
    for hand in itertools.combinations(cards, info.hand_size):
        rest = [c for c in cards if c not in hand]
        for perm in itertools.permutations(rest):
            # the hidden places of a world (a Game's lists read are copies)
            world = SimpleNamespace(hand=list(game.hand), down=list(game.down),
                                    discard=list(game.discard))
            world.hand[o] = sum(1 << c for c in hand)
            for slot, c in zip(info.down_slots, perm, strict=False):
                world.down[slot] = c
            if info.discard:
                world.discard[o] = perm[-1]
            try:
                relabelled_replay(game, world, p)
            except IllegalActionError:
                continue
            consistent.add(key(world, info, p))
    return consistent


def key(world: Game, info, p: int) -> tuple:
    return (world.hand[1 - p], tuple(world.down[s] for s in info.down_slots),
            world.discard[1 - p] if info.discard else -1)


def chi2_critical(df: int, z: float = 3.719) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile (z = 3.719: p = 1e-4)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_sampling_is_uniform_over_the_exactly_enumerated_consistent_deals():
    cases = small_positions(seed=3, max_hidden=7, want=3)
    assert len(cases) == 3
    rng = random.Random(4)
    for game, p in cases:
        view = game.view(p)
        info = hidden_info(view)
        consistent = enumerate_consistent(game, p)
        assert len(consistent) == info.count_worlds()
        sampler = Resampler(view)
        n = 40 * len(consistent)
        counts = Counter(key(sampler.sample(rng), info, p) for _ in range(n))
        assert set(counts) == consistent  # only consistent deals, and all of them
        expected = n / len(consistent)
        chi2 = sum((k - expected) ** 2 / expected for k in counts.values())
        assert chi2 < chi2_critical(len(consistent) - 1), (chi2, len(consistent))


def test_inconsistent_views_are_refused():
    game = Game.new(seed=5)
    view = game.view(game.current)
    view.hand_size_opp += 1  # one more hidden place than unseen cards
    with pytest.raises(ValueError, match="hidden places"):
        hidden_info(view)


# --- the solver ------------------------------------------------------------------------------
# Clubs trump. Player 1 wins tricks 1-14 by leading high cards; player 0 ruffs trick 15 and
# leads with AD and 9D in hand against player 1's face-up 6D lying on the face-down 10D.
ENDGAME_DEAL = deal(("AD 9D 8D 6H JD AC 10C KC", "9C 8C 7C 8S 7S", "6C 6S 9H 8H 7H"),
                    ("QC QS QH QD JC JS 7D KD", "6D AS 10S AH 10H", "10D KS 9S KH JH"))
ENDGAME_SCRIPT = ("trump C", "7D", "6H", "QC", "9C", "QS", "8C", "QH", "7C", "AS", "8S",
                  "10S", "7S", "KS", "6S", "AH", "9H", "10H", "8H", "KH", "7H", "QD", "6C",
                  "JC", "JD", "JS", "AC", "JH", "10C", "KD", "8D", "9S", "KC")


def endgame() -> Game:
    game = Game.from_deal(ENDGAME_DEAL, dealer=0)
    play(game, *ENDGAME_SCRIPT)
    return game


def test_solver_holds_the_ace_until_the_ten_under_the_six_is_turned_over():
    game = endgame()
    assert len(game.tricks) == 15 and game.current == 0 and game.lead < 0
    assert names(game.hand[0] | game.upbits[0]) == ["AD", "9D"]
    assert names(game.upbits[1]) == ["6D"] and game.down[5] == parse_card("10D")
    # Player 0 has 4 points (9S + KC in trick 15; the discard 7D is blank; player 1 took
    # the Spitzer 7C). Leading 9D draws the 6D, then AD catches the 10D: +21. Leading AD
    # first takes only the 6D (+11) and the 10D, turned over, wins the 9D (10 for them).
    assert solve_actions(game) == {parse_card("AD"): 15, parse_card("9D"): 25}
    assert solve_value(game, 0) == 25 and solve_value(game, 1) == 96
    assert game_points(25, 0) == -2 and game_points(96, 0) == 2
    play(game, "9D")  # the 10D is still face down: the 6D is forced
    assert solve_actions(game) == {parse_card("6D"): 96}


def brute(game: Game, me: int) -> int:
    """Plain minimax over the engine (no pruning, no table): final card points of ``me``."""
    if game.is_over:
        return game.results[-1].card_points[me]
    vals = [brute(_after(game, a), me) for a in game.legal_actions() if a < 36]
    return max(vals) if game.current == me else min(vals)


def _after(game: Game, action: int) -> Game:
    g = game.clone()
    g.apply(action)
    return g


@pytest.mark.parametrize("tricks_left", [1, 2, 3, 4])
def test_solver_agrees_with_plain_minimax_on_random_endgames(tricks_left):
    rng = random.Random(tricks_left)
    h, r = HeuristicAgent(CRACK=False), RandomAgent(tricks_left)
    for seed in range({1: 60, 2: 60, 3: 40, 4: 12}[tricks_left]):
        game = Game.new(seed=seed)
        stop = 34 - 2 * tricks_left + rng.randrange(2)  # at a lead or mid-trick
        while game.phase != Phase.PLAY or 2 * len(game.tricks) + (game.lead >= 0) < stop:
            agent = h if rng.random() < 0.7 else r
            game.apply(agent.act(game.view(game.current)))
        me = game.current
        exact = {a: brute(_after(game, a), me) for a in game.legal_actions() if a < 36}
        assert solve_actions(game) == exact
        assert solve_value(game, me) == max(exact.values())
        assert solve_value(game, 1 - me) == 121 - max(exact.values())


def test_game_points_follow_the_scoring_rules():
    assert [game_points(x, 0) for x in (0, 1, 30, 31, 60, 61, 90, 91, 120, 121)] == [
        -4, -2, -2, -1, -1, 1, 1, 2, 2, 4]
    assert game_points(61, 3) == 8 and game_points(0, 4) == -64


# --- the bot ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", [0, 1])
def test_pimc_plays_whole_matches_legally(seat):
    pimc, h = PIMCAgent(samples=3), HeuristicAgent()
    for seed in range(2):
        game = Game.new(seed=100 + seed, num_hands=2)  # both players name trumps once
        pimc.reset(seed)
        agents = (pimc, h) if seat == 0 else (h, pimc)
        while not game.is_over:  # Game.apply raises on an illegal action
            game.apply(agents[game.current].act(game.view(game.current)))


def test_pimc_move_is_legal_in_positions_reached_by_random_play():
    pimc = PIMCAgent(seed=0, samples=3)
    asked = 0
    for game, p in itertools.islice(positions(6, seed=7), 0, None, 2):
        view = game.view(p)
        assert pimc.act(view) in view.legal_actions()
        asked += 1
    assert asked > 100


def test_pimc_finds_the_endgame_play_and_is_reproducible():
    game = endgame()
    view = game.view(0)
    assert PIMCAgent(seed=1).act(view) == parse_card("9D")
    a, b = PIMCAgent(seed=3, samples=5), PIMCAgent(seed=99, samples=5)
    views = [g.view(p) for g, p in itertools.islice(positions(2, seed=9), 0, None, 5)]
    first = [a.act(v) for v in views]
    b.reset(3)
    assert [b.act(v) for v in views] == first


def test_pimc_cracks_a_monster_and_passes_with_a_weak_hand():
    visible = ("6C 7C 8C 9S 8S 7S 6S 9H", "8H 7H 6H 9D 8D",
               "QC QS QH QD JC JS JH 6D", "AC AS AH 10D KD")
    rest = sorted(set(range(36)) - {parse_card(c) for part in visible for c in part.split()})
    down = " ".join(card_name(c) for c in rest)
    d = deal((visible[0], visible[1], " ".join(down.split()[:5])),
             (visible[2], visible[3], " ".join(down.split()[5:])))
    game = Game.from_deal(d, dealer=0)
    play(game, "trump D", "6D", "9S")
    assert game.phase == Phase.PLAY and game.current == 1
    pimc = PIMCAgent(seed=0, samples=20)
    assert pimc.act(game.view(1)) == ESCALATE
    play(game, "crack")
    assert game.phase == Phase.ANSWER and game.current == 0
    assert pimc.act(game.view(0)) == PASS


def test_a_time_budget_still_scores_a_few_worlds_and_stays_legal():
    pimc = PIMCAgent(seed=0, time_budget=0.0)
    for game, p in itertools.islice(positions(2, seed=11), 0, None, 3):
        view = game.view(p)
        assert pimc.act(view) in view.legal_actions()


def test_load_agent_pimc():
    assert "pimc" in agent_names() and type(load_agent("pimc")) is PIMCAgent
    agent = load_agent("pimc", seed=4)
    assert isinstance(agent, PIMCAgent) and agent.name == "pimc"
    with pytest.raises(ValueError, match="samples"):
        PIMCAgent(samples=0)


def test_decide_reports_the_values_behind_the_move():
    a, b = PIMCAgent(seed=5, samples=4), PIMCAgent(seed=5, samples=4)
    compared = 0
    for game, p in itertools.islice(positions(3, seed=13), 0, None, 4):
        view = game.view(p)
        d = a.decide(view)
        assert d.action == b.act(view) and d.action in view.legal_actions()
        if d.values:
            compared += 1
            assert set(d.values) <= set(view.legal_actions())
            assert 0.0 <= d.win_chance <= 1.0
            if d.action != ESCALATE:  # the best card is the one with the best mean
                assert d.values[d.action] == max(d.values.values())
        else:
            assert len(view.legal_actions()) == 1 or view.phase == Phase.ANSWER
    assert compared > 10


def test_pimc_plays_the_small_variants():
    """In a one-trick variant the follower may still escalate, so a searched action can
    end the hand: the rollout must notice (it once asked the finished game for a view)."""
    for variant in ("tiny", "small", "medium"):
        for seed in range(6):
            agent, g = load_agent("pimc", seed=seed), Game.new(seed=seed, variant=variant)
            while not g.is_over:
                view = g.view(g.current)
                action = agent.act(view)
                assert action in view.legal_actions()
                g.apply(action)
