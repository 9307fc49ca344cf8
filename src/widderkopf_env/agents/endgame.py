"""EndgameAgent: a policy that hands its last card decisions to the exact solver.

A policy network plays its endgames worse than search: against the exact value of every
card in the true deal (:func:`.solver.solve_actions`) its card choices in the last tricks
lose more card points per decision than PIMC's (``docs/EXPERIMENTS.md``, "Where the
network loses to PIMC"). Late in a hand almost everything is known (the face-up cards,
the cards played, the opponent's voids), so a few sampled worlds solved exactly play it
nearly perfectly, and cheaply (few tricks are left to search).

:class:`EndgameAgent` wraps any agent (the ``policy``): while more than ``tricks``
tricks are left (the open one counted) and for the trump choice, the discard and every
escalation, the policy decides; in the last ``tricks`` tricks, a
:class:`~.pimc.PIMCAgent` without opponent inference decides: ``worlds`` deals drawn
uniformly from those consistent with the player's view, every legal card solved
exactly in each, the best mean score played. Both read only the
:class:`~widderkopf_env.view.PlayerView`, so the wrapper sees nothing the player
may not (R8).

``load_agent("net-endgame")`` is ``net-v2`` (the ``net`` shipped before the current one)
wrapped so (5 tricks, 8 worlds); its card-value network already plays endgames well, so
the gain over it is small (docs/bots.md, "net-endgame").
"""

from __future__ import annotations

from widderkopf_env.agent import reset_agent
from widderkopf_env.cards import ESCALATE, TRICKS
from widderkopf_env.rules import PLAY

from .pimc import PIMCAgent
from .shipped import shipped_net_v2_agent

__all__ = ["EndgameAgent", "net_endgame_agent"]


class EndgameAgent:
    """``policy`` decides, except card play in the last ``tricks`` tricks (exact solver
    over ``worlds`` sampled deals); see the module docstring."""

    def __init__(self, policy, tricks: int = 5, worlds: int = 8, seed: int | None = None,
                 name: str | None = None):
        for what, value, top in (("tricks", tricks, TRICKS), ("worlds", worlds, None)):
            if (isinstance(value, bool) or not isinstance(value, int) or value < 1
                    or (top is not None and value > top)):
                allowed = f"1..{top}" if top else "a positive int"
                raise ValueError(f"{what} must be {allowed}, got {value!r}")
        if not callable(getattr(policy, "act", None)):
            raise TypeError(f"policy must be an agent (with act(view)), got {policy!r}")
        self.policy, self.tricks, self.worlds = policy, tricks, worlds
        self.search = PIMCAgent(seed=seed, samples=worlds, exact_tricks=tricks, crack=False,
                                infer=False)
        self.name = name or f"{getattr(policy, 'name', 'policy')}+endgame"

    def reset(self, seed: int | None = None) -> None:
        reset_agent(self.policy, seed)
        self.search.reset(seed)

    def solves(self, view) -> bool:
        """Whether the solver (not the policy) makes the decision at ``view``."""
        return (view.phase == PLAY and TRICKS - len(view.tricks) <= self.tricks
                and not view.legal >> ESCALATE & 1)

    def act(self, view) -> int:
        return (self.search if self.solves(view) else self.policy).act(view)


def net_endgame_agent(seed: int | None = None) -> EndgameAgent:
    """``load_agent("net-endgame")``: ``net-v2`` (the network it was measured with), its
    last 5 tricks solved exactly over 8 sampled worlds."""
    return EndgameAgent(shipped_net_v2_agent(seed), tricks=5, worlds=8, seed=seed,
                        name="net-endgame")
