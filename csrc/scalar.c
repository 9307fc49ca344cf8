/* The scalar Game's hot paths in C: the legal set and apply() of rules.Game, and the
 * methods rules.py sets on the class (game_methods).
 *
 * configure_game(Game, ...) finds the offsets of Game's slots (_slots.h), so these
 * functions read and write them directly, with _core.h's tables (configure_rules). They do
 * what Game._LEGAL and Game._APPLY do, phase by phase, and the end of a hand
 * (_scalar_hand.c's wk_game_finish_hand, Game._finish_hand's form); the error of an
 * illegal action stays in Python (Game._reject, called before anything changes), and so
 * does the deal of a match's next hand (Game._start_hand). rules.py uses them where
 * the accelerator is loaded; tests/core/test_core_game.py compares both at every
 * decision.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "core.h"
#include "slots.h"

const wk_rules *wk_get_rules(void);

const char *const wk_slot_name[N_SLOTS] = { SLOT_LIST(AS_NAME) };
Py_ssize_t wk_slot_offset[N_SLOTS];
PyTypeObject *wk_game_type = NULL;
static PyObject *s_reject, *s_apply_py;

/* ---- the slots a move reads, checked before they are read ------------------------------ */

enum { K_INT, K_LIST, K_PAIR, K_PILES, K_VARIANT };  /* what a slot holds */
typedef struct { int slot, kind; } slot_kind;

/* The error of game.<k> holding what it must not: TypeError naming the attribute and what
 * it must be (ValueError for a list of another length, OverflowError for an int past 64
 * bits) */
static int slot_error(PyObject *game, slot_kind s) {
    static const char *const must[] = {"an int", "a list", "a list of 2", "a list of 10",
                                       "a Variant"};
    PyObject *v = SLOT(game, s.slot);
    const char *name = wk_slot_name[s.slot];
    if (v == NULL)
        PyErr_Format(PyExc_TypeError, "Game.%s must be %s; it was deleted", name, must[s.kind]);
    else if (s.kind == K_INT && PyLong_Check(v))
        PyErr_Format(PyExc_OverflowError, "Game.%s is out of range: it must be an int of at "
                     "most 64 bits", name);
    else if (s.kind != K_INT && PyList_Check(v))
        PyErr_Format(PyExc_ValueError, "Game.%s must be %s, got a list of %zd", name,
                     must[s.kind], PyList_GET_SIZE(v));
    else
        PyErr_Format(PyExc_TypeError, "Game.%s must be %s, got %s", name, must[s.kind],
                     Py_TYPE(v)->tp_name);
    return -1;
}

/* 0 where game.<k> holds what the game puts there (lists of the right length, ints of
 * 64 bits; not their items), else slot_error's */
static inline int check_slot(PyObject *game, slot_kind s) {
    PyObject *v = SLOT(game, s.slot);
    int overflow = 0;
    if (v != NULL) switch (s.kind) {
        case K_INT:
            if (PyLong_Check(v) && (wk_as_ll(v, &overflow), !overflow)) return 0;
            break;
        case K_LIST:
            if (PyList_Check(v)) return 0;
            break;
        case K_PAIR:
        case K_PILES:
            if (PyList_Check(v) && PyList_GET_SIZE(v) == (s.kind == K_PAIR ? 2 : 2 * WK_PILES))
                return 0;
            break;
        default:  /* K_VARIANT: check_move reads its tricks */
            return 0;
    }
    return slot_error(game, s);
}

static int check_slots(PyObject *game, const slot_kind *list, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (check_slot(game, list[k])) return -1;
    return 0;
}

#define CHECK_SLOTS(game, list) check_slots(game, list, sizeof(list) / sizeof(list[0]))

/* The slots the move `a` in `phase` reads after it began to change the game hold what
 * the game puts there (a Game whose attributes were replaced, g.tricks = None, gets an
 * error naming the attribute, and apply_int takes the action back out of the history);
 * the slots each phase reads first are checked as they are read, before any change. The
 * items of lists are not checked. */
static int check_move(PyObject *game, long long phase, long long a) {
    static const slot_kind escalate[] = {{S_PLAYED, K_PAIR}, {S_CRACKER, K_INT}},
        trick[] = {{S_UP, K_PILES}, {S_DOWN, K_PILES}, {S_UPBITS, K_PAIR}, {S_WON, K_PAIR},
                   {S_TRICK_POINTS, K_PAIR}, {S_TRICKS, K_LIST}, {S_LEAD_PILE, K_INT},
                   {S_VARIANT, K_VARIANT}},
        last[] = {{S_RESULTS, K_LIST}, {S_SCORES, K_PAIR}, {S_DISCARD, K_PAIR},
                  {S_LEVEL, K_INT}, {S_HAND_NO, K_INT}, {S_NUM_HANDS, K_INT},
                  {S_FIRST_DEALER, K_INT}, {S_DEALS, K_LIST}};
    long long lead, n;
    if (phase != WK_PLAY) return 0;
    if (a >= WK_CARDS) return CHECK_SLOTS(game, escalate);
    if (get_long(game, S_LEAD, &lead)) return -1;
    if (lead < 0) return 0;  /* a trick's first card: what it reads, it reads first */
    if (CHECK_SLOTS(game, trick)) return -1;
    if (wk_variant_tricks(SLOT(game, S_VARIANT), &n)) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {  /* no tricks: not a Variant */
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "Game.variant must be a Variant, got %s",
                         Py_TYPE(SLOT(game, S_VARIANT))->tp_name);
        }
        return -1;
    }
    if (PyList_GET_SIZE(SLOT(game, S_TRICKS)) + 1 == n)
        return CHECK_SLOTS(game, last);  /* the hand ends: its result, the next deal */
    return 0;
}

/* ---- the rules on a Game ----------------------------------------------------------------- */

/* Game._may_escalate */
static int may_escalate(PyObject *game, long long player, long long phase, int *out) {
    long long level, cracker;
    uint64_t played;
    PyObject *pl = get_list(game, S_PLAYED, 2);
    if (pl == NULL || get_long(game, S_LEVEL, &level) || get_long(game, S_CRACKER, &cracker)
        || item_u64(pl, player, &played))
        return -1;
    if (level >= WK_MAX_LEVEL || played || phase == WK_OVER) *out = 0;
    else if (level == 0) *out = 1;
    else *out = player == (level % 2 == 0 ? cracker : 1 - cracker);
    return 0;
}

/* Game._LEGAL[phase](game) */
int wk_game_legal_of(PyObject *game, uint64_t *out) {
    long long phase, p = -1;
    if (get_long(game, S_PHASE, &phase)) return -1;
    if (phase == WK_OVER) {
        *out = 0;
        return 0;
    }
    if (phase == WK_TRUMP) {
        *out = UINT64_C(0xF) << WK_TRUMP_ACTION;
        return 0;
    }
    if (phase == WK_ANSWER) {
        *out = (UINT64_C(1) << WK_ESCALATE) | (UINT64_C(1) << WK_PASS);
        return 0;
    }
    if (get_long(game, S_CURRENT, &p)) return -1;
    if (p != 0 && p != 1) {
        PyErr_SetString(PyExc_ValueError, "Game.current must be 0 or 1 while playing");
        return -1;
    }
    PyObject *hand = get_list(game, S_HAND, 2);
    uint64_t h, up;
    if (hand == NULL || item_u64(hand, p, &h)) return -1;
    if (phase == WK_DISCARD) {
        *out = h;
        return 0;
    }
    PyObject *upbits = get_list(game, S_UPBITS, 2);
    long long lead, trump;
    if (upbits == NULL || item_u64(upbits, p, &up) || get_long(game, S_LEAD, &lead)
        || get_long(game, S_TRUMP, &trump))
        return -1;
    uint64_t m = h | up;
    if (lead >= 0 && lead < WK_CARDS && trump >= 0 && trump < 4) {
        uint64_t f = m & wk_get_rules()->follow[trump][lead];
        if (f) m = f;
    }
    int may;
    if (may_escalate(game, p, phase, &may)) return -1;
    if (may) m |= UINT64_C(1) << WK_ESCALATE;
    *out = m;
    return 0;
}


/* legal_mask(game) -> int: Game.legal_mask, cached in game._legal */
static PyObject *game_legal(PyObject *self, PyObject *game) {
    (void)self;
    long long cached;
    uint64_t m;
    if (check_game(game) || get_long(game, S_LEGAL, &cached)) return NULL;
    if (cached >= 0) return PyLong_FromLongLong(cached);
    if (wk_game_legal_of(game, &m) || set_long(game, S_LEGAL, (long long)m)) return NULL;
    return PyLong_FromUnsignedLongLong(m);
}

/* legal_actions(game) -> list: Game.legal_actions, the mask cached in game._legal */
static PyObject *game_legal_actions(PyObject *self, PyObject *game) {
    (void)self;
    long long cached;
    uint64_t m;
    if (check_game(game) || get_long(game, S_LEGAL, &cached)) return NULL;
    if (cached >= 0) m = (uint64_t)cached;
    else if (wk_game_legal_of(game, &m) || set_long(game, S_LEGAL, (long long)m)) return NULL;
    PyObject *out = PyList_New(wk_popcount(m));
    if (out == NULL) return NULL;
    for (Py_ssize_t k = 0; m; m &= m - 1, k++) {
        int a = 0;
        while (!((m >> a) & 1)) a++;
        PyObject *v = PyLong_FromLong(a);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, v);
    }
    return out;
}

static int raise_level(PyObject *game, long long player) {
    long long level;
    if (get_long(game, S_LEVEL, &level) || set_long(game, S_LEVEL, level + 1)) return -1;
    if (level + 1 == 1) return set_long(game, S_CRACKER, player);
    if (level + 1 == 2) return set_long(game, S_RECRACKER, player);
    return 0;
}

static int out_of_range(void) {
    PyErr_SetString(PyExc_ValueError, "game state out of range");
    return -1;
}

static int turn_over(PyObject *game, long long pile) {
    PyObject *up = get_list(game, S_UP, 10), *down = get_list(game, S_DOWN, 10),
             *upbits = get_list(game, S_UPBITS, 2);
    long long card;
    uint64_t bits;
    if (up == NULL || down == NULL || upbits == NULL) return -1;
    if (pile < 0 || pile >= 2 * WK_PILES) return out_of_range();
    if (item_long(down, pile, &card) || item_u64(upbits, pile / WK_PILES, &bits)) return -1;
    if (card < 0 || card >= WK_CARDS) return out_of_range();
    if (set_item_long(down, pile, -1) || set_item_long(up, pile, card)) return -1;
    return set_item_u64(upbits, pile / WK_PILES, bits | (UINT64_C(1) << card));
}

/* Game._apply_play for a card */
static int play_card(PyObject *game, long long p, long long card) {
    const wk_rules *r = wk_get_rules();
    PyObject *hand = get_list(game, S_HAND, 2), *played = get_list(game, S_PLAYED, 2);
    uint64_t bit = UINT64_C(1) << card, h, pl;
    long long pile = -1, lead, trump;
    if (hand == NULL || played == NULL || item_u64(hand, p, &h) || item_u64(played, p, &pl)
        || get_long(game, S_LEAD, &lead) || get_long(game, S_TRUMP, &trump))
        return -1;
    if (trump < 0 || trump > 3 || lead < -1 || lead >= WK_CARDS) return out_of_range();
    if (h & bit) {
        if (set_item_u64(hand, p, h ^ bit)) return -1;
    } else {  /* a face-up card from pile i (R13); what lies under it turns over later */
        PyObject *upbits = get_list(game, S_UPBITS, 2), *up = get_list(game, S_UP, 10),
                 *down = get_list(game, S_DOWN, 10), *covered = get_list(game, S_COVERED, 2);
        uint64_t ub, cov;
        if (upbits == NULL || up == NULL || down == NULL || covered == NULL
            || item_u64(upbits, p, &ub) || set_item_u64(upbits, p, ub ^ bit))
            return -1;
        long long i = 5 * p, top = -2, under;
        for (; i < 5 * p + 5; i++) {
            if (item_long(up, i, &top)) return -1;
            if (top == card) break;
        }
        if (top != card) {
            PyErr_SetString(PyExc_RuntimeError, "the card is neither in hand nor face up");
            return -1;
        }
        if (set_item_long(up, i, -1) || item_long(down, i, &under)) return -1;
        if (under >= 0) {
            pile = i;
            if (item_u64(covered, p, &cov) || set_item_u64(covered, p, cov & ~bit)) return -1;
        }
    }
    if (set_item_u64(played, p, pl | bit)) return -1;
    if (lead < 0) {
        if (set_long(game, S_LEAD, card) || set_long(game, S_LEAD_PILE, pile)
            || set_long(game, S_CURRENT, 1 - p))
            return -1;
        return 0;
    }
    long long leader = 1 - p, lead_pile, tp;
    long long winner = r->beats[trump][lead * WK_CARDS + card] ? p : leader;
    PyObject *won = get_list(game, S_WON, 2), *points = get_list(game, S_TRICK_POINTS, 2);
    PyObject *tricks = SLOT(game, S_TRICKS);
    uint64_t w;
    if (won == NULL || points == NULL || check_slot(game, (slot_kind){S_TRICKS, K_LIST})
        || item_u64(won, winner, &w) || item_long(points, winner, &tp)
        || get_long(game, S_LEAD_PILE, &lead_pile))
        return -1;
    if (set_item_u64(won, winner, w | (UINT64_C(1) << lead) | bit)
        || set_item_long(points, winner, tp + (long long)(r->points[lead] + r->points[card])))
        return -1;
    PyObject *trick = Py_BuildValue("(LLLL)", leader, lead, card, winner);
    if (trick == NULL) return -1;
    int err = PyList_Append(tricks, trick);
    Py_DECREF(trick);
    if (err) return -1;
    if (lead_pile >= 0 && turn_over(game, lead_pile)) return -1;
    if (pile >= 0 && turn_over(game, pile)) return -1;
    if (set_long(game, S_LEAD, -1) || set_long(game, S_LEAD_PILE, -1)) return -1;
    PyObject *variant = SLOT(game, S_VARIANT);
    long long n;
    if (variant == NULL) {
        PyErr_SetString(PyExc_AttributeError, "variant");
        return -1;
    }
    if (wk_variant_tricks(variant, &n)) return -1;
    if (PyList_GET_SIZE(tricks) == n) {
        return wk_game_finish_hand(game);
    }
    return set_long(game, S_CURRENT, winner) || set_long(game, S_LEADER, winner) ? -1 : 0;
}

/* Game.apply for an int action (`action`, a Python int) */
static PyObject *apply_int(PyObject *game, PyObject *action) {
    long long a = PyLong_AsLongLong(action), cached, phase, p = -1, dealer;
    uint64_t m;
    if (a == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
        PyErr_Clear();
        a = WK_ACTIONS;  /* out of range: rejected below, named as given */
    }
    if (check_game(game) || get_long(game, S_LEGAL, &cached) || get_long(game, S_PHASE, &phase))
        return NULL;
    if (cached >= 0) m = (uint64_t)cached;
    else if (wk_game_legal_of(game, &m) || set_long(game, S_LEGAL, (long long)m)) return NULL;
    if (a < 0 || a >= WK_ACTIONS || !((m >> a) & 1)) {  /* Game._reject raises */
        PyObject *r = PyObject_CallMethod(game, "_reject", "OK", action, (unsigned long long)m);
        Py_XDECREF(r);
        if (r != NULL) PyErr_SetString(PyExc_RuntimeError, "Game._reject did not raise");
        return NULL;
    }
    PyObject *history = SLOT(game, S_HISTORY);
    if (check_slot(game, (slot_kind){S_HISTORY, K_LIST}) || get_long(game, S_DEALER, &dealer)
        || (phase != WK_TRUMP && get_long(game, S_CURRENT, &p)) || check_move(game, phase, a))
        return NULL;
    if (phase != WK_TRUMP && p != 0 && p != 1) {
        PyErr_SetString(PyExc_ValueError, "Game.current must be 0 or 1 while playing");
        return NULL;
    }
    Py_ssize_t before = PyList_GET_SIZE(history);
    if (set_long(game, S_LEGAL, -1) || PyList_Append(history, action)) return NULL;
    Py_INCREF(history);  /* held while the move runs Python (the next hand's deal) */
    int err = 0;
    if (phase == WK_TRUMP) {
        err = set_long(game, S_TRUMP, a - WK_TRUMP_ACTION) || set_long(game, S_PHASE, WK_DISCARD)
            || set_long(game, S_CURRENT, 1 - dealer);
    } else if (phase == WK_DISCARD) {
        PyObject *hand = get_list(game, S_HAND, 2), *discard = get_list(game, S_DISCARD, 2);
        uint64_t h;
        err = hand == NULL || discard == NULL || item_u64(hand, p, &h)
            || set_item_u64(hand, p, h ^ (UINT64_C(1) << a)) || set_item_long(discard, p, a);
        if (!err && p == dealer)
            err = set_long(game, S_PHASE, WK_PLAY) || set_long(game, S_CURRENT, 1 - dealer);
        else if (!err)
            err = set_long(game, S_CURRENT, dealer);
    } else if (phase == WK_ANSWER) {
        err = (a == WK_ESCALATE && raise_level(game, p)) || set_long(game, S_PHASE, WK_PLAY)
            || set_long(game, S_CURRENT, 1 - p);
    } else if (a >= WK_CARDS) {  /* the due player escalates; the other answers if they may */
        int may;
        err = raise_level(game, p) || may_escalate(game, 1 - p, phase, &may);
        if (!err && may)
            err = set_long(game, S_PHASE, WK_ANSWER) || set_long(game, S_CURRENT, 1 - p);
    } else {
        err = play_card(game, p, a);
    }
    if (err && PyList_GET_SIZE(history) > before) {  /* the action out of the history again */
#if PY_VERSION_HEX >= 0x030C0000
        PyObject *exc = PyErr_GetRaisedException();
        if (PyList_SetSlice(history, before, PyList_GET_SIZE(history), NULL)) PyErr_Clear();
        PyErr_SetRaisedException(exc);
#else
        PyObject *type, *value, *trace;
        PyErr_Fetch(&type, &value, &trace);
        if (PyList_SetSlice(history, before, PyList_GET_SIZE(history), NULL)) PyErr_Clear();
        PyErr_Restore(type, value, trace);
#endif
    }
    Py_DECREF(history);
    if (err) return NULL;
    Py_RETURN_NONE;
}

/* apply(game, action): Game.apply for an int action */
PyObject *wk_game_apply_int(PyObject *game, PyObject *action) { return apply_int(game, action); }

static PyObject *game_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "game_apply(game, action) takes 2 arguments");
        return NULL;
    }
    return apply_int(args[0], args[1]);
}

/* ---- Game's methods, bound to the class (game_methods) ---------------------------------- */

/* Game.apply(action): an exact int in C, any other object by Game._apply_py */
static PyObject *apply_method(PyObject *game, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw != 1 || (nkw == 1 && !PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)))
        || (nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0),
                                                         "action") != 0)) {
        PyErr_SetString(PyExc_TypeError, "Game.apply() takes one argument, the action");
        return NULL;
    }
    if (PyLong_CheckExact(args[0])) return apply_int(game, args[0]);
    return PyObject_CallMethodOneArg(game, s_apply_py, args[0]);
}

static PyObject *legal_actions_method(PyObject *game, PyObject *unused) {
    (void)unused;
    return game_legal_actions(NULL, game);
}

static PyObject *is_over_get(PyObject *game, void *closure) {
    (void)closure;
    long long phase;
    if (check_game(game) || get_long(game, S_PHASE, &phase)) return NULL;
    return PyBool_FromLong(phase == WK_OVER);
}

static PyMethodDef apply_def = {
    "apply", (PyCFunction)(void (*)(void))apply_method, METH_FASTCALL | METH_KEYWORDS,
    "apply($self, action)\n--\n\nApply ``action`` for :attr:`current_player` (the compiled "
    "core's Game.apply; Game._apply_py is its Python definition). An illegal action raises "
    "IllegalActionError and leaves the game unchanged."};
static PyMethodDef legal_actions_def = {
    "legal_actions", legal_actions_method, METH_NOARGS,
    "legal_actions($self, /)\n--\n\nLegal action ids of :attr:`current_player`, ascending "
    "(empty once over)."};
static PyGetSetDef is_over_def = {"is_over", is_over_get, NULL,
                                  "Whether the match is over.", NULL};

/* game_methods() -> (apply, legal_actions, is_over): descriptors of configure_game's Game
 * (methods and a property as fast as a C type's), for rules.py to set on the class */
static PyObject *game_methods(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    if (wk_game_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure_game() was not called");
        return NULL;
    }
    return Py_BuildValue("(NNN)", PyDescr_NewMethod(wk_game_type, &apply_def),
                         PyDescr_NewMethod(wk_game_type, &legal_actions_def),
                         PyDescr_NewGetSet(wk_game_type, &is_over_def));
}

/* configure_game(Game, HandResult, RESULT_FIELDS): the offsets of Game's slots and of
 * HandResult's */
static PyObject *configure_game(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *type, *result_type, *result_fields;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &type, &PyType_Type, &result_type,
                          &PyTuple_Type, &result_fields))
        return NULL;
    Py_CLEAR(wk_game_type);
    for (int k = 0; k < N_SLOTS; k++) {
        PyObject *descr = PyObject_GetAttrString(type, wk_slot_name[k]);  /* inherited too */
        PyErr_Clear();
        wk_slot_offset[k] = wk_member_offset(descr);
        Py_XDECREF(descr);
        if (wk_slot_offset[k] < 0) {
            PyErr_Format(PyExc_ValueError, "configure_game: Game has no slot %s",
                         wk_slot_name[k]);
            return NULL;
        }
    }
    if ((s_reject == NULL && (s_reject = PyUnicode_InternFromString("_reject")) == NULL)
        || (s_apply_py == NULL && (s_apply_py = PyUnicode_InternFromString("_apply_py")) == NULL))
        return NULL;
    if (wk_scalar_hand_init() || wk_configure_result(result_type, result_fields)) return NULL;
    Py_INCREF(type);
    wk_game_type = (PyTypeObject *)type;
    Py_RETURN_NONE;
}

PyMethodDef wk_scalar_methods[] = {
    {"configure_game", configure_game, METH_VARARGS,
     "configure_game(Game, HandResult, RESULT_FIELDS): the slots the scalar functions "
     "read and write"},
    {"game_legal", game_legal, METH_O, "game_legal(game) -> Game.legal_mask"},
    {"game_encode", (PyCFunction)(void (*)(void))wk_game_encode, METH_FASTCALL,
     "game_encode(game, player, over) -> (obs bytearray of float32, mask bytearray of int8)"},
    {"game_legal_actions", game_legal_actions, METH_O,
     "game_legal_actions(game) -> Game.legal_actions()"},
    {"game_apply", (PyCFunction)(void (*)(void))game_apply, METH_FASTCALL,
     "game_apply(game, action): Game.apply for an int action"},
    {"game_methods", game_methods, METH_NOARGS,
     "game_methods() -> (apply, legal_actions, is_over) for configure_game's Game"},
    {"game_start_hand", (PyCFunction)(void (*)(void))wk_game_start_hand, METH_FASTCALL,
     "game_start_hand(game, deal): Game._start_hand with the hand's deal"},
    {NULL, NULL, 0, NULL},
};
