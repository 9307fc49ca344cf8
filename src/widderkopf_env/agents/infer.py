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
softmax, say) can stand in, passed as ``PIMCAgent(model=...)``.
"""

from __future__ import annotations

from widderkopf_env.cards import ESCALATE
from widderkopf_env.deals import deal_to_spec
from widderkopf_env.engine_types import IllegalActionError
from widderkopf_env.rules import ANSWER, DISCARD, TRUMP, Game

from .heuristic import HeuristicAgent

__all__ = ["HeuristicModel", "likelihood", "opponent_choices"]


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
