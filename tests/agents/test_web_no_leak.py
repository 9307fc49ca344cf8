"""The browser table shows the human only what the human may see (RULES R8).

Every response of the server during a hand is built from the human's view: scripted
matches are played through the HTTP API twice, once with the real deal and once with
the cards the human has not seen (the bot's hand and discard, every face-down card)
permuted among those places, the bot's moves following its cards (every decision of the
human before the play and a third of those in the play). Up to the point where
the permutation was drawn the human's play is the same, so every response, refused
requests included, must be byte for byte the same. A server that leaks must be caught
by the same check, so it cannot pass vacuously.
"""

from __future__ import annotations

import json
import random

import pytest
from indistinguishable import differs_in_hidden, hidden_cards, permutations, rebuild
from web_client import Client, running_table

from widderkopf_env import Game, card_name, parse_card
from widderkopf_env.agents import web_match
from widderkopf_env.agents.web_play import TableConfig
from widderkopf_env.engine_types import Phase


class Script:
    """A bot that makes the given moves in order."""

    def __init__(self, actions):
        self.actions = list(actions)

    def act(self, view):
        return self.actions.pop(0)


def scripted_game(seed: int, num_hands: int = 1) -> Game:
    """A match of random play that escalates often (to reach every phase)."""
    rng = random.Random(seed)
    game = Game.new(seed=seed, num_hands=num_hands)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(40 if 40 in legal and rng.random() < 0.4 else rng.choice(legal))
    return game


def permuted(prefix: Game, sigma: dict[int, int]) -> Game | None:
    """``prefix`` with the cards of its current hand renamed by ``sigma`` (its deal and
    its moves so far); None if the moves are not legal then."""
    if prefix.hand_no == 0:
        return rebuild(prefix, sigma)
    doc = json.loads(prefix.to_json())
    for part in doc["deals"][prefix.hand_no].values():
        for key, names in part.items():
            part[key] = [card_name(sigma.get(c, c)) for c in map(parse_card, names)]
    actions = doc["actions"]
    for i in range(prefix.hand_start, len(actions)):
        if not actions[i].startswith(("trump", "escalate", "pass")):
            actions[i] = card_name(sigma.get(parse_card(actions[i]), parse_card(actions[i])))
    try:
        return Game.from_json(json.dumps(doc))
    except ValueError:
        return None


def responses(prefix: Game, seat: int) -> list[tuple[int, bytes]]:
    """Every response of a session whose human (``seat``) and bot play ``prefix``'s moves,
    then some refused requests."""
    bot_moves = [a for a, p in zip(prefix.history, players(prefix), strict=True) if p != seat]
    human = [a for a, p in zip(prefix.history, players(prefix), strict=True) if p == seat]
    config = TableConfig(opponent="script", make_bot=lambda: Script(bot_moves), seat=seat,
                         new_game=lambda n: (fresh(prefix), 5))
    out = []
    with running_table(config) as server:
        client = Client(server)
        out.append(client.post("/api/state"))
        for action in human:
            step = client.state()["step"]
            out.append(client.post("/api/move", {"step": step, "action": action}))
        step = client.state()["step"]
        unseen = min(hidden_cards(prefix, seat))  # the same card id in both games
        for body in ({"step": step, "action": 99}, {"step": step, "action": unseen},
                     {"step": step, "text": card_name(unseen)},
                     {"step": step, "text": "no such move"}, {"step": step - 1, "action": 36}):
            out.append(client.post("/api/move", body))
        out.append(client.post("/api/review", {"hand": 0}))
        out.append(client.post("/api/new", {"match": 3}))
        out.append(client.post("/api/state"))
    return out


def fresh(game: Game) -> Game:
    """``game`` before its first move, with all its deals (those of later hands too)."""
    doc = json.loads(game.to_json())
    doc["actions"] = []
    return Game.from_json(json.dumps(doc))


def players(game: Game) -> list[int]:
    """Who made each move of ``game``."""
    replay = fresh(game)
    who = []
    for action in game.history:
        who.append(replay.current)
        replay.apply(action)
    return who


def run_check(games, seed: int) -> dict:
    """Compare the responses of each game with those of an indistinguishable one, at
    the human's decisions."""
    rng = random.Random(seed)
    stats = {"compared": 0, "leaks": 0, "phases": set(), "hands": set()}
    for game, seat, from_hand in games:
        for t, p in enumerate(players(game)):
            prefix = game.replay(t)
            if (p != seat or prefix.hand_no < from_hand
                    or (t % 3 and prefix.phase == Phase.PLAY)):  # a third of the play
                continue
            hidden = hidden_cards(prefix, seat)
            if len(hidden) < 2:
                continue
            for sigma in permutations(hidden, rng):
                other = permuted(prefix, sigma)
                if other is not None and differs_in_hidden(prefix, other, seat):
                    break
            else:
                continue
            stats["compared"] += 1
            stats["phases"].add(Phase(prefix.phase).name)
            stats["hands"].add(prefix.hand_no)
            if responses(prefix, seat) != responses(other, seat):
                stats["leaks"] += 1
    return stats


#: ``(match, the human's seat, the first hand compared)``: in the second hand of a match
#: the first is over and public (its review is among the responses compared).
GAMES = [(scripted_game(1), 0, 0), (scripted_game(2), 1, 0), (scripted_game(3, 2), 0, 1),
         (scripted_game(4), 1, 0), (scripted_game(5, 2), 1, 1)]


def test_every_response_is_the_same_for_hidden_cards_permuted():
    stats = run_check(GAMES, seed=1)
    assert stats["leaks"] == 0, stats
    assert stats["compared"] >= 20 and stats["hands"] == {0, 1}, stats
    assert stats["phases"] >= {"TRUMP", "DISCARD", "PLAY", "ANSWER"}, stats


@pytest.mark.parametrize("leak", ["bot hand", "face-down cards", "bot discard", "seed"])
def test_the_check_catches_a_leaky_server(monkeypatch, leak):
    honest = web_match.WebMatch.state

    def leaky(self):
        out = honest(self)
        g, bot = self.game, 1 - self.seat
        out["x"] = {"bot hand": g.hand[bot], "face-down cards": list(g.down),
                    "bot discard": g.discard[bot], "seed": g.deals[0]}[leak]
        return out

    monkeypatch.setattr(web_match.WebMatch, "state", leaky)
    assert run_check(GAMES[:2], seed=1)["leaks"] >= 2
