"""HeuristicAgent v1 (scratch; docstring written once the strategy settles)."""

from __future__ import annotations

from widderkopf_env.cards import (
    BEATS,
    ESCALATE,
    FOLLOW,
    NUM_CARDS,
    PASS,
    POINTS,
    SPITZER,
    SUIT_MASK,
    TRUMP_ACTION,
    TRUMP_MASK,
    from_bits,
    trump_order,
)

ALL = (1 << NUM_CARDS) - 1
PLAY, ANSWER, DISCARD, TRUMP = 2, 3, 1, 0


def _tables():
    beat, above, cls, pts, power, istrump = [], [], [], [], [], []
    for t in range(4):
        order = trump_order(t)
        for c in range(NUM_CARDS):
            b = sum(1 << o for o in range(NUM_CARDS) if BEATS[t][c * NUM_CARDS + o])
            beat.append(b)
            above.append(b & FOLLOW[t][c])
            cls.append(FOLLOW[t][c])
            pts.append(POINTS[c] + (c == SPITZER[t]))
            tr = c in order
            istrump.append(tr)
            power.append(40 - order.index(c) if tr else 9 - c % 9)
    return (tuple(beat), tuple(above), tuple(cls), tuple(pts), tuple(power), tuple(istrump))


BEAT, ABOVE, CLASS, PTS, POWER, IS_TRUMP = _tables()
#: Weight of each trump by its place in the trump order (QC first), for hand strength.
TRUMP_WEIGHT = (3.0, 2.7, 2.4, 2.2, 2.0, 1.8, 1.7, 1.6, 1.5, 1.4, 1.2, 1.1, 1.0, 1.0, 1.0)
TRUMP_W = tuple(
    {c: TRUMP_WEIGHT[i] for i, c in enumerate(trump_order(t))}.get(c, 0.0)
    for t in range(4) for c in range(NUM_CARDS)
)


class HeuristicAgent:
    name = "heuristic"

    # tunables
    ALPHA = 0.5  # share of a held card's points counted as at risk / bankable
    X = 6.0  # points a sure winner is expected to capture later
    GAMMA = 0.8  # a plain winner's chance decays over time (ruffs)
    TRUMP_FLOOR = 0.4  # even a low trump can ruff
    TRUMP_BONUS = 1.0
    REVEAL = 0.5  # playing a covered face-up card turns a new card over
    D = 1.0  # what the opponent throws on a trick they cannot win
    E = 3.0  # what the opponent adds to a trick they win
    CRACK = True

    def __init__(self, seed=None, **params):
        for k, val in params.items():
            if not k.isupper() or not hasattr(type(self), k):
                raise TypeError(f"unknown HeuristicAgent parameter {k!r}")
            setattr(self, k, val)

    def reset(self, seed=None):
        pass

    def act(self, view) -> int:
        ph = view.phase
        if ph == PLAY:
            legal = view.legal
            if legal >> ESCALATE & 1 and self.CRACK and self._escalate(view):
                return ESCALATE
            return self._play(view, legal & ALL)
        if ph == ANSWER:
            return ESCALATE if self.CRACK and self._escalate(view) else PASS
        if ph == DISCARD:
            return self._discard(view)
        if ph == TRUMP:
            return TRUMP_ACTION + self._choose_trump(view)
        raise ValueError(f"player {view.player} has no decision to make (phase {ph})")

    # --- before play --------------------------------------------------------------------

    def _choose_trump(self, view) -> int:
        mine = view.hand | view.my_up
        best, best_s = 0, -1e9
        for t in range(4):
            sm = SUIT_MASK[t]
            s = sum(TRUMP_W[t * 36 + c] for c in from_bits(mine & sm))
            s -= 0.8 * sum(TRUMP_W[t * 36 + c] for c in from_bits(view.opp_up & sm))
            for u in range(4):
                if u != t and not mine & SUIT_MASK[u]:
                    s += 0.5
            if s > best_s:
                best, best_s = t, s
        return best

    def _discard(self, view) -> int:
        t = view.trump
        mine = view.hand | view.my_up
        best, best_cost = -1, 1e9
        for c in from_bits(view.hand):
            i = t * 36 + c
            if IS_TRUMP[i]:
                cost = 20 + PTS[i] + POWER[i] * 0.1
            else:
                cost = PTS[i] + POWER[i] * 0.1
                sm = CLASS[i]
                if ABOVE[i] & ~mine == 0 or c % 9 == 0:
                    cost += 8  # a boss card of its suit
                if mine & sm == 1 << c:
                    cost -= 1.5  # discarding it voids the suit
            if cost < best_cost:
                best, best_cost = c, cost
        return best

    def strength(self, view) -> float:
        t = view.trump
        mine = view.hand | view.my_up
        tm = TRUMP_MASK[t]
        s = sum(TRUMP_W[t * 36 + c] for c in from_bits(mine & tm))
        s -= sum(TRUMP_W[t * 36 + c] for c in from_bits(view.opp_up & tm))
        for c in from_bits(mine & ~tm):
            if c % 9 == 0:
                s += 1.5
        return s

    def _escalate(self, view) -> bool:
        s = self.strength(view)
        return s >= 14 + 3 * view.level

    # --- card play ----------------------------------------------------------------------

    def _play(self, view, legal: int) -> int:
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        t = view.trump
        base = t * 36
        me = view.player
        void = 0
        for leader, led, other, _w in view.tricks:
            if leader == me and not FOLLOW[t][led] >> other & 1:
                void |= FOLLOW[t][led]
        unseen = view.unseen
        hidden = unseen & ~void
        nh = hidden.bit_count()
        q = min(1.0, view.hand_size_opp / nh) if nh else 0.0
        nq = 1.0 - q
        opp_up = view.opp_up
        tm = TRUMP_MASK[t]
        if opp_up & tm:
            p_opp_trump = 1.0
        else:
            p_opp_trump = 1.0 - nq ** (hidden & tm).bit_count()
        covered = view.my_covered
        lead = view.lead
        best, best_s = -1, -1e9
        ALPHA, X, GAMMA, FLOOR = self.ALPHA, self.X, self.GAMMA, self.TRUMP_FLOOR
        for c in from_bits(legal):
            i = base + c
            a = ABOVE[i]
            trump = IS_TRUMP[i]
            if opp_up & a:
                p = 0.0
            else:
                p = nq ** (hidden & a).bit_count()
                if not trump:
                    f = CLASS[i]
                    if not opp_up & f:
                        p *= 1.0 - nq ** (hidden & f).bit_count() * p_opp_trump
            if trump:
                w = p if p > FLOOR else FLOOR
            else:
                w = p * GAMMA
            pc = PTS[i]
            v = ALPHA * (2 * w - 1) * pc + w * X + (self.TRUMP_BONUS if trump else 0.0)
            if lead >= 0:
                pts = PTS[base + lead] + pc
                s = (pts if BEATS[t][lead * 36 + c] else -pts) - v
            else:
                s = p * (pc + self.D) - (1 - p) * (pc + self.E) - v
            if covered >> c & 1:
                s += self.REVEAL
            if s > best_s:
                best, best_s = c, s
        return best
