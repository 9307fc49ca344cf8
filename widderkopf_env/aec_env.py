"""
# Widderkopf (PettingZoo AEC)

| Import             | `from widderkopf_env import env`                       |
|--------------------|--------------------------------------------------------|
| Agents             | `["player_0", "player_1"]`                             |
| Action space       | `Discrete(42)` (engine action ids)                     |
| Observation space  | `Dict(observation=Box(0, 1, (OBS_SIZE,), float32), action_mask=Box(0, 1, (42,), int8))` |
| Parallel API       | No (turn based)                                        |

Widderkopf is a two-player trick-taking card game (see README.md and RULES R1-R20):
name trumps, discard one card, then 17 tricks of two cards, with an optional
escalation of the stake ("cracking") before each player's first card.

## Action Space

`Discrete(42)`, the engine's action ids (:mod:`widderkopf_env.cards`):

| id     | meaning                                                              |
|--------|----------------------------------------------------------------------|
| 0..35  | play that card (card id `suit * 9 + rank`); in the discard phase, discard it |
| 36..39 | name the trump suit C, S, H, D                                       |
| 40     | escalate the crack (Crack, Recrack, Crackback, Around the Corner)     |
| 41     | pass (decline to answer an escalation)                               |

Only the actions in the observation's `action_mask` are legal. Python ints and numpy
integer scalars are accepted.

## Observation Space

`observe(agent)` returns `{"observation": float32 (OBS_SIZE,), "action_mask": int8 (42,)}`
from that agent's point of view: its own hand and discard, every face-up card, which piles
still hold a face-down card, the cards each player has played and captured, trump, crack
level, phase, roles, points and match scores. Hidden cards (the opponent's hand and
discard, every face-down card) are never encoded (R8): the encoder reads no more than the
agent's :class:`~widderkopf_env.view.PlayerView` holds, and tests check that
(:func:`~widderkopf_env.observation.encode_game`). The layout is the table in
:mod:`widderkopf_env.observation` (and README.md, "Observation layout"). The mask is all
zeros for the agent not to act, and for both agents once the episode has ended: never
sample an action from it then (step `None` for a terminated agent).

## Rewards

Zero-sum game points (R19). When a hand ends, its winner gets `+value` and the loser
`-value` (`value` = 1, 2, ... 64: `2 ** crack_level`, doubled for Schneider, x4 for
Schwarz). Rewards are accumulated per agent until its next turn (`last()`), as usual in
PettingZoo.

With `reward_shaping=True` card points are paid out as they are won, scaled by 1/121 and
zero-sum: after each completed trick, its winner gets `+p/121` and the loser `-p/121`
(`p` = card points in the trick); when the hand ends, the points not yet paid (both
discards, which stay hidden until then, and the Spitzer bonus) are paid the same way. The
shaping of a whole hand therefore adds up to `(my card points - opponent's) / 121`, in
[-1, 1], on top of the game points; since the winner of a hand always has more card
points, it never makes a lost hand worth more than a won one.

## Episode End

The episode ends (both agents `terminated`) when the match is over: after `num_hands`
hands, or more while the match scores are tied (R20). Each terminated agent must then be
stepped with `None` (the usual `agent_iter` loop does that). At the end of each hand both
agents' `infos` hold the hand's result (the :class:`~widderkopf_env.rules.HandResult`
fields: `card_points`, `trick_points`, `discards`, `spitzer`, `winner`, `crack_level`,
`schneider`, `schwarz`, `value`, `scores`, ...; players as 0/1). An agent's info is
replaced by `{}` when it next acts. There is no truncation (a hand has at most 40
decisions).

## Illegal actions

`illegal_action="raise"` (default): `step()` raises
:class:`~widderkopf_env.rules.IllegalActionError` (a `ValueError`) naming the legal
actions; the state is unchanged, so the caller can retry. The same error is raised for
actions out of 0..41, non-integers (str, float, bool, None while alive) and steps after the
episode ended.

`illegal_action="terminate"` (PettingZoo's `TerminateIllegalWrapper` convention): a legal
id that is not legal now ends the episode; the offender gets `illegal_reward`, the other
agent 0, both are terminated, and infos say `{"illegal_action": True, ...}` (offender) and
`{"opponent_illegal_action": True}`. The default `illegal_reward=None` charges the largest
loss still possible in the match: `-64` game points (`-66` with shaping) for the current
hand and for every hand still to come, so an illegal move never pays better than playing
on. Non-integers and ids outside 0..41 still raise.

## Arguments

```python
widderkopf_env.env(num_hands=1, reward_shaping=False, illegal_action="raise",
                   illegal_reward=None, render_mode=None, render_perspective=None)
```

* `num_hands`: hands in the match (one episode); 1 by default.
* `reward_shaping`: add the card-point shaping described above.
* `illegal_action`: `"raise"` or `"terminate"`; `illegal_reward`: the offender's reward.
* `render_mode`: `"ansi"` (`render()` returns the table as a string), `"human"` (prints
  it after every step) or `"rgb_array"` (`render()` returns a picture of the table,
  `uint8 (640, 960, 3)`; needs the `[render]` extra).
* `render_perspective`: None (the whole table, the default) or `"player_0"`/`"player_1"`:
  render only what that player may see (R8).

`reset(seed=None, options=None)`: the same seed gives the same match. Options:
`{"deal": spec, "dealer": "player_0", "scores": (0, 0)}`; `deal` is a deal spec by card
names (see :func:`widderkopf_env.rules.parse_deal`) passed to `Game.from_deal`; `dealer`
(0, 1, `"player_0"` or `"player_1"`) is the first dealer (default: drawn from the seed, or
player_0 with a `deal`); `scores` are the match scores before the first hand (they decide
who names trumps, R9). A bad option raises `ValueError` and leaves the env as it was.

## Version History

* v0: initial release.
"""

from __future__ import annotations

import warnings
from dataclasses import fields

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable

from .cards import MAX_HAND_VALUE, NUM_ACTIONS
from .observation import OBS_SIZE, encode_game
from .render import RENDER_MODES, check_perspective
from .rules import Game, HandResult, IllegalActionError, as_action_id, parse_player
from .view import PlayerView

AGENTS = ("player_0", "player_1")
_INDEX = {"player_0": 0, "player_1": 1}
_OPTIONS = frozenset({"deal", "dealer", "scores"})
_NEEDS_RESET = frozenset({"agents", "rewards", "_cumulative_rewards", "terminations",
                          "truncations", "infos", "agent_selection"})


# --- shared with the Gymnasium env ---------------------------------------------------------

def check_settings(num_hands, reward_shaping, illegal_action, illegal_reward) -> None:
    if isinstance(num_hands, bool) or not isinstance(num_hands, int) or num_hands < 1:
        raise ValueError(f"num_hands must be a positive int, got {num_hands!r}")
    if not isinstance(reward_shaping, bool):
        raise ValueError(f"reward_shaping must be True or False, got {reward_shaping!r}")
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
    if illegal_reward is not None and (isinstance(illegal_reward, bool)
                                       or not isinstance(illegal_reward, (int, float))):
        raise ValueError(f"illegal_reward must be a number or None, got {illegal_reward!r}")


def new_game(rng: np.random.Generator, num_hands: int, options) -> Game:
    """A match for ``reset``: its seed is drawn from ``rng``; ``options`` as documented.

    A bad option raises ``ValueError`` and leaves ``rng`` as it was.
    """
    if options is None:  # the common case: nothing can be wrong
        return Game.new(seed=int(rng.integers(0, 2**63 - 1)), num_hands=num_hands)
    state = rng.bit_generator.state
    try:
        return _game_from_options(rng, num_hands, options)
    except ValueError:
        rng.bit_generator.state = state
        raise


def _game_from_options(rng: np.random.Generator, num_hands: int, options) -> Game:
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        warnings.warn(f"ignoring unknown reset options {unknown}; known: {sorted(_OPTIONS)}",
                      stacklevel=4)
    seed = int(rng.integers(0, 2**63 - 1))
    dealer = options.get("dealer")
    if dealer is not None:
        dealer = parse_player(dealer)
    scores = options.get("scores", (0, 0))
    if not isinstance(scores, (tuple, list)):
        raise ValueError(f"scores must be two non-negative ints, got {scores!r}")
    if options.get("deal") is not None:
        return Game.from_deal(options["deal"], dealer=0 if dealer is None else dealer,
                              num_hands=num_hands, seed=seed, scores=tuple(scores))
    return Game.new(seed=seed, dealer=dealer, num_hands=num_hands, scores=tuple(scores))


_RESULT_FIELDS = tuple(f.name for f in fields(HandResult))


def hand_info(result) -> dict:
    """A finished hand's result as a fresh info dict (the HandResult fields)."""
    return {f: getattr(result, f) for f in _RESULT_FIELDS}


def illegal_penalty(game: Game, illegal_reward, reward_shaping: bool) -> float:
    """The offender's reward for an illegal action (see the module documentation)."""
    if illegal_reward is not None:
        return float(illegal_reward)
    hands_left = max(game.num_hands - game.hand_no, 1)
    return -float((MAX_HAND_VALUE + (2 if reward_shaping else 0)) * hands_left)


class RewardLedger:
    """player_0's reward for each move applied to one game (player_1 gets its negative).

    When a hand ends: its game points (R19). With ``shaping``, also the card-point
    difference /121 whenever it changes (after a trick), and at the hand's end what is
    left of the final difference (the discards and the Spitzer). Both envs settle every
    applied move here, so they pay the same rewards.
    """

    __slots__ = ("shaping", "hands", "_shaped")

    def __init__(self, shaping: bool):
        self.shaping = shaping
        #: Hands settled so far: without shaping, :meth:`settle` pays nothing while
        #: ``len(game.results) == hands`` (the envs skip the call then).
        self.hands = 0
        self._shaped = 0  # card-point difference paid so far in this hand

    def settle(self, game: Game) -> tuple[float, HandResult | None]:
        """``(reward, result)`` for the move just applied: ``result`` is the
        :class:`HandResult` of the hand it ended, else None."""
        if len(game.results) != self.hands:
            self.hands += 1
            result = game.results[-1]
            x = float(result.value if result.winner == 0 else -result.value)
            if self.shaping:
                cp = result.card_points
                x += (cp[0] - cp[1] - self._shaped) / 121.0
                self._shaped = 0
            return x, result
        if self.shaping:
            tp = game.trick_points
            diff = tp[0] - tp[1]
            if diff != self._shaped:
                x = (diff - self._shaped) / 121.0
                self._shaped = diff
                return x, None
        return 0.0, None


def check_action(action) -> int:
    """``action`` as an int in 0..41, or IllegalActionError (a ValueError)."""
    if type(action) is not int:
        value = as_action_id(action)
        if value is None:
            raise IllegalActionError(
                f"action must be an integer action id in 0..41, got "
                f"{type(action).__name__} {action!r}", action)
        action = value
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"action {action} is out of range 0..41", action)
    return action


# --- the AEC environment -------------------------------------------------------------------

class _OrderedIterable(AECIterable):
    """``agent_iter``: insists on a ``step()`` between two agents (as OrderEnforcing).

    The iterator is a generator (cheaper per decision than a class with ``__next__``);
    once it has raised, it is finished.
    """

    def __iter__(self):
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            if not env._has_updated:
                raise RuntimeError("call step() (or reset()) in each iteration of agent_iter()")
            env._has_updated = False
            left -= 1
            yield env.agent_selection


class raw_env(AECEnv):
    """Widderkopf as a PettingZoo AEC environment; see the module documentation.

    The checks of PettingZoo's standard wrappers (order enforcing, out-of-bounds
    actions, illegal-action handling) are built in, so :func:`env` needs no wrapper.
    """

    metadata = {"name": "widderkopf_v0", "render_modes": list(RENDER_MODES), "render_fps": 2,
                "is_parallelizable": False}

    def __init__(self, num_hands: int = 1, reward_shaping: bool = False,
                 illegal_action: str = "raise", illegal_reward: float | None = None,
                 render_mode: str | None = None, render_perspective=None):
        super().__init__()
        check_settings(num_hands, reward_shaping, illegal_action, illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, "
                             f"got {render_mode!r}")
        self.render_perspective = check_perspective(render_perspective)
        self.num_hands, self.reward_shaping = num_hands, reward_shaping
        self.illegal_action, self.illegal_reward = illegal_action, illegal_reward
        self._terminate_illegal = illegal_action == "terminate"
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }) for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.np_random, self.np_random_seed = None, None
        self.game: Game | None = None
        self._has_updated = False
        self._over = True  # until reset()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # last() inlines observe() for speed; a subclass with its own observe() gets the
        # plain last() that calls it
        if cls.observe is not raw_env.observe and cls.last is raw_env.last:
            cls.last = AECEnv.last

    def __getattr__(self, name):  # only reached when normal lookup fails
        if name in _NEEDS_RESET:
            raise AttributeError(f"{name!r} cannot be accessed before reset()")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # --- reset / observe -------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        rng, rng_seed = self.np_random, self.np_random_seed
        if seed is not None or rng is None:
            rng, rng_seed = seeding.np_random(seed)
        game = new_game(rng, self.num_hands, options)  # a bad option changes nothing
        self.np_random, self.np_random_seed, self.game = rng, rng_seed, game
        self.agents = list(AGENTS)
        self.rewards = {"player_0": 0.0, "player_1": 0.0}
        self._cumulative_rewards = {"player_0": 0.0, "player_1": 0.0}
        self.terminations = {"player_0": False, "player_1": False}
        self.truncations = {"player_0": False, "player_1": False}
        self.infos = {"player_0": {}, "player_1": {}}
        self.agent_selection = AGENTS[game.current]
        self._dirty = False
        self._over = False
        self._ledger = RewardLedger(self.reward_shaping)
        self._has_updated = True

    def observe(self, agent):
        game = self.game
        if game is None:
            raise RuntimeError("reset() must be called before observe()")
        player = _INDEX.get(agent)
        if player is None:
            raise ValueError(f"unknown agent {agent!r}; agents are 'player_0', 'player_1'")
        obs, mask = encode_game(game, player, self._over)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to act."""
        game = self.game
        if game is None:
            raise RuntimeError("reset() must be called before last()")
        agent = self.agent_selection
        obs = None
        if observe:  # observe(agent), inlined: this runs at every decision
            obs, mask = encode_game(game, _INDEX[agent], self._over)
            obs = {"observation": obs, "action_mask": mask}
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def view(self, agent) -> PlayerView:
        """What ``agent`` may see now (for bots): a :class:`PlayerView`."""
        if self.game is None:
            raise RuntimeError("reset() must be called before view()")
        return PlayerView.of(self.game, parse_player(agent))

    def agent_iter(self, max_iter: int = 2**63):
        if self.game is None:
            raise RuntimeError("reset() must be called before agent_iter()")
        return _OrderedIterable(self, max_iter)

    # --- step ------------------------------------------------------------------------------

    def step(self, action) -> None:
        if self._over:  # also before the first reset()
            self._dead_step(action)
            return
        game, agent = self.game, self.agent_selection
        if self._terminate_illegal:
            action = check_action(action)
            if not (game.legal_mask >> action) & 1:
                self._illegal(agent, action)
                return
        game.apply(action)  # raises IllegalActionError, leaving everything unchanged
        self._has_updated = True
        self._cumulative_rewards[agent] = 0.0
        if self._dirty:  # rewards or infos left from a previous step
            self._clean(agent)
        ledger = self._ledger
        if ledger.shaping or len(game.results) != ledger.hands:
            x, result = ledger.settle(game)
            if result is not None:
                self._pay(x)
                self.infos = {"player_0": hand_info(result), "player_1": hand_info(result)}
            elif x:
                self._pay(x)
        current = game.current
        if current is not None:
            self.agent_selection = AGENTS[current]
        else:  # the match is over
            self._over = True
            self.terminations = {"player_0": True, "player_1": True}
            self.agent_selection = AGENTS[1 - _INDEX[agent]]
        if self.render_mode == "human":
            self.render()

    def _clean(self, agent: str) -> None:
        """Zero last step's rewards; clear ``agent``'s info now that it acts again."""
        rewards = self.rewards
        rewards["player_0"] = rewards["player_1"] = 0.0
        infos = self.infos
        if infos[agent]:
            infos[agent] = {}
        self._dirty = bool(infos["player_0"] or infos["player_1"])

    def _pay(self, x: float) -> None:
        """player_0 gets ``x``, player_1 ``-x``."""
        rewards, cum = self.rewards, self._cumulative_rewards
        rewards["player_0"] += x
        rewards["player_1"] -= x
        cum["player_0"] += x
        cum["player_1"] -= x
        self._dirty = True

    def _illegal(self, agent: str, action: int) -> None:
        game = self.game
        penalty = illegal_penalty(game, self.illegal_reward, self.reward_shaping)
        other = AGENTS[1 - _INDEX[agent]]
        self._has_updated = True
        self.rewards = {agent: penalty, other: 0.0}
        self._cumulative_rewards[agent] = penalty
        self._dirty = True
        self.infos = {agent: {"illegal_action": True, "action": action,
                              "legal_actions": game.legal_actions(),
                              "illegal_reward": penalty},
                      other: {"opponent_illegal_action": True}}
        self._over = True
        self.terminations = {"player_0": True, "player_1": True}
        self.agent_selection = other

    def _dead_step(self, action) -> None:
        if self.game is None:
            raise RuntimeError("reset() must be called before step()")
        if not self.agents:
            raise IllegalActionError("the episode is over; call reset() to start a new one",
                                     action)
        if action is not None:
            raise IllegalActionError(
                f"the episode is over: step(None) for each terminated agent, got {action!r}",
                action)
        self._has_updated = True
        self._was_dead_step(None)

    # --- rendering -------------------------------------------------------------------------

    def render(self):
        from .render import render_for_mode

        return render_for_mode(self.game, self.render_mode, self.render_perspective)

    def close(self) -> None:
        pass


def env(**kwargs) -> raw_env:
    """A Widderkopf AEC environment, ready to use (see :mod:`widderkopf_env.aec_env`).

    PettingZoo's classic ``env()`` factories wrap the raw env in ``TerminateIllegalWrapper``,
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``; that attribute forwarding
    costs about 24 us per step. :class:`raw_env` builds the same guarantees in, so this
    factory returns it unwrapped:

    * ``step``, ``observe``, ``render``, ``agent_iter`` before ``reset()`` raise
      ``RuntimeError``; ``agents``, ``rewards``, ``infos`` ... raise ``AttributeError``;
      ``agent_iter`` requires a ``step()`` in each iteration.
    * actions outside ``Discrete(42)`` (out of range, str, float, bool) raise
      :class:`~widderkopf_env.rules.IllegalActionError` (a ``ValueError``).
    * illegal actions raise, or with ``illegal_action="terminate"`` end the episode with
      ``illegal_reward`` for the offender, like ``TerminateIllegalWrapper``.
    * stepping after the episode ended (other than ``step(None)`` for terminated agents)
      raises instead of PettingZoo's warning.

    Keyword arguments are those of :class:`raw_env`.
    """
    return raw_env(**kwargs)
