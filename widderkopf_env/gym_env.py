"""
# Widderkopf (single-agent Gymnasium)

| Make               | `gymnasium.make("Widderkopf-v0", opponent="heuristic", seat="random")` |
|--------------------|-------------------------------------------------------------------------|
| Action space       | `Discrete(42)` (engine action ids)                                      |
| Observation space  | `Box(0, 1, (OBS_SIZE,), float32)`                                       |
| Action mask        | `env.action_masks()` (int8, 42); for sb3-contrib `MaskablePPO`           |

One learner plays Widderkopf against a fixed opponent (any
:class:`~widderkopf_env.agents.base.Agent`); the opponent's moves are played inside
`reset()` and `step()` until it is the learner's turn again or the episode is over.
`gymnasium.make("Widderkopf-v0")` works after `import widderkopf_env`;
`gymnasium.make("widderkopf_env:Widderkopf-v0")` imports it itself (handy in subprocesses).

## Action Space

`Discrete(42)`: 0..35 play (or discard) that card, 36..39 name trumps C, S, H, D, 40
escalate the crack, 41 pass. Only the ids in `action_masks()` are legal. Python ints and
numpy integer scalars are accepted.

## Observation Space

The learner's observation vector of the AEC env (`Box(0, 1, (OBS_SIZE,), float32)`; the
layout is in :mod:`widderkopf_env.observation` and README.md). It holds nothing the
learner's :class:`~widderkopf_env.view.PlayerView` does not, so no hidden card (R8).
`action_masks()` gives the legal actions now (1 = legal); after the episode has ended it is
all zeros (reset first: vector envs do that automatically).

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
  for :func:`widderkopf_env.agents.load_agent` (`"random"`, `"heuristic"`, ...). At each
  `reset()` it is reseeded (`reset(seed)`) from the env's `np_random`, so all randomness
  flows from `reset(seed=...)`.
* `seat`: the learner's seat: `0`, `1`, `"player_0"`, `"player_1"`, or `"random"` (drawn
  per episode).
* `num_hands`, `reward_shaping`, `illegal_action`, `illegal_reward`: as above.
* `render_mode`: `"ansi"` (`render()` returns the whole table as text), `"human"`
  (prints it after every step) or `"rgb_array"` (a picture of the table, `uint8
  (640, 960, 3)`; needs the `[render]` extra; works with
  `gymnasium.wrappers.RecordVideo`). Other modes are accepted, and `render()` then only
  warns.
* `render_perspective`: None (the whole table) or `"player_0"`/`"player_1"`: render only
  what that player may see (R8).

`reset(seed=None, options=None)` takes the AEC env's options (`deal`, `dealer`, `scores`).

## Version History

* v0: initial release.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from .aec_env import (
    AGENTS,
    RewardLedger,
    check_action,
    check_settings,
    hand_info,
    illegal_penalty,
    new_game,
)
from .agents import load_agent, reset_agent
from .cards import NUM_ACTIONS
from .observation import OBS_SIZE, encode_game
from .render import RENDER_MODES, check_perspective
from .rules import IllegalActionError, parse_player
from .view import PlayerView


class WidderkopfEnv(gymnasium.Env):
    """Widderkopf against a fixed opponent; see the module documentation."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, opponent="heuristic", seat="random", num_hands: int = 1,
                 reward_shaping: bool = False, illegal_action: str = "terminate",
                 illegal_reward: float | None = None, render_mode: str | None = None,
                 render_perspective=None):
        check_settings(num_hands, reward_shaping, illegal_action, illegal_reward)
        if isinstance(opponent, str):
            opponent = load_agent(opponent)
        if not callable(getattr(opponent, "act", None)):
            raise ValueError(f"opponent must be an agent with act(view) or an agent name, "
                             f"got {opponent!r}")
        self.opponent = opponent
        self._seat_spec = seat if seat == "random" else parse_player(seat)
        self.num_hands, self.reward_shaping = num_hands, reward_shaping
        self.illegal_action, self.illegal_reward = illegal_action, illegal_reward
        self.render_mode = render_mode
        self.render_perspective = check_perspective(render_perspective)
        self.observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game = None
        self.seat = self._seat_spec if self._seat_spec != "random" else 0
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self._over = True

    # --- gymnasium API ---------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        saved = self._np_random, self._np_random_seed
        super().reset(seed=seed)
        rng = self.np_random
        try:
            game = new_game(rng, self.num_hands, options)  # restores rng's state on error
        except ValueError:  # a bad option changes nothing, not even the rng
            self._np_random, self._np_random_seed = saved
            raise
        seat = int(rng.integers(2)) if self._seat_spec == "random" else self._seat_spec
        reset_agent(self.opponent, int(rng.integers(0, 2**63 - 1)))
        self.game, self.seat, self._over = game, seat, False
        self._ledger = RewardLedger(self.reward_shaping)
        self._info = {"seat": AGENTS[seat]}
        self._play_opponent()
        info, self._info = self._info, None
        if self.render_mode == "human":
            self.render()
        return self._observe(), info

    def step(self, action):
        game = self.game
        if game is None:
            raise RuntimeError("reset() must be called before step()")
        if self._over:
            raise IllegalActionError("the episode is over; call reset() to start a new one",
                                     action)
        action = check_action(action)
        if not (game.legal_mask >> action) & 1:
            if self.illegal_action == "raise":
                game.apply(action)  # raises IllegalActionError naming the legal actions
            penalty = illegal_penalty(game, self.illegal_reward, self.reward_shaping)
            self._over = True
            info = {"seat": AGENTS[self.seat], "illegal_action": True, "action": action,
                    "legal_actions": game.legal_actions()}
            return self._observe(), penalty, True, False, info
        self._info = {"seat": AGENTS[self.seat]}
        game.apply(action)
        x = self._settle() + self._play_opponent()
        info, self._info = self._info, None
        self._over = over = game.current is None
        if self.render_mode == "human":
            self.render()
        return self._observe(), x if self.seat == 0 else -x, over, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now: int8 (42,), 1 = legal (all zeros once the episode ended)."""
        return self._mask.copy()

    def render(self):
        from .render import render_for_mode

        return render_for_mode(self.game, self.render_mode, self.render_perspective)

    # --- internals ---------------------------------------------------------------------------

    def _observe(self) -> np.ndarray:
        obs, self._mask = encode_game(self.game, self.seat, self._over)
        return obs

    def _play_opponent(self) -> float:
        """Play the opponent until the learner is to act or the match is over.

        Returns player_0's reward from those moves.
        """
        game, opp, agent = self.game, 1 - self.seat, self.opponent
        x = 0.0
        while game.current == opp:
            action = agent.act(PlayerView.of(game, opp))
            try:
                game.apply(action)
            except IllegalActionError as err:
                raise RuntimeError(f"the opponent {agent!r} chose an illegal action: {err}") from err
            x += self._settle()
        return x

    def _settle(self) -> float:
        """player_0's reward for the move just applied (game points and shaping)."""
        x, result = self._ledger.settle(self.game)
        if result is not None:
            self._info.update(hand_info(result))
        return x
