/* Game's slots for the C functions of the scalar Game (_scalar.c, _scalar_hand.c):
 * rules.Game keeps its state in __slots__ (Python ints and lists); configure_game(Game)
 * finds each slot's offset from the class's member descriptors once, so these functions
 * read and write the slots directly. */
#ifndef WK_SLOTS_H
#define WK_SLOTS_H

#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h>  /* PyLongObject's digits (Python.h includes it from 3.11) */
#endif

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
    X(S_FIRST_DEALER, "first_dealer") X(S_RESULTS, "results") X(S_SEED, "seed")        \
    X(S_INITIAL_SCORES, "initial_scores") X(S_DEALS, "deals")
#define AS_ENUM(id, name) id,
#define AS_NAME(id, name) name,
enum { SLOT_LIST(AS_ENUM) N_SLOTS };
extern const char *const wk_slot_name[N_SLOTS];
extern Py_ssize_t wk_slot_offset[N_SLOTS];   /* configure_game's: Game's slots */
extern PyTypeObject *wk_game_type;           /* NULL until configure_game */

#define SLOT(game, k) (*(PyObject **)((char *)(game) + wk_slot_offset[k]))

/* ---- slots ---------------------------------------------------------------------------- */

/* The offset of the object slot that descr (a class's attribute, or NULL) describes, or -1
 * where it is no such member descriptor: how configure_game (Game's, HandResult's) and
 * configure_aec (Episode's game) find the slots they read directly */
static inline Py_ssize_t wk_member_offset(PyObject *descr) {
    if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type)) return -1;
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    return m->type == T_OBJECT_EX ? m->offset : -1;
}

/* An int's value as PyLong_AsLongLongAndOverflow gives it (-1 with *overflow set, or with
 * the error set), ints of one digit (and of two before 3.12) read in line: a Game's slots
 * hold small ints and card sets of up to 36 bits, read at every decision. */
static inline long long wk_as_ll(PyObject *v, int *overflow) {
    *overflow = 0;
#if PY_VERSION_HEX >= 0x030C0000
    if (PyLong_CheckExact(v) && PyUnstable_Long_IsCompact((PyLongObject *)v))
        return (long long)PyUnstable_Long_CompactValue((PyLongObject *)v);
#else
    if (PyLong_CheckExact(v)) {
        Py_ssize_t size = Py_SIZE(v);
        const digit *d = ((PyLongObject *)v)->ob_digit;
        if (size == 0) return 0;
        if (size == 1 || size == -1) return size * (long long)d[0];
        if (size == 2) return (long long)d[0] | (long long)d[1] << PyLong_SHIFT;
    }
#endif
    return PyLong_AsLongLongAndOverflow(v, overflow);
}


static inline int get_long(PyObject *game, int k, long long *out) {
    PyObject *v = SLOT(game, k);
    if (v == NULL || !PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "Game.%s must be an int", wk_slot_name[k]);
        return -1;
    }
    int overflow = 0;  /* as PyLong_AsLongLong, without its byte array for two-digit ints */
    *out = wk_as_ll(v, &overflow);
    if (overflow) PyErr_Format(PyExc_OverflowError, "Game.%s is out of range", wk_slot_name[k]);
    return overflow || (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static inline int set_long(PyObject *game, int k, long long value) {
    PyObject *v = PyLong_FromLongLong(value);
    if (v == NULL) return -1;
    PyObject *old = SLOT(game, k);
    SLOT(game, k) = v;
    Py_XDECREF(old);
    return 0;
}

/* game.<k> as a list of `size` items */
static inline PyObject *get_list(PyObject *game, int k, Py_ssize_t size) {
    PyObject *v = SLOT(game, k);
    if (v == NULL || !PyList_Check(v) || PyList_GET_SIZE(v) != size) {
        PyErr_Format(PyExc_TypeError, "Game.%s must be a list of %zd", wk_slot_name[k], size);
        return NULL;
    }
    return v;
}

/* a non-negative int below 2**63 (card and action sets); PyLong_AsLongLongAndOverflow
 * reads ints of two 30-bit digits directly, where PyLong_AsUnsignedLongLong and
 * PyLong_AsLongLong go through a byte array */
static inline int as_u63(PyObject *v, uint64_t *out) {
    int overflow = 0;
    long long x = PyLong_Check(v) ? wk_as_ll(v, &overflow) : -1;
    if (!PyLong_Check(v) || (x == -1 && PyErr_Occurred())) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "an integer is required");
        return -1;
    }
    if (overflow || x < 0) {
        PyErr_SetString(PyExc_OverflowError, "a card set must be an int in 0..2**63-1");
        return -1;
    }
    *out = (uint64_t)x;
    return 0;
}

static inline int item_u64(PyObject *list, Py_ssize_t i, uint64_t *out) {
    return as_u63(PyList_GET_ITEM(list, i), out);
}

static inline int item_long(PyObject *list, Py_ssize_t i, long long *out) {
    PyObject *v = PyList_GET_ITEM(list, i);
    int overflow = 0;
    *out = PyLong_Check(v) ? wk_as_ll(v, &overflow) : PyLong_AsLongLong(v);
    if (overflow) *out = PyLong_AsLongLong(v);  /* raises its OverflowError */
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static inline int set_item_u64(PyObject *list, Py_ssize_t i, uint64_t value) {
    PyObject *v = PyLong_FromUnsignedLongLong(value);
    return v == NULL ? -1 : PyList_SetItem(list, i, v);
}

static inline int set_item_long(PyObject *list, Py_ssize_t i, long long value) {
    PyObject *v = PyLong_FromLongLong(value);
    return v == NULL ? -1 : PyList_SetItem(list, i, v);
}

static inline int check_game(PyObject *game) {
    if (wk_game_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_speedups.configure_game() was not called");
        return -1;
    }
    if (!PyObject_TypeCheck(game, wk_game_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a widderkopf_env.rules.Game");
        return -1;
    }
    return 0;
}

/* game.<k> = v (a new reference, stolen; NULL: the error is set) */
static inline int set_slot(PyObject *game, int k, PyObject *v) {
    if (v == NULL) return -1;
    PyObject *old = SLOT(game, k);
    SLOT(game, k) = v;
    Py_XDECREF(old);
    return 0;
}

/* _scalar.c: the legal set of the player to act (Game.legal_mask, not cached) */
int wk_game_legal_of(PyObject *game, uint64_t *out);
/* _scalar.c: Game.apply for an exact int action (IllegalActionError where not legal) */
PyObject *wk_game_apply_int(PyObject *game, PyObject *action);
/* _scalar_hand.c: a new hand's deal, the observation; its interned names and tables */
PyObject *wk_game_start_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *wk_game_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int wk_scalar_hand_init(void);
/* _scalar_hand.c: a variant's tricks per hand (read once per variant; 0, or -1 with the
 * error set), Game._finish_hand, and configure_game's HandResult for it */
int wk_variant_tricks(PyObject *variant, long long *n);
int wk_game_finish_hand(PyObject *game);
int wk_configure_result(PyObject *type, PyObject *names);

#endif
