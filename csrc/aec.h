/* The AEC env's compiled methods, shared by _aec.c (last(), step()), _aec_end.c (the end of
 * a hand and of an episode) and _aec_start.c (reset(), agent_iter()). */
#ifndef WK_AEC_H
#define WK_AEC_H

#include <Python.h>

/* The names the AEC env's C code reads and writes (attributes, dict keys), interned once
 * by wk_aec_names_init: wk_n.<id>. */
#define WK_AEC_NAMES(X) \
    X(episode, "_episode") X(agent_selection, "agent_selection") \
    X(terminations, "terminations") X(truncations, "truncations") X(over, "_over") \
    X(cumulative, "_cumulative_rewards") X(infos, "infos") X(game, "game") \
    X(c_obs, "_c_obs") X(c_step, "_c_step") X(has_updated, "_has_updated") \
    X(dirty, "_dirty") X(clean, "_clean") X(step_py, "_step_py") X(last_py, "_last_py") \
    X(reset_py, "_reset_py") X(render_mode, "render_mode") X(observation, "observation") \
    X(action_mask, "action_mask") X(agents, "agents") X(recent, "_recent_obs") \
    X(settled, "_settled") X(rewards, "rewards") X(skip, "_skip_agent_selection") \
    X(hands, "_hands") X(episode_over, "over") X(value, "value") X(winner, "winner") \
    X(np_random, "np_random") X(num_hands, "num_hands") X(settings, "settings") \
    X(variant, "variant") X(integers, "integers")
#define WK_AEC_FIELD(id, text) PyObject *id;
typedef struct { WK_AEC_NAMES(WK_AEC_FIELD) } wk_aec_names;
#undef WK_AEC_FIELD
extern wk_aec_names wk_n;
extern PyObject *wk_zero, *wk_int_zero;  /* 0.0 and 0 */
int wk_aec_names_init(void);

extern PyObject *wk_seats[2];      /* configure_aec's SEATS */
extern PyTypeObject *wk_env_type;  /* configure_aec's raw_env */
extern PyTypeObject *wk_episode_type;  /* configure_aec's Episode */
extern Py_ssize_t wk_episode_game_at;  /* where an Episode keeps its slot game */

/* The env's attributes are read and written in its instance dict (they are plain
 * attributes: raw_env and PettingZoo's AECEnv define no descriptor for them); a name
 * missing there sends the call to Python, which raises what it should. */
static inline PyObject *wk_attr(PyObject *d, PyObject *name) {  /* borrowed, NULL: missing */
    return PyDict_GetItemWithError(d, name);
}

/* a new dict {SEATS[0]: a, SEATS[1]: b} (NULL with the error set) */
static inline PyObject *wk_pair(PyObject *a, PyObject *b) {
    PyObject *d = PyDict_New();
    if (d != NULL && (PyDict_SetItem(d, wk_seats[0], a) || PyDict_SetItem(d, wk_seats[1], b)))
        Py_CLEAR(d);
    return d;
}

/* episode.game, a new reference (NULL with the error set), read from its slot where it is
 * an Episode */
static inline PyObject *wk_episode_game(PyObject *episode) {
    if (Py_TYPE(episode) == wk_episode_type) {
        PyObject *game = *(PyObject **)((char *)episode + wk_episode_game_at);
        if (game != NULL) return Py_NewRef(game);
    }
    return PyObject_GetAttr(episode, wk_n.game);
}

/* 0 or 1 for SEATS' names, else -1 with a KeyError (as aec_env._INDEX[agent]) */
static inline int wk_seat_of(PyObject *agent) {
    for (int k = 0; k < 2; k++) {
        if (agent == wk_seats[k]) return k;
        int eq = PyObject_RichCompareBool(agent, wk_seats[k], Py_EQ);
        if (eq != 0) return eq < 0 ? -1 : k;
    }
    PyErr_SetObject(PyExc_KeyError, agent);
    return -1;
}

/* d: the env's instance dict (where raw_env keeps its attributes). step(None) of the
 * terminated agent to act: 0 done, -1 error, 1 not the common form (Python runs). */
int wk_dead_step(PyObject *env, PyObject *d);
/* The rest of step() once the action just applied to game ended a hand: Py_None, or NULL
 * with the error set. */
PyObject *wk_hand_end(PyObject *env, PyObject *d, PyObject *episode, PyObject *game,
                      PyObject *agent);
/* _aec_start.c: reset() (a method definition, for configure_aec) and agent_iter(); the
 * parts of reset, (Episode, seeded_dealer, seeded_variant_deal, MAX_HANDS) */
extern PyMethodDef wk_reset_def;
PyObject *wk_agent_iter(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int wk_aec_start_configure(PyObject *parts);
int wk_aec_start_init(void);
/* configure_aec's: HandResult's field names (the keys of a hand's info dict) */
int wk_aec_end_configure(PyObject *result_fields);

#endif
