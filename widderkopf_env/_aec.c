/* The AEC env's hot paths in C: observations as numpy arrays straight from a Game's slots
 * (game_arrays), raw_env's last() and step() (aec_env.py) as method descriptors, and the
 * iterator of its agent_iter().
 *
 * aec_env.py keeps both methods in Python (raw_env._last_py, raw_env._step_py), the
 * reference and the fallback: these call them for anything off the common path (an env
 * whose encoder or engine runs in Python, reward shaping, a render mode, an action that is
 * not a plain legal int, a step after the end other than a terminated agent's None). The
 * end of a hand and the steps of terminated agents are _aec_end.c's. The env's state
 * stays in its Python attributes (read and written here in its instance dict), so both
 * forms see one env. Needs numpy's headers at build
 * time (WK_NUMPY; numpy_api() says whether the numpy running takes them); without them
 * the module has none of these and Python runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>

#include "_core.h"
#include "_slots.h"
#include "_aec.h"

#ifdef WK_NUMPY
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

const wk_layout *wk_get_layout(void);
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *s_episode, *s_agent_selection, *s_terminations, *s_truncations, *s_over,
    *s_cumulative, *s_infos, *s_game, *s_c_obs, *s_c_step, *s_has_updated, *s_dirty,
    *s_clean, *s_step_py, *s_last_py, *s_render_mode, *s_observation,
    *s_action_mask, *s_agents, *s_zero;
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

/* agent_iter(env, max_iter): the iterator of raw_env.agent_iter() (aec_env.py's
 * _OrderedIterable._iter_py is its reference): yields env.agent_selection while env.agents
 * is not empty, at most max_iter times, and insists on a step() between two agents (each
 * yield sets env._has_updated to False; reset() and step() set it). Once it has stopped or
 * raised, it is finished. It reads the env's instance dict as last() and step() do. */
typedef struct {
    PyObject_HEAD
    PyObject *env;
    long long left;
    int done;
} order_iter;

static int order_iter_traverse(order_iter *it, visitproc visit, void *arg) {
    Py_VISIT(it->env);
    return 0;
}

static int order_iter_clear(order_iter *it) {
    Py_CLEAR(it->env);
    return 0;
}

static void order_iter_dealloc(order_iter *it) {
    PyObject_GC_UnTrack(it);
    order_iter_clear(it);
    PyObject_GC_Del(it);
}

/* d[name], a borrowed reference; a name missing there is read as an attribute (which
 * raises what it should) */
static PyObject *dict_or_attr(PyObject *env, PyObject *d, PyObject *name, PyObject **hold) {
    PyObject *v = PyDict_GetItemWithError(d, name);
    if (v != NULL || PyErr_Occurred()) return v;
    return *hold = PyObject_GetAttr(env, name);
}

static PyObject *order_iter_next(order_iter *it) {
    if (it->done || it->env == NULL) return NULL;
    PyObject *d = PyObject_GenericGetDict(it->env, NULL), *hold = NULL, *out = NULL;
    PyObject *agents = d == NULL ? NULL : dict_or_attr(it->env, d, s_agents, &hold);
    int more = agents == NULL ? -1 : PyObject_IsTrue(agents);
    Py_CLEAR(hold);
    if (more > 0 && it->left > 0) {
        PyObject *updated = dict_or_attr(it->env, d, s_has_updated, &hold);
        int ok = updated == NULL ? -1 : PyObject_IsTrue(updated);
        Py_CLEAR(hold);
        if (ok == 0)
            PyErr_SetString(PyExc_RuntimeError,
                            "call step() (or reset()) in each iteration of agent_iter()");
        if (ok > 0 && PyDict_SetItem(d, s_has_updated, Py_False) == 0) {
            it->left--;
            PyObject *agent = dict_or_attr(it->env, d, s_agent_selection, &hold);
            out = agent == NULL ? NULL : Py_NewRef(agent);
            Py_CLEAR(hold);
        }
    }
    Py_XDECREF(d);
    if (out == NULL) it->done = 1;  /* stopped (no error set) or raised */
    return out;
}

static PyTypeObject order_iter_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "widderkopf_env._speedups.agent_iterator",
    .tp_basicsize = sizeof(order_iter),
    .tp_dealloc = (destructor)order_iter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "raw_env.agent_iter()'s iterator (see _aec.c)",
    .tp_traverse = (traverseproc)order_iter_traverse,
    .tp_clear = (inquiry)order_iter_clear,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)order_iter_next,
};

static PyObject *agent_iter(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "agent_iter(env, max_iter)");
        return NULL;
    }
    int overflow = 0;
    long long left = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (left == -1 && PyErr_Occurred()) return NULL;
    order_iter *it = PyObject_GC_New(order_iter, &order_iter_type);
    if (it == NULL) return NULL;
    it->env = Py_NewRef(args[0]);
    it->left = overflow > 0 ? LLONG_MAX : overflow < 0 ? 0 : left;
    it->done = 0;
    PyObject_GC_Track(it);
    return (PyObject *)it;
}

int wk_aec_init(void) {
    struct { PyObject **var; const char *text; } names[] = {
        {&s_episode, "_episode"}, {&s_agent_selection, "agent_selection"},
        {&s_terminations, "terminations"}, {&s_truncations, "truncations"}, {&s_over, "_over"},
        {&s_cumulative, "_cumulative_rewards"}, {&s_infos, "infos"}, {&s_game, "game"},
        {&s_c_obs, "_c_obs"}, {&s_c_step, "_c_step"}, {&s_has_updated, "_has_updated"},
        {&s_dirty, "_dirty"}, {&s_clean, "_clean"}, {&s_step_py, "_step_py"},
        {&s_last_py, "_last_py"}, {&s_render_mode, "render_mode"},
        {&s_observation, "observation"}, {&s_action_mask, "action_mask"},
        {&s_agents, "agents"}};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if ((*names[k].var = PyUnicode_InternFromString(names[k].text)) == NULL) return -1;
    if (PyType_Ready(&order_iter_type) < 0) return -1;
    if (wk_aec_end_init() < 0) return -1;
    return (s_zero = PyFloat_FromDouble(0.0)) == NULL ? -1 : 0;
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

/* raw_env.last(observe=True) */
static PyObject *aec_last(PyObject *env, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int observe = 1;
    if (nargs == 1 && kwnames == NULL && (observe = PyObject_IsTrue(args[0])) < 0) return NULL;
    PyObject *d = nargs > 1 || kwnames != NULL ? NULL : PyObject_GenericGetDict(env, NULL);
    PyObject *mode = d == NULL ? NULL : wk_attr(d, s_c_obs);
    PyObject *episode = mode == NULL ? NULL : wk_attr(d, s_episode);
    PyObject *agent = episode == NULL ? NULL : wk_attr(d, s_agent_selection);
    if (agent == NULL || episode == Py_None || !PyLong_CheckExact(mode)) {
        Py_XDECREF(d);  /* no core encoder, not reset, other arguments: Python */
        PyErr_Clear();
        return in_python(env, s_last_py, args, nargsf, kwnames);
    }
    long compact = PyLong_AsLong(mode);
    PyObject *term = NULL, *trunc = NULL, *obs = NULL, *cum = NULL, *info = NULL, *out = NULL;
    if ((term = item_of(d, s_terminations, agent)) == NULL
        || (trunc = item_of(d, s_truncations, agent)) == NULL)
        goto drop;
    if (observe) {
        int p = wk_seat_of(agent), over = 0;
        PyObject *flag = p < 0 ? NULL : wk_attr(d, s_over);
        if (flag == NULL || (over = PyObject_IsTrue(flag)) < 0) goto drop;
        if (!over && (over = PyObject_IsTrue(term)) < 0) goto drop;
        if (!over && (over = PyObject_IsTrue(trunc)) < 0) goto drop;
        PyObject *game = PyObject_GetAttr(episode, s_game);
        if (game == NULL) goto drop;
        PyObject *two[2];
        int got = two_arrays(game, p, over, (int)compact, two);
        Py_DECREF(game);
        if (got > 0) {  /* not a Game, in the compact form: Python's last() */
            Py_DECREF(term);
            Py_DECREF(trunc);
            Py_DECREF(d);
            return in_python(env, s_last_py, args, nargsf, kwnames);
        }
        if (got < 0) goto drop;
        if ((obs = PyDict_New()) == NULL || PyDict_SetItem(obs, s_observation, two[0])
            || PyDict_SetItem(obs, s_action_mask, two[1])) {
            Py_DECREF(two[0]);
            Py_DECREF(two[1]);
            goto drop;
        }
        Py_DECREF(two[0]);
        Py_DECREF(two[1]);
    }
    if ((cum = item_of(d, s_cumulative, agent)) != NULL
        && (info = item_of(d, s_infos, agent)) != NULL)
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
        return in_python(env, s_step_py, args, nargsf, kwnames);
    PyObject *d = PyObject_GenericGetDict(env, NULL);
    if (d == NULL) return NULL;
    PyObject *fast = wk_attr(d, s_c_step), *over = fast ? wk_attr(d, s_over) : NULL;
    PyObject *mode = over ? wk_attr(d, s_render_mode) : NULL;
    PyObject *episode = mode ? wk_attr(d, s_episode) : NULL;
    PyObject *agent = episode ? wk_attr(d, s_agent_selection) : NULL;
    PyObject *game = NULL, *r = NULL;
    long long a = -1, cached;
    uint64_t legal = 0;
    /* a render mode draws or prints after each step, the end of an episode is checked,
     * an illegal action raises or ends the episode: all in Python */
    int ok = agent != NULL && fast == Py_True && over == Py_False && mode == Py_None
        && episode != Py_None && (game = PyObject_GetAttr(episode, s_game)) != NULL
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
        return in_python(env, s_step_py, args, nargsf, kwnames);
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
    PyObject *cum = wk_attr(d, s_cumulative), *dirty;
    if (PyDict_SetItem(d, s_has_updated, Py_True) || cum == NULL
        || PyObject_SetItem(cum, agent, s_zero) || (dirty = wk_attr(d, s_dirty)) == NULL)
        goto fail;
    int clean = PyObject_IsTrue(dirty);
    if (clean < 0 || (clean && (r = PyObject_CallMethodOneArg(env, s_clean, agent)) == NULL))
        goto fail;
    Py_CLEAR(r);
    long long cur;
    if (get_long(game, S_CURRENT, &cur)) goto fail;
    if (cur != 0 && cur != 1) {
        PyErr_SetString(PyExc_RuntimeError, "step: no player to act after a hand went on");
        goto fail;
    }
    if (PyDict_SetItem(d, s_agent_selection, wk_seats[cur]) == 0) r = Py_NewRef(Py_None);
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

/* configure_aec(raw_env, SEATS, RESULT_FIELDS) -> (last, step): descriptors for the class */
static PyObject *configure_aec(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *type, *names, *result_fields;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &type, &PyTuple_Type, &names,
                          &PyTuple_Type, &result_fields)
        || numpy_ready())
        return NULL;
    if (PyTuple_GET_SIZE(names) != 2) {
        PyErr_SetString(PyExc_ValueError, "configure_aec: SEATS must hold two names");
        return NULL;
    }
    if (wk_aec_end_configure(result_fields)) return NULL;
    for (int k = 0; k < 2; k++) Py_XSETREF(wk_seats[k], Py_NewRef(PyTuple_GET_ITEM(names, k)));
    Py_XSETREF(wk_env_type, (PyTypeObject *)Py_NewRef(type));
    return Py_BuildValue("(NN)", PyDescr_NewMethod((PyTypeObject *)type, &last_def),
                         PyDescr_NewMethod((PyTypeObject *)type, &step_def));
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
     "configure_aec(raw_env, SEATS, RESULT_FIELDS) -> (last, step) descriptors"},
    {"agent_iter", (PyCFunction)(void (*)(void))agent_iter, METH_FASTCALL,
     "agent_iter(env, max_iter) -> raw_env.agent_iter()'s iterator"},
    {NULL, NULL, 0, NULL},
};

#else  /* built without numpy's headers: none of these */

int wk_aec_init(void) { return 0; }
PyMethodDef wk_aec_methods[] = {{NULL, NULL, 0, NULL}};

#endif
