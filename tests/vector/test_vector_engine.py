"""The batched engine and encoder against the scalar ones (RULES R1-R20).

Every test steps a batch of scalar :class:`Game` objects and a :class:`VecGame` in
lockstep with the same actions and compares, at every decision: the legal actions, both
players' observations and masks (``encode_game``), the full state field by field (for
a part of the batch), and each finished hand's result, on every variant
(``widderkopf_env.VARIANTS``) as on the full game.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import S

from widderkopf_env import VARIANTS, Game, Phase
from widderkopf_env.cards import ESCALATE, FULL, PASS
from widderkopf_env.deals import seeded_variant_deal
from widderkopf_env.game_encoder import encode_game
from widderkopf_env.rules import seeded_dealer
from widderkopf_env.vector import DealSource, VecGame, encode
from widderkopf_env.vector.deals import deal_starts, layout, mix, shuffle
from widderkopf_env.vector.rows import LISTS, SCALARS, GameRow
from widderkopf_env.vector.tables import BIT, CARD_BIT, U64

#: Games per differential test: the full game as before, the smaller variants fewer.
BATCH = {"tiny": 200, "small": 200, "medium": 300}


def scalar_deals(games):
    """A deal source that deals each game of the batch what its scalar twin was dealt."""
    def source(idx, hand_no):
        hand = np.zeros((len(idx), 2), U64)
        up = np.zeros((len(idx), 10), np.int64)
        down = np.zeros((len(idx), 10), np.int64)
        for r, (i, n) in enumerate(zip(idx, hand_no, strict=True)):
            (h0, u0, d0), (h1, u1, d1) = games[i].deals[n]
            pad = [-1] * (5 - len(u0))  # a variant's missing piles
            hand[r] = BIT[h0].sum(dtype=U64), BIT[h1].sum(dtype=U64)
            up[r], down[r] = u0 + pad + u1 + pad, d0 + pad + d1 + pad
        return hand, up, down
    return source


def batch_of(games) -> VecGame:
    vg = VecGame(len(games), scalar_deals(games), games[0].variant)
    idx = vg.all
    vg.new_matches(idx, [g.first_dealer for g in games], [g.num_hands for g in games],
                   [g.initial_scores for g in games])
    return vg


def assert_same(vg: VecGame, games, full_rows=()) -> None:
    n = len(games)
    assert [int(m) for m in vg.legal] == [g.legal_mask for g in games]
    assert [int(c) if c >= 0 else None for c in vg.current] == [g.current for g in games]
    for p in (0, 1):
        over = np.array([i % 3 == 0 for i in range(n)])  # also check the "ended early" path
        obs, mask = encode(vg, vg.all, p, over)
        want = [encode_game(g, p, bool(over[i])) for i, g in enumerate(games)]
        wrong = (obs != np.stack([o for o, _ in want])).any(1) | (
            mask != np.stack([m for _, m in want])).any(1)
        assert not wrong.any(), f"games {np.flatnonzero(wrong)[:5].tolist()}, player {p}"
    for i, row in zip(full_rows, GameRow.of_games(vg, list(full_rows)), strict=True):
        g = games[i]
        assert vars(row) == vars(GameRow(vg, i)), i  # many at once = one at a time
        for name in SCALARS + LISTS + ("current", "tricks"):
            assert getattr(row, name) == list(getattr(g, name)) if name in LISTS else \
                getattr(row, name) == getattr(g, name), (name, i)
        assert row.results[-1:] == g.results[-1:]
        for p in (0, 1):
            assert row.view(p) == g.view(p)


def pick(rng, legal: list[int], escalate: float) -> int:
    """A random legal action, escalating with probability ``escalate`` when allowed."""
    if ESCALATE in legal and rng.random() < escalate:
        return ESCALATE
    if PASS in legal:  # answering: escalate or pass with equal chance
        return legal[rng.integers(2)]
    cards = [a for a in legal if a != ESCALATE]
    return cards[rng.integers(len(cards))]


def run_lockstep(games, rng, escalate=0.3, full_rows=(), check_every=1, vg=None) -> VecGame:
    vg = batch_of(games) if vg is None else vg
    step = 0
    assert_same(vg, games, full_rows)
    while any(not g.is_over for g in games):
        live = [i for i, g in enumerate(games) if not g.is_over]
        acts = [pick(rng, games[i].legal_actions(), escalate) for i in live]
        step_all(vg, games, live, acts)
        step += 1
        if step % check_every == 0 or all(g.is_over for g in games):
            assert_same(vg, games, full_rows)
    for i, g in enumerate(games):
        assert GameRow(vg, i).results == g.results[-1:]
        assert list(vg.scores[i]) == g.scores
    return vg


@pytest.mark.parametrize("variant", VARIANTS)
def test_single_hands_equal_the_scalar_engine_at_every_decision(variant):
    rng = np.random.default_rng(1)
    n = BATCH.get(variant, 600)
    games = [Game.new(seed=1000 + i, variant=variant) for i in range(n)]
    run_lockstep(games, rng, escalate=0.4, full_rows=range(0, n, 40))
    levels = {g.results[-1].crack_level for g in games}
    assert levels == {0, 1, 2, 3, 4}  # whole escalation chains were played (R11)


@pytest.mark.parametrize("variant", VARIANTS)
def test_matches_with_tie_break_hands_equal_the_scalar_engine(variant):
    rng = np.random.default_rng(2)
    games = [Game.new(seed=5000 + i, num_hands=2 + i % 3, scores=(i % 2, 0) if i % 5 == 0
                      else (0, 0), variant=variant) for i in range(300)]
    run_lockstep(games, rng, escalate=0.2, full_rows=range(0, 300, 30), check_every=3)
    tie_breaks = sum(len(g.results) > g.num_hands for g in games)
    assert tie_breaks > 20  # R20: tied matches went on


def step_all(vg, games, live, acts) -> None:
    for i, a in zip(live, acts, strict=True):
        games[i].apply(a)
    vg.apply(np.array(live, np.int64), np.array(acts, np.int64))


@pytest.mark.parametrize("level", [0, 3, 4])
def test_schwarz_and_schneider_then_a_tie_break_hand(level):
    """Deal S: player_0 takes every trick. Discarding 8C (0 points) gives Schwarz,
    discarding QC (3 points to the opponent) Schneider (R17-R19); both at crack level
    ``level``; hand 2 of the match is then played at random, more while tied (R20)."""
    games = [Game.from_deal(S, dealer=1, num_hands=2, seed=level * 10 + i) for i in range(4)]
    vg = batch_of(games)
    everyone = list(range(4))
    step_all(vg, games, everyone, [36] * 4)  # player_0 (non-dealer) names clubs
    step_all(vg, games, everyone, [6, 3, 6, 3])  # 8C / QC
    step_all(vg, games, everyone, [17] * 4)  # player_1 discards 6S
    for _ in range(level):  # Crack, Recrack (an answer), Crackback, Around the Corner
        step_all(vg, games, everyone, [ESCALATE] * 4)
    if games[0].phase == Phase.ANSWER:  # player_1 may still answer: it passes
        step_all(vg, games, everyone, [PASS] * 4)
    while any(g.hand_no == 0 for g in games):
        live = [i for i, g in enumerate(games) if g.hand_no == 0]
        step_all(vg, games, live, [games[i].legal_actions()[0] for i in live])
    assert_same(vg, games, everyone)
    results = [g.results[0] for g in games]
    assert [r.schwarz for r in results] == [True, False, True, False]
    assert [r.schneider for r in results] == [False, True, False, True]
    assert {r.crack_level for r in results} == {level}
    run_lockstep(games, np.random.default_rng(level), full_rows=everyone, vg=vg)


@pytest.mark.parametrize("variant", VARIANTS)
def test_seeded_deal_source_deals_as_game_new(variant):
    n = 50
    src = DealSource(n, 0, variant)
    idx = np.arange(n)
    src.seed(idx, [77 + i for i in range(n)])
    pad = [-1] * (5 - VARIANTS[variant].piles)
    for hand_no in (0, 1, 5):
        hand, up, down = src(idx, np.full(n, hand_no))
        for i in range(n):
            deal = seeded_variant_deal(77 + i, hand_no, VARIANTS[variant])  # as Game deals
            if hand_no == 0:
                assert deal == Game.new(seed=77 + i, variant=variant).deals[0]
            (h0, u0, d0), (h1, u1, d1) = deal
            assert [int(x) for x in hand[i]] == [sum(1 << c for c in h0), sum(1 << c for c in h1)]
            assert list(up[i]) == u0 + pad + u1 + pad and list(down[i]) == d0 + pad + d1 + pad
    assert list(src.first_dealers(idx)) == [seeded_dealer(77 + i) for i in range(n)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_deals_partition_the_deck(variant):
    v = VARIANTS[variant]
    src = DealSource(4000, 3, variant)
    hand, up, down = src(np.arange(4000), np.zeros(4000, np.int64))
    every = hand[:, 0] | hand[:, 1] | np.bitwise_or.reduce(CARD_BIT[up], 1) | \
        np.bitwise_or.reduce(CARD_BIT[down], 1)
    assert (every == v.deck).all()
    assert (np.bitwise_count(hand) == v.hand_size).all()
    assert ((up[:, :5] >= 0).sum(1) == v.piles).all() and ((down >= 0).sum(1) == 2 * v.piles).all()
    # the cards are spread evenly: each card of the deck lies in player_0's hand about
    # hand_size / deck size of the time, and a card outside the deck never
    share = np.unpackbits(hand[:, 0:1].view(np.uint8), axis=1, bitorder="little")[:, :36].mean(0)
    assert np.abs(share[v.cards] - v.hand_size / len(v.cards)).max() < 0.04
    assert share.sum() == pytest.approx(v.hand_size)
    if v is FULL:
        order = np.arange(36)[None].repeat(2, 0)
        h, u, d = layout(order)
        assert list(u[0]) == [8, 9, 10, 11, 12, 26, 27, 28, 29, 30]


def test_generator_deals_depend_on_the_key_the_game_and_its_counter_only():
    """The counter-based generator: the same key gives the same deals whatever games are
    dealt together or in what order (so any thread count deals alike); each deal advances
    only its game's counter; rekey starts over; another key deals otherwise."""
    n, zeros = 100, np.zeros(100, np.int64)
    a, b = DealSource(n, 11), DealSource(n, 11)
    first = a(np.arange(n), zeros)
    odd, even = np.arange(1, n, 2), np.arange(0, n, 2)
    parts = [b(odd[::-1], zeros[:50]), b(even, zeros[:50])]
    for got, want_rows in zip(parts, (odd[::-1], even), strict=True):
        for x, y in zip(got, first, strict=True):
            np.testing.assert_array_equal(x, y[want_rows])
    assert (a.draws == 1).all() and (b.draws == 1).all()
    second = a(np.arange(n), zeros)
    assert (second[0] != first[0]).any(axis=1).mean() > 0.9  # the next deal is another one
    a.rekey(11)
    np.testing.assert_array_equal(a(np.arange(n), zeros)[0], first[0])
    assert (DealSource(n, 12)(np.arange(n), zeros)[0] != first[0]).any(axis=1).mean() > 0.9
    with pytest.raises(ValueError, match="key must be an int in 0..2"):
        a.rekey(-1)


def test_generator_shuffles_are_uniform():
    """Every card lands in every place of the shuffled order about equally often, and a
    new match's first dealer is each player about half the time."""
    k = 36_000
    starts = deal_starts(5, np.arange(k), np.zeros(k, U64))
    order = shuffle(np.arange(36), starts)
    assert (np.sort(order, 1) == np.arange(36)).all()
    counts = np.zeros((36, 36))
    np.add.at(counts, (np.arange(36)[None].repeat(k, 0), order), 1)
    assert np.abs(counts / k - 1 / 36).max() < 0.006  # about 6 standard deviations
    dealer = (mix(starts) >> np.uint64(63)).mean()
    assert abs(dealer - 0.5) < 0.01


def test_120_points_is_schneider_not_schwarz():
    """Deal S with 7C and 8C swapped: player_0 discards the Spitzer (7C) into player_1's
    pile, then takes every trick: 120 to 1, Schneider and not Schwarz (R5, R19)."""
    spec = {"player_0": dict(S["player_0"]), "player_1": S["player_1"]}
    spec["player_0"]["hand"] = [c if c != "8C" else "7C" for c in S["player_0"]["hand"]]
    spec["player_0"]["down"] = [c if c != "7C" else "8C" for c in S["player_0"]["down"]]
    games = [Game.from_deal(spec, dealer=1)]
    vg = batch_of(games)
    step_all(vg, games, [0], [36])
    step_all(vg, games, [0], [7])  # 7C
    step_all(vg, games, [0], [17])  # 6S
    while not games[0].is_over:
        step_all(vg, games, [0], [games[0].legal_actions()[0]])
    assert_same(vg, games, [0])
    r = GameRow(vg, 0).results[0]
    assert r.card_points == (120, 1) and r.spitzer == 1
    assert r.schneider and not r.schwarz and r.value == 2


def test_a_deal_source_of_another_variant_or_an_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="deals the variant 'full', the games play 'tiny'"):
        VecGame(2, DealSource(2), "tiny")
    assert VecGame(2, DealSource(2, variant="tiny"), "tiny").variant is VARIANTS["tiny"]
    for make in (lambda: DealSource(2, variant="huge"), lambda: VecGame(2, DealSource(2), "huge")):
        with pytest.raises(ValueError, match="unknown variant 'huge': expected one of tiny, "
                                             "small, medium, full"):
            make()
