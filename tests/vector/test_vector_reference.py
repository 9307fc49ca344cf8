"""The batch's pure-Python fallback runs the rules' reference (``rules.PyGame``).

``VecGame(..., accelerated=False)`` steps each game by loading its row into a PyGame,
moving it with the PyGame's own methods and storing it back (``vector/rows.py``); its
rewards are ``episode.move_reward``'s. Its agreement with the C core, step by step, is
``test_vector_differential.py``; here: that it calls the reference, that a row survives
the round trip unchanged, and that an illegal action changes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from widderkopf_env import episode
from widderkopf_env.cards import ESCALATE
from widderkopf_env.rules import IllegalActionError, PyGame
from widderkopf_env.vector import DealSource, VecGame, rows
from widderkopf_env.vector.engine import OVER
from widderkopf_env.vector.ledger import VecRewardLedger

N = 64


def batch(variant="full", seed=3) -> VecGame:
    g = VecGame(N, DealSource(N, seed, variant=variant), variant, accelerated=False)
    g.new_matches(g.all, np.arange(N) % 2, 1 + np.arange(N) % 3)
    return g


def arrays(g: VecGame) -> dict:
    return {k: v.copy() for k, v in vars(g).items() if isinstance(v, np.ndarray)}


def play(g: VecGame, rng, steps: int):
    """Random legal moves (escalating often) in every live game; restarts ended matches."""
    for _ in range(steps):
        live = g.all[g.phase != OVER]
        keys = rng.random((N, 42)) * g.mask()
        keys[:, ESCALATE] *= 3.0
        g.apply(live, keys.argmax(1)[live])
        done = g.all[g.phase == OVER]
        if len(done):
            g.new_matches(done, np.zeros(len(done), np.int64), 2)
        yield


def test_each_step_applies_the_reference_once_per_game(monkeypatch):
    calls = {"apply": 0, "hands": 0}
    apply, start = PyGame.apply, PyGame._start_hand

    def counted_apply(self, action):
        calls["apply"] += 1
        apply(self, action)

    def counted_start(self):
        calls["hands"] += 1
        start(self)

    monkeypatch.setattr(PyGame, "apply", counted_apply)
    monkeypatch.setattr(PyGame, "_start_hand", counted_start)
    g = batch()
    assert calls == {"apply": 0, "hands": N}  # every first hand started by the reference
    rng = np.random.default_rng(0)
    for _ in play(g, rng, 3):
        pass
    assert calls["apply"] == 3 * N


@pytest.mark.parametrize("variant", ["tiny", "full"])
def test_a_row_loaded_and_stored_again_is_unchanged(variant):
    g = batch(variant)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in play(g, rng, 40):
        before = arrays(g)
        rows.store(g, g.all, rows.load(g, g.all))
        for name, value in before.items():
            np.testing.assert_array_equal(getattr(g, name), value, err_msg=name)
        seen |= set(g.phase.tolist())
    assert len(seen) >= 4  # rows in trump naming, discarding, playing and answering


def test_an_illegal_action_raises_naming_the_game_and_changes_nothing():
    g = batch()
    rng = np.random.default_rng(2)
    for _ in play(g, rng, 5):
        pass
    live = g.all[g.phase != OVER]
    acts = np.array([g.legal_actions(int(i))[0] for i in live])
    bad = int(np.flatnonzero(g.mask()[live[7]] == 0)[0])
    acts[7] = bad
    before = arrays(g)
    with pytest.raises(IllegalActionError, match=f"game {live[7]}: illegal action {bad} .*"
                                                 "the batch is unchanged"):
        g.apply(live, acts)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(g, name), value, err_msg=name)


def test_the_rewards_are_the_reward_rule_s(monkeypatch):
    """The pure ledger pays each game what ``episode.move_reward`` says (the rule as
    ``Episode.settle`` pays it), with its shaping state carried per game."""
    g = batch("small")
    ledger = VecRewardLedger(N, shaping=True)
    ledger.restart(g.all)
    calls = []
    rule = episode.move_reward

    def spied(result, trick_points, shaped, total, shaping):
        out = rule(result, trick_points, shaped, total, shaping)
        calls.append(out[0])
        return out

    monkeypatch.setattr("widderkopf_env.vector.ledger.move_reward", spied)
    rng = np.random.default_rng(4)
    paid = ended = 0
    for _ in range(30):
        live = g.all[g.phase != OVER]
        if not len(live):
            break
        counted = g.res_count.copy()
        g.apply(live, (rng.random((N, 42)) * g.mask()).argmax(1)[live])
        calls.clear()
        x = ledger.settle(g, live)
        assert x.tolist() == calls  # one call per game, in order, its reward paid as is
        paid += int((x != 0).sum())
        ended += int((g.res_count != counted).sum())
    assert paid and ended  # shaping paid mid-hand, and hands ended
