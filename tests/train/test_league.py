"""The RLlib league draws its opponents as the training pool does (``opponents.draw``):
``main`` in one seat of every episode, and in the other main, the heuristic or a league
slot with the given shares. Pure Python: no Ray needed."""

from __future__ import annotations

import zlib

import numpy as np

from widderkopf_env.train.opponents import SNAPSHOT, draw
from widderkopf_env.train.rllib.league import league_mapping


class Episode:
    def __init__(self, i):
        self.id_ = f"episode-{i}"


def _other(i: int, **shares) -> str:
    pair = [league_mapping(a, Episode(i), slots=3, **shares) for a in ("player_0", "player_1")]
    assert "main" in pair
    return pair[0] if pair[1] == "main" and pair[0] != "main" else pair[1]


def test_the_league_draws_as_the_pool_with_the_episode_as_seed():
    for i in range(200):
        h = zlib.crc32(f"episode-{i}".encode())
        label, k = draw({"main": 0.2, "heuristic": 0.3}, 3, np.random.default_rng(h))
        assert _other(i, self_play=0.2, heuristic=0.3) == (
            f"league_{k}" if label == SNAPSHOT else label)


def test_the_shares_hold_over_many_episodes():
    seen = [_other(i, self_play=0.2, heuristic=0.3) for i in range(4000)]
    assert abs(seen.count("heuristic") / 4000 - 0.3) < 0.03
    assert abs(sum(s.startswith("league_") for s in seen) / 4000 - 0.5) < 0.03
    assert {s for s in seen if s.startswith("league_")} == {"league_0", "league_1", "league_2"}
    assert {_other(i, self_play=0.0, heuristic=1.0) for i in range(50)} == {"heuristic"}
