"""OpenSpiel's ISMCTS bot as one of our agents: ``load_agent("ismcts")``.

Needs the ``[openspiel]`` extra. At each decision the agent builds the OpenSpiel state of
its view (:func:`~.openspiel_state.view_state`: the current hand as a one-hand game of
the view's variant, in one world drawn with :class:`~widderkopf_env.worlds.Resampler`, whose hidden
cards ISMCTS then resamples through ``resample_from_infostate``) and runs OpenSpiel's
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with its constructor's defaults
(unlimited world samples, max-visit-count final policy, UCT child selection,
information-state keys), a random-rollout evaluator (one rollout) and ``uct_c=2``, for
``simulations`` simulations (default 200; ``load_agent("ismcts-fast")``: 50, a quarter of
the search time per decision, named ``ismcts-fast`` in results). It optimises the hand's game points, not the
match score. Forced moves are played without search. Where the one-hand game's trump
chooser differs from the match's (R9: unequal scores, the leader chooses), the agent
names trumps as the heuristic bot does.
"""

from __future__ import annotations

import random

import numpy as np

from widderkopf_env.engine_types import Phase

from .heuristic import HeuristicAgent
from .openspiel_state import one_hand_game, view_state

#: The simulations per move of ``load_agent("ismcts-fast")``.
FAST_SIMULATIONS = 50


class ISMCTSAgent:
    """OpenSpiel's ISMCTS (see the module documentation); seeded by ``seed``."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, simulations: int = 200, uct_c: float = 2.0):
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        one_hand_game("tiny")  # a clear ImportError without the [openspiel] extra

        self.simulations, self.uct_c = simulations, float(uct_c)
        self._fallback = HeuristicAgent()
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._np = np.random.RandomState(self._rng.getrandbits(32))

    def root_state(self, view):
        """The OpenSpiel state of ``view``'s hand in one world consistent with it."""
        return view_state(view, self._rng)

    def act(self, view) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        state = self.root_state(view)
        if view.phase == Phase.TRUMP and state.current_player() != view.player:
            return self._fallback.act(view)
        from open_spiel.python.algorithms import ismcts, mcts

        bot = ismcts.ISMCTSBot(
            state.get_game(), mcts.RandomRolloutEvaluator(1, self._np), self.uct_c,
            self.simulations, random_state=self._np)
        bot.set_resampler(lambda s, player: s.resample_from_infostate(player, self._np.uniform))
        return int(bot.step(state))


def fast_ismcts(seed: int | None = None) -> ISMCTSAgent:
    """``load_agent("ismcts-fast")``: :data:`FAST_SIMULATIONS` simulations per move."""
    agent = ISMCTSAgent(seed, simulations=FAST_SIMULATIONS)
    agent.name = "ismcts-fast"
    return agent
