/* The Widderkopf rules (RULES R1-R20) in C, over the card bit sets of cards.py.
 *
 * Plain C99, no Python: _speedups.c binds it to numpy arrays, and other C code (the
 * solver) may include it for the same tables. Nothing here is a rule table of its own:
 * wk_rules is filled from cards.py at import (FOLLOW, BEATS, POINTS, SPITZER, TRUMP_MASK)
 * and a batch's variant numbers from cards.Variant, so the rules keep one source.
 *
 * A batch is vector/engine.py's VecGame: struct-of-arrays, one entry (or a row) per game,
 * written in place. Every function below reads and writes game i only, so games may be
 * stepped from several threads at once when each thread owns its games.
 */
#ifndef WIDDERKOPF_CORE_H
#define WIDDERKOPF_CORE_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <math.h>

#define WK_CARDS 36
#define WK_ACTIONS 42
#define WK_TRUMP_ACTION 36
#define WK_ESCALATE 40
#define WK_PASS 41
#define WK_PILES 5
#define WK_MAX_LEVEL 4
#define WK_HISTORY 48
#define WK_ALL_CARDS ((UINT64_C(1) << WK_CARDS) - 1)
enum { WK_TRUMP, WK_DISCARD, WK_PLAY, WK_ANSWER, WK_OVER };  /* engine_types.Phase */

/* cards.py's tables (wk_configure_rules fills them) */
typedef struct {
    uint64_t follow[4][WK_CARDS];          /* FOLLOW[t][c] (R15) */
    uint8_t beats[4][WK_CARDS * WK_CARDS]; /* BEATS[t][led * 36 + other] (R16) */
    int64_t points[WK_CARDS];              /* POINTS (R4) */
    int64_t spitzer[4];                    /* SPITZER (R5) */
    uint64_t trump_mask[4];                /* TRUMP_MASK (R2) */
} wk_rules;

/* The observation's pieces as observation.PIECES lists them: (name, entries), in order,
 * back to back from entry 0; the 0/1 pieces come first, then the nine scaled numbers.
 * _speedups.c's configure() checks observation.OFFSETS against this list and refuses a
 * layout that differs, so that the encoder's offsets below are constants. */
#define WK_PIECES(X)                                                                        \
    X(hand, 36) X(my_up, 36) X(my_covered, 36) X(opp_up, 36) X(opp_covered, 36)              \
    X(my_discard, 36) X(lead, 36) X(my_played, 36) X(opp_played, 36) X(my_won, 36)           \
    X(opp_won, 36) X(unseen, 36) X(trumps, 36) X(legal_cards, 36) X(pending, 2) X(phase, 5)  \
    X(my_turn, 1) X(trump_suit, 5) X(crack_level, 5) X(may_escalate, 2) X(cracker, 2)        \
    X(roles, 3) X(opp_discarded, 1) X(tiebreak, 1) X(trick_points, 2) X(tricks_done, 1)      \
    X(opp_hand_size, 1) X(face_down, 2) X(match_scores, 2) X(hands_left, 1)
#define WK_PIECE_FIELD(name, size) char name[size];
typedef struct { WK_PIECES(WK_PIECE_FIELD) } wk_pieces;  /* an entry per byte: offsetof */
#undef WK_PIECE_FIELD
#define WK_AT(name) ((int64_t)offsetof(wk_pieces, name))
#define WK_OBS_SIZE ((int64_t)sizeof(wk_pieces))
#define WK_NBITS WK_AT(trick_points) /* the 0/1 entries: those before the scaled ones */

/* The encoder's scales (observation's constants and the variant's numbers, configure). */
typedef struct {
    double total_points, tricks, hand_size, piles, score_scale, hands_left_cap;
} wk_layout;

/* One batch: VecGame's arrays (shapes per game in brackets) and its variant's numbers. */
typedef struct {
    int64_t n;
    uint64_t *hand, *upbits, *covered, *played, *won;              /* [2] */
    int64_t *discard, *trick_points, *scores, *initial_scores;     /* [2] */
    int64_t *phase, *current, *trump, *dealer, *first_dealer, *chooser, *leader, *lead,
        *lead_pile, *level, *cracker, *recracker, *hand_no, *num_hands, *ntricks;
    int64_t *res_count, *res_hand, *res_dealer, *res_trump, *res_spitzer, *res_winner,
        *res_crack_level, *res_value;
    int64_t *res_card_points, *res_trick_points, *res_discards, *res_scores; /* [2] */
    uint8_t *res_schneider, *res_schwarz;
    int64_t *up, *down, *deal_up, *deal_down;                      /* [10] */
    int64_t *tricks;                                               /* [T][4] */
    uint64_t *legal;
    int8_t *history;                                               /* [48] */
    int64_t *hlen;
    /* the variant */
    int64_t ntricks_per_hand, win, total, schneider, has_spitzer, hv_stride;
    uint64_t deck, trump_mask[4];
    const int64_t *hand_value;                                     /* [5][total + 1] */
} wk_batch;

/* Row b: the 8 bits of byte b, least significant first, as floats and as bytes; each
 * file that encodes has its own copy and fills it with wk_init_tables before use. */
static float wk_byte_floats[256][8];
static uint8_t wk_byte_bytes[256][8];

static inline void wk_init_tables(void) {
    for (int v = 0; v < 256; v++)
        for (int k = 0; k < 8; k++) {
            wk_byte_floats[v][k] = (float)((v >> k) & 1);
            wk_byte_bytes[v][k] = (uint8_t)((v >> k) & 1);
        }
}

#if defined(__GNUC__) || defined(__clang__)
#define WK_INLINE __attribute__((always_inline))
#else
#define WK_INLINE
#endif
/* a loop of 8 steps unrolled (its shifts become constants) */
#if defined(__clang__)
#define WK_UNROLL8 _Pragma("unroll 8")
#elif defined(__GNUC__)
#define WK_UNROLL8 _Pragma("GCC unroll 8")
#else
#define WK_UNROLL8
#endif

/* A function that writes observation rows, compiled twice where the compiler and the
 * platform allow it (GCC on x86 Linux: target_clones, picked once at load by the CPU):
 * with AVX2 (32-byte stores spread the row's bits) and for the baseline; the same
 * results. Its callees are inlined into each copy (WK_INLINE): the AVX2 copy must not
 * call code compiled for the baseline, whose SSE instructions stall while the upper
 * halves of the vector registers are in use (wk_apply and the rules it calls are
 * WK_INLINE for that). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WK_ROW_WRITER __attribute__((target_clones("avx2", "default")))
#else
#define WK_ROW_WRITER
#endif

static inline int wk_popcount(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
#endif
}

/* Game.may_escalate (R11) */
static inline int wk_may_escalate(const wk_batch *b, int64_t i, int64_t p) {
    int64_t level = b->level[i];
    if (level >= WK_MAX_LEVEL || b->played[2 * i + p] || b->phase[i] == WK_OVER) return 0;
    if (level == 0) return 1;
    int64_t turn = (level % 2 == 0) ? b->cracker[i] : 1 - b->cracker[i];
    return p == turn;
}

/* Game.escalation_rights: nobody may escalate once both have played */
static inline void wk_rights(const wk_batch *b, int64_t i, int out[2]) {
    if (b->played[2 * i] && b->played[2 * i + 1]) {
        out[0] = out[1] = 0;
        return;
    }
    out[0] = wk_may_escalate(b, i, 0);
    out[1] = wk_may_escalate(b, i, 1);
}

/* Game._compute_legal: the legal action bits of the player to act */
static inline void wk_compute_legal(const wk_rules *r, wk_batch *b, int64_t i) {
    int64_t phase = b->phase[i], p = b->current[i];
    uint64_t m = 0;
    if (phase == WK_PLAY) {
        m = b->hand[2 * i + p] | b->upbits[2 * i + p];
        int64_t lead = b->lead[i];
        if (lead >= 0) {
            uint64_t f = m & r->follow[b->trump[i]][lead];
            if (f) m = f;
        }
        if (wk_may_escalate(b, i, p)) m |= UINT64_C(1) << WK_ESCALATE;
    } else if (phase == WK_ANSWER) {
        m = (UINT64_C(1) << WK_ESCALATE) | (UINT64_C(1) << WK_PASS);
    } else if (phase == WK_DISCARD) {
        m = b->hand[2 * i + p];
    } else if (phase == WK_TRUMP) {
        m = UINT64_C(0xF) << WK_TRUMP_ACTION;
    }
    b->legal[i] = m;
}

/* A new hand of game i from its deal (Game._start_hand); hand_no, scores and
 * first_dealer are already set. up/down: 10 cards or -1 each. */
static inline void wk_start_hand(const wk_rules *r, wk_batch *b, int64_t i,
                                 uint64_t hand0, uint64_t hand1,
                                 const int64_t *up, const int64_t *down) {
    int64_t dealer = b->first_dealer[i] ^ (b->hand_no[i] & 1);
    int64_t s0 = b->scores[2 * i], s1 = b->scores[2 * i + 1];
    int64_t chooser = s0 != s1 ? (s0 > s1) : 1 - dealer;
    b->dealer[i] = dealer;
    b->chooser[i] = chooser;
    b->phase[i] = WK_TRUMP;
    b->current[i] = chooser;
    b->trump[i] = -1;
    b->hand[2 * i] = hand0;
    b->hand[2 * i + 1] = hand1;
    uint64_t ub[2] = {0, 0};
    for (int k = 0; k < 2 * WK_PILES; k++) {
        b->up[10 * i + k] = b->deal_up[10 * i + k] = up[k];
        b->down[10 * i + k] = b->deal_down[10 * i + k] = down[k];
        if (up[k] >= 0) ub[k / WK_PILES] |= UINT64_C(1) << up[k];
    }
    b->hlen[i] = 0;
    for (int p = 0; p < 2; p++) {
        b->upbits[2 * i + p] = b->covered[2 * i + p] = ub[p];
        b->discard[2 * i + p] = -1;
        b->won[2 * i + p] = b->played[2 * i + p] = 0;
        b->trick_points[2 * i + p] = 0;
    }
    b->lead[i] = b->lead_pile[i] = -1;
    b->leader[i] = 1 - dealer;
    b->ntricks[i] = 0;
    int64_t record = 4 * b->ntricks_per_hand;  /* no tricks yet: every entry -1 (all bits) */
    memset(b->tricks + record * i, 0xff, (size_t)record * sizeof(int64_t));
    b->level[i] = 0;
    b->cracker[i] = b->recracker[i] = -1;
    wk_compute_legal(r, b, i);
}

/* A new match in game i (VecGame.new_matches): no scores, hand 0 from the deal given */
static inline void wk_new_match(const wk_rules *r, wk_batch *b, int64_t i, int64_t first_dealer,
                                int64_t num_hands, const uint64_t hand[2], const int64_t *up,
                                const int64_t *down) {
    b->first_dealer[i] = first_dealer;
    b->num_hands[i] = num_hands;
    for (int p = 0; p < 2; p++) b->scores[2 * i + p] = b->initial_scores[2 * i + p] = 0;
    b->hand_no[i] = 0;
    b->res_count[i] = 0;
    wk_start_hand(r, b, i, hand[0], hand[1], up, down);
}

static inline void wk_raise_level(wk_batch *b, int64_t i, int64_t player) {
    int64_t level = ++b->level[i];
    if (level == 1) b->cracker[i] = player;
    else if (level == 2) b->recracker[i] = player;
}

static inline void wk_turn_over(wk_batch *b, int64_t i, int64_t pile) {
    int64_t card = b->down[10 * i + pile];
    b->down[10 * i + pile] = -1;
    b->up[10 * i + pile] = card;
    b->upbits[2 * i + pile / WK_PILES] |= UINT64_C(1) << card;
}

/* Game._finish_hand; returns 1 when the match goes on (a new deal is needed) */
static inline WK_INLINE int wk_finish_hand(const wk_rules *r, wk_batch *b, int64_t i) {
    int64_t t = b->trump[i], d0 = b->discard[2 * i], d1 = b->discard[2 * i + 1];
    int64_t tp0 = b->trick_points[2 * i], tp1 = b->trick_points[2 * i + 1];
    int64_t pts[2] = {tp0 + r->points[d1], tp1 + r->points[d0]};
    int64_t spitzer = -1;
    if (b->has_spitzer) {
        uint64_t pile0 = b->won[2 * i] | (UINT64_C(1) << d1);
        spitzer = ((pile0 >> r->spitzer[t]) & 1) ? 0 : 1;
        pts[spitzer] += 1;
    }
    int64_t winner = pts[0] >= b->win ? 0 : 1, best = pts[winner];
    int64_t value = b->hand_value[b->level[i] * b->hv_stride + best];
    b->scores[2 * i + winner] += value;
    b->res_count[i] += 1;
    b->res_hand[i] = b->hand_no[i];
    b->res_dealer[i] = b->dealer[i];
    b->res_trump[i] = t;
    for (int p = 0; p < 2; p++) {
        b->res_card_points[2 * i + p] = pts[p];
        b->res_trick_points[2 * i + p] = b->trick_points[2 * i + p];
        b->res_discards[2 * i + p] = b->discard[2 * i + p];
        b->res_scores[2 * i + p] = b->scores[2 * i + p];
    }
    b->res_spitzer[i] = spitzer;
    b->res_winner[i] = winner;
    b->res_crack_level[i] = b->level[i];
    b->res_schneider[i] = best >= b->schneider && best < b->total;
    b->res_schwarz[i] = best == b->total;
    b->res_value[i] = value;
    b->hand_no[i] += 1;
    if (b->hand_no[i] >= b->num_hands[i] && b->scores[2 * i] != b->scores[2 * i + 1]) {
        b->phase[i] = WK_OVER;
        b->current[i] = -1;
        return 0;
    }
    return 1;
}

/* Play card c for the player to act (Game._apply_play); 1 if a new deal is needed */
static inline WK_INLINE int wk_play(const wk_rules *r, wk_batch *b, int64_t i, int64_t card) {
    int64_t p = b->current[i], pile = -1;
    uint64_t bit = UINT64_C(1) << card;
    if (b->hand[2 * i + p] & bit) {
        b->hand[2 * i + p] ^= bit;
    } else {  /* a face-up card from pile k (R13); what lies under it turns over later */
        b->upbits[2 * i + p] ^= bit;
        int64_t k = 5 * p;
        while (k < 5 * p + 5 && b->up[10 * i + k] != card) k++;
        b->up[10 * i + k] = -1;
        if (b->down[10 * i + k] >= 0) {
            pile = k;
            b->covered[2 * i + p] &= ~bit;
        }
    }
    b->played[2 * i + p] |= bit;
    int64_t lead = b->lead[i];
    if (lead < 0) {
        b->lead[i] = card;
        b->lead_pile[i] = pile;
        b->current[i] = 1 - p;
        return 0;
    }
    int64_t leader = 1 - p;
    int64_t winner = r->beats[b->trump[i]][lead * WK_CARDS + card] ? p : leader;
    b->won[2 * i + winner] |= (UINT64_C(1) << lead) | bit;
    b->trick_points[2 * i + winner] += r->points[lead] + r->points[card];
    int64_t t = b->ntricks[i];
    int64_t *row = b->tricks + (b->ntricks_per_hand * i + t) * 4;
    row[0] = leader;
    row[1] = lead;
    row[2] = card;
    row[3] = winner;
    b->ntricks[i] = t + 1;
    if (b->lead_pile[i] >= 0) wk_turn_over(b, i, b->lead_pile[i]);
    if (pile >= 0) wk_turn_over(b, i, pile);
    b->lead[i] = b->lead_pile[i] = -1;
    if (t + 1 == b->ntricks_per_hand) return wk_finish_hand(r, b, i);
    b->current[i] = b->leader[i] = winner;
    return 0;
}

/* Apply one legal action to game i (Game.apply without the check: see wk_is_legal).
 * Returns 1 when a hand ended and the match goes on: the caller deals the next hand
 * (wk_start_hand); legal[i] is then stale until it does. */
static inline WK_INLINE int wk_apply(const wk_rules *r, wk_batch *b, int64_t i, int64_t a) {
    int64_t n = b->hlen[i];
    if (n < WK_HISTORY) b->history[WK_HISTORY * i + n] = (int8_t)a;
    b->hlen[i] = n + 1;
    int need = 0;
    int64_t phase = b->phase[i];
    if (phase == WK_PLAY) {
        if (a < WK_TRUMP_ACTION) {
            need = wk_play(r, b, i, a);
        } else {  /* the due player escalates; the other answers at once if they may */
            int64_t due = b->current[i];
            wk_raise_level(b, i, due);
            if (wk_may_escalate(b, i, 1 - due)) {
                b->phase[i] = WK_ANSWER;
                b->current[i] = 1 - due;
            }
        }
    } else if (phase == WK_ANSWER) {
        if (a == WK_ESCALATE) wk_raise_level(b, i, b->current[i]);
        b->phase[i] = WK_PLAY;
        b->current[i] = 1 - b->current[i];
    } else if (phase == WK_DISCARD) {
        int64_t p = b->current[i];
        b->hand[2 * i + p] ^= UINT64_C(1) << a;
        b->discard[2 * i + p] = a;
        if (p == b->dealer[i]) {
            b->phase[i] = WK_PLAY;
            b->current[i] = 1 - b->dealer[i];
        } else {
            b->current[i] = b->dealer[i];
        }
    } else if (phase == WK_TRUMP) {
        b->trump[i] = a - WK_TRUMP_ACTION;
        b->phase[i] = WK_DISCARD;
        b->current[i] = 1 - b->dealer[i];
    }
    if (b->phase[i] == WK_OVER) b->legal[i] = 0;
    else if (!need) wk_compute_legal(r, b, i);
    return need;
}

/* Whether game i's fields lie in the ranges the functions above index with (a state
 * written by them always does; the bindings refuse one that does not, so that a
 * corrupted array raises an error instead of writing out of bounds). */
static inline int wk_state_ok(const wk_batch *b, int64_t i) {
    int64_t phase = b->phase[i], cur = b->current[i];
    if (phase < WK_TRUMP || phase > WK_OVER || b->trump[i] < -1 || b->trump[i] > 3
        || b->level[i] < 0 || b->level[i] > WK_MAX_LEVEL || b->lead[i] < -1
        || b->lead[i] >= WK_CARDS || b->lead_pile[i] < -1 || b->lead_pile[i] >= 2 * WK_PILES
        || b->ntricks[i] < 0 || b->ntricks[i] >= b->ntricks_per_hand + (phase == WK_OVER)
        || b->hlen[i] < 0 || cur < -1 || cur > 1 || (phase != WK_OVER && cur < 0)
        || (phase >= WK_PLAY && phase != WK_OVER && b->trump[i] < 0)
        || (b->lead[i] >= 0 && b->trump[i] < 0))
        return 0;
    for (int p = 0; p < 2; p++) {
        int64_t d = b->discard[2 * i + p];
        if (d < -1 || d >= WK_CARDS) return 0;
        if (phase == WK_OVER && d < 0) return 0;  /* the hand's end reads both discards */
    }
    for (int k = 0; k < 2 * WK_PILES; k++) {
        int64_t u = b->up[10 * i + k], d = b->down[10 * i + k];
        if (u < -1 || u >= WK_CARDS || d < -1 || d >= WK_CARDS) return 0;
    }
    return 1;
}

static inline int wk_is_legal(const wk_batch *b, int64_t i, int64_t a) {
    return a >= 0 && a < WK_ACTIONS && ((b->legal[i] >> a) & 1);
}

/* The observation of game i seen by player p, as vector/encode.py's encode writes it:
 * float32 entries (obs32) or the compact uint8 form (obs8: 0/1 entries as 0/1, a scaled
 * number x as round(x * 255), observation.to_compact); the other pointer is NULL.
 * over: the episode ended early (no legal actions shown). mask: 42 int8 (NULL: none). */
static inline WK_INLINE void wk_encode(const wk_rules *r, const wk_layout *L, const wk_batch *b,
                             int64_t i, int64_t p, int over, float *obs32, uint8_t *obs8,
                             int8_t *mask) {
    (void)r;
    int64_t o = 1 - p, phase = b->phase[i], current = b->current[i], trump = b->trump[i];
    uint64_t legal = (current == p && !over) ? b->legal[i] : 0;
    uint64_t my_hand = b->hand[2 * i + p], opp_hand = b->hand[2 * i + o];
    uint64_t my_up = b->upbits[2 * i + p], opp_up = b->upbits[2 * i + o];
    uint64_t my_cov = b->covered[2 * i + p], opp_cov = b->covered[2 * i + o];
    uint64_t my_played = b->played[2 * i + p], opp_played = b->played[2 * i + o];
    int64_t my_disc = b->discard[2 * i + p], opp_disc = b->discard[2 * i + o];
    uint64_t my_discard = my_disc >= 0 ? UINT64_C(1) << my_disc : 0;
    uint64_t seen = my_hand | my_up | opp_up | my_played | opp_played | my_discard;
    int64_t pile = b->lead_pile[i];
    int my_pending = pile >= 0 && pile / WK_PILES == p;
    int opp_pending = pile >= 0 && pile / WK_PILES != p;
    int rights[2];
    wk_rights(b, i, rights);
    int64_t left = b->num_hands[i] - b->hand_no[i];
    int64_t cracker = b->cracker[i];
    /* the 0/1 entries: 64-bit words (constant offsets: the words stay in registers),
     * then spread over the output row */
    uint64_t words[(WK_NBITS + 63) / 64 + 1] = {0};
#define WK_PUT(piece, value, width)                                                \
    do {                                                                           \
        uint64_t v_ = (value);                                                     \
        words[WK_AT(piece) / 64] |= v_ << (WK_AT(piece) % 64);                     \
        if (WK_AT(piece) % 64 + (width) > 64)                                      \
            words[WK_AT(piece) / 64 + 1] |= (v_ >> 1) >> (63 - WK_AT(piece) % 64); \
    } while (0)
    WK_PUT(hand, my_hand, 36);
    WK_PUT(my_up, my_up, 36);
    WK_PUT(my_covered, my_cov, 36);
    WK_PUT(opp_up, opp_up, 36);
    WK_PUT(opp_covered, opp_cov, 36);
    WK_PUT(my_discard, my_discard, 36);
    WK_PUT(lead, b->lead[i] >= 0 ? UINT64_C(1) << b->lead[i] : 0, 36);
    WK_PUT(my_played, my_played, 36);
    WK_PUT(opp_played, opp_played, 36);
    WK_PUT(my_won, b->won[2 * i + p], 36);
    WK_PUT(opp_won, b->won[2 * i + o], 36);
    WK_PUT(unseen, b->deck ^ seen, 36);
    WK_PUT(trumps, trump >= 0 ? b->trump_mask[trump] : 0, 36);
    WK_PUT(legal_cards, legal & WK_ALL_CARDS, 36);
    WK_PUT(pending, (uint64_t)my_pending | (uint64_t)opp_pending << 1, 2);
    WK_PUT(phase, UINT64_C(1) << phase, 5);
    WK_PUT(my_turn, (uint64_t)(current == p), 1);
    WK_PUT(trump_suit, UINT64_C(1) << (trump >= 0 ? trump : 4), 5);
    WK_PUT(crack_level, UINT64_C(1) << b->level[i], 5);
    WK_PUT(may_escalate, (uint64_t)rights[p] | (uint64_t)rights[o] << 1, 2);
    WK_PUT(cracker, (uint64_t)(cracker == p) | (uint64_t)(cracker == o) << 1, 2);
    WK_PUT(roles, (uint64_t)(b->dealer[i] == p) | (uint64_t)(b->chooser[i] == p) << 1
                      | (uint64_t)(b->leader[i] == p) << 2, 3);
    WK_PUT(opp_discarded, (uint64_t)(opp_disc >= 0), 1);
    WK_PUT(tiebreak, (uint64_t)(left <= 0 && phase != WK_OVER), 1);
#undef WK_PUT
    /* the scaled numbers, in float64 and rounded once to float32 (as the encoders) */
    double s = (double)b->scores[2 * i + p], t = (double)b->scores[2 * i + o];
    double hl = phase == WK_OVER ? 0.0
        : (double)(left < 1 ? 1 : left > (int64_t)L->hands_left_cap ? (int64_t)L->hands_left_cap
                                                                      : left) / L->hands_left_cap;
    float scaled[9] = {
        (float)(b->trick_points[2 * i + p] / L->total_points),
        (float)(b->trick_points[2 * i + o] / L->total_points),
        (float)(b->ntricks[i] / L->tricks),
        (float)(wk_popcount(opp_hand) / L->hand_size),
        (float)((wk_popcount(my_cov) + my_pending) / L->piles),
        (float)((wk_popcount(opp_cov) + opp_pending) / L->piles),
        (float)(s / (s + L->score_scale)),
        (float)(t / (t + L->score_scale)),
        (float)hl,
    };
    const int64_t at[9] = {WK_AT(trick_points), WK_AT(trick_points) + 1, WK_AT(tricks_done),
                           WK_AT(opp_hand_size), WK_AT(face_down), WK_AT(face_down) + 1,
                           WK_AT(match_scores), WK_AT(match_scores) + 1, WK_AT(hands_left)};
    /* byte b of the 0/1 entries spreads over entries 8b..8b+7 through a table row */
    const int64_t nbits = WK_NBITS, nbytes = (nbits + 7) / 8;
    const int64_t spread = 8 * nbytes <= WK_OBS_SIZE ? nbytes : nbytes - 1;
    if (obs32) {
        for (int64_t w = 0; w < spread / 8; w++) {  /* whole words: 8 bytes each */
            uint64_t x = words[w];
            WK_UNROLL8
            for (int k = 0; k < 8; k++) memcpy(obs32 + 64 * w + 8 * k, wk_byte_floats[(uint8_t)(x >> (8 * k))], 32);
        }
        for (int64_t q = spread / 8 * 8; q < spread; q++) memcpy(obs32 + 8 * q, wk_byte_floats[(uint8_t)(words[q / 8] >> (8 * (q % 8)))], 32);
        for (int64_t j = 8 * spread; j < WK_OBS_SIZE; j++)
            obs32[j] = j < nbits ? (float)((words[j / 64] >> (j % 64)) & 1) : 0.0f;
        for (int k = 0; k < 9; k++) obs32[at[k]] = scaled[k];
    } else {
        for (int64_t w = 0; w < spread / 8; w++) {
            uint64_t x = words[w];
            WK_UNROLL8
            for (int k = 0; k < 8; k++) memcpy(obs8 + 64 * w + 8 * k, wk_byte_bytes[(uint8_t)(x >> (8 * k))], 8);
        }
        for (int64_t q = spread / 8 * 8; q < spread; q++) memcpy(obs8 + 8 * q, wk_byte_bytes[(uint8_t)(words[q / 8] >> (8 * (q % 8)))], 8);
        for (int64_t j = 8 * spread; j < WK_OBS_SIZE; j++)
            obs8[j] = j < nbits ? (uint8_t)((words[j / 64] >> (j % 64)) & 1) : 0;
        for (int k = 0; k < 9; k++) obs8[at[k]] = (uint8_t)nearbyint((double)scaled[k] * 255.0);
    }
    if (mask == NULL) return;
    uint8_t lbytes[8];
    for (int q = 0; q < 8; q++) lbytes[q] = (uint8_t)(legal >> (8 * q));
    for (int q = 0; q < WK_ACTIONS / 8; q++) memcpy(mask + 8 * q, wk_byte_bytes[lbytes[q]], 8);
    for (int a = 8 * (WK_ACTIONS / 8); a < WK_ACTIONS; a++) mask[a] = (int8_t)((legal >> a) & 1);
}

#ifdef Py_PYTHON_H
/* The encoders' (player, over) arguments: player 0 or 1, over any truth value; -1 with
 * the exception set otherwise. */
static inline int wk_player_over(PyObject *player, PyObject *flag, long long *p, int *over) {
    *p = PyLong_AsLongLong(player);
    if (*p == -1 && PyErr_Occurred()) return -1;
    if (*p != 0 && *p != 1) {
        PyErr_SetString(PyExc_ValueError, "player must be 0 or 1");
        return -1;
    }
    *over = PyObject_IsTrue(flag);
    return *over < 0 ? -1 : 0;
}

/* One game's fields for wk_encode_one (_scalar_hand.c): read from a Game's slots or from
 * any object's attributes (_speedups.c's encode); legal only where the player observed is
 * to act and the episode is not over, deck the variant's cards. */
typedef struct {
    uint64_t hand[2], upbits[2], covered[2], played[2], won[2], legal, deck;
    int64_t discard[2], trick_points[2], scores[2], phase, current, trump, dealer, chooser,
        leader, lead, lead_pile, level, cracker, hand_no, num_hands, ntricks;
} wk_one;
PyObject *wk_encode_one(wk_one *g, long long p, int over);
int wk_write_one(const wk_one *g, long long p, int over, float *obs32, uint8_t *obs8,
                 int8_t *mask);
int wk_read_game(PyObject *game, long long p, int over, wk_one *g);
#endif

#endif
