"""Reading the opponent: how likely were their choices of this hand in a sampled world?

Uniform PIMC treats every deal consistent with the play as equally likely. But the
opponent's choices say more than the rules do: a player who names hearts probably holds
hearts, one who cracks holds a strong hand. Given an opponent model, ``P(action | what
the opponent saw)``, the likelihood of a world is the product of the probabilities of
every choice the opponent made this hand, each judged from the view they had then *in
that world*. :func:`likelihood` replays the hand from the world's deal (rebuilt from
the searching player's public record, :meth:`~widderkopf_env.view.PlayerView.initial_deal`)
and multiplies; a world where a recorded action would have been illegal gets 0.
:class:`~.pimc.PIMCAgent` draws candidate worlds uniformly and keeps them in proportion
to these weights (sampling-importance-resampling).

Opponent models take ``(view, action) -> probability``. :class:`HeuristicModel` is the
heuristic bot made soft: its own choice gets ``1 - eps`` and the other legal actions
share ``eps``, with ``eps`` by kind of decision (an escalation or a pass is a strong
signal, a card play a weaker one). Any object with such a ``prob`` method (a network's
softmax, say) can stand in, passed as ``PIMCAgent(model=...)``. A model that also has
``probs(views, actions)`` (one probability per pair, a network's batched forward pass)
weighs many worlds at once through :func:`likelihoods`; :func:`systematic_resample` keeps
worlds in proportion to their weights.
"""

from __future__ import annotations

from widderkopf_env.cards import ESCALATE
from widderkopf_env.deals import deal_to_spec
from widderkopf_env.engine_types import IllegalActionError
from widderkopf_env.rules import ANSWER, DISCARD, TRUMP, Game

from .heuristic import HeuristicAgent

__all__ = ["HeuristicModel", "likelihood", "likelihoods", "opponent_choices",
           "systematic_resample"]


class HeuristicModel:
    """The heuristic's choice with probability ``1 - eps``, the rest spread evenly."""

    #: eps by kind of decision: trump choice, discard, escalate-or-pass, card play
    EPS = {"trump": 0.1, "discard": 0.4, "escalate": 0.05, "play": 0.25}

    def __init__(self, eps: dict | None = None):
        unknown = set(eps or ()) - set(self.EPS)
        if unknown:
            raise ValueError(f"unknown decision kinds {sorted(unknown)}; known: "
                             f"{sorted(self.EPS)}")
        self.eps = {**self.EPS, **(eps or {})}
        for kind, e in self.eps.items():
            if not 0.0 < e <= 1.0:
                raise ValueError(f"eps[{kind!r}] must lie in (0, 1], got {e!r}")
        self.agent = HeuristicAgent()

    def prob(self, view, action: int) -> float:
        n = view.legal.bit_count()
        if n <= 1:
            return 1.0
        choice = self.agent.act(view)
        if view.phase == TRUMP:
            eps = self.eps["trump"]
        elif view.phase == DISCARD:
            eps = self.eps["discard"]
        elif view.phase == ANSWER or ESCALATE in (action, choice):
            eps = self.eps["escalate"]
        else:
            eps = self.eps["play"]
        return 1.0 - eps if action == choice else eps / (n - 1)


def opponent_choices(world: Game, player: int):
    """Yield ``(view, action)`` for every choice of ``player``'s opponent in the current
    hand of ``world``, replayed from the world's deal (raises ``IllegalActionError`` if
    a recorded action is illegal in this world)."""
    opp = 1 - player
    deal = world.deals[world.hand_no]
    g = Game.from_deal(deal_to_spec(deal), dealer=world.dealer, scores=world.scores,
                       variant=world.variant)
    for action in world.history[world.hand_start:]:
        if g.current == opp:
            yield g.view(opp), action
        g.apply(action)


def likelihood(world: Game, player: int, model) -> float:
    """The probability, under ``model``, of the opponent's choices this hand if ``world``
    were the truth (0 where one of them would have been illegal)."""
    w = 1.0
    try:
        for view, action in opponent_choices(world, player):
            if not (view.legal >> action) & 1:
                return 0.0
            w *= model.prob(view, action)
            if w == 0.0:
                return 0.0
    except IllegalActionError:
        return 0.0
    return w


def likelihoods(worlds, player: int, model) -> list[float]:
    """:func:`likelihood` of each of ``worlds``, the model asked once for the choices of all
    of them: ``model.probs(views, actions)`` gives one probability per pair. A forced
    move (one legal action) counts 1 and is not asked."""
    weights, views, actions, owner = [1.0] * len(worlds), [], [], []
    for i, world in enumerate(worlds):
        try:
            pairs = list(opponent_choices(world, player))
        except IllegalActionError:
            weights[i] = 0.0
            continue
        for view, action in pairs:
            if view.legal & (view.legal - 1):
                views.append(view)
                actions.append(action)
                owner.append(i)
    if views:
        for i, p in zip(owner, model.probs(views, actions), strict=True):
            weights[i] *= float(p)
    return weights


def systematic_resample(weights, n: int, rng) -> list[int]:
    """``n`` indices into ``weights``, each kept in proportion to its weight (systematic
    resampling: one uniform draw from ``rng``, a :class:`random.Random`); the first ``n``
    indices where every weight is 0."""
    total = sum(weights)
    if total <= 0.0:
        return list(range(min(n, len(weights))))
    step, u, acc, i, kept = total / n, rng.random() * total / n, weights[0], 0, []
    for _ in range(n):
        while acc < u and i < len(weights) - 1:
            i += 1
            acc += weights[i]
        kept.append(i)
        u += step
    return kept
