/* What bind.c and pool.c give the calls (batch.c, play.c): the tables from
 * Python, a VecGame's arrays bound and checked, the threads. Included after <Python.h>. */
#ifndef WIDDERKOPF_BATCH_H
#define WIDDERKOPF_BATCH_H

#include "core.h"

#define WK_MAX_THREADS 64
#define WK_N_FIELDS 46  /* the VecGame arrays bound (bind.c's FIELDS) */

/* the dtypes of the arrays given (numpy's formats) */
enum { K_U64, K_I64, K_I8, K_BOOL, K_U8, K_F32, K_F64 };

/* a VecGame as a wk_batch, with the buffers its pointers come from */
typedef struct {
    wk_batch b;
    Py_buffer views[WK_N_FIELDS + 1];
    int nviews;
    PyObject *hold;  /* the cache the pointers come from, kept alive during the call */
} bound_batch;

typedef void (*slice_fn)(void *ctx, Py_ssize_t start, Py_ssize_t stop);

/* ---- bind.c ---------------------------------------------------------------------------- */

extern wk_rules wk_batch_rules;  /* cards.py's tables (configure_rules) */
extern wk_layout wk_obs_layout;  /* the encoder's layout and scales (configure) */
/* the same two for code that takes them by pointer; the layout NULL until configured */
const wk_rules *wk_get_rules(void);
const wk_layout *wk_get_layout(void);
/* the encoder's scales from module.c's configure (None: no batch encoder) */
int wk_set_layout(PyObject *scales);
PyObject *wk_configure_rules(PyObject *self, PyObject *args);

int wk_format_is(const char *fmt, int kind);
/* a C-contiguous buffer of `count` items of `kind`, or -1 with a ValueError */
int wk_get_array(PyObject *obj, const char *name, int kind, Py_ssize_t count, int writable,
                 Py_buffer *view);
/* an observation buffer (`name`): rows x OBS_SIZE, writable, float32 or uint8 (*is_f32
 * says which), or -1 with a ValueError */
int wk_get_obs(PyObject *obs_obj, const char *name, Py_ssize_t rows, Py_buffer *view,
               int *is_f32);
/* the game's arrays (-1 with the exception set); wk_unbind releases them */
int wk_bind(PyObject *game, bound_batch *bb);
void wk_unbind(bound_batch *bb);
/* games idx (distinct, in 0..n-1) as int64 */
int wk_get_idx(PyObject *obj, const wk_batch *b, Py_buffer *view, Py_ssize_t *k);
int wk_check_threads(long threads);
/* the first of games ix (NULL: 0..k-1) whose move is not legal or whose state is out of
 * range, checked on `threads` threads (bad: k bytes of scratch); -1 when there is none */
Py_ssize_t wk_first_bad_move(const wk_batch *b, const int64_t *ix, const int64_t *acts,
                             Py_ssize_t k, int threads, uint8_t *bad);

/* ---- pool.c ---------------------------------------------------------------------------- */

/* fn over [0, k) in `threads` contiguous slices, the calling thread taking the first */
void wk_parallel_for(int threads, Py_ssize_t k, slice_fn fn, void *ctx);

/* ---- play.c ---------------------------------------------------------------------------- */

/* vec_play, the self-play step (batch.c's method table lists it) */
PyObject *wk_vec_play(PyObject *self, PyObject *args, PyObject *kwds);

/* ---- in each file that encodes -------------------------------------------------------- */

/* 0 when the encoder's layout was given (else -1 with a RuntimeError); fills the calling
 * file's copy of encode.h's byte tables first (under the GIL, before its first encode) */
static inline int wk_encoder_unready(void) {
    static int tables_filled = 0;
    if (wk_get_layout() == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_core.configure() was not given the scales");
        return -1;
    }
    if (!tables_filled) {
        wk_init_tables();
        tables_filled = 1;
    }
    return 0;
}

#endif
