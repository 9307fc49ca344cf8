/* The batched engine in C: _core.h's rules over a VecGame's numpy arrays, in place.
 *
 * Each function takes the VecGame itself (bound by _bind.c); the work over the games runs
 * with the GIL released, on num_threads threads, each owning a contiguous slice of the
 * games: every game's result depends on that game only, so any thread count gives the
 * same arrays. vector/engine.py and vector/encode.py call these when the accelerator is
 * loaded, and keep the numpy code they replace as the reference
 * (tests/vector/test_vector_differential.py ties them).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "draw.h"

/* the encoder's layout given (else RuntimeError), and this file's copy of _core.h's
 * byte tables filled (under the GIL, before the first encode) */
static int encoder_unready(void) {
    static int tables_filled = 0;
    if (!wk_layout_ready) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not given the scales");
        return -1;
    }
    if (!tables_filled) {
        wk_init_tables();
        tables_filled = 1;
    }
    return 0;
}

typedef struct {
    wk_batch *b;
    const int64_t *idx, *actions, *player;
    const uint8_t *over;
    uint8_t *need;
    float *obs32;
    uint8_t *obs8;
    int8_t *mask;
} job_ctx;

typedef struct {
    const wk_batch *b;
    const int64_t *ix, *acts;
    uint8_t *bad;
} check_ctx;

static void check_slice(void *c, Py_ssize_t start, Py_ssize_t stop) {
    check_ctx *j = (check_ctx *)c;
    for (Py_ssize_t r = start; r < stop; r++) {
        int64_t i = j->ix ? j->ix[r] : r, a = j->acts[r];
        j->bad[r] = (uint8_t)(!wk_state_ok(j->b, i) || !wk_is_legal(j->b, i, a));
    }
}

/* the first of games ix (NULL: 0..k-1) whose move is not legal or whose state is out of
 * range, checked on `threads` threads (bad: k bytes of scratch); -1 when there is none */
static Py_ssize_t first_bad_move(const wk_batch *b, const int64_t *ix, const int64_t *acts,
                                 Py_ssize_t k, int threads, uint8_t *bad) {
    if (k <= 0) return -1;
    check_ctx c = {b, ix, acts, bad};
    Py_BEGIN_ALLOW_THREADS
    wk_parallel_for(threads, k, check_slice, &c);
    Py_END_ALLOW_THREADS
    const uint8_t *first = (const uint8_t *)memchr(bad, 1, (size_t)k);
    return first == NULL ? -1 : first - bad;
}

/* every move of games ix legal and every state in range, checked before anything
 * changes (first_bad_move); -1 with a ValueError naming the first game that is not */
static int check_moves(const wk_batch *b, const int64_t *ix, const int64_t *acts,
                       Py_ssize_t k, int threads, uint8_t *bad) {
    Py_ssize_t r = first_bad_move(b, ix, acts, k, threads, bad);
    if (r < 0) return 0;
    if (acts[r] < 0 || acts[r] >= WK_ACTIONS)
        PyErr_Format(PyExc_ValueError, "action %lld out of range 0..41", (long long)acts[r]);
    else
        PyErr_Format(PyExc_ValueError, "game %lld: action %lld is not legal (or the game's "
                     "arrays are out of range); nothing was applied",
                     (long long)(ix ? ix[r] : r), (long long)acts[r]);
    return -1;
}

static void apply_slice(void *c, Py_ssize_t start, Py_ssize_t stop) {
    job_ctx *j = (job_ctx *)c;
    for (Py_ssize_t r = start; r < stop; r++)
        j->need[r] = (uint8_t)wk_apply(&wk_batch_rules, j->b, j->idx[r], j->actions[r]);
}

/* apply(game, idx, actions, need_out, num_threads) -> k: one legal action per game of idx
 * (VecGame.apply); need_out[:k] are the games whose next hand must now be dealt, in idx
 * order (VecGame.start_hands deals them) */
static PyObject *vec_apply(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *game, *idx_obj, *act_obj, *need_obj;
    long threads;
    if (!PyArg_ParseTuple(args, "OOOOl", &game, &idx_obj, &act_obj, &need_obj, &threads)
        || wk_check_threads(threads))
        return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_buffer iv, av, nv;
    Py_ssize_t k;
    if (wk_get_idx(idx_obj, &bb.b, &iv, &k)) {
        wk_unbind(&bb);
        return NULL;
    }
    if (wk_get_array(act_obj, "actions", K_I64, k, 0, &av)) {
        PyBuffer_Release(&iv);
        wk_unbind(&bb);
        return NULL;
    }
    if (wk_get_array(need_obj, "need_out", K_I64, bb.b.n, 1, &nv)) {
        PyBuffer_Release(&av);
        PyBuffer_Release(&iv);
        wk_unbind(&bb);
        return NULL;
    }
    const int64_t *acts = (const int64_t *)av.buf, *ix = (const int64_t *)iv.buf;
    Py_ssize_t count = 0;
    uint8_t *need = k > 0 ? (uint8_t *)PyMem_Malloc(k) : NULL;
    if (k > 0 && need == NULL) {
        PyErr_NoMemory();
        k = -1;
    }
    if (k > 0 && check_moves(&bb.b, ix, acts, k, (int)threads, need)) k = -1;
    if (k > 0) {
        job_ctx j = {&bb.b, (const int64_t *)iv.buf, acts, NULL, NULL, need, NULL, NULL, NULL};
        Py_BEGIN_ALLOW_THREADS
        wk_parallel_for((int)threads, k, apply_slice, &j);
        Py_END_ALLOW_THREADS
        int64_t *out = (int64_t *)nv.buf;
        for (Py_ssize_t r = 0; r < k; r++)
            if (need[r]) out[count++] = j.idx[r];
    }
    PyMem_Free(need);
    PyBuffer_Release(&nv);
    PyBuffer_Release(&av);
    PyBuffer_Release(&iv);
    wk_unbind(&bb);
    if (k < 0) return NULL;
    return PyLong_FromSsize_t(count);
}

/* start_hands(game, idx, hand (k, 2) uint64, up (k, 10), down (k, 10)): the next hand of
 * each game of idx from its deal (VecGame._start_hand after the deal source) */
static PyObject *vec_start_hands(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *game, *idx_obj, *hand_obj, *up_obj, *down_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &game, &idx_obj, &hand_obj, &up_obj, &down_obj))
        return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_buffer iv, hv, uv, dv;
    Py_ssize_t k;
    if (wk_get_idx(idx_obj, &bb.b, &iv, &k)) {
        wk_unbind(&bb);
        return NULL;
    }
    int err = wk_get_array(hand_obj, "hand", K_U64, 2 * k, 0, &hv);
    if (!err && (err = wk_get_array(up_obj, "up", K_I64, 10 * k, 0, &uv)) != 0)
        PyBuffer_Release(&hv);
    if (!err && (err = wk_get_array(down_obj, "down", K_I64, 10 * k, 0, &dv)) != 0) {
        PyBuffer_Release(&uv);
        PyBuffer_Release(&hv);
    }
    if (err) {
        PyBuffer_Release(&iv);
        wk_unbind(&bb);
        return NULL;
    }
    const int64_t *ix = (const int64_t *)iv.buf, *up = (const int64_t *)uv.buf,
        *down = (const int64_t *)dv.buf;
    const uint64_t *hand = (const uint64_t *)hv.buf;
    for (Py_ssize_t r = 0; r < k && !err; r++) {
        for (int q = 0; q < 10; q++) {
            if (up[10 * r + q] < -1 || up[10 * r + q] >= WK_CARDS || down[10 * r + q] < -1
                || down[10 * r + q] >= WK_CARDS) {
                PyErr_SetString(PyExc_ValueError, "a deal's pile cards must be in -1..35");
                err = 1;
                break;
            }
        }
    }
    for (Py_ssize_t r = 0; r < k && !err; r++)
        wk_start_hand(&wk_batch_rules, &bb.b, ix[r], hand[2 * r], hand[2 * r + 1], up + 10 * r,
                      down + 10 * r);
    PyBuffer_Release(&dv);
    PyBuffer_Release(&uv);
    PyBuffer_Release(&hv);
    PyBuffer_Release(&iv);
    wk_unbind(&bb);
    if (err) return NULL;
    Py_RETURN_NONE;
}

/* illegal(game, idx, actions, out bool (k,)): out[r] = actions[r] is not legal in idx[r] */
static PyObject *vec_illegal(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *game, *idx_obj, *act_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &game, &idx_obj, &act_obj, &out_obj)) return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_buffer iv, av, ov;
    Py_ssize_t k;
    if (wk_get_idx(idx_obj, &bb.b, &iv, &k)) {
        wk_unbind(&bb);
        return NULL;
    }
    int err = wk_get_array(act_obj, "actions", K_I64, k, 0, &av);
    if (!err && (err = wk_get_array(out_obj, "out", K_BOOL, k, 1, &ov)) != 0)
        PyBuffer_Release(&av);
    Py_ssize_t bad = 0;
    if (!err) {
        const int64_t *ix = (const int64_t *)iv.buf, *a = (const int64_t *)av.buf;
        uint8_t *out = (uint8_t *)ov.buf;
        for (Py_ssize_t r = 0; r < k; r++) {
            out[r] = !wk_is_legal(&bb.b, ix[r], a[r]);
            bad += out[r];
        }
        PyBuffer_Release(&ov);
        PyBuffer_Release(&av);
    }
    PyBuffer_Release(&iv);
    wk_unbind(&bb);
    if (err) return NULL;
    return PyLong_FromSsize_t(bad);
}

/* an observation buffer (`name`): rows x OBS_SIZE, writable, float32 or uint8 (*is_f32
 * says which) */
static int get_obs(PyObject *obs_obj, const char *name, Py_ssize_t rows, Py_buffer *view,
                   int *is_f32) {
    Py_buffer probe;
    *is_f32 = 0;
    if (PyObject_GetBuffer(obs_obj, &probe, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0) {
        *is_f32 = wk_format_is(probe.format, K_F32);
        PyBuffer_Release(&probe);
    } else {
        PyErr_Clear();
    }
    return wk_get_array(obs_obj, name, *is_f32 ? K_F32 : K_U8, rows * WK_OBS_SIZE, 1, view);
}

WK_ROW_WRITER static void encode_slice(void *c, Py_ssize_t start, Py_ssize_t stop) {
    job_ctx *j = (job_ctx *)c;
    for (Py_ssize_t r = start; r < stop; r++)
        wk_encode(&wk_batch_rules, &wk_obs_layout, j->b, j->idx[r], j->player[r], j->over ? j->over[r] : 0,
                  j->obs32 ? j->obs32 + r * WK_OBS_SIZE : NULL,
                  j->obs8 ? j->obs8 + r * WK_OBS_SIZE : NULL, j->mask + r * WK_ACTIONS);
}

/* encode(game, idx, player, over, obs_out, mask_out, num_threads): row r of obs_out
 * (float32 or uint8, (k, OBS_SIZE)) and mask_out ((k, 42) int8) for game idx[r] seen by
 * player[r] (int64); over: None or k bools (episodes ended early) */
static PyObject *vec_encode(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *game, *idx_obj, *pl_obj, *over_obj, *obs_obj, *mask_obj;
    long threads;
    if (!PyArg_ParseTuple(args, "OOOOOOl", &game, &idx_obj, &pl_obj, &over_obj, &obs_obj,
                          &mask_obj, &threads) || wk_check_threads(threads))
        return NULL;
    if (encoder_unready()) return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_buffer iv, pv, ov, xv, mv;
    Py_ssize_t k;
    int have_over = over_obj != Py_None, err;
    if (wk_get_idx(idx_obj, &bb.b, &iv, &k)) {
        wk_unbind(&bb);
        return NULL;
    }
    err = wk_get_array(pl_obj, "player", K_I64, k, 0, &pv);
    if (!err && have_over && (err = wk_get_array(over_obj, "over", K_BOOL, k, 0, &ov)) != 0)
        PyBuffer_Release(&pv);
    int is_f32 = 0;
    if (!err) {
        err = get_obs(obs_obj, "obs_out", k, &xv, &is_f32);
        if (!err && (err = wk_get_array(mask_obj, "mask_out", K_I8, k * WK_ACTIONS, 1, &mv)) != 0)
            PyBuffer_Release(&xv);
        if (err) {
            if (have_over) PyBuffer_Release(&ov);
            PyBuffer_Release(&pv);
        }
    }
    if (!err) {
        const int64_t *pl = (const int64_t *)pv.buf, *ix = (const int64_t *)iv.buf;
        for (Py_ssize_t r = 0; r < k; r++) {
            if (pl[r] != 0 && pl[r] != 1) {
                PyErr_SetString(PyExc_ValueError, "player must be 0 or 1");
                err = 1;
                break;
            }
            if (!wk_state_ok(&bb.b, ix[r])) {
                PyErr_Format(PyExc_ValueError, "game %lld: state out of range",
                             (long long)ix[r]);
                err = 1;
                break;
            }
        }
        if (!err) {
            job_ctx j = {&bb.b, (const int64_t *)iv.buf, NULL, pl,
                         have_over ? (const uint8_t *)ov.buf : NULL, NULL,
                         is_f32 ? (float *)xv.buf : NULL, is_f32 ? NULL : (uint8_t *)xv.buf,
                         (int8_t *)mv.buf};
            Py_BEGIN_ALLOW_THREADS
            wk_parallel_for((int)threads, k, encode_slice, &j);
            Py_END_ALLOW_THREADS
        }
        PyBuffer_Release(&mv);
        PyBuffer_Release(&xv);
        if (have_over) PyBuffer_Release(&ov);
        PyBuffer_Release(&pv);
    }
    PyBuffer_Release(&iv);
    wk_unbind(&bb);
    if (err) return NULL;
    Py_RETURN_NONE;
}

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

/* VecRewardLedger.settle for game r: player_0's reward for the move just made */
static inline WK_INLINE double settle(const play_ctx *j, int64_t r) {
    const wk_batch *b = j->b;
    int ended = b->res_count[r] != j->hands[r];
    j->hands[r] = b->res_count[r];
    int64_t value = b->res_value[r];
    double x = ended ? (double)(b->res_winner[r] == 0 ? value : -value) : 0.0;
    if (!j->shaping) return x;
    double total = (double)b->total;
    int64_t diff = b->trick_points[2 * r] - b->trick_points[2 * r + 1];
    if (ended)
        x += (double)(b->res_card_points[2 * r] - b->res_card_points[2 * r + 1] - j->shaped[r])
             / total;
    else
        x = (double)(diff - j->shaped[r]) / total;
    j->shaped[r] = ended ? 0 : diff;
    return x;
}

/* games [start, stop): the moves, rewards and deals (need[r] = 1: a seeded match's next
 * hand, left to the caller; its row is not written) */
static inline WK_INLINE void play_range(const play_ctx *j, Py_ssize_t start,
                                        Py_ssize_t stop) {
    wk_batch *b = j->b;
    for (Py_ssize_t r = start; r < stop; r++) {
        int64_t mover = b->current[r], counted = b->res_count[r];
        int need = wk_apply(&wk_batch_rules, b, r, j->actions[r]);
        double x = settle(j, r);
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
            ? get_obs(obj, s->name, n, view, s->view == offsetof(play_views, obs_out) ? is_f32
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
static PyObject *vec_play(PyObject *self, PyObject *args, PyObject *kwds) {
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
    if (encoder_unready()) return NULL;
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
    int illegal = !err && first_bad_move(&bb.b, NULL, acts, n, (int)threads, scratch) >= 0;
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

PyMethodDef wk_batch_methods[] = {
    {"configure_rules", wk_configure_rules, METH_VARARGS,
     "wk_configure_rules(FOLLOW, BEATS, POINTS, SPITZER, TRUMP_MASK): cards.py's tables"},
    {"vec_apply", vec_apply, METH_VARARGS,
     "vec_apply(game, idx, actions, need_out, num_threads) -> games to deal"},
    {"vec_start_hands", vec_start_hands, METH_VARARGS,
     "vec_start_hands(game, idx, hand, up, down): new hands from their deals"},
    {"vec_illegal", vec_illegal, METH_VARARGS,
     "vec_illegal(game, idx, actions, out) -> number of illegal actions"},
    {"vec_play", (PyCFunction)(void (*)(void))vec_play, METH_VARARGS | METH_KEYWORDS,
     "vec_play(game, *, actions, obs_out, mask_out, final_out, ...) -> (to deal, ended), "
     "or -1"},
    {"vec_encode", vec_encode, METH_VARARGS,
     "vec_encode(game, idx, player, over, obs_out, mask_out, num_threads)"},
    {NULL, NULL, 0, NULL},
};
