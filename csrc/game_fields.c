/* The Game's fields (game.c's type GameState): a getter each, read-only. Ints and card
 * sets come back as Python ints, pairs and piles as new lists, the tricks as a new list of
 * (leader, led, other, winner); history, results and deals are the game's own lists.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "game.h"

enum { F_SEED, F_NUM_HANDS, F_FIRST_DEALER, F_INITIAL_SCORES, F_SCORES, F_HAND_NO, F_RESULTS,
       F_DEALS, F_HISTORY, F_HAND_START, F_DEALER, F_PHASE, F_CURRENT, F_TRUMP, F_CHOOSER,
       F_HAND, F_UP, F_DOWN, F_UPBITS, F_COVERED, F_DISCARD, F_WON, F_TRICK_POINTS,
       F_PLAYED, F_LEAD, F_LEAD_PILE, F_LEADER, F_TRICKS, F_LEVEL, F_CRACKER, F_RECRACKER,
       F_VARIANT, F_LEGAL_MASK, F_IS_OVER };

static PyObject *pair_u64(const uint64_t v[2]) {
    return Py_BuildValue("[KK]", (unsigned long long)v[0], (unsigned long long)v[1]);
}

static PyObject *pair_i64(const int64_t v[2]) {
    return Py_BuildValue("[LL]", (long long)v[0], (long long)v[1]);
}

static PyObject *piles(const int64_t v[2 * WK_PILES]) {
    PyObject *out = PyList_New(2 * WK_PILES);
    for (Py_ssize_t k = 0; out != NULL && k < 2 * WK_PILES; k++) {
        PyObject *x = PyLong_FromLongLong(v[k]);
        if (x == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, k, x);
    }
    return out;
}

static PyObject *tricks(const wk_row *s) {
    PyObject *out = PyList_New(s->ntricks);
    for (Py_ssize_t t = 0; out != NULL && t < s->ntricks; t++) {
        const int64_t *r = s->tricks + 4 * t;
        PyObject *x = Py_BuildValue("(LLLL)", (long long)r[0], (long long)r[1],
                                    (long long)r[2], (long long)r[3]);
        if (x == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, t, x);
    }
    return out;
}

static PyObject *game_get(PyObject *self, void *closure) {
    wk_game *g = (wk_game *)self;
    const wk_row *s = &g->s;
    if (wk_game_ready(g)) return NULL;
    switch ((int)(intptr_t)closure) {
    case F_SEED: return Py_NewRef(g->seed);
    case F_NUM_HANDS: return PyLong_FromLongLong(s->num_hands);
    case F_FIRST_DEALER: return PyLong_FromLongLong(s->first_dealer);
    case F_INITIAL_SCORES:
        return Py_BuildValue("(LL)", (long long)s->initial_scores[0],
                             (long long)s->initial_scores[1]);
    case F_SCORES: return pair_i64(s->scores);
    case F_HAND_NO: return PyLong_FromLongLong(s->hand_no);
    case F_RESULTS: return Py_NewRef(g->results);
    case F_DEALS: return Py_NewRef(g->deals);
    case F_HISTORY: return Py_NewRef(g->history);
    case F_HAND_START: return PyLong_FromLongLong(s->hand_start);
    case F_DEALER: return PyLong_FromLongLong(s->dealer);
    case F_PHASE: return PyLong_FromLongLong(s->phase);
    case F_CURRENT: return s->current < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(s->current);
    case F_TRUMP: return PyLong_FromLongLong(s->trump);
    case F_CHOOSER: return PyLong_FromLongLong(s->chooser);
    case F_HAND: return pair_u64(s->hand);
    case F_UP: return piles(s->up);
    case F_DOWN: return piles(s->down);
    case F_UPBITS: return pair_u64(s->upbits);
    case F_COVERED: return pair_u64(s->covered);
    case F_DISCARD: return pair_i64(s->discard);
    case F_WON: return pair_u64(s->won);
    case F_TRICK_POINTS: return pair_i64(s->trick_points);
    case F_PLAYED: return pair_u64(s->played);
    case F_LEAD: return PyLong_FromLongLong(s->lead);
    case F_LEAD_PILE: return PyLong_FromLongLong(s->lead_pile);
    case F_LEADER: return PyLong_FromLongLong(s->leader);
    case F_TRICKS: return tricks(s);
    case F_LEVEL: return PyLong_FromLongLong(s->level);
    case F_CRACKER: return PyLong_FromLongLong(s->cracker);
    case F_RECRACKER: return PyLong_FromLongLong(s->recracker);
    case F_VARIANT: return Py_NewRef(g->variant);
    case F_LEGAL_MASK: return PyLong_FromUnsignedLongLong(s->legal);
    default: return PyBool_FromLong(s->phase == WK_OVER);
    }
}

#define FIELD(name, id, doc) {name, game_get, NULL, doc, (void *)(intptr_t)(id)}
PyGetSetDef wk_game_getset[] = {
    FIELD("seed", F_SEED, "the seed later hands are dealt from"),
    FIELD("num_hands", F_NUM_HANDS, "hands in the match (more while tied, R20)"),
    FIELD("first_dealer", F_FIRST_DEALER, "the first hand's dealer"),
    FIELD("initial_scores", F_INITIAL_SCORES, "match scores before the first hand"),
    FIELD("scores", F_SCORES, "match scores (a new list)"),
    FIELD("hand_no", F_HAND_NO, "the hand being played, from 0"),
    FIELD("results", F_RESULTS, "a HandResult per finished hand (the game's own list)"),
    FIELD("deals", F_DEALS, "the deal of every hand so far (the game's own list)"),
    FIELD("history", F_HISTORY, "every action of the match (the game's own list)"),
    FIELD("hand_start", F_HAND_START, "len(history) when this hand began"),
    FIELD("dealer", F_DEALER, "this hand's dealer"),
    FIELD("phase", F_PHASE, "what the player to act decides (Phase)"),
    FIELD("current", F_CURRENT, "the player to act, None once over"),
    FIELD("trump", F_TRUMP, "the trump suit, -1 until named"),
    FIELD("chooser", F_CHOOSER, "the player who names trumps"),
    FIELD("hand", F_HAND, "each player's hand (card bit sets, a new list)"),
    FIELD("up", F_UP, "the face-up card of pile 5p+i or -1 (a new list)"),
    FIELD("down", F_DOWN, "the face-down card of pile 5p+i or -1 (a new list)"),
    FIELD("upbits", F_UPBITS, "each player's face-up cards (bit sets, a new list)"),
    FIELD("covered", F_COVERED, "face-up cards lying on a face-down card (a new list)"),
    FIELD("discard", F_DISCARD, "each player's discard or -1 (a new list)"),
    FIELD("won", F_WON, "each player's captured cards (bit sets, a new list)"),
    FIELD("trick_points", F_TRICK_POINTS, "points taken in tricks (a new list)"),
    FIELD("played", F_PLAYED, "each player's played cards (bit sets, a new list)"),
    FIELD("lead", F_LEAD, "the card led in the open trick or -1"),
    FIELD("lead_pile", F_LEAD_PILE, "the pile the lead came from or -1"),
    FIELD("leader", F_LEADER, "the player who leads the trick"),
    FIELD("tricks", F_TRICKS, "(leader, led, other, winner) per trick (a new list)"),
    FIELD("level", F_LEVEL, "the crack level 0..4"),
    FIELD("cracker", F_CRACKER, "the player who cracked or -1"),
    FIELD("recracker", F_RECRACKER, "the player who re-cracked or -1"),
    FIELD("variant", F_VARIANT, "the Variant played"),
    FIELD("legal_mask", F_LEGAL_MASK,
          "The legal actions as a 42-bit int (bit ``a`` set when action ``a`` is legal)."),
    FIELD("is_over", F_IS_OVER, "Whether the match is over."),
    FIELD("current_player", F_CURRENT, "The player to act (0 or 1), or None once the match "
          "is over."),
    {NULL, NULL, NULL, NULL, NULL},
};
