/* The observation encoder in C: the layout's pieces (WK_PIECES, checked against
 * observation.OFFSETS by module.c's configure), the encoder's scales (wk_layout) and
 * wk_encode, which writes one game's row as vector/encode.py's encode does (its
 * reference). Plain C99, but for the Python helpers at the end (when <Python.h> came
 * first).
 */
#ifndef WIDDERKOPF_ENCODE_H
#define WIDDERKOPF_ENCODE_H

#include "rules.h"

/* The observation's pieces as observation.PIECES lists them: (name, entries), in order,
 * back to back from entry 0; the 0/1 pieces come first, then the nine scaled numbers.
 * module.c's configure() checks observation.OFFSETS against this list and refuses a
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

/* One game's fields for wk_encode_one (game_io.c), read from any object's attributes
 * (module.c's encode); legal only where the player observed is to act and the episode is
 * not over, deck the variant's cards. */
typedef struct {
    uint64_t hand[2], upbits[2], covered[2], played[2], won[2], legal, deck;
    int64_t discard[2], trick_points[2], scores[2], phase, current, trump, dealer, chooser,
        leader, lead, lead_pile, level, cracker, hand_no, num_hands, ntricks;
} wk_one;
PyObject *wk_encode_one(wk_one *g, long long p, int over);
int wk_write_one(const wk_one *g, long long p, int over, float *obs32, uint8_t *obs8,
                 int8_t *mask);
#endif

#endif
