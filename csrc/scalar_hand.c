/* The scalar Game's hands and observations in C: game_start_hand (Game._start_hand
 * with the hand's deal), wk_game_finish_hand (Game._finish_hand, for _scalar.c's apply)
 * and game_encode (the observation of a Game, through _core.h's wk_encode on a one-game
 * batch). Slots as in _slots.h; _scalar.c configures them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "slots.h"

const wk_rules *wk_get_rules(void);
const wk_layout *wk_get_layout(void);
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *s_deck, *s_spitzer, *s_win, *s_schneider, *s_total, *s_tricks,
    *s_start_hand, *s_finish_hand;
/* the numbers of the variant last read (a Variant is frozen: read once) */
static struct {
    PyObject *variant;
    uint64_t deck;
    long long spitzer, win, schneider, total, tricks;
} vc;
/* configure_game's HandResult and the offsets of its slots, in RESULT_FIELDS' order */
static PyTypeObject *result_type;
static Py_ssize_t result_offset[13];

/* this file's copy of _core.h's byte tables, and its interned names */
int wk_scalar_hand_init(void) {
    wk_init_tables();
    struct { PyObject **var; const char *text; } names[] = {
        {&s_deck, "deck"}, {&s_spitzer, "spitzer"}, {&s_win, "win_points"},
        {&s_schneider, "schneider_points"}, {&s_total, "total_points"}, {&s_tricks, "tricks"},
        {&s_start_hand, "_start_hand"}, {&s_finish_hand, "_finish_hand"}};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if (*names[k].var == NULL
            && (*names[k].var = PyUnicode_InternFromString(names[k].text)) == NULL)
            return -1;
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
                                    int over, float *obs32, uint8_t *obs8, int8_t *mask) {
    wk_encode(wk_get_rules(), L, b, 0, p, over, obs32, obs8, mask);
}

/* The observation of one game from its fields (a Game's slots, or any object's attributes
 * in _speedups.c): the state checked, then written by _core.h's wk_encode on a one-game
 * batch into obs32 (float32) or obs8 (the compact uint8 form) and mask; -1 with the error
 * set when the state is out of range or the layout was not configured */
int wk_write_one(const wk_one *g, long long p, int over, float *obs32, uint8_t *obs8,
                 int8_t *mask) {
    const wk_layout *L = wk_get_layout();
    if (L == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return -1;
    }
    wk_one c = *g;
    int64_t up[10], down[10], hlen = 0;
    for (int k = 0; k < 10; k++) up[k] = down[k] = -1;  /* not read by the encoder */
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
    const wk_layout *L = wk_get_layout();
    if (L == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure() was not called");
        return NULL;
    }
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

/* a card set (an int of 36 bits) from a list's item (item_u64's reading); anything else
 * is a ValueError naming the slot */
static inline int item_cards(PyObject *list, Py_ssize_t i, uint64_t *out, int slot) {
    if (item_u64(list, i, out) == 0 && !(*out >> WK_CARDS)) return 0;
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "Game.%s must hold card sets (ints in 0..2**36-1)",
                 wk_slot_name[slot]);
    return -1;
}

/* vc: variant's deck, numbers and tricks per hand; 0, -1 with the error set (a deck that
 * is no card set), 1 where variant lacks them (not a Variant) */
static int variant_numbers(PyObject *variant) {
    if (variant == vc.variant) return 0;
    PyObject *names[6] = {s_deck, s_spitzer, s_win, s_schneider, s_total, s_tricks};
    long long num[5];
    uint64_t deck = 0;
    for (int k = 0; k < 6; k++) {
        PyObject *v = PyObject_GetAttr(variant, names[k]);
        if (v == NULL) {
            PyErr_Clear();
            return 1;
        }
        int bad = k == 0 ? as_u63(v, &deck) : (num[k - 1] = PyLong_AsLongLong(v)) == -1
                                                    && PyErr_Occurred();
        Py_DECREF(v);
        if (bad) return -1;
    }
    Py_XSETREF(vc.variant, Py_NewRef(variant));
    vc.deck = deck;
    vc.spitzer = num[0], vc.win = num[1], vc.schneider = num[2], vc.total = num[3];
    vc.tricks = num[4];
    return 0;
}

int wk_variant_tricks(PyObject *variant, long long *n) {
    int got = variant_numbers(variant);
    if (got <= 0) {
        *n = vc.tricks;
        return got;
    }
    PyObject *v = PyObject_GetAttr(variant, s_tricks);  /* not a Variant: its attribute */
    *n = v == NULL ? -1 : PyLong_AsLongLong(v);
    Py_XDECREF(v);
    return *n == -1 && PyErr_Occurred() ? -1 : 0;
}

int wk_configure_result(PyObject *type, PyObject *names) {
    if (!PyType_Check(type) || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != 13) {
        PyErr_SetString(PyExc_TypeError, "configure_game: HandResult and its 13 field names");
        return -1;
    }
    Py_ssize_t at[13];
    for (Py_ssize_t k = 0; k < 13; k++) {
        PyObject *descr = PyDict_GetItemWithError(((PyTypeObject *)type)->tp_dict,
                                                  PyTuple_GET_ITEM(names, k));
        if ((at[k] = wk_member_offset(descr)) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "configure_game: HandResult has no slot %R",
                             PyTuple_GET_ITEM(names, k));
            return -1;
        }
    }
    memcpy(result_offset, at, sizeof(at));  /* all or nothing */
    Py_XSETREF(result_type, (PyTypeObject *)Py_NewRef(type));
    return 0;
}

/* a new HandResult of these values (new references, stolen; NULL among them: the error
 * is set), its slots filled as its __init__ does (a frozen dataclass: no __post_init__) */
static PyObject *new_result(PyObject *values[13]) {
    PyObject *r = NULL;
    int ok = 1;
    for (int k = 0; k < 13; k++) ok = ok && values[k] != NULL;
    if (ok) r = result_type->tp_alloc(result_type, 0);
    for (int k = 0; k < 13; k++) {
        if (r != NULL) *(PyObject **)((char *)r + result_offset[k]) = values[k];
        else Py_XDECREF(values[k]);
    }
    return r;
}

/* Game._finish_hand (its reference): the hand's result appended, the match score, the
 * next hand (Game._start_hand, in Python: it deals from the seed) or the match's end.
 * Anything but a Game of a Variant goes to the Python method. */
int wk_game_finish_hand(PyObject *game) {
    const wk_rules *R = wk_get_rules();
    PyObject *variant = SLOT(game, S_VARIANT), *results = SLOT(game, S_RESULTS);
    PyObject *scores = get_list(game, S_SCORES, 2), *disc = get_list(game, S_DISCARD, 2);
    PyObject *tp_list = get_list(game, S_TRICK_POINTS, 2), *won = get_list(game, S_WON, 2);
    int got = variant == NULL || result_type == NULL ? 1 : variant_numbers(variant);
    if (got < 0) return -1;
    if (got > 0 || results == NULL || !PyList_Check(results) || scores == NULL
        || disc == NULL || tp_list == NULL || won == NULL) {
        PyErr_Clear();
        PyObject *r = PyObject_CallMethodNoArgs(game, s_finish_hand);
        Py_XDECREF(r);
        return r == NULL ? -1 : 0;
    }
    long long t, d0, d1, tp0, tp1, level, hand_no, dealer, num_hands, s[2];
    uint64_t won0;
    if (get_long(game, S_TRUMP, &t) || item_long(disc, 0, &d0) || item_long(disc, 1, &d1)
        || item_long(tp_list, 0, &tp0) || item_long(tp_list, 1, &tp1)
        || item_u64(won, 0, &won0) || get_long(game, S_LEVEL, &level)
        || get_long(game, S_HAND_NO, &hand_no) || get_long(game, S_DEALER, &dealer)
        || get_long(game, S_NUM_HANDS, &num_hands) || item_long(scores, 0, &s[0])
        || item_long(scores, 1, &s[1]))
        return -1;
    if (t < 0 || t > 3 || d0 < 0 || d0 >= WK_CARDS || d1 < 0 || d1 >= WK_CARDS) {
        PyErr_SetString(PyExc_ValueError, "_finish_hand: no trump or no discards");
        return -1;
    }
    long long pts[2] = {tp0 + R->points[d1], tp1 + R->points[d0]};
    uint64_t pile0 = won0 | (UINT64_C(1) << d1);
    long long spitzer = vc.spitzer ? ((pile0 >> R->spitzer[t]) & 1 ? 0 : 1) : -1;
    if (spitzer >= 0) pts[spitzer] += 1;
    long long winner = pts[0] >= vc.win ? 0 : 1, best = pts[winner];
    PyObject *v = PyObject_CallMethod(variant, "hand_value", "LL", level, best);
    long long value = v == NULL ? -1 : PyLong_AsLongLong(v);
    Py_XDECREF(v);
    if (value == -1 && PyErr_Occurred()) return -1;
    s[winner] += value;
    if (set_item_long(scores, winner, s[winner])) return -1;
    PyObject *values[13] = {
        PyLong_FromLongLong(hand_no), PyLong_FromLongLong(dealer), PyLong_FromLongLong(t),
        Py_BuildValue("(LL)", pts[0], pts[1]), Py_BuildValue("(LL)", tp0, tp1),
        Py_BuildValue("(LL)", d0, d1), PyLong_FromLongLong(spitzer),
        PyLong_FromLongLong(winner), PyLong_FromLongLong(level),
        PyBool_FromLong(vc.schneider <= best && best < vc.total),
        PyBool_FromLong(best == vc.total), PyLong_FromLongLong(value),
        Py_BuildValue("(LL)", s[0], s[1])};
    PyObject *result = new_result(values);
    int err = result == NULL || PyList_Append(results, result);
    Py_XDECREF(result);
    if (err || set_long(game, S_HAND_NO, hand_no + 1)) return -1;
    if (hand_no + 1 >= num_hands && s[0] != s[1])
        return set_long(game, S_PHASE, WK_OVER) || set_slot(game, S_CURRENT, Py_NewRef(Py_None))
            ? -1 : 0;
    PyObject *r = PyObject_CallMethodNoArgs(game, s_start_hand);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* A Game's fields from its slots for the player observed (legal only where that player is
 * to act and the episode is not over): 0, or -1 with the error set, or 1 when the object
 * is not a Game whose slots can be read (the caller reads its attributes instead) */
int wk_read_game(PyObject *game, long long p, int over, wk_one *g) {
    if (wk_game_type == NULL || !PyObject_TypeCheck(game, wk_game_type)
        || wk_get_layout() == NULL)
        return 1;
    long long legal_cached, v;
    memset(g, 0, sizeof(*g));
    struct { int slot; int64_t *out; } longs[] = {
        {S_PHASE, &g->phase}, {S_TRUMP, &g->trump}, {S_DEALER, &g->dealer},
        {S_CHOOSER, &g->chooser}, {S_LEADER, &g->leader}, {S_LEAD, &g->lead},
        {S_LEAD_PILE, &g->lead_pile}, {S_LEVEL, &g->level}, {S_CRACKER, &g->cracker},
        {S_HAND_NO, &g->hand_no}, {S_NUM_HANDS, &g->num_hands}};
    for (size_t k = 0; k < sizeof(longs) / sizeof(longs[0]); k++) {
        if (get_long(game, longs[k].slot, &v)) return -1;
        *longs[k].out = v;
    }
    PyObject *cur = SLOT(game, S_CURRENT);
    if (cur == NULL) return 1;
    g->current = -1;
    if (cur != Py_None && (g->current = PyLong_AsLongLong(cur)) == -1 && PyErr_Occurred())
        return -1;
    struct { int slot; uint64_t *out; } sets[] = {
        {S_HAND, g->hand}, {S_UPBITS, g->upbits}, {S_COVERED, g->covered},
        {S_PLAYED, g->played}, {S_WON, g->won}};
    for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
        PyObject *list = get_list(game, sets[k].slot, 2);
        if (list == NULL || item_cards(list, 0, &sets[k].out[0], sets[k].slot)
            || item_cards(list, 1, &sets[k].out[1], sets[k].slot))
            return -1;
    }
    struct { int slot; int64_t *out; } pairs[] = {
        {S_DISCARD, g->discard}, {S_TRICK_POINTS, g->trick_points}, {S_SCORES, g->scores}};
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        PyObject *list = get_list(game, pairs[k].slot, 2);
        long long a, b;
        if (list == NULL || item_long(list, 0, &a) || item_long(list, 1, &b)) return -1;
        pairs[k].out[0] = a;
        pairs[k].out[1] = b;
    }
    PyObject *tricks = SLOT(game, S_TRICKS), *variant = SLOT(game, S_VARIANT);
    if (tricks == NULL || !PyList_Check(tricks) || variant == NULL) return 1;
    int got = variant_numbers(variant);
    if (got != 0) return got;
    g->deck = vc.deck;
    g->ntricks = PyList_GET_SIZE(tricks);
    if (g->current == p && !over) {
        if (get_long(game, S_LEGAL, &legal_cached)) return -1;
        if (legal_cached >= 0) g->legal = (uint64_t)legal_cached;
        else if (wk_game_legal_of(game, &g->legal) || set_long(game, S_LEGAL, (long long)g->legal))
            return -1;
    }
    return 0;
}

/* game_encode(game, player, over) -> (obs bytearray of float32, mask bytearray of int8):
 * _speedups.encode for a Game, its fields read from the slots; any other object goes to
 * _speedups.encode */
PyObject *wk_game_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) return wk_encode_by_attrs(self, args, nargs);
    long long p;
    int over;
    wk_one g;
    if (wk_player_over(args[1], args[2], &p, &over)) return NULL;
    int got = wk_read_game(args[0], p, over, &g);
    if (got < 0) return NULL;
    if (got > 0) return wk_encode_by_attrs(self, args, nargs);
    return wk_encode_one(&g, p, over);
}
