/* The rules in C: the legal set, the play and the pile turn-over, the escalation, the
 * end of a hand and its scoring, the start of a hand and of a match, over a wk_batch
 * (state.h). The Python reference is rules.py's PyGame (docs/procedures.md
 * says which test ties each pair).
 *
 * Every function reads and writes game i only, so games may be stepped from several
 * threads at once when each thread owns its games. Plain C99.
 */
#ifndef WIDDERKOPF_RULES_H
#define WIDDERKOPF_RULES_H

#include "state.h"

/* PyGame._may_escalate (R11) */
static inline int wk_may_escalate(const wk_batch *b, int64_t i, int64_t p) {
    int64_t level = b->level[i];
    if (level >= WK_MAX_LEVEL || b->played[2 * i + p] || b->phase[i] == WK_OVER) return 0;
    if (level == 0) return 1;
    int64_t turn = (level % 2 == 0) ? b->cracker[i] : 1 - b->cracker[i];
    return p == turn;
}

/* PyGame.escalation_rights: nobody may escalate once both have played */
static inline void wk_rights(const wk_batch *b, int64_t i, int out[2]) {
    if (b->played[2 * i] && b->played[2 * i + 1]) {
        out[0] = out[1] = 0;
        return;
    }
    out[0] = wk_may_escalate(b, i, 0);
    out[1] = wk_may_escalate(b, i, 1);
}

/* The legal action bits of the player to act (PyGame._legal_play and its phases) */
static inline void wk_compute_legal(const wk_rules *r, wk_batch *b, int64_t i) {
    int64_t phase = b->phase[i], p = b->current[i];
    uint64_t m = 0;
    if (phase == WK_PLAY) {
        m = b->hand[2 * i + p] | b->upbits[2 * i + p];
        int64_t lead = b->lead[i];
        if (lead >= 0) {
            uint64_t f = m & r->follow[b->trump[i]][lead];
            if (f) m = f;
        }
        if (wk_may_escalate(b, i, p)) m |= UINT64_C(1) << WK_ESCALATE;
    } else if (phase == WK_ANSWER) {
        m = (UINT64_C(1) << WK_ESCALATE) | (UINT64_C(1) << WK_PASS);
    } else if (phase == WK_DISCARD) {
        m = b->hand[2 * i + p];
    } else if (phase == WK_TRUMP) {
        m = UINT64_C(0xF) << WK_TRUMP_ACTION;
    }
    b->legal[i] = m;
}

/* A new hand of game i from its deal (PyGame._start_hand); hand_no, scores and
 * first_dealer are already set. up/down: 10 cards or -1 each. */
static inline void wk_start_hand(const wk_rules *r, wk_batch *b, int64_t i,
                                 uint64_t hand0, uint64_t hand1,
                                 const int64_t *up, const int64_t *down) {
    int64_t dealer = b->first_dealer[i] ^ (b->hand_no[i] & 1);
    int64_t s0 = b->scores[2 * i], s1 = b->scores[2 * i + 1];
    int64_t chooser = s0 != s1 ? (s0 > s1) : 1 - dealer;
    b->dealer[i] = dealer;
    b->chooser[i] = chooser;
    b->phase[i] = WK_TRUMP;
    b->current[i] = chooser;
    b->trump[i] = -1;
    b->hand[2 * i] = hand0;
    b->hand[2 * i + 1] = hand1;
    uint64_t ub[2] = {0, 0};
    for (int k = 0; k < 2 * WK_PILES; k++) {
        b->up[10 * i + k] = b->deal_up[10 * i + k] = up[k];
        b->down[10 * i + k] = b->deal_down[10 * i + k] = down[k];
        if (up[k] >= 0) ub[k / WK_PILES] |= UINT64_C(1) << up[k];
    }
    b->hlen[i] = 0;
    for (int p = 0; p < 2; p++) {
        b->upbits[2 * i + p] = b->covered[2 * i + p] = ub[p];
        b->discard[2 * i + p] = -1;
        b->won[2 * i + p] = b->played[2 * i + p] = 0;
        b->trick_points[2 * i + p] = 0;
    }
    b->lead[i] = b->lead_pile[i] = -1;
    b->leader[i] = 1 - dealer;
    b->ntricks[i] = 0;
    int64_t record = 4 * b->ntricks_per_hand;  /* no tricks yet: every entry -1 (all bits) */
    memset(b->tricks + record * i, 0xff, (size_t)record * sizeof(int64_t));
    b->level[i] = 0;
    b->cracker[i] = b->recracker[i] = -1;
    wk_compute_legal(r, b, i);
}

/* A new match in game i (VecGame.new_matches): no scores, hand 0 from the deal given */
static inline void wk_new_match(const wk_rules *r, wk_batch *b, int64_t i, int64_t first_dealer,
                                int64_t num_hands, const uint64_t hand[2], const int64_t *up,
                                const int64_t *down) {
    b->first_dealer[i] = first_dealer;
    b->num_hands[i] = num_hands;
    for (int p = 0; p < 2; p++) b->scores[2 * i + p] = b->initial_scores[2 * i + p] = 0;
    b->hand_no[i] = 0;
    b->res_count[i] = 0;
    wk_start_hand(r, b, i, hand[0], hand[1], up, down);
}

static inline void wk_raise_level(wk_batch *b, int64_t i, int64_t player) {
    int64_t level = ++b->level[i];
    if (level == 1) b->cracker[i] = player;
    else if (level == 2) b->recracker[i] = player;
}

static inline void wk_turn_over(wk_batch *b, int64_t i, int64_t pile) {
    int64_t card = b->down[10 * i + pile];
    b->down[10 * i + pile] = -1;
    b->up[10 * i + pile] = card;
    b->upbits[2 * i + pile / WK_PILES] |= UINT64_C(1) << card;
}

/* PyGame._finish_hand; returns 1 when the match goes on (a new deal is needed) */
static inline WK_INLINE int wk_finish_hand(const wk_rules *r, wk_batch *b, int64_t i) {
    int64_t t = b->trump[i], d0 = b->discard[2 * i], d1 = b->discard[2 * i + 1];
    int64_t tp0 = b->trick_points[2 * i], tp1 = b->trick_points[2 * i + 1];
    int64_t pts[2] = {tp0 + r->points[d1], tp1 + r->points[d0]};
    int64_t spitzer = -1;
    if (b->has_spitzer) {
        uint64_t pile0 = b->won[2 * i] | (UINT64_C(1) << d1);
        spitzer = ((pile0 >> r->spitzer[t]) & 1) ? 0 : 1;
        pts[spitzer] += 1;
    }
    int64_t winner = pts[0] >= b->win ? 0 : 1, best = pts[winner];
    int64_t value = b->hand_value[b->level[i] * b->hv_stride + best];
    b->scores[2 * i + winner] += value;
    b->res_count[i] += 1;
    b->res_hand[i] = b->hand_no[i];
    b->res_dealer[i] = b->dealer[i];
    b->res_trump[i] = t;
    for (int p = 0; p < 2; p++) {
        b->res_card_points[2 * i + p] = pts[p];
        b->res_trick_points[2 * i + p] = b->trick_points[2 * i + p];
        b->res_discards[2 * i + p] = b->discard[2 * i + p];
        b->res_scores[2 * i + p] = b->scores[2 * i + p];
    }
    b->res_spitzer[i] = spitzer;
    b->res_winner[i] = winner;
    b->res_crack_level[i] = b->level[i];
    b->res_schneider[i] = best >= b->schneider && best < b->total;
    b->res_schwarz[i] = best == b->total;
    b->res_value[i] = value;
    b->hand_no[i] += 1;
    if (b->hand_no[i] >= b->num_hands[i] && b->scores[2 * i] != b->scores[2 * i + 1]) {
        b->phase[i] = WK_OVER;
        b->current[i] = -1;
        return 0;
    }
    return 1;
}

/* Play card c for the player to act (PyGame._apply_play); 1 if a new deal is needed */
static inline WK_INLINE int wk_play(const wk_rules *r, wk_batch *b, int64_t i, int64_t card) {
    int64_t p = b->current[i], pile = -1;
    uint64_t bit = UINT64_C(1) << card;
    if (b->hand[2 * i + p] & bit) {
        b->hand[2 * i + p] ^= bit;
    } else {  /* a face-up card from pile k (R13); what lies under it turns over later */
        b->upbits[2 * i + p] ^= bit;
        int64_t k = 5 * p;
        while (k < 5 * p + 5 && b->up[10 * i + k] != card) k++;
        b->up[10 * i + k] = -1;
        if (b->down[10 * i + k] >= 0) {
            pile = k;
            b->covered[2 * i + p] &= ~bit;
        }
    }
    b->played[2 * i + p] |= bit;
    int64_t lead = b->lead[i];
    if (lead < 0) {
        b->lead[i] = card;
        b->lead_pile[i] = pile;
        b->current[i] = 1 - p;
        return 0;
    }
    int64_t leader = 1 - p;
    int64_t winner = r->beats[b->trump[i]][lead * WK_CARDS + card] ? p : leader;
    b->won[2 * i + winner] |= (UINT64_C(1) << lead) | bit;
    b->trick_points[2 * i + winner] += r->points[lead] + r->points[card];
    int64_t t = b->ntricks[i];
    int64_t *row = b->tricks + (b->ntricks_per_hand * i + t) * 4;
    row[0] = leader;
    row[1] = lead;
    row[2] = card;
    row[3] = winner;
    b->ntricks[i] = t + 1;
    if (b->lead_pile[i] >= 0) wk_turn_over(b, i, b->lead_pile[i]);
    if (pile >= 0) wk_turn_over(b, i, pile);
    b->lead[i] = b->lead_pile[i] = -1;
    if (t + 1 == b->ntricks_per_hand) return wk_finish_hand(r, b, i);
    b->current[i] = b->leader[i] = winner;
    return 0;
}

/* Apply one legal action to game i (PyGame.apply without the check: see wk_is_legal).
 * Returns 1 when a hand ended and the match goes on: the caller deals the next hand
 * (wk_start_hand); legal[i] is then stale until it does. */
static inline WK_INLINE int wk_apply(const wk_rules *r, wk_batch *b, int64_t i, int64_t a) {
    int64_t n = b->hlen[i];
    if (n < WK_HISTORY) b->history[WK_HISTORY * i + n] = (int8_t)a;
    b->hlen[i] = n + 1;
    int need = 0;
    int64_t phase = b->phase[i];
    if (phase == WK_PLAY) {
        if (a < WK_TRUMP_ACTION) {
            need = wk_play(r, b, i, a);
        } else {  /* the due player escalates; the other answers at once if they may */
            int64_t due = b->current[i];
            wk_raise_level(b, i, due);
            if (wk_may_escalate(b, i, 1 - due)) {
                b->phase[i] = WK_ANSWER;
                b->current[i] = 1 - due;
            }
        }
    } else if (phase == WK_ANSWER) {
        if (a == WK_ESCALATE) wk_raise_level(b, i, b->current[i]);
        b->phase[i] = WK_PLAY;
        b->current[i] = 1 - b->current[i];
    } else if (phase == WK_DISCARD) {
        int64_t p = b->current[i];
        b->hand[2 * i + p] ^= UINT64_C(1) << a;
        b->discard[2 * i + p] = a;
        if (p == b->dealer[i]) {
            b->phase[i] = WK_PLAY;
            b->current[i] = 1 - b->dealer[i];
        } else {
            b->current[i] = b->dealer[i];
        }
    } else if (phase == WK_TRUMP) {
        b->trump[i] = a - WK_TRUMP_ACTION;
        b->phase[i] = WK_DISCARD;
        b->current[i] = 1 - b->dealer[i];
    }
    if (b->phase[i] == WK_OVER) b->legal[i] = 0;
    else if (!need) wk_compute_legal(r, b, i);
    return need;
}

/* The reward of the move just made in game i (episode.move_reward, R19): player_0's game
 * points when it ended a hand (hands[i]: the hands paid so far), and with shaping the
 * card-point difference / total as it changes (shaped[i]: the difference paid in this
 * hand) plus, at the hand's end, what is left of the final difference. */
static inline WK_INLINE double wk_settle(const wk_batch *b, int64_t i, int64_t *hands,
                                         int64_t *shaped, int shaping) {
    int ended = b->res_count[i] != hands[i];
    hands[i] = b->res_count[i];
    int64_t value = b->res_value[i];
    double x = ended ? (double)(b->res_winner[i] == 0 ? value : -value) : 0.0;
    if (!shaping) return x;
    double total = (double)b->total;
    int64_t diff = b->trick_points[2 * i] - b->trick_points[2 * i + 1];
    if (ended)
        x += (double)(b->res_card_points[2 * i] - b->res_card_points[2 * i + 1] - shaped[i])
             / total;
    else
        x = (double)(diff - shaped[i]) / total;
    shaped[i] = ended ? 0 : diff;
    return x;
}

/* Whether game i's fields lie in the ranges the functions above index with (a state
 * written by them always does; the bindings refuse one that does not, so that a
 * corrupted array raises an error instead of writing out of bounds). */
static inline int wk_state_ok(const wk_batch *b, int64_t i) {
    int64_t phase = b->phase[i], cur = b->current[i];
    if (phase < WK_TRUMP || phase > WK_OVER || b->trump[i] < -1 || b->trump[i] > 3
        || b->level[i] < 0 || b->level[i] > WK_MAX_LEVEL || b->lead[i] < -1
        || b->lead[i] >= WK_CARDS || b->lead_pile[i] < -1 || b->lead_pile[i] >= 2 * WK_PILES
        || b->ntricks[i] < 0 || b->ntricks[i] >= b->ntricks_per_hand + (phase == WK_OVER)
        || b->hlen[i] < 0 || cur < -1 || cur > 1 || (phase != WK_OVER && cur < 0)
        || (phase >= WK_PLAY && phase != WK_OVER && b->trump[i] < 0)
        || (b->lead[i] >= 0 && b->trump[i] < 0))
        return 0;
    for (int p = 0; p < 2; p++) {
        int64_t d = b->discard[2 * i + p];
        if (d < -1 || d >= WK_CARDS) return 0;
        if (phase == WK_OVER && d < 0) return 0;  /* the hand's end reads both discards */
    }
    for (int k = 0; k < 2 * WK_PILES; k++) {
        int64_t u = b->up[10 * i + k], d = b->down[10 * i + k];
        if (u < -1 || u >= WK_CARDS || d < -1 || d >= WK_CARDS) return 0;
    }
    return 1;
}

static inline int wk_is_legal(const wk_batch *b, int64_t i, int64_t a) {
    return a >= 0 && a < WK_ACTIONS && ((b->legal[i] >> a) & 1);
}

#endif
