/* The perfect-information endgame search in C: an optional accelerator for agents/solver.py.
 *
 * Searcher(trump, rev) holds the transposition table of one world (the trump suit and
 * rev[c], the bit of the face-down card under face-up card c, in solver labels).
 * Searcher.search(aL, aO, live, R, n, alpha, beta) does what the function that
 * solver.make_search returns does: the card points the leader (playable set aL) takes
 * from the n remaining tricks (live: unplayed cards, R: their points), fail-soft within
 * (alpha, beta); Searcher.lead_values(aL, aO, live, R, n) gives the exact points of every
 * lead (solver._lead_values). The values are the Python search's
 * (tests/agents/test_solver_accel.py compares them); the way to them is faster:
 *
 * - null-window tests (MTD): the root's value is found by searches with a window of one
 *   point ("at least gamma?"), each raising a proven lower bound or lowering a proven
 *   upper one; the first test at the caller's window edge or a guess (the last exact
 *   value, scaled and seen from the new leader's side), then strides that double, then
 *   halving;
 * - a transposition table of lower and upper bounds (and the best lead), shared by all
 *   the tests and sibling searches of one world;
 * - quick bounds at each trick start not in the table: each side's trumps above all of
 *   the other's trumps win their tricks whoever leads, and a leader whose opponent has
 *   no trump also wins with its top plain cards while it keeps the lead;
 * - the last three tricks searched out without the table (every lead and reply, then the
 *   last two tricks directly), the exact value stored at the position they start from;
 * - interchangeable cards: two cards of one class and one point value with no card of
 *   the other side between them (none with a face-down card under it) lead to the same
 *   value, so only one is searched; and the table key packs runs of such cards (none
 *   lying on or under a face-down card) down over the played ones, so that positions
 *   differing only so share an entry;
 * - move order: the table's best lead; then the leads no legal reply can beat, strongest
 *   first; then the others, cheapest first. Replies by the trick's worth to the leader:
 *   the follower's winning cards dearest first, then its losing ones cheapest first.
 *   Both are made one at a time from bit sets (the first usually ends the loop).
 *
 * The search itself is in search.h (this file: the Python module around it).
 * No rule is written here: solver.py passes the core's rules (cards.core_tables(), into
 * core.h's wk_rules) and each trump suit's power order to configure() at import, which
 * relabels them (card points, what follows what, what beats what, the classes).
 * Cards are 36-bit sets in uint64_t, labels in power order (see solver.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

static int configured = 0;

/* seq as n ints in [lo, hi], through the sequence protocol (tuples, bytes, lists) */
static int read_ints(PyObject *seq, Py_ssize_t n, long long lo, long long hi, long long *out,
                     const char *what) {
    PyObject *fast = PySequence_Fast(seq, "a sequence of ints was expected");
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %zd entries", what, n);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (v < lo || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %lld is out of range", what, i, v);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(fast);
    return 0;
}

/* read_ints for one entry of a sequence of rows */
static int read_row(PyObject *rows, Py_ssize_t t, Py_ssize_t n, long long hi, long long *out,
                    const char *what) {
    PyObject *row = PySequence_GetItem(rows, t);
    if (row == NULL) return -1;
    int err = read_ints(row, n, 0, hi, out, what);
    Py_DECREF(row);
    return err;
}

/* The labelled tables of trump t (what solver._relabelling computes in Python) from the
 * core's rules and the power order: order[i] is the card with label i. */
static int relabel(const wk_rules *r, int t, const long long *order, Tables *tab) {
    int label[WK_CARDS];
    for (int c = 0; c < WK_CARDS; c++) label[c] = -1;
    for (int i = 0; i < WK_CARDS; i++) label[order[i]] = i;
    for (int c = 0; c < WK_CARDS; c++)
        if (label[c] < 0) {
            PyErr_SetString(PyExc_ValueError, "configure: an order must hold every card once");
            return -1;
        }
    for (int i = 0; i < WK_CARDS; i++) {
        int c = (int)order[i];
        uint64_t follow = 0;
        for (int o = 0; o < WK_CARDS; o++)
            if (r->follow[t][c] >> o & 1) follow |= BIT(label[o]);
        tab->pts[i] = (int)r->points[c] + (c == r->spitzer[t]);
        tab->follow[i] = follow;
        tab->block[i] = i < 15 ? 0 : 1 + (i - 15) / 7;
        tab->beaten_by[i] = 0;
        for (int k = 0; k < WK_CARDS; k++) {
            tab->beats[i * WK_CARDS + k] = r->beats[t][c * WK_CARDS + (int)order[k]];
            if (tab->beats[i * WK_CARDS + k]) tab->beaten_by[i] |= BIT(k);
        }
        /* the search needs each class as one block of labels: the trumps first */
        if (((r->trump_mask[t] >> c & 1) != 0) != (i < 15)
            || follow != (i < 15 ? TRUMPS : SUIT((i - 15) / 7))) {
            PyErr_SetString(PyExc_ValueError, "configure: an order must list the 15 trumps, "
                            "then each plain suit's 7 cards");
            return -1;
        }
    }
    tab->nvals = 0;
    for (int v = 0; v <= 100; v++) {
        uint64_t mask = 0;
        for (int i = 0; i < WK_CARDS; i++)
            if (tab->pts[i] == v) mask |= BIT(i);
        if (mask) {
            tab->val[tab->nvals] = v;
            tab->valmask[tab->nvals++] = mask;
        }
    }
    return 0;
}

/* configure(follow, beats, points, spitzer, trump_mask, orders): the core's rules
 * (cards.core_tables()) and, per trump suit, the power order of solver.TABLES */
static PyObject *configure(PyObject *self, PyObject *args) {
    (void)self;
    static wk_rules rules;
    static Tables fresh[4];
    static long long buf[WK_CARDS * WK_CARDS];
    PyObject *follow, *beats, *points, *spitzer, *trumps, *orders;
    configured = 0;  /* unusable until configured right */
    if (!PyArg_ParseTuple(args, "OOOOOO:configure", &follow, &beats, &points, &spitzer,
                          &trumps, &orders))
        return NULL;
    for (int t = 0; t < 4; t++) {
        if (read_row(follow, t, WK_CARDS, (long long)WK_ALL_CARDS, buf, "configure: follow"))
            return NULL;
        for (int c = 0; c < WK_CARDS; c++) rules.follow[t][c] = (uint64_t)buf[c];
        if (read_row(beats, t, WK_CARDS * WK_CARDS, 1, buf, "configure: beats")) return NULL;
        for (int k = 0; k < WK_CARDS * WK_CARDS; k++) rules.beats[t][k] = (uint8_t)buf[k];
    }
    if (read_ints(points, WK_CARDS, 0, 99, buf, "configure: points")) return NULL;
    for (int c = 0; c < WK_CARDS; c++) rules.points[c] = buf[c];
    if (read_ints(spitzer, 4, 0, WK_CARDS - 1, buf, "configure: spitzer")) return NULL;
    for (int t = 0; t < 4; t++) rules.spitzer[t] = buf[t];
    if (read_ints(trumps, 4, 0, (long long)WK_ALL_CARDS, buf, "configure: trump_mask"))
        return NULL;
    for (int t = 0; t < 4; t++) rules.trump_mask[t] = (uint64_t)buf[t];
    for (int t = 0; t < 4; t++)
        if (read_row(orders, t, WK_CARDS, WK_CARDS - 1, buf, "configure: order")
            || relabel(&rules, t, buf, &fresh[t]))
            return NULL;
    memcpy(tables, fresh, sizeof tables);
    configured = 1;
    Py_RETURN_NONE;
}

/* ---- the Searcher type ----------------------------------------------------------------- */

static int clamp_window(PyObject *v, int *out) {
    int overflow = 0;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x > WINDOW || x < -WINDOW)
        x = (overflow > 0 || x > WINDOW) ? WINDOW : -WINDOW;
    *out = (int)x;
    return 0;
}

static int as_set(PyObject *v, uint64_t *out) {
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (x & ~WK_ALL_CARDS) {
        PyErr_SetString(PyExc_ValueError, "card sets are 36-bit");
        return -1;
    }
    *out = x;
    return 0;
}

/* the cards a player holds: the playable ones and those lying face down under them */
static int holding(const Searcher *s, uint64_t avail) {
    int k = wk_popcount(avail);
    for (; avail; avail &= avail - 1) k += s->rev[low_bit(avail)] != 0;
    return k;
}

/* the arguments (aL, aO, live, R, n) of a position of this world, checked */
static int read_position(Searcher *s, PyObject *const *args, uint64_t *aL, uint64_t *aO,
                         int *R, int *n) {
    uint64_t live;
    if (as_set(args[0], aL) || as_set(args[1], aO) || as_set(args[2], &live)) return -1;
    long r = PyLong_AsLong(args[3]);
    if (r == -1 && PyErr_Occurred()) return -1;
    long k = PyLong_AsLong(args[4]);
    if (k == -1 && PyErr_Occurred()) return -1;
    if (r < 0 || r > MAX_POINTS || k < 1 || k > MAX_TRICKS || (*aL & *aO)
        || ((*aL | *aO) & ~live) || holding(s, *aL) != k || holding(s, *aO) != k) {
        PyErr_SetString(PyExc_ValueError, "search: not a position of this world (each player "
                        "must hold n cards, R must be 0..250)");
        return -1;
    }
    *R = (int)r;
    *n = (int)k;
    return 0;
}

static PyObject *Searcher_search(Searcher *s, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "search(aL, aO, live, R, n, alpha, beta) takes 7 arguments");
        return NULL;
    }
    uint64_t aL, aO;
    int alpha, beta, R, n;
    if (clamp_window(args[5], &alpha) || clamp_window(args[6], &beta)) return NULL;
    if (read_position(s, args, &aL, &aO, &R, &n)) return NULL;
    /* an empty window would end a position's loop at its first lead on both tests and
     * store that lead's bound as the position's upper one: (alpha, alpha + 1) asks the
     * same question (is the value above alpha?) */
    if (beta <= alpha) beta = alpha + 1;
    return PyLong_FromLong(search(s, aL, aO, R, n, alpha, beta));
}

static PyObject *Searcher_lead_values(Searcher *s, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "lead_values(aL, aO, live, R, n) takes 5 arguments");
        return NULL;
    }
    uint64_t aL, aO;
    int R, n;
    if (read_position(s, args, &aL, &aO, &R, &n)) return NULL;
    uint64_t hL = held(s, aL), hO = held(s, aO);
    int value[WK_CARDS], g = guess(s, aL, aO, R);
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    for (uint64_t cards = aL; cards; cards &= cards - 1) {
        int c = low_bit(cards);
        Root q = {aL, aO, hL, R, n, c};
        if (merged(s, c, aL, hO))  /* interchangeable with a weaker card */
            value[c] = value[top_bit(aL & s->same[c] & (BIT(c) - 1))];
        else  /* the guess: the last lead's value */
            value[c] = g = mtd(s, &q, 0, R, -1, R + 1, g);
        PyObject *key = PyLong_FromLong(c), *v = PyLong_FromLong(value[c]);
        int bad = key == NULL || v == NULL || PyDict_SetItem(out, key, v) < 0;
        Py_XDECREF(key);
        Py_XDECREF(v);
        if (bad) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static PyObject *Searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"trump", "rev", NULL};
    int trump;
    PyObject *rev_seq;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iO:Searcher", kwlist, &trump, &rev_seq))
        return NULL;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "_solver.configure() was not called");
        return NULL;
    }
    if (trump < 0 || trump > 3) {
        PyErr_SetString(PyExc_ValueError, "trump must be 0..3");
        return NULL;
    }
    long long rev[WK_CARDS];
    if (read_ints(rev_seq, WK_CARDS, 0, (long long)WK_ALL_CARDS, rev, "Searcher: rev")) return NULL;
    for (int c = 0; c < WK_CARDS; c++) {
        uint64_t r = (uint64_t)rev[c];
        if ((r & (r - 1)) || r == BIT(c)) {
            PyErr_SetString(PyExc_ValueError, "rev[c] must be 0 or the bit of another card");
            return NULL;
        }
    }
    Searcher *s = (Searcher *)type->tp_alloc(type, 0);
    if (s == NULL) return NULL;
    s->trump = trump;
    s->tab = &tables[trump];
    for (int c = 0; c < WK_CARDS; c++) {
        s->rev[c] = (uint64_t)rev[c];
        if (rev[c]) s->covered |= BIT(c);
    }
    for (int c = 0; c < WK_CARDS; c++) {
        int b = s->tab->block[c];
        for (int i = 0; i < s->tab->nvals && !(s->covered & BIT(c)); i++)
            if (s->tab->val[i] == s->tab->pts[c])
                s->same[c] = s->tab->valmask[i] & (b ? SUIT(b - 1) : TRUMPS) & ~s->covered
                             & ~BIT(c);
    }
    uint64_t fixed = s->covered;
    for (int c = 0; c < WK_CARDS; c++) fixed |= s->rev[c];
    for (int c = 0; c < WK_CARDS;) {
        int e = c + 1;
        while (e < WK_CARDS && !(fixed >> c & 1) && !(fixed >> e & 1)
               && s->tab->block[e] == s->tab->block[c] && s->tab->pts[e] == s->tab->pts[c])
            e++;
        if (e - c >= 2) {
            s->run_at[s->nruns] = c;
            s->run[s->nruns++] = (BIT(e) - 1) & ~(BIT(c) - 1);
            s->runs |= (BIT(e) - 1) & ~(BIT(c) - 1);
            s->run_starts |= BIT(c);
        }
        c = e;
    }

    if (tt_alloc(s, 10)) {
        Py_DECREF(s);
        return PyErr_NoMemory();
    }
    return (PyObject *)s;
}

static void Searcher_dealloc(Searcher *s) {
    free(s->slots);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *Searcher_get_trump(Searcher *s, void *closure) {
    (void)closure;
    return PyLong_FromLong(s->trump);
}

static PyMethodDef Searcher_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_FASTCALL,
     "search(aL, aO, live, R, n, alpha, beta) -> the points the leader takes from the n "
     "remaining tricks, fail-soft within (alpha, beta) (solver.make_search's search)"},
    {"lead_values", (PyCFunction)(void (*)(void))Searcher_lead_values, METH_FASTCALL,
     "lead_values(aL, aO, live, R, n) -> {card: the points the leader takes after leading "
     "it}, for every card of aL, exactly"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Searcher_get_entries(Searcher *s, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(s->count);
}

static PyObject *Searcher_get_nodes(Searcher *s, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(s->nodes);
}

static PyGetSetDef Searcher_getset[] = {
    {"trump", (getter)Searcher_get_trump, NULL, "the trump suit of this world", NULL},
    {"entries", (getter)Searcher_get_entries, NULL, "positions in the table", NULL},
    {"nodes", (getter)Searcher_get_nodes, NULL, "positions searched so far (trick starts)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "widderkopf_env.agents._solver.Searcher",
    .tp_basicsize = sizeof(Searcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Searcher(trump, rev): the search of one world and its transposition table",
    .tp_new = Searcher_new,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_methods = Searcher_methods,
    .tp_getset = Searcher_getset,
};

/* ---- the module ------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(follow, beats, points, spitzer, trump_mask, orders): cards.core_tables() "
     "and each trump suit's power order (solver.TABLES[t][0])"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_solver",
    .m_doc = "Optional C accelerator for widderkopf_env.agents.solver (see solver.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__solver(void) {
    if (PyType_Ready(&SearcherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
