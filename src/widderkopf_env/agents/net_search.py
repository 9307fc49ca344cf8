"""NetSearchAgent: Perfect-Information Monte Carlo search over a shipped network.

:class:`~.pimc.PIMCAgent` searches over the heuristic: its rollouts and its opponent
model are the heuristic's. This bot is the same search with the network ``net``
(:class:`~.net_agent.NetAgent`) in both places:

Worlds
    Deals consistent with the player's view are drawn uniformly
    (:class:`~widderkopf_env.worlds.Resampler`); once the opponent has made choices this
    hand, ``candidates`` times as many are drawn and the worlds kept are drawn from them
    in proportion to the probability of the opponent's choices under the network
    (:func:`~.infer.likelihoods`, :func:`~.infer.systematic_resample`; the model is
    :class:`NetModel`). A world drawn twice is scored once, counted twice.

Scoring the candidate actions
    - card play with at most ``exact_tricks`` tricks left (the open one counted): every
      legal card solved exactly in every world (:func:`~.solver.solve_actions`), as
      ``net-endgame`` does;
    - earlier, and for the trump choice and the discard: the network's ``actions`` most
      preferred actions, each followed in each world by a rollout in which the network
      plays both sides (without escalating) until ``tail_tricks`` tricks are left, then the
      exact solver (:func:`~.solver.solve_value`). The rollouts of all worlds and actions
      advance together: one step asks the network once for the decision of every live
      rollout. The network is deterministic, so one rollout per world and action.

    The score is PIMC's (card points plus ``PIMCAgent.GAME_WEIGHT`` times game points);
    the best mean over the same worlds is played, ties going to the network's preference.

Escalations (R11) and answers to them are the network's own; a single legal action is
played without search. The budget is ``worlds`` per decision, so a seeded agent
(``reset(seed)``) is reproducible on any machine. Everything is read from the
:class:`~widderkopf_env.view.PlayerView` (R8): the worlds and their weights depend only
on what the player saw. :attr:`NetSearchAgent.counts` counts the work done.

``load_agent("net-search")`` is the strong setting, ``load_agent("net-search-fast")``
the fast one (:data:`FAST`); docs/bots.md gives their cost and strength.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from widderkopf_env.cards import ESCALATE, NUM_CARDS, TRICKS, WIN_POINTS, from_bits
from widderkopf_env.game_encoder import encode_view_packed
from widderkopf_env.rules import ANSWER, DISCARD, PLAY, TRUMP
from widderkopf_env.worlds import Resampler

from .infer import likelihoods, systematic_resample
from .pimc import Decision, PIMCAgent
from .shipped import shipped_net_v2_agent
from .solver import game_points, solve_actions, solve_value, world_table

__all__ = ["FAST", "NetModel", "NetSearchAgent", "fast_net_search"]

#: The settings of ``load_agent("net-search-fast")``.
FAST = {"worlds": 8, "actions": 3, "exact_tricks": 7, "tail_tricks": 7, "candidates": 2}


def _number(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float))


def _masked_softmax(z: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = np.where(mask, z, -np.inf)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class NetModel:
    """The network as a batched policy: its choices in rollouts (:meth:`choices`) and the
    probability it gives an observed choice (:meth:`probs`, :meth:`prob`), the opponent
    model of the inference. ``net`` is a :class:`~.net_agent.NetAgent`.

    The probability of a card it plays by value is a softmax of the card values (card
    points) at ``temperature``; of a trump, a discard, an escalation or a pass, the
    policy's softmax; where a card and an escalation are both legal, the policy's chance
    of escalating and the cards share the rest. Each is mixed with ``eps`` of the uniform
    choice, so that no legal choice makes a world impossible. ``calls`` counts the
    forward passes, ``rows`` the views in them."""

    TEMPERATURE = 2.0  #: card points per unit of the card softmax
    EPS = 0.1  #: share of the uniform choice in every probability

    def __init__(self, net, temperature: float = TEMPERATURE, eps: float = EPS):
        if not (hasattr(net, "policy") and hasattr(net, "card_values")):
            raise TypeError(f"net must be a NetAgent (a policy and a card-value network), "
                            f"got {type(net).__name__}")
        if not (_number(temperature) and 0.0 < temperature < float("inf")):
            raise ValueError(f"temperature must be a positive number, got {temperature!r}")
        if not (_number(eps) and 0.0 <= eps <= 1.0):
            raise ValueError(f"eps must be a number in [0, 1], got {eps!r}")
        self.net, self.temperature, self.eps = net, float(temperature), float(eps)
        self.calls = self.rows = 0

    def _encode(self, views) -> tuple[np.ndarray, np.ndarray]:
        pairs = [encode_view_packed(v) for v in views]
        return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs]).astype(bool)

    def _values(self, views, obs) -> np.ndarray:
        self.calls, self.rows = self.calls + 1, self.rows + len(views)
        return self.net.card_values.values_of(views, obs)

    def _logits(self, obs) -> np.ndarray:
        self.calls, self.rows = self.calls + 1, self.rows + len(obs)
        return self.net.policy.logits(obs)

    def preferences(self, views) -> np.ndarray:
        """``(len(views), 42)`` scores by action id, higher preferred, meaningful for the
        legal actions: card values where the network plays cards by value, else the
        policy's logits."""
        obs, mask = self._encode(views)
        by_value = [self.net.plays_cards(v) for v in views]
        out = np.zeros((len(views), mask.shape[1]), np.float32)
        rows = [i for i, b in enumerate(by_value) if b]
        if rows:
            out[rows, :NUM_CARDS] = self._values([views[i] for i in rows], obs[rows])
        rows = [i for i, b in enumerate(by_value) if not b]
        if rows:
            out[rows] = self._logits(obs[rows])
        return out

    def choices(self, views) -> list[int]:
        """The network's action at each view, never escalating (a pass where it must
        answer); ties go to the lowest action id, as :class:`NetAgent` breaks them."""
        obs, mask = self._encode(views)
        mask[:, ESCALATE] = False
        out, by_value, by_policy = [0] * len(views), [], []
        for i, v in enumerate(views):
            legal = np.flatnonzero(mask[i])
            if legal.size == 1:
                out[i] = int(legal[0])
            else:
                (by_value if self.net.plays_cards(v) else by_policy).append(i)
        if by_value:
            z = self._values([views[i] for i in by_value], obs[by_value])
            best = np.where(mask[by_value, :NUM_CARDS], z, -np.inf).argmax(axis=1)
            for i, a in zip(by_value, best, strict=True):
                out[i] = int(a)
        if by_policy:
            z = self._logits(obs[by_policy])
            best = np.where(mask[by_policy], z, -np.inf).argmax(axis=1)
            for i, a in zip(by_policy, best, strict=True):
                out[i] = int(a)
        return out

    def probs(self, views, actions) -> np.ndarray:
        """The probability of ``actions[i]`` at ``views[i]``, for every ``i`` (batched)."""
        n = len(views)
        obs, mask = self._encode(views)
        actions = np.asarray(actions, np.int64)
        by_value = np.fromiter((self.net.plays_cards(v) for v in views), bool, n)
        p = np.ones(n)
        ask = np.flatnonzero(~by_value | mask[:, ESCALATE])  # the policy's rows
        escalate = np.zeros(n)
        if ask.size:
            q = _masked_softmax(self._logits(obs[ask]), mask[ask])
            p[ask] = q[np.arange(ask.size), actions[ask]]
            escalate[ask] = q[:, ESCALATE]
        cards = np.flatnonzero(by_value & (actions < NUM_CARDS))
        if cards.size:
            z = self._values([views[i] for i in cards], obs[cards]) / self.temperature
            q = _masked_softmax(z, mask[cards, :NUM_CARDS])
            p[cards] = (1.0 - escalate[cards]) * q[np.arange(cards.size), actions[cards]]
        return (1.0 - self.eps) * p + self.eps / mask.sum(axis=1)

    def prob(self, view, action: int) -> float:
        """:meth:`probs` of one choice (the opponent-model protocol of :mod:`.infer`)."""
        return 1.0 if view.legal.bit_count() <= 1 else float(self.probs([view], [action])[0])


class NetSearchAgent:
    """PIMC over the network; see the module docstring. ``net``: a
    :class:`~.net_agent.NetAgent` (default: ``net-v2``, the network its settings were
    measured with); ``actions``: how many of the network's preferred actions the rollouts
    compare (None: all legal ones); ``candidates``: uniform worlds drawn per world kept
    (1: no inference); ``searched``: the kinds of decision searched (of
    :data:`SEARCHED`), the network deciding the others; ``temperature`` and ``eps``:
    :class:`NetModel`'s."""

    SEARCHED = ("trump", "discard", "play")
    _KINDS = {TRUMP: "trump", DISCARD: "discard", PLAY: "play"}

    def __init__(self, seed: int | None = None, worlds: int = 32, actions: int | None = 4,
                 exact_tricks: int = 8, tail_tricks: int = 8, candidates: int = 4,
                 searched=SEARCHED, net=None, temperature: float = NetModel.TEMPERATURE,
                 eps: float = NetModel.EPS, name: str = "net-search"):
        for what, value, low, top in (("worlds", worlds, 1, None), ("candidates", candidates, 1, None),
                                      ("exact_tricks", exact_tricks, 0, TRICKS),
                                      ("tail_tricks", tail_tricks, 0, TRICKS),
                                      ("actions", 1 if actions is None else actions, 1, None)):
            if (isinstance(value, bool) or not isinstance(value, int) or value < low
                    or (top is not None and value > top)):
                allowed = f"an int in {low}..{top}" if top is not None else "a positive int"
                raise ValueError(f"{what} must be {allowed}"
                                 f"{' or None' if what == 'actions' else ''}, got {value!r}")
        searched = (searched,) if isinstance(searched, str) else tuple(searched)
        unknown = sorted(set(searched) - set(self.SEARCHED))
        if unknown:
            raise ValueError(f"searched: unknown kinds of decision {unknown}; known: "
                             f"{list(self.SEARCHED)}")
        net = shipped_net_v2_agent(seed) if net is None else net
        self.model = NetModel(net, temperature, eps)
        self.net, self.worlds, self.actions, self.candidates = net, worlds, actions, candidates
        self.exact_tricks, self.tail_tricks = exact_tricks, tail_tricks
        self.searched, self.name = frozenset(searched), name
        #: work done: searched ``decisions``, ``worlds`` drawn, ``scored`` (distinct worlds
        #: scored), ``rollouts``, ``solves``, network ``calls`` and the ``rows`` in them
        self.counts: Counter = Counter()
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng.seed(seed)

    def act(self, view) -> int:
        return self.decide(view).action

    def decide(self, view) -> Decision:
        """The decision at ``view`` with the evidence behind it (:class:`~.pimc.Decision`:
        mean scores of the actions compared, the share of worlds won after the best)."""
        legal = view.legal
        if not legal:
            raise ValueError(f"player {view.player} has no legal action (not their turn)")
        if legal & (legal - 1) == 0:
            return Decision(legal.bit_length() - 1)
        kind = self._KINDS.get(view.phase)
        if view.phase == ANSWER or kind not in self.searched:
            return Decision(self.net.act(view))
        if legal >> ESCALATE & 1 and self.net.policy.act(view) == ESCALATE:
            return Decision(ESCALATE)
        actions = from_bits(legal & ~(1 << ESCALATE))
        if len(actions) == 1:
            return Decision(actions[0])
        prefs = self._count(lambda: self.model.preferences([view])[0])
        actions.sort(key=lambda a: -prefs[a])  # stable: ties keep the lowest id first
        self.counts["decisions"] += 1
        if view.phase == PLAY and TRICKS - len(view.tricks) <= self.exact_tricks:
            return self._exact(view, actions)
        return self._rollouts(view, actions[:self.actions])

    # --- worlds -------------------------------------------------------------------------

    def _count(self, work):
        calls, rows = self.model.calls, self.model.rows
        out = work()
        self.counts["calls"] += self.model.calls - calls
        self.counts["rows"] += self.model.rows - rows
        return out

    def _worlds(self, view) -> list[tuple[object, int]]:
        """``(world, times drawn)``: ``worlds`` draws, each distinct world once."""
        sampler, rng, n = Resampler(view), self._rng, self.worlds
        self.counts["worlds"] += n
        if self.candidates == 1 or not view.hand_history:
            drawn = [(sampler.sample(rng), 1) for _ in range(n)]
        else:
            pool = [sampler.sample(rng) for _ in range(self.candidates * n)]
            weights = self._count(lambda: likelihoods(pool, view.player, self.model))
            kept = Counter(systematic_resample(weights, n, rng))
            drawn = [(pool[i], k) for i, k in sorted(kept.items())]
        self.counts["scored"] += len(drawn)
        return drawn

    def _decision(self, actions, totals, wins, n: int) -> Decision:
        best = max(range(len(actions)), key=lambda i: (totals[i], -i))
        return Decision(actions[best], {a: totals[i] / n for i, a in enumerate(actions)},
                        wins[best] / n)

    def _score(self, x: int, level: int) -> float:
        return x + PIMCAgent.GAME_WEIGHT * game_points(x, level)

    # --- scoring ------------------------------------------------------------------------

    def _exact(self, view, actions: list[int]) -> Decision:
        totals, wins, n = [0.0] * len(actions), [0] * len(actions), 0
        for world, times in self._worlds(view):
            xs = solve_actions(world, {})
            self.counts["solves"] += 1
            for i, a in enumerate(actions):
                totals[i] += times * self._score(xs[a], view.level)
                wins[i] += times * (xs[a] >= WIN_POINTS)
            n += times
        return self._decision(actions, totals, wins, n)

    def _rollouts(self, view, actions: list[int]) -> Decision:
        """Every action in every world, the network playing on in all of them at once."""
        me, hand_no, tail = view.player, view.hand_no, TRICKS - self.tail_tricks
        games, tables, times = [], [], []
        for world, k in self._worlds(view):
            tt = world_table(world) if world.phase == PLAY else None
            for a in actions:
                g = world.clone()
                g.apply(a)
                games.append(g)
                tables.append(tt)
                times.append(k)
        self.counts["rollouts"] += len(games)
        x, live = [0] * len(games), range(len(games))
        while live:
            going = []
            for i in live:
                g = games[i]
                if g.hand_no != hand_no:  # the hand ended (tail_tricks == 0)
                    x[i] = g.results[-1].card_points[me]
                elif g.phase == PLAY and len(g.tricks) >= tail:
                    x[i] = solve_value(g, me, {} if tables[i] is None else tables[i])
                    self.counts["solves"] += 1
                else:
                    going.append(i)
            if going:
                views = [games[i].view(games[i].current) for i in going]
                for i, a in zip(going, self._count(lambda v=views: self.model.choices(v)),
                                strict=True):
                    games[i].apply(a)
            live = going
        m = len(actions)
        totals, wins = [0.0] * m, [0] * m
        for i in range(len(games)):
            totals[i % m] += times[i] * self._score(x[i], view.level)
            wins[i % m] += times[i] * (x[i] >= WIN_POINTS)
        return self._decision(actions, totals, wins, self.worlds)


def fast_net_search(seed: int | None = None) -> NetSearchAgent:
    """``load_agent("net-search-fast")``: :class:`NetSearchAgent` with the :data:`FAST`
    settings."""
    return NetSearchAgent(seed, **FAST, name="net-search-fast")
