/* The one way the C files name a Python attribute: an interned string, made once. A file
 * keeps its names as static PyObject * beside the code that uses them, lists them in a
 * wk_name table (or, for names it already has in a table of its own, calls wk_intern for
 * each) and interns them before their first use: at module init, or on the first call.
 * Included after <Python.h>. */
#ifndef WIDDERKOPF_NAMES_H
#define WIDDERKOPF_NAMES_H

typedef struct {
    PyObject **var;
    const char *text;
} wk_name;

/* *var := the interned `text`, unless it is set already; -1 with the exception set */
static inline int wk_intern(PyObject **var, const char *text) {
    if (*var == NULL) *var = PyUnicode_InternFromString(text);
    return *var == NULL ? -1 : 0;
}

/* every name of the table interned (wk_intern); -1 with the exception set */
static inline int wk_intern_names(const wk_name *names, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (wk_intern(names[k].var, names[k].text)) return -1;
    return 0;
}

#define WK_INTERN_TABLE(table) wk_intern_names(table, sizeof(table) / sizeof((table)[0]))

#endif
