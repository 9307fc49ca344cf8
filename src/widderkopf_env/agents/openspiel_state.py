"""From a :class:`~widderkopf_env.view.PlayerView` to OpenSpiel's ``python_widderkopf``:
the state and the information-state string of the view's hand, for the agents that play
OpenSpiel's algorithms (:mod:`.ismcts`, :mod:`.mccfr`). Needs the ``[openspiel]`` extra.

The hand is played as a one-hand game of the view's variant (the dealer of the hand as
the first dealer), so a hand late in a match has the same information state as the same
hand played alone: the match score is not part of it. Where the one-hand game's trump
chooser differs from the match's (R9: unequal scores, the leader chooses), the state's
player to act is not the view's player.
"""

from __future__ import annotations

import functools
import random

from widderkopf_env.worlds import Resampler


@functools.cache
def one_hand_game(variant_name: str):
    """``python_widderkopf`` of a variant, one hand (loaded once per process)."""
    # registers python_widderkopf; without the [openspiel] extra, an ImportError that
    # names it
    from widderkopf_env import openspiel

    return openspiel.pyspiel.load_game("python_widderkopf", {"variant": variant_name})


def view_state(view, rng: random.Random):
    """The OpenSpiel state of ``view``'s hand in one world consistent with it (the
    hidden cards drawn with :class:`~widderkopf_env.worlds.Resampler` and ``rng``)."""
    from widderkopf_env.openspiel import deal_actions

    world = Resampler(view).sample(rng)
    state = one_hand_game(view.variant.name).new_initial_state()
    state.apply_action(view.dealer)
    for card in deal_actions(view.variant, world.deals[-1]):
        state.apply_action(card)
    for action in world.history:
        state.apply_action(action)
    return state


def info_state_key(view) -> str | None:
    """OpenSpiel's information-state string of ``view`` (the player's, in the one-hand
    game), or None where that game's player to act is not the view's player (see the
    module documentation). It depends on the view only: the world drawn to build the
    state is fixed (seed 0) and its hidden cards are not part of the string."""
    state = view_state(view, random.Random(0))
    if state.current_player() != view.player:
        return None
    return state.information_state_string(view.player)
