"""PIMCAgent: Perfect-Information Monte Carlo search, the strong baseline bot.

At each decision the agent draws worlds consistent with its view (:mod:`widderkopf_env.worlds`:
uniform over the deals that agree with everything it has seen, voids included), scores
every legal action in each world, and picks the action with the best mean score over
the *same* worlds (common random numbers: the comparison between actions is much less
noisy than each mean). It reads only its :class:`~widderkopf_env.view.PlayerView`.

Scoring an action in a world
    - card play with at most ``exact_tricks`` tricks left (the open one included): exact
      minimax over card points with the perfect-information solver (:mod:`.solver`), all
      cards of one world sharing a transposition table;
    - earlier in the hand, and for the trump choice and the discard: the action, then a
      rollout in which both players are the :class:`~.heuristic.HeuristicAgent` (without
      escalations) until ``tail_tricks`` tricks are left, then the exact solver.

    The score of a world is its final card points ``x`` (Spitzer and discards included)
    plus ``GAME_WEIGHT`` times the game points they are worth at the current crack level
    (R18-R19: won or lost, Schneider, Schwarz). Mostly card points, then: in most worlds
    the winner of the hand is settled long before its end, and a pure game-point score
    makes every action tie there; card points are the denser, less noisy signal. (The
    measurement behind this choice is in ``docs/EXPERIMENTS.md``.)

Escalation (R11)
    ``p``, the share of worlds the agent wins after its best action (as due player) or
    after passing (as answering player), is its estimated chance to win the hand. It
    escalates when ``p >= ESCALATE_P[level]``, as the heuristic does with its logistic
    estimate (each escalation by the opponent says their hand is strong too; the rollouts
    do not know that, hence the rising thresholds).

Speed and reproducibility
    The number of worlds per decision is fixed per kind of decision (:attr:`WORLDS`;
    ``samples=n`` uses ``n`` worlds for every kind), so a seeded agent (``reset(seed)``)
    is reproducible. ``time_budget`` (seconds) optionally stops drawing worlds once spent
    (at least ``MIN_WORLDS`` are always scored); that makes decisions depend on the
    machine's speed, so it is off by default. A single legal action is played at once.
    ``python bench/pimc.py`` measures the time per decision by kind of decision.

``docs/EXPERIMENTS.md`` compares this agent with its variants.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from widderkopf_env.cards import ALL_CARDS, ESCALATE, PASS, TRICKS, from_bits
from widderkopf_env.rules import ANSWER, DISCARD, PLAY, TRUMP
from widderkopf_env.worlds import Resampler

from .heuristic import HeuristicAgent
from .infer import HeuristicModel, likelihood
from .solver import game_points, solve_actions, solve_value

__all__ = ["Decision", "PIMCAgent", "uniform_pimc"]


@dataclass
class Decision:
    """What :meth:`PIMCAgent.decide` found: the ``action`` it plays, the mean world score
    of every candidate action it compared (``values``: card points plus ``GAME_WEIGHT``
    times game points, from the deciding player's side; empty when nothing was
    compared, as for a forced move or an answer to an escalation), and ``win_chance``,
    the share of worlds won after the best card or after passing (None where no world
    was scored). Distillation (``train/distill.py``) learns from these."""

    action: int
    values: dict[int, float] = field(default_factory=dict)
    win_chance: float | None = None


class PIMCAgent:
    """Perfect-Information Monte Carlo search; see the module docstring."""

    name = "pimc"

    #: worlds per decision, by kind: exact endgame, card play with rollouts, the first
    #: card or an escalation (the win chance decides the crack), discard, trump choice,
    #: answer to an escalation
    WORLDS = {"exact": 40, "rollout": 24, "first": 48, "discard": 24, "trump": 32,
              "answer": 40}
    GAME_WEIGHT = 2.0  #: card points per game point in the score of a world
    ESCALATE_P = HeuristicAgent.ESCALATE_P  #: estimated win chance needed, by crack level
    MIN_WORLDS = 4  #: worlds scored even when the time budget is spent

    CANDIDATES = 4  #: with inference: uniform candidate worlds drawn per world kept

    def __init__(self, seed: int | None = None, samples: int | None = None,
                 time_budget: float | None = None, exact_tricks: int = 6,
                 tail_tricks: int = 4, crack: bool = True, infer: bool = True,
                 model=None):
        if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int)
                                    or samples < 1):
            raise ValueError(f"samples must be a positive int or None, got {samples!r}")
        self.samples, self.time_budget = samples, time_budget
        self.exact_tricks, self.tail_tricks, self.crack = exact_tricks, tail_tricks, crack
        self.rollout_agent = HeuristicAgent(CRACK=False)
        self.infer = infer
        self.model = (model if model is not None else HeuristicModel()) if infer else None
        self.name = "pimc" if infer else "pimc-uniform"
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng.seed(seed)

    # --- the decision ----------------------------------------------------------------------

    def act(self, view) -> int:
        return self.decide(view).action

    def decide(self, view) -> Decision:
        """The decision at ``view`` with the evidence behind it (see :class:`Decision`)."""
        legal = view.legal
        if not legal:
            raise ValueError(f"player {view.player} has no legal action (not their turn)")
        if legal & (legal - 1) == 0:
            return Decision(legal.bit_length() - 1)
        ph = view.phase
        if ph == PLAY:
            return self._play(view, legal)
        if ph == ANSWER:
            if not self.crack:
                return Decision(PASS)
            p = self._win_chance(view, PASS)
            return Decision(ESCALATE if p >= self.ESCALATE_P[view.level] else PASS,
                            win_chance=p)
        if ph == DISCARD:
            return self._best(view, from_bits(legal), "discard")
        if ph == TRUMP:
            return self._best(view, from_bits(legal), "trump")
        raise ValueError(f"unexpected phase {ph!r}")

    def _play(self, view, legal: int) -> Decision:
        cards = from_bits(legal & ALL_CARDS)
        may_escalate = bool(legal >> ESCALATE & 1) and self.crack
        if len(cards) == 1 and not may_escalate:
            return Decision(cards[0])
        left = TRICKS - len(view.tricks)
        kind = ("exact" if left <= self.exact_tricks else "first" if may_escalate
                else "rollout")
        d = self._best(view, cards, kind)
        if may_escalate and d.win_chance >= self.ESCALATE_P[view.level]:
            d.action = ESCALATE
        return d

    def _n(self, kind: str) -> int:
        return self.WORLDS[kind] if self.samples is None else self.samples

    def _best(self, view, actions: list[int], kind: str) -> Decision:
        """The action with the best mean score over the worlds, and the share of worlds
        the agent wins after it."""
        me, level, weight = view.player, view.level, self.GAME_WEIGHT
        scores = {a: [] for a in actions}
        wins = dict.fromkeys(actions, 0)
        for world in self._worlds(view, kind):
            if kind == "exact":
                xs = solve_actions(world, {})
            else:
                xs = {a: self._rollout(world, a, me) for a in actions}
            for a in actions:
                x = xs[a]
                scores[a].append(x + weight * game_points(x, level))
                wins[a] += x >= 61
        best = max(actions, key=lambda a: (sum(scores[a]), -a))
        n = len(scores[best])
        return Decision(best, {a: sum(scores[a]) / n for a in actions}, wins[best] / n)

    def _win_chance(self, view, action: int) -> float:
        me, won, n = view.player, 0, 0
        for world in self._worlds(view, "answer"):
            won += self._rollout(world, action, me) >= 61
            n += 1
        return won / n

    def _worlds(self, view, kind: str):
        """Yield worlds for ``view`` (stops early when the time budget is spent). With
        inference, ``CANDIDATES`` times as many are drawn uniformly and the worlds kept
        are drawn from them in proportion to their likelihood (:mod:`.infer`)."""
        sampler, rng = Resampler(view), self._rng
        n, budget = self._n(kind), self.time_budget
        if self.infer and view.hand_history:
            yield from self._inferred(sampler, view, n)
            return
        t0 = time.perf_counter()
        for i in range(n):
            if budget is not None and i >= self.MIN_WORLDS and time.perf_counter() - t0 > budget:
                return
            yield sampler.sample(rng)

    def _inferred(self, sampler, view, n: int):
        rng, me, model = self._rng, view.player, self.model
        worlds = [sampler.sample(rng) for _ in range(self.CANDIDATES * n)]
        weights = [likelihood(w, me, model) for w in worlds]
        total = sum(weights)
        if total <= 0.0:  # the model explains no world: fall back to uniform
            yield from worlds[:n]
            return
        # systematic resampling: n worlds, each kept in proportion to its weight
        step, u, acc, i = total / n, rng.random() * total / n, weights[0], 0
        for _ in range(n):
            while acc < u and i < len(worlds) - 1:
                i += 1
                acc += weights[i]
            yield worlds[i]
            u += step

    # --- scoring in one world -------------------------------------------------------------

    def _rollout(self, world, action: int, me: int) -> int:
        """Final card points of ``me`` after ``action`` in ``world``: heuristic play by both
        players until ``tail_tricks`` tricks are left, then exact play."""
        g, hand_no = world.clone(), world.hand_no  # the action may end the hand
        g.apply(action)
        act, tail = self.rollout_agent.act, TRICKS - self.tail_tricks
        while g.hand_no == hand_no and not (g.phase == PLAY and len(g.tricks) >= tail):
            g.apply(act(g.view(g.current)))
        if g.hand_no != hand_no:  # the hand ended in the rollout (tail_tricks == 0)
            return g.results[-1].card_points[me]
        return solve_value(g, me, {})


def uniform_pimc(seed: int | None = None) -> PIMCAgent:
    """``load_agent("pimc-uniform")``: PIMC without opponent inference (every consistent
    deal equally likely), the search bot of earlier versions."""
    return PIMCAgent(seed=seed, infer=False)
