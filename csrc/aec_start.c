/* The start of an AEC episode and the loop over its agents in C: raw_env.reset() in its
 * common form (no seed, no options: the next match drawn from the env's own generator) and
 * the iterator of raw_env.agent_iter(). aec_env.py's raw_env._reset_py and
 * _OrderedIterable._iter_py are their references (and the reset of every other form);
 * tests/core/test_aec_core.py compares them. Like the rest of the AEC env's C code, they
 * read and write the env's attributes in its instance dict.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>

#include "aec.h"
#include "slots.h"

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
    PyObject *agents = d == NULL ? NULL : dict_or_attr(it->env, d, wk_n.agents, &hold);
    int more = agents == NULL ? -1 : PyObject_IsTrue(agents);
    Py_CLEAR(hold);
    if (more > 0 && it->left > 0) {
        PyObject *updated = dict_or_attr(it->env, d, wk_n.has_updated, &hold);
        int ok = updated == NULL ? -1 : PyObject_IsTrue(updated);
        Py_CLEAR(hold);
        if (ok == 0)
            PyErr_SetString(PyExc_RuntimeError,
                            "call step() (or reset()) in each iteration of agent_iter()");
        if (ok > 0 && PyDict_SetItem(d, wk_n.has_updated, Py_False) == 0) {
            it->left--;
            PyObject *agent = dict_or_attr(it->env, d, wk_n.agent_selection, &hold);
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

PyObject *wk_agent_iter(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
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

/* ---- reset() ----------------------------------------------------------------------------- */

/* configure_aec's: Episode, deals.seeded_dealer, deals.seeded_variant_deal, MAX_HANDS */
PyTypeObject *wk_episode_type;
Py_ssize_t wk_episode_game_at;
static PyObject *seeded_dealer, *seeded_deal;
static long long max_hands;
static PyObject *max_seed, *no_scores;  /* 2**63 - 1 and (0, 0) */

int wk_aec_start_init(void) {
    if (PyType_Ready(&order_iter_type) < 0) return -1;
    if ((max_seed = PyLong_FromLongLong(INT64_MAX)) == NULL) return -1;
    return (no_scores = Py_BuildValue("(ii)", 0, 0)) == NULL ? -1 : 0;
}

int wk_aec_start_configure(PyObject *parts) {
    PyObject *episode, *dealer, *deal;
    if (!PyArg_ParseTuple(parts, "OOOL;configure_aec: reset's parts are (Episode, "
                          "seeded_dealer, seeded_variant_deal, MAX_HANDS)",
                          &episode, &dealer, &deal, &max_hands))
        return -1;
    PyObject *slot = PyType_Check(episode)
        ? PyDict_GetItemWithError(((PyTypeObject *)episode)->tp_dict, wk_n.game) : NULL;
    Py_ssize_t at = wk_member_offset(slot);
    if (at < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "configure_aec: Episode has no slot game");
        return -1;
    }
    wk_episode_game_at = at;
    Py_XSETREF(wk_episode_type, (PyTypeObject *)Py_NewRef(episode));
    Py_XSETREF(seeded_dealer, Py_NewRef(dealer));
    Py_XSETREF(seeded_deal, Py_NewRef(deal));
    return 0;
}

/* 1 where reset's arguments (seed, options) are all None, given or not; 0 for anything
 * else (a value, an unknown or repeated name: Python takes it, and raises what it should) */
static int plain_reset(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    int seed = nargs >= 1, options = nargs >= 2;
    if (nargs + nkw > 2) return 0;
    for (Py_ssize_t k = 0; k < nargs + nkw; k++)
        if (args[k] != Py_None) return 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        if (!seed && PyUnicode_CompareWithASCIIString(name, "seed") == 0) seed = 1;
        else if (!options && PyUnicode_CompareWithASCIIString(name, "options") == 0) options = 1;
        else return 0;
    }
    return 1;
}

/* [item] */
static PyObject *list_of(PyObject *item) {
    PyObject *list = PyList_New(1);
    if (list != NULL) PyList_SET_ITEM(list, 0, Py_NewRef(item));
    return list;
}

/* new_game(rng, num_hands, None, None, variant): Game.new(seed=int(rng.integers(0,
 * 2**63 - 1)), num_hands=num_hands, variant=variant), as Game._create builds it */
static PyObject *new_game(PyObject *rng, PyObject *num_hands, PyObject *variant) {
    PyObject *call[3] = {rng, wk_int_zero, max_seed};
    PyObject *drawn = PyObject_VectorcallMethod(wk_n.integers, call, 3, NULL);
    PyObject *seed = drawn == NULL ? NULL : PyNumber_Long(drawn);
    Py_XDECREF(drawn);
    PyObject *dealer = seed == NULL ? NULL : PyObject_CallOneArg(seeded_dealer, seed);
    PyObject *deal_args[3] = {seed, wk_int_zero, variant};
    PyObject *deal = dealer == NULL ? NULL : PyObject_Vectorcall(seeded_deal, deal_args, 3, NULL);
    PyObject *game = deal == NULL ? NULL : wk_game_type->tp_alloc(wk_game_type, 0);
    PyObject *start[2] = {game, deal}, *started = NULL;
    int err = game == NULL || set_slot(game, S_VARIANT, Py_NewRef(variant))
        || set_slot(game, S_SEED, Py_NewRef(seed)) || set_slot(game, S_NUM_HANDS,
                                                               Py_NewRef(num_hands))
        || set_slot(game, S_FIRST_DEALER, Py_NewRef(dealer))
        || set_slot(game, S_INITIAL_SCORES, Py_NewRef(no_scores))
        || set_slot(game, S_SCORES, PySequence_List(no_scores))
        || set_slot(game, S_HAND_NO, Py_NewRef(wk_int_zero))
        || set_slot(game, S_RESULTS, PyList_New(0))
        || set_slot(game, S_DEALS, list_of(deal))
        || set_slot(game, S_HISTORY, PyList_New(0))
        || (started = wk_game_start_hand(NULL, start, 2)) == NULL;
    Py_XDECREF(started);
    Py_XDECREF(seed);
    Py_XDECREF(dealer);
    Py_XDECREF(deal);
    if (err) Py_CLEAR(game);
    return game;
}

/* raw_env.reset(seed=None, options=None): with no seed and no options, on the env's own
 * class after a first reset (its generator made), here; anything else in _reset_py */
static PyObject *aec_reset(PyObject *env, PyObject *const *args, size_t nargsf,
                           PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *d = NULL, *rng = NULL, *num_hands = NULL, *settings = NULL;
    long long hands = 0;
    int overflow = 0;
    if (Py_TYPE(env) == wk_env_type && wk_episode_type != NULL && plain_reset(args, nargs, kwnames)
        && (d = PyObject_GenericGetDict(env, NULL)) != NULL
        && (rng = wk_attr(d, wk_n.np_random)) != NULL && rng != Py_None
        && (num_hands = wk_attr(d, wk_n.num_hands)) != NULL && PyLong_CheckExact(num_hands))
        hands = PyLong_AsLongLongAndOverflow(num_hands, &overflow);
    settings = hands >= 1 && hands <= max_hands && !overflow ? wk_attr(d, wk_n.settings) : NULL;
    PyObject *variant = settings == NULL ? NULL : PyObject_GetAttr(settings, wk_n.variant);
    if (variant == NULL) {
        PyErr_Clear();
        Py_XDECREF(d);
        PyObject *method = PyObject_GetAttr(env, wk_n.reset_py);
        PyObject *r = method == NULL ? NULL : PyObject_Vectorcall(method, args, nargsf, kwnames);
        Py_XDECREF(method);
        return r;
    }
    Py_INCREF(rng);  /* the calls below run Python code, which may change the env */
    Py_INCREF(num_hands);
    Py_INCREF(settings);
    PyObject *game = new_game(rng, num_hands, variant), *episode = NULL, *out = NULL;
    PyObject *parts[2] = {game, settings};
    if (game != NULL) episode = PyObject_Vectorcall((PyObject *)wk_episode_type, parts, 2, NULL);
    long long current = -1;
    if (episode != NULL && get_long(game, S_CURRENT, &current) == 0
        && (current == 0 || current == 1)) {
        PyObject *infos[2] = {PyDict_New(), PyDict_New()};
        PyObject *value[8] = {
            episode, PyList_New(2), wk_pair(wk_zero, wk_zero), wk_pair(wk_zero, wk_zero),
            wk_pair(Py_False, Py_False), wk_pair(Py_False, Py_False),
            infos[0] && infos[1] ? wk_pair(infos[0], infos[1]) : NULL, wk_seats[current]};
        PyObject *name[8] = {wk_n.episode, wk_n.agents, wk_n.rewards, wk_n.cumulative,
                             wk_n.terminations, wk_n.truncations, wk_n.infos,
                             wk_n.agent_selection};
        if (value[1] != NULL)
            for (int k = 0; k < 2; k++) PyList_SET_ITEM(value[1], k, Py_NewRef(wk_seats[k]));
        int err = 0;
        for (int k = 0; k < 8; k++) err = err || value[k] == NULL
            || PyDict_SetItem(d, name[k], value[k]);
        err = err || PyDict_SetItem(d, wk_n.dirty, Py_False)
            || PyDict_SetItem(d, wk_n.over, Py_False)
            || PyDict_SetItem(d, wk_n.has_updated, Py_True);
        for (int k = 1; k < 7; k++) Py_XDECREF(value[k]);
        Py_XDECREF(infos[0]);
        Py_XDECREF(infos[1]);
        if (!err) out = Py_NewRef(Py_None);
    } else if (episode != NULL && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_RuntimeError, "reset: no player to act in a new match");
    }
    Py_XDECREF(episode);
    Py_XDECREF(game);
    Py_DECREF(variant);
    Py_DECREF(settings);
    Py_DECREF(num_hands);
    Py_DECREF(rng);
    Py_DECREF(d);
    return out;
}

PyMethodDef wk_reset_def = {
    "reset", (PyCFunction)(void (*)(void))aec_reset, METH_FASTCALL | METH_KEYWORDS,
    "reset($self, seed=None, options=None)\n--\n\nStart a new episode (the compiled core's "
    "form of _reset_py, for a reset with no seed and no options)."};
