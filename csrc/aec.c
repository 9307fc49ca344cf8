/* The AEC env's hot paths in C: observations as numpy arrays straight from a Game's slots
 * (game_arrays), raw_env's last() and step() (aec_env.py) as method descriptors, and
 * configure_aec, which also hands out _aec_start.c's reset() and agent_iter().
 *
 * aec_env.py keeps both methods in Python (raw_env._last_py, raw_env._step_py), the
 * reference and the fallback: these call them for anything off the common path (an env
 * whose encoder or engine runs in Python, reward shaping, a render mode, an action that is
 * not a plain legal int, a step after the end other than a terminated agent's None). The
 * end of a hand and the steps of terminated agents are _aec_end.c's. The env's state
 * stays in its Python attributes (read and written here in its instance dict), so both
 * forms see one env. Needs numpy's headers at build time (WK_NUMPY; numpy_api() says
 * whether the numpy running takes them); without them the module has none of these and
 * Python runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>

#include "core.h"
#include "slots.h"
#include "aec.h"

#ifdef WK_NUMPY
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

const wk_layout *wk_get_layout(void);
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyArray_Descr *f32, *u8, *i8;

/* a new 1-d array of n entries of descr */
static PyObject *new_array(PyArray_Descr *descr, npy_intp n) {
    Py_INCREF(descr);  /* stolen */
    return PyArray_NewFromDescr(&PyArray_Type, descr, 1, &n, NULL, NULL, 0, NULL);
}

/* numpy's C API and the dtypes, on first use (importing widderkopf_env loads no numpy) */
static int numpy_ready(void) {
    if (i8 != NULL) return 0;
    import_array1(-1);
    f32 = PyArray_DescrFromType(NPY_FLOAT32);
    u8 = PyArray_DescrFromType(NPY_UINT8);
    i8 = f32 == NULL || u8 == NULL ? NULL : PyArray_DescrFromType(NPY_INT8);
    return i8 == NULL ? -1 : 0;
}

int wk_aec_init(void) {
    return wk_aec_names_init() < 0 || wk_aec_start_init() < 0 ? -1 : 0;
}

/* The observation of game seen by player p and its mask as new numpy arrays (out[0], out[1]:
 * new references): obs float32, or uint8 in the compact form; a non-Game object by
 * _speedups.encode (float32 only). 0 done, -1 error, 1 a non-Game in the compact form. */
static int two_arrays(PyObject *game, long long p, int over, int compact, PyObject *out[2]) {
    const wk_layout *L = wk_get_layout();
    if (L == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return -1;
    }
    wk_one g;
    int got = wk_read_game(game, p, over, &g);
    PyObject *pair = NULL;  /* not a Game: the encoder of attributes' bytearrays, copied */
    if (got < 0) return -1;
    if (got > 0) {
        if (compact) return 1;
        PyObject *args[3] = {game, PyLong_FromLongLong(p), PyBool_FromLong(over)};
        pair = args[1] == NULL ? NULL : wk_encode_by_attrs(NULL, args, 3);
        Py_XDECREF(args[1]);
        Py_DECREF(args[2]);
        if (pair == NULL) return -1;
    }
    PyObject *obs = new_array(compact ? u8 : f32, WK_OBS_SIZE);
    PyObject *mask = new_array(i8, WK_ACTIONS);
    int err = obs == NULL || mask == NULL;
    if (!err) {
        void *o = PyArray_DATA((PyArrayObject *)obs), *m = PyArray_DATA((PyArrayObject *)mask);
        if (pair != NULL) {
            memcpy(o, PyByteArray_AS_STRING(PyTuple_GET_ITEM(pair, 0)),
                   (size_t)WK_OBS_SIZE * sizeof(float));
            memcpy(m, PyByteArray_AS_STRING(PyTuple_GET_ITEM(pair, 1)), WK_ACTIONS);
        } else {
            err = wk_write_one(&g, p, over, compact ? NULL : (float *)o,
                               compact ? (uint8_t *)o : NULL, (int8_t *)m) != 0;
        }
    }
    Py_XDECREF(pair);
    if (err) {
        Py_XDECREF(obs);
        Py_XDECREF(mask);
        return -1;
    }
    out[0] = obs;
    out[1] = mask;
    return 0;
}

/* game_arrays(game, player, over, compact) -> (obs, mask) numpy arrays (None: a non-Game in
 * the compact form, see two_arrays) */
static PyObject *game_arrays(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    long long p;
    int over, compact;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "game_arrays(game, player, over, compact)");
        return NULL;
    }
    if (numpy_ready() || wk_player_over(args[1], args[2], &p, &over)) return NULL;
    if ((compact = PyObject_IsTrue(args[3])) < 0) return NULL;
    PyObject *two[2];
    int got = two_arrays(args[0], p, over, compact, two);
    if (got != 0) return got < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *pair = PyTuple_Pack(2, two[0], two[1]);
    Py_DECREF(two[0]);
    Py_DECREF(two[1]);
    return pair;
}

/* env.<name>(*args) for the forms these methods leave to Python */
static PyObject *in_python(PyObject *env, PyObject *name, PyObject *const *args,
                           size_t nargsf, PyObject *kwnames) {
    PyObject *method = PyObject_GetAttr(env, name);
    if (method == NULL) return NULL;
    PyObject *r = PyObject_Vectorcall(method, args, nargsf, kwnames);
    Py_DECREF(method);
    return r;
}

/* d[name][key], a new reference (NULL with the error set, KeyError where missing) */
static PyObject *item_of(PyObject *d, PyObject *name, PyObject *key) {
    PyObject *m = wk_attr(d, name);
    if (m == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_AttributeError, name);
        return NULL;
    }
    return PyObject_GetItem(m, key);
}

/* last()'s observation dicts are new, or one of the env's two last ones written again
 * where nothing but the env holds it or its arrays any more (its instance dict keeps them
 * under wk_n.recent, the older first): nobody can tell the two apart, as with the tuple that
 * CPython's zip() reuses. Not where threads run without the GIL (reference counts there
 * may be in flux). */
#ifdef Py_GIL_DISABLED
#define WK_REUSE_OBS 0
#else
#define WK_REUSE_OBS 1
#endif

/* 1: a is an array that its dict alone holds, as new_array made it (n entries of descr, its
 * own data, writeable, no view or weak reference on it) */
static int unheld_array(PyObject *a, PyArray_Descr *descr, npy_intp n) {
    if (a == NULL || !PyArray_CheckExact(a) || Py_REFCNT(a) != 1) return 0;
    PyArrayObject *x = (PyArrayObject *)a;
    return PyArray_DESCR(x) == descr && PyArray_NDIM(x) == 1 && PyArray_DIM(x, 0) == n
        && PyArray_STRIDE(x, 0) == PyArray_ITEMSIZE(x) && PyArray_BASE(x) == NULL
        && ((PyArrayObject_fields *)x)->weakreflist == NULL
        && PyArray_CHKFLAGS(x, NPY_ARRAY_OWNDATA | NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_WRITEABLE
                                   | NPY_ARRAY_ALIGNED);
}

/* 1: c is a dict that only the env holds, of two arrays as last() made them (their data:
 * obs, mask) */
static int unheld_dict(PyObject *c, int compact, void **obs, void **mask) {
    if (!PyDict_CheckExact(c) || Py_REFCNT(c) != 1 || PyDict_GET_SIZE(c) != 2) return 0;
    PyObject *o = PyDict_GetItem(c, wk_n.observation), *m = PyDict_GetItem(c, wk_n.action_mask);
    if (!unheld_array(o, compact ? u8 : f32, WK_OBS_SIZE) || !unheld_array(m, i8, WK_ACTIONS))
        return 0;
    *obs = PyArray_DATA((PyArrayObject *)o);
    *mask = PyArray_DATA((PyArrayObject *)m);
    return 1;
}

/* recent (a list of two) with obs last: moved there (k: its index) or put there (k: -1),
 * the older one dropped */
static void keep_recent(PyObject *recent, Py_ssize_t k, PyObject *obs) {
    if (k == 1) return;
    PyObject *older = PyList_GET_ITEM(recent, 0), *newer = PyList_GET_ITEM(recent, 1);
    PyList_SET_ITEM(recent, 0, newer);
    PyList_SET_ITEM(recent, 1, Py_NewRef(obs));
    Py_DECREF(older);
}

/* last()'s {"observation": ..., "action_mask": ...} for player p of game (a new reference;
 * NULL with the error set; Py_None: not a Game, in the compact form, see two_arrays) */
static PyObject *obs_dict(PyObject *d, PyObject *game, long long p, int over, int compact) {
    PyObject *recent = WK_REUSE_OBS ? wk_attr(d, wk_n.recent) : NULL;
    if (recent == NULL && PyErr_Occurred()) return NULL;
    if (recent != NULL && (!PyList_CheckExact(recent) || PyList_GET_SIZE(recent) != 2))
        recent = NULL;  /* not ours: left alone */
    for (Py_ssize_t k = 0; recent != NULL && k < 2; k++) {
        PyObject *c = PyList_GET_ITEM(recent, k);
        void *o, *m;
        if (!unheld_dict(c, compact, &o, &m)) continue;
        wk_one g;
        int got = wk_read_game(game, p, over, &g);
        if (got != 0) {
            if (got < 0) return NULL;
            break;  /* not a Game: two_arrays */
        }
        if (wk_write_one(&g, p, over, compact ? NULL : (float *)o, compact ? (uint8_t *)o : NULL,
                         (int8_t *)m) != 0)
            return NULL;
        keep_recent(recent, k, c);
        return Py_NewRef(c);
    }
    PyObject *two[2];
    int got = two_arrays(game, p, over, compact, two);
    if (got != 0) return got < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *obs = PyDict_New();
    if (obs != NULL && (PyDict_SetItem(obs, wk_n.observation, two[0])
                        || PyDict_SetItem(obs, wk_n.action_mask, two[1])))
        Py_CLEAR(obs);
    Py_DECREF(two[0]);
    Py_DECREF(two[1]);
    if (obs == NULL || !WK_REUSE_OBS) return obs;
    if (recent != NULL) {
        keep_recent(recent, -1, obs);
        return obs;
    }
    if (wk_attr(d, wk_n.recent) != NULL) return obs;  /* something else under that name */
    PyObject *fresh = PyErr_Occurred() ? NULL : PyList_New(2);
    if (fresh != NULL) {
        PyList_SET_ITEM(fresh, 0, Py_NewRef(Py_None));
        PyList_SET_ITEM(fresh, 1, Py_NewRef(obs));
    }
    if (fresh == NULL || PyDict_SetItem(d, wk_n.recent, fresh)) Py_CLEAR(obs);
    Py_XDECREF(fresh);
    return obs;
}

/* raw_env.last(observe=True) */
static PyObject *aec_last(PyObject *env, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int observe = 1;
    if (nargs == 1 && kwnames == NULL && (observe = PyObject_IsTrue(args[0])) < 0) return NULL;
    PyObject *d = nargs > 1 || kwnames != NULL ? NULL : PyObject_GenericGetDict(env, NULL);
    PyObject *mode = d == NULL ? NULL : wk_attr(d, wk_n.c_obs);
    PyObject *episode = mode == NULL ? NULL : wk_attr(d, wk_n.episode);
    PyObject *agent = episode == NULL ? NULL : wk_attr(d, wk_n.agent_selection);
    if (agent == NULL || episode == Py_None || !PyLong_CheckExact(mode)) {
        Py_XDECREF(d);  /* no core encoder, not reset, other arguments: Python */
        PyErr_Clear();
        return in_python(env, wk_n.last_py, args, nargsf, kwnames);
    }
    long compact = PyLong_AsLong(mode);
    PyObject *term = NULL, *trunc = NULL, *obs = NULL, *cum = NULL, *info = NULL, *out = NULL;
    if ((term = item_of(d, wk_n.terminations, agent)) == NULL
        || (trunc = item_of(d, wk_n.truncations, agent)) == NULL)
        goto drop;
    if (observe) {
        int p = wk_seat_of(agent), over = 0;
        PyObject *flag = p < 0 ? NULL : wk_attr(d, wk_n.over);
        if (flag == NULL || (over = PyObject_IsTrue(flag)) < 0) goto drop;
        if (!over && (over = PyObject_IsTrue(term)) < 0) goto drop;
        if (!over && (over = PyObject_IsTrue(trunc)) < 0) goto drop;
        PyObject *game = wk_episode_game(episode);
        if (game == NULL) goto drop;
        obs = obs_dict(d, game, p, over, (int)compact);
        Py_DECREF(game);
        if (obs == Py_None) {  /* not a Game, in the compact form: Python's last() */
            Py_DECREF(obs);
            Py_DECREF(term);
            Py_DECREF(trunc);
            Py_DECREF(d);
            return in_python(env, wk_n.last_py, args, nargsf, kwnames);
        }
        if (obs == NULL) goto drop;
    }
    if ((cum = item_of(d, wk_n.cumulative, agent)) != NULL
        && (info = item_of(d, wk_n.infos, agent)) != NULL)
        out = PyTuple_Pack(5, obs ? obs : Py_None, cum, term, trunc, info);
drop:
    Py_XDECREF(term);
    Py_XDECREF(trunc);
    Py_XDECREF(obs);
    Py_XDECREF(cum);
    Py_XDECREF(info);
    Py_DECREF(d);
    if (out == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "last() failed");
    return out;
}

/* raw_env.step(action): a plain legal int action on a going episode that ends no hand is
 * stepped here in full; a hand's end goes on in raw_env._settled; the rest to _step_py */
static PyObject *aec_step(PyObject *env, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 1 && kwnames == NULL && args[0] == Py_None) {  /* a dead agent's step */
        PyObject *d = PyObject_GenericGetDict(env, NULL);
        int done = d == NULL ? -1 : wk_dead_step(env, d);
        Py_XDECREF(d);
        if (done <= 0) return done < 0 ? NULL : Py_NewRef(Py_None);
    }
    if (nargs != 1 || kwnames != NULL || !PyLong_CheckExact(args[0]))
        return in_python(env, wk_n.step_py, args, nargsf, kwnames);
    PyObject *d = PyObject_GenericGetDict(env, NULL);
    if (d == NULL) return NULL;
    PyObject *fast = wk_attr(d, wk_n.c_step), *over = fast ? wk_attr(d, wk_n.over) : NULL;
    PyObject *mode = over ? wk_attr(d, wk_n.render_mode) : NULL;
    PyObject *episode = mode ? wk_attr(d, wk_n.episode) : NULL;
    PyObject *agent = episode ? wk_attr(d, wk_n.agent_selection) : NULL;
    PyObject *game = NULL, *r = NULL;
    long long a = -1, cached;
    uint64_t legal = 0;
    /* a render mode draws or prints after each step, the end of an episode is checked,
     * an illegal action raises or ends the episode: all in Python */
    int ok = agent != NULL && fast == Py_True && over == Py_False && mode == Py_None
        && episode != Py_None && (game = wk_episode_game(episode)) != NULL
        && wk_game_type != NULL && PyObject_TypeCheck(game, wk_game_type)
        && !((a = PyLong_AsLongLong(args[0])) == -1 && PyErr_Occurred())
        && a >= 0 && a < WK_ACTIONS && get_long(game, S_LEGAL, &cached) == 0;
    if (ok && cached < 0) ok = wk_game_legal_of(game, &legal) == 0;
    else if (ok) legal = (uint64_t)cached;
    PyObject *results = ok ? SLOT(game, S_RESULTS) : NULL;
    if (!ok || !((legal >> a) & 1) || results == NULL || !PyList_Check(results)) {
        PyErr_Clear();
        Py_XDECREF(game);
        Py_DECREF(d);
        return in_python(env, wk_n.step_py, args, nargsf, kwnames);
    }
    Py_INCREF(agent);
    Py_ssize_t hands = PyList_GET_SIZE(results);
    if ((r = wk_game_apply_int(game, args[0])) == NULL) goto fail;
    Py_CLEAR(r);
    results = SLOT(game, S_RESULTS);
    if (results == NULL || !PyList_Check(results) || PyList_GET_SIZE(results) != hands) {
        r = wk_hand_end(env, d, episode, game, agent);  /* a hand ended */
        goto fail;
    }
    PyObject *cum = wk_attr(d, wk_n.cumulative), *dirty;
    if (PyDict_SetItem(d, wk_n.has_updated, Py_True) || cum == NULL
        || PyObject_SetItem(cum, agent, wk_zero) || (dirty = wk_attr(d, wk_n.dirty)) == NULL)
        goto fail;
    int clean = PyObject_IsTrue(dirty);
    if (clean < 0 || (clean && (r = PyObject_CallMethodOneArg(env, wk_n.clean, agent)) == NULL))
        goto fail;
    Py_CLEAR(r);
    long long cur;
    if (get_long(game, S_CURRENT, &cur)) goto fail;
    if (cur != 0 && cur != 1) {
        PyErr_SetString(PyExc_RuntimeError, "step: no player to act after a hand went on");
        goto fail;
    }
    if (PyDict_SetItem(d, wk_n.agent_selection, wk_seats[cur]) == 0) r = Py_NewRef(Py_None);
fail:
    Py_DECREF(game);
    Py_DECREF(agent);
    Py_DECREF(d);
    if (r == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "step() failed");
    return r;
}

static PyMethodDef last_def = {
    "last", (PyCFunction)(void (*)(void))aec_last, METH_FASTCALL | METH_KEYWORDS,
    "last($self, observe=True)\n--\n\n``(observation, cumulative reward, terminated, "
    "truncated, info)`` of the agent to act (the compiled core's form of _last_py)."};
static PyMethodDef step_def = {
    "step", (PyCFunction)(void (*)(void))aec_step, METH_FASTCALL | METH_KEYWORDS,
    "step($self, action)\n--\n\nPlay ``action`` for the agent to act (the compiled core's "
    "form of _step_py)."};

/* configure_aec(raw_env, SEATS, RESULT_FIELDS, reset's parts) -> (last, step, reset):
 * descriptors for the class (reset's parts: _aec_start.c's wk_aec_start_configure) */
static PyObject *configure_aec(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *type, *names, *result_fields, *reset_parts;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyType_Type, &type, &PyTuple_Type, &names,
                          &PyTuple_Type, &result_fields, &PyTuple_Type, &reset_parts)
        || numpy_ready())
        return NULL;
    if (PyTuple_GET_SIZE(names) != 2) {
        PyErr_SetString(PyExc_ValueError, "configure_aec: SEATS must hold two names");
        return NULL;
    }
    if (wk_aec_end_configure(result_fields) || wk_aec_start_configure(reset_parts)) return NULL;
    for (int k = 0; k < 2; k++) Py_XSETREF(wk_seats[k], Py_NewRef(PyTuple_GET_ITEM(names, k)));
    Py_XSETREF(wk_env_type, (PyTypeObject *)Py_NewRef(type));
    return Py_BuildValue("(NNN)", PyDescr_NewMethod((PyTypeObject *)type, &last_def),
                         PyDescr_NewMethod((PyTypeObject *)type, &step_def),
                         PyDescr_NewMethod((PyTypeObject *)type, &wk_reset_def));
}

/* numpy_api() -> whether numpy's C API is there for these (a numpy older than the
 * headers' target, 1.23, refuses it: then Python runs) */
static PyObject *numpy_api(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    if (numpy_ready() == 0) Py_RETURN_TRUE;
    PyErr_Clear();
    Py_RETURN_FALSE;
}

PyMethodDef wk_aec_methods[] = {
    {"numpy_api", numpy_api, METH_NOARGS,
     "numpy_api() -> whether game_arrays and configure_aec may be used"},
    {"game_arrays", (PyCFunction)(void (*)(void))game_arrays, METH_FASTCALL,
     "game_arrays(game, player, over, compact) -> (obs, mask) numpy arrays"},
    {"configure_aec", configure_aec, METH_VARARGS,
     "configure_aec(raw_env, SEATS, RESULT_FIELDS, reset_parts) -> (last, step, reset) "
     "descriptors"},
    {"agent_iter", (PyCFunction)(void (*)(void))wk_agent_iter, METH_FASTCALL,
     "agent_iter(env, max_iter) -> raw_env.agent_iter()'s iterator"},
    {NULL, NULL, 0, NULL},
};

#else  /* built without numpy's headers: none of these */

int wk_aec_init(void) { return 0; }
PyMethodDef wk_aec_methods[] = {{NULL, NULL, 0, NULL}};

#endif
