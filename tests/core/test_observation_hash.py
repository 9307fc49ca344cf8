"""A fingerprint of the observation encoding: sha256 over the observations and masks of
both players at 10,000 random positions, compared with a digest written down here.

The positions are those of seeded matches of 1 to 3 hands (tie-break hands included)
played with seeded random legal actions (Crack more often than uniformly), every position of each match, the end of the
match included. The reference encoder (:func:`widderkopf_env.observation.encode_view`)
and every fast encoder (pure-Python and C ``encode_game``, the batched
:func:`widderkopf_env.vector.encode`) must give this digest: a change of any entry of
any observation at any of these positions changes it. If the encoding is changed on
purpose, the new digest is printed by the failing test; write it into :data:`DIGEST`
(and note the change of the observation in the changelog).
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from widderkopf_env import Game, Phase, game_encoder
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS
from widderkopf_env.observation import encode_view
from widderkopf_env.vector import DealSource, VecGame
from widderkopf_env.vector import encode as vector_encode
from widderkopf_env.vector.engine import OVER

SEED = 27
MATCHES = 130
#: Decision points (and match ends) in the MATCHES matches; each is observed by both.
POSITIONS = 10_390
DIGEST = "0e8045a7d1e25ecb077a59999e8a831f17617144786240757f245e7f2df74141"


def match_setup(i: int) -> tuple[int, int, tuple[int, int], random.Random]:
    """Match ``i``: its deal seed, number of hands, starting scores and its own action
    generator (so that a batch of matches stepped together picks the same actions)."""
    seed = SEED * 1000 + i
    rng = random.Random(seed)
    num_hands = rng.choice((1, 2, 3))
    scores = rng.choice(((0, 0), (0, 0), (3, 1), (200, 7)))
    return seed, num_hands, scores, rng


def record(h, obs: np.ndarray, mask: np.ndarray) -> None:
    assert obs.dtype == np.float32 and obs.ndim == 1
    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
    h.update(obs.astype("<f4").tobytes())
    h.update(mask.tobytes())


def choose(rng: random.Random, legal: list[int]) -> int:
    """A random legal action; Crack/Recrack more often than uniformly, to reach every
    crack level (R11)."""
    if ESCALATE in legal and rng.random() < 0.3:
        return ESCALATE
    return legal[rng.randrange(len(legal))]


def match_positions(i: int):
    """Match ``i`` at each of its positions (one live game, stepped on after each)."""
    seed, num_hands, scores, rng = match_setup(i)
    game = Game.new(seed=seed, num_hands=num_hands, scores=scores)
    while True:
        yield game
        if game.is_over:
            return
        game.apply(choose(rng, game.legal_actions()))


def scalar_digest(encode) -> tuple[str, int]:
    """``(digest, positions)`` with ``encode(game, player) -> (obs, mask)``."""
    total, positions = hashlib.sha256(), 0
    for i in range(MATCHES):
        h = hashlib.sha256()
        for game in match_positions(i):
            for p in (0, 1):
                record(h, *encode(game, p))
            positions += 1
        total.update(h.digest())
    return total.hexdigest(), positions


def vector_digest() -> tuple[str, int]:
    """The same matches stepped together in one :class:`VecGame`, batch-encoded."""
    setups = [match_setup(i) for i in range(MATCHES)]
    source = DealSource(MATCHES)
    vg = VecGame(MATCHES, source)
    source.seed(vg.all, [s[0] for s in setups])
    vg.new_matches(vg.all, source.first_dealers(vg.all), [s[1] for s in setups],
                   np.array([s[2] for s in setups]))
    hashes = [hashlib.sha256() for _ in range(MATCHES)]
    live, positions = vg.all, 0
    while len(live):
        both = [vector_encode(vg, live, p) for p in (0, 1)]
        for r, i in enumerate(live):
            for obs, mask in both:
                record(hashes[i], obs[r], mask[r])
        positions += len(live)
        live = live[vg.phase[live] != OVER]
        actions = []
        for i in live:
            legal = int(vg.legal[i])
            choices = [a for a in range(NUM_ACTIONS) if legal >> a & 1]
            actions.append(choose(setups[i][3], choices))
        if len(live):
            vg.apply(live, np.array(actions, np.int64))
    total = hashlib.sha256()
    for h in hashes:
        total.update(h.digest())
    return total.hexdigest(), positions


def test_the_positions_cover_every_phase_escalations_and_tie_breaks():
    phases, levels, tie_break_hands = set(), set(), 0
    for i in range(MATCHES):
        for game in match_positions(i):
            phases.add(game.phase)
            levels.add(game.level)
        tie_break_hands += len(game.results) > game.num_hands
    assert phases == set(Phase) and levels == {0, 1, 2, 3, 4} and tie_break_hands > 0


def test_reference_encoder_fingerprint():
    digest, positions = scalar_digest(lambda game, p: encode_view(game.view(p)))
    assert positions == POSITIONS
    assert digest == DIGEST, f"the observation encoding changed: digest {digest}"


def test_pure_python_game_encoder_fingerprint():
    digest, positions = scalar_digest(game_encoder._encode_py)
    assert (digest, positions) == (DIGEST, POSITIONS)


@pytest.mark.skipif(not game_encoder.ACCELERATED,
                    reason="the C accelerator is not built or is disabled")
def test_c_game_encoder_fingerprint():
    digest, positions = scalar_digest(game_encoder._encode_c)
    assert (digest, positions) == (DIGEST, POSITIONS)


def test_batched_encoder_fingerprint():
    assert vector_digest() == (DIGEST, POSITIONS)
