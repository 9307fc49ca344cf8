"""An exact perfect-information solver for the card play of one world (PIMC's inner loop).

In a sampled world every card is known, the face-down ones included, so the rest of a
hand is a two-player zero-sum game of perfect information over card points. This module
solves it exactly with alpha-beta search over bit sets, a light, fast stand-in for the
engine's play phase (``tests/agents/test_pimc.py`` checks it against plain minimax through
:meth:`Game.clone`/:meth:`Game.apply` on random endgames).

The state at the start of a trick is just two bit sets: the cards playable to the leader
and to the other player (hand and face-up tops). A face-down card is tied for the whole
hand to the face-up card lying on it (``rev[c]``: the bit of the card under ``c``), and
it becomes playable after the trick in which ``c`` was played (R14). Card points are
additive, so the value of a position is the points its leader takes from the remaining
tricks, whoever took what before, and the transposition table is keyed by the two sets
alone (leader's first). The Spitzer's extra point (R5) is counted as a card point of
the 7 of trumps. Game points are a monotone function of card points, so the minimax
card points also give the minimax game points (:func:`game_points`).

Inside the search cards are relabelled per trump suit in *power order*: the 15 trumps
first, lowest to highest, then each plain suit from its 6 to its ace. A class (what
follows what, R15) is then a block of consecutive bits, and ``from_bits`` lists cards
weakest first. Search: fail-soft alpha-beta with a transposition table; leads ordered
by the table's best move, then strongest first; replies by the trick they yield
(cheapest for the leader first); of cards that are interchangeable (same class, same
points, nothing unplayed between them, no face-down card under either) only one is
tried; the last two tricks are scored directly.

The search has a C twin, ``csrc/solver/`` (an optional extension, built when a C
compiler is present): the same values by a faster way (null-window tests, quick bounds
at trick starts, interchangeable cards merged in the table; its header says more, and
``python bench/solver.py`` measures it against the landed one). It runs when it was
built and ``WIDDERKOPF_PURE_PYTHON`` is unset or ``0``; :data:`ACCELERATED` says whether
it does. The pure-Python search is the reference the C one is tested against. Only the
search and the root of a lead (``Searcher.lead_values``) are in C: the rest of the root
(:func:`solve_actions`, :func:`solve_value`) is here.
"""

from __future__ import annotations

from widderkopf_env.accelerators import load_accelerator
from widderkopf_env.cards import (
    BEATS,
    FOLLOW,
    POINTS,
    POWER,
    SPITZER,
    TOTAL_POINTS,
    TRUMP_MASK,
    WIN_POINTS,
    core_tables,
    from_bits,
    hand_value,
)
from widderkopf_env.rules import PLAY

__all__ = ["ACCELERATED", "Position", "game_points", "solve_actions", "solve_value",
           "world_table"]


def _relabelling(t: int):
    """``(order, label, pts, follow, beats, block)`` in power-ordered labels for trump
    ``t``; ``order[i]`` is the card id with label ``i``, ``label[c]`` the label of card
    ``c``."""
    strength = POWER[t].__getitem__  # within a class, power orders the cards

    trumps = sorted((c for c in range(36) if TRUMP_MASK[t] >> c & 1), key=strength)
    order = list(trumps)
    for s in range(4):
        if s != t:
            order += sorted((c for c in range(36) if FOLLOW[t][c] == FOLLOW[t][s * 9]
                             and not TRUMP_MASK[t] >> c & 1), key=strength)
    label = {c: i for i, c in enumerate(order)}
    pts = tuple(POINTS[c] + (c == SPITZER[t]) for c in order)
    follow = tuple(sum(1 << label[o] for o in from_bits(FOLLOW[t][c])) for c in order)
    beats = bytes(BEATS[t][a * 36 + b] for a in order for b in order)
    block = tuple(0 if i < 15 else 1 + (i - 15) // 7 for i in range(36))
    return tuple(order), tuple(label[c] for c in range(36)), pts, follow, beats, block


TABLES = tuple(_relabelling(t) for t in range(4))


def game_points(x: int, level: int) -> int:
    """Game points (R18, R19) of a player who ends the hand with ``x`` card points."""
    if x >= WIN_POINTS:
        return hand_value(level, x)
    return -hand_value(level, TOTAL_POINTS - x)


def _relabel(bits: int, label) -> int:
    out = 0
    for c in from_bits(bits):
        out |= 1 << label[c]
    return out


class Position:
    """The play-phase state of a :class:`~widderkopf_env.rules.Game`, in solver labels.

    ``avail[p]``: cards playable to ``p`` (hand and face-up tops); ``rev[c]``: bit of the
    face-down card under ``c`` (0 if none); ``lead``/``leader``: the open trick;
    ``pending``: bit of the card that turns over when the open trick ends (the lead came
    off a pile, R14); ``live``: cards not yet played, face-down ones included;
    ``remaining``: their points (Spitzer included), the lead on the table included;
    ``base[p]``: card points ``p`` holds now (tricks, the opponent's discard, the
    Spitzer if already theirs); ``tricks``: tricks left including the open one.
    """

    __slots__ = ("trump", "order", "avail", "rev", "lead", "leader", "pending", "live",
                 "remaining", "base", "tricks", "current")

    def __init__(self, g):
        if g.phase != PLAY:
            raise ValueError("the solver needs a game in the play phase")
        t = self.trump = g.trump
        order, label, pts = TABLES[t][:3]
        self.order = order
        self.avail = (_relabel(g.hand[0] | g.upbits[0], label),
                      _relabel(g.hand[1] | g.upbits[1], label))
        rev = [0] * 36
        up, down = g.up, g.down
        live = self.avail[0] | self.avail[1]
        for i in range(10):
            u, d = up[i], down[i]
            if d >= 0:
                live |= 1 << label[d]
                if u >= 0:
                    rev[label[u]] = 1 << label[d]
        self.rev = rev
        self.lead = label[g.lead] if g.lead >= 0 else -1
        self.leader, self.current = g.leader, g.current
        self.pending = 1 << label[down[g.lead_pile]] if g.lead >= 0 and g.lead_pile >= 0 else 0
        self.live = live
        remaining = sum(pts[c] for c in from_bits(live))
        self.remaining = remaining + pts[self.lead] if g.lead >= 0 else remaining
        d0, d1 = g.discard
        sp = SPITZER[t]
        base = [g.trick_points[0] + POINTS[d1], g.trick_points[1] + POINTS[d0]]
        if (g.won[0] >> sp) & 1 or d1 == sp:
            base[0] += 1
        elif (g.won[1] >> sp) & 1 or d0 == sp:
            base[1] += 1
        self.base = tuple(base)
        self.tricks = 17 - len(g.tricks)


def make_search(trump: int, rev: list[int], tt: dict):
    """The recursive alpha-beta search for one world: ``search(aL, aO, live, R, n, alpha,
    beta)`` is the points the leader (playable set ``aL``) takes from the ``n`` remaining
    tricks (``live``: unplayed cards, ``R`` their points), fail-soft within
    ``(alpha, beta)``. Card labels as in :data:`TABLES`."""
    _order, _label, pts, follow, beats, block = TABLES[trump]
    ids = from_bits

    def distinct(cards, live):
        """``cards`` (weakest first) without the ones interchangeable with a weaker one."""
        out, prev = [], -1
        for c in cards:
            if (prev >= 0 and block[c] == block[prev] and pts[c] == pts[prev]
                    and not rev[c] and not rev[prev] and not live & ((1 << c) - (2 << prev))):
                prev = c
                continue
            out.append(c)
            prev = c
        return out

    def two_left(aL, aO, R):
        """Exact value for the leader with two tricks left (no pruning needed)."""
        best = -1
        for c in ids(aL):
            cl = ((aL ^ (1 << c)) | rev[c]).bit_length() - 1  # the leader's last card
            pc, c36 = pts[c], c * 36
            worst = R + 1
            for r in ids(aO & follow[c] or aO):
                ro = ((aO ^ (1 << r)) | rev[r]).bit_length() - 1
                p = pc + pts[r]
                if beats[c36 + r]:  # the follower wins and leads the last trick
                    v = R - p if beats[ro * 36 + cl] else 0
                else:
                    v = R if not beats[cl * 36 + ro] else p
                if v < worst:
                    worst = v
            if worst > best:
                best = worst
        return best

    def search(aL, aO, live, R, n, alpha, beta):
        # a window outside 0..R: any value is a bound (searched, its first lead would
        # end the loop, and a bound below 0 would be stored as the position's)
        if beta <= 0:
            return 0
        if alpha >= R:
            return R
        if n <= 2:
            if n == 2:
                return two_left(aL, aO, R)
            return 0 if beats[(aL.bit_length() - 1) * 36 + aO.bit_length() - 1] else R
        key = aL << 36 | aO
        e = tt.get(key)
        first = -1
        if e is not None:
            lo, hi, first = e
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        a0, b0 = alpha, beta
        leads = distinct(ids(aL), live)
        leads.reverse()  # strongest first
        if first >= 0 and first in leads:
            leads.remove(first)
            leads.insert(0, first)
        best, bm, n1 = -1, -1, n - 1
        for c in leads:
            nL = (aL ^ (1 << c)) | rev[c]
            moves = aO & follow[c] or aO
            pc, c36 = pts[c], c * 36
            # replies ordered by the trick's worth to the leader, lowest first
            order = sorted(
                (((-pc - pts[r]) if beats[c36 + r] else (pc + pts[r])), r)
                for r in distinct(ids(moves), live))
            live2 = live ^ (1 << c)
            lo_b = alpha if alpha > best else best
            worst = R + 1
            for _s, r in order:
                p = pc + pts[r]
                R2 = R - p
                nO = (aO ^ (1 << r)) | rev[r]
                hi_b = beta if beta < worst else worst
                if beats[c36 + r]:
                    v = R2 - search(nO, nL, live2 ^ (1 << r), R2, n1, R2 - hi_b, R2 - lo_b)
                else:
                    v = p + search(nL, nO, live2 ^ (1 << r), R2, n1, lo_b - p, hi_b - p)
                if v < worst:
                    worst = v
                    if worst <= lo_b:
                        break
            if worst > best:
                best, bm = worst, c
                if best >= beta:
                    break
        if best <= a0:
            tt[key] = (e[0] if e is not None else -1, best, bm)
        elif best >= b0:
            tt[key] = (best, e[1] if e is not None else R + 1, bm)
        else:
            tt[key] = (best, best, bm)
        return best

    def checked(aL, aO, live, R, n, alpha, beta):
        # an empty window (beta <= alpha) would end the first lead's loop on both tests
        # and store what it found as an upper bound; (alpha, alpha + 1) asks the same
        return search(aL, aO, live, R, n, alpha, beta if beta > alpha else alpha + 1)

    return checked


def _load_accelerator():
    """The C search (``csrc/solver/``), configured with the core's rules
    (:func:`~widderkopf_env.cards.core_tables`) and the power order of :data:`TABLES`,
    or None when it was not built or ``WIDDERKOPF_PURE_PYTHON`` is set to a non-empty
    value other than ``0``."""
    return load_accelerator(
        "widderkopf_env.agents._solver", replaces="search",
        configure=lambda m: m.configure(*core_tables(), tuple(t[0] for t in TABLES)))


_accel = _load_accelerator()
#: Whether the search runs in C (same values, faster).
ACCELERATED: bool = _accel is not None
_C_TABLE = "c-search"  # the key of the C search in a ``tt`` dict


def _world_search(trump: int, rev: list[int], tt: dict):
    """The search of one world and its root for a lead, ``(search, lead_values)``: the C
    searcher's, kept in ``tt`` (under ``_C_TABLE``, with its own table inside) for the next
    call on the same world, or :func:`make_search`'s and None (:func:`_lead_values` then)."""
    if _accel is None:
        return make_search(trump, rev, tt), None
    searcher = tt.get(_C_TABLE)
    if searcher is None:
        searcher = tt[_C_TABLE] = _accel.Searcher(trump, rev)
    return searcher.search, getattr(searcher, "lead_values", None)


def _follow_values(pos: Position, search, exact: bool = True) -> dict[int, int]:
    """For each legal reply of the follower in the open trick (solver labels): the points
    the *follower* takes from here to the end. Exact for every reply if ``exact``;
    otherwise exact only for the best reply (the others may be upper bounds below it)."""
    c, L = pos.lead, pos.leader
    _order, _label, pts, follow, beats, _block = TABLES[pos.trump]
    rev = pos.rev
    aL, aO = pos.avail[L] | pos.pending, pos.avail[1 - L]
    R, n1 = pos.remaining, pos.tricks - 1
    pc, c36 = pts[c], c * 36
    live = pos.live
    order = sorted((((pc + pts[r]) if beats[c36 + r] else -(pc + pts[r])), r)
                   for r in from_bits(aO & follow[c] or aO))
    out, best = {}, -1
    for _s, r in reversed(order):  # the follower's best-looking reply first
        p = pc + pts[r]
        R2 = R - p
        nO = (aO ^ (1 << r)) | rev[r]
        lo = -1 if exact else best  # values at or below ``lo`` need not be exact
        if n1 == 0:
            v = p if beats[c36 + r] else 0
        elif beats[c36 + r]:
            v = p + search(nO, aL, live ^ (1 << r), R2, n1, lo - p, R2 + 1)
        else:
            v = R2 - search(aL, nO, live ^ (1 << r), R2, n1, -1, R2 - lo)
        out[r] = v
        if v > best:
            best = v
    return out


def _lead_values(pos: Position, search) -> dict[int, int]:
    """For each lead of the player due to lead: the points the leader takes, exactly."""
    L = pos.current
    aL, aO = pos.avail[L], pos.avail[1 - L]
    out = {}
    for c in from_bits(aL):
        sub = Position.__new__(Position)
        sub.trump, sub.rev, sub.lead, sub.leader = pos.trump, pos.rev, c, L
        sub.avail = (aL ^ (1 << c), aO) if L == 0 else (aO, aL ^ (1 << c))
        sub.pending, sub.remaining, sub.tricks = pos.rev[c], pos.remaining, pos.tricks
        sub.live = pos.live ^ (1 << c)
        out[c] = pos.remaining - max(_follow_values(sub, search, exact=False).values())
    return out


def world_table(g) -> dict:
    """A table (``tt``) for the solves of ``g`` and of every position its play reaches
    later: the same deal, fewer cards. Made at the earliest of them, it knows every pile
    still covered then (a table made later may not hold an earlier position, whose piles
    it has not seen covered: the C search raises ValueError for one)."""
    pos = Position(g)
    tt: dict = {}
    _world_search(pos.trump, pos.rev, tt)
    return tt


def solve_actions(g, tt: dict | None = None) -> dict[int, int]:
    """Exact final card points of ``g.current`` (Spitzer and discards included) for each
    legal card, with both players playing perfectly from there. ``g`` must be in the play
    phase; escalation is not considered. ``tt`` may be shared between calls on the same
    world (same cards in the same places), or on the positions that one game's play
    reaches from the one it was made for (:func:`world_table`): it holds the Python
    search's table, or with the C search (:data:`ACCELERATED`) that search and its
    table, as one entry."""
    pos = Position(g)
    search, lead_values = _world_search(pos.trump, pos.rev, {} if tt is None else tt)
    if pos.lead >= 0:
        vals = _follow_values(pos, search)
    elif lead_values is not None:
        L = pos.current
        vals = lead_values(pos.avail[L], pos.avail[1 - L], pos.live, pos.remaining, pos.tricks)
    else:
        vals = _lead_values(pos, search)
    base, order = pos.base[g.current], pos.order
    return {order[a]: base + v for a, v in vals.items()}


def solve_value(g, player: int, tt: dict | None = None) -> int:
    """Exact final card points of ``player`` under perfect play from ``g`` (play phase);
    ``tt`` as in :func:`solve_actions`."""
    pos = Position(g)
    search = _world_search(pos.trump, pos.rev, {} if tt is None else tt)[0]
    cur = g.current
    if pos.lead >= 0:
        v = max(_follow_values(pos, search, exact=False).values())
    else:
        R = pos.remaining
        v = search(pos.avail[cur], pos.avail[1 - cur], pos.live, R, pos.tricks, -1, R + 1)
    if player != cur:
        v = pos.remaining - v
    return pos.base[player] + v
