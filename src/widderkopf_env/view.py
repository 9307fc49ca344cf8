"""What one player may see (RULES R8): what bots get, and the yardstick for observations.

:meth:`PlayerView.of` copies from a :class:`~widderkopf_env.rules.Game` the player's own
hand and discard, both players' face-up cards, which piles still hold a face-down card,
and everything public (trump, crack level, tricks, scores). It never reads the opponent's
hand (only its size), any face-down card or the opponent's discard (only whether there is
one), so nothing built on a view can leak hidden information.

The only other reader of a game on a player's behalf is the observation encoder,
:func:`~widderkopf_env.game_encoder.encode_game`, which the environments run on the live
game to save building a view at every decision. Tests check that it gives the same arrays
as when it is run on a stand-in made from the view alone.
"""

from __future__ import annotations

from .cards import FOLLOW, from_bits, to_bits
from .checks import check_hidden_cards
from .engine_types import Phase

OVER = Phase.OVER
#: Stands for the opponent's discard in :attr:`PlayerView.hand_history`.
HIDDEN = -1


class PlayerView:
    """A snapshot of one player's information. Card sets are 36-bit ints.

    Attributes:
        player: whose view this is (0/1); ``opponent`` is the other.
        phase: :class:`~widderkopf_env.rules.Phase` value (int); ``current``: player to act
            or None when the match is over; ``is_my_turn``.
        hand_no, num_hands, scores: match progress (scores are the match scores).
        dealer, chooser, trump (-1 until named), level (crack level 0..4),
        cracker, recracker (-1 if none), may_escalate (per player: may they still
            escalate in this hand, R11).
        hand: own hand cards; hand_size_opp: number of cards in the opponent's hand.
        my_up, opp_up: face-up cards in front of each player (playable tops).
        my_piles, opp_piles: per pile, ``(top card or -1, has a face-down card)``.
        my_covered, opp_covered: face-up cards that lie on a face-down card.
        my_discard: own discard (-1 before it); opp_discarded: whether the opponent has.
        played: cards each player has played to tricks (tuple by player).
        won: cards each player captured in tricks; trick_points: their points.
        lead: card led in the open trick (-1 if none); leader: who leads it.
        tricks: completed tricks as ``(leader, led, other, winner)``.
        legal: bit mask of this player's legal action ids (0 when not their turn).
        last_result: the latest finished hand's :class:`~widderkopf_env.rules.HandResult`.
        initial_up: the hand's face-up cards as dealt, by engine pile ``5 * player + i``.
        revealed: by engine pile, the face-down card that has turned over this hand
            (R14: both players saw it), else -1.
        hand_history: this hand's actions so far, in order (both players'), with the
            opponent's discard as :data:`HIDDEN` (R10: only they saw it). With
            ``initial_up`` and ``revealed`` it is the hand's public record: search bots
            replay it in sampled worlds to judge how likely the opponent's choices were
            (:meth:`initial_deal`).
        variant: the :class:`~widderkopf_env.cards.Variant` played (public).
    """

    __slots__ = (
        "player", "opponent", "phase", "current", "hand_no", "num_hands", "scores", "dealer",
        "chooser", "trump", "level", "cracker", "recracker", "may_escalate", "hand",
        "hand_size_opp", "my_up", "opp_up", "my_piles", "opp_piles", "my_covered",
        "opp_covered", "my_discard", "opp_discarded", "played", "won", "trick_points", "lead",
        "leader", "tricks", "legal", "last_result", "initial_up", "revealed",
        "hand_history", "variant",
    )

    @classmethod
    def of(cls, game, player: int) -> PlayerView:
        v = cls.__new__(cls)
        v.variant = game.variant
        o = 1 - player
        v.player, v.opponent = player, o
        v.phase, v.current = game.phase, game.current
        v.hand_no, v.num_hands, v.scores = game.hand_no, game.num_hands, tuple(game.scores)
        v.dealer, v.chooser, v.trump = game.dealer, game.chooser, game.trump
        v.level, v.cracker, v.recracker = game.level, game.cracker, game.recracker
        v.may_escalate = game.escalation_rights()
        v.hand = game.hand[player]
        v.hand_size_opp = game.hand[o].bit_count()  # a count only: how many, not which
        v.my_up, v.opp_up = game.upbits[player], game.upbits[o]
        v.my_covered, v.opp_covered = game.covered[player], game.covered[o]
        u0, u1, u2, u3, u4, u5, u6, u7, u8, u9 = game.up
        d0, d1, d2, d3, d4, d5, d6, d7, d8, d9 = game.down
        piles0 = ((u0, d0 >= 0), (u1, d1 >= 0), (u2, d2 >= 0), (u3, d3 >= 0), (u4, d4 >= 0))
        piles1 = ((u5, d5 >= 0), (u6, d6 >= 0), (u7, d7 >= 0), (u8, d8 >= 0), (u9, d9 >= 0))
        v.my_piles, v.opp_piles = (piles0, piles1) if player == 0 else (piles1, piles0)
        v.my_discard, v.opp_discarded = game.discard[player], game.discard[o] >= 0
        v.played, v.won = tuple(game.played), tuple(game.won)
        v.trick_points = tuple(game.trick_points)
        v.lead, v.leader, v.tricks = game.lead, game.leader, tuple(game.tricks)
        v.legal = game.legal_mask if game.current == player else 0
        v.last_result = game.results[-1] if game.results else None
        deal = game.deals[game.hand_no - (game.phase == OVER)]
        (_h0, up0, down0), (_h1, up1, down1) = deal
        pad = (-1,) * (5 - len(up0))  # a variant's missing piles
        v.initial_up = (*up0, *pad, *up1, *pad)
        v.revealed = tuple(-1 if d >= 0 else c for d, c in zip(
            game.down, (*down0, *pad, *down1, *pad), strict=True))
        history = game.history[game.hand_start:]
        secret = 1 if o != game.dealer else 2  # the opponent's discard (R10 order)
        if len(history) > secret:
            history[secret] = HIDDEN
        v.hand_history = tuple(history)
        return v

    @property
    def is_my_turn(self) -> bool:
        return self.current == self.player

    def legal_actions(self) -> list[int]:
        """This player's legal action ids (empty when it is not their turn)."""
        return from_bits(self.legal)

    @property
    def playable(self) -> int:
        """Cards this player could play from (hand and face-up tops), ignoring following."""
        return self.hand | self.my_up

    @property
    def unseen(self) -> int:
        """Cards this player has not seen: the opponent's hand, face-down cards and the
        opponent's discard (cards not yet played and not visible to this player)."""
        seen = self.hand | self.my_up | self.opp_up | self.played[0] | self.played[1]
        if self.my_discard >= 0:
            seen |= 1 << self.my_discard
        return self.variant.deck & ~seen

    @property
    def face_down_piles(self) -> tuple[int, ...]:
        """The piles, as engine indices ``5 * player + i``, that still hold a face-down
        card (whose card this player has not seen), ascending."""
        p, o = self.player, self.opponent
        mine = [5 * p + i for i, (_top, down) in enumerate(self.my_piles) if down]
        theirs = [5 * o + i for i, (_top, down) in enumerate(self.opp_piles) if down]
        return tuple(sorted(mine + theirs))

    @property
    def opponent_voids(self) -> int:
        """The card classes (``FOLLOW`` masks, R15) the opponent has failed to follow this
        hand: a plain suit, or all trumps. Their hand never gains cards, so it holds none
        of these (face-down cards were not playable then, so they may)."""
        me, t = self.player, self.trump
        void = 0
        for leader, led, other, _winner in self.tricks:
            if leader == me and not (FOLLOW[t][led] >> other) & 1:
                void |= FOLLOW[t][led]
        return void

    def check_hidden(self, opponent_hand, face_down, opponent_discard=-1):
        """The hidden cards of a world of this view (:func:`~widderkopf_env.worlds.from_view`'s arguments)
        checked and normalised to ``(hand bits, {pile: card}, discard)``: a wrong type
        raises ``TypeError`` naming the argument, cards that are not exactly this view's
        unseen cards (each once, as many as the view says) ``ValueError``."""
        hand, face_down, opponent_discard = check_hidden_cards(opponent_hand, face_down,
                                                               opponent_discard)
        slots = self.face_down_piles
        if tuple(sorted(face_down)) != slots:
            raise ValueError(f"face_down must give a card for piles {list(slots)}, "
                             f"got piles {sorted(face_down)}")
        if hand.bit_count() != self.hand_size_opp:
            raise ValueError(f"opponent_hand must hold {self.hand_size_opp} cards, got "
                             f"{hand.bit_count()}")
        if (opponent_discard >= 0) != bool(self.opp_discarded):
            raise ValueError("opponent_discard must be a card exactly when the opponent has "
                             "discarded")
        hidden = hand | to_bits(face_down.values())
        if opponent_discard >= 0:
            hidden |= 1 << opponent_discard
        count = hand.bit_count() + len(slots) + (opponent_discard >= 0)
        if hidden != self.unseen or hidden.bit_count() != count:
            raise ValueError("the hidden cards must be the view's unseen cards, each once")
        return hand, face_down, opponent_discard

    def initial_deal(self, opponent_hand, face_down, opponent_discard=-1):
        """The hand's deal, ``((hand, up, down), (hand, up, down))`` by player as card
        ids, if the hidden cards are ``opponent_hand`` (cards now in the opponent's hand,
        ids or a bit set), ``face_down`` (``{pile: card}`` for the piles still face down)
        and ``opponent_discard``: what a search bot needs to replay the hand in a world.
        Cards played from a hand are those played that were never face up (R13-R14)."""
        me, opp = self.player, self.opponent
        hand = opponent_hand if isinstance(opponent_hand, int) else to_bits(opponent_hand)
        piles = self.variant.piles
        down = [c if c >= 0 or i % 5 >= piles else face_down.get(i, -1)
                for i, c in enumerate(self.revealed)]
        missing = [i for i, c in enumerate(down) if c < 0 and i % 5 < piles]
        if missing:
            raise ValueError(f"face_down must give the card of every pile not turned over, "
                             f"missing piles {missing}")
        on_piles = to_bits(c for c in (*self.initial_up, *down) if c >= 0)
        hands = [0, 0]
        hands[me] = self.hand | (self.played[me] & ~on_piles)
        hands[opp] = hand | (self.played[opp] & ~on_piles)
        if self.my_discard >= 0:
            hands[me] |= 1 << self.my_discard
        if opponent_discard >= 0:
            hands[opp] |= 1 << opponent_discard
        if any(h.bit_count() != self.variant.hand_size for h in hands) or hands[0] & hands[1] or (
                (hands[0] | hands[1]) & on_piles):
            raise ValueError("these hidden cards do not complete a deal consistent with "
                             "the view")
        return tuple((from_bits(hands[p]), list(self.initial_up[5 * p:5 * p + piles]),
                      down[5 * p:5 * p + piles]) for p in (0, 1))

    def key(self) -> tuple:
        """All fields as a tuple: equal keys mean identical information."""
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other) -> bool:
        return isinstance(other, PlayerView) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return (f"<PlayerView player={self.player} phase={self.phase} trump={self.trump} "
                f"hand={from_bits(self.hand)} lead={self.lead}>")
