/* The end of a hand and of an episode in the AEC env's compiled step (_aec.c's
 * aec_step): what raw_env._settled (Episode.settle, then raw_env._moved) and
 * raw_env._dead_step (with PettingZoo's AECEnv._was_dead_step) do in aec_env.py, their
 * reference. Both work on the env's own attributes (its instance dict, plain dicts and
 * lists) and hand anything else to Python with nothing changed;
 * tests/core/test_aec_core.py compares them with the Python forms after every step.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "aec.h"
#include "slots.h"

static PyObject *fields;  /* HandResult's field names */
PyObject *wk_seats[2];
PyTypeObject *wk_env_type;

wk_aec_names wk_n;
PyObject *wk_zero, *wk_int_zero;

int wk_aec_names_init(void) {
#define WK_AEC_INTERN(id, text) \
    if ((wk_n.id = PyUnicode_InternFromString(text)) == NULL) return -1;
    WK_AEC_NAMES(WK_AEC_INTERN)
#undef WK_AEC_INTERN
    if ((wk_int_zero = PyLong_FromLong(0)) == NULL) return -1;
    return (wk_zero = PyFloat_FromDouble(0.0)) == NULL ? -1 : 0;
}

int wk_aec_end_configure(PyObject *result_fields) {
    if (!PyTuple_Check(result_fields)) {
        PyErr_SetString(PyExc_TypeError, "configure_aec: RESULT_FIELDS must be a tuple");
        return -1;
    }
    Py_XSETREF(fields, Py_NewRef(result_fields));
    return 0;
}

/* ---- the end of a hand ------------------------------------------------------------------ */

/* obj.<name> as a C long long; -1 with the error set where it is no int */
static int long_attr(PyObject *obj, PyObject *name, long long *out) {
    PyObject *v = PyObject_GetAttr(obj, name);
    *out = v == NULL ? -1 : PyLong_AsLongLong(v);
    Py_XDECREF(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* d[key] op= x for op + (sign 1) or - (sign -1), as Python's augmented assignment */
static int add_to(PyObject *dict, PyObject *key, PyObject *x, int sign) {
    PyObject *old = PyDict_GetItemWithError(dict, key), *v;
    if (old == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
        return -1;
    }
    v = sign > 0 ? PyNumber_InPlaceAdd(old, x) : PyNumber_InPlaceSubtract(old, x);
    int err = v == NULL || PyDict_SetItem(dict, key, v);
    Py_XDECREF(v);
    return err ? -1 : 0;
}

/* raw_env._pay(x): player_0 gets x, player_1 -x */
static int pay(PyObject *d, double value) {
    PyObject *rewards = wk_attr(d, wk_n.rewards), *cum = wk_attr(d, wk_n.cumulative);
    PyObject *x = PyFloat_FromDouble(value);
    int err = x == NULL || rewards == NULL || cum == NULL
        || add_to(rewards, wk_seats[0], x, 1) || add_to(rewards, wk_seats[1], x, -1)
        || add_to(cum, wk_seats[0], x, 1) || add_to(cum, wk_seats[1], x, -1)
        || PyDict_SetItem(d, wk_n.dirty, Py_True);
    Py_XDECREF(x);
    if (err && !PyErr_Occurred()) PyErr_SetString(PyExc_AttributeError, "rewards");
    return err ? -1 : 0;
}

/* episode.hand_info(result): the result's fields as a new dict */
static PyObject *hand_info(PyObject *result) {
    PyObject *info = PyDict_New();
    for (Py_ssize_t k = 0; info != NULL && k < PyTuple_GET_SIZE(fields); k++) {
        PyObject *name = PyTuple_GET_ITEM(fields, k), *v = PyObject_GetAttr(result, name);
        if (v == NULL || PyDict_SetItem(info, name, v)) Py_CLEAR(info);
        Py_XDECREF(v);
    }
    return info;
}

PyObject *wk_hand_end(PyObject *env, PyObject *d, PyObject *episode, PyObject *game,
                      PyObject *agent) {
    PyObject *results = SLOT(game, S_RESULTS), *cum = wk_attr(d, wk_n.cumulative), *result = NULL;
    PyObject *rewards = cum == NULL ? NULL : wk_attr(d, wk_n.rewards);
    long long hands = -1, value = 0, winner = -1;
    if (fields != NULL && cum != NULL && PyDict_CheckExact(cum) && rewards != NULL
        && PyDict_CheckExact(rewards) && results != NULL
        && PyList_Check(results) && long_attr(episode, wk_n.hands, &hands) == 0 && hands >= 0
        && PyList_GET_SIZE(results) == hands + 1) {
        result = PyList_GET_ITEM(results, hands);
        if (long_attr(result, wk_n.value, &value) || long_attr(result, wk_n.winner, &winner))
            winner = -1;
    }
    if (winner != 0 && winner != 1) {  /* not the common form: Python, nothing changed */
        PyErr_Clear();
        return PyObject_CallMethodOneArg(env, wk_n.settled, agent);
    }
    Py_INCREF(result);
    PyObject *cur = SLOT(game, S_CURRENT), *count = PyLong_FromLongLong(hands + 1);
    PyObject *info = NULL, *other = NULL, *infos = NULL, *r = NULL, *dirty = NULL;
    long long next = -1;
    /* Episode.settle */
    int err = count == NULL || PyObject_SetAttr(episode, wk_n.hands, count)
        || (cur == Py_None && PyObject_SetAttr(episode, wk_n.episode_over, Py_True));
    /* raw_env._moved */
    err = err || PyDict_SetItem(d, wk_n.has_updated, Py_True) || PyDict_SetItem(cum, agent, wk_zero)
        || (dirty = wk_attr(d, wk_n.dirty)) == NULL;
    int clean = err ? 0 : PyObject_IsTrue(dirty);
    if (clean > 0) {
        r = PyObject_CallMethodOneArg(env, wk_n.clean, agent);
        err = r == NULL;
        Py_XDECREF(r);
    }
    err = err || clean < 0 || pay(d, (double)(winner == 0 ? value : -value))
        || (info = hand_info(result)) == NULL || (other = PyDict_Copy(info)) == NULL
        || (infos = wk_pair(info, other)) == NULL || PyDict_SetItem(d, wk_n.infos, infos);
    if (!err && cur != Py_None) {
        next = cur == NULL ? -1 : PyLong_AsLongLong(cur);
        if (next != 0 && next != 1) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError, "step: no player to act after a hand");
            err = 1;
        } else {
            err = PyDict_SetItem(d, wk_n.agent_selection, wk_seats[next]);
        }
    } else if (!err) {  /* the match is over */
        PyObject *flags = wk_pair(Py_True, Py_True);
        int mover = wk_seat_of(agent);
        err = flags == NULL || mover < 0 || PyDict_SetItem(d, wk_n.over, Py_True)
            || PyDict_SetItem(d, wk_n.terminations, flags)
            || PyDict_SetItem(d, wk_n.agent_selection, wk_seats[1 - mover]);
        Py_XDECREF(flags);
    }
    Py_XDECREF(count);
    Py_XDECREF(info);
    Py_XDECREF(other);
    Py_XDECREF(infos);
    Py_DECREF(result);
    if (err && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "step() failed");
    return err ? NULL : Py_NewRef(Py_None);
}

/* ---- the end of an episode ---------------------------------------------------------------- */

/* terminations[a] or truncations[a] as a truth value; 2 where a key is missing */
static int is_dead(PyObject *term, PyObject *trunc, PyObject *a) {
    PyObject *v = PyDict_GetItemWithError(term, a);
    int t = v == NULL ? (PyErr_Occurred() ? -1 : 2) : PyObject_IsTrue(v);
    if (t != 0) return t;
    v = PyDict_GetItemWithError(trunc, a);
    return v == NULL ? (PyErr_Occurred() ? -1 : 2) : PyObject_IsTrue(v);
}

/* step(None) for the terminated agent to act once the episode is over, as
 * raw_env._dead_step and PettingZoo's AECEnv._was_dead_step do it: its entries leave
 * agents and the five dicts, the next dead agent (else the one saved in
 * _skip_agent_selection) is selected, the rewards are zeroed. Only the common form is
 * done here (the env's own class, plain dicts and list, the agent listed once and in every
 * dict): 1 where it is not, with nothing changed (Python then runs); 0 done, -1 error. */
int wk_dead_step(PyObject *env, PyObject *d) {
    PyObject *names[5] = {wk_n.terminations, wk_n.truncations, wk_n.rewards, wk_n.cumulative,
                          wk_n.infos};
    PyObject *dicts[5], *agents = wk_attr(d, wk_n.agents);
    PyObject *agent = wk_attr(d, wk_n.agent_selection);
    PyObject *episode = wk_attr(d, wk_n.episode), *next = NULL;
    if (Py_TYPE(env) != wk_env_type || wk_attr(d, wk_n.over) != Py_True || episode == NULL
        || episode == Py_None || agent == NULL || agents == NULL || !PyList_CheckExact(agents))
        return PyErr_Occurred() ? -1 : 1;
    for (int k = 0; k < 5; k++)
        if ((dicts[k] = wk_attr(d, names[k])) == NULL || !PyDict_CheckExact(dicts[k]))
            return PyErr_Occurred() ? -1 : 1;
    Py_ssize_t n = PyList_GET_SIZE(agents), at = -1;
    for (Py_ssize_t i = 0; i < n; i++) {  /* where agent is listed (once), the next dead */
        PyObject *a = PyList_GET_ITEM(agents, i);
        int eq = PyObject_RichCompareBool(a, agent, Py_EQ);
        if (eq < 0 || (eq && at >= 0)) return eq < 0 ? -1 : 1;
        int dead = eq ? 0 : is_dead(dicts[0], dicts[1], a);
        if (dead < 0 || dead == 2) return dead < 0 ? -1 : 1;
        if (eq) at = i;
        else if (dead && next == NULL) next = a;
    }
    int dead = at < 0 ? 1 : is_dead(dicts[0], dicts[1], agent);
    if (at < 0 || dead != 1) return dead < 0 ? -1 : 1;
    for (int k = 0; k < 5; k++) {
        int has = PyDict_Contains(dicts[k], agent);
        if (has <= 0) return has < 0 ? -1 : 1;
    }
    Py_INCREF(agent);
    Py_XINCREF(next);
    int err = PyDict_SetItem(d, wk_n.has_updated, Py_True);
    for (int k = 0; k < 5 && !err; k++) err = PyDict_DelItem(dicts[k], agent);
    err = err || PyList_SetSlice(agents, at, at + 1, NULL);
    PyObject *skip = err ? NULL : PyDict_GetItemWithError(d, wk_n.skip);
    if (err || PyErr_Occurred()) err = 1;
    else if (next != NULL)
        err = ((skip == NULL || skip == Py_None) && PyDict_SetItem(d, wk_n.skip, agent))
            || PyDict_SetItem(d, wk_n.agent_selection, next);
    else
        err = (skip != NULL && skip != Py_None && PyDict_SetItem(d, wk_n.agent_selection, skip))
            || PyDict_SetItem(d, wk_n.skip, Py_None);
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (!err && PyDict_Next(dicts[2], &pos, &key, &value))  /* values only: keys stay */
        err = PyDict_SetItem(dicts[2], key, wk_int_zero);
    Py_DECREF(agent);
    Py_XDECREF(next);
    return err ? -1 : 0;
}
