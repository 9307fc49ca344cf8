/* The Game's way in and out (game.c holds the type and its moves): a deal read, a state
 * loaded from its fields (_load: PyGame._from_fields's dict, as worlds.world_fields and
 * pickling give it), and observations written by core.h's wk_encode: into new numpy
 * arrays from a Game's own row (encode), or from a wk_one of any object's attributes
 * (wk_encode_one, for module.c's encode); and the binding of a Game's batch to its row.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "game.h"

/* ---- the row ---------------------------------------------------------------------------- */

void wk_game_bind(wk_game *g) {
    wk_row *s = &g->s;
    wk_batch *b = &g->b;
    b->n = 1;
    b->hand = s->hand; b->upbits = s->upbits; b->covered = s->covered;
    b->played = s->played; b->won = s->won; b->legal = &s->legal;
    b->discard = s->discard; b->trick_points = s->trick_points; b->scores = s->scores;
    b->initial_scores = s->initial_scores;
    b->phase = &s->phase; b->current = &s->current; b->trump = &s->trump;
    b->dealer = &s->dealer; b->first_dealer = &s->first_dealer; b->chooser = &s->chooser;
    b->leader = &s->leader; b->lead = &s->lead; b->lead_pile = &s->lead_pile;
    b->level = &s->level; b->cracker = &s->cracker; b->recracker = &s->recracker;
    b->hand_no = &s->hand_no; b->num_hands = &s->num_hands; b->ntricks = &s->ntricks;
    b->res_count = &s->res_count; b->res_hand = &s->res_hand; b->res_dealer = &s->res_dealer;
    b->res_trump = &s->res_trump; b->res_spitzer = &s->res_spitzer;
    b->res_winner = &s->res_winner; b->res_crack_level = &s->res_crack_level;
    b->res_value = &s->res_value; b->res_card_points = s->res_card_points;
    b->res_trick_points = s->res_trick_points; b->res_discards = s->res_discards;
    b->res_scores = s->res_scores; b->res_schneider = &s->res_schneider;
    b->res_schwarz = &s->res_schwarz;
    b->up = s->up; b->down = s->down; b->deal_up = s->deal_up; b->deal_down = s->deal_down;
    b->tricks = s->tricks; b->history = s->history; b->hlen = &s->hlen;
    b->hand_value = g->hv == NULL ? NULL : (const int64_t *)PyBytes_AS_STRING(g->hv);
}

/* numbers: (tricks, win_points, total_points, schneider_points, spitzer, deck, hand
 * values: bytes of 5 x (total_points + 1) int64 in native order) */
int wk_game_set_variant(wk_game *g, PyObject *variant, PyObject *numbers) {
    long long tricks, win, total, schneider;
    int spitzer;
    unsigned long long deck;
    PyObject *hv;
    if (!PyArg_ParseTuple(numbers, "LLLLpKO!", &tricks, &win, &total, &schneider, &spitzer,
                          &deck, &PyBytes_Type, &hv))
        return -1;
    if (tricks < 1 || tricks > WK_MAX_TRICKS || total < 0 || total > 1000 || deck >> WK_CARDS
        || PyBytes_GET_SIZE(hv) != 5 * (total + 1) * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "a variant's numbers out of range");
        return -1;
    }
    uint64_t tm[4];
    for (int t = 0; t < 4; t++) tm[t] = wk_get_rules()->trump_mask[t] & deck;
    wk_set_variant(&g->b, tricks, win, total, schneider, spitzer, deck, tm);
    Py_XSETREF(g->hv, Py_NewRef(hv));
    Py_XSETREF(g->variant, Py_NewRef(variant));
    wk_game_bind(g);
    return 0;
}

/* ---- deals ---------------------------------------------------------------------------- */

/* one part of a deal (hand, up or down cards): at most max card ids, into out and bits */
static int read_part(PyObject *seq, Py_ssize_t max, int64_t *out, Py_ssize_t *n,
                     uint64_t *bits) {
    PyObject *fast = PySequence_Fast(seq, "a deal's hand, up and down must be card ids");
    if (fast == NULL) return -1;
    *n = PySequence_Fast_GET_SIZE(fast);
    *bits = 0;
    for (Py_ssize_t k = 0; k < *n && k < max; k++) {
        long long c = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, k));
        if (c == -1 && PyErr_Occurred()) break;
        out[k] = c;
        *bits |= (c >= 0 && c < WK_CARDS) ? UINT64_C(1) << c : UINT64_C(1) << 63;
    }
    Py_DECREF(fast);
    if (PyErr_Occurred()) return -1;
    if (*n > max || *bits >> WK_CARDS) {
        PyErr_Format(PyExc_ValueError, "a deal's part must hold at most %zd card ids in "
                     "0..35", max);
        return -1;
    }
    return 0;
}

int wk_read_deal(PyObject *deal_obj, uint64_t hand[2], int64_t up[10], int64_t down[10]) {
    int64_t cards[2][3][8];
    uint64_t bits[2][3];
    Py_ssize_t len[2][3];
    PyObject *deal = PySequence_Fast(deal_obj, "a deal must be two (hand, up, down)");
    if (deal == NULL) return -1;
    int err = PySequence_Fast_GET_SIZE(deal) != 2;
    for (int p = 0; !err && p < 2; p++) {
        PyObject *part = PySequence_Fast(PySequence_Fast_GET_ITEM(deal, p), "a deal must be "
                                         "two (hand, up, down)");
        err = part == NULL || PySequence_Fast_GET_SIZE(part) != 3;
        for (int k = 0; !err && k < 3; k++)
            err = read_part(PySequence_Fast_GET_ITEM(part, k), k ? WK_PILES : 8, cards[p][k],
                            &len[p][k], &bits[p][k]);
        Py_XDECREF(part);
    }
    Py_DECREF(deal);
    if (!err && (len[0][1] != len[0][2] || len[1][1] != len[0][1] || len[1][2] != len[0][1]))
        err = 1;
    if (err) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a deal must be two (hand, up, down), with as "
                            "many up as down cards");
        return -1;
    }
    for (int p = 0; p < 2; p++) {
        hand[p] = bits[p][0];
        for (Py_ssize_t i = 0; i < WK_PILES; i++) {
            up[WK_PILES * p + i] = i < len[p][1] ? cards[p][1][i] : -1;
            down[WK_PILES * p + i] = i < len[p][2] ? cards[p][2][i] : -1;
        }
    }
    return 0;
}

/* ---- a state from its fields ---------------------------------------------------------- */

static PyObject *field(PyObject *fields, const char *name) {
    PyObject *v = PyDict_GetItemString(fields, name); /* borrowed */
    if (v == NULL) PyErr_Format(PyExc_KeyError, "_from_fields: the field %s is missing", name);
    return v;
}

static int int_field(PyObject *fields, const char *name, int64_t *out) {
    PyObject *v = field(fields, name);
    if (v == NULL) return -1;
    if (v == Py_None && strcmp(name, "current") == 0) {
        *out = -1;
        return 0;
    }
    long long x = PyLong_AsLongLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

/* n ints of fields[name] (a sequence of n); cards: each a card set of 36 bits */
static int ints_field(PyObject *fields, const char *name, int64_t *out, Py_ssize_t n,
                      int cards) {
    PyObject *v = field(fields, name);
    PyObject *fast = v == NULL ? NULL : PySequence_Fast(v, name);
    if (fast == NULL) return -1;
    int err = PySequence_Fast_GET_SIZE(fast) != n;
    for (Py_ssize_t k = 0; !err && k < n; k++) {
        PyObject *x = PySequence_Fast_GET_ITEM(fast, k);
        out[k] = cards ? (int64_t)PyLong_AsUnsignedLongLong(x) : PyLong_AsLongLong(x);
        err = (out[k] == -1 && PyErr_Occurred()) || (cards && (uint64_t)out[k] >> WK_CARDS);
    }
    Py_DECREF(fast);
    if (err) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "_from_fields: %s must be %zd %s", name, n,
                     cards ? "card sets (ints in 0..2**36-1)" : "ints");
    }
    return err ? -1 : 0;
}

static PyObject *list_field(PyObject *fields, const char *name) {
    PyObject *v = field(fields, name);
    return v == NULL ? NULL : PySequence_List(v);
}

static int load(wk_game *g, PyObject *fields) {
    wk_row *s = &g->s;
    memset(s, 0, sizeof(*s));
    struct { const char *name; int64_t *out; } ints[] = {
        {"num_hands", &s->num_hands}, {"first_dealer", &s->first_dealer},
        {"hand_no", &s->hand_no}, {"hand_start", &s->hand_start}, {"dealer", &s->dealer},
        {"phase", &s->phase}, {"current", &s->current}, {"trump", &s->trump},
        {"chooser", &s->chooser}, {"lead", &s->lead}, {"lead_pile", &s->lead_pile},
        {"leader", &s->leader}, {"level", &s->level}, {"cracker", &s->cracker},
        {"recracker", &s->recracker}};
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
        if (int_field(fields, ints[k].name, ints[k].out)) return -1;
    struct { const char *name; int64_t *out; Py_ssize_t n; int cards; } seqs[] = {
        {"initial_scores", s->initial_scores, 2, 0}, {"scores", s->scores, 2, 0},
        {"discard", s->discard, 2, 0}, {"trick_points", s->trick_points, 2, 0},
        {"hand", (int64_t *)s->hand, 2, 1}, {"upbits", (int64_t *)s->upbits, 2, 1},
        {"covered", (int64_t *)s->covered, 2, 1}, {"won", (int64_t *)s->won, 2, 1},
        {"played", (int64_t *)s->played, 2, 1}, {"up", s->up, 10, 0},
        {"down", s->down, 10, 0}};
    for (size_t k = 0; k < sizeof(seqs) / sizeof(seqs[0]); k++)
        if (ints_field(fields, seqs[k].name, seqs[k].out, seqs[k].n, seqs[k].cards)) return -1;
    memcpy(s->deal_up, s->up, sizeof(s->up));
    memcpy(s->deal_down, s->down, sizeof(s->down));
    PyObject *tricks = list_field(fields, "tricks");
    if (tricks == NULL) return -1;
    Py_ssize_t n = PyList_GET_SIZE(tricks);
    int err = n > g->b.ntricks_per_hand;
    for (Py_ssize_t t = 0; !err && t < n; t++) {
        long long r[4];
        err = !PyArg_ParseTuple(PyList_GET_ITEM(tricks, t), "LLLL", &r[0], &r[1], &r[2], &r[3]);
        for (int k = 0; !err && k < 4; k++) s->tricks[4 * t + k] = r[k];
    }
    for (Py_ssize_t t = n; t < WK_MAX_TRICKS; t++)
        for (int k = 0; k < 4; k++) s->tricks[4 * t + k] = -1;
    Py_DECREF(tricks);
    if (err) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "_from_fields: tricks must be at most %lld "
                     "(leader, led, other, winner)", (long long)g->b.ntricks_per_hand);
        return -1;
    }
    s->ntricks = n;
    PyObject *lists[3] = {list_field(fields, "history"), list_field(fields, "results"),
                          list_field(fields, "deals")};
    PyObject *seed = field(fields, "seed");
    if (lists[0] == NULL || lists[1] == NULL || lists[2] == NULL || seed == NULL) {
        for (int k = 0; k < 3; k++) Py_XDECREF(lists[k]);
        return -1;
    }
    Py_XSETREF(g->history, lists[0]);
    Py_XSETREF(g->results, lists[1]);
    Py_XSETREF(g->deals, lists[2]);
    Py_XSETREF(g->seed, Py_NewRef(seed));
    s->res_count = PyList_GET_SIZE(g->results);
    s->hlen = PyList_GET_SIZE(g->history) - s->hand_start;
    wk_batch *b = &g->b;
    int64_t players[] = {s->first_dealer, s->dealer, s->chooser, s->leader};
    int ok = wk_state_ok(b, 0) && s->num_hands >= 1 && s->hand_no >= 0 && s->hlen >= 0
        && s->hand_start >= 0 && s->cracker >= -1 && s->cracker <= 1 && s->recracker >= -1
        && s->recracker <= 1 && (s->level == 0 || s->cracker >= 0);
    for (int k = 0; k < 4; k++) ok = ok && (players[k] == 0 || players[k] == 1);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "_from_fields: a field out of range (phase, "
                        "current, trump, level, lead, piles, discards or players)");
        return -1;
    }
    if (s->phase == WK_OVER) s->legal = 0;
    else wk_compute_legal(wk_get_rules(), b, 0);
    return 0;
}

/* _load(fields, numbers) */
PyObject *wk_game_load(PyObject *self, PyObject *args) {
    wk_game *g = (wk_game *)self;
    PyObject *fields, *numbers, *variant;
    if (!PyArg_ParseTuple(args, "O!O!:_load", &PyDict_Type, &fields, &PyTuple_Type, &numbers)
        || (variant = field(fields, "variant")) == NULL
        || wk_game_set_variant(g, variant, numbers))
        return NULL;
    if (load(g, fields)) {
        Py_CLEAR(g->variant); /* not set up */
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---- observations --------------------------------------------------------------------- */

/* this file's copy of encode.h's byte tables */
void wk_game_init_tables(void) { wk_init_tables(); }

/* wk_encode's row, in the AVX2 copy where there is one (WK_ROW_WRITER) */
WK_ROW_WRITER static void write_row(const wk_layout *L, const wk_batch *b, long long p,
                                    int over, float *obs32, uint8_t *obs8, int8_t *mask) {
    wk_encode(wk_get_rules(), L, b, 0, p, over, obs32, obs8, mask);
}

static const wk_layout *layout(void) {
    const wk_layout *L = wk_get_layout();
    if (L == NULL) PyErr_SetString(PyExc_RuntimeError, "_core.configure() was not called");
    return L;
}

/* The observation of one game from its fields (any object's attributes, module.c): the
 * state checked, then written by wk_encode on a one-game batch into obs32 (float32) or
 * obs8 (the compact uint8 form) and mask; -1 with the error set when the state is out of
 * range or the layout was not configured */
int wk_write_one(const wk_one *g, long long p, int over, float *obs32, uint8_t *obs8,
                 int8_t *mask) {
    const wk_layout *L = layout();
    if (L == NULL) return -1;
    wk_one c = *g;
    int64_t up[10], down[10], hlen = 0;
    for (int k = 0; k < 10; k++) up[k] = down[k] = -1; /* not read by the encoder */
    wk_batch b;
    memset(&b, 0, sizeof(b));
    b.n = 1;
    b.hand = c.hand; b.upbits = c.upbits; b.covered = c.covered; b.played = c.played;
    b.won = c.won; b.discard = c.discard; b.trick_points = c.trick_points;
    b.scores = c.scores; b.phase = &c.phase; b.current = &c.current; b.trump = &c.trump;
    b.dealer = &c.dealer; b.chooser = &c.chooser; b.leader = &c.leader; b.lead = &c.lead;
    b.lead_pile = &c.lead_pile; b.level = &c.level; b.cracker = &c.cracker;
    b.hand_no = &c.hand_no; b.num_hands = &c.num_hands; b.ntricks = &c.ntricks;
    b.legal = &c.legal; b.hlen = &hlen; b.up = up; b.down = down;
    b.ntricks_per_hand = c.ntricks + 1;
    b.deck = c.deck;
    for (int t = 0; t < 4; t++) b.trump_mask[t] = wk_get_rules()->trump_mask[t] & c.deck;
    if (!wk_state_ok(&b, 0)) {
        PyErr_SetString(PyExc_ValueError, "game state out of range");
        return -1;
    }
    write_row(L, &b, p, over, obs32, obs8, mask);
    return 0;
}

/* wk_write_one into new bytearrays: (obs of float32, mask of int8) */
PyObject *wk_encode_one(wk_one *g, long long p, int over) {
    PyObject *obs = PyByteArray_FromStringAndSize(NULL, WK_OBS_SIZE * (Py_ssize_t)sizeof(float));
    PyObject *mask = PyByteArray_FromStringAndSize(NULL, WK_ACTIONS);
    PyObject *result = NULL;
    if (obs != NULL && mask != NULL
        && wk_write_one(g, p, over, (float *)PyByteArray_AS_STRING(obs), NULL,
                        (int8_t *)PyByteArray_AS_STRING(mask)) == 0)
        result = PyTuple_Pack(2, obs, mask);
    Py_XDECREF(obs);
    Py_XDECREF(mask);
    return result;
}

#ifdef WK_NUMPY
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

static PyArray_Descr *f32, *u8, *i8;

/* a new 1-d array of n entries of descr */
static PyObject *new_array(PyArray_Descr *descr, npy_intp n) {
    Py_INCREF(descr); /* stolen */
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

/* Game.encode(player, over, compact) -> (obs, mask): new numpy arrays, obs float32 or
 * (compact) uint8, mask int8, from the game's own row */
PyObject *wk_game_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    wk_game *g = (wk_game *)self;
    long long p;
    int over, compact;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "encode(player, over, compact) takes 3 arguments");
        return NULL;
    }
    const wk_layout *L = layout();
    if (L == NULL || wk_game_ready(g) || numpy_ready()
        || wk_player_over(args[0], args[1], &p, &over) || (compact = PyObject_IsTrue(args[2])) < 0)
        return NULL;
    PyObject *obs = new_array(compact ? u8 : f32, WK_OBS_SIZE);
    PyObject *mask = new_array(i8, WK_ACTIONS);
    if (obs == NULL || mask == NULL) {
        Py_XDECREF(obs);
        Py_XDECREF(mask);
        return NULL;
    }
    void *o = PyArray_DATA((PyArrayObject *)obs);
    write_row(L, &g->b, p, over, compact ? NULL : (float *)o, compact ? (uint8_t *)o : NULL,
              (int8_t *)PyArray_DATA((PyArrayObject *)mask));
    PyObject *pair = PyTuple_Pack(2, obs, mask);
    Py_DECREF(obs);
    Py_DECREF(mask);
    return pair;
}

/* numpy_api() -> whether numpy's C API is there for Game.encode (a numpy older than the
 * headers' target refuses it: then the encoders run in Python) */
static PyObject *numpy_api(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    if (numpy_ready() == 0) Py_RETURN_TRUE;
    PyErr_Clear();
    Py_RETURN_FALSE;
}
#else
static PyObject *numpy_api(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    Py_RETURN_FALSE;
}
#endif

PyMethodDef wk_game_io_methods[] = {
    {"numpy_api", numpy_api, METH_NOARGS,
     "numpy_api() -> whether Game.encode makes numpy arrays here"},
    {NULL, NULL, 0, NULL},
};
