"""One game of a batch in the shape of a scalar :class:`~widderkopf_env.rules.Game`.

:class:`GameRow` copies game ``i`` of a :class:`~widderkopf_env.vector.engine.VecGame`
into plain Python ints and lists with the scalar engine's field names, so that
:meth:`PlayerView.of <widderkopf_env.view.PlayerView.of>` can build the view an
:class:`~widderkopf_env.agent.Agent` reads (one game at a time: the slow path for
opponents that are not vectorised), and tests can compare a batch with scalar games
field by field.
"""

from __future__ import annotations

from ..engine_types import Phase
from ..rules import HandResult
from ..view import PlayerView

OVER = Phase.OVER
#: Fields copied as ints, and as per-player (or per-pile) lists.
SCALARS = ("phase", "trump", "dealer", "chooser", "leader", "lead", "lead_pile", "level",
           "cracker", "recracker", "hand_no", "num_hands")
LISTS = ("hand", "upbits", "covered", "played", "won", "up", "down", "discard",
         "trick_points", "scores")


class GameRow:
    """A read-only snapshot of game ``i`` with :class:`Game`'s attribute names."""

    def __init__(self, game, i: int):
        self.variant = game.variant
        for name in SCALARS:
            setattr(self, name, int(getattr(game, name)[i]))
        for name in LISTS:
            setattr(self, name, [int(x) for x in getattr(game, name)[i]])
        current = int(game.current[i])
        self.current = None if current < 0 else current
        self.tricks = [tuple(int(x) for x in t) for t in game.tricks[i, :game.ntricks[i]]]
        self.legal_mask = int(game.legal[i])
        self._rights = tuple(bool(x) for x in game.escalation_rights([i])[0])
        self.results = [] if not game.res_count[i] else [_result(game, i)]
        # the hand's public record: its deal's piles and its actions (hands not needed)
        up, down = game.deal_up[i].tolist(), game.deal_down[i].tolist()
        k = game.variant.piles  # the piles dealt (a variant's missing ones are -1)
        deal = (([], up[:k], down[:k]), ([], up[5:5 + k], down[5:5 + k]))
        self.deals = [None] * (self.hand_no - (self.phase == OVER)) + [deal]
        self.history, self.hand_start = game.history[i, :game.hlen[i]].tolist(), 0

    def escalation_rights(self) -> tuple[bool, bool]:
        return self._rights

    def view(self, player: int) -> PlayerView:
        return PlayerView.of(self, player)


def _result(game, i: int) -> HandResult:
    def pair(name):
        return tuple(int(x) for x in getattr(game, name)[i])

    return HandResult(
        int(game.res_hand[i]), int(game.res_dealer[i]), int(game.res_trump[i]),
        pair("res_card_points"), pair("res_trick_points"), pair("res_discards"),
        int(game.res_spitzer[i]), int(game.res_winner[i]), int(game.res_crack_level[i]),
        bool(game.res_schneider[i]), bool(game.res_schwarz[i]), int(game.res_value[i]),
        pair("res_scores"))
