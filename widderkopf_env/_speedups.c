/* The observation encoder in C: an optional accelerator for game_encoder.encode_game.
 *
 * encode(game, player, over) -> (obs, mask): obs a bytearray of OBS_SIZE float32 (native
 * byte order), mask a bytearray of NUM_ACTIONS int8; game_encoder.py wraps them as numpy
 * arrays. It computes exactly what game_encoder._encode_py computes, from the same game
 * fields: the player's own hand and discard, the opponent's hand size and whether they
 * discarded, public fields. tests/core/test_encoders_agree.py compares it with the
 * reference encoder (observation.encode_view) at every position of many games, and
 * tests/core/test_observation_hash.py pins its output.
 *
 * The layout is not written here: this file names the pieces it writes (PIECE_LIST) and
 * game_encoder.py passes observation.OFFSETS ({name: (offset, size)}, from PIECES) to
 * configure() at import, which checks that the table has exactly these pieces with these
 * sizes and refuses (leaving the module unusable) otherwise.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_core.h"

/* _batch.c: the batched engine and encoder */
extern PyMethodDef wk_batch_methods[];
extern PyMethodDef wk_scalar_methods[];  /* _scalar.c: the scalar Game's hot paths */
extern PyMethodDef wk_deal_methods[];  /* _deal.c: the seeded deal's shuffle */
int wk_set_layout(const Py_ssize_t *offsets, Py_ssize_t size, PyObject *scales);

#define ALL36 ((UINT64_C(1) << 36) - 1)

/* The pieces this encoder writes: (enum id, name in observation.PIECES, size). */
#define PIECE_LIST(X)                                                                     \
    X(HAND, "hand", 36) X(MY_UP, "my_up", 36) X(MY_COVERED, "my_covered", 36)            \
    X(OPP_UP, "opp_up", 36) X(OPP_COVERED, "opp_covered", 36)                            \
    X(MY_DISCARD, "my_discard", 36) X(LEAD, "lead", 36) X(MY_PLAYED, "my_played", 36)    \
    X(OPP_PLAYED, "opp_played", 36) X(MY_WON, "my_won", 36) X(OPP_WON, "opp_won", 36)    \
    X(UNSEEN, "unseen", 36) X(TRUMPS, "trumps", 36) X(LEGAL_CARDS, "legal_cards", 36)    \
    X(PENDING, "pending", 2) X(PHASE, "phase", 5) X(MY_TURN, "my_turn", 1)               \
    X(TRUMP_SUIT, "trump_suit", 5) X(CRACK_LEVEL, "crack_level", 5)                      \
    X(MAY_ESCALATE, "may_escalate", 2) X(CRACKER, "cracker", 2) X(ROLES, "roles", 3)     \
    X(OPP_DISCARDED, "opp_discarded", 1) X(TIEBREAK, "tiebreak", 1)                      \
    X(TRICK_POINTS, "trick_points", 2) X(TRICKS_DONE, "tricks_done", 1)                  \
    X(OPP_HAND_SIZE, "opp_hand_size", 1) X(FACE_DOWN, "face_down", 2)                    \
    X(MATCH_SCORES, "match_scores", 2) X(HANDS_LEFT, "hands_left", 1)

#define AS_ENUM(id, name, size) id,
#define AS_NAME(id, name, size) name,
#define AS_SIZE(id, name, size) size,
enum { PIECE_LIST(AS_ENUM) N_LAYOUT };
static const char *const piece_name[N_LAYOUT] = { PIECE_LIST(AS_NAME) };
static const Py_ssize_t piece_size[N_LAYOUT] = { PIECE_LIST(AS_SIZE) };

static Py_ssize_t layout[N_LAYOUT];  /* each piece's offset, set by configure() */
static Py_ssize_t obs_size = -1, num_actions = -1;
static uint64_t trump_cards[4];

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
static int get_pair(PyObject *obj, PyObject *name, long long out[2]) {
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

/* ---- writing ----------------------------------------------------------------------------- */

static inline int popcount36(uint64_t x) {
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

static inline void put_bits(float *o, Py_ssize_t at, uint64_t bits, int n) {
    for (int i = 0; i < n; i++) o[at + i] = (float)((bits >> i) & 1);
}

PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return wk_encode_by_attrs(self, args, nargs);
}

/* encode() for any object with Game's attributes (_scalar.c's game_encode reads a Game's
 * slots directly and comes here for anything else) */
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "encode(game, player, over) takes 3 arguments");
        return NULL;
    }
    if (obs_size < 0) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return NULL;
    }
    PyObject *game = args[0];
    long long pl;
    int over;
    if (wk_player_over(args[1], args[2], &pl, &over)) return NULL;
    long p = (long)pl, o = 1 - p;

    long long hand[2], up[2], cov[2], disc[2], played[2], won[2], tp[2], scores[2];
    long phase, trump, cracker, level, dealer, chooser, leader, lead, lead_pile, num_hands,
        hand_no, current = -1;
    if (get_pair(game, s_hand, hand) || get_pair(game, s_upbits, up)
        || get_pair(game, s_covered, cov) || get_pair(game, s_discard, disc)
        || get_pair(game, s_played, played) || get_pair(game, s_won, won)
        || get_pair(game, s_trick_points, tp) || get_pair(game, s_scores, scores)
        || get_long(game, s_phase, &phase) || get_long(game, s_trump, &trump)
        || get_long(game, s_cracker, &cracker) || get_long(game, s_level, &level)
        || get_long(game, s_dealer, &dealer) || get_long(game, s_chooser, &chooser)
        || get_long(game, s_leader, &leader) || get_long(game, s_lead, &lead)
        || get_long(game, s_lead_pile, &lead_pile) || get_long(game, s_num_hands, &num_hands)
        || get_long(game, s_hand_no, &hand_no))
        return NULL;
    if (phase < 0 || phase > 4 || trump < -1 || trump > 3 || level < 0 || level > 4
        || lead < -1 || lead > 35 || disc[p] < -1 || disc[p] > 35) {
        PyErr_SetString(PyExc_ValueError, "game state out of range");
        return NULL;
    }
    PyObject *cur = PyObject_GetAttr(game, s_current);
    if (cur == NULL) return NULL;
    if (cur != Py_None) current = PyLong_AsLong(cur);
    Py_DECREF(cur);
    if (current == -1 && PyErr_Occurred()) return NULL;
    PyObject *tricks = PyObject_GetAttr(game, s_tricks);
    if (tricks == NULL) return NULL;
    Py_ssize_t n_tricks = PyObject_Length(tricks);
    Py_DECREF(tricks);
    if (n_tricks < 0) return NULL;

    uint64_t legal = 0;
    if (current == p && !over) {
        PyObject *m = PyObject_GetAttr(game, s_legal_mask);
        if (m == NULL) return NULL;
        legal = PyLong_AsUnsignedLongLong(m);
        Py_DECREF(m);
        if (legal == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    }
    uint64_t my_hand = (uint64_t)hand[p], my_up = (uint64_t)up[p], opp_up = (uint64_t)up[o];
    uint64_t my_cov = (uint64_t)cov[p], opp_cov = (uint64_t)cov[o];
    uint64_t my_played = (uint64_t)played[p], opp_played = (uint64_t)played[o];
    uint64_t seen = my_hand | my_up | opp_up | my_played | opp_played;
    if (disc[p] >= 0) seen |= UINT64_C(1) << disc[p];
    int my_pending = lead_pile >= 0 && lead_pile / 5 == p;
    int opp_pending = lead_pile >= 0 && !my_pending;
    int may_me = 0, may_opp = 0;
    if (!(my_played && opp_played) && phase != 4) {  /* Game.escalation_rights (R11) */
        long turn = level % 2 == 0 ? cracker : 1 - cracker;
        may_me = level < 4 && !my_played && (level == 0 || p == turn);
        may_opp = level < 4 && !opp_played && (level == 0 || o == turn);
    }

    PyObject *obs_buf = PyByteArray_FromStringAndSize(NULL, obs_size * (Py_ssize_t)sizeof(float));
    if (obs_buf == NULL) return NULL;
    PyObject *mask_buf = PyByteArray_FromStringAndSize(NULL, num_actions);
    if (mask_buf == NULL) { Py_DECREF(obs_buf); return NULL; }
    float *out = (float *)PyByteArray_AS_STRING(obs_buf);
    memset(out, 0, obs_size * sizeof(float));

    put_bits(out, layout[HAND], my_hand, 36);
    put_bits(out, layout[MY_UP], my_up, 36);
    put_bits(out, layout[MY_COVERED], my_cov, 36);
    put_bits(out, layout[OPP_UP], opp_up, 36);
    put_bits(out, layout[OPP_COVERED], opp_cov, 36);
    if (disc[p] >= 0) out[layout[MY_DISCARD] + disc[p]] = 1.0f;
    if (lead >= 0) out[layout[LEAD] + lead] = 1.0f;
    put_bits(out, layout[MY_PLAYED], my_played, 36);
    put_bits(out, layout[OPP_PLAYED], opp_played, 36);
    put_bits(out, layout[MY_WON], (uint64_t)won[p], 36);
    put_bits(out, layout[OPP_WON], (uint64_t)won[o], 36);
    put_bits(out, layout[UNSEEN], ALL36 ^ seen, 36);
    if (trump >= 0) put_bits(out, layout[TRUMPS], trump_cards[trump], 36);
    put_bits(out, layout[LEGAL_CARDS], legal & ALL36, 36);
    out[layout[PENDING]] = (float)my_pending;
    out[layout[PENDING] + 1] = (float)opp_pending;
    out[layout[PHASE] + phase] = 1.0f;
    out[layout[MY_TURN]] = (float)(current == p);
    out[layout[TRUMP_SUIT] + (trump >= 0 ? trump : 4)] = 1.0f;
    out[layout[CRACK_LEVEL] + level] = 1.0f;
    out[layout[MAY_ESCALATE]] = (float)may_me;
    out[layout[MAY_ESCALATE] + 1] = (float)may_opp;
    out[layout[CRACKER]] = (float)(cracker == p);
    out[layout[CRACKER] + 1] = (float)(cracker == o);
    out[layout[ROLES]] = (float)(dealer == p);
    out[layout[ROLES] + 1] = (float)(chooser == p);
    out[layout[ROLES] + 2] = (float)(leader == p);
    out[layout[OPP_DISCARDED]] = (float)(disc[o] >= 0);
    long left = num_hands - hand_no;
    out[layout[TIEBREAK]] = (float)(left <= 0 && phase != 4);
    /* the scaled entries: the same float32 values as game_encoder._encode_py writes */
    out[layout[TRICK_POINTS]] = (float)(tp[p] / 121.0);
    out[layout[TRICK_POINTS] + 1] = (float)(tp[o] / 121.0);
    out[layout[TRICKS_DONE]] = (float)(n_tricks / 17.0);
    out[layout[OPP_HAND_SIZE]] = (float)(popcount36((uint64_t)hand[o]) / 8.0);
    out[layout[FACE_DOWN]] = (float)((popcount36(my_cov) + my_pending) / 5.0);
    out[layout[FACE_DOWN] + 1] = (float)((popcount36(opp_cov) + opp_pending) / 5.0);
    out[layout[MATCH_SCORES]] = (float)(scores[p] / (scores[p] + 8.0));
    out[layout[MATCH_SCORES] + 1] = (float)(scores[o] / (scores[o] + 8.0));
    double hl;
    if (phase == 4) hl = 0.0;
    else if (left < 1) hl = 1.0 / 8.0;
    else hl = (left > 8 ? 8 : left) / 8.0;
    out[layout[HANDS_LEFT]] = (float)hl;

    char *mask = PyByteArray_AS_STRING(mask_buf);
    for (Py_ssize_t a = 0; a < num_actions; a++) mask[a] = (char)((legal >> a) & 1);

    PyObject *result = PyTuple_New(2);
    if (result == NULL) { Py_DECREF(obs_buf); Py_DECREF(mask_buf); return NULL; }
    PyTuple_SET_ITEM(result, 0, obs_buf);
    PyTuple_SET_ITEM(result, 1, mask_buf);
    return result;
}

/* configure(table, obs_size, num_actions, trump_cards): table is observation.OFFSETS,
 * {name: (offset, size)}; it must hold exactly the pieces of PIECE_LIST, with their sizes,
 * inside obs_size, so that a layout change without a matching change here fails loudly */
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
                         "_speedups.c writes %d", PyDict_Size(table), (int)N_LAYOUT);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < N_LAYOUT; i++) {
        PyObject *entry = PyDict_GetItemString(table, piece_name[i]);  /* borrowed */
        Py_ssize_t n = -1;
        if (entry == NULL || !PyArg_ParseTuple(entry, "nn", &layout[i], &n)
            || n != piece_size[i] || layout[i] < 0 || layout[i] + n > size) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "configure: piece %s must be (offset, %zd) inside %zd entries, as "
                         "_speedups.c writes it", piece_name[i], piece_size[i], size);
            return NULL;
        }
    }
    for (Py_ssize_t t = 0; t < 4; t++) {
        PyObject *v = PySequence_GetItem(trumps, t);
        if (v == NULL) return NULL;
        trump_cards[t] = PyLong_AsUnsignedLongLong(v);
        Py_DECREF(v);
        if (PyErr_Occurred()) return NULL;
    }
    if (wk_set_layout(layout, size, scales) < 0) return NULL;
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
    .m_name = "_speedups",
    .m_doc = "Optional C accelerator for widderkopf_env.game_encoder (see game_encoder.py).",
    .m_size = -1,
    .m_methods = methods,
};

#define INTERN(var, text) \
    if ((var = PyUnicode_InternFromString(text)) == NULL) return NULL

PyMODINIT_FUNC PyInit__speedups(void) {
    INTERN(s_hand, "hand"); INTERN(s_upbits, "upbits"); INTERN(s_covered, "covered");
    INTERN(s_discard, "discard"); INTERN(s_played, "played"); INTERN(s_won, "won");
    INTERN(s_current, "current"); INTERN(s_phase, "phase"); INTERN(s_trump, "trump");
    INTERN(s_cracker, "cracker"); INTERN(s_level, "level"); INTERN(s_dealer, "dealer");
    INTERN(s_chooser, "chooser"); INTERN(s_leader, "leader"); INTERN(s_lead, "lead");
    INTERN(s_lead_pile, "lead_pile"); INTERN(s_num_hands, "num_hands");
    INTERN(s_hand_no, "hand_no"); INTERN(s_trick_points, "trick_points");
    INTERN(s_scores, "scores"); INTERN(s_tricks, "tricks"); INTERN(s_legal_mask, "legal_mask");
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (PyModule_AddFunctions(m, wk_batch_methods) < 0
                      || PyModule_AddFunctions(m, wk_scalar_methods) < 0
                      || PyModule_AddFunctions(m, wk_deal_methods) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
