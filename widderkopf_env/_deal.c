/* The seeded deal's shuffle in C: deals.seeded_variant_deal after its hash.
 *
 * deals.py hashes the seed's text with BLAKE2b (hashlib) to a 64-byte digest, reads it
 * as a little-endian 512-bit int x, and shuffles the deck by Fisher-Yates with the
 * swaps read off x: j = x mod (i + 1), x = x div (i + 1), for i = n - 1 down to 1. Those
 * n - 1 mixed-radix digits of x depend only on x mod n!, so deals.py's reduction modulo
 * n! is left out here. x is held as sixteen 32-bit limbs and divided with 64-bit
 * intermediates (portable C99: no 128-bit type), by a product of several consecutive
 * radices at a time; the remainder is then split into those radices' digits.
 * tests/core/test_seeded_deals.py compares this with the Python code, deal by deal.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define DIGEST_BYTES 64
#define LIMBS (DIGEST_BYTES / 4)
#define MAX_DECK 36

/* x := x div d (x: LIMBS little-endian limbs, the top ones zero from index *top up);
 * returns x mod d. d >= 1 and below 2**32. */
static uint32_t divide(uint32_t *x, int *top, uint32_t d) {
    uint64_t rem = 0;
    for (int k = *top - 1; k >= 0; k--) {
        uint64_t cur = (rem << 32) | x[k];
        x[k] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    while (*top > 0 && x[*top - 1] == 0) (*top)--;
    return (uint32_t)rem;
}

/* Fisher-Yates over cards[0..n), the swaps read off the digest as deals.py does. */
static void shuffle(const unsigned char *digest, long *cards, int n) {
    uint32_t x[LIMBS];
    for (int k = 0; k < LIMBS; k++) {
        const unsigned char *b = digest + 4 * k;
        x[k] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16
               | (uint32_t)b[3] << 24;
    }
    int top = LIMBS;
    int i = n - 1;
    while (i >= 1) {
        /* the radices i + 1, i, ..., last + 1 of one division: their product < 2**32 */
        uint64_t product = (uint64_t)(i + 1);
        int last = i - 1;
        while (last >= 1 && product * (uint64_t)(last + 1) <= UINT32_MAX) {
            product *= (uint64_t)(last + 1);
            last--;
        }
        uint32_t r = divide(x, &top, (uint32_t)product);
        for (; i > last; i--) {
            long j = (long)(r % (uint32_t)(i + 1));
            r /= (uint32_t)(i + 1);
            long t = cards[i];
            cards[i] = cards[j];
            cards[j] = t;
        }
    }
}

static PyObject *int_list(const long *cards, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLong(cards[k]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, v);
    }
    return out;
}

/* shuffled_deal(digest, cards, hand_size, piles): the deal of deals.seeded_variant_deal */
static PyObject *shuffled_deal(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "shuffled_deal(digest, cards, hand_size, piles)");
        return NULL;
    }
    if (!PyBytes_Check(args[0]) || PyBytes_GET_SIZE(args[0]) != DIGEST_BYTES) {
        PyErr_SetString(PyExc_ValueError, "shuffled_deal: digest must be 64 bytes");
        return NULL;
    }
    long hand = PyLong_AsLong(args[2]), piles = PyLong_AsLong(args[3]);
    if ((hand == -1 || piles == -1) && PyErr_Occurred()) return NULL;
    PyObject *seq = PySequence_Fast(args[1], "shuffled_deal: cards must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (hand < 0 || piles < 0 || n > MAX_DECK || n != 2 * (hand + 2 * piles)) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "shuffled_deal: %zd cards cannot deal %ld hand cards "
                     "and %ld piles to each of two players (at most %d cards)",
                     n, hand, piles, MAX_DECK);
        return NULL;
    }
    long cards[MAX_DECK];
    for (Py_ssize_t k = 0; k < n; k++) {
        cards[k] = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (cards[k] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    shuffle((const unsigned char *)PyBytes_AS_STRING(args[0]), cards, (int)n);
    PyObject *out = PyTuple_New(2);
    if (out == NULL) return NULL;
    int sizes[3] = {(int)hand, (int)piles, (int)piles};
    for (int p = 0; p < 2; p++) {
        PyObject *part = PyTuple_New(3);
        if (part == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, p, part);
        const long *at = cards + p * (n / 2);
        for (int k = 0; k < 3; k++) {
            PyObject *list = int_list(at, sizes[k]);
            if (list == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            PyTuple_SET_ITEM(part, k, list);
            at += sizes[k];
        }
    }
    return out;
}

PyMethodDef wk_deal_methods[] = {
    {"shuffled_deal", (PyCFunction)(void (*)(void))shuffled_deal, METH_FASTCALL,
     "shuffled_deal(digest, cards, hand_size, piles) -> ((hand, up, down), (hand, up, down)):"
     " the deck shuffled with the swaps read off the 64-byte digest (deals.py)"},
    {NULL, NULL, 0, NULL},
};
