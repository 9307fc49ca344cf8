"""Plain, slow reference implementation of the Widderkopf rules (see /work/shared/RULES.md).

Written independently from the rules text, to cross-check the fast engine in tests.
Rule ids (R1..R20) in the comments refer to RULES.md.

Conventions shared with the engine:
  card id = suit * 9 + rank, suits C S H D = 0..3, ranks A 10 K Q J 9 8 7 6 = 0..8.
  actions: 0..35 play / discard that card, 36..39 name trump C S H D,
           40 escalate the crack, 41 pass (decline to answer an escalation).
"""

SUITS = ["C", "S", "H", "D"]
RANKS = ["A", "10", "K", "Q", "J", "9", "8", "7", "6"]
POINTS_BY_RANK = [11, 10, 4, 3, 2, 0, 0, 0, 0]  # R4
QUEEN, JACK, SEVEN = 3, 4, 7
NUM_TRICKS = 17  # R12
ACT_TRUMP = 36  # 36..39
ACT_ESCALATE = 40
ACT_PASS = 41


def card_id(name: str) -> int:
    """'QC' -> 3, '10D' / 'TD' -> 28."""
    name = name.strip().upper()
    rank, suit = name[:-1], name[-1]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"bad card name {name!r}")
    return SUITS.index(suit) * 9 + RANKS.index(rank)


def card_name(card: int) -> str:
    return RANKS[card % 9] + SUITS[card // 9]


def suit_of(card: int) -> int:
    return card // 9


def rank_of(card: int) -> int:
    return card % 9


def points(card: int) -> int:
    return POINTS_BY_RANK[rank_of(card)]  # R4


def trump_order(trump: int) -> list[int]:
    """The 15 trumps, highest first (R2): QC QS QH QD JC JS JH JD, then A 10 K 9 8 7 6 of T."""
    order = [s * 9 + QUEEN for s in range(4)] + [s * 9 + JACK for s in range(4)]
    for rank in [0, 1, 2, 5, 6, 7, 8]:
        order.append(trump * 9 + rank)
    return order


def is_trump(card: int, trump: int) -> bool:
    # R2: every queen and jack is a trump, as is every card of the trump suit.
    return rank_of(card) in (QUEEN, JACK) or suit_of(card) == trump


def plain_suit(card: int, trump: int):
    """The plain suit of a card (R3), or None for a trump."""
    if is_trump(card, trump):
        return None
    return suit_of(card)


def trick_winner_index(first: int, second: int, trump: int) -> int:
    """0 if the led card wins, 1 if the second card wins (R16)."""
    order = trump_order(trump)
    first_trump = is_trump(first, trump)
    second_trump = is_trump(second, trump)
    if first_trump or second_trump:
        if not second_trump:
            return 0
        if not first_trump:
            return 1
        return 0 if order.index(first) < order.index(second) else 1
    # No trump: the higher card of the suit led; a card of another plain suit never wins.
    if suit_of(second) != suit_of(first):
        return 0
    # Plain ranks A 10 K 9 8 7 6 have increasing rank ids, so lower id = higher card.
    return 0 if rank_of(first) < rank_of(second) else 1


class RefHand:
    """One hand of Widderkopf, from trump choice to the last trick."""

    def __init__(self, deal: dict, dealer: int, scores=(0, 0)):
        if dealer not in (0, 1):
            raise ValueError("dealer must be 0 or 1")
        self.dealer = dealer
        self.non_dealer = 1 - dealer
        self.hand = [[], []]  # cards in hand, per player
        self.piles = [[], []]  # per player: 5 piles, each a list [down, up] (bottom .. top)
        self.face_down = set()  # card ids lying face down (R8, R14)
        all_cards = []
        for p in (0, 1):
            spec = deal[f"player_{p}"]
            hand = [card_id(n) for n in spec["hand"]]
            up = [card_id(n) for n in spec["up"]]
            down = [card_id(n) for n in spec["down"]]
            if len(hand) != 8 or len(up) != 5 or len(down) != 5:  # R7
                raise ValueError("each player needs 8 hand, 5 up and 5 down cards")
            self.hand[p] = hand
            for i in range(5):
                self.piles[p].append([down[i], up[i]])  # up[i] lies on down[i]
                self.face_down.add(down[i])
            all_cards += hand + up + down
        if sorted(all_cards) != list(range(36)):  # R1, R7: all 36 dealt
            raise ValueError("the deal must use each of the 36 cards exactly once")

        # R9: the lower match score names trumps; on a tie, the non-dealer.
        if scores[0] < scores[1]:
            self.chooser = 0
        elif scores[1] < scores[0]:
            self.chooser = 1
        else:
            self.chooser = self.non_dealer
        self.trump = None
        self.phase = "trump"  # "trump" -> "discard" -> "play" -> "over"
        self.discards = [None, None]  # card discarded by each player (R10)
        self.discarder = self.non_dealer  # R10: the non-dealer discards first
        self.captured = [[], []]  # capture piles (R16), opponents' discards included (R10)

        # R11 cracking state
        self.level = 0
        self.cracker = None
        self.recracker = None
        self.has_played = [False, False]
        self.answering = None  # player who must answer an escalation now (40 / 41), or None

        # R12 trick state
        self.leader = self.non_dealer
        self.trick = []  # list of (player, card) in the current trick
        self.winners = []  # winner of each completed trick

    # ----- helpers -----------------------------------------------------------

    def due_player(self) -> int:
        """The player whose card is to be played next."""
        if len(self.trick) == 0:
            return self.leader
        return 1 - self.leader

    def face_up_tops(self, player) -> list[int]:
        """Top cards of the player's piles that are face up (R13, R14)."""
        tops = []
        for pile in self.piles[player]:
            if pile and pile[-1] not in self.face_down:
                tops.append(pile[-1])
        return tops

    def playable(self, player) -> list[int]:
        return self.hand[player] + self.face_up_tops(player)  # R13

    def legal_cards(self, player) -> list[int]:
        """R15: following is judged over all playable cards."""
        cards = self.playable(player)
        if len(self.trick) == 0:
            return cards  # the leader may lead anything playable
        led = self.trick[0][1]
        if is_trump(led, self.trump):
            must = [c for c in cards if is_trump(c, self.trump)]
        else:
            led_suit = plain_suit(led, self.trump)
            must = [c for c in cards if plain_suit(c, self.trump) == led_suit]
        if must:
            return must
        return cards

    def escalation_owners(self) -> list[int]:
        """Players to whom the next escalation belongs (R11)."""
        if self.level == 0:
            return [0, 1]  # Crack: either player
        if self.level == 1:
            return [1 - self.cracker]  # Recrack: the player who did not crack
        if self.level == 2:
            return [self.cracker]  # Crackback: the cracker
        if self.level == 3:
            return [self.recracker]  # Around the Corner: the recracker
        return []  # level 4 is the maximum

    def may_escalate(self, player) -> bool:
        # R11: only before one's first card, and only if the next escalation is one's own.
        return (not self.has_played[player]) and player in self.escalation_owners()

    # ----- public interface ----------------------------------------------------

    def current_player(self):
        if self.phase == "trump":
            return self.chooser
        if self.phase == "discard":
            return self.discarder
        if self.phase == "play":
            if self.answering is not None:
                return self.answering
            return self.due_player()
        return None

    def legal_actions(self) -> list[int]:
        if self.phase == "trump":
            return [ACT_TRUMP + s for s in range(4)]  # R9: any of the four suits
        if self.phase == "discard":
            return sorted(self.hand[self.discarder])  # R10 [reading]: from the hand
        if self.phase == "play":
            if self.answering is not None:
                return [ACT_ESCALATE, ACT_PASS]  # R11 reading, point 2
            due = self.due_player()
            actions = list(self.legal_cards(due))
            if self.may_escalate(due):
                actions.append(ACT_ESCALATE)  # R11 reading, point 1
            return sorted(actions)
        return []

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in phase {self.phase}")
        if self.phase == "trump":
            self.trump = action - ACT_TRUMP
            self.phase = "discard"
        elif self.phase == "discard":
            player = self.discarder
            self.hand[player].remove(action)
            self.discards[player] = action
            self.captured[1 - player].append(action)  # R10: into the opponent's pile
            if player == self.non_dealer:
                self.discarder = self.dealer
            else:
                self.discarder = None
                self.phase = "play"
        elif action == ACT_PASS:
            self.answering = None  # R11 point 2/3: the due player decides again
        elif action == ACT_ESCALATE:
            self._escalate(self.current_player())
        else:
            self._play_card(self.due_player(), action)

    def _escalate(self, player) -> None:
        self.level += 1
        if self.level == 1:
            self.cracker = player
        elif self.level == 2:
            self.recracker = player
        # R11 point 2: the other (not due) player answers at once if they may escalate now.
        other = 1 - self.due_player()
        if self.may_escalate(other):
            self.answering = other
        else:
            self.answering = None

    def _play_card(self, player, card) -> None:
        if card in self.hand[player]:
            self.hand[player].remove(card)
        else:
            for pile in self.piles[player]:
                if pile and pile[-1] == card:
                    pile.pop()  # the card below stays face down until the trick ends (R14)
                    break
        self.has_played[player] = True
        self.trick.append((player, card))
        if len(self.trick) < 2:
            return
        # Trick complete (R16).
        (first_player, first_card), (second_player, second_card) = self.trick
        if trick_winner_index(first_card, second_card, self.trump) == 0:
            winner = first_player
        else:
            winner = second_player
        self.captured[winner] += [first_card, second_card]
        self.winners.append(winner)
        self.trick = []
        self.leader = winner  # R12
        # R14: now turn over every face-down card that has become the top of its pile.
        for p in (0, 1):
            for pile in self.piles[p]:
                if pile and pile[-1] in self.face_down:
                    self.face_down.discard(pile[-1])
        if len(self.winners) == NUM_TRICKS:
            self.phase = "over"

    def is_over(self) -> bool:
        return self.phase == "over"

    def card_points(self) -> tuple[int, int]:
        """R17: capture-pile points (opponent's discard included) plus the Spitzer (R5).

        Meaningful once the hand is over (then the two sum to 121); before that it gives
        the points captured so far.
        """
        totals = [0, 0]
        for p in (0, 1):
            for card in self.captured[p]:
                totals[p] += points(card)
                if self.trump is not None and card == self.trump * 9 + SEVEN:
                    totals[p] += 1  # R5 Spitzer
        return (totals[0], totals[1])

    def winner(self) -> int:
        if not self.is_over():
            raise RuntimeError("the hand is not over")
        pts = self.card_points()
        return 0 if pts[0] >= 61 else 1  # R18

    def game_value(self) -> int:
        if not self.is_over():
            raise RuntimeError("the hand is not over")
        value = 2**self.level  # R11, R19
        best = self.card_points()[self.winner()]
        if best == 121:
            value *= 4  # Schwarz
        elif best >= 91:
            value *= 2  # Schneider
        return value

    def crack_level(self) -> int:
        return self.level

    def trick_winners(self) -> list[int]:
        return list(self.winners)

    def visible_up(self, player) -> list[int]:
        return sorted(self.face_up_tops(player))


def ref_match(deals: list[dict], first_dealer: int, num_hands: int, choose) -> dict:
    """Play a match (R20): hand k uses deals[k]; the deal alternates (R6)."""
    scores = [0, 0]
    dealer = first_dealer
    played = 0
    while played < num_hands or scores[0] == scores[1]:
        if played >= len(deals):
            raise ValueError("not enough deals supplied for the match")
        hand = RefHand(deals[played], dealer, (scores[0], scores[1]))
        while not hand.is_over():
            hand.apply(choose(hand))
        scores[hand.winner()] += hand.game_value()  # R19: only the winner scores
        dealer = 1 - dealer
        played += 1
    return {"scores": scores, "hands": played}
