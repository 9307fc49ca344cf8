/* The observation encoder in C: an optional accelerator for game_encoder.encode_game.
 *
 * encode(game, player, over) -> (obs, mask): obs a bytearray of OBS_SIZE float32 (native
 * byte order), mask a bytearray of NUM_ACTIONS int8; game_encoder.py wraps them as numpy
 * arrays. It reads the fields of any object with a Game's attributes and writes them with
 * encode.h's wk_encode, the one encoder of the core (through game_io.c's
 * wk_encode_one; a Game writes its own row with the same wk_encode, Game.encode).
 * tests/core/test_encoders_agree.py compares both with the reference encoder
 * (observation.encode_view) at every position of many games, and
 * tests/core/test_observation_hash.py pins the output.
 *
 * The layout is not written here: encode.h names the pieces of the layout (WK_PIECES, in
 * order, with their sizes; the encoder's offsets follow from it at compile time) and
 * game_encoder.py passes observation.OFFSETS ({name: (offset, size)}, from PIECES) to
 * configure() at import, which checks that the table has exactly these pieces at these
 * offsets with these sizes and refuses (leaving the module unusable) otherwise, then hands
 * the scales to the core (wk_set_layout).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "names.h"

/* batch.c: the batched engine and encoder */
extern PyMethodDef wk_batch_methods[];
int wk_game_add(PyObject *module);  /* game.c: the type GameState */
extern PyMethodDef wk_deal_methods[];  /* deal.c: the seeded deal's shuffle */
int wk_set_layout(PyObject *scales);

#define ALL36 ((UINT64_C(1) << 36) - 1)

/* The pieces the encoder writes (encode.h's WK_PIECES): name, size, offset. */
#define AS_NAME(name, size) #name,
#define AS_SIZE(name, size) size,
#define AS_AT(name, size) WK_AT(name),
static const char *const piece_name[] = { WK_PIECES(AS_NAME) };
static const Py_ssize_t piece_size[] = { WK_PIECES(AS_SIZE) };
static const Py_ssize_t piece_at[] = { WK_PIECES(AS_AT) };
#define N_LAYOUT ((Py_ssize_t)(sizeof(piece_size) / sizeof(piece_size[0])))

static Py_ssize_t obs_size = -1, num_actions = -1;

/* interned attribute names */
static PyObject *s_hand, *s_upbits, *s_covered, *s_discard, *s_played, *s_won, *s_current,
    *s_phase, *s_trump, *s_cracker, *s_level, *s_dealer, *s_chooser, *s_leader, *s_lead,
    *s_lead_pile, *s_num_hands, *s_hand_no, *s_trick_points, *s_scores, *s_tricks,
    *s_legal_mask;

/* ---- reading the game ------------------------------------------------------------------ */

static int get_long(PyObject *obj, PyObject *name, long *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* obj.name[0] and obj.name[1] as signed ints (card sets are < 2**36, ids >= -1) */
static int get_pair(PyObject *obj, PyObject *name, int64_t out[2]) {
    PyObject *seq = PyObject_GetAttr(obj, name);
    if (seq == NULL) return -1;
    for (Py_ssize_t i = 0; i < 2; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        if (item == NULL) { Py_DECREF(seq); return -1; }
        out[i] = PyLong_AsLongLong(item);
        Py_DECREF(item);
        if (out[i] == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
    }
    Py_DECREF(seq);
    return 0;
}

/* ---- encoding ---------------------------------------------------------------------------- */

PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return wk_encode_by_attrs(self, args, nargs);
}

/* encode() for any object with Game's attributes: its fields into a wk_one,
 * written by wk_encode_one as for a Game (the cards of variant.deck, or all 36 where the
 * object has no variant, count as in the deck) */
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "encode(game, player, over) takes 3 arguments");
        return NULL;
    }
    if (obs_size < 0) {
        PyErr_SetString(PyExc_RuntimeError, "_core.configure() was not called");
        return NULL;
    }
    PyObject *game = args[0];
    long long p;
    int over;
    if (wk_player_over(args[1], args[2], &p, &over)) return NULL;
    wk_one g;
    memset(&g, 0, sizeof(g));
    int64_t hand[2], up[2], cov[2], played[2], won[2];
    long v[11];
    if (get_pair(game, s_hand, hand) || get_pair(game, s_upbits, up)
        || get_pair(game, s_covered, cov) || get_pair(game, s_played, played)
        || get_pair(game, s_won, won) || get_pair(game, s_discard, g.discard)
        || get_pair(game, s_trick_points, g.trick_points) || get_pair(game, s_scores, g.scores)
        || get_long(game, s_phase, &v[0]) || get_long(game, s_trump, &v[1])
        || get_long(game, s_cracker, &v[2]) || get_long(game, s_level, &v[3])
        || get_long(game, s_dealer, &v[4]) || get_long(game, s_chooser, &v[5])
        || get_long(game, s_leader, &v[6]) || get_long(game, s_lead, &v[7])
        || get_long(game, s_lead_pile, &v[8]) || get_long(game, s_num_hands, &v[9])
        || get_long(game, s_hand_no, &v[10]))
        return NULL;
    for (int q = 0; q < 2; q++) {
        g.hand[q] = (uint64_t)hand[q];
        g.upbits[q] = (uint64_t)up[q];
        g.covered[q] = (uint64_t)cov[q];
        g.played[q] = (uint64_t)played[q];
        g.won[q] = (uint64_t)won[q];
    }
    g.phase = v[0]; g.trump = v[1]; g.cracker = v[2]; g.level = v[3]; g.dealer = v[4];
    g.chooser = v[5]; g.leader = v[6]; g.lead = v[7]; g.lead_pile = v[8];
    g.num_hands = v[9]; g.hand_no = v[10];
    g.deck = ALL36;  /* or the variant's deck, where the object has one */
    PyObject *variant = PyObject_GetAttrString(game, "variant"), *deck = NULL;
    if (variant != NULL) {
        deck = PyObject_GetAttrString(variant, "deck");
        Py_DECREF(variant);
    }
    if (deck == NULL) {
        PyErr_Clear();
    } else {
        unsigned long long d = PyLong_AsUnsignedLongLong(deck);
        Py_DECREF(deck);
        if (d == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
        g.deck = d & ALL36;
    }
    PyObject *cur = PyObject_GetAttr(game, s_current);
    if (cur == NULL) return NULL;
    g.current = cur == Py_None ? -1 : PyLong_AsLongLong(cur);
    Py_DECREF(cur);
    if (g.current == -1 && PyErr_Occurred()) return NULL;
    PyObject *tricks = PyObject_GetAttr(game, s_tricks);
    if (tricks == NULL) return NULL;
    g.ntricks = PyObject_Length(tricks);
    Py_DECREF(tricks);
    if (g.ntricks < 0) return NULL;
    if (g.current == p && !over) {
        PyObject *m = PyObject_GetAttr(game, s_legal_mask);
        if (m == NULL) return NULL;
        g.legal = PyLong_AsUnsignedLongLong(m);
        Py_DECREF(m);
        if (g.legal == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    }
    return wk_encode_one(&g, p, over);
}

/* configure(table, obs_size, num_actions, trump_cards): table is observation.OFFSETS,
 * {name: (offset, size)}; it must hold exactly the pieces of WK_PIECES, at their offsets
 * with their sizes, and obs_size their total, so that a layout change without a matching
 * change in encode.h fails loudly */
static PyObject *configure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *table, *trumps, *scales = NULL;
    Py_ssize_t size, actions;
    if (!PyArg_ParseTuple(args, "O!nnO|O", &PyDict_Type, &table, &size, &actions, &trumps,
                          &scales))
        return NULL;
    obs_size = -1;  /* unusable until configured right */
    if (PyDict_Size(table) != N_LAYOUT || PySequence_Length(trumps) != 4 || actions < 1
        || actions > 64) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "configure: the layout has %zd pieces, "
                         "encode.h writes %d", PyDict_Size(table), (int)N_LAYOUT);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < N_LAYOUT; i++) {
        PyObject *entry = PyDict_GetItemString(table, piece_name[i]);  /* borrowed */
        Py_ssize_t at = -1, n = -1;
        if (entry == NULL || !PyArg_ParseTuple(entry, "nn", &at, &n) || n != piece_size[i]
            || at != piece_at[i]) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "configure: piece %s must be (%zd, %zd), as encode.h writes it (the "
                         "pieces of WK_PIECES, in its order, back to back)", piece_name[i],
                         piece_at[i], piece_size[i]);
            return NULL;
        }
    }
    if (size != WK_OBS_SIZE) {
        PyErr_Format(PyExc_ValueError, "configure: the observation has %zd entries, encode.h's "
                     "pieces %zd", size, (Py_ssize_t)WK_OBS_SIZE);
        return NULL;
    }
    for (Py_ssize_t t = 0; t < 4; t++) {
        PyObject *v = PySequence_GetItem(trumps, t);
        if (v == NULL) return NULL;
        uint64_t cards = PyLong_AsUnsignedLongLong(v);  /* checked; the core's are used */
        Py_DECREF(v);
        if (cards == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    }
    if (wk_set_layout(scales) < 0) return NULL;
    num_actions = actions;
    obs_size = size;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL,
     "encode(game, player, over) -> (obs bytearray of float32, mask bytearray of int8)"},
    {"configure", configure, METH_VARARGS,
     "configure(offsets_table, obs_size, num_actions, trump_cards): the layout, from "
     "observation.OFFSETS"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_core",
    .m_doc = "Optional C accelerator for widderkopf_env.game_encoder (see game_encoder.py).",
    .m_size = -1,
    .m_methods = methods,
};

/* the attribute names encode() reads, interned at init (names.h) */
static const wk_name names[] = {
    {&s_hand, "hand"}, {&s_upbits, "upbits"}, {&s_covered, "covered"},
    {&s_discard, "discard"}, {&s_played, "played"}, {&s_won, "won"},
    {&s_current, "current"}, {&s_phase, "phase"}, {&s_trump, "trump"},
    {&s_cracker, "cracker"}, {&s_level, "level"}, {&s_dealer, "dealer"},
    {&s_chooser, "chooser"}, {&s_leader, "leader"}, {&s_lead, "lead"},
    {&s_lead_pile, "lead_pile"}, {&s_num_hands, "num_hands"}, {&s_hand_no, "hand_no"},
    {&s_trick_points, "trick_points"}, {&s_scores, "scores"}, {&s_tricks, "tricks"},
    {&s_legal_mask, "legal_mask"}};

PyMODINIT_FUNC PyInit__core(void) {
    if (WK_INTERN_TABLE(names)) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddFunctions(m, wk_batch_methods) < 0
                      || wk_game_add(m) < 0
                      || PyModule_AddFunctions(m, wk_deal_methods) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
