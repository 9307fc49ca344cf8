/* The self-play vector env's step in C, in one call (vec_play): every game's move, its
 * reward on the env's ledger (vector/ledger.py), the next hand or match dealt from the
 * deal source's generator (draw.h, vector/deals.py) and every observation row, on the
 * batch's threads. vector/selfplay.py's FusedStep calls it; WidderkopfVectorEnv._step,
 * the numpy path, is its reference (tests/vector/test_vector_differential.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "draw.h"

/* what vec_play is given besides the game: the self-play env's buffers, its reward ledger
 * (vector/ledger.py) and its deal source's generator (vector/deals.py) */
typedef struct {
    wk_batch *b;
    const int64_t *actions, *cards;
    float *obs32, *final32;
    uint8_t *obs8, *final8, *terminated, *hand_over, *need;
    const uint8_t *seeded;
    int8_t *mask;
    double *reward, *rewards;
    int64_t *mover, *hands, *shaped;
    uint64_t *draws, key;
    int shaping, m, hand_size, piles;
    int64_t num_hands;
} play_ctx;

static inline WK_INLINE void encode_row(const play_ctx *j, int64_t r, int64_t p, int over,
                                        int final) {
    int64_t at = r * WK_OBS_SIZE;
    wk_encode(&wk_batch_rules, &wk_obs_layout, j->b, r, p, over,
              j->obs32 ? (final ? j->final32 : j->obs32) + at : NULL,
              j->obs8 ? (final ? j->final8 : j->obs8) + at : NULL,
              final ? NULL : j->mask + r * WK_ACTIONS);
}

/* games [start, stop): the moves, rewards and deals (need[r] = 1: a seeded match's next
 * hand, left to the caller; its row is not written) */
static inline WK_INLINE void play_range(const play_ctx *j, Py_ssize_t start,
                                        Py_ssize_t stop) {
    wk_batch *b = j->b;
    for (Py_ssize_t r = start; r < stop; r++) {
        int64_t mover = b->current[r], counted = b->res_count[r];
        int need = wk_apply(&wk_batch_rules, b, r, j->actions[r]);
        double x = wk_settle(b, r, j->hands, j->shaped, j->shaping);
        j->mover[r] = mover;
        j->rewards[2 * r] = x;
        j->rewards[2 * r + 1] = -x;
        j->reward[r] = mover == 0 ? x : -x;
        j->hand_over[r] = b->res_count[r] != counted;
        j->terminated[r] = b->phase[r] == WK_OVER;
        j->need[r] = 0;
        if (need && j->seeded[r]) {  /* a seeded match's next hand: Python deals it */
            j->need[r] = 1;
            continue;
        }
        if (need || j->terminated[r]) {
            uint64_t hand[2];
            int64_t up[10], down[10];
            uint64_t start_at = wk_deal_start(j->key, r, j->draws[r]);
            wk_shuffle_deal(start_at, j->cards, j->m, j->hand_size, j->piles, hand, up,
                            down);
            j->draws[r] += 1;
            if (j->terminated[r]) {  /* the ended match's last row, then a new match */
                encode_row(j, r, mover, 1, 1);
                j->hands[r] = j->shaped[r] = 0;
                wk_new_match(&wk_batch_rules, b, r, (int64_t)(wk_mix(start_at) >> 63),
                             j->num_hands, hand, up, down);
            } else {
                wk_start_hand(&wk_batch_rules, b, r, hand[0], hand[1], up, down);
            }
        }
    }
}

/* the slice in blocks of PLAY_BLOCK games: the block's moves, then its rows (the block's
 * state is still in cache) */
#define PLAY_BLOCK 64
WK_ROW_WRITER static void play_slice(void *c, Py_ssize_t start, Py_ssize_t stop) {
    const play_ctx *j = (const play_ctx *)c;
    for (Py_ssize_t s = start; s < stop; s += PLAY_BLOCK) {
        Py_ssize_t t = s + PLAY_BLOCK < stop ? s + PLAY_BLOCK : stop;
        play_range(j, s, t);
        for (Py_ssize_t r = s; r < t; r++)
            if (!j->need[r]) encode_row(j, r, j->b->current[r], 0, 0);
    }
}

/* vec_play's buffers, each given by keyword: the argument and the buffer it is read into */
typedef struct {
    PyObject *actions, *obs_out, *mask_out, *final_out, *reward_out, *rewards_out,
        *terminated_out, *hand_over_out, *mover_out, *need_out, *seeded, *hands, *shaped,
        *draws, *cards, *ended_out;
} play_args;
typedef struct {
    Py_buffer actions, obs_out, mask_out, final_out, reward_out, rewards_out, terminated_out,
        hand_over_out, mover_out, need_out, seeded, hands, shaped, draws, cards, ended_out;
} play_views;

/* each buffer's dtype (-1: an observation, float32 or uint8), items per game (0: the
 * variant's cards, in all) and whether vec_play writes it */
typedef struct {
    const char *name;
    int kind, per, writable;
    size_t arg, view;
} play_spec;
#define P(name, kind, per, writable) \
    {#name, kind, per, writable, offsetof(play_args, name), offsetof(play_views, name)}
static const play_spec PLAY_BUFFERS[] = {
    P(actions, K_I64, 1, 0), P(obs_out, -1, 1, 1), P(mask_out, K_I8, WK_ACTIONS, 1),
    P(final_out, -1, 1, 1), P(reward_out, K_F64, 1, 1), P(rewards_out, K_F64, 2, 1),
    P(terminated_out, K_BOOL, 1, 1), P(hand_over_out, K_BOOL, 1, 1),
    P(mover_out, K_I64, 1, 1), P(need_out, K_I64, 1, 1), P(seeded, K_BOOL, 1, 0),
    P(hands, K_I64, 1, 1), P(shaped, K_I64, 1, 1), P(draws, K_U64, 1, 1),
    P(cards, K_I64, 0, 0), P(ended_out, K_I64, 1, 1),
};
#undef P
#define N_PLAY_BUFFERS ((int)(sizeof(PLAY_BUFFERS) / sizeof(PLAY_BUFFERS[0])))
/* the table names every buffer of play_views */
typedef char play_buffers_fit[sizeof(play_views) == N_PLAY_BUFFERS * sizeof(Py_buffer) ? 1 : -1];

#define PLAY_VIEW(views, k) ((Py_buffer *)((char *)(views) + PLAY_BUFFERS[k].view))

/* the first `got` buffers of PLAY_BUFFERS released */
static void release_play(play_views *pv, int got) {
    for (int k = 0; k < got; k++) PyBuffer_Release(PLAY_VIEW(pv, k));
}

/* every buffer of PLAY_BUFFERS from its argument (n games, the variant's `cards` cards);
 * -1 with a ValueError (nothing held) when one does not fit */
static int get_play_buffers(const play_args *pa, Py_ssize_t n, Py_ssize_t cards,
                            play_views *pv, int *is_f32) {
    int final_f32 = 0;
    for (int k = 0; k < N_PLAY_BUFFERS; k++) {
        const play_spec *s = &PLAY_BUFFERS[k];
        PyObject *obj = *(PyObject *const *)((const char *)pa + s->arg);
        Py_buffer *view = PLAY_VIEW(pv, k);
        int err = s->kind < 0
            ? wk_get_obs(obj, s->name, n, view, s->view == offsetof(play_views, obs_out) ? is_f32
                                                                              : &final_f32)
            : wk_get_array(obj, s->name, s->kind, s->per ? n * s->per : cards, s->writable, view);
        if (err) {
            release_play(pv, k);
            return -1;
        }
    }
    if (*is_f32 != final_f32) {
        release_play(pv, N_PLAY_BUFFERS);
        PyErr_SetString(PyExc_ValueError, "obs_out and final_out must have one dtype");
        return -1;
    }
    return 0;
}

/* play(game, *, actions, obs_out, mask_out, final_out, reward_out, rewards_out,
 * terminated_out, hand_over_out, mover_out, need_out, seeded, hands, shaped, draws, cards,
 * ended_out, key, shaping, hand_size, piles, num_hands, num_threads) -> (k, e), or -1
 * (nothing changed) when an action is not legal or a game's arrays are out of range (the
 * caller's numpy path then says which).
 * The self-play vector env's step (vector/env.py's _step_self; its numpy reference is
 * _step): every game's move, the mover's reward settled on the ledger (hands, shaped:
 * VecRewardLedger's arrays), every row written for the player to act; a game whose match
 * ended gets its last row (the mover's, as over) and a new match of num_hands
 * hands, a game whose hand ended the next hand, both dealt from the generator (key; draws:
 * the deal counters; cards: the variant's). A game of a seeded match (seeded) whose hand
 * ended is left to the caller: need_out[:k] lists those, their rows not written. The e
 * games whose match ended are ended_out[:e], in order, their last rows final_out[:e]. */
PyObject *wk_vec_play(PyObject *self, PyObject *args, PyObject *kwds) {
    (void)self;
    static char *kwlist[] = {
        "game", "actions", "obs_out", "mask_out", "final_out", "reward_out", "rewards_out",
        "terminated_out", "hand_over_out", "mover_out", "need_out", "seeded", "hands",
        "shaped", "draws", "cards", "ended_out", "key", "shaping", "hand_size", "piles",
        "num_hands", "num_threads", NULL};
    PyObject *game;
    play_args a;
    unsigned long long key;
    int shaping, hand_size, piles;
    long long num_hands;
    long threads;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwds, "O$OOOOOOOOOOOOOOOOKpiiLl", kwlist, &game, &a.actions, &a.obs_out,
            &a.mask_out, &a.final_out, &a.reward_out, &a.rewards_out, &a.terminated_out,
            &a.hand_over_out, &a.mover_out, &a.need_out, &a.seeded, &a.hands, &a.shaped,
            &a.draws, &a.cards, &a.ended_out, &key, &shaping, &hand_size, &piles, &num_hands,
            &threads)
        || wk_check_threads(threads))
        return NULL;
    if (wk_encoder_unready()) return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_ssize_t n = (Py_ssize_t)bb.b.n, count = 0, nend = 0, cards = PyObject_Length(a.cards);
    play_views v;
    int is_f32 = 0, err = cards < 2 || cards > WK_CARDS || hand_size < 1 || piles < 0
        || piles > WK_PILES || 2 * (hand_size + 2 * piles) != cards || num_hands < 1;
    if (err) PyErr_SetString(PyExc_ValueError, "play: the variant's deal is out of range");
    if (!err) err = get_play_buffers(&a, n, cards, &v, &is_f32);
    int held = !err;
    const int64_t *acts = err ? NULL : (const int64_t *)v.actions.buf;
    for (Py_ssize_t r = 0; !err && r < (Py_ssize_t)cards; r++) {
        int64_t card = ((const int64_t *)v.cards.buf)[r];
        if (card < 0 || card >= WK_CARDS) {
            PyErr_SetString(PyExc_ValueError, "play: cards must be card ids 0..35");
            err = 1;
        }
    }
    uint8_t *scratch = err ? NULL : (uint8_t *)PyMem_Malloc(n + 1);
    if (!err && scratch == NULL) {
        PyErr_NoMemory();
        err = 1;
    }
    int illegal = !err && wk_first_bad_move(&bb.b, NULL, acts, n, (int)threads, scratch) >= 0;
    if (!err && !illegal) {
        play_ctx j = {&bb.b, acts, (const int64_t *)v.cards.buf,
                      is_f32 ? (float *)v.obs_out.buf : NULL,
                      is_f32 ? (float *)v.final_out.buf : NULL,
                      is_f32 ? NULL : (uint8_t *)v.obs_out.buf,
                      is_f32 ? NULL : (uint8_t *)v.final_out.buf,
                      (uint8_t *)v.terminated_out.buf, (uint8_t *)v.hand_over_out.buf, scratch,
                      (const uint8_t *)v.seeded.buf, (int8_t *)v.mask_out.buf,
                      (double *)v.reward_out.buf, (double *)v.rewards_out.buf,
                      (int64_t *)v.mover_out.buf, (int64_t *)v.hands.buf,
                      (int64_t *)v.shaped.buf, (uint64_t *)v.draws.buf, (uint64_t)key, shaping,
                      (int)cards, hand_size, piles, (int64_t)num_hands};
        Py_BEGIN_ALLOW_THREADS
        wk_parallel_for((int)threads, n, play_slice, &j);
        Py_END_ALLOW_THREADS
        int64_t *out = (int64_t *)v.need_out.buf, *ended = (int64_t *)v.ended_out.buf;
        /* the games to deal and the ended ones, in order; the ended games' last rows moved
         * up to rows 0..nend-1 */
        size_t row = (size_t)WK_OBS_SIZE * (is_f32 ? sizeof(float) : 1);
        char *fin = (char *)v.final_out.buf;
        const uint8_t *term = (const uint8_t *)v.terminated_out.buf;
        for (Py_ssize_t r = 0; r < n; r++) {
            if (scratch[r]) out[count++] = r;
            if (!term[r]) continue;
            if (nend != r) memcpy(fin + (size_t)nend * row, fin + (size_t)r * row, row);
            ended[nend++] = r;
        }
    }
    PyMem_Free(scratch);
    if (held) release_play(&v, N_PLAY_BUFFERS);
    wk_unbind(&bb);
    if (err) return NULL;
    if (illegal) return PyLong_FromLong(-1);
    return Py_BuildValue("(nn)", count, nend);
}
