"""Exact-value data for the card-value network of ``load_agent("net")``.

Each shard is one seeded batch of single-hand games. A policy network (``policy``,
sampling its moves, so the games vary) plays one seat and the heuristic the other,
alternating seats by game, and a share of all moves (``random_share``) is a random
legal one. At every card decision of either seat with between ``tricks[0]`` and
``tricks[1]`` tricks left (the open one counted) and more than one legal card (an
escalation may be legal too: the network values the cards once the policy has chosen
not to escalate), the position is stored with the value of every legal card *in the
true deal*: the acting player's final card points (Spitzer and discards included) with
both players playing perfectly from there
(:func:`~widderkopf_env.agents.solver.solve_actions`). With more than ``exact_tricks``
tricks left an exact solve costs too much, so there the card is played, the heuristic
plays both seats (without escalating) until ``exact_tricks`` tricks are left, and
the rest is solved exactly (:func:`card_values`: PIMC's rollouts, in the true deal).
All the solves of one game share the solver's table of its deal (each is a position of
the same world), so a position whose subtree an earlier one searched is solved mostly
from the table: the same values, 1.5-1.7 times fewer positions searched.

No player sees the true deal, so a single value is a noisy label; but its mean over the
deals consistent with what the player has seen, weighted by how likely the play made
each one, is what a network fitted to many such labels learns (by least squares): the
quantity PIMC estimates from a few sampled worlds, here with the real distribution of
hidden cards instead of a uniform guess, at the price of one exact solve per position
instead of dozens. The position is stored as its observation and its
:func:`~widderkopf_env.agents.features.card_features`, both from the acting player's
view only (R8).

Shards are written atomically and resumably by
:func:`~.shards.run_shards`; shard ``k`` of seed ``s`` is the same file whatever
the number of workers.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from widderkopf_env.agents.features import SIZE as FEATURES
from widderkopf_env.agents.features import card_features
from widderkopf_env.agents.heuristic import HeuristicAgent
from widderkopf_env.agents.network_file import load_net_agent
from widderkopf_env.agents.solver import solve_actions, solve_value, world_table
from widderkopf_env.cards import ALL_CARDS, NUM_CARDS, TRICKS
from widderkopf_env.checks import MAX_SHARDS
from widderkopf_env.game_encoder import encode_view_packed
from widderkopf_env.observation import OBS_SIZE
from widderkopf_env.rules import PLAY, Game

from .shards import run_shards, whole

#: The default exact depth: card values are solved exactly with at most this many tricks
#: left (earlier positions: heuristic rollouts down to it).
EXACT_TRICKS = 12

__all__ = ["FIELDS", "MAX_GAMES", "MAX_SEED", "card_values", "generate_values", "solved_here", "value_shard"]

#: Arrays of a shard, one row per position: the observation, the card features, the
#: exact value of each card (NaN where not legal), the game it comes from.
FIELDS = ("obs", "features", "values", "game")

#: The most games of one shard, and the largest seed: game ``i`` of shard ``k`` is dealt
#: from ``(seed x 1,000,003 + k) x 10,000 + i``, one id per game as long as ``i`` stays
#: below 10,000, kept in the shard as a 64-bit int.
MAX_GAMES = 10_000
MAX_SEED = ((2**63 - 1 - (MAX_GAMES - 1)) // MAX_GAMES - (MAX_SHARDS - 1)) // 1_000_003


def solved_here(game: Game, view, tricks) -> bool:
    """Whether a shard stores (and so solves) the decision of ``game`` that ``view``
    shows its player: a card decision with ``tricks[0]..tricks[1]`` tricks left (the
    open one counted) and more than one legal card."""
    cards = view.legal & ALL_CARDS
    return (game.phase == PLAY and tricks[0] <= TRICKS - len(game.tricks) <= tricks[1]
            and (cards & (cards - 1)) != 0)


def card_values(game: Game, exact_tricks: int, rollout,
                tt: dict | None = None) -> dict[int, int]:
    """The value of every legal card of ``game.current`` in this (true) deal: exact when
    at most ``exact_tricks`` tricks are left; earlier, the card is played and ``rollout``
    (an agent) plays both seats until ``exact_tricks`` are left, then exact play. ``tt``:
    the solver's table for this game (:func:`~widderkopf_env.agents.solver.world_table`
    of this position or an earlier one of the game; None: a new one); the values do not
    depend on it."""
    if tt is None:
        tt = world_table(game)
    if TRICKS - len(game.tricks) <= exact_tricks:
        return solve_actions(game, tt)
    me, out = game.current, {}
    stop = TRICKS - exact_tricks
    for card in game.legal_actions():
        if card >= NUM_CARDS:
            continue
        g = game.clone()
        g.apply(card)
        while g.phase == PLAY and len(g.tricks) < stop:
            g.apply(rollout.act(g.view(g.current)))
        out[card] = solve_value(g, me, tt)
    return out


def value_shard(k: int, seed: int, games: int, tricks=(1, TRICKS), policy=None,
                random_share: float = 0.05, exact_tricks: int = EXACT_TRICKS) -> dict[str, np.ndarray]:
    """The positions of shard ``k``: ``games`` games of ``policy`` (an agent; None: the
    heuristic plays both seats) against the heuristic; see the module docstring."""
    lo, hi = tricks
    if not 1 <= lo <= hi <= TRICKS:
        raise ValueError(f"tricks must be (lo, hi) with 1 <= lo <= hi <= {TRICKS}, "
                         f"got {tricks!r}")
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"random_share must be in [0, 1], got {random_share!r}")
    base = seed * 1_000_003 + k
    rng = random.Random(base)
    heuristic, rollout = HeuristicAgent(), HeuristicAgent(CRACK=False)
    if policy is not None and hasattr(policy, "reset"):
        policy.reset(base)
    rows: dict[str, list] = {f: [] for f in FIELDS}
    for i in range(games):
        game_id = base * MAX_GAMES + i
        game = Game.new(seed=game_id)
        seat = i % 2
        tt = None  # the solver's table of this deal, for every solve of the game
        while not game.is_over:
            p = game.current
            view = game.view(p)
            if solved_here(game, view, tricks):
                values = np.full(NUM_CARDS, np.nan, np.float32)
                if tt is None:
                    tt = world_table(game)
                for card, x in card_values(game, exact_tricks, rollout, tt).items():
                    values[card] = x
                rows["obs"].append(encode_view_packed(view)[0])
                rows["features"].append(card_features(view))
                rows["values"].append(values)
                rows["game"].append(game_id)
            if rng.random() < random_share:
                action = rng.choice(view.legal_actions())
            elif policy is not None and p == seat:
                action = policy.act(view)
            else:
                action = heuristic.act(view)
            game.apply(action)
    return {
        "obs": np.asarray(rows["obs"], np.float32).reshape(-1, OBS_SIZE),
        "features": np.asarray(rows["features"], np.float32).reshape(-1, FEATURES),
        "values": np.asarray(rows["values"], np.float32).reshape(-1, NUM_CARDS),
        "game": np.asarray(rows["game"], np.int64),
    }


def _job(args) -> tuple[int, Path, dict]:
    k, out, seed, games, tricks, policy_file, random_share, exact_tricks = args
    policy = None
    if policy_file is not None:
        policy = load_net_agent(policy_file, seed=k, deterministic=False)
    return k, out, value_shard(k, seed, games, tricks, policy, random_share, exact_tricks)


def generate_values(out, shards: int, seed: int = 0, games: int = 200, tricks=(1, TRICKS),
                    policy_file=None, random_share: float = 0.05, exact_tricks: int = EXACT_TRICKS,
                    workers: int = 1, log=print, keep=whole, on_shard=None) -> int:
    """Write value shards ``0..shards-1`` of ``seed`` into ``out`` (keeping whole
    finished ones: ``keep`` and ``on_shard`` as in :func:`~.shards.run_shards`) on
    ``workers`` processes; returns the number of positions written."""
    return run_shards(out, shards, _job, (seed, games, tuple(tricks), policy_file,
                                          random_share, exact_tricks), workers, log, keep,
                      on_shard)
