/* The seeded deal's shuffle in C: deals.seeded_variant_deal after its hash.
 *
 * deals.py hashes the seed's text with BLAKE2b (hashlib) to a 64-byte digest, reads it
 * as a little-endian 512-bit int x, and shuffles the deck by Fisher-Yates with the
 * swaps read off x: j = x mod (i + 1), x = x div (i + 1), for i = n - 1 down to 1. Those
 * n - 1 mixed-radix digits of x depend only on x mod n!, so deals.py's reduction modulo
 * n! is left out here. x is held as sixteen 32-bit limbs and divided with 64-bit
 * intermediates (portable C99: no 128-bit type), by a product of several consecutive
 * radices at a time (constants for the full deck); the remainder is then split into
 * those radices' digits.
 * tests/core/test_seeded_deals.py compares this with the Python code, deal by deal.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define DIGEST_BYTES 64
#define LIMBS (DIGEST_BYTES / 4)
#define MAX_DECK 36

/* x := x div D, r := x mod D (x: LIMBS little-endian limbs, those from top up zero);
 * D >= 1 and below 2**32. A macro, so that a literal D divides by a constant (which a
 * compiler turns into a multiplication). */
#define DIVIDE(x, top, D, r)                                                      \
    do {                                                                          \
        uint64_t rem_ = 0;                                                        \
        for (int k_ = (top) - 1; k_ >= 0; k_--) {                                 \
            uint64_t cur_ = (rem_ << 32) | (x)[k_];                               \
            (x)[k_] = (uint32_t)(cur_ / (D));                                     \
            rem_ = cur_ % (D);                                                    \
        }                                                                         \
        while ((top) > 0 && (x)[(top) - 1] == 0) (top)--;                         \
        (r) = (uint32_t)rem_;                                                     \
    } while (0)

/* the swap of Fisher-Yates' step i (radix R = i + 1), its digit taken off r */
#define SWAP_STEP(cards, r, R)                                                    \
    do {                                                                          \
        long j_ = (long)((r) % (uint32_t)(R)), t_ = (cards)[(R) - 1];             \
        (r) /= (uint32_t)(R);                                                     \
        (cards)[(R) - 1] = (cards)[j_];                                           \
        (cards)[j_] = t_;                                                         \
    } while (0)

/* The full deck (n = 36): the radices 36..2 in five groups whose products fit 32 bits,
 * every divisor a constant. */
static void shuffle36(uint32_t *x, int top, long *cards) {
    uint32_t r;
    DIVIDE(x, top, UINT32_C(1402410240), r);  /* 36 * 35 * ... * 31 */
    SWAP_STEP(cards, r, 36); SWAP_STEP(cards, r, 35); SWAP_STEP(cards, r, 34);
    SWAP_STEP(cards, r, 33); SWAP_STEP(cards, r, 32); SWAP_STEP(cards, r, 31);
    DIVIDE(x, top, UINT32_C(427518000), r);  /* 30 * ... * 25 */
    SWAP_STEP(cards, r, 30); SWAP_STEP(cards, r, 29); SWAP_STEP(cards, r, 28);
    SWAP_STEP(cards, r, 27); SWAP_STEP(cards, r, 26); SWAP_STEP(cards, r, 25);
    DIVIDE(x, top, UINT32_C(1744364160), r);  /* 24 * ... * 18 */
    SWAP_STEP(cards, r, 24); SWAP_STEP(cards, r, 23); SWAP_STEP(cards, r, 22);
    SWAP_STEP(cards, r, 21); SWAP_STEP(cards, r, 20); SWAP_STEP(cards, r, 19);
    SWAP_STEP(cards, r, 18);
    DIVIDE(x, top, UINT32_C(980179200), r);  /* 17 * ... * 10 */
    SWAP_STEP(cards, r, 17); SWAP_STEP(cards, r, 16); SWAP_STEP(cards, r, 15);
    SWAP_STEP(cards, r, 14); SWAP_STEP(cards, r, 13); SWAP_STEP(cards, r, 12);
    SWAP_STEP(cards, r, 11); SWAP_STEP(cards, r, 10);
    DIVIDE(x, top, UINT32_C(362880), r);  /* 9 * ... * 2 */
    SWAP_STEP(cards, r, 9); SWAP_STEP(cards, r, 8); SWAP_STEP(cards, r, 7);
    SWAP_STEP(cards, r, 6); SWAP_STEP(cards, r, 5); SWAP_STEP(cards, r, 4);
    SWAP_STEP(cards, r, 3); SWAP_STEP(cards, r, 2);
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
    if (n == 36) {
        shuffle36(x, top, cards);
        return;
    }
    int i = n - 1;
    while (i >= 1) {
        /* the radices i + 1, i, ..., last + 1 of one division: their product < 2**32 */
        uint64_t product = (uint64_t)(i + 1);
        int last = i - 1;
        while (last >= 1 && product * (uint64_t)(last + 1) <= UINT32_MAX) {
            product *= (uint64_t)(last + 1);
            last--;
        }
        uint32_t r;
        DIVIDE(x, top, (uint32_t)product, r);
        for (; i > last; i--) SWAP_STEP(cards, r, i + 1);
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
