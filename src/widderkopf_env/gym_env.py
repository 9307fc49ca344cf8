"""
# Widderkopf (single-agent Gymnasium)

| Make               | `gymnasium.make("Widderkopf-v0", opponent="heuristic", seat="random")` |
|--------------------|-------------------------------------------------------------------------|
| Action space       | `Discrete(42)` (engine action ids)                                      |
| Observation space  | `Box(0, 1, (OBS_SIZE,), float32)`                                       |
| Action mask        | `info["action_mask"]` and `env.action_masks()` (int8, 42)                |

One learner plays Widderkopf against a fixed opponent (any
:class:`~widderkopf_env.agent.Agent`); the opponent's moves are played inside
`reset()` and `step()` until it is the learner's turn again or the episode is over.
`gymnasium.make("Widderkopf-v0")` works after `import widderkopf_env`;
`gymnasium.make("widderkopf_env:Widderkopf-v0")` imports it itself (handy in subprocesses).

## Action Space

`Discrete(42)`: 0..35 play (or discard) that card, 36..39 name trumps C, S, H, D, 40
escalate the crack, 41 pass. Only the ids in `action_masks()` are legal. Python ints and
numpy integer scalars are accepted.

## Observation Space

The learner's observation vector of the AEC env (`Box(0, 1, (OBS_SIZE,), float32)`, or
with `obs_dtype=np.uint8` the compact `Box(0, 255, (OBS_SIZE,), uint8)`: 0/1 entries as
0/1, the nine scaled numbers x as round(x * 255); the layout is in :mod:`widderkopf_env.observation` and docs/environments.md). It holds nothing the
learner's :class:`~widderkopf_env.view.PlayerView` does not, so no hidden card (R8).

The legal actions (int8, 42, 1 = legal) come with every observation as
`info["action_mask"]` (from `reset()` and every `step()`), and `action_masks()` (for
sb3-contrib's `MaskablePPO`) gives the same mask. It is never all zeros while the
episode runs; it is all zeros with the observation that ends the episode, which is not a
decision. Gymnasium's vector envs (`gymnasium.make_vec`, sync or async) stack the masks as
`infos["action_mask"]`, shape `(num_envs, 42)`. With their default next-step autoreset, the
step after an episode ended only resets that sub-env and ignores its action, so its mask
then is the terminal all-zero one: sample that sub-env's action from any mask (e.g. all
ones) and drop the transition, as Gymnasium's autoreset documentation says. With
`autoreset_mode=AutoresetMode.SAME_STEP` the reset happens in the terminal step: the
terminal observation is in `infos["final_obs"]` and `infos["action_mask"]` is always the
new episode's live mask.

## Rewards

The learner's zero-sum game points (R19): `+value` when it wins a hand, `-value` when it
loses one (`value` 1..64), summed over what happened since its previous action (its own
move and the opponent's replies). With `reward_shaping=True`, plus the card-point shaping
of the AEC env: `+-p/121` per trick won or lost, and the discards and Spitzer at the end of
the hand, so a hand adds `(my card points - opponent's) / 121` in total.

## Episode End

`terminated` when the match is over (`num_hands` hands, more while tied, R20), or after an
illegal action with `illegal_action="terminate"`. Never truncated. When a hand ends,
`info` holds its result (the :class:`~widderkopf_env.rules.HandResult` fields, players as
0/1); `info["seat"]` is always the learner's seat (`"player_0"` or `"player_1"`).

## Illegal actions

`illegal_action="terminate"` (default, as checkers and unmasked learners step random
actions): the episode ends with reward `illegal_reward` and `info["illegal_action"] =
True`. The default `illegal_reward=None` charges the largest loss still possible in the
match: `-64` (`-66` with shaping) for the current hand and every hand still to come, so an
illegal move never pays better than playing on. `illegal_action="raise"`: raise
:class:`~widderkopf_env.rules.IllegalActionError` (a `ValueError`) naming the legal
actions, state unchanged. In both modes a non-integer or an id outside 0..41 raises
`IllegalActionError`, and so does `step()` after the episode ended.

## Arguments

```python
gymnasium.make("Widderkopf-v0", opponent="heuristic", seat="random", num_hands=1,
               reward_shaping=False, illegal_action="terminate", illegal_reward=None,
               render_mode=None, render_perspective=None)
```

* `opponent`: an agent object (`act(view) -> action`, optional `reset(seed)`) or a name
  for :func:`widderkopf_env.load_agent` (`"random"`, `"heuristic"`, ...); an agent class
  raises `TypeError` (pass an instance: `HeuristicAgent()`). At each
  `reset()` it is reseeded (`reset(seed)`) from the env's `np_random`, so all randomness
  flows from `reset(seed=...)`.
* `seat`: the learner's seat: `0`, `1`, `"player_0"`, `"player_1"`, or `"random"` (drawn
  per episode); anything else raises `ValueError` naming `seat` and these values (the
  vector env takes the same).
* `num_hands`, `reward_shaping`, `illegal_action`, `illegal_reward`: as above; `variant`:
  as for the AEC env (`widderkopf_env.env`).
* `render_mode`: `"ansi"` (`render()` returns the whole table as text), `"human"`
  (prints it after every step) or `"rgb_array"` (a picture of the table, `uint8
  (640, 960, 3)`; needs the `[render]` extra; works with
  `gymnasium.wrappers.RecordVideo`). Any other mode raises `ValueError` listing these
  when the env is made.
* `render_perspective`: None (the whole table) or `"player_0"`/`"player_1"`: render only
  what that player may see (R8).

`reset(seed=None, options=None)` takes the AEC env's options (`deal`, `dealer`, `scores`).
`seed` is None or a non-negative int (numpy integers too, as `Game.new` takes them); a
negative or huge one raises `ValueError`, another type `TypeError`, and the env is left
as it was. An opponent that raises or chooses an illegal action raises `OpponentError`
and the env is put back as it was before the call.

## Version History

* v0: initial release.
"""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
from gymnasium import spaces

from .agent import reset_agent
from .cards import NUM_ACTIONS
from .checks import SEATS, check_reset_seed, parse_seat
from .engine_types import IllegalActionError
from .episode import (
    ILLEGAL,
    Episode,
    OpponentError,
    Settings,
    check_not_a_class,
    check_render_mode,
    hand_info,
    new_game,
)
from .game_encoder import encoder_for
from .observation import check_obs_dtype, observation_space
from .registry import load_agent
from .render import RENDER_MODES, check_perspective
from .view import PlayerView


class WidderkopfEnv(gymnasium.Env):
    """Widderkopf against a fixed opponent; see the module documentation."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, opponent="heuristic", seat="random", num_hands: int = 1,
                 reward_shaping: bool = False, illegal_action: str = "terminate",
                 illegal_reward: float | None = None, render_mode: str | None = None,
                 render_perspective=None, variant=None, obs_dtype=np.float32):
        self.settings = settings = Settings(num_hands, reward_shaping, illegal_action,
                                            illegal_reward, variant)
        check_render_mode(render_mode, RENDER_MODES, "WidderkopfEnv")
        check_not_a_class(opponent)
        if isinstance(opponent, str):
            opponent = load_agent(opponent)
        if not callable(getattr(opponent, "act", None)):
            raise ValueError(f"opponent must be an agent with act(view) or an agent name, "
                             f"got {opponent!r}")
        self.opponent = opponent
        self._seat_spec = parse_seat(seat)
        self.num_hands, self.reward_shaping = settings.num_hands, settings.reward_shaping
        self.illegal_action, self.illegal_reward = illegal_action, settings.illegal_reward
        self.render_mode = render_mode
        self.render_perspective = check_perspective(render_perspective)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        self.observation_space = observation_space(self.obs_dtype)
        self._encode = encoder_for(self.obs_dtype)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._episode: Episode | None = None
        self.seat = self._seat_spec if self._seat_spec != "random" else 0
        self._mask = np.zeros(NUM_ACTIONS, np.int8)

    def __copy__(self):
        """An independent copy, as ``copy.deepcopy`` makes (a shallow copy would share the
        match being played with the original)."""
        return copy.deepcopy(self)

    @property
    def game(self):
        """The match being played (full state), or None before ``reset()``."""
        episode = self._episode
        return None if episode is None else episode.game

    # --- gymnasium API ---------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_reset_seed(seed)  # before anything changes
        saved = self._np_random, self._np_random_seed
        state = None if saved[0] is None else saved[0].bit_generator.state
        try:
            super().reset(seed=seed)
            rng = self.np_random
            game = new_game(rng, self.num_hands, options, seed, self.settings.variant)
            seat = int(rng.integers(2)) if self._seat_spec == "random" else self._seat_spec
            reset_agent(self.opponent, int(rng.integers(0, 2**63 - 1)))
            episode = Episode(game, self.settings)
            x, info = self._play_opponent(episode, seat, {"seat": SEATS[seat]})
        except BaseException:  # nothing changes, not even the random stream
            self._np_random, self._np_random_seed = saved
            if state is not None:
                saved[0].bit_generator.state = state
            raise
        self._episode, self.seat = episode, seat
        if self.render_mode == "human":
            self.render()
        obs = self._observe()
        info["action_mask"] = self._mask.copy()
        return obs, info

    def step(self, action):
        episode = self._episode
        if episode is None:
            raise RuntimeError("reset() must be called before step()")
        if episode.over:
            raise IllegalActionError("the episode is over; call reset() to start a new one",
                                     action)
        info = {"seat": SEATS[self.seat]}
        before = len(episode.game.history)
        x, result = episode.apply(action)  # IllegalActionError: nothing has changed
        if result is ILLEGAL:
            illegal = episode.illegal
            info.update(illegal_action=True, action=illegal["action"],
                        legal_actions=illegal["legal_actions"])
            obs = self._observe()
            info["action_mask"] = self._mask.copy()
            return obs, illegal["illegal_reward"], True, False, info
        if result is not None:
            info.update(hand_info(result))
        try:
            y, info = self._play_opponent(episode, self.seat, info)
        except BaseException:
            episode.rewind(before)  # the learner's move is taken back too
            raise
        x += y
        if self.render_mode == "human":
            self.render()
        obs = self._observe()
        info["action_mask"] = self._mask.copy()
        return obs, x if self.seat == 0 else -x, episode.over, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now: int8 (42,), 1 = legal (all zeros once the episode ended)."""
        return self._mask.copy()

    def render(self):
        from .render import render_for_mode

        return render_for_mode(self.game, self.render_mode, self.render_perspective)

    # --- internals ---------------------------------------------------------------------------

    def _observe(self) -> np.ndarray:
        episode = self._episode
        obs, self._mask = self._encode(episode.game, self.seat, episode.illegal is not None)
        return obs

    def _play_opponent(self, episode: Episode, seat: int, info: dict) -> tuple[float, dict]:
        """Play the opponent until ``seat`` is to act or the match is over; player_0's
        reward from those moves, and ``info`` with the result of a hand they ended."""
        opp, agent, x, game = 1 - seat, self.opponent, 0.0, episode.game
        while game.current == opp:
            try:
                action = agent.act(PlayerView.of(game, opp))
            except Exception as err:
                raise OpponentError(f"the opponent {agent!r} raised {type(err).__name__}: "
                                    f"{err}; the env is as it was before this call") from err
            try:
                y, result = episode.apply(action, strict=True)
            except IllegalActionError as err:
                raise OpponentError(f"the opponent {agent!r} chose an illegal action: {err}; "
                                    "the env is as it was before this call") from err
            x += y
            if result is not None:
                info.update(hand_info(result))
        return x, info
