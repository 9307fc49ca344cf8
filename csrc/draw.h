/* The vector env's deal generator in C: vector/deals.py's counter-based shuffle (its
 * reference; tests/vector/test_vector_differential.py ties them). Plain C99. */
#ifndef WIDDERKOPF_DRAW_H
#define WIDDERKOPF_DRAW_H

#include "state.h"

/* The deal source's counter-based generator (vector/deals.py, its reference): deal d of
 * game i shuffles the variant's m cards by the splitmix64 sequence at
 * mix(mix(key + (i + 1) G) + (d + 1) G); output 0's top bit is a new match's first
 * dealer, output t >= 1 swaps place m - t with one drawn below it. */
#define WK_GOLDEN UINT64_C(0x9E3779B97F4A7C15)
static inline uint64_t wk_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t wk_deal_start(uint64_t key, int64_t game, uint64_t draw) {
    return wk_mix(wk_mix(key + ((uint64_t)game + 1) * WK_GOLDEN) + (draw + 1) * WK_GOLDEN);
}

/* The deal at `start` of cards[0..m) (m <= 36): hands as bit sets, up/down 10 piles each
 * (pile q of player p at 5p + q, -1 where the variant has none), deals.layout's order */
static inline void wk_shuffle_deal(uint64_t start, const int64_t *cards, int m, int hand_size,
                                   int piles, uint64_t hand[2], int64_t up[10],
                                   int64_t down[10]) {
    int64_t order[WK_CARDS];
    for (int k = 0; k < m; k++) order[k] = cards[k];
    for (int t = 1; t < m; t++) {
        int j = m - t;
        uint64_t x = wk_mix(start + (uint64_t)t * WK_GOLDEN);
        int r = (int)(((x >> 32) * (uint64_t)(j + 1)) >> 32);
        int64_t c = order[j];
        order[j] = order[r];
        order[r] = c;
    }
    int block = hand_size + 2 * piles;
    for (int p = 0; p < 2; p++) {
        const int64_t *o = order + p * block;
        hand[p] = 0;
        for (int k = 0; k < hand_size; k++) hand[p] |= UINT64_C(1) << o[k];
        for (int q = 0; q < WK_PILES; q++) {
            up[WK_PILES * p + q] = q < piles ? o[hand_size + q] : -1;
            down[WK_PILES * p + q] = q < piles ? o[hand_size + piles + q] : -1;
        }
    }
}

#endif
