"""Games a player cannot tell apart (RULES R8): the oracle of the no-leak tests and of the
soak run (``scripts/invariants.py``). Imports only the package and numpy."""

from __future__ import annotations

import random

import numpy as np

from widderkopf_env import Game, IllegalActionError, card_name, parse_card
from widderkopf_env.observation import action_mask, encode
from widderkopf_env.rules import deal_to_spec


def hidden_cards(game: Game, p: int) -> list[int]:
    """Cards p has not seen, read from the full state (test only)."""
    o = 1 - p
    cards = [c for c in range(36) if (game.hand[o] >> c) & 1]
    cards += [c for c in game.down if c >= 0]
    if game.discard[o] >= 0:
        cards.append(game.discard[o])
    return sorted(cards)


def rebuild(game: Game, sigma: dict[int, int]) -> Game | None:
    """The game with every card c renamed sigma[c]; None if the replay is illegal."""
    spec = deal_to_spec(game.deals[0])
    for part in spec.values():
        for key, names in part.items():
            part[key] = [card_name(sigma.get(c, c)) for c in map(parse_card, names)]
    other = Game.from_deal(spec, dealer=game.first_dealer, scores=game.initial_scores,
                           variant=game.variant)
    try:
        for a in game.history:
            other.apply(sigma.get(a, a) if a < 36 else a)
    except IllegalActionError:
        return None
    return other


def permutations(hidden: list[int], rng: random.Random):
    """A full shuffle first, then single swaps (more often consistent with the play);
    none where fewer than two cards are hidden (no other game looks the same)."""
    if len(hidden) < 2:
        return
    shuffled = hidden[:]
    rng.shuffle(shuffled)
    yield dict(zip(hidden, shuffled, strict=True))
    for _ in range(6):
        a, b = rng.sample(hidden, 2)
        yield {a: b, b: a}


def differs_in_hidden(g1: Game, g2: Game, p: int) -> bool:
    o = 1 - p
    return g1.hand[o] != g2.hand[o] or g1.down != g2.down or g1.discard[o] != g2.discard[o]


def observe(game: Game, p: int):
    view = game.view(p)
    return encode(view), action_mask(view)


def random_positions(n: int, seed: int, variant=None):
    """``(game, player)`` at random decision points of random single-hand games (of
    ``variant``, default the full game)."""
    rng = random.Random(seed)
    for i in range(n):
        game = Game.new(seed=seed * 7919 + i, variant=variant)
        stop = rng.randrange(42)
        while not game.is_over and len(game.history) < stop:
            actions = game.legal_actions()
            # escalate more often than uniformly, to reach the ANSWER phase
            if 40 in actions and rng.random() < 0.3:
                game.apply(40)
            else:
                game.apply(actions[rng.randrange(len(actions))])
        yield game, rng.randrange(2)


def run_check(observe_fn, n: int, seed: int) -> dict:
    """Compare ``observe_fn(game, p)`` with its value on indistinguishable games."""
    rng = random.Random(seed)
    stats = {"samples": 0, "nontrivial": 0, "skipped": 0, "leaks": 0, "phases": set()}
    for game, p in random_positions(n, seed):
        stats["samples"] += 1
        hidden = hidden_cards(game, p)
        view = game.view(p)
        assert sum(1 << c for c in hidden) == view.unseen
        if len(hidden) < 2:
            continue
        obs, mask = observe_fn(game, p)
        for sigma in permutations(hidden, rng):
            other = rebuild(game, sigma)
            if other is None:
                stats["skipped"] += 1
                continue
            if not differs_in_hidden(game, other, p):
                continue
            stats["nontrivial"] += 1
            stats["phases"].add(game.phase)
            obs2, mask2 = observe_fn(other, p)
            if not (np.array_equal(obs, obs2) and np.array_equal(mask, mask2)):
                stats["leaks"] += 1
            break
    return stats
