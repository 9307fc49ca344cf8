/* The batched engine's plumbing (the calls are in batch.c and play.c): the rule tables
 * and the encoder's layout handed over from Python at import, a VecGame's arrays bound
 * through the buffer protocol (names, dtypes and shapes checked at every call, so arrays
 * replaced by the vector env's rollback are picked up), the moves checked before a call
 * changes anything. Declared in batch.h; the threads a call's work is split over are in
 * pool.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "names.h"

wk_rules wk_batch_rules;
static int rules_ready = 0;

const wk_rules *wk_get_rules(void) { return &wk_batch_rules; }
wk_layout wk_obs_layout;
static int layout_ready = 0;

/* the encoder's layout (NULL until configure() gave the scales) */
const wk_layout *wk_get_layout(void) { return layout_ready ? &wk_obs_layout : NULL; }

/* ---- tables from Python ---------------------------------------------------------------- */

/* the encoder's scales, from module.c's configure once it has checked the layout against
 * encode.h's WK_PIECES (whose total, WK_OBS_SIZE, is the observation's size); without
 * scales, no batch encoder */
int wk_set_layout(PyObject *scales) {
    layout_ready = 0;
    if (scales == NULL || scales == Py_None) return 0;
    wk_layout *L = &wk_obs_layout;
    if (!PyArg_ParseTuple(scales, "dddddd", &L->total_points, &L->tricks, &L->hand_size,
                          &L->piles, &L->score_scale, &L->hands_left_cap))
        return -1;
    if (L->hands_left_cap < 1) {
        PyErr_SetString(PyExc_ValueError, "configure: a hands-left cap below 1");
        return -1;
    }
    layout_ready = 1;
    return 0;
}

static int read_u64s(PyObject *seq, uint64_t *out, Py_ssize_t n, const char *what) {
    if (PySequence_Length(seq) != n) {
        PyErr_Format(PyExc_ValueError, "configure_rules: %s must hold %zd entries", what, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *v = PySequence_GetItem(seq, k);
        if (v == NULL) return -1;
        out[k] = PyLong_AsUnsignedLongLong(v);
        Py_DECREF(v);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

/* wk_configure_rules(follow, beats, points, spitzer, trump_mask): cards.py's tables */
PyObject *wk_configure_rules(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *follow, *beats, *points, *spitzer, *trumps;
    if (!PyArg_ParseTuple(args, "OOOOO", &follow, &beats, &points, &spitzer, &trumps))
        return NULL;
    rules_ready = 0;
    if (PySequence_Length(follow) != 4 || PySequence_Length(beats) != 4) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "configure_rules: FOLLOW and BEATS must have "
                            "one entry per trump suit");
        return NULL;
    }
    uint64_t tmp[WK_CARDS];
    for (Py_ssize_t t = 0; t < 4; t++) {
        PyObject *row = PySequence_GetItem(follow, t);
        if (row == NULL) return NULL;
        int err = read_u64s(row, wk_batch_rules.follow[t], WK_CARDS, "FOLLOW[t]");
        Py_DECREF(row);
        if (err) return NULL;
        PyObject *b = PySequence_GetItem(beats, t);
        if (b == NULL) return NULL;
        if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) != WK_CARDS * WK_CARDS) {
            Py_DECREF(b);
            PyErr_SetString(PyExc_ValueError, "configure_rules: BEATS[t] must be 1296 bytes");
            return NULL;
        }
        memcpy(wk_batch_rules.beats[t], PyBytes_AS_STRING(b), WK_CARDS * WK_CARDS);
        Py_DECREF(b);
    }
    if (read_u64s(points, tmp, WK_CARDS, "POINTS")) return NULL;
    for (int c = 0; c < WK_CARDS; c++) wk_batch_rules.points[c] = (int64_t)tmp[c];
    if (read_u64s(spitzer, tmp, 4, "SPITZER")) return NULL;
    for (int t = 0; t < 4; t++) wk_batch_rules.spitzer[t] = (int64_t)tmp[t];
    if (read_u64s(trumps, wk_batch_rules.trump_mask, 4, "TRUMP_MASK")) return NULL;
    rules_ready = 1;
    Py_RETURN_NONE;
}

/* ---- binding a VecGame ------------------------------------------------------------------ */


/* a buffer's format is that of the kind (numpy writes int64 as 'l' or 'q') */
int wk_format_is(const char *fmt, int kind) {
    if (fmt == NULL) fmt = "B";
    if (*fmt == '<' || *fmt == '=' || *fmt == '@') fmt++;
    if (fmt[0] == '\0' || fmt[1] != '\0') return 0;
    switch (kind) {
    case K_U64: return fmt[0] == 'Q' || (fmt[0] == 'L' && sizeof(long) == 8);
    case K_I64: return fmt[0] == 'q' || (fmt[0] == 'l' && sizeof(long) == 8);
    case K_I8: return fmt[0] == 'b';
    case K_BOOL: return fmt[0] == '?';
    case K_U8: return fmt[0] == 'B';
    case K_F32: return fmt[0] == 'f';
    case K_F64: return fmt[0] == 'd';
    }
    return 0;
}

static const Py_ssize_t item_size[] = {8, 8, 1, 1, 1, 4, 8};
static const char *const kind_name[] = {"uint64", "int64", "int8", "bool", "uint8", "float32",
                                        "float64"};

/* a C-contiguous buffer of `count` items of `kind`, or -1 with a ValueError */
int wk_get_array(PyObject *obj, const char *name, int kind, Py_ssize_t count,
                     int writable, Py_buffer *view) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous%s numpy array of %s",
                     name, writable ? ", writable" : "", kind_name[kind]);
        return -1;
    }
    if (view->itemsize != item_size[kind] || !wk_format_is(view->format, kind)
        || view->len != count * item_size[kind]) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd %s values, got %zd bytes of "
                     "format %s", name, count, kind_name[kind], view->len,
                     view->format ? view->format : "B");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

typedef struct {
    const char *name;
    int kind;
    int per_game;  /* items per game; -1: 4 * tricks per hand */
    size_t offset;
} field_spec;

#define F(name, kind, per) {#name, kind, per, offsetof(wk_batch, name)}
static const field_spec FIELDS[] = {
    F(hand, K_U64, 2), F(upbits, K_U64, 2), F(covered, K_U64, 2), F(played, K_U64, 2),
    F(won, K_U64, 2), F(discard, K_I64, 2), F(trick_points, K_I64, 2), F(scores, K_I64, 2),
    F(initial_scores, K_I64, 2), F(phase, K_I64, 1), F(current, K_I64, 1),
    F(trump, K_I64, 1), F(dealer, K_I64, 1), F(first_dealer, K_I64, 1),
    F(chooser, K_I64, 1), F(leader, K_I64, 1), F(lead, K_I64, 1), F(lead_pile, K_I64, 1),
    F(level, K_I64, 1), F(cracker, K_I64, 1), F(recracker, K_I64, 1), F(hand_no, K_I64, 1),
    F(num_hands, K_I64, 1), F(ntricks, K_I64, 1), F(res_count, K_I64, 1),
    F(res_hand, K_I64, 1), F(res_dealer, K_I64, 1), F(res_trump, K_I64, 1),
    F(res_spitzer, K_I64, 1), F(res_winner, K_I64, 1), F(res_crack_level, K_I64, 1),
    F(res_value, K_I64, 1), F(res_card_points, K_I64, 2), F(res_trick_points, K_I64, 2),
    F(res_discards, K_I64, 2), F(res_scores, K_I64, 2), F(res_schneider, K_BOOL, 1),
    F(res_schwarz, K_BOOL, 1), F(up, K_I64, 10), F(down, K_I64, 10), F(deal_up, K_I64, 10),
    F(deal_down, K_I64, 10), F(tricks, K_I64, -1), F(legal, K_U64, 1),
    F(history, K_I8, WK_HISTORY), F(hlen, K_I64, 1),
};
#undef F
#define N_FIELDS WK_N_FIELDS
/* the table holds every field bound_batch has room for */
typedef char fields_fit[sizeof(FIELDS) / sizeof(FIELDS[0]) == WK_N_FIELDS ? 1 : -1];

/* the attribute names read: the fields', the variant's and the binding cache's */
static PyObject *field_names[N_FIELDS], *s_cvariant, *s_cbind;

/* interned on the first bind (names.h) */
static int intern_names(void) {
    static const wk_name names[] = {{&s_cvariant, "_cvariant"}, {&s_cbind, "_cbind"}};
    if (s_cbind != NULL) return 0;  /* interned last: all are */
    for (int k = 0; k < N_FIELDS; k++)
        if (wk_intern(&field_names[k], FIELDS[k].name)) return -1;
    return WK_INTERN_TABLE(names);
}

void wk_unbind(bound_batch *bb) {
    for (int k = 0; k < bb->nviews; k++) PyBuffer_Release(&bb->views[k]);
    bb->nviews = 0;
    Py_CLEAR(bb->hold);
}

/* game._cvariant: (n, tricks, win, total, schneider, spitzer, deck, trump_mask[4],
 * hand_value (5, total + 1) int64), set by VecGame at construction */
static int bind_fresh(PyObject *game, bound_batch *bb) {
    memset(&bb->b, 0, sizeof(bb->b));
    bb->nviews = 0;
    bb->hold = NULL;
    if (!rules_ready) {
        PyErr_SetString(PyExc_RuntimeError, "_core.configure_rules() was not called");
        return -1;
    }
    wk_batch *b = &bb->b;
    PyObject *cv = PyObject_GetAttr(game, s_cvariant);
    if (cv == NULL) return -1;
    PyObject *hv;
    unsigned long long deck, tm[4];
    long long n, tricks, win, total, schneider, spitzer;
    int ok = PyArg_ParseTuple(cv, "LLLLLLK(KKKK)O", &n, &tricks, &win, &total, &schneider,
                              &spitzer, &deck, &tm[0], &tm[1], &tm[2], &tm[3], &hv);
    if (!ok) {
        Py_DECREF(cv);
        return -1;
    }
    b->n = n;
    const uint64_t masks[4] = {tm[0], tm[1], tm[2], tm[3]};
    wk_set_variant(b, tricks, win, total, schneider, spitzer, deck, masks);
    int err = wk_get_array(hv, "hand_value", K_I64, 5 * (total + 1), 0, &bb->views[0]);
    Py_DECREF(cv);  /* the buffer keeps the array alive */
    if (err) return -1;
    b->hand_value = (const int64_t *)bb->views[0].buf;
    bb->nviews = 1;
    if (n < 1 || tricks < 1 || tricks > 17) {
        PyErr_SetString(PyExc_ValueError, "_cvariant out of range");
        wk_unbind(bb);
        return -1;
    }
    for (int k = 0; k < N_FIELDS; k++) {
        const field_spec *f = &FIELDS[k];
        PyObject *arr = PyObject_GetAttr(game, field_names[k]);
        if (arr == NULL) {
            wk_unbind(bb);
            return -1;
        }
        Py_ssize_t per = f->per_game < 0 ? 4 * tricks : f->per_game;
        err = wk_get_array(arr, f->name, f->kind, n * per, 1, &bb->views[bb->nviews]);
        Py_DECREF(arr);
        if (err) {
            wk_unbind(bb);
            return -1;
        }
        *(void **)((char *)b + f->offset) = bb->views[bb->nviews].buf;
        bb->nviews++;
    }
    return 0;
}

/* The arrays a VecGame was last bound with, kept (with their buffers) in a capsule at
 * game._cbind: a later call whose game holds the very same objects reuses the pointers
 * instead of asking every array for its buffer again. Arrays replaced (the vector env's
 * rollback assigns copies) are other objects, so the game is bound afresh. */
#define CACHE_NAME "widderkopf_env._core.bound"
typedef struct {
    bound_batch bb;
    PyObject *cv;
    PyObject *objs[N_FIELDS];
} bind_cache;

static void cache_clear(bind_cache *c) {
    wk_unbind(&c->bb);
    Py_CLEAR(c->cv);
    for (int k = 0; k < N_FIELDS; k++) Py_CLEAR(c->objs[k]);
}

static void cache_free(PyObject *capsule) {
    bind_cache *c = (bind_cache *)PyCapsule_GetPointer(capsule, CACHE_NAME);
    if (c == NULL) {
        PyErr_Clear();
        return;
    }
    cache_clear(c);
    PyMem_Free(c);
}

/* 1: game holds the objects of the cache; 0: not (or an attribute is missing) */
static int cache_fits(PyObject *game, const bind_cache *c) {
    PyObject *cv = PyObject_GetAttr(game, s_cvariant);
    int same = cv == c->cv;
    Py_XDECREF(cv);
    for (int k = 0; same && k < N_FIELDS; k++) {
        PyObject *obj = PyObject_GetAttr(game, field_names[k]);
        same = obj == c->objs[k];
        Py_XDECREF(obj);
    }
    PyErr_Clear();
    return same;
}

int wk_bind(PyObject *game, bound_batch *bb) {
    if (intern_names()) return -1;
    bb->nviews = 0;
    bb->hold = NULL;
    PyObject *cap = PyObject_GetAttr(game, s_cbind);
    if (cap == NULL) PyErr_Clear();
    if (cap != NULL && PyCapsule_IsValid(cap, CACHE_NAME)) {
        bind_cache *c = (bind_cache *)PyCapsule_GetPointer(cap, CACHE_NAME);
        if (cache_fits(game, c)) {
            bb->b = c->bb.b;
            bb->hold = cap;  /* released by unbind */
            return 0;
        }
    }
    Py_XDECREF(cap);
    bind_cache *c = (bind_cache *)PyMem_Calloc(1, sizeof(bind_cache));
    if (c == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (bind_fresh(game, &c->bb)) {
        PyMem_Free(c);
        return -1;
    }
    c->cv = PyObject_GetAttr(game, s_cvariant);
    for (int k = 0; c->cv != NULL && k < N_FIELDS; k++) c->objs[k] = PyObject_GetAttr(game, field_names[k]);
    cap = PyErr_Occurred() ? NULL : PyCapsule_New(c, CACHE_NAME, cache_free);
    if (cap == NULL) {
        cache_clear(c);
        PyMem_Free(c);
        return -1;
    }
    if (PyObject_SetAttr(game, s_cbind, cap) < 0) {
        Py_DECREF(cap);
        return -1;
    }
    bb->b = c->bb.b;
    bb->hold = cap;
    return 0;
}

/* ---- the calls -------------------------------------------------------------------------- */

int wk_check_threads(long threads) {
    if (threads < 1 || threads > WK_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "num_threads must be in 1..%d, got %ld",
                     WK_MAX_THREADS, threads);
        return -1;
    }
    return 0;
}

/* games idx (distinct, in 0..n-1) as int64 */
int wk_get_idx(PyObject *obj, const wk_batch *b, Py_buffer *view, Py_ssize_t *k) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0
        || view->itemsize != 8 || !wk_format_is(view->format, K_I64)) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_BufferError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "idx must be a C-contiguous int64 array");
        } else {
            PyBuffer_Release(view);
            PyErr_SetString(PyExc_ValueError, "idx must be a C-contiguous int64 array");
        }
        return -1;
    }
    *k = view->len / 8;
    const int64_t *ix = (const int64_t *)view->buf;
    for (Py_ssize_t r = 0; r < *k; r++) {
        if (ix[r] < 0 || ix[r] >= b->n) {
            PyBuffer_Release(view);
            PyErr_Format(PyExc_ValueError, "game index %lld out of range 0..%lld",
                         (long long)ix[r], (long long)b->n - 1);
            return -1;
        }
    }
    return 0;
}

/* an observation buffer (`name`): rows x OBS_SIZE, writable, float32 or uint8 (*is_f32
 * says which) */
int wk_get_obs(PyObject *obs_obj, const char *name, Py_ssize_t rows, Py_buffer *view,
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
Py_ssize_t wk_first_bad_move(const wk_batch *b, const int64_t *ix, const int64_t *acts,
                             Py_ssize_t k, int threads, uint8_t *bad) {
    if (k <= 0) return -1;
    check_ctx c = {b, ix, acts, bad};
    Py_BEGIN_ALLOW_THREADS
    wk_parallel_for(threads, k, check_slice, &c);
    Py_END_ALLOW_THREADS
    const uint8_t *first = (const uint8_t *)memchr(bad, 1, (size_t)k);
    return first == NULL ? -1 : first - bad;
}
