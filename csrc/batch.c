/* The batched engine in C: core.h's rules over a VecGame's numpy arrays, in place
 * (VecGame.apply, start_hands, illegal, vector/encode.py's encode; the self-play step,
 * vec_play, is play.c's).
 *
 * Each function takes the VecGame itself (bound by bind.c); the work over the games runs
 * with the GIL released, on num_threads threads, each owning a contiguous slice of the
 * games: every game's result depends on that game only, so any thread count gives the
 * same arrays. vector/engine.py and vector/encode.py call these when the accelerator is
 * loaded, and keep the numpy code they replace as the reference
 * (tests/vector/test_vector_differential.py ties them).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "draw.h"

typedef struct {
    wk_batch *b;
    const int64_t *idx, *actions, *player;
    const uint8_t *over;
    uint8_t *need;
    float *obs32;
    uint8_t *obs8;
    int8_t *mask;
} job_ctx;

/* every move of games ix legal and every state in range, checked before anything
 * changes (first_bad_move); -1 with a ValueError naming the first game that is not */
static int check_moves(const wk_batch *b, const int64_t *ix, const int64_t *acts,
                       Py_ssize_t k, int threads, uint8_t *bad) {
    Py_ssize_t r = wk_first_bad_move(b, ix, acts, k, threads, bad);
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

/* settle(game, idx, hands, shaped, shaping, out): the reward of the move just made in each
 * game of idx (VecRewardLedger.settle, rules.h's wk_settle), player_0's, into out[:k];
 * hands and shaped are the ledger's arrays (n games), updated */
static PyObject *vec_settle(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *game, *idx_obj, *hands_obj, *shaped_obj, *out_obj;
    int shaping;
    if (!PyArg_ParseTuple(args, "OOOOpO", &game, &idx_obj, &hands_obj, &shaped_obj, &shaping,
                          &out_obj))
        return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_buffer iv, hv, sv, ov;
    Py_ssize_t k;
    int got = 0, err = 1;
    if (wk_get_idx(idx_obj, &bb.b, &iv, &k)) goto done;
    got = 1;
    if (wk_get_array(hands_obj, "hands", K_I64, bb.b.n, 1, &hv)) goto done;
    got = 2;
    if (wk_get_array(shaped_obj, "shaped", K_I64, bb.b.n, 1, &sv)) goto done;
    got = 3;
    if (wk_get_array(out_obj, "out", K_F64, k, 1, &ov)) goto done;
    got = 4;
    const int64_t *ix = (const int64_t *)iv.buf;
    double *out = (double *)ov.buf;
    for (Py_ssize_t r = 0; r < k; r++)
        out[r] = wk_settle(&bb.b, ix[r], (int64_t *)hv.buf, (int64_t *)sv.buf, shaping);
    err = 0;
done:
    if (got >= 4) PyBuffer_Release(&ov);
    if (got >= 3) PyBuffer_Release(&sv);
    if (got >= 2) PyBuffer_Release(&hv);
    if (got >= 1) PyBuffer_Release(&iv);
    wk_unbind(&bb);
    if (err) return NULL;
    Py_RETURN_NONE;
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

/* rights(game, idx, out bool (k, 2)): PyGame.escalation_rights() of each game of idx */
static PyObject *vec_rights(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *game, *idx_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO", &game, &idx_obj, &out_obj)) return NULL;
    bound_batch bb;
    if (wk_bind(game, &bb)) return NULL;
    Py_buffer iv, ov;
    Py_ssize_t k;
    if (wk_get_idx(idx_obj, &bb.b, &iv, &k)) {
        wk_unbind(&bb);
        return NULL;
    }
    int err = wk_get_array(out_obj, "out", K_BOOL, 2 * k, 1, &ov);
    if (!err) {
        const int64_t *ix = (const int64_t *)iv.buf;
        uint8_t *out = (uint8_t *)ov.buf;
        for (Py_ssize_t r = 0; r < k; r++) {
            int rights[2];
            wk_rights(&bb.b, ix[r], rights);
            out[2 * r] = (uint8_t)rights[0];
            out[2 * r + 1] = (uint8_t)rights[1];
        }
        PyBuffer_Release(&ov);
    }
    PyBuffer_Release(&iv);
    wk_unbind(&bb);
    if (err) return NULL;
    Py_RETURN_NONE;
}

/* deals(key, games, draws, cards, hand_size, piles, hand_out (k, 2) uint64, up_out and
 * down_out (k, 10) int64): deal draws[r] of game games[r] from the counter-based
 * generator (draw.h; vector/deals.py's DealSource is its reference) */
static PyObject *vec_deals(PyObject *self, PyObject *args) {
    (void)self;
    unsigned long long key;
    PyObject *games_obj, *draws_obj, *cards_obj, *hand_obj, *up_obj, *down_obj;
    int hand_size, piles;
    if (!PyArg_ParseTuple(args, "KOOOiiOOO", &key, &games_obj, &draws_obj, &cards_obj,
                          &hand_size, &piles, &hand_obj, &up_obj, &down_obj))
        return NULL;
    Py_buffer gv, dv, cv, hv, uv, wv;
    Py_ssize_t k = PyObject_Length(games_obj), m = PyObject_Length(cards_obj);
    if (k < 0 || m < 0) return NULL;
    if (hand_size < 0 || piles < 0 || piles > WK_PILES || m > WK_CARDS
        || m != 2 * (hand_size + 2 * piles)) {
        PyErr_Format(PyExc_ValueError, "deals: %zd cards cannot deal %d hand cards and %d "
                     "piles to each of two players", m, hand_size, piles);
        return NULL;
    }
    if (wk_get_array(games_obj, "games", K_I64, k, 0, &gv)) return NULL;
    int err = wk_get_array(draws_obj, "draws", K_U64, k, 0, &dv);
    int got = !err;
    if (!err && !(err = wk_get_array(cards_obj, "cards", K_I64, m, 0, &cv))) got++;
    if (!err && !(err = wk_get_array(hand_obj, "hand_out", K_U64, 2 * k, 1, &hv))) got++;
    if (!err && !(err = wk_get_array(up_obj, "up_out", K_I64, 10 * k, 1, &uv))) got++;
    if (!err && !(err = wk_get_array(down_obj, "down_out", K_I64, 10 * k, 1, &wv))) got++;
    if (!err) {
        const int64_t *games = (const int64_t *)gv.buf, *cards = (const int64_t *)cv.buf;
        const uint64_t *draws = (const uint64_t *)dv.buf;
        uint64_t *hand = (uint64_t *)hv.buf;
        int64_t *up = (int64_t *)uv.buf, *down = (int64_t *)wv.buf;
        for (Py_ssize_t r = 0; r < k; r++)
            wk_shuffle_deal(wk_deal_start((uint64_t)key, games[r], draws[r]), cards, (int)m,
                            hand_size, piles, hand + 2 * r, up + 10 * r, down + 10 * r);
    }
    Py_buffer *views[] = {&dv, &cv, &hv, &uv, &wv};
    for (int q = 0; q < got; q++) PyBuffer_Release(views[q]);
    PyBuffer_Release(&gv);
    if (err) return NULL;
    Py_RETURN_NONE;
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
    if (wk_encoder_unready()) return NULL;
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
        err = wk_get_obs(obs_obj, "obs_out", k, &xv, &is_f32);
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

PyMethodDef wk_batch_methods[] = {
    {"configure_rules", wk_configure_rules, METH_VARARGS,
     "wk_configure_rules(FOLLOW, BEATS, POINTS, SPITZER, TRUMP_MASK): cards.py's tables"},
    {"vec_apply", vec_apply, METH_VARARGS,
     "vec_apply(game, idx, actions, need_out, num_threads) -> games to deal"},
    {"vec_settle", vec_settle, METH_VARARGS,
     "vec_settle(game, idx, hands, shaped, shaping, out): each move's reward"},
    {"vec_start_hands", vec_start_hands, METH_VARARGS,
     "vec_start_hands(game, idx, hand, up, down): new hands from their deals"},
    {"vec_illegal", vec_illegal, METH_VARARGS,
     "vec_illegal(game, idx, actions, out) -> number of illegal actions"},
    {"vec_rights", vec_rights, METH_VARARGS,
     "vec_rights(game, idx, out): (k, 2) bools, each game's escalation rights"},
    {"vec_deals", vec_deals, METH_VARARGS,
     "vec_deals(key, games, draws, cards, hand_size, piles, hand_out, up_out, down_out)"},
    {"vec_play", (PyCFunction)(void (*)(void))wk_vec_play, METH_VARARGS | METH_KEYWORDS,
     "vec_play(game, *, actions, obs_out, mask_out, final_out, ...) -> (to deal, ended), "
     "or -1"},
    {"vec_encode", vec_encode, METH_VARARGS,
     "vec_encode(game, idx, player, over, obs_out, mask_out, num_threads)"},
    {NULL, NULL, 0, NULL},
};
