/* The Game as a C type, _core.GameState: one game's state in the object's own memory (a
 * one-row batch of core.h, game.h's wk_row), moved by core.h's wk_* functions, the ones
 * the vector env calls. rules.py's Game is a Python subclass of it with the API written
 * once for both forms (new, from_deal, view, to_json ...); PyGame, in Python, is the
 * reference, and tests/core/test_core_game.py compares the two at every decision.
 *
 * What stays in Python is reached through public calls: the error of an illegal action
 * (the subclass's _coerce and _reject, IllegalActionError's), the deal of a match's next
 * hand (its _next_deal) and the hand's result (HandResult(...), the class handed over by
 * configure_game). Every field is read-only from Python; the lists a getter returns are
 * new, but for the match's history, results and deals, which the game owns.
 * game_io.c holds the row's binding, the deals, the construction from fields and the
 * encoder; game_fields.c the getters.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "game.h"

static PyObject *result_type; /* configure_game's HandResult */

/* ---- the type's life ------------------------------------------------------------------ */

static PyObject *game_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if ((args != NULL && PyTuple_GET_SIZE(args)) || (kwds != NULL && PyDict_GET_SIZE(kwds))) {
        PyErr_SetString(PyExc_TypeError, "Game() takes no arguments: use Game.new, "
                        "Game.from_deal or worlds.from_view");
        return NULL;
    }
    wk_game *g = (wk_game *)PyType_GenericAlloc(type, 0);
    if (g != NULL) wk_game_bind(g);
    return (PyObject *)g;
}

static int game_traverse(wk_game *g, visitproc visit, void *arg) {
    Py_VISIT(g->history);
    Py_VISIT(g->results);
    Py_VISIT(g->deals);
    Py_VISIT(g->seed);
    Py_VISIT(g->variant);
    return 0;
}

static int game_clear(wk_game *g) {
    Py_CLEAR(g->history);
    Py_CLEAR(g->results);
    Py_CLEAR(g->deals);
    Py_CLEAR(g->seed);
    Py_CLEAR(g->variant);
    Py_CLEAR(g->hv);
    g->b.hand_value = NULL;
    return 0;
}

/* (a Python subclass's dealloc holds and releases its class) */
static void game_dealloc(wk_game *g) {
    PyObject_GC_UnTrack(g);
    game_clear(g);
    Py_TYPE(g)->tp_free((PyObject *)g);
}

/* clone(): a new game of the same class, its state copied, its lists new */
static PyObject *game_clone(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_game *g = (wk_game *)self, *c;
    if (wk_game_ready(g)) return NULL;
    PyObject *empty = PyTuple_New(0);
    c = empty == NULL ? NULL : (wk_game *)Py_TYPE(self)->tp_new(Py_TYPE(self), empty, NULL);
    Py_XDECREF(empty);
    if (c == NULL) return NULL;
    c->s = g->s;
    c->b = g->b;
    c->history = PyList_GetSlice(g->history, 0, PY_SSIZE_T_MAX);
    c->results = PyList_GetSlice(g->results, 0, PY_SSIZE_T_MAX);
    c->deals = PyList_GetSlice(g->deals, 0, PY_SSIZE_T_MAX);
    c->seed = Py_NewRef(g->seed);
    c->variant = Py_NewRef(g->variant);
    c->hv = Py_NewRef(g->hv);
    wk_game_bind(c);
    if (c->history == NULL || c->results == NULL || c->deals == NULL) {
        Py_DECREF(c);
        return NULL;
    }
    return (PyObject *)c;
}

static PyObject *game_deepcopy(PyObject *self, PyObject *memo) {
    (void)memo;
    return game_clone(self, NULL);
}

/* _setup(seed, first_dealer, num_hands, scores, deals, variant, numbers): a match before
 * its first hand (the checked arguments of Game._create); _start_hand() deals it */
static PyObject *game_setup(PyObject *self, PyObject *args) {
    wk_game *g = (wk_game *)self;
    PyObject *seed, *deals, *variant, *numbers;
    long long first, hands, s0, s1;
    if (!PyArg_ParseTuple(args, "OLL(LL)O!OO!:_setup", &seed, &first, &hands, &s0, &s1,
                          &PyList_Type, &deals, &variant, &PyTuple_Type, &numbers))
        return NULL;
    if ((first != 0 && first != 1) || hands < 1 || s0 < 0 || s1 < 0) {
        PyErr_SetString(PyExc_ValueError, "_setup: a first dealer 0 or 1, hands >= 1 and "
                        "scores >= 0");
        return NULL;
    }
    PyObject *history = PyList_New(0), *results = PyList_New(0);
    if (history == NULL || results == NULL || wk_game_set_variant(g, variant, numbers)) {
        Py_XDECREF(history);
        Py_XDECREF(results);
        return NULL;
    }
    memset(&g->s, 0, sizeof(g->s));
    Py_XSETREF(g->history, history);
    Py_XSETREF(g->results, results);
    Py_XSETREF(g->deals, Py_NewRef(deals));
    Py_XSETREF(g->seed, Py_NewRef(seed));
    g->s.first_dealer = first;
    g->s.num_hands = hands;
    g->s.scores[0] = g->s.initial_scores[0] = s0;
    g->s.scores[1] = g->s.initial_scores[1] = s1;
    g->s.phase = WK_OVER; /* no hand yet */
    g->s.current = -1;
    g->s.trump = g->s.lead = g->s.lead_pile = -1;
    wk_game_bind(g);
    Py_RETURN_NONE;
}

/* the hand of hand_no from self._next_deal() (Game._start_hand); -1 with the error set,
 * the game then unchanged */
static int start_hand(wk_game *g) {
    PyObject *deal = PyObject_CallMethod((PyObject *)g, "_next_deal", NULL);
    uint64_t hand[2];
    int64_t up[2 * WK_PILES], down[2 * WK_PILES];
    if (deal == NULL) return -1;
    int err = wk_read_deal(deal, hand, up, down);
    Py_DECREF(deal);
    if (err) return -1;
    g->s.hand_start = PyList_GET_SIZE(g->history);
    wk_start_hand(wk_get_rules(), &g->b, 0, hand[0], hand[1], up, down);
    return 0;
}

static PyObject *game_start_hand(PyObject *self, PyObject *unused) {
    (void)unused;
    if (wk_game_ready((wk_game *)self) || start_hand((wk_game *)self)) return NULL;
    Py_RETURN_NONE;
}

/* ---- moves ---------------------------------------------------------------------------- */

/* the result of the hand just finished: HandResult(...) of the row's res_* fields */
static PyObject *hand_result(const wk_row *s) {
    if (result_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_core.configure_game() was not called");
        return NULL;
    }
    PyObject *v[13] = {
        PyLong_FromLongLong(s->res_hand), PyLong_FromLongLong(s->res_dealer),
        PyLong_FromLongLong(s->res_trump),
        Py_BuildValue("(LL)", (long long)s->res_card_points[0], (long long)s->res_card_points[1]),
        Py_BuildValue("(LL)", (long long)s->res_trick_points[0],
                      (long long)s->res_trick_points[1]),
        Py_BuildValue("(LL)", (long long)s->res_discards[0], (long long)s->res_discards[1]),
        PyLong_FromLongLong(s->res_spitzer), PyLong_FromLongLong(s->res_winner),
        PyLong_FromLongLong(s->res_crack_level), PyBool_FromLong(s->res_schneider),
        PyBool_FromLong(s->res_schwarz), PyLong_FromLongLong(s->res_value),
        Py_BuildValue("(LL)", (long long)s->res_scores[0], (long long)s->res_scores[1])};
    PyObject *r = NULL;
    int ok = 1;
    for (int k = 0; k < 13; k++) ok = ok && v[k] != NULL;
    if (ok) r = PyObject_Vectorcall(result_type, v, 13, NULL);
    for (int k = 0; k < 13; k++) Py_XDECREF(v[k]);
    return r;
}

/* list[n:] removed, the exception set kept */
static void cut_list(PyObject *list, Py_ssize_t n) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
#endif
    if (PyList_GET_SIZE(list) > n && PyList_SetSlice(list, n, PY_SSIZE_T_MAX, NULL))
        PyErr_Clear();
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(type, value, trace);
#endif
}

/* apply(action): an exact int here; anything else through self._coerce (as_int, or
 * IllegalActionError.not_an_id); an illegal one through self._reject (not_legal) */
static PyObject *game_apply(PyObject *self, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames) {
    wk_game *g = (wk_game *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw != 1 || (nkw == 1 && (!PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0))
            || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "action")))) {
        PyErr_SetString(PyExc_TypeError, "Game.apply() takes one argument, the action");
        return NULL;
    }
    if (wk_game_ready(g)) return NULL;
    uint64_t m = g->s.legal;
    PyObject *action;
    if (PyLong_CheckExact(args[0])) {
        action = Py_NewRef(args[0]);
    } else if ((action = PyObject_CallMethod(self, "_coerce", "OK", args[0],
                                             (unsigned long long)m)) == NULL) {
        return NULL;
    }
    int overflow;
    long long a = PyLong_AsLongLongAndOverflow(action, &overflow);
    if (a == -1 && PyErr_Occurred()) {
        Py_DECREF(action);
        return NULL;
    }
    if (overflow || a < 0 || a >= WK_ACTIONS || !((m >> a) & 1)) {
        PyObject *r = PyObject_CallMethod(self, "_reject", "OK", action, (unsigned long long)m);
        Py_DECREF(action);
        if (r != NULL) {
            Py_DECREF(r);
            PyErr_SetString(PyExc_RuntimeError, "Game._reject did not raise");
        }
        return NULL;
    }
    /* a move that may end the hand calls Python (the result, the next deal): the row is
     * kept to be put back if that fails */
    int last = g->s.phase == WK_PLAY && a < WK_TRUMP_ACTION && g->s.lead >= 0
        && g->s.ntricks + 1 == g->b.ntricks_per_hand;
    wk_row saved;
    Py_ssize_t nh = PyList_GET_SIZE(g->history), nr = PyList_GET_SIZE(g->results);
    if (last) saved = g->s;
    int err = PyList_Append(g->history, action);
    Py_DECREF(action);
    if (err) return NULL;
    int64_t finished = g->s.res_count;
    int need = wk_apply(wk_get_rules(), &g->b, 0, a);
    if (g->s.res_count != finished) {
        PyObject *r = hand_result(&g->s);
        err = r == NULL || PyList_Append(g->results, r);
        Py_XDECREF(r);
    }
    if (!err && need) err = start_hand(g);
    if (err) {
        if (last) g->s = saved;
        cut_list(g->results, nr);
        cut_list(g->history, nh);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *game_legal_actions(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_game *g = (wk_game *)self;
    if (wk_game_ready(g)) return NULL;
    uint64_t m = g->s.legal;
    PyObject *out = PyList_New(wk_popcount(m));
    if (out == NULL) return NULL;
    for (Py_ssize_t a = 0, k = 0; a < WK_ACTIONS; a++) {
        if (!((m >> a) & 1)) continue;
        PyObject *v = PyLong_FromSsize_t(a);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k++, v);
    }
    return out;
}

/* _may_escalate(player): player 0 or 1 */
static PyObject *game_may_escalate(PyObject *self, PyObject *player) {
    wk_game *g = (wk_game *)self;
    long p = PyLong_AsLong(player);
    if (p == -1 && PyErr_Occurred()) return NULL;
    if (p != 0 && p != 1) {
        PyErr_SetString(PyExc_ValueError, "player must be 0 or 1");
        return NULL;
    }
    if (wk_game_ready(g)) return NULL;
    return PyBool_FromLong(wk_may_escalate(&g->b, 0, p));
}

static PyObject *game_rights(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_game *g = (wk_game *)self;
    int r[2];
    if (wk_game_ready(g)) return NULL;
    wk_rights(&g->b, 0, r);
    return Py_BuildValue("(OO)", r[0] ? Py_True : Py_False, r[1] ? Py_True : Py_False);
}

/* card_points(): PyGame.card_points */
static PyObject *game_card_points(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_game *g = (wk_game *)self;
    if (wk_game_ready(g)) return NULL;
    if (g->s.phase == WK_OVER) {
        Py_ssize_t n = PyList_GET_SIZE(g->results);
        if (n == 0) {
            PyErr_SetString(PyExc_IndexError, "card_points: the match is over but has no "
                            "result");
            return NULL;
        }
        return PyObject_GetAttrString(PyList_GET_ITEM(g->results, n - 1), "card_points");
    }
    const wk_rules *r = wk_get_rules();
    int64_t d0 = g->s.discard[0], d1 = g->s.discard[1];
    return Py_BuildValue("(LL)", (long long)(g->s.trick_points[0] + (d1 >= 0 ? r->points[d1] : 0)),
                         (long long)(g->s.trick_points[1] + (d0 >= 0 ? r->points[d0] : 0)));
}

static PyObject *game_returns(PyObject *self, PyObject *unused) {
    (void)unused;
    wk_game *g = (wk_game *)self;
    if (wk_game_ready(g)) return NULL;
    double d = (double)((g->s.scores[0] - g->s.initial_scores[0])
                        - (g->s.scores[1] - g->s.initial_scores[1]));
    return Py_BuildValue("[dd]", d, -d);
}

/* configure_game(HandResult): the class of a hand's result */
static PyObject *configure_game(PyObject *self, PyObject *type) {
    (void)self;
    if (!PyCallable_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "configure_game(HandResult): a class");
        return NULL;
    }
    Py_XSETREF(result_type, Py_NewRef(type));
    Py_RETURN_NONE;
}

static PyMethodDef game_methods[] = {
    {"apply", (PyCFunction)(void (*)(void))game_apply, METH_FASTCALL | METH_KEYWORDS,
     "apply($self, action)\n--\n\nApply ``action`` for :attr:`current_player`. Raises "
     ":class:`IllegalActionError` (a ``ValueError``) naming the action, the phase and the "
     "legal actions if the action is not legal now; the game is then unchanged."},
    {"legal_actions", game_legal_actions, METH_NOARGS,
     "legal_actions($self, /)\n--\n\nLegal action ids of :attr:`current_player`, ascending "
     "(empty once over)."},
    {"_may_escalate", game_may_escalate, METH_O, "_may_escalate(player 0 or 1) -> bool"},
    {"escalation_rights", game_rights, METH_NOARGS,
     "escalation_rights($self, /)\n--\n\n``(may_escalate(0), may_escalate(1))``."},
    {"card_points", game_card_points, METH_NOARGS,
     "card_points($self, /)\n--\n\nCard points in each capture pile, discards included "
     "(the final points of the last hand once the match is over)."},
    {"returns", game_returns, METH_NOARGS,
     "returns($self, /)\n--\n\nZero-sum game points: ``[s0 - s1, s1 - s0]`` of the match "
     "scores gained so far."},
    {"clone", game_clone, METH_NOARGS,
     "clone($self, /)\n--\n\nAn independent copy (``copy.copy`` and ``copy.deepcopy`` give "
     "the same)."},
    {"__copy__", game_clone, METH_NOARGS, "clone()"},
    {"__deepcopy__", game_deepcopy, METH_O, "clone()"},
    {"_setup", game_setup, METH_VARARGS,
     "_setup(seed, first_dealer, num_hands, scores, deals, variant, numbers): a match "
     "before its first hand"},
    {"_start_hand", game_start_hand, METH_NOARGS,
     "_start_hand(): the hand of hand_no, dealt by self._next_deal()"},
    {"_load", wk_game_load, METH_VARARGS,
     "_load(fields, numbers): the state of PyGame._from_fields's fields"},
#ifdef WK_NUMPY
    {"encode", (PyCFunction)(void (*)(void))wk_game_encode, METH_FASTCALL,
     "encode(player, over, compact) -> (obs, mask): the observation of ``player`` "
     "(float32, or the compact uint8 form) and the action mask (int8), new arrays"},
#endif
    {NULL, NULL, 0, NULL},
};

PyTypeObject wk_game_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "widderkopf_env._core.GameState",
    .tp_basicsize = sizeof(wk_game),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A Widderkopf match's state in C, moved by the core's rules (rules.Game "
              "is its Python face).",
    .tp_new = game_new,
    .tp_dealloc = (destructor)game_dealloc,
    .tp_traverse = (traverseproc)game_traverse,
    .tp_clear = (inquiry)game_clear,
    .tp_methods = game_methods,
    .tp_getset = wk_game_getset,
};

static PyMethodDef module_methods[] = {
    {"configure_game", configure_game, METH_O,
     "configure_game(HandResult): the class of a hand's result (called with its fields)"},
    {NULL, NULL, 0, NULL},
};

/* the type GameState and the module's functions of the Game (module.c calls this);
 * wk_init_tables: the byte tables of game_io.c's encoder */
int wk_game_add(PyObject *module) {
    wk_game_init_tables();
    if (PyType_Ready(&wk_game_type) < 0) return -1;
    Py_INCREF(&wk_game_type);
    if (PyModule_AddObject(module, "GameState", (PyObject *)&wk_game_type) < 0) {
        Py_DECREF(&wk_game_type);
        return -1;
    }
    return PyModule_AddFunctions(module, wk_game_io_methods) < 0
        || PyModule_AddFunctions(module, module_methods) < 0 ? -1 : 0;
}
