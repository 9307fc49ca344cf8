/* The Widderkopf rules (RULES R1-R20) in C, over the card bit sets of cards.py: the
 * header the C files include. Plain C99, no Python: batch.c and play.c bind it to numpy
 * arrays, game.c to a Game of its own, and the solver includes it for the same tables.
 *
 *   state.h   the constants, the rule tables (wk_rules), a batch of games (wk_batch)
 *   rules.h   the rules over a batch: legal set, play, escalation, hand end and start
 *   encode.h  the observation's layout and its encoder (wk_encode)
 */
#ifndef WIDDERKOPF_CORE_H
#define WIDDERKOPF_CORE_H

#include "state.h"
#include "rules.h"
#include "encode.h"

#endif
