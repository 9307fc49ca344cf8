/* The scalar Game's hot paths in C: the legal set and apply() of rules.Game.
 *
 * rules.Game keeps its state in __slots__ (Python ints and lists); configure_game(Game,
 * names) finds each slot's offset from the class's member descriptors once, so these
 * functions read and write the slots directly, with _core.h's tables (configure_rules).
 * They do what Game._LEGAL and Game._APPLY do, phase by phase; the rare steps stay in
 * Python and are called from here: the error of an illegal action (Game._reject, before
 * anything changes) and the end of a hand (Game._finish_hand). rules.py uses them where
 * the accelerator is loaded; tests/core/test_core_game.py compares both at every
 * decision.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>

#include "_core.h"

const wk_rules *wk_get_rules(void);
const wk_layout *wk_get_layout(void);
PyObject *wk_encode_by_attrs(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#define SLOT_LIST(X)                                                                     \
    X(S_PHASE, "phase") X(S_CURRENT, "current") X(S_TRUMP, "trump") X(S_DEALER, "dealer") \
    X(S_HAND, "hand") X(S_UP, "up") X(S_DOWN, "down") X(S_UPBITS, "upbits")              \
    X(S_COVERED, "covered") X(S_DISCARD, "discard") X(S_WON, "won")                      \
    X(S_TRICK_POINTS, "trick_points") X(S_PLAYED, "played") X(S_LEAD, "lead")            \
    X(S_LEAD_PILE, "lead_pile") X(S_LEADER, "leader") X(S_TRICKS, "tricks")              \
    X(S_LEVEL, "level") X(S_CRACKER, "cracker") X(S_RECRACKER, "recracker")              \
    X(S_LEGAL, "_legal") X(S_HISTORY, "history") X(S_VARIANT, "variant")                \
    X(S_CHOOSER, "chooser") X(S_SCORES, "scores") X(S_HAND_NO, "hand_no")                \
    X(S_NUM_HANDS, "num_hands") X(S_HAND_START, "hand_start")                            \
    X(S_FIRST_DEALER, "first_dealer")
#define AS_ENUM(id, name) id,
#define AS_NAME(id, name) name,
enum { SLOT_LIST(AS_ENUM) N_SLOTS };
static const char *const slot_name[N_SLOTS] = { SLOT_LIST(AS_NAME) };
static Py_ssize_t slot_offset[N_SLOTS];
static PyTypeObject *game_type = NULL;
static PyObject *s_reject, *s_finish_hand, *s_tricks, *s_deck;

#define SLOT(game, k) (*(PyObject **)((char *)(game) + slot_offset[k]))

/* ---- slots ---------------------------------------------------------------------------- */

static int get_long(PyObject *game, int k, long long *out) {
    PyObject *v = SLOT(game, k);
    if (v == NULL || !PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "Game.%s must be an int", slot_name[k]);
        return -1;
    }
    *out = PyLong_AsLongLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int set_long(PyObject *game, int k, long long value) {
    PyObject *v = PyLong_FromLongLong(value);
    if (v == NULL) return -1;
    PyObject *old = SLOT(game, k);
    SLOT(game, k) = v;
    Py_XDECREF(old);
    return 0;
}

/* game.<k> as a list of `size` items */
static PyObject *get_list(PyObject *game, int k, Py_ssize_t size) {
    PyObject *v = SLOT(game, k);
    if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != size) {
        PyErr_Format(PyExc_TypeError, "Game.%s must be a list of %zd", slot_name[k], size);
        return NULL;
    }
    return v;
}

static int item_u64(PyObject *list, Py_ssize_t i, uint64_t *out) {
    *out = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(list, i));
    return (*out == (uint64_t)-1 && PyErr_Occurred()) ? -1 : 0;
}

static int item_long(PyObject *list, Py_ssize_t i, long long *out) {
    *out = PyLong_AsLongLong(PyList_GET_ITEM(list, i));
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int set_item_u64(PyObject *list, Py_ssize_t i, uint64_t value) {
    PyObject *v = PyLong_FromUnsignedLongLong(value);
    return v == NULL ? -1 : PyList_SetItem(list, i, v);
}

static int set_item_long(PyObject *list, Py_ssize_t i, long long value) {
    PyObject *v = PyLong_FromLongLong(value);
    return v == NULL ? -1 : PyList_SetItem(list, i, v);
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
static int legal_of(PyObject *game, uint64_t *out) {
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

static int check_game(PyObject *game) {
    if (game_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure_game() was not called");
        return -1;
    }
    if (!PyObject_TypeCheck(game, game_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a widderkopf_env.rules.Game");
        return -1;
    }
    return 0;
}

/* legal_mask(game) -> int: Game.legal_mask, cached in game._legal */
static PyObject *game_legal(PyObject *self, PyObject *game) {
    (void)self;
    long long cached;
    uint64_t m;
    if (check_game(game) || get_long(game, S_LEGAL, &cached)) return NULL;
    if (cached >= 0) return PyLong_FromLongLong(cached);
    if (legal_of(game, &m) || set_long(game, S_LEGAL, (long long)m)) return NULL;
    return PyLong_FromUnsignedLongLong(m);
}

/* legal_actions(game) -> list: Game.legal_actions, the mask cached in game._legal */
static PyObject *game_legal_actions(PyObject *self, PyObject *game) {
    (void)self;
    long long cached;
    uint64_t m;
    if (check_game(game) || get_long(game, S_LEGAL, &cached)) return NULL;
    if (cached >= 0) m = (uint64_t)cached;
    else if (legal_of(game, &m) || set_long(game, S_LEGAL, (long long)m)) return NULL;
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
    if (won == NULL || points == NULL || tricks == NULL || !PyList_Check(tricks)
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
    PyObject *variant = SLOT(game, S_VARIANT), *n_obj;
    if (variant == NULL || (n_obj = PyObject_GetAttr(variant, s_tricks)) == NULL) return -1;
    long long n = PyLong_AsLongLong(n_obj);
    Py_DECREF(n_obj);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (PyList_GET_SIZE(tricks) == n) {
        PyObject *done = PyObject_CallMethodNoArgs(game, s_finish_hand);
        Py_XDECREF(done);
        return done == NULL ? -1 : 0;
    }
    return set_long(game, S_CURRENT, winner) || set_long(game, S_LEADER, winner) ? -1 : 0;
}

/* apply(game, action): Game.apply for an int action */
static PyObject *game_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "game_apply(game, action) takes 2 arguments");
        return NULL;
    }
    PyObject *game = args[0];
    long long a = PyLong_AsLongLong(args[1]), cached, phase, p = -1, dealer;
    uint64_t m;
    if (a == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
        PyErr_Clear();
        a = WK_ACTIONS;  /* out of range: rejected below, named as given */
    }
    if (check_game(game) || get_long(game, S_LEGAL, &cached) || get_long(game, S_PHASE, &phase))
        return NULL;
    if (cached >= 0) m = (uint64_t)cached;
    else if (legal_of(game, &m) || set_long(game, S_LEGAL, (long long)m)) return NULL;
    if (a < 0 || a >= WK_ACTIONS || !((m >> a) & 1)) {  /* Game._reject raises */
        PyObject *r = PyObject_CallMethod(game, "_reject", "OK", args[1], (unsigned long long)m);
        Py_XDECREF(r);
        if (r != NULL) PyErr_SetString(PyExc_RuntimeError, "Game._reject did not raise");
        return NULL;
    }
    PyObject *history = SLOT(game, S_HISTORY);
    if (history == NULL || !PyList_Check(history) || set_long(game, S_LEGAL, -1)
        || PyList_Append(history, args[1]) || get_long(game, S_DEALER, &dealer))
        return NULL;
    if (phase != WK_TRUMP && get_long(game, S_CURRENT, &p)) return NULL;
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
    if (err) return NULL;
    Py_RETURN_NONE;
}

/* game.<k> = v (a new reference, stolen; NULL: the error is set) */
static int set_slot(PyObject *game, int k, PyObject *v) {
    if (v == NULL) return -1;
    PyObject *old = SLOT(game, k);
    SLOT(game, k) = v;
    Py_XDECREF(old);
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
static PyObject *game_start_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
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

/* game_encode(game, player, over) -> (obs bytearray of float32, mask bytearray of int8):
 * _speedups.encode for a Game, its fields read from the slots and written by _core.h's
 * wk_encode (a one-game batch); any other object goes to _speedups.encode */
static PyObject *game_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || game_type == NULL || !PyObject_TypeCheck(args[0], game_type)
        || wk_get_layout() == NULL)
        return wk_encode_by_attrs(self, args, nargs);
    PyObject *game = args[0];
    long long p, legal_cached;
    int over;
    if (wk_player_over(args[1], args[2], &p, &over)) return NULL;
    /* game as a batch of one */
    uint64_t hand[2], upbits[2], covered[2], played[2], won[2], legal = 0, deck;
    int64_t discard[2], trick_points[2], scores[2], phase, current, trump, dealer, chooser,
        leader, lead, lead_pile, level, cracker, hand_no, num_hands, ntricks, hlen = 0,
        up[10], down[10];
    long long v;
    struct { int slot; int64_t *out; } longs[] = {
        {S_PHASE, &phase}, {S_TRUMP, &trump}, {S_DEALER, &dealer}, {S_CHOOSER, &chooser},
        {S_LEADER, &leader}, {S_LEAD, &lead}, {S_LEAD_PILE, &lead_pile}, {S_LEVEL, &level},
        {S_CRACKER, &cracker}, {S_HAND_NO, &hand_no}, {S_NUM_HANDS, &num_hands}};
    for (size_t k = 0; k < sizeof(longs) / sizeof(longs[0]); k++) {
        if (get_long(game, longs[k].slot, &v)) return NULL;
        *longs[k].out = v;
    }
    PyObject *cur = SLOT(game, S_CURRENT);
    if (cur == NULL) return wk_encode_by_attrs(self, args, nargs);
    current = -1;
    if (cur != Py_None && (current = PyLong_AsLongLong(cur)) == -1 && PyErr_Occurred())
        return NULL;
    struct { int slot; uint64_t *out; } sets[] = {
        {S_HAND, hand}, {S_UPBITS, upbits}, {S_COVERED, covered}, {S_PLAYED, played},
        {S_WON, won}};
    for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
        PyObject *list = get_list(game, sets[k].slot, 2);
        if (list == NULL || item_u64(list, 0, &sets[k].out[0])
            || item_u64(list, 1, &sets[k].out[1]))
            return NULL;
    }
    struct { int slot; int64_t *out; } pairs[] = {
        {S_DISCARD, discard}, {S_TRICK_POINTS, trick_points}, {S_SCORES, scores}};
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
    deck = PyLong_AsUnsignedLongLong(deck_obj);
    Py_DECREF(deck_obj);
    if (deck == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    ntricks = PyList_GET_SIZE(tricks);
    if (current == p && !over) {
        if (get_long(game, S_LEGAL, &legal_cached)) return NULL;
        if (legal_cached >= 0) legal = (uint64_t)legal_cached;
        else if (legal_of(game, &legal) || set_long(game, S_LEGAL, (long long)legal))
            return NULL;
    }
    for (int k = 0; k < 10; k++) up[k] = down[k] = -1;  /* not read by the encoder */
    wk_batch b;
    memset(&b, 0, sizeof(b));
    b.n = 1;
    b.hand = hand; b.upbits = upbits; b.covered = covered; b.played = played; b.won = won;
    b.discard = discard; b.trick_points = trick_points; b.scores = scores;
    b.phase = &phase; b.current = &current; b.trump = &trump; b.dealer = &dealer;
    b.chooser = &chooser; b.leader = &leader; b.lead = &lead; b.lead_pile = &lead_pile;
    b.level = &level; b.cracker = &cracker; b.hand_no = &hand_no; b.num_hands = &num_hands;
    b.ntricks = &ntricks; b.legal = &legal; b.hlen = &hlen; b.up = up; b.down = down;
    b.ntricks_per_hand = ntricks + 1;
    b.deck = deck;
    for (int t = 0; t < 4; t++) b.trump_mask[t] = wk_get_rules()->trump_mask[t] & deck;
    if (!wk_state_ok(&b, 0)) {
        PyErr_SetString(PyExc_ValueError, "game state out of range");
        return NULL;
    }
    const wk_layout *L = wk_get_layout();
    PyObject *obs = PyByteArray_FromStringAndSize(NULL, L->size * (Py_ssize_t)sizeof(float));
    if (obs == NULL) return NULL;
    PyObject *mask = PyByteArray_FromStringAndSize(NULL, WK_ACTIONS);
    if (mask == NULL) {
        Py_DECREF(obs);
        return NULL;
    }
    wk_encode(wk_get_rules(), L, &b, 0, p, over, (float *)PyByteArray_AS_STRING(obs), NULL,
              (int8_t *)PyByteArray_AS_STRING(mask));
    PyObject *result = PyTuple_Pack(2, obs, mask);
    Py_DECREF(obs);
    Py_DECREF(mask);
    return result;
}

/* configure_game(Game, names): the offsets of Game's slots */
static PyObject *configure_game(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *type;
    if (!PyArg_ParseTuple(args, "O!", &PyType_Type, &type)) return NULL;
    Py_CLEAR(game_type);
    wk_init_tables();  /* this file's copy of _core.h's byte tables */
    for (int k = 0; k < N_SLOTS; k++) {
        PyObject *descr = PyDict_GetItemString(((PyTypeObject *)type)->tp_dict, slot_name[k]);
        if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX) {
            PyErr_Format(PyExc_ValueError, "configure_game: Game has no slot %s",
                         slot_name[k]);
            return NULL;
        }
        slot_offset[k] = ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    if ((s_reject == NULL && (s_reject = PyUnicode_InternFromString("_reject")) == NULL)
        || (s_finish_hand == NULL
            && (s_finish_hand = PyUnicode_InternFromString("_finish_hand")) == NULL)
        || (s_tricks == NULL && (s_tricks = PyUnicode_InternFromString("tricks")) == NULL)
        || (s_deck == NULL && (s_deck = PyUnicode_InternFromString("deck")) == NULL))
        return NULL;
    Py_INCREF(type);
    game_type = (PyTypeObject *)type;
    Py_RETURN_NONE;
}

PyMethodDef wk_scalar_methods[] = {
    {"configure_game", configure_game, METH_VARARGS,
     "configure_game(Game): the slots the scalar functions read and write"},
    {"game_legal", game_legal, METH_O, "game_legal(game) -> Game.legal_mask"},
    {"game_encode", (PyCFunction)(void (*)(void))game_encode, METH_FASTCALL,
     "game_encode(game, player, over) -> (obs bytearray of float32, mask bytearray of int8)"},
    {"game_legal_actions", game_legal_actions, METH_O,
     "game_legal_actions(game) -> Game.legal_actions()"},
    {"game_apply", (PyCFunction)(void (*)(void))game_apply, METH_FASTCALL,
     "game_apply(game, action): Game.apply for an int action"},
    {"game_start_hand", (PyCFunction)(void (*)(void))game_start_hand, METH_FASTCALL,
     "game_start_hand(game, deal): Game._start_hand with the hand's deal"},
    {NULL, NULL, 0, NULL},
};
