/* The Game as a C type (game.c, game_io.c): one game's state as a one-row batch of
 * core.h, over the object's own memory, so that its moves are core.h's wk_* functions,
 * the ones the vector env calls. Included after <Python.h>.
 */
#ifndef WIDDERKOPF_GAME_H
#define WIDDERKOPF_GAME_H

#include "core.h"

#define WK_MAX_TRICKS 17 /* the tricks of a hand in the largest variant (cards.TRICKS) */

/* The arrays of a wk_batch with n = 1 (its pointers point here) */
typedef struct {
    uint64_t hand[2], upbits[2], covered[2], played[2], won[2], legal;
    int64_t discard[2], trick_points[2], scores[2], initial_scores[2];
    int64_t phase, current, trump, dealer, first_dealer, chooser, leader, lead, lead_pile,
        level, cracker, recracker, hand_no, num_hands, ntricks, hlen;
    int64_t res_count, res_hand, res_dealer, res_trump, res_spitzer, res_winner,
        res_crack_level, res_value;
    int64_t res_card_points[2], res_trick_points[2], res_discards[2], res_scores[2];
    uint8_t res_schneider, res_schwarz;
    int64_t up[2 * WK_PILES], down[2 * WK_PILES], deal_up[2 * WK_PILES], deal_down[2 * WK_PILES];
    int64_t tricks[4 * WK_MAX_TRICKS];
    int8_t history[WK_HISTORY];
    int64_t hand_start; /* the match history's length when this hand began */
} wk_row;

/* A GameState: its row, the batch over it (with the variant's numbers) and the Python
 * objects it owns: the match's history, results and deals (lists), the seed, the
 * Variant and the bytes of its hand values (hv, read by b.hand_value). variant is NULL
 * until the game is set up (_setup or _load). */
typedef struct {
    PyObject_HEAD
    wk_row s;
    wk_batch b;
    PyObject *history, *results, *deals, *seed, *variant, *hv;
} wk_game;

extern PyTypeObject wk_game_type;
extern PyGetSetDef wk_game_getset[]; /* game_fields.c */

const wk_rules *wk_get_rules(void);
const wk_layout *wk_get_layout(void);
/* b's pointers to the row of g (after a copy of the struct) */
void wk_game_bind(wk_game *g);
/* the variant and its numbers (rules.core_numbers's tuple); -1 with the error set */
int wk_game_set_variant(wk_game *g, PyObject *variant, PyObject *numbers);
/* the game is set up: 0, else -1 with a RuntimeError */
static inline int wk_game_ready(const wk_game *g) {
    if (g->variant != NULL) return 0;
    PyErr_SetString(PyExc_RuntimeError, "this Game was not set up: make one with Game.new, "
                    "Game.from_deal or worlds.from_view");
    return -1;
}
/* a deal (two (hand, up, down)) into hand bits and 10 up and 10 down cards (-1: none) */
int wk_read_deal(PyObject *deal, uint64_t hand[2], int64_t up[10], int64_t down[10]);
/* _load(fields, numbers): the state of PyGame._from_fields's fields */
PyObject *wk_game_load(PyObject *self, PyObject *args);
/* encode(player, over, compact) -> (obs, mask) numpy arrays */
PyObject *wk_game_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* game_io.c's byte tables filled (at the module's load) */
void wk_game_init_tables(void);
extern PyMethodDef wk_game_io_methods[]; /* game_io.c: numpy_api */

#endif
