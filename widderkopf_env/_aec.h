/* The AEC env's compiled step, shared by _aec.c (last(), step(), agent_iter()) and
 * _aec_end.c (the end of a hand and of an episode). */
#ifndef WK_AEC_H
#define WK_AEC_H

#include <Python.h>

extern PyObject *wk_seats[2];      /* configure_aec's SEATS */
extern PyTypeObject *wk_env_type;  /* configure_aec's raw_env */

/* The env's attributes are read and written in its instance dict (they are plain
 * attributes: raw_env and PettingZoo's AECEnv define no descriptor for them); a name
 * missing there sends the call to Python, which raises what it should. */
static inline PyObject *wk_attr(PyObject *d, PyObject *name) {  /* borrowed, NULL: missing */
    return PyDict_GetItemWithError(d, name);
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
/* configure_aec's: HandResult's field names (the keys of a hand's info dict) */
int wk_aec_end_configure(PyObject *result_fields);
int wk_aec_end_init(void);

#endif
