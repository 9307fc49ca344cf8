"""HeuristicAgent: a cheap rule-and-estimate player of Widderkopf, cheap enough to serve
as the rollout policy of the search bots (its cost: the Bots page, docs/bots.md).

It reads only its :class:`~widderkopf_env.view.PlayerView` and is deterministic (ties go
to the lowest action id), so it needs no seed.

Trump choice (R9)
    Queens and jacks are trumps whatever is named, so only the suit part of the trump set
    changes. Each suit T is scored from the chooser's 13 visible cards (hand and own
    face-up cards, which are playable; face-down cards are unknown) by the weights in
    ``TRUMP_CHOICE``: length in T, convex (long suits are worth much more), a bonus for
    the 10 and K of T, a malus for the ace of T (a plain ace is a side-suit winner; as a
    trump it ranks below eight queens and jacks), a malus per card of T the opponent
    shows, and, the biggest terms, a bonus per side suit we are void in and a smaller one
    per singleton side suit (voids let low trumps ruff). The suit with the best score is
    named.

Discard (R10)
    The card goes to the OPPONENT's pile, so every card point counts against it, with
    extra terms by the plain card's rank (a plain ace is a winner, a king cheap), by the
    cards of its suit left among our playable cards (the last one voids the suit and
    lets us ruff later) and, for a trump, by its rank; the weights are
    ``DISCARD_CHOICE``. So it throws a zero-point card that voids a short suit when it
    can, never an ace or a high trump, and the Spitzer only if everything else is worse
    (its extra point counts too). The weights were fitted on self-play outcomes: every candidate was played out.

Cracking (R11)
    A logistic model estimates the chance of winning the hand from the visible cards:
    the weighted trump holding (queens highest, ``TRUMP_WEIGHT``), plain aces and tens,
    side-suit voids, the opponent's face-up trumps, seat (the weights are ``WIN_MODEL``;
    see :meth:`HeuristicAgent.win_probability`; fitted on self-play hands). It escalates
    when that chance reaches ``ESCALATE_P[level]``: a lower bar to crack (the crack
    doubles a positive expectation) than to escalate further, as each escalation of the
    opponent says their hand is strong too. Passing never loses a later right.

Card play
    Card counting: the unseen cards (``view.unseen``: the opponent's hand, all face-down
    cards and the opponent's discard), minus the suits the opponent has shown void in
    (they did not follow our lead: their hand never gains cards, so that is final). Each
    such card is in the opponent's hand with probability ``q = their hand size / the
    number of such cards``. Their face-up cards are certain, and they force them to
    follow: a plain lead cannot be ruffed by someone showing a card of that suit.

    For each legal card ``c`` we estimate ``p``, its chance to win if led now (0 if the
    opponent shows a higher card of its class; otherwise the chance they hold none of
    the higher unseen ones, and for a plain card, when they show none of its suit, not to
    be void and hold a trump), and ``w``, its chance to win a trick later (plain: ``p``
    times ``GAMMA``, as ruffs get likelier; trump: ``TRUMP_FLOOR`` (even a low trump can
    ruff) plus the rest times the chance that no unseen higher trump is theirs, halved
    for each higher trump they show, as each of those beats it only once). Keeping ``c``
    is worth
    ``v = ALPHA (2w - 1) points(c) + w X (+ TRUMP_BONUS for a trump)``.

    Second to play, the trick's outcome is fully decided by our card, so each card is
    scored exactly: ``+trick points + LEADV`` if it wins (LEADV < 0: being on lead is a
    liability, as the second player always decides), ``-trick points`` if it loses,
    minus ``v``. This takes point-rich tricks with the cheapest adequate winner, wins
    with a point card when it wins anyway (banking it: "smearing"), throws the least
    valuable card on a trick it cannot or need not win (never an ace on a lost trick),
    and keeps high trumps for tricks worth them.

    Leading, each card is scored ``p (points + D) - (1 - p) (points + E) - v``: lead
    cards that cannot be beaten, or cheap cards the opponent gains little from, and keep
    the cards worth more later (high trumps, guarded tens).

    Playing a face-up card that lies on a face-down one earns ``REVEAL``: the card under
    it turns over after the trick and becomes playable (more choice, more information).

The constants are class attributes; ``HeuristicAgent(X=8.0)`` overrides one for
experiments (measured in the duplicate arena, see ``widderkopf-eval``).
"""

from __future__ import annotations

import math

from widderkopf_env.cards import (
    ALL_CARDS,
    BEATS,
    ESCALATE,
    FOLLOW,
    LOWEST_TRUMP_POWER,
    NUM_CARDS,
    PASS,
    POINTS,
    POWER,
    QUEENS_JACKS,
    SPITZER,
    SUIT_MASK,
    TRUMP_ACTION,
    TRUMP_MASK,
    TRUMP_ORDER,
    from_bits,
)
from widderkopf_env.rules import ANSWER, DISCARD, PLAY


def _tables():
    """Per ``trump * 36 + card``: higher cards of its class, its class (what follows it),
    its points (+1 for the Spitzer), and its rank among the trumps (0 for the lowest, 14
    for the club queen; -1 for a plain card)."""
    above, cls, pts, trump_rank = [], [], [], []
    for t in range(4):
        for c in range(NUM_CARDS):
            beats = sum(1 << o for o in range(NUM_CARDS) if BEATS[t][c * NUM_CARDS + o])
            above.append(beats & FOLLOW[t][c])
            cls.append(FOLLOW[t][c])
            pts.append(POINTS[c] + (c == SPITZER[t]))
            trump_rank.append(max(POWER[t][c] - LOWEST_TRUMP_POWER, -1))
    return tuple(above), tuple(cls), tuple(pts), tuple(trump_rank)


ABOVE, CLASS, PTS, TRUMP_RANK = _tables()
IS_TRUMP = tuple(rank >= 0 for rank in TRUMP_RANK)
ACES, TENS = (sum(1 << (s * 9 + r) for s in range(4)) for r in (0, 1))
#: Weight of each trump by its place in the trump order (club queen first), for strength.
TRUMP_WEIGHT = (3.0, 2.7, 2.4, 2.2, 2.0, 1.8, 1.7, 1.6, 1.5, 1.4, 1.2, 1.1, 1.0, 1.0, 1.0)
TRUMP_W = tuple(
    dict(zip(TRUMP_ORDER[t], TRUMP_WEIGHT, strict=True)).get(c, 0.0)
    for t in range(4) for c in range(NUM_CARDS)
)
#: Trump choice: the weights of the score of naming suit T (``k``: our cards of T).
TRUMP_CHOICE = {
    "length": -0.12,  # per card of T (k)
    "length_squared": 0.042,  # per k * k: long suits are worth much more
    "ace": -0.175,  # holding the ace of T (a plain ace is a side-suit winner)
    "ten_king": 0.145,  # each of the 10 and K of T we hold
    "opp_shown": -0.05,  # per card of T the opponent shows
    "opp_ace_ten": -0.035,  # each of the ace and 10 of T the opponent shows
    "in_hand": 0.02,  # per card of T in our hand (not face-up)
    "side_void": 0.7,  # per side suit we are void in (low trumps can ruff)
    "side_singleton": 0.29,  # per side suit we hold one card of
}
#: Discard: the weights of the score of discarding a card (the best score goes).
DISCARD_CHOICE = {
    "point": -0.054,  # per card point (+1 for the Spitzer): they go to the opponent
    # by rank of a plain card: A, 10, K, Q, J (never plain), 9, 8, 7, 6
    "rank": (-0.134, 0.039, 0.123, 0.0, 0.0, 0.049, 0.049, 0.049, 0.049),
    # by our playable cards of its suit, itself included: -, 1 (it voids the suit), 2, 3
    "length": (0.0, 0.287, 0.066, -0.036),
    "top_out": -0.06,  # a plain card whose higher cards are all ours (a winner)
    "trump": -0.077,  # a trump
    "trump_rank": -0.103,  # a trump, times its rank / 15 (0 for the lowest)
}
#: Cracking: the weights of the logistic win model (:meth:`HeuristicAgent.win_probability`).
WIN_MODEL = {
    "bias": -4.654,
    "trump_weight": 0.714,  # per TRUMP_WEIGHT of our trumps
    "trumps": -0.314,  # per trump we hold
    "opp_trump_weight": -0.064,  # per TRUMP_WEIGHT of the opponent's face-up trumps
    "plain_aces": 1.161,  # per plain ace
    "plain_tens": 0.397,  # per plain ten
    "voids": 0.531,  # per side suit we are void in
    "top_run": -0.2,  # per trump in our unbroken run from the club queen
    "second_seat": -0.101,  # not the dealer
    "queens_jacks": -0.618,  # per queen or jack we hold
}
_T, _D, _W = TRUMP_CHOICE, DISCARD_CHOICE, WIN_MODEL


class HeuristicAgent:
    """A deterministic heuristic player; see the module docstring for its strategy."""

    name = "heuristic"

    ALPHA = 0.5  #: share of a kept card's points counted as won (w=1) or lost (w=0)
    X = 6.0  #: points a sure winner is expected to capture later
    GAMMA = 0.65  #: a plain winner's chance shrinks over the hand (ruffs)
    TRUMP_FLOOR = 0.25  #: least chance of a trump to win a trick later (it can ruff)
    TRUMP_SHOWN = 0.5  #: factor on a trump's chance per higher trump the opponent shows
    TRUMP_BONUS = 2.0  #: extra value of keeping any trump
    REVEAL = 1.6  #: bonus for playing a face-up card that turns a new card over
    D = 1.0  #: points the opponent throws on our lead when they cannot beat it
    E = 3.0  #: points the opponent adds to our lead when they beat it
    LEADV = -4.0  #: value of winning the trick as second player (we must lead next)
    CRACK = True  #: escalate at all
    ESCALATE_P = (0.6, 0.8, 0.9, 0.95)  #: win chance needed to escalate, by crack level

    def __init__(self, seed: int | None = None, **params):
        for key, value in params.items():
            if not key.isupper() or not hasattr(HeuristicAgent, key):
                raise TypeError(f"unknown HeuristicAgent parameter {key!r}")
            setattr(self, key, value)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the agent is deterministic and keeps no state between calls."""

    def act(self, view) -> int:
        legal = view.legal
        if not legal:
            raise ValueError(f"player {view.player} has no legal action (not their turn)")
        ph = view.phase
        if ph == PLAY:
            if legal >> ESCALATE & 1 and self.CRACK and self._escalate(view):
                return ESCALATE
            return self._play(view, legal & ALL_CARDS)
        if ph == ANSWER:
            return ESCALATE if self.CRACK and self._escalate(view) else PASS
        if ph == DISCARD:
            return self._discard(view)
        return TRUMP_ACTION + self._choose_trump(view)

    # --- before play --------------------------------------------------------------------

    def _choose_trump(self, view) -> int:
        mine = view.hand | view.my_up
        opp = view.opp_up
        length = [(mine & SUIT_MASK[u]).bit_count() for u in range(4)]
        best, best_s = 0, -1e9
        for t in range(4):
            k, b = length[t], t * 9
            s = (_T["length"] * k + _T["length_squared"] * k * k + _T["ace"] * (mine >> b & 1)
                 + _T["ten_king"] * ((mine >> (b + 1) & 1) + (mine >> (b + 2) & 1))
                 + _T["opp_shown"] * (opp & SUIT_MASK[t]).bit_count()
                 + _T["opp_ace_ten"] * ((opp >> b & 1) + (opp >> (b + 1) & 1))
                 + _T["in_hand"] * (view.hand & SUIT_MASK[t]).bit_count())
            for u in range(4):
                if u != t:
                    s += (_T["side_void"] if length[u] == 0
                          else _T["side_singleton"] if length[u] == 1 else 0.0)
            if s > best_s:
                best, best_s = t, s
        return best

    def _discard(self, view) -> int:
        t = view.trump
        mine = view.hand | view.my_up
        best, best_s = -1, -1e9
        for c in from_bits(view.hand):
            i = t * 36 + c
            s = _D["point"] * PTS[i]
            if IS_TRUMP[i]:
                s += _D["trump"] + _D["trump_rank"] * TRUMP_RANK[i] / 15
            else:
                s += _D["rank"][c % 9]
                k = (mine & CLASS[i]).bit_count()
                if k < 4:
                    s += _D["length"][k]
                if not ABOVE[i] & ~mine:
                    s += _D["top_out"]
            if s > best_s:
                best, best_s = c, s
        return best

    def win_probability(self, view) -> float:
        """Estimated chance to win the hand from the visible cards (before the first card)."""
        t = view.trump
        mine = view.hand | view.my_up
        tm, base = TRUMP_MASK[t], t * 36
        trw = sum(TRUMP_W[base + c] for c in from_bits(mine & tm))
        otrw = sum(TRUMP_W[base + c] for c in from_bits(view.opp_up & tm))
        top = 0  # unbroken run of the highest trumps
        for c in TRUMP_ORDER[t]:
            if not mine >> c & 1:
                break
            top += 1
        plain = mine & ~tm
        voids = sum(1 for u in range(4) if u != t and not mine & SUIT_MASK[u])
        x = (_W["bias"] + _W["trump_weight"] * trw + _W["trumps"] * (mine & tm).bit_count()
             + _W["opp_trump_weight"] * otrw + _W["plain_aces"] * (plain & ACES).bit_count()
             + _W["plain_tens"] * (plain & TENS).bit_count() + _W["voids"] * voids
             + _W["top_run"] * top + _W["second_seat"] * (view.player != view.dealer)
             + _W["queens_jacks"] * (mine & QUEENS_JACKS).bit_count())
        return 1.0 / (1.0 + math.exp(-x))

    def _escalate(self, view) -> bool:
        return self.win_probability(view) >= self.ESCALATE_P[view.level]

    # --- card play ----------------------------------------------------------------------

    def _play(self, view, legal: int) -> int:
        if legal & (legal - 1) == 0:  # one legal card
            return legal.bit_length() - 1
        t = view.trump
        base, tm = t * 36, TRUMP_MASK[t]
        hidden = view.unseen & ~view.opponent_voids  # cards that may be in the opponent's hand
        n = hidden.bit_count()
        nq = 1.0 - (min(1.0, view.hand_size_opp / n) if n else 0.0)  # P(card not theirs)
        opp_up = view.opp_up
        p_opp_trump = 1.0 if opp_up & tm else 1.0 - nq ** (hidden & tm).bit_count()
        covered, lead = view.my_covered, view.lead
        alpha, x, gamma, floor = self.ALPHA, self.X, self.GAMMA, self.TRUMP_FLOOR
        shown_f = self.TRUMP_SHOWN
        best, best_s = -1, -1e9
        for c in from_bits(legal):
            i = base + c
            higher, trump = ABOVE[i], IS_TRUMP[i]
            shown = opp_up & higher  # their face-up higher cards
            p = nq ** (hidden & higher).bit_count()  # no unseen higher card is theirs
            if trump:
                w = floor + (1.0 - floor) * p * shown_f ** shown.bit_count()
                v = self.TRUMP_BONUS
                if shown:
                    p = 0.0
            else:
                if shown:
                    p = 0.0
                elif not opp_up & CLASS[i]:  # they show none of the suit: they might ruff
                    p *= 1.0 - nq ** (hidden & CLASS[i]).bit_count() * p_opp_trump
                w, v = p * gamma, 0.0
            pc = PTS[i]
            v += alpha * (2 * w - 1) * pc + w * x
            if lead >= 0:
                pts = PTS[base + lead] + pc
                s = (pts + self.LEADV if BEATS[t][lead * 36 + c] else -pts) - v
            else:
                s = p * (pc + self.D) - (1 - p) * (pc + self.E) - v
            if covered >> c & 1:
                s += self.REVEAL
            if s > best_s:
                best, best_s = c, s
        return best
