"""Every fast observation encoder against the reference (RULES R8).

The reference is :func:`widderkopf_env.observation.encode_view`, written piece by piece
from the table and reading nothing but the player's view. The environments use the fast
encoders on the live game: the pure-Python ``encode_game``, its C twin (where built) and
the batched :func:`widderkopf_env.vector.encode`; the shipped bots encode their view
with :func:`~widderkopf_env.game_encoder.encode_view_packed`. Each must give the reference's arrays
bit for bit, for both players, at every position of many random matches; with ``over``
(an episode ended early) the mask and the ``legal_cards`` piece are all zeros.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from widderkopf_env import Game, Phase, game_encoder
from widderkopf_env.game_encoder import encode_game, encode_view_packed
from widderkopf_env.observation import OBS_SIZE, OFFSETS, encode_view, piece
from widderkopf_env.vector import DealSource, VecGame
from widderkopf_env.vector import encode as vector_encode

needs_core = pytest.mark.skipif(not game_encoder.ACCELERATED,
                                    reason="the C accelerator is not built or is disabled")


def expected(game: Game, p: int, over: bool) -> tuple[np.ndarray, np.ndarray]:
    """The reference's arrays; ``over`` clears the mask and ``legal_cards``."""
    obs, mask = encode_view(game.view(p))
    if over:
        piece(obs, "legal_cards")[:] = 0
        mask[:] = 0
    return obs, mask


def lockstep(n_matches: int, seed: int):
    """Random matches of 1-3 hands as scalar games and, stepped with the same actions, as
    one :class:`VecGame`. Yields ``(games, vg, rows, over)`` at every step: ``rows``
    the matches not finished before this step, ``over`` a random 5% of them."""
    rng = random.Random(seed)
    setups = [(seed * 1000 + i, rng.choice((1, 2, 3)), rng.choice(((0, 0), (3, 1), (200, 7))))
              for i in range(n_matches)]
    games = [Game.new(seed=s, num_hands=n, scores=sc) for s, n, sc in setups]
    source = DealSource(n_matches)
    vg = VecGame(n_matches, source)
    source.seed(vg.all, [s for s, _, _ in setups])
    vg.new_matches(vg.all, source.first_dealers(vg.all), [n for _, n, _ in setups],
                   np.array([sc for _, _, sc in setups]))
    rows = vg.all
    while len(rows):
        yield games, vg, rows, np.array([rng.random() < 0.05 for _ in rows])
        rows = np.array([i for i in rows if not games[i].is_over], np.int64)
        actions = []
        for i in rows:
            legal = games[i].legal_actions()
            actions.append(legal[rng.randrange(len(legal))])
            games[i].apply(actions[-1])
        if len(rows):
            vg.apply(rows, np.array(actions, np.int64))


def _scalar(encoder):
    def run(games, vg, rows, over):
        return [[encoder(games[i], p, bool(o)) for i, o in zip(rows, over, strict=True)]
                for p in (0, 1)]
    return run


def _batched(games, vg, rows, over):
    out = []
    for p in (0, 1):
        obs, mask = vector_encode(vg, rows, p, over)
        out.append(list(zip(obs, mask, strict=True)))
    return out


def _by_attributes(game, p, over):
    """``core.encode``: the C encoder of any object with a Game's attributes (here a
    Game, read by attribute instead of by slot)."""
    obs, mask = game_encoder.CORE.encode(game, p, over)
    return np.frombuffer(obs, np.float32), np.frombuffer(mask, np.int8)


ENCODERS = {
    "python": _scalar(game_encoder._encode_py),
    "c": pytest.param(_scalar(lambda *a: game_encoder._encode_c(*a)), marks=needs_core),
    "c_by_attributes": pytest.param(_scalar(_by_attributes), marks=needs_core),
    "batched": _batched,
}


@pytest.mark.parametrize("run", ENCODERS.values(), ids=ENCODERS.keys())
def test_fast_encoder_equals_the_reference_at_every_position(run):
    positions = overs = tiebreaks = ended = 0
    for games, vg, rows, over in lockstep(100, seed=3):
        got = run(games, vg, rows, over)
        for p in (0, 1):
            for (obs, mask), i, o in zip(got[p], rows, over, strict=True):
                ref_obs, ref_mask = expected(games[i], p, bool(o))
                assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
                assert mask.dtype == np.int8 and mask.shape == ref_mask.shape
                assert obs.tobytes() == ref_obs.tobytes(), (i, p, bool(o))
                assert mask.tobytes() == ref_mask.tobytes(), (i, p, bool(o))
        positions += len(rows)
        overs += int(over.sum())
        for i in rows:
            g = games[i]
            tiebreaks += g.hand_no >= g.num_hands and not g.is_over
            ended += g.phase == Phase.OVER
    assert positions > 7000 and overs > 100 and tiebreaks > 0 and ended == 100


@pytest.mark.parametrize("variant", [None, "tiny", "small", "medium"])
def test_the_bots_view_encoder_equals_the_reference_at_every_position(variant):
    """``encode_view_packed(view)``, the bots' encoder (bit-packed from the view), gives
    the reference's arrays for both players at every position of random matches of the
    full game (tie-break hands and ended matches included) and of each smaller variant."""
    rng = random.Random(11)
    checked = ended = 0
    for seed in range(40 if variant is None else 15):
        game = Game.new(seed=seed, num_hands=rng.choice((1, 2, 3)), variant=variant,
                        scores=rng.choice(((0, 0), (3, 1), (200, 7))))
        while True:
            for p in (0, 1):
                view = game.view(p)
                obs, mask = encode_view_packed(view)
                ref_obs, ref_mask = encode_view(view)
                assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
                assert obs.tobytes() == ref_obs.tobytes(), (seed, p)
                assert mask.tobytes() == ref_mask.tobytes(), (seed, p)
                checked += 1
            if game.is_over:
                ended += 1
                break
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    assert checked > (2500 if variant is None else 300) and ended == (40 if variant is None else 15)


def test_the_comparison_catches_an_encoder_reading_hidden_cards():
    """The check above has teeth: an encoder that peeks at the opponent's hand (here it
    writes it into the ``unseen`` piece) differs from the reference on the view."""

    def leaky(game, p):
        obs, _ = encode_game(game, p)
        hand = game.hand[1 - p]
        piece(obs, "unseen")[:] = [(hand >> c) & 1 for c in range(36)]
        return obs

    game = Game.new(seed=4)
    assert not np.array_equal(leaky(game, 0), encode_view(game.view(0))[0])


def test_over_flag_clears_mask_and_legal_cards_only():
    game = Game.new(seed=8)
    game.apply(game.legal_actions()[0])  # trumps named: the next player discards a card
    p = game.current
    obs, mask = encode_game(game, p, over=True)
    live_obs, live_mask = encode_game(game, p)
    assert live_mask.any() and piece(live_obs, "legal_cards").any()
    assert not mask.any() and not piece(obs, "legal_cards").any()
    start, size = OFFSETS["legal_cards"]
    keep = np.r_[0:start, start + size:OBS_SIZE]
    np.testing.assert_array_equal(obs[keep], live_obs[keep])


@needs_core
@pytest.mark.parametrize("variant", ["tiny", "small", "medium"])
def test_the_c_encoders_leave_a_variants_absent_cards_out(variant):
    """A smaller variant's cards outside its deck are 0 in ``unseen`` and ``trumps``:
    the C encoder of a Game (its slots) and of any object (by attribute, reading
    ``variant.deck``) give the reference's arrays at every decision."""
    rng = random.Random(7)
    checked = 0
    for seed in range(20):
        game = Game.new(seed=seed, variant=variant)
        while not game.is_over:
            for p in (0, 1):
                want_obs, want_mask = expected(game, p, False)
                for obs, mask in (game_encoder._encode_c(game, p, False),
                                  _by_attributes(game, p, False)):
                    np.testing.assert_array_equal(obs, want_obs)
                    np.testing.assert_array_equal(mask, want_mask)
                checked += 1
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    assert checked > 100
