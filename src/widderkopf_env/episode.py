"""One match as an RL episode: the core that both environments share.

:class:`Settings` checks the episode arguments of both envs; :func:`new_game` starts the
match of a ``reset()``; :class:`Episode` applies actions through ``Game.apply`` (the only
validator), settles rewards and decides what an illegal action does. The PettingZoo and
Gymnasium envs are thin API layers over it, so both pay the same rewards and treat
illegal actions the same way. Nothing here imports PettingZoo or Gymnasium.

Rewards are player_0's (player_1 gets the negative): the game points of each finished
hand (R19) and, with ``reward_shaping``, the card-point difference / 121 as it changes.
"""

from __future__ import annotations

import difflib
import math
import warnings
from dataclasses import dataclass

import numpy as np

from .cards import MAX_HAND_VALUE, NUM_ACTIONS, get_variant
from .checks import SEATS, as_int, check_num_hands, check_scores, check_seed, parse_player
from .engine_types import RESULT_FIELDS, HandResult, IllegalActionError
from .rules import Game

#: What ``illegal_action`` may be: raise the error, or end the episode with a penalty.
ILLEGAL_ACTION_MODES = ("raise", "terminate")
#: The options ``reset(options=...)`` takes.
RESET_OPTIONS = frozenset({"deal", "dealer", "scores"})
#: What :meth:`Episode.apply` returns in place of a hand result when an illegal action
#: ended the episode.
ILLEGAL = "illegal"


class OpponentError(RuntimeError):
    """The opponent failed (raised, or chose an illegal action) inside ``reset()`` or
    ``step()`` of an env that plays it. The env was put back as it was before that call."""


def check_render_mode(render_mode, allowed, owner: str) -> None:
    """``render_mode`` must be None or one of ``allowed``: else ``ValueError`` listing them
    (raised when the env is made, not at its first ``render()``)."""
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode
                                    not in allowed):
        modes = ", ".join(map(repr, allowed)) if allowed else "none (it does not render)"
        raise ValueError(f"render_mode must be None or one of the render modes of {owner}: "
                         f"{modes}; got {render_mode!r}")


def check_not_a_class(opponent) -> None:
    """An agent class given where an agent object is wanted: ``TypeError`` saying so."""
    if isinstance(opponent, type):
        raise TypeError(f"opponent must be an agent object, not the class "
                        f"{opponent.__name__}: pass an instance: {opponent.__name__}()")


@dataclass(frozen=True)
class Settings:
    """The episode arguments of both environments, checked when made."""

    num_hands: int = 1
    reward_shaping: bool = False
    illegal_action: str = "raise"
    illegal_reward: float | None = None
    variant: object = None  #: a name in widderkopf_env.VARIANTS or a Variant (None: full)

    def __post_init__(self):
        object.__setattr__(self, "num_hands", check_num_hands(self.num_hands))
        object.__setattr__(self, "variant", get_variant(self.variant))
        if not isinstance(self.reward_shaping, (bool, np.bool_)):
            raise ValueError(f"reward_shaping must be True or False, got {self.reward_shaping!r}")
        object.__setattr__(self, "reward_shaping", bool(self.reward_shaping))
        if self.illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be 'raise' or 'terminate', got "
                             f"{self.illegal_action!r}")
        reward = self.illegal_reward
        if reward is not None:
            if isinstance(reward, (bool, np.bool_)) or not isinstance(reward, (int, float,
                                                                            np.number)):
                raise ValueError(f"illegal_reward must be a number or None, got {reward!r}")
            if not math.isfinite(reward):
                raise ValueError(f"illegal_reward must be a finite number, got {reward!r}")
            object.__setattr__(self, "illegal_reward", float(reward))


def new_game(rng: np.random.Generator, num_hands: int, options, seed: int | None = None,
             variant=None) -> Game:
    """The match of a ``reset()``. With the ``seed`` passed to ``reset(seed=...)`` it is
    the match of ``Game.new(seed=seed)`` (so ``reset(seed=s)`` of every env deals the same
    cards as ``Game.new(seed=s)``, and the vector env's sub-env ``i`` those of
    ``reset(seed=s + i)``); without one, its seed is drawn from ``rng`` (which the env
    seeded from its last ``reset(seed)``). ``options`` may give ``deal`` (a deal spec),
    ``dealer`` and ``scores``. A bad option raises ``ValueError`` (or ``TypeError``) and
    leaves ``rng`` as it was. ``variant``: the variant played (None: the full game)."""
    if options is None:  # the common case: nothing can be wrong
        return Game.new(seed=_game_seed(rng, seed), num_hands=num_hands, variant=variant)
    state = rng.bit_generator.state
    try:
        return _game_from_options(rng, num_hands, options, seed, variant)
    except Exception:
        rng.bit_generator.state = state
        raise


def _game_seed(rng: np.random.Generator, seed: int | None) -> int:
    """The match seed: the reset's own seed, else one drawn from ``rng``."""
    return int(rng.integers(0, 2**63 - 1)) if seed is None else check_seed(seed)


def _game_from_options(rng: np.random.Generator, num_hands: int, options, seed,
                       variant=None) -> Game:
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    for key in set(options) - RESET_OPTIONS:  # may be another layer's: warn on a likely typo
        near = difflib.get_close_matches(str(key), RESET_OPTIONS, n=1)
        if near:
            warnings.warn(f"ignoring unknown reset option {key!r}; did you mean {near[0]!r}?",
                          stacklevel=4)
    seed = _game_seed(rng, seed)
    dealer = options.get("dealer")
    if dealer is not None:
        dealer = parse_player(dealer, "dealer")
    scores = check_scores(options.get("scores", (0, 0)))
    if options.get("deal") is not None:
        return Game.from_deal(options["deal"], dealer=0 if dealer is None else dealer,
                              num_hands=num_hands, seed=seed, scores=scores, variant=variant)
    return Game.new(seed=seed, dealer=dealer, num_hands=num_hands, scores=scores,
                    variant=variant)


def hand_info(result: HandResult) -> dict:
    """A finished hand's result as a fresh info dict (the HandResult fields)."""
    return {f: getattr(result, f) for f in RESULT_FIELDS}


def illegal_penalty(game: Game, settings: Settings) -> float:
    """The offender's reward for an illegal action: ``illegal_reward``, or by default the
    largest loss still possible in the match (64 game points, 66 with shaping, for the
    current hand and every hand still to come), so an illegal move never pays better
    than playing on."""
    if settings.illegal_reward is not None:
        return settings.illegal_reward
    hands_left = max(game.num_hands - game.hand_no, 1)
    return -float((MAX_HAND_VALUE + (2 if settings.reward_shaping else 0)) * hands_left)


def move_reward(result: HandResult | None, trick_points, shaped: int, total: int,
                shaping: bool) -> tuple[float, int]:
    """The reward rule: player_0's reward for one move, and the card-point difference
    paid so far in the hand after it. ``result``: the :class:`HandResult` of the hand the
    move ended (None if none), worth its game points (R19); with ``shaping``, also the
    card-point difference / ``total`` as it changed: ``trick_points`` after the move,
    ``shaped`` the difference paid before it, and at a hand's end what is left of its
    final difference (the discards and the Spitzer). :meth:`Episode.settle` and the
    vector env's pure-Python ledger (:mod:`widderkopf_env.vector.ledger`) pay this."""
    if result is not None:
        x = float(result.value if result.winner == 0 else -result.value)
        if shaping:
            cp = result.card_points
            x += (cp[0] - cp[1] - shaped) / float(total)
        return x, 0
    if shaping:
        diff = trick_points[0] - trick_points[1]
        if diff != shaped:
            return (diff - shaped) / float(total), diff
    return 0.0, shaped


class Episode:
    """A match being played as an episode.

    :meth:`apply` plays an action of the player to act and returns player_0's reward for
    it with the :class:`HandResult` of a hand it ended (or :data:`ILLEGAL`). ``over`` is
    set when the match ends or an illegal action ended the episode; then ``illegal``
    describes that action (with ``illegal_action="terminate"``); otherwise it is None.
    """

    __slots__ = ("game", "settings", "over", "illegal", "_terminate", "_shaping", "_hands",
                 "_shaped")

    def __init__(self, game: Game, settings: Settings):
        self.game, self.settings = game, settings
        self.over, self.illegal = game.is_over, None
        self._terminate = settings.illegal_action == "terminate"
        self._shaping = settings.reward_shaping
        self._hands = len(game.results)  # hands settled so far
        self._shaped = 0  # card-point difference paid so far in this hand

    def apply(self, action, strict: bool = False) -> tuple[float, HandResult | None]:
        """Play ``action``; ``(player_0's reward, the result of a hand it ended or None)``.

        ``Game.apply`` checks the action. An illegal one raises its
        :class:`IllegalActionError` and changes nothing; with ``illegal_action=
        "terminate"`` (and not ``strict``) an integer action id in 0..41 that is not legal
        now ends the episode instead (see :attr:`illegal`), and ``(0.0, ILLEGAL)`` is
        returned.
        """
        try:
            self.game.apply(action)
        except IllegalActionError as err:
            if strict or not self._terminate or not self._ends_episode(err):
                raise
            return 0.0, ILLEGAL
        return self.settle()

    def settle(self) -> tuple[float, HandResult | None]:
        """:meth:`apply`'s return for the action just applied to :attr:`game`."""
        game = self.game
        result = None
        if len(game.results) != self._hands:
            self._hands += 1
            result = game.results[-1]
            if game.current is None:
                self.over = True
        elif not self._shaping:
            return 0.0, None
        x, self._shaped = move_reward(result, game.trick_points, self._shaped,
                                      game.variant.total_points, self._shaping)
        return x, result

    def _ends_episode(self, err: IllegalActionError) -> bool:
        action = as_int(err.action)
        if action is None or not 0 <= action < NUM_ACTIONS or self.game.is_over:
            return False  # not an action id at all: always an error
        game = self.game
        self.over = True
        self.illegal = {"player": game.current, "action": action,
                        "legal_actions": game.legal_actions(),
                        "illegal_reward": illegal_penalty(game, self.settings)}
        return True

    def rewind(self, length: int) -> None:
        """Take back every action after the first ``length`` of the match (the game is
        replayed to that point; the rewards already paid are recomputed from it)."""
        game = self.game
        if len(game.history) != length:
            self.game = game = game.replay(length)
        self.over, self.illegal = game.is_over, None
        self._hands = len(game.results)
        tp = game.trick_points  # shaping has paid the difference so far (0 at a hand's start)
        self._shaped = tp[0] - tp[1] if self._shaping else 0


__all__ = ["ILLEGAL", "ILLEGAL_ACTION_MODES", "RESET_OPTIONS", "SEATS", "Episode",
           "OpponentError", "Settings", "check_not_a_class", "check_render_mode", "hand_info",
           "illegal_penalty", "new_game"]
