"""Widderkopf as an RLlib ``MultiAgentEnv`` (new API stack): one seat per agent id.

The agent ids are ``"player_0"`` and ``"player_1"``. The game is turn-based, so every
``reset()`` and ``step()`` returns the observation of the one agent to act next (RLlib
then asks only that agent for an action); when the episode ends, both agents get their
last observation, their reward and ``terminateds["__all__"] = True``.

Observations are ``Dict({"observations": Box(0, 1, (540,)), "action_mask": Box(0, 1,
(42,))})``, float32: the acting player's observation vector
(:func:`widderkopf_env.observation.encode_game`, which holds nothing that player may not
see, RULES R8) and its legal actions (1 = legal), the keys RLlib's action-masking modules
read. Actions are ``Discrete(42)`` engine action ids.

Rewards are the zero-sum game points of the match (R19): when a hand ends, its winner gets
``+value`` and the loser ``-value``; nothing else is paid.

An illegal action (RLlib's env checker steps ``action_space.sample()``) is handled by
``config["illegal_action"]``: ``"terminate"`` (the default, PettingZoo's convention) ends
the episode, the offender gets ``illegal_reward`` (default: ``-64`` for this hand and each
hand still to come, the largest loss possible, so cheating never pays) and the other agent
0, with ``infos[offender]["illegal_action"] = True``; ``"raise"`` raises
:class:`~widderkopf_env.rules.IllegalActionError` and leaves the game as it was.

``config["variant"]``: a name in ``widderkopf_env.VARIANTS`` (default ``"full"``): the
same rules on fewer cards (the observation layout stays the 540 entries).

``config["obs_dtype"]``: ``"float32"`` (default) or ``"uint8"`` (numpy dtypes too): the
compact observation, ``Box(0, 255, (540,), uint8)``, 0/1 entries as 0/1 and the nine
scaled numbers x as round(x * 255) (:func:`widderkopf_env.observation.to_compact`).

All randomness flows from ``reset(seed=...)``: the deals are drawn from it.
"""

from __future__ import annotations

import numbers

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from widderkopf_env.cards import NUM_ACTIONS, VARIANTS
from widderkopf_env.checks import check_reset_seed
from widderkopf_env.episode import ILLEGAL, Episode, Settings, new_game
from widderkopf_env.game_encoder import encoder_for
from widderkopf_env.observation import check_obs_dtype, observation_space
from widderkopf_env.rules import Game, IllegalActionError

AGENT_IDS = ("player_0", "player_1")

#: The config keys and their defaults.
DEFAULTS = {
    "num_hands": 1,
    "illegal_action": "terminate",
    "illegal_reward": None,
    "variant": "full",
    "obs_dtype": "float32",
}


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_config(config) -> dict:
    """``config`` completed with the defaults; ``ValueError``/``TypeError`` naming the
    allowed keys and values for anything else."""
    if config is None:
        config = {}
    if not isinstance(config, dict):  # RLlib passes an EnvContext, a dict subclass
        raise TypeError(f"config must be a dict or None, got {type(config).__name__}")
    unknown = sorted(set(config) - set(DEFAULTS), key=str)
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown}; allowed: {sorted(DEFAULTS)}")
    out = {**DEFAULTS, **config}
    n = out["num_hands"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"config['num_hands'] must be a positive int, got {n!r}")
    if out["illegal_action"] not in ("terminate", "raise"):
        raise ValueError(f"config['illegal_action'] must be 'terminate' or 'raise', "
                         f"got {out['illegal_action']!r}")
    r = out["illegal_reward"]
    if r is not None and not _is_number(r):
        raise ValueError(f"config['illegal_reward'] must be a number or None, got {r!r}")
    if not isinstance(out["variant"], str) or out["variant"] not in VARIANTS:
        raise ValueError(f"config['variant'] must be one of {', '.join(VARIANTS)}, got "
                         f"{out['variant']!r}")
    try:
        check_obs_dtype(out["obs_dtype"])
    except ValueError as err:
        raise ValueError(f"config['obs_dtype']: {err}") from None
    return out


class WidderkopfMultiAgentEnv(MultiAgentEnv):
    """Widderkopf for RLlib; see the module documentation. ``config`` keys:
    ``num_hands`` (1), ``illegal_action`` ("terminate"), ``illegal_reward`` (None),
    ``variant`` ("full"), ``obs_dtype`` ("float32")."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config: dict | None = None):
        super().__init__()
        self.config = check_config(config)
        self.possible_agents = list(AGENT_IDS)
        self.agents = list(AGENT_IDS)
        obs_space = gym.spaces.Dict({
            "observations": observation_space(self.config["obs_dtype"]),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = {a: obs_space for a in AGENT_IDS}
        self.action_spaces = {a: gym.spaces.Discrete(NUM_ACTIONS) for a in AGENT_IDS}
        cfg = self.config
        # the episode core of the other envs: rewards and the illegal-action policy
        self._settings = Settings(cfg["num_hands"], False, cfg["illegal_action"],
                                  cfg["illegal_reward"], cfg["variant"])
        self._episode: Episode | None = None
        self._rng = np.random.default_rng()
        self._encode = encoder_for(self.config["obs_dtype"])

    @property
    def game(self) -> Game | None:
        """The match being played (full state), or None before ``reset()``."""
        return None if self._episode is None else self._episode.game

    # --- the MultiAgentEnv API -----------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError(f"reset() takes no options, got {sorted(options)}")
        seed = check_reset_seed(seed)  # the same errors as every other env, nothing changed
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game = new_game(self._rng, self.config["num_hands"], None, seed,
                        self._settings.variant)
        self._episode = Episode(game, self._settings)
        self.agents = list(AGENT_IDS)
        return {AGENT_IDS[game.current]: self._observe(game.current)}, {}

    def step(self, action_dict: dict):
        episode = self._episode
        if episode is None or episode.over:
            raise IllegalActionError("the episode is over; call reset() first")
        p = episode.game.current
        agent = AGENT_IDS[p]
        if set(action_dict) != {agent}:
            raise ValueError(f"expected an action for {agent!r} only, got keys "
                             f"{sorted(action_dict, key=str)}")
        x, result = episode.apply(action_dict[agent])  # IllegalActionError: nothing changed
        if result is ILLEGAL:
            return self._end_illegal(p, episode.illegal)
        rewards = {agent: 0.0}  # RLlib wants a reward for every action
        if x:
            rewards.update(player_0=x, player_1=-x)
        if episode.over:
            return self._end(rewards, {})
        nxt = episode.game.current
        return ({AGENT_IDS[nxt]: self._observe(nxt)}, rewards, {"__all__": False},
                {"__all__": False}, {})

    def render(self) -> str:
        """The table as text (``widderkopf_env.render``)."""
        from widderkopf_env.render import render_for_mode

        return render_for_mode(self.game, "ansi")

    # --- internals -----------------------------------------------------------------------

    def _observe(self, player: int) -> dict:
        episode = self._episode
        obs, mask = self._encode(episode.game, player, episode.over)
        return {"observations": obs, "action_mask": mask.astype(np.float32)}

    def _end(self, rewards: dict, infos: dict):
        obs = {a: self._observe(i) for i, a in enumerate(AGENT_IDS)}
        rewards = {a: rewards.get(a, 0.0) for a in AGENT_IDS}
        done = {"player_0": True, "player_1": True, "__all__": True}
        trunc = {"player_0": False, "player_1": False, "__all__": False}
        return obs, rewards, done, trunc, infos

    def _end_illegal(self, p: int, illegal: dict):
        rewards = {AGENT_IDS[p]: illegal["illegal_reward"]}
        infos = {AGENT_IDS[p]: {"illegal_action": True, "action": illegal["action"],
                                "legal_actions": illegal["legal_actions"]}}
        return self._end(rewards, infos)
