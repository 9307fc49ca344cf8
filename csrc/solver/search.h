/* The search of solver.c: rule tables, transposition table, the Searcher and
 * its search (the method is described at the top of _solver.c). Included by
 * _solver.c only, after <Python.h>: the Searcher is a Python object. */

#ifndef WIDDERKOPF_SOLVER_SEARCH_H
#define WIDDERKOPF_SOLVER_SEARCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core.h"  /* WK_CARDS, wk_rules, wk_popcount (csrc/) */

#define BIT(c) (UINT64_C(1) << (c))
#define MAX_TRICKS 18
#define MAX_POINTS 250  /* R is at most 121; the table packs values in 10 bits */
#define WINDOW 100000   /* alpha and beta are clamped to +-WINDOW (far outside any value) */

#if defined(_MSC_VER)
#include <intrin.h>
static inline int low_bit(uint64_t x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
static inline int top_bit(uint64_t x) {
    unsigned long i;
    return _BitScanReverse64(&i, x) ? (int)i : 0;
}
#else
static inline int low_bit(uint64_t x) { return __builtin_ctzll(x); }
static inline int top_bit(uint64_t x) { return x ? 63 - __builtin_clzll(x) : 0; }
#endif

/* ---- the rule tables of each trump suit, in labels (configure fills them) ------------ */

typedef struct {
    int pts[WK_CARDS];              /* card points (the Spitzer's extra point included) */
    uint64_t follow[WK_CARDS];      /* the cards that follow card c */
    uint8_t beats[WK_CARDS * WK_CARDS]; /* beats[a * 36 + b]: b beats the lead a */
    uint64_t beaten_by[WK_CARDS];   /* the cards that beat the lead c */
    int block[WK_CARDS];            /* the class (trumps, or one plain suit) of card c */
    int nvals, val[WK_CARDS];       /* the distinct card points, lowest first, */
    uint64_t valmask[WK_CARDS];     /* and the cards worth each */
} Tables;

#define TRUMPS ((UINT64_C(1) << 15) - 1)  /* the trumps are labels 0..14 (block 0) */
#define SUIT(i) (UINT64_C(127) << (15 + 7 * (i)))  /* plain suit i: labels 15 + 7i.. */

static Tables tables[4];

/* ---- the transposition table ---------------------------------------------------------- */

/* An entry: the key (aL, aO) and the value (lo, hi, best move) in two words. The second
 * word holds aO in bits 0..35, best move + 1 in bits 36..41, lo + 512 and hi + 512 in
 * 10 bits each from bit 42 and bit 52, and bit 63 marks a used slot. */
typedef struct { uint64_t a, b; } Entry;

#define USED (UINT64_C(1) << 63)
#define FIELD(b, shift, width) ((int)(((b) >> (shift)) & ((UINT64_C(1) << (width)) - 1)))

static inline int entry_bm(uint64_t b) { return FIELD(b, 36, 6) - 1; }
static inline int entry_lo(uint64_t b) { return FIELD(b, 42, 10) - 512; }
static inline int entry_hi(uint64_t b) { return FIELD(b, 52, 10) - 512; }

static inline uint64_t pack(uint64_t aO, int lo, int hi, int bm) {
    return USED | aO | (uint64_t)(bm + 1) << 36 | (uint64_t)((lo + 512) & 1023) << 42
           | (uint64_t)((hi + 512) & 1023) << 52;
}

typedef struct {
    PyObject_HEAD
    int trump;
    const Tables *tab;
    uint64_t rev[WK_CARDS];
    uint64_t same[WK_CARDS];  /* the cards of c's kind (class and points, none face down
                               * under them; none for a card with one under it): two of
                               * them are interchangeable when no card of the other side
                               * lies between them */
    uint64_t covered;  /* the cards with a face-down card under them */
    int nruns;          /* runs: maximal blocks of consecutive labels of one class and one */
    uint64_t run[WK_CARDS];  /* point value, none lying on or under a face-down card */
    int run_at[WK_CARDS];    /* the lowest label of each run */
    uint64_t runs, run_starts;  /* the cards of all runs, and the lowest of each */
    Entry *slots;  /* open addressing, linear probing; a power of two of them */
    size_t cap, count;
    int shift;     /* 64 - log2(cap) */
    int last_v, last_r;  /* the last exact value found, and the points left with it, */
    uint64_t last_L;     /* and its leader's playable cards */
    unsigned long long nodes;       /* positions searched (trick starts), for benchmarks */
} Searcher;

static inline size_t slot_of(const Searcher *s, uint64_t aL, uint64_t aO) {
    return (size_t)((((aL << 28) ^ aO) * UINT64_C(0x9E3779B97F4A7C15)) >> s->shift);
}

/* the used slot of key (aL, aO), or the empty one where it would go */
static inline Entry *probe(const Searcher *s, uint64_t aL, uint64_t aO) {
    size_t mask = s->cap - 1, i = slot_of(s, aL, aO);
    for (;;) {
        Entry *e = &s->slots[i];
        if (!(e->b & USED) || (e->a == aL && (e->b & WK_ALL_CARDS) == aO)) return e;
        i = (i + 1) & mask;
    }
}

static int tt_alloc(Searcher *s, int bits) {
    Entry *old = s->slots;
    size_t old_cap = s->cap;
    Entry *slots = calloc((size_t)1 << bits, sizeof(Entry));
    if (slots == NULL) return -1;
    s->slots = slots;
    s->cap = (size_t)1 << bits;
    s->shift = 64 - bits;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].b & USED) *probe(s, old[i].a, old[i].b & WK_ALL_CARDS) = old[i];
    free(old);
    return 0;
}

/* Stores (lo, hi, bm) under (aL, aO). The table doubles at half full; should that
 * allocation fail it keeps its size and, once nearly full, drops new entries (the table
 * only saves work: the values the search returns stay right). */
static void tt_store(Searcher *s, uint64_t aL, uint64_t aO, int lo, int hi, int bm) {
    Entry *e = probe(s, aL, aO);
    if (!(e->b & USED)) {
        if (2 * (s->count + 1) > s->cap && tt_alloc(s, 65 - s->shift) == 0)
            e = probe(s, aL, aO);
        else if (s->count + 2 > s->cap)
            return;
        s->count++;
        e->a = aL;
    }
    e->b = pack(aO, lo, hi, bm);
}

/* ---- the search ---------------------------------------------------------------------- */

/* Whether card c of the set cards (one player's) is interchangeable with a weaker one of
 * them: one of its kind with no card of the other side (apart: its cards, the face-down
 * ones and the lead on the table included) between them. Of each such group only the
 * weakest card is searched. */
static inline int merged(const Searcher *s, int c, uint64_t cards, uint64_t apart) {
    uint64_t lower = cards & s->same[c] & (BIT(c) - 1);
    return lower && !(apart & (BIT(c) - (BIT(top_bit(lower)) << 1)));
}

/* The position with the cards of each run packed to its lowest labels, in their order
 * (a played card of a run is a gap that the cards above it may close: nothing can tell
 * them apart), so that positions that differ only so share one table entry. */
static inline void canonical(const Searcher *s, uint64_t *aL, uint64_t *aO) {
    uint64_t L = *aL, O = *aO, in = (L | O) & s->runs;
    if (!(in & ~s->run_starts & ~(in << 1))) return;  /* no gap under a card of a run */
    for (int i = 0; i < s->nruns; i++) {
        uint64_t m = s->run[i], cards = (L | O) & m;
        int at = s->run_at[i];
        if (cards == 0 || ((cards >> at) & ((cards >> at) + 1)) == 0) continue;  /* packed */
        uint64_t l = L & m;
        L &= ~m;
        O &= ~m;
        for (; cards; cards &= cards - 1, at++) {
            if (l & cards & -cards) L |= BIT(at); else O |= BIT(at);
        }
    }
    *aL = L;
    *aO = O;
}

/* exact value for the leader with one trick left: its last card against the other's */
static inline int one_left(const Searcher *s, uint64_t aL, uint64_t aO, int R) {
    return s->tab->beats[top_bit(aL) * WK_CARDS + top_bit(aO)] ? 0 : R;
}

/* The leader's exact value at the start of a trick, without the table: every lead and
 * reply (pruned as soon as a reply holds the lead to the best lead so far), the tricks
 * after it valued by `rest`, called with their leader first. */
static inline WK_INLINE int every_lead(const Searcher *s, uint64_t aL, uint64_t aO, int R,
                                       int (*rest)(const Searcher *, uint64_t, uint64_t, int)) {
    const Tables *t = s->tab;
    const uint8_t *beats = t->beats;
    int best = -1;
    for (uint64_t leads = aL; leads; leads &= leads - 1) {
        int c = low_bit(leads);
        uint64_t nL = (aL ^ BIT(c)) | s->rev[c];
        int pc = t->pts[c], c36 = c * WK_CARDS;
        int worst = R + 1;
        uint64_t moves = aO & t->follow[c];
        if (!moves) moves = aO;
        for (; moves; moves &= moves - 1) {
            int r = low_bit(moves);
            uint64_t nO = (aO ^ BIT(r)) | s->rev[r];
            int p = pc + t->pts[r], R2 = R - p;
            int v = beats[c36 + r] ? R2 - rest(s, nO, nL, R2)  /* the follower wins it */
                                   : p + rest(s, nL, nO, R2);
            if (v < worst) worst = v;
            if (worst <= best) break;
        }
        if (worst > best) best = worst;
    }
    return best;
}

/* exact value for the leader with two tricks left */
static int two_left(const Searcher *s, uint64_t aL, uint64_t aO, int R) {
    return every_lead(s, aL, aO, R, one_left);
}

/* exact value for the leader with three tricks left */
static int three_left(const Searcher *s, uint64_t aL, uint64_t aO, int R) {
    return every_lead(s, aL, aO, R, two_left);
}

/* the cards a player holds: the playable ones (avail) and those face down under them */
static inline uint64_t held(const Searcher *s, uint64_t avail) {
    uint64_t h = avail;
    for (uint64_t piles = avail & s->covered; piles; piles &= piles - 1)
        h |= s->rev[low_bit(piles)];
    return h;
}

/* the cards of x above every card of y (all of x if y is empty) */
static inline uint64_t above(uint64_t x, uint64_t y) {
    return y ? x & ~((BIT(top_bit(y)) << 1) - 1) : x;
}

/* Points that the holder of hx surely takes against the holder of hy: each of hx's trumps
 * above all of hy's wins its trick whoever leads (R15, R16), with one card of hy in it.
 * If x is to lead (ax: x's playable cards, else 0) and hy holds no trump, x also wins by
 * leading each of its plain cards above all of hy's in that suit, as long as it stays on
 * lead: those playable now, and those lying under one of them. */
static int sure_points(const Searcher *s, uint64_t hx, uint64_t hy, uint64_t ax) {
    const Tables *t = s->tab;
    uint64_t tx = hx & TRUMPS, ty = hy & TRUMPS;
    uint64_t wins = above(tx, ty);
    if (ax && !ty) {
        uint64_t plain = 0;
        for (int i = 0; i < 3; i++) {
            plain |= above(hx & SUIT(i), hy & SUIT(i));
        }
        uint64_t top = wins | plain, reach = ax;
        for (uint64_t c = ax & top & s->covered; c; c &= c - 1) reach |= s->rev[low_bit(c)];
        wins |= plain & reach;
    }
    if (!wins) return 0;
    int k = 0, sum = 0;
    for (; wins; wins &= wins - 1, k++) sum += t->pts[low_bit(wins)];
    for (int i = 0; k > 0 && i < t->nvals; i++)  /* hy's k cheapest cards go with them */
        for (uint64_t x = hy & t->valmask[i]; x && k > 0; x &= x - 1, k--) sum += t->val[i];
    return sum;
}

static int ab(Searcher *s, uint64_t aL, uint64_t aO, int R, int n, int alpha, int beta);

/* The replies to a lead by the trick's worth to the leader, lowest first: those that win
 * the trick (win), dearest first, then those that lose it (lose), cheapest first; of one
 * point value, those with a face-down card under them first, then by label. Made one at
 * a time, as the first usually decides. */
typedef struct {
    uint64_t win, lose, x;  /* x: what is left of the point value being gone through */
    uint64_t covered;       /* the cards with a face-down card under them, first in x */
    int i, j;               /* the next point values (t->val) of win (down) and lose (up) */
} Replies;

/* the next reply, or -1 after the last */
static inline int next_reply(const Tables *t, Replies *q) {
    while (!q->x) {
        if (q->win) {
            q->x = q->win & t->valmask[--q->i];
            q->win &= ~q->x;
        } else if (q->lose) {
            q->x = q->lose & t->valmask[q->j++];
            q->lose &= ~q->x;
        } else {
            return -1;
        }
    }
    int r = low_bit(q->x & q->covered ? q->x & q->covered : q->x);
    q->x ^= BIT(r);
    return r;
}

/* Fail-soft: the points the leader (playable set aL, held set hL) takes from the n
 * remaining tricks after leading c, the follower's best reply against it, exact within
 * (alpha, beta), else a bound beyond the window. */
static int after_lead(Searcher *s, uint64_t aL, uint64_t aO, uint64_t hL, int R, int n,
                      int c, int alpha, int beta) {
    const Tables *t = s->tab;
    const uint8_t *beats = t->beats;
    int n1 = n - 1;
    uint64_t nL = (aL ^ BIT(c)) | s->rev[c];
    uint64_t moves = aO & t->follow[c];
    if (!moves) moves = aO;
    int pc = t->pts[c], c36 = c * WK_CARDS;
    Replies order = {moves & t->beaten_by[c], moves & ~t->beaten_by[c], 0, s->covered, t->nvals,
                     0};
    int worst = R + 1;
    for (int r; (r = next_reply(t, &order)) >= 0;) {
        if (merged(s, r, moves, hL)) continue;
        if (n1 == 0) return beats[c36 + r] ? 0 : pc + t->pts[r];  /* the last trick */
        int p = pc + t->pts[r], R2 = R - p, v;
        uint64_t nO = (aO ^ BIT(r)) | s->rev[r];
        int hi_b = beta < worst ? beta : worst;
        if (beats[c36 + r])
            v = R2 - ab(s, nO, nL, R2, n1, R2 - hi_b, R2 - alpha);
        else
            v = p + ab(s, nL, nO, R2, n1, alpha - p, hi_b - p);
        if (v < worst) {
            worst = v;
            if (worst <= alpha) break;
        }
    }
    return worst;
}

/* Fail-soft alpha-beta: the points the leader (playable set aL) takes from the n remaining
 * tricks (R: their points), exact within (alpha, beta), else a bound beyond the window. */
static int ab(Searcher *s, uint64_t aL, uint64_t aO, int R, int n, int alpha, int beta) {
    const Tables *t = s->tab;
    const uint8_t *beats = t->beats;
    s->nodes++;
    if (n <= 2) {
        if (n == 2) return two_left(s, aL, aO, R);
        return beats[top_bit(aL) * WK_CARDS + top_bit(aO)] ? 0 : R;
    }
    canonical(s, &aL, &aO);
    Entry *e = probe(s, aL, aO);
    int known = (e->b & USED) != 0, e_lo = -1, e_hi = R + 1, first = -1;
    if (known) {
        e_lo = entry_lo(e->b);
        e_hi = entry_hi(e->b);
        first = entry_bm(e->b);
        if (e_lo >= beta || e_lo == e_hi) return e_lo;
        if (e_hi <= alpha) return e_hi;
        if (e_lo > alpha) alpha = e_lo;
        if (e_hi < beta) beta = e_hi;
    }
    if (n == 3) {  /* searched out: the exact value goes to the table */
        int v = three_left(s, aL, aO, R);
        tt_store(s, aL, aO, v, v, -1);
        return v;
    }
    uint64_t hL = held(s, aL), hO = held(s, aO);
    if (!known) {  /* quick bounds, from the tricks each side surely wins */
        int lo = sure_points(s, hL, hO, aL), hi = R - sure_points(s, hO, hL, 0);
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        e_lo = lo;  /* kept in the table with what the search finds */
        e_hi = hi;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int a0 = alpha, b0 = beta;
    /* the table's best lead first; then the leads that no reply can beat, strongest
     * first; then the others, cheapest first, of one point value those with a face-down
     * card under them first, then strongest first */
    if (first >= 0 && (!(aL & BIT(first)) || merged(s, first, aL, hO))) first = -1;
    uint64_t rest = first >= 0 ? aL ^ BIT(first) : aL, sure = above(aL & TRUMPS, aO & TRUMPS);
    for (int i = 0; i < 3; i++)  /* a plain lead: beaten by a higher card of its suit, or */
        if ((aO & SUIT(i)) || !(aO & TRUMPS))  /* by a trump if the follower has none of it */
            sure |= above(aL & SUIT(i), aO & SUIT(i));
    int best = -1, bm = -1;
    for (int c = first, i = 0; c >= 0 || rest; c = -1) {
        if (c < 0) {
            if (rest & sure) {
                c = top_bit(rest & sure);
            } else {
                while (!(rest & t->valmask[i])) i++;
                uint64_t y = rest & t->valmask[i];
                c = top_bit(y & s->covered ? y & s->covered : y);
            }
            rest ^= BIT(c);
            if (merged(s, c, aL, hO)) continue;
        }
        int worst = after_lead(s, aL, aO, hL, R, n, c, alpha > best ? alpha : best, beta);
        if (worst > best) {
            best = worst;
            bm = c;
            if (best >= beta) break;
        }
    }
    /* the recursion may have moved the table: store by key, with the bounds read above */
    if (best <= a0)
        tt_store(s, aL, aO, e_lo, best, bm);
    else if (best >= b0)
        tt_store(s, aL, aO, best, e_hi, bm);
    else
        tt_store(s, aL, aO, best, best, bm);
    return best;
}

/* What a null-window test searches: the position (aL, aO), with R points in its n tricks
 * left, or (c >= 0) the position right after its leader leads c (hL: the leader's cards,
 * the face-down ones included). */
typedef struct {
    uint64_t aL, aO, hL;
    int R, n, c;
} Root;

static inline int test(Searcher *s, const Root *q, int gamma) {
    if (q->c < 0) return ab(s, q->aL, q->aO, q->R, q->n, gamma - 1, gamma);
    return after_lead(s, q->aL, q->aO, q->hL, q->R, q->n, q->c, gamma - 1, gamma);
}

/* The root's value within (alpha, beta), found by null-window tests (MTD): each asks "at
 * least gamma?" and raises the proven lower bound lo or lowers the proven upper bound hi,
 * until they meet or leave the window; the table keeps what each test learnt for the
 * next. The first test is at the guess g; while only one bound has moved, the tests
 * stride away from it in doubling steps, then they halve the interval. */
static int mtd(Searcher *s, const Root *q, int lo, int hi, int alpha, int beta, int g) {
    int step = 1, moved = 0;  /* moved: 1 if lo moved, 2 if hi moved, 3 if both */
    while (lo < hi && lo < beta && hi > alpha) {
        int gamma = g <= lo ? lo + 1 : g > hi ? hi : g;  /* the test: value >= gamma? */
        int v = test(s, q, gamma);
        if (v >= gamma) {
            lo = v;
            moved |= 1;
            g = moved == 3 ? (lo + hi + 1) / 2 : lo + step;
        } else {
            hi = v;
            moved |= 2;
            g = moved == 3 ? (lo + hi + 1) / 2 : hi + 1 - step;
        }
        step *= 2;
    }
    if (lo == hi) {
        s->last_v = lo;
        s->last_r = q->R;
        s->last_L = q->aL;
    }
    return lo >= beta || lo == hi ? lo : hi;
}

/* A first guess at the value of a position: the last exact value found, scaled to the
 * points left (sibling positions have similar shares), and seen from this leader's side
 * (the one holding more of that leader's cards is taken for the same player). */
static inline int guess(const Searcher *s, uint64_t aL, uint64_t aO, int R) {
    if (s->last_r <= 0) return R / 2;
    int g = s->last_v * R / s->last_r;
    return wk_popcount(aO & s->last_L) > wk_popcount(aL & s->last_L) ? R - g : g;
}

/* The value within (alpha, beta) as ab gives it, by mtd: the first test at the window's
 * edge (alpha + 1, or beta), where the callers' windows usually settle; without one, at
 * the guess. */
static int search(Searcher *s, uint64_t aL, uint64_t aO, int R, int n, int alpha, int beta) {
    if (n <= 3 || beta - alpha <= 1) return ab(s, aL, aO, R, n, alpha, beta);
    int lo = 0, hi = R, g = guess(s, aL, aO, R);
    canonical(s, &aL, &aO);
    Entry *e = probe(s, aL, aO);
    if (e->b & USED) {
        int e_lo = entry_lo(e->b), e_hi = entry_hi(e->b);
        if (e_lo > lo) lo = e_lo;
        if (e_hi < hi) hi = e_hi;
    }
    if (alpha >= lo)
        g = alpha + 1;
    else if (beta <= hi)
        g = beta;
    Root q = {aL, aO, 0, R, n, -1};
    return mtd(s, &q, lo, hi, alpha, beta, g);
}
#endif
