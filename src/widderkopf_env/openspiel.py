"""Widderkopf as an OpenSpiel game: ``pyspiel.load_game("python_widderkopf")``.

Importing this module registers the game with ``pyspiel.register_game`` (it needs the
``[openspiel]`` extra: ``pip install "widderkopf-env[openspiel]"``). Parameters:
``variant`` (a name in :data:`widderkopf_env.VARIANTS`, default ``"full"``) and
``num_hands`` (default 1), e.g. ``pyspiel.load_game("python_widderkopf(variant=tiny)")``.

The game is sequential, two-player, zero-sum, with imperfect information and explicit
chance nodes: first the first dealer (R6, two outcomes), then each hand's deal card by
card (outcome = card id): player 0's hand, player 1's hand (each as an ascending set,
so one chance path per deal), then the piles one card at a time (face-up cards of player
0, their face-down cards, then player 1's). Player actions are the engine's action ids
0..41. Rewards are terminal: the match's game points, ``Game.returns()``.

The state wraps a :class:`~widderkopf_env.rules.Game`: the engine is the one source of
the rules. Observations: the tensor is the 540-entry observation
(:mod:`widderkopf_env.observation`) of the player, the string lists its non-zero
entries. Information states (perfect recall): the string is everything the player has
seen, in order; the tensor is the player (one-hot), the observation, the player's dealt
hand, the dealt face-up cards, the face-down cards turned over (by pile) and this hand's
actions one-hot (the opponent's discard as a hidden marker). ``resample_from_infostate`` deals the
player's unseen cards uniformly among the deals consistent with what they saw (voids
shown in play included; :class:`~widderkopf_env.worlds.Resampler`, the search bots'
sampler), so OpenSpiel's ISMCTS runs on the game.
"""

from __future__ import annotations

import math

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise ImportError("widderkopf_env.openspiel needs OpenSpiel: pip install "
                      "'widderkopf-env[openspiel]' (open_spiel 2.0.x)") from err

from .cards import (
    NUM_ACTIONS,
    NUM_CARDS,
    VARIANTS,
    action_name,
    card_name,
    get_variant,
)
from .checks import check_num_hands
from .deals import deal_to_spec
from .game_encoder import encode_game
from .observation import OBS_SIZE, PIECES, split
from .rules import Game
from .view import HIDDEN
from .worlds import Resampler, SamplerRandom

SHORT_NAME = "python_widderkopf"
_MAX_ESCALATION_ACTIONS = 8  # escalations and passes in one hand: at most 4 + 4 (R11)
_EXTRA_HANDS = 4  # tie-break hands (R20) allowed for in max_game_length

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Widderkopf",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"variant": "full", "num_hands": 1},
)


def hand_actions(variant) -> int:
    """The most player actions in one hand: trump, two discards, the cards, escalations."""
    return 3 + 2 * variant.tricks + _MAX_ESCALATION_ACTIONS


def game_info(variant, num_hands: int) -> pyspiel.GameInfo:
    """GameInfo of a variant: utilities +-(largest hand value) per hand, and a length
    bound that allows :data:`_EXTRA_HANDS` tie-break hands."""
    top = float(variant.max_hand_value * num_hands)
    per_hand = variant.deck.bit_count() + hand_actions(variant)
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_CARDS, num_players=2,
        min_utility=-top, max_utility=top, utility_sum=0.0,
        max_game_length=1 + per_hand * (num_hands + _EXTRA_HANDS))


class WidderkopfGame(pyspiel.Game):
    """The OpenSpiel game; ``params``: ``variant`` (name) and ``num_hands``."""

    def __init__(self, params=None):
        params = dict(params or {})
        name = params.get("variant", "full")
        if name not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {name!r}")
        # the engine's bound (checks.MAX_HANDS), checked before GameInfo is built
        num_hands = check_num_hands(params.get("num_hands", 1))
        self.variant, self.num_hands = get_variant(name), num_hands
        super().__init__(GAME_TYPE, game_info(self.variant, num_hands), params)

    def new_initial_state(self):
        return WidderkopfState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return InfoStateObserver(self) if recall else WidderkopfObserver()


def _groups(variant):
    """The deal, group by group: ``(player, kind, size)`` with kind hand, up, down."""
    h, p = variant.hand_size, variant.piles
    return [(0, "hand", h), (1, "hand", h), (0, "up", p), (0, "down", p), (1, "up", p),
            (1, "down", p)]


def _split_deal(variant, cards):
    """The chance actions of one hand (in dealing order) as ``((hand, up, down), ...)``."""
    out, at = {}, 0
    for player, kind, size in _groups(variant):
        out[player, kind] = list(cards[at:at + size])
        at += size
    return tuple((out[p, "hand"], out[p, "up"], out[p, "down"]) for p in (0, 1))


def deal_actions(variant, deal):
    """The inverse of :func:`_split_deal` (hands ascending)."""
    parts = {(p, kind): list(cards) for p in (0, 1)
             for kind, cards in zip(("hand", "up", "down"), deal[p], strict=True)}
    return [c for p, kind, _ in _groups(variant)
            for c in (sorted(parts[p, kind]) if kind == "hand" else parts[p, kind])]


class WidderkopfState(pyspiel.State):
    """A match in progress: the chance actions dealt so far and the engine's game."""

    def __init__(self, game: WidderkopfGame):
        super().__init__(game)
        self.variant, self.num_hands = game.variant, game.num_hands
        self.first_dealer = -1  # until the first chance node
        self.deals = []  # finished deals, by hand
        self.dealing = []  # chance actions of the hand being dealt
        self.game: Game | None = None
        self.n_actions = 0  # chance and player actions applied
        self.deal_start = 1  # where the deal of the current hand starts in history()
        self.hand_starts = []  # where each hand's actions start in the engine's history

    # --- the OpenSpiel API -------------------------------------------------------------

    def current_player(self):
        if self._is_chance():
            return pyspiel.PlayerId.CHANCE
        if self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.game.current

    def _is_chance(self) -> bool:
        g = self.game
        return g is None or (len(self.deals) == g.hand_no and not g.is_over)

    def is_terminal(self):
        return not self._is_chance() and self.game.is_over

    def _legal_actions(self, player):
        return self.game.legal_actions()

    def chance_outcomes(self):
        if self.first_dealer < 0:
            return [(0, 0.5), (1, 0.5)]
        dealt = set(self.dealing)
        left = [c for c in self.variant.cards if c not in dealt]
        player, kind, size, done, prev = self._slot()
        if kind != "hand":
            return [(c, 1.0 / len(left)) for c in left]
        # an ascending k-subset, card by card: the next card is the j-th smallest
        # candidate with probability C(m - j - 1, k - 1) / C(m, k)
        cand = [c for c in left if c > prev]
        k, m = size - done, len(cand)
        total = math.comb(m, k)
        return [(c, math.comb(m - j - 1, k - 1) / total) for j, c in enumerate(cand[:m - k + 1])]

    def _slot(self):
        """The deal group being dealt: ``(player, kind, size, cards dealt in it, last)``."""
        at = len(self.dealing)
        for player, kind, size in _groups(self.variant):
            if at < size:
                prev = self.dealing[-1] if at else -1
                return player, kind, size, at, prev
            at -= size
        raise AssertionError("the deal is complete")

    def _apply_action(self, action):
        self.n_actions += 1
        if not self._is_chance():
            self.game.apply(action)
            if self._is_chance():  # the hand is over and another is to be dealt
                self.deal_start = self.n_actions
            return
        if self.first_dealer < 0:
            self.first_dealer = int(action)
            return
        self.dealing.append(int(action))
        if len(self.dealing) == self.variant.deck.bit_count():
            self._start_hand(_split_deal(self.variant, self.dealing))

    def _start_hand(self, deal) -> None:
        self.deals.append(deal)
        self.dealing = []
        if self.game is None:
            self.game = Game.from_deal(deal_to_spec(deal), dealer=self.first_dealer,
                                       num_hands=self.num_hands, seed=0, variant=self.variant)
        else:  # the engine dealt this hand from its seed: play the dealt cards instead
            self.game.deal_hand(deal_to_spec(deal))
        self.hand_starts.append(len(self.game.history))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            if self.first_dealer < 0:
                return f"first dealer player_{action}"
            return f"deal {card_name(action)}"
        return action_name(action)

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        return self.game.returns()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state with the same information state for ``player_id``: the unseen cards
        dealt at random (uniform over the consistent deals), drawn with
        ``probability_sampler()`` (floats in [0, 1))."""
        if self._is_chance():
            raise pyspiel.SpielError("resample_from_infostate at a chance node is not "
                                     "supported")
        view = self.game.view(player_id)
        hand, face_down, discard = Resampler(view).draw(SamplerRandom(probability_sampler))
        deal = view.initial_deal(hand, face_down, discard)
        history = list(self.history())
        at = self.deal_start
        size = self.variant.deck.bit_count()
        history[at:at + size] = deal_actions(self.variant, deal)
        if discard >= 0:  # the opponent's discard (R10 order: non-dealer first)
            history[at + size + (1 if 1 - player_id != view.dealer else 2)] = discard
        new = self.get_game().new_initial_state()
        for action in history:
            new.apply_action(action)
        return new

    def __str__(self):
        if self.game is None or self._is_chance():
            return f"dealing: {' '.join(map(card_name, self.dealing))}"
        return repr(self.game)


# --- observers ---------------------------------------------------------------------------

def _playing(state) -> bool:
    """Whether ``state``'s engine game holds the hand being played (not a deal in progress)."""
    return state.game is not None and not state._is_chance()


class WidderkopfObserver:
    """The observation: the 540 entries of :mod:`widderkopf_env.observation` (all zero
    while a hand is being dealt); the string lists the non-zero pieces."""

    def __init__(self):
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = split(self.tensor)

    def set_from(self, state, player):
        if _playing(state) or (state.game is not None and state.game.is_over):
            self.tensor[:] = encode_game(state.game, player)[0]
        else:
            self.tensor.fill(0.0)

    def string_from(self, state, player):
        self.set_from(state, player)
        parts = [f"p{player}"]
        for name, size, _text in PIECES:
            x = self.dict[name]
            if not x.any():
                continue
            if size == NUM_CARDS:
                parts.append(f"{name}:{','.join(card_name(c) for c in np.flatnonzero(x))}")
            else:
                parts.append(f"{name}:{','.join(f'{v:g}' for v in x)}")
        return " ".join(parts)


class InfoStateObserver:
    """The information state (perfect recall). Tensor: ``player`` (one-hot, 2),
    ``observation`` (540), the
    player's dealt ``hand`` (36), the dealt face-up cards ``up`` and the face-down cards
    turned over so far ``revealed`` (10 piles x 36, the player's piles first), and this
    hand's ``actions`` (one row per action: the action id, or 42 for the opponent's
    hidden discard). The string is the whole match as the player saw it."""

    def __init__(self, game: WidderkopfGame):
        rows = hand_actions(game.variant)
        pieces = [("player", 2, (2,)), ("observation", OBS_SIZE, (OBS_SIZE,)),
                  ("hand", NUM_CARDS, (NUM_CARDS,)),
                  ("up", 10 * NUM_CARDS, (10, NUM_CARDS)),
                  ("revealed", 10 * NUM_CARDS, (10, NUM_CARDS)),
                  ("actions", rows * (NUM_ACTIONS + 1), (rows, NUM_ACTIONS + 1))]
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict, at = {}, 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state, player):
        self.tensor.fill(0.0)
        d = self.dict
        d["player"][player] = 1
        if not (_playing(state) or (state.game is not None and state.game.is_over)):
            for c in _dealt_to(state, player):
                d["hand"][c] = 1
            return
        game = state.game
        d["observation"][:] = encode_game(game, player)[0]
        view = game.view(player)
        hand = state.deals[view.hand_no - (game.is_over)][player][0]
        d["hand"][hand] = 1
        for pile in range(10):
            row = (pile - 5 * player) % 10
            if view.initial_up[pile] >= 0:
                d["up"][row, view.initial_up[pile]] = 1
            if view.revealed[pile] >= 0:
                d["revealed"][row, view.revealed[pile]] = 1
        for i, a in enumerate(view.hand_history):
            d["actions"][i, NUM_ACTIONS if a == HIDDEN else a] = 1

    def string_from(self, state, player):
        parts = [f"p{player} first dealer {state.first_dealer}"]
        game = state.game
        finished = len(state.deals) if game is None or game.is_over else game.hand_no
        for k in range(finished if game is not None else 0):  # hands over: all seen
            end = state.hand_starts[k + 1] if k + 1 < len(state.hand_starts) else None
            actions = game.history[state.hand_starts[k]:end]
            parts.append(f"hand {k} {deal_to_spec(state.deals[k])} "
                         f"{' '.join(map(action_name, actions))}")
        if state._is_chance():
            parts.append(f"dealing {' '.join(map(card_name, _dealt_to(state, player)))}")
        elif not game.is_over:
            view = game.view(player)
            up, rev = view.initial_up, view.revealed
            parts.append(
                f"hand {view.hand_no} dealer {view.dealer} mine "
                f"{' '.join(map(card_name, state.deals[view.hand_no][player][0]))} up "
                f"{' '.join(card_name(c) if c >= 0 else '-' for c in up)} | "
                + " ".join("??" if a == HIDDEN else action_name(a) for a in view.hand_history)
                + " | turned " + " ".join(f"{i}:{card_name(c)}" for i, c in enumerate(rev)
                                          if c >= 0))
        return " / ".join(parts)


def _dealt_to(state, player) -> list[int]:
    """The cards of ``player`` seen so far in the deal in progress: own hand, face-up."""
    if state.first_dealer < 0:
        return []
    out, at = [], 0
    for p, kind, size in _groups(state.variant):
        cards = state.dealing[at:at + size]
        if kind == "up" or (kind == "hand" and p == player):
            out.extend(cards)
        at += size
    return out


pyspiel.register_game(GAME_TYPE, WidderkopfGame)
