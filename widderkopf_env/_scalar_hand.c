/* The scalar Game's new hands and observations in C: game_start_hand (Game._start_hand
 * with the hand's deal) and game_encode (the observation of a Game, through _core.h's
 * wk_encode on a one-game batch). Slots as in _slots.h; _scalar.c configures them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_core.h"
#include "_slots.h"

const wk_rules *wk_get_rules(void);
const wk_layout *wk_get_layout(void);
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *s_deck;

/* this file's copy of _core.h's byte tables, and its interned names */
int wk_scalar_hand_init(void) {
    wk_init_tables();
    if (s_deck == NULL && (s_deck = PyUnicode_InternFromString("deck")) == NULL) return -1;
    return 0;
}

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

/* game_start_hand(game, deal): Game._start_hand with the hand's deal, read in full before
 * anything changes */
PyObject *wk_game_start_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "game_start_hand(game, deal) takes 2 arguments");
        return NULL;
    }
    PyObject *game = args[0];
    int64_t cards[2][3][8];
    uint64_t bits[2][3];
    Py_ssize_t len[2][3];
    PyObject *deal = PySequence_Fast(args[1], "a deal must be two (hand, up, down)");
    if (deal == NULL) return NULL;
    int err = check_game(game) || PySequence_Fast_GET_SIZE(deal) != 2;
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
        return NULL;
    }
    long long n, first, s0, s1;
    PyObject *scores = get_list(game, S_SCORES, 2), *history = SLOT(game, S_HISTORY);
    if (get_long(game, S_HAND_NO, &n) || get_long(game, S_FIRST_DEALER, &first)
        || scores == NULL || item_long(scores, 0, &s0) || item_long(scores, 1, &s1))
        return NULL;
    if (history == NULL || !PyList_Check(history)) {
        PyErr_SetString(PyExc_TypeError, "Game.history must be a list");
        return NULL;
    }
    long long dealer = first ^ (n & 1), chooser = s0 != s1 ? (s0 < s1 ? 0 : 1) : 1 - dealer;
    PyObject *up = PyList_New(2 * WK_PILES), *down = PyList_New(2 * WK_PILES);
    for (int p = 0; up != NULL && down != NULL && p < 2; p++)
        for (Py_ssize_t i = 0; i < WK_PILES; i++) {
            int dealt = i < len[p][1];
            PyList_SET_ITEM(up, WK_PILES * p + i,
                            PyLong_FromLongLong(dealt ? cards[p][1][i] : -1));
            PyList_SET_ITEM(down, WK_PILES * p + i,
                            PyLong_FromLongLong(dealt ? cards[p][2][i] : -1));
        }
    if (set_slot(game, S_UP, up) || set_slot(game, S_DOWN, down)
        || set_slot(game, S_HAND, Py_BuildValue("[KK]", bits[0][0], bits[1][0]))
        || set_slot(game, S_UPBITS, Py_BuildValue("[KK]", bits[0][1], bits[1][1]))
        || set_slot(game, S_COVERED, Py_BuildValue("[KK]", bits[0][1], bits[1][1]))
        || set_slot(game, S_DISCARD, Py_BuildValue("[ii]", -1, -1))
        || set_slot(game, S_WON, Py_BuildValue("[ii]", 0, 0))
        || set_slot(game, S_TRICK_POINTS, Py_BuildValue("[ii]", 0, 0))
        || set_slot(game, S_PLAYED, Py_BuildValue("[ii]", 0, 0))
        || set_slot(game, S_TRICKS, PyList_New(0))
        || set_long(game, S_HAND_START, PyList_GET_SIZE(history))
        || set_long(game, S_DEALER, dealer) || set_long(game, S_CHOOSER, chooser)
        || set_long(game, S_PHASE, WK_TRUMP) || set_long(game, S_CURRENT, chooser)
        || set_long(game, S_TRUMP, -1) || set_long(game, S_LEAD, -1)
        || set_long(game, S_LEAD_PILE, -1) || set_long(game, S_LEADER, 1 - dealer)
        || set_long(game, S_LEVEL, 0) || set_long(game, S_CRACKER, -1)
        || set_long(game, S_RECRACKER, -1) || set_long(game, S_LEGAL, -1))
        return NULL;
    Py_RETURN_NONE;
}

/* wk_encode's row, in the AVX2 copy where there is one (WK_ROW_WRITER) */
WK_ROW_WRITER static void write_row(const wk_layout *L, const wk_batch *b, long long p,
                                    int over, float *obs, int8_t *mask) {
    wk_encode(wk_get_rules(), L, b, 0, p, over, obs, NULL, mask);
}

/* The observation of one game from its fields (a Game's slots here, any object's
 * attributes in _speedups.c): the state checked, then written by _core.h's wk_encode on a
 * one-game batch; (obs bytearray of float32, mask bytearray of int8) */
PyObject *wk_encode_one(wk_one *g, long long p, int over) {
    const wk_layout *L = wk_get_layout();
    if (L == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return NULL;
    }
    int64_t up[10], down[10], hlen = 0;
    for (int k = 0; k < 10; k++) up[k] = down[k] = -1;  /* not read by the encoder */
    wk_batch b;
    memset(&b, 0, sizeof(b));
    b.n = 1;
    b.hand = g->hand; b.upbits = g->upbits; b.covered = g->covered; b.played = g->played;
    b.won = g->won; b.discard = g->discard; b.trick_points = g->trick_points;
    b.scores = g->scores; b.phase = &g->phase; b.current = &g->current; b.trump = &g->trump;
    b.dealer = &g->dealer; b.chooser = &g->chooser; b.leader = &g->leader; b.lead = &g->lead;
    b.lead_pile = &g->lead_pile; b.level = &g->level; b.cracker = &g->cracker;
    b.hand_no = &g->hand_no; b.num_hands = &g->num_hands; b.ntricks = &g->ntricks;
    b.legal = &g->legal; b.hlen = &hlen; b.up = up; b.down = down;
    b.ntricks_per_hand = g->ntricks + 1;
    b.deck = g->deck;
    for (int t = 0; t < 4; t++) b.trump_mask[t] = wk_get_rules()->trump_mask[t] & g->deck;
    if (!wk_state_ok(&b, 0)) {
        PyErr_SetString(PyExc_ValueError, "game state out of range");
        return NULL;
    }
    PyObject *obs = PyByteArray_FromStringAndSize(NULL, L->size * (Py_ssize_t)sizeof(float));
    if (obs == NULL) return NULL;
    PyObject *mask = PyByteArray_FromStringAndSize(NULL, WK_ACTIONS);
    if (mask == NULL) {
        Py_DECREF(obs);
        return NULL;
    }
    write_row(L, &b, p, over, (float *)PyByteArray_AS_STRING(obs),
              (int8_t *)PyByteArray_AS_STRING(mask));
    PyObject *result = PyTuple_Pack(2, obs, mask);
    Py_DECREF(obs);
    Py_DECREF(mask);
    return result;
}

/* game_encode(game, player, over) -> (obs bytearray of float32, mask bytearray of int8):
 * _speedups.encode for a Game, its fields read from the slots; any other object goes to
 * _speedups.encode */
PyObject *wk_game_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || wk_game_type == NULL || !PyObject_TypeCheck(args[0], wk_game_type)
        || wk_get_layout() == NULL)
        return wk_encode_by_attrs(self, args, nargs);
    PyObject *game = args[0];
    long long p, legal_cached, v;
    int over;
    if (wk_player_over(args[1], args[2], &p, &over)) return NULL;
    wk_one g;
    memset(&g, 0, sizeof(g));
    struct { int slot; int64_t *out; } longs[] = {
        {S_PHASE, &g.phase}, {S_TRUMP, &g.trump}, {S_DEALER, &g.dealer},
        {S_CHOOSER, &g.chooser}, {S_LEADER, &g.leader}, {S_LEAD, &g.lead},
        {S_LEAD_PILE, &g.lead_pile}, {S_LEVEL, &g.level}, {S_CRACKER, &g.cracker},
        {S_HAND_NO, &g.hand_no}, {S_NUM_HANDS, &g.num_hands}};
    for (size_t k = 0; k < sizeof(longs) / sizeof(longs[0]); k++) {
        if (get_long(game, longs[k].slot, &v)) return NULL;
        *longs[k].out = v;
    }
    PyObject *cur = SLOT(game, S_CURRENT);
    if (cur == NULL) return wk_encode_by_attrs(self, args, nargs);
    g.current = -1;
    if (cur != Py_None && (g.current = PyLong_AsLongLong(cur)) == -1 && PyErr_Occurred())
        return NULL;
    struct { int slot; uint64_t *out; } sets[] = {
        {S_HAND, g.hand}, {S_UPBITS, g.upbits}, {S_COVERED, g.covered},
        {S_PLAYED, g.played}, {S_WON, g.won}};
    for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
        PyObject *list = get_list(game, sets[k].slot, 2);
        if (list == NULL || item_u64(list, 0, &sets[k].out[0])
            || item_u64(list, 1, &sets[k].out[1]))
            return NULL;
    }
    struct { int slot; int64_t *out; } pairs[] = {
        {S_DISCARD, g.discard}, {S_TRICK_POINTS, g.trick_points}, {S_SCORES, g.scores}};
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        PyObject *list = get_list(game, pairs[k].slot, 2);
        long long a, b;
        if (list == NULL || item_long(list, 0, &a) || item_long(list, 1, &b)) return NULL;
        pairs[k].out[0] = a;
        pairs[k].out[1] = b;
    }
    PyObject *tricks = SLOT(game, S_TRICKS), *variant = SLOT(game, S_VARIANT), *deck_obj;
    if (tricks == NULL || !PyList_Check(tricks) || variant == NULL
        || (deck_obj = PyObject_GetAttr(variant, s_deck)) == NULL)
        return wk_encode_by_attrs(self, args, nargs);
    g.deck = PyLong_AsUnsignedLongLong(deck_obj);
    Py_DECREF(deck_obj);
    if (g.deck == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    g.ntricks = PyList_GET_SIZE(tricks);
    if (g.current == p && !over) {
        if (get_long(game, S_LEGAL, &legal_cached)) return NULL;
        if (legal_cached >= 0) g.legal = (uint64_t)legal_cached;
        else if (wk_game_legal_of(game, &g.legal) || set_long(game, S_LEGAL, (long long)g.legal))
            return NULL;
    }
    return wk_encode_one(&g, p, over);
}
