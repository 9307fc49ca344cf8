/* What _bind.c gives _batch.c: the tables from Python, a VecGame's arrays bound, threads.
 * Included after <Python.h>. */
#ifndef WIDDERKOPF_BATCH_H
#define WIDDERKOPF_BATCH_H

#include "core.h"

#define WK_MAX_THREADS 64
#define WK_N_FIELDS 46  /* the VecGame arrays bound (_bind.c's FIELDS) */

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

extern wk_rules wk_batch_rules;  /* cards.py's tables (configure_rules) */
extern wk_layout wk_obs_layout;  /* the encoder's layout and scales (configure) */
extern int wk_layout_ready;

PyObject *wk_configure_rules(PyObject *self, PyObject *args);
int wk_format_is(const char *fmt, int kind);
/* a C-contiguous buffer of `count` items of `kind`, or -1 with a ValueError */
int wk_get_array(PyObject *obj, const char *name, int kind, Py_ssize_t count, int writable,
                 Py_buffer *view);
/* the game's arrays (-1 with the exception set); wk_unbind releases them */
int wk_bind(PyObject *game, bound_batch *bb);
void wk_unbind(bound_batch *bb);
/* games idx (distinct, in 0..n-1) as int64 */
int wk_get_idx(PyObject *obj, const wk_batch *b, Py_buffer *view, Py_ssize_t *k);
int wk_check_threads(long threads);
/* fn over [0, k) in `threads` contiguous slices, the calling thread taking the first */
void wk_parallel_for(int threads, Py_ssize_t k, slice_fn fn, void *ctx);

#endif
