"""
# Widderkopf (PettingZoo AEC)

| Import             | `from widderkopf_env import env`                       |
|--------------------|--------------------------------------------------------|
| Agents             | `["player_0", "player_1"]`                             |
| Action space       | `Discrete(42)` (engine action ids)                     |
| Observation space  | `Dict(observation=Box(0, 1, (OBS_SIZE,), float32), action_mask=Box(0, 1, (42,), int8))` |
| Parallel API       | No (turn based)                                        |

Widderkopf is a two-player trick-taking card game (see docs/rules.md, R1-R20):
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
(with `obs_dtype=np.uint8`, the compact uint8 observation: 0/1 entries as 0/1, the nine
scaled numbers x as round(x * 255), `Box(0, 255, (OBS_SIZE,), uint8)`)
from that agent's point of view: its own hand and discard, every face-up card, which piles
still hold a face-down card, the cards each player has played and captured, trump, crack
level, phase, roles, points and match scores. Hidden cards (the opponent's hand and
discard, every face-down card) are never encoded (R8): the encoder reads no more than the
agent's :class:`~widderkopf_env.view.PlayerView` holds, and tests check that
(:func:`~widderkopf_env.observation.encode_game`). The layout is the table in
:mod:`widderkopf_env.observation` (and docs/environments.md, "Observation layout"). The mask is all
zeros for the agent not to act, and for an agent that is terminated or truncated (also
when a wrapper such as `TerminateIllegalWrapper` sets those flags): never sample an action
from it then (step `None` for a terminated agent).

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

`illegal_action="terminate"` (default; the convention of PettingZoo's classic envs and
their `TerminateIllegalWrapper`, which tools that check envs with unmasked random actions
rely on): an id in 0..41 that is not legal now ends the episode with a warning; the
offender gets `illegal_reward`, the other agent 0, both are terminated, and infos say
`{"illegal_action": True, ...}` (offender) and `{"opponent_illegal_action": True}`. The
default `illegal_reward=None` charges the largest loss still possible in the match: `-64`
game points (`-66` with shaping) for the current hand and for every hand still to come, so
an illegal move never pays better than playing on.

`illegal_action="raise"` (for debugging): `step()` raises
:class:`~widderkopf_env.rules.IllegalActionError` (a `ValueError`) naming the legal
actions; the state is unchanged, so the caller can retry.

In both modes the same error is raised for actions out of 0..41, non-integers (str, float,
bool, None while alive) and steps after the episode ended.

## Arguments

```python
widderkopf_env.env(num_hands=1, reward_shaping=False, illegal_action="terminate",
                   illegal_reward=None, render_mode=None, render_perspective=None,
                   variant=None)
```

* `num_hands`: hands in the match (one episode); 1 by default.
* `variant`: a name in `widderkopf_env.VARIANTS` (the same rules on fewer cards; the
  observation keeps its 540 entries); None, the default, is the full game. With
  `reward_shaping` the card points are scaled by the variant's total instead of 121.
* `reward_shaping`: add the card-point shaping described above.
* `illegal_action`: `"raise"` or `"terminate"`; `illegal_reward`: the offender's reward.
* `render_mode`: `"ansi"` (`render()` returns the table as a string), `"human"` (prints
  it after every step) or `"rgb_array"` (`render()` returns a picture of the table,
  `uint8 (640, 960, 3)`; needs the `[render]` extra).
* `render_perspective`: None (the whole table, the default) or `"player_0"`/`"player_1"`:
  render only what that player may see (R8).

`reset(seed=None, options=None)`: `reset(seed=s)` deals the match of `Game.new(seed=s)`
(later unseeded resets follow from `s`: same seed, same matches). `seed` is None or a
non-negative int (numpy integers too, as `Game.new` takes them); a negative or huge one
raises `ValueError`, another type `TypeError`, and the env is left as it was. Options:
`{"deal": spec, "dealer": "player_0", "scores": (0, 0)}`; `deal` is a deal spec by card
names (see :func:`widderkopf_env.rules.parse_deal`) passed to `Game.from_deal`; `dealer`
(0, 1, `"player_0"` or `"player_1"`) is the first dealer (default: drawn from the seed, or
player_0 with a `deal`); `scores` are the match scores before the first hand (they decide
who names trumps, R9). A bad option raises `ValueError` and leaves the env as it was.
Other keys are ignored (they may be meant for another layer, as in PettingZoo's
`api_test`), with a warning only for a key that looks like a misspelt option.

`pettingzoo.make("aec", "Widderkopf-v0", **kwargs)` gives `env(**kwargs)` once
`widderkopf_env` is imported (PettingZoo 1.27 or later).

## Version History

* v0: initial release.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable

from .cards import NUM_ACTIONS
from .checks import SEATS, as_int, check_reset_seed, show
from .engine_types import IllegalActionError
from .episode import ILLEGAL, Episode, Settings, check_render_mode, hand_info, new_game
from .game_encoder import encoder_for
from .observation import check_obs_dtype, observation_space
from .render import RENDER_MODES, check_perspective
from .rules import Game
from .view import PlayerView

_INDEX = {"player_0": 0, "player_1": 1}


class _SetByReset:
    """A class attribute for an attribute that ``reset()`` sets on the env: reading it
    before then raises a clear ``AttributeError``; afterwards the instance's own value
    shadows it. (A ``__getattr__`` would say the same but slow down every attribute
    access: Python does not specialise attribute reads on classes that define one.)"""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, env, owner=None):
        if env is None:
            return self
        raise AttributeError(f"{self.name!r} cannot be accessed before reset()")


# --- the AEC environment -------------------------------------------------------------------

class _OrderedIterable(AECIterable):
    """``agent_iter``: insists on a ``step()`` between two agents (as OrderEnforcing).

    The iterator is a generator (cheaper per decision than a class with ``__next__``);
    once it has stopped or raised, it is finished.
    """

    def __iter__(self):
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            if not env._stepped:
                raise RuntimeError("call step() (or reset()) in each iteration of agent_iter()")
            env._stepped = False
            left -= 1
            yield env.agent_selection


class raw_env(AECEnv):
    """Widderkopf as a PettingZoo AEC environment; see the module documentation.

    The checks of PettingZoo's standard wrappers (order enforcing, out-of-bounds
    actions, illegal-action handling) are built in, so :func:`env` needs no wrapper.
    The match is a :class:`~widderkopf_env.rules.Game` played through its public methods
    (by :class:`~widderkopf_env.episode.Episode`); each observation and mask come from
    one call of the encoder :func:`~widderkopf_env.game_encoder.encoder_for` gives; the
    reward bookkeeping is PettingZoo's own (``_accumulate_rewards``, ``_was_dead_step``).
    """

    metadata = {"name": "widderkopf_v0", "render_modes": list(RENDER_MODES), "render_fps": 2,
                "is_parallelizable": False}

    def __init__(self, num_hands: int = 1, reward_shaping: bool = False,
                 illegal_action: str = "terminate", illegal_reward: float | None = None,
                 render_mode: str | None = None, render_perspective=None, variant=None,
                 obs_dtype=np.float32):
        super().__init__()
        self.settings = settings = Settings(num_hands, reward_shaping, illegal_action,
                                            illegal_reward, variant)
        check_render_mode(render_mode, RENDER_MODES, "the AEC env")
        self.render_perspective = check_perspective(render_perspective)
        self.num_hands, self.reward_shaping = settings.num_hands, settings.reward_shaping
        self.illegal_action, self.illegal_reward = illegal_action, settings.illegal_reward
        self.render_mode = render_mode
        self.possible_agents = list(SEATS)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        self._encode = encoder_for(self.obs_dtype)
        self.observation_spaces = {a: spaces.Dict({
            "observation": observation_space(self.obs_dtype),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }) for a in SEATS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in SEATS}
        self.np_random, self.np_random_seed = None, None
        # last() inlines observe() for speed; a subclass with its own observe() gets it called
        self._inline_observe = type(self).observe is raw_env.observe
        self._episode: Episode | None = None
        self._stepped = False  # a step() (or reset()) since agent_iter() last yielded
        self._over = True  # until reset()

    # set by reset(); read before it, each raises a clear AttributeError
    agents, rewards, _cumulative_rewards, terminations, truncations, infos, agent_selection = (
        _SetByReset() for _ in range(7))

    def __copy__(self):
        """An independent copy, as ``copy.deepcopy`` makes (a shallow copy would share the
        match being played with the original)."""
        return copy.deepcopy(self)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_encode"]  # the encoder of obs_dtype, made again on unpickling
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._encode = encoder_for(self.obs_dtype)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # --- reset / observe -------------------------------------------------------------------

    @property
    def game(self) -> Game | None:
        """The match being played (full state, hidden cards included), or None before
        ``reset()``. Agents should read :meth:`view`."""
        episode = self._episode
        return None if episode is None else episode.game

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_reset_seed(seed)  # before anything changes
        rng, rng_seed = self.np_random, self.np_random_seed
        if seed is not None or rng is None:
            rng, rng_seed = seeding.np_random(seed)
        game = new_game(rng, self.num_hands, options, seed,  # a bad option changes nothing
                        self.settings.variant)
        self.np_random, self.np_random_seed = rng, rng_seed
        self._episode = Episode(game, self.settings)
        self.agents = list(SEATS)
        self.rewards = {"player_0": 0.0, "player_1": 0.0}
        self._cumulative_rewards = {"player_0": 0.0, "player_1": 0.0}
        self.terminations = {"player_0": False, "player_1": False}
        self.truncations = {"player_0": False, "player_1": False}
        self.infos = {"player_0": {}, "player_1": {}}
        self.agent_selection = SEATS[game.current_player]
        self._dirty = False  # rewards or infos left from a previous step
        self._over = False
        self._stepped = True

    def observe(self, agent):
        episode = self._episode
        if episode is None:
            raise RuntimeError("reset() must be called before observe()")
        player = _INDEX.get(agent)
        if player is None:
            raise ValueError(f"unknown agent {agent!r}; agents are 'player_0', 'player_1'")
        # the mask follows the flags, which a wrapper (TerminateIllegalWrapper) may set
        over = self._over or self.terminations.get(agent, True) or self.truncations.get(agent, True)
        obs, mask = self._encode(episode.game, player, over)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to
        act; the observation is a new dict of new arrays (the caller may keep or change it)."""
        episode = self._episode
        if episode is None:
            raise RuntimeError("reset() must be called before last()")
        agent = self.agent_selection
        term, trunc = self.terminations[agent], self.truncations[agent]
        if not observe:
            obs = None
        elif self._inline_observe:  # observe(agent), inlined: this runs at every decision
            obs, mask = self._encode(episode.game, _INDEX[agent], self._over or term or trunc)
            obs = {"observation": obs, "action_mask": mask}
        else:
            obs = self.observe(agent)
        return obs, self._cumulative_rewards[agent], term, trunc, self.infos[agent]

    def view(self, agent) -> PlayerView:
        """What ``agent`` may see now (for bots): a :class:`PlayerView`."""
        game = self.game
        if game is None:
            raise RuntimeError("reset() must be called before view()")
        return game.view(agent)

    def agent_iter(self, max_iter: int = 2**63):
        if self.game is None:
            raise RuntimeError("reset() must be called before agent_iter()")
        count = as_int(max_iter)
        if count is None:
            raise TypeError(f"max_iter must be an int, got {show(max_iter)}")
        return _OrderedIterable(self, count)

    # --- step ------------------------------------------------------------------------------

    def step(self, action) -> None:
        if self._over:  # also before the first reset()
            self._dead_step(action)
            return
        agent, episode = self.agent_selection, self._episode
        x, result = episode.apply(action)  # IllegalActionError: nothing has changed
        if result is ILLEGAL:
            self._illegal(agent, episode.illegal)
            return
        self._stepped = True
        self._cumulative_rewards[agent] = 0.0  # reported by last(); the agent has acted
        if self._dirty:
            self._clean(agent)
        if result is not None:  # the action ended a hand
            info = hand_info(result)
            self.infos = {"player_0": info, "player_1": info.copy()}
            self._pay(x)
        elif x:
            self._pay(x)
        current = episode.game.current_player
        if current is not None:
            self.agent_selection = SEATS[current]
        else:  # the match is over
            self._over = True
            self.terminations = {"player_0": True, "player_1": True}
            self.agent_selection = SEATS[1 - _INDEX[agent]]
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
        """player_0 gets ``x``, player_1 ``-x`` (the rewards were zero)."""
        rewards = self.rewards
        rewards["player_0"] = x
        rewards["player_1"] = -x
        self._accumulate_rewards()
        self._dirty = True

    def _illegal(self, agent: str, illegal: dict) -> None:
        warnings.warn("an illegal action ended the episode with a penalty (infos[agent]"
                      "['illegal_action']); illegal_action='raise' raises instead", stacklevel=3)
        penalty = illegal["illegal_reward"]
        other = SEATS[1 - _INDEX[agent]]
        self._stepped = True
        self.rewards = {agent: penalty, other: 0.0}
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        self._dirty = True
        self.infos = {agent: {"illegal_action": True, "action": illegal["action"],
                              "legal_actions": illegal["legal_actions"],
                              "illegal_reward": penalty},
                      other: {"opponent_illegal_action": True}}
        self._over = True
        self.terminations = {"player_0": True, "player_1": True}
        self.agent_selection = other

    def _dead_step(self, action) -> None:
        if self._episode is None:
            raise RuntimeError("reset() must be called before step()")
        if not self.agents:
            raise IllegalActionError("the episode is over; call reset() to start a new one",
                                     action)
        if action is not None:
            raise IllegalActionError(
                f"the episode is over: step(None) for each terminated agent, got {action!r}",
                action)
        self._stepped = True
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
    slows every step. :class:`raw_env` builds the same guarantees in, so this
    factory returns it unwrapped:

    * ``step``, ``observe``, ``render``, ``agent_iter`` before ``reset()`` raise
      ``RuntimeError``; ``agents``, ``rewards``, ``infos`` ... raise ``AttributeError``;
      ``agent_iter`` requires a ``step()`` in each iteration.
    * actions outside ``Discrete(42)`` (out of range, str, float, bool) raise
      :class:`~widderkopf_env.rules.IllegalActionError` (a ``ValueError``).
    * illegal actions end the episode with ``illegal_reward`` for the offender and a
      warning, like ``TerminateIllegalWrapper``; with ``illegal_action="raise"`` they raise.
    * stepping after the episode ended (other than ``step(None)`` for terminated agents)
      raises instead of PettingZoo's warning.

    Keyword arguments are those of :class:`raw_env`.
    """
    return raw_env(**kwargs)
