/* The state the rules work on (RULES R1-R20 over the card bit sets of cards.py): the
 * constants, the rule tables (wk_rules) and a batch of games (wk_batch). Plain C99.
 *
 * Nothing here is a rule table of its own: wk_rules is filled from cards.py at import
 * (FOLLOW, BEATS, POINTS, SPITZER, TRUMP_MASK; bind.c's configure_rules) and a batch's
 * variant numbers from cards.Variant, so the rules keep one source.
 *
 * A batch is vector/engine.py's VecGame: struct-of-arrays, one entry (or a row) per game,
 * written in place; a scalar Game is a batch of one (game.c).
 */
#ifndef WIDDERKOPF_STATE_H
#define WIDDERKOPF_STATE_H

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

/* A variant's numbers into a batch (cards.Variant's; the hand values' table is set apart,
 * where its buffer is held): the batch's (bind.c) and a Game's (game_io.c) alike. */
static inline void wk_set_variant(wk_batch *b, int64_t tricks, int64_t win, int64_t total,
                                  int64_t schneider, int64_t spitzer, uint64_t deck,
                                  const uint64_t trump_mask[4]) {
    b->ntricks_per_hand = tricks;
    b->win = win;
    b->total = total;
    b->schneider = schneider;
    b->has_spitzer = spitzer;
    b->deck = deck;
    b->hv_stride = total + 1;
    for (int t = 0; t < 4; t++) b->trump_mask[t] = trump_mask[t];
}

#if defined(__GNUC__) || defined(__clang__)
#define WK_INLINE __attribute__((always_inline))
#else
#define WK_INLINE
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
#endif
