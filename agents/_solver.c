/* The perfect-information endgame search in C: an optional accelerator for agents/solver.py.
 *
 * Searcher(trump, rev) holds the transposition table of one world (the trump suit and
 * rev[c], the bit of the face-down card under face-up card c, in solver labels), and
 * Searcher.search(aL, aO, live, R, n, alpha, beta) is the twin of the function that
 * solver.make_search returns: the card points the leader (playable set aL) takes from the
 * n remaining tricks (live: unplayed cards, R: their points), fail-soft within
 * (alpha, beta). It visits the same moves in the same order and keeps the same table
 * entries (lo, hi, best move) as the Python search, so it returns the very same values;
 * tests/test_solver_accel.py compares the two.
 *
 * No rule is written here: solver.py passes its labelled tables (solver.TABLES: card
 * points, what follows what, what beats what, the classes) to configure() at import.
 * Cards are 36-bit sets in uint64_t, labels in power order (see solver.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NCARDS 36
#define ALL36 ((UINT64_C(1) << NCARDS) - 1)
#define BIT(c) (UINT64_C(1) << (c))
#define MAX_TRICKS 18
#define MAX_POINTS 250  /* R is at most 121; the table packs values in 10 bits */
#define WINDOW 100000   /* alpha and beta are clamped to +-WINDOW (far outside any value) */

#if defined(_MSC_VER)
#include <intrin.h>
#define PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
static inline int low_bit(uint64_t x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
static inline int top_bit(uint64_t x) {
    unsigned long i;
    return _BitScanReverse64(&i, x) ? (int)i : 0;
}
#else
#define PREFETCH(p) __builtin_prefetch(p)
static inline int low_bit(uint64_t x) { return __builtin_ctzll(x); }
static inline int top_bit(uint64_t x) { return x ? 63 - __builtin_clzll(x) : 0; }
#endif

static inline int popcount(uint64_t x) {
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

/* ---- the rule tables of each trump suit, from solver.TABLES ---------------------------- */

typedef struct {
    int pts[NCARDS];              /* card points (the Spitzer's extra point included) */
    uint64_t follow[NCARDS];      /* the cards that follow card c */
    uint8_t beats[NCARDS * NCARDS]; /* beats[a * 36 + b]: b beats the lead a */
    int block[NCARDS];            /* the class (trumps, or one plain suit) of card c */
} Tables;

static Tables tables[4];
static int configured = 0;

/* seq as n ints in [lo, hi], through the sequence protocol (tuples, bytes, lists) */
static int read_ints(PyObject *seq, Py_ssize_t n, long long lo, long long hi, long long *out,
                     const char *what) {
    PyObject *fast = PySequence_Fast(seq, "a sequence of ints was expected");
    if (fast == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %zd entries", what, n);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (v < lo || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %lld is out of range", what, i, v);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(fast);
    return 0;
}

/* configure(tables): for each trump suit 0..3, (pts, follow, beats, block) as in
 * solver.TABLES[t][2:] (36 ints, 36 card sets, 36 * 36 bytes, 36 ints) */
static PyObject *configure(PyObject *self, PyObject *arg) {
    (void)self;
    static Tables fresh[4];
    static long long buf[NCARDS * NCARDS];
    configured = 0;  /* unusable until configured right */
    PyObject *all = PySequence_Fast(arg, "configure: tables must be a sequence");
    if (all == NULL) return NULL;
    int ok = PySequence_Fast_GET_SIZE(all) == 4;
    if (!ok) PyErr_SetString(PyExc_ValueError, "configure: one entry per trump suit (4)");
    for (Py_ssize_t t = 0; ok && t < 4; t++) {
        PyObject *parts = PySequence_Fast(PySequence_Fast_GET_ITEM(all, t), "configure: an "
                                          "entry is (pts, follow, beats, block)");
        ok = parts != NULL && PySequence_Fast_GET_SIZE(parts) == 4;
        if (parts != NULL && !ok)
            PyErr_SetString(PyExc_ValueError, "configure: an entry is (pts, follow, beats, "
                            "block)");
        Tables *tab = &fresh[t];
        ok = ok && !read_ints(PySequence_Fast_GET_ITEM(parts, 0), NCARDS, 0, 100, buf,
                              "configure: pts");
        for (int i = 0; ok && i < NCARDS; i++) tab->pts[i] = (int)buf[i];
        ok = ok && !read_ints(PySequence_Fast_GET_ITEM(parts, 1), NCARDS, 0,
                              (long long)ALL36, buf, "configure: follow");
        for (int i = 0; ok && i < NCARDS; i++) tab->follow[i] = (uint64_t)buf[i];
        ok = ok && !read_ints(PySequence_Fast_GET_ITEM(parts, 2), NCARDS * NCARDS, 0, 1, buf,
                              "configure: beats");
        for (int i = 0; ok && i < NCARDS * NCARDS; i++) tab->beats[i] = (uint8_t)buf[i];
        ok = ok && !read_ints(PySequence_Fast_GET_ITEM(parts, 3), NCARDS, 0, NCARDS, buf,
                              "configure: block");
        for (int i = 0; ok && i < NCARDS; i++) tab->block[i] = (int)buf[i];
        Py_XDECREF(parts);
    }
    Py_DECREF(all);
    if (!ok) return NULL;
    memcpy(tables, fresh, sizeof tables);
    configured = 1;
    Py_RETURN_NONE;
}

/* ---- the transposition table ---------------------------------------------------------- */

/* An entry: the key (aL, aO) and the value (lo, hi, best move) in two words. The second
 * word holds aO in bits 0..35, best move + 1 in bits 36..41, lo + 512 and hi + 512 in
 * 10 bits each from bit 42 and bit 52, and bit 63 marks a used slot. */
typedef struct { uint64_t a, b; } Entry;

#define USED (UINT64_C(1) << 63)
#define FIELD(b, shift, width) ((int)(((b) >> (shift)) & ((UINT64_C(1) << (width)) - 1)))

static inline int entry_bm(uint64_t b) { return FIELD(b, 36, 6) - 1; }
static inline int entry_lo(uint64_t b) { return FIELD(b, 42, 10) - 512; }
static inline int entry_hi(uint64_t b) { return FIELD(b, 52, 10) - 512; }

static inline uint64_t pack(uint64_t aO, int lo, int hi, int bm) {
    return USED | aO | (uint64_t)(bm + 1) << 36 | (uint64_t)((lo + 512) & 1023) << 42
           | (uint64_t)((hi + 512) & 1023) << 52;
}

typedef struct {
    PyObject_HEAD
    int trump;
    const Tables *tab;
    uint64_t rev[NCARDS];
    int kind[NCARDS];  /* cards of one kind (class and points, none face down under them)
                        * are interchangeable when no unplayed card lies between them */
    Entry *slots;  /* open addressing, linear probing; a power of two of them */
    size_t cap, count;
    int shift;     /* 64 - log2(cap) */
} Searcher;

static inline size_t slot_of(const Searcher *s, uint64_t aL, uint64_t aO) {
    return (size_t)((((aL << 28) ^ aO) * UINT64_C(0x9E3779B97F4A7C15)) >> s->shift);
}

/* the used slot of key (aL, aO), or the empty one where it would go */
static inline Entry *probe(const Searcher *s, uint64_t aL, uint64_t aO) {
    size_t mask = s->cap - 1, i = slot_of(s, aL, aO);
    for (;;) {
        Entry *e = &s->slots[i];
        if (!(e->b & USED) || (e->a == aL && (e->b & ALL36) == aO)) return e;
        i = (i + 1) & mask;
    }
}

static int tt_alloc(Searcher *s, int bits) {
    Entry *old = s->slots;
    size_t old_cap = s->cap;
    Entry *slots = calloc((size_t)1 << bits, sizeof(Entry));
    if (slots == NULL) return -1;
    s->slots = slots;
    s->cap = (size_t)1 << bits;
    s->shift = 64 - bits;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].b & USED) *probe(s, old[i].a, old[i].b & ALL36) = old[i];
    free(old);
    return 0;
}

/* Stores (lo, hi, bm) under (aL, aO). The table doubles at half full; should that
 * allocation fail it keeps its size and, once nearly full, drops new entries (the table
 * only saves work: the values the search returns stay right). */
static void tt_store(Searcher *s, uint64_t aL, uint64_t aO, int lo, int hi, int bm) {
    Entry *e = probe(s, aL, aO);
    if (!(e->b & USED)) {
        if (2 * (s->count + 1) > s->cap && tt_alloc(s, 65 - s->shift) == 0)
            e = probe(s, aL, aO);
        else if (s->count + 2 > s->cap)
            return;
        s->count++;
        e->a = aL;
    }
    e->b = pack(aO, lo, hi, bm);
}

/* ---- the search (solver.make_search, line by line) ------------------------------------ */

/* cards (a set) weakest first, without the ones interchangeable with a weaker one; the
 * number of them written to out */
static int distinct(const Searcher *s, uint64_t cards, uint64_t live, int *out) {
    if (!cards) return 0;
    int n = 0, prev = low_bit(cards);
    out[n++] = prev;
    for (cards &= cards - 1; cards; cards &= cards - 1) {
        int c = low_bit(cards);
        if (s->kind[c] != s->kind[prev] || (live & (BIT(c) - (BIT(prev) << 1))))
            out[n++] = c;
        prev = c;
    }
    return n;
}

/* exact value for the leader with two tricks left (no pruning needed) */
static int two_left(const Searcher *s, uint64_t aL, uint64_t aO, int R) {
    const Tables *t = s->tab;
    const uint8_t *beats = t->beats;
    int best = -1;
    for (uint64_t leads = aL; leads; leads &= leads - 1) {
        int c = low_bit(leads);
        int cl = top_bit((aL ^ BIT(c)) | s->rev[c]);  /* the leader's last card */
        int pc = t->pts[c], c36 = c * NCARDS;
        int worst = R + 1;
        uint64_t moves = aO & t->follow[c];
        if (!moves) moves = aO;
        for (; moves; moves &= moves - 1) {
            int r = low_bit(moves);
            int ro = top_bit((aO ^ BIT(r)) | s->rev[r]);
            int p = pc + t->pts[r], v;
            if (beats[c36 + r])  /* the follower wins and leads the last trick */
                v = beats[ro * NCARDS + cl] ? R - p : 0;
            else
                v = !beats[cl * NCARDS + ro] ? R : p;
            if (v < worst) worst = v;
        }
        if (worst > best) best = worst;
    }
    return best;
}

static int search(Searcher *s, uint64_t aL, uint64_t aO, uint64_t live, int R, int n,
                  int alpha, int beta) {
    const Tables *t = s->tab;
    const uint8_t *beats = t->beats;
    if (n <= 2) {
        if (n == 2) return two_left(s, aL, aO, R);
        return beats[top_bit(aL) * NCARDS + top_bit(aO)] ? 0 : R;
    }
    Entry *e = probe(s, aL, aO);
    int known = (e->b & USED) != 0, e_lo = -1, e_hi = R + 1, first = -1;
    if (known) {
        e_lo = entry_lo(e->b);
        e_hi = entry_hi(e->b);
        first = entry_bm(e->b);
        if (e_lo >= beta || e_lo == e_hi) return e_lo;
        if (e_hi <= alpha) return e_hi;
        if (e_lo > alpha) alpha = e_lo;
        if (e_hi < beta) beta = e_hi;
    }
    int a0 = alpha, b0 = beta;
    int up[NCARDS], leads[NCARDS];
    int k = distinct(s, aL, live, up);
    for (int i = 0; i < k; i++) leads[i] = up[k - 1 - i];  /* strongest first */
    if (first >= 0) {  /* the table's best move first, the others in their order */
        for (int i = 0; i < k; i++) {
            if (leads[i] == first) {
                memmove(leads + 1, leads, (size_t)i * sizeof(int));
                leads[0] = first;
                break;
            }
        }
    }
    int best = -1, bm = -1, n1 = n - 1;
    for (int i = 0; i < k; i++) {
        int c = leads[i];
        uint64_t nL = (aL ^ BIT(c)) | s->rev[c];
        uint64_t moves = aO & t->follow[c];
        if (!moves) moves = aO;
        int pc = t->pts[c], c36 = c * NCARDS;
        /* replies ordered by the trick's worth to the leader, lowest first (then by label,
         * as Python's sort of (worth, card) pairs) */
        int m = distinct(s, moves, live, up), worth[NCARDS], order[NCARDS];
        for (int j = 0; j < m; j++) {
            int r = up[j], w = beats[c36 + r] ? -pc - t->pts[r] : pc + t->pts[r], h = j;
            while (h > 0 && worth[h - 1] > w) {
                worth[h] = worth[h - 1];
                order[h] = order[h - 1];
                h--;
            }
            worth[h] = w;
            order[h] = r;
        }
        if (n1 > 2) {  /* the replies' table slots, fetched while the first ones are searched */
            for (int j = 0; j < m; j++) {
                int r = order[j];
                uint64_t nO = (aO ^ BIT(r)) | s->rev[r];
                PREFETCH(&s->slots[beats[c36 + r] ? slot_of(s, nO, nL) : slot_of(s, nL, nO)]);
            }
        }
        uint64_t live2 = live ^ BIT(c);
        int lo_b = alpha > best ? alpha : best;
        int worst = R + 1;
        for (int j = 0; j < m; j++) {
            int r = order[j], p = pc + t->pts[r], R2 = R - p, v;
            uint64_t nO = (aO ^ BIT(r)) | s->rev[r];
            int hi_b = beta < worst ? beta : worst;
            if (beats[c36 + r])
                v = R2 - search(s, nO, nL, live2 ^ BIT(r), R2, n1, R2 - hi_b, R2 - lo_b);
            else
                v = p + search(s, nL, nO, live2 ^ BIT(r), R2, n1, lo_b - p, hi_b - p);
            if (v < worst) {
                worst = v;
                if (worst <= lo_b) break;
            }
        }
        if (worst > best) {
            best = worst;
            bm = c;
            if (best >= beta) break;
        }
    }
    /* the recursion may have moved the table: store by key, with the bounds read above */
    if (best <= a0)
        tt_store(s, aL, aO, e_lo, best, bm);
    else if (best >= b0)
        tt_store(s, aL, aO, best, e_hi, bm);
    else
        tt_store(s, aL, aO, best, best, bm);
    return best;
}

/* ---- the Searcher type ----------------------------------------------------------------- */

static int clamp_window(PyObject *v, int *out) {
    int overflow = 0;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x > WINDOW || x < -WINDOW)
        x = (overflow > 0 || x > WINDOW) ? WINDOW : -WINDOW;
    *out = (int)x;
    return 0;
}

static int as_set(PyObject *v, uint64_t *out) {
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (x & ~ALL36) {
        PyErr_SetString(PyExc_ValueError, "card sets are 36-bit");
        return -1;
    }
    *out = x;
    return 0;
}

/* the cards a player holds: the playable ones and those lying face down under them */
static int holding(const Searcher *s, uint64_t avail) {
    int k = popcount(avail);
    for (; avail; avail &= avail - 1) k += s->rev[low_bit(avail)] != 0;
    return k;
}

static PyObject *Searcher_search(Searcher *s, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "search(aL, aO, live, R, n, alpha, beta) takes 7 arguments");
        return NULL;
    }
    uint64_t aL, aO, live;
    int alpha, beta;
    if (as_set(args[0], &aL) || as_set(args[1], &aO) || as_set(args[2], &live)) return NULL;
    long R = PyLong_AsLong(args[3]);
    if (R == -1 && PyErr_Occurred()) return NULL;
    long n = PyLong_AsLong(args[4]);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (clamp_window(args[5], &alpha) || clamp_window(args[6], &beta)) return NULL;
    if (R < 0 || R > MAX_POINTS || n < 1 || n > MAX_TRICKS || (aL & aO)
        || ((aL | aO) & ~live) || holding(s, aL) != n || holding(s, aO) != n) {
        PyErr_SetString(PyExc_ValueError, "search: not a position of this world (each player "
                        "must hold n cards, R must be 0..250)");
        return NULL;
    }
    return PyLong_FromLong(search(s, aL, aO, live, (int)R, (int)n, alpha, beta));
}

static PyObject *Searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"trump", "rev", NULL};
    int trump;
    PyObject *rev_seq;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iO:Searcher", kwlist, &trump, &rev_seq))
        return NULL;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "_solver.configure() was not called");
        return NULL;
    }
    if (trump < 0 || trump > 3) {
        PyErr_SetString(PyExc_ValueError, "trump must be 0..3");
        return NULL;
    }
    long long rev[NCARDS];
    if (read_ints(rev_seq, NCARDS, 0, (long long)ALL36, rev, "Searcher: rev")) return NULL;
    for (int c = 0; c < NCARDS; c++) {
        uint64_t r = (uint64_t)rev[c];
        if ((r & (r - 1)) || r == BIT(c)) {
            PyErr_SetString(PyExc_ValueError, "rev[c] must be 0 or the bit of another card");
            return NULL;
        }
    }
    Searcher *s = (Searcher *)type->tp_alloc(type, 0);
    if (s == NULL) return NULL;
    s->trump = trump;
    s->tab = &tables[trump];
    for (int c = 0; c < NCARDS; c++) {
        s->rev[c] = (uint64_t)rev[c];
        s->kind[c] = rev[c] ? -1 - c : s->tab->block[c] * 256 + s->tab->pts[c];
    }
    if (tt_alloc(s, 10)) {
        Py_DECREF(s);
        return PyErr_NoMemory();
    }
    return (PyObject *)s;
}

static void Searcher_dealloc(Searcher *s) {
    free(s->slots);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *Searcher_get_trump(Searcher *s, void *closure) {
    (void)closure;
    return PyLong_FromLong(s->trump);
}

static PyMethodDef Searcher_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Searcher_search, METH_FASTCALL,
     "search(aL, aO, live, R, n, alpha, beta) -> the points the leader takes from the n "
     "remaining tricks, fail-soft within (alpha, beta) (solver.make_search's search)"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Searcher_get_entries(Searcher *s, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(s->count);
}

static PyGetSetDef Searcher_getset[] = {
    {"trump", (getter)Searcher_get_trump, NULL, "the trump suit of this world", NULL},
    {"entries", (getter)Searcher_get_entries, NULL, "positions in the table", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "widderkopf_env.agents._solver.Searcher",
    .tp_basicsize = sizeof(Searcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Searcher(trump, rev): the search of one world and its transposition table",
    .tp_new = Searcher_new,
    .tp_dealloc = (destructor)Searcher_dealloc,
    .tp_methods = Searcher_methods,
    .tp_getset = Searcher_getset,
};

/* ---- the module ------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"configure", configure, METH_O,
     "configure(tables): for each trump suit, (pts, follow, beats, block) from "
     "solver.TABLES"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_solver",
    .m_doc = "Optional C accelerator for widderkopf_env.agents.solver (see solver.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__solver(void) {
    if (PyType_Ready(&SearcherType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&SearcherType);
    if (PyModule_AddObject(m, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(&SearcherType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
