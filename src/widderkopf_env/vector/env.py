"""``WidderkopfVectorEnv``: N Widderkopf games as one ``gymnasium.vector.VectorEnv``.

``gymnasium.make_vec("Widderkopf-v0", num_envs=N, **kwargs)`` returns it (it is the
``vector_entry_point`` of ``Widderkopf-v0``). All N games live in one
:class:`~widderkopf_env.vector.engine.VecGame`, stepped by the compiled core where it is
built (in self-play the whole step, resets included, is one C call:
:mod:`~widderkopf_env.vector.selfplay`) and by the rules' reference otherwise (the
pure-Python fallback of :mod:`~widderkopf_env.vector.engine`).

Spaces: observations ``Box(0, 1, (N, 540), float32)``, the scalar encoder's vector per
game; actions ``MultiDiscrete([42] * N)``, the engine's action ids. ``obs_dtype=np.uint8``
gives the compact form, ``Box(0, 255, (N, 540), uint8)``: the 0/1 entries stay 0/1 and
the nine scaled numbers ``x`` are written as ``round(x * 255)``
(:func:`~widderkopf_env.observation.to_compact`), a quarter of the bytes.

Copies (Gymnasium's ``copy`` convention, as in its ``SyncVectorEnv``): with
``copy=True`` (the default) every ``reset`` and ``step`` returns fresh arrays, so a
replay buffer may keep them. ``copy=False`` is the fast path: the observations and
``info["action_mask"]`` are then written in place into two arrays the env allocates
once, and each ``step`` and ``reset`` overwrites the arrays the previous one returned
(copy what you keep). Rewards, terminations, truncations, the other info arrays and
``info["final_obs"]`` rows are fresh arrays either way.

Threads: ``num_threads`` (default 1) splits the batch over that many threads inside
each step where the compiled core runs (:data:`~widderkopf_env.vector.engine.ACCELERATED`;
the GIL is released); each game is stepped by one thread, so the results are the same
for any count. Between steps the helper threads spin up to two milliseconds for the next
one before they sleep: give them cores of their own.

Masks: ``info["action_mask"]`` (N, 42) int8, at reset and after every step, the legal
actions for the observation it comes with (never all zeros); :meth:`action_masks`
returns the same array (for sb3-contrib's ``MaskablePPO``).

Autoreset: same-step (``metadata["autoreset_mode"] == AutoresetMode.SAME_STEP``). When
sub-env ``i`` ends, the step returns the first observation of its next episode; the last
observation of the ended one is ``info["final_obs"][i]`` (an object array, None for the
others, as gymnasium's ``SyncVectorEnv`` builds it) and its info is
``info["final_info"]`` (a dict of arrays; ``info["_final_obs"]`` and
``info["_final_info"]`` mark the ended sub-envs).

Opponents (``opponent=``): ``"self"`` (self-play, below), ``"random"`` (vectorised), a
policy function ``f(obs, mask) -> actions`` (batched), or an agent name / object (one
game at a time, slower); see :mod:`widderkopf_env.vector.opponents`. With an opponent,
the learner plays ``seat`` (0, 1 or ``"random"``, drawn per episode, ``info["seat"]``),
the opponent's moves are played inside ``reset`` and ``step``, and rewards are those of
the single env :class:`~widderkopf_env.gym_env.WidderkopfEnv`: the learner's game
points (and shaping) from its move and the opponent's replies.

Self-play (``opponent="self"``): every decision of both seats is returned. The
observation of sub-env ``i`` is from the view of the player to act, ``info["player"][i]``
(0 or 1). ``reward[i]`` is what the move just made earned *the player who made it*: the
game points of a hand it ended (``+value`` or ``-value``) and with
``reward_shaping=True`` the shaping of the single env. ``info["rewards"]`` (N, 2) holds
that step's reward of each seat (zero-sum: player_0 gets ``x``, player_1 ``-x``, as the
AEC env's ``rewards``); summed over an episode, column ``p`` is player ``p``'s own game
points, ``Game.returns()[p]`` (plus shaping). A learner playing both seats should credit
each seat's transitions from that column: the mover's ``reward`` alone misses the points
a seat loses on the other seat's moves.

Hand results: when a hand ends, the :class:`~widderkopf_env.rules.HandResult` fields
(``winner``, ``value``, ``card_points``, ``scores``, ...) are in ``info`` with the usual
``_name`` masks (in ``info["final_info"]`` for the hand that ended an episode).

Variants: ``variant=`` (a name in ``widderkopf_env.VARIANTS`` or a
:class:`~widderkopf_env.cards.Variant`; None, the default, is the full game) plays that
variant in every sub-env, as the single env with the same ``variant``: its deck, hand
cards and piles, its number of tricks, its thresholds and hand values, and reward shaping
divided by its card-point total. The observation keeps its 540 entries (cards outside
the deck are always 0). An unknown name raises ``ValueError`` naming the variants.

Seeding: ``reset(seed=s)`` deals sub-env ``i`` the match of ``Game.new(seed=s + i,
num_hands=num_hands, variant=variant)`` (every hand of it); every later episode
(autoresets and unseeded ``reset()`` calls) is dealt by the deal source's counter-based
generator keyed from ``s`` (:mod:`~widderkopf_env.vector.deals`: each game's deals depend
on the key, the game and how many it has drawn), and two generators seeded from ``s``
draw seats and drive the random opponent. Same seed and actions, same batch trajectory,
on the compiled core and the pure-Python fallback and with any ``num_threads``; later episodes
differ from the first. ``seed`` may also be a list of N ints
(sub-env ``i`` gets ``Game.new(seed=seed[i])``). Seeds are non-negative ints (numpy
integers too) of at most 4096 bits: a negative or huge one raises ``ValueError``,
another type ``TypeError``, and the env is left as it was.

Errors change nothing: a ``reset`` or ``step`` that raises ``ValueError``, ``TypeError``
or ``OpponentError`` leaves every game, generator, seat and mask as it was before the
call. An opponent (a policy function or an agent) that raises, returns something that is
not one integer action per game, or chooses an illegal action raises
:class:`~widderkopf_env.episode.OpponentError` (the single env's error); the whole batch
is rolled back, the learner's moves included, and the env stays usable (an agent's own
internal state is the agent's, as in the single env). ``copy.copy`` and
``copy.deepcopy`` give an independent env (the opponent is copied too). The arguments
are checked as the single env checks them: the same mistake (a bad ``seat`` or
``render_mode``, an agent class as ``opponent``) gets the same error.

Illegal actions: ``illegal_action="terminate"`` (default, as the single env) ends the
offending sub-envs with ``illegal_reward`` (default: the largest loss still possible,
as the single env) and ``info["illegal_action"]``; ``"raise"`` raises
:class:`~widderkopf_env.rules.IllegalActionError` naming the sub-env, the action and its
legal actions, and leaves the whole batch unchanged. Actions that are not integers or
lie outside 0..41 always raise.
"""

from __future__ import annotations

import copy

import numpy as np
from gymnasium import error, spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..cards import MAX_HAND_VALUE, NUM_ACTIONS, action_name
from ..checks import check_reset_seed, parse_seat, show
from ..episode import OpponentError, Settings, check_render_mode
from ..observation import OBS_SIZE, check_obs_dtype, observation_space
from ..rules import IllegalActionError, Phase
from .deals import DealSource
from .encode import encode
from .engine import OVER, VecGame
from .infos import final_info, merge, result_info
from .ledger import VecRewardLedger
from .opponents import RandomOpponent, make_opponent
from .selfplay import FusedStep

_AS_IT_WAS = "the batch is as it was before this call"
#: The most threads one vector env steps on.
MAX_THREADS = 64


def as_single(seed) -> bool:
    """Whether ``seed`` is one seed (an integer), not a list of N."""
    return not isinstance(seed, (list, tuple, np.ndarray)) or (
        isinstance(seed, np.ndarray) and seed.ndim == 0)


#: The most games one vector env steps (its arrays are allocated up front).
MAX_NUM_ENVS = 1 << 16


class WidderkopfVectorEnv(VectorEnv):
    """N Widderkopf games stepped together; see the module documentation."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, opponent="heuristic", seat="random",
                 num_hands: int = 1, reward_shaping: bool = False,
                 illegal_action: str = "terminate", illegal_reward: float | None = None,
                 render_mode: str | None = None, variant=None, num_threads: int = 1,
                 obs_dtype=np.float32, copy: bool = True):
        settings = Settings(num_hands, reward_shaping, illegal_action, illegal_reward, variant)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or not 1 <= num_envs <= MAX_NUM_ENVS:
            raise ValueError(f"num_envs must be an int in 1..{MAX_NUM_ENVS:,}, got "
                             f"{num_envs!r}")
        check_render_mode(render_mode, (), "WidderkopfVectorEnv (render single games "
                          "with widderkopf_env.render)")
        n = self.num_envs = int(num_envs)
        self.num_hands, self.reward_shaping = settings.num_hands, settings.reward_shaping
        self.illegal_action, self.illegal_reward = illegal_action, settings.illegal_reward
        self.variant = settings.variant
        self.render_mode = None
        self.obs_dtype = check_obs_dtype(obs_dtype)
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) \
                or not 1 <= num_threads <= MAX_THREADS:
            raise ValueError(f"num_threads must be an int in 1..{MAX_THREADS}, got "
                             f"{num_threads!r}")
        self.num_threads = int(num_threads)
        if not isinstance(copy, bool):
            raise TypeError(f"copy must be True or False, got {copy!r}")
        self.copy = copy  # fresh arrays from reset and step (else the env's own buffers)
        self.single_observation_space = observation_space(self.obs_dtype)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._deals = DealSource(n, variant=self.variant)
        self.game = VecGame(n, self._deals, self.variant)
        self.game.num_threads = self.num_threads
        self._seed_rngs(None)
        self.self_play = isinstance(opponent, str) and opponent == "self"
        self._info_key = "player" if self.self_play else "seat"  # who each row is seen by
        self._seat_spec = parse_seat(seat)
        if self.self_play and self._seat_spec != "random":
            raise ValueError(f"seat has no meaning with opponent='self' (both seats play), "
                             f"got seat={seat!r}")
        self.opponent = make_opponent(opponent, n, self._opp_rng)
        # only these opponents can fail after the learner's moves: steps then keep a copy
        self._fallible = not (self.self_play or isinstance(self.opponent, RandomOpponent))
        self.seat = np.zeros(n, np.int64)
        self._ledger = VecRewardLedger(n, reward_shaping)
        self._mask = np.zeros((n, NUM_ACTIONS), np.int8)
        self._obs = np.zeros((n, OBS_SIZE), self.obs_dtype)  # written in place (Copies)
        self._fused = FusedStep(n, self.obs_dtype) if self.self_play and \
            self.game.accelerated else None
        self._started = False

    # --- gymnasium API ---------------------------------------------------------------------

    def reset(self, *, seed=None, options=None):
        """Start a new episode in every sub-env; see the module documentation (seeding).

        ``options`` are not supported (per-game deals: use the engine, ``VecGame``)."""
        self._check_open()
        if options is not None:
            raise ValueError("WidderkopfVectorEnv.reset takes no options (got "
                             f"{options!r}); deal chosen games with widderkopf_env.Game")
        everyone = self.game.all
        seeds = None if seed is None else self._seeds(seed)  # before anything changes
        saved = self._snapshot()
        try:
            if seeds is None:
                self._deals.unseed(everyone)  # new deals from the generator
            else:
                self._seed_rngs(seeds[0] if as_single(seed) else seeds)
                self._deals.seed(everyone, seeds)
            self._start(everyone)
            obs, info = self._observe()
        except BaseException:
            self._restore(saved)
            raise
        self._started = True
        return obs, info

    def step(self, actions):
        self._check_open()
        if not self._started:
            raise RuntimeError("reset() must be called before step()")
        if self._fused is not None and isinstance(actions, np.ndarray) \
                and actions.dtype == np.int64 and actions.shape == (self.num_envs,) \
                and actions.flags.c_contiguous:
            out = self._step_self(actions)  # one C call; None when an action is illegal
            if out is not None:
                return out
        actions = self._check_actions(actions)
        bad = self.game.illegal(self.game.all, actions)
        if bad.any() and self.illegal_action == "raise":
            self._raise_illegal(int(np.flatnonzero(bad)[0]), actions)
        saved = self._snapshot() if self._fallible else None
        try:
            return self._step(actions, bad)
        except BaseException:
            if saved is not None:
                self._restore(saved)
            raise

    def _step(self, actions, bad):
        g, n = self.game, self.num_envs
        everyone = g.all
        counted = g.res_count.copy()
        mover = g.current.copy()
        any_bad = bool(bad.any())
        ok = everyone[~bad] if any_bad else everyone
        g.apply(ok, actions[ok] if any_bad else actions)
        x0 = np.zeros(n)
        every = ok if any_bad else slice(None)  # a slice: no gathers on the common path
        x0[every] = self._ledger.settle(g, every)
        if not self.self_play:
            x0 = x0 + self._play_opponents(ok)
        penalty = self._penalty() if any_bad else None
        if self.self_play:
            seat_rewards = np.stack([x0, -x0], axis=1)
            if penalty is not None:
                seat_rewards[bad] = 0.0
                seat_rewards[bad, mover[bad]] = penalty[bad]
            reward = seat_rewards[everyone, mover]
        else:
            reward = np.where(self.seat == 0, x0, -x0)
            if penalty is not None:
                reward[bad] = penalty[bad]
        terminated = (g.phase == OVER) | bad
        truncated = np.zeros(n, bool)
        hand_over = g.res_count != counted
        step_info = result_info(self.game, hand_over) if hand_over.any() else {}
        if bad.any():
            step_info["illegal_action"], step_info["_illegal_action"] = bad, bad
        if self.self_play:
            step_info["rewards"] = seat_rewards
        ended = everyone[terminated]
        final = None
        if len(ended):
            viewer = mover if self.self_play else self.seat
            final_obs, _ = encode(g, ended, viewer[ended], True, dtype=self.obs_dtype)
            final = final_info(ended, final_obs, step_info, viewer, self._info_key, n)
            self._deals.unseed(ended)
            self._start(ended)
        obs, info = self._observe()
        return obs, reward, terminated, truncated, merge(info, step_info, terminated,
                                                                final)

    def _step_self(self, actions):
        """:meth:`_step` in self-play on the compiled core, in one C call
        (:class:`~.selfplay.FusedStep`); None, with nothing changed, if an action is
        illegal (then :meth:`_step` runs)."""
        g = self.game
        moved = self._fused(g, actions, self._obs, self._mask, self._ledger, self._deals,
                            self.num_hands)
        if moved is None:
            return None
        step_info = {"rewards": moved.rewards}
        if moved.hand_over.any():
            step_info.update(result_info(self.game, moved.hand_over))
        final = None
        if len(moved.ended):
            final = final_info(moved.ended, moved.final_obs, step_info, moved.mover,
                               self._info_key, self.num_envs)
            self._deals.unseed(moved.ended)
        info = self._info(np.maximum(g.current, 0))
        return (self._out(self._obs), moved.reward, moved.terminated,
                np.zeros(self.num_envs, bool), merge(info, step_info, moved.terminated, final))

    def action_masks(self) -> np.ndarray:
        """The legal actions of the current observations: (N, 42) int8, 1 = legal."""
        return self._mask.copy()

    def close_extras(self, **kwargs) -> None:
        self.game = None

    def __copy__(self):
        """An independent copy, as ``copy.deepcopy`` makes (a shallow copy would share the
        games being played with the original)."""
        return copy.deepcopy(self)

    # --- internals ---------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise error.ClosedEnvironmentError("the vector env is closed")

    def _seed_rngs(self, entropy) -> None:
        """From one seed: a generator for seats (``np_random``), one for the opponent,
        and the deal source's key, so that the deals depend on neither."""
        deal_seq, opp_seq, key_seq = np.random.SeedSequence(entropy).spawn(3)
        self._rng, self._opp_rng = np.random.default_rng(deal_seq), np.random.default_rng(opp_seq)
        self._np_random, self._np_random_seed = self._rng, entropy
        self._deals.rekey(int(key_seq.generate_state(1, np.uint64)[0]))

    def _seeds(self, seed) -> list[int]:
        """The match seed of every sub-env: ``s + i`` for an int ``s``, or the N ints of a
        list; ``ValueError``/``TypeError`` as :func:`~widderkopf_env.checks.check_reset_seed`."""
        n = self.num_envs
        if as_single(seed):
            first = check_reset_seed(seed)
            return [check_reset_seed(first + i) for i in range(n)]
        if not isinstance(seed, (list, tuple, np.ndarray)):
            raise TypeError(f"seed must be None, a non-negative int or a list of {n} such "
                            f"ints, got {type(seed).__name__} {show(seed)}")
        if len(seed) != n:
            raise ValueError(f"seed must be None, a non-negative int or a list of {n} such "
                             f"ints, got a list of {len(seed)}")
        if any(s is None for s in seed):
            raise TypeError(f"seed must be None, a non-negative int or a list of {n} such "
                            f"ints, got a list holding None")
        return [check_reset_seed(s) for s in seed]

    def _snapshot(self) -> tuple:
        """Everything a step or reset may change (games, rewards, deals, seats, masks and
        the generators with their states), for :meth:`_restore`."""
        g, rngs = self.game, (self._rng, self._opp_rng)
        return ({k: v.copy() for k, v in vars(g).items() if isinstance(v, np.ndarray)},
                self._ledger.hands.copy(), self._ledger.shaped.copy(), self._deals.seeds[:],
                self._deals.seeded.copy(), (self._deals.key, self._deals.draws.copy()),
                self.seat.copy(), self._mask.copy(), rngs,
                [r.bit_generator.state for r in rngs], self._np_random_seed,
                getattr(self.opponent, "rng", None))

    def _restore(self, saved: tuple) -> None:
        (arrays, hands, shaped, seeds, seeded, (key, draws), seat, mask, rngs, states,
         entropy, opp_rng) = saved
        for name, value in arrays.items():
            setattr(self.game, name, value)
        self._ledger.hands, self._ledger.shaped = hands, shaped
        self._deals.seeds, self._deals.seeded = seeds, seeded
        self._deals.rekey(key)
        self._deals.draws[:] = draws
        self.seat, self._mask = seat, mask
        for rng, state in zip(rngs, states, strict=True):
            rng.bit_generator.state = state
        self._rng, self._opp_rng = rngs
        self._np_random, self._np_random_seed = rngs[0], entropy
        if opp_rng is not None:
            self.opponent.rng = opp_rng

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be {self.num_envs} integer action ids (shape "
                f"({self.num_envs},)), got an array of shape {a.shape} and dtype {a.dtype}")
        out = (a < 0) | (a >= NUM_ACTIONS)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            err = IllegalActionError(f"sub-env {i}: action {int(a[i])} is out of range "
                                     f"0..{NUM_ACTIONS - 1}", int(a[i]))
            err.sub_env = i
            raise err
        return a.astype(np.int64)

    def _raise_illegal(self, i: int, actions) -> None:
        g, a = self.game, int(actions[i])
        legal = g.legal_actions(i)
        names = ", ".join(f"{x} ({action_name(x)})" for x in legal)
        err = IllegalActionError(
            f"sub-env {i}: illegal action {a} ({action_name(a)}) for player "
            f"{int(g.current[i])} in phase {Phase(int(g.phase[i])).name}; legal: {names}; "
            "the batch is unchanged", a, Phase(int(g.phase[i])), legal)
        err.sub_env = i
        raise err

    def _penalty(self) -> np.ndarray:
        """The reward of an illegal action per sub-env (the single env's rule)."""
        if self.illegal_reward is not None:
            return np.full(self.num_envs, float(self.illegal_reward))
        left = np.maximum(self.game.num_hands - self.game.hand_no, 1)
        return -((MAX_HAND_VALUE + (2 if self.reward_shaping else 0)) * left).astype(float)

    def _start(self, idx) -> None:
        """New matches in sub-envs ``idx`` (deals, seats, opponents' first moves)."""
        self.game.new_matches(idx, self._deals.first_dealers(idx), self.num_hands)
        self._ledger.restart(idx)
        if self.self_play:
            return
        if self._seat_spec == "random":
            self.seat[idx] = self._rng.integers(0, 2, len(idx))
        else:
            self.seat[idx] = self._seat_spec
        self.opponent.reset(idx, self._opp_rng)
        self._play_opponents(idx)

    def _play_opponents(self, idx) -> np.ndarray:
        """Play the opponent in games ``idx`` until the learner is to act or the match is
        over; player_0's rewards from those moves (N,), summed in move order."""
        g = self.game
        x = np.zeros(self.num_envs)
        while True:
            todo = idx[g.current[idx] == 1 - self.seat[idx]]
            if not len(todo):
                return x
            acts = self._opponent_actions(todo)
            wrong = g.illegal(todo, np.clip(acts, 0, NUM_ACTIONS - 1)) | (acts < 0) \
                | (acts >= NUM_ACTIONS)
            if wrong.any():
                r = int(np.flatnonzero(wrong)[0])
                raise OpponentError(f"the opponent chose the illegal action {int(acts[r])} in "
                                    f"sub-env {int(todo[r])}; legal: "
                                    f"{g.legal_actions(int(todo[r]))}; {_AS_IT_WAS}")
            g.apply(todo, acts)
            x[todo] += self._ledger.settle(g, todo)

    def _opponent_actions(self, todo) -> np.ndarray:
        """The opponent's action (int64) in each game of ``todo``; ``OpponentError`` if it
        raises or does not return one integer action per game."""
        try:
            acts = self.opponent.actions(self.game, todo, 1 - self.seat[todo])
        except Exception as err:
            raise OpponentError(f"the opponent {self.opponent.describe()} raised "
                                f"{type(err).__name__}: {err}; {_AS_IT_WAS}") from err
        acts = np.asarray(acts)
        if acts.shape != (len(todo),) or acts.dtype.kind not in "iu":
            raise OpponentError(f"the opponent {self.opponent.describe()} must return "
                                f"{len(todo)} integer actions, got an array of shape "
                                f"{acts.shape} and dtype {acts.dtype}; {_AS_IT_WAS}")
        return acts.astype(np.int64)

    def _observe(self):
        g = self.game
        viewer = np.maximum(g.current, 0) if self.self_play else self.seat
        obs, self._mask = encode(g, g.all, viewer, out=self._obs, mask_out=self._mask,
                                 dtype=self.obs_dtype)
        return self._out(obs), self._info(viewer)

    def _out(self, array: np.ndarray) -> np.ndarray:
        """``array`` (one of the env's buffers) as returned: a copy unless ``copy=False``."""
        return array.copy() if self.copy else array

    def _info(self, viewer) -> dict:
        info = {"action_mask": self._out(self._mask),
                "_action_mask": np.ones(self.num_envs, bool)}
        key = self._info_key
        info[key], info["_" + key] = viewer.copy(), info["_action_mask"]
        return info
